"""Waits are the hand's own: the payers' melds take none away (docs/engine.md, kept in session 75); events declared
but not counted are said with why; 杠上流泪 needs the discarder's kong; 双边双夹 is given by shape."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine import Tile, score_situation
from xingzi.engine.notation import format_tiles

# 4566m7m: waits 5m and 8m. A situation lists the payers' melds only, not every tile on the table (discards, on a
# discard the two other players' melds), so copies shown there take no wait away: the same hand scores the same
# wherever the other player's four 8m lie. The winner's own four are known to be out: then 8m is no wait.
DEAD_8M = {"hand": "4566m7m123p99s 5m", "melds": ["pung 1s"]}


def _items(result: dict[str, Any]) -> dict[str, int]:
    return {i["key"]: i["pao"] for i in result["items"]}


@pytest.mark.parametrize(("situation", "waits", "items"), [
    pytest.param({**DEAD_8M, "payers": [{"melds": ["kong 8m"]}]}, ["5m", "8m"], {"ping_hu": 1},
                 id="the-discarders-kong-takes-no-wait-away"),
    pytest.param({**DEAD_8M, "self_draw": True, "payers": [{}, {"melds": ["kong 8m"]}, {}]}, ["5m", "8m"],
                 {"ping_hu": 1, "self_draw": 1}, id="nor-a-self-draws-payers-kong"),
    pytest.param({**DEAD_8M, "melds": ["concealed_kong 8m"]}, ["5m"],
                 {"ping_hu": 1, "concealed": 1, "concealed_kong": 2, "single_wait": 1}, id="the-winners-own-four-do"),
    # 345s won on 3s, its other side's four 6s in the discarder's kong: 7 of the 8 tiles shown, 伤心痛苦 as declared
    pytest.param({"hand": "123m456m789p22s45s 3s", "payers": [{"melds": ["kong 6s"]}], "events": ["shang_xin"],
                  "rules": {"optional": ["shang_xin"]}}, ["3s", "6s"],
                 {"ping_hu": 1, "concealed": 1, "shang_xin": 5}, id="shang-xin-with-the-other-side-in-a-kong"),
    # 抢杠: the robbed kong of the winning tile is the pung it was, the winning tile still the wait
    pytest.param({"hand": "123m456m789p12s55p 3s", "events": ["robbing_kong"], "payers": [{"melds": ["kong 3s"]}]},
                 ["3s"], {"ping_hu": 1, "concealed": 1, "single_wait": 1, "robbing_kong": 10}, id="robbed-kong"),
])
def test_waits_are_the_hands_own_whatever_the_payers_show(situation, waits, items) -> None:
    result = score_situation(situation)
    assert result["waits"] == waits and _items(result) == items, result


SUITED = [t for t in Tile if t.suit is not None]
RUNS = [[Tile(f"{r + i}{s}") for i in range(3)] for s in "mps" for r in range(1, 8)]
hands = st.builds(lambda sets, pair: [t for s in sets for t in s] + [pair, pair],
                  st.lists(st.sampled_from(RUNS + [[t] * 3 for t in SUITED]), min_size=4, max_size=4),
                  st.sampled_from(SUITED)).filter(lambda ts: all(ts.count(t) <= 4 for t in ts))


@settings(max_examples=80, deadline=None)
@given(hands, st.data())
def test_a_payers_kong_changes_no_wait(tiles, data) -> None:
    win = data.draw(st.sampled_from(tiles))
    shown = data.draw(st.sampled_from([t for t in SUITED if t not in tiles]))
    base = {"hand": f"{format_tiles(tiles)}", "win_tile": win.symbol}
    plain = score_situation(base)
    with_kong = score_situation({**base, "payers": [{"melds": [f"kong {shown.symbol}"]}]})
    assert with_kong["waits"] == plain["waits"] and with_kong["own"] == plain["own"]


NO_WAIT_SHAPE = {"hand": "123m456m234s5s 5s", "melds": ["pung 9p"], "events": ["tong_ku"],
                 "rules": {"optional": ["tong_ku"]}}
MIDDLE = {"hand": "123m456m789p22s35s 4s", "self_draw": True, "events": ["shang_xin"],
          "rules": {"optional": ["shang_xin"]}}


@pytest.mark.parametrize(("situation", "reason"), [
    pytest.param(NO_WAIT_SHAPE, "needs an edge or middle wait (边张/夹心) and no other tile kind waited on: 5s completed "
                 "the hand as 单钓 pair, and it waited on 2s 5s", id="tong-ku-on-a-pair-wait"),
    pytest.param(MIDDLE, "needs a two-sided wait (两面) on exactly the two kinds either side of the run the winning tile "
                 "closes, the other side not all held by the winner: 4s completed the hand as 夹心 middle, and it waited "
                 "on 4s", id="shang-xin-on-a-middle-wait"),
    # the shape said is the winning tile's in its run: an edge at either end of a suit, two-sided, or a pung of two
    pytest.param({**MIDDLE, "hand": "123m456m789p22s12s 3s"}, "needs a two-sided wait (两面) on exactly the two kinds "
                 "either side of the run the winning tile closes, the other side not all held by the winner: 3s "
                 "completed the hand as 边张 edge, and it waited on 1s 3s", id="shang-xin-on-the-edge-of-123s"),
    pytest.param({**MIDDLE, "hand": "123m456m789p22s89p 7p"}, "needs a two-sided wait (两面) on exactly the two kinds "
                 "either side of the run the winning tile closes, the other side not all held by the winner: 7p "
                 "completed the hand as 边张 edge, and it waited on 7p", id="shang-xin-on-the-edge-of-789p"),
    pytest.param({**NO_WAIT_SHAPE, "hand": "123m456m789p22s45s 3s", "melds": []}, "needs an edge or middle wait "
                 "(边张/夹心) and no other tile kind waited on: 3s completed the hand as 两面 two-sided, and it waited "
                 "on 3s 6s", id="tong-ku-on-a-two-sided-wait"),
    pytest.param({**NO_WAIT_SHAPE, "hand": "123m456m789p22s55s 5s", "melds": []}, "needs an edge or middle wait "
                 "(边张/夹心) and no other tile kind waited on: 5s completed the hand as 对倒 triplet, and it waited "
                 "on 2s 5s", id="tong-ku-on-two-pairs"),
    pytest.param({**NO_WAIT_SHAPE, "rules": {}}, "optional, off under these rules", id="optional-off"),
    pytest.param({"hand": "11223344556677p", "win_tile": "7p", "self_draw": True, "events": ["hai_di_lao_yue"],
                  "rules": {"optional": ["hai_di_lao_yue"]}}, "replaced by 七仙女 qi_xian_nv (the ruleset's [replaces])",
                 id="replaced"),
    # 海底放炮 under a house's numbers: worth 0 as an addition; from a start of 0 nothing is lifted; from 9, 一条龙 10 is over it
    pytest.param({"hand": "12m456m789p22345s 3m", "events": ["hai_di_pao"],
                  "rules": {"optional": ["hai_di_pao"], "pao": {"hai_di_pao": 0}}}, "worth 0 炮 under these rules",
                 id="hai-di-pao-added-as-0"),
    pytest.param({"hand": "12m456m789p22345s 3m", "events": ["hai_di_pao"], "rules": {
        "optional": ["hai_di_pao"], "hai_di_pao": "start_at_10", "pao": {"hai_di_pao_start": 0}}},
        "worth 0 炮 under these rules", id="hai-di-pao-from-0"),
    pytest.param({"hand": "123456789m123p5s 5s", "events": ["hai_di_pao"], "rules": {
        "optional": ["hai_di_pao"], "hai_di_pao": "start_at_10", "pao": {"hai_di_pao_start": 9}}},
        "the hand's base is 9 or more already (hai_di_pao = \"start_at_10\")", id="hai-di-pao-from-a-house-9"),
])
def test_an_event_declared_but_not_counted_is_listed_with_why(situation, reason) -> None:
    result = score_situation(situation)
    event = situation["events"][0]
    assert result["events_not_counted"] == [{"event": event, "name": result["events_not_counted"][0]["name"],
                                             "reason": reason}]
    without = score_situation({**situation, "events": []})  # the score itself as without the event
    assert {k: v for k, v in result.items() if k != "events_not_counted"} == without


def test_an_event_counted_or_a_hand_that_is_none_lists_nothing() -> None:
    counted = score_situation({**NO_WAIT_SHAPE, "hand": "12m456m789p22345s 3m", "melds": []})
    assert counted["valid"] and "tong_ku" in _items(counted) and "events_not_counted" not in counted
    assert "events_not_counted" not in score_situation({**NO_WAIT_SHAPE, "hand": "123m456m234s5s 6s"})


@pytest.mark.parametrize(("payer", "ok"), [
    pytest.param({"melds": ["pung 中"], "fa": 1}, False, id="melds-listed-without-a-kong"),
    pytest.param({"melds": ["pung 中", "kong 9s"]}, True, id="the-kong-listed"),
    pytest.param({"melds": ["concealed_kong 6s"]}, True, id="a-concealed-kong"),
    pytest.param({"fa": 1}, True, id="no-melds-listed-not-entered"),
])
def test_kong_tears_needs_a_kong_among_the_discarders_melds_as_listed(payer, ok) -> None:
    situation = {"hand": "123m456m789p12s55p3s", "win_tile": "3s", "events": ["kong_tears"], "payers": [payer]}
    if ok:
        assert score_situation(situation)["own"] == 13
    else:
        with pytest.raises(ValueError, match=r"kong_tears needs the kong just made among the discarder's melds "
                                             r"\(e\.g\. 'kong 9p'\), got the discarder's pung 中"):
            score_situation(situation)


@pytest.mark.parametrize(("win", "valid", "items", "waits"), [
    pytest.param("5p", True, {"ping_hu": 1, "shuang_bian": 5}, ["5p", "8p"], id="on-5p-with-8p-live-too"),
    pytest.param("8p", False, {"ping_hu": 1}, ["5p", "8p"], id="on-8p-诈胡"),
])
def test_shuang_bian_is_given_by_shape_whatever_else_the_hand_waited_on(win, valid, items, waits) -> None:
    """docs/engine.md: RULES.md §4 defines 双边双夹 by the shape the winning tile completes, not by one tile kind."""
    result = score_situation({"hand": f"4456677p123m{win}", "win_tile": win, "melds": ["pung 9s"]})
    assert (result["valid"], _items(result), result["waits"]) == (valid, items, waits)


@pytest.mark.parametrize(("rules", "reason"), [
    pytest.param({}, "only 1 own 炮 counts towards 两炮起胡 (needs 2)", id="one-counts"),
    pytest.param({"ping_hu": 0}, "only 0 own 炮 count towards 两炮起胡 (needs 2)", id="none-count"),
    pytest.param({"threshold": {"min_own": 4}}, "only 2 own 炮 count towards 四炮起胡 (needs 4)", id="two-count"),
    pytest.param({"threshold": {"min_own": 12}}, "only 2 own 炮 count towards 12炮起胡 (needs 12)", id="past-ten"),
])
def test_a_false_wins_reason_says_count_or_counts_by_the_number(rules, reason) -> None:
    result = score_situation({"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "rules": rules,
                              **({"self_draw": True} if "threshold" in rules else {})})
    assert not result["valid"] and result["reason"] == reason
