"""Rows as chains of tiles lying side by side, so rows bend with perspective and rows that
overlap across (a wall half hidden behind a standing hand) stay apart.

Two tiles of one row lie about a tile apart along the row and on one line across it; tiles much
closer than that along the row overlap, so they lie in different rows. Each tile is linked to
its best neighbour on either side when the choice is mutual; the chains are then joined across
gaps into rows where one continues the other's line. Pure numpy, used by ``rowgeom``.
"""

from __future__ import annotations

import numpy as np

# Lengths in tile sizes (the square root of a box's area: boxes of standing or turned tiles are
# not a tile's width wide, and the size is measured the same at any rotation).
LINK_MIN = 0.3  # centre step below which two tiles overlap along the row
LINK_REACH = 1.7  # centre step up to which two tiles in line are side by side
JOIN_REACH = 6.0  # centre step across which two pieces on one line make one row
STEP_COST = 0.25  # weight of the step against the across offset when choosing a neighbour
NEAR_TRIED = 3  # nearest tiles whose directions suggest the rows' direction
ANGLE_BINS = 36  # 5° bins of direction (mod 180°)
PEAKS_TRIED = 3  # commonest directions tried besides the nearest-neighbour mean


def perpendicular(u: np.ndarray) -> np.ndarray:
    return np.array([-u[1], u[0]])


def chains(centers: np.ndarray, u: np.ndarray, size: np.ndarray, body: np.ndarray,
           across_tol: float) -> list[list[int]]:
    """Tiles ``body`` in chains of side-by-side neighbours, each ordered along ``u``.

    A neighbour lies LINK_MIN..LINK_REACH tile sizes further along and less than ``across_tol``
    tile sizes across; the nearest on the line is chosen, and a link is kept when the choice is
    mutual (so a tile of another row lying in between links to its own row instead).
    """
    idx = np.asarray(body, dtype=np.int64)
    if len(idx) == 0:
        return []
    pts = centers[idx]
    diff = pts[None, :, :] - pts[:, None, :]  # diff[i, j] = pts[j] - pts[i]
    along = diff @ u
    across = np.abs(diff @ perpendicular(u))
    pair = (size[idx][:, None] + size[idx][None, :]) / 2
    ok = (along > LINK_MIN * pair) & (along < LINK_REACH * pair) & (across < across_tol * pair)
    cost = np.where(ok, (across + STEP_COST * along) / pair, np.inf)
    right = np.where(np.isfinite(cost.min(axis=1)), cost.argmin(axis=1), -1)
    left = np.where(np.isfinite(cost.min(axis=0)), cost.argmin(axis=0), -1)
    nxt = {i: int(right[i]) for i in range(len(idx)) if right[i] >= 0 and left[right[i]] == i}
    has_prev = set(nxt.values())
    out = []
    for start in range(len(idx)):
        if start in has_prev:
            continue
        chain = [start]
        while chain[-1] in nxt:
            chain.append(nxt[chain[-1]])
        out.append([int(idx[k]) for k in chain])
    return out


