"""`xingzi score photo.jpg` told what the photo could not: --fix, --add, --aside, --not-tile, --tiles, --labels."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.datasets.yolo import read_labels
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES_CN, Tile
from xingzi.vision import pipeline
from xingzi.vision.detections import Detections
from xingzi.vision.draw import USER_MARK, draw, tag_text
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.photo_command import tiles_table

W, H = 1280, 960
HAND = hand_layout("123m456m789p12s55p", "3s", size=70, center=(W / 2, H / 2)).detections  # 3 炮 on a discard
FIVE_P = int(np.flatnonzero(HAND.cls == Tile.P5.index)[0])
FOUR_M = int(np.flatnonzero(HAND.cls == Tile.M4.index)[0])
STRAY = [[W / 2 - 300, H / 2 + 200, W / 2 - 250, H / 2 + 270]]  # a 发 lying below the row: a bonus tile
SCORED = "own       3 炮"


class Fake:
    def __init__(self, detections: Detections) -> None:
        self.detections = detections

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        return self.detections


def misread(det: Detections, index: int, tile: Tile) -> Detections:
    cls = det.cls.copy()
    cls[index] = tile.index
    return Detections(det.xyxy, cls, det.conf)


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "IMG 0001.jpg"
    Image.new("RGB", (W, H), (50, 120, 40)).save(path)
    return path


def run(photo, det: Detections, monkeypatch, capsys, *flags: str) -> tuple[int, str]:
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(det))
    code = main(["score", str(photo), *flags])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def box(i: int) -> str:
    return ",".join(f"{v:.1f}" for v in HAND.xyxy[i])


@pytest.mark.parametrize(("detections", "flags", "fa"), [
    pytest.param(misread(HAND, FIVE_P, Tile.P6), [f"--fix={FIVE_P}=5p"], 0, id="fix-by-number"),
    pytest.param(misread(HAND, FIVE_P, Tile.P6), ["--fix", f"#{FIVE_P}=5p"], 0, id="fix-by-hash-number"),
    pytest.param(misread(HAND, FIVE_P, Tile.P6), ["--fix", "6p=5p"], 0, id="fix-by-the-face-read"),
    pytest.param(HAND.subset(np.arange(len(HAND)) != FOUR_M), ["--add", f"4m@{box(FOUR_M)}"], 0, id="add-missed"),
    pytest.param(HAND.subset(np.arange(len(HAND)) != FOUR_M), ["--add", "4m@0"], 0, id="add-missed-beside-tile-0"),
    pytest.param(with_tiles(HAND, STRAY, [Tile.FA.index]), ["--aside", str(len(HAND))], 0, id="aside"),
    pytest.param(with_tiles(HAND, STRAY, [Tile.FA.index]), ["--not-tile", str(len(HAND))], 0, id="not-a-tile"),
    pytest.param(with_tiles(HAND, STRAY, [Tile.FA.index]), [], 1, id="no-flag-the-stray-is-a-bonus-fa"),
])
def test_what_the_user_says_is_scored(photo, monkeypatch, capsys, detections, flags, fa):
    code, text = run(photo, detections, monkeypatch, capsys, *flags)
    assert code == 0, text
    assert "likeliest legal" not in text  # the user's word, not a guess, made the hand
    assert f"read      123456m55789p12s 3s{f' | fa {fa}' if fa else ''}" in text
    assert (f"own       {3 + fa} 炮") in text


def test_a_face_added_beside_the_face_down_tiles_of_a_kong_that_lost_it_makes_the_kong(photo, monkeypatch, capsys):
    kong = hand_layout("234m678s5p", "5p", ["kong 9p", "concealed_kong 中"], size=70, center=(W / 2, H / 2)).detections
    lost = int(np.flatnonzero(kong.cls == Tile.ZHONG.index)[0])
    det = kong.subset(np.arange(len(kong)) != lost)
    face_down = int(np.flatnonzero(det.cls == BACK_CLASS)[0])
    code, text = run(photo, det, monkeypatch, capsys, "--add", f"中@{face_down}")
    assert code == 0, text
    assert "read      234m5p678s 5p | kong 9p | concealed_kong 中" in text and "likeliest legal" not in text


def test_a_reading_that_is_no_hand_says_why_once(photo, monkeypatch, capsys):
    code, text = run(photo, HAND.subset(np.arange(len(HAND)) != FOUR_M), monkeypatch, capsys, "--as-read")
    lines = text.splitlines()
    assert sum("a winning hand has 14" in line for line in lines) == 1
    assert "not legal 13 tiles (a winning hand has 14, plus one per kong: 14 here)" in lines


@pytest.mark.parametrize("detections, code, total", [
    pytest.param(HAND, 0, 3, id="a-hand"),
    pytest.param(HAND.subset(np.arange(len(HAND)) != FOUR_M), 1, None, id="no-hand"),
])
def test_json_of_a_photo_says_in_its_exit_code_whether_it_scored(photo, monkeypatch, capsys, detections, code, total):
    import json

    got, text = run(photo, detections, monkeypatch, capsys, "--json", "--as-read")
    out = json.loads(text)
    assert got == code and out["valid"] is (total is not None) and out.get("own") == total


@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_a_photo_scored_under_set_says_so_beside_the_rulesets_name(photo, monkeypatch, capsys, json_out):
    """As `score --hand --set` does: the ruleset's name alone hid that its numbers were changed (ping_hu 5: 3 → 7)."""
    import json

    code, text = run(photo, HAND, monkeypatch, capsys, "--set", "ping_hu=5", *(["--json"] if json_out else []))
    said = "default (003 text), with --set ping_hu=5"
    assert code == 0 and (json.loads(text)["ruleset"] == said if json_out else f"own       7 炮   (ruleset: {said})" in text)


