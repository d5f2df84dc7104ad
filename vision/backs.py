"""A face-down tile read as 白板: told apart by colour.

A 白板 shows the blank plate every face is printed on; a face-down tile shows its back, painted in the
set's colour. Where the model has seen too few backs of a colour (purple, pink and red backs were read as
白板 up to 96 % of the time: docs/detector.md, "Backs of every colour"), the colour settles it: a box read as
白板 whose middle is far in colour from the plate of the faces read surely in the same photo is a back.
The plate is measured in the photo itself, so a warm lamp or a cold screen moves both alike.
"""

from __future__ import annotations

import cv2
import numpy as np

from xingzi.engine.tiles import BACK_CLASS, Tile

from .detections import Detections

BAI = Tile.BAI.index
PLATE_CONF = 0.7  # faces read at least this surely give the plate's colour
MIN_PLATES = 2  # fewer sure faces than this: no plate to compare with, nothing changed
INNER = 0.3  # the middle of a box: this share of its width/height is left out on each side
CELL = 16  # 8-bit Lab units: the coarse colour cells whose fullest gives a middle's colour
PLATE_MIN_L, PLATE_MAX_CHROMA = 110, 25  # 8-bit Lab: a plate at least this light and about white (real_cn_val:
# L ≥ 132 in 99 % of photos, chroma ≤ 22 in all); a red or black plate leaves the blanks to the model
WHITISH_SHARE = 1 / 2  # of the sure suit tiles' middles, more than this many whitish (a dense face's middle is ink)
FAR = 30.0  # a*b* distance (8-bit Lab) from the plate beyond which a 白板 is a back (true 白板: at most 23.3)


def middle_lab(image: np.ndarray, box: np.ndarray) -> np.ndarray | None:
    """The commonest colour (L, a, b; 8-bit Lab) of a box's middle in a BGR photo: the pixels of its most
    frequent coarse colour cell, their median. On a face that is the plate (one colour, where strokes are
    thin and of several inks), on a blank or a back its one colour; None if the middle holds no pixel."""
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = x1 - x0, y1 - y0
    xa, xb = int(round(x0 + INNER * w)), int(round(x1 - INNER * w))
    ya, yb = int(round(y0 + INNER * h)), int(round(y1 - INNER * h))
    xa, ya = max(xa, 0), max(ya, 0)
    xb, yb = min(xb, image.shape[1]), min(yb, image.shape[0])
    if xb <= xa or yb <= ya:
        return None
    pixels = cv2.cvtColor(np.ascontiguousarray(image[ya:yb, xa:xb]), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    cells = (pixels // CELL).astype(np.int32) @ np.array([256 * 256, 256, 1], np.int32)
    values, counts = np.unique(cells, return_counts=True)
    return np.median(pixels[cells == values[np.argmax(counts)]], axis=0)


def plate_middles(image: np.ndarray, det: Detections) -> list[np.ndarray]:
    """The middles' commonest colours of the suit tiles read surely (a 中 or 发 fills its middle with its
    character); none in a grey photo, which has no colour to go by."""
    if image.ndim != 3:
        return []
    sure = (det.conf >= PLATE_CONF) & (det.cls < Tile.ZHONG.index)
    return [m for m in (middle_lab(image, det.xyxy[i]) for i in np.flatnonzero(sure)) if m is not None]


def whitish(colour: np.ndarray) -> bool:
    """An (L, a, b) light and near white, as a tile's plate is under any ordinary light."""
    return bool(colour[0] >= PLATE_MIN_L and np.hypot(colour[1] - 128, colour[2] - 128) <= PLATE_MAX_CHROMA)


def plate_lab(image: np.ndarray, det: Detections) -> np.ndarray | None:
    """The plate's (L, a, b): the median of :func:`plate_middles`; None with fewer than ``MIN_PLATES`` of them,
    or unless more than half are light and about white (tiles with light faces on a red or dark plate: their
    blanks are not told from backs so)."""
    middles = plate_middles(image, det)
    if len(middles) < MIN_PLATES or sum(map(whitish, middles)) <= WHITISH_SHARE * len(middles):
        return None
    return np.median(np.array(middles), axis=0)


def distances_from_plate(image: np.ndarray, det: Detections, which: np.ndarray) -> np.ndarray | None:
    """For the boxes ``which`` (indices), how far the colour of each one's middle lies from the plate
    (a*b* distance); None when the photo shows no plate to compare with."""
    plate = plate_lab(image, det)
    if plate is None:
        return None
    out = np.full(len(which), np.nan, np.float32)
    for k, i in enumerate(which):
        middle = middle_lab(image, det.xyxy[i])
        if middle is not None:
            out[k] = float(np.hypot(*(middle[1:] - plate[1:])))
    return out


def settle_backs(image: np.ndarray, det: Detections, far: float = FAR) -> Detections:
    """``det`` with each box read as 白板 whose middle lies farther than ``far`` from the plate's colour
    read as a back instead; its 白板 and back scores swap, so 白板 is offered first if the user disagrees."""
    bai = np.flatnonzero(det.cls == BAI)
    if not len(bai) or far <= 0:
        return det
    dist = distances_from_plate(image, det, bai)
    if dist is None:
        return det
    flip = bai[np.nan_to_num(dist, nan=0.0) > far]
    if not len(flip):
        return det
    cls = det.cls.copy()
    cls[flip] = BACK_CLASS
    probs = det.probs
    if probs is not None:
        probs = probs.copy()
        probs[flip, BAI], probs[flip, BACK_CLASS] = probs[flip, BACK_CLASS], probs[flip, BAI]
    return Detections(det.xyxy, cls, det.conf, probs, det.foreign)
