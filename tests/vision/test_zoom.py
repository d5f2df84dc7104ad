"""Two-pass reading: the tiles' region is read again when it is small in the photo."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision.detections import Detections
from xingzi.vision.zoom import ZoomDetector


class FakeDetector:
    """Finds a 'tile' wherever the image is white; records the shapes it was given."""

    def __init__(self):
        self.seen: list[tuple[int, int]] = []
        self.asked: list[bool] = []

    def predict(self, image, ask_second=False):
        self.seen.append(image.shape[:2])
        self.asked.append(ask_second)
        ys, xs = np.nonzero(image[:, :, 0] > 200)
        if len(xs) == 0:
            boxes = np.zeros((0, 4), np.float32)
        else:
            boxes = np.array([[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]], np.float32)
        n = len(boxes)
        return Detections(boxes, np.full(n, 5, np.int64), np.full(n, 0.9, np.float32))


def image_with_tile(h, w, box):
    im = np.zeros((h, w, 3), np.uint8)
    x1, y1, x2, y2 = box
    im[y1:y2, x1:x2] = 255
    return im


def test_small_hand_is_read_again_and_boxes_map_back():
    fake = FakeDetector()
    im = image_with_tile(1000, 1600, (700, 400, 740, 460))
    det = ZoomDetector(fake).predict(im)
    assert len(fake.seen) == 2 and fake.seen[1][0] < 1000 and fake.seen[1][1] < 1600
    np.testing.assert_allclose(det.xyxy[0], [700, 400, 740, 460])
    assert fake.asked == [False, False]


def test_the_region_read_again_reaches_the_margin_beyond_the_tiles_on_every_side():
    det = FakeDetector().predict(image_with_tile(1000, 1600, (700, 400, 740, 460)))  # a tile 60 px long
    assert ZoomDetector(FakeDetector()).region(det, (1000, 1600)) == (610, 310, 830, 550)  # 1.5 tiles = 90 px
    assert ZoomDetector(FakeDetector(), margin=0).region(det, (1000, 1600)) == (700, 400, 740, 460)
    corner = FakeDetector().predict(image_with_tile(1000, 1600, (10, 10, 50, 70)))
    assert ZoomDetector(FakeDetector()).region(corner, (1000, 1600)) == (0, 0, 140, 160)  # kept inside the photo


def test_asking_the_second_opinion_reaches_both_passes():
    fake = FakeDetector()
    ZoomDetector(fake).predict(image_with_tile(1000, 1600, (700, 400, 740, 460)), ask_second=True)
    assert fake.asked == [True, True]


def test_hand_filling_the_frame_is_read_once():
    fake = FakeDetector()
    im = image_with_tile(400, 400, (20, 20, 380, 380))
    det = ZoomDetector(fake).predict(im)
    assert len(fake.seen) == 1 and len(det) == 1


def test_nothing_found_is_read_once():
    fake = FakeDetector()
    assert len(ZoomDetector(fake).predict(np.zeros((300, 300, 3), np.uint8))) == 0
    assert len(fake.seen) == 1


@pytest.mark.parametrize("fill, margin", [pytest.param(0, 1, id="fill_zero"), pytest.param(0.5, -1, id="negative_margin")])
def test_bad_settings_are_refused(fill, margin):
    with pytest.raises(ValueError, match="fill must be"):
        ZoomDetector(FakeDetector(), fill=fill, margin=margin)


@pytest.mark.parametrize(
    "tile_side, large_tile, passes",
    [
        pytest.param(60, 0.04, 2, id="small_tiles_zoomed"),
        pytest.param(64, 0.04, 1, id="at_threshold_read_once"),
        pytest.param(120, 0.04, 1, id="large_tiles_read_once"),
        pytest.param(120, 1.0, 2, id="rule_off_zooms"),
    ],
)
def test_tiles_already_large_are_not_read_again(tile_side, large_tile, passes):
    fake = FakeDetector()
    im = image_with_tile(1000, 1600, (700, 400, 740, 400 + tile_side))  # longer side 1600: 0.04 is 64 px
    ZoomDetector(fake, large_tile=large_tile).predict(im)
    assert len(fake.seen) == passes


def test_bad_large_tile_is_refused():
    with pytest.raises(ValueError, match="large_tile"):
        ZoomDetector(FakeDetector(), large_tile=0)


class LowerableDetector(FakeDetector):
    """A FakeDetector with a threshold that can be set lower, as the real detector's ``at_conf``."""

    def __init__(self, conf: float = 0.25):
        super().__init__()
        self.conf = conf

    def at_conf(self, conf: float) -> LowerableDetector:
        return LowerableDetector(conf)


@pytest.mark.parametrize("wrapped, lowered", [
    pytest.param(LowerableDetector, True, id="a-detector-with-a-threshold"),
    pytest.param(FakeDetector, False, id="a-predictor-with-none"),
])
def test_zooming_over_a_detector_reads_at_a_lower_threshold_only_where_the_detector_can(wrapped, lowered):
    """The photo read again lower (a faint tile, ``pipeline.detect_hand``) zooms as before over the detector at the
    lower threshold; a predictor with no threshold to set gives None, as the detector itself would have no at_conf."""
    zoom = ZoomDetector(wrapped(), fill=0.5, margin=1.0, large_tile=0.2)
    low = zoom.at_conf(0.05)
    assert (low is not None) is lowered
    if lowered:
        assert isinstance(low, ZoomDetector) and low.conf == 0.05 and zoom.conf == 0.25
        assert (low.fill, low.margin, low.large_tile) == (0.5, 1.0, 0.2)
