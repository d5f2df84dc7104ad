"""The oracle against the engine, in process: situation by situation (``xingzi.engine.score_situation``) or
round by round (``xingzi.engine.score_round`` against ``rounds.settle_round``)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xingzi.engine import score_round, score_situation

from .notation import BadInput
from .rounds import settle_round
from .score import score

Answer = dict[str, Any]

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


def refusal(oracle: Answer, engine: Answer) -> str | None:
    """The group of a pair that only one side refused; "" when both did (they agree), None when neither did."""
    if "error" in oracle and "error" in engine:
        return ""
    if "error" in oracle:
        return f"only the oracle refuses: {oracle['error'][:60]}"
    if "error" in engine:
        return f"only the engine refuses: {engine['error'][:60]}"
    return None


def disagreement(oracle: dict[str, Any], engine: dict[str, Any]) -> str | None:
    """The name of the group a differing pair falls in; None when they agree.

    Items agree when the engine's are those of one of the oracle's best readings: §5 says only "take the
    highest", so readings of equal total may be told apart either way.
    """
    if (refused := refusal(oracle, engine)) is not None:
        return refused or None
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


def shown(answer: Answer) -> Answer:
    return {k: answer[k] for k in SHOWN if k in answer}


@dataclass
class Report:
    """Counts, and the smallest cases (situations or rounds) of each disagreement group."""

    show: int = 3
    noun: str = "situations"
    judge: Callable[[Answer, Answer], str | None] = disagreement
    trim: Callable[[Answer], Answer] = shown  # what an example prints of each answer
    total: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def disagreeing(self) -> int:
        return sum(self.counts.values())

    def add(self, case: dict[str, Any], oracle: dict[str, Any], engine: dict[str, Any]) -> None:
        self.total += 1
        group = self.judge(oracle, engine)
        if group is None:
            return
        self.counts[group] += 1
        kept = self.examples.setdefault(group, [])
        name = self.noun.removesuffix("s")
        kept.append({name: case, "oracle": self.trim(oracle), "engine": self.trim(engine)})
        kept.sort(key=lambda e: len(json.dumps(e[name], ensure_ascii=False)))  # the shortest first
        del kept[self.show:]

    def lines(self) -> list[str]:
        out = [f"{self.noun} {self.total}  agree {self.total - self.disagreeing}  disagree {self.disagreeing}  "
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


def oracle_round(round_: dict[str, Any]) -> Answer:
    try:
        return settle_round(round_)
    except BadInput as e:
        return {"error": str(e)}


def engine_round(round_: dict[str, Any]) -> Answer:
    try:
        return score_round(copy.deepcopy(round_))
    except ValueError as e:
        return {"error": str(e)}


def _by_seat(payments: list[dict[str, Any]] | None) -> list[tuple[Any, Any]]:
    """Payments as (seat, amount), in seat order: the contract fixes only who is paid first on a false claim."""
    return sorted(((p.get("seat"), p.get("amount")) for p in payments or []), key=repr)


def _win_problem(oracle: Answer, engine: Answer, discarder: Any) -> str | None:
    if (group := disagreement(oracle, engine)) not in (None, "payments"):
        return f"win {group}"
    if _by_seat(oracle["payments"]) != _by_seat(engine.get("payments")):
        return "win (seat, amount)"
    first = (engine.get("payments") or [{}])[0].get("seat")
    if not oracle["valid"] and discarder is not None and first != discarder:
        return "false claim: the discarder not paid first"
    return "win deltas" if oracle["deltas"] != engine.get("deltas") else None


def round_disagreement(oracle: Answer, engine: Answer) -> str | None:
    """The problems of a differing pair of round answers, joined; None when they agree."""
    if (refused := refusal(oracle, engine)) is not None:
        return refused or None
    theirs = engine.get("results") or []
    if [r["seat"] for r in oracle["results"]] != [r.get("seat") for r in theirs]:
        problems = ["claimant seats"]
    else:
        discarder = oracle["discarder"]
        problems = [p for o, e in zip(oracle["results"], theirs, strict=True)
                    if (p := _win_problem(o, e, discarder)) is not None]
    if _by_seat(oracle["follow_dealer"]) != _by_seat(engine.get("follow_dealer")):
        problems.append("跟庄 (seat, amount)")
    if oracle["next_dealer"] != engine.get("next_dealer"):
        problems.append("next_dealer")
    if oracle["deltas"] != engine.get("deltas") and not problems:
        problems.append("deltas")
    return " + ".join(dict.fromkeys(problems)) or None


def round_shown(answer: Answer) -> Answer:
    """A round answer cut down to what is compared: seats, validity, (seat, amount) payments, deltas."""
    if "error" in answer:
        return {"error": answer["error"]}
    results = [{"seat": r.get("seat"), "valid": r.get("valid"), "own": r.get("own"),
                "paid": [[p.get("seat"), p.get("amount")] for p in r.get("payments") or []]}
               for r in answer.get("results") or []]
    return {"results": results, "follow_dealer": [[p.get("seat"), p.get("amount")] for p in
                                                  answer.get("follow_dealer") or []],
            "next_dealer": answer.get("next_dealer"), "deltas": answer.get("deltas")}


def compare_rounds(rounds: list[dict[str, Any]], show: int = 3) -> Report:
    report = Report(show=show, noun="rounds", judge=round_disagreement, trim=round_shown)
    for round_ in rounds:
        report.add(round_, oracle_round(round_), engine_round(round_))
    return report
