"""Where tiles lie: the rows' direction, coordinates along and across each row (rows are chains of
tiles side by side, found in ``rowlink``), the gaps that split rows into groups, sideways tiles,
the pitch of touching tiles, tiles off their neighbours' line, and
boxes seen twice.

Pure numpy, used by ``grouping``. Lengths are in units of the tiles' own size, so the thresholds
hold at any scale.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field

import numpy as np

from . import rowlink
from .detections import Detections

OFF_LINE_OVER = 0.15  # across-row offset (in tile heights) that drops a tile when the hand has too many
SIDEWAYS_RATIO = 1.4  # along/across aspect relative to the row's median aspect
END_SIDEWAYS_RATIO = 1.6  # the same at either end of a row: perspective widens end tiles, seen from one side only
DUPLICATE_IOU = 0.7  # two boxes of one class this much overlapping are one tile
# Three boxes in the room of two tiles: two whose centres are at most this many steps apart (in the row's
# pitch) are neighbours, and a box read with doubt (under JOINT_DOUBT, as lone.LONE_CONF) between them lies
# across their joint.
JOINT_SPAN = 1.25
JOINT_DOUBT = 0.6
BRIDGE_GAP = 2.3  # a gap at most this many steps long holds one tile (a 发 there, touching both sides, joins them)
BRIDGE_ROW = 4  # ... where the two groups make a row this long (not two tiles strewn about with a 发 between)
# A 萬 face's red-to-ink way this long across the row (in box sizes) is one whole vote for which way the row
# reads; it takes this many net votes to read it against the usual way (facing.py; docs/pipeline.md).
UP_STEP = 0.05
UP_VOTES = 3.0
LINE_TOL = 0.36  # across offset (in tile sizes) from a neighbour's line that puts a tile in another row
# A step between neighbours well beyond the steps beside it is a gap between groups, even when
# less than the usual gap threshold: this much longer than the neighbouring steps, and by more
# than GAP_SCATTER times the row's typical scatter of steps (relative, at least SCATTER_FLOOR).
GAP_OVER_LOCAL = 1.15
GAP_SCATTER = 6.0
SCATTER_FLOOR = 0.01
# A tile lying sideways is longer along the row by about a third of its width (tiles are about
# 3:4), so the centre step beside it is about a sixth longer where the tiles touch.
SIDEWAYS_STEP = 1.17
# Rows found lately, by their boxes: the grouping tries several settings, and the repair dozens of
# faces, on the same boxes; the rows depend on where the boxes lie, not on their faces.
ROWS_REMEMBERED = 64


@dataclass(frozen=True, eq=False)
class Rows:
    """The tiles in the rows' own frame. Arrays hold one entry per detection; ``rows`` hold indices."""

    direction: np.ndarray  # unit vector along the rows
    along: np.ndarray  # centre coordinate along the rows
    across: np.ndarray  # centre coordinate across the rows
    a_ext: np.ndarray  # each tile's extent along the rows
    b_ext: np.ndarray  # each tile's extent across the rows
    rows: list[np.ndarray]  # detection indices of each row, rows ordered across
    sideways: np.ndarray  # a tile lying sideways among its row's neighbours
    scale: np.ndarray  # local tile size relative to the typical tile (perspective makes far tiles smaller)
    pitch: float  # typical centre distance of touching neighbours, in units of ``scale``
    segments: dict = field(default_factory=dict, repr=False)  # row_segments' answers, by its settings


_found: OrderedDict[tuple, Rows] = OrderedDict()
_found_lock = threading.Lock()


def find_rows(centers: np.ndarray, wh: np.ndarray, body: np.ndarray, line_tol: float = LINE_TOL,
              up: np.ndarray | None = None) -> Rows:
    """Rows of the tiles ``body`` (indices), boxes given by ``centers`` and ``wh`` (width, height).

    Tiles side by side are chained (``rowlink``), the direction from nearest neighbours refined
    by the chains, and chains continuing one another's line across a gap joined into rows.
    ``line_tol``: how far across (in tile sizes) a tile may lie from its neighbour's line.
    ``up``: each tile's top as its face shows it (:mod:`facing`), which sets the way the rows read.
    The answer is shared by calls with the same boxes (read-only arrays: callers must not change it).
    """
    arrays = (centers, wh, np.asarray(body)) + (() if up is None else (up,))
    key = tuple((a.dtype.str, a.shape, a.tobytes()) for a in arrays) + (float(line_tol),)
    with _found_lock:
        if key in _found:
            _found.move_to_end(key)
            return _found[key]
    geo = _find_rows(centers, wh, body, line_tol, up)
    for value in vars(geo).values():
        for array in value if isinstance(value, list) else [value]:
            if isinstance(array, np.ndarray):
                array.flags.writeable = False
    with _found_lock:
        _found[key] = geo
        while len(_found) > ROWS_REMEMBERED:
            _found.popitem(last=False)
    return geo


