"""Row geometry: tiles chained side by side, rows that bend with perspective, walls overlapping a
standing row, gaps that stand out among a row's steps, and the end tile pushed aside."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision import rowgeom, rowlink, singles

W, H = 45.0, 60.0  # an upright tile's box in pixels


def boxes_along(n: int, start: tuple[float, float], angle_deg: float, step: float = 46.0,
                size: tuple[float, float] = (W, H)) -> np.ndarray:
    """Centres of ``n`` tiles side by side from ``start`` along a line at ``angle_deg``."""
    t = np.deg2rad(angle_deg)
    k = np.arange(n, dtype=np.float64)[:, None]
    return np.asarray(start, np.float64) + k * step * np.array([np.cos(t), np.sin(t)])


def rows_of(centers: np.ndarray, sizes: np.ndarray) -> list[set[int]]:
    geo = rowgeom.find_rows(centers, sizes, np.arange(len(centers)))
    return [set(map(int, r)) for r in geo.rows]


@pytest.mark.parametrize("along_shift,across_shift", [
    pytest.param(23.0, -20.0, id="between-row-tiles"),
    pytest.param(3.0, -20.0, id="behind-row-tiles"),
    pytest.param(23.0, -26.0, id="further-behind"),
    # Nearer the row's line, within a neighbour's reach across: the wall's end tile lies before a row
    # tile whose own best neighbour is the row tile beside it, so the two are not linked.
    pytest.param(23.0, -15.0, id="between-a-quarter-higher"),
    # Right behind the row's tiles, a sixth higher: they overlap along the row, so they are not side by side.
    pytest.param(3.0, -10.0, id="right-behind-a-sixth-higher"),
])
def test_wall_overlapping_a_standing_row_is_a_row_of_its_own(along_shift, across_shift):
    # A standing row hides most of a flat wall behind it: the wall's boxes lie between or behind
    # the row's along the row, a sixth to a half of a tile higher. Tiles overlapping along a row are
    # not in one row, and the wall lies off the row's line.
    row = boxes_along(10, (200.0, 300.0), 0.0)
    wall = boxes_along(7, (200.0 + along_shift, 300.0 + across_shift), 0.0, step=46.0)
    centers = np.vstack([row, wall])
    sizes = np.vstack([np.tile([W, H], (10, 1)), np.tile([48.0, 40.0], (7, 1))])
    assert sorted(rows_of(centers, sizes), key=min) == [set(range(10)), set(range(10, 17))]


def projected(rects: np.ndarray, p: float, turn: float) -> tuple[np.ndarray, np.ndarray]:
    """Tile rectangles (x0, y0, x1, y1) on the table seen through a perspective that shrinks the
    far (right) side (x' = x / (1 + p x), y' = y / (1 + p x)), turned by ``turn`` degrees:
    the centres and sizes of their bounding boxes."""
    corners = np.stack([rects[:, [0, 1]], rects[:, [2, 1]], rects[:, [2, 3]], rects[:, [0, 3]]], axis=1)
    w = 1.0 + p * corners[..., :1]
    pts = corners / w
    t = np.deg2rad(turn)
    pts = pts @ np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]).T
    lo, hi = pts.min(axis=1), pts.max(axis=1)
    return (lo + hi) / 2 + 800.0, hi - lo


@pytest.mark.parametrize("p", [0.0, 0.0006, 0.0012])
@pytest.mark.parametrize("turn", [0.0, 33.0, 120.0, 200.0])
def test_rows_converging_under_perspective_stay_apart(p, turn):
    # Two parallel rows of 14 tiles, the second 1.4 tiles behind the first, seen in perspective:
    # they converge (the far end up to half the size), so one direction does not fit both.
    x = np.arange(14) * 46.0
    near = np.stack([x, np.zeros(14), x + W, np.full(14, H)], axis=1)
    far = near + [0.0, 84.0, 0.0, 84.0]
    centers, sizes = projected(np.vstack([near, far]), p, turn)
    assert sorted(rows_of(centers, sizes), key=min) == [set(range(14)), set(range(14, 28))]


@pytest.mark.parametrize("gap_tiles,pieces", [
    pytest.param(0.0, 1, id="touching"),
    pytest.param(2.0, 1, id="two-tiles-apart-still-one-row"),
    pytest.param(8.0, 2, id="too-far-to-be-one-row"),
])
def test_chains_on_one_line_join_across_a_gap(gap_tiles, pieces):
    first = boxes_along(6, (100.0, 400.0), 0.0)
    second = boxes_along(4, (100.0 + 6 * 46.0 + gap_tiles * W, 400.0), 0.0)
    centers = np.vstack([first, second])
    assert len(rows_of(centers, np.tile([W, H], (10, 1)))) == pieces


def test_a_tile_off_the_line_does_not_chain():
    centers = np.vstack([boxes_along(5, (100.0, 400.0), 0.0), [[100.0 + 5 * 46.0, 400.0 - 0.5 * H]]])
    pieces = rowlink.chains(centers, np.array([1.0, 0.0]), np.full(6, np.sqrt(W * H)), np.arange(6), rowgeom.LINE_TOL)
    assert sorted(map(sorted, pieces)) == [[0, 1, 2, 3, 4], [5]]


def steps_row(steps: list[float]) -> tuple[list[int], np.ndarray, np.ndarray]:
    """A row given by its centre steps (tiles of equal box size): order, along, scale."""
    along = np.concatenate([[0.0], np.cumsum(steps)])
    return list(range(len(along))), along, np.ones(len(along))


LINEAR = [50.0 - k for k in range(12)]  # spacing shrinking along the row (perspective)


@pytest.mark.parametrize("steps,apart", [
    pytest.param([46.0] * 12, None, id="even"),
    pytest.param([46.0] * 11 + [52.0], "last", id="even-last-pushed"),
    pytest.param([52.0] + [46.0] * 11, "first", id="even-first-pushed"),
    pytest.param(LINEAR, None, id="shrinking-not-pushed"),
    pytest.param(LINEAR[:-1] + [LINEAR[-1] * 1.12], "last", id="shrinking-last-pushed-at-the-narrow-end"),
    pytest.param([LINEAR[0] * 1.12] + LINEAR[1:], "first", id="shrinking-first-pushed-at-the-wide-end"),
    pytest.param([46.0] * 11 + [48.0], None, id="even-last-a-little-further"),
    pytest.param([46.0] * 3 + [52.0], "last", id="five-tiles-last-pushed"),
    # Both ends as far out: neither is surely the drawn tile.
    pytest.param([52.0] + [46.0] * 10 + [52.0], None, id="both-ends-pushed-alike"),
])
def test_end_tile_pushed_aside_is_judged_against_the_rows_own_trend(steps, apart):
    # The spacing of a row under perspective changes steadily; an end step is compared with the
    # step the inner ones predict there, not with their median.
    order, along, scale = steps_row(steps)
    expected = {None: None, "first": order[0], "last": order[-1]}[apart]
    assert singles.end_gap(order, along, scale) == expected


@pytest.mark.parametrize("first_step,apart", [
    pytest.param(1.0, None, id="evenly-laid"),
    pytest.param(1.12, "first", id="first-pushed"),
])
def test_end_steps_are_measured_in_the_local_tile_size(first_step, apart):
    # Perspective shrinks the tiles from 1.4 to 0.6 of the typical size along the row, and their
    # steps with them: in tile sizes the steps are even, so only a pushed end stands out.
    scale = np.linspace(1.4, 0.6, 13)
    steps = 46.0 * (scale[:-1] + scale[1:]) / 2
    steps[0] *= first_step
    along = np.concatenate([[0.0], np.cumsum(steps)])
    order = list(range(13))
    assert singles.end_gap(order, along, scale) == {None: None, "first": 0}[apart]


@pytest.mark.parametrize("steps,end", [
    pytest.param([46.0] * 12, "last", id="even-ties-to-last"),
    pytest.param([47.5] + [46.0] * 11, "first", id="first-a-little-further"),
    pytest.param([46.0] * 11 + [47.5], "last", id="last-a-little-further"),
    pytest.param([LINEAR[0] * 1.03] + LINEAR[1:], "first", id="first-a-little-further-than-the-trend"),
    # Spacing growing along the row: the last step is measured against the trend at the last step, not the one before.
    pytest.param([LINEAR[-1] * 1.03] + LINEAR[-2::-1], "first", id="growing-first-a-little-further-than-the-trend"),
    pytest.param([50.0, 46.0, 46.0], "first", id="four-tiles-first-further"),
    pytest.param([50.0, 46.0], "last", id="three-tiles-always-last"),
    # Tiles laid unevenly (steps 44.5 / 47.5): an end 2.7 % further out than the other is within the row's own
    # scatter (3.2 %), a difference box jitter makes (a QA photo turned half round guessed the other end so).
    pytest.param([46.0 * 1.005] + [44.5, 47.5] * 5 + [46.0], "last", id="further-by-less-than-the-rows-own-scatter"),
    pytest.param([46.0 * 1.10] + [44.5, 47.5] * 5 + [46.0], "first", id="further-by-more-than-the-rows-own-scatter"),
])
def test_guessed_winning_tile_is_the_end_standing_further_out(steps, end):
    order, along, scale = steps_row(steps)
    assert singles.likely_end(order, along, scale) == {"first": order[0], "last": order[-1]}[end]


@pytest.mark.parametrize("step", [6.0, 46.0, 400.0], ids=["tiny-tiles", "usual", "close-up"])
def test_short_rows_end_tiles_are_judged_alike_at_any_scale(step):
    # A hand row of five (three melds laid) or four tiles has too few inner steps for a trend: the
    # spacing is taken as even, in the row's own units, whatever size the tiles show in the photo.
    assert singles.end_gap(*steps_row([step] * 3 + [1.12 * step])) == 4  # the last pushed out a little
    assert singles.likely_end(*steps_row([step] * 3)) == 3  # evenly laid: the guess is the last


@pytest.mark.parametrize("steps,cuts", [
    pytest.param([46.0] * 8, [], id="even"),
    pytest.param([46.0] * 4 + [56.0] + [46.0] * 3, [5], id="a-fifth-of-a-tile-gap"),
    pytest.param([46.0] * 4 + [50.0] + [46.0] * 3, [], id="within-the-rows-spread"),
    pytest.param([46.0, 45.0, 47.0, 44.0, 56.0, 46.5, 45.5, 47.0], [5], id="gap-among-uneven-steps"),
    pytest.param([46.0] * 4 + [70.0] + [46.0] * 3, [5], id="a-usual-gap"),
    pytest.param([56.0, 46.0, 46.0, 46.0], [1], id="five-tiles-the-first-a-fifth-of-a-tile-apart"),
])
def test_a_step_standing_out_among_its_neighbours_is_a_gap(steps, cuts):
    order, along, scale = steps_row(steps)
    pieces = rowgeom.split_gaps(np.array(order), along, scale, 46.0, 1.35)
    assert [p[0] for p in pieces[1:]] == cuts


@pytest.mark.parametrize("across,pieces", [
    pytest.param([0, 0, 0, 0, 15], [[0, 1, 2, 3, 4]], id="a-quarter-off-stays"),
    pytest.param([0, 0, 0, 0, 30], [[0, 1, 2, 3], [4]], id="half-off-stands-alone"),
    pytest.param([30, 0, 0, 0, 0], [[0], [1, 2, 3, 4]], id="the-first-half-off-stands-alone"),
    pytest.param([30, 0, 0, 0], [[0], [1, 2, 3]], id="the-first-of-four-half-off-stands-alone"),
    pytest.param([0, 0, 30, 0, 0], [[0, 1, 3, 4], [2]], id="a-middle-one-half-off-stands-alone"),
])
def test_a_tile_off_its_groups_line_stands_alone_and_is_not_lost(across, pieces):
    # Tiles 60 px high, one of them ``across`` px off the others' line: half a tile off, it is a group of its
    # own (a stray to report, or the winning tile), still among the groups; its neighbours stay together.
    n = len(across)
    found = rowgeom.off_line_apart([list(range(n))], np.array(across, float), np.full(n, H), 0.4)
    assert sorted(found) == pieces


def test_a_sideways_tiles_longer_steps_are_not_a_gap():
    order, along, scale = steps_row([46.0] * 6 + [53.0, 53.0] + [46.0] * 6)
    turned = np.zeros(len(order), bool)
    turned[7] = True  # the tile between the two longer steps lies sideways
    assert len(rowgeom.split_gaps(np.array(order), along, scale, 46.0, 1.35, turned)) == 1
    assert len(rowgeom.split_gaps(np.array(order), along, scale, 46.0, 1.35)) == 3


# Beside a sideways tile the step between centres is about a sixth longer where the tiles touch, so the
# gap threshold (1.35 pitches here) is stretched by as much there, and only there; a short row (three
# steps) has no neighbouring steps to compare with, so the threshold alone decides. Not beside a turned
# tile at the row's end: perspective widens end tiles, and a winning tile set apart there is no meld's.
@pytest.mark.parametrize("steps,turned_at,pieces", [
    pytest.param([1.0, 1.45, 1.0], 1, 1, id="touching-beside-a-sideways-tile"),
    pytest.param([1.0, 1.45, 1.0], None, 2, id="the-same-step-between-upright-tiles-is-a-gap"),
    pytest.param([1.0, 1.65, 1.0], 1, 2, id="a-real-gap-beside-a-sideways-tile"),
    pytest.param([1.0, 1.0, 1.45], 3, 2, id="not-beside-a-turned-tile-ending-the-row"),
    pytest.param([1.45, 1.0, 1.0], 0, 2, id="nor-one-starting-it"),
])
def test_the_gap_threshold_beside_a_sideways_tile(steps, turned_at, pieces):
    order, along, scale = steps_row([46.0 * step for step in steps])
    turned = np.zeros(len(order), bool)
    if turned_at is not None:
        turned[turned_at] = True
    assert len(rowgeom.split_gaps(np.array(order), along, scale, 46.0, 1.35, turned)) == pieces


# A tile is turned when it is longer along its row and lower across it than its nearest neighbours: its along/across
# aspect 1.4 times theirs inside a row, 1.6 times at either end, where perspective widens the end tiles of a row
# (`bench_layouts.random_layout`, 3,000 hands of seed 11: 160 of the 422 end tiles seen turned at 1.4 were upright,
# 48 of 298 at 1.6).
@pytest.mark.parametrize("at,longer,shorter,turned", [
    pytest.param(2, 1.22, 0.81, True, id="inside-1.5x"),
    pytest.param(0, 1.22, 0.81, False, id="first-1.5x"),
    pytest.param(5, 1.22, 0.81, False, id="last-1.5x"),
    pytest.param(0, 1.3, 0.76, True, id="first-1.7x"),
    pytest.param(5, 1.3, 0.76, True, id="last-1.7x"),
    pytest.param(2, 1.17, 0.9, False, id="inside-1.3x"),
])
def test_a_turned_tile_stands_out_more_at_a_rows_end(at, longer, shorter, turned):
    along = np.arange(6) * 46.0
    a_ext, b_ext = np.full(6, 0.75), np.ones(6)
    a_ext[at] *= longer
    b_ext[at] *= shorter
    found = rowgeom.sideways([np.arange(6)], along, a_ext, b_ext)
    assert found.tolist() == [i == at and turned for i in range(6)]


def test_a_piece_continuing_the_line_is_joined_before_a_nearer_one_off_it():
    # After 0-1-2 come 3-4-5 on its line two tile sizes on, and tile 6 nearer (1.8) but 0.3 across:
    # the cost counts both offsets, so 6 stays a piece of its own.
    centers = np.array([[0, 0], [1, 0], [2, 0], [4, 0], [5, 0], [6, 0], [3.8, 0.3]], np.float64)
    rows = rowlink.join([[0, 1, 2], [3, 4, 5], [6]], centers, np.array([1.0, 0.0]), np.ones(7), rowgeom.LINE_TOL)
    assert rows == [[0, 1, 2, 3, 4, 5], [6]]


def test_mean_direction_weighs_the_groups_by_size():
    # Three tiles along x and four at 20°: the doubled-angle mean lies between, nearer the larger group.
    t = np.deg2rad(20.0)
    centers = np.vstack([boxes_along(3, (0.0, 0.0), 0.0, step=1.0),
                         [10.0, 5.0] + np.arange(4)[:, None] * [np.cos(t), np.sin(t)]])
    d = rowlink.mean_direction([[0, 1, 2], [3, 4, 5, 6]], centers, np.array([1.0, 0.0]))
    assert 10.0 < np.rad2deg(np.arctan2(d[1], d[0])) < 13.0


@pytest.mark.parametrize("n", [3, 6])
def test_tiles_on_one_line_suggest_that_line_alone(n):
    centers = boxes_along(n, (100.0, 100.0), 32.0)
    found = rowlink.candidate_directions(centers, np.arange(n))
    assert len(found) == 1
    assert abs(float(found[0] @ [np.cos(np.deg2rad(32.0)), np.sin(np.deg2rad(32.0))])) == pytest.approx(1.0)


@pytest.mark.parametrize("wh,direction", [
    pytest.param((45.0, 60.0), (1.0, 0.0), id="upright-tile-row-along-x"),
    pytest.param((60.0, 45.0), (0.0, 1.0), id="turned-tile-row-along-y"),
])
def test_a_lone_tiles_row_direction_follows_its_box(wh, direction):
    assert rowgeom.row_direction(np.array([[100.0, 100.0]]), np.array([wh])).tolist() == list(direction)


def test_columns_side_by_side_run_along_their_length():
    # Two columns of tiles 80 px apart, tiles 46 px apart in each: the nearest neighbour is in the column.
    centers = np.vstack([boxes_along(6, (100.0, 100.0), 90.0), boxes_along(6, (180.0, 100.0), 90.0)])
    u = rowgeom.row_direction(centers, np.tile([W, H], (12, 1)))
    assert abs(float(u[1])) == pytest.approx(1.0)


@pytest.mark.parametrize("u,expected", [
    pytest.param((0.0, -1.0), (0.0, 1.0), id="vertical-points-down"),
    pytest.param((-0.6, 0.8), (0.6, -0.8), id="leftwards-turned-right"),
    pytest.param((0.6, -0.8), (0.6, -0.8), id="rightwards-kept"),
])
def test_canonical_row_direction(u, expected):
    assert rowgeom.canonical(np.array(u)).tolist() == pytest.approx(list(expected))


def test_near_45_degrees_a_tile_is_taken_as_upright_three_quarters_as_wide_as_long():
    # The box of a tile at 45° tells only the sum of its extents: it is split as an upright tile's (3 : 4).
    u = np.array([1.0, 1.0]) / np.sqrt(2)
    box = np.array([[70.0, 70.0]])
    _along, _across, a, b, conditioned = rowgeom.frame(np.zeros((1, 2)), box, u)
    assert not conditioned
    assert a[0] + b[0] == pytest.approx(140.0 / np.sqrt(2))
    assert a[0] / b[0] == pytest.approx(0.75, abs=0.01)


def test_a_tile_off_the_line_does_not_pull_its_neighbours_off_with_it():
    # Each tile is measured against up to two neighbours on each side: the one tile 10 px off stands out, and the
    # tiles beside it, whose other neighbours lie on the line, stay on it.
    dist = rowgeom.off_line_distance([0, 1, 2, 3, 4], np.array([0.0, 0.0, 10.0, 0.0, 0.0]))
    assert dist == {0: 5.0, 1: 0.0, 2: 10.0, 3: 0.0, 4: 5.0}


@pytest.mark.parametrize("degrees", [0, 37, 90, 91, 150])
def test_the_mean_direction_of_straight_rows_is_their_own(degrees):
    # Rows of 5 and 4 tiles along one line, apart: their size-weighted mean adds no slant of its own.
    t = np.radians(degrees)
    d = np.array([np.cos(t), np.sin(t)])
    centers = np.array([k * 50.0 * d for k in range(5)] + [(400 + k * 50.0) * d for k in range(4)])
    got = rowlink.mean_direction([[0, 1, 2, 3, 4], [5, 6, 7, 8]], centers, d)
    assert got == pytest.approx(d, abs=1e-9)


@pytest.mark.parametrize("u", [(0.0, 1.0), (0.6, -0.8)])
def test_without_a_group_of_three_the_mean_direction_is_the_one_given(u):
    # Pairs and lone tiles have no principal axis of their own: the direction found before stands.
    centers = np.array([[0.0, 0.0], [50.0, 0.0], [300.0, 40.0], [500.0, 500.0]])
    got = rowlink.mean_direction([[0, 1], [2], [3]], centers, np.array(u))
    assert got == pytest.approx(u, abs=1e-12)
