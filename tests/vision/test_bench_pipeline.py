"""The pipeline bench's own accounting: samples whose truth the photo cannot show, melds grouped
exactly, and the numbers it prints."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from xingzi.engine.tiles import Tile
from xingzi.vision.bench_fix import corrections, offered_faces, one_fix_right, synth_truth
from xingzi.vision.bench_pipeline import melds_exact, needs_input, summarise
from xingzi.vision.bench_truth import one_tap_right, total_right, truth_detections
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.metrics import box_iou
from xingzi.vision.pipeline import Context, analyse

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.json"


def tile(role: str, group_: int, face_down: bool = False) -> dict:
    return {"role": role, "group": group_, "face_down": face_down}


ROW = [tile("concealed", 0)] * 3


@pytest.mark.parametrize("tiles,layout,reasons", [
    pytest.param(ROW + [tile("win", 0)], "rows", (), id="win-after-the-row"),
    pytest.param([tile("win", 0)] + ROW, "rows", ("win_in_row",), id="win-sorted-first"),
    pytest.param(ROW[:1] + [tile("win", 0)] + ROW[1:], "rows", ("win_in_row",), id="win-sorted-inside"),
    pytest.param(ROW + [tile("win", 0)] + [tile("concealed_kong", 1, d) for d in (True, False, False, True)],
                 "rows", (), id="kong-showing-faces"),
    pytest.param(ROW + [tile("win", 0)] + [tile("concealed_kong", 1, True)] * 4, "rows", ("kong_face_down",),
                 id="kong-all-down"),
    pytest.param(ROW + [tile("win", 0)], "grid", ("grid",), id="grid"),
    pytest.param([tile("win", 0)] + ROW, "scatter", ("win_in_row", "scatter"), id="scatter-and-sorted-in"),
    pytest.param(ROW + [tile("win", 0), tile("loose", -1, True)] + [tile("loose", -1, True)] * 3, "rows", (),
                 id="four-loose-backs-are-no-kong"),
])
def test_needs_input_names_what_the_photo_cannot_show(tiles, layout, reasons):
    assert needs_input({"tiles": tiles, "layout": layout}) == reasons


def test_a_winning_tile_sorted_to_the_rows_end_needs_input_when_the_meta_says_so():
    """Sorted in last (a 中 among suits), it ends the row with no gap: the order of the meta's tiles cannot tell."""
    sorted_in = {"tiles": ROW + [tile("win", 0)], "layout": "rows", "win_shown": False}
    assert needs_input(sorted_in) == ("win_in_row",)
    assert needs_input({**sorted_in, "win_shown": True}) == ()


@pytest.fixture()
def demo() -> dict:
    return json.loads(DEMO.read_text(encoding="utf-8"))


def test_demo_melds_are_grouped_exactly(demo):
    reading = group(truth_detections(demo))
    assert melds_exact(reading, demo) == len(demo["situation"]["melds"]) > 0


def test_a_meld_missing_a_tile_is_not_exact(demo):
    # Drop one tile of the first meld: the meld read (if any) no longer holds the truth's tiles.
    first = next(i for i, t in enumerate(demo["tiles"]) if t["group"] == 1)
    keep = [i for i in range(len(demo["tiles"])) if i != first]
    meta = {**demo, "tiles": [demo["tiles"][i] for i in keep]}
    reading = group(truth_detections(demo).subset(keep))
    assert melds_exact(reading, meta) == len(demo["situation"]["melds"]) - 1


def test_a_meld_of_the_right_tiles_read_with_another_face_is_not_exact(demo):
    pung = [i for i, t in enumerate(demo["tiles"]) if t["group"] == 1]  # the pung of 白
    det = truth_detections(demo)
    det = replace(det, cls=np.where(np.isin(np.arange(len(det)), pung), Tile.M9.index, det.cls))
    reading = group(det)
    assert len({reading.meld_of[i] for i in pung}) == 1  # still grouped as one meld, of 9m
    assert melds_exact(reading, demo) == len(demo["situation"]["melds"]) - 1


