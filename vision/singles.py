"""The lone tiles beside a hand (not in its rows or melds): which of them fill the hand's missing places,
and which tile, of them or of the row (an end tile pushed a little aside), is the winning tile. Used by ``grouping``."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from xingzi.engine.melds import Meld
from xingzi.engine.tiles import BACK_CLASS, Tile

from . import rowgeom
from .handcheck import is_legal

WIN_GUESSED = "winning tile not set apart"
SINGLES_TRIED = 6  # lone tiles considered for the hand's missing places
END_GAP = 1.08  # an end tile this much further from its neighbour than the row's spacing predicts was pushed aside
END_SCATTER = 3.0  # ... and by more than this many times the scatter of the row's own steps
END_OTHER = 0.04  # ... and clearly more than the other end tile
END_TIE = 0.01  # end steps this close are even: the guess is then the last tile


def legal_singles(singles: list[int], short: int, concealed: list[int], melds: list[Meld],
                  cls: np.ndarray, far: set[int]) -> list[int]:
    """The lone tiles that complete the hand: the nearest ``short`` unless another choice among
    the nearest few makes a legal hand and theirs does not (a stray lay closer than the winner).
    At most one of them is ``far`` (out of grouping.REACH): the winning tile may be laid far off, but two or
    more tiles far off are the heap's, whatever hand they would make."""
    nearest = [i for i in singles if i not in far] + [i for i in singles if i in far][:1]
    nearest = sorted(nearest, key=singles.index)[:short]
    if len(singles) <= short:
        return nearest
    base = [Tile.from_index(int(cls[i])) for i in concealed]
    for combo in combinations(singles[:SINGLES_TRIED], short):
        if len(far.intersection(combo)) <= 1 and is_legal(base + [Tile.from_index(int(cls[i])) for i in combo], melds):
            return list(combo)
    return nearest


def choose_win(singles, concealed, main_seg, centers, along, cls, problems, scale):
    """The winning tile: the one tile lying apart, else one pushed a little off an end of the row,
    else (a guess) the last of the hand row."""
    if len(singles) == 1:
        return singles[0], True
    if len(singles) > 1:  # tiles not in rows: any of them may be the winning tile
        problems.append(f"{WIN_GUESSED}: {len(singles)} tiles lie apart from the hand")
        return min(singles, key=lambda i: rowgeom.distance(i, main_seg, centers)), False
    row = [i for i in main_seg if i in concealed and cls[i] != BACK_CLASS]
    if not row:
        return None, False
    pushed = end_gap(sorted(row, key=lambda i: along[i]), along, scale)
    if pushed is not None:
        return pushed, True
    problems.append(f"{WIN_GUESSED}: guessed the end tile of the row standing furthest from its neighbour")
    return likely_end(sorted(row, key=lambda i: along[i]), along, scale), False


def end_steps(order: list[int], along: np.ndarray, scale: np.ndarray) -> tuple[float, float, float]:
    """How much further each end tile of a row (four tiles or more) stands from its neighbour than
    the row's inner steps predict there (a straight-line trend along the row: perspective changes
    the spacing gradually), and the inner steps' typical scatter about that trend (relative)."""
    steps = np.diff(along[order]) / ((scale[order][:-1] + scale[order][1:]) / 2)
    inner = steps[1:-1]
    pos = np.arange(1, len(steps) - 1, dtype=np.float64)
    if len(inner) >= 3:
        slope, offset = np.polyfit(pos, inner, 1)
    else:
        slope, offset = 0.0, float(np.median(inner))
    trend = slope * pos + offset
    typical = max(float(np.median(inner)), 1e-9)
    scatter = float(np.median(np.abs(inner - trend))) / typical
    first = steps[0] / max(float(offset), 1e-9)
    last = steps[-1] / max(float(slope * (len(steps) - 1) + offset), 1e-9)
    return first, last, scatter


def end_gap(order: list[int], along: np.ndarray, scale: np.ndarray) -> int | None:
    """An end tile of the row standing clearly further from its neighbour than the row's tiles do
    from theirs (the drawn tile pushed a little aside, less than a gap between groups)."""
    if len(order) < 5:
        return None
    first, last, scatter = end_steps(order, along, scale)
    step, other = max(first, last), min(first, last)
    if step > END_GAP and step - 1 > END_SCATTER * scatter and other < step - END_OTHER:
        return order[0] if first > last else order[-1]
    return None


def likely_end(order: list[int], along: np.ndarray, scale: np.ndarray) -> int:
    """The end tile of a row standing further from its neighbour than the row's spacing predicts:
    where a drawn tile set down a little apart would be. Ties (within END_TIE, or within the row's own scatter of
    steps: a difference the boxes' jitter makes) go to the last tile, the right-hand one under the tiles' tops."""
    if len(order) < 4:
        return order[-1]
    first, last, scatter = end_steps(order, along, scale)
    return order[0] if first > last + max(END_TIE, scatter) else order[-1]
