"""Waits count every copy on the table (the winner's and the payers' melds alike); events declared but not counted
are said with why; 杠上流泪 needs the discarder's kong; 双边双夹 is given by shape (docs/engine.md)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine import Tile, parse_meld, parse_tiles, score_situation, wait_set
from xingzi.engine.notation import format_tiles

# 4566m7m: waits 5m and 8m; 8m dead where all four lie in a kong on the table
DEAD_8M = {"hand": "4566m7m123p99s 5m", "melds": ["pung 1s"]}
SINGLE = {"ping_hu": 1, "single_wait": 1}


def _items(result: dict[str, Any]) -> dict[str, int]:
    return {i["key"]: i["pao"] for i in result["items"]}


@pytest.mark.parametrize(("situation", "waits", "items"), [
    pytest.param({**DEAD_8M, "payers": [{"melds": ["kong 8m"]}]}, ["5m"], SINGLE, id="in-the-discarders-kong"),
    pytest.param({**DEAD_8M, "payers": [{"melds": ["concealed_kong 8m"]}]}, ["5m"], SINGLE,
                 id="in-the-discarders-concealed-kong"),
    pytest.param({**DEAD_8M, "melds": ["concealed_kong 8m"]}, ["5m"],
                 {"ping_hu": 1, "concealed": 1, "concealed_kong": 2, "single_wait": 1}, id="in-the-winners-own-kong"),
    pytest.param({**DEAD_8M, "self_draw": True, "payers": [{}, {"melds": ["kong 8m"]}, {}]}, ["5m"],
                 {**SINGLE, "self_draw": 1}, id="in-a-self-draws-second-payers-kong"),
    pytest.param({**DEAD_8M, "payers": [{"melds": ["pung 8m"]}]}, ["5m", "8m"], {"ping_hu": 1}, id="one-8m-left"),
    # 45667s + 5s waited on 5s/8s: with every 8s shown, on 5s alone (胡单张), a middle wait: 痛苦 when declared
    pytest.param({"hand": "45667s123m456p99p 5s", "payers": [{"melds": ["kong 8s"]}], "events": ["tong_ku"],
                  "rules": {"optional": ["tong_ku"]}}, ["5s"],
                 {"ping_hu": 1, "concealed": 1, "single_wait": 1, "tong_ku": 5}, id="tong-ku-on-the-last-live-kind"),
    # 345s won on 3s: its other side 6s all in the discarder's kong, so no 两面 wait: 胡单张, no 伤心痛苦
    pytest.param({"hand": "123m456m789p22s45s 3s", "payers": [{"melds": ["kong 6s"]}], "events": ["shang_xin"],
                  "rules": {"optional": ["shang_xin"]}}, ["3s"],
                 {"ping_hu": 1, "concealed": 1, "single_wait": 1}, id="no-shang-xin-with-the-other-side-shown"),
    # 抢杠: the robbed kong of the winning tile is the pung it was, the winning tile still the wait
    pytest.param({"hand": "123m456m789p12s55p 3s", "events": ["robbing_kong"], "payers": [{"melds": ["kong 3s"]}]},
                 ["3s"], {"ping_hu": 1, "concealed": 1, "single_wait": 1, "robbing_kong": 10}, id="robbed-kong"),
])
def test_waits_count_the_copies_in_every_players_melds(situation, waits, items) -> None:
    result = score_situation(situation)
    assert result["waits"] == waits and _items(result) == items, result  # (one-8m-left: 1 炮, a false win)


def test_wait_set_counts_the_other_players_melds_when_given() -> None:
    tiles = parse_tiles("4566m7m123p99s")
    assert wait_set(tiles, (parse_meld("pung 1s"),)) == {Tile.M5, Tile.M8}
    assert wait_set(tiles, (parse_meld("pung 1s"),), (parse_meld("kong 8m"),)) == {Tile.M5}


SUITED = [t for t in Tile if t.suit is not None]
RUNS = [[Tile(f"{r + i}{s}") for i in range(3)] for s in "mps" for r in range(1, 8)]
hands = st.builds(lambda sets, pair: [t for s in sets for t in s] + [pair, pair],
                  st.lists(st.sampled_from(RUNS + [[t] * 3 for t in SUITED]), min_size=4, max_size=4),
                  st.sampled_from(SUITED)).filter(lambda ts: all(ts.count(t) <= 4 for t in ts))


@settings(max_examples=80, deadline=None)
@given(hands, st.data())
def test_a_kong_on_the_table_takes_its_tile_out_of_the_waits_and_nothing_else(tiles, data) -> None:
    win = data.draw(st.sampled_from(tiles))
    shown = data.draw(st.sampled_from([t for t in SUITED if t not in tiles]))
    base = {"hand": f"{format_tiles(tiles)}", "win_tile": win.symbol}
    plain = score_situation(base)
    with_kong = score_situation({**base, "payers": [{"melds": [f"kong {shown.symbol}"]}]})
    assert with_kong["waits"] == [w for w in plain["waits"] if w != shown.symbol]


NO_WAIT_SHAPE = {"hand": "123m456m234s5s 5s", "melds": ["pung 9p"], "events": ["tong_ku"],
                 "rules": {"optional": ["tong_ku"]}}
MIDDLE = {"hand": "123m456m789p22s35s 4s", "self_draw": True, "events": ["shang_xin"],
          "rules": {"optional": ["shang_xin"]}}


@pytest.mark.parametrize(("situation", "reason"), [
    pytest.param(NO_WAIT_SHAPE, "needs an edge or middle wait (边张/夹心) and no other tile kind waited on: 5s completed "
                 "the hand as 单钓 pair, and it waited on 2s 5s", id="tong-ku-on-a-pair-wait"),
    pytest.param(MIDDLE, "needs a two-sided wait (两面) on exactly the two kinds either side of the run the winning tile "
                 "closes, the other side not all held or shown: 4s completed the hand as 夹心 middle, and it waited "
                 "on 4s", id="shang-xin-on-a-middle-wait"),
    pytest.param({**NO_WAIT_SHAPE, "rules": {}}, "optional, off under these rules", id="optional-off"),
    pytest.param({"hand": "11223344556677p", "win_tile": "7p", "self_draw": True, "events": ["hai_di_lao_yue"],
                  "rules": {"optional": ["hai_di_lao_yue"]}}, "replaced by 七仙女 qi_xian_nv (the ruleset's [replaces])",
                 id="replaced"),
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
    pytest.param({"threshold": {"min_own": 4}}, "only 2 own 炮 count towards 两炮起胡 (needs 4)", id="two-count"),
])
def test_a_false_wins_reason_says_count_or_counts_by_the_number(rules, reason) -> None:
    result = score_situation({"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "rules": rules,
                              **({"self_draw": True} if "threshold" in rules else {})})
    assert not result["valid"] and result["reason"] == reason
