"""Malformed situations raise a ValueError that names the problem."""

from __future__ import annotations

import pytest

from xingzi.engine import check_context, score_round, score_situation

EX1 = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}


@pytest.mark.parametrize(
    "situation, message",
    [
        pytest.param({**EX1, "hand": "12m456m789p22345s3m4m"}, "14 tiles .* got 15", id="15-tiles"),
        pytest.param({"hand": "11111m456m789p222s", "win_tile": "1m"}, "5 copies of 1m", id="fifth-copy"),
        pytest.param({"hand": "111m456m789p22s", "win_tile": "1m", "melds": ["kong 1m"]}, "copies of 1m",
                     id="fifth-copy-with-meld"),
        pytest.param({**EX1, "hand": "12m456m789p2234s发3m"}, "发 is a bonus tile", id="fa-in-hand"),
        pytest.param({**EX1, "hand": "12m456m789p22345x3m"}, "unexpected 'x'", id="unknown-code"),
        pytest.param({**EX1, "hand": "12m456m789p22345s3m", "win_tile": "8z"}, "only 5z", id="unknown-honor"),
        pytest.param({**EX1, "melds": ["pung 55p"]}, "3 copies of one tile", id="meld-wrong-size"),
        pytest.param({**EX1, "melds": ["triple 5p"]}, "not one of pung", id="meld-unknown-kind"),
        pytest.param({**EX1, "win_tile": "9s"}, "not among the hand", id="win-not-in-hand"),
        pytest.param({"hand": "12m456m789p22345s3m"}, "winning tile missing", id="no-win-tile"),
        pytest.param({"win_tile": "3m"}, "no \"hand\"", id="no-hand"),
        pytest.param([1, 2], "JSON object", id="not-an-object"),
        pytest.param({**EX1, "fa": 5}, r"must be 0\.\.4, got 5", id="five-fa"),
        pytest.param({**EX1, "fa": True}, "'fa' must be a whole number, got True", id="fa-a-switch"),
        pytest.param({**EX1, "self_draw": "yes"}, "true or false", id="self-draw-not-bool"),
        pytest.param({**EX1, "events": ["dragon_dance"]}, "unknown event", id="unknown-event"),
        pytest.param({**EX1, "events": ["kong_bloom"]}, "self_draw true", id="bloom-on-discard"),
        pytest.param({**EX1, "self_draw": True, "events": ["kong_bloom"]}, "kong just made", id="bloom-without-kong"),
        pytest.param({**EX1, "self_draw": True, "events": ["robbing_kong"]}, "wins on a discard", id="robbing-self-draw"),
        pytest.param({**EX1, "payers": [{}, {}]}, "1 payer", id="two-discarders"),
        pytest.param({**EX1, "payers": 0}, "\"payers\" must be a list of objects", id="payers-zero"),
        pytest.param({**EX1, "payers": {}}, "\"payers\" must be a list of objects", id="payers-an-object"),
        pytest.param({**EX1, "events": ""}, "\"events\" must be a list of names, got ''", id="events-empty-text"),
        pytest.param({**EX1, "rules": []}, "\"rules\" must be an object", id="rules-a-list"),
        pytest.param({**EX1, "rules": False}, "\"rules\" must be an object", id="rules-false"),
        pytest.param({**EX1, "ruleset": 0}, "\"ruleset\" must be a preset name or a ruleset file, got 0", id="ruleset-zero"),
        pytest.param({**EX1, "dealer": True, "payers": [{"dealer": True}]}, "only one player is the dealer",
                     id="two-dealers"),
        pytest.param({**EX1, "fa": 3, "payers": [{"fa": 2}]}, "four 发", id="too-many-fa"),
        pytest.param({**EX1, "payers": [{"melds": ["kong 3m", "pung 3m"]}]}, "copies of 3m", id="payer-copies"),
        pytest.param({"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "payers": [{"melds": ["pung 9p"]}]},
                     "6 copies of 9p", id="winner-and-payer-melds-copies"),
        pytest.param({**EX1, "payers": [{"fa": "1"}]}, "'fa' must be a whole number, got '1'", id="payer-fa-text"),
    ],
)
def test_malformed_situation(situation, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_situation(situation)


def test_a_false_claim_is_a_result_not_an_error() -> None:
    result = score_situation({"hand": "123m456m789p1234s9s", "win_tile": "9s", "self_draw": True})
    assert result["valid"] is False and "not a winning hand" in result["reason"]
    assert [(p["payee"], p["amount"]) for p in result["payments"]] == [(0, 20), (1, 20), (2, 20)]


@pytest.mark.parametrize(
    "events, payers, message",
    [
        pytest.param("kong_bloom", [], "\"events\" must be a list of names", id="events-text"),
        pytest.param([], {"fa": 1}, "\"payers\" must be a list of objects", id="payers-an-object"),
    ],
)
def test_malformed_context_before_the_tiles_are_known(events, payers, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_context(events, payers)


@pytest.mark.parametrize(
    "round_, message",
    [
        pytest.param({"dealer": 0, "discarder": True, "wins": [{"seat": 2, **EX1}]}, "\"discarder\" must be a seat",
                     id="discarder-true"),
        pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **EX1, "payers": {"fa": 1}}]},
                     "\"payers\" must be a list of objects", id="win-payers-an-object"),
        pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **EX1, "payers": [{}, {}]}]},
                     r"a discard win has 1 payer \(the discarder\), got 2", id="two-payers-of-a-discard"),
        pytest.param({"dealer": 0, "discarder": None, "wins": [{"seat": 2, **EX1, "self_draw": True,
                                                                 "payers": [{}, {}, {}, {}]}]},
                     "a self-drawn win has 3 payers, got 4", id="four-payers-of-a-self-draw"),
    ],
)
def test_malformed_round(round_, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_round(round_)


@pytest.mark.parametrize("fa", [True, False, -1, 5, "1", 1.0])
def test_make_hand_takes_only_a_whole_number_of_fa(fa) -> None:
    from xingzi.engine import make_hand
    from xingzi.engine.notation import parse_tiles

    tiles = parse_tiles("12m456m789p22345s3m")
    with pytest.raises(ValueError, match=rf"fa \(发 in front of the winner\) must be 0\.\.4, got {fa!r}"):
        make_hand(tiles, tiles[-1], (), fa)
