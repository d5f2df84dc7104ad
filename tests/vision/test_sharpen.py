"""Blurred photos: a doubtful reading is checked against a sharpened copy of the photo."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from demo_photo import demo_photo

from xingzi.vision.detections import Detections
from xingzi.vision.sharpen import DOUBTFUL, read_sharpened, sharpen


def _tiles(n: int, conf: float) -> Detections:
    xs = np.arange(n, dtype=np.float32) * 20
    xyxy = np.stack([xs, np.zeros(n), xs + 18, np.full(n, 25)], 1).astype(np.float32)
    return Detections(xyxy, np.zeros(n, np.int64), np.full(n, conf, np.float32))


class SharpnessReader:
    """Reads ``crisp`` from a picture with strong edges, else ``soft``; counts its calls."""

    def __init__(self, crisp: Detections, soft: Detections) -> None:
        self.crisp, self.soft, self.calls = crisp, soft, 0

    def __call__(self, image: np.ndarray) -> Detections:
        self.calls += 1
        edges = cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()
        return self.crisp if edges > EDGY else self.soft


EDGY = 8.0  # Laplacian variance between the blurred edge's (4.3) and the sharpened one's (16)


def _blurred_edge() -> np.ndarray:
    image = np.zeros((400, 600, 3), np.uint8)  # the unsharp mask's sigma: 600 / 400 = 1.5 px
    image[:, 300:] = 255
    return cv2.GaussianBlur(image, (0, 0), 1.5)


@pytest.mark.parametrize(
    ("first", "sharpened", "kept"),
    [pytest.param(_tiles(9, 0.7), _tiles(14, 0.9), "sharpened", id="blurred_photo_read_sharpened"),
     pytest.param(_tiles(14, 0.8), _tiles(14, 0.81), "first", id="sharpened_barely_surer"),
     pytest.param(_tiles(14, 0.7), _tiles(12, 0.95), "first", id="sharpened_finds_fewer")],
)
def test_the_sharpened_reading_is_kept_only_when_clearly_better(first, sharpened, kept):
    reader = SharpnessReader(crisp=sharpened, soft=first)
    out = read_sharpened(reader, _blurred_edge(), first)
    assert out is (sharpened if kept == "sharpened" else first)
    assert reader.calls == 1


def test_a_sure_reading_is_not_read_again():
    first = _tiles(14, DOUBTFUL + 0.05)
    reader = SharpnessReader(crisp=_tiles(14, 0.99), soft=first)
    assert read_sharpened(reader, _blurred_edge(), first) is first and reader.calls == 0


def test_sharpening_restores_edges_and_keeps_the_photo_shape():
    soft = _blurred_edge()
    crisp = sharpen(soft)
    assert crisp.shape == soft.shape and crisp.dtype == soft.dtype

    def edges(im):
        return cv2.Laplacian(cv2.cvtColor(im, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var()

    assert edges(crisp) > 2 * edges(soft)


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
