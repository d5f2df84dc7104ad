"""Blurred photos: a doubtful reading is checked against a sharpened copy of the photo."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from demo_photo import demo_photo
from fake_readings import SwitchReader, tiles

from xingzi.vision.detections import Detections
from xingzi.vision.sharpen import DOUBTFUL, read_sharpened, sharpen

EDGY = 8.0  # Laplacian variance between the blurred edge's (4.3) and the sharpened one's (16)


def _blurred_edge() -> np.ndarray:
    image = np.zeros((400, 600, 3), np.uint8)  # the unsharp mask's sigma: 600 / 400 = 1.5 px
    image[:, 300:] = 255
    return cv2.GaussianBlur(image, (0, 0), 1.5)


def _edges(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def sharpness_reader(crisp: Detections, soft: Detections) -> SwitchReader:
    """Reads ``crisp`` from a picture with strong edges, else ``soft``."""
    return SwitchReader(lambda image: _edges(image) > EDGY, crisp, soft)


@pytest.mark.parametrize(
    ("first", "sharpened", "kept"),
    [pytest.param(tiles(9, 0.7), tiles(14, 0.9), "sharpened", id="blurred_photo_read_sharpened"),
     pytest.param(tiles(14, 0.8), tiles(14, 0.81), "first", id="sharpened_barely_surer"),
     pytest.param(tiles(14, 0.7), tiles(12, 0.95), "first", id="sharpened_finds_fewer")],
)
def test_the_sharpened_reading_is_kept_only_when_clearly_better(first, sharpened, kept):
    reader = sharpness_reader(crisp=sharpened, soft=first)
    out = read_sharpened(reader, _blurred_edge(), first)
    assert out is (sharpened if kept == "sharpened" else first)
    assert reader.calls == 1


def test_a_sure_reading_is_not_read_again():
    first = tiles(14, DOUBTFUL + 0.05)
    reader = sharpness_reader(crisp=tiles(14, 0.99), soft=first)
    assert read_sharpened(reader, _blurred_edge(), first) is first and reader.calls == 0


def test_sharpening_restores_edges_and_keeps_the_photo_shape():
    soft = _blurred_edge()
    crisp = sharpen(soft)
    assert crisp.shape == soft.shape and crisp.dtype == soft.dtype

    assert _edges(crisp) > 2 * _edges(soft)


def test_the_shipped_detector_reads_a_blurred_photo_better_sharpened():
    from xingzi.vision.detector import Detector
    from xingzi.vision.metrics import box_iou

    image, truth, cls = demo_photo()
    scale = 0.35  # a small photo (448 px), badly shaken: the stage-7 detector reads 12 of its 18 tiles
    blurred = cv2.GaussianBlur(cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), (0, 0), 2.5)
    truth = truth * scale

    def right(det: Detections) -> int:
        sure = det.subset(det.conf >= 0.25)
        iou = box_iou(truth, sure.xyxy)
        return int(sum(iou[i].max() >= 0.5 and sure.cls[iou[i].argmax()] == cls[i] for i in range(len(truth))))

    plain = right(Detector(sharpen=False).predict(blurred))
    both = right(Detector().predict(blurred))
    assert both > plain, (plain, both)


def test_a_photo_read_in_the_negative_is_not_also_sharpened(monkeypatch):
    from xingzi.vision import detector as mod

    calls = []

    def read(self, image, ask_second=False, also=None):
        calls.append(image.mean())
        dark = image.mean() < 127  # the photo is light; its negative dark
        return tiles(14, 0.7) if dark else tiles(14, 0.5)  # the negative: surer, still doubtful

    monkeypatch.setattr(mod.Detector, "read", read)
    light = np.full((60, 80, 3), 200, np.uint8)
    det = mod.Detector(classifier=None, stretched=False).predict(light)
    assert float(det.conf[0]) == pytest.approx(0.7)  # the negative's reading, kept
    assert len(calls) == 2, "photo and its negative only: no sharpened copy of the photo"
    calls.clear()
    mod.Detector(classifier=None, stretched=False, negative=False).predict(light)
    assert len(calls) == 2, "without the negative, the doubtful photo is read sharpened"


def test_the_sharpening_is_scaled_to_the_photos_long_side_whichever_way_it_is_held():
    wide = demo_photo()[0][:600, :800]
    assert sharpen(wide).shape == wide.shape and sharpen(wide).dtype == np.uint8
    np.testing.assert_array_equal(sharpen(wide.transpose(1, 0, 2).copy()), sharpen(wide).transpose(1, 0, 2))
