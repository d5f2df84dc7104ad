"""Which way the tiles face: a 萬 tile's top, told by where its red 萬 lies against its numeral.

Boxes alone give a row's line but not its ends: turned half round, a photo's row reads backwards, and the
guess of the winning tile (players put it at their right-hand end) and the order melds are listed in turn
with it. A 萬 tile shows its numeral above the red 萬 character, so the way from the red ink to the other
ink on its face points to the tile's top, whatever the photo's turn. Only the face is looked at: the white
region of the box holding the most pixels, with what its outline encloses; the tile's sides and its
neighbours lie outside it. Measured in docs/pipeline.md ("Which way the tiles face").
numpy/OpenCV only.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .detections import Detections

MAN_CLASSES = 9  # class ids 0..8 are 1m..9m
MIN_SIDE = 12  # px: a smaller box's strokes are too few to place
LOOK_SIDE = 64  # px: a larger box is looked at shrunk to this (its strokes are placed as well, in less time)
WHITE_SAT, WHITE_VALUE = 70, 0.72  # face pixels: low saturation, bright against the box's brightest
MIN_FACE = 0.2  # the face covers at least this share of its box
RED_SHARE, INK_SHARE = 0.01, 0.005  # least share of the box in red ink, and in other ink, to place them


def face_up(image: np.ndarray, det: Detections) -> np.ndarray:
    """(N, 2) float32: for each 萬 box, the way from its red ink to its other ink, in box sizes (it points to
    the tile's top); zero for other faces and for boxes whose face does not show both inks."""
    up = np.zeros((len(det), 2), np.float32)
    for i in np.flatnonzero(np.asarray(det.cls) < MAN_CLASSES):
        up[i] = _red_to_ink(image, det.xyxy[i])
    return up


def with_up(image: np.ndarray, det: Detections) -> Detections:
    """The detections with each face's top (:func:`face_up`) measured in ``image``, the photo they were read in."""
    return replace(det, up=face_up(image, det))


def _red_to_ink(image: np.ndarray, box: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(round(float(v))) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE or image.ndim != 3:
        return np.zeros(2)
    crop = image[y0:y1, x0:x1]
    shrink = LOOK_SIDE / max(x1 - x0, y1 - y0)
    if shrink < 1:
        crop = cv2.resize(crop, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2HSV)
    hue, sat, val = (hsv[..., k].astype(np.int32) for k in range(3))
    white = ((sat < WHITE_SAT) & (val > WHITE_VALUE * np.percentile(val, 95))).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=4)
    if n < 2:
        return np.zeros(2)
    face = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[face, cv2.CC_STAT_AREA] < MIN_FACE * white.size:
        return np.zeros(2)
    blob = (labels == face).astype(np.uint8)
    outline, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, outline, -1, 1, -1)
    enclosed = (filled > 0) & (blob == 0)  # the face's strokes: not white, inside the white face
    red = enclosed & ((hue < 10) | (hue > 165)) & (sat > 80)
    ink = enclosed & ~red
    if red.sum() < RED_SHARE * red.size or ink.sum() < INK_SHARE * ink.size:
        return np.zeros(2)
    ry, rx = np.nonzero(red)
    ky, kx = np.nonzero(ink)
    return np.array([kx.mean() - rx.mean(), ky.mean() - ry.mean()]) / max(crop.shape[:2])