def test_the_bench_counts_the_samples_it_skips(tmp_path, capsys, demo):
    from xingzi.cli import main

    (tmp_path / "images").mkdir()
    (tmp_path / "meta").mkdir()
    photo = DEMO.with_suffix(".jpg").read_bytes()
    unsaid = {k: v for k, v in demo.items() if k != "complete"}  # a sample that does not say: complete
    for stem, meta in (("whole", {**demo, "complete": True}), ("cut", {**demo, "complete": False}), ("plain", unsaid)):
        (tmp_path / "images" / f"{stem}.jpg").write_bytes(photo)
        (tmp_path / "meta" / f"{stem}.json").write_text(json.dumps(meta))
    (tmp_path / "images" / "saved_without_truth.jpg").write_bytes(photo)  # the page saves some photos with no meta
    assert main(["bench", "pipeline", "--data", str(tmp_path), "--boxes", "truth", "--show-misses", "5"]) == 0
    out = capsys.readouterr().out
    assert "(truth boxes): 2 samples, 2 skipped" in out and "pao_total_exact_pct         100.0" in out
    assert "pao_exact_readable_pct      100.0" in out and "miss " not in out  # nothing read wrong to show
    assert "latency_median_ms" in out and "latency_p95_ms" in out  # photo → annotated picture + score, timed
    assert "tiles_under_labels_pct      0.0" in out  # the demo's labels leave every tile of the hand in view


def test_a_stray_tile_counted_in_the_hand_is_right_after_one_correction_not_one_tap(tmp_path, capsys, demo):
    from xingzi.cli import main

    (tmp_path / "images").mkdir()
    (tmp_path / "meta").mkdir()
    (tmp_path / "images" / "stray.jpg").write_bytes(DEMO.with_suffix(".jpg").read_bytes())
    stray = {"cls": Tile.P9.index, "face": "9p", "xyxy": [186.0, 661.0, 262.0, 748.0], "group": -1, "role": "loose",
             "sideways": False, "face_down": False}  # lying in line before the row's first tile
    (tmp_path / "meta" / "stray.json").write_text(json.dumps({**demo, "tiles": [*demo["tiles"], stray]}))
    assert main(["bench", "pipeline", "--data", str(tmp_path), "--boxes", "truth", "--as-read",
                 "--show-misses", "5"]) == 0
    out = capsys.readouterr().out
    assert "pao_total_exact_pct         0.0" in out and "pao_exact_after_one_tap_pct 0.0" in out
    assert "pao_exact_after_one_fix_pct 100.0" in out  # set aside on the page ("not part of this hand")
    assert "miss stray [readable]: truth 66m111s中中中" in out and "read 66m9p111s中中 中" in out


def test_summary_reports_the_samples_needing_input_apart():
    totals = Counter(samples=10, pao_right=8, pao_right_tap=9, needs_input=4, needs_input_right=2, needs_win_in_row=3,
                     needs_win_in_row_right=2, needs_grid=1, melds_true=5, melds_found=4, melds_exact=3,
                     melds_read=4, roles=100, roles_right=90)
    out = summarise(totals, [], "truth")
    assert out["pao_total_exact_pct"] == 80.0 and out["pao_exact_after_one_tap_pct"] == 90.0
    assert out["readable_samples"] == 6 and out["pao_exact_readable_pct"] == 100.0
    assert out["needs_user_input"] == 4 and out["pao_exact_needs_input_pct"] == 50.0
    assert out["needs_win_in_row"] == "2/3 right" and out["needs_grid"] == "0/1 right"
    assert "needs_scatter" not in out
    assert out["melds_found_pct"] == 80.0 and out["melds_exact_pct"] == 60.0