def test_other_readings_are_offered_for_an_illegal_reading_only(photo, monkeypatch, capsys):
    code, text = run(photo, misread(HAND, FIVE_P, Tile.P6), monkeypatch, capsys, "--as-read")
    assert "not legal" in text and f"maybe     read tile #{FIVE_P} 6p as 5p" in text
    code, text = run(photo, HAND, monkeypatch, capsys)
    assert code == 0 and "maybe" not in text and "not legal" not in text


def test_the_tiles_are_listed_along_the_row_with_their_numbers(photo, monkeypatch, capsys):
    det = misread(HAND, FIVE_P, Tile.P6)
    code, text = run(photo, det, monkeypatch, capsys, "--tiles", "--as-read")
    lines = [line for line in text.splitlines() if line.startswith("tile ")]
    assert len(lines) == len(det)
    numbers = [int(line.split()[1].lstrip("#")) for line in lines]
    assert sorted(numbers) == list(range(len(det)))
    assert numbers == list(np.argsort((det.xyxy[:, 0] + det.xyxy[:, 2]) / 2))  # left to right: a row at 0°
    mine = next(line for line in lines if line.split()[1] == f"#{FIVE_P}")
    assert f"6p    {CLASS_NAMES_CN[Tile.P6.index]}" in mine and "concealed" in mine
    assert "win" in lines[-1] and code == 0 and "诈胡" in text  # as read: no hand


def test_the_list_says_which_meld_a_tile_is_in_and_how_long_the_reading_took(photo, monkeypatch, capsys):
    det = hand_layout("123m456m789p55p", "3s", ["pung 7s"], size=70, center=(W / 2, H / 2)).detections

    class Slow(Fake):
        def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
            time.sleep(0.06)
            return self.detections

    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Slow(det))
    assert main(["score", str(photo), "--tiles"]) == 0
    text = capsys.readouterr().out
    sevens = [line for line in text.splitlines() if line.startswith("tile ") and " 7s " in line]
    assert len(sevens) == 3 and all("pung (meld 1)" in line for line in sevens)
    ms = int(text.split(" tiles seen in ")[1].split(" ms")[0])
    assert 60 <= ms < 60_000  # milliseconds, not seconds


def test_a_photo_with_no_tile_is_listed_as_such(photo, monkeypatch, capsys):
    code, text = run(photo, Detections.empty(), monkeypatch, capsys, "--tiles")
    assert "0 tiles seen" in text and not [line for line in text.splitlines() if line.startswith("tile #")]
    assert code == 1 and "problem   no tiles found" in text  # no score, said why


