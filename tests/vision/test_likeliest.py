"""A reading that is no legal hand is scored as its likeliest legal hand, and says what it changed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from xingzi.cli import main
from xingzi.engine.tiles import Tile
from xingzi.vision import pipeline
from xingzi.vision.detections import Detections
from xingzi.vision.draw import MARK_COLOR
from xingzi.vision.layouts import hand_layout
from xingzi.vision.photo import write_image
from xingzi.vision.pipeline import Context, analyse
from xingzi.vision.repair import Change

W, H = 1280, 960
IMAGE = np.full((H, W, 3), (40, 120, 50), np.uint8)


def misread(index: int = 10, shown: str = "3s", second: str = "2s", p_shown: float = 0.6,
            p_second: float = 0.3) -> Detections:
    """123m456m789p12s55p + 3s (3 炮 on a discard) with tile ``index`` read as ``shown``."""
    det = hand_layout("123m456m789p12s55p", "3s", size=70, center=(W / 2, H / 2), probs=True).detections
    cls, probs = det.cls.copy(), det.probs.copy()
    probs[index] = 0.001
    probs[index, Tile.parse(shown).index] = p_shown
    probs[index, Tile.parse(second).index] = p_second
    cls[index] = Tile.parse(shown).index
    return replace(det, cls=cls, probs=probs)


def marked_pixels(bgr: np.ndarray) -> int:
    return int((bgr[..., ::-1] == np.array(MARK_COLOR, np.uint8)).all(axis=-1).sum())


def test_a_misread_tile_is_scored_as_the_detectors_second_choice():
    res = analyse(IMAGE, misread(), Context())
    assert not res.diagnosis.legal
    assert res.repair is not None and res.repair.changes == (Change(10, Tile.S3, Tile.S2),)
    assert res.result["valid"] is True and res.result["own"] == 3
    assert res.situation["hand"] == "123456m55789p123s"
    assert "3s" in res.reading.notation and res.reading.tiles.count(Tile.S3) == 2  # the reading stays as read
    out = res.to_json()
    assert out["reading"]["repaired"]["text"] == "read tile #10 3s as 2s"
    assert out["reading"]["repaired"]["note"] == "改读 scored as the likeliest legal hand: read tile #10 3s as 2s"
    assert marked_pixels(res.annotated) > 0  # the changed tile is drawn in its own colour


@pytest.mark.parametrize(("kind", "own"), [
    pytest.param("kong", 5, id="claimed-kong"),  # 平胡 1 + 明杠中 3 + 单张 1: was scored as a pung of 中 (3)
    pytest.param("pung", 3, id="claimed-pung"),
])
def test_a_misread_tile_of_a_claimed_dragon_meld_is_read_back_into_it(kind, own):
    layout = hand_layout("123m456m55p12s", "3s", [f"{kind} 中"], size=70, center=(W / 2, H / 2), probs=True)
    det = layout.detections
    i = layout.roles.index(kind)
    cls, probs = det.cls.copy(), det.probs.copy()
    probs[i] = 0.001
    probs[i, Tile.BAI.index], probs[i, Tile.ZHONG.index] = 0.6, 0.3
    cls[i] = Tile.BAI.index
    res = analyse(IMAGE, replace(det, cls=cls, probs=probs), Context())
    assert res.repair is not None and res.repair.changes == (Change(i, Tile.BAI, Tile.ZHONG),)
    assert res.situation["melds"] == [f"{kind} 中"]
    assert res.result["valid"] and res.result["own"] == own


def test_as_read_scores_exactly_what_was_read():
    res = analyse(IMAGE, misread(), Context(), as_read=True)
    assert res.repair is None and res.result["valid"] is False
    assert "repaired" not in res.to_json()["reading"]
    assert marked_pixels(res.annotated) == 0


@pytest.mark.parametrize(
    ("p_shown", "p_second", "repaired"),
    [pytest.param(0.6, 0.3, True, id="half_as_likely"),
     pytest.param(0.6, 0.035, True, id="1_in_17"),
     pytest.param(0.9, 0.03, True, id="1_in_30"),  # over session 62's bar of 1/20: scored since session 63
     pytest.param(0.6, 0.6 / 99, True, id="1_in_99"),  # the bar: at least 1/100 as likely (docs/pipeline.md)
     pytest.param(0.6, 0.6 / 101, False, id="1_in_101_just_too_unlikely"),
     pytest.param(0.9, 0.002, False, id="1_in_450_too_unlikely")],
)
def test_only_a_likely_enough_reading_is_scored(p_shown, p_second, repaired):
    res = analyse(IMAGE, misread(p_shown=p_shown, p_second=p_second), Context())
    assert (res.repair is not None) is repaired
    assert res.diagnosis.suggestions  # offered either way
    assert res.result["valid"] is repaired


def test_a_tile_the_user_set_is_never_changed_back():
    res = analyse(IMAGE, misread(), Context(), fixed=[10])
    assert res.repair is None or all(c.detection != 10 for c in res.repair.changes)


def test_a_missed_tile_is_added():
    det = hand_layout("123m456m789p1s55p", "3s", size=70, center=(W / 2, H / 2)).detections  # 2s missed
    res = analyse(IMAGE, det, Context(self_draw=True))
    assert res.repair is not None and res.repair.changes == (Change(None, None, Tile.S2),)
    assert res.result["valid"] is True and res.result["own"] == 4
    assert len(res.reading.tiles) == 13 and res.to_json()["reading"]["repaired"]["text"] == "add a missed 2s"


def test_a_legal_reading_is_left_alone():
    res = analyse(IMAGE, misread(shown="2s", second="3s"), Context())
    assert res.diagnosis.legal and res.repair is None and res.result["own"] == 3


def test_score_command_says_what_it_changed(tmp_path, monkeypatch, capsys):
    photo = tmp_path / "hand.png"
    write_image(photo, IMAGE)

    class Fake:
        def predict(self, image):
            return misread()

    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake())
    assert main(["score", str(photo)]) == 0
    text = capsys.readouterr().out
    assert "scored as the likeliest legal reading: read tile #10 3s as 2s (--as-read scores the tiles as read)" in text
    assert "hand      123456m55789p12s + 3s" in text and "own       3 炮" in text
    assert main(["score", str(photo), "--as-read"]) == 0
    text = capsys.readouterr().out
    assert "scored as" not in text and "hand      123456m55789p13s + 3s" in text and "诈胡 false win" in text


def _suggestion(cost: float, detection: int):
    from xingzi.vision.repair import Suggestion

    return Suggestion((Change(detection, Tile.S3, Tile.S2),), (), Tile.S2, (), 0, cost)


@pytest.mark.parametrize("max_cost,fixed,picked", [
    pytest.param(1.0, frozenset(), 0, id="the-cheapest-at-exactly-the-bar"),
    pytest.param(0.99, frozenset(), None, id="the-cheapest-over-the-bar-nothing"),
    pytest.param(2.0, frozenset({3}), 1, id="a-user-set-tile-skipped-the-next-taken"),
    pytest.param(1.5, frozenset({3}), None, id="the-next-over-the-bar"),
])
def test_likeliest_takes_the_cheapest_within_the_bar_that_leaves_the_users_faces(max_cost, fixed, picked):
    from xingzi.vision.repair import Diagnosis, likeliest

    suggestions = (_suggestion(1.0, 3), _suggestion(2.0, 5))
    got = likeliest(Diagnosis(False, ("why",), suggestions), fixed, max_cost)
    assert got is (None if picked is None else suggestions[picked])
