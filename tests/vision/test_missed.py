"""A missed tile named only by its face and a tile of its group (the page's "+", ``--add 3m@5``) is placed where the
reading comes out as if the detector had found it: every tile of laid-out hands left out in turn and added back."""

from __future__ import annotations

import numpy as np
import pytest

from tools.missed_check import mates as group_mates
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import HandReading, group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.missed import add_missed, place_beside

SHAPE = (960, 1280, 3)
GROUPED = ("concealed", "pung", "kong", "concealed_kong", "fa")


def _key(r: HandReading) -> tuple:
    """What scoring takes from a reading: the standing tiles, the winning tile, the melds, the 发."""
    return sorted(t.value for t in r.tiles), r.win_tile, sorted(str(m) for m in r.melds), r.fa


def _without(det: Detections, i: int) -> Detections:
    return det.subset(np.arange(len(det)) != i)


LAYOUTS = [
    pytest.param(dict(hand="123m456m789p12s55p", win="3s"), id="row-win-apart"),
    pytest.param(dict(hand="123m456m789p12s55p", win="3s", angle=25.0), id="row-turned"),
    pytest.param(dict(hand="123m456m789p12s55p", win="3s", angle=90.0), id="row-upright"),
    pytest.param(dict(hand="123m456m789p12s55p", win="3s", perspective=0.3), id="row-perspective"),
    pytest.param(dict(hand="11m456p789s", win="1m", melds=("pung 5s",), fa=2), id="pung-and-fa"),
    pytest.param(dict(hand="11m456p789s", win="1m", melds=("kong 9m",), melds_row=1), id="kong-second-row"),
    pytest.param(dict(hand="22m345p678s", win="2m", melds=("pung 中",), angle=-15.0), id="dragon-pung-turned"),
]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_tile_left_out_and_added_beside_its_group_reads_the_hand_again(layout):
    det = hand_layout(**layout, size=70, center=(640.0, 480.0)).detections
    full = group(det)
    tried = 0
    for i, role in enumerate(full.roles):
        if role not in GROUPED or int(det.cls[i]) == BACK_CLASS:  # (a face-down tile is no face to name)
            continue
        mates = group_mates(full, i)
        if not mates:
            continue
        less = _without(det, i)
        beside = mates[0] - (mates[0] > i)
        box = place_beside(less, beside, int(det.cls[i]), SHAPE)
        back, placed = add_missed(less, [(int(det.cls[i]), beside)], SHAPE)
        assert placed == [(int(det.cls[i]), box)]
        assert _key(group(back)) == _key(full), (i, role, box, det.xyxy[i])
        tried += 1
    assert tried >= 10


def test_a_tile_missed_inside_the_row_goes_in_the_gap_it_left():
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    less = _without(det, 4)  # the 5m: a gap in the middle of the row
    x0, y0, x1, y1 = place_beside(less, 0, Tile.M5.index, SHAPE)
    true = det.xyxy[4]
    assert abs((x0 + x1) / 2 - (true[0] + true[2]) / 2) < 0.2 * (true[2] - true[0])
    assert abs((y0 + y1) / 2 - (true[1] + true[3]) / 2) < 0.2 * (true[3] - true[1])


def test_places_follow_one_another_and_a_box_given_is_kept_as_given():
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    less = det.subset(~np.isin(np.arange(len(det)), [4, 5]))  # the 5m and 6m both missed
    box = tuple(float(v) for v in det.xyxy[5])
    out, placed = add_missed(less, [(Tile.M5.index, 0), (Tile.M6.index, box)], SHAPE)
    assert placed[1] == (Tile.M6.index, box) and len(out) == len(less) + 2
    assert _key(group(out)) == _key(group(det))


@pytest.mark.parametrize("added, message", [
    pytest.param([(Tile.M5.index, 99)], "added tile 0: tile to add beside #99: there are", id="no-such-tile"),
    pytest.param([(31, 0)], "added tile 0: class must be an integer 0..30, got 31", id="no-such-face"),
    pytest.param([(True, 0)], "added tile 0: class must be an integer 0..30, got True", id="a-flag-for-a-face"),
    pytest.param([(Tile.M5.index, 0)] * 21, "at most 20 tiles can be added to a photo, got 21", id="too-many"),
    pytest.param([(Tile.M5.index, [1, 2, 3])], "added tile 0: expected a box", id="a-box-of-three"),
])
def test_bad_additions_are_refused_saying_which_and_why(added, message):
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        add_missed(det, added, SHAPE)