def test_summary_of_counts_of_none_and_one():
    # one sample, needing input, right after one correction; no melds, no roles counted: shares of nothing are 0
    one = summarise(Counter(samples=1, pao_right=1, pao_right_fix=1, needs_input=1, needs_input_right=1), [], "truth")
    assert one["pao_exact_after_one_fix_pct"] == 100.0 and one["pao_exact_needs_input_pct"] == 100.0
    assert (one["melds_found_pct"], one["melds_exact_pct"], one["tile_roles_right_pct"]) == (0.0, 0.0, 0.0)
    assert one["readable_samples"] == 0 and one["pao_exact_readable_pct"] == 0.0
    readable = summarise(Counter(samples=1, pao_right=1, melds_true=1, melds_found=1, roles=1, roles_right=1), [],
                         "truth")
    assert readable["pao_exact_readable_pct"] == 100.0 and readable["melds_found_pct"] == 100.0
    assert readable["tile_roles_right_pct"] == 100.0 and readable["pao_exact_after_one_fix_pct"] == 0.0
    assert "melds_exact_pct" not in summarise(Counter(samples=1), [], "model")  # model boxes: no tile-by-tile truth
    two = summarise(Counter(samples=2, pao_right=1, pao_right_tap=1, pao_right_fix=1, exact=1, roles=2, roles_right=1),
                    [], "truth")
    assert (two["pao_total_exact_pct"], two["pao_exact_after_one_tap_pct"], two["pao_exact_after_one_fix_pct"]) == \
        (50.0, 50.0, 50.0)
    assert two["hand_read_exact_pct"] == 50.0 and two["tile_roles_right_pct"] == 50.0
    assert "misread_tiles_face_offered" not in two  # no misread tile to offer a face for
    three = summarise(Counter(samples=3, pao_right_tap=1, misread_tiles=2, misread_offered=1, misread_first=1), [],
                      "model")
    assert three["pao_exact_after_one_tap_pct"] == 33.3 and three["misread_tiles_face_offered"] == "1/2 (1 first)"
    assert summarise(Counter(), [], "model")["pao_total_exact_pct"] == 0.0  # no sample at all: no share, no crash
    assert "tiles_under_labels_pct" not in summarise(Counter(samples=1), [], "model")  # no tile of a hand drawn
    assert summarise(Counter(samples=2, hand_tiles=28, tiles_under_labels=3), [], "model")["tiles_under_labels_pct"] \
        == 10.7


def test_compare_reads_a_situation_without_fa_as_none_and_melds_only_tile_by_tile(demo):
    from xingzi.vision.bench_pipeline import compare

    reading = group(truth_detections(demo))
    facts = compare(reading, demo)
    assert facts["exact"] and facts["melds_exact"] == len(demo["situation"]["melds"])
    # the photo without its 发, and a truth that says nothing of them: none
    no_fa = {**demo, "tiles": [t for t in demo["tiles"] if t["role"] != "fa"],
             "situation": {k: v for k, v in demo["situation"].items() if k != "fa"}}
    assert len(no_fa["tiles"]) < len(demo["tiles"])
    assert compare(group(truth_detections(no_fa)), no_fa)["exact"]
    fewer = {**demo, "tiles": demo["tiles"][:-1]}  # the truth's tiles no longer line up with the reading's
    assert compare(reading, fewer)["melds_exact"] == 0 and compare(reading, fewer)["roles_right"] == 0


def test_the_whole_pipeline_check_of_eval_takes_only_samples_with_a_result(demo):
    from xingzi.vision.bench_truth import pipeline_matches_truth

    photo = DEMO.with_suffix(".jpg")
    import cv2

    scale = cv2.imread(str(photo)).shape[1] / demo["size"][0]
    det = truth_detections(demo)
    det = replace(det, xyxy=(det.xyxy * scale).astype(np.float32))
    assert pipeline_matches_truth(photo, det, demo) is True
    assert pipeline_matches_truth(photo, det, {**demo, "expect": {**demo["expect"], "own": 1}}) is False
    for unusable in ({**demo, "complete": False}, {**demo, "expect": None}, {**demo, "expect": {"valid": True}}):
        assert pipeline_matches_truth(photo, det, unusable) is None


