"""Saying why a reading is not a hand, and offering the nearest legal readings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import parse_tiles
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.pipeline import Context, _nameable, analyse, apply_corrections, repaired_reading
from xingzi.vision.repair import ACCEPT_COST, ADD_COST, MAX_REGROUPS, Change, diagnose, explain, is_legal
from xingzi.vision.usermarks import kong_named


def misreads(layout, edits, p_shown=0.6):
    """The detector saw each (index, shown, second, p_second) as ``shown``, with ``second`` as its runner-up."""
    det = layout.detections
    cls, probs = det.cls.copy(), det.probs.copy()
    for index, shown, second, p_second in edits:
        probs[index] = 0.001
        probs[index, Tile.parse(shown).index] = p_shown
        probs[index, Tile.parse(second).index] = p_second
        cls[index] = Tile.parse(shown).index
    return group(replace(det, cls=cls, probs=probs))


def misread(layout, index: int, shown: str, second: str, p_shown=0.6, p_second=0.3):
    """The detector saw tile ``index`` as ``shown`` with ``second`` as its runner-up."""
    return misreads(layout, [(index, shown, second, p_second)], p_shown)


@pytest.mark.parametrize(
    "tiles,melds,legal",
    [
        pytest.param("123m456m789p12s55p3s", [], True, id="standard"),
        pytest.param("112233m5555p77s中中", [], True, id="seven-pairs-with-four"),
        pytest.param("123m456m55p123s", [Meld(MeldKind.PUNG, Tile.ZHONG)], True, id="with-pung"),
        pytest.param("123m456m789p12s55p4s", [], False, id="no-shape"),
        pytest.param("中中123m55p12s3s", [Meld(MeldKind.PUNG, Tile.ZHONG), Meld(MeldKind.PUNG, Tile.ZHONG)],
                     False, id="five-zhong"),
    ],
)
def test_is_legal(tiles, melds, legal):
    assert is_legal(parse_tiles(tiles), melds) is legal


def test_legal_reading_needs_no_repair():
    diagnosis = diagnose(group(hand_layout("123m456m789p12s55p", "3s").detections))
    assert diagnosis.legal and diagnosis.reasons == () and diagnosis.suggestions == ()


def test_second_choice_of_the_detector_is_offered_first():
    layout = hand_layout("123m456m789p12s55p", "3s", probs=True)
    reading = misread(layout, 10, shown="3s", second="2s")  # the 2s read as 3s
    diagnosis = diagnose(reading)
    assert not diagnosis.legal
    assert "does not split into sets and a pair" in diagnosis.reasons[0]
    best = diagnosis.suggestions[0]
    assert best.changes == (Change(10, Tile.S3, Tile.S2),)
    assert is_legal(best.tiles, best.melds)
    assert best.cost == pytest.approx(np.log(2.0), rel=1e-3)
    assert [s.cost for s in diagnosis.suggestions] == sorted(s.cost for s in diagnosis.suggestions)


def test_misread_meld_tile_is_repaired_by_regrouping():
    layout = hand_layout("123m456m55p12s", "3s", ["pung 中"], probs=True)
    reading = misread(layout, 11, shown="白", second="中")  # first tile of the pung
    assert reading.melds == ()
    best = diagnose(reading).suggestions[0]
    assert best.melds == (Meld(MeldKind.PUNG, Tile.ZHONG),)
    assert best.changes == (Change(11, Tile.BAI, Tile.ZHONG),)


def test_missing_tile_offers_what_completes_the_hand():
    reading = group(hand_layout("123m456m789p1s55p", "3s").detections)
    diagnosis = diagnose(reading)
    assert diagnosis.reasons[0].startswith("13 tiles")
    assert [s.changes for s in diagnosis.suggestions] == [(Change(None, None, Tile.S2),)]
    # priced like a second choice e² times less likely than the face read; the cost is printed beside it
    assert diagnosis.suggestions[0].cost == pytest.approx(2.0)


def test_a_missed_tile_may_be_the_fourth_copy_of_a_face_the_hand_shows():
    diagnosis = diagnose(group(hand_layout("111m23m456p789p5s", "5s").detections))
    assert diagnosis.reasons[0].startswith("13 tiles")
    assert {c.new for s in diagnosis.suggestions for c in s.changes} == {Tile.M1, Tile.M4, Tile.S5}


def test_extra_tile_offers_to_drop_it():
    reading = group(hand_layout("123m456m789p12s55p6s", "3s").detections)
    diagnosis = diagnose(reading)
    assert diagnosis.reasons[0].startswith("15 tiles")
    assert [c.old for s in diagnosis.suggestions for c in s.changes] == [Tile.S6]
    assert diagnosis.suggestions[0].text == "drop tile #13 (6s)"


@pytest.mark.parametrize(
    "change, text",
    [
        pytest.param(Change(13, Tile.S6, None, drop=True), "drop tile #13 (6s)", id="drop-a-face-names-it"),
        pytest.param(Change(3, None, None, drop=True), "drop tile #3 (face down)", id="drop-a-back-says-face-down"),
        pytest.param(Change(10, Tile.S3, Tile.S2), "read tile #10 3s as 2s", id="read-as-another-face"),
        pytest.param(Change(4, None, Tile.ZHONG), "read tile #4 face down as 中", id="read-a-back-as-a-face"),
        pytest.param(Change(None, None, Tile.S2), "add a missed 2s", id="add-a-missed-tile"),
        pytest.param(Change(None, None, None, beside=7), "add a missed face-down tile beside tile #7",
                     id="add-a-missed-back-beside"),
    ],
)
def test_each_change_says_what_it_does(change, text):
    assert str(change) == text


def test_five_of_a_tile_is_named_and_never_suggested():
    reading = group(hand_layout("33333p456m789p5s", "5s").detections)
    diagnosis = diagnose(reading)
    assert "five 3p (only four of each tile exist)" in diagnosis.reasons
    for s in diagnosis.suggestions:
        assert s.tiles.count(Tile.P3) <= 4


GUESSED = "winning tile not set apart: guessed the end tile of the row standing furthest from its neighbour"
THIRTEEN = "13 tiles (a winning hand has 14, plus one per kong: 14 here)"
NO_FACE = "a concealed kong shows no face: cannot tell which tile it is"


@pytest.mark.parametrize(
    "layout, problems, reasons",
    [
        pytest.param(lambda: hand_layout("123m456m789p12s55p", "3s", win_apart=False), (GUESSED,), (),
                     id="a-guessed-winning-tile-is-no-reason"),
        pytest.param(lambda: hand_layout("123m456m789p1s55p", "3s", win_apart=False), (GUESSED, THIRTEEN),
                     (THIRTEEN,), id="a-count-problem-named-once"),
        pytest.param(lambda: hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD"),
                     (NO_FACE,), (NO_FACE,), id="a-faceless-concealed-kong-is-a-reason-its-tiles-counted"),
    ],
)
def test_only_count_and_concealed_kong_problems_are_reasons(layout, problems, reasons):
    reading = group(layout().detections)
    assert reading.problems == problems
    assert explain(reading) == reasons
    diagnosis = diagnose(reading)
    assert diagnosis.legal is (reasons == ()) and diagnosis.reasons == reasons


def test_no_winning_tile_is_a_reason():
    reading = group(hand_layout("123m456m789p12s55p3s").detections)
    assert reading.win_tile is not None  # guessed; dropping it leaves no winning tile
    assert "no winning tile" in explain(replace(reading, win_tile=None))


def test_far_from_any_hand_gives_reasons_but_no_suggestions():
    xyxy = np.array([[40 + (i % 10) * 60, 40 + (i // 10) * 100, 85 + (i % 10) * 60, 100 + (i // 10) * 100]
                     for i in range(40)], np.float32)
    det = Detections(xyxy, np.arange(40, dtype=np.int64) % 27, np.full(40, 0.8, np.float32),
                     np.full((40, 31), 0.03, np.float32))
    diagnosis = diagnose(group(det))
    assert not diagnosis.legal and diagnosis.suggestions == ()
    assert any("tiles (a winning hand has 14" in r for r in diagnosis.reasons)


def misread_2s_as_3s():
    return misread(hand_layout("123m456m789p12s55p", "3s", probs=True), 10, shown="3s", second="2s")


@pytest.mark.parametrize(
    "edits, expected",
    [
        pytest.param(((10, Tile.S2.index),), True, id="swap-that-completes-the-hand"),
        pytest.param(((10, Tile.M9.index),), False, id="swap-that-leaves-no-hand"),
        pytest.param(((10, None),), False, id="drop-leaves-13-tiles"),
        pytest.param(((10, Tile.FA.index),), True, id="to-fa-needs-regrouping"),
        pytest.param(((0, Tile.M9.index), (10, Tile.S2.index)), False, id="pair-breaking-a-chow"),
    ],
)
def test_may_be_legal_rules_out_only_hopeless_standing_edits(edits, expected):
    from xingzi.vision.repair import may_be_legal

    assert may_be_legal(misread_2s_as_3s(), edits) is expected


def test_a_loose_tile_makes_every_edit_worth_regrouping():
    from xingzi.vision.repair import may_be_legal

    reading = misread_2s_as_3s()
    loose = replace(reading, roles=("loose",) + reading.roles[1:])  # grouping may place it elsewhere
    assert not may_be_legal(reading, ((10, Tile.M9.index),))
    assert may_be_legal(loose, ((10, Tile.M9.index),))


def test_meld_tile_edits_are_always_regrouped():
    from xingzi.vision.repair import may_be_legal

    layout = hand_layout("123m456m55p12s", "3s", ["pung 中"], probs=True)
    reading = group(layout.detections)
    meld_tile = reading.roles.index("pung")
    assert may_be_legal(reading, ((meld_tile, Tile.M1.index),))


@pytest.mark.parametrize(
    "max_regroups, best",
    [
        pytest.param(0, None, id="no-budget-no-suggestion"),
        pytest.param(1, (Change(10, Tile.S3, Tile.S2),), id="one-regroup-finds-the-cheapest"),
        pytest.param(MAX_REGROUPS, (Change(10, Tile.S3, Tile.S2),), id="default-budget"),
    ],
)
def test_regroups_stay_within_the_budget(monkeypatch, max_regroups, best):
    import xingzi.vision.repair as repair

    reading = misread_2s_as_3s()
    calls = []
    monkeypatch.setattr(repair, "group", lambda det, ignored=(): calls.append(1) or group(det, ignored))
    diagnosis = diagnose(reading, max_regroups=max_regroups)
    assert len(calls) <= max_regroups
    assert (diagnosis.suggestions[0].changes if diagnosis.suggestions else None) == best


def test_search_stops_once_legal_readings_are_found(monkeypatch):
    import xingzi.vision.repair as repair

    layout = hand_layout("123m456m789p12s55p", "3s", probs=True)
    det = layout.detections
    probs = det.probs.copy()
    probs[:] = 0.001
    for i in range(len(det)):  # every tile has five plausible second choices
        probs[i, det.cls[i]] = 0.5
        probs[i, (det.cls[i] + np.arange(1, 6)) % 27] = 0.09
    reading = misread(replace(layout, detections=replace(det, probs=probs)), 10, shown="3s", second="2s")
    calls = []
    monkeypatch.setattr(repair, "group", lambda d, ignored=(): calls.append(1) or group(d, ignored))
    diagnosis = diagnose(reading, max_regroups=100)
    assert diagnosis.suggestions[0].changes == (Change(10, Tile.S3, Tile.S2),)
    assert len(calls) < 10  # hopeless swaps of standing tiles are not regrouped


def test_negative_budget_is_refused():
    with pytest.raises(ValueError, match="max_regroups must be >= 0, got -1"):
        diagnose(misread_2s_as_3s(), max_regroups=-1)


def misread_twice(*edits):
    """123m456m789p12s55p + 3s with each (index, shown, second) read as ``shown``, ``second`` half as likely."""
    return misreads(hand_layout("123m456m789p12s55p", "3s", probs=True), [(*edit, 0.3) for edit in edits])


@pytest.mark.parametrize(
    "edits, best, others",
    [
        pytest.param([(10, "3s", "2s"), (1, "3m", "2m")], {Change(1, Tile.M3, Tile.M2), Change(10, Tile.S3, Tile.S2)},
                     0, id="two-chow-tiles-misread"),
        pytest.param([(10, "3s", "2s"), (12, "6p", "5p")], {Change(10, Tile.S3, Tile.S2), Change(12, Tile.P6, Tile.P5)},
                     0, id="the-pair-without-single-swaps-past-the-margin"),  # 2 while pairs waited for the singles
    ],
)
def test_two_misreads_at_once_are_offered_when_no_single_one_gives_a_hand(edits, best, others):
    diagnosis = diagnose(misread_twice(*edits))
    first = diagnosis.suggestions[0]
    assert set(first.changes) == best
    assert first.cost == pytest.approx(2 * np.log(2.0), rel=1e-3)  # each second choice half as likely
    assert sorted(first.tiles) == sorted(parse_tiles("123m456m789p12s55p3s")) and first.win_tile is Tile.S3
    assert len(diagnosis.suggestions) == 1 + others
    assert all(s.cost > first.cost for s in diagnosis.suggestions[1:])


@pytest.mark.parametrize(
    "unsure, best",
    [
        pytest.param(10, {Change(10, Tile.S4, Tile.S2)}, id="the-unsure-misread-tile-first"),
        pytest.param(9, {Change(9, Tile.S1, Tile.S2), Change(9, Tile.S1, Tile.S5)},
                     id="an-unsure-neighbour-first-both-ways"),
    ],
)
def test_one_misread_is_found_without_the_detectors_probabilities(unsure, best):
    # 2s read as 4s by a detector giving no per-class probabilities: any standing tile that the rest
    # waits on may be the misread one, a less confident tile cheaper to change (1 + confidence).
    det = hand_layout("123m456m789p12s55p", "3s").detections
    cls, conf = det.cls.copy(), np.full(len(det), 0.9, np.float32)
    cls[10], conf[unsure] = Tile.S4.index, 0.5
    reading = group(replace(det, cls=cls, conf=conf))
    assert reading.detections.probs is None and "does not split" in explain(reading)[0]
    diagnosis = diagnose(reading)
    costs = [s.cost for s in diagnosis.suggestions]
    assert costs == sorted(costs)
    assert all(len(s.changes) == 1 for s in diagnosis.suggestions)
    assert {s.changes[0] for s in diagnosis.suggestions[:len(best)]} == best
    assert costs[:len(best)] == pytest.approx([1.5] * len(best)) and costs[len(best)] == pytest.approx(1.9)
    assert {Change(10, Tile.S4, Tile.S2)} <= {c for s in diagnosis.suggestions for c in s.changes}


@pytest.mark.parametrize("hand,melds,reason", [
    pytest.param("123m456m789p12s55p", [], "123456m55789p124s does not split into sets and a pair (nor seven pairs)",
                 id="no-melds-seven-pairs-named"),
    pytest.param("123m456m12s55p", ["pung 中"], "123456m55p124s does not split into sets and a pair",
                 id="with-a-meld-no-seven-pairs"),
])
def test_a_hand_of_the_right_count_and_no_shape_says_so(hand, melds, reason):
    assert explain(group(hand_layout(hand, "4s", melds).detections)) == (reason,)


def test_a_missed_tile_beside_a_claimed_meld_is_offered_and_the_winning_tile_kept():
    reading = group(hand_layout("123m456m1s55p", "3s", ["pung 中"]).detections)  # 2s missed
    assert reading.win_tile is Tile.S3 and len(reading.melds) == 1
    suggestions = diagnose(reading).suggestions
    assert [s.changes for s in suggestions] == [(Change(None, None, Tile.S2),)]
    assert suggestions[0].win_tile is Tile.S3 and suggestions[0].melds == reading.melds


def test_the_budget_counts_every_regrouping_even_of_meld_tiles(monkeypatch):
    import xingzi.vision.repair as repair

    layout = hand_layout("123m456m55p12s", "4s", ["pung 中"], probs=True)  # 12s waits on 3s: 4s misread
    det = layout.detections
    probs = det.probs.copy()
    for i in range(len(det)):  # every tile has three plausible second choices: meld tiles are always regrouped
        probs[i] = 0.001
        probs[i, det.cls[i]] = 0.5
        probs[i, (det.cls[i] + np.arange(1, 4)) % 27] = 0.1
    reading = group(replace(det, probs=probs))
    calls = []
    monkeypatch.setattr(repair, "group", lambda d, ignored=(): calls.append(1) or group(d, ignored))
    for budget in (2, 3):
        calls.clear()
        diagnose(reading, max_regroups=budget)
        assert len(calls) == budget


def test_a_hand_of_four_kongs_one_tile_short_is_offered_the_tile():
    # 17 of 18 tiles: near a hand once each kong's extra tile is counted.
    reading = group(hand_layout("5p", None, ["kong 中", "kong 9p", "kong 1s", "kong 4m"]).detections)
    assert reading.tile_count == 17
    assert [s.changes for s in diagnose(reading).suggestions] == [(Change(None, None, Tile.P5),)]


def test_a_misread_beside_a_claimed_meld_is_found_without_the_detectors_probabilities():
    det = hand_layout("123m456m12s55p", "3s", ["pung 中"]).detections
    two = [i for i, c in enumerate(det.cls) if int(c) == Tile.S2.index][0]
    cls = det.cls.copy()
    cls[two] = Tile.S4.index
    reading = group(replace(det, cls=cls))
    assert reading.detections.probs is None and reading.melds == (Meld(MeldKind.PUNG, Tile.ZHONG),)
    assert diagnose(reading).suggestions[0].changes == (Change(two, Tile.S4, Tile.S2),)


def test_pairs_of_misreads_are_not_tried_once_a_single_one_gives_a_hand(monkeypatch):
    import xingzi.vision.repair as repair

    tried = []
    real = repair._regroup
    monkeypatch.setattr(repair, "_regroup", lambda r, edits, cost: tried.append(edits) or real(r, edits, cost))
    diagnosis = diagnose(misread_2s_as_3s())
    assert diagnosis.suggestions[0].changes == (Change(10, Tile.S3, Tile.S2),)
    assert tried and all(len(edits) == 1 for edits in tried)
    assert len(tried) == len(set(tried))  # no edit regrouped twice


def test_a_second_misread_is_offered_only_after_a_likelier_single_one_that_gives_a_hand():
    det = hand_layout("123m456m789p12s55p", "3s", probs=True).detections
    cls, probs = det.cls.copy(), det.probs.copy()
    probs[10] = 0.001
    probs[10, Tile.S3.index], probs[10, Tile.S2.index] = 0.6, 0.3  # the 2s read as 3s
    cls[10] = Tile.S3.index
    probs[0, Tile.M4.index] = 0.2  # the 1m might be a 4m: 234m 456m with the 2s is a hand too
    diagnosis = diagnose(group(replace(det, cls=cls, probs=probs)))
    pair = (Change(10, Tile.S3, Tile.S2), Change(0, Tile.M1, Tile.M4))
    assert [s.changes for s in diagnosis.suggestions] == [(Change(10, Tile.S3, Tile.S2),), pair]
    assert diagnosis.suggestions[1].cost == pytest.approx(np.log(2.0) + np.log(probs[0, Tile.M1.index] / 0.2), rel=1e-3)


def test_a_misread_face_of_a_concealed_kong_is_offered_though_the_count_is_two_short():
    """A concealed kong shown 中 ▮▮ 中 with one 中 read as 7p is no kong: the reading counts 12 tiles, two short
    of a hand with a kong, and reading that face again makes the hand whole."""
    layout = hand_layout("1235567m", "5m", ["pung 1p", "concealed_kong 中"], 4, probs=True)
    reading = misread(layout, 11, shown="7p", second="中", p_second=0.275)
    assert reading.tile_count == 12 and Meld(MeldKind.CONCEALED_KONG, Tile.ZHONG) not in reading.melds
    best = diagnose(reading).suggestions[0]
    assert [(c.detection, c.new) for c in best.changes] == [(11, Tile.ZHONG)]
    assert Meld(MeldKind.CONCEALED_KONG, Tile.ZHONG) in best.melds


@pytest.mark.parametrize("limit", [1, 2, 5])
def test_more_legal_readings_than_the_limit_are_cut_to_the_cheapest(limit):
    """Seven pairs 3p-9p with 3p read as 2p and 9p as 9s, each truth 1/12 as likely: many single edits make some
    hand within COST_MARGIN of the pair, more than the limit; the search stops at the limit, the true faces first."""
    reading = misreads(hand_layout("3345566778899p", "4p", probs=True), [(0, "2p", "3p", 0.05), (11, "9s", "9p", 0.05)])
    suggestions = diagnose(reading, limit=limit).suggestions
    assert len(suggestions) == limit
    assert [(c.detection, c.new) for c in suggestions[0].changes] == [(0, Tile.P3), (11, Tile.P9)]
    assert [s.cost for s in suggestions] == sorted(s.cost for s in suggestions)


SHAPE = (960, 1280, 3)


def _without(det: Detections, i: int) -> Detections:
    return det.subset(np.arange(len(det)) != i)


@pytest.mark.parametrize("shown", ["FDDF", "DFFD", "FDDD", "DDDF"])
@pytest.mark.parametrize("layout", [dict(), dict(angle=180.0), dict(angle=25.0, perspective=0.3), dict(melds_row=1)],
                         ids=["row", "upside-down", "turned-slanted", "second-row"])
def test_a_concealed_kong_that_lost_a_face_down_tile_is_read_with_it_added(shown, layout):
    """One face-down tile of a concealed kong not found (hidden behind its neighbour, or one box over two alike): the
    kong falls apart, its other face-down tiles lie uncounted. With the photo's size known the repair adds one beside
    them, likelier than any face missed, and the hand reads as laid; without it, the repair cannot place one."""
    full = group(hand_layout("123m456m5p789s", "5p", melds=("concealed_kong 9p",), kong_shown=shown, size=70,
                             **layout).detections)
    backs = [i for i, r in enumerate(full.roles) if r == "concealed_kong" and full.detections.cls[i] == BACK_CLASS]
    for lost in backs:
        broken = group(_without(full.detections, lost))
        assert "concealed_kong" not in broken.roles and explain(broken)
        best = diagnose(broken, shape=SHAPE).suggestions[0]
        assert best.changes == (Change(None, None, None, beside=best.changes[0].beside),), (lost, best.text)
        assert broken.roles[best.changes[0].beside] == "loose" and best.cost < ADD_COST
        assert (best.tiles, best.win_tile, best.melds) == (full.tiles, full.win_tile, full.melds), lost
        assert not any(c.detection is None and c.new is None for s in diagnose(broken).suggestions for c in s.changes)


@pytest.mark.parametrize("layout", [dict(), dict(angle=180.0), dict(angle=25.0, perspective=0.3), dict(melds_row=1)],
                         ids=["row", "upside-down", "turned-slanted", "second-row"])
def test_a_kong_shown_all_face_down_that_lost_a_tile_is_scored_with_it_added(layout):
    """A kong shown all face down with one of its four not found: three backs lie uncounted and the hand is a set
    short. A fourth is added beside them and the kong's face guessed as for one found whole (the same total)."""
    full = hand_layout("123m456m5p789s", "5p", melds=("concealed_kong 9p",), kong_shown="DDDD", size=70, **layout)
    whole = analyse(np.zeros(SHAPE, np.uint8), full.detections)
    backs = [i for i, r in enumerate(whole.reading.roles) if r == "concealed_kong"]
    for lost in backs:
        det = _without(full.detections, lost)
        broken = group(det)
        assert "concealed_kong" not in broken.roles and explain(broken)
        best = diagnose(broken, shape=SHAPE).suggestions[0]
        assert best.changes == (Change(None, None, None, beside=best.changes[0].beside),), (lost, best.text)
        assert broken.roles[best.changes[0].beside] == "loose" and best.hidden_kongs == 1
        mended = analyse(np.zeros(SHAPE, np.uint8), det)
        assert mended.repair == best and mended.result["valid"], mended.error
        assert mended.result["own"] == whole.result["own"] and mended.situation["melds"] == whole.situation["melds"]
        # Its face is a guess: every face is offered, pointing at a face-down tile of the photo to name.
        assert [c.own for c in mended.kong_choices] == [c.own for c in whole.kong_choices]
        assert all(c.index < len(det) and det.cls[c.index] == BACK_CLASS for c in mended.kong_choices)
        # Naming works at some tiles only (the repair adds the lost tile again where it finds room): whichever tile
        # the choices would point at first, they end up at one that names the kong.
        scored = repaired_reading(mended.reading, mended.repair)
        seen = [i for i, r in enumerate(scored.roles) if r == "concealed_kong" and i < len(det)]
        for start in seen:
            offered = _nameable(SHAPE, det, Context(), scored, tuple(replace(c, index=start) for c in mended.kong_choices))
            pick = next(c for c in offered if c.tile is Tile.ZHONG)  # as the page's button names it
            named = kong_named(det, {pick.index: Tile.ZHONG.index})
            chosen = analyse(np.zeros(SHAPE, np.uint8), apply_corrections(det, named), fixed=list(named))
            assert chosen.result["own"] == pick.own and "concealed_kong 中" in chosen.situation["melds"], (lost, start)


