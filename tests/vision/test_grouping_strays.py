"""Tiles that are not part of the hand: 发 lying away from the bonus 发 and the hand, a fifth 发, a tile beside a full row,
tiles the user sets aside."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.notation import parse_tiles
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.layouts import hand_layout, turned, with_tiles

HAND, WIN = "123m456m789p12s55p", "3s"
FA = Tile.FA.index


def fa_boxes(x0: float, y0: float, n: int, step: float = 46.0) -> list[list[float]]:
    return [[x0 + k * step, y0, x0 + k * step + 45, y0 + 60] for k in range(n)]


# The hand's row lies at y 270-330, x about 200-1080 (size 60, centre (640, 300)).
@pytest.mark.parametrize("boxes,fa,loose", [
    pytest.param(fa_boxes(300, 450, 3) + fa_boxes(1000, 640, 1), 3, 1, id="three-together-one-far"),
    pytest.param(fa_boxes(300, 450, 2) + fa_boxes(900, 600, 1) + fa_boxes(100, 80, 1), 2, 2, id="two-together-two-apart"),
    pytest.param(fa_boxes(300, 450, 5), 4, 1, id="five-side-by-side"),
    pytest.param(fa_boxes(300, 450, 6), 4, 2, id="six-side-by-side"),
    pytest.param(fa_boxes(300, 450, 1) + fa_boxes(900, 600, 1), 2, 0, id="two-apart-no-group"),
    pytest.param(fa_boxes(300, 450, 2) + fa_boxes(900, 600, 2), 4, 0, id="two-groups-of-two"),
    pytest.param(fa_boxes(300, 450, 1), 1, 0, id="one"),
    pytest.param(fa_boxes(300, 450, 4), 4, 0, id="four-together"),
    # Two touching, the third two thirds of a tile's width further on (centres 1.44 tile sizes apart):
    # laid loosely, still with the others.
    pytest.param(fa_boxes(300, 450, 2) + fa_boxes(421, 450, 1), 3, 0, id="third-a-little-apart-still-bonus"),
    # The third a whole tile's width further on (centres 1.73 tile sizes apart, a tile's size being the
    # square root of its box's area): not laid with the others, but 3.5 tile sizes from the hand's row, before
    # it, where only the hand's own 发 lie (RULES.md §1: a player sets each 发 drawn out in front of them).
    pytest.param(fa_boxes(300, 450, 2) + fa_boxes(436, 450, 1), 3, 0, id="third-a-tiles-width-apart-near-the-hand"),
    # The same three 6.7 tile sizes before the row: the third, apart from the two and far from the hand, a stray.
    pytest.param(fa_boxes(300, 620, 2) + fa_boxes(436, 620, 1), 2, 1, id="third-a-tiles-width-apart-far-off"),
    # One apart from the three, beside the row's right end: still the hand's.
    pytest.param(fa_boxes(300, 450, 3) + fa_boxes(1000, 200, 1), 4, 0, id="three-together-one-beside-the-row"),
])
def test_fa_apart_from_the_bonus_fa_are_strays(boxes, fa, loose):
    det = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    reading = group(with_tiles(det, boxes, [FA] * len(boxes)))
    assert reading.fa == fa
    assert reading.roles[len(det):].count("loose") == loose
    assert reading.roles[len(det):].count("fa") == fa
    assert is_legal_reading(reading)
    assert any("发 lying away from the other 发 ignored" in p for p in reading.problems) is (loose > 0)


# Three pungs set apart and a hand row of five (55p123s, the winner standing in it): a row that long
# says the table is laid out in rows, so a 发 lying far from the other two is a stray there too.
def test_a_hand_row_of_five_is_laid_out_in_rows_for_the_fa():
    det = hand_layout("55p12s", "3s", ["pung 1m", "pung 9p", "pung 中"], win_apart=False, size=60,
                      center=(640, 300)).detections
    reading = group(with_tiles(det, fa_boxes(300, 450, 2) + fa_boxes(1000, 80, 1), [FA] * 3))
    assert reading.fa == 2
    assert reading.roles[len(det):] == ("fa", "fa", "loose")
    assert "1 发 lying away from the other 发 ignored" in reading.problems
    assert is_legal_reading(reading)


# Four melds and the pair of 5p: the hand's row (5p and the winner apart) is too short to say the table is
# laid out in rows, so the 发 are not judged by where they lie; still only four 发 exist, so beyond four
# the ones furthest off are no bonus 发 (a misread tile), and the hand is read.
@pytest.mark.parametrize("n", [5, 6])
def test_fa_beyond_four_are_set_aside_where_the_table_is_not_laid_out_in_rows(n):
    det = hand_layout("5p", "5p", ["pung 中", "kong 9p", "pung 1s", "concealed_kong 4m"], size=60,
                      center=(640, 300)).detections
    reading = group(with_tiles(det, fa_boxes(300, 450, n), [FA] * n))
    assert reading.fa == 4
    assert reading.roles[len(det):].count("loose") == n - 4
    assert is_legal_reading(reading)


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
    reading = group(turned(extra, angle))
    assert is_legal_reading(reading)
    assert reading.roles[-1] == "loose"
    assert sorted(reading.tiles) == sorted(layout_tiles(layout))


@pytest.mark.parametrize("angle", [0, 150])
def test_a_lone_tile_on_the_hand_row_wins_over_a_nearer_one_off_it(angle):
    # 123m456m789p2233s waits on 1s or 4s. The 4s lies on the row's line, two tiles past its end; a 1s lies
    # nearer, below the end of the row. Both make a hand: the one on the row is the winning tile pushed aside.
    layout = hand_layout("123m456m789p2233s", "4s", gap=2.2, size=60, center=(640, 300))
    det = layout.detections
    x0, y0, x1, y1 = det.xyxy[len(layout.roles) - 2]  # the row's last tile
    extra = with_tiles(det, [[x1 + 10, y0 + 90, x1 + 10 + (x1 - x0), y1 + 90]], [Tile.S1.index])
    reading = group(turned(extra, angle))
    assert reading.win_tile is Tile.S4
    assert reading.roles[-2:] == ("win", "loose")


def layout_tiles(layout) -> list[Tile]:
    return [Tile.from_index(int(c)) for c, r in zip(layout.detections.cls, layout.roles, strict=True) if r in ("concealed", "win")]


# Tiles the user sets aside ("not part of this hand"): a stray 发 counted as a bonus tile, a box
# on something else; they keep their index and take no part in the grouping.
@pytest.mark.parametrize("extra,classes,ignore,fa,legal", [
    pytest.param(fa_boxes(300, 450, 1), [FA], [14], 0, True, id="stray-fa-set-aside"),
    pytest.param(fa_boxes(300, 450, 2), [FA, FA], [14], 1, True, id="one-of-two-fa-set-aside"),
    pytest.param([[700, 600, 745, 660]], [Tile.M9.index], [14], 0, True, id="a-box-on-a-cup-set-aside"),
    pytest.param([], [], [3], 0, False, id="a-hand-tile-set-aside-leaves-13"),
])
def test_tiles_set_aside_by_the_user_are_not_part_of_the_hand(extra, classes, ignore, fa, legal):
    det = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    reading = group(with_tiles(det, extra, classes) if extra else det, ignore)
    assert [reading.roles[i] for i in ignore] == ["ignored"] * len(ignore)
    assert reading.fa == fa and is_legal_reading(reading) is legal
    assert f"{len(ignore)} box(es) left out as you said (not part of the hand, or no tile)" in reading.problems
    assert len(reading.roles) == len(det) + len(extra)  # indices stay the photo's


def test_a_box_set_aside_hides_no_other_as_a_duplicate():
    det = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    # a second box on tile #3, surer than it: grouping keeps that one and drops #3 as its duplicate
    twin = with_tiles(det, [det.xyxy[3] + 1.0], [int(det.cls[3])])
    twin = Detections(twin.xyxy, twin.cls, np.append(det.conf, np.float32(1.0)))
    first = group(twin)
    assert any("1 duplicate detection(s) ignored" in p for p in first.problems) and first.roles[3] == "loose"
    reading = group(twin, [14])  # the user sets the twin aside: #3 stands in the hand again
    assert reading.roles[3] in ("concealed", "win") and reading.roles[14] == "ignored"
    assert is_legal_reading(reading) and not any("duplicate" in p for p in reading.problems)


def test_setting_aside_a_tile_that_is_not_there_is_refused():
    det = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    with pytest.raises(ValueError, match=r"ignored tile #14: there are 14 tiles \(0..13\)"):
        group(det, [14])


def tile_row(x0: float, y0: float, n: int) -> list[list[float]]:
    """``n`` upright tiles (45 × 60) side by side from (x0, y0)."""
    return [[x0 + k * 46, y0, x0 + k * 46 + 45, y0 + 60] for k in range(n)]


# Tiles in a row of their own behind a hand (the wall's end, a neighbour's discards) are strays when
# the hand is complete without them; in a tray's next line they complete it.
@pytest.mark.parametrize("faces", [
    pytest.param("79s9p", id="three-mixed"),
    pytest.param("19p", id="two"),
    pytest.param("2468m", id="four-mixed"),
])
@pytest.mark.parametrize("win_apart", [True, False], ids=["win-apart", "win-in-row"])
def test_row_of_tiles_behind_a_complete_hand_is_left_out(faces, win_apart):
    layout = hand_layout(HAND, WIN, win_apart=win_apart, size=60, center=(640, 300))
    classes = [t.index for t in parse_tiles(faces)]
    reading = group(with_tiles(layout.detections, tile_row(400, 60, len(classes)), classes))
    assert is_legal_reading(reading)
    assert sorted(reading.tiles) == sorted(layout_tiles(layout))
    assert reading.roles[len(layout.roles):] == ("loose",) * len(classes)
    assert f"{len(classes)} tile(s) lying away from the hand ignored" in reading.problems


# A second hand in the photo, 10 tiles in a row of their own 6 tile sizes before this one, its 发 laid at its end:
# those 发 were counted to this hand (QA photos of two hands, sessions 70 and 71: one 发, then two side by side).
# 发 laid before this hand stay its own.
@pytest.mark.parametrize("fa_at,n,fa,theirs", [
    pytest.param((300 + 10 * 46 + 30, 620), 1, 0, 1, id="at-the-other-rows-end"),
    pytest.param((250, 620), 1, 0, 1, id="before-the-other-rows-start"),
    pytest.param((300 + 10 * 46 + 30, 620), 2, 0, 2, id="two-side-by-side-at-the-other-rows-end"),
    pytest.param((300 + 10 * 46 + 30, 620), 3, 0, 3, id="three-side-by-side-at-the-other-rows-end"),
    pytest.param((300, 400), 1, 1, 0, id="before-this-hand"),
    pytest.param((300, 400), 2, 2, 0, id="two-before-this-hand"),
])
def test_fa_lying_with_another_hands_row_are_not_this_hands(fa_at, n, fa, theirs):
    layout = hand_layout(HAND, WIN, size=60, center=(640, 300))
    other = [t.index for t in parse_tiles("1357m2468p19s")]
    boxes = tile_row(300, 620, len(other)) + fa_boxes(*fa_at, n)
    reading = group(with_tiles(layout.detections, boxes, other + [FA] * n))
    assert is_legal_reading(reading) and sorted(reading.tiles) == sorted(layout_tiles(layout))
    assert reading.fa == fa and reading.roles[-n:] == ("loose" if theirs else "fa",) * n
    assert (f"{theirs} 发 lying with tiles away from the hand ignored" in reading.problems) is bool(theirs)


# A tile of the standing row read (or corrected on the page) as 发, the bonus 发 laid in line before the row (as in
# examples/demo.jpg): the row looked cut there, its first 6m left lying apart as a second winning tile (and on
# the demo photo the 111s and 中中 read as claimed pungs: a QA pass on the page, session 70). At any turn.
@pytest.mark.parametrize("angle", [0, 90, 180, 250])
def test_a_fa_read_in_the_hand_row_does_not_cut_it_into_claimed_melds(angle):
    layout = hand_layout("66m111s中中", "中", ["pung 白", "concealed_kong 3s"], angle=angle, size=60,
                         center=(640, 480))
    det = layout.detections
    row = sorted((i for i, r in enumerate(layout.roles) if r == "concealed"),
                 key=lambda i: float(det.centers[i] @ np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])))
    first, step = det.centers[row[0]], det.centers[row[1]] - det.centers[row[0]]
    half = (det.xyxy[row[0], 2:] - det.xyxy[row[0], :2]) / 2
    fa_at = [first - k * step for k in (1, 2, 3)]  # three bonus 发 in line before the row's first tile
    cls = det.cls.copy()
    cls[row[1]] = FA  # the second 6m read 发
    reading = group(with_tiles(Detections(det.xyxy, cls, det.conf), [[*(c - half), *(c + half)] for c in fa_at],
                               [FA] * 3))
    assert reading.fa == 4 and reading.roles[row[1]] == "fa"
    assert sorted(m.kind.value + " " + m.tile.symbol for m in reading.melds) == ["concealed_kong 3s", "pung 白"]
    assert sorted(reading.tiles) == sorted(parse_tiles("6m111s中中中"))  # a tile short, none of it claimed
    assert reading.win_tile is Tile.ZHONG and reading.win_set_apart  # the 6m before the 发 still in the row


def test_row_behind_a_hand_short_of_the_winning_tile_stays_out_and_the_lone_winner_joins():
    # 13 tiles in the row, the winning tile alone further off than a 3-tile row behind the hand.
    layout = hand_layout(HAND, None, size=60, center=(640, 300))
    det = with_tiles(layout.detections, tile_row(500, 170, 3) + [[640, 480, 685, 540]],
                     [Tile.S9.index, Tile.S7.index, Tile.P9.index, Tile.S3.index])
    reading = group(det)
    assert is_legal_reading(reading)
    assert reading.win_tile is Tile.S3 and reading.roles[-1] == "win"
    assert reading.roles[-4:-1] == ("loose",) * 3


@pytest.mark.parametrize("first,second", [
    pytest.param("123m456m7p", "89p12s55p3s", id="eight-and-six"),
    pytest.param("12s55p3s", "123m456m789p", id="five-and-nine"),
    pytest.param("123m456p", "55p9999s123s", id="a-kong-in-the-second-line"),
])
def test_hand_laid_in_two_lines_of_a_tray_is_read_whole(first, second):
    top, bottom = parse_tiles(first), parse_tiles(second)
    det = Detections(np.array(tile_row(300, 300, len(top)) + tile_row(300, 361, len(bottom)), np.float32),
                     np.array([t.index for t in top + bottom], np.int64), np.full(len(top) + len(bottom), 0.9, np.float32))
    reading = group(det)
    assert is_legal_reading(reading)
    assert "loose" not in reading.roles
    standing = list(reading.tiles) + [t for m in reading.melds for t in m.tiles]
    assert sorted(standing) == sorted(top + bottom)


def test_tray_lines_that_make_no_hand_either_way_are_all_handed_on_to_the_repair():
    # Three lines of a tray: 333m99m with a stray 白 at its end, 中中中44m, and 4m8888p (a pung of 4m and a
    # kong of 8p read standing). The third line is a tile too long for what the first two lack, yet the
    # reading keeps it: the repair can drop the stray, not bring the line back.
    rows = [("333m99m白", 300), ("中中中44m", 361), ("4m8888p", 422)]
    tiles = [t for faces, _ in rows for t in parse_tiles(faces)]
    boxes = [b for faces, y in rows for b in tile_row(300, y, len(parse_tiles(faces)))]
    det = Detections(np.array(boxes, np.float32), np.array([t.index for t in tiles], np.int64),
                     np.full(len(tiles), 0.9, np.float32))
    reading = group(det)
    assert reading.roles[-5:].count("loose") == 0
    assert reading.tile_count + reading.roles.count("loose") >= 15


@pytest.mark.parametrize("y", [450, 170], ids=["in-front", "behind"])
def test_four_face_down_tiles_beside_a_complete_hand_are_strays_not_a_kong(y):
    # Four backs side by side look like a concealed kong shown all face down; a complete hand has no room
    # for one, so they are strays (a piece of the wall), and the reading is legal, not "a kong shows no face".
    layout = hand_layout(HAND, WIN, size=60, center=(640, 300))
    reading = group(with_tiles(layout.detections, tile_row(400, y, 4), [BACK_CLASS] * 4))
    assert is_legal_reading(reading)
    assert sorted(reading.tiles) == sorted(layout_tiles(layout)) and reading.melds == ()
    assert reading.roles[-4:] == ("loose",) * 4
    assert reading.problems == ("4 face-down tile(s) the hand does not need ignored",)


def short_row() -> Detections:
    """The hand's 13 tiles in a row (the winning 3s missing), each 60 px, centred at (640, 300)."""
    layout = hand_layout(HAND, WIN, size=60, center=(640, 300))
    return layout.detections.subset(np.array([role != "win" for role in layout.roles]))