@pytest.mark.parametrize("win,own,valid,tap", [
    pytest.param("1m", 2, True, True, id="true-tile-offered-with-its-total"),
    pytest.param("1m", 3, True, False, id="total-differs-from-the-choice"),
    pytest.param("9s", 2, True, False, id="true-tile-not-in-the-hand-read"),
    pytest.param("1m", 2, False, False, id="truth-is-no-win"),
])
def test_win_tap_counts_only_the_true_winning_tile_with_its_true_total(win, own, valid, tap):
    layout = hand_layout("123m456m789p12s55p", "3s", win_apart=False)
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), layout.detections, Context())
    meta = {"situation": {"win_tile": win, "melds": []}, "expect": {"valid": valid, "own": own}}
    assert one_tap_right(res, meta) is tap


@pytest.mark.parametrize("melds,own,tap", [
    pytest.param(["concealed_kong 中", "pung 9p"], 6, True, id="true-kong-face-offered-with-its-total"),
    pytest.param(["concealed_kong 中", "pung 9p"], 5, False, id="total-differs"),
    pytest.param(["concealed_kong 9s", "pung 9p"], 6, False, id="another-face-with-that-total-is-not-it"),
])
def test_kong_tap_counts_only_a_true_kong_face(melds, own, tap):
    layout = hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD")
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), layout.detections, Context())
    meta = {"situation": {"win_tile": "5p", "melds": melds}, "expect": {"valid": True, "own": own}}
    assert one_tap_right(res, meta) is tap


@pytest.mark.parametrize("stray_at,own,tap", [
    pytest.param(14, 3, True, id="stray-fa-set-aside-gives-the-truth"),
    pytest.param(14, 4, False, id="counted-fa-was-the-truth"),
    pytest.param(None, 3, False, id="no-stray-in-the-truth"),
])
def test_stray_fa_tap_sets_aside_only_the_truths_strays(stray_at, own, tap):
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=(640, 480)).detections
    box = [440.0, 600.0, 490.0, 670.0]
    both = with_tiles(det, [box], [Tile.FA.index])
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), both, Context())
    assert res.result["own"] == 4  # read: the 发 as a bonus tile
    tiles = [{"role": "concealed", "xyxy": [float(v) for v in b]} for b in det.xyxy]
    tiles.append({"role": "loose" if stray_at is not None else "fa", "xyxy": box})
    meta = {"situation": {"win_tile": "3s", "melds": []}, "expect": {"valid": True, "own": own},
            "tiles": tiles, "size": [1280, 960]}
    assert one_tap_right(res, meta) is tap


@pytest.mark.parametrize("melds,own,tap", [
    pytest.param(["pung 8s"], 12, True, id="claimed-pung-read-standing"),
    pytest.param(["pung 8s"], 15, False, id="total-differs"),
    pytest.param(["kong 9p"], 12, False, id="meld-face-not-standing"),
])
def test_claim_tap_takes_a_true_meld_left_standing(melds, own, tap):
    det = hand_layout("22288m66s中中中", "6s", ["pung 8s"], gap=0.0, sideways_at=-1).detections
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), det, Context())
    assert res.reading.melds == () and res.result["own"] == 17
    meta = {"situation": {"win_tile": "6s", "melds": melds}, "expect": {"valid": True, "own": own}}
    assert one_tap_right(res, meta) is tap


@pytest.mark.parametrize("to_the_edge,told", [pytest.param(True, 1, id="row-runs-off-the-left-edge"),
                                             pytest.param(False, 0, id="tile-missing-mid-photo")])
