"""The 发 bonus tiles of a hand: which 发 lying on the table count, and which are strays.

In Xingzi each 发 set aside is a bonus tile (RULES.md), so a stray 发 on the table changes the
total; players lay their bonus 发 together, which tells the two apart.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np

from .detections import Detections

FA_TOUCH = 1.6  # centre distance (in tile sizes) under which two 发 lie side by side


def bonus_fa(fa_idx: np.ndarray, det: Detections, laid_out: bool, roles: list[str], problems: list[str]) -> int:
    """Mark the bonus 发 (role 'fa') and return how many; the strays among them stay 'loose'."""
    stray = stray_fa(fa_idx, det, laid_out)
    if stray:
        problems.append(f"{len(stray)} 发 lying away from the other 发 ignored")
    for i in fa_idx:
        if int(i) not in stray:
            roles[int(i)] = "fa"
    return len(fa_idx) - len(stray)


def stray_fa(fa_idx: np.ndarray, det: Detections, laid_out: bool) -> list[int]:
    """发 that are not bonus tiles. Players lay their 发 together, so on a table laid out in rows
    (``laid_out``), when some lie side by side, a 发 apart from that group is a stray (tiles
    strewn about may touch by chance, so not there); and a set has only four, so beyond four
    the ones furthest from the group (or, with no group, from the other tiles) are set aside."""
    if len(fa_idx) < 2 or not laid_out and len(fa_idx) <= 4:
        return []
    centers = det.centers.astype(np.float64)
    wh = (det.xyxy[:, 2:] - det.xyxy[:, :2]).astype(np.float64)
    size = np.sqrt(np.maximum(wh[:, 0] * wh[:, 1], 1e-9))
    label = {int(i): int(i) for i in fa_idx}

    def root(i: int) -> int:
        while label[i] != i:
            i = label[i]
        return i

    for a, b in combinations((int(i) for i in fa_idx), 2):
        if np.hypot(*(centers[a] - centers[b])) < FA_TOUCH * (size[a] + size[b]) / 2:
            label[root(a)] = root(b)
    groups = Counter(root(int(i)) for i in fa_idx)
    (top, top_n), = groups.most_common(1)
    tied = sum(1 for n in groups.values() if n == top_n)
    if laid_out and top_n >= 2 and tied == 1:
        kept = [int(i) for i in fa_idx if root(int(i)) == top]
        anchor = centers[kept].mean(axis=0)
    else:
        kept = [int(i) for i in fa_idx]
        anchor = np.median(centers, axis=0)
    if len(kept) > 4:
        kept = sorted(kept, key=lambda i: float(np.hypot(*(centers[i] - anchor))))[:4]
    return [int(i) for i in fa_idx if int(i) not in kept]
