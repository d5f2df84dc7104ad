"""Lone boxes: a box read with doubt, far from every tile the photo surely shows, is dropped."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision.detections import Detections
from xingzi.vision.detector import DEFAULT_ONNX, Detector
from xingzi.vision.lone import LONE_CONF, LONE_GAP, ROW_STEP, drop_lone_boxes, lone_boxes

TILE = 56.0  # a tile's longer side (40 × 56 px)


def row_with(extra: list[tuple[float, float, float]], whole: int = 5, whole_conf: float = 0.9) -> Detections:
    """``whole`` tiles of 40 × 56 px side by side (centres 42 px apart, the first at x = 80, y = 148),
    then one box of the same size per ``(dx, dy, conf)``: centred dx, dy tile lengths from the last tile."""
    boxes = [[60 + 42 * i, 120, 100 + 42 * i, 176] for i in range(whole)]
    cx, cy = 80 + 42 * (whole - 1), 148.0
    boxes += [[cx + dx * TILE - 20, cy + dy * TILE - 28, cx + dx * TILE + 20, cy + dy * TILE + 28]
              for dx, dy, _ in extra]
    conf = [whole_conf] * whole + [c for _, _, c in extra]
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.arange(len(boxes)) % 27,
                      np.array(conf, np.float32))


@pytest.mark.parametrize(
    ("extra", "dropped"),
    [pytest.param([(4.0, 0.0, 0.3)], [True], id="doubtful_box_far_along_the_row"),
     pytest.param([(0.0, -5.0, 0.45)], [True], id="doubtful_box_far_behind_the_row"),
     pytest.param([(LONE_GAP - 0.1, 0.0, 0.3)], [False], id="winning_tile_set_apart_kept"),
     pytest.param([(0.0, 1.2, 0.2)], [False], id="doubtful_box_beside_the_row_kept"),
     pytest.param([(4.0, 0.0, LONE_CONF)], [False], id="sure_lone_tile_kept"),
     pytest.param([(0.0, -5.0, 0.2), (0.75, -5.0, 0.2)], [True, True], id="two_faint_boxes_far_off"),
     pytest.param([(0.0, -5.0, 0.3), (0.75, -5.0, 0.3)], [False, False], id="two_doubtful_tiles_side_by_side"),
     pytest.param([(0.0, -5.0, 0.3), (0.75, -5.0, 0.9)], [False, False], id="doubtful_box_beside_a_sure_one"),
     pytest.param([(0.0, -5.0, 0.01)], [True], id="faint_box_far_off")],
)
def test_a_doubtful_box_far_from_every_sure_tile_is_dropped(extra, dropped):
    det = row_with(extra)
    np.testing.assert_array_equal(lone_boxes(det), [False] * 5 + dropped)
    out = drop_lone_boxes(det)
    assert len(out) == len(det) - sum(dropped)
    np.testing.assert_array_equal(out.xyxy[:5], det.xyxy[:5])  # the row stays, in order


@pytest.mark.parametrize(
    ("det", "why"),
    [pytest.param(row_with([(0.0, -5.0, 0.2)], whole=2), "two sure tiles do not tell a tile's length",
                  id="too_few_sure_tiles"),
     pytest.param(row_with([(0.0, -5.0, 0.2)], whole_conf=0.2), "unsure boxes neither tell a length nor anchor",
                  id="no_sure_tiles")],
)
def test_nothing_is_dropped_without_enough_sure_tiles(det, why):
    assert not lone_boxes(det).any(), why


def test_strewn_tiles_have_no_lone_box():
    """Tiles tipped out on the table lie apart from each other: no row to be far from, nothing dropped;
    the same doubtful box beside a row of tiles is dropped."""
    step = (ROW_STEP + 0.3) * TILE
    strewn = [[x * step, y * step, x * step + 40, y * step + 56] for x in range(3) for y in range(2)]
    far = [6 * step, 5 * step, 6 * step + 40, 5 * step + 56]
    conf = np.array([0.9] * 6 + [0.3], np.float32)
    det = Detections(np.array([*strewn, far], np.float32), np.arange(7), conf)
    assert not lone_boxes(det).any()
    in_rows = row_with([], whole=6).xyxy
    det = Detections(np.concatenate([in_rows, np.array([far], np.float32)]), np.arange(7), conf)
    np.testing.assert_array_equal(lone_boxes(det), [False] * 6 + [True])


def test_distances_are_in_tile_lengths():
    """The same layout at a third of the size drops the same box."""
    det = row_with([(4.0, 0.0, 0.3), (0.7 * LONE_GAP, -0.5 * LONE_GAP, 0.3)])
    small = Detections(det.xyxy / 3, det.cls, det.conf)
    np.testing.assert_array_equal(lone_boxes(small), lone_boxes(det))
    np.testing.assert_array_equal(lone_boxes(det), [False] * 5 + [True, False])


def test_keep_all_and_bad_input():
    det = row_with([(4.0, 0.0, 0.3)])
    assert len(drop_lone_boxes(det, max_conf=0.0)) == len(det)
    assert len(drop_lone_boxes(Detections.empty())) == 0
    with pytest.raises(ValueError, match=r"max_conf must be in \[0, 1\] and gap > 0, got max_conf=1.5"):
        drop_lone_boxes(det, max_conf=1.5)
    with pytest.raises(ValueError, match="gap=0"):
        lone_boxes(det, gap=0)
    assert len(lone_boxes(det, gap=0.5)) == len(det)  # any gap above 0 is allowed, half a tile too
    with pytest.raises(ValueError, match="lone_conf"):
        Detector(DEFAULT_ONNX, classifier=None, lone_conf=2.0)


def test_the_detector_drops_lone_boxes_it_reads(monkeypatch):
    from xingzi.vision import detector as mod

    read = row_with([(4.0, 0.0, 0.3), (0.0, -5.0, 0.4)])
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: read)
    photo = np.zeros((600, 800, 3), np.uint8)
    plain = {"classifier": None, "stretched": False, "negative": False, "sharpen": False, "second": None}
    assert Detector(DEFAULT_ONNX, **plain).lone_conf == LONE_CONF
    np.testing.assert_array_equal(Detector(DEFAULT_ONNX, **plain).predict(photo).xyxy, read.xyxy[:5])
    assert len(Detector(DEFAULT_ONNX, lone_conf=0, **plain).predict(photo)) == 7
