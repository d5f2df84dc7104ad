"""The 发 bonus tiles of a hand: which 发 lying on the table count, and which are strays.

In Xingzi each 发 set aside is a bonus tile (RULES.md), so a stray 发 on the table changes the
total; players lay their bonus 发 in front of their hand, mostly together, which tells the two apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from xingzi.engine.tiles import BACK_CLASS, Tile

from .detections import Detections
from .edges import HAND_ROLES

if TYPE_CHECKING:
    from .grouping import HandReading

FA_TOUCH = 1.6  # centre distance (in tile sizes) under which two 发 lie side by side
FA_CLASS = Tile.FA.index
# A tile left out beside the bonus 发 with 发 among its likeliest other faces (however low: some sets' grey-inked 发
# are read 1s at 1.0, 发 next at 0.07, or 1m then 1s then 发; sessions 63-64) is one,
FA_RANK = 2  # 发 among this many of its likeliest other faces
FA_OVER = 0.5  # unless this much of it (or of the 发) lies under a 发's box: then it is that 发 boxed twice,
FA_CROWD = 2  # or more than this many other tiles lie around it: it lies among tiles (a tray, a grid), not with the 发
LONE_NEAR = 4.0  # a 发 this near the hand's row (in tile sizes) lies before it: a bonus 发, however loosely laid;
# with no bonus 发 read, a lone tile this near may be the one 发 laid aside
BY_OTHERS = 2.5  # a 发 this near a tile left out of the hand, and not near the hand, lies with that tile
TOUCH_NOTE = "发 is among its likeliest faces, and it lies with the bonus 发"
LONE_NOTE = "发 is its next likeliest face, and it lies alone beside the hand, where a bonus 发 is laid"


def bonus_fa(fa_idx: np.ndarray, det: Detections, laid_out: bool, roles: list[str], problems: list[str],
             hand: Sequence[int] = ()) -> int:
    """Mark the bonus 发 (role 'fa') and return how many; the strays among them stay 'loose'. ``hand``: the
    tiles of the hand's row."""
    stray = stray_fa(fa_idx, det, laid_out, hand)
    if stray:
        problems.append(f"{len(stray)} 发 lying away from the other 发 ignored")
    for i in fa_idx:
        if int(i) not in stray:
            roles[int(i)] = "fa"
    return len(fa_idx) - len(stray)


def stray_fa(fa_idx: np.ndarray, det: Detections, laid_out: bool, hand: Sequence[int] = ()) -> list[int]:
    """发 that are not bonus tiles. A player sets every 发 drawn out in front of them (RULES.md §1), most often
    together, so on a table laid out in rows (``laid_out``), when some lie side by side, a 发 apart from that
    group and not within ``LONE_NEAR`` tile sizes of the hand's row (``hand``) is a stray; one near the hand is
    its own, however loosely laid (tiles strewn about may touch by chance, so not there). A set has only four, so
    beyond four the ones furthest from the group (or, with no group, from the other tiles) are set aside."""
    if len(fa_idx) < 2 or not laid_out and len(fa_idx) <= 4:
        return []
    centers, size = _centres_and_sizes(det)
    groups = sorted(_side_by_side([int(i) for i in fa_idx], centers, size), key=len, reverse=True)
    top = groups[0]
    tied = sum(1 for g in groups if len(g) == len(top))
    if laid_out and len(top) >= 2 and tied == 1:
        anchor = centers[top].mean(axis=0)
        kept = [int(i) for i in fa_idx
                if int(i) in top or any(_within(centers, size, int(i), j, LONE_NEAR) for j in hand)]
    else:
        kept = [int(i) for i in fa_idx]
        anchor = np.median(centers, axis=0)
    if len(kept) > 4:
        kept = sorted(kept, key=lambda i: float(np.hypot(*(centers[i] - anchor))))[:4]
    return [int(i) for i in fa_idx if int(i) not in kept]


def fa_with_other_tiles(det: Detections, roles: list[str], hand: Sequence[int], left_out: Sequence[int],
                        problems: list[str]) -> int:
    """Bonus 发 that lie with tiles left out of the hand, not with the hand: a 发, or 发 lying side by side, all
    further than ``LONE_NEAR`` tile sizes from every tile of the hand, and within ``BY_OTHERS`` of a tile left out
    (a second hand in the photo, whose 发 were counted to this one's). They go back to 'loose'; returns how many."""
    fa = [i for i, role in enumerate(roles) if role == "fa"]
    if not fa or not hand or not left_out:
        return 0
    centers, size = _centres_and_sizes(det)
    theirs = [i for group in _side_by_side(fa, centers, size)
              if not any(_within(centers, size, i, j, LONE_NEAR) for i in group for j in hand)
              and any(_within(centers, size, i, j, BY_OTHERS) for i in group for j in left_out)
              for i in group]
    for i in theirs:
        roles[i] = "loose"
    if theirs:
        problems.append(f"{len(theirs)} 发 lying with tiles away from the hand ignored")
    return len(theirs)


