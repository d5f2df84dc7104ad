"""Malformed situations raise a ValueError that names the problem."""

from __future__ import annotations

import json

import pytest

from xingzi.engine import (
    Meld,
    MeldKind,
    Payer,
    Tile,
    WinContext,
    check_context,
    follow_dealer,
    format_meld,
    format_tiles,
    is_complete,
    is_winning,
    load_ruleset,
    make_context,
    make_hand,
    next_dealer,
    parse_hand,
    parse_meld,
    parse_tiles,
    score_hand,
    score_round,
    score_situation,
    seat_settlement,
    wait_set,
    waits,
)
from xingzi.engine.limits import DEPTH, PARTS, check_shape
from xingzi.engine.tiles import tile_counts

EX1 = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}
RK = {"hand": "123m456m789p12s55p3s", "win_tile": "3s", "events": ["robbing_kong"]}  # example 11


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
        # no space at all: make_hand's own words, not the ones on what came after a space
        pytest.param({"hand": "12m456m789p22345s3m"}, r"^winning tile missing: give win_tile, or write the hand as",
                     id="no-win-tile"),
        pytest.param({"hand": "123m456m789p12s5p 中中"}, r"winning tile missing: write one tile last, after a space "
                     r"\('12m456m789p22345s 3m'\), got '中中' after the space \(12 \+ 2 tiles\)", id="two-tiles-after-the-space"),
        pytest.param({"hand": "12m456m789p22345s 3m 4m"}, r"one winning tile is written last, after a space .*, got "
                     r"'3m 4m' after the hand: 15 tiles in all, where a hand with 0 meld\(s\) has 14",
                     id="two-winning-tiles-written"),
        pytest.param({"hand": "12m456m 789p22345s 3m 4m"}, r"got '3m 4m' after the hand: 15 tiles in all",
                     id="two-winning-tiles-after-the-hand-written-in-groups"),
        pytest.param({**EX1, "melds": ["pung 10s"]}, r"^'10s': ranks are 1\.\.9, one digit a tile \('123s'\)$",
                     id="rank-10"),
        pytest.param({**EX1, "melds": ["pung 0s"]}, r"ranks are 1\.\.9 \(no red fives\)", id="red-five"),
        pytest.param({"win_tile": "3m"}, "no \"hand\"", id="no-hand"),
        pytest.param([1, 2], "JSON object", id="not-an-object"),
        pytest.param({**EX1, "fa": 5}, r"must be 0\.\.4, got 5", id="five-fa"),
        pytest.param({**EX1, "fa": True}, "'fa' must be a whole number, got true", id="fa-a-switch"),
        pytest.param({**EX1, "self_draw": "yes"}, "true or false", id="self-draw-not-bool"),
        pytest.param({**EX1, "events": ["dragon_dance"]}, "unknown event", id="unknown-event"),
        pytest.param({**EX1, "events": ["kong_bloom"]}, "kong_bloom is won only by self-draw: set self-draw", id="bloom-on-discard"),
        pytest.param({**EX1, "self_draw": True, "events": ["kong_bloom"]}, "kong just made", id="bloom-without-kong"),
        pytest.param({"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "self_draw": True,
                      "events": ["kong_bloom"]}, "kong just made", id="bloom-with-a-pung-and-no-kong"),
        pytest.param({**EX1, "self_draw": True, "events": ["robbing_kong"]}, "抢杠 robbing_kong is won only on a discard: clear self-draw", id="robbing-self-draw"),
        pytest.param({**RK, "payers": [{"melds": ["concealed_kong 3s"]}]}, "a concealed kong cannot be robbed",
                     id="robbing-a-concealed-kong"),
        pytest.param({"hand": "123m456m789p33s555s", "win_tile": "5s", "events": ["robbing_kong"]},
                     "so the winner holds no other 5s, got 2", id="robbing-a-tile-the-winner-holds-two-of"),
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
        pytest.param({**EX1, "payers": [{"fa": 5}]}, r"payer 0: fa must be 0\.\.4, got 5", id="payer-five-fa"),
        pytest.param({**EX1, "payers": [{}, {"melds": ["pung 中", "pung 白", "kong 1m", "kong 2m", "kong 3m"]}]},
                     "payer 1 shows 5 melds: a player has at most 4", id="payer-five-melds"),
        pytest.param({**EX1, "melds": [{"kind": "pung"}]}, r"the winner's meld objects need \"kind\" and \"tile\" .*"
                     r"got \{'kind': 'pung'\}", id="meld-object-without-tile"),
        pytest.param({**EX1, "payers": [{"melds": [{"kind": "pung", "tile": 9}]}]}, "payer 0's meld objects need",
                     id="payer-meld-object-tile-a-number"),
    ],
)
def test_malformed_situation(situation, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_situation(situation)


@pytest.mark.parametrize("hand", [
    pytest.param("12m 456m 789p 22345s 3m", id="in-groups"),
    pytest.param("1m 2m 4m 5m 6m 7p 8p 9p 2s 2s 3s 4s 5s 3m", id="a-tile-at-a-time"),
])
def test_a_hand_written_apart_with_its_winning_tile_last_is_the_hand_written_together(hand) -> None:
    """Only a winning tile written otherwise than once, last, after a space is refused: spaces between the other
    tiles, even one tile a group, leave the hand as it is."""
    assert score_situation({"hand": hand}) == score_situation({"hand": "12m456m789p22345s 3m"})


def test_a_false_claim_is_a_result_not_an_error() -> None:
    result = score_situation({"hand": "123m456m789p1234s9s", "win_tile": "9s", "self_draw": True})
    assert result["valid"] is False and "not a winning hand" in result["reason"]
    assert [(p["payee"], p["amount"]) for p in result["payments"]] == [(0, 20), (1, 20), (2, 20)]


@pytest.mark.parametrize(
    "events, payers, message",
    [
        pytest.param("kong_bloom", [], "\"events\" must be a list of names", id="events-text"),
        pytest.param([], {"fa": 1}, "\"payers\" must be a list of objects", id="payers-an-object"),
        pytest.param(["dragon_dance"], [], "unknown event 'dragon_dance'", id="unknown-event-name"),
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
        pytest.param({"dealer": 0, "discarder": None, "wins": [{"seat": 1, **EX1, "self_draw": True},
                                                                {"seat": 2, **EX1, "self_draw": True}]},
                     "several winners need a discarder", id="two-self-drawn-winners"),
        pytest.param(None, "a round is a JSON object", id="round-null"),
        pytest.param({"dealer": 0, "discarder": 1, "wins": {}}, "\"wins\" must be a list", id="wins-an-object"),
        pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **EX1, "payers": [1]}]},
                     r"\"payers\" must be a list of objects .* got \[1\]", id="win-payers-numbers"),
        pytest.param({"dealer": 0, "discarder": 0, "wins": [{"seat": 0, **EX1}]},
                     r"^seat 0: the discarder \(seat 0\) cannot win on their own discard$", id="dealer-wins-own-discard"),
        pytest.param({"dealer": 1, "discarder": 2, "wins": [{"seat": 2, **EX1}]},
                     r"^seat 2: the discarder \(seat 2\) cannot win on their own discard$", id="wins-own-discard"),
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


