"""Every worked example of RULES.md §11 and our own golden hands, from one committed data file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_folder import shared_file

from xingzi.engine import score_situation

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden_hands.jsonl"
CASES = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]


def check(result: dict, expect: dict) -> None:
    assert result["valid"] is expect["valid"], result.get("reason")
    # §10: 炮 and amounts are whole numbers (a 14.0 would print as such in the JSON)
    numbers = [result["own"], *(i["pao"] for i in result["items"]),
               *(p[k] for p in result["payments"] for k in ("pao", "amount", "eaten") if k in p)]
    assert all(type(n) is int for n in numbers), numbers
    if "own" in expect:
        assert result["own"] == expect["own"]
    if "items" in expect:
        assert {i["key"]: i["pao"] for i in result["items"]} == expect["items"]
    if "paos" in expect:
        assert [p["pao"] for p in result["payments"]] == expect["paos"]
    if "amounts" in expect:
        assert [p["amount"] for p in result["payments"]] == expect["amounts"]
    if "reason" in expect:  # why a claim is refused (诈胡)
        assert expect["reason"] in result["reason"]
    for key in ("reading", "ruleset", "hand"):  # readable extras: the chosen split, the ruleset's name, the hand
        if key in expect:
            assert result[key] == expect[key], key


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_golden_hand(case: dict) -> None:
    check(score_situation(case["situation"]), case["expect"])


def test_all_nineteen_worked_examples_are_in_the_golden_file() -> None:
    ids = {c["id"] for c in CASES if c["source"] == "RULES.md §11"}
    assert ids == {f"ex{i}" for i in range(1, 20)} | {"ex12b"}


def test_committed_copy_matches_the_shared_examples() -> None:
    ours = {c["id"]: c for c in CASES}
    for line in shared_file("rules_examples.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            shared = json.loads(line)
            assert ours[shared["id"]]["situation"] == shared["situation"]
            assert ours[shared["id"]]["expect"] == shared["expect"]


def test_golden_hands_show_every_item_and_every_option_both_ways() -> None:
    from xingzi.engine.items import ITEMS
    from xingzi.engine.ruleset import CHOICES, OPTIONAL_ITEMS

    shown = {i["key"] for c in CASES for i in score_situation(c["situation"])["items"]}
    assert shown == {key for key, _name, _f, _needs in ITEMS}
    overridden: dict[str, list] = {}  # every value each override takes in some hand
    for c in CASES:
        for k, v in c["situation"].get("rules", {}).items():
            overridden.setdefault(k, []).append(v)
    for option, (_default, other) in CHOICES.items():
        assert other in overridden.get(option, []), option
    switched_on = {o for c in CASES for o in c["situation"].get("rules", {}).get("optional", [])}
    assert switched_on == set(OPTIONAL_ITEMS)