def _side_by_side(idx: Sequence[int], centers: np.ndarray, size: np.ndarray) -> list[list[int]]:
    """The tiles ``idx`` in groups, each a chain of tiles lying within ``FA_TOUCH`` of one another."""
    groups: list[list[int]] = []
    for i in idx:
        touching = [g for g in groups if any(_within(centers, size, i, j, FA_TOUCH) for j in g)]
        groups = [g for g in groups if g not in touching] + [[j for g in touching for j in g] + [i]]
    return groups


def misread_fa(det: Detections, roles: tuple[str, ...] | list[str]) -> list[int]:
    """Tiles left out of the hand (role 'loose') that may be bonus 发 the detector read as another face: a face
    (not a back) with 发 among its ``FA_RANK`` likeliest other faces (at least ``Detections.alternatives``' floor,
    as any face offered), with at most ``FA_CROWD`` other tiles around it. Such a tile lying side by side with a
    bonus 发, and not that 发 boxed again (FA_OVER), is one; one that touches a misread one counts too. With no
    bonus 发 read at all, the one such tile lying alone near the hand, 发 its next likeliest face, is the 发 set aside."""
    if det.probs is None:
        return []
    fa = [i for i, role in enumerate(roles) if role == "fa"]
    maybe = [i for i, role in enumerate(roles) if role == "loose" and int(det.cls[i]) not in (FA_CLASS, BACK_CLASS)
             and FA_CLASS in det.alternatives(i, FA_RANK)]
    centers, size = _centres_and_sizes(det)

    def touching(i: int, j: int, reach: float = FA_TOUCH) -> bool:
        return _within(centers, size, i, j, reach)

    others = [j for j, role in enumerate(roles) if role not in ("fa", "ignored") and j not in maybe]
    maybe = [i for i in maybe if sum(touching(i, j) for j in others) <= FA_CROWD]
    if not fa:
        return _lone_fa(det, roles, maybe, touching)
    found: list[int] = []
    grown = True
    while grown and len(fa) + len(found) < 4:  # a set has four 发
        grown = False
        for i in maybe:
            if i not in found and not any(_overlap(det.xyxy, i, j) > FA_OVER for j in fa + found) and any(
                    touching(i, j) for j in fa + found):
                found.append(i)
                grown = True
                break
    return found


def _lone_fa(det: Detections, roles: tuple[str, ...] | list[str], maybe: list[int],
             touching: Callable[..., bool]) -> list[int]:
    """With no bonus 发 read: the one tile of ``maybe`` whose next likeliest face is 发, touching no other tile left
    out, within ``LONE_NEAR`` tile sizes of the hand (a hand's only bonus 发, read as another face)."""
    hand = [j for j, role in enumerate(roles) if role in HAND_ROLES]
    apart = [j for j, role in enumerate(roles) if role not in HAND_ROLES and role != "ignored"]
    lone = [i for i in maybe if det.alternatives(i, 1) == [FA_CLASS] and not any(touching(i, j) for j in apart if j != i)
            and any(touching(i, j, LONE_NEAR) for j in hand)]
    return lone if len(lone) == 1 else []


def _within(centers: np.ndarray, size: np.ndarray, i: int, j: int, reach: float) -> bool:
    """Whether the centres of boxes i and j lie nearer than ``reach`` tile sizes (the mean of their sizes)."""
    return bool(np.hypot(*(centers[i] - centers[j])) < reach * (size[i] + size[j]) / 2)


def _centres_and_sizes(det: Detections) -> tuple[np.ndarray, np.ndarray]:
    """Each box's centre and size (the square root of its area), as the 发's nearness is measured."""
    wh = (det.xyxy[:, 2:] - det.xyxy[:, :2]).astype(np.float64)
    return det.centers.astype(np.float64), np.sqrt(np.maximum(wh[:, 0] * wh[:, 1], 1e-9))


def _overlap(xyxy: np.ndarray, i: int, j: int) -> float:
    """The share of the smaller of boxes i and j that the other covers."""
    a, b = xyxy[i].astype(np.float64), xyxy[j].astype(np.float64)
    inter = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0) * max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    return inter / max(min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1])), 1e-9)


def with_misread_fa(reading: HandReading, regroup: Callable[[Detections], HandReading]) -> HandReading:
    """The reading with the tiles of :func:`misread_fa` read as 发, when grouping the photo so keeps the same hand
    and counts them as bonus 发; else the reading as it is."""
    found = misread_fa(reading.detections, reading.roles)
    if not found:
        return reading
    det = reading.detections
    cls, conf = det.cls.copy(), det.conf.copy()
    cls[found] = FA_CLASS
    conf[found] = det.probs[found, FA_CLASS] if det.probs is not None else conf[found]
    other = regroup(replace(det, cls=cls, conf=conf))
    same_hand = (other.tiles, other.win_tile, other.melds) == (reading.tiles, reading.win_tile, reading.melds)
    if not same_hand or any(other.roles[i] != "fa" for i in found):
        return reading
    why = LONE_NOTE if reading.fa == 0 else TOUCH_NOTE
    notes = (f"tile #{i} (read {Tile.from_index(int(det.cls[i])).symbol}) counted as 发: {why}" for i in found)
    return replace(other, problems=(*other.problems, *notes))
