"""The vision boundary itself: what a Detections may hold (any caller's detector output passes through it)."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision.detections import Detections
from xingzi.vision.draw import draw
from xingzi.vision.grouping import group


def _det(xyxy, cls, conf=None) -> Detections:
    xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
    conf = np.full(len(xyxy), 0.9, np.float32) if conf is None else np.asarray(conf, np.float32)
    return Detections(xyxy, np.asarray(cls, np.int64), conf)


@pytest.mark.parametrize(("xyxy", "cls", "message"), [
    pytest.param([[0, 0, 10, 14]], [31], r"class ids must be 0..30 \(30 faces, then back\), got \[31\]", id="class-31"),
    pytest.param([[0, 0, 10, 14], [20, 0, 30, 14]], [3, -1], r"class ids must be 0..30 .*got \[-1\]", id="class-minus-1"),
    pytest.param([[0, 0, np.nan, 14]], [3], r"got box 0: \[0.0, 0.0, nan, 14.0\]", id="nan"),
    pytest.param([[0, 0, 10, 14], [0, -np.inf, 10, 14]], [3, 4], r"got box 1: \[0.0, -inf, 10.0, 14.0\]", id="inf"),
    pytest.param([[0, 0, 10, 14], [9, 0, 1, 14], [0, 0, 10, np.nan]], [3, 4, 5], r"got box 1: \[9.0, 0.0, 1.0, 14.0\]",
                 id="the-first-bad-box-named"),
    pytest.param([[10, 0, 0, 14]], [3], r"with x0 <= x1 and y0 <= y1, got box 0: \[10.0, 0.0, 0.0, 14.0\]",
                 id="corners-reversed"),
    pytest.param([[0, 0, 10, 14]], [3, 4], r"detections need xyxy \(N,4\), cls \(N,\), conf \(N,\)", id="shapes"),
])
def test_detections_that_no_detector_gives_are_refused(xyxy, cls, message):
    with pytest.raises(ValueError, match=message):
        _det(xyxy, cls, [0.9] * len(cls) if len(cls) == len(xyxy) else None)


@pytest.mark.parametrize(("xyxy", "cls"), [
    pytest.param(np.zeros((0, 4)), [], id="none"),
    pytest.param([[5, 5, 5, 19]], [30], id="a-box-of-no-width-back"),  # a box clipped at the frame
    pytest.param([[-40, -3, 10, 14]], [29], id="partly-off-the-picture"),
])
def test_detections_a_detector_can_give_are_grouped_and_drawn(xyxy, cls):
    det = _det(xyxy, cls)
    reading = group(det)
    out = draw(np.zeros((60, 80, 3), np.uint8), reading)
    assert out.shape == (60, 80, 3) and len(reading.detections) == len(cls)


def test_a_boxs_middle_is_halfway_between_its_corners():
    det = _det([[10, 20, 30, 60], [0, 0, 0, 0]], [3, 4])
    np.testing.assert_allclose(det.centers, [[20, 40], [0, 0]])


def test_the_alternatives_to_a_reading_are_the_other_likely_faces_likeliest_first():
    probs = np.zeros((1, 31), np.float32)
    probs[0, [4, 7, 9, 12]] = [0.5, 0.25, 0.2, 0.05]  # read as 4 (5m)
    det = Detections(np.array([[0, 0, 10, 14]], np.float32), np.array([4]), np.array([0.5], np.float32), probs)
    assert det.alternatives(0, 5, min_prob=0.05) == [7, 9, 12]  # never the face read
    assert det.alternatives(0, 5, min_prob=0.25) == [7]  # "at least": 0.25, exact in float32, is in
    assert det.alternatives(0, 1, min_prob=0.01) == [7]
    assert _det([[0, 0, 10, 14]], [4]).alternatives(0, 5) == []  # no probabilities, no alternatives


def test_joined_keeps_scores_only_where_both_have_them():
    one = Detections(np.array([[0, 0, 10, 10]], np.float32), np.array([1]), np.array([0.9], np.float32),
                     np.full((1, 31), 0.1, np.float32), np.array([0.2], np.float32))
    two = Detections(np.array([[20, 0, 30, 10]], np.float32), np.array([2]), np.array([0.1], np.float32),
                     np.full((1, 31), 0.3, np.float32), np.array([0.4], np.float32))
    both = one.joined(two)
    assert both.cls.tolist() == [1, 2] and both.probs[:, 0].tolist() == pytest.approx([0.1, 0.3])
    assert both.foreign.tolist() == pytest.approx([0.2, 0.4])
    for a, b in ((one, Detections(two.xyxy, two.cls, two.conf)), (Detections(one.xyxy, one.cls, one.conf), two)):
        half = a.joined(b)
        assert half.probs is None and half.foreign is None and len(half) == 2