@pytest.mark.parametrize("angle", [90, 135, 200])
def test_the_tiles_are_listed_along_a_turned_row_whatever_order_they_were_found_in(angle):
    layout = hand_layout("123m456m789p12s55p", "3s", angle=angle, size=70, center=(W / 2, H / 2))
    row = [Tile.from_index(int(c)).value for c in layout.detections.cls]  # the row's faces, end to end
    found = np.random.default_rng(angle).permutation(len(row))  # the detector's order is not the row's
    reading = group(layout.detections.subset(found))
    listed = [line.split()[1] for line in tiles_table(reading)]
    assert listed in (row, row[::-1])


def test_labels_keep_the_photo_as_corrected_and_a_second_run_replaces_them(photo, tmp_path, monkeypatch, capsys):
    det = with_tiles(misread(HAND, FIVE_P, Tile.P6), STRAY, [Tile.FA.index])
    folder = tmp_path / "set"
    code, text = run(photo, det, monkeypatch, capsys, "--fix", "6p=5p", "--not-tile", str(len(HAND)),
                     "--labels", str(folder))
    assert code == 0 and f"labels    {folder}: IMG_0001 added (1 photo in the set)" in text
    rows = read_labels(folder / "labels" / "IMG_0001.txt")
    assert len(rows) == len(HAND) and rows[FIVE_P, 0] == Tile.P5.index  # the box on no tile left out
    code, text = run(photo, det, monkeypatch, capsys, "--fix", "6p=5p", "--aside", str(len(HAND)),
                     "--labels", str(folder))
    assert code == 0 and "IMG_0001 replaced (1 photo in the set)" in text
    assert len(read_labels(folder / "labels" / "IMG_0001.txt")) == len(HAND) + 1  # set aside: still a tile


def test_labelled_again_from_the_sets_own_copy_the_sample_is_replaced_not_doubled(tmp_path, monkeypatch, capsys):
    """The set's copy is saved re-encoded, so a JPEG made from it again never matched its bytes: `--labels set`
    on set/images/X.jpg added X_2 and left X's wrong labels (session 70)."""
    photo = tmp_path / "hand.jpg"
    Image.fromarray(np.random.default_rng(7).integers(0, 255, (H, W, 3), dtype=np.uint8)).save(photo)
    det = misread(HAND, FIVE_P, Tile.P6)
    folder = tmp_path / "set"
    code, text = run(photo, det, monkeypatch, capsys, "--as-read", "--labels", str(folder))
    assert "hand added (1 photo in the set)" in text
    code, text = run(folder / "images" / "hand.jpg", det, monkeypatch, capsys, "--fix", "6p=5p", "--labels",
                     str(folder))
    assert code == 0 and "hand replaced (1 photo in the set)" in text
    assert read_labels(folder / "labels" / "hand.txt")[FIVE_P, 0] == Tile.P5.index
    assert sorted(p.name for p in (folder / "images").iterdir()) == ["hand.jpg"]


def test_labels_take_the_face_the_score_used(photo, tmp_path, monkeypatch, capsys):
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=(W / 2, H / 2), probs=True).detections
    cls, probs = det.cls.copy(), det.probs.copy()
    cls[FIVE_P], probs[FIVE_P, Tile.P6.index], probs[FIVE_P, Tile.P5.index] = Tile.P6.index, 0.6, 0.3
    misread6p = Detections(det.xyxy, cls, det.conf, probs)
    folder = tmp_path / "set"
    code, text = run(photo, misread6p, monkeypatch, capsys, "--labels", str(folder))
    assert code == 0 and "scored as the likeliest legal reading" in text and SCORED in text
    assert read_labels(folder / "labels" / "IMG_0001.txt")[FIVE_P, 0] == Tile.P5.index  # as scored and drawn
    code, text = run(photo, misread6p, monkeypatch, capsys, "--as-read", "--labels", str(folder))
    assert "IMG_0001 replaced" in text
    assert read_labels(folder / "labels" / "IMG_0001.txt")[FIVE_P, 0] == Tile.P6.index  # as read, as asked


