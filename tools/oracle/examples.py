"""RULES.md §11's worked examples scored by the oracle (``python -m tools.oracle --examples``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .score import score

SHARED_EXAMPLES = ("shared", "rules_examples.jsonl")


@dataclass(frozen=True)
class Example:
    id: str
    situation: dict[str, Any]
    expect: dict[str, Any]  # valid, own, paos, amounts; items: the breakdown the §11 table states


# the §11 table as written; the shared file holds the same situations and totals
TABLE = [
    Example("ex1", {"hand": "12m456m789p22345s3m", "win_tile": "3m", "self_draw": False},
            {"valid": True, "own": 3, "items": {"ping_hu": 1, "concealed": 1, "single_wait": 1}}),
    Example("ex2", {"hand": "12m456m789p22345s3m", "win_tile": "3m", "self_draw": True, "dealer": True},
            {"valid": True, "own": 4, "amounts": [8, 8, 8],
             "items": {"ping_hu": 1, "concealed": 1, "single_wait": 1, "self_draw": 1}}),
    Example("ex3", {"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "self_draw": False},
            {"valid": False}),
    Example("ex4", {"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"], "self_draw": True},
            {"valid": True, "own": 2, "items": {"ping_hu": 1, "self_draw": 1}}),
    Example("ex5", {"hand": "234m567m345p88p", "win_tile": "8p", "melds": ["pung 中"], "self_draw": False},
            {"valid": True, "own": 3, "items": {"ping_hu": 1, "dragon_pung": 1, "single_wait": 1}}),
    Example("ex6", {"hand": "111333555777s99s", "win_tile": "9s", "self_draw": True},
            {"valid": True, "own": 35,
             "items": {"qing_yi_se": 15, "peng_peng_hu": 10, "self_draw": 5, "wenrou": 5}}),
    Example("ex7", {"hand": "112233m5555p77s中中", "win_tile": "中", "self_draw": False},
            {"valid": True, "own": 20, "items": {"qi_dui": 10, "xiaosa": 5, "haohua": 5}}),
    Example("ex8", {"hand": "中中中123p456p99s", "win_tile": "9s", "melds": ["pung 白"], "self_draw": False},
            {"valid": True, "own": 12, "items": {"hong_qi": 11, "single_wait": 1}}),
    Example("ex9", {"hand": "123456789m234p66s", "win_tile": "6s", "fa": 2, "self_draw": False},
            {"valid": True, "own": 14,
             "items": {"yi_tiao_long": 10, "concealed": 1, "single_wait": 1, "fa": 2}}),
    Example("ex10", {"hand": "234m567p88s", "win_tile": "8s", "melds": ["kong 9p", "pung 3s"],
                     "self_draw": True, "events": ["kong_bloom"]},
            {"valid": True, "own": 12, "items": {"ping_hu": 1, "kong_bloom": 10, "single_wait": 1}}),
    Example("ex11", {"hand": "123m456m789p12s55p3s", "win_tile": "3s", "self_draw": False,
                     "events": ["robbing_kong"]},
            {"valid": True, "own": 13,
             "items": {"ping_hu": 1, "concealed": 1, "single_wait": 1, "robbing_kong": 10}}),
    Example("ex12", {"hand": "123m456m34s55p2s", "win_tile": "2s", "melds": ["pung 7p"], "self_draw": False,
                     "events": ["robbing_kong"]},
            {"valid": False}),
    Example("ex12b", {"hand": "123m456m34s55p2s", "win_tile": "2s", "melds": ["pung 7p"], "self_draw": False,
                      "events": ["robbing_kong"], "rules": {"specials_lift_threshold": True}},
            {"valid": True, "own": 11, "items": {"ping_hu": 1, "robbing_kong": 10}}),
    Example("ex13", {"hand": "123m456m789p12s55p3s", "win_tile": "3s", "self_draw": False,
                     "payers": [{"dealer": True, "fa": 2, "melds": ["pung 中", "concealed_kong 4s"]}]},
            {"valid": True, "own": 3, "paos": [8], "amounts": [16],
             "items": {"ping_hu": 1, "concealed": 1, "single_wait": 1}}),
    Example("ex14", {"hand": "123m456m789p12s55p3s", "win_tile": "3s", "self_draw": False,
                     "payers": [{"dealer": False, "melds": ["pung 中", "pung 白"]}]},
            {"valid": True, "own": 3, "paos": [13], "items": {"ping_hu": 1, "concealed": 1, "single_wait": 1}}),
    Example("ex15", {"hand": "123m456m789p12s55p3s", "win_tile": "3s", "fa": 4, "self_draw": False},
            {"valid": True, "own": 13, "items": {"ping_hu": 1, "concealed": 1, "single_wait": 1, "fa": 10}}),
    Example("ex16", {"hand": "11223344556677p", "win_tile": "7p", "fa": 1, "self_draw": True},
            {"valid": True, "own": 101, "items": {"qi_xian_nv": 100, "fa": 1}}),
    Example("ex17", {"hand": "222333444p白白白55p", "win_tile": "5p", "self_draw": False},
            {"valid": True, "own": 32, "items": {"hun_yi_se": 10, "peng_peng_hu": 10, "xiaosa": 5, "wenrou": 5,
                                                 "dragon_concealed_pung": 2}}),
    Example("ex18", {"hand": "3344556677p99s中中", "win_tile": "中", "self_draw": True},
            {"valid": True, "own": 30, "items": {"qi_dui": 10, "xiaosa": 15, "self_draw": 5}}),
    Example("ex19", {"hand": "11223m456p789p55s3m", "win_tile": "3m", "self_draw": False},
            {"valid": True, "own": 7, "items": {"ping_hu": 1, "concealed": 1, "shuang_bian": 5}}),
]


def shared_examples_file() -> Path | None:
    """``shared/rules_examples.jsonl`` beside the checkout or a folder above it (as tests/shared_folder.py)."""
    for folder in Path(__file__).resolve().parents:
        if (candidate := folder.joinpath(*SHARED_EXAMPLES)).exists():
            return candidate
    return None


def worked_examples(path: Path | None = None) -> list[Example]:
    """The shared file's rows, each with the table's item breakdown added; the table when no file is found."""
    path = path or shared_examples_file()
    if path is None:
        return list(TABLE)
    items = {e.id: e.expect["items"] for e in TABLE if "items" in e.expect}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        row["expect"] |= {"items": items[row["id"]]} if row["id"] in items else {}
    return [Example(row["id"], row["situation"], row["expect"]) for row in rows]


def misses(example: Example) -> list[str]:
    """What the oracle answers that ``example`` does not expect (empty when it passes)."""
    result, expect = score(example.situation), example.expect
    wrong = [f"valid {result['valid']}"] if result["valid"] != expect["valid"] else []
    if not expect["valid"]:
        return wrong
    paid = {"paos": [p["pao"] for p in result["payments"]],
            "amounts": [p["amount"] for p in result["payments"]]}
    wrong += [f"own {result['own']}"] if "own" in expect and result["own"] != expect["own"] else []
    wrong += [f"{key} {paid[key]}" for key in ("paos", "amounts") if key in expect and paid[key] != expect[key]]
    got = {i["key"]: i["pao"] for i in result["items"]}
    wrong += [f"items {got}"] if "items" in expect and got != expect["items"] else []
    return wrong


def check_examples(path: Path | None = None) -> tuple[list[str], int]:
    """A line per example and the number that fail."""
    lines, failed = [], 0
    for example in worked_examples(path):
        wrong = misses(example)
        failed += bool(wrong)
        lines.append(f"{example.id:6} {'FAIL ' + '; '.join(wrong) if wrong else 'pass'}")
    total = len(lines)
    return [*lines, f"{total - failed}/{total} worked examples pass"], failed
