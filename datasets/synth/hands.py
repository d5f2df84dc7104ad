"""Sampling the hand shown in a synthetic photo: legal Xingzi wins (rare patterns weighted up)
and some non-winning rows.

A :class:`Deal` is what lies on the table: the concealed row (without the winning tile), the
winning tile, the melds in the order they were made, and the 发 set aside. ``situation()`` turns
it into the §10 scoring JSON of ``../shared/RULES.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import format_meld, format_tiles
from xingzi.engine.tiles import SUITS, Tile

# pattern -> weight; rare patterns are over-represented on purpose
PATTERN_WEIGHTS: dict[str, float] = {
    "ping_hu": 0.20, "kongs": 0.10, "qi_dui": 0.09, "haohua": 0.04, "peng_peng_hu": 0.10,
    "qing_yi_se": 0.10, "hun_yi_se": 0.08, "yi_tiao_long": 0.06, "hong_qi": 0.08,
    "qi_xian_nv": 0.04, "not_winning": 0.11,
}
_HAND_TILES = tuple(t for t in Tile if t is not Tile.FA)  # 发 never stands in a hand
_FA_WEIGHTS = np.array([0.55, 0.2, 0.12, 0.07, 0.06])


@dataclass(frozen=True)
class Deal:
    pattern: str
    concealed: tuple[Tile, ...]  # the row standing in the hand, winning tile NOT included
    win_tile: Tile
    melds: tuple[Meld, ...]
    fa: int
    self_draw: bool
    dealer: bool

    @property
    def hand(self) -> tuple[Tile, ...]:
        """The §10 ``hand``: concealed tiles plus the winning tile."""
        return self.concealed + (self.win_tile,)

    def situation(self) -> dict:
        payer = {"dealer": False, "fa": 0, "melds": []}
        payers = [dict(payer) for _ in range(3 if self.self_draw else 1)]
        return {
            "hand": format_tiles(list(self.hand)),
            "win_tile": format_tiles([self.win_tile]),
            "melds": [format_meld(m) for m in self.melds],
            "fa": self.fa,
            "self_draw": self.self_draw,
            "dealer": self.dealer,
            "events": [],
            "payers": payers,
            "rules": {},
        }


class _Retry(Exception):
    """The drawn sets use a tile more than four times; draw again."""


def _tile(suit: str, rank: int) -> Tile:
    return Tile(f"{rank}{suit}")


def _random_set(rng: np.random.Generator, suits: tuple[str, ...], dragons: bool, trip_p: float) -> tuple:
    if dragons and rng.random() < 0.15:
        return ("trip", Tile.ZHONG if rng.random() < 0.5 else Tile.BAI)
    suit = suits[rng.integers(len(suits))]
    if rng.random() < trip_p:
        return ("trip", _tile(suit, int(rng.integers(1, 10))))
    return ("seq", _tile(suit, int(rng.integers(1, 8))))


def _set_tiles(s: tuple) -> list[Tile]:
    kind, t = s
    if kind == "trip":
        return [t, t, t]
    return [_tile(t.suit, t.rank + k) for k in range(3)]


def _random_pair(rng: np.random.Generator, suits: tuple[str, ...], dragons: bool) -> Tile:
    if dragons and rng.random() < 0.12:
        return Tile.ZHONG if rng.random() < 0.5 else Tile.BAI
    return _tile(suits[rng.integers(len(suits))], int(rng.integers(1, 10)))


def _standard(rng: np.random.Generator, pattern: str) -> tuple[list[tuple], Tile]:
    """Four sets and a pair shaped by the pattern."""
    all_suits = tuple(SUITS)
    one_suit = (all_suits[rng.integers(3)],)
    if pattern == "qing_yi_se":
        sets = [_random_set(rng, one_suit, False, 0.4) for _ in range(4)]
        return sets, _random_pair(rng, one_suit, False)
    if pattern == "hun_yi_se":
        dragon = Tile.ZHONG if rng.random() < 0.5 else Tile.BAI
        sets = [("trip", dragon)] + [_random_set(rng, one_suit, True, 0.4) for _ in range(3)]
        return sets, _random_pair(rng, one_suit, True)
    if pattern == "peng_peng_hu":
        sets = [_random_set(rng, all_suits, True, 1.0) for _ in range(4)]
        return sets, _random_pair(rng, all_suits, True)
    if pattern == "yi_tiao_long":
        suit = one_suit[0]
        sets = [("seq", _tile(suit, r)) for r in (1, 4, 7)] + [_random_set(rng, all_suits, True, 0.4)]
        return sets, _random_pair(rng, all_suits, True)
    if pattern == "hong_qi":
        sets = [("trip", Tile.ZHONG), ("trip", Tile.BAI)]
        sets += [_random_set(rng, all_suits, False, 0.4) for _ in range(2)]
        return sets, _random_pair(rng, all_suits, False)
    trip_p = 0.55 if pattern == "kongs" else 0.3
    sets = [_random_set(rng, all_suits, True, trip_p) for _ in range(4)]
    if pattern == "kongs" and not any(s[0] == "trip" for s in sets):
        sets[0] = ("trip", _tile(all_suits[rng.integers(3)], int(rng.integers(1, 10))))
    return sets, _random_pair(rng, all_suits, True)


def _pairs(rng: np.random.Generator, pattern: str) -> list[Tile]:
    """Seven pairs (a four of a kind counts as two pairs)."""
    if pattern == "qi_xian_nv":
        suit = SUITS[rng.integers(3)]
        start = int(rng.integers(1, 4))
        return [_tile(suit, start + k) for k in range(7)]
    pairs: list[Tile] = []
    if pattern == "haohua":
        pairs += [_HAND_TILES[rng.integers(len(_HAND_TILES))]] * 2
    if pattern == "hong_qi":
        pairs += [Tile.ZHONG, Tile.BAI]
    suits = (SUITS[rng.integers(3)],) if pattern == "qing_yi_se" else tuple(SUITS)
    if rng.random() < 0.4:  # a run of consecutive pairs (潇洒)
        suit = suits[rng.integers(len(suits))]
        start = int(rng.integers(1, 8))
        pairs += [_tile(suit, start + k) for k in range(3)]
    while len(pairs) < 7:
        if pattern == "qing_yi_se":
            pairs.append(_tile(suits[0], int(rng.integers(1, 10))))
        else:
            pairs.append(_HAND_TILES[rng.integers(len(_HAND_TILES))])
    return pairs[:7]


def _check_counts(tiles: list[Tile]) -> None:
    counts: dict[Tile, int] = {}
    for t in tiles:
        counts[t] = counts.get(t, 0) + 1
        if counts[t] > 4:
            raise _Retry


def _meldify(rng: np.random.Generator, sets: list[tuple], pattern: str) -> tuple[list[Meld], list[Tile]]:
    """Turn some triplets into pungs/kongs; returns melds and the tiles left standing."""
    melds: list[Meld] = []
    standing: list[Tile] = []
    meld_p = {"kongs": 0.9, "peng_peng_hu": 0.5}.get(pattern, 0.3)
    for s in sets:
        if s[0] == "trip" and rng.random() < meld_p:
            r = rng.random()
            kong_p = 0.75 if pattern == "kongs" else 0.3
            if r < kong_p / 2:
                melds.append(Meld(MeldKind.KONG, s[1]))
            elif r < kong_p:
                melds.append(Meld(MeldKind.CONCEALED_KONG, s[1]))
            else:
                melds.append(Meld(MeldKind.PUNG, s[1]))
        else:
            standing += _set_tiles(s)
    if pattern == "kongs" and all(m.kind is MeldKind.PUNG for m in melds):
        # 1 in 6 drew none: the first triplet becomes the kong the label promises, drawing nothing
        # more, so every deal that had one stays as it was
        trip = next(s[1] for s in sets if s[0] == "trip")
        pung = next((i for i, m in enumerate(melds) if m.tile is trip), None)
        if pung is not None:
            melds[pung] = Meld(MeldKind.KONG, trip)
        else:
            for _ in range(3):
                standing.remove(trip)
            melds.append(Meld(MeldKind.CONCEALED_KONG, trip))
    return melds, standing


def sample_deal(rng: np.random.Generator, pattern: str | None = None) -> Deal:
    """One hand for one photo. ``pattern`` forces a pattern (a key of PATTERN_WEIGHTS)."""
    if pattern is None:
        keys = list(PATTERN_WEIGHTS)
        w = np.array([PATTERN_WEIGHTS[k] for k in keys])
        pattern = keys[rng.choice(len(keys), p=w / w.sum())]
    elif pattern not in PATTERN_WEIGHTS:
        raise ValueError(f"unknown hand pattern {pattern!r}: expected one of {', '.join(PATTERN_WEIGHTS)}")
    fa = int(rng.choice(5, p=_FA_WEIGHTS))
    for _ in range(200):
        try:
            return _named(_try_deal(rng, pattern, fa))
        except _Retry:
            continue
    raise RuntimeError(f"could not draw a {pattern} hand")  # pragma: no cover - 200 retries never all fail


# the scoring item that makes each pattern (kongs: a kong meld, which 红旗飘飘 scores in its stead); a hand
# missing its own is named by the first of these it scores, rarest first
PATTERN_ITEMS: dict[str, frozenset[str]] = {
    "qi_xian_nv": frozenset({"qi_xian_nv"}), "haohua": frozenset({"haohua"}), "hong_qi": frozenset({"hong_qi"}),
    "yi_tiao_long": frozenset({"yi_tiao_long"}), "qing_yi_se": frozenset({"qing_yi_se"}),
    "hun_yi_se": frozenset({"hun_yi_se"}), "peng_peng_hu": frozenset({"peng_peng_hu"}),
    "qi_dui": frozenset({"qi_dui"}),
    "kongs": frozenset({"kong", "concealed_kong", "dragon_kong", "dragon_concealed_kong"}),
    "ping_hu": frozenset({"ping_hu"}),
}


def has_kong(deal: Deal) -> bool:
    return any(m.kind is not MeldKind.PUNG for m in deal.melds)


def _named(deal: Deal) -> Deal:
    """The deal labelled with a pattern its hand scores: a plain draw that came out 红旗飘飘 (7 in 100) or a
    清一色 of seven running pairs (七仙女) is named so, not by what was drawn; the tiles stay as drawn."""
    if deal.pattern == "not_winning" or (deal.pattern == "kongs" and has_kong(deal)):
        return deal
    from xingzi.engine import score_situation  # the scorer pulls in the rule tables; only dealing needs it

    keys = {item["key"] for item in score_situation(deal.situation())["items"]}
    if keys & PATTERN_ITEMS[deal.pattern]:
        return deal
    name = next((p for p, items in PATTERN_ITEMS.items() if keys & items), deal.pattern)
    return replace(deal, pattern=name)


def _try_deal(rng: np.random.Generator, pattern: str, fa: int) -> Deal:
    self_draw = bool(rng.random() < 0.4)
    dealer = bool(rng.random() < 0.25)
    seven_pairs = pattern in ("qi_dui", "haohua", "qi_xian_nv") or (
        pattern in ("qing_yi_se", "hong_qi") and rng.random() < 0.25)
    melds: list[Meld] = []
    if pattern == "not_winning":
        n = 13 - 3 * int(rng.choice(3, p=[0.7, 0.2, 0.1]))
        standing = [_HAND_TILES[i] for i in rng.integers(len(_HAND_TILES), size=n + 1)]
        if n < 13:
            melds = [Meld(MeldKind.PUNG, _HAND_TILES[rng.integers(len(_HAND_TILES))])
                     for _ in range((13 - n) // 3)]
    elif seven_pairs:
        standing = [t for p in _pairs(rng, pattern) for t in (p, p)]
    else:
        sets, pair = _standard(rng, pattern)
        melds, standing = _meldify(rng, sets, pattern)
        standing += [pair, pair]
    all_tiles = list(standing) + [t for m in melds for t in m.tiles]
    _check_counts(all_tiles + [Tile.FA] * fa)
    win_index = int(rng.integers(len(standing)))
    win = standing[win_index]
    concealed = tuple(sorted(standing[:win_index] + standing[win_index + 1:]))
    return Deal(pattern, concealed, win, tuple(melds), fa, self_draw, dealer)
