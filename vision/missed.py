"""Where to add a tile the detector missed when the user names only its face and a tile of the group it belongs to
(the page's "+" after the concealed row, a meld or the 发; ``xingzi score --add 3m@5``): so a tile can be added by
keyboard or screen reader, or by a finger too big for the photo, without pointing at the photo.

The places tried lie a step before and after each tile of the group along the hand's line where no tile lies: in a
gap a tile long first (a tile missed there leaves one), then beside the tiles of the nearest faces (a hand is kept
sorted), then from the reading end back. Each is grouped with the face added there, and the best taken: the tile
counted in the hand, the hand legal, the tile read with tiles of its group (a pung that lost a tile reads as two like
tiles in the row: the tile added to the row may make them a pung again), the fewest problems, then a hole between two
tiles of its face (what a tile missed from the middle of a pung or a row leaves), then the winning tile seen apart
rather than guessed, then the order tried. A group of four (a kong, the four 发) takes no tile, and a tile that no
place counts in the hand is refused rather than added to lie uncounted.

A concealed kong that lost a face no longer reads as a kong: its face-down tiles lie uncounted, and a tile added
beside them (the page's "+" after the tiles not counted) is placed beside them and the face touching them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, TypeGuard

import numpy as np

from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES

from .detections import Detections, check_tile_index
from .grouping import WIN_GUESSED, HandReading, group, is_legal_reading
from .usermarks import MAX_ADDED, add_tiles

GROUPED = ("concealed", "win", "pung", "kong", "concealed_kong", "fa")  # tiles a missed one may be added beside
ROW = ("concealed", "win")  # one line: a gap between the row and a winning tile set apart is a place too
LONE_STEP = 1.05  # a group of one tile: the next lies a tile's length on, with a hair of gap
SNUG = 0.9  # a step a little short: tiles in a line touch, and a gap may read as a tile set apart
HOLE = 2.4  # tiles whose centres lie within this many tile widths touch or have a tile's hole between them
TAKEN = 0.5  # a place with a tile's centre nearer than this many steps is taken
MAX_BESIDE = 4  # tiles placed by the server in one request (the page sends one at a time)
MAX_FOUND = 60  # tiles found at most for a place to be found (a grouping of more takes too long a dozen times)
MAX_PLACES = 12  # places grouped at most (each a grouping of the photo: the right one comes within 9 on held-out hands)


Placed = list[tuple[int, tuple[float, ...]]]  # each added tile's class and box


def add_missed(det: Detections, added: Sequence[tuple[int, Sequence[float] | int]], shape: tuple[int, ...],
               seen: Detections | None = None, ignored: Sequence[int] = ()) -> tuple[Detections, Placed]:
    """Detections with missed tiles appended, each ``(class id, box)`` as ``add_tiles`` takes it or ``(class id,
    index of a tile)`` to be placed beside that tile's group (in order: a tile placed earlier is there for the next);
    and each added tile's box, as placed. ``seen``: ``det`` as the user sees it (faces corrected), ``ignored`` the
    tiles set aside: what the places are judged on."""
    if len(added) > MAX_ADDED:
        raise ValueError(f"at most {MAX_ADDED} tiles can be added to a photo, got {len(added)}")
    beside = [j for j, (_, where) in enumerate(added) if _is_index(where)]
    if len(beside) > MAX_BESIDE or (beside and len(det) > MAX_FOUND):  # each is up to MAX_PLACES groupings
        raise ValueError(f"at most {MAX_BESIDE} tiles can be placed beside a group at once, on a photo of at most "
                         f"{MAX_FOUND} tiles found (got {len(beside)} on {len(det)}): tap the photo where they lie")
    placed: list[tuple[int, Any]] = []  # (a box as given: add_tiles checks it)
    for j, (cls, where) in enumerate(added):
        if _is_index(where):
            if isinstance(cls, bool) or not isinstance(cls, (int, np.integer)) or not 0 <= cls < len(CLASS_NAMES):
                raise ValueError(f"added tile {j}: class must be an integer 0..{len(CLASS_NAMES) - 1}, got {cls!r}")
            try:
                where = place_beside(add_tiles(det if seen is None else seen, placed, shape), int(where), int(cls),
                                     shape, ignored)
            except ValueError as e:
                raise ValueError(f"added tile {j}: {e}") from None
        placed.append((cls, where))
    out = add_tiles(det, placed, shape)  # (each box checked here)
    return out, [(int(k), tuple(float(v) for v in box)) for k, box in placed]


def _is_index(where: Any) -> TypeGuard[int]:
    return isinstance(where, (int, np.integer)) and not isinstance(where, bool)


def place_beside(det: Detections, beside: int, cls: int, shape: tuple[int, ...],
                 ignored: Sequence[int] = ()) -> tuple[float, float, float, float]:
    """The box where a tile of class ``cls`` missed from the group of tile ``beside`` is added, in the photo of
    ``shape``; a ValueError where the group is whole or no place reads the tile in the hand."""
    check_tile_index(beside, len(det), "tile to add beside")
    reading = group(det, ignored)
    role = reading.roles[beside]
    if role == "loose" and int(det.cls[beside]) == BACK_CLASS:  # a concealed kong that lost a face falls apart
        members = face_down_run(det, reading, beside)
    elif role not in GROUPED:
        raise ValueError(f"tile #{beside} is read as {role}: a missed tile is added beside the hand's row, a meld, "
                         "the 发 or face-down tiles, not beside a tile the hand does not count")
    else:
        members = _members(reading, beside)
        if role not in ROW and len(members) >= 4:
            raise ValueError(f"tile #{beside}'s group holds {len(members)} tiles already (a kong, or the four 发): "
                             "nothing is missing from it")
    kin = [_face_distance(int(det.cls[i]), int(cls)) for i in members]
    best: tuple | None = None
    line = np.asarray(reading.direction, np.float64)  # a unit vector the way the hand is read (rowgeom.canonical)
    places = _places(det.xyxy.astype(np.float64), members, kin, line, shape, tight=role == "loose")
    for rank, (box, hole) in enumerate(islice(places, MAX_PLACES)):
        again = group(add_tiles(det, [(cls, box)], shape), ignored)
        # the tile counted in the hand (a stray pulled in to fill a hand short of it may go back out: it should)
        kept = again.roles[len(det)] in GROUPED
        guessed = sum(p.startswith(WIN_GUESSED) for p in again.problems)
        key = (not kept, not is_legal_reading(again), not _joined(again, len(det), role, members),
               len(again.problems) - guessed, not hole, guessed, rank)
        if best is None or key < best[0]:
            best = (key, box)
        if not any(key[:-1]):  # (a later place can only tie, and ranks after)
            break
    if best is None or best[0][0]:
        raise ValueError(f"no place beside tile #{beside}'s group reads the {CLASS_NAMES[cls]} in the hand: tap the "
                         "photo where the missed tile lies")
    return best[1]


def _members(reading: HandReading, beside: int) -> list[int]:
    role, meld = reading.roles[beside], reading.meld_of[beside]
    if role in ROW:
        return [i for i, r in enumerate(reading.roles) if r in ROW]
    if meld < 0:  # the 发, lying aside in no meld
        return [i for i, (r, m) in enumerate(zip(reading.roles, reading.meld_of, strict=True)) if r == role and m < 0]
    return [i for i, m in enumerate(reading.meld_of) if m == meld]


def _joined(reading: HandReading, added: int, role: str, members: list[int]) -> bool:
    """Whether the tile added at index ``added`` is read in a group with tiles of the group it was added to (tiles
    of ``role``, ``members``), wherever they read now: the row, a meld made of the row's tiles (a pung that lost a
    tile reads as two like tiles in the row), that meld or the kong it makes, the concealed kong whose face-down tiles
    those were (only that: beside them the kong's other face is a member, now read in the row)."""
    mine = set(_members(reading, added)) if reading.roles[added] in GROUPED else {added}
    if role == "loose" and reading.roles[added] != "concealed_kong":
        return False
    return bool(mine & set(members))


def face_down_run(det: Detections, reading: HandReading, beside: int, faces: bool = True) -> list[int]:
    """Tile ``beside`` and the face-down tiles the hand does not count reached from it one after another, touching or
    a tile's hole apart (where a face was), and (``faces``) the faces so reached from them (a concealed kong's other
    face, now read in the row) and the face-down tiles reached from those."""
    centres = (det.xyxy[:, :2] + det.xyxy[:, 2:]) / 2
    step = float(np.min(det.xyxy[beside, 2:] - det.xyxy[beside, :2]))  # about a tile's width, tile to tile

    def near(i: int, j: int, reach: float) -> bool:
        return bool(np.hypot(*(centres[i] - centres[j])) < reach * step)

    face_down = {i for i, r in enumerate(reading.roles) if r == "loose" and int(det.cls[i]) == BACK_CLASS}
    shown = {i for i, r in enumerate(reading.roles) if faces and r in GROUPED and int(det.cls[i]) != BACK_CLASS}
    run = [beside]
    for i in run:  # (grows as it is walked: a face is reached from a face-down tile, not from another face)
        run += [j for j in sorted(face_down) if j not in run and near(i, j, HOLE)]
        if i in face_down:
            run += [j for j in sorted(shown) if j not in run and near(i, j, HOLE)]
    return run


def face_down_end(det: Detections, reading: HandReading, i: int) -> int:
    """The end tile nearest ``i`` of the kong shown all face down that it is one of (or of the three face-down tiles
    left lying of one: :func:`face_down_run`); ``i`` itself when it is an end or lies otherwise. A face named at an
    end reads as a kong shown face up there (FDDD); named on a tile between, as no kong."""
    centres = (det.xyxy[:, :2] + det.xyxy[:, 2:]) / 2

    def apart(a: int, b: int) -> float:
        return float(np.hypot(*(centres[a] - centres[b])))

    if reading.roles[i] == "concealed_kong" and reading.meld_of[i] < 0:
        kin = [j for j, (r, m) in enumerate(zip(reading.roles, reading.meld_of, strict=True))
               if r == "concealed_kong" and m < 0]
        reach = HOLE * float(np.min(det.xyxy[i, 2:] - det.xyxy[i, :2]))
        run = [i]
        for a in run:  # grows as it is walked
            run += [j for j in kin if j not in run and apart(a, j) < reach]
    elif reading.roles[i] == "loose" and int(det.cls[i]) == BACK_CLASS:
        run = face_down_run(det, reading, i, faces=False)
    else:
        return i
    if not 3 <= len(run) <= 4:
        return i
    ends = max(((a, b) for a in run for b in run), key=lambda p: apart(*p))
    return i if i in ends else min(ends, key=lambda e: apart(e, i))


def _face_distance(a: int, b: int) -> int:
    """How far apart two faces lie in a sorted hand: 0 the same, the ranks apart within a suit, else 10."""
    if a == b:
        return 0
    return abs(a - b) if a < 27 and b < 27 and a // 9 == b // 9 else 10


def _places(boxes: np.ndarray, members: list[int], kin: list[int], u: np.ndarray, shape: tuple[int, ...],
            tight: bool = False) -> Iterator[tuple[tuple[float, float, float, float], bool]]:
    """Boxes inside the photo to try, a step before and after each tile of the group along the line where no tile
    lies: those in a gap (another of the group's tiles a step beyond) first, then beside the tiles nearest the face
    added (a hand is kept sorted: a 3m missed lies by the other 3m, or the 2m), then from the reading end back. The
    step is the group's usual one, tile to tile; ``tight``: its shortest (a kong's few tiles, one of them a hole
    apart, give no usual step)."""
    own = boxes[members]
    centres = (own[:, :2] + own[:, 2:]) / 2
    sizes = own[:, 2:] - own[:, :2]
    across = np.array([-u[1], u[0]])
    along, side = centres @ u, centres @ across
    width = np.abs(across[0]) * sizes[:, 0] + np.abs(across[1]) * sizes[:, 1]  # each tile's size across the line
    # the group's usual step, tile to tile (a tile beside a gap lies further from its nearest neighbour)
    known = [s for s in (_step(k, along, side, width) for k in range(len(members))) if s is not None]
    usual = (min(known) if tight else float(np.median(known))) if known else None
    h, w = shape[:2]
    all_centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    slots = []
    for k in range(len(members)):
        step = usual or LONE_STEP * float(abs(u[0]) * sizes[k, 0] + abs(u[1]) * sizes[k, 1])
        for sign in (1.0, -1.0):
            centre = centres[k] + u * sign * step * SNUG
            if _taken(centre, step, all_centres):
                continue
            beyond = along[k] + sign * 2 * step  # where the next tile lies if a gap of one tile is here
            across_gap = np.flatnonzero((np.abs(along - beyond) < step / 2) & (np.abs(side - side[k]) < width[k] / 2))
            middle = (centres[k] + centres[across_gap[0]]) / 2 if len(across_gap) else None
            gap = middle is not None and not _taken(middle, step, all_centres)  # (a tile may lie there, off the line)
            if gap:  # in the gap's middle: the tiles on both its sides touch the one added
                centre = middle
            box = np.concatenate([centre - sizes[k] / 2, centre + sizes[k] / 2])
            hole = gap and kin[k] == 0 and kin[int(across_gap[0])] == 0  # between two tiles of the face added
            slots.append((not gap, kin[k], -float(centre @ u), box, centre, step, hole))
    kept: list[np.ndarray] = []
    for *_, box, centre, step, hole in sorted(slots, key=lambda t: t[:3]):
        if not kept or not _taken(centre, step, np.array(kept)):  # (a gap's slot is found from both its sides)
            kept.append(centre)
            yield _clipped(box, w, h), hole


def _step(k: int, along: np.ndarray, side: np.ndarray, width: np.ndarray) -> float | None:
    """The distance along the line from tile ``k`` to the nearest tile of its group on the same line, if any."""
    same_line = np.abs(side - side[k]) < width[k] / 2
    d = np.abs(along - along[k])[same_line]
    d = d[d > 1e-6]
    return float(d.min()) if len(d) else None


def _taken(centre: np.ndarray, step: float, centres: np.ndarray) -> bool:
    """Whether a tile's centre lies within half a step of ``centre`` (tiles' boxes overlap in a slanted line: their
    centres do not)."""
    return bool(np.any(np.hypot(*(centres - centre).T) < TAKEN * step))


def _clipped(box: np.ndarray, w: int, h: int) -> tuple[float, float, float, float]:
    """``box`` moved (not shrunk) to lie inside the photo as far as it fits, rounded as the page sends boxes."""
    dx = max(0.0, -box[0]) - max(0.0, box[2] - w)
    dy = max(0.0, -box[1]) - max(0.0, box[3] - h)
    x0, y0, x1, y1 = box + np.array([dx, dy, dx, dy])
    return (round(max(float(x0), 0.0), 1), round(max(float(y0), 0.0), 1), round(min(float(x1), float(w)), 1),
            round(min(float(y1), float(h)), 1))
