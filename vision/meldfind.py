"""Melds in a row of tiles: concealed kongs, claimed pungs/kongs (a sideways tile) and pungs set apart.

Works on segments (detection indices in reading order along a row) measured by ``rowgeom``;
``grouping`` decides which segment is the hand row and what is left of it.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.tiles import BACK_CLASS, Tile

KONG_SHOWN = {"DFFD", "FDDF", "DDDF", "FDDD", "DDDD"}  # face-down (D) / face-up (F) patterns of 暗杠
# Other ways some tables show one: a tile or two turned down at one end. Three faces and a back could as well
# be a pung beside another kong that lost a face-down tile (or, in the hand row, three of a face beside a stray
# back), so these count only apart from the row and standing alone: the backs end the segment, and no back or
# tile of the face lies just beyond the faces.
KONG_SHOWN_AT_END = {"FFFD", "DFFF", "FFDD", "DDFF"}
FACELESS_KONG = "a concealed kong shows no face: cannot tell which tile it is"


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


def _main_segment(segments: list[list[int]], cls: np.ndarray, any_row: bool = False) -> int:
    """The hand row: the longest segment that does not look like melds only (``any_row``: the longest)."""
    candidates = [k for k, s in enumerate(segments) if any_row or not _meld_like(s, cls)] or list(range(len(segments)))
    return max(candidates, key=lambda k: len(segments[k]))


def _take_melds(seg, cls, sideways, is_main, melds, roles, meld_of, problems) -> list[list[int]]:
    """Take concealed kongs, claimed melds and set-apart pungs/kongs out of a segment."""
    used: set[int] = set()

    def add(idx: list[int], kind: MeldKind, face: int | None) -> None:
        used.update(idx)
        for i in idx:
            roles[i] = kind.value
        if face is None:
            problems.append(FACELESS_KONG)
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
        # Backs beyond an all-down window make a wall, unless they belong to the kong before it
        # (already taken) or to one after it that shows its face (two kongs laid end to end).
        after = "".join("D" if cls[i] == BACK_CLASS else "F" for i in seg[pos + 4:pos + 8])
        # A face up at the window's end with the same face just outside belongs to that run (a
        # kong or pung laid beside stray backs): only four of a tile exist.
        face_out = (down == "FDDD" and pos > 0 and cls[seg[pos - 1]] == cls[window[0]]
                    or down == "DDDF" and pos + 4 < len(seg) and cls[seg[pos + 4]] == cls[window[3]])
        back_before = pos > 0 and cls[seg[pos - 1]] == BACK_CLASS and seg[pos - 1] not in used
        wall = (down == "DDDD" and (after.startswith("D") and not (after in KONG_SHOWN and after != "DDDD"))
                or down in ("DDDD", "DDDF") and back_before or face_out)
        # Face up at an end but more backs beyond the other end: the face belongs to the tiles
        # before it (a kong laid beside an all-down kong), so try the window one further on.
        wall = wall or down == "FDDD" and pos + 4 < len(seg) and cls[seg[pos + 4]] == BACK_CLASS
        if down in KONG_SHOWN_AT_END:
            beyond_backs, beyond_faces = (pos + 4, pos - 1) if down.endswith("D") else (pos - 1, pos + 4)
            wall = (is_main or 0 <= beyond_backs < len(seg) or 0 <= beyond_faces < len(seg)
                    and (cls[seg[beyond_faces]] == BACK_CLASS or int(cls[seg[beyond_faces]]) in faces))
        if down in KONG_SHOWN | KONG_SHOWN_AT_END and len(faces) <= 1 and not wall and not used & set(window):
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


def row_kongs(concealed: list[int], cls: np.ndarray, over: int,
              legal: Callable[[list[int], list[Meld]], bool]) -> list[list[int]]:
    """Kongs laid on against the hand row (a tray or grid leaves no gap to split them off).

    A kong adds a tile to the hand, so a row that holds ``over`` tiles too many may hide that many
    kongs: runs of four of one face, face up (an exposed kong), taken out only when ``legal``
    (the rest of the row, the new melds) says what is left is a winning hand."""
    runs = [r for r in _runs(concealed, cls) if len(r) == 4 and cls[r[0]] != BACK_CLASS]
    if over <= 0 or len(runs) < over:
        return []
    for chosen in combinations(runs, over):
        taken = {i for r in chosen for i in r}
        rest = [i for i in concealed if i not in taken]
        if legal(rest, [Meld(MeldKind.KONG, Tile.from_index(int(cls[r[0]]))) for r in chosen]):
            return [list(r) for r in chosen]
    return []


def order_melds(melds: list[Meld], meld_of: list[int], reading_order: list[int]) -> None:
    """Number the melds in the order they lie (the order they were made, as players lay them out)."""
    rank = {i: k for k, i in enumerate(reading_order)}
    first = {m: min((rank[i] for i, mm in enumerate(meld_of) if mm == m), default=0) for m in range(len(melds))}
    new_order = sorted(range(len(melds)), key=lambda m: first[m])
    renumber = {old: new for new, old in enumerate(new_order)}
    melds[:] = [melds[old] for old in new_order]
    meld_of[:] = [renumber.get(m, -1) for m in meld_of]


def faceless_places(order: list[int], roles: list[str], meld_of: list[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For each run of four tiles of a concealed kong shown all face down, in reading ``order``: the melds whose first
    tile lies before it (the guessed kong is placed there, as naming it places it: 杠上开花 takes the last kong), and
    its first tile (the first kong's choices point at it, the one guessed first)."""
    places, firsts, melds_seen, run = [], [], set(), 0
    for i in order:
        if meld_of[i] >= 0:
            melds_seen.add(meld_of[i])
        elif roles[i] == MeldKind.CONCEALED_KONG.value:
            if run % 4 == 0:
                places.append(len(melds_seen))
                firsts.append(i)
            run += 1
    return tuple(places), tuple(firsts)


def faceless_kongs(segments: list[list[int]], roles: list[str], meld_of: list[int]) -> list[list[int]]:
    """The concealed kongs read with no face (``_take_melds``: four backs side by side), each its four tiles."""
    out: list[list[int]] = []
    for seg in segments:
        backs = [i for i in seg if roles[i] == MeldKind.CONCEALED_KONG.value and meld_of[i] < 0]
        out.extend(backs[k:k + 4] for k in range(0, len(backs) - 3, 4))
    return out


def kongs_needed(kongs: list[list[int]], room: int, distance: Callable[[int], float]) -> tuple[list[list[int]], list[int]]:
    """Of the kongs with no face, as many as the hand has room for (``room`` sets), those nearest the hand first
    (``distance``: a tile's from the hand), and the tiles of the rest: a face-down wall of four lying near an
    all-down kong reads as a second one, and the hand needs only one."""
    keep = sorted(kongs, key=lambda k: min(distance(i) for i in k))[:max(room, 0)]
    return keep, [i for k in kongs if k not in keep for i in k]
