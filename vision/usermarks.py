"""What the user says about a photo's tiles: faces corrected, tiles the detector missed added where
they lie, and which tiles form a claimed meld (碰/杠) where the photo cannot show it, or that a meld
read as claimed is not one.

A tray or a grid of tiles leaves no gap between the hand and its claimed melds and often no tile
turned sideways, so a claimed pung can read as three like tiles standing in the hand. One tap on
one of them makes them a claimed meld; one tap on a claimed meld's tile stands its tiles back in
the hand. Both act on a :class:`~xingzi.vision.grouping.HandReading`, indices unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, Tile

from .detections import Detections, check_tile_index
from .grouping import HandReading, group, mark_win
from .handcheck import count_problems

STANDING = ("concealed", "win")
CLAIMED = (MeldKind.PUNG.value, MeldKind.KONG.value)
COUNT_WORDS = (" tiles (a winning hand", "(only four of each tile exist)")  # count_problems' facts
MAX_ADDED = 20  # tiles a user may add to one photo: a hand has at most 18 and the detector found some


def apply_corrections(det: Detections, corrections: Mapping[int, int] | None) -> Detections:
    """Detections with some classes set by hand (index → class id 0..30). A face the user sets is
    a tile of the game, whatever the detector and classifier thought: its confidence goes to 1 (no rule for
    boxes read with doubt drops it: a joint, a run of the heap), its scores to that face alone (no second choice
    reads it as another face: ``bonusfa.misread_fa``) and its ``foreign`` score to 0."""
    if not corrections:
        return det
    cls = det.cls.copy()
    conf = det.conf.copy()
    probs = None if det.probs is None else det.probs.copy()
    foreign = None if det.foreign is None else det.foreign.copy()
    for i, k in corrections.items():
        check_tile_index(i, len(det), "correction for tile")
        if not 0 <= int(k) < len(CLASS_NAMES):
            raise ValueError(f"correction for tile #{i}: class must be 0..{len(CLASS_NAMES) - 1}, got {k}")
        cls[int(i)] = int(k)
        conf[int(i)] = 1.0
        if probs is not None:
            probs[int(i)] = 0.0
            probs[int(i), int(k)] = 1.0
        if foreign is not None:
            foreign[int(i)] = 0.0
    return replace(det, cls=cls, conf=conf, probs=probs, foreign=foreign)


def kong_named(det: Detections, corrections: Mapping[int, int]) -> dict[int, int]:
    """The corrections as the user means them: a face named on a face-down tile of a concealed kong that shows its
    face elsewhere names the kong — its face tiles take that face, the face-down tile stays face down (as the photo
    shows it and a training label must say; named a face, three faces and a back read as a pung and a stray). A
    face the user set on a face tile itself stands. A kong lying all face down has no face tile to take it: there
    a tile at its end shows the face (the named one, or the end nearest it: a face between backs makes no kong),
    which is how grouping learns it; so does one of three face-down tiles left lying of such a kong."""
    from .missed import face_down_end  # (missed adds tiles with this module's helpers)

    out = {int(i): int(k) for i, k in corrections.items()}
    backs = [i for i, k in out.items() if 0 <= i < len(det) and int(det.cls[i]) == BACK_CLASS and k != BACK_CLASS]
    if not backs:
        return out
    reading = group(det)
    for i in backs:
        meld = reading.meld_of[i]
        if reading.roles[i] != "concealed_kong" or meld < 0:
            end = face_down_end(det, reading, i)
            if end != i and end not in out:
                out[end] = out.pop(i)
            continue
        faces = [j for j, m in enumerate(reading.meld_of) if m == meld and int(det.cls[j]) != BACK_CLASS]
        if faces:
            k = out.pop(i)
            for j in faces:
                out.setdefault(j, k)
    return out


def add_tiles(det: Detections, added: Sequence[tuple[int, Sequence[float]]], shape: tuple[int, ...]) -> Detections:
    """Detections with tiles the detector missed appended, each ``(class id, (x0, y0, x1, y1))`` in pixels
    of the photo of ``shape`` (as the user placed it), read surely: confidence 1, its class alone in
    ``probs``, no ``foreign`` odds. They take the indices after the found tiles, in the order given, so
    the found tiles keep theirs; grouping places them by where they lie, as any detected tile."""
    if not added:
        return det
    if len(added) > MAX_ADDED:
        raise ValueError(f"at most {MAX_ADDED} tiles can be added to a photo, got {len(added)}")
    h, w = shape[:2]
    boxes, classes = [], []
    for j, (k, box) in enumerate(added):
        what = f"added tile {j}"
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= int(k) < len(CLASS_NAMES):
            raise ValueError(f"{what}: class must be an integer 0..{len(CLASS_NAMES) - 1}, got {k!r}")
        try:
            if any(isinstance(v, (bool, str, bytes)) for v in box):  # "100" or true are no pixel (float() takes them)
                raise TypeError
            x0, y0, x1, y1 = (float(v) for v in box)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an integer past any float
            raise ValueError(f"{what}: expected a box [x0, y0, x1, y1] of 4 numbers, got {box!r}"[:300]) from None
        if not all(np.isfinite((x0, y0, x1, y1))) or x1 <= x0 or y1 <= y0:
            raise ValueError(f"{what}: expected x0 < x1 and y0 < y1, got {[x0, y0, x1, y1]}")
        if x1 <= 0 or y1 <= 0 or x0 >= w or y0 >= h:
            raise ValueError(f"{what}: box {[round(v, 1) for v in (x0, y0, x1, y1)]} lies outside the "
                             f"{w}x{h} photo")
        boxes.append((max(x0, 0.0), max(y0, 0.0), min(x1, float(w)), min(y1, float(h))))
        classes.append(int(k))
    n = len(classes)
    one_hot = np.zeros((n, len(CLASS_NAMES)), np.float32)
    one_hot[np.arange(n), classes] = 1.0
    return det.joined(Detections(np.array(boxes, np.float32), np.array(classes, np.int64), np.ones(n, np.float32),
                                 one_hot, np.zeros(n, np.float32)))


def claim_meld(reading: HandReading, index: int) -> HandReading:
    """Tile ``index`` (standing in the hand) and the like tiles nearest it as a claimed meld: a kong
    when four stand and the hand holds a tile too many for its kongs, else a pung. A winning tile
    seen set apart stays standing (a claimed meld is made before the win); a guessed one may be
    taken, and the standing tile nearest it is guessed instead."""
    check_tile_index(index, len(reading.roles), "claimed meld")
    if reading.roles[index] not in STANDING:
        raise ValueError(f"tile #{index} is read as {reading.roles[index]}: only tiles standing in the hand "
                         "can be taken as a claimed meld")
    det = reading.detections
    face = int(det.cls[index])
    free = ("concealed",) if reading.win_set_apart else STANDING
    like = [i for i, role in enumerate(reading.roles) if role in free and int(det.cls[i]) == face]
    if index not in like or len(like) < 3:
        raise ValueError(f"tile #{index}: {len(like)} {Tile.from_index(face).symbol} stand in the hand (a winning "
                         "tile set apart not counted); a claimed pung takes three")
    kongs = sum(1 for m in reading.melds if m.kind is not MeldKind.PUNG)
    kind = MeldKind.KONG if len(like) >= 4 and reading.tile_count > 14 + kongs else MeldKind.PUNG
    centers = det.centers.astype(np.float64)
    taken = sorted(like, key=lambda i: (reading.roles[i] == "win", float(np.hypot(*(centers[i] - centers[index])))))
    taken = taken[:kind.size]
    melds = (*reading.melds, Meld(kind, Tile.from_index(face)))
    roles, meld_of = list(reading.roles), list(reading.meld_of)
    for i in taken:
        roles[i], meld_of[i] = kind.value, len(melds) - 1
    tiles = list(reading.tiles)
    for _ in taken:
        tiles.remove(Tile.from_index(face))
    out = _recount(reading, tuple(tiles), melds, roles, meld_of)
    old_win = next((i for i in taken if reading.roles[i] == "win"), None)
    rest = [i for i, role in enumerate(roles) if role == "concealed"]
    if old_win is None or not rest:
        return out if old_win is None else replace(out, win_tile=None)
    new_win = min(rest, key=lambda i: float(np.hypot(*(centers[i] - centers[old_win]))))
    return mark_win(out, new_win, set_apart=False)


def release_meld(reading: HandReading, index: int) -> HandReading:
    """The claimed meld holding tile ``index`` stood back in the hand, its tiles concealed."""
    check_tile_index(index, len(reading.roles), "meld to release")
    if reading.roles[index] not in CLAIMED:
        raise ValueError(f"tile #{index} is read as {reading.roles[index]}: only a claimed pung or kong "
                         "can be stood back in the hand")
    gone = reading.meld_of[index]
    meld = reading.melds[gone]
    roles, meld_of = list(reading.roles), list(reading.meld_of)
    for i, m in enumerate(reading.meld_of):
        if m == gone:
            roles[i], meld_of[i] = "concealed", -1
        elif m > gone:
            meld_of[i] = m - 1
    melds = tuple(m for k, m in enumerate(reading.melds) if k != gone)
    return _recount(reading, (*reading.tiles, *meld.tiles), melds, roles, meld_of)


def apply_claims(reading: HandReading, claimed: Iterable[int] = (), released: Iterable[int] = ()) -> HandReading:
    """The user's word on claimed melds: ``released`` tiles' melds stood back first, then each
    ``claimed`` tile's meld taken out (a tile already in a claimed meld is left as it is)."""
    for i in released:
        check_tile_index(int(i), len(reading.roles), "meld to release")
        if reading.roles[int(i)] in CLAIMED:
            reading = release_meld(reading, int(i))
    for i in claimed:
        check_tile_index(int(i), len(reading.roles), "claimed meld")
        if reading.roles[int(i)] not in CLAIMED:
            reading = claim_meld(reading, int(i))
    return reading


def _recount(reading: HandReading, tiles, melds, roles, meld_of) -> HandReading:
    hidden = sum(1 for r, m in zip(roles, meld_of, strict=True) if r == "concealed_kong" and m < 0) // 4
    kept = tuple(p for p in reading.problems if not any(w in p for w in COUNT_WORDS))
    counted = tuple(count_problems(tuple(tiles), melds, reading.fa, hidden))
    return replace(reading, tiles=tuple(tiles), melds=tuple(melds), roles=tuple(roles), meld_of=tuple(meld_of),
                   problems=kept + counted)
