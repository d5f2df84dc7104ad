"""Photos under a coloured light: read white-balanced on the plate of the tiles found."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from plate_photo import PLATE, photo

from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.balance import balanced, light_cast, plate_colour, read_balanced
from xingzi.vision.detections import Detections
from xingzi.vision.detector import DEFAULT_ONNX, Detector

IVORY = PLATE
TUNGSTEN = (0.55, 0.8, 1.0)  # B, G, R gains of a warm bulb


def lab_of(bgr) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)


def hand_photo(light=(1.0, 1.0, 1.0), plate=IVORY, tiles: int = 5) -> tuple[np.ndarray, Detections]:
    """``tiles`` suit tiles of the ``plate`` colour with a red and a green stroke and a 白板, under ``light``."""
    return photo([plate], light, faces=tiles, plate=plate)


@pytest.mark.parametrize(
    ("plate", "cast"),
    [pytest.param(lab_of(IVORY), False, id="ivory_in_daylight"),
     pytest.param(lab_of((132, 192, 240)), True, id="ivory_under_a_warm_bulb"),
     pytest.param(lab_of((245, 200, 130)), True, id="ivory_in_deep_blue_shade"),
     pytest.param(lab_of((240, 215, 170)), False, id="a_slight_blue_tint_is_left"),
     pytest.param(lab_of((40, 40, 150)), False, id="a_red_plate_is_the_sets_colour"),
     pytest.param(lab_of((30, 45, 60)), False, id="a_dark_plate"),
     pytest.param(None, False, id="no_plate")],
)
def test_a_cast_is_a_light_plate_yellow_or_blue(plate, cast):
    assert light_cast(plate) is cast


def test_the_balanced_photo_shows_the_plate_grey():
    image, det = hand_photo(TUNGSTEN)
    plate = plate_colour(image, det)
    assert plate is not None and light_cast(plate)
    again = plate_colour(balanced(image, plate), det)
    assert again is not None and abs(again[1] - 128) <= 3 and abs(again[2] - 128) <= 3
    assert not light_cast(again)
    assert plate_colour(image.mean(axis=2).astype(np.uint8), det) is None  # a grey photo


def test_a_photo_under_a_warm_bulb_is_read_again_balanced():
    image, det = hand_photo(TUNGSTEN)
    as_backs = Detections(det.xyxy, np.where(det.cls == Tile.BAI.index, BACK_CLASS, det.cls), det.conf)
    seen = []

    def read(picture):  # the model: the blank read as a back in the orange photo, as 白板 once balanced
        seen.append(picture)
        return det

    got, picture = read_balanced(read, image, as_backs)
    assert got is det and picture is seen[0]
    assert not light_cast(plate_colour(picture, det))
    fewer = det.subset(np.arange(len(det)) < 3)
    assert read_balanced(lambda picture: fewer, image, as_backs) == (as_backs, image)  # fewer tiles: the first
    unsure = Detections(det.xyxy, det.cls, np.full(len(det), 0.8, np.float32))
    assert read_balanced(lambda picture: unsure, image, as_backs)[0] is as_backs  # read less surely: the first


def test_a_photo_in_daylight_or_of_a_red_set_is_read_once():
    def never(picture):
        raise AssertionError("read again")

    for image, det in (hand_photo(), hand_photo(plate=(40, 40, 150)), hand_photo(TUNGSTEN, tiles=1)):
        assert read_balanced(never, image, det) == (det, image)


def test_the_detector_reads_a_warm_photo_balanced_unless_told_not_to(monkeypatch):
    from xingzi.vision import detector as mod

    image, det = hand_photo(TUNGSTEN)
    as_back = Detections(det.xyxy, np.where(det.cls == Tile.BAI.index, BACK_CLASS, det.cls), det.conf)

    def read(self, picture, ask_second=False, also=None):  # orange: the blank is a back; balanced: a 白板
        return as_back if light_cast(plate_colour(picture, det)) else det

    monkeypatch.setattr(mod.Detector, "read", read)
    plain = {"classifier": None, "stretched": False, "negative": False, "sharpen": False, "second": None}
    assert int(Detector(DEFAULT_ONNX, **plain).predict(image).cls[-1]) == Tile.BAI.index
    assert int(Detector(DEFAULT_ONNX, balance=False, **plain).predict(image).cls[-1]) == BACK_CLASS
