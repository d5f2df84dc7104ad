"""tools/missed_check.py: what it counts right and wrong (its figures are in the README)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tools.missed_check import check_photo, main, same_hand
from xingzi.engine.tiles import Tile
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout

SHAPE = (960, 1280, 3)


def test_every_tile_of_a_plain_hand_comes_back_and_one_alone_in_its_group_is_counted_apart():
    det = hand_layout("11m456p789s", "1m", melds=("pung 5s",), fa=1, size=70).detections
    tally: Counter = Counter()
    check_photo(det, SHAPE, tally, [])
    assert tally["tiles"] == 8 + 3 + 1  # the row, the pung, the 发 (the winning tile apart is not left out)
    assert tally["alone in its group"] == 1  # the one 发: nothing to add it beside
    assert tally["right"] == tally["right at its true box"] == 11
    assert tally["tried pung"] == tally["right pung"] == 3


@pytest.mark.parametrize("change, right", [
    pytest.param({}, True, id="the-same"),
    pytest.param({"win_tile": Tile.M2}, False, id="another-winning-tile-though-shown-apart"),
    pytest.param({"win_set_apart": False}, False, id="the-winning-tile-no-longer-apart"),
    pytest.param({"fa": 2}, False, id="a-fa-too-many"),
])
def test_a_reading_is_right_when_it_keeps_what_scoring_takes(change, right):
    truth = group(hand_layout("123m456m789p12s55p", "3s", size=70).detections)
    assert truth.win_set_apart
    assert same_hand(replace(truth, **change), truth) is right


def test_the_winning_tile_guessed_in_the_truth_may_be_guessed_otherwise():
    truth = group(hand_layout("123m456m789p12s55p", "3s", size=70, win_apart=False).detections)
    assert not truth.win_set_apart
    other = replace(truth, win_tile=Tile.M1)
    assert same_hand(other, truth)


def test_a_folder_that_is_no_synth_output_is_refused(tmp_path):
    with pytest.raises(SystemExit, match="meta has no .json files"):
        main(["--data", str(tmp_path)])