def _find_rows(centers: np.ndarray, wh: np.ndarray, body: np.ndarray, line_tol: float,
               up: np.ndarray | None) -> Rows:
    size = np.sqrt(np.maximum(wh[:, 0] * wh[:, 1], 1e-9))
    u = rowlink.best_direction(centers, size, body, row_direction(centers[body], wh[body]), line_tol)
    u = canonical(rowlink.mean_direction(rowlink.chains(centers, u, size, body, line_tol), centers, u))
    u = reading_way(u, None if up is None else up[body])
    pieces = rowlink.chains(centers, u, size, body, line_tol)
    joined = rowlink.join(pieces, centers, u, size, line_tol)
    _, _, a_ext, b_ext, conditioned = frame(centers, wh, u)
    along, across = rowlink.row_frame(joined, centers, u)
    rows = sorted((np.array(r, dtype=np.int64) for r in joined), key=lambda r: float(np.mean(across[r])))
    turned = sideways(rows, along, a_ext, b_ext) if conditioned else np.zeros(len(centers), bool)
    scale = size / float(np.median(size[body]))
    return Rows(u, along, across, a_ext, b_ext, rows, turned, scale, pitch(rows, along, scale))


def row_segments(geo: Rows, gap_split: float, off_line: float) -> list[list[int]]:
    """The rows cut at gaps into groups, each ordered along its row; tiles off their group's line alone."""
    key = (float(gap_split), float(off_line))
    if key not in geo.segments:
        geo.segments[key] = _row_segments(geo, gap_split, off_line)
    return [list(seg) for seg in geo.segments[key]]


def _row_segments(geo: Rows, gap_split: float, off_line: float) -> list[list[int]]:
    cut = [seg for row in geo.rows for seg in split_gaps(row, geo.along, geo.scale, geo.pitch, gap_split, geo.sideways)]
    return off_line_apart(cut, geo.across, geo.b_ext, off_line)


def bridged_by_fa(segments: list[list[int]], geo: Rows, centers: np.ndarray, fa: np.ndarray) -> list[list[int]]:
    """Neighbouring groups of one row, BRIDGE_ROW tiles together, joined where a 发 stands between them touching
    both (its box left out of the rows, the row looked cut there): a bonus 发 read, or corrected, in a hand's row.
    Cut there, a part away from the hand was read as claimed melds or as tiles lying apart."""
    if not len(fa) or len(segments) < 2:
        return segments
    row_of = {int(i): k for k, r in enumerate(geo.rows) for i in r}
    out = [segments[0]]
    for seg in segments[1:]:
        a, b = out[-1][-1], seg[0]
        step = geo.pitch * (geo.scale[a] + geo.scale[b]) / 2
        if (len(out[-1]) + len(seg) >= BRIDGE_ROW and row_of.get(a, -1) == row_of.get(b, -2)
                and _fa_between(centers[a], centers[b], centers[fa], step)):
            out[-1] = out[-1] + seg
        else:
            out.append(seg)
    return out


def _fa_between(a: np.ndarray, b: np.ndarray, fa: np.ndarray, touching: float) -> bool:
    """Whether one of the centres ``fa`` lies in the middle of a gap a→b one tile wide (BRIDGE_GAP steps)."""
    ab = b - a
    length = float(np.hypot(*ab))
    if not 0 < length <= BRIDGE_GAP * touching:
        return False
    t = (fa - a) @ ab / length ** 2
    off = np.abs((fa - a) @ np.array([-ab[1], ab[0]])) / length
    return bool(np.any((t > 0.3) & (t < 0.7) & (off < 0.5 * touching)))


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
    return canonical(np.array([np.cos(theta), np.sin(theta)]))


def canonical(u: np.ndarray) -> np.ndarray:
    """Point the row direction rightwards (or downwards when vertical) so 'last' means the usual end."""
    if u[0] < -1e-9 or (abs(u[0]) <= 1e-9 and u[1] < 0):
        return -u
    return u


def reading_way(u: np.ndarray, up: np.ndarray | None) -> np.ndarray:
    """The row direction turned to run left to right under the tiles' tops (``up``: (N, 2), each tile's top as
    its face shows it, zero where it does not), where the faces agree by at least UP_VOTES; else ``u`` as it is
    (:func:`canonical`'s usual way: boxes alone cannot tell a photo turned half round)."""
    if up is None or not len(up):
        return u
    right = np.stack([-up[:, 1], up[:, 0]], axis=1)  # a tile's right-hand side, from its top (image y points down)
    votes = float(np.clip(right @ u / UP_STEP, -1.0, 1.0).sum())
    return -u if votes <= -UP_VOTES else u


def frame(centers: np.ndarray, wh: np.ndarray, u: np.ndarray):
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


def sideways(rows: list[np.ndarray], along: np.ndarray, a_ext: np.ndarray, b_ext: np.ndarray) -> np.ndarray:
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
            ratio = END_SIDEWAYS_RATIO if pos in (0, len(order) - 1) else SIDEWAYS_RATIO
            out[i] = (aspect[i] > ratio * np.median(aspect[near])
                      and a_ext[i] > 1.15 * np.median(a_ext[near]) and b_ext[i] < 0.88 * np.median(b_ext[near]))
    return out


