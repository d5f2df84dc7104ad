"""Grouping detections into a hand, on hand-built layouts at many rotations and perspectives."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import format_tiles, parse_meld, parse_tiles
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import (
    ROLES,
    Knobs,
    _group,
    count_problems,
    group,
    is_legal_reading,
    mark_win,
    row_direction,
)
from xingzi.vision.layouts import hand_layout, with_tiles

HANDS = [
    pytest.param("123m55p12s", "3s", ["pung 中", "concealed_kong 4s"], 2, id="pung+concealed-kong+fa"),
    pytest.param("123m456m789p12s55p", "3s", [], 0, id="all-concealed"),
    pytest.param("5p", "5p", ["pung 中", "kong 9p", "pung 1s", "concealed_kong 4m"], 1, id="four-melds"),
    pytest.param("234m567m345p8p", "8p", ["pung 中"], 0, id="example-5"),
    pytest.param("112233m5555p77s中", "中", [], 4, id="seven-pairs-four-fa"),
]


def reading_key(r):
    return sorted(r.tiles), r.win_tile, sorted(map(str, r.melds)), r.fa


def truth_key(hand, win, melds, fa):
    return sorted(parse_tiles(hand + win)), Tile.parse(win), sorted(str(parse_meld(m)) for m in melds), fa


@pytest.mark.parametrize("hand,win,melds,fa", HANDS)
@pytest.mark.parametrize("angle", [0, 17, 44, 90, 133, 180, 251, 333])
@pytest.mark.parametrize("perspective", [0.0, 0.3])
def test_reads_hand_at_any_rotation(hand, win, melds, fa, angle, perspective):
    layout = hand_layout(hand, win, melds, fa, angle=angle, perspective=perspective, jitter=0.01, seed=angle)
    reading = group(layout.detections)
    assert reading_key(reading) == truth_key(hand, win, melds, fa)
    assert reading.win_set_apart
    assert reading.problems == ()


# Near 45° an axis-aligned box does not tell a tile's length from its width, so rowgeom.frame assumes the split
# there; these slants, 9–11° from 45° with the row's ends widened by perspective, must still be read that way.
@pytest.mark.parametrize("hand,win,melds,fa,angle,melds_row,gap", [
    pytest.param("2245667p白白白", "8p", ["concealed_kong 中"], 0, 234, 1, 0.8, id="234deg-melds-below"),
    pytest.param("2245667p白白白", "8p", ["concealed_kong 中"], 0, 325, 0, 0.4, id="325deg-melds-in-row"),
    pytest.param("345m678p99s11s", "1s", ["kong 中"], 1, 143, 0, 0.4, id="143deg-kong-in-row"),
])
def test_slants_close_to_45_degrees_with_perspective(hand, win, melds, fa, angle, melds_row, gap):
    layout = hand_layout(hand, win, melds, fa, angle=angle, perspective=0.4, melds_row=melds_row, jitter=0.03,
                         gap=gap, seed=angle)
    assert reading_key(group(layout.detections)) == truth_key(hand, win, melds, fa)


@pytest.mark.parametrize("melds_row", [0, 1], ids=["melds-in-row", "melds-below"])
@pytest.mark.parametrize("scale", [25.0, 60.0, 200.0])
def test_roles_per_detection_match_layout(melds_row, scale):
    layout = hand_layout("12m55p", "3m", ["pung 中", "kong 9p", "concealed_kong 4s"], 2,
                         size=scale, melds_row=melds_row, angle=25)
    reading = group(layout.detections)
    assert reading.roles == layout.roles
    assert reading.meld_of == layout.meld_of
    assert [str(m) for m in reading.melds] == ["pung 中", "kong 9p", "concealed_kong 4s"]


def test_sideways_tile_of_a_pung_alone_on_its_row_is_seen():
    # Three tiles are enough to compare a tile's shape with its neighbours'.
    layout = hand_layout("123m456m789p5p", "5p", ["pung 中"], melds_row=1, sideways_at=0)
    reading = group(layout.detections)
    first = layout.roles.index("pung")
    assert [i for i, s in enumerate(reading.sideways) if s] == [first]
    assert reading.melds == (Meld(MeldKind.PUNG, Tile.ZHONG),)


# The last tile of a row has neighbours on one side only: its shape is compared with those.
@pytest.mark.parametrize("sideways_at", [1, 2], ids=["middle-tile-turned", "last-tile-of-the-row-turned"])
def test_meld_touching_the_row_is_found_by_its_sideways_tile(sideways_at):
    layout = hand_layout("123m55p12s", "3s", ["pung 中"], angle=30, gap=0.0, win_apart=False, sideways_at=sideways_at)
    reading = group(layout.detections)
    assert reading.melds == (Meld(MeldKind.PUNG, Tile.ZHONG),)
    sideways_cls = {int(layout.detections.cls[i]) for i, s in enumerate(reading.sideways) if s}
    assert sideways_cls == {Tile.ZHONG.index}


# One tile and the winner, then four claimed pungs along the same row, each with its first tile turned,
# photographed at a slant: perspective widens the tiles near the row's ends. The first pung's turned
# tile is compared with two tiles on either side (the tiles before it alone are as wide as it is).
@pytest.mark.parametrize("perspective", [0.4, 0.5])
@pytest.mark.parametrize("gap", [0.3, 0.4])
def test_turned_tile_of_the_first_pung_beside_wide_end_tiles_is_seen(perspective, gap):
    melds = ["pung 2p", "pung 3s", "pung 白", "pung 9m"]
    layout = hand_layout("1m", "1m", melds, perspective=perspective, gap=gap)
    reading = group(layout.detections)
    assert [str(m) for m in reading.melds] == melds
    assert [i for i, s in enumerate(reading.sideways) if s] == [2, 5, 8, 11]
    assert is_legal_reading(reading)


# The row running away from the camera under strong perspective: the claimed 中 pung's turned tile, far
# off and foreshortened, stands 1.36 pitches from its neighbour; read as a gap, it split the pung and
# the pung was counted into the concealed hand.
@pytest.mark.parametrize("angle,jitter,gap", [(98, 0.0, 0.8), (98, 0.02, 0.8), (280, 0.02, 0.5), (280, 0.02, 0.8)])
def test_a_claimed_pung_far_along_a_row_seen_at_a_slant_keeps_its_turned_tile(angle, jitter, gap):
    hand, win, melds, fa = "123m55p12s", "3s", ["pung 中", "concealed_kong 4s"], 2
    layout = hand_layout(hand, win, melds, fa, angle=angle, perspective=0.6, jitter=jitter, gap=gap, seed=angle)
    reading = group(layout.detections)
    assert reading_key(reading) == truth_key(hand, win, melds, fa)


# The other way round: a winning 白 set apart at the end of a row ending in 白白, shot at a slant, is widened by
# perspective until it looks turned; the gap before it must still count (else the three read as a claimed pung).
def test_a_winning_tile_apart_at_a_widened_row_end_is_not_taken_into_a_pung():
    hand, win, melds = "23455577m白白", "白", ["pung 中"]
    layout = hand_layout(hand, win, melds, angle=256, perspective=0.6, gap=0.51, jitter=0.012, melds_row=1, seed=46)
    reading = group(layout.detections)
    assert reading_key(reading) == truth_key(hand, win, melds, 0)
    assert reading.win_set_apart


# A concealed triplet at the end of the hand's row, shot at a slant: perspective widens the end tile until it looks
# turned among its two neighbours; at a row's end a tile must stand out more to be taken as turned (rowgeom).
@pytest.mark.parametrize("hand,win,melds,angle,perspective,gap,jitter,seed", [
    ("666p88s中中", "中", ["pung 7p", "pung 7s"], 120, 0.305, 0.711, 0.0034, 2194),
    ("111222m7s", "7s", ["pung 1s", "pung 5s"], 207, 0.373, 0.814, 0.0012, 2529),
    ("2225s中中中", "5s", ["pung 9s", "kong 8s"], 199, 0.54, 0.796, 0.016, 1782),
])
def test_a_concealed_triplet_ending_a_slanted_row_is_no_claimed_pung(hand, win, melds, angle, perspective, gap,
                                                                     jitter, seed):
    layout = hand_layout(hand, win, melds, angle=angle, perspective=perspective, gap=gap, jitter=jitter, melds_row=1,
                         sideways_at=2, seed=seed)
    assert reading_key(group(layout.detections)) == truth_key(hand, win, melds, 0)


# Two claimed pungs laid on against the row one after the other, the second's turned tile not its first:
# its run of 9p is found up to the pung before it, which is already taken.
@pytest.mark.parametrize("sideways_at", [1, 2], ids=["middle-tile-turned", "last-tile-turned"])
def test_two_melds_touching_the_row_are_each_found_by_their_sideways_tile(sideways_at):
    layout = hand_layout("123m55p12s", "3s", ["pung 中", "pung 9p"], gap=0.0, win_apart=False,
                         sideways_at=sideways_at)
    reading = group(layout.detections)
    assert reading.melds == (Meld(MeldKind.PUNG, Tile.ZHONG), Meld(MeldKind.PUNG, Tile.P9))
    assert sorted(reading.tiles) == sorted(parse_tiles("123m55p123s"))
    assert is_legal_reading(reading)


# A photo taken at about 34° to the rows, where a box's width and height only just tell a tile's length
# along the row from its height across it, with a little perspective: the first 1m's box 4 px too short
# (or too narrow) made it look flat and long, a claimed pung of 111m, in a hand with no meld at all.
@pytest.mark.parametrize("angle,grow", [pytest.param(34, [0, 2, 0, -2], id="box-too-short"),
                                        pytest.param(-56, [2, 0, -2, 0], id="box-too-narrow")])
def test_a_tight_box_in_a_slanting_photo_is_not_a_sideways_tile(angle, grow):
    det = hand_layout("111m456p99p13456s", "2s", angle=angle, perspective=0.2).detections
    boxes = det.xyxy.copy()
    boxes[0] += np.array(grow, np.float32)
    reading = group(Detections(boxes, det.cls, det.conf))
    assert reading.melds == () and not reading.sideways[0]
    assert sorted(reading.tiles) == sorted(parse_tiles("111m456p99p123456s"))
    assert is_legal_reading(reading)


def test_concealed_kong_inside_the_row_is_taken_out():
    layout = hand_layout("123m55p12s", "3s", ["concealed_kong 4s"], gap=0.0, win_apart=False)
    reading = group(layout.detections)
    assert reading.melds == (Meld(MeldKind.CONCEALED_KONG, Tile.S4),)
    assert sorted(reading.tiles) == sorted(parse_tiles("123m55p123s"))


@pytest.mark.parametrize("angle", [0, 35, 200])
def test_exposed_kong_laid_on_against_the_row_is_found_by_the_tile_count(angle):
    # No gap and no sideways tile (a tray or grid): 15 tiles where a hand with no kong has 14,
    # and taking the four 9p out as a kong leaves a winning hand.
    layout = hand_layout("123m456m55p12s", "3s", ["kong 9p"], gap=0.0, win_apart=False, sideways_at=-1,
                         angle=angle)
    reading = group(layout.detections)
    assert reading.melds == (Meld(MeldKind.KONG, Tile.P9),)
    assert sorted(reading.tiles) == sorted(parse_tiles("123m456m55p123s"))
    assert is_legal_reading(reading)


def test_four_of_a_tile_in_a_long_row_stay_when_taking_them_out_makes_no_hand():
    # 15 tiles with 1111m among them, but the other eleven are no hand: no kong is made up.
    reading = group(hand_layout("1111m2468p135799s", "9s", [], win_apart=False).detections)
    assert reading.melds == ()
    assert any(p.startswith("15 tiles") for p in reading.problems)


def test_winning_tile_not_apart_is_guessed_as_last_of_row_and_flagged():
    layout = hand_layout("123m456m789p12s55p", "3s", [], win_apart=False, angle=20)
    reading = group(layout.detections)
    assert reading.win_tile is Tile.S3
    assert not reading.win_set_apart
    assert any("not set apart" in p for p in reading.problems)


@pytest.mark.parametrize(
    "hand,win,melds,win_apart,expected",
    [
        pytest.param("123m456m789p1s55p", "3s", [], True, "13 tiles", id="one-short"),
        pytest.param("33333p456m789p55s", "1s", [], True, "five 3p", id="five-of-a-tile"),
        pytest.param("123m456m789p12s55p6s", "3s", [], True, "15 tiles", id="one-over"),
        pytest.param("123m456m789p12s55p6s", "3s", [], False, "15 tiles", id="one-over-in-the-row"),
    ],
)
def test_count_problems_are_named(hand, win, melds, win_apart, expected):
    reading = group(hand_layout(hand, win, melds, win_apart=win_apart).detections)
    assert any(p.startswith(expected) for p in reading.problems), reading.problems


def test_count_problems_accounts_for_kongs():
    kong = [Meld(MeldKind.KONG, Tile.P9)]
    assert count_problems(tuple(parse_tiles("123m456m12s55p3s")), kong) == []
    assert count_problems(tuple(parse_tiles("123m456m12s55p")), kong)[0].startswith("14 tiles")


@pytest.mark.parametrize(
    "classes,expected",
    [
        pytest.param([], "no tiles found", id="empty"),
        pytest.param([Tile.FA.index] * 2, "only 发 bonus tiles found", id="only-fa"),
        pytest.param([Tile.FA.index] * 5, "five 发 (only four exist)", id="five-fa"),
    ],
)
def test_degenerate_tables(classes, expected):
    n = len(classes)
    xyxy = np.array([[i * 50, 0, i * 50 + 45, 60] for i in range(n)], np.float32).reshape(n, 4)
    det = Detections(xyxy, np.array(classes, np.int64), np.full(n, 0.9, np.float32))
    reading = group(det)
    assert expected in reading.problems
    assert reading.tiles == ()
    assert reading.direction == (1.0, 0.0)  # no row to follow: along the photo's x axis


def test_a_lone_tile_is_read_not_dropped_as_a_duplicate():
    det = Detections(np.array([[0, 0, 45, 60]], np.float32), np.array([Tile.M4.index]), np.array([0.9], np.float32))
    reading = group(det)
    assert reading.tiles == (Tile.M4,) and reading.roles == ("win",)
    assert not any("duplicate" in p for p in reading.problems)


def test_face_down_tiles_only_have_no_winning_tile_set_apart():
    n = 8
    xyxy = np.array([[i * 46, 0, i * 46 + 45, 60] for i in range(n)], np.float32)
    reading = group(Detections(xyxy, np.full(n, BACK_CLASS, np.int64), np.full(n, 0.9, np.float32)))
    assert reading.tiles == () and reading.win_tile is None and not reading.win_set_apart


# The second box may lie a few pixels off the first: 5 px along a 45 px wide box still overlaps it by 0.8
# (intersection over union), far more than two tiles side by side ever do.
@pytest.mark.parametrize("shift", [pytest.param([1.0, 1.0, 1.0, 1.0], id="a-pixel-off"),
                                   pytest.param([5.0, 0.0, 5.0, 0.0], id="five-pixels-along-the-row")])
def test_duplicate_box_of_one_tile_is_ignored(shift):
    layout = hand_layout("123m456m789p12s55p", "3s")
    det = layout.detections
    dup = Detections(
        np.vstack([det.xyxy, det.xyxy[:1] + np.array(shift, np.float32)]), np.append(det.cls, det.cls[0]),
        np.append(det.conf, np.float32(0.2)),
    )
    reading = group(dup)
    assert reading.roles[-1] == "loose"
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)


def test_all_face_down_kong_is_reported_not_guessed():
    layout = hand_layout("123m55p12s", "3s", ["concealed_kong 4s"])
    cls = layout.detections.cls.copy()
    cls[layout.detections.cls == Tile.S4.index] = BACK_CLASS
    det = Detections(layout.detections.xyxy, cls, layout.detections.conf)
    reading = group(det)
    assert reading.melds == ()
    assert any("shows no face" in p for p in reading.problems)


@pytest.mark.parametrize("angle", [0, 30, 60, 90, 120, 150])
def test_row_direction_follows_rotation(angle):
    det = hand_layout("123m456m789p12s55p", "3s", angle=angle).detections
    wh = det.xyxy[:, 2:] - det.xyxy[:, :2]
    u = row_direction(det.centers.astype(float), wh.astype(float))
    expected = np.array([np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))])
    assert abs(abs(float(u @ expected)) - 1.0) < 1e-3


boxes = st.lists(
    st.tuples(st.floats(0, 2000), st.floats(0, 2000), st.floats(5, 300), st.floats(5, 300),
              st.integers(0, BACK_CLASS)),
    max_size=45,
)


@settings(max_examples=60, deadline=None)
@given(boxes)
def test_any_detections_give_a_consistent_reading(items):
    n = len(items)
    xyxy = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in items], np.float32).reshape(n, 4)
    det = Detections(xyxy, np.array([c for *_, c in items], np.int64), np.full(n, 0.5, np.float32))
    reading = group(det)
    assert len(reading.roles) == n if n else reading.roles == ()
    assert set(reading.roles) <= set(ROLES)
    standing = [i for i, r in enumerate(reading.roles) if r in ("concealed", "win")]
    assert len(standing) == len(reading.tiles)
    assert reading.fa == sum(1 for r in reading.roles if r == "fa")
    for k, meld in enumerate(reading.melds):
        members = [i for i, m in enumerate(reading.meld_of) if m == k]
        faces = {int(det.cls[i]) for i in members} - {BACK_CLASS}
        assert faces == {meld.tile.index}


def test_mark_win_moves_the_winning_tile_and_checks_the_index():
    layout = hand_layout("123m55p12s", "3s", ["pung 中", "concealed_kong 4s"], 2, win_apart=False)
    reading = group(layout.detections)
    assert not reading.win_set_apart
    marked = mark_win(reading, 0)
    assert marked.win_tile is Tile.M1 and marked.win_set_apart and marked.roles.count("win") == 1
    assert sorted(marked.tiles) == sorted(reading.tiles)
    assert not any(p.startswith("winning tile not set apart") for p in marked.problems)
    with pytest.raises(ValueError, match="only a tile standing in the hand"):
        mark_win(reading, reading.roles.index("pung"))
    with pytest.raises(ValueError, match="there are 17 tiles"):
        mark_win(reading, 17)


@pytest.mark.parametrize("shown", ["DFFD", "FDDF", "DDDF", "FDDD", "FFFD", "DFFF", "FFDD", "DDFF"])
def test_concealed_kong_shown_any_usual_way(shown):
    layout = hand_layout("12m55p", "3m", ["pung 中", "kong 9p", "concealed_kong 4s"], kong_shown=shown, angle=40)
    reading = group(layout.detections)
    assert Meld(MeldKind.CONCEALED_KONG, Tile.S4) in reading.melds
    assert reading.problems == ()


# A concealed kong of 中 shown DFFD, and one box more: across the joint of its two faces (real tile pictures:
# the detector read such a joint as a third 中 at 0.27, and the kong as a pung beside two stray backs), or over
# its first face a fifth of a tile higher (a tile stacked on another, as some show a kong).
@pytest.mark.parametrize("place,conf,dropped", [
    pytest.param("joint", 0.3, True, id="doubtful-box-across-a-joint-is-no-tile"),
    pytest.param("joint", 0.9, False, id="sure-box-across-a-joint-is-kept"),
    pytest.param("stacked", 0.3, False, id="doubtful-box-over-a-tile-is-kept"),
])
def test_a_doubtful_box_across_the_joint_of_two_tiles_is_no_tile(place, conf, dropped):
    layout = hand_layout("123m456m789p5p", "5p", ["concealed_kong 中"], kong_shown="DFFD", size=60, center=(640, 300))
    det = layout.detections
    kong = sorted((i for i, r in enumerate(layout.roles) if r == "concealed_kong"), key=lambda i: det.xyxy[i, 0])
    first, second = det.xyxy[kong[1]], det.xyxy[kong[2]]
    box = (first + second) / 2 if place == "joint" else first - np.array([0, 12, 0, 12])
    more = with_tiles(det, [box], [Tile.ZHONG.index])
    more.conf[-1] = conf
    reading = group(more)
    assert ("1 duplicate detection(s) ignored" in reading.problems) is dropped, reading.problems
    if place == "joint":  # the kong is read either way: D中中中 (one turned down at an end) when the box stays
        assert Meld(MeldKind.CONCEALED_KONG, Tile.ZHONG) in reading.melds, reading.melds
        assert (reading.roles[len(more.cls) - 1] == "concealed_kong") is not dropped, reading.roles


@pytest.mark.parametrize("meld,conf,dropped", [
    pytest.param("kong 白", 0.7, True, id="a-fifth-bai-across-a-joint-is-no-tile"),
    pytest.param("kong 白", 0.95, False, id="surer-than-its-neighbours-it-stays"),
    pytest.param("pung 白", 0.7, False, id="a-fourth-bai-read-fairly-surely-stays"),
])
def test_a_fifth_copy_across_the_joint_of_two_of_its_face_is_no_tile(meld, conf, dropped):
    layout = hand_layout("123m456m789p5p", "5p", [meld], size=60, center=(640, 300))
    det = layout.detections
    tiles = sorted((i for i, r in enumerate(layout.roles) if r == meld.split()[0]), key=lambda i: det.xyxy[i, 0])
    more = with_tiles(det, [(det.xyxy[tiles[0]] + det.xyxy[tiles[1]]) / 2], [Tile.BAI.index])
    more.conf[-1] = conf
    reading = group(more)
    assert ("1 duplicate detection(s) ignored" in reading.problems) is dropped, reading.problems
    if meld == "kong 白":
        assert (Meld(MeldKind.KONG, Tile.BAI) in reading.melds) is dropped, reading.melds


def test_row_of_face_down_tiles_is_a_wall_not_a_kong():
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections
    wall = [[300 + k * 45, 600, 345 + k * 45, 660] for k in range(8)]
    reading = group(with_tiles(det, wall, [BACK_CLASS] * 8))
    assert reading.melds == () and reading.roles[-8:] == ("loose",) * 8
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)


def test_stray_tiles_away_from_a_complete_hand_are_ignored():
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections
    reading = group(with_tiles(det, [[100, 700, 145, 760], [1100, 80, 1145, 140]], [Tile.M5.index, Tile.BAI.index]))
    assert reading.roles[-2:] == ("loose", "loose")
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)
    assert "2 tile(s) lying away from the hand ignored" in reading.problems


def test_stray_touching_a_pung_off_its_line_stands_apart():
    layout = hand_layout("123m456m55p12s", "3s", ["pung 8s"], size=60, center=(640, 300), sideways_at=9)
    det = layout.detections
    x0, y0, x1, y1 = det.xyxy[-2]  # the middle tile of the pung; a stray lies half a tile above it
    reading = group(with_tiles(det, [[x0 + 10, y0 - 35, x1 + 10, y1 - 35]], [Tile.M7.index]))
    assert Meld(MeldKind.PUNG, Tile.S8) in reading.melds
    assert reading.roles[-1] == "loose"


@pytest.mark.parametrize("where,shift,problem", [
    # Half hidden behind the row, a third of a tile higher: it overlaps a row tile along the row,
    # so it lies in a row of its own, away from the hand.
    pytest.param(4, (20, -20), "1 tile(s) lying away from the hand ignored", id="overlapping-a-row-tile"),
    # Touching the row's first tile, a sixth to a quarter of a tile off its line: in the row,
    # and dropped as the tile furthest off the line when the hand has one tile too many.
    pytest.param(0, (-46, -10), "1 tile(s) off the hand's line ignored", id="in-line-a-sixth-off"),
    pytest.param(0, (-46, -15), "1 tile(s) off the hand's line ignored", id="in-line-a-quarter-off"),
])
def test_extra_tile_by_the_hand_row_is_ignored(where, shift, problem):
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300)).detections
    x0, y0, x1, y1 = det.xyxy[where]
    dx, dy = shift
    reading = group(with_tiles(det, [[x0 + dx, y0 + dy, x1 + dx, y1 + dy]], [Tile.S9.index]))
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)
    assert reading.roles[-1] == "loose"
    assert problem in reading.problems


@pytest.mark.parametrize("angle", [0, 30, 45, 135, 300])
def test_extra_tile_a_sixth_off_the_rows_line_is_dropped_at_any_rotation(angle):
    # As "in-line-a-sixth-off" above, the table turned: near 45° a box's shape hardly tells a tile's
    # width from its height, yet the tile a sixth of its height off the line is still clearly off it.
    det = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300), angle=angle).detections
    t = np.deg2rad(angle)
    along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    shift = -45.0 * along - 10.0 * across  # touching the row's first tile, a sixth of a tile off its line
    reading = group(with_tiles(det, [det.xyxy[0] + np.concatenate([shift, shift])], [Tile.S9.index]))
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)
    assert reading.roles[-1] == "loose"
    assert "1 tile(s) off the hand's line ignored" in reading.problems


def test_two_lone_tiles_filling_a_hand_leave_the_winning_tile_a_guess():
    # Twelve tiles stand in the row; 1m and 3s lie in front of its two ends. Both complete the hand,
    # so either may be the one drawn: the nearer is taken, and the reading says it is a guess.
    det = hand_layout("23m456m789p12s55p", None, size=60, center=(640, 300)).detections
    first, last = det.xyxy[0], det.xyxy[len(det) - 1]
    reading = group(with_tiles(det, [first + [0, 90, 0, 90], last + [0, 75, 0, 75]], [Tile.M1.index, Tile.S3.index]))
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)
    assert reading.roles[-2:] == ("concealed", "win")
    assert not reading.win_set_apart
    assert "winning tile not set apart: 2 tiles lie apart from the hand" in reading.problems


@pytest.mark.parametrize("shift,jitter,dropped", [
    # Touching the row's last tile, a sixth of a tile off its line: that tile, not its neighbour, is dropped.
    pytest.param((46, -10), 0.0, True, id="extra-at-the-end-off-the-line"),
    # No tile clearly off the line (boxes jittered a little): none is dropped, the count says why.
    pytest.param(None, 0.01, False, id="none-clearly-off"),
])
def test_which_tile_a_row_one_too_long_drops(shift, jitter, dropped):
    hand = "123m456m789p12s55p" + ("" if shift else "6s")  # with no shift, the 15th tile stands in the row
    det = hand_layout(hand, "3s", win_apart=False, size=60, center=(640, 300), jitter=jitter).detections
    if shift:
        x0, y0, x1, y1 = det.xyxy[len(det) - 1]
        det = with_tiles(det, [[x0 + shift[0], y0 + shift[1], x1 + shift[0], y1 + shift[1]]], [Tile.S9.index])
    reading = group(det)
    assert ("1 tile(s) off the hand's line ignored" in reading.problems) is dropped
    if dropped:
        assert reading.roles[-1] == "loose" and reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)
    else:
        assert any(p.startswith("15 tiles") for p in reading.problems)


# 0.09: a step a tenth longer than the others, not cut as a gap, seen by the end step alone.
@pytest.mark.parametrize("angle", [0, 35, 90, 180, 250])
@pytest.mark.parametrize("gap", [0.09, 0.12, 0.2], ids=["gap-0.09", "gap-0.12", "gap-0.2"])
def test_winning_tile_pushed_a_little_off_either_end_is_seen_apart(angle, gap):
    # Less than a gap between groups, more than the row's own spacing: the drawn tile pushed aside.
    layout = hand_layout("123m456m789p12s55p", "3s", [], gap=gap, angle=angle)
    reading = group(layout.detections)
    assert reading.win_tile is Tile.S3 and reading.win_set_apart
    assert reading.roles == layout.roles
    assert not any("not set apart" in p for p in reading.problems)


@pytest.mark.parametrize("hand,win", [
    pytest.param("123m456m789p12s55p", "3s", id="one-pushed-tile-needed"),
    pytest.param("123m456m789p1255s", "3s", id="sorted-row"),
])
def test_evenly_spaced_row_still_guesses_the_last_tile(hand, win):
    reading = group(hand_layout(hand, win, [], win_apart=False, angle=10).detections)
    assert reading.win_tile is Tile.parse(win) and not reading.win_set_apart


def test_tile_seen_sideways_inside_the_hand_row_may_be_noise():
    # 11123m456p789s999s: a 1m boxed as if turned (and a little apart) made the run of 1m a claimed
    # pung, leaving 23m broken; read again with no sideways cue in the row, the hand is legal.
    faces = parse_tiles("11123m456p789s999s")
    boxes, x = [], 200.0
    for k in range(len(faces)):
        w, h = (60, 45) if k == 2 else (45, 60)
        boxes.append([x, 360 - h, x + w, 360])
        x += w + (5 if k == 2 else 0)
    det = Detections(np.array(boxes, np.float32), np.array([t.index for t in faces], np.int64),
                     np.full(len(faces), 0.9, np.float32))
    reading = group(det)
    assert reading.sideways[2] and reading.melds == ()
    assert is_legal_reading(reading) and sorted(reading.tiles) == sorted(faces)


def test_tile_seen_sideways_in_a_row_of_groups_laid_close_may_be_noise():
    # 11123m456p99s 9s and a kong of 7p a fifth of a tile apart; the third 1m boxed as if turned (the
    # rest of the row 15 px further on). Only the lower gap threshold cuts the kong off, and only with
    # no sideways cue in the row is 111m not a claimed pung (which left 23m broken).
    det = hand_layout("11123m456p99s", "9s", ["kong 7p"], gap=0.22, sideways_at=-1, size=60,
                      center=(640, 300)).detections
    boxes = det.xyxy.copy()
    x0, y1 = boxes[2, 0], boxes[2, 3]
    boxes[boxes[:, 0] > x0 + 1] += [15, 0, 15, 0]
    boxes[2] = [x0, y1 - 45, x0 + 60, y1]
    reading = group(Detections(boxes, det.cls, det.conf))
    assert reading.sideways[2] and reading.melds == (Meld(MeldKind.KONG, Tile.P7),)
    assert is_legal_reading(reading) and sorted(reading.tiles) == sorted(parse_tiles("11123m456p999s"))


@pytest.mark.parametrize("stray", [Tile.M9, Tile.BAI, Tile.P4], ids=lambda t: t.symbol)
def test_lone_tile_that_makes_a_legal_hand_wins_over_a_nearer_stray(stray):
    layout = hand_layout("123m456m789p12s55p", "3s", size=60, center=(640, 300), gap=0.8)
    det = layout.detections
    x0, y0, x1, y1 = det.xyxy[0]  # a stray on the row's line, nearer to its start than 3s is to its end
    reading = group(with_tiles(det, [[x0 - 75, y0, x1 - 75, y1]], [stray.index]))
    assert reading_key(reading) == truth_key("123m456m789p12s55p", "3s", [], 0)
    assert reading.roles[-1] == "loose"


@pytest.mark.parametrize("hand,win,melds,fa", [
    pytest.param("123m55p12s", "3s", ["kong 9p", "concealed_kong 4s"], 0, id="kong+concealed-kong"),
    pytest.param("123m456m55p12s", "3s", ["kong 9p"], 1, id="kong"),
])
@pytest.mark.parametrize("angle", [0, 120, 300])
def test_groups_laid_closer_than_usual_are_cut_where_the_step_stands_out(hand, win, melds, fa, angle):
    # Gaps of a fifth of a tile between groups fall under the usual gap threshold, but stand out
    # among the row's even steps: the first reading already cuts there.
    layout = hand_layout(hand, win, melds, fa, gap=0.22, angle=angle, sideways_at=-1)
    reading = _group(layout.detections, Knobs())
    assert is_legal_reading(reading)
    assert reading_key(reading) == truth_key(hand, win, melds, fa)


@pytest.mark.parametrize("hand,win,melds,fa,angle", [
    pytest.param("123m55p12s", "3s", ["kong 9p", "concealed_kong 4s"], 0, 120, id="kong+concealed-kong-120"),
    pytest.param("123m456m55p12s", "3s", ["kong 9p"], 1, 0, id="kong-0"),
    pytest.param("123m456m55p12s", "3s", ["kong 9p"], 1, 300, id="kong-300"),
])
def test_other_thresholds_are_tried_when_the_first_reading_is_not_legal(hand, win, melds, fa, angle):
    # Narrow gaps blurred by jittery boxes: neither threshold of the first reading cuts there;
    # a reading with a lower gap threshold is legal and taken.
    layout = hand_layout(hand, win, melds, fa, gap=0.22, angle=angle, sideways_at=-1, jitter=0.03, seed=angle)
    assert not is_legal_reading(_group(layout.detections, Knobs()))
    reading = group(layout.detections)
    assert is_legal_reading(reading)
    assert reading_key(reading) == truth_key(hand, win, melds, fa)


@pytest.mark.parametrize("tiles,melds,fa,legal", [
    pytest.param("123m456m789p12333s", (), 0, True, id="standard"),
    pytest.param("123m456m789p12345s", (), 0, False, id="no-pair"),
    pytest.param("123m456m55p123s", ("pung 中",), 4, True, id="four-fa"),
    pytest.param("123m456m55p123s", ("pung 中",), 5, False, id="five-fa"),  # only four 发 exist
])
def test_is_legal_reading(tiles, melds, fa, legal):
    t = parse_tiles(tiles)
    reading = group(hand_layout(format_tiles(t[:-1]), t[-1].symbol, list(melds), min(fa, 4)).detections)
    reading = replace(reading, fa=fa)
    assert is_legal_reading(reading) is legal


# Melds laid against the hand row with no gap and the winning tile not set apart: the guess is a tile standing in
# the hand, never a tile of a meld lying in the same line.
@pytest.mark.parametrize("angle", [0, 90])
@pytest.mark.parametrize("hand,win,melds,fa", [
    pytest.param("1m", "1m", ["pung 2p", "pung 3s", "pung 白", "pung 9m"], 3, id="four-pungs"),
    pytest.param("123m55p12s", "3s", ["pung 中", "concealed_kong 4s"], 2, id="pung-and-concealed-kong"),
])
def test_a_guessed_winning_tile_stands_in_the_hand_not_in_a_meld(hand, win, melds, fa, angle):
    layout = hand_layout(hand, win, melds, fa, melds_row=0, win_apart=False, gap=0.0, angle=angle)
    reading = group(layout.detections)
    assert sorted(map(str, reading.melds)) == sorted(melds)
    assert reading.win_tile in parse_tiles(hand + win)
