"""tools/false_claims.py: a near-miss false claim read surely is priced, and counted against each bar."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from tools.false_claims import HAND_FACES, claim_costs, table
from xingzi.engine.tiles import Tile
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout


class Chosen(random.Random):
    """Picks the given tile and the given face, as a seeded generator would pick some."""

    def __init__(self, tile: int, face: Tile) -> None:
        super().__init__(0)
        self.tile, self.face = tile, face

    def sample(self, population, k, **kwargs):  # type: ignore[override]
        assert self.tile in population
        return [self.tile]

    def choice(self, seq):  # type: ignore[override]
        assert self.face.index in seq
        return self.face.index


def legal_hand(hand: str = "123m456m789p55p23s", win: str = "4s"):
    det = hand_layout(hand, win, size=70, probs=True).detections
    reading = group(det)
    assert reading.win_tile is Tile.parse(win) and len(reading.tiles) == 14
    return det, reading


def test_a_pair_tile_given_another_face_read_as_surely_is_a_claim_the_shipped_bar_does_not_mend():
    det, reading = legal_hand()
    pair = next(i for i in range(len(det)) if int(det.cls[i]) == Tile.P5.index)
    costs = claim_costs(det, reading, Chosen(pair, Tile.M9))  # 55p → 59: no hand
    assert len(costs) == 1
    # every tile is read at about 0.9 against 0.001 for any other face: the cheapest mend costs log(0.9 / 0.001)
    assert math.log(100) < costs[0] < math.log(1000)
    assert table(costs) == {"1/20": 0, "1/100": 0, "1/1000": 1, "1/10000": 1, "shipped": 0, "any": 1}


def test_a_change_that_still_makes_a_hand_is_no_false_claim():
    det, reading = legal_hand()
    win = reading.roles.index("win")
    assert claim_costs(det, reading, Chosen(win, Tile.S1)) == []  # 23s + 1s: still a run


def test_a_shown_face_already_four_times_is_never_the_new_face():
    det, reading = legal_hand("1111m234m456p789p", "4m")  # 111m 123m 44m 456p 789p
    rng = random.Random(3)
    seen = []

    class Watch(random.Random):
        def sample(self, population, k, **kwargs):  # type: ignore[override]
            return rng.sample(population, k)

        def choice(self, seq):  # type: ignore[override]
            seen.append(list(seq))
            return seq[0]

    claim_costs(det, reading, Watch(), tiles=14)
    assert seen and all(Tile.M1.index not in s and Tile.FA.index not in s for s in seen)
    assert all(set(s) <= set(HAND_FACES) for s in seen)


def test_scores_are_needed():
    det, reading = legal_hand()
    with pytest.raises(ValueError, match="per-face scores"):
        claim_costs(replace(det, probs=None), reading, random.Random(0))


def test_the_table_counts_each_bar_and_a_claim_with_nothing_to_offer_under_none():
    costs = [1.0, 4.0, 6.0, 8.0, math.inf]
    assert table(costs) == {"1/20": 1, "1/100": 2, "1/1000": 3, "1/10000": 4, "shipped": 2, "any": 4}
