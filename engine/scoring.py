"""Score one winning claim: read the hand every possible way, value every reading with the
items of ``items.ITEMS``, apply the ruleset's ``[replaces]`` table, keep the highest total, and
decide validity (诈胡 / 两炮起胡). Settlement is in ``settlement``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeVar

from .hand import EVENTS, Hand, WinContext
from .items import ITEMS, Facts, Item, Reading, shown
from .ruleset import OPTIONAL_ITEMS, Ruleset, least_win_name
from .settlement import Payment, settle
from .shapes import (
    BAI,
    FA,
    PART_OF,
    SEQ,
    ZHONG,
    Joined,
    Part,
    completing,
    hand_parts,
    is_seven_pairs,
    part_splits,
)
from .tiles import TILES

_C = TypeVar("_C")
_new_object: Final = object.__new__
EVENT_ITEMS: Final = frozenset(EVENTS)  # items given only by an event of the situation
ONE_SUIT: Final = (1, 2, 4)  # Facts.suits masks with a single suit
# the items worth trying on a reading (key, function), and whether any of them replaces others
Tried = tuple[tuple[tuple[str, Item], ...], bool]
_PASSES: Final = 1 << 40  # added to a reading's own 炮 when it reaches 两炮起胡, to rank readings by one int


def _python_class(cls: type[_C]) -> type[_C]:
    """Leaves a class as it is. Under mypyc any decorator it does not know keeps the class an
    ordinary Python class: a compiled dataclass runs an interpreted ``__init__`` and has no
    ``__dict__``, and ``new_score`` needs one."""
    return cls


@_python_class
@dataclass(frozen=True)
class Score:
    """The result of one claim. ``items`` are (key, 炮) of the chosen reading."""

    valid: bool
    own: int
    items: tuple[tuple[str, int], ...]
    payments: tuple[Payment, ...]
    reason: str = ""
    split: tuple = ()              # the chosen reading: (seven pairs?, pair tile, sets, melds)
    waits: tuple[int, ...] = ()    # tile ids the hand waited on before the winning tile
    threshold_own: int = 0         # own 炮 that count towards 两炮起胡

    @property
    def reading(self) -> tuple[str, ...]:
        """The chosen split as text, e.g. ("123m", "456m", "22s", "碰中中中") or ("七对",)."""
        return describe(*self.split) if self.split else ()


def new_score(valid: bool, own: int, items: tuple, payments: tuple, reason: str, split: tuple,
              waits: tuple[int, ...], threshold_own: int) -> Score:
    """The same value as ``Score(...)`` with every field given, made without the frozen
    ``__init__``'s eight guarded attribute writes (the scorer's hot path)."""
    score = _new_object(Score)
    fields = score.__dict__  # written directly, past the frozen dataclass's guard
    fields["valid"] = valid
    fields["own"] = own
    fields["items"] = items
    fields["payments"] = payments
    fields["reason"] = reason
    fields["split"] = split
    fields["waits"] = waits
    fields["threshold_own"] = threshold_own
    return score


def active_events(ctx: WinContext, rules: Ruleset) -> frozenset[str]:
    """Events that score: optional ones only when the ruleset switches them on."""
    if not ctx.events:
        return ctx.events
    return frozenset(e for e in ctx.events if e not in OPTIONAL_ITEMS or e in rules.optional)


def apply_replaces(values: dict[str, int], rules: Ruleset) -> dict[str, int]:
    """The one place where items cancel each other (ruleset ``[replaces]``; "*" = all but 发)."""
    removed: set[str] = set()
    for key in values:
        for gone in rules.replaces.get(key, ()):
            if gone == "*":
                removed.update(k for k in values if k not in (key, "fa"))
            else:
                removed.add(gone)
    return {k: v for k, v in values.items() if k not in removed}


def _patterns(hand: Hand, r: Reading, rules: Ruleset, suits: int, dragons: bool, run: bool = False) -> tuple[str, ...]:
    """The 花炮 patterns of a reading; ``run``: the split holds 123 456 789 of one suit (the split knows;
    seven pairs never do)."""
    found: list[str] = []
    if suits in ONE_SUIT:
        found.append("hun_yi_se" if dragons else "qing_yi_se")
    if r.seven:
        counts = hand.counts
        found.append("qi_dui")
        if found and not dragons:  # 七仙女: seven different pairs in a row of one suit
            pairs = [i for i in range(27) if counts[i] == 2]
            if len(pairs) == 7 and pairs[-1] - pairs[0] == 6 and pairs[0] // 9 == pairs[-1] // 9:
                found.append("qi_xian_nv")
        need = 2 if rules.options["hong_qi_seven_pairs"] == "pairs" else 4
        if counts[ZHONG] >= need and counts[BAI] >= need:
            found.append("hong_qi")
        return _worth_something(found, rules)
    if r.peng_peng:
        found.append("peng_peng_hu")
    elif run:
        found.append("yi_tiao_long")
    if len(r.dragon_sets) >= 2:
        dragon_tiles = {t for t, _k, _b in r.dragon_sets}
        if ZHONG in dragon_tiles and BAI in dragon_tiles:
            found.append("hong_qi")
    return _worth_something(found, rules)


def _worth_something(found: list[str], rules: Ruleset) -> tuple[str, ...]:
    """The patterns a house ruleset has not set to 0 炮: one worth nothing there is no 花炮 (the hand keeps its 平胡
    base, plain additions and its 中/白 sets at their own values), not a pattern that takes those away."""
    return tuple(p for p in found if rules.pao[p])


def _readings(f: Facts, splits: list[Joined], seven: bool) -> list[Reading]:
    hand, win = f.hand, f.hand.win_tile
    part = PART_OF[win]
    out = []
    # no 花炮 can show in a split with a sequence, no 一条龙, several suits and no 中/白
    plain = not f.dragons and f.suits not in ONE_SUIT
    for pair, sets, n_seq, run, pieces in splits:
        patterns: tuple[str, ...] | None = () if plain and n_seq and not run else None
        for role in pieces[part].roles.get(win, ()):
            r = Reading(f, False, pair, sets, role, n_seq == 0, patterns or ())
            if patterns is None:  # the same for every role of the winning tile in this split
                patterns = r.patterns = _patterns(hand, r, f.rules, f.suits, f.dragons, run)
            out.append(r)
    if seven:
        r = Reading(f, True, -1, (), ("seven",), False)
        r.patterns = _patterns(hand, r, f.rules, f.suits, f.dragons)
        out.append(r)
    return out


def readings(f: Facts) -> list[Reading]:
    """Every reading of the hand: each split with each role of the winning tile, and 七对."""
    counts = f.hand.counts
    splits = part_splits(hand_parts(counts)) if not counts[FA] else []
    return _readings(f, splits, not f.hand.melds and is_seven_pairs(counts))


class _Derived:
    """Lookups derived from one ruleset, made once: items worth trying per ``shown`` mask, the
    payments of claims nobody shows anything to eat from, and whether not_lifting goes beyond events."""

    __slots__ = ("rules", "tried", "plain_payments", "not_lifting_beyond_events")

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.tried: dict[int, Tried] = {}
        self.plain_payments: dict[tuple, tuple[Payment, ...]] = {}
        self.not_lifting_beyond_events = not rules.not_lifting <= EVENT_ITEMS


_DERIVED: Final[dict[int, _Derived]] = {}


def _derived(rules: Ruleset) -> _Derived:
    d = _DERIVED.get(id(rules))
    if d is None or d.rules is not rules:
        if len(_DERIVED) > 64:  # rulesets made from per-situation overrides come and go
            _DERIVED.clear()
        d = _DERIVED[id(rules)] = _Derived(rules)
    return d


def _items_to_try(rules: Ruleset, mask: int) -> Tried:
    """ITEMS this reading can show (optional items only when switched on), and whether any of
    them replaces others; cached per ruleset."""
    tried = _derived(rules).tried
    hit = tried.get(mask)
    if hit is None:
        items = tuple((key, item) for key, _name, item, needs in ITEMS
                      if (not needs or needs & mask) and (key not in OPTIONAL_ITEMS or key in rules.optional))
        hit = tried[mask] = (items, any(key in rules.replaces for key, _item in items))
    return hit


def _value(r: Reading, tried: dict[int, Tried]) -> dict[str, int]:
    mask = shown(r)
    items, may_replace = tried.get(mask) or _items_to_try(r.rules, mask)
    values = {}
    for key, item in items:
        v = item(r)
        if v:
            values[key] = v
    if may_replace:
        replaces = r.rules.replaces
        for key in values:
            if key in replaces:
                return apply_replaces(values, r.rules)
    return values


def value(r: Reading) -> dict[str, int]:
    """All items of one reading after the replaces table: key -> 炮 (non-zero only)."""
    return _value(r, _derived(r.rules).tried)


SYMBOLS: Final = tuple(t.symbol for t in TILES)  # by class id: '5p', '中'


def _group(t: int, n: int) -> str:
    return SYMBOLS[t] * n if t >= 27 else f"{str(t % 9 + 1) * n}{'mps'[t // 9]}"


def describe(seven: bool, pair: int, sets: tuple, melds: tuple) -> tuple[str, ...]:
    """A reading as text, sets in suit order, then the pair and the melds."""
    if seven:
        return ("七对",)
    parts = []
    for kind, t in sorted(sets, key=lambda s: (s[1], s[0])):
        parts.append(f"{t % 9 + 1}{t % 9 + 2}{t % 9 + 3}{'mps'[t // 9]}" if kind == SEQ else _group(t, 3))
    parts.append(_group(pair, 2))
    for m in melds:
        parts.append(f"{m.kind.chinese}{_group(m.tile.index, m.kind.size)}")
    return tuple(parts)


def _settle(ok: bool, own: int, hand: Hand, ctx: WinContext, rules: Ruleset, derived: _Derived) -> tuple:
    if ctx.payers:
        return settle(ok, own, hand, ctx, rules)
    # nobody shows anything: the payments follow from these four values alone
    key = (ok, own, ctx.self_draw, ctx.dealer)
    hit = derived.plain_payments.get(key)
    if hit is None:
        if len(derived.plain_payments) > 4096:
            derived.plain_payments.clear()
        hit = derived.plain_payments[key] = settle(ok, own, hand, ctx, rules)
    return hit


def _waits_before(parts: tuple[Part, ...], counts: tuple[int, ...], w: int, melds: tuple, n_sets: int) -> tuple[int, ...]:
    """Tile ids the hand waited on before the winning tile ``w``, in order; never a fifth copy."""
    found = completing(parts, n_sets == 4, w)
    if not melds:
        if parts[0].four or parts[1].four or parts[2].four or parts[3].four or parts[4].four:
            return tuple([t for t in found if t == w or counts[t] < 4])
        return found
    held = list(counts)  # copies held before winning, melds included
    held[w] -= 1
    for kind, t in melds:
        held[t] += 3 if kind == "pung" else 4
    return tuple([t for t in found if held[t] < 4])


def score_hand(hand: object, ctx: object, rules: object) -> Score:
    """Score a claim: the best reading, validity, and the payments it settles to."""
    # typed object: compiled, typed parameters would refuse a wrong one with a TypeError (the Python source: an
    # AttributeError somewhere inside); checked once here, the rest reads them as the types they are
    if not isinstance(hand, Hand) or not isinstance(ctx, WinContext) or not isinstance(rules, Ruleset):
        raise ValueError(f"score_hand takes a Hand (make_hand), a WinContext (make_context) and a Ruleset "
                         f"(load_ruleset), got {type(hand).__name__}, {type(ctx).__name__}, {type(rules).__name__}")
    counts, w = hand.counts, hand.win_tile
    melds = hand.meld_ids if hand.melds else ()
    n_sets = 4 - len(melds)
    parts = hand_parts(counts)
    no_fa = not counts[FA]
    n_tiles = parts[0].size + parts[1].size + parts[2].size + parts[3].size + parts[4].size + counts[FA]
    wait = _waits_before(parts, counts, w, melds, n_sets) if no_fa and n_tiles == 3 * n_sets + 2 else ()
    derived = _DERIVED.get(id(rules))
    if derived is None or derived.rules is not rules:
        derived = _derived(rules)
    facts = Facts(hand, ctx, rules, active_events(ctx, rules) if ctx.events else ctx.events, len(wait), parts)
    seven = not melds and n_tiles == 14 and no_fa and not (
        parts[0].odd or parts[1].odd or parts[2].odd or parts[3].odd or parts[4].odd)
    best = None  # the first reading with the highest (counts for 两炮起胡, own 炮)
    best_key = -1
    min_own, not_lifting, tried = rules.min_own, rules.not_lifting, derived.tried
    check_lift = facts.events or derived.not_lifting_beyond_events
    for r in _readings(facts, part_splits(parts) if no_fa else [], seven):
        values = _value(r, tried)
        own = 0
        for v in values.values():  # (a loop: cheaper than sum() once compiled)
            own += v
        lift = own
        if check_lift:
            for k in not_lifting:
                if k in values:
                    lift -= values[k]
        key = own + _PASSES if lift >= min_own else own
        if key > best_key:
            best, best_key, best_values, best_lift = r, key, values, lift
    if best is None:
        reason = "not a winning hand: the tiles form neither 4 sets + a pair nor seven pairs"
        return Score(False, 0, (), _settle(False, 0, hand, ctx, rules, derived), reason, (), wait, 0)
    ok, values, lift = best_key >= _PASSES, best_values, best_lift
    own = best_key - _PASSES if ok else best_key
    reason = "" if ok else (
        f"only {lift} own 炮 {'counts' if lift == 1 else 'count'} towards {least_win_name(rules.min_own)} "
        f"(needs {rules.min_own})"
        + (f"; not counted for it: {', '.join(k for k in values if k in rules.not_lifting)}" if lift != own else "")
    )
    payments = None if ctx.payers else derived.plain_payments.get((ok, own, ctx.self_draw, ctx.dealer))
    return new_score(ok, own, tuple(values.items()), payments or _settle(ok, own, hand, ctx, rules, derived), reason,
                     (best.seven, best.pair, best.sets, hand.melds), wait, lift)


__all__ = ["Score", "apply_replaces", "describe", "readings", "score_hand", "value"]
