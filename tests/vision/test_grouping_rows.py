"""Grouping on rows found by chaining tiles: a stray in a gap, a meld laid a little apart on the
row's line, a hand row of concealed sets only, the guessed winning tile at either end, and a
concealed kong shown all face down that the hand's count needs."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import parse_tiles
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.layouts import hand_layout, turned, with_tiles

NO_FACE = "a concealed kong shows no face: cannot tell which tile it is"


@pytest.mark.parametrize("off", [0.5, 0.7, -0.6], ids=["half-a-tile-behind", "further-behind", "in-front"])
@pytest.mark.parametrize("angle", [0, 30])
def test_stray_lying_in_a_gap_off_the_line_does_not_bridge_it(off, angle):
    # A stray in the gap between the winning tile and a pung on the hand's line, off that line:
    # it must not join the pung to the hand row (that made the pung's tiles part of the hand).
    layout = hand_layout("123m456m55p12s", "3s", ["pung 8s"], size=60, center=(640, 300), sideways_at=-1)
    det = layout.detections
    mid = (det.xyxy[10, 2] + det.xyxy[11, 0]) / 2  # between the winning tile and the pung
    y0, y1 = det.xyxy[10, 1] + off * 60, det.xyxy[10, 3] + off * 60
    reading = group(turned(with_tiles(det, [[mid - 22, y0, mid + 23, y1]], [Tile.P7.index]), angle))
    assert reading.melds == (Meld(MeldKind.PUNG, Tile.S8),)
    assert sorted(reading.tiles) == sorted(parse_tiles("123m456m55p12s3s"))
    assert reading.roles[-1] == "loose"


@pytest.mark.parametrize("gap,pung", [
    pytest.param(0.0, False, id="touching-read-as-concealed"),
    pytest.param(0.2, True, id="a-fifth-of-a-tile-apart"),
    pytest.param(0.3, True, id="a-third-of-a-tile-apart"),
])
@pytest.mark.parametrize("angle", [0, 75, 200])
def test_pung_a_little_apart_on_the_rows_line_is_a_meld(gap, pung, angle):
    # 888p could stand in the hand (123456789m 888p 77s is a hand too): only the gap tells.
    # The winning tile stands in the row here, so the row alone must be cut at the gap.
    layout = hand_layout("123456789m7s", "7s", ["pung 8p"], gap=gap, win_apart=False, sideways_at=-1, angle=angle)
    reading = group(layout.detections)
    assert is_legal_reading(reading)
    if pung:
        assert reading.melds == (Meld(MeldKind.PUNG, Tile.P8),)
        assert sorted(reading.tiles) == sorted(parse_tiles("123456789m77s"))
    else:
        assert reading.melds == ()
        assert sorted(reading.tiles) == sorted(parse_tiles("123456789m888p77s"))


@pytest.mark.parametrize("angle", [0, 130, 250])
def test_hand_row_of_concealed_sets_only_is_still_the_hand(angle):
    # The row 888p 9999p 白白白 looks like melds only; read so, the hand has no pair and one tile
    # too few. The longest row is then taken as the hand: 789p 88p 999p 白白白 + pung 中.
    layout = hand_layout("8889999p白白白", "7p", ["pung 中"], angle=angle)
    reading = group(layout.detections)
    assert is_legal_reading(reading)
    assert reading.melds == (Meld(MeldKind.PUNG, Tile.ZHONG),)
    assert sorted(reading.tiles) == sorted(parse_tiles("78889999p白白白"))
    assert reading.win_tile is Tile.P7 and reading.win_set_apart


@pytest.mark.parametrize("angle", [0, 180, 90, 270])
def test_winning_tile_barely_apart_is_guessed_at_its_end_at_any_rotation(angle):
    # Pushed aside by less than the row's spacing varies: not surely apart, but the end tile
    # standing further out is the guess, whichever way the photo is turned.
    reading = group(hand_layout("123m456m789p12s55p", "3s", gap=0.05, angle=angle).detections)
    assert reading.win_tile is Tile.S3 and not reading.win_set_apart


@pytest.mark.parametrize("strays", [0, 1, 2])
def test_all_face_down_kong_counts_when_the_row_is_short_without_it(strays):
    # 2245667p白白白 + 8p apart is a set short; the four backs below are that set (a concealed
    # kong, face unknown), so lone tiles around are strays, not the hand's missing tiles.
    layout = hand_layout("2245667p白白白", "8p", ["concealed_kong 中"], kong_shown="DDDD", size=60,
                         center=(640, 300), melds_row=1)
    det = layout.detections
    boxes = [[200 + 300 * k, 520, 245 + 300 * k, 580] for k in range(strays)]
    reading = group(with_tiles(det, boxes, [Tile.S2.index, Tile.P9.index][:strays]))
    assert sorted(reading.tiles) == sorted(parse_tiles("22456678p白白白"))
    assert reading.win_tile is Tile.P8
    assert reading.roles[len(det):] == ("loose",) * strays
    assert reading.roles[len(det) - 4:len(det)] == ("concealed_kong",) * 4
    assert NO_FACE in reading.problems
    assert not any(" tiles (a winning hand" in p for p in reading.problems)  # the count is right


@pytest.mark.parametrize("hand,win,apart,kong", [
    pytest.param("123m456m789p1s", "5p", True, True, id="eleven-a-set-short-kong"),
    pytest.param("123m456m789p1s", "5p", False, True, id="eleven-in-the-row-kong"),
    pytest.param("123m456m789p12s", "5p", False, False, id="twelve-no-room-strays"),
])
def test_four_backs_are_a_kong_only_while_the_row_is_a_set_short(hand, win, apart, kong):
    layout = hand_layout(hand, win, win_apart=apart, size=60, center=(640, 300))
    backs = [[400 + k * 46, 450, 445 + k * 46, 510] for k in range(4)]
    reading = group(with_tiles(layout.detections, backs, [BACK_CLASS] * 4))
    assert reading.roles[-4:] == ("concealed_kong" if kong else "loose",) * 4
    assert (NO_FACE in reading.problems) is kong
    assert ("4 face-down tile(s) the hand does not need ignored" in reading.problems) is not kong


@pytest.mark.parametrize("wall_y", [520, 140], ids=["wall-in-front-of-the-kong", "wall-behind-the-row"])
def test_a_hand_a_set_short_takes_the_nearer_of_two_runs_of_four_backs(wall_y):
    """The row lacks one set and four backs lie just below it (its concealed kong, all face down); four more lie
    further off (a stretch of the wall, four long). The hand has room for one kong: the nearer four are it, the
    others strays (before, both were counted, the row was then three sets short, and all eight were dropped)."""
    layout = hand_layout("123m456m789p1s", "5p", size=60, center=(640, 300))
    kong = [[400 + k * 46, 400, 445 + k * 46, 460] for k in range(4)]
    wall = [[560 + k * 46, wall_y, 605 + k * 46, wall_y + 60] for k in range(4)]
    reading = group(with_tiles(layout.detections, kong + wall, [BACK_CLASS] * 8))
    assert reading.roles[-8:] == ("concealed_kong",) * 4 + ("loose",) * 4
    assert NO_FACE in reading.problems and "4 face-down tile(s) the hand does not need ignored" in reading.problems
    assert not any(" tiles (a winning hand" in p for p in reading.problems)  # the count is right


def test_winning_tile_off_the_row_fills_a_hand_with_an_all_face_down_kong():
    # Ten tiles stand and four backs make a set: the hand lacks one tile, so the 8p lying just
    # past the row's end and below its line (on no row of the hand) is the winning tile.
    layout = hand_layout("2245667p白白白", None, ["concealed_kong 中"], kong_shown="DDDD", size=60,
                         center=(640, 300), melds_row=1)
    x0, y0, x1, y1 = layout.detections.xyxy[9]
    reading = group(with_tiles(layout.detections, [[x0 + 60, y0 + 50, x1 + 60, y1 + 50]], [Tile.P8.index]))
    assert reading.win_tile is Tile.P8 and reading.win_set_apart and reading.roles[-1] == "win"
    assert sorted(reading.tiles) == sorted(parse_tiles("22456678p白白白"))


def bent_row(faces: str, bend: float, first: int) -> Detections:
    """The tiles of ``faces`` side by side (46 px apart) along an arc turning by ``bend`` degrees from the
    row's start to its end (a wide lens bends lines near the photo's edge), the ``first`` tile listed first."""
    tiles = parse_tiles(faces)
    n = len(tiles)
    t = np.deg2rad(np.linspace(-bend / 2, bend / 2, n))
    radius = 46.0 * (n - 1) / np.deg2rad(bend)
    cx, cy = 640 + radius * np.sin(t), 300 + radius * (1 - np.cos(t))
    half_w = (45 * np.abs(np.cos(t)) + 60 * np.abs(np.sin(t))) / 2  # each tile turned along the arc
    half_h = (45 * np.abs(np.sin(t)) + 60 * np.abs(np.cos(t))) / 2
    order = [first] + [k for k in range(n) if k != first]
    xyxy = np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1)[order]
    return Detections(xyxy.astype(np.float32), np.array([tiles[k].index for k in order], np.int64),
                      np.full(n, 0.9, np.float32))


@pytest.mark.parametrize("first", [0, 7, 10], ids=["start-listed-first", "middle-listed-first", "a-later-one-first"])
def test_hand_on_a_bent_row_is_one_row_whatever_the_detections_order(first):
    # Bent 10° end to end: each half's far end lies further off the other half's line than a tile may
    # lie off its neighbour's, so two pieces of it are not joined into one row; tile by tile, each is
    # in line with its neighbours, so the 14 tiles are chained into one row however they are listed.
    reading = group(bent_row("123m456m789p12s55p3s", 10.0, first))
    assert is_legal_reading(reading)
    assert sorted(reading.tiles) == sorted(parse_tiles("123m456m789p12s55p3s"))
    assert reading.win_tile is Tile.S3 and not reading.win_set_apart


@pytest.mark.parametrize("offsets", [
    pytest.param([0, 0.4, -0.3, 0.1, -0.2, -0.1, -0.15, 0.25, 0.05, -0.15, 0, 0, 0, -0.2],
                 id="second-tile-pushed-back"),
    pytest.param([-0.15, 0, 0, -0.15, 0.25, -0.4, -0.25, 0.3, 0.1, 0, -0.1, -0.35, 0, 0.45],
                 id="winner-pushed-forward"),
])
def test_hand_laid_out_of_line_is_one_row_with_its_winning_tile_apart(offsets):
    # Tiles set down carelessly, each up to 0.45 of a tile in front of or behind its neighbours' line
    # (``offsets``, in tile heights): only a line tolerance half as wide again chains them into one row,
    # and the winning tile apart at its end is found.
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 400)).detections
    xyxy = det.xyxy.copy()
    xyxy[:, [1, 3]] += 60 * np.array(offsets, np.float32)[:, None]
    reading = group(Detections(xyxy, det.cls, det.conf))
    assert is_legal_reading(reading)
    assert sorted(reading.tiles) == sorted(parse_tiles("123m456m789p12s55p3s"))
    assert reading.win_tile is Tile.S3 and reading.win_set_apart
    assert reading.roles[-1] == "win"
