"""The hand-built layouts the grouping tests and benches read (vision/layouts.py): the boxes they claim to make."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout, turned, with_tiles

ONE_BOX = Detections(np.array([[680.0, 610.0, 720.0, 670.0]], np.float32), np.array([Tile.P5.index]),
                     np.array([0.9], np.float32))  # centre (700, 640), 40 wide, 60 high


@pytest.mark.parametrize("angle, centre", [
    pytest.param(0, (700, 640), id="not-turned"),
    pytest.param(90, (640, 700), id="a-quarter"),
    pytest.param(180, (580, 640), id="a-half"),
    pytest.param(-90, (640, 580), id="a-quarter-back"),
])
def test_a_turned_table_moves_each_box_about_the_point_and_keeps_its_size(angle, centre):
    out = turned(ONE_BOX, angle)
    np.testing.assert_allclose(out.centers[0], centre, atol=1e-3)
    np.testing.assert_allclose(out.xyxy[0, 2:] - out.xyxy[0, :2], [40, 60], atol=1e-3)
    assert out.cls.tolist() == ONE_BOX.cls.tolist() and out.conf.tolist() == ONE_BOX.conf.tolist()


def test_added_tiles_come_after_the_layout_s_with_their_faces_and_a_sure_reading():
    det = hand_layout("123m456m789p12s55p", "3s").detections
    more = with_tiles(det, [[10, 20, 50, 80], [60, 20, 100, 80]], [Tile.ZHONG.index, Tile.BAI.index])
    assert len(more) == len(det) + 2
    np.testing.assert_array_equal(more.xyxy[-2:], [[10, 20, 50, 80], [60, 20, 100, 80]])
    assert more.cls[-2:].tolist() == [Tile.ZHONG.index, Tile.BAI.index]
    np.testing.assert_allclose(more.conf[-2:], 0.9)


def test_a_layout_has_class_probabilities_only_when_asked():
    plain = hand_layout("123m456m789p12s55p", "3s").detections
    assert plain.probs is None
    with_probs = hand_layout("123m456m789p12s55p", "3s", probs=True).detections
    assert with_probs.probs is not None and with_probs.probs.shape == (14, 31)
    assert with_probs.probs.argmax(axis=1).tolist() == with_probs.cls.tolist()


def test_box_noise_never_turns_a_box_inside_out_and_readings_stay_likely():
    det = hand_layout("123m456m789p12s55p", "3s", jitter=0.4, seed=3).detections
    assert np.all(det.xyxy[:, 2] > det.xyxy[:, 0]) and np.all(det.xyxy[:, 3] > det.xyxy[:, 1])
    assert det.conf.min() >= 0.3 and det.conf.max() <= 0.99