# Centre distances from the row's nearest tile in tile sizes (about 52 px: the boxes are 45 x 60).
@pytest.mark.parametrize("face,below,role,legal", [
    # Five tile sizes in front of the row, a face that makes no hand: a tile of the heap, not the hand's.
    pytest.param(Tile.M9, 260, "loose", False, id="far-stray-left-out"),
    # Under three tile sizes: still further than a winning tile is laid (at most 1.8), so also a stray.
    pytest.param(Tile.M9, 150, "loose", False, id="stray-under-three-sizes-off-left-out"),
    # As far, but the one face that completes the hand: taken as the winning tile laid far off.
    pytest.param(Tile.S3, 260, "win", True, id="far-tile-that-makes-the-hand"),
    # A tile size and a half in front: where a winning tile is laid; it fills the short hand whatever its face.
    pytest.param(Tile.M9, 80, "win", False, id="near-tile-fills-the-hand"),
])
def test_short_hand_in_a_row_is_not_filled_from_far_off(face, below, role, legal):
    det = short_row()
    x0, y0, x1, y1 = det.xyxy[6]
    reading = group(with_tiles(det, [[x0, y0 + below, x1, y1 + below]], [face.index]))
    assert reading.roles[-1] == role
    assert is_legal_reading(reading) is legal
    left_out = role == "loose"
    assert any(p.startswith("13 tiles") for p in reading.problems) is left_out, reading.problems
    assert ("1 tile(s) lying away from the hand ignored" in reading.problems) is left_out


