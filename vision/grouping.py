"""Detections → a hand: rows, melds, 发 bonus tiles and the winning tile, at any rotation.

Pure numpy. The photo only shows where tiles lie; the grouping follows how players lay a
revealed hand out: the concealed tiles in a row, each claimed pung/kong apart from it (one
tile turned sideways), concealed kongs with tiles face down, 发 set aside and, often, the
winning tile pushed a little away from the row.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import format_meld, format_tiles
from xingzi.engine.shapes import is_complete
from xingzi.engine.tiles import BACK_CLASS, Tile, tile_counts

from .detections import Detections

FA_CLASS = Tile.FA.index
ROLES = ("concealed", "win", "pung", "kong", "concealed_kong", "fa", "loose")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")

# Thresholds, in units of the tiles' own size, so they hold at any scale.
ROW_SPLIT = 0.6  # across-row distance (in tile heights) that starts a new row
GAP_SPLIT = 1.35  # centre distance / typical neighbour distance that counts as a gap
SIDEWAYS_RATIO = 1.4  # along/across aspect relative to the row's median aspect
WIN_GUESSED = "winning tile not set apart"
KONG_SHOWN = {"DFFD", "FDDF", "DDDF", "FDDD", "DDDD"}  # face-down (D) / face-up (F) patterns of 暗杠
OFF_LINE = 0.4  # across-row offset (in tile heights) from its neighbours' line that puts a tile apart
OFF_LINE_OVER = 0.15  # the same, enough to drop a tile when the hand has too many
END_GAP = 1.1  # an end tile this much further from its neighbour than the row's pitch was pushed aside
SINGLES_TRIED = 6  # lone tiles considered for the hand's missing places
DUPLICATE_IOU = 0.7  # two boxes of one class this much overlapping are one tile


@dataclass(frozen=True, eq=False)
class HandReading:
    """What the photo says about the hand. Per-detection tuples follow ``detections`` order.

    ``tiles`` are the tiles standing in the hand, winning tile included (the §10 ``hand``);
    ``win_set_apart`` says whether the winning tile was seen apart or only guessed.
    ``roles[i]`` is one of ROLES; ``meld_of[i]`` the index into ``melds`` or -1.
    """

    tiles: tuple[Tile, ...]
    win_tile: Tile | None
    win_set_apart: bool
    melds: tuple[Meld, ...]
    fa: int
    roles: tuple[str, ...]
    meld_of: tuple[int, ...]
    sideways: tuple[bool, ...]
    problems: tuple[str, ...]
    direction: tuple[float, float]
    detections: Detections = field(repr=False)

    @property
    def tile_count(self) -> int:
        """Tiles of the hand proper: standing tiles plus meld tiles (发 not counted)."""
        return len(self.tiles) + sum(m.kind.size for m in self.melds)

    @property
    def notation(self) -> str:
        """``123m456m789p12s55p 3s | pung 中 | fa 2``."""
        standing = list(self.tiles)
        if self.win_tile is not None and self.win_tile in standing:
            standing.remove(self.win_tile)
        text = format_tiles(standing)
        if self.win_tile is not None:
            text += f" {self.win_tile.symbol}"
        parts = [text] + [format_meld(m) for m in self.melds]
        if self.fa:
            parts.append(f"fa {self.fa}")
        return " | ".join(parts)

    def situation(self) -> dict:
        """The tile part of a §10 situation (hand, win_tile, melds, fa)."""
        return {
            "hand": format_tiles(list(self.tiles)),
            "win_tile": None if self.win_tile is None else self.win_tile.symbol,
            "melds": [format_meld(m) for m in self.melds],
            "fa": self.fa,
        }


@dataclass(frozen=True)
class Knobs:
    """The grouping's thresholds; ``group`` tries a few settings when the first makes no legal hand."""

    gap_split: float = GAP_SPLIT
    off_line: float = OFF_LINE
    row_split: float = ROW_SPLIT
    sideways_in_row: bool = True