def test_a_tile_the_hand_does_not_count_has_no_group_to_add_beside():
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    stray = Detections(np.vstack([det.xyxy, [[20, 20, 70, 90]]]).astype(np.float32),
                       np.append(det.cls, Tile.M9.index), np.append(det.conf, np.float32(0.9)))
    reading = group(stray)
    assert reading.roles[-1] not in GROUPED + ("win",)
    with pytest.raises(ValueError, match=f"tile #{len(det)} is read as {reading.roles[-1]}: a missed tile is added "):
        place_beside(stray, len(det), Tile.M5.index, SHAPE)


@pytest.mark.parametrize("shown", ["FDDF", "DFFD"])
@pytest.mark.parametrize("layout", [dict(), dict(angle=20.0), dict(melds_row=1)], ids=["row", "turned", "second-row"])
def test_a_concealed_kong_that_lost_a_face_is_mended_beside_its_face_down_tiles(shown, layout):
    """Without one of its faces a concealed kong reads as no kong: its face-down tiles lie uncounted and its other
    face joins the row. A "+" beside either face-down tile puts the face back where the kong reads again."""
    _each_lost_face_mended(hand_layout("11m456p789s22p", "1m", melds=("concealed_kong 9m",), kong_shown=shown,
                                       size=70, **layout).detections)


def _each_lost_face_mended(det: Detections) -> None:
    """Each face of the hand's one concealed kong (of 9m) left out in turn: the kong no longer reads, its two
    face-down tiles lie uncounted, and a 9m added beside either reads the hand as before."""
    full = group(det)
    faces = [i for i, r in enumerate(full.roles) if r == "concealed_kong" and det.cls[i] != BACK_CLASS]
    assert not full.problems and len(faces) == 2
    for i in faces:
        less = _without(det, i)
        broken = group(less)
        face_down = [j for j, r in enumerate(broken.roles) if r == "loose" and less.cls[j] == BACK_CLASS]
        assert len(face_down) == 2 and "concealed_kong" not in broken.roles  # (what the "+" is for)
        for j in face_down:
            back, _ = add_missed(less, [(Tile.M9.index, j)], SHAPE)
            assert _key(group(back)) == _key(full), (i, j)


@pytest.mark.parametrize("hand", [dict(hand="123m456m789p12s55p", win="3s"),
                                  dict(hand="11m456p789s22p", win="1m", melds=("concealed_kong 9m",))],
                         ids=["a-hand", "beside-a-kong-that-lost-a-face"])
def test_a_face_down_tile_lying_alone_away_from_the_hand_takes_no_tile_beside_it(hand):
    """A "+" after the tiles not counted adds beside face-down tiles; one alone on the table (the wall, another
    player's) has no place where a face added beside it counts in the hand, nor reaches a kong's face-down tiles
    across the table: refused, nothing added."""
    det = hand_layout(**hand, size=70).detections
    if hand.get("melds"):
        det = _without(det, next(i for i, r in enumerate(group(det).roles) if r == "concealed_kong"))
    stray = Detections(np.vstack([det.xyxy, [[20, 20, 72, 90]]]).astype(np.float32), np.append(det.cls, BACK_CLASS),
                       np.append(det.conf, np.float32(0.9)))
    assert group(stray).roles[-1] == "loose"
    with pytest.raises(ValueError, match=f"added tile 0: no place beside tile #{len(det)}'s group reads the 9m"):
        add_missed(stray, [(Tile.M9.index, len(det))], SHAPE)


@pytest.mark.parametrize("shown", ["FDDF", "DFFD"])
@pytest.mark.parametrize("melds", [("concealed_kong 9m", "pung 5s"), ("pung 5s", "concealed_kong 9m")],
                         ids=["pung-after", "pung-before"])
@pytest.mark.parametrize("layout", [dict(), dict(perspective=0.3)], ids=["row", "perspective"])
def test_a_kong_that_lost_a_face_beside_another_meld_is_mended(shown, melds, layout):
    """The kong's few tiles, one a hole apart from the next, give no usual step from tile to tile (the pung laid
    beside it is further on): the step beside face-down tiles is the shortest, a tile's width."""
    _each_lost_face_mended(hand_layout("11m456p22p", "1m", melds=melds, kong_shown=shown, size=70,
                                       **layout).detections)


@pytest.mark.parametrize("layout", [dict(), dict(angle=-20.0), dict(gap=0.4), dict(sideways_at=1)],
                         ids=["row", "turned", "narrow-gaps", "turned-tile-second"])