# A row of 11 (123m456m12s55p, the 789p and the winning 3s not in it) and lone tiles at (x, y) in
# front of or behind it, about five tile sizes off but `near` ones, a tile size and a half in front.
@pytest.mark.parametrize("tiles,joined", [
    # Three far tiles that would make the hand (a real photo: three of the heap's 6m, cut by the
    # frame and read one by one, made a 清一色): two far tiles or more are the heap's, never the hand's.
    pytest.param([("7p", 300, 560), ("8p", 700, 600), ("9p", 1000, 40)], 0, id="three-far-left-out"),
    # Near tiles fill the row; one far tile that completes the hand is the winning tile laid far off.
    pytest.param([("7p", 400, 380), ("8p", 560, 380), ("9p", 1000, 40)], 3, id="two-near-one-far-taken"),
    # Two far tiles and no near one: the same as three.
    pytest.param([("7p", 400, 380), ("8p", 300, 560), ("9p", 1000, 40)], 1, id="one-near-two-far-left-out"),
])
def test_at_most_one_tile_from_far_off_joins_a_short_hand(tiles, joined):
    layout = hand_layout("123m456m12s55p", "3s", size=60, center=(640, 300))
    boxes = [[x, y, x + 45, y + 60] for _, x, y in tiles]
    reading = group(with_tiles(layout.detections, boxes, [Tile(face).index for face, _, _ in tiles]))
    n = len(layout.detections)
    assert sum(r in ("concealed", "win") for r in reading.roles[n:]) == joined, reading.roles[n:]
    assert is_legal_reading(reading) is (joined == 3)
    assert reading.roles[n:].count("loose") == 3 - joined


