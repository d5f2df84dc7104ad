"""What the photo does not show, guessed for scoring: faces of concealed kongs shown all face down."""

from __future__ import annotations

import pytest

from xingzi.engine.melds import MeldKind
from xingzi.engine.notation import parse_meld, parse_tiles
from xingzi.engine.tiles import Tile
from xingzi.vision import unseen
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.pipeline import Context, score_reading


@pytest.mark.parametrize("hand,win,melds", [
    pytest.param("123m5p", "5p", ["concealed_kong 4s", "concealed_kong 7m", "pung 9p"], id="two-down-and-a-pung"),
    pytest.param("5p", "5p", ["concealed_kong 4s", "concealed_kong 7m", "concealed_kong 中", "pung 9p"],
                 id="three-down"),
])
@pytest.mark.parametrize("angle", [0, 60])
def test_several_all_face_down_kongs_get_distinct_unseen_faces(hand, win, melds, angle):
    layout = hand_layout(hand, win, melds, kong_shown="DDDD", angle=angle)
    reading = group(layout.detections)
    hidden = sum(1 for m in melds if m.startswith("concealed_kong"))
    assert unseen.faceless_kongs(reading) == hidden
    situation, result, error = score_reading(reading, Context())
    assert error is None and result["valid"]
    guessed = [parse_meld(m) for m in situation["melds"] if parse_meld(m).kind is MeldKind.CONCEALED_KONG]
    faces = [m.tile for m in guessed]
    assert len(faces) == hidden == len(set(faces))
    in_view = set(parse_tiles(hand + win)) | {parse_meld(m).tile for m in melds if m.startswith("pung")}
    assert not set(faces) & in_view and Tile.FA not in faces


@pytest.mark.parametrize("still,added", [
    pytest.param(2, True, id="two-more-to-come-fill-the-hand"),
    pytest.param(1, False, id="one-more-leaves-a-set-missing"),
    pytest.param(0, False, id="none-more-leaves-two-sets-missing"),
])
def test_trial_faces_fill_the_kongs_still_to_be_guessed(still, added):
    # 5p 5p and a pung stand; three kongs lie all face down. Guessing the first face, the other
    # ``still`` kongs hold other unseen faces, so a trial is a complete hand only with both.
    reading = group(hand_layout("5p", "5p", ["pung 9p"]).detections)
    situation = {**reading.situation(), **Context().situation_part()}
    guessed = unseen.guess_kong_face(situation, reading, still=still)
    if added:
        assert guessed["melds"][:-1] == situation["melds"]
        kong = parse_meld(guessed["melds"][-1])
        assert kong.kind is MeldKind.CONCEALED_KONG and kong.tile not in (Tile.P5, Tile.P9, Tile.FA)
    else:
        assert guessed == situation  # no trial was a winning hand: nothing guessed
