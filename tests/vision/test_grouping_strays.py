"""Tiles that are not part of the hand: 发 lying away from the bonus 发, a fifth 发, a tile beside a full row."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.layouts import hand_layout, with_tiles

HAND, WIN = "123m456m789p12s55p", "3s"
FA = Tile.FA.index



def fa_boxes(x0: float, y0: float, n: int, step: float = 46.0) -> list[list[float]]:
    return [[x0 + k * step, y0, x0 + k * step + 45, y0 + 60] for k in range(n)]


# The hand's row lies at y 270-330, x about 200-1080 (size 60, centre (640, 300)).
@pytest.mark.parametrize("boxes,fa,loose", [
    pytest.param(fa_boxes(300, 450, 3) + fa_boxes(1000, 80, 1), 3, 1, id="three-together-one-far"),
    pytest.param(fa_boxes(300, 450, 2) + fa_boxes(900, 600, 1) + fa_boxes(100, 80, 1), 2, 2, id="two-together-two-apart"),
    pytest.param(fa_boxes(300, 450, 5), 4, 1, id="five-side-by-side"),
    pytest.param(fa_boxes(300, 450, 6), 4, 2, id="six-side-by-side"),
    pytest.param(fa_boxes(300, 450, 1) + fa_boxes(900, 600, 1), 2, 0, id="two-apart-no-group"),
    pytest.param(fa_boxes(300, 450, 2) + fa_boxes(900, 600, 2), 4, 0, id="two-groups-of-two"),
    pytest.param(fa_boxes(300, 450, 1), 1, 0, id="one"),
    pytest.param(fa_boxes(300, 450, 4), 4, 0, id="four-together"),
])
def test_fa_apart_from_the_bonus_fa_are_strays(boxes, fa, loose):
    det = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    reading = group(with_tiles(det, boxes, [FA] * len(boxes)))
    assert reading.fa == fa
    assert reading.roles[len(det):].count("loose") == loose
    assert reading.roles[len(det):].count("fa") == fa
    assert is_legal_reading(reading)
    assert any("发 lying away from the other 发 ignored" in p for p in reading.problems) is (loose > 0)


@pytest.mark.parametrize("n,word", [(5, "five"), (6, "six")])
def test_more_than_four_fa_is_still_reported(n, word):
    det = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    reading = group(with_tiles(det, fa_boxes(300, 450, n), [FA] * n))
    assert f"{word} 发 (only four exist)" in reading.problems


@pytest.mark.parametrize("stray", [Tile.M9, Tile.P6, Tile.BAI], ids=lambda t: t.symbol)
@pytest.mark.parametrize("angle", [0, 150])
def test_tile_right_beside_a_full_row_is_a_stray_when_it_breaks_the_hand(stray, angle):
    # The winning tile stands in the row (no gap); a stray lies two thirds of a tile past its end.
    layout = hand_layout(HAND, WIN, win_apart=False, size=60, center=(640, 300))
    det = layout.detections
    x0, y0, x1, y1 = det.xyxy[len(layout.roles) - 1]
    extra = with_tiles(det, [[x1 + 30, y0, x1 + 30 + (x1 - x0), y1]], [stray.index])
    if angle:  # turn the whole table about its middle
        t = np.deg2rad(angle)
        c = extra.centers - 640.0
        rot = c @ np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]]) + 640.0
        half = (extra.xyxy[:, 2:] - extra.xyxy[:, :2]) / 2
        extra = Detections(np.hstack([rot - half, rot + half]).astype(np.float32), extra.cls, extra.conf)
    reading = group(extra)
    assert is_legal_reading(reading)
    assert reading.roles[-1] == "loose"
    assert sorted(reading.tiles) == sorted(layout_tiles(layout))


def layout_tiles(layout) -> list[Tile]:
    return [Tile.from_index(int(c)) for c, r in zip(layout.detections.cls, layout.roles, strict=True) if r in ("concealed", "win")]
