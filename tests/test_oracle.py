"""tools/oracle: a scorer written from RULES.md alone, and the engine checked against it on dealt situations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from shared_folder import shared_file

import tools.oracle.compare as comparison
from tools.oracle.__main__ import main
from tools.oracle.compare import compare, disagreement, engine_answer, oracle_answer
from tools.oracle.deal import situations
from tools.oracle.examples import TABLE, Example, check_examples, misses, worked_examples
from tools.oracle.score import score
from xingzi.engine import score_situation

SEED = 55
N_DEALT = 1000
# every item key of RULES.md §3-§5 (and §10's names for the §3 values)
ITEM_KEYS = ["ping_hu", "fa", "kong", "concealed_kong", "dragon_pung", "dragon_concealed_pung", "dragon_kong",
             "dragon_concealed_kong", "self_draw", "concealed", "single_wait", "kong_bloom", "kong_tears",
             "robbing_kong", "xiaosa", "haohua", "wenrou", "quan_qiu_ren", "shuang_bian", "hai_di_lao_yue",
             "hai_di_pao", "tong_ku", "shang_xin", "hui_tou", "tao_sheng", "wang_en", "qing_yi_se", "hun_yi_se",
             "peng_peng_hu", "qi_dui", "yi_tiao_long", "hong_qi", "qi_xian_nv"]
Altering = Callable[[dict[str, Any]], dict[str, Any]]
SHANG_XIN_ON = {"events": ["shang_xin"], "rules": {"optional": ["shang_xin"]}}


@pytest.fixture(scope="module")
def dealt() -> list[dict[str, Any]]:
    return situations(N_DEALT, SEED)


@pytest.mark.parametrize("example", [pytest.param(e, id=e.id) for e in TABLE])
def test_the_oracle_passes_every_worked_example(example: Example) -> None:
    assert misses(example) == []


def test_the_table_holds_the_shared_examples_and_all_pass() -> None:
    path = shared_file("rules_examples.jsonl")
    assert worked_examples(path) == TABLE
    lines, failed = check_examples(path)
    assert failed == 0, lines
    assert lines[-1] == "20/20 worked examples pass"


@pytest.mark.parametrize(("situation", "items"), [
    pytest.param({"hand": "123p456p789s99s345m", "win_tile": "5m"},
                 {"ping_hu": 1, "concealed": 1, "shang_xin": 5}, id="waits_on_both_sides_of_the_run"),
    pytest.param({"hand": "456p789p99s345m", "win_tile": "5m", "melds": ["concealed_kong 2m"]},
                 {"ping_hu": 1, "concealed_kong": 2, "concealed": 1, "single_wait": 1},
                 id="other_side_all_four_held_is_a_single_wait"),
    pytest.param({"hand": "123p789p99s234456m", "win_tile": "4m"}, {"ping_hu": 1, "concealed": 1},
                 id="three_waits"),
    pytest.param({"hand": "446666m78m", "win_tile": "6m", "melds": ["kong 9m", "pung 1p"]},
                 {"ping_hu": 1, "kong": 1}, id="two_waits_that_are_not_the_sides_of_the_run"),
])
def test_shang_xin_only_on_a_wait_on_exactly_the_two_sides_of_the_run(situation: dict[str, Any],
                                                                       items: dict[str, int]) -> None:
    situation = {**situation, **SHANG_XIN_ON}
    result = score(situation)
    assert {i["key"]: i["pao"] for i in result["items"]} == items
    assert disagreement(result, engine_answer(situation)) is None


def test_the_engine_agrees_with_the_oracle_on_dealt_situations(dealt: list[dict[str, Any]]) -> None:
    report = compare(dealt, show=1)
    assert report.total == N_DEALT
    assert report.disagreeing == 0, "\n".join(report.lines())


def _alter_the_engine(monkeypatch: pytest.MonkeyPatch, alter: Altering) -> None:
    """The engine the tool calls answers ``alter`` of its answer."""
    monkeypatch.setattr(comparison, "score_situation", lambda s, rules=None: alter(score_situation(s, rules)))


def _own_plus_one(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "own": result["own"] + 1}


def _amount_doubled(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "payments": [{**p, "amount": 2 * p["amount"]} for p in result["payments"]]}


def _valid_flipped(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "valid": not result["valid"]}


def _extra_item(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "items": [*result["items"], {"key": "tao_sheng", "name": "涛声依旧", "pao": 5}]}


@pytest.mark.parametrize(("alter", "group"), [
    pytest.param(_own_plus_one, "own", id="own"),
    pytest.param(_amount_doubled, "payments", id="amount"),
    pytest.param(_valid_flipped, "valid: oracle", id="valid"),
    pytest.param(_extra_item, "items ", id="item"),
])
def test_an_altered_engine_answer_is_a_disagreement(monkeypatch: pytest.MonkeyPatch, dealt: list[dict[str, Any]],
                                                    alter: Altering, group: str) -> None:
    _alter_the_engine(monkeypatch, alter)
    report = compare(dealt[:50])
    assert report.disagreeing == 50
    assert all(name.startswith(group) for name in report.counts), report.counts


def test_a_tie_between_best_readings_is_no_disagreement() -> None:
    first = [{"key": "qing_yi_se", "pao": 15}, {"key": "xiaosa", "pao": 5}]
    second = [{"key": "qing_yi_se", "pao": 15}, {"key": "shuang_bian", "pao": 5}]
    paid = [{"payer": 0, "eaten": 0, "pao": 20, "amount": 20}]
    oracle = {"valid": True, "own": 20, "items": first, "tied_items": [first, second], "payments": paid}
    engine = {"valid": True, "own": 20, "items": second, "payments": paid}
    assert disagreement(oracle, engine) is None
    assert disagreement({**oracle, "tied_items": [first]}, engine) == "items -shuang_bian +xiaosa"


def test_the_dealt_situations_reach_every_item_option_and_false_claims(dealt: list[dict[str, Any]]) -> None:
    answers = [oracle_answer(s) for s in dealt]
    shown = Counter(i["key"] for a in answers if a["valid"] for i in a["items"])
    assert [key for key in ITEM_KEYS if not shown[key]] == []
    assert set(shown) <= set(ITEM_KEYS)
    assert 20 < sum(not a["valid"] for a in answers) < N_DEALT // 5
    options = {(key, str(value)) for s in dealt for key, value in s["rules"].items() if key != "optional"}
    assert options == {("specials_lift_threshold", "True"), ("won_triplet_concealed", "False"),
                       ("four_fa", "on_top"), ("eaten_hong_qi", "on_top"), ("hong_qi_seven_pairs", "fours"),
                       ("self_draw_eating", "pool")}


def test_the_command_prints_counts_and_exits_1_on_a_disagreement(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--n", "30", "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith("situations 30  agree 30  disagree 0  groups 0")
    _alter_the_engine(monkeypatch, _own_plus_one)
    assert main(["--n", "30", "--seed", "3", "--show", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["situations 30  agree 0  disagree 30  groups 1", "    30  own"]
    assert len(out) == 3 and out[2].startswith('{"situation": ')
