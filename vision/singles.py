"""The lone tiles beside a hand (not in its rows or melds): which of them fill the hand's missing places,
and which tile, of them or of the row, is the winning tile. Used by ``grouping``."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from xingzi.engine.melds import Meld
from xingzi.engine.tiles import BACK_CLASS, Tile

from . import rowgeom
from .handcheck import is_legal

WIN_GUESSED = "winning tile not set apart"
SINGLES_TRIED = 6  # lone tiles considered for the hand's missing places


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
    pushed = rowgeom.end_gap(sorted(row, key=lambda i: along[i]), along, scale)
    if pushed is not None:
        return pushed, True
    problems.append(f"{WIN_GUESSED}: guessed the end tile of the row standing furthest from its neighbour")
    return rowgeom.likely_end(sorted(row, key=lambda i: along[i]), along, scale), False
