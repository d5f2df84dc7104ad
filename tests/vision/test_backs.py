"""A box read as 白板 whose middle is coloured unlike the photo's plate is a face-down tile."""

from __future__ import annotations

import numpy as np
import pytest
from plate_photo import BAI, PLATE, photo

from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.backs import FAR, MIN_PLATES, PLATE_CONF, settle_backs
from xingzi.vision.detections import Detections
from xingzi.vision.detector import DEFAULT_ONNX, Detector

PURPLE, RED, DARK_GREEN, GREY_BACK = (140, 60, 120), (58, 58, 150), (40, 95, 25), (200, 200, 200)


@pytest.mark.parametrize(
    ("cells", "cast", "backs"),
    [pytest.param([PURPLE], (1, 1, 1), [True], id="purple_back"),
     pytest.param([RED], (1, 1, 1), [True], id="red_back"),
     pytest.param([DARK_GREEN], (1, 1, 1), [True], id="dark_green_back"),
     pytest.param([PLATE], (1, 1, 1), [False], id="white_blank_stays_bai"),
     pytest.param([PLATE, PURPLE], (0.85, 0.95, 1.05), [False, True], id="warm_lamp_moves_plate_and_blank_alike"),
     pytest.param([PLATE, PURPLE], (1.1, 1.0, 0.8), [False, True], id="cold_light"),
     pytest.param([GREY_BACK], (1, 1, 1), [False], id="colourless_back_left_to_the_model")],
)
def test_a_blank_read_tile_is_a_back_when_its_colour_is_far_from_the_plate(cells, cast, backs):
    image, det = photo(cells, cast)
    probs_before = det.probs.copy()
    out = settle_backs(image, det)
    faces = len(det) - len(cells)
    assert [int(c) == BACK_CLASS for c in out.cls[faces:]] == backs
    assert (out.cls[:faces] == det.cls[:faces]).all() and (out.xyxy == det.xyxy).all() and (out.conf == det.conf).all()
    for i in np.flatnonzero(out.cls != det.cls):  # 白板 becomes the first thing offered instead
        assert out.alternatives(int(i), 1) == [BAI]
        assert out.probs[i, BACK_CLASS] == pytest.approx(0.8) and out.probs[i, BAI] == pytest.approx(0.15)
    assert det.cls[faces:].tolist() == [BAI] * len(cells) and (det.probs == probs_before).all()  # input unchanged


def test_nothing_changes_without_a_plate_to_compare_with():
    image, det = photo([PURPLE], faces=MIN_PLATES - 1)
    assert settle_backs(image, det) is det
    for plate in (RED, (30, 30, 30)):  # light faces on a red or black plate: its blanks are not told from backs
        for cell in (GREY_BACK, PURPLE):  # a black plate is colourless, yet too dark to be a plate to go by
            image, det = photo([plate, cell], plate=plate)
            assert settle_backs(image, det) is det
    image, det = photo([PURPLE])
    dragons = Detections(det.xyxy, np.where(det.cls == BAI, BAI, Tile.ZHONG.index), det.conf, det.probs)
    assert settle_backs(image, dragons) is dragons  # a 中 fills its middle with its character: no plate from it
    unsure = Detections(det.xyxy, det.cls, np.where(det.cls == BAI, 0.9, PLATE_CONF - 0.01).astype(np.float32))
    assert settle_backs(image, unsure) is unsure  # faces read with doubt do not give the plate
    fairly_sure = Detections(det.xyxy, det.cls, np.where(det.cls == BAI, 0.9, 0.75).astype(np.float32), det.probs)
    assert settle_backs(image, fairly_sure).cls[-1] == BACK_CLASS  # faces read at 0.75 still give it
    grey = image.mean(axis=2).astype(np.uint8)
    assert settle_backs(grey, det) is det  # a grey photo has no colour to go by
    assert settle_backs(image, det, far=0) is det  # switched off
    assert (settle_backs(image, det, far=FAR).cls[-1]) == BACK_CLASS


@pytest.mark.parametrize("where", ["right", "below"])
def test_a_box_outside_the_photo_or_no_wider_than_a_pixel_is_left_alone(where):
    image, det = photo([PURPLE])  # wider than high: each side is clipped to its own size
    h, w = image.shape[:2]
    boxes = det.xyxy.copy()
    boxes[-1] = [w + 10, 60, w + 60, 140] if where == "right" else [10, h + 10, 60, h + 90]
    out = settle_backs(image, Detections(boxes, det.cls, det.conf, det.probs))
    assert int(out.cls[-1]) == BAI


@pytest.mark.parametrize(("box", "inside"), [
    pytest.param([-30, 60, 30, 140], (slice(60, 140), slice(0, 30)), id="left"),
    pytest.param([0, -40, 60, 40], (slice(0, 40), slice(0, 60)), id="top"),
])
def test_a_tile_the_left_or_top_edge_cuts_is_judged_by_the_middle_inside_the_photo(box, inside):
    # Half of a purple-backed tile lies beyond the photo's edge: the part of its middle inside shows the back.
    image, det = photo([PURPLE])
    image[inside] = PURPLE
    boxes = det.xyxy.copy()
    boxes[-1] = box
    out = settle_backs(image, Detections(boxes, det.cls, det.conf, det.probs))
    assert int(out.cls[-1]) == BACK_CLASS