def test_a_hand_cut_by_the_frame_is_told_so(demo, to_the_edge, told):
    """The photo's left edge runs through the hand's second tile (half of it inside: labelled, its box clipped),
    the first lies outside; or, for comparison, the first tile is just missing from a photo framed widely."""
    from xingzi.vision.bench_pipeline import cut_hint_tally

    hand = sorted((i for i, t in enumerate(demo["tiles"]) if t["role"] == "concealed"),
                  key=lambda i: demo["tiles"][i]["xyxy"][0])
    rest = [dict(t) for i, t in enumerate(demo["tiles"]) if i != hand[0] and t["role"] != "fa"]  # 发 lie further left
    if to_the_edge:
        x1, _, x2, _ = demo["tiles"][hand[1]]["xyxy"]
        dx = (x1 + x2) / 2
        for t in rest:
            t["xyxy"] = [max(t["xyxy"][0] - dx, 0.0), t["xyxy"][1], t["xyxy"][2] - dx, t["xyxy"][3]]
    assert all(t["xyxy"][2] > t["xyxy"][0] >= 0 for t in rest)
    assert cut_hint_tally({**demo, "tiles": rest}) == Counter(cut_short=1, cut_hinted=told)


@pytest.mark.parametrize("meta,cut", [
    pytest.param({"complete": False}, True, id="tiles-of-the-hand-left-unlabelled"),
    pytest.param({"complete": False, "hidden": 3}, False, id="a-pung-hidden-behind-the-standing-row"),
    pytest.param({"complete": True}, False, id="all-labelled"),
    pytest.param({}, False, id="real-tile-composite-with-no-word"),
])
def test_only_hands_the_frame_cuts_are_asked_whether_told_so(meta, cut):
    from xingzi.vision.bench_pipeline import cut_by_frame

    assert cut_by_frame(meta) is cut


def _truth_meta(det, own: int, loose: list | None = None) -> dict:
    tiles = [{"cls": int(c), "role": "concealed", "xyxy": [float(v) for v in b]}
             for b, c in zip(det.xyxy, det.cls, strict=True)]
    for box, cls in loose or []:
        tiles.append({"cls": cls, "role": "loose", "xyxy": box})
    return {"situation": {"win_tile": "3s", "melds": []}, "expect": {"valid": True, "own": own}, "tiles": tiles,
            "size": [1280, 960]}


@pytest.mark.parametrize("change,expected,own,right", [
    pytest.param("misread", {"fix": (10, Tile.S2.index)}, 3, True, id="misread-given-its-true-face"),
    pytest.param("misread", {"fix": (10, Tile.S2.index)}, 5, False, id="misread-fixed-total-differs"),
    pytest.param("missed", {"add": Tile.M5.index}, 3, True, id="missed-tile-added-where-it-lies"),
    pytest.param("stray", {"aside": 14}, 3, True, id="stray-set-aside"),
    pytest.param("stray", {"aside": 14}, 4, False, id="stray-was-counted-in-the-truth-total"),
    pytest.param("twin", {"aside": 14}, 3, True, id="second-box-on-a-tile-set-aside"),
    pytest.param("twin0", {"aside": 14}, 3, True, id="second-box-on-the-first-tile-set-aside"),
])
def test_one_fix_tries_each_correction_the_truth_allows(change, expected, own, right):
    truth = hand_layout("123m456m789p12s55p", "3s", size=70, center=(640, 480), probs=True).detections
    loose = None
    if change == "misread":
        det = replace(truth, cls=np.where(np.arange(len(truth)) == 10, Tile.S3.index, truth.cls))
    elif change == "missed":
        det = truth.subset(np.arange(len(truth)) != 4)
    elif change in ("twin", "twin0"):  # a second, looser box on the last 5p (or the first 1m), read alike
        k, face = (12, Tile.P5) if change == "twin" else (0, Tile.M1)
        x0, y0, x1, y1 = (float(v) for v in truth.xyxy[k])
        det = with_tiles(truth, [[x0 + 6, y0 - 4, x1 + 10, y1 + 2]], [face.index])
    else:
        box = [440.0, 600.0, 490.0, 670.0]
        det, loose = with_tiles(truth, [box], [Tile.FA.index]), [(box, Tile.FA.index)]
    image = np.full((960, 1280, 3), 60, np.uint8)
    res = analyse(image, det, Context(), as_read=True)
    meta = _truth_meta(truth, own, loose)
    found = corrections(res, *synth_truth(meta, 1280))
    assert len(found) == 1
    key = next(iter(expected))
    assert key in found[0]
    if key == "add":
        assert found[0]["add"][0] == expected["add"] and np.allclose(found[0]["add"][1], truth.xyxy[4])
    else:
        assert found[0] == expected
    assert one_fix_right(res, found, Context(), lambda again: total_right(again, meta)) is right
    misread = change == "misread"  # its true face is the likeliest after the one read: offered first
    assert offered_faces(res, found) == (Counter(tiles=1, first=1, offered=1) if misread else Counter())