@pytest.mark.parametrize("strays", [
    pytest.param([[20, 20, 72, 90]], id="one-back-in-a-corner"),
    pytest.param([[20, 20, 72, 90], [74, 20, 126, 90]], id="two-backs-in-a-corner"),
    pytest.param([[1200, 860, 1252, 930]], id="one-back-in-the-far-corner"),
])
def test_a_kong_that_lost_a_face_down_tile_is_mended_though_other_face_down_tiles_are_looked_at_first(strays):
    """Face-down tiles lying apart (another player's, the wall's), found before the kong's in the detector's order:
    their run is looked beside first and reads no hand, and the kong's own run is still looked beside (BACK_RUNS
    runs, not one), so the lost tile is added there and the hand reads as laid."""
    full = group(hand_layout("123m456m5p789s", "5p", melds=("concealed_kong 9p",), kong_shown="FDDF",
                             size=70).detections)
    lost = next(i for i, r in enumerate(full.roles) if r == "concealed_kong" and full.detections.cls[i] == BACK_CLASS)
    det = _without(full.detections, lost)
    n = len(strays)
    det = Detections(np.vstack([strays, det.xyxy]).astype(np.float32), np.append([BACK_CLASS] * n, det.cls),
                     np.append(np.full(n, 0.9, np.float32), det.conf))
    broken = group(det)
    assert broken.roles[:n] == ("loose",) * n and "concealed_kong" not in broken.roles
    best = diagnose(broken, shape=SHAPE).suggestions[0]
    assert best.changes == (Change(None, None, None, beside=best.changes[0].beside),) and best.changes[0].beside >= n
    assert (best.tiles, best.win_tile, best.melds) == (full.tiles, full.win_tile, full.melds)