# The Python API: wrong types and values are a ValueError saying what was expected, the same in the compiled build
# (where a typed parameter would take True as 1, or refuse a list for a tuple with a TypeError) and the source.
TILES14 = parse_tiles("12m456m789p22345s3m")
HAND = make_hand(TILES14, Tile.M3)
RULES = load_ruleset()
RESULT = score_situation(EX1)
COUNTS13 = tuple(tile_counts(parse_tiles("12m456m789p22345s")))
NEGATIVE = tuple(-1 if i == 29 else n for i, n in enumerate(HAND.counts))


@pytest.mark.parametrize(
    "call, args, message",
    [
        pytest.param(make_hand, ("12m456m789p22345s3m", Tile.M3), "tiles must be a list of Tile", id="tiles-text"),
        pytest.param(make_hand, ([t.value for t in TILES14], Tile.M3), r"got '1m' \(str\) among them", id="tiles-names"),
        pytest.param(make_hand, (TILES14, "3m"), "win_tile must be a Tile .* got '3m'", id="win-tile-text"),
        pytest.param(make_hand, (TILES14, Tile.M3, None), "melds must be a tuple of Meld .* got None$", id="melds-none"),
        pytest.param(make_hand, (TILES14, Tile.M3, ("pung 中",)), r"got 'pung 中' \(str\) among them", id="melds-text"),
        pytest.param(make_hand, (TILES14, Tile.M3, (Meld(MeldKind.PUNG, Tile.ZHONG),) * 5), "at most 4 melds, got 5",
                     id="five-melds"),
        pytest.param(make_context, (HAND, 1, False, []), "self_draw must be True or False, got 1", id="self-draw-one"),
        pytest.param(make_context, (HAND, False, None, []), "dealer must be True or False, got None", id="dealer-none"),
        pytest.param(make_context, (HAND, False, False, "hui_tou"), "events must be a list of event names, got 'hui_tou'",
                     id="events-text"),
        pytest.param(make_context, (HAND, False, False, [], [{"fa": 1}]), "payers must be a tuple of Payer", id="payer-dicts"),
        pytest.param(make_context, (None, False, False, []), "hand must be a Hand", id="context-without-hand"),
        pytest.param(Payer, (False, -1), r"Payer fa \(发 in front of the payer\) must be 0\.\.4, got -1", id="payer-fa-negative"),
        pytest.param(Payer, (False, 7), r"must be 0\.\.4, got 7", id="payer-fa-seven"),
        pytest.param(Payer, (False, True), r"must be 0\.\.4, got True", id="payer-fa-true"),
        pytest.param(Payer, (False, 1.0), r"must be 0\.\.4, got 1\.0", id="payer-fa-float"),
        pytest.param(Payer, (1,), "Payer dealer must be True or False, got 1", id="payer-dealer-one"),
        pytest.param(Payer, (False, 0, ("pung 中",)), "Payer melds must be up to 4 Meld", id="payer-melds-text"),
        pytest.param(Payer, (False, 0, (Meld(MeldKind.PUNG, Tile.ZHONG),) * 5), "Payer melds must be up to 4 Meld",
                     id="payer-five-melds"),
        pytest.param(Meld, (MeldKind.PUNG, "中"), "a meld's tile must be a Tile .* got '中'", id="meld-tile-text"),
        pytest.param(Meld, ("pung", Tile.ZHONG), "a meld's kind must be a MeldKind .* got 'pung'", id="meld-kind-text"),
        pytest.param(score_hand, (HAND, WinContext(), None), "score_hand takes .* got Hand, WinContext, NoneType",
                     id="score-without-rules"),
        pytest.param(score_hand, (HAND, WinContext(), "default"), "got Hand, WinContext, str", id="score-rules-name"),
        pytest.param(follow_dealer, ("中", RULES), "跟庄 takes the dealer's first discard as a Tile", id="follow-dealer-text"),
        pytest.param(follow_dealer, (Tile.ZHONG, None), "rules must be a Ruleset", id="follow-dealer-no-rules"),
        pytest.param(next_dealer, (True, []), r"seats are 0\.\.3 in order of play, got True", id="dealer-true"),
        pytest.param(next_dealer, (0, [2.0], 1), r"got 2\.0", id="winner-float"),
        pytest.param(next_dealer, (0, [2], 1.0), r"got 1\.0", id="discarder-float"),
        pytest.param(next_dealer, (0, None), "winners must be a list of seats", id="winners-none"),
        pytest.param(seat_settlement, (RESULT, 1.0, 2, 0), r"seats are 0\.\.3 in order of play, got 1\.0", id="seat-float"),
        pytest.param(seat_settlement, (RESULT, 4, 2, 0), r"seats are 0\.\.3 in order of play, got 4", id="seat-four"),
        pytest.param(seat_settlement, (None, 1, 2, 0), "result must be a score_situation result", id="no-result"),
        pytest.param(seat_settlement, (RESULT, 1, 2, 0, "text000"), "the base ruleset must be a Ruleset",
                     id="seat-settlement-ruleset-name"),
        pytest.param(score_situation, (EX1, "default"), "the base ruleset must be a Ruleset", id="base-ruleset-name"),
        pytest.param(waits, (list(COUNTS13),), "counts must be a tuple of 30 counts .* got a list of 30", id="waits-list"),
        pytest.param(waits, (COUNTS13, list(COUNTS13)), "used must be a tuple of 30", id="waits-used-list"),
        pytest.param(waits, (COUNTS13, None, 4.0), r"n_sets must be a whole number .* got 4\.0", id="n-sets-float"),
        pytest.param(waits, (COUNTS13, None, True), "n_sets must be a whole number .* got True", id="n-sets-true"),
        pytest.param(is_complete, (NEGATIVE,), "counts must hold whole numbers ≥ 0, got -1", id="negative-count"),
        pytest.param(is_complete, (tuple(float(n) for n in HAND.counts),), r"counts must hold whole numbers ≥ 0, got 1\.0",
                     id="float-counts"),
        pytest.param(is_complete, (tuple(n == 1 for n in HAND.counts),), "counts must hold whole numbers ≥ 0, got True",
                     id="bool-counts"),
        pytest.param(wait_set, ("12m456m789p22345s",), "tiles must be a list of Tile", id="wait-set-text"),
        pytest.param(wait_set, ([*TILES14[:12], "3m"],), "tiles must be a list of Tile", id="wait-set-a-name-among-tiles"),
        pytest.param(seat_settlement, ({"valid": True}, 1, 2, 0), "result must be a score_situation result",
                     id="seat-settlement-result-without-payments"),
        pytest.param(is_winning, (TILES14, None), "melds must be a tuple of Meld", id="is-winning-melds-none"),
        pytest.param(load_ruleset, (0,), "a ruleset is a preset name .* got 0", id="ruleset-zero"),
        pytest.param(load_ruleset, (False,), "a ruleset is a preset name .* got False", id="ruleset-false"),
        pytest.param(parse_hand, (None,), "expected a hand string .* got NoneType", id="parse-hand-none"),
        pytest.param(format_tiles, ("123m",), "expected a list of Tile", id="format-tiles-text"),
        pytest.param(format_tiles, (["1m", "2m"],), "expected a list of Tile", id="format-tiles-names-not-tiles"),
        pytest.param(format_meld, ("pung 中",), "expected a Meld", id="format-meld-text"),
        pytest.param(Tile.from_index, (True,), r"tile class id must be 0\.\.29, got True", id="class-id-true"),
        pytest.param(Tile.parse, (None,), "a tile is text such as", id="parse-tile-none"),
    ],
)
def test_python_api_refuses_bad_input(call, args, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(*args)


@pytest.mark.parametrize(
    "value, expected",
    [
        pytest.param(lambda: is_winning(parse_tiles("11111m456m789p222s")), False, id="fifth-copy-no-win"),
        pytest.param(lambda: wait_set(parse_tiles("3m45m678m99p22s"), (parse_meld("kong 3m"),)), set(),
                     id="fifth-copy-with-meld-no-waits"),
        pytest.param(lambda: is_complete(tuple(5 if i == 0 else 3 if i in (1, 2, 3) else 0 for i in range(30))), False,
                     id="fifth-copy-not-complete"),
    ],
)
def test_a_fifth_copy_is_no_hand_not_an_error(value, expected) -> None:
    assert value() == expected


def test_melds_as_objects_score_as_their_text() -> None:
    text = {"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "payers": [{"melds": ["kong 中"]}]}
    objects = {**text, "melds": [{"kind": "pung", "tile": "9p"}], "payers": [{"melds": [{"kind": "kong", "tile": "中"}]}]}
    assert score_situation(objects) == score_situation(text)
    assert score_situation(objects)["items"] == score_situation(text)["items"] != []


def test_lists_and_tuples_are_taken_alike() -> None:
    pung = parse_meld("pung 中")
    tiles = parse_tiles("123m456m22s")
    assert make_hand(tuple(TILES14), Tile.M3) == HAND
    assert make_hand(tiles, Tile.M1, [pung, parse_meld("pung 9p")]) == make_hand(tiles, Tile.M1, (pung, parse_meld("pung 9p")))
    assert Payer(melds=[pung]) == Payer(melds=(pung,))
    assert make_context(HAND, False, False, {"hui_tou"}, [Payer(fa=1)]) == make_context(HAND, False, False, ("hui_tou",),
                                                                                         (Payer(fa=1),))
    assert next_dealer(0, (2, 3), 1) == next_dealer(0, [2, 3], 1) == 2


DEEP_RULES = {"optional": json.loads("[" * 600 + "]" * 600)}
WINDS = ["1m", "2m", "4m", "5m", "6m", "7p", "8p", "9p", "2s", "2s", "3s", "4s", "5s", "3m"]


@pytest.mark.parametrize("call, args, message", [
    pytest.param(score_situation, ({**EX1, "hand": "1" * 1_000_000 + "m"},),
                 r'^"hand" in the situation is 1000001 characters long: expected at most 200, got', id="a-megabyte-of-notation"),
    pytest.param(score_situation, ({**EX1, "win_tile": "1m" * 500_000},),
                 r'^"win_tile" in the situation is 1000000 characters long: expected at most 16', id="a-megabyte-winning-tile"),
    pytest.param(score_situation, ({**EX1, "melds": ["pung " + "1m" * 1000]},),
                 r"^the winner's meld is 2005 characters long: expected at most 40", id="a-long-meld"),
    pytest.param(score_situation, ({**EX1, "events": ["x" * 100_000]},),
                 r'^"events"\[0\] in the situation is 100000 characters long: expected at most 4096', id="a-long-event"),
    pytest.param(score_situation, ({**EX1, "payers": [{}] * 20_000},), "holds more than 10000 values",
                 id="twenty-thousand-payers"),
    pytest.param(score_situation, ({**EX1, "rules": DEEP_RULES},), "nested more than 32 deep", id="rules-600-deep"),
    pytest.param(score_round, ({"dealer": 0, "wins": [{"seat": 1, **EX1, "self_draw": True}], "rules": DEEP_RULES},),
                 "^the round is nested more than 32 deep", id="a-round-600-deep"),
    pytest.param(score_situation, ({**EX1, "rules": {1: 2}},), "^the situation: object keys are text, got 1",
                 id="a-key-that-is-a-number"),
    pytest.param(score_situation, ({**EX1, "ruleset": "a" * 300},), r"a{120}… \(300 characters\)': File name too long",
                 id="a-ruleset-name-too-long-for-the-system"),
    pytest.param(score_situation, ({**EX1, "ruleset": "/proc/self/mem"},),
                 "^ruleset /proc/self/mem: cannot be read: Input/output error", id="a-ruleset-that-fails-to-read"),
    pytest.param(RULES.with_overrides, ({1: 2},), "^rules override names are text", id="override-named-by-a-number"),
    pytest.param(RULES.with_overrides, ({"pao": {None: 1}},), "^ruleset: keys are text, got None in pao",
                 id="a-pao-named-none"),
    pytest.param(seat_settlement, ({**RESULT, "payments": [{}]}, 1, 2, 0), "^payment 0 must be a score_situation "
                 "payment", id="a-payment-without-pao"),
    pytest.param(seat_settlement, ({**RESULT, "payments": 5}, 1, 2, 0), "^a result's \"payments\" is a list, got 5",
                 id="payments-a-number"),
    pytest.param(seat_settlement, ({**RESULT, "payments": [{"pao": 3}]}, 1, 2, 0), "^payment 0 must be a "
                 "score_situation payment", id="a-payment-without-a-payer"),
    pytest.param(seat_settlement, ({**RESULT, "payments": [{"pao": "3", "payer": 0}]}, 1, 2, 0), "^payment 0 must "
                 "be a score_situation payment", id="a-payment-of-pao-as-text"),
    # each piece short enough, joined a megabyte: refused as the hand's length, not read tile by tile
    pytest.param(score_situation, ({**EX1, "hand": ["1" * 4000 + "m"] * 250},),
                 r'^"hand" is 1000250 characters long: expected at most 200, got', id="a-megabyte-of-notation-in-pieces"),
    # a list of notation pieces is joined: its last tile is not taken as the winning tile without a word
    pytest.param(score_situation, ({"hand": WINDS},), "^winning tile missing: give win_tile", id="a-list-of-tiles"),
])
def test_what_no_table_holds_is_refused_in_a_few_words(call, args, message: str) -> None:
    """Beyond any hand (a megabyte of text, rules hundreds deep, keys that are no text, a payment without 炮): a
    ValueError quoting a bounded piece of what came, not a TypeError, RecursionError or OSError."""
    with pytest.raises(ValueError, match=message) as refused:
        call(*args)
    assert len(str(refused.value)) < 400


@pytest.mark.parametrize("value, refused", [
    pytest.param([0] * (PARTS - 1), "", id="parts-all-the-values-allowed"),  # the list itself is one of them
    pytest.param([0] * PARTS, f"holds more than {PARTS} values", id="parts-one-value-too-many"),
    pytest.param(json.loads("[" * DEPTH + "]" * DEPTH), "", id="lists-as-deep-as-allowed"),
    pytest.param(json.loads("[" * (DEPTH + 1) + "]" * (DEPTH + 1)), f"nested more than {DEPTH} deep",
                 id="lists-one-deeper"),
    pytest.param(json.loads('{"a": ' * (DEPTH - 1) + "{}" + "}" * (DEPTH - 1)), "", id="objects-as-deep-as-allowed"),
    pytest.param(json.loads('{"a": ' * DEPTH + "{}" + "}" * DEPTH), f"nested more than {DEPTH} deep",
                 id="objects-one-deeper"),
])
def test_the_limits_hold_exactly_at_their_bounds(value, refused: str) -> None:
    """limits.check_shape: ``PARTS`` values and ``DEPTH`` levels (the top value counted as one of each) are taken,
    one more is not, for lists as for objects."""
    if refused:
        with pytest.raises(ValueError, match=refused):
            check_shape(value, "the situation")
    else:
        check_shape(value, "the situation")