def test_a_short_hand_row_is_filled_from_anywhere():
    # Three claimed pungs and two tiles standing (55p): a row that short says nothing of a table laid out
    # in rows, so lone tiles strewn far from it (6s 7s 8s) fill it, however many.
    layout = hand_layout("55p", None, ["pung 1m", "pung 2p", "pung 9s"], size=60, center=(640, 300))
    strewn = [("6s", 200, 620), ("7s", 900, 650), ("8s", 1100, 40)]
    boxes = [[x, y, x + 45, y + 60] for _, x, y in strewn]
    reading = group(with_tiles(layout.detections, boxes, [Tile(face).index for face, _, _ in strewn]))
    assert is_legal_reading(reading), reading.problems
    assert sorted(reading.tiles) == sorted(parse_tiles("55p678s"))
    assert reading.roles[-3:].count("loose") == 0


# A row of 11 (123m456m789p55p), the winning 3s apart beside it, and the 12s the hand lacks as a run of two
# in front of it, `below` px under the row (tile size about 52 px), read with confidence `conf`.
@pytest.mark.parametrize("below,conf,joined", [
    # Five tile sizes off and read with doubt (real photos: pairs of the heap, read at 0.26-0.53, made
    # hands of rows that lacked winds nobody boxed): the heap's, though the hand is then short.
    pytest.param(260, 0.45, False, id="far-doubtful-run-left-out"),
    # As far, one of its tiles read surely: the hand laid out in two parts.
    pytest.param(260, 0.9, True, id="far-run-read-surely-joins"),
    # Read with doubt but within reach of the hand (1.5 tile sizes in front): the hand's.
    pytest.param(80, 0.45, True, id="near-doubtful-run-joins"),
])
def test_a_run_of_the_heap_read_with_doubt_does_not_fill_a_short_hand(below, conf, joined):
    layout = hand_layout("123m456m789p55p", "3s", size=60, center=(640, 300))
    det = layout.detections
    x0, y0, x1, y1 = det.xyxy[3]
    run = [[x0 + k * 46, y0 + below, x0 + k * 46 + 45, y1 + below] for k in range(2)]
    both = with_tiles(det, run, [Tile("1s").index, Tile("2s").index])
    both.conf[len(det):] = [conf, conf - 0.05]
    reading = group(both)
    assert is_legal_reading(reading) is joined, reading.problems
    assert reading.roles[len(det):] == (("concealed",) * 2 if joined else ("loose",) * 2)


