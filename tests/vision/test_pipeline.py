"""The photo pipeline and `xingzi score photo.jpg`, with a fake detector (no weights needed)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.engine.melds import MeldKind
from xingzi.engine.notation import parse_meld, parse_tiles
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, Tile
from xingzi.vision import pipeline
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.photo import MAX_SIDE, decode_image, load_image
from xingzi.vision.pipeline import (
    Context,
    analyse,
    apply_corrections,
    detect_hand,
    read_photo,
)

W, H = 1280, 960


class Fake:
    def __init__(self, detections: Detections) -> None:
        self.detections = detections

    def predict(self, image: np.ndarray) -> Detections:
        return self.detections


def hand_detections() -> Detections:
    """123m456m789p12s55p + 3s on a 1280x960 photo: 3 炮 on a discard, 4 on a self-draw."""
    return hand_layout("123m456m789p12s55p", "3s", size=70, center=(W / 2, H / 2)).detections


class SecondOpinionFake:
    """A detector with a second opinion: reads ``usual``, or ``asked`` when the second opinion is asked."""

    second = "a second model"

    def __init__(self, usual: Detections, asked: Detections) -> None:
        self.usual, self.asked, self.asks = usual, asked, 0

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        self.asks += int(ask_second)
        return self.asked if ask_second else self.usual


def _one_tile_short() -> Detections:
    det = hand_detections()
    return det.subset(np.arange(len(det)) != 3)


@pytest.mark.parametrize(("usual", "asked", "asks", "taken"), [
    pytest.param("legal", "short", 0, "usual", id="legal-reading-asks-nothing"),
    pytest.param("short", "legal", 1, "asked", id="illegal-reading-takes-a-legal-second-opinion"),
    pytest.param("short", "short", 1, "usual", id="second-opinion-no-better-keeps-the-first"),
])
def test_a_reading_that_makes_no_hand_asks_the_second_opinion(usual, asked, asks, taken):
    made = {"legal": hand_detections(), "short": _one_tile_short()}
    fake = SecondOpinionFake(made[usual], made[asked])
    got, reading = detect_hand(fake, np.zeros((H, W, 3), np.uint8))
    assert fake.asks == asks
    expected = fake.usual if taken == "usual" else fake.asked
    assert np.array_equal(got.xyxy, expected.xyxy) and np.array_equal(got.conf, expected.conf)
    assert got.up is not None and got.up.shape == (len(expected), 2)  # each face's top measured in the photo
    again = group(got)
    assert (reading.notation, reading.roles) == (again.notation, again.roles)


def test_a_detector_without_a_second_opinion_is_read_once():
    calls = []

    class Plain(Fake):
        def predict(self, image: np.ndarray) -> Detections:
            calls.append(1)
            return self.detections

    got, reading = detect_hand(Plain(_one_tile_short()), np.zeros((H, W, 3), np.uint8))
    assert len(got) == 13 and reading.tile_count == 13 and calls == [1]


def test_read_photo_scores_the_second_opinion_when_the_first_reading_makes_no_hand(photo_path):
    res = read_photo(photo_path, SecondOpinionFake(_one_tile_short(), hand_detections()), Context(self_draw=False))
    assert res.result is not None and res.result["valid"] and res.reading.tile_count == 14
    assert set(res.timings) >= {"decode", "detect"} and all(0 <= s < 60 for s in res.timings.values())  # seconds


def test_the_picture_numbers_its_tiles_only_when_asked():
    image = np.full((960, 1280, 3), 60, np.uint8)
    detections = hand_detections()
    plain, asked = analyse(image, detections), analyse(image, detections, numbered=True)
    assert plain.tag_boxes == analyse(image, detections, numbered=False).tag_boxes
    assert sorted(plain.tag_boxes) == sorted(asked.tag_boxes)
    widths = [(plain.tag_boxes[i][2] - plain.tag_boxes[i][0], asked.tag_boxes[i][2] - asked.tag_boxes[i][0])
              for i in plain.tag_boxes]
    assert all(numbered > bare for bare, numbered in widths)  # "#3" written beside the face


def test_the_command_and_the_page_read_with_the_shipped_gate_for_the_second_opinion():
    from xingzi.vision.detector import SECOND_DOUBT
    from xingzi.vision.pipeline import make_detector

    assert make_detector(None, None).second_doubt == SECOND_DOUBT
    assert make_detector(None, None, second_doubt=0.5).second_doubt == 0.5


def encode(image: Image.Image, fmt: str = "JPEG", **kw) -> bytes:
    buf = io.BytesIO()
    image.save(buf, fmt, **kw)
    return buf.getvalue()


@pytest.fixture
def photo_path(tmp_path):
    path = tmp_path / "hand.jpg"
    path.write_bytes(encode(Image.new("RGB", (W, H), (50, 120, 40))))
    return path


@pytest.mark.parametrize(
    "data,message",
    [
        pytest.param(b"", "upload is empty", id="empty"),
        pytest.param(b"GIF89a nonsense", "not an image", id="broken-gif"),
        pytest.param(b"%PDF-1.4", "not an image", id="pdf"),
        pytest.param(encode(Image.new("RGB", (640, 480)))[:800], "cannot be decoded", id="truncated-jpeg"),
    ],
)
def test_decode_refuses_what_is_no_photo(data, message):
    with pytest.raises(ValueError, match=message):
        decode_image(data)


def test_an_empty_photo_file_is_called_an_empty_file_not_an_upload(tmp_path):
    (tmp_path / "hand.jpg").write_bytes(b"")
    with pytest.raises(ValueError, match=r"hand\.jpg is an empty file: expected a JPEG"):
        load_image(tmp_path / "hand.jpg")


def test_decode_refuses_too_many_pixels_before_decoding():
    data = encode(Image.new("RGB", (3000, 2000)))
    with pytest.raises(ValueError, match=r"3000x2000 = 6 megapixels; at most 5 are accepted"):
        decode_image(data, max_pixels=5_000_000)


def test_decode_scales_down_and_follows_exif_rotation():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    data = encode(Image.new("RGB", (4000, 3000), (200, 10, 10)), exif=exif)
    bgr = decode_image(data)
    assert bgr.shape == (MAX_SIDE, MAX_SIDE * 3 // 4, 3)
    assert bgr.dtype == np.uint8
    assert [int(v) for v in bgr[10, 10]] == pytest.approx([10, 10, 200], abs=4)


def test_load_image_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="photo not found"):
        load_image(tmp_path / "missing.jpg")
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        load_image(np.zeros((4, 4), np.float32))


def test_read_photo_scores_and_annotates(photo_path):
    res = read_photo(photo_path, Fake(hand_detections()), Context(self_draw=True))
    assert res.error is None and res.result["own"] == 4
    assert res.annotated.shape == (H, W, 3) and (res.annotated != res.image).any()
    out = res.to_json()
    assert out["valid"] is True and out["reading"]["notation"] == "123456m55789p12s 3s"
    assert out["situation"]["self_draw"] is True
    assert set(out["timings_ms"]) == {"decode", "detect", "group", "score", "draw"}


@pytest.mark.parametrize(
    "detections,error",
    [
        pytest.param(Detections.empty(), "no tiles found", id="empty-table"),
        pytest.param(hand_layout("123m456m789p1s55p", "3s").detections, "has 14 tiles", id="13-tiles"),
    ],
)
def test_unscorable_tables_give_an_error_not_a_crash(photo_path, detections, error):
    res = read_photo(photo_path, Fake(detections), Context(), as_read=True)
    assert res.result is None and error in res.error
    assert res.to_json()["valid"] is False


def test_tiles_set_aside_by_the_user_leave_the_score_and_keep_their_index():
    fa_box = [[W / 2 - 200, H / 2 + 120, W / 2 - 150, H / 2 + 190]]  # a 发 on the table below the hand
    det = with_tiles(hand_detections(), fa_box, [Tile.FA.index])
    img = np.full((H, W, 3), 60, np.uint8)
    counted = analyse(img, det, Context())
    assert counted.result["own"] == 4 and counted.reading.fa == 1  # 发 as a bonus tile: +1 炮
    res = analyse(img, det, Context(), ignored=[14])
    assert res.result["own"] == 3 and res.reading.fa == 0
    tiles = res.to_json()["reading"]["tiles"]
    assert len(tiles) == 15 and tiles[14]["role"] == "ignored" and tiles[14]["index"] == 14
    assert not any(c.detection == 14 for s in res.diagnosis.suggestions for c in s.changes)


def test_corrections_are_checked():
    det = hand_detections()
    assert apply_corrections(det, {10: Tile.S5.index}).cls[10] == Tile.S5.index
    with pytest.raises(ValueError, match="there are 14 tiles"):
        apply_corrections(det, {14: 0})
    with pytest.raises(ValueError, match="class must be 0..30"):
        apply_corrections(det, {0: -1})


def test_score_command_on_a_photo(photo_path, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(hand_detections()))
    out = tmp_path / "annotated.jpg"
    code = main(["score", str(photo_path), "--self-draw", "--dealer", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "read      123456m55789p12s 3s" in text
    assert "self_draw" in text and "single_wait" in text
    assert "pays 8" in text
    assert Image.open(out).size == (W, H)


def test_score_command_json_on_a_photo(photo_path, monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(hand_detections()))
    payer = "dealer; fa=2; pung 中; concealed_kong 4s"
    assert main(["score", str(photo_path), "--json", "--payer", payer]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["own"], body["payments"][0]["pao"], body["payments"][0]["amount"]) == (3, 8, 16)
    assert body["reading"]["legal"] is True and len(body["reading"]["tiles"]) == 14


@pytest.mark.parametrize("extra,which_line,own_line", [
    pytest.param([], "which won 2 炮 if 1m 4m 6m 9p 1s won · 3 炮 if 2m 3m 5m 5p 7p 8p 2s 3s won (scored: 3s)",
                 "own       3 炮", id="guessed-and-choices-shown"),
    pytest.param(["--win", "4m"], None, "own       2 炮", id="user-says-4m-not-asked-again"),
])
def test_score_command_offers_and_takes_the_winning_tile(extra, which_line, own_line, photo_path, monkeypatch,
                                                         capsys):
    in_row = hand_layout("123m456m789p12s55p", "3s", size=70, center=(W / 2, H / 2), win_apart=False).detections
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(in_row))
    assert main(["score", str(photo_path), *extra]) == 0
    text = capsys.readouterr().out
    assert own_line in text
    assert f"{which_line} (--win TILE says which)" in text if which_line else "which won" not in text


def test_score_command_offers_the_faces_of_a_face_down_kong(photo_path, monkeypatch, capsys):
    down = hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD", size=70,
                       center=(W / 2, H / 2)).detections
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(down))
    assert main(["score", str(photo_path)]) == 0
    text = capsys.readouterr().out
    assert "face-down kong 4 炮 if 4m 5m 6m 7m 8m 9m 1p 2p 3p 4p 6p 7p 8p 1s 2s 3s 7s 8s 9s · 6 炮 if 中 白 " \
           "(scored: 1p) (--fix a tile at one of its ends: --tiles lists them)" in text
    assert "which won" not in text  # the winning tile was set apart
    back = int(np.flatnonzero(down.cls == BACK_CLASS)[0])
    assert main(["score", str(photo_path), "--fix", f"{back}=中"]) == 0  # one of its tiles named: the kong's face
    text = capsys.readouterr().out
    assert "face-down kong" not in text and "concealed_kong 中" in text and "own       6 炮" in text


def test_score_command_claims_a_meld_the_photo_hides(photo_path, monkeypatch, capsys):
    tray = hand_layout("22288m66s中中中", "6s", ["pung 8s"], gap=0.0, sideways_at=-1, size=70,
                       center=(W / 2, H / 2)).detections
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(tray))
    assert main(["score", str(photo_path)]) == 0
    assert "own       17 炮" in capsys.readouterr().out  # the 8s pung read as a concealed triplet
    assert main(["score", str(photo_path), "--claim", "8s"]) == 0
    text = capsys.readouterr().out
    assert "melds     pung 8s" in text and "own       12 炮" in text
    assert main(["score", str(photo_path), "--claim", "8m"]) == 2  # only two 8m stand
    assert "2 8m stand in the hand" in capsys.readouterr().err
    assert main(["score", str(photo_path), "--claim", "9p"]) == 2
    assert "claimed meld 9p: no 9p stands in the hand read from the photo" in capsys.readouterr().err


def test_score_command_win_must_stand_in_the_hand(photo_path, monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(hand_detections()))
    assert main(["score", str(photo_path), "--win", "9s"]) == 2
    assert "winning tile 9s: no 9s stands in the hand read from the photo" in capsys.readouterr().err
    assert main(["score", str(photo_path), "--win", "3s"]) == 0  # the tile set apart, named: no change
    assert "which won" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,message",
    [
        pytest.param(["score", "nowhere.jpg"], "photo not found", id="missing-photo"),
        pytest.param(["score", "PHOTO", "--out", "x.gif"], "expected a .jpg or .png", id="bad-out"),
    ],
)
def test_score_command_bad_input(argv, message, photo_path, monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(hand_detections()))
    argv = [str(photo_path) if a == "PHOTO" else a for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_bundled_demo_photo_scores_as_its_ground_truth(capsys):
    """examples/demo.jpg with its true boxes (examples/demo.json): grouping, scoring, drawing end to end."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "examples"
    truth = json.loads((root / "demo.json").read_text(encoding="utf-8"))
    assert main(["score", str(root / "demo.jpg"), "--model", str(root / "demo.json"), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert (body["valid"], body["own"]) == (truth["expect"]["valid"], truth["expect"]["own"])
    assert sorted(body["reading"]["melds"]) == sorted(truth["situation"]["melds"])
    assert body["reading"]["fa"] == truth["situation"]["fa"]
    roles = [t["role"] for t in body["reading"]["tiles"]]
    assert roles == [t["role"] for t in truth["tiles"]]


def test_boxes_file_must_be_a_synth_meta(tmp_path, photo_path):
    bad = tmp_path / "boxes.json"
    bad.write_text('{"no": "tiles"}', encoding="utf-8")
    with pytest.raises(ValueError, match="expected a synth meta JSON"):
        pipeline.make_detector(str(bad), None)
    with pytest.raises(ValueError, match="no second opinion to set"):
        pipeline.make_detector(str(bad), None, ["models/xingzi_yolo11n_s5.onnx"])


@pytest.mark.parametrize(("tile", "message"), [
    pytest.param({"cls": 31, "xyxy": [0, 0, 40, 50]}, r"class ids must be 0..30 \(30 faces, then back\), got \[31\]",
                 id="past-back"),
    pytest.param({"cls": -1, "xyxy": [0, 0, 40, 50]}, r"class ids must be 0..30 .*got \[-1\]", id="negative"),
    pytest.param({"cls": 2**70, "xyxy": [0, 0, 40, 50]}, "expected a synth meta JSON", id="past-int64"),
    pytest.param({"cls": 3, "xyxy": [float("nan"), 0, 40, 50]}, r"got box 1: \[nan, 0.0, 40.0, 50.0\]", id="nan"),
    pytest.param({"cls": 3, "xyxy": [0, 0, float("inf"), 50]}, r"got box 1: \[0.0, 0.0, inf, 50.0\]", id="inf"),
    pytest.param({"cls": 3, "xyxy": [40, 0, 0, 50]}, r"x0 <= x1 and y0 <= y1, got box 1: \[40.0, 0.0, 0.0, 50.0\]",
                 id="x0-past-x1"),
    pytest.param({"cls": 3, "xyxy": [0, 50, 40, 0]}, r"got box 1: \[0.0, 50.0, 40.0, 0.0\]", id="y0-past-y1"),
])
def test_boxes_file_tiles_are_checked(tile, message, tmp_path):
    """A boxes file is written by hand: what no detector gives is refused naming the tile, not met deep in the
    grouping or drawing (NaN: json reads it)."""
    path = tmp_path / "boxes.json"
    path.write_text(json.dumps({"tiles": [{"cls": 0, "xyxy": [0, 0, 40, 50]}, tile]}), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        pipeline.make_detector(str(path), None)


def test_boxes_file_takes_a_box_of_no_width(tmp_path):  # as the detector gives a box clipped at the frame
    path = tmp_path / "boxes.json"
    path.write_text(json.dumps({"tiles": [{"cls": 30, "xyxy": [0, 0, 0, 50]}]}), encoding="utf-8")
    assert pipeline.make_detector(str(path), None).cls.tolist() == [30]


@pytest.mark.parametrize("hand,win,apart,own,wins", [
    # Not set apart: every tile of the row votes for the total it would give; the last tile (the
    # usual place of the drawn tile) has a little extra say, not the final one.
    pytest.param("1112345679999m", "8m", False, 26, "1m2m3m4m5m6m9m", id="guess-outvoted"),
    pytest.param("123m456m789p1255s", "3s", False, 3, "3s", id="guess-with-majority"),
    pytest.param("1112345679999m", "8m", True, 27, "8m", id="set-apart-is-not-voted"),
])
def test_winning_tile_not_set_apart_takes_the_total_most_tiles_give(hand, win, apart, own, wins):
    reading = group(hand_layout(hand, win, [], win_apart=apart).detections)
    situation, result, error = pipeline.score_reading(reading, Context())
    assert error is None and result["valid"]
    assert result["own"] == own
    assert Tile.parse(situation["win_tile"]) in parse_tiles(wins)


@pytest.mark.parametrize("hand,win,melds", [
    pytest.param("123m456m55p12s", "3s", ["concealed_kong 4s"], id="kong-in-suit"),
    pytest.param("123m456m789p5p", "5p", ["concealed_kong 中"], id="dragon-kong"),
])
def test_all_face_down_kong_is_scored_with_a_face_not_in_view(hand, win, melds):
    layout = hand_layout(hand, win, melds, kong_shown="DDDD")
    reading = group(layout.detections)
    assert any("shows no face" in p for p in reading.problems)  # still reported
    situation, result, error = pipeline.score_reading(reading, Context())
    assert error is None and result["valid"]
    [kong] = situation["melds"]
    face = parse_meld(kong).tile
    assert parse_meld(kong).kind is MeldKind.CONCEALED_KONG
    assert face not in parse_tiles(hand + win) and face is not Tile.FA


def test_four_face_down_strays_beside_a_complete_hand_are_not_a_kong():
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections
    backs = [[300 + k * 45, 600, 345 + k * 45, 660] for k in range(4)]
    n = len(det)
    det = Detections(np.vstack([det.xyxy, np.array(backs, np.float32)]), np.append(det.cls, [30] * 4),
                     np.append(det.conf, np.full(4, 0.9, np.float32)))
    reading = group(det)
    assert pipeline.faceless_kongs(reading) == 0 and len(reading.roles) == n + 4
    situation, result, _ = pipeline.score_reading(reading, Context())
    assert situation["melds"] == [] and result["valid"] and result["own"] == 3


@pytest.mark.parametrize("probs,read,n,expected", [
    pytest.param(None, 0, 3, [], id="no-odds-no-alternatives"),
    pytest.param({0: 0.5, 5: 0.3, 7: 0.15, 9: 0.05}, 0, 3, [5, 7, 9], id="likeliest-first-the-read-one-left-out"),
    pytest.param({0: 0.5, 5: 0.3, 7: 0.15, 9: 0.05}, 0, 2, [5, 7], id="at-most-n"),
    pytest.param({0: 0.5, 5: 0.3, 7: 0.195, 9: 0.005}, 0, 3, [5, 7], id="under-one-percent-not-offered"),
    pytest.param({0: 0.5, 5: 0.3, 7: 0.2}, 5, 3, [0, 7], id="the-read-face-need-not-be-the-likeliest"),
])
def test_a_tiles_alternatives_are_its_likeliest_other_faces(probs, read, n, expected):
    table = None
    if probs is not None:
        table = np.zeros((1, len(CLASS_NAMES)), np.float32)
        for k, v in probs.items():
            table[0, k] = v
    det = Detections(np.array([[0, 0, 10, 10]], np.float32), np.array([read]), np.ones(1, np.float32), table)
    assert det.alternatives(0, n) == expected


def test_each_tiles_drawn_label_is_given_so_a_tap_on_it_means_the_tile():
    image = np.full((960, 1280, 3), 60, np.uint8)
    det = hand_layout("123m456m789p12s55p", "3s", ["pung 中"], 2).detections
    body = pipeline.analyse(image, det, pipeline.Context()).to_json()
    tiles = body["reading"]["tiles"]
    assert len(tiles) == len(det) and all("label_xyxy" in t for t in tiles)
    for t in tiles:
        lx0, ly0, lx1, ly1 = t["label_xyxy"]
        x0, y0, x1, y1 = t["xyxy"]
        assert 0 <= lx0 < lx1 <= 1280 and 0 <= ly0 < ly1 <= 960
        assert lx0 == pytest.approx(min(max(0.0, x0), 1280 - (lx1 - lx0)), abs=0.1)  # over its tile, as drawn
        assert ly1 <= y0 + 1 or ly0 >= y1 - 1  # above or below the tile, not on it


def test_a_named_ruleset_scores_the_photo():
    """The 000 text gives 碰碰胡 门清 +5 and adds 温柔: the same photo scores more under it (golden hands 115)."""
    image = np.full((960, 1280, 3), 60, np.uint8)
    detections = hand_layout("111m555p777s333s9m", "9m").detections
    plain = analyse(image, detections, Context())
    text000 = analyse(image, detections, Context(ruleset="text000"))
    assert (plain.result["own"], text000.result["own"]) == (16, 21)


def test_the_faces_kept_with_a_photo_are_those_its_score_changed_and_no_others():
    """A repaired reading's changed faces are kept with the photo (its training labels); a box it dropped keeps its
    face (no box is known to be no tile) and a tile it added has no box to go in."""
    from types import SimpleNamespace

    from xingzi.vision.pipeline import faces_as_scored
    from xingzi.vision.repair import Change, Suggestion

    det = Detections(np.array([[0, 0, 10, 14], [20, 0, 30, 14], [40, 0, 50, 14]], np.float32),
                     np.array([Tile.P5.index, Tile.S3.index, Tile.M1.index]), np.full(3, 0.9, np.float32))
    changes = (Change(0, Tile.P5, Tile.P6), Change(1, Tile.S3, None, drop=True), Change(None, None, Tile.M2))
    repair = Suggestion(changes, (), None, (), 0, 1.0)
    kept = faces_as_scored(SimpleNamespace(repair=repair, detections=det))
    assert kept.cls.tolist() == [Tile.P6.index, Tile.S3.index, Tile.M1.index]
    assert faces_as_scored(SimpleNamespace(repair=None, detections=det)) is det


def test_a_winning_tile_chosen_by_the_totals_stays_a_guess():
    # The winner stands in the row: the end tile (3s) is the grouping's guess, and the scorer takes 3p instead, the
    # tile most of the hand's tiles agree on. Still a guess: not set apart, so the page lets it join a claimed meld
    # and offers the other winning tiles.
    in_row = hand_layout("44m344556678p12s", "3s", win_apart=False, size=60).detections
    assert group(in_row).win_tile == Tile.parse("3s")
    result = pipeline.analyse(np.full((960, 1280, 3), 200, np.uint8), in_row)
    assert result.situation["win_tile"] == "3p" and result.reading.win_tile == Tile.parse("3p")
    assert result.reading.win_set_apart is False and result.win_choices
    assert pipeline.reading_json(result.reading)["win_set_apart"] is False
    assert any(p.startswith("winning tile not set apart: scored with 3p") for p in result.reading.problems)