@pytest.mark.parametrize(("before", "right"), [
    pytest.param(11, True, id="the-12th-correction-is-tried"),
    pytest.param(12, False, id="the-13th-is-not"),
])
def test_one_fix_tries_twelve_corrections_at_most(before, right):
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=(640, 480)).detections
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), det, Context(), as_read=True)
    same = {"fix": (0, int(det.cls[0]))}  # changes nothing
    fixes = [same] * before + [{"fix": (0, Tile.M9.index)}]
    assert one_fix_right(res, fixes, Context(), lambda again: int(again.detections.cls[0]) == Tile.M9.index) is right


@pytest.mark.parametrize(("iou", "offered"), [
    pytest.param(0.27, ["add", "aside"], id="a-box-off-by-iou-0.27-finds-no-tile"),
    pytest.param(0.33, [], id="at-iou-0.33-it-is-the-tile's-box"),
])
def test_a_tile_counts_as_not_found_under_iou_three_tenths(iou, offered):
    truth = hand_layout("123m456m789p12s55p", "3s", size=70, center=(640, 480)).detections
    x0, y0, x1, y1 = (float(v) for v in truth.xyxy[4])
    wide = x0 + (x1 - x0) / iou  # the same height from the same corner: IoU = width / wide width
    det = replace(truth, xyxy=np.where(np.arange(len(truth))[:, None] == 4, [x0, y0, wide, y1], truth.xyxy)
                  .astype(np.float32))
    assert box_iou(det.xyxy[4:5].astype(float), truth.xyxy[4:5].astype(float))[0, 0] == pytest.approx(iou, abs=1e-4)
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), det, Context(), as_read=True)
    kinds = sorted(next(iter(f)) for f in corrections(res, *synth_truth(_truth_meta(truth, 3), 1280)))
    assert kinds == offered


def test_a_true_tile_outside_the_photo_is_no_correction_to_try():
    truth = hand_layout("123m456m789p12s55p", "3s", size=70, center=(640, 480)).detections
    det = truth.subset(np.arange(len(truth)) != 4)
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), det, Context(), as_read=True)
    meta = _truth_meta(truth, 3)
    meta["tiles"][4]["xyxy"] = [2000.0, 100.0, 2070.0, 190.0]  # beyond the frame: cannot be tapped
    fixes = corrections(res, *synth_truth(meta, 1280))
    assert [next(iter(f)) for f in fixes] == ["add"]
    assert one_fix_right(res, fixes, Context(), lambda again: total_right(again, meta)) is False


def test_a_negative_limit_is_refused(tmp_path, capsys):
    from xingzi.cli import main

    assert main(["bench", "pipeline", "--data", str(tmp_path), "--limit", "-1"]) == 2
    assert "--limit must be 0 (all samples) or more, got -1" in capsys.readouterr().err


def test_data_names_a_folder_or_its_data_yaml(tmp_path, capsys):
    from xingzi.cli import main

    assert main(["bench", "pipeline", "--data", str(tmp_path / "nope")]) == 2
    assert f"--data {tmp_path / 'nope'}: no such folder" in capsys.readouterr().err
    (tmp_path / "data.yaml").write_text("names: [1m]\nval: images\n")
    assert main(["bench", "pipeline", "--data", str(tmp_path / "data.yaml")]) == 2
    assert f"{tmp_path}/meta has no .json files" in capsys.readouterr().err  # the folder it describes