def _short_hand_beside(backs: list[list[int]]):
    """A hand one face short (its first tile not found), and face-down tiles lying apart at ``backs``."""
    det = _without(hand_layout("123m456m789p12s55p", "3s", size=70).detections, 0)
    n = len(backs)
    return group(Detections(np.vstack([det.xyxy, backs]).astype(np.float32), np.append(det.cls, [BACK_CLASS] * n),
                            np.append(det.conf, np.full(n, 0.9, np.float32))))


@pytest.mark.parametrize("n", [1, 3], ids=["one-back", "three-backs"])
def test_face_down_tiles_lying_apart_are_not_made_a_kong_of_a_hand_short_of_a_face(n):
    """A hand a face short, and one or three face-down tiles lying together on the table (the wall's, another
    player's): no face-down tile added beside them makes a hand (a kong of four would leave the hand a face short
    still), so the faces that complete the hand are offered, as without them."""
    reading = _short_hand_beside([[20 + 54 * k, 20, 72 + 54 * k, 90] for k in range(n)])
    assert reading.roles[-n:] == ("loose",) * n
    offered = diagnose(reading, shape=SHAPE).suggestions
    assert offered and all(c.new is not None for s in offered for c in s.changes)
    assert all(s.hidden_kongs == 0 for s in offered)
    assert [s.text for s in offered] == [s.text for s in diagnose(reading).suggestions]


