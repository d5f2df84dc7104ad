"""The oracle against the engine (``xingzi.engine.score_situation``), situation by situation, in process."""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from xingzi.engine import score_situation

from .notation import BadInput
from .score import score

ItemBag = tuple[tuple[str, int], ...]  # items as a sorted multiset of (key, 炮)
SHOWN = ("valid", "own", "items", "payments", "waits", "reason", "error")


def oracle_answer(situation: dict[str, Any]) -> dict[str, Any]:
    try:
        return score(situation)
    except BadInput as e:
        return {"error": str(e)}


def engine_answer(situation: dict[str, Any]) -> dict[str, Any]:
    try:  # a copy: the engine is free to keep or change what it is given
        return score_situation(copy.deepcopy(situation))
    except ValueError as e:
        return {"error": str(e)}


def item_bag(items: list[dict[str, Any]]) -> ItemBag:
    return tuple(sorted(Counter((i["key"], i["pao"]) for i in items).elements()))


def _paid(result: dict[str, Any]) -> list[tuple[Any, Any]]:
    return [(p.get("pao"), p.get("amount")) for p in result.get("payments") or []]


def disagreement(oracle: dict[str, Any], engine: dict[str, Any]) -> str | None:
    """The name of the group a differing pair falls in; None when they agree.

    Items agree when the engine's are those of one of the oracle's best readings: §5 says only "take the
    highest", so readings of equal total may be told apart either way.
    """
    if "error" in oracle or "error" in engine:
        if "error" in oracle and "error" in engine:
            return None
        return f"only the oracle refuses: {oracle['error'][:60]}" if "error" in oracle else \
            f"only the engine refuses: {engine['error'][:60]}"
    if oracle["valid"] != engine["valid"]:
        return f"valid: oracle {oracle['valid']}, engine {engine['valid']}"
    engine_items = item_bag(engine["items"])
    tied = {item_bag(items) for items in [oracle["items"], *oracle.get("tied_items", [])]}
    same_totals = oracle["own"] == engine["own"] and _paid(oracle) == _paid(engine)
    if engine_items not in tied or not same_totals:
        ours, theirs = Counter[str](), Counter[str]()  # 炮 per key: + only the oracle's, - only the engine's
        for bag, count in ((item_bag(oracle["items"]), ours), (engine_items, theirs)):
            for key, pao in bag:
                count[key] += pao
        changed = [("+" if key not in theirs else "-" if key not in ours else "~") + key
                   for key in sorted(set(ours) | set(theirs)) if ours[key] != theirs[key]]
        if changed:
            return "items " + " ".join(changed)
        return "own" if oracle["own"] != engine["own"] else "payments"
    return None


@dataclass
class Report:
    """Counts, and the smallest situations of each disagreement group."""

    show: int = 3
    total: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def disagreeing(self) -> int:
        return sum(self.counts.values())

    def add(self, situation: dict[str, Any], oracle: dict[str, Any], engine: dict[str, Any]) -> None:
        self.total += 1
        group = disagreement(oracle, engine)
        if group is None:
            return
        self.counts[group] += 1
        kept = self.examples.setdefault(group, [])
        kept.append({"situation": situation, "oracle": {k: oracle[k] for k in SHOWN if k in oracle},
                     "engine": {k: engine[k] for k in SHOWN if k in engine}})
        kept.sort(key=lambda e: len(json.dumps(e["situation"], ensure_ascii=False)))  # the shortest first
        del kept[self.show:]

    def lines(self) -> list[str]:
        out = [f"situations {self.total}  agree {self.total - self.disagreeing}  disagree {self.disagreeing}  "
               f"groups {len(self.counts)}"]
        for group, n in self.counts.most_common():
            out.append(f"{n:6d}  {group}")
            out += [json.dumps(e, ensure_ascii=False) for e in self.examples[group]]
        return out


def compare(situations: list[dict[str, Any]], show: int = 3) -> Report:
    report = Report(show=show)
    for situation in situations:
        report.add(situation, oracle_answer(situation), engine_answer(situation))
    return report