# Tried in this order; the first that reads a legal hand wins (a photo is of a winning hand).
VARIANTS = (
    Knobs(),
    Knobs(sideways_in_row=False),  # a tile seen as sideways inside the hand row may be noise
    Knobs(gap_split=1.2),  # groups laid closer together than usual
    Knobs(gap_split=1.7),  # tiles of one group laid loosely
    Knobs(off_line=0.6),  # a crooked row
    Knobs(row_split=0.9),  # a row drawn out of line by perspective
    Knobs(gap_split=1.2, sideways_in_row=False),
)


def group(detections: Detections) -> HandReading:
    """Group detections into a hand. Never raises for odd layouts: oddities go to ``problems``.

    The thresholds that split rows and gaps cannot suit every table, so when the first reading
    is not a legal hand, a few other settings are tried: the first legal reading is taken, else
    the first with the right tile count, else the first.
    """
    readings = []
    for knobs in VARIANTS:
        reading = _group(detections, knobs)
        if is_legal_reading(reading):
            return reading
        readings.append(reading)
    counted = [r for r in readings if not any(" tiles (a winning hand" in p for p in r.problems)]
    return (counted or readings)[0]


def is_legal(tiles, melds) -> bool:
    """A complete hand (standard shape or seven pairs) with no tile more than four times."""
    counts = tile_counts(tiles)
    total = list(counts)
    for m in melds:
        total[m.tile.index] += m.kind.size
    if any(c > 4 for c in total) or len(melds) > 4:
        return False
    return is_complete(tuple(counts), 4 - len(melds))


def is_legal_reading(reading: HandReading) -> bool:
    """Legal tiles with a winning tile, no more than four 发, and every concealed kong's face seen."""
    return (reading.win_tile is not None and reading.fa <= 4 and is_legal(reading.tiles, reading.melds)
            and not any("concealed kong" in p for p in reading.problems))


