"""Score one winning claim: read the hand every possible way, value every reading with the
items of ``items.ITEMS``, apply the ruleset's ``[replaces]`` table, keep the highest total, and
decide validity (诈胡 / 两炮起胡). Settlement is in ``settlement``."""

from __future__ import annotations

from dataclasses import dataclass

from .hand import Hand, WinContext
from .items import FLOWER, ITEMS, Facts, Reading, shown
from .ruleset import OPTIONAL_ITEMS, Ruleset
from .settlement import Payment, settle
from .shapes import BAI, SEQ, TRIPLET, ZHONG, is_seven_pairs, standard_splits, waits
from .tiles import TILES


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


def active_events(ctx: WinContext, rules: Ruleset) -> frozenset[str]:
    """Events that score: optional ones only when the ruleset switches them on."""
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


def _patterns(hand: Hand, r: Reading, rules: Ruleset, suits: set[int], dragons: bool) -> frozenset[str]:
    found = []
    if len(suits) == 1:
        found.append("hun_yi_se" if dragons else "qing_yi_se")
    counts = hand.counts
    if r.seven:
        found.append("qi_dui")
        pairs = [i for i in range(27) if counts[i] == 2]
        if len(pairs) == 7 and pairs[-1] - pairs[0] == 6 and pairs[0] // 9 == pairs[-1] // 9:
            found.append("qi_xian_nv")
        need = 2 if rules.options["hong_qi_seven_pairs"] == "pairs" else 4
        if counts[ZHONG] >= need and counts[BAI] >= need:
            found.append("hong_qi")
        return frozenset(found)
    if r.peng_peng:
        found.append("peng_peng_hu")
    seqs = {t for k, t in r.sets if k == SEQ}
    if any(b in seqs and b + 3 in seqs and b + 6 in seqs for b in (0, 9, 18)):
        found.append("yi_tiao_long")
    dragon_tiles = {t for t, _k, _b in r.dragon_sets}
    if ZHONG in dragon_tiles and BAI in dragon_tiles:
        found.append("hong_qi")
    return frozenset(found)


def _roles(pair: int, sets: tuple, win: int) -> list[tuple]:
    roles: list[tuple] = []
    if pair == win:
        roles.append(("pair",))
    for kind, t in sets:
        role = ("tri", t) if kind == TRIPLET and t == win else (
            ("seq", t, win - t) if kind == SEQ and t <= win <= t + 2 else None)
        if role is not None and role not in roles:
            roles.append(role)
    return roles


def readings(f: Facts) -> list[Reading]:
    """Every reading of the hand: each split with each role of the winning tile, and 七对."""
    hand, rules = f.hand, f.rules
    out = []
    for pair, sets in standard_splits(hand.counts):
        for role in _roles(pair, sets, hand.win_tile):
            r = Reading(f, False, pair, sets, role)
            r.patterns = _patterns(hand, r, rules, f.suits, f.dragons)
            out.append(r)
    if not hand.melds and is_seven_pairs(hand.counts):
        r = Reading(f, True, -1, (), ("seven",))
        r.patterns = _patterns(hand, r, rules, f.suits, f.dragons)
        out.append(r)
    return out


_TRIED: dict[int, tuple[Ruleset, dict[int, tuple]]] = {}


def _items_to_try(rules: Ruleset, mask: int) -> tuple:
    """ITEMS this reading can show (optional items only when switched on); cached per ruleset."""
    entry = _TRIED.get(id(rules))
    if entry is None or entry[0] is not rules:
        if len(_TRIED) > 64:  # rulesets made from per-situation overrides come and go
            _TRIED.clear()
        entry = _TRIED[id(rules)] = (rules, {})
    tried = entry[1].get(mask)
    if tried is None:
        tried = entry[1][mask] = tuple(
            (key, item) for key, _name, item, needs in ITEMS
            if (not needs or needs & mask) and (key not in OPTIONAL_ITEMS or key in rules.optional))
    return tried


def value(r: Reading) -> dict[str, int]:
    """All items of one reading after the replaces table: key -> 炮 (non-zero only)."""
    values = {}
    for key, item in _items_to_try(r.rules, shown(r)):
        v = item(r)
        if v:
            values[key] = v
    if r.rules.replaces.keys() & values.keys():
        return apply_replaces(values, r.rules)
    return values


def describe(seven: bool, pair: int, sets: tuple, melds: tuple) -> tuple[str, ...]:
    if seven:
        return ("七对",)
    parts = []
    for kind, t in sets:
        tile = TILES[t]
        if kind == SEQ:
            parts.append(f"{tile.rank}{tile.rank + 1}{tile.rank + 2}{tile.suit}")
        else:
            parts.append(_group(t, 3))
    parts.append(_group(pair, 2))
    for m in melds:
        parts.append(f"{m.kind.chinese}{_group(m.tile.index, m.kind.size)}")
    return tuple(parts)


def _group(t: int, n: int) -> str:
    tile = TILES[t]
    return tile.symbol * n if tile.suit is None else f"{str(tile.rank) * n}{tile.suit}"


def score_hand(hand: Hand, ctx: WinContext, rules: Ruleset) -> Score:
    """Score a claim: the best reading, validity, and the payments it settles to."""
    before = list(hand.counts)
    before[hand.win_tile] -= 1
    used = list(before)
    for m in hand.melds:
        used[m.tile.index] += m.kind.size
    wait = waits(tuple(before), tuple(used), hand.n_sets)
    facts = Facts(hand, ctx, rules, active_events(ctx, rules), len(wait) == 1)
    best: tuple | None = None
    for r in readings(facts):
        values = value(r)
        own = sum(values.values())
        lift = own - sum(v for k, v in values.items() if k in rules.not_lifting)
        key = (lift >= rules.min_own, own)
        if best is None or key > best[0]:
            best = (key, r, values, own, lift)
    wait = tuple(sorted(wait))
    if best is None:
        reason = "not a winning hand: the tiles form neither 4 sets + a pair nor seven pairs"
        return Score(False, 0, (), settle(False, 0, hand, ctx, rules), reason, (), wait, 0)
    (ok, own), r, values, own, lift = best
    items = tuple(values.items())
    reason = "" if ok else (
        f"only {lift} own 炮 count towards 两炮起胡 (needs {rules.min_own})"
        + (f"; {', '.join(k for k in values if k in rules.not_lifting)} do not help" if lift != own else "")
    )
    split = (r.seven, r.pair, r.sets, hand.melds)
    return Score(ok, own, items, settle(ok, own, hand, ctx, rules), reason, split, wait, lift)


__all__ = ["FLOWER", "Score", "apply_replaces", "readings", "score_hand", "value"]