@pytest.mark.parametrize(("flags", "message"), [
    pytest.param(["--fix", "5p=6p"], "tiles #", id="fix-face-read-twice"),
    pytest.param(["--fix", "7s=6p"], "no tile read as 7s", id="fix-face-not-read"),
    pytest.param(["--fix", "99=6p"], "there are 14 tiles (0..13)", id="fix-number-out-of-range"),
    pytest.param(["--fix", "3=x9"], "x9", id="fix-bad-face"),
    pytest.param(["--fix", "3"], "WHICH=FACE", id="fix-no-equals"),
    pytest.param(["--add", "4m@1,2,3"], "FACE@X0,Y0,X1,Y1 in pixels of the 1280x960 photo", id="add-three-numbers"),
    pytest.param(["--add", "4m"], "FACE@X0,Y0,X1,Y1", id="add-no-box"),
    pytest.param(["--add", "4m@1500,10,1560,80"], "outside", id="add-outside-the-photo"),
    pytest.param(["--add", "4m@0"], "--add 4m@0 places the tile where it reads best, not where it lies: with --labels "
                 "give its box", id="add-beside-with-labels"),
    pytest.param(["--fix", "5=5m", "--fix", "#5=7m"], "--fix: tile #5 is given two faces (5m, 7m); give it one",
                 id="fix-twice"),
    pytest.param(["--aside", "14"], "--aside: tile #14: there are 14 tiles", id="aside-out-of-range"),
    pytest.param(["--not-tile", "-1"], "--not-tile: tile #-1: there are 14 tiles", id="not-tile-negative"),
])
def test_bad_flags_say_what_was_expected_and_write_nothing(photo, tmp_path, monkeypatch, capsys, flags, message):
    out, folder = tmp_path / "annotated.jpg", tmp_path / "set"
    code, text = run(photo, HAND, monkeypatch, capsys, *flags, "--out", str(out), "--labels", str(folder))
    assert code == 2 and message in text, text
    assert not out.exists() and not folder.exists()


@pytest.mark.parametrize(("flags", "message"), [
    pytest.param(["--add", "4m@14"], "added tile 0: tile to add beside #14: there are 14 tiles", id="beside-no-tile"),
    pytest.param(["--add", "4m@0", "--add", "x9@3"], "x9", id="beside-a-bad-face"),
    pytest.param(["--add", "4m@²"], "--add expects FACE@X0,Y0,X1,Y1", id="beside-a-superscript-two"),
    pytest.param(["--add", "4m@01"], "--add expects FACE@X0,Y0,X1,Y1", id="beside-a-number-with-a-zero-before"),
    pytest.param(["--add", "4m@" + "9" * 5000], "--add expects FACE@X0,Y0,X1,Y1", id="beside-5000-digits"),
    pytest.param(["--fix", "²=5m"], "expected a tile face such as 5p, 中, zhong, or back; got '²'", id="fix-a-superscript-two"),
])
def test_a_tile_to_add_beside_one_that_cannot_be_is_refused(photo, tmp_path, monkeypatch, capsys, flags, message):
    out = tmp_path / "annotated.jpg"
    code, text = run(photo, HAND, monkeypatch, capsys, *flags, "--out", str(out))
    assert code == 2 and message in text and not out.exists(), text


class Unreachable:
    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        raise AssertionError("the photo was read although the flags were wrong")


@pytest.mark.parametrize(("flags", "message"), [
    pytest.param(["--rules", "nosuch"], "ruleset file 'nosuch' not found", id="no-such-ruleset"),
    pytest.param(["--set", "no_such_option=1"], "is not an option, a 炮 name, a table", id="unknown-override"),
    pytest.param(["--set", 'hong_qi="x"'], "ruleset pao.hong_qi must be a whole number ≥ 0, got 'x'",
                 id="override-not-a-number"),
])
def test_bad_rules_are_refused_before_the_photo_is_read(photo, tmp_path, monkeypatch, capsys, flags, message):
    out = tmp_path / "annotated.jpg"
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Unreachable())
    code = main(["score", str(photo), *flags, "--out", str(out)])
    assert code == 2 and message in capsys.readouterr().err and not out.exists()