def pitch(rows: list[np.ndarray], along: np.ndarray, scale: np.ndarray) -> float:
    """Typical distance between touching neighbours' centres, in units of the local tile scale."""
    steps = []
    for r in rows:
        order = r[np.argsort(along[r], kind="stable")]
        local = (scale[order][:-1] + scale[order][1:]) / 2
        steps.append(np.diff(along[order]) / local)
    pooled = np.concatenate(steps) if steps else np.zeros(0)
    return float(np.median(pooled)) if len(pooled) else 1.0


def off_line_distance(seg: list[int], across: np.ndarray) -> dict[int, float]:
    """How far each tile lies across the row from the line of its nearest neighbours."""
    out = {}
    for pos, i in enumerate(seg):
        near = seg[max(0, pos - 2):pos] + seg[pos + 1:pos + 3]
        out[i] = abs(float(across[i]) - float(np.median(across[near]))) if near else 0.0
    return out


def furthest_off_line(seg: list[int], across: np.ndarray, b_ext: np.ndarray, count: int) -> list[int]:
    """Up to ``count`` tiles of ``seg`` furthest off their neighbours' line, if clearly off it."""
    dev = off_line_distance(seg, across)
    height = float(np.median(b_ext[seg]))
    return [i for i in sorted(dev, key=lambda i: -dev[i])[:count] if dev[i] > OFF_LINE_OVER * height]


def off_line_apart(segments: list[list[int]], across: np.ndarray, b_ext: np.ndarray,
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


def split_gaps(row: np.ndarray, along: np.ndarray, scale: np.ndarray, pitch: float,
               gap_split: float, sideways: np.ndarray | None = None) -> list[list[int]]:
    """A row cut into groups, ordered along it, wherever neighbours lie ``gap_split`` pitches apart
    or clearly further apart than the neighbouring steps (see GAP_OVER_LOCAL)."""
    order = row[np.argsort(along[row], kind="stable")]
    dist = np.diff(along[order])
    touching = pitch * (scale[order][:-1] + scale[order][1:]) / 2
    # A sideways tile is longer along the row: the steps beside it are longer with no gap.
    turned = np.zeros(len(order), bool) if sideways is None else sideways[order]
    plain = ~(turned[:-1] | turned[1:])
    inner = turned.copy()  # not a row's end tile: perspective widens those, and a winner set apart there is no meld's
    inner[[0, -1]] = False
    stretched = inner[:-1] | inner[1:]
    gap = dist > gap_split * touching * np.where(stretched, SIDEWAYS_STEP, 1.0)
    if len(dist) >= 4:
        ratio = dist / touching
        local = np.array([np.median(np.delete(ratio[max(0, k - 2):k + 3], min(k, 2))) for k in range(len(ratio))])
        excess = ratio - local
        scatter = max(float(np.median(np.abs(excess))), SCATTER_FLOOR)
        gap |= (ratio > GAP_OVER_LOCAL * local) & (excess > GAP_SCATTER * scatter) & plain
    cuts = np.flatnonzero(gap) + 1
    return [list(map(int, s)) for s in np.split(order, cuts) if len(s)]


def distance(i: int, seg: list[int], centers: np.ndarray) -> float:
    """Centre distance from tile ``i`` to the nearest tile of ``seg``."""
    return float(np.min(np.hypot(*(centers[seg] - centers[i]).T)))


def joint_boxes(geo: Rows, conf: np.ndarray, cls: np.ndarray) -> list[int]:
    """Boxes lying across the joint of two neighbouring tiles of a row (JOINT_SPAN) and read with doubt, less
    surely than both: the detector took the joint for a tile (real tile pictures with a bevelled edge). A tile
    stacked on another (a kong shown three and one) is no joint: a box over another is never linked into its row.
    A box of a face seen five times or more in the rows (a set has four) between two of that face is one too,
    however sure, when less sure than both."""
    members = np.concatenate(geo.rows).astype(np.int64) if geo.rows else np.zeros(0, np.int64)
    many = {k for k, n in Counter(cls[members].tolist()).items() if n > 4}
    out: list[int] = []
    for row in geo.rows:
        order = row[np.argsort(geo.along[row], kind="stable")]
        for a, b, c in zip(order, order[1:], order[2:], strict=False):
            step = geo.pitch * (geo.scale[a] + geo.scale[c]) / 2
            fifth = int(cls[b]) in many and cls[a] == cls[b] == cls[c]
            if (a not in out and geo.along[c] - geo.along[a] <= JOINT_SPAN * step
                    and conf[b] < min(conf[a], conf[c], 1.0 if fifth else JOINT_DOUBT)):
                out.append(int(b))
    return out


def distinct_boxes(det: Detections) -> np.ndarray:
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
