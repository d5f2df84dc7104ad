"""``rounds(n, seed)``: seeded whole rounds (docs/engine.md's ``"wins"`` object) made of ``deal_one``'s situations.

A round is a dealer seat, then a discard with one to three claimants, a 自摸, or a drawn hand; 跟庄 sometimes.
Winners on one discard share the discard: its tile, the discarder's shown melds and 发, its events (杠上流泪,
抢杠, 海底放炮, 忘恩负义) and the table's rules; every round fits one set of 120 tiles (as ``read_round``
checks).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .deal import DRAGONS, deal_one
from .notation import (
    BAI,
    ZHONG,
    BadInput,
    Tile,
    hand_text,
    is_dragon,
    meld_text,
    parse_meld,
    parse_tile,
    parse_tiles,
    rank_of,
    suit_of,
    tile_name,
)
from .rounds import SEATS, payer_seats, read_round

KINDS = {"discard": 60, "self_draw": 32, "drawn": 8}
CLAIMANTS = {1: 60, 2: 25, 3: 15}  # on one discard; 2 and 3 are 一炮多响 (or a false claim beside a win)
DISCARD_EVENTS = frozenset({"kong_tears", "robbing_kong", "hai_di_pao", "wang_en"})  # facts of the discard
FOLLOW_SHARE = 0.3  # rounds with 跟庄; of those, FOLLOW_DRAGON_SHARE on 中/白
FOLLOW_DRAGON_SHARE = 0.35
FLAGS_SHARE = 0.5  # rounds whose situations write the seats' dealer flags out (else left to the seats)
SEARCH = 40  # situations dealt while looking for another claimant on a discard's tile
KEPT = 8  # situations of one kind and tile kept for later rounds
OTHER_NOTATION = {ZHONG: ("Z", "7z"), BAI: ("B", "5z")}


class Pool:
    """Situations dealt and not used yet, by 自摸 or not and winning tile, so that a search wastes few."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.waiting: dict[tuple[bool, Tile], list[dict[str, Any]]] = defaultdict(list)

    def _deal(self) -> dict[str, Any]:
        while (situation := deal_one(self.rng)) is None:
            pass
        return situation

    def take(self, self_draw: bool) -> dict[str, Any]:
        """A waiting situation of that kind (the first tile's oldest), or a newly dealt one."""
        for (drawn, _), queue in self.waiting.items():
            if drawn is self_draw and queue:
                return queue.pop(0)
        while (situation := self._deal())["self_draw"] is not self_draw:
            self.keep((bool(situation["self_draw"]), parse_tile(situation["win_tile"])), situation)
        return situation

    def find(self, tile: Tile, fits: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        """A discard situation won on ``tile`` (relabelled to it) that ``fits``; SEARCH new ones dealt at most."""
        sources = _relabellings(tile)
        for source, relabel in sources.items():
            queue = self.waiting[False, source]
            for i, situation in enumerate(queue):
                if fits(moved := _relabelled(situation, relabel)):
                    del queue[i]
                    return moved
        for _ in range(SEARCH):
            situation = self._deal()
            key = (bool(situation["self_draw"]), parse_tile(situation["win_tile"]))
            if not key[0] and key[1] in sources and fits(moved := _relabelled(situation, sources[key[1]])):
                return moved
            self.keep(key, situation)
        return None

    def keep(self, key: tuple[bool, Tile], situation: dict[str, Any]) -> None:
        """Kept for a later round; the oldest of a kind goes past KEPT, so that searches stay short."""
        queue = self.waiting[key]
        queue.append(situation)
        del queue[:-KEPT]


@dataclass(frozen=True)
class Relabel:
    """Two suits swapped, ranks 1-9 mirrored, 中 and 白 swapped: §3-§5 score the suits alike, ranks read
    backwards alike (9-8-7 is a run, 七仙女 3-9 is 1-7 mirrored) and 中 like 白, so every score stays."""

    suits: tuple[int, int] = (0, 0)
    mirror: bool = False
    dragons: bool = False

    def __call__(self, tile: Tile) -> Tile:
        if is_dragon(tile):
            return ZHONG + BAI - tile if self.dragons else tile
        one, other = self.suits
        suit = other if suit_of(tile) == one else one if suit_of(tile) == other else suit_of(tile)
        return suit * 9 + (8 - rank_of(tile) if self.mirror else rank_of(tile))


def _relabellings(tile: Tile) -> dict[Tile, Relabel]:
    """Each winning tile that a relabelling takes to ``tile``, with that relabelling."""
    if is_dragon(tile):
        return {tile: Relabel(), ZHONG + BAI - tile: Relabel(dragons=True)}
    found: dict[Tile, Relabel] = {}
    for suit in range(3):
        for mirror in (False, True):
            rank = 8 - rank_of(tile) if mirror else rank_of(tile)
            found.setdefault(suit * 9 + rank, Relabel((suit, suit_of(tile)), mirror))
    return found


def _relabelled(situation: dict[str, Any], relabel: Relabel) -> dict[str, Any]:
    """The situation with every tile relabelled: the same score, won on another tile."""

    def melds(texts: list[str]) -> list[str]:
        return [meld_text((kind, relabel(t))) for kind, t in map(parse_meld, texts)]

    return {**situation, "hand": hand_text([relabel(t) for t in parse_tiles(situation["hand"])]),
            "win_tile": tile_name(relabel(parse_tile(situation["win_tile"]))),
            "melds": melds(situation.get("melds") or []),
            "payers": [{**p, "melds": melds(p.get("melds") or [])} for p in situation.get("payers") or []]}


def _seated(situation: dict[str, Any], seat: int, dealer: int, discarder: int | None, flags: bool,
            rng: random.Random) -> dict[str, Any]:
    """The situation as seat ``seat``'s win: dealer flags by the seats (or left out), self_draw written or not."""
    win: dict[str, Any] = {"seat": seat, **situation}
    payers = [dict(p) for p in win.get("payers") or []]
    for entry, payer_seat in zip(payers, payer_seats(discarder, seat), strict=False):
        entry.pop("dealer", None)
        if flags:
            entry["dealer"] = payer_seat == dealer
    win["payers"] = payers
    win.pop("dealer", None)
    if flags:
        win["dealer"] = seat == dealer
    if rng.random() < 0.2:
        del win["self_draw"]  # the round's discarder says it
    return win


def _share_discard(first: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``other`` claiming the same discard as ``first``: its discarder, discard events and table rules.

    The dealer flags ``deal_one`` set go: they are the seats' to say (``_seated``)."""
    events = [e for e in other.get("events") or [] if e not in DISCARD_EVENTS]
    events += [e for e in first.get("events") or [] if e in DISCARD_EVENTS]
    payers = [{k: v for k, v in p.items() if k != "dealer"} for p in first.get("payers") or []]
    situation = {k: v for k, v in other.items() if k != "dealer"}
    return {**situation, "events": events, "payers": payers, "rules": first.get("rules") or {}}


def _fits(base: dict[str, Any], first: dict[str, Any], seat: int, other: dict[str, Any]) -> bool:
    """Whether the round ``base`` still fits one set of tiles with ``other`` claiming ``first``'s discard."""
    situation = _share_discard(first, other)
    if "robbing_kong" in first["events"]:
        tile = parse_tile(situation["win_tile"])
        held = parse_tiles(situation["hand"]).count(tile) + sum(
            3 for meld in situation.get("melds") or [] if parse_tiles(meld.split()[-1])[0] == tile)
        if held > 1:  # the robbed kong held the other three copies (a pung of it among the melds too)
            return False
    try:
        read_round({**base, "wins": [*base["wins"], {"seat": seat, **situation}]})
    except BadInput:
        return False
    return True


def _follow(rng: random.Random, copies: tuple[int, ...]) -> str | None:
    """跟庄's tile: the dealer's first discard and the three that followed it are four copies no one holds."""
    free = [t for t, n in enumerate(copies) if n == 0]
    dragons = [t for t in DRAGONS if t in free]
    suited = [t for t in free if t not in DRAGONS]
    pick = dragons if dragons and (rng.random() < FOLLOW_DRAGON_SHARE or not suited) else suited
    if not pick:
        return None
    tile = rng.choice(pick)
    if tile in OTHER_NOTATION and rng.random() < 0.2:
        return rng.choice(OTHER_NOTATION[tile])
    return tile_name(tile)


def deal_round(rng: random.Random, pool: Pool) -> dict[str, Any]:
    """One round: a drawn hand, a 自摸, or a discard with one to three claimants; 跟庄 sometimes."""
    kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
    dealer = rng.randrange(SEATS)
    flags = rng.random() < FLAGS_SHARE
    round_: dict[str, Any] = {"dealer": dealer}
    if kind == "drawn":
        if rng.random() < 0.7:
            round_["wins"] = []
    elif kind == "self_draw":
        seat = rng.randrange(SEATS)
        round_["wins"] = [_seated(pool.take(True), seat, dealer, None, flags, rng)]
    else:
        discarder = rng.randrange(SEATS)
        count = rng.choices(list(CLAIMANTS), weights=list(CLAIMANTS.values()))[0]
        seats = rng.sample([s for s in range(SEATS) if s != discarder], count)
        first = pool.take(False)
        if rng.random() < 0.1:
            first = {**first, "payers": []}  # the discarder's melds left out: a plain player (§10)
        first = _share_discard(first, first)  # only clears deal_one's dealer flags
        round_ |= {"discarder": discarder, "wins": [{"seat": seats[0], **first}]}
        tile = parse_tile(first["win_tile"])
        for seat in seats[1:]:
            found = pool.find(tile, partial(_fits, round_, first, seat))
            if found is not None:
                round_["wins"].append({"seat": seat, **_share_discard(first, found)})
        round_["wins"] = [_seated({k: v for k, v in w.items() if k != "seat"}, w["seat"], dealer, discarder,
                                  flags, rng) for w in round_["wins"]]
    if rng.random() < FOLLOW_SHARE:
        round_["follow_dealer"] = _follow(rng, read_round(round_).copies)
    elif rng.random() < 0.1:
        round_["follow_dealer"] = None
    return round_


def rounds(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` rounds, the same for the same seed."""
    rng = random.Random(seed)
    pool = Pool(rng)
    return [deal_round(rng, pool) for _ in range(n)]
