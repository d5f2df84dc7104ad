"""The events a claim declares that its score leaves out, each with why: an optional addition switched off
(RULES.md §4 说明2), an event whose condition the hand does not meet (痛苦 needs an edge or middle wait, 伤心痛苦 a
two-sided one), one another item replaces, or one worth nothing under these rules. The score is right to leave them
out; this says so beside it (the JSON's ``events_not_counted``, the text's "not counted" lines)."""

from __future__ import annotations

from typing import Final

from .hand import EVENT_NAMES, EVENTS, Hand, WinContext
from .items import NAMES, Facts
from .ruleset import OPTIONAL_ITEMS, Ruleset
from .scoring import SYMBOLS, Score, readings

OFF: Final = "optional, off under these rules"
NEEDS: Final = {
    "tong_ku": "needs an edge or middle wait (边张/夹心) and no other tile kind waited on",
    "shang_xin": "needs a two-sided wait (两面) on exactly the two kinds either side of the run the winning "
                 "tile closes, the other side not all held by the winner",
}


def wait_shape(role: tuple) -> str:
    """How a reading's winning tile completed the hand: 单钓 pair, 对倒 triplet, 边张 edge, 夹心 middle, 两面 two-sided."""
    if role[0] in ("pair", "seven"):
        return "单钓 pair"
    if role[0] == "tri":
        return "对倒 triplet"
    first, pos = role[1] % 9, role[2]
    if pos == 1:
        return "夹心 middle"
    return "边张 edge" if (pos == 2 and first == 0) or (pos == 0 and first == 6) else "两面 two-sided"


def _shape_said(score: Score, hand: Hand, ctx: WinContext, rules: Ruleset) -> str:
    facts = Facts(hand, ctx, rules, frozenset(), len(score.waits))
    shapes = list(dict.fromkeys(wait_shape(r.role) for r in readings(facts)))
    waited = " ".join(SYMBOLS[t] for t in score.waits) or "-"
    return f"{SYMBOLS[hand.win_tile]} completed the hand as {' or '.join(shapes)}, and it waited on {waited}"


def _why(event: str, score: Score, hand: Hand, ctx: WinContext, rules: Ruleset) -> str:
    if event in OPTIONAL_ITEMS and event not in rules.optional:
        return OFF
    scored = [k for k, _pao in score.items]
    for key in scored:
        gone = rules.replaces.get(key, ())
        if event in gone or ("*" in gone and event != key):
            return f"replaced by {NAMES[key]} {key} (the ruleset's [replaces])"
    if event in NEEDS:
        return f"{NEEDS[event]}: {_shape_said(score, hand, ctx, rules)}"
    start = rules.pao["hai_di_pao_start"]
    if event == "hai_di_pao" and rules.options["hai_di_pao"] == "start_at_10" and start:  # lifts a lower base only
        return f"the hand's base is {start} or more already (hai_di_pao = \"start_at_10\")"
    return "worth 0 炮 under these rules"


def events_not_counted(score: Score, hand: Hand, ctx: WinContext, rules: Ruleset) -> list[dict[str, str]]:
    """``{"event", "name", "reason"}`` for each event of ``ctx`` that the score does not count, in the order of
    EVENTS; none where the tiles are no winning hand (nothing is counted then, and the score's reason says why)."""
    if not ctx.events or not score.split:
        return []
    scored = {k for k, _pao in score.items}
    return [{"event": e, "name": EVENT_NAMES[e], "reason": _why(e, score, hand, ctx, rules)}
            for e in EVENTS if e in ctx.events and e not in scored]