def test_a_wall_of_face_down_tiles_is_not_looked_beside(monkeypatch):
    """Six face-down tiles lying together (the wall) beside a hand a face short: no kong lost one of them, so no
    place beside them is grouped (each costs a dozen groupings of the photo)."""
    import xingzi.vision.repair as repair

    reading = _short_hand_beside([[100 + 52 * k, 20, 150 + 52 * k, 90] for k in range(6)])
    assert reading.roles[-6:] == ("loose",) * 6
    monkeypatch.setattr(repair, "place_beside", lambda *a, **k: pytest.fail("looked beside the wall"))
    assert [s.text for s in diagnose(reading, shape=SHAPE).suggestions] == [s.text for s in diagnose(reading).suggestions]


def test_a_missed_face_down_tile_says_in_json_which_tile_it_lies_beside():
    """The page and API clients place the tile by ``beside``: a change with no index, no face, no drop."""
    from xingzi.vision.pipeline import suggestion_json

    full = group(hand_layout("123m456m5p789s", "5p", melds=("concealed_kong 9p",), size=70).detections)
    lost = next(i for i, r in enumerate(full.roles) if r == "concealed_kong" and full.detections.cls[i] == BACK_CLASS)
    broken = group(_without(full.detections, lost))
    best = diagnose(broken, shape=SHAPE).suggestions[0]
    beside = best.changes[0].beside
    assert beside is not None and broken.roles[beside] == "loose" and broken.detections.cls[beside] == BACK_CLASS
    assert suggestion_json(best)["changes"] == [{"index": None, "old": None, "new": None, "drop": False,
                                                  "beside": beside}]


