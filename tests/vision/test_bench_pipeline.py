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
from xingzi.vision.bench_pipeline import (
    melds_exact,
    needs_input,
    one_tap_right,
    summarise,
    total_right,
    truth_detections,
)
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
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
])
def test_one_fix_tries_each_correction_the_truth_allows(change, expected, own, right):
    truth = hand_layout("123m456m789p12s55p", "3s", size=70, center=(640, 480), probs=True).detections
    loose = None
    if change == "misread":
        det = replace(truth, cls=np.where(np.arange(len(truth)) == 10, Tile.S3.index, truth.cls))
    elif change == "missed":
        det = truth.subset(np.arange(len(truth)) != 4)
    elif change == "twin":  # a second, looser box on the last 5p, read as a 5p too
        x0, y0, x1, y1 = (float(v) for v in truth.xyxy[12])
        det = with_tiles(truth, [[x0 + 6, y0 - 4, x1 + 10, y1 + 2]], [Tile.P5.index])
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
