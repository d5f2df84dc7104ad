"""What the grouping reads depends on where the tiles lie, not on the order the detector lists them in, the photo's
scale or where the hand sits in it, nor on a quarter turn of the whole photo (but for the order the melds are
numbered in, which follows the row's direction, and which of two like tiles is taken as the winning one)."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision.bench_layouts import random_layout
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import HandReading, group


def _taken(det: Detections, order: np.ndarray, scale: float = 1.0, shift: float = 0.0) -> Detections:
    return Detections(det.xyxy[order] * np.float32(scale) + np.float32(shift), det.cls[order], det.conf[order],
                      None if det.probs is None else det.probs[order])


def _quarter_turned(det: Detections, turns: int, side: float = 4000.0) -> Detections:
    """The photo turned a quarter ``turns`` times: (x, y) → (side − y, x); each box stays a box."""
    x0, y0, x1, y1 = det.xyxy.T
    for _ in range(turns):
        x0, y0, x1, y1 = side - y1, x0, side - y0, x1
    return Detections(np.stack([x0, y0, x1, y1], 1).astype(np.float32), det.cls, det.conf, det.probs)


def _per_tile(r: HandReading, order: np.ndarray) -> tuple:
    """The reading, each detection's role, meld and turn given back in the layout's own order."""
    back = np.argsort(order)
    return (sorted(r.tiles), r.win_tile, r.win_set_apart, [str(m) for m in r.melds], r.fa, r.problems,
            [r.roles[k] for k in back], [r.meld_of[k] for k in back], [r.sideways[k] for k in back])


def _up_to_meld_order(r: HandReading) -> tuple:
    roles = ["concealed" if role == "win" else role for role in r.roles]  # of two like tiles, either may be taken
    return (sorted(r.tiles), r.win_tile, r.win_set_apart, sorted(str(m) for m in r.melds), r.fa, r.problems, roles,
            r.sideways)


@pytest.mark.parametrize("seed", range(4))
def test_the_detections_order_scale_and_place_change_nothing(seed):
    rng = np.random.default_rng(seed)
    for index in range(60):
        _, layout, drawn = random_layout(rng, index)
        det = layout.detections
        order = np.random.default_rng(index).permutation(len(det))
        same = np.arange(len(det))
        expected = _per_tile(group(det), same)
        assert _per_tile(group(_taken(det, order)), order) == expected, drawn
        assert _per_tile(group(_taken(det, same, scale=0.37, shift=55.5)), same) == expected, drawn


@pytest.mark.parametrize("seed", range(4))
def test_a_quarter_turn_of_the_photo_changes_only_the_melds_numbering(seed):
    rng = np.random.default_rng(100 + seed)
    for index in range(60):
        _, layout, drawn = random_layout(rng, index)
        expected = _up_to_meld_order(group(layout.detections))
        for turns in (1, 2, 3):
            assert _up_to_meld_order(group(_quarter_turned(layout.detections, turns))) == expected, (turns, drawn)
