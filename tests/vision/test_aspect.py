"""Pictures saved with one axis stretched are read squeezed back to their true shape."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from demo_photo import demo_photo, write_demo_dataset

from xingzi.vision.aspect import ELONGATED, FEW_TILES, elongation, read_stretched, squeeze, unsqueeze
from xingzi.vision.detections import Detections
from xingzi.vision.metrics import box_iou


def _tiles(n: int, w: int, h: int, conf: float = 0.9) -> Detections:
    """n boxes side by side across a w×h image."""
    xs = np.linspace(0, w, n + 1)
    xyxy = np.stack([xs[:-1], np.full(n, 0.2 * h), xs[1:], np.full(n, 0.8 * h)], 1).astype(np.float32)
    return Detections(xyxy, np.arange(n, dtype=np.int64), np.full(n, conf, np.float32))


class ShapeReader:
    """Like the detector on a 3:1 strip of 9 tiles: all of them, sure, when the picture has that shape
    (within 10 %), a few unsure ones when it is near it (within 40 %), none otherwise. Counts its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def __call__(self, image: np.ndarray) -> Detections:
        h, w = image.shape[:2]
        self.calls.append((w, h))
        off = abs(w / h / 3 - 1)
        return _tiles(9, w, h) if off < 0.1 else _tiles(3, w, h, conf=0.4) if off < 0.4 else Detections.empty()


def test_a_picture_stretched_tall_is_read_squeezed_and_boxes_map_back():
    image = np.zeros((1600, 600, 3), np.uint8)  # a 600×200 strip stretched 8× in height
    reader = ShapeReader()
    det = read_stretched(reader, image, reader(image))
    assert len(det) == 9
    assert det.xyxy[:, 3].max() == pytest.approx(0.8 * 1600, rel=0.02)  # back in the stretched picture's pixels
    assert det.xyxy[:, 2].max() == pytest.approx(600, abs=1)
    assert len(reader.calls) <= 1 + 4 + 6


def test_a_picture_stretched_wide_is_read_squeezed_along_x():
    image = np.zeros((100, 3900, 3), np.uint8)  # 300×100 stretched 13× in width
    reader = ShapeReader()
    det = read_stretched(reader, image, reader(image))
    assert len(det) == 9 and det.xyxy[:, 2].max() == pytest.approx(3900, rel=0.02)


def test_a_normal_reading_is_kept_without_further_calls():
    image = np.zeros((300, 900, 3), np.uint8)
    reader = ShapeReader()
    first = reader(image)
    assert len(first) >= FEW_TILES
    assert read_stretched(reader, image, first) is first
    assert len(reader.calls) == 1


def test_nothing_in_any_shape_gives_the_first_reading_after_the_coarse_tries_only():
    image = np.zeros((400, 400, 3), np.uint8)
    calls = []

    def blind(img: np.ndarray) -> Detections:
        calls.append(img.shape)
        return Detections.empty()

    assert len(read_stretched(blind, image, Detections.empty())) == 0
    assert len(calls) == 4  # two factors on each axis, no refinement without any signal


def test_a_weak_first_reading_is_replaced_only_by_a_more_confident_one():
    image = np.zeros((600, 600, 3), np.uint8)
    first = _tiles(2, 600, 600, conf=0.9)  # two sure tiles: below FEW_TILES, so squeezing is tried
    weak = read_stretched(lambda img: _tiles(3, img.shape[1], img.shape[0], conf=0.3), image, first)
    assert weak is first  # 3 × 0.3 < 2 × 0.9


def test_squeeze_and_unsqueeze_are_inverse_on_boxes():
    image = np.zeros((90, 120, 3), np.uint8)
    small = squeeze(image, 1, 4)
    assert small.shape[:2] == (90, 30)
    d = unsqueeze(_tiles(3, 30, 90), 1, 120 / 30)
    np.testing.assert_allclose(d.xyxy, _tiles(3, 120, 90).xyxy, atol=1e-4)
    with pytest.raises(ValueError, match="factor >= 1"):
        squeeze(image, 1, 0.5)


def test_the_shipped_detector_reads_the_demo_photo_stretched_fivefold():
    from xingzi.vision.detector import Detector

    image, truth, _ = demo_photo()
    h, w = image.shape[:2]
    wide = cv2.resize(image, (w * 5, h))
    truth[:, [0, 2]] *= 5
    plain = Detector(stretched=False, negative=False).predict(wide)
    rescued = Detector().predict(wide)
    found = (box_iou(truth, rescued.xyxy).max(1) >= 0.5).mean() if len(rescued) else 0.0
    assert (plain.conf >= 0.25).sum() < len(truth) / 2  # the stretch defeats one reading
    assert found >= 0.8, f"only {found:.0%} of the tiles found in the stretched photo"


