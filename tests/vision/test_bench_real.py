"""The pipeline bench on real labelled photos: the hand's tiles against the labels, winds left out."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from xingzi.engine.tiles import CLASS_NAMES, Tile
from xingzi.vision import bench_pipeline
from xingzi.vision.bench_real import CAUSES, is_real_set, miss_causes, run_real
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.metrics import IGNORE

W, H = 1280, 600
WIND = [[256, 270, 301, 330]]  # touching the row's first tile, read as 1s
NAMES = [*CLASS_NAMES[:30], "other"]


class Fixed:
    """A detector returning the same boxes for every photo."""

    def __init__(self, det: Detections) -> None:
        self.det = det

    def predict(self, image: np.ndarray) -> Detections:
        return self.det


def hand_with_wind(foreign: float | None) -> Detections:
    det = with_tiles(hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections, WIND,
                     [Tile.S1.index])
    return det if foreign is None else replace(det, foreign=np.append(np.zeros(14), foreign).astype(np.float32))


def label_line(cls: int, box) -> str:
    x0, y0, x1, y1 = (float(v) for v in box)
    return f"{cls} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} {(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}"


@pytest.fixture()
def real_set(tmp_path: Path) -> Path:
    """Two photos: a hand of 14 labelled faces with a labelled wind beside it, and 5 loose tiles (no hand)."""
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "classes.txt").write_text("\n".join(NAMES) + "\n")
    det = hand_with_wind(None)
    lines = [label_line(int(c), b) for c, b in zip(det.cls[:14], det.xyxy[:14], strict=True)]
    lines.append(label_line(30, WIND[0]))
    for stem, rows in (("hand", lines), ("few", lines[:5])):
        cv2.imwrite(str(tmp_path / "images" / f"{stem}.jpg"), np.full((H, W, 3), 90, np.uint8))
        (tmp_path / "labels" / f"{stem}.txt").write_text("\n".join(rows) + "\n")
    return tmp_path


@pytest.mark.parametrize("foreign,keep,exact,left_out", [
    pytest.param(0.9, False, 100.0, 1, id="wind-seen-and-left-out"),
    pytest.param(0.9, True, 0.0, 0, id="wind-kept-for-comparison"),
    pytest.param(0.1, False, 0.0, 0, id="wind-taken-for-a-face"),
    pytest.param(None, False, 0.0, 0, id="no-classifier"),
])
def test_the_hands_tiles_are_measured_against_the_labelled_faces(real_set, foreign, keep, exact, left_out):
    numbers, misses = run_real(real_set, Fixed(hand_with_wind(foreign)), keep_foreign=keep, show_misses=5)
    assert numbers["photos"] == 1  # the photo of five tiles holds no hand
    assert numbers["hand_tiles_exact_pct"] == exact and numbers["every_box_exact_pct"] == 0.0
    assert numbers["foreign_left_out"] == numbers["foreign_on_labelled_other"] == left_out
    assert numbers["foreign_on_labelled_face"] == numbers["foreign_on_nothing_labelled"] == 0
    assert len(misses) == (exact == 0.0)
    assert all(m.endswith("counted 1m 2m 3m 4m 5m 6m 5p×2 7p 8p 9p 1s×2 2s 3s | wind_counted 1") for m in misses)
    assert numbers["miss_tiles_wind_counted"] == len(misses)
    assert numbers["miss_tiles_misread"] == numbers["miss_tiles_extra_counted"] == 0


def test_real_hands_are_counted_against_corrected_labels_when_asked(real_set, tmp_path):
    was = [NAMES[int(line.split()[0])] for line in (real_set / "labels" / "hand.txt").read_text().splitlines()]
    now = ["9m", *was[1:]]  # an erratum saying the first tile is a 9m: the same reading is now wrong
    fixes = tmp_path / "fixes.toml"
    fixes.write_text(f'[[photo]]\nimage = "hand.jpg"\nwas = "{" ".join(was)}"\nnow = "{" ".join(now)}"\nwhy = "t"\n')
    plain, _ = run_real(real_set, Fixed(hand_with_wind(0.9)))
    fixed, misses = run_real(real_set, Fixed(hand_with_wind(0.9)), show_misses=5, errata=str(fixes))
    assert (plain["hand_tiles_exact_pct"], fixed["hand_tiles_exact_pct"]) == (100.0, 0.0)
    assert fixed["miss_tiles_misread"] == 1 and len(misses) == 1
    with pytest.raises(ValueError, match="no .* in datasets/errata"):
        run_real(real_set, Fixed(hand_with_wind(0.9)), errata="auto")


def test_tiles_an_erratum_adds_on_the_table_are_not_the_hands(real_set, tmp_path):
    """Unread tiles lying about (label errata) do not make a photo too big to be a hand, nor join its faces."""
    was = " ".join(NAMES[int(line.split()[0])] for line in (real_set / "labels" / "hand.txt").read_text().splitlines())
    heap = ", ".join(f'"unread {0.1 + 0.08 * k:.2f} 0.1 0.04 0.1"' for k in range(5))
    fixes = tmp_path / "fixes.toml"
    fixes.write_text(f'[[photo]]\nimage = "hand.jpg"\nwas = "{was}"\nnow = "{was}"\nwhy = "a heap"\nadd = [{heap}]\n')
    numbers, _ = run_real(real_set, Fixed(hand_with_wind(0.9)), errata=str(fixes))
    assert numbers["photos"] == 1 and numbers["hand_tiles_exact_pct"] == 100.0


def test_the_bench_command_tells_real_sets_from_synthetic_ones(real_set, tmp_path, capsys, monkeypatch):
    assert is_real_set(real_set) and not is_real_set(tmp_path / "nothing")
    monkeypatch.setattr(bench_pipeline, "make_detector", lambda model, conf, *second: Fixed(hand_with_wind(0.9)))
    out = tmp_path / "numbers.json"
    args = argparse.Namespace(layouts=False, data=str(real_set), boxes="model", model=None, conf=None, limit=0,
                              as_read=False, show_misses=0, json_out=str(out), keep_foreign=False)
    assert bench_pipeline.run(args) == 0
    assert "hand_tiles_exact_pct        100.0" in capsys.readouterr().out
    assert json.loads(out.read_text())["foreign_left_out"] == 1
    with pytest.raises(ValueError, match="--boxes truth needs a `xingzi synth` folder"):
        bench_pipeline.run(argparse.Namespace(**{**vars(args), "boxes": "truth"}))
    with pytest.raises(ValueError, match="--compare pairs 炮 totals of synthetic sets"):
        bench_pipeline.run(argparse.Namespace(**{**vars(args), "compare": str(out)}))


def _hand_labels() -> tuple[Detections, np.ndarray, np.ndarray]:
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections
    return det, det.xyxy.copy(), det.cls.copy()


@pytest.mark.parametrize("change,expected", [
    pytest.param("misread", {"misread": 1}, id="a-face-misread"),
    pytest.param("no_box", {"no_box": 1}, id="a-tile-not-found"),
    pytest.param("extra", {"extra_counted": 1}, id="a-tile-of-the-table-taken-in"),
    pytest.param("wind", {"wind_counted": 1}, id="a-labelled-wind-counted"),
    pytest.param("none", {}, id="read-right"),
])
def test_the_tiles_of_a_photo_read_wrong_are_counted_by_cause(change, expected):
    det, true_xyxy, true_cls = _hand_labels()
    if change == "misread":
        det = replace(det, cls=np.where(np.arange(len(det)) == 3, Tile.M9.index, det.cls))
    elif change == "no_box":
        det = det.subset(np.arange(1, len(det)))
    elif change == "extra":  # a 15th tile counted: the reading's roles say so
        det = with_tiles(det, [[900, 600, 945, 660]], [Tile.BAI.index])
        roles = tuple(group(det).roles[:-1]) + ("concealed",)
        assert dict(miss_causes(roles, det, true_xyxy, true_cls)) == expected
        return
    elif change == "wind":
        true_cls = np.where(np.arange(len(true_cls)) == 0, IGNORE, true_cls)  # labelled "other"
    causes = miss_causes(group(det).roles, det, true_xyxy, true_cls)
    assert dict(causes) == expected and set(causes) <= set(CAUSES)


def test_a_tile_the_grouping_leaves_out_is_counted_as_left_out():
    det, true_xyxy, true_cls = _hand_labels()
    roles = ("loose",) + tuple(group(det).roles[1:])
    assert dict(miss_causes(roles, det, true_xyxy, true_cls)) == {"left_out": 1}


def test_one_box_over_two_labels_of_one_tile_matches_only_one():
    det, true_xyxy, true_cls = _hand_labels()
    twice = np.vstack([true_xyxy, true_xyxy[:1] + 2])  # the same tile labelled twice
    causes = miss_causes(group(det).roles, det, twice, np.append(true_cls, true_cls[0]))
    assert dict(causes) == {"no_box": 1}


def test_tiles_lying_over_each_other_each_boxed_with_its_own_face_are_no_misread():
    # each box overlaps the other tile more than its own: paired by overlap alone they were two misreads
    true_xyxy = np.array([[0.6, 9.3, 28.0, 33.6], [1.6, 11.3, 31.3, 30.8]])
    true_cls = np.array([Tile.M1.index, Tile.M5.index])
    det = Detections(np.array([[0.8, 9.9, 30.6, 30.6], [1.1, 13.2, 33.2, 30.7]], np.float32), true_cls.copy(),
                     np.array([0.64, 0.63], np.float32))
    assert dict(miss_causes(("concealed", "concealed"), det, true_xyxy, true_cls)) == {}


def test_every_photo_of_13_to_18_labelled_tiles_is_a_hand_and_counts(tmp_path):
    # a hand of 14 and one of 13 read right, and one of 18 (four kongs) read with a tile missed that one
    # correction adds
    four_kongs = hand_layout("5p", "5p", ("kong 1m", "kong 2m", "kong 3s", "kong 9p"), size=50,
                             center=(640, 300)).detections
    fourteen = hand_with_wind(None).subset(np.arange(14))
    photos = {"fourteen": (fourteen, 60), "eighteen": (four_kongs, 120),
              "thirteen": (fourteen.subset(np.arange(13)), 180)}  # a hand before its winning tile
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "classes.txt").write_text("\n".join(NAMES) + "\n")
    for stem, (det, grey) in photos.items():
        cv2.imwrite(str(tmp_path / "images" / f"{stem}.png"), np.full((H, W, 3), grey, np.uint8))
        rows = [label_line(int(c), b) for c, b in zip(det.cls, det.xyxy, strict=True)]
        (tmp_path / "labels" / f"{stem}.txt").write_text("\n".join(rows) + "\n")
    assert len(four_kongs) == 18

    class ByGrey:
        def predict(self, image: np.ndarray) -> Detections:
            if image.mean() < 90:
                return photos["fourteen"][0]
            if image.mean() > 150:
                return photos["thirteen"][0]
            return four_kongs.subset(np.arange(18) != 5)  # a tile of the first kong not found

    numbers, _ = run_real(tmp_path, ByGrey())
    assert numbers["photos"] == 3
    assert numbers["hand_tiles_exact_pct"] == 66.7 and numbers["hand_tiles_one_fix_pct"] == 100.0
    assert numbers["every_box_exact_pct"] == 66.7  # every box, not only those counted in the hand


def test_a_row_that_is_no_hand_is_counted_as_read_after_one_correction(tmp_path):
    # real photos are seldom winning hands: a correction is counted on the tiles as read, not repaired into a hand
    row = hand_layout("1357m2468p1357s9s", "中", size=60, center=(640, 300)).detections
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "classes.txt").write_text("\n".join(NAMES) + "\n")
    cv2.imwrite(str(tmp_path / "images" / "row.png"), np.full((H, W, 3), 90, np.uint8))
    rows = [label_line(int(c), b) for c, b in zip(row.cls, row.xyxy, strict=True)]
    (tmp_path / "labels" / "row.txt").write_text("\n".join(rows) + "\n")
    numbers, _ = run_real(tmp_path, Fixed(row.subset(np.arange(len(row)) != 2)))
    assert numbers["photos"] == 1 and numbers["hand_tiles_exact_pct"] == 0.0
    assert numbers["hand_tiles_one_fix_pct"] == 100.0


def test_a_set_with_no_hand_photo_reports_nothing_read(real_set):
    (real_set / "labels" / "hand.txt").write_text(label_line(0, WIND[0]) + "\n")  # now a photo of one tile
    numbers, _ = run_real(real_set, Fixed(hand_with_wind(0.9)))
    assert numbers["photos"] == 0 and numbers["hand_tiles_exact_pct"] == 0.0
    assert numbers["latency_median_ms"] == 0.0 and numbers["latency_p95_ms"] == 0.0


def _read_with(change: str) -> Detections:
    det = hand_with_wind(0.9)
    if change == "wind-counted":
        return hand_with_wind(0.1)
    if change == "missed":
        return det.subset(np.arange(len(det)) != 4)  # the 5m
    cls = det.cls.copy()
    cls[10] = Tile.S3.index  # the 2s
    if change == "two-misread":
        cls[0] = Tile.M9.index
    return replace(det, cls=cls)


@pytest.mark.parametrize("change,after_fix,offered", [
    pytest.param("wind-counted", 100.0, "0/0 (0 first)", id="wind-set-aside"),
    pytest.param("misread", 100.0, "0/1 (0 first)", id="misread-given-its-face"),
    pytest.param("missed", 100.0, "0/0 (0 first)", id="missed-tile-added"),
    pytest.param("two-misread", 0.0, "0/2 (0 first)", id="two-tiles-wrong-need-two-fixes"),
])
def test_one_correction_on_the_page_is_measured_on_real_photos(real_set, change, after_fix, offered):
    numbers, _ = run_real(real_set, Fixed(_read_with(change)))  # no classifier odds: no face is offered
    assert numbers["hand_tiles_exact_pct"] == 0.0
    assert numbers["hand_tiles_one_fix_pct"] == after_fix
    assert numbers["misread_face_offered"] == offered


def test_the_bench_command_passes_its_second_opinions_on(real_set, monkeypatch):
    asked = []

    def made(model, conf, second, second_doubt):
        asked.append((second, second_doubt))
        return Fixed(hand_with_wind(0.9))

    monkeypatch.setattr(bench_pipeline, "make_detector", made)
    parser = argparse.ArgumentParser()
    bench_pipeline.add_arguments(parser)
    args = parser.parse_args(["--data", str(real_set), "--second", "a.onnx", "--second", "b.onnx", "--second-doubt", "2"])
    assert bench_pipeline.run(args) == 0
    assert asked == [(["a.onnx", "b.onnx"], 2.0)]