def test_a_pung_that_lost_a_tile_into_the_row_is_mended_from_the_row(layout):
    """Two tiles left of a claimed pung read in the row; the missed tile added to the row (the group it shows in)
    goes where the pung reads again: in the hole it left, or beside the two rather than into the row."""
    det = hand_layout("1m456p789s", "1m", melds=("pung 5s", "pung 中"), size=70, **layout).detections
    full = group(det)
    assert not full.problems and len(full.melds) == 2
    for i in [i for i, r in enumerate(full.roles) if r == "pung"]:
        less = _without(det, i)
        assert len(group(less).melds) == 1  # (the pung it left reads as two tiles of the row)
        back, _ = add_missed(less, [(int(det.cls[i]), 0)], SHAPE)
        assert _key(group(back)) == _key(full), (layout, i)


def test_on_hands_dealt_and_laid_out_at_random_nearly_every_tile_comes_back():
    """Hands as `xingzi synth` deals them, at random turns, perspectives, gaps and meld places (the layouts bench's);
    a tile at its true box comes back in every one of these, so the shortfall is the place found (a concealed kong's
    face among them, added beside the kong's face-down tiles, which lie uncounted without it)."""
    from collections import Counter

    from tools.missed_check import check_photo
    from xingzi.vision.bench_layouts import random_layout

    rng = np.random.default_rng(5)
    tally: Counter = Counter()
    for k in range(15):
        check_photo(random_layout(rng, k)[1].detections, SHAPE, tally, [])
    assert tally["right at its true box"] == tally["tried"] > 180
    assert tally["right"] >= 0.94 * tally["tried"], dict(tally)
    assert 2 * tally["right concealed_kong"] >= tally["tried concealed_kong"] > 0, dict(tally)


@pytest.mark.parametrize(("seed", "k"), [
    pytest.param(6, 0, id="seed-6-first"),
    pytest.param(6, 12, id="seed-6-13th"),
    pytest.param(6, 22, id="seed-6-23rd"),
    pytest.param(7, 9, id="seed-7-10th"),
])
def test_a_tile_whose_face_lies_on_both_sides_of_a_gap_goes_in_the_gap(seed, k):
    """Hands dealt and laid out at random (the layouts bench's) where every tile left out comes back, the places
    that read alike ranked with a gap between two tiles of the face added (a hole it left, ``_places``) before a
    gap beside other faces: taken the other way round, a tile of each of these goes to the wrong place."""
    from collections import Counter

    from tools.missed_check import check_photo
    from xingzi.vision.bench_layouts import random_layout

    rng = np.random.default_rng(seed)
    layout = [random_layout(rng, n)[1] for n in range(k + 1)][k]
    tally: Counter = Counter()
    check_photo(layout.detections, SHAPE, tally, [])
    assert tally["right"] == tally["tried"] > 12, dict(tally)


@pytest.mark.parametrize(("a", "b", "apart"), [
    pytest.param("1m", "1m", 0, id="same-face"),
    pytest.param("1m", "3m", 2, id="ranks-apart"),
    pytest.param("9m", "1p", 10, id="next-suit"),
    pytest.param("1p", "9p", 8, id="ends-of-a-suit"),
    pytest.param("9s", "1s", 8, id="ends-of-the-last-suit"),
    pytest.param("8s", "9s", 1, id="the-last-suit-tile-beside-its-neighbour"),
    pytest.param("9s", "zhong", 10, id="last-suit-tile-and-first-honour"),
    pytest.param("zhong", "bai", 10, id="honours"),
    pytest.param("zhong", "fa", 10, id="honours-next-to-each-other"),
    pytest.param("1s", "9p", 10, id="other-suit"),
])
def test_faces_lie_near_in_a_sorted_hand_by_rank_within_a_suit(a, b, apart):
    from xingzi.vision.missed import _face_distance

    # either way round: a face missed lies as near a tile of its group as that tile to it
    assert (_face_distance(Tile(a).index, Tile(b).index), _face_distance(Tile(b).index, Tile(a).index)) == (apart, apart)


def test_where_no_place_reads_without_a_problem_one_that_reads_a_winning_hand_is_taken():
    """A hand dealt and laid out at random (the layouts bench's, seed 6, the 22nd): two of its tiles have no place that
    reads cleanly; the place whose reading is a legal hand is the right one, not a cleaner-looking illegal one."""
    from collections import Counter

    from tools.missed_check import check_photo
    from xingzi.vision.bench_layouts import random_layout

    rng = np.random.default_rng(6)
    layouts = [random_layout(rng, k)[1] for k in range(22)]
    tally: Counter = Counter()
    check_photo(layouts[21].detections, SHAPE, tally, [])
    assert tally["tried"] == tally["right"] == 13


