"""Hand shapes on count vectors: every split into sets + pair, seven pairs, the wait set.

A hand is a tuple of 30 counts indexed by tile class id (0..26 = 1m..9s, 27 中, 28 发, 29 白).
It is cut into five parts (the three suits, 中, 白). Each suit is analysed once per distinct
tuple of its nine counts (its splits, what completes it) and kept as a ``Part``, so a random
hand mostly costs three dictionary look-ups; the parts are then combined so that exactly one
pair is used overall, both for the splits and for the wait set.
"""

from __future__ import annotations

from itertools import product
from typing import Final

# Final: constants and caches that a compiled build (mypyc) reads without a module-dict look-up
ZHONG: Final = 27
FA: Final = 28
BAI: Final = 29
N_TILES: Final = 30
SEQ: Final = 0
TRIPLET: Final = 1

# A set is (kind, tile index of its lowest tile); a split is (pair tile index, sorted sets).
Set = tuple[int, int]
Split = tuple[int, tuple[Set, ...]]

_SUIT_SPLITS: Final[dict[tuple[int, ...], tuple[tuple[int, tuple[Set, ...]], ...]]] = {}
_SUIT_FLAGS: Final[dict[tuple[int, ...], int]] = {}
_SUIT_WAITS: Final[dict[tuple[int, ...], tuple[int, tuple[int, ...], tuple[int, ...]]]] = {}
# flag bits: the suit splits with no pair / with exactly one pair
NO_PAIR: Final = 1
WITH_PAIR: Final = 2


