"""Tiles cut off by the photo's frame: a sliver of a tile is not read as a tile."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision.detections import Detections
from xingzi.vision.detector import DEFAULT_ONNX, Detector
from xingzi.vision.edges import MIN_INSIDE, cut_shares, drop_cut_tiles

SHAPE = (300, 400, 3)  # a 400 × 300 photo
TILE_W, TILE_H = 40.0, 56.0


def row_with(extra: list[list[float]], whole: int = 5, whole_conf: float = 0.9) -> Detections:
    """``whole`` uncut tiles of 40 × 56 px in a row across the middle, then the ``extra`` boxes."""
    boxes = [[60 + 42 * i, 120, 100 + 42 * i, 176] for i in range(whole)] + extra
    conf = [whole_conf] * whole + [0.8] * len(extra)
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.arange(len(boxes)) % 27,
                      np.array(conf, np.float32))


@pytest.mark.parametrize(
    ("extra", "share", "kept"),
    [pytest.param([387, 120, 400, 176], 13 / TILE_W, False, id="strip_at_the_right_edge"),
     pytest.param([386, 120, 400, 176], 14 / TILE_W, True, id="at_the_bar_kept"),
     pytest.param([0, 120, 12, 176], 12 / TILE_W, False, id="strip_at_the_left_edge"),
     pytest.param([380, 120, 400, 176], 20 / TILE_W, True, id="half_a_tile_inside"),
     pytest.param([200, 285, 240, 300], 15 / TILE_H, False, id="top_of_a_tile_at_the_bottom"),
     pytest.param([200, 0, 240, 30], 30 / TILE_H, True, id="more_than_half_inside_at_the_top"),
     pytest.param([0, 0, 30, 10], 10 / TILE_H, False, id="corner_cut_both_ways"),
     pytest.param([360, 20, 400, 76], 1.0, True, id="whole_tile_touching_the_edge"),
     pytest.param([200, 20, 210, 60], 1.0, True, id="narrow_box_inside_the_frame")],
)
def test_a_box_the_frame_cuts_to_a_sliver_is_dropped(extra, share, kept):
    det = row_with([extra])
    assert cut_shares(det, SHAPE)[-1] == pytest.approx(share, rel=1e-5)
    out = drop_cut_tiles(det, SHAPE)
    assert len(out) == len(det) - (0 if kept else 1)
    np.testing.assert_array_equal(out.xyxy[:5], det.xyxy[:5])  # the whole tiles stay, in order


@pytest.mark.parametrize(
    ("det", "why"),
    [pytest.param(row_with([[387, 120, 400, 176]], whole=2), "two whole tiles do not tell a tile's size",
                  id="too_few_whole_tiles"),
     pytest.param(row_with([[387, 120, 400, 176]], whole_conf=0.1), "unsure boxes do not tell a tile's size",
                  id="whole_tiles_unsure")],
)
def test_nothing_is_dropped_without_enough_sure_whole_tiles(det, why):
    assert len(drop_cut_tiles(det, SHAPE)) == len(det), why


def test_three_whole_tiles_tell_a_tiles_size_and_a_grey_photos_shape_will_do():
    det = row_with([[387, 120, 400, 176]], whole=3)
    assert len(drop_cut_tiles(det, SHAPE)) == 3
    np.testing.assert_array_equal(cut_shares(det, SHAPE[:2]), cut_shares(det, SHAPE))  # (height, width) alone
    for empty in ((300, 0), (0, 400)):
        with pytest.raises(ValueError, match=r"expected an image shape \(height, width, ...\), got"):
            cut_shares(det, empty)


def test_keep_all_and_bad_input():
    det = row_with([[387, 120, 400, 176]])
    assert len(drop_cut_tiles(det, SHAPE, 0.0)) == len(det)
    assert len(drop_cut_tiles(Detections.empty(), SHAPE)) == 0
    with pytest.raises(ValueError, match=r"min_inside must be in \[0, 1\], got 1.5"):
        drop_cut_tiles(det, SHAPE, 1.5)
    with pytest.raises(ValueError, match="expected an image shape"):
        cut_shares(det, (0,))
    with pytest.raises(ValueError, match="min_inside"):
        Detector(DEFAULT_ONNX, classifier=None, min_inside=-0.1)


def test_the_detector_drops_slivers_it_reads(monkeypatch):
    from xingzi.vision import detector as mod

    read = row_with([[387, 120, 400, 176], [0, 0, 30, 10]])
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: read)
    photo = np.zeros(SHAPE, np.uint8)
    plain = {"classifier": None, "stretched": False, "negative": False, "sharpen": False, "second": None}
    assert Detector(DEFAULT_ONNX, **plain).min_inside == MIN_INSIDE
    np.testing.assert_array_equal(Detector(DEFAULT_ONNX, **plain).predict(photo).xyxy, read.xyxy[:5])
    assert len(Detector(DEFAULT_ONNX, min_inside=0, **plain).predict(photo)) == 7


def _short_hand_from_the_left(left: float) -> Detections:
    """A hand one tile short (13 standing tiles and the winning tile apart), its row starting ``left`` px
    from the photo's left edge (the shorter side of a tile: 60 × 0.75 = 45 px), or ending ``-left`` px from its
    right edge."""
    from xingzi.vision.layouts import hand_layout

    det = hand_layout("123m456m789p1s55p", "3s", center=(640.0, 480.0)).detections
    # a negative ``left``: the hand's right end that far from the photo's right edge (1280 px)
    dx = left - det.xyxy[:, 0].min() if left >= 0 else 1280 + left - det.xyxy[:, 2].max()
    shift = np.array([dx, 0, dx, 0], np.float32)
    return Detections(det.xyxy + shift, det.cls, det.conf, det.probs)


@pytest.mark.parametrize(
    ("left", "hand", "hinted"),
    [pytest.param(4.0, "short", True, id="short_hand_touching_the_frame"),
     pytest.param(5.0, "short", False, id="short_hand_a_tenth_of_a_tile_off_the_frame"),  # 0.1 x 45 px = 4.5
     pytest.param(-4.0, "short", True, id="short_hand_touching_the_right_of_the_frame"),
     pytest.param(-15.0, "short", False, id="short_hand_framed_tightly_on_the_right"),
     pytest.param(15.0, "short", False, id="short_hand_framed_tightly"),
     pytest.param(200.0, "short", False, id="short_hand_well_inside"),
     pytest.param(4.0, "whole", False, id="whole_hand_touching_the_frame")],
)
def test_a_short_hand_at_the_frame_says_a_tile_may_be_cut_off(left, hand, hinted):
    from xingzi.vision.edges import CUT_HAND, hint_cut_hand
    from xingzi.vision.grouping import group
    from xingzi.vision.layouts import hand_layout

    if hand == "short":
        det = _short_hand_from_the_left(left)
    else:
        det = hand_layout("123m456m789p12s55p", "3s").detections
        det = Detections(det.xyxy - np.array([det.xyxy[:, 0].min() - left, 0, det.xyxy[:, 0].min() - left, 0],
                                             np.float32), det.cls, det.conf)
    reading = hint_cut_hand(group(det), (960, 1280, 3))
    assert (CUT_HAND in reading.problems) == hinted
    assert reading.problems.count(CUT_HAND) <= 1
    assert hint_cut_hand(reading, (960, 1280, 3)).problems == reading.problems  # judged again, not added twice


def test_the_hint_goes_once_the_hand_is_whole_and_is_said_in_chinese():
    from dataclasses import replace

    from xingzi.vision.edges import CUT_HAND, hint_cut_hand
    from xingzi.vision.grouping import group
    from xingzi.vision.layouts import hand_layout
    from xingzi.vision.messages import chinese
    from xingzi.vision.pipeline import Context, analyse

    whole = group(hand_layout("123m456m789p12s55p", "3s").detections)
    stale = replace(whole, problems=(*whole.problems, CUT_HAND))
    assert CUT_HAND not in hint_cut_hand(stale, (960, 1280, 3)).problems
    result = analyse(np.full((960, 1280, 3), 60, np.uint8), _short_hand_from_the_left(4.0), Context())
    assert CUT_HAND in result.reading.problems
    assert chinese(CUT_HAND) == "手牌碰到照片边缘且少了牌：那里可能有牌被切掉（请把整手牌拍进照片）"


@pytest.mark.parametrize(("gap", "hinted"), [pytest.param(4.0, True, id="touching_the_bottom"),
                                             pytest.param(15.0, False, id="framed_tightly_at_the_bottom")])
def test_a_short_hand_at_the_bottom_of_the_frame_says_a_tile_may_be_cut_off(gap, hinted):
    from xingzi.vision.edges import CUT_HAND, hint_cut_hand
    from xingzi.vision.grouping import group

    det = _short_hand_from_the_left(200.0)
    dy = 960 - gap - float(det.xyxy[:, 3].max())
    det = Detections(det.xyxy + np.array([0, dy, 0, dy], np.float32), det.cls, det.conf)
    assert (CUT_HAND in hint_cut_hand(group(det), (960, 1280, 3)).problems) == hinted


@pytest.mark.parametrize("size,says", [
    pytest.param((10, 10), "the photo is 10x10 px, too small to show tiles: send it as the camera took it", id="tiny"),
    pytest.param((1600, 80), "the photo is 1600x80 px, a narrow strip: take the hand with some table around it",
                 id="panorama"),
    pytest.param((150, 800), "the photo is 150x800 px, a narrow strip", id="tall-strip"),
    pytest.param((640, 480), None, id="a-photo-with-no-tile-in-it"),
])
def test_a_photo_nothing_was_found_in_says_when_its_size_is_why(size, says):
    from xingzi.vision.messages import chinese
    from xingzi.vision.pipeline import analyse

    w, h = size
    res = analyse(np.full((h, w, 3), 90, np.uint8), Detections(np.zeros((0, 4), np.float32), np.zeros(0, np.int64),
                                                               np.zeros(0, np.float32)))
    hints = [p for p in res.reading.problems if p.startswith("the photo is")]
    if says is None:  # a photo of a size that can show a hand: no excuse made for it
        assert hints == []
        return
    assert len(hints) == 1 and hints[0].startswith(says) and "no tiles found" in res.error
    assert chinese(hints[0]) is not None  # said on the page in Chinese too


DARK_HINT = "the photo is very dark (brightness 5 of 255): take it again in more light"
SMALL_TILES_HINT = ("the tiles are 12 px across in this 1280x960 px photo, too small to read: send the photo as the camera "
                    "took it, or take it closer")


@pytest.mark.parametrize("grey,tile,hand,says", [
    pytest.param(5, 60, "123m456m789p1s55p", [DARK_HINT], id="dark-and-short"),
    pytest.param(5, 60, "123m456m789p12s55p", [], id="dark-but-whole-no-excuse"),
    pytest.param(60, 60, "123m456m789p1s55p", [], id="lit-and-short-no-excuse"),
    pytest.param(60, 12, "123m456m789p1s55p", [SMALL_TILES_HINT], id="tiny-tiles-and-short"),
    pytest.param(5, 12, "123m456m789p1s55p", [SMALL_TILES_HINT, DARK_HINT], id="both"),
    pytest.param(60, 12, "123m456m789p12s55p", [], id="tiny-tiles-but-whole"),
])
def test_a_photo_that_gives_too_few_tiles_says_when_its_light_or_tile_size_is_why(grey, tile, hand, says):
    """A very dark photo, or one whose tiles are a few pixels across, read as a hand short of tiles: "12 tiles" alone
    read as the reader's fault; a hand read whole needs no excuse."""
    from xingzi.vision.layouts import hand_layout
    from xingzi.vision.messages import chinese
    from xingzi.vision.pipeline import analyse

    det = hand_layout(hand, "3s", size=tile, center=(640.0, 480.0)).detections
    res = analyse(np.full((960, 1280, 3), grey, np.uint8), det)
    hints = [p for p in res.reading.problems if p in (DARK_HINT, SMALL_TILES_HINT)]
    assert hints == says
    assert all(chinese(h) != h for h in hints)  # said in Chinese too