@pytest.mark.parametrize("box, placed", [
    pytest.param((10.26, 20.26, 60.54, 90.26), (10.3, 20.3, 60.5, 90.3), id="inside-to-a-tenth-of-a-pixel"),
    pytest.param((-15, 20, 35, 90), (0, 20, 50, 90), id="off-the-left-moved-in"),
    pytest.param((1250, 20, 1300, 90), (1230, 20, 1280, 90), id="off-the-right-moved-in"),
    pytest.param((10, -30, 60, 40), (10, 0, 60, 70), id="off-the-top-moved-in"),
    pytest.param((10, 930, 60, 1000), (10, 890, 60, 960), id="off-the-bottom-moved-in"),
    pytest.param((-10, -10, 1300, 20), (0, 0, 1280, 30), id="wider-than-the-photo-cut-to-it"),
])
def test_a_place_past_the_photos_edge_is_moved_inside_not_shrunk(box, placed):
    from xingzi.vision.missed import _clipped

    assert _clipped(np.array(box, np.float64), 1280, 960) == placed


FULL = dict(hand="123m456s5p", win="5p", melds=("kong 9p", "concealed_kong 中"), fa=4)  # tiles 8-11, 12-15, 16-19


@pytest.mark.parametrize(("face", "beside", "message"), [
    pytest.param("9p", 8, "tile #8's group holds 4 tiles already", id="beside-a-kong"),
    pytest.param("zhong", 13, "tile #13's group holds 4 tiles already", id="beside-a-concealed-kongs-back"),
    pytest.param("fa", 16, "tile #16's group holds 4 tiles already", id="beside-four-fa"),
])
def test_nothing_is_added_beside_a_group_that_is_whole(face, beside, message):
    det = hand_layout(**FULL, size=70).detections
    with pytest.raises(ValueError, match=f"added tile 0: {message}"):
        add_missed(det, [(Tile(face).index, beside)], SHAPE)


def test_a_tile_added_is_counted_in_the_hand_never_left_lying_loose():
    """A 1m "beside" the 发 (no place in their group takes it): placed where it counts in the hand; where no place
    counts it, refused (not added and silently left out)."""
    from xingzi.vision.missed import GROUPED
    from xingzi.vision.usermarks import add_tiles

    det = hand_layout("123m456s5p", "5p", melds=("kong 9p",), fa=2, size=70).detections  # 发 #12, #13
    assert group(det).roles[12] == "fa"
    box = place_beside(det, 12, Tile.M1.index, SHAPE)
    again = group(add_tiles(det, [(Tile.M1.index, box)], SHAPE))
    assert again.roles[-1] in GROUPED and sum(r in GROUPED for r in again.roles) == len(det) + 1


def test_a_tile_is_placed_as_the_user_sees_the_hand_its_faces_corrected_and_its_strays_aside():
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    misread = det.subset(np.arange(len(det)) != 4)  # the 5m missed ...
    cls = misread.cls.copy()
    cls[0] = Tile.M9.index  # ... and the 1m read as a 9m
    misread = Detections(misread.xyxy, cls, misread.conf)
    seen = Detections(misread.xyxy, det.subset(np.arange(len(det)) != 4).cls, misread.conf)  # the 1m named
    out, placed = add_missed(misread, [(Tile.M5.index, 1)], SHAPE, seen=seen)
    assert int(out.cls[0]) == Tile.M9.index  # (the faces are set by the corrections after, not here)
    centre = (np.array(placed[0][1][:2]) + placed[0][1][2:]) / 2
    true = (det.xyxy[4, :2] + det.xyxy[4, 2:]) / 2
    assert np.abs(centre - true).max() < 10  # in the gap the 5m left, judged on the hand as corrected


@pytest.mark.parametrize(("n_beside", "n_found", "refused"), [
    pytest.param(4, 14, False, id="four-on-a-hand"),
    pytest.param(5, 14, True, id="five-at-once"),
    pytest.param(1, 61, True, id="one-on-a-photo-of-61-tiles"),
])
def test_what_one_request_may_have_placed_is_bounded(n_beside, n_found, refused):
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    extra = n_found - len(det)
    if extra > 0:  # tiles lying about the table, far from the hand
        xy = np.array([[20 + 30 * (k % 40), 20 + 40 * (k // 40), 45 + 30 * (k % 40), 55 + 40 * (k // 40)]
                       for k in range(extra)], np.float32)
        det = Detections(np.vstack([det.xyxy, xy]), np.append(det.cls, np.full(extra, Tile.M9.index)),
                         np.append(det.conf, np.ones(extra, np.float32)))
    added = [(Tile.M5.index, 0)] * n_beside
    if refused:
        with pytest.raises(ValueError, match="at most 4 tiles can be placed beside a group at once, on a photo of "
                                             "at most 60 tiles found"):
            add_missed(det, added, SHAPE)
    else:
        assert len(add_missed(det, added, SHAPE)[0]) == len(det) + n_beside