def test_no_plate_when_only_half_the_sure_faces_are_whitish():
    # Two of the four faces lie on red plates: not most of them whitish, so no plate to go by.
    image, det = photo([PURPLE])
    for box in det.xyxy[2:4].astype(int):
        image[box[1]:box[3], box[0]:box[2]] = RED
    assert settle_backs(image, det) is det


def test_a_plate_when_more_than_half_the_sure_faces_are_whitish():
    # Two of five faces so crowded with ink that it fills their middles (a 9p, an 8m): three whitish still give the
    # plate, and the purple blank is a back.
    image, det = photo([PURPLE], faces=5)
    for box in det.xyxy[3:5].astype(int):
        image[box[1]:box[3], box[0]:box[2]] = (50, 50, 60)
    assert int(settle_backs(image, det).cls[-1]) == BACK_CLASS


def test_the_detector_settles_backs_unless_told_not_to(monkeypatch):
    from xingzi.vision import detector as mod

    image, read = photo([PLATE, PURPLE])
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: read)
    plain = {"classifier": None, "stretched": False, "negative": False, "sharpen": False, "second": None}
    assert Detector(DEFAULT_ONNX, **plain).back_far == FAR
    assert Detector(DEFAULT_ONNX, **plain).predict(image).cls[-2:].tolist() == [BAI, BACK_CLASS]
    assert Detector(DEFAULT_ONNX, back_far=0, **plain).predict(image).cls[-2:].tolist() == [BAI, BAI]
    faint = Detections(read.xyxy, read.cls, np.where(read.cls == BAI, 0.3, 0.9).astype(np.float32), read.probs)
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: faint)
    kept = Detector(DEFAULT_ONNX, **plain).predict(image)  # a back settled by colour is not dropped as faint
    assert len(kept) == len(faint) and int(kept.cls[-1]) == BACK_CLASS
    with pytest.raises(ValueError, match="back_far, noisy, shaken and defocused must be >= 0, got back_far=-1"):
        Detector(DEFAULT_ONNX, classifier=None, second=None, back_far=-1)


@pytest.mark.parametrize("side,edge", [pytest.param(1, 0, id="reaching-up"), pytest.param(3, 200, id="reaching-down")])
def test_a_loose_box_is_judged_by_its_middle_not_the_felt_it_reaches_over(side, edge):
    # The white blank's box reaches 60 px up (or down) over the green felt: its middle, cut the same
    # from either end, is still mostly plate.
    image, det = photo([PLATE])
    boxes = det.xyxy.copy()
    boxes[-1, side] = edge
    out = settle_backs(image, Detections(boxes, det.cls, det.conf, det.probs))
    assert int(out.cls[-1]) == BAI


# BGR stroke inks, pairs that would outweigh the plate if counted as one colour: alike in lightness and
# red-green (Lab) but apart in blue-yellow; and in the same a* cell but apart in L and b* (cells (2, 8, 9), (6, 8, 5)).
SKY_BLUE, OCHRE = (243, 146, 0), (0, 138, 173)
DARK_BROWN, STEEL_BLUE = (0, 30, 45), (150, 90, 30)


@pytest.mark.parametrize(("ink", "other_ink"), [
    pytest.param(SKY_BLUE, OCHRE, id="apart-in-b"),
    pytest.param(DARK_BROWN, STEEL_BLUE, id="apart-in-L-and-b"),
])
def test_a_faces_plate_is_its_commonest_colour_even_where_strokes_of_two_inks_cover_more(ink, other_ink):
    # Each face's middle: 41 % plate, 31 % strokes of one ink, 28 % of the other. Each ink is its own colour
    # cell, so the plate is still the commonest: the photo has a plate to compare with, the purple blank is a back.
    image, det = photo([PURPLE])
    for x0, y0, x1, y1 in det.xyxy[:-1].astype(int):  # the middle: x0+15..x1-15, y0+24..y1-24 (20 x 32 px)
        image[y0 + 24:y0 + 34, x0 + 15:x1 - 15] = ink
        image[y0 + 34:y0 + 43, x0 + 15:x1 - 15] = other_ink
        image[y0 + 43:y1 - 24, x0 + 15:x1 - 15] = PLATE
    assert int(settle_backs(image, det).cls[-1]) == BACK_CLASS


# Plates tinted 25 or 26 units of a* (8-bit Lab, b* neutral) toward green or toward pink: the whiteness
# allowed (PLATE_MAX_CHROMA, 25) is measured from neutral grey, alike on either side.
@pytest.mark.parametrize(("plate", "settled"), [
    pytest.param((205, 219, 150), True, id="green-by-25-is-a-plate"),
    pytest.param((167, 150, 209), True, id="pink-by-25-is-a-plate"),
    pytest.param((207, 222, 150), False, id="green-by-26-is-not"),
    pytest.param((167, 150, 212), False, id="pink-by-26-is-not"),
])
def test_a_plate_may_lean_as_far_towards_green_as_towards_pink(plate, settled):
    image, det = photo([PURPLE], plate=plate)
    out = settle_backs(image, det)
    assert (int(out.cls[-1]) == BACK_CLASS) is settled
    assert settled or out is det
