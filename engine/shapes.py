"""Hand shapes on count vectors: every split into sets + pair, seven pairs, the wait set.

A hand is a tuple of 30 counts indexed by tile class id (0..26 = 1m..9s, 27 中, 28 发, 29 白).
Each suit is split on its own and the results are memoised on the suit's nine counts, so a
random hand mostly costs three dictionary look-ups; the suits are then combined so that
exactly one pair is used overall.
"""

from __future__ import annotations

from itertools import product

ZHONG, FA, BAI = 27, 28, 29
N_TILES = 30
SEQ, TRIPLET = 0, 1

# A set is (kind, tile index of its lowest tile); a split is (pair tile index, sorted sets).
Set = tuple[int, int]
Split = tuple[int, tuple[Set, ...]]

_SUIT_SPLITS: dict[tuple[int, ...], tuple[tuple[int, tuple[Set, ...]], ...]] = {}
_SUIT_FLAGS: dict[tuple[int, ...], int] = {}
_SUIT_WAITS: dict[tuple[int, ...], tuple[int, tuple[int, ...], tuple[int, ...]]] = {}
_PLACED: dict[int, dict[tuple[int, ...], tuple[tuple[int, tuple[Set, ...]], ...]]] = {0: {}, 9: {}, 18: {}}
NO_PAIR, WITH_PAIR = 1, 2  # flag bits: the suit splits with no pair / with exactly one pair


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


def standard_splits(counts: tuple[int, ...]) -> list[Split]:
    """Every split of the concealed tiles into sets + exactly one pair (melds not included).

    Sets are (SEQ, lowest tile) or (TRIPLET, tile); dragons only form pairs and triplets;
    发 must not be present.
    """
    if counts[FA]:
        return []
    parts: list[tuple[tuple[int, tuple[Set, ...]], ...]] = []
    for base in (0, 9, 18):
        key = counts[base:base + 9]
        splits = _PLACED[base].get(key)
        if splits is None:
            splits = _PLACED[base][key] = tuple(
                (p + base if p >= 0 else -1, tuple((k, t + base) for k, t in s)) for p, s in suit_splits(key))
        if not splits:
            return []
        if len(splits) == 1 and not splits[0][1] and splits[0][0] < 0:
            continue  # an empty suit
        parts.append(splits)
    for d in (ZHONG, BAI):
        n = counts[d]
        if n == 0:
            continue
        if n == 2:
            parts.append(((d, ()),))
        elif n == 3:
            parts.append(((-1, ((TRIPLET, d),)),))
        else:
            return []
    if len(parts) == 1:
        return [(p, s) for p, s in parts[0] if p >= 0]
    out: list[Split] = []
    for combo in product(*parts):
        pairs = [p for p, _s in combo if p >= 0]
        if len(pairs) != 1:
            continue
        sets: tuple[Set, ...] = ()
        for _p, s in combo:
            sets += s
        out.append((pairs[0], tuple(sorted(sets))))
    return out


def is_seven_pairs(counts: tuple[int, ...]) -> bool:
    """Seven pairs (a four of a kind counting as two) over exactly 14 concealed tiles."""
    return sum(counts) == 14 and not counts[FA] and all(n % 2 == 0 for n in counts)


def is_complete(counts: tuple[int, ...], n_sets: int = 4) -> bool:
    """Standard shape (n_sets sets + a pair) or, with no melds (n_sets 4), seven pairs."""
    if counts[FA] or sum(counts) != 3 * n_sets + 2:
        return False
    if n_sets == 4 and is_seven_pairs(counts):
        return True
    pairs = 0
    for base in (0, 9, 18):
        f = _suit_flags(counts[base:base + 9])
        if not f:
            return False
        if not f & NO_PAIR:
            pairs += 1
    for d in (ZHONG, BAI):
        f = _dragon_flags(counts[d])
        if not f:
            return False
        if f == WITH_PAIR:
            pairs += 1
    if pairs > 1:
        return False
    if pairs == 1:
        return True
    # every part can go without a pair: one suit must take the pair
    return any(_suit_flags(counts[b:b + 9]) & WITH_PAIR for b in (0, 9, 18))


def waits(counts: tuple[int, ...], used: tuple[int, ...] | None = None, n_sets: int = 4) -> frozenset[int]:
    """Tile indices that complete a hand one tile short (``3*n_sets + 1`` concealed tiles).

    ``used`` counts every copy already held (hand and melds); a fifth copy cannot be waited on.
    """
    if counts[FA] or sum(counts) != 3 * n_sets + 1:
        return frozenset()
    used = used or counts
    info = []
    for base in (0, 9, 18):
        info.append(_suit_waits(counts[base:base + 9]))
    dflags = [_dragon_flags(counts[ZHONG]), _dragon_flags(counts[BAI])]
    out: set[int] = set()
    for i, base in enumerate((0, 9, 18)):
        # the others must be complete as they stand: all without pair, or exactly one with
        others = [info[j][0] for j in range(3) if j != i] + dflags
        if all(others):
            strict = [f for f in others if not f & NO_PAIR]
            if not strict:
                out.update(base + r for r in info[i][2])
                if any(f & WITH_PAIR for f in others):
                    out.update(base + r for r in info[i][1])
            elif len(strict) == 1:
                out.update(base + r for r in info[i][1])
    suit_flags = [x[0] for x in info]
    for k, d in enumerate((ZHONG, BAI)):
        n = counts[d]
        if n not in (1, 2):
            continue
        others = suit_flags + [dflags[1 - k]]
        if not all(others):
            continue
        strict = [f for f in others if not f & NO_PAIR]
        if n == 1 and not strict:
            out.add(d)  # the single dragon becomes the pair
        elif n == 2 and (len(strict) == 1 or (not strict and any(f & WITH_PAIR for f in others))):
            out.add(d)  # the dragon pair becomes a triplet, the pair sits elsewhere
    if n_sets == 4 and sum(counts) == 13:
        odd = [t for t in range(N_TILES) if counts[t] % 2]
        if len(odd) == 1 and sum(n // 2 for n in counts) == 6:
            out.add(odd[0])
    return frozenset(t for t in out if used[t] < 4)
