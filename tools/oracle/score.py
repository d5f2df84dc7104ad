"""``score(situation) -> result``: a §10 situation scored from RULES.md alone, with §6 吃炮 and §8 settlement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .items import Items, Win, seven_pairs_items, standard_items
from .notation import (
    BAI,
    ZHONG,
    BadInput,
    Meld,
    Tile,
    is_dragon,
    parse_meld,
    parse_tile,
    parse_tiles,
    tile_name,
)
from .rules import MIN_OWN, Rules, read_rules
from .shapes import counts_of, is_seven_pairs, placements, splits, waits

EVENTS = frozenset({"kong_bloom", "kong_tears", "robbing_kong", "hai_di_lao_yue", "hai_di_pao", "tong_ku",
                    "shang_xin", "hui_tou", "tao_sheng", "wang_en"})
FALSE_WIN_PAO = 20
DEALER_FACTOR = 2
# §6: what a payer's sets give when they are not an exposed 红旗飘飘
EATEN_SUITED = {"pung": 0, "kong": 1, "concealed_kong": 2}
EATEN_DRAGON = {"pung": 1, "kong": 3, "concealed_kong": 4}
EATEN_HONG_QI = 10  # 碰中 + 碰白, plus 1 per 明杠 and 2 per 暗杠 among them (in_all) or their §6 values (on_top)


@dataclass(frozen=True)
class Payer:
    dealer: bool = False
    fa: int = 0
    melds: tuple[Meld, ...] = ()


@dataclass(frozen=True)
class Situation:
    hand: tuple[Tile, ...]
    win_tile: Tile
    melds: tuple[Meld, ...]
    fa: int
    self_draw: bool
    dealer: bool
    events: frozenset[str]
    payers: tuple[Payer, ...]  # as listed: one on a discard, up to three on 自摸
    rules: Rules

    def others(self) -> tuple[Payer, ...]:
        """The other three players: the listed payers, then plain non-dealers (§10)."""
        return (self.payers + (Payer(),) * 3)[:3]


def _count(value: Any, field: str) -> int:
    if type(value) is not int or not 0 <= value <= 4:
        raise BadInput(f"{field}: a whole number 0-4")
    return value


def _payer(entry: Any) -> Payer:
    if not isinstance(entry, dict):
        raise BadInput("a payer is an object")
    return Payer(bool(entry.get("dealer", False)), _count(entry.get("fa", 0), "payer fa"),
                 tuple(parse_meld(m) for m in entry.get("melds") or []))


def _text(situation: dict[str, Any], field: str) -> str:
    if not isinstance(value := situation.get(field), str):
        raise BadInput(f"{field}: text in mpsz notation")
    return value


def read_situation(situation: dict[str, Any]) -> Situation:
    """The §10 fields; BadInput where no table could hold these tiles."""
    sit = Situation(
        hand=tuple(parse_tiles(_text(situation, "hand"))), win_tile=parse_tile(_text(situation, "win_tile")),
        melds=tuple(parse_meld(m) for m in situation.get("melds") or []),
        fa=_count(situation.get("fa", 0), "fa"),
        self_draw=bool(situation.get("self_draw", False)), dealer=bool(situation.get("dealer", False)),
        events=frozenset(situation.get("events") or []),
        payers=tuple(_payer(p) for p in situation.get("payers") or []),
        rules=read_rules(situation.get("rules")))
    if not sit.events <= EVENTS:
        raise BadInput(f"events: any of {sorted(EVENTS)}")
    if sit.win_tile not in sit.hand:
        raise BadInput("the hand holds its winning tile (§10)")
    copies = counts_of(list(sit.hand))
    for kind, t in sit.melds + tuple(m for p in sit.payers for m in p.melds):
        copies[t] += 3 if kind == "pung" else 4
    if max(copies) > 4 or sit.fa + sum(p.fa for p in sit.payers) > 4:
        raise BadInput("more than four copies of a tile on the table (§1)")
    if len(sit.hand) != 14 - 3 * len(sit.melds):  # a player holds 13 and the winning tile, a kong as three (§2)
        raise BadInput(f"{len(sit.hand)} tiles stand in the hand, {14 - 3 * len(sit.melds)} with these melds")
    if len(sit.payers) > (3 if sit.self_draw else 1) or sum(p.dealer for p in sit.payers) + sit.dealer > 1:
        raise BadInput("too many payers or dealers")
    return sit


def eaten_from(payer: Payer, sit: Situation) -> int:
    """§6: the bonus 炮 the winner eats from what ``payer`` shows."""
    melds = list(payer.melds)
    kongs = [i for i, (kind, _) in enumerate(melds) if kind != "pung"]
    if not sit.self_draw and "kong_tears" in sit.events and kongs:
        del melds[kongs[-1]]  # 杠上流泪: the discarder's last kong is not eaten
    # 抢杠's kong is never listed: with the winning tile in the winner's hand it would be a fifth copy
    eaten = 10 if payer.fa >= 4 else payer.fa
    dragons = {t: kind for kind, t in melds if is_dragon(t)}
    eaten += sum(EATEN_SUITED[kind] for kind, t in melds if not is_dragon(t))
    if set(dragons) == {ZHONG, BAI}:
        per_set = EATEN_DRAGON if sit.rules.eaten_hong_qi_on_top else EATEN_SUITED
        return eaten + EATEN_HONG_QI + sum(per_set[kind] for kind in dragons.values())
    return eaten + sum(EATEN_DRAGON[kind] for kind in dragons.values())


def _factor(sit: Situation, payer: Payer) -> int:
    return DEALER_FACTOR if sit.dealer or payer.dealer else 1


def _item_list(items: Items) -> list[dict[str, Any]]:
    return [{"key": key, "pao": pao} for key, pao in items.items()]


def readings(sit: Situation, wait_list: list[Tile]) -> list[Items]:
    """The items of every reading of the hand (§5: every split, every place the winning tile can sit)."""
    counts = counts_of(list(sit.hand))
    win = Win(sit.melds, tuple(wait_list), sit.fa, sit.self_draw, sit.events, sit.rules)
    found = [standard_items(split, place, win)
             for split in splits(counts) for place in placements(split, sit.win_tile)]
    if is_seven_pairs(counts, len(sit.melds)):
        found.append(seven_pairs_items(counts, win))
    return found


def score(situation: dict[str, Any]) -> dict[str, Any]:
    """The §10 result, plus ``tied_items``: the item lists of every best reading (the chosen one first)."""
    sit = read_situation(situation)
    before = counts_of(list(sit.hand))
    before[sit.win_tile] -= 1
    wait_list = waits(before, list(sit.melds))
    candidates = readings(sit, wait_list)
    not_lifting = sit.rules.not_lifting()

    def lifting(items: Items) -> int:
        return sum(pao for key, pao in items.items() if key not in not_lifting)

    # highest total (§5); of two readings, one that reaches 两炮起胡 first (the project's decision, docs/engine.md)
    def rank(items: Items) -> tuple[bool, int]:
        return lifting(items) >= MIN_OWN, sum(items.values())

    best_rank = max(map(rank, candidates), default=(False, 0))
    tied: list[Items] = []
    for items in candidates:
        if rank(items) == best_rank and items not in tied:
            tied.append(items)
    best = tied[0] if tied else {}
    result: dict[str, Any] = {"valid": bool(tied) and best_rank[0], "own": sum(best.values()),
                              "items": _item_list(best), "waits": [tile_name(t) for t in wait_list],
                              "tied_items": [_item_list(items) for items in tied]}
    if not result["valid"]:
        result["reason"] = ("not a winning hand" if not tied else f"own 炮 below {MIN_OWN} (两炮起胡)")
        result["payments"] = [{"payer": "claimant", "payee": i, "pao": FALSE_WIN_PAO,
                               "amount": FALSE_WIN_PAO * _factor(sit, other)}
                              for i, other in enumerate(sit.others())]
        return result
    payers = sit.others() if sit.self_draw else sit.others()[:1]
    eaten = [eaten_from(p, sit) for p in payers]
    if sit.self_draw and sit.rules.pool_eaten:
        eaten = [sum(eaten)] * len(eaten)
    result["payments"] = [{"payer": i, "eaten": e, "pao": result["own"] + e,
                           "amount": (result["own"] + e) * _factor(sit, p)}
                          for i, (p, e) in enumerate(zip(payers, eaten, strict=True))]
    return result
