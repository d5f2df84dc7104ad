"""tools/false_claims.py: a near-miss false claim read surely is priced, and counted against each bar."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

import numpy as np
import pytest

from tools.false_claims import HAND_FACES, claim_costs, main, table
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


def test_the_command_prices_claims_only_from_photos_read_as_a_hand(tmp_path, monkeypatch, capsys):
    from xingzi.vision import pipeline
    from xingzi.vision.photo import write_image

    hand = hand_layout("123m456m789p55p23s", "4s", size=70, center=(640, 480), probs=True).detections
    short = hand.subset(np.arange(len(hand)) != 0)  # a tile missing: no hand, nothing to price

    class Fake:
        def predict(self, image, ask_second=False):
            return hand if image[0, 0, 0] == 0 else short

    (tmp_path / "images").mkdir()
    write_image(tmp_path / "images" / "a.png", np.full((960, 1280, 3), 9, np.uint8))  # read one tile short
    write_image(tmp_path / "images" / "b.png", np.zeros((960, 1280, 3), np.uint8))  # read as the hand
    (tmp_path / "images" / "notes.txt").write_text("not a photo")
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake())
    out = tmp_path / "claims.json"
    assert main(["--data", str(tmp_path), "--json-out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["hands"] == 1 and 1 <= got["claims"] <= 3  # three tiles changed in turn, by default
    assert got["scored_as_win"]["shipped"] <= got["claims"] == len(got["costs"]) + got["no_legal_reading"]
    assert f"1 photos read as a legal hand; {got['claims']} false claims" in capsys.readouterr().out
    assert main(["--data", str(tmp_path), "--tiles", "14", "--json-out", str(out)]) == 0
    assert json.loads(out.read_text())["claims"] > 3
    assert main(["--data", str(tmp_path), "--photos", "1", "--json-out", str(out)]) == 0  # a.png only
    assert json.loads(out.read_text())["hands"] == 0