def _group(detections: Detections, knobs: Knobs = Knobs()) -> HandReading:
    n = len(detections)
    if n == 0:
        return _empty(detections, ("no tiles found",))
    cls = np.asarray(detections.cls, dtype=np.int64)
    roles = ["loose"] * n
    meld_of = [-1] * n
    problems: list[str] = []

    keep = _drop_duplicates(detections)
    if (~keep).sum():
        problems.append(f"{int((~keep).sum())} duplicate detection(s) ignored")
    fa_mask = (cls == FA_CLASS) & keep
    for i in np.flatnonzero(fa_mask):
        roles[i] = "fa"
    fa = int(fa_mask.sum())
    if fa > 4:
        problems.append(f"{_count_word(fa)} 发 (only four exist)")

    body = np.flatnonzero(keep & ~fa_mask)
    if len(body) == 0:
        if fa == 0:
            problems.append("no tiles found")
        else:
            problems.append("only 发 bonus tiles found")
        return _result(detections, (), None, False, (), fa, roles, meld_of, np.zeros(n, bool), problems, (1.0, 0.0))

    centers = detections.centers.astype(np.float64)
    wh = (detections.xyxy[:, 2:] - detections.xyxy[:, :2]).astype(np.float64)
    u = row_direction(centers[body], wh[body])
    along, across, a_ext, b_ext, conditioned = _frame(centers, wh, u)
    rows = _split_rows(body, across, b_ext, knobs.row_split)
    u = _refine_direction(rows, centers, u)
    along, across, a_ext, b_ext, conditioned = _frame(centers, wh, u)
    rows = _split_rows(body, across, b_ext, knobs.row_split)
    sideways = _sideways(rows, along, a_ext, b_ext) if conditioned else np.zeros(n, bool)
    # Local tile scale (perspective makes far tiles smaller), relative to the typical tile.
    root_area = np.sqrt(np.maximum(wh[:, 0] * wh[:, 1], 1e-9))
    scale = root_area / float(np.median(root_area[body]))
    pitch = _pitch(rows, along, scale)
    segments = [seg for row in rows for seg in _split_gaps(row, along, scale, pitch, knobs.gap_split)]
    segments = _off_line_apart(segments, across, b_ext, knobs.off_line)

    melds: list[Meld] = []
    pieces: list[list[int]] = []  # what is left of each segment once melds are taken out
    main = _main_segment(segments, cls)
    for k, seg in enumerate(segments):
        cue = sideways if knobs.sideways_in_row or k != main else np.zeros(n, bool)
        rest = _take_melds(seg, cls, cue, k == main, melds, roles, meld_of, problems)
        pieces.extend(rest)

    _order_melds(melds, meld_of, [i for seg in segments for i in seg])
    row_of = {int(i): k for k, r in enumerate(rows) for i in r}
    main_seg = segments[main]
    main_row = row_of[main_seg[0]]
    # Face-down tiles outside a concealed kong are not part of a revealed hand (a wall, strays).
    pieces = [q for q in ([i for i in p if cls[i] != BACK_CLASS] for p in pieces) if q]
    singles = [p[0] for p in pieces if len(p) == 1 and p[0] not in main_seg]
    # Tiles lying alone join the hand only while it is short of tiles: first those on the hand's
    # row (a winning tile pushed aside), then the nearest; the rest are strays on the table.
    singles.sort(key=lambda i: (row_of[i] != main_row, _distance(i, main_seg, centers)))
    concealed = [i for p in pieces for i in p if i not in singles]
    need = 14 + sum(1 for m in melds if m.kind is not MeldKind.PUNG) - sum(m.kind.size for m in melds)
    short = need - len(concealed)
    if short > 0:
        joined = _legal_singles(singles, short, concealed, melds, cls)
    else:  # a full row already: still take one tile lying right beside it (the winning tile)
        near = singles[:1]
        joined = [i for i in near if row_of[i] == main_row and _distance(i, main_seg, centers) < 3.5 * pitch]
    for j in singles:
        if j not in joined:
            roles[j] = "loose"
    if len(singles) > len(joined):
        problems.append(f"{len(singles) - len(joined)} tile(s) lying away from the hand ignored")
    concealed += joined
    over = len(concealed) - need
    if over > 0:  # too many tiles: drop those furthest off the hand row's line (strays in front/behind)
        dev = _off_line(main_seg, across)
        height = float(np.median(b_ext[main_seg]))
        drop = [i for i in sorted(dev, key=lambda i: -dev[i])[:over] if dev[i] > OFF_LINE_OVER * height]
        concealed = [i for i in concealed if i not in drop]
        main_seg = [i for i in main_seg if i not in drop]
        if drop:
            problems.append(f"{len(drop)} tile(s) off the hand's line ignored")
    win, apart = _choose_win(joined, concealed, main_seg, centers, along, cls, problems, scale)
    for j in concealed:
        roles[j] = "concealed"
    if win is not None:
        roles[win] = "win"
    tiles = tuple(Tile.from_index(int(cls[i])) for i in concealed if roles[i] in ("concealed", "win"))
    win_tile = None if win is None else Tile.from_index(int(cls[win]))
    problems.extend(count_problems(tiles, melds, fa))
    return _result(detections, tiles, win_tile, apart, tuple(melds), fa, roles, meld_of, sideways, problems,
                   (float(u[0]), float(u[1])))


def mark_win(reading: HandReading, index: int, set_apart: bool = True, note: str | None = None) -> HandReading:
    """The same reading with detection ``index`` (a tile standing in the hand) as the winning tile."""
    if not 0 <= index < len(reading.roles):
        raise ValueError(f"winning tile #{index}: there are {len(reading.roles)} tiles (0..{len(reading.roles) - 1})")
    if reading.roles[index] not in ("concealed", "win"):
        raise ValueError(f"tile #{index} is read as {reading.roles[index]}: only a tile standing in the hand "
                         "can be the winning tile")
    roles = ["concealed" if r == "win" else r for r in reading.roles]
    roles[index] = "win"
    problems = tuple(p for p in reading.problems if not p.startswith(WIN_GUESSED))
    if note:
        problems += (note,)
    tile = Tile.from_index(int(reading.detections.cls[index]))
    return replace(reading, roles=tuple(roles), win_tile=tile, win_set_apart=set_apart, problems=problems)