def candidate_directions(centers: np.ndarray, body: np.ndarray, near: int = NEAR_TRIED) -> list[np.ndarray]:
    """Directions to try for the rows: the commonest directions (mod 180°) from each tile to its
    ``near`` nearest tiles. A wall half hidden behind a row may lie nearer than the row's own
    neighbours, so the nearest neighbour alone can point across the rows."""
    pts = centers[np.asarray(body, dtype=np.int64)]
    if len(pts) < 3:
        return []
    diff = pts[None, :, :] - pts[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    nearest = np.argsort(dist, axis=1)[:, :min(near, len(pts) - 1)]
    vec = diff[np.arange(len(pts))[:, None], nearest].reshape(-1, 2)
    doubled = np.mod(2 * np.arctan2(vec[:, 1], vec[:, 0]), 2 * np.pi)
    bins = np.floor(doubled / (2 * np.pi) * ANGLE_BINS).astype(np.int64) % ANGLE_BINS
    counts = np.bincount(bins, minlength=ANGLE_BINS)
    out = []
    for b in np.argsort(-counts, kind="stable")[:PEAKS_TRIED]:
        if counts[b] == 0:
            break
        pick = doubled[bins == b]
        theta = 0.5 * np.arctan2(np.sin(pick).sum(), np.cos(pick).sum())
        out.append(np.array([np.cos(theta), np.sin(theta)]))
    return out


def best_direction(centers: np.ndarray, size: np.ndarray, body: np.ndarray, u: np.ndarray,
                   across_tol: float) -> np.ndarray:
    """Of ``u`` and the candidate directions, the one that chains the most tiles side by side."""
    def links(d: np.ndarray) -> int:
        return sum(len(c) - 1 for c in chains(centers, d, size, body, across_tol))

    best, most = u, links(u)
    for d in candidate_directions(centers, body):
        n = links(d)
        if n > most:
            best, most = d, n
    return best


def line_direction(tiles: list[int], centers: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The principal axis of three or more tiles (pointing along ``u``), else ``u``."""
    if len(tiles) < 3:
        return u
    pts = centers[tiles] - centers[tiles].mean(axis=0)
    _, _, vt = np.linalg.svd(pts, full_matrices=False)
    d = vt[0]
    return d if d @ u >= 0 else -d


def mean_direction(groups: list[list[int]], centers: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Doubled-angle mean of the principal axes of groups of three or more tiles, by size; else ``u``."""
    sx = sy = 0.0
    for g in groups:
        if len(g) < 3:
            continue
        d = line_direction(g, centers, u)
        ang = np.arctan2(d[1], d[0])
        sx += len(g) * np.cos(2 * ang)
        sy += len(g) * np.sin(2 * ang)
    if sx == 0 and sy == 0:
        return u
    theta = 0.5 * np.arctan2(sy, sx)
    d = np.array([np.cos(theta), np.sin(theta)])
    return d if d @ u >= 0 else -d


def join(pieces: list[list[int]], centers: np.ndarray, u: np.ndarray, size: np.ndarray,
         across_tol: float) -> list[list[int]]:
    """Pieces (chains) joined into rows where one continues the other's line beyond a gap.

    The later piece must lie wholly beyond the earlier one's last tile, within JOIN_REACH tile
    sizes, and each piece's tiles within ``across_tol`` tile sizes of the other's line.
    Closest joins first; each piece has at most one before and one after it.
    """
    lines = [(centers[p].mean(axis=0), line_direction(p, centers, u)) for p in pieces]
    options = []
    for ka, pa in enumerate(pieces):
        pa_mid, da = lines[ka]
        for kb, pb in enumerate(pieces):
            if ka == kb:
                continue
            pb_mid, db = lines[kb]
            e, f = pa[-1], pb[0]
            unit = (size[e] + size[f]) / 2
            ahead = (centers[pb] - centers[e]) @ da
            behind = (centers[f] - centers[pa]) @ db
            if ahead.min() < LINK_MIN * unit or behind.min() < LINK_MIN * unit or ahead[0] > JOIN_REACH * unit:
                continue
            off_b = np.abs((centers[pb] - pa_mid) @ perpendicular(da)).max() / unit
            off_a = np.abs((centers[pa] - pb_mid) @ perpendicular(db)).max() / unit
            if off_a < across_tol and off_b < across_tol:
                options.append((ahead[0] / unit + off_a + off_b, ka, kb))
    succ: dict[int, int] = {}
    pred: dict[int, int] = {}
    root = list(range(len(pieces)))

    def find(k: int) -> int:
        while root[k] != k:
            k = root[k]
        return k

    for _, ka, kb in sorted(options):
        if ka in succ or kb in pred or find(ka) == find(kb):
            continue
        succ[ka], pred[kb] = kb, ka
        root[find(kb)] = find(ka)
    rows = []
    for k in range(len(pieces)):
        if k in pred:
            continue
        row = list(pieces[k])
        while k in succ:
            k = succ[k]
            row.extend(pieces[k])
        rows.append(row)
    return rows


def row_frame(rows: list[list[int]], centers: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each tile's coordinates along and across its own row's line (rows bend under perspective);
    a row's across coordinate keeps its place among the others (measured at its middle)."""
    v = perpendicular(u)
    along = centers @ u
    across = centers @ v
    for row in rows:
        d = line_direction(row, centers, u)
        mid = centers[row].mean(axis=0)
        along[row] = centers[row] @ d
        across[row] = (centers[row] - mid) @ perpendicular(d) + mid @ v
    return along, across