def test_eval_reads_a_stretched_photo_unless_told_not_to(tmp_path, eval_scores_only):
    from xingzi.cli import main

    image, _, _ = demo_photo()
    h, w = image.shape[:2]
    data = write_demo_dataset(tmp_path / "data", cv2.resize(image, (w * 5, h)), "wide.jpg")
    recall = {}
    for flags in ([], ["--no-stretched"]):
        out = tmp_path / ("plain" if flags else "default")
        assert main(["eval", "--data", str(data), "--out", str(out), *flags]) == 0
        (row,) = out.glob("*.json")
        assert row.name.endswith("+xingzi_tilecls.json") and ("-unstretched" in row.name) == bool(flags)
        recall[bool(flags)] = json.loads(row.read_text())["summary"]["recall"]
    assert recall[False] >= 0.8 and recall[True] < 0.5, recall


def test_the_second_stage_runs_once_on_the_chosen_squeezed_version():
    image = np.zeros((100, 3900, 3), np.uint8)  # 300×100 stretched 13× in width
    seen = []

    def refine(img: np.ndarray, det: Detections) -> Detections:
        seen.append((img.shape[1], img.shape[0], len(det)))
        return Detections(det.xyxy, np.full(len(det), 7, np.int64), det.conf)

    det = read_stretched(ShapeReader(), image, Detections.empty(), refine)
    assert seen == [(300, 100, 9)]  # the 13× squeeze, where the tiles have their shape
    assert det.cls.tolist() == [7] * 9 and det.xyxy[:, 2].max() == pytest.approx(3900, rel=0.02)
    blind = read_stretched(lambda img: Detections.empty(), image, Detections.empty(), refine)
    assert len(blind) == 0 and len(seen) == 1  # nothing chosen: nothing refined


class TallReader:
    """Six sure but far too tall tiles on a picture 2–5× taller than wide; nine normal ones near 3:1."""

    def __call__(self, image: np.ndarray) -> Detections:
        h, w = image.shape[:2]
        if 2 * w < h <= 5 * w:
            xs = np.linspace(0, w, 7)
            xyxy = np.stack([xs[:-1], np.full(6, 0.1 * h), xs[:-1] + w / 9, np.full(6, 0.9 * h)], 1)
            return Detections(xyxy.astype(np.float32), np.zeros(6, np.int64), np.full(6, 0.5, np.float32))
        return _tiles(9, w, h) if abs(w / h - 3) < 0.6 else Detections.empty()


def test_tiles_far_too_long_for_a_tile_also_mean_a_stretched_picture():
    image = np.zeros((1200, 300, 3), np.uint8)  # a 300×100 strip stretched 12× in height
    reader = TallReader()
    first = reader(image)
    assert (first.conf >= 0.25).sum() >= FEW_TILES and elongation(first) > ELONGATED
    det = read_stretched(reader, image, first)
    assert len(det) == 9 and det.xyxy[:, 3].max() == pytest.approx(0.8 * 1200, rel=0.05)
    normal = _tiles(9, 300, 100)
    assert elongation(normal) < ELONGATED and read_stretched(reader, np.zeros((100, 300, 3), np.uint8), normal) is normal


@pytest.mark.parametrize(("ratio", "stretched"), [
    pytest.param(2.6, False, id="standing_tile_seen_edge_on"),  # the longest a real tile looks
    pytest.param(4.0, True, id="upright_tile_stretched_threefold"),  # 4:3 made three times as tall
])
def test_where_a_reading_of_long_tiles_means_a_stretched_picture(ratio, stretched):
    calls = []

    def reader(image: np.ndarray) -> Detections:
        calls.append(image.shape)
        return Detections.empty()

    xyxy = np.array([[40.0 * i, 0.0, 40.0 * i + 30.0, 30.0 * ratio] for i in range(9)], np.float32)
    first = Detections(xyxy, np.arange(9, dtype=np.int64), np.full(9, 0.9, np.float32))
    assert read_stretched(reader, np.zeros((400, 400, 3), np.uint8), first) is first  # nothing read better
    assert bool(calls) is stretched
