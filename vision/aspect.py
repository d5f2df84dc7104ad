"""Photos stored with one axis stretched: read them at their true shape.

Some pictures reach us resized to a square without keeping their shape (a strip of tiles cropped
from a photo and saved at 640×640, a screenshot scaled by an app): every tile is then several times
too tall or too wide and the detector, which learnt tiles at their true shape, sees none or few. When
a first reading finds (almost) nothing, or only tiles far longer than any tile is, this module
squeezes the picture back along one axis by a few factors, reads each version, keeps the one read
with the most confidence and maps its boxes back.
It costs extra detector calls only on those pictures; a normal photo is read once. A second stage
(``refine``) runs once, on the kept version, where the tiles have their true shape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from .detections import Detections

SURE = 0.25  # a detection counts as a tile read from this confidence
FEW_TILES = 3  # fewer sure tiles than this in the first reading: try squeezing
ELONGATED = 3.5  # sure tiles this many times longer than wide (median): the picture is stretched too
COARSE = (4, 10)  # factors tried on both axes to find which one was stretched
FINE = (2, 3, 6, 8, 13, 16)  # then tried on that axis only
Reader = Callable[[np.ndarray], Detections]
Refiner = Callable[[np.ndarray, Detections], Detections]


def sure_score(det: Detections) -> float:
    """How much a reading found: the summed confidence of its sure tiles."""
    return float(det.conf[det.conf >= SURE].sum())


def elongation(det: Detections) -> float:
    """Median long side / short side of the sure tiles (a tile is at most ~2.6 even standing; 0 if none)."""
    sure = det.xyxy[det.conf >= SURE]
    if not len(sure):
        return 0.0
    w, h = np.maximum(sure[:, 2] - sure[:, 0], 1e-6), np.maximum(sure[:, 3] - sure[:, 1], 1e-6)
    return float(np.median(np.maximum(w / h, h / w)))


def squeeze(image: np.ndarray, axis: int, factor: float) -> np.ndarray:
    """The image with its width (axis 1) or height (axis 0) divided by ``factor``."""
    if axis not in (0, 1) or factor < 1:
        raise ValueError(f"axis must be 0 or 1 and factor >= 1, got axis={axis}, factor={factor}")
    h, w = image.shape[:2]
    size = (max(1, round(w / factor)), h) if axis == 1 else (w, max(1, round(h / factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def unsqueeze(det: Detections, axis: int, scale: float) -> Detections:
    """Boxes read on a squeezed image, in the original image's pixels (``scale`` = original/squeezed)."""
    xyxy = det.xyxy.copy()
    cols = [0, 2] if axis == 1 else [1, 3]
    xyxy[:, cols] *= scale
    return replace(det, xyxy=xyxy)


def read_stretched(read: Reader, image: np.ndarray, first: Detections, refine: Refiner | None = None) -> Detections:
    """``first`` when it found enough tiles of a tile's shape; else the most confident reading of a
    squeezed version (``first`` itself if none is more confident).

    ``read`` finds boxes (scores decide between versions); ``refine`` (image, boxes) → boxes, e.g. the
    crop classifier, is applied to the chosen squeezed version only, before its boxes are mapped back.
    """
    if int((first.conf >= SURE).sum()) >= FEW_TILES and elongation(first) <= ELONGATED:
        return first
    best_score = sure_score(first)
    chosen: tuple[int, np.ndarray, Detections] | None = None  # axis, squeezed image, its reading
    axis_scores = {0: 0.0, 1: 0.0}

    def attempt(axis: int, factor: float) -> None:
        nonlocal chosen, best_score
        small = squeeze(image, axis, factor)
        if min(small.shape[:2]) < 8:  # nothing left to read
            return
        det = read(small)
        score = sure_score(det)
        axis_scores[axis] = max(axis_scores[axis], score)
        if score > best_score:
            chosen, best_score = (axis, small, det), score

    for axis in (0, 1):
        for factor in COARSE:
            attempt(axis, factor)
    if max(axis_scores.values()) > 0:  # some shape shows tiles: try more factors on the better axis
        axis = max(axis_scores, key=lambda a: axis_scores[a])
        for factor in FINE:
            attempt(axis, factor)
    if chosen is None:
        return first
    axis, small, det = chosen
    if refine is not None:
        det = refine(small, det)
    h, w = image.shape[:2]
    scale = w / small.shape[1] if axis == 1 else h / small.shape[0]
    return unsqueeze(det, axis, scale)
