"""Grouping cases found missing by mutation testing: which lone tile is the winner, strays beside a
hand with an all-face-down kong, melds numbered in the order they lie, the foreign score's threshold."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from xingzi.engine.notation import parse_meld, parse_tiles
from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.handcheck import is_legal
from xingzi.vision.layouts import hand_layout, with_tiles

HAND, WIN = "123m456m789p12s55p", "3s"


def row_ends(det: Detections) -> tuple[np.ndarray, np.ndarray]:
    """The boxes of the row's first (leftmost) and last tile."""
    return det.xyxy[int(np.argmin(det.xyxy[:, 0]))], det.xyxy[int(np.argmax(det.xyxy[:, 0]))]


def shifted(box: np.ndarray, dx: float, dy: float = 0.0) -> list[float]:
    return [float(box[0] + dx), float(box[1] + dy), float(box[2] + dx), float(box[3] + dy)]


# 123m456m789p23s55p waits on 1s or 4s; two lone tiles on the row's line each complete it. The one
# nearer the row is the winning tile (0.8 of a tile past its end), the other (two tiles' gap before
# its start) a stray, whichever comes first among the detections.
@pytest.mark.parametrize("near,far,first", [
    pytest.param(Tile.S4, Tile.S1, "far", id="far-one-listed-first"),
    pytest.param(Tile.S4, Tile.S1, "near", id="near-one-listed-first"),
    pytest.param(Tile.S1, Tile.S4, "far", id="other-faces-far-listed-first"),
])
def test_of_two_lone_tiles_that_complete_the_hand_the_nearer_is_the_winner(near, far, first):
    det = hand_layout("123m456m789p23s55p", None, size=60, center=(640, 300)).detections
    start, end = row_ends(det)
    boxes = {"near": shifted(end, 93), "far": shifted(start, -165)}
    faces = {"near": near.index, "far": far.index}
    order = [first, "near" if first == "far" else "far"]
    reading = group(with_tiles(det, [boxes[k] for k in order], [faces[k] for k in order]))
    assert is_legal_reading(reading)
    assert reading.win_tile is near and reading.win_set_apart
    assert reading.roles[len(det) + order.index("near")] == "win"
    assert reading.roles[len(det) + order.index("far")] == "loose"
    assert sorted(reading.tiles) == sorted(parse_tiles("123m456m789p23s55p") + [near])


# 2245667p白白白 + 8p apart, and four backs below: an all-face-down concealed kong that is the set
# the row lacks. A lone tile lying near the row is then a stray, not a tile the hand still needs.
@pytest.mark.parametrize("box", [
    pytest.param([150, 222, 195, 282], id="on-the-rows-line-before-its-start"),
    pytest.param([400, 390, 445, 450], id="in-front-below-the-kong"),
    pytest.param([960, 222, 1005, 282], id="on-the-rows-line-past-the-winner"),
])
def test_lone_tile_near_a_hand_with_a_faceless_kong_is_a_stray(box):
    layout = hand_layout("2245667p白白白", "8p", ["concealed_kong 中"], kong_shown="DDDD", size=60,
                         center=(640, 300), melds_row=1)
    det = layout.detections
    reading = group(with_tiles(det, [box], [Tile.S2.index]))
    assert sorted(reading.tiles) == sorted(parse_tiles("22456678p白白白"))
    assert reading.win_tile is Tile.P8 and reading.win_set_apart
    assert reading.roles[-1] == "loose"
    assert reading.roles[len(det) - 4:len(det)] == ("concealed_kong",) * 4
    assert "1 tile(s) lying away from the hand ignored" in reading.problems
    assert not any(" tiles (a winning hand" in p for p in reading.problems)


# Melds are numbered in the order they lie, and ``meld_of`` points at the meld each tile is part of,
# also when one meld is found after the others (a kong laid on against the row, found by the count).
@pytest.mark.parametrize("hand,win,melds,expected", [
    pytest.param("123m9999p55p12s", "3s", ["pung 中"], ["kong 9p", "pung 中"], id="row-kong-before-a-pung"),
    pytest.param("123m55p12s9999s", "3s", ["pung 中"], ["kong 9s", "pung 中"], id="row-kong-at-the-row-end"),
    pytest.param("9999p55p12s", "3s", ["pung 中", "kong 1p"], ["kong 9p", "pung 中", "kong 1p"],
                 id="row-kong-before-two-melds"),
])
# Read from the row's start (past 90° it reads from the other end); at 277° the rows run nearly straight up
# the photo, and each row is read the same way, not as the sign of its own fitted line happens to fall.
@pytest.mark.parametrize("angle", [0, 60, 277])
def test_melds_are_numbered_in_the_order_they_lie(hand, win, melds, expected, angle):
    layout = hand_layout(hand, win, melds, win_apart=False, angle=angle)
    reading = group(layout.detections)
    assert is_legal_reading(reading)
    assert [str(m) for m in reading.melds] == expected
    for i, m in enumerate(reading.meld_of):
        if m >= 0:
            assert Tile.from_index(int(layout.detections.cls[i])) == reading.melds[m].tile, (i, m)
    # every tile of each meld points at it, the kong found by the count too
    assert [reading.meld_of.count(k) for k in range(len(reading.melds))] == [m.kind.size for m in reading.melds]


# The classifier's foreign score says how likely a box is a wind or flower rather than any face of
# this game: a box is left out only when foreign is the likelier (over one half).
@pytest.mark.parametrize("score,role,fa", [
    pytest.param(0.45, "fa", 1, id="likelier-a-face"),
    pytest.param(0.55, "foreign", 0, id="likelier-foreign"),
])
def test_foreign_score_leaves_a_box_out_only_when_foreign_is_likelier(score, role, fa):
    det = with_tiles(hand_layout(HAND, WIN, size=60, center=(640, 300)).detections,
                     [[300, 450, 345, 510]], [Tile.FA.index])
    det = replace(det, foreign=np.append(np.zeros(len(det) - 1), score).astype(np.float32))
    reading = group(det)
    assert reading.roles[-1] == role and reading.fa == fa
    assert is_legal_reading(reading)


# A meld's tiles count towards the four of each tile: a pung of 1m beside 11m in the hand is five 1m.
@pytest.mark.parametrize("hand,meld,legal", [
    pytest.param("11m123p456p789p", "pung 1m", False, id="pung-and-pair-make-five"),
    pytest.param("11m123p456p789p", "pung 2m", True, id="different-tiles"),
    pytest.param("11m123p456p789p", "kong 1m", False, id="kong-and-a-pair-make-six"),
    pytest.param("11p123p456p789p", "kong 1m", True, id="kong-and-other-tiles"),
])
def test_meld_tiles_count_towards_four_of_a_tile(hand, meld, legal):
    assert is_legal(parse_tiles(hand), [parse_meld(meld)]) is legal