def test_the_photo_is_never_written_over(photo, monkeypatch, capsys):
    before = photo.read_bytes()
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Unreachable())
    alias = photo.parent / "." / photo.name  # the same file by another spelling
    code = main(["score", str(photo), "--out", str(alias)])
    assert code == 2 and "is the photo itself" in capsys.readouterr().err
    assert photo.read_bytes() == before


def test_a_folder_is_neither_a_photo_nor_an_output(photo, tmp_path, monkeypatch, capsys):
    code, text = run(tmp_path, HAND, monkeypatch, capsys)
    assert code == 2 and "is a folder: give a photo file" in text
    (tmp_path / "out.jpg").mkdir()
    code, text = run(photo, HAND, monkeypatch, capsys, "--out", str(tmp_path / "out.jpg"))
    assert code == 2 and "is a folder: give a file name for the annotated photo" in text


def test_labels_into_a_file_is_refused_before_any_work(photo, tmp_path, monkeypatch, capsys):
    out, taken = tmp_path / "annotated.jpg", tmp_path / "notes.txt"
    taken.write_text("mine")
    code, text = run(photo, HAND, monkeypatch, capsys, "--out", str(out), "--labels", str(taken))
    assert code == 2 and "expected a dataset folder, got the file" in text
    assert not out.exists() and taken.read_text() == "mine"


@pytest.mark.parametrize(("role", "scored_as", "by_user", "text"), [
    pytest.param("concealed", -1, False, "五筒\n0.87", id="read"),
    pytest.param("concealed", -1, True, f"五筒\n{USER_MARK}", id="set-by-the-user"),
    pytest.param("win", -1, True, f"胡五筒\n{USER_MARK}", id="winning-tile-set-by-the-user"),
    pytest.param("ignored", -1, True, "五筒\n×", id="set-aside"),
    pytest.param("concealed", Tile.P6.index, False, "五筒→六筒", id="scored-as-another"),
    pytest.param("concealed", None, False, "五筒→×", id="left-out-by-the-repair"),
])
def test_tile_tags(role, scored_as, by_user, text):
    assert tag_text(Tile.P5.index, 0.87, role, scored_as, by_user) == text


def test_a_face_the_user_set_is_drawn_without_a_confidence_and_numbers_on_request():
    image = np.full((H, W, 3), 60, np.uint8)
    reading = group(HAND)
    plain, again, marked = draw(image, reading), draw(image, reading), draw(image, reading, user=[FIVE_P])
    numbered = draw(image, reading, numbered=True)
    assert np.array_equal(plain, again) and not np.array_equal(plain, marked) and not np.array_equal(plain, numbered)


def test_tiles_flag_numbers_the_tiles_in_the_picture_too(photo, tmp_path, monkeypatch, capsys):
    plain, numbered = tmp_path / "plain.png", tmp_path / "numbered.png"
    assert run(photo, HAND, monkeypatch, capsys, "--out", str(plain))[0] == 0
    assert run(photo, HAND, monkeypatch, capsys, "--tiles", "--out", str(numbered))[0] == 0
    a, b = (np.asarray(Image.open(p)) for p in (plain, numbered))
    assert a.shape == b.shape and not np.array_equal(a, b)


@pytest.mark.parametrize("flags,conf", [([], None), (["--conf", "0.4"], 0.4)], ids=["shipped", "given"])
def test_the_confidence_threshold_given_reaches_the_detector(photo, monkeypatch, capsys, flags, conf):
    asked = []
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: asked.append(conf) or Fake(HAND))
    assert main(["score", str(photo), *flags]) == 0
    assert asked == [conf] and "own       3 炮" in capsys.readouterr().out


TWO_KONGS = hand_layout("234m678s5p", "5p", ["kong 9p", "concealed_kong 中"], kong_shown="FDDF", size=70,
                        center=(W / 2, H / 2)).detections


