"""Tiles of no Xingzi face (winds, flowers) that the classifier recognises stay out of the hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.vision.draw import COLORS, draw
from xingzi.vision.grouping import FOREIGN_P, group, is_legal_reading
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.pipeline import Context, analyse
from xingzi.vision.usermarks import apply_corrections

HAND, WIN = "123m456m789p12s55p", "3s"
LEFT_OUT = "1 tile(s) with no Xingzi face (a wind or flower?) left out"
ASIDE = [[300, 450, 345, 510]]  # below the row (x 301-886, y 270-330; winning tile at 934)
ROW_START = [[256, 270, 301, 330]]  # touching the row's first tile


def with_extra(box, face: Tile, score: float | None) -> Detections:
    """The hand (14 tiles) and one more box read as ``face``, the classifier's foreign score on it."""
    det = with_tiles(hand_layout(HAND, WIN, size=60, center=(640, 300)).detections, box, [face.index])
    if score is None:
        return det
    return replace(det, foreign=np.append(np.zeros(len(det) - 1), score).astype(np.float32))


@pytest.mark.parametrize("score,fa,role", [
    pytest.param(0.9, 0, "foreign", id="surely-a-wind"),
    pytest.param(FOREIGN_P + 0.01, 0, "foreign", id="just-over"),
    pytest.param(FOREIGN_P, 1, "fa", id="at-the-threshold-a-face"),
    pytest.param(0.1, 1, "fa", id="a-face"),
    pytest.param(None, 1, "fa", id="no-classifier-score"),
])
def test_a_wind_read_as_fa_is_no_bonus_tile_when_the_classifier_sees_no_face(score, fa, role):
    reading = group(with_extra(ASIDE, Tile.FA, score))
    assert reading.fa == fa and reading.roles[-1] == role and is_legal_reading(reading)
    assert (LEFT_OUT in reading.problems) == (role == "foreign")


def test_a_flower_at_the_row_end_leaves_the_hand_as_it_was():
    clean = group(hand_layout(HAND, WIN, size=60, center=(640, 300)).detections)
    misread = group(with_extra(ROW_START, Tile.S1, None))  # a flower read as 1s, standing in the row
    assert misread.tile_count == 15 and misread.tiles != clean.tiles
    reading = group(with_extra(ROW_START, Tile.S1, 0.97))
    assert reading.tiles == clean.tiles and reading.win_tile == clean.win_tile and is_legal_reading(reading)
    assert reading.roles[-1] == "foreign"
    result = analyse(np.zeros((600, 1280, 3), np.uint8), with_extra(ROW_START, Tile.S1, 0.97), Context())
    assert result.repair is None and result.result is not None and result.result["valid"]
    assert result.result["own"] == analyse(np.zeros((600, 1280, 3), np.uint8), clean.detections, Context()).result["own"]


def test_the_users_word_wins_over_the_classifiers():
    det = with_extra(ASIDE, Tile.FA, 0.9)
    aside = group(det, [14])  # the user set it aside too: that is what is said
    assert aside.roles[14] == "ignored" and LEFT_OUT not in aside.problems
    named = group(apply_corrections(det, {14: Tile.FA.index}))  # the user says it is a 发: it counts
    assert named.roles[14] == "fa" and named.fa == 1 and LEFT_OUT not in named.problems
    assert det.foreign is not None and det.foreign[14] == pytest.approx(0.9)  # the input is left alone


def test_foreign_scores_are_checked_and_follow_a_subset():
    det = with_extra(ASIDE, Tile.FA, 0.9)
    with pytest.raises(ValueError, match=r"foreign must be \(N,\) = \(15,\), got \(3,\)"):
        replace(det, foreign=np.zeros(3, np.float32))
    sub = det.subset(np.array([0, 14]))
    assert sub.foreign is not None and sub.foreign.tolist() == pytest.approx([0.0, 0.9])


def test_a_foreign_tile_is_drawn_crossed_out():
    reading = group(with_extra(ASIDE, Tile.FA, 0.9))
    rgb = np.asarray(draw(Image.new("RGB", (1280, 600), (60, 120, 40)), reading))
    x0, y0, x1, y1 = reading.detections.xyxy[14]
    assert tuple(rgb[int(y1) - 1, int((x0 + x1) / 2)]) == COLORS["foreign"]  # its box
    assert tuple(rgb[int((y0 + y1) / 2), int((x0 + x1) / 2)]) == COLORS["foreign"]  # the cross