def _search(c: list[int], i: int, pair: int, sets: list[Set], out: set) -> None:
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        out.add((pair, tuple(sorted(sets))))
        return
    if c[i] >= 3:
        c[i] -= 3
        sets.append((TRIPLET, i))
        _search(c, i, pair, sets, out)
        sets.pop()
        c[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        sets.append((SEQ, i))
        _search(c, i, pair, sets, out)
        sets.pop()
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
    if pair < 0 and c[i] >= 2:
        c[i] -= 2
        _search(c, i, i, sets, out)
        c[i] += 2


def suit_splits(counts9: tuple[int, ...]) -> tuple[tuple[int, tuple[Set, ...]], ...]:
    """Every split of one suit's counts into sets and at most one pair (ranks 0..8)."""
    hit = _SUIT_SPLITS.get(counts9)
    if hit is None:
        out: set = set()
        _search(list(counts9), 0, -1, [], out)
        hit = _SUIT_SPLITS[counts9] = tuple(sorted(out))
    return hit


def _suit_flags(counts9: tuple[int, ...]) -> int:
    flags = _SUIT_FLAGS.get(counts9)
    if flags is None:
        flags = 0
        for pair, _sets in suit_splits(counts9):
            flags |= WITH_PAIR if pair >= 0 else NO_PAIR
        _SUIT_FLAGS[counts9] = flags
    return flags


def _suit_waits(counts9: tuple[int, ...]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(flags, ranks completing the suit without a pair, ranks completing it with one pair)."""
    hit = _SUIT_WAITS.get(counts9)
    if hit is None:
        w0: list[int] = []
        w1: list[int] = []
        c = list(counts9)
        for r in range(9):
            if c[r] >= 4:
                continue
            # only ranks next to a tile already there can help (a lone new tile never completes)
            if not (c[r] or (r > 0 and c[r - 1]) or (r < 8 and c[r + 1])
                    or (r > 1 and c[r - 2]) or (r < 7 and c[r + 2])):
                continue
            c[r] += 1
            f = _suit_flags(tuple(c))
            c[r] -= 1
            if f & NO_PAIR:
                w0.append(r)
            if f & WITH_PAIR:
                w1.append(r)
        hit = _SUIT_WAITS[counts9] = (_suit_flags(counts9), tuple(w0), tuple(w1))
    return hit


def _dragon_flags(n: int) -> int:
    return NO_PAIR if n in (0, 3) else WITH_PAIR if n == 2 else 0


class PartSplit:
    """One way to split a part: its pair tile (-1: none), sets, number of sequences, whether it
    holds 123 456 789 of its suit (一条龙), and tile -> the roles a winning tile of that kind can
    play in it."""

    __slots__ = ("pair", "sets", "seqs", "run", "roles")

    def __init__(self, pair: int, sets: tuple[Set, ...], seqs: int, run: bool,
                 roles: dict[int, tuple[tuple, ...]]) -> None:
        self.pair, self.sets, self.seqs, self.run, self.roles = pair, sets, seqs, run, roles


# a split of a whole hand: pair tile, sets, number of sequences, 一条龙, and the five part splits
Joined = tuple[int, tuple[Set, ...], int, bool, tuple[PartSplit, ...]]


class Part:
    """One part of a hand (a suit, or 中 or 白) as worked out once per distinct count tuple.

    ``splits`` holds a ``PartSplit`` for every way to split the part. The rest serves the
    wait set: ``flags`` (NO_PAIR / WITH_PAIR), the tile ids completing the part without a pair
    (``w0``) or with one (``w1``), in order, the pairs held and the odd-count tile ids (七对);
    ``held``: the tile ids present, in order; ``four``: some tile is there four times; ``size``:
    the number of tiles. ``solo``: the only split, when there is exactly one.
    """

    __slots__ = ("base", "counts", "splits", "flags", "w0", "w1", "pairs", "odd", "held", "present", "four",
                 "size", "solo", "solo_pair", "_minus")

    def __init__(self, base: int, counts: tuple[int, ...], splits: tuple[PartSplit, ...], flags: int,
                 w0: tuple[int, ...], w1: tuple[int, ...]) -> None:
        self.base, self.counts, self.splits, self.flags, self.w0, self.w1 = base, counts, splits, flags, w0, w1
        self.pairs = sum(n // 2 for n in counts)
        self.odd = tuple(base + i for i, n in enumerate(counts) if n % 2)
        self.held = tuple(base + i for i, n in enumerate(counts) if n)
        self.present = bool(self.held)
        self.four = 4 in counts
        self.size = sum(counts)
        # the part's only split, if it has exactly one, and whether that one holds the pair
        solo = self.solo = splits[0] if len(splits) == 1 else None
        self.solo_pair = int(solo is not None and solo.pair >= 0)
        self._minus: list[Part | None] = [None] * len(counts)

    def minus(self, tile: int) -> Part:
        """This part with one copy of ``tile`` taken out (memoised: the hand before winning)."""
        i = tile - self.base
        part = self._minus[i]
        if part is None:
            if self.base >= ZHONG:
                part = _DRAGON_PARTS[self.base][self.counts[0] - 1]
            else:
                c = list(self.counts)
                c[i] -= 1
                part = _suit_part(self.base, tuple(c))
            self._minus[i] = part
        return part


_SUIT_PARTS: Final[dict[int, dict[tuple[int, ...], Part]]] = {0: {}, 9: {}, 18: {}}


def _suit_part(base: int, key: tuple[int, ...]) -> Part:
    part = _SUIT_PARTS[base].get(key)
    if part is None:
        splits = []
        for pair, sets in suit_splits(key):
            seqs = [t for kind, t in sets if kind == SEQ]
            run = 0 in seqs and 3 in seqs and 6 in seqs  # 123 456 789 of this suit
            placed = tuple((k, t + base) for k, t in sets)
            p = pair + base if pair >= 0 else -1
            splits.append(PartSplit(p, placed, len(seqs), run, _roles_by_tile(p, placed)))
        flags, w0, w1 = _suit_waits(key)
        part = _SUIT_PARTS[base][key] = Part(
            base, key, tuple(splits), flags, tuple(base + r for r in w0), tuple(base + r for r in w1))
    return part


def _roles_by_tile(pair: int, sets: tuple[Set, ...]) -> dict[int, tuple[tuple, ...]]:
    """For each tile of a part's split, the roles a winning tile of that kind can play in it:
    ("pair",), ("tri", tile), ("seq", first tile, position); in pair-then-sets order, no repeats."""
    roles: dict[int, list[tuple]] = {}
    if pair >= 0:
        roles[pair] = [("pair",)]
    for kind, t in sets:
        for win in ((t, t + 1, t + 2) if kind == SEQ else (t,)):
            role = ("seq", t, win - t) if kind == SEQ else ("tri", t)
            have = roles.setdefault(win, [])
            if role not in have:
                have.append(role)
    return {t: tuple(r) for t, r in roles.items()}


def _dragon_part(d: int, n: int) -> Part:
    splits = (PartSplit(d, (), 0, False, {d: (("pair",),)}),) if n == 2 else (
        PartSplit(-1, ((TRIPLET, d),), 0, False, {d: (("tri", d),)}),) if n == 3 else () if n else (
        PartSplit(-1, (), 0, False, {}),)
    return Part(d, (n,), splits, _dragon_flags(n), (d,) if n == 2 else (), (d,) if n == 1 else ())


_DRAGON_PARTS: Final = {d: tuple(_dragon_part(d, n) for n in range(5)) for d in (ZHONG, BAI)}
_M: Final = _SUIT_PARTS[0]
_P: Final = _SUIT_PARTS[9]
_S: Final = _SUIT_PARTS[18]
_ZHONG_PARTS: Final = _DRAGON_PARTS[ZHONG]
_BAI_PARTS: Final = _DRAGON_PARTS[BAI]


def hand_parts(counts: tuple[int, ...]) -> tuple[Part, ...]:
    """The parts m, p, s, 中, 白 of a count vector (发 is never part of a hand: check it apart)."""
    m, p, s = counts[0:9], counts[9:18], counts[18:27]
    return (_M.get(m) or _suit_part(0, m), _P.get(p) or _suit_part(9, p), _S.get(s) or _suit_part(18, s),
            _ZHONG_PARTS[counts[ZHONG]], _BAI_PARTS[counts[BAI]])


PART_OF: Final = tuple(t // 9 for t in range(27)) + (3, -1, 4)  # tile id -> index of its part (发: none)


def _join(combo: tuple[PartSplit, ...]) -> Joined | None:
    pair, n_seq, run = -1, 0, False
    sets: tuple[Set, ...] = ()
    for piece in combo:
        if piece.pair >= 0:
            if pair >= 0:
                return None
            pair = piece.pair
        if piece.sets:
            sets += piece.sets
            n_seq += piece.seqs
            run = run or piece.run
    return (pair, sets, n_seq, run, combo) if pair >= 0 else None


def part_splits(parts: tuple[Part, ...]) -> list[Joined]:
    """Every split of the parts into sets + exactly one pair: (pair, sets, number of sequences,
    一条龙, the five part splits it joins)."""
    a, b, c, z, w = parts
    m, p, s = a.solo, b.solo, c.solo
    if m and p and s and not z.present and not w.present:  # the common case: one way per suit, no 中/白
        if a.solo_pair + b.solo_pair + c.solo_pair != 1:
            return []
        pair = m.pair if m.pair >= 0 else p.pair if p.pair >= 0 else s.pair
        return [(pair, m.sets + p.sets + s.sets, m.seqs + p.seqs + s.seqs, m.run or p.run or s.run,
                 (m, p, s, z.splits[0], w.splits[0]))]
    if not (a.splits and b.splits and c.splits and z.splits and w.splits):
        return []
    return [j for j in map(_join, product(a.splits, b.splits, c.splits, z.splits, w.splits)) if j]


def standard_splits(counts: tuple[int, ...]) -> list[Split]:
    """Every split of the concealed tiles into sets + exactly one pair (melds not included).

    Sets are (SEQ, lowest tile) or (TRIPLET, tile), in suit order; dragons only form pairs and
    triplets; 发 must not be present.
    """
    if counts[FA]:
        return []
    return [(split[0], split[1]) for split in part_splits(hand_parts(counts))]


def is_seven_pairs(counts: tuple[int, ...]) -> bool:
    """Seven pairs (a four of a kind counting as two) over exactly 14 concealed tiles."""
    return 1 not in counts and 3 not in counts and not counts[FA] and sum(counts) == 14


def _count_vector(counts: object, what: str = "counts") -> tuple[int, ...]:
    """``counts`` if it is a count vector (a tuple of 30 whole numbers ≥ 0, indexed by tile class id), else
    ValueError saying what came. (Typed object, as the callers' parameters: compiled, typed ones would refuse a
    list with a TypeError and take True as 1 before this could say so.)"""
    if not isinstance(counts, tuple) or len(counts) != N_TILES:
        got = f"a {type(counts).__name__} of {len(counts)}" if isinstance(counts, (tuple, list)) else repr(counts)
        raise ValueError(f"{what} must be a tuple of {N_TILES} counts indexed by tile class id, got {got}")
    for n in counts:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"{what} must hold whole numbers ≥ 0, got {n!r}")
    return counts


def _n_sets(n_sets: object) -> int:
    if not isinstance(n_sets, int) or isinstance(n_sets, bool):
        raise ValueError(f"n_sets must be a whole number (4 minus the melds), got {n_sets!r}")
    return n_sets


def is_complete(counts: object, n_sets: object = 4) -> bool:
    """Standard shape (n_sets sets + a pair) or, with no melds (n_sets 4), seven pairs; never with a fifth copy."""
    counts, n_sets = _count_vector(counts), _n_sets(n_sets)
    if counts[FA] or sum(counts) != 3 * n_sets + 2 or max(counts) > 4:
        return False
    if n_sets == 4 and is_seven_pairs(counts):
        return True
    flags = [part.flags for part in hand_parts(counts)]
    if not all(flags):
        return False
    # exactly one part must take the pair (3·n_sets + 2 tiles: a part going without one holds 3k, so never none)
    return sum(1 for f in flags if not f & NO_PAIR) == 1


_PLANS: Final[dict[int, tuple[tuple[int, int], ...]]] = {}


def _plan(key: int) -> tuple[tuple[int, int], ...]:
    """Which parts' wait lists (1 = completes without pair, 2 = with pair) apply, given every
    part's flags (two bits each in ``key``, part 0 lowest): the parts not taking the new tile
    must stand with exactly one pair among all."""
    # a part's size mod 3 allows one flag at most (3k: NO_PAIR, 3k + 2: WITH_PAIR), never both
    flags = [key >> (2 * i) & 3 for i in range(5)]
    bad = sum(1 for f in flags if not f)
    strict = sum(1 for f in flags if f == WITH_PAIR)
    plan: list[tuple[int, int]] = []
    if bad <= 1:
        for i, f in enumerate(flags):
            if bad and f:
                continue  # the one part that cannot stand must take the new tile
            s_others = strict - (f == WITH_PAIR)
            if s_others == 0:
                plan.append((i, 2))
            elif s_others == 1:
                plan.append((i, 1))
    _PLANS[key] = tuple(plan)
    return _PLANS[key]


def completing(parts: tuple[Part, ...], seven_pairs: bool, taking: int = -1) -> tuple[int, ...]:
    """Tile ids, in order, that complete the parts (a hand one tile short); ``seven_pairs``:
    七对 counts too; ``taking``: a tile id to take out of the parts first (the winning tile).
    Fifth copies are not excluded here (see ``waits``)."""
    a, b, c, z, w = parts
    if taking >= 0:  # one copy of the winning tile taken out of its part
        i = PART_OF[taking]
        part = parts[i]
        less = part._minus[taking - part.base] or part.minus(taking)
        if i == 0:
            a = less
        elif i == 1:
            b = less
        elif i == 2:
            c = less
        elif i == 3:
            z = less
        else:
            w = less
        parts = (a, b, c, z, w)
    key = a.flags | b.flags << 2 | c.flags << 4 | z.flags << 6 | w.flags << 8
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(key)
    if len(plan) == 1:  # the common case: one part takes the tile; its list is already in order
        i, which = plan[0]
        found = parts[i].w1 if which == 2 else parts[i].w0
    else:
        out: set[int] = set()
        for i, which in plan:
            out.update(parts[i].w1 if which == 2 else parts[i].w0)
        found = tuple(sorted(out))
    if seven_pairs and a.pairs + b.pairs + c.pairs + z.pairs + w.pairs == 6:  # six pairs and one odd tile
        odd = a.odd + b.odd + c.odd + z.odd + w.odd
        if len(odd) == 1 and odd[0] not in found:
            found = tuple(sorted(found + odd))
    return found


def waits(counts: object, used: object = None, n_sets: object = 4) -> frozenset[int]:
    """Tile indices that complete a hand one tile short (``3*n_sets + 1`` concealed tiles).

    ``used`` counts every copy already held (hand and melds); a fifth copy cannot be waited on.
    """
    counts, n_sets = _count_vector(counts), _n_sets(n_sets)
    used = None if used is None or used == () else _count_vector(used, "used")
    if counts[FA] or sum(counts) != 3 * n_sets + 1 or max(counts) > 4:  # a misread photo can show five
        return frozenset()
    used = used or counts
    return frozenset(t for t in completing(hand_parts(counts), n_sets == 4) if used[t] < 4)
