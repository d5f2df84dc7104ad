"""When the read tiles do not make a legal hand: say why, and offer the nearest legal readings.

Nearest means cheapest in the detector's own terms: with per-class probabilities, swapping a
tile for its second choice costs log(p_first / p_second); without them, a less confident tile
is cheaper to change. Three kinds of edit are tried: read one tile as another (also two, with
probabilities), add the one tile the detector missed (a face, or a concealed kong's face-down tile
where the photo's size is known), or drop one tile seen too many.
The search is bounded (at most MAX_REGROUPS groupings, cheapest edits first) so that an
illegal reading costs a few hundred ms at most rather than seconds.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import format_tiles
from xingzi.engine.shapes import waits
from xingzi.engine.tiles import BACK_CLASS, TILES, Tile, tile_counts

from .detections import Detections
from .grouping import SET_ASIDE, HandReading, group
from .handcheck import count_problems, is_legal
from .meldfind import FACELESS_KONG
from .missed import face_down_run, place_beside
from .unseen import faceless_kongs
from .usermarks import add_tiles

TOP_ALTERNATIVES = 3  # second choices tried per detection
MIN_PROB = 0.01  # second choices below this are not worth offering
ADD_COST = 2.0  # a tile the detector missed altogether is an unlikely error
# A face-down tile lost from a concealed kong (hidden behind its neighbour, or one box over two alike) leaves
# face-down tiles lying uncounted: the lost tile explains them, so it is likelier than any face missed.
ADD_BACK_COST = 1.5
BACK_RUNS = 2  # runs of uncounted face-down tiles a lost one is looked for beside (each ~13 groupings)
KONG_BACKS_LEFT = 3  # a concealed kong that lost a face-down tile shows 3 more at most (one shown all face down)
PAIR_POOL = 16  # pairs of misreads are drawn from this many likeliest single ones
MAX_REGROUPS = 30  # grouping again costs ~30 ms on two cores: the search stops after this many (docs/pipeline.md)
COST_MARGIN = math.log(20)  # edits 20x less likely than the best legal reading found are not tried
# A photo is of a declared win, so an illegal reading is far likelier a misread than a false claim:
# the cheapest legal reading is scored instead when the detector found it at least 1/100 as likely
# (a missed tile, ADD_COST, included). 1/20 until session 63; a bar further off would score most
# near-miss false claims read surely as wins. Measured in docs/pipeline.md ("Likeliest legal reading").
ACCEPT_COST = math.log(100)
# A box read this faintly may be no tile at all (a glint, a shadow at the hand's edge): dropping it is tried whatever
# the count, as grouping again without it can change the melds (four alike left standing become a kong).
FAINT_CONF = 0.4
FAINT_DROPS = 3  # the faintest boxes tried so (each costs a grouping)


@dataclass(frozen=True)
class Change:
    """One edit: ``detection`` index (None for a missed tile), ``old`` → ``new`` (None = face down),
    or ``drop`` the detection (a tile seen twice, or not one of the hand's)."""

    detection: int | None
    old: Tile | None
    new: Tile | None
    drop: bool = False
    beside: int | None = None  # a missed tile: the detection it was found missing beside, where that is known

    def __str__(self) -> str:
        if self.detection is None:
            return f"add a missed {self.new or 'face-down tile'}" + ("" if self.beside is None else
                                                                      f" beside tile #{self.beside}")
        if self.drop:
            return f"drop tile #{self.detection} ({self.old or 'face down'})"
        return f"read tile #{self.detection} {self.old or 'face down'} as {self.new or 'face down'}"


@dataclass(frozen=True)
class Suggestion:
    changes: tuple[Change, ...]
    tiles: tuple[Tile, ...]
    win_tile: Tile | None
    melds: tuple[Meld, ...]
    fa: int
    cost: float
    reading: HandReading | None = field(default=None, compare=False, repr=False)  # regrouped, if edits
    hidden_kongs: int = 0  # concealed kongs shown all face down in it: sets whose face the score guesses

    @property
    def text(self) -> str:
        return "; ".join(str(c) for c in self.changes)


@dataclass(frozen=True)
class Diagnosis:
    legal: bool
    reasons: tuple[str, ...]
    suggestions: tuple[Suggestion, ...]


def explain(reading: HandReading) -> tuple[str, ...]:
    """Why the reading is not a legal hand (empty when it is). Kongs shown all face down are counted: their
    unknown face is the reason, not the tiles they leave out of the count."""
    reasons = list(count_problems(reading.tiles, reading.melds, reading.fa, faceless_kongs(reading)))
    reasons += [p for p in reading.problems if p not in reasons and "concealed kong" in p]
    if not reasons and not is_legal(reading.tiles, reading.melds):
        reasons.append(
            f"{format_tiles(list(reading.tiles))} does not split into sets and a pair"
            + (" (nor seven pairs)" if not reading.melds else "")
        )
    if reading.tiles and reading.win_tile is None:
        reasons.append("no winning tile")
    return tuple(reasons)


def diagnose(reading: HandReading, limit: int = 5, max_regroups: int = MAX_REGROUPS,
             shape: tuple[int, ...] | None = None) -> Diagnosis:
    """Reasons, and up to ``limit`` legal readings near this one, cheapest first.

    Candidate edits are tried in order of cost; grouping again (tens of ms) is spent only on
    edits that can give a hand, at most ``max_regroups`` times, and none once the edits left
    cost COST_MARGIN more than the best legal reading found. ``shape``: the photo's, where it is
    known; a face-down tile lost from a concealed kong is then looked for too (:func:`_missed_back`).
    """
    if max_regroups < 0:
        raise ValueError(f"max_regroups must be >= 0, got {max_regroups}")
    reasons = explain(reading)
    if not reasons:
        return Diagnosis(True, (), ())
    hidden = faceless_kongs(reading)  # a kong shown all face down is a kong of the hand: its four tiles count
    if hidden and _whole_but_faces(reading, hidden):  # only its face is unknown: the score guesses it, and offers
        return Diagnosis(False, reasons, ())
    kongs, count = sum(1 for m in reading.melds if m.kind.size == 4) + hidden, reading.tile_count + 4 * hidden
    # Far from any hand, nothing near to offer; but a set short beside face-down tiles may be a kong shown all
    # face down that lost one (with a fourth added, the kong makes the set and needs its extra tile).
    set_short_by_backs = shape is not None and count + 3 == 14 + kongs and _loose_backs(reading) >= 3
    if abs(count - (14 + kongs)) > 2 and not set_short_by_backs:
        return Diagnosis(False, reasons, ())
    search = _Search(reading, limit, max_regroups)
    singles = _detector_singles(reading)
    # Two misreads at once are priced as the sum of the two and tried in the same cheapest-first order as the
    # single edits: a pair likelier than any single legal edit must not wait for the singles to fail.
    search.run([(c, ((i, k),)) for c, i, k in singles] + _hand_edits(reading) + _pair_edits(singles))
    for s in _missed_tile(reading) + ([] if shape is None else _missed_back(reading, shape)):
        search.keep(s)
    return Diagnosis(False, reasons, search.ranked())


def likeliest(diagnosis: Diagnosis, fixed: frozenset[int] = frozenset(),
              max_cost: float = ACCEPT_COST) -> Suggestion | None:
    """The legal reading to score in place of an illegal one: the cheapest suggestion costing at
    most ``max_cost`` that changes none of the ``fixed`` detections (faces the user set); None
    when the reading is legal or nothing near enough was found."""
    for s in diagnosis.suggestions:  # cheapest first
        if s.cost > max_cost:
            return None
        if not any(c.detection in fixed for c in s.changes):
            return s
    return None


Edit = tuple[tuple[int, int | None], ...]  # (detection, new class or None to drop it)


class _Search:
    """Regroups candidate edits cheapest first, within a budget, keeping the legal ones."""

    def __init__(self, reading: HandReading, limit: int, max_regroups: int) -> None:
        self.reading, self.limit, self.budget = reading, limit, max_regroups
        self.found: dict[tuple, Suggestion] = {}
        self.tried: set[Edit] = set()
        self.regroups = 0

    def run(self, candidates: list[tuple[float, Edit]]) -> None:
        for cost, edits in sorted(candidates, key=lambda c: c[0]):
            if self.regroups >= self.budget or self._enough(cost):
                return
            if edits in self.tried or not may_be_legal(self.reading, edits):
                continue
            self.tried.add(edits)
            self.regroups += 1
            s = _regroup(self.reading, edits, cost)
            if s is not None:
                self.keep(s)

    def _enough(self, cost: float) -> bool:
        costs = sorted(s.cost for s in self.found.values())
        return bool(costs) and (cost > costs[0] + COST_MARGIN
                                or (len(costs) >= self.limit and cost >= costs[self.limit - 1]))

    def keep(self, s: Suggestion) -> bool:
        if not is_legal(s.tiles, s.melds, s.hidden_kongs):
            return False
        key = (tuple(sorted(s.tiles)), s.win_tile, tuple(sorted(map(str, s.melds))), s.fa, s.hidden_kongs)
        if key not in self.found or s.cost < self.found[key].cost:
            self.found[key] = s
        return True

    def ranked(self) -> tuple[Suggestion, ...]:
        return tuple(sorted(self.found.values(), key=lambda s: s.cost)[: self.limit])


def may_be_legal(r: HandReading, edits: Edit) -> bool:
    """False when the edits surely give no hand: no tile was left loose (grouping again could
    place those elsewhere), the edits only touch standing tiles and keep them plain faces, and
    those tiles with the same melds are no hand, nor with four alike of them as a kong. Anything
    else needs grouping again."""
    det = r.detections
    if "loose" in r.roles:
        return True
    tiles = list(r.tiles)
    for i, k in edits:
        old = int(det.cls[i])
        plain = (old, k if k is not None else old)
        if r.roles[i] not in ("concealed", "win") or any(c in (BACK_CLASS, Tile.FA.index) for c in plain):
            return True
        if Tile.from_index(old) not in tiles:
            return True
        tiles.remove(Tile.from_index(old))
        if k is not None:
            tiles.append(Tile.from_index(k))
    hidden = faceless_kongs(r)
    if _hand(tiles, r.melds, r.fa, hidden):
        return True
    # four alike standing: grouped again, they may be a kong (claimed or concealed: the same count and shape)
    return any(_hand([t for t in tiles if t is not four], (*r.melds, Meld(MeldKind.KONG, four)), r.fa, hidden)
               for four in set(tiles) if tiles.count(four) == 4)


def _hand(tiles: list[Tile], melds: tuple[Meld, ...], fa: int, hidden: int = 0) -> bool:
    """A hand with ``hidden`` kongs shown all face down beside the melds (sets of unknown face)."""
    return not count_problems(tuple(tiles), melds, fa, hidden_kongs=hidden) and is_legal(tiles, melds, hidden)


def _missed_tile(r: HandReading) -> list[Suggestion]:
    """One tile short: whatever completes the hand, added (nothing to regroup)."""
    n_sets = 4 - len(r.melds)
    if len(r.tiles) != 3 * n_sets + 1:
        return []
    melded = Counter(t for m in r.melds for t in m.tiles)
    out = []
    for idx in _waits(list(r.tiles), melded, n_sets):
        new = TILES[idx]
        win = r.win_tile if r.win_tile is not None else new
        out.append(Suggestion((Change(None, None, new),), tuple(r.tiles) + (new,), win, r.melds, r.fa, ADD_COST))
    return out


def _missed_back(r: HandReading, shape: tuple[int, ...]) -> list[Suggestion]:
    """A concealed kong that lost a face-down tile falls apart: its other face-down tiles lie uncounted and its
    faces read as strays or in the row. A face-down tile is added beside each run of uncounted ones, where the
    page's "+" would place it (``missed.place_beside``), and kept when the hand then reads legal: with every face
    seen, or with four face down making the set the hand lacks (its face guessed as for one found whole)."""
    det = r.detections
    ignored = [i for i, role in enumerate(r.roles) if role == "ignored"]
    out: list[Suggestion] = []
    looked: set[int] = set()
    runs = 0
    for i in np.flatnonzero(np.asarray(det.cls) == BACK_CLASS).tolist():
        if r.roles[i] != "loose" or i in looked:
            continue
        looked.update(face_down_run(det, r, i))
        if len(face_down_run(det, r, i, faces=False)) > KONG_BACKS_LEFT:
            continue  # more lying together: the wall's
        if runs == BACK_RUNS:
            break
        runs += 1
        try:
            box = place_beside(det, i, BACK_CLASS, shape, ignored)
        except ValueError:  # no place reads it in the hand
            continue
        new = group(add_tiles(det, [(BACK_CLASS, box)], shape), ignored)
        hidden = faceless_kongs(new)
        if new.win_tile is not None and (not explain(new) if not hidden else _whole_but_faces(new, hidden)):
            out.append(Suggestion((Change(None, None, None, beside=i),), new.tiles, new.win_tile, new.melds, new.fa,
                                  ADD_BACK_COST, new, hidden))
    return out


def _loose_backs(r: HandReading) -> int:
    return sum(1 for i, role in enumerate(r.roles) if role == "loose" and int(r.detections.cls[i]) == BACK_CLASS)


def _whole_but_faces(r: HandReading, hidden: int) -> bool:
    """A legal hand once its ``hidden`` all-face-down kongs are counted as sets: only their faces are unknown."""
    kong_problems = [p for p in r.problems if "concealed kong" in p]
    return (not count_problems(r.tiles, r.melds, r.fa, hidden_kongs=hidden) and set(kong_problems) <= {FACELESS_KONG}
            and is_legal(r.tiles, r.melds, hidden))


def _hand_edits(r: HandReading) -> list[tuple[float, Edit]]:
    """Edits found from the standing tiles and the wait set (no probabilities needed)."""
    det = r.detections
    out: list[tuple[float, Edit]] = []
    standing = [i for i, role in enumerate(r.roles) if role in ("concealed", "win")]
    n_sets = 4 - len(r.melds)
    need = 3 * n_sets + 2
    melded = Counter(t for m in r.melds for t in m.tiles)
    if len(r.tiles) == need + 1:  # one too many: drop the tile whose absence leaves a hand
        out += [(1.0 + float(det.conf[i]), ((i, None),)) for i in standing]
    elif len(r.tiles) == need:  # one misread: the rest is one tile short of a hand
        for i in standing:
            old = Tile.from_index(int(det.cls[i]))
            out += [(_swap_cost(det, i, idx), ((i, idx),))
                    for idx in _waits(list(_without(r.tiles, old)), melded, n_sets) if idx != old.index]
    faint = sorted((float(det.conf[i]), i) for i, role in enumerate(r.roles)
                   if role not in SET_ASIDE and float(det.conf[i]) < FAINT_CONF)[:FAINT_DROPS]
    out += [(1.0 + conf, ((i, None),)) for conf, i in faint]
    return out


def _detector_singles(r: HandReading) -> list[tuple[float, int, int]]:
    """(cost, detection, class) for the detector's likeliest second choices, cheapest first (a
    misread meld tile changes the grouping too, hence each is grouped again)."""
    det = r.detections
    if det.probs is None or len(det) == 0:
        return []
    singles: list[tuple[float, int, int]] = []
    for i in range(len(det)):
        if r.roles[i] in SET_ASIDE:  # set aside (by the user, or no Xingzi face): not read again
            continue
        singles += [(_swap_cost(det, i, k), i, k) for k in det.alternatives(i, TOP_ALTERNATIVES, MIN_PROB)]
    return sorted(singles)


def _pair_edits(singles: list[tuple[float, int, int]]) -> list[tuple[float, Edit]]:
    return [(c1 + c2, ((i1, k1), (i2, k2))) for (c1, i1, k1), (c2, i2, k2) in combinations(singles[:PAIR_POOL], 2)
            if i1 != i2]


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
    ignored = np.array([role == "ignored" for role in r.roles], bool)[keep]  # still set aside by the user
    new = group(replace(det, cls=cls).subset(keep), np.flatnonzero(ignored))
    hidden = faceless_kongs(new)  # a kong shown all face down: legal when only its face is unknown
    if not new.win_tile or (explain(new) if not hidden else not _whole_but_faces(new, hidden)):
        return None
    changes = tuple(Change(i, _tile(det, i), None if k is None or k == BACK_CLASS else Tile.from_index(k), k is None)
                    for i, k in edits)
    return Suggestion(changes, new.tiles, new.win_tile, new.melds, new.fa, cost, new, hidden)


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
