"""Two misreads at once: found when both second choices are likely, ranked by the sum of their prices."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from xingzi.engine.notation import parse_tiles
from xingzi.engine.tiles import Tile
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.repair import Change, diagnose

HAND, WIN = "123m456m789p12s55p", "3s"  # boxes 0-12 in this order, the winning 3s is box 13


def reading(misread, doubts=()):
    """HAND + WIN with each (box, shown, truth, p_truth) of ``misread`` read as ``shown`` (p 0.6), the truth its
    second choice, and each (box, face, p) of ``doubts`` read right (p 0.9) with ``face`` as its second choice."""
    det = hand_layout(HAND, WIN, probs=True).detections
    cls, probs = det.cls.copy(), det.probs.copy()
    for box, shown, truth, p_truth in misread:
        probs[box] = 0.001
        probs[box, Tile.parse(shown).index], probs[box, Tile.parse(truth).index] = 0.6, p_truth
        cls[box] = Tile.parse(shown).index
    for box, face, p in doubts:
        probs[box] = 0.001
        probs[box, cls[box]], probs[box, Tile.parse(face).index] = 0.9, p
    return group(replace(det, cls=cls, probs=probs))


THE_2M_AS_3M_AND_THE_1M_AS_2M = [(0, "2m", "1m", 0.3), (1, "3m", "2m", 0.3)]  # read 233m: 234m is one edit away
THE_PAIR = {Change(0, Tile.M2, Tile.M1), Change(1, Tile.M3, Tile.M2)}
THE_SINGLE = {Change(2, Tile.M3, Tile.M4)}
# eight doubtful boxes (the pairs' pool was eight singles until session 71), each likelier wrong than the second misread: none of them gives a hand
EIGHT_DOUBTS = [(box, "白", 0.3) for box in (2, 3, 4, 5, 6, 7, 8, 9)]


@pytest.mark.parametrize(
    "misread, doubts, expected",
    [
        pytest.param(THE_2M_AS_3M_AND_THE_1M_AS_2M, [(2, "4m", 0.15)], [(THE_PAIR, 2 * math.log(2)),
                                                                       (THE_SINGLE, math.log(6))],
                     id="a-pair-likelier-than-a-legal-single-comes-first"),
        pytest.param(THE_2M_AS_3M_AND_THE_1M_AS_2M, [(2, "4m", 0.45)], [(THE_SINGLE, math.log(2)),
                                                                       (THE_PAIR, 2 * math.log(2))],
                     id="a-legal-single-likelier-than-the-pair-stays-first"),
        pytest.param([(10, "3s", "2s", 0.3), (12, "6p", "5p", 0.1)], EIGHT_DOUBTS,
                     [({Change(10, Tile.S3, Tile.S2), Change(12, Tile.P6, Tile.P5)}, math.log(2) + math.log(6))],
                     id="the-second-misread-behind-more-doubts-than-the-old-pool"),
    ],
)
def test_two_misreads_are_found_and_ranked_by_the_sum_of_their_prices(misread, doubts, expected):
    diagnosis = diagnose(reading(misread, doubts))
    assert not diagnosis.legal
    got = [(set(s.changes), s.cost) for s in diagnosis.suggestions[: len(expected)]]
    assert [changes for changes, _ in got] == [changes for changes, _ in expected]
    assert [cost for _, cost in got] == pytest.approx([cost for _, cost in expected], rel=1e-3)
    assert [s.cost for s in diagnosis.suggestions] == sorted(s.cost for s in diagnosis.suggestions)


def test_the_true_pair_is_the_whole_hand_as_dealt():
    best = diagnose(reading(THE_2M_AS_3M_AND_THE_1M_AS_2M, [(2, "4m", 0.15)])).suggestions[0]
    assert sorted(best.tiles) == sorted(parse_tiles(HAND + WIN)) and best.win_tile is Tile.S3


@pytest.mark.parametrize(
    "misread, doubts, most",
    [
        pytest.param(THE_2M_AS_3M_AND_THE_1M_AS_2M, [(2, "4m", 0.15)], 3, id="a-pair-and-a-single"),
        pytest.param([(10, "3s", "2s", 0.3), (12, "6p", "5p", 0.1)], EIGHT_DOUBTS, 2, id="many-pairs-few-hands"),
    ],
)
def test_pairs_are_regrouped_only_where_the_tiles_can_make_a_hand(monkeypatch, misread, doubts, most):
    import xingzi.vision.repair as repair

    r = reading(misread, doubts)
    calls = []
    monkeypatch.setattr(repair, "group", lambda det, ignored=(): calls.append(1) or group(det, ignored))
    assert diagnose(r).suggestions
    assert len(calls) <= most  # of dozens of pairs, the tile counts rule out all but these


@pytest.mark.parametrize(
    "hand, edits, expected",
    [
        pytest.param(HAND, ((6, Tile.P5.index), (7, Tile.P5.index)), False, id="four-alike-no-hand-even-as-a-kong"),
        pytest.param("1112m456m789p12s55p", ((3, Tile.M1.index),), True, id="four-alike-a-hand-as-a-kong"),
        pytest.param("1112m456m789p12s55p", ((3, Tile.M3.index),), False, id="fifteen-standing-no-four-alike"),
    ],
)
def test_four_alike_standing_are_grouped_again_only_where_a_kong_of_them_makes_a_hand(hand, edits, expected):
    from xingzi.vision.repair import may_be_legal

    r = group(hand_layout(hand, WIN, probs=True).detections)
    assert "loose" not in r.roles and not r.melds
    assert may_be_legal(r, edits) is expected
