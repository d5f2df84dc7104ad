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
    # a tile inside a line goes back on its place; one from an end may go to the other end, the same hand read
    assert tally["on its tile"] == 8 and tally["tried"] == 11


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


def test_labelled_photos_of_a_hand_are_checked_and_others_left_out(tmp_path, capsys):
    from yolo_folder import write_yolo_folder

    from xingzi.engine.tiles import CLASS_NAMES

    w, h = 1280, 960
    det = hand_layout("123m456m789p12s55p", "3s", size=70).detections
    rows = [(int(c), (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h)
            for c, (x0, y0, x1, y1) in zip(det.cls, det.xyxy, strict=True)]
    write_yolo_folder(tmp_path / "set", list(CLASS_NAMES), {"hand": rows, "few": rows[:5]}, size=(w, h))
    assert main(["--data", str(tmp_path / "set")]) == 0
    out = capsys.readouterr().out
    assert "13 tiles of a group" in out  # the hand's photo alone (5 tiles are no hand); its winning tile is apart
    assert "right: 13 (100.0 %)" in out and "whose truth reads a winning hand" not in out


@pytest.mark.parametrize("make, message", [
    pytest.param(lambda d: (d / "meta").mkdir(), "meta has no .json files", id="a-synth-folder-without-hands"),
    pytest.param(lambda d: None, "no data.yaml or classes.txt", id="neither-synth-nor-labelled"),
])
def test_a_folder_it_cannot_read_is_refused_saying_why(tmp_path, make, message):
    make(tmp_path)
    with pytest.raises(SystemExit, match=message):
        main(["--data", str(tmp_path)])


def test_hands_laid_out_at_random_are_checked_as_the_layouts_bench_lays_them(capsys):
    assert main(["--random-layouts", "3", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 random layouts (seed 5): ") and "right: " in out


def test_nothing_to_check_is_refused():
    with pytest.raises(SystemExit, match="give --data DIR or --random-layouts N"):
        main([])