# A row of 12 (123m456m555p9s, the winning 9s apart), two tiles short, and a run of three read surely five tile
# sizes in front of it: too many to fill the hand, so taken in only as a tray's line when nothing reads a hand. A run
# that would give the hand a fifth 5p (a real photo turned a quarter: five of the wall's backs read as 白 beside a
# hand with two) is the heap's.
@pytest.mark.parametrize("faces,joined", [
    pytest.param("5p5p1s", False, id="a-fifth-copy-is-not-the-hands"),
    pytest.param("1s2s7s", True, id="no-fifth-copy-joins-as-a-trays-line"),
])
def test_a_far_run_that_would_give_a_face_a_fifth_time_stays_out(faces, joined):
    layout = hand_layout("123m456m555p9s", "9s", size=60, center=(640, 300))
    det = layout.detections
    x0, y0, x1, y1 = det.xyxy[3]
    run = [[x0 + k * 46, y0 + 260, x0 + k * 46 + 45, y1 + 260] for k in range(3)]
    reading = group(with_tiles(det, run, [t.index for t in parse_tiles(faces)]))
    assert reading.roles[len(det):] == (("concealed",) * 3 if joined else ("loose",) * 3), reading.problems
    assert not any("(only four of each tile exist)" in p for p in reading.problems)