def count_problems(tiles: tuple[Tile, ...], melds: list[Meld] | tuple[Meld, ...], fa: int = 0) -> list[str]:
    """Tile-count facts that rule a reading out: '13 tiles', 'five 3p'."""
    out: list[str] = []
    kongs = sum(1 for m in melds if m.kind is not MeldKind.PUNG)
    total = len(tiles) + sum(m.kind.size for m in melds)
    need = 14 + kongs
    if total != need:
        out.append(f"{total} tiles (a winning hand has 14, plus one per kong: {need} here)")
    counts = Counter(tiles)
    for m in melds:
        counts.update(m.tiles)
    for tile, c in sorted(counts.items()):
        if c > 4:
            out.append(f"{_count_word(c)} {tile.symbol} (only four of each tile exist)")
    return out


def row_direction(centers: np.ndarray, wh: np.ndarray) -> np.ndarray:
    """Unit vector along the rows: the mean (doubled-angle) direction to each tile's nearest neighbour.

    Tiles in a row touch side by side, rows lie further apart than that, so nearest
    neighbours point along the rows. A single tile falls back to the box shape.
    """
    if len(centers) < 2:
        w, h = wh[0]
        return np.array([1.0, 0.0]) if h >= w else np.array([0.0, 1.0])
    diff = centers[None, :, :] - centers[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    nearest = np.argmin(dist, axis=1)
    vec = diff[np.arange(len(centers)), nearest]
    ang = np.arctan2(vec[:, 1], vec[:, 0])
    theta = 0.5 * np.arctan2(np.sin(2 * ang).sum(), np.cos(2 * ang).sum())
    return _canonical(np.array([np.cos(theta), np.sin(theta)]))


def _canonical(u: np.ndarray) -> np.ndarray:
    """Point the row direction rightwards (or downwards when vertical) so 'last' means the usual end."""
    if u[0] < -1e-9 or (abs(u[0]) <= 1e-9 and u[1] < 0):
        return -u
    return u


def _frame(centers: np.ndarray, wh: np.ndarray, u: np.ndarray):
    """Coordinates along/across the rows and each tile's extent along (a) and across (b).

    An axis-aligned box of a tile turned by θ has W = a|cos θ| + b|sin θ|, H = a|sin θ| + b|cos θ|;
    solved for a, b where that is well conditioned (not near 45°).
    """
    v = np.array([-u[1], u[0]])
    along, across = centers @ u, centers @ v
    c, s = abs(u[0]), abs(u[1])
    det = c * c - s * s
    w, h = wh[:, 0], wh[:, 1]
    conditioned = abs(det) > 0.35
    if conditioned:
        a = (c * w - s * h) / det
        b = (c * h - s * w) / det
        total = a + b
        a = np.clip(a, 0.25 * total, 0.75 * total)
        b = total - a
    else:  # near 45°: only the sum is known; assume upright tiles (width ≈ 3/4 height)
        total = (w + h) / (c + s)
        a, b = 0.43 * total, 0.57 * total
    return along, across, a, b, conditioned


def _split_rows(idx: np.ndarray, across: np.ndarray, b_ext: np.ndarray, row_split: float) -> list[np.ndarray]:
    order = idx[np.argsort(across[idx], kind="stable")]
    if len(order) == 0:
        return []
    height = float(np.median(b_ext[idx]))
    cuts = np.flatnonzero(np.diff(across[order]) > row_split * height) + 1
    return [r for r in np.split(order, cuts) if len(r)]


def _refine_direction(rows: list[np.ndarray], centers: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Principal axis of each row of three or more tiles, averaged (doubled angles) by size."""
    sx = sy = 0.0
    for r in rows:
        if len(r) < 3:
            continue
        pts = centers[r] - centers[r].mean(axis=0)
        _, _, vt = np.linalg.svd(pts, full_matrices=False)
        ang = np.arctan2(vt[0, 1], vt[0, 0])
        sx += len(r) * np.cos(2 * ang)
        sy += len(r) * np.sin(2 * ang)
    if sx == 0 and sy == 0:
        return u
    theta = 0.5 * np.arctan2(sy, sx)
    return _canonical(np.array([np.cos(theta), np.sin(theta)]))


def _sideways(rows: list[np.ndarray], along: np.ndarray, a_ext: np.ndarray, b_ext: np.ndarray) -> np.ndarray:
    """A tile much wider (along the row) for its height than its neighbours lies sideways.

    Compared with the nearest few tiles of its row only, since perspective changes shapes slowly.
    """
    out = np.zeros(len(a_ext), bool)
    aspect = a_ext / np.maximum(b_ext, 1e-9)
    for r in rows:
        if len(r) < 3:
            continue
        order = r[np.argsort(along[r], kind="stable")]
        for pos, i in enumerate(order):
            near = np.concatenate([order[max(0, pos - 2):pos], order[pos + 1:pos + 3]])
            # Wider along the row and lower across it than its neighbours, not just one of the two.
            out[i] = (aspect[i] > SIDEWAYS_RATIO * np.median(aspect[near])
                      and a_ext[i] > 1.15 * np.median(a_ext[near]) and b_ext[i] < 0.88 * np.median(b_ext[near]))
    return out


def _pitch(rows: list[np.ndarray], along: np.ndarray, scale: np.ndarray) -> float:
    """Typical distance between touching neighbours' centres, in units of the local tile scale."""
    steps = []
    for r in rows:
        order = r[np.argsort(along[r], kind="stable")]
        local = (scale[order][:-1] + scale[order][1:]) / 2
        steps.append(np.diff(along[order]) / local)
    pooled = np.concatenate(steps) if steps else np.zeros(0)
    return float(np.median(pooled)) if len(pooled) else 1.0


def _off_line(seg: list[int], across: np.ndarray) -> dict[int, float]:
    """How far each tile lies across the row from the line of its nearest neighbours."""
    out = {}
    for pos, i in enumerate(seg):
        near = seg[max(0, pos - 2):pos] + seg[pos + 1:pos + 3]
        out[i] = abs(float(across[i]) - float(np.median(across[near]))) if near else 0.0
    return out


def _off_line_apart(segments: list[list[int]], across: np.ndarray, b_ext: np.ndarray,
                    off_line: float) -> list[list[int]]:
    """A tile lying well off the line of its neighbours (a stray touching a meld) stands alone."""
    out: list[list[int]] = []
    for seg in segments:
        if len(seg) < 3:
            out.append(seg)
            continue
        height = float(np.median(b_ext[seg]))
        keep = []
        for pos, i in enumerate(seg):
            near = seg[max(0, pos - 2):pos] + seg[pos + 1:pos + 3]
            if abs(across[i] - float(np.median(across[near]))) > off_line * height:
                out.append([i])
            else:
                keep.append(i)
        if keep:
            out.append(keep)
    return out


def _split_gaps(row: np.ndarray, along: np.ndarray, scale: np.ndarray, pitch: float,
                gap_split: float) -> list[list[int]]:
    order = row[np.argsort(along[row], kind="stable")]
    dist = np.diff(along[order])
    touching = pitch * (scale[order][:-1] + scale[order][1:]) / 2
    cuts = np.flatnonzero(dist > gap_split * touching) + 1
    return [list(map(int, s)) for s in np.split(order, cuts) if len(s)]


def _order_melds(melds: list[Meld], meld_of: list[int], reading_order: list[int]) -> None:
    """Number the melds in the order they lie (the order they were made, as players lay them out)."""
    rank = {i: k for k, i in enumerate(reading_order)}
    first = {m: min((rank[i] for i, mm in enumerate(meld_of) if mm == m), default=0) for m in range(len(melds))}
    new_order = sorted(range(len(melds)), key=lambda m: first[m])
    renumber = {old: new for new, old in enumerate(new_order)}
    melds[:] = [melds[old] for old in new_order]
    meld_of[:] = [renumber.get(m, -1) for m in meld_of]


def _runs(seq: list[int], cls: np.ndarray) -> list[list[int]]:
    """Consecutive detections of one class."""
    runs: list[list[int]] = []
    for i in seq:
        if runs and cls[runs[-1][-1]] == cls[i]:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _meld_like(seg: list[int], cls: np.ndarray) -> bool:
    """Made only of runs of 3-4 identical faces and face-down tiles with their faces beside them."""
    covered = set()
    for run in _runs(seg, cls):
        if len(run) >= 3 or cls[run[0]] == BACK_CLASS:
            covered.update(run)
    for pos, i in enumerate(seg):
        if cls[i] == BACK_CLASS:
            covered.update(seg[max(0, pos - 1):pos + 2])
    return len(seg) >= 3 and covered == set(seg)


def _main_segment(segments: list[list[int]], cls: np.ndarray) -> int:
    """The hand row: the longest segment that does not look like melds only."""
    candidates = [k for k, s in enumerate(segments) if not _meld_like(s, cls)] or list(range(len(segments)))
    return max(candidates, key=lambda k: len(segments[k]))


def _take_melds(seg, cls, sideways, is_main, melds, roles, meld_of, problems) -> list[list[int]]:
    """Take concealed kongs, claimed melds and set-apart pungs/kongs out of a segment."""
    used: set[int] = set()

    def add(idx: list[int], kind: MeldKind, face: int | None) -> None:
        used.update(idx)
        for i in idx:
            roles[i] = kind.value
        if face is None:
            problems.append("a concealed kong shows no face: cannot tell which tile it is")
            return
        melds.append(Meld(kind, Tile.from_index(face)))
        for i in idx:
            meld_of[i] = len(melds) - 1

    # Face-down tiles: a concealed kong is four side by side in one of the ways players show it
    # (ends down, middle down, one face up at an end, all down); a longer run of backs is a wall.
    pos = 0
    while pos + 4 <= len(seg):
        window = seg[pos:pos + 4]
        down = "".join("D" if cls[i] == BACK_CLASS else "F" for i in window)
        faces = {int(cls[i]) for i in window if cls[i] != BACK_CLASS}
        wall = down == "DDDD" and (pos + 4 < len(seg) and cls[seg[pos + 4]] == BACK_CLASS
                                   or pos > 0 and cls[seg[pos - 1]] == BACK_CLASS)
        if down in KONG_SHOWN and len(faces) <= 1 and not wall and not used & set(window):
            add(window, MeldKind.CONCEALED_KONG, faces.pop() if faces else None)
            pos += 4
        else:
            pos += 1
    used.update(i for i in seg if cls[i] == BACK_CLASS)  # other face-down tiles: strays or a wall

    # A sideways tile marks a claimed pung (or kong): the run of its face around it.
    for pos, i in enumerate(seg):
        if i in used or not sideways[i] or cls[i] == BACK_CLASS:
            continue
        lo = hi = pos
        while lo - 1 >= 0 and seg[lo - 1] not in used and cls[seg[lo - 1]] == cls[i] and hi - lo < 3:
            lo -= 1
        while hi + 1 < len(seg) and seg[hi + 1] not in used and cls[seg[hi + 1]] == cls[i] and hi - lo < 3:
            hi += 1
        if hi - lo + 1 >= 3:
            add(seg[lo:hi + 1], MeldKind.PUNG if hi - lo == 2 else MeldKind.KONG, int(cls[i]))

    pieces: list[list[int]] = []
    current: list[int] = []
    for i in seg:
        if i in used:
            if current:
                pieces.append(current)
            current = []
        else:
            current.append(i)
    if current:
        pieces.append(current)
    if is_main:
        return pieces
    # Apart from the hand row, runs of 3 or 4 of one face are exposed pungs and kongs.
    kept = []
    for piece in pieces:
        runs = _runs(piece, cls)
        if all(len(r) in (3, 4) and cls[r[0]] != BACK_CLASS for r in runs):
            for r in runs:
                add(r, MeldKind.PUNG if len(r) == 3 else MeldKind.KONG, int(cls[r[0]]))
        else:
            kept.append(piece)
    return kept


def _legal_singles(singles: list[int], short: int, concealed: list[int], melds: list[Meld],
                   cls: np.ndarray) -> list[int]:
    """The lone tiles that complete the hand: the nearest ``short`` unless another choice among
    the nearest few makes a legal hand and theirs does not (a stray lay closer than the winner)."""
    nearest = singles[:short]
    if len(singles) <= short:
        return nearest
    base = [Tile.from_index(int(cls[i])) for i in concealed]
    for combo in combinations(singles[:SINGLES_TRIED], short):
        if is_legal(base + [Tile.from_index(int(cls[i])) for i in combo], melds):
            return list(combo)
    return nearest


def _distance(i: int, seg: list[int], centers: np.ndarray) -> float:
    return float(np.min(np.hypot(*(centers[seg] - centers[i]).T)))


def _choose_win(singles, concealed, main_seg, centers, along, cls, problems, scale):
    """The winning tile: the one tile lying apart, else one pushed a little off an end of the row,
    else (a guess) the last of the hand row."""
    if len(singles) == 1:
        return singles[0], True
    if len(singles) > 1:  # tiles not in rows: any of them may be the winning tile
        problems.append(f"{WIN_GUESSED}: {len(singles)} tiles lie apart from the hand")
        return min(singles, key=lambda i: _distance(i, main_seg, centers)), False
    row = [i for i in main_seg if i in concealed and cls[i] != BACK_CLASS]
    if not row:
        return None, False
    pushed = _end_gap(sorted(row, key=lambda i: along[i]), along, scale)
    if pushed is not None:
        return pushed, True
    problems.append(f"{WIN_GUESSED}: guessed the last tile of the row")
    return max(row, key=lambda i: along[i]), False


def _end_gap(order: list[int], along: np.ndarray, scale: np.ndarray) -> int | None:
    """An end tile of the row standing clearly further from its neighbour than the row's tiles do
    from theirs (the drawn tile pushed a little aside, less than a gap between groups)."""
    if len(order) < 5:
        return None
    steps = np.diff(along[order]) / ((scale[order][:-1] + scale[order][1:]) / 2)
    inner = float(np.median(steps[1:-1]))
    spread = float(np.max(np.abs(steps[1:-1] - inner)))
    ends = {order[0]: steps[0], order[-1]: steps[-1]}
    tile, step = max(ends.items(), key=lambda kv: kv[1])
    other = min(ends.values())
    if step > END_GAP * inner and step - inner > 2 * spread and other < step - 2 * spread:
        return tile
    return None


def _drop_duplicates(det: Detections) -> np.ndarray:
    """Two boxes of one class overlapping almost entirely are one tile seen twice: keep the surer."""
    n = len(det)
    keep = np.ones(n, bool)
    if n < 2:
        return keep
    box = det.xyxy.astype(np.float64)
    x1 = np.maximum(box[:, None, 0], box[None, :, 0])
    y1 = np.maximum(box[:, None, 1], box[None, :, 1])
    x2 = np.minimum(box[:, None, 2], box[None, :, 2])
    y2 = np.minimum(box[:, None, 3], box[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])
    iou = inter / np.maximum(area[:, None] + area[None, :] - inter, 1e-9)
    same = det.cls[:, None] == det.cls[None, :]
    for i in np.argsort(-det.conf, kind="stable"):
        if not keep[i]:
            continue
        dup = (iou[i] > DUPLICATE_IOU) & same[i] & keep
        dup[i] = False
        keep[dup] = False
    return keep


def _count_word(n: int) -> str:
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def _empty(det: Detections, problems: tuple[str, ...]) -> HandReading:
    return HandReading((), None, False, (), 0, (), (), (), problems, (1.0, 0.0), det)


def _result(det, tiles, win_tile, apart, melds, fa, roles, meld_of, sideways, problems, direction) -> HandReading:
    return HandReading(
        tiles=tuple(tiles), win_tile=win_tile, win_set_apart=apart, melds=tuple(melds), fa=fa,
        roles=tuple(roles), meld_of=tuple(meld_of), sideways=tuple(bool(s) for s in sideways),
        problems=tuple(dict.fromkeys(problems)), direction=direction, detections=det,
    )