@pytest.mark.parametrize("hand,win,melds,index,shown,second", [
    # 888s中中 beside a 3p kong, a 6m pung and a kong all face down: an 8s read as 9s (synth_s71_000013)
    pytest.param("88s中中", "8s", ["kong 3p", "concealed_kong 白", "pung 6m"], 0, "9s", "8s", id="pung-tile-misread"),
    pytest.param("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], 1, "3m", "2m", id="run-tile-misread"),
    # two kongs all face down: the eight tiles count as two sets (the hand is no further off for them)
    pytest.param("123m5p", "5p", ["concealed_kong 中", "concealed_kong 9s", "pung 9p"], 1, "3m", "2m",
                 id="beside-two-kongs-all-face-down"),
])
def test_a_misread_beside_a_kong_all_face_down_is_repaired_and_the_kong_still_offered(hand, win, melds, index, shown,
                                                                                     second):
    """The kong's four tiles count (they were left out: the hand looked three tiles short, nothing was offered, and
    the score said '2 meld(s) … got 5'); the repaired hand is scored with the kong's face guessed and offered."""
    layout = hand_layout(hand, win, melds, kong_shown="DDDD", probs=True)
    reading = misread(layout, index, shown=shown, second=second)
    diagnosis = diagnose(reading, shape=(960, 1280, 3))
    best = diagnosis.suggestions[0]
    assert best.changes == (Change(index, Tile.parse(shown), Tile.parse(second)),)
    assert best.hidden_kongs == sum(m.startswith("concealed_kong") for m in melds)  # each shown all face down
    res = analyse(np.full((960, 1280, 3), 60, np.uint8), reading.detections)
    assert res.repair == best and res.result is not None and res.result["valid"]
    assert res.kong_choices and any(c.chosen for c in res.kong_choices)
    as_read = analyse(np.full((960, 1280, 3), 60, np.uint8), reading.detections, as_read=True)
    assert as_read.result is None and as_read.error.startswith("a concealed kong shows no face, and no face under it")


@pytest.mark.parametrize("win", ["1m", "4m", "5p", "3s"])
def test_the_winning_tile_marked_is_kept_when_a_repair_groups_the_tiles_again(win):
    """A misread repaired by grouping afresh guessed the winning tile again: the one the user marked (a "which won"
    choice tapped on the page, --win) was dropped and the total stayed the guessed one's."""
    layout = hand_layout("123m456m789p12s55p", "3s", probs=True, win_apart=False)
    reading = misread(layout, 4, shown="8m", second="5m")  # the 5m read as 8m: no hand until it is read again
    img = np.full((960, 1280, 3), 60, np.uint8)
    first = analyse(img, reading.detections)
    assert first.repair is not None and first.repair.reading is not None  # repaired by grouping again
    at = next(i for i, c in enumerate(reading.detections.cls) if Tile.from_index(int(c)) is Tile.parse(win)
              and reading.roles[i] in ("concealed", "win"))
    marked = analyse(img, reading.detections, win_index=at)
    assert marked.repair == first.repair and marked.situation["win_tile"] == win
    assert marked.result["own"] == next(c.own for c in first.win_choices if c.tile is Tile.parse(win))


def test_the_photos_note_of_a_repair_is_said_in_chinese_by_the_faces_changed():
    """The annotated photo says what the repair changed in Chinese, as its tiles' labels are (it said
    "改读 scored as the likeliest legal hand: read tile #10 3s as 2s" in Chinese mode too)."""
    from xingzi.vision.pipeline import repair_note_zh
    from xingzi.vision.repair import Suggestion

    reading = misread(hand_layout("123m456m789p12s55p", "3s", probs=True), 10, shown="3s", second="2s")
    best = diagnose(reading).suggestions[0]
    assert repair_note_zh(best) == "改读：三条→二条"
    changes = (Change(3, Tile.S3, None, drop=True), Change(None, None, Tile.ZHONG), Change(5, None, Tile.BAI))
    assert repair_note_zh(Suggestion(changes, (), None, (), 0, 1.0)) == "改读：去掉 三条，补上 红中，背面→白板"


@pytest.mark.parametrize("conf, dropped", [pytest.param(0.3, True, id="faint-box-dropped"),
                                           # over FAINT_CONF, though the faintest box of the photo: kept
                                           pytest.param(0.45, False, id="faintest-box-over-the-bar-kept"),
                                           pytest.param(0.9, False, id="sure-box-kept")])
def test_a_faint_box_beside_the_hand_is_dropped_though_the_count_is_two_over(conf, dropped):
    """A glint read faintly as 白 at the row's end: with it the four 8s stand as no kong (16 tiles, two over);
    without it they are the kong the count needs. Only a faint box is worth dropping so (FAINT_CONF)."""
    det = hand_layout("123m456p8888s99s中中", "中").detections
    det = replace(det, xyxy=np.vstack([det.xyxy, [[1010, 450, 1055, 510]]]).astype(np.float32),
                  cls=np.append(det.cls, Tile.BAI.index), conf=np.append(det.conf, conf).astype(np.float32))
    reading = group(det)
    assert reading.melds == () and len(reading.tiles) == 16
    suggestions = diagnose(reading).suggestions
    assert [s.text for s in suggestions] == (["drop tile #15 (白)"] if dropped else [])
    if dropped:
        assert suggestions[0].melds == (Meld(MeldKind.KONG, Tile.S8),) and suggestions[0].cost < ACCEPT_COST