@pytest.mark.parametrize("flags,own", [
    pytest.param([], 13, id="the-kong-laid-last"),
    pytest.param(["--bloom", "9p"], 16, id="named-9p"),
    pytest.param(["--bloom", "Z"], 13, id="named-zhong"),
])
def test_which_kong_was_just_made_is_offered_and_named(photo, monkeypatch, capsys, flags, own):
    code, text = run(photo, TWO_KONGS, monkeypatch, capsys, "--self-draw", "--event", "kong_bloom", *flags)
    assert code == 0 and f"own       {own} 炮" in text, text
    offered = "kong just made 13 炮 if 中 · 16 炮 if 9p (scored: 中) (杠上开花 on which kong: --bloom TILE says)"
    assert (offered in text) == ("kong just made" in text) == (not flags)  # said by --bloom: not asked again


@pytest.mark.parametrize("flags,message", [
    pytest.param(["--self-draw", "--bloom", "9p"], "--bloom 9p says which kong 杠上开花 was drawn on: give --event "
                 "kong_bloom too", id="without-kong-bloom"),
    pytest.param(["--self-draw", "--event", "kong_bloom", "--bloom", "1s"], "--bloom 1s: no kong of 1s among the "
                 "melds read (kong 9p, concealed_kong 中)", id="no-such-kong"),
    pytest.param(["--self-draw", "--event", "kong_bloom", "--bloom", "x"], "unknown tile 'x'", id="no-such-face"),
])
def test_a_bloom_naming_no_kong_is_refused_and_nothing_written(photo, tmp_path, monkeypatch, capsys, flags, message):
    out = tmp_path / "annotated.jpg"
    code, text = run(photo, TWO_KONGS, monkeypatch, capsys, *flags, "--out", str(out))
    assert code == 2 and message in text, text
    assert not out.exists()


# A concealed kong of 3s shown as the players show it, its two middle tiles face down (#12, #13 face down).
SHOWN_KONG = hand_layout("123m456m55p12s", "3s", ["concealed_kong 9s"], kong_shown="FDDF", size=70,
                         center=(W / 2, H / 2)).detections


@pytest.mark.parametrize("face,kong,own", [pytest.param("9s", "concealed_kong 9s", 5, id="the-face-it-shows"),
                                           pytest.param("8s", "concealed_kong 8s", 5, id="another-face")])
def test_naming_a_face_down_tile_of_a_kong_showing_its_face_names_the_kong(photo, tmp_path, monkeypatch, capsys,
                                                                          face, kong, own):
    down = [i for i in range(len(SHOWN_KONG)) if int(SHOWN_KONG.cls[i]) == BACK_CLASS]
    assert len(down) == 2
    folder = tmp_path / "set"
    code, text = run(photo, SHOWN_KONG, monkeypatch, capsys, "--fix", f"{down[0]}={face}", "--labels", str(folder))
    assert code == 0 and f"| {kong}" in text and f"own       {own} 炮" in text, text
    rows = read_labels(folder / "labels" / "IMG_0001.txt")
    assert [int(rows[i, 0]) for i in down] == [BACK_CLASS, BACK_CLASS]  # the photo shows their backs
    faces = [i for i in range(len(SHOWN_KONG)) if int(SHOWN_KONG.cls[i]) == Tile.S9.index]
    assert {int(rows[i, 0]) for i in faces} == {Tile.parse(face).index}


def test_a_confidence_out_of_range_is_named_alone(photo, capsys):
    assert main(["score", str(photo), "--conf", "5"]) == 2
    err = capsys.readouterr().err
    assert "error: --conf must be a confidence from 0 to 1, got 5" in err and "back_conf" not in err  # no setting the user cannot give


@pytest.mark.parametrize("model", [pytest.param("models/xingzi_yolo11n.pt", id="pytorch-weights"),
                                   pytest.param("models/xingzi_yolo11n.onnx", id="onnx")])
def test_json_of_a_photo_is_the_only_thing_on_standard_output_whatever_the_model(model):
    """Fusing a .pt printed the network's summary line on standard output before the JSON (session 70)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "xingzi", "score", "examples/demo.jpg", "--json", "--model", model],
                          cwd=repo, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(done.stdout.splitlines()) == 1 and json.loads(done.stdout)["own"] == 26
