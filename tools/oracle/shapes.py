"""How a hand splits into sets and a pair, what it waits on, and where the winning tile sits (§2, §4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .notation import N_KINDS, Meld, Tile, is_dragon, rank_of, suit_of

Counts = list[int]  # copies of each tile kind, indexed by Tile
HandSetKind = Literal["triplet", "run"]
HandSet = tuple[HandSetKind, Tile]  # a run is named by its lowest tile
Split = tuple[Tile, tuple[HandSet, ...]]  # (the pair, the sets standing in the hand)
WaitKind = Literal["pair", "triplet", "edge", "middle", "two_sided"]


@dataclass(frozen=True, order=True)
class Placement:
    """Which part of a split the winning tile completed: the pair, a triplet, or a run at ``offset`` (0-2)."""

    role: Literal["pair", "triplet", "run"]
    start: Tile  # the pair's or triplet's tile; a run's lowest tile
    offset: int = 0


def counts_of(tiles: list[Tile]) -> Counts:
    counts = [0] * N_KINDS
    for t in tiles:
        counts[t] += 1
    return counts


def _set_splits(counts: Counts, first: int, taken: list[HandSet], out: list[tuple[HandSet, ...]]) -> None:
    while first < N_KINDS and counts[first] == 0:
        first += 1
    if first == N_KINDS:
        out.append(tuple(sorted(taken)))
        return
    if counts[first] >= 3:
        counts[first] -= 3
        taken.append(("triplet", first))
        _set_splits(counts, first, taken, out)
        taken.pop()
        counts[first] += 3
    # the lowest tile left must start a run when it is no triplet
    if not is_dragon(first) and rank_of(first) <= 6 and counts[first + 1] and counts[first + 2]:
        for t in range(first, first + 3):
            counts[t] -= 1
        taken.append(("run", first))
        _set_splits(counts, first, taken, out)
        taken.pop()
        for t in range(first, first + 3):
            counts[t] += 1


def splits(counts: Counts) -> list[Split]:
    """Every distinct way to read the concealed tiles as sets and one pair."""
    if sum(counts) % 3 != 2:
        return []
    found: set[Split] = set()
    for pair in range(N_KINDS):
        if counts[pair] >= 2:
            counts[pair] -= 2
            set_lists: list[tuple[HandSet, ...]] = []
            _set_splits(counts, 0, [], set_lists)
            counts[pair] += 2
            found.update((pair, sets) for sets in set_lists)
    return sorted(found)


def is_seven_pairs(counts: Counts, n_melds: int) -> bool:
    """七对: fourteen concealed tiles in pairs (a four is two pairs, 豪华)."""
    return n_melds == 0 and sum(counts) == 14 and all(c % 2 == 0 for c in counts)


def is_winning(counts: Counts, n_melds: int) -> bool:
    if sum(counts) != 14 - 3 * n_melds:
        return False
    return is_seven_pairs(counts, n_melds) or bool(splits(counts))


def waits(before: Counts, melds: list[Meld]) -> list[Tile]:
    """The tile kinds that complete ``before`` (the hand without its winning tile).

    A kind the winner holds all four of is none: no fifth copy can come. Tiles others show are not counted
    (a situation names only the payers' melds, not the whole table).
    """
    held = list(before)
    for kind, t in melds:
        held[t] += 3 if kind == "pung" else 4
    found = []
    for t in range(N_KINDS):
        if held[t] >= 4:
            continue
        before[t] += 1
        if is_winning(before, len(melds)):
            found.append(t)
        before[t] -= 1
    return found


def placements(split: Split, win: Tile) -> list[Placement]:
    """Each distinct part of ``split`` the winning tile can be read as having completed."""
    pair, sets = split
    found = {Placement("pair", pair)} if pair == win else set()
    for kind, t in sets:
        if kind == "triplet" and t == win:
            found.add(Placement("triplet", t))
        elif kind == "run" and t <= win <= t + 2:
            found.add(Placement("run", t, win - t))
    return sorted(found)


def wait_kind(place: Placement) -> WaitKind:
    """边张 (12 waiting 3, 89 waiting 7) and 夹心 are one-sided; any other run wait is two-sided."""
    if place.role != "run":
        return place.role
    if place.offset == 1:
        return "middle"
    if (place.offset == 2 and rank_of(place.start) == 0) or (place.offset == 0 and rank_of(place.start) == 6):
        return "edge"
    return "two_sided"


def two_sides(place: Placement) -> frozenset[Tile]:
    """The two kinds either side of a two-sided run wait (34 waiting 2 and 5)."""
    if place.offset == 0:
        return frozenset({place.start, place.start + 3})
    return frozenset({place.start - 1, place.start + 2})


def xiaosa_count(tiles: list[Tile]) -> int:
    """潇洒: k−2 for each run of k ≥ 3 consecutive ranks of one suit among ``tiles`` (pairs or triplets)."""
    total = 0
    for suit in range(3):
        ranks = {rank_of(t) for t in tiles if not is_dragon(t) and suit_of(t) == suit}
        length = 0
        for r in range(10):
            if r in ranks:
                length += 1
                continue
            total += max(0, length - 2)
            length = 0
    return total