def test_tile_off_the_line_of_a_full_row_stays_out_even_when_the_row_is_no_hand():
    # 14 tiles stand in the row (12s 9s: no winning hand, a face misread); a tile lies in front of
    # its middle, off its line. It is a stray: the 14 are handed on to the repair, not 15.
    layout = hand_layout(HAND, "9s", win_apart=False, size=60, center=(640, 300))
    x0, y0, x1, y1 = layout.detections.xyxy[6]
    reading = group(with_tiles(layout.detections, [[x0, y0 + 80, x1, y1 + 80]], [Tile.M9.index]))
    assert reading.roles[-1] == "loose" and len(reading.tiles) == 14
    assert "1 tile(s) lying away from the hand ignored" in reading.problems


def test_a_stray_of_the_winning_face_beside_seven_pairs_is_left_out():
    """Seven pairs (four 5p among them) turned 124°, the 中 that won set apart past the row's end, and another 中
    lying beside the row's middle, about three tile sizes off it (a tile's size: the square root of its box's
    area; measured by the width alone the stray falls outside the reach of the hand and the 5p become a kong)."""
    layout = hand_layout("112233m5555p77s中", "中", [], 4, angle=123.76, jitter=0.05, gap=0.516, sideways_at=1,
                         seed=1719)
    size = float(np.median(layout.detections.xyxy[:, 3] - layout.detections.xyxy[:, 1]))
    x, y, w = 812.0, 650.0, 0.75 * size
    reading = group(with_tiles(layout.detections, [[x - w / 2, y - size / 2, x + w / 2, y + size / 2]], [Tile.ZHONG.index]))
    assert sorted(reading.tiles) == sorted(parse_tiles("112233m5555p77s中中"))
    assert reading.win_tile is Tile.ZHONG and reading.win_set_apart and reading.melds == ()
    assert reading.roles[-1] == "loose" and reading.fa == 4
