"""When the read tiles do not make a legal hand: say why, and offer the nearest legal readings.

Nearest means cheapest in the detector's own terms: with per-class probabilities, swapping a
tile for its second choice costs log(p_first / p_second); without them, a less confident tile
is cheaper to change. Three kinds of edit are tried: read one tile as another (also two, with
probabilities), add the one tile the detector missed, or drop one tile seen too many.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from xingzi.engine.melds import Meld
from xingzi.engine.notation import format_tiles
from xingzi.engine.shapes import waits
from xingzi.engine.tiles import BACK_CLASS, TILES, Tile, tile_counts

from .detections import Detections
from .grouping import HandReading, count_problems, group, is_legal

TOP_ALTERNATIVES = 3  # second choices tried per detection
MIN_PROB = 0.01  # second choices below this are not worth offering
ADD_COST = 2.0  # a tile the detector missed altogether is an unlikely error


@dataclass(frozen=True)
class Change:
    """One edit: ``detection`` index (None for a missed tile), ``old`` → ``new`` (None = none)."""

    detection: int | None
    old: Tile | None
    new: Tile | None

    def __str__(self) -> str:
        if self.old is None:
            return f"add a missed {self.new}"
        if self.new is None:
            return f"drop tile #{self.detection} ({self.old})"
        return f"read tile #{self.detection} {self.old} as {self.new}"


@dataclass(frozen=True)
class Suggestion:
    changes: tuple[Change, ...]
    tiles: tuple[Tile, ...]
    win_tile: Tile | None
    melds: tuple[Meld, ...]
    fa: int
    cost: float

    @property
    def text(self) -> str:
        return "; ".join(str(c) for c in self.changes)


@dataclass(frozen=True)
class Diagnosis:
    legal: bool
    reasons: tuple[str, ...]
    suggestions: tuple[Suggestion, ...]


def explain(reading: HandReading) -> tuple[str, ...]:
    """Why the reading is not a legal hand (empty when it is)."""
    reasons = list(count_problems(reading.tiles, reading.melds, reading.fa))
    reasons += [p for p in reading.problems if p not in reasons and "concealed kong" in p]
    if not reasons and not is_legal(reading.tiles, reading.melds):
        reasons.append(
            f"{format_tiles(list(reading.tiles))} does not split into sets and a pair"
            + (" (nor seven pairs)" if not reading.melds else "")
        )
    if reading.tiles and reading.win_tile is None:
        reasons.append("no winning tile")
    return tuple(reasons)


def diagnose(reading: HandReading, limit: int = 5) -> Diagnosis:
    reasons = explain(reading)
    if not reasons:
        return Diagnosis(True, (), ())
    kongs = sum(1 for m in reading.melds if m.kind.size == 4)
    if abs(reading.tile_count - (14 + kongs)) > 2:  # far from any hand: nothing near to offer
        return Diagnosis(False, reasons, ())
    found: dict[tuple, Suggestion] = {}
    for s in _detector_edits(reading) + _hand_edits(reading):
        if not is_legal(s.tiles, s.melds):
            continue
        key = (tuple(sorted(s.tiles)), s.win_tile, tuple(sorted(map(str, s.melds))), s.fa)
        if key not in found or s.cost < found[key].cost:
            found[key] = s
    ranked = sorted(found.values(), key=lambda s: s.cost)
    return Diagnosis(False, reasons, tuple(ranked[:limit]))


def _hand_edits(r: HandReading) -> list[Suggestion]:
    """Edits found from the standing tiles and the wait set (no probabilities needed).

    Each edit of a seen tile is checked by grouping again, as a changed face can change a meld.
    """
    det = r.detections
    standing = [i for i, role in enumerate(r.roles) if role in ("concealed", "win")]
    n_sets = 4 - len(r.melds)
    need = 3 * n_sets + 2
    melded = Counter(t for m in r.melds for t in m.tiles)
    out: list[Suggestion | None] = []
    if len(r.tiles) == need - 1:  # one missed: whatever completes the hand
        for idx in _waits(list(r.tiles), melded, n_sets):
            new = TILES[idx]
            win = r.win_tile if r.win_tile is not None else new
            out.append(Suggestion((Change(None, None, new),), tuple(r.tiles) + (new,), win, r.melds, r.fa, ADD_COST))
    elif len(r.tiles) == need + 1:  # one too many: drop the tile whose absence leaves a hand
        for i in standing:
            out.append(_regroup(r, ((i, None),), 1.0 + float(det.conf[i])))
    elif len(r.tiles) == need:  # one misread: the rest is one tile short of a hand
        for i in standing:
            old = Tile.from_index(int(det.cls[i]))
            for idx in _waits(list(_without(r.tiles, old)), melded, n_sets):
                if idx != old.index:
                    out.append(_regroup(r, ((i, idx),), _swap_cost(det, i, idx)))
    return [s for s in out if s is not None]


def _detector_edits(r: HandReading) -> list[Suggestion]:
    """Second choices of the detector, regrouped (a misread meld tile changes the grouping too)."""
    det = r.detections
    if det.probs is None or len(det) == 0:
        return []
    singles: list[tuple[float, int, int]] = []
    for i in range(len(det)):
        order = np.argsort(-det.probs[i])
        alts = [int(k) for k in order if int(k) != int(det.cls[i]) and det.probs[i, k] >= MIN_PROB]
        singles += [(_swap_cost(det, i, k), i, k) for k in alts[:TOP_ALTERNATIVES]]
    singles.sort()
    out = [s for s in (_regroup(r, ((i, k),), cost) for cost, i, k in singles) if s is not None]
    if not out:  # two misreads at once, among the likeliest single ones
        for (c1, i1, k1), (c2, i2, k2) in combinations(singles[:8], 2):
            if i1 != i2:
                s = _regroup(r, ((i1, k1), (i2, k2)), c1 + c2)
                if s is not None:
                    out.append(s)
    return out


def _regroup(r: HandReading, edits: tuple[tuple[int, int | None], ...], cost: float) -> Suggestion | None:
    """Apply edits (new class, or None to drop the detection) and group again; None unless legal."""
    det = r.detections
    cls = det.cls.copy()
    keep = np.ones(len(det), bool)
    for i, k in edits:
        if k is None:
            keep[i] = False
        else:
            cls[i] = k
    new = group(replace(det, cls=cls).subset(keep))
    if not new.win_tile or explain(new):
        return None
    changes = tuple(Change(i, _tile(det, i), None if k is None or k == BACK_CLASS else Tile.from_index(k))
                    for i, k in edits)
    return Suggestion(changes, new.tiles, new.win_tile, new.melds, new.fa, cost)


def _waits(tiles: list[Tile], melded: Counter, n_sets: int) -> frozenset[int]:
    counts = tile_counts(tiles)
    used = [c + melded.get(t, 0) for t, c in zip(TILES, counts, strict=True)]
    if counts[Tile.FA.index]:
        return frozenset()
    return frozenset(i for i in waits(tuple(counts), tuple(used), n_sets) if used[i] < 4)


def _swap_cost(det: Detections, i: int, new_cls: int) -> float:
    """-log of how much likelier the detector found the old class than the new one."""
    if det.probs is None:
        return 1.0 + float(det.conf[i])
    p_old = max(float(det.probs[i, int(det.cls[i])]), 1e-6)
    p_new = max(float(det.probs[i, new_cls]), 1e-6)
    return max(0.0, math.log(p_old / p_new))


def _without(tiles: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    out = list(tiles)
    out.remove(tile)
    return tuple(out)


def _tile(det: Detections, i: int) -> Tile | None:
    c = int(det.cls[i])
    return None if c == BACK_CLASS else Tile.from_index(c)
