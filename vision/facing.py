"""Which way the tiles face: a tile's top, told by how the strokes lie on its face.

Boxes alone give a row's line but not its ends: turned half round, a photo's row reads backwards, and the
guess of the winning tile (players put it at their right-hand end) and the order melds are listed in turn
with it. A 萬 tile shows its numeral above the red 萬 character, so the way from the red ink to the other
ink on its face points to the tile's top, whatever the photo's turn. A few other faces lay their strokes
unevenly from top to bottom on nearly every tile set (SHAPE_SIGN: 3s one stick above two, 7s one above six,
中 its box above the long foot of its stroke): the way from the face's middle to the middle of its ink, where
the ink's skew (its bulk against its tail) agrees, points to the top or away from it. Only the face is looked
at: the white region of the box holding the most pixels, with what its outline encloses; the tile's sides and
its neighbours lie outside it. Measured in docs/pipeline.md ("Which way the tiles face"). numpy/OpenCV only.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from xingzi.engine.tiles import Tile

from .detections import Detections
from .rowgeom import UP_STEP

MAN_CLASSES = 9  # class ids 0..8 are 1m..9m
MIN_SIDE = 12  # px: a smaller box's strokes are too few to place
LOOK_SIDE = 64  # px: a larger box is looked at shrunk to this (its strokes are placed as well, in less time)
WHITE_SAT, WHITE_VALUE = 70, 0.72  # face pixels: low saturation, bright against the box's brightest
MIN_FACE = 0.2  # the face covers at least this share of its box
RED_SHARE, INK_SHARE = 0.01, 0.005  # least share of the box in red ink, and in other ink, to place them
# Faces whose ink lies unevenly from top to bottom, and which way (+1 towards the top, -1 away from it) their
# ink's middle lies from the face's: learned on the generator's 24 art styles (each right at all four turns on
# 20-22 of them), checked on real photos against the 萬 faces' way (92 % agree). Other faces tried were even (6p,
# 7p on the generator's own sets) or laid out differently from set to set (1s's bird, 发).
SHAPE_SIGN = {Tile.S3.index: -1.0, Tile.S7.index: -1.0, Tile.ZHONG.index: 1.0}
SHIFT_MIN, SKEW_MIN = 0.02, 0.1  # the least shift (in box sizes) and skew that say anything
SHAPE_VOTE = 1.0  # a face's shape counts as one 萬 face (rowgeom.reading_way's votes)


def face_up(image: np.ndarray, det: Detections) -> np.ndarray:
    """(N, 2) float32: for each 萬 box, the way from its red ink to its other ink, in box sizes; for each box of
    SHAPE_SIGN, one vote's length towards its top; both point to the tile's top. Zero for other faces and for
    boxes whose face does not tell."""
    up = np.zeros((len(det), 2), np.float32)
    for i, k in enumerate(np.asarray(det.cls).tolist()):
        if k < MAN_CLASSES or k in SHAPE_SIGN:
            face = _face(image, det.xyxy[i])
            if face is not None:
                up[i] = _red_to_ink(*face) if k < MAN_CLASSES else _shape_up(face[1], face[2], SHAPE_SIGN[k])
    return up


def with_up(image: np.ndarray, det: Detections) -> Detections:
    """The detections with each face's top (:func:`face_up`) measured in ``image``, the photo they were read in."""
    return replace(det, up=face_up(image, det))


def _face(image: np.ndarray, box: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The box's red strokes, its face (filled) and its strokes inside the face, as masks; None where no face shows."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (int(round(float(v))) for v in box)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE or image.ndim != 3:
        return None
    crop = image[y0:y1, x0:x1]
    shrink = LOOK_SIDE / max(x1 - x0, y1 - y0)
    if shrink < 1:
        crop = cv2.resize(crop, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2HSV)
    hue, sat, val = (hsv[..., k].astype(np.int32) for k in range(3))
    white = ((sat < WHITE_SAT) & (val > WHITE_VALUE * np.percentile(val, 95))).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=4)
    if n < 2:
        return None
    face = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[face, cv2.CC_STAT_AREA] < MIN_FACE * white.size:
        return None
    blob = (labels == face).astype(np.uint8)
    outline, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, outline, -1, 1, -1)
    enclosed = (filled > 0) & (blob == 0)  # the face's strokes: not white, inside the white face
    red = enclosed & ((hue < 10) | (hue > 165)) & (sat > 80)
    return red, filled > 0, enclosed


def _red_to_ink(red: np.ndarray, filled: np.ndarray, strokes: np.ndarray) -> np.ndarray:
    ink = strokes & ~red
    if red.sum() < RED_SHARE * red.size or ink.sum() < INK_SHARE * ink.size:
        return np.zeros(2)
    ry, rx = np.nonzero(red)
    ky, kx = np.nonzero(ink)
    return np.array([kx.mean() - rx.mean(), ky.mean() - ry.mean()]) / max(red.shape)


def _shape_up(filled: np.ndarray, ink: np.ndarray, sign: float) -> np.ndarray:
    """One vote towards the top: the way from the face's middle to its ink's (turned by ``sign``), where the ink's
    skew points the same way (from its long tail to its bulk); zero where either is too slight or they disagree."""
    if ink.sum() < INK_SHARE * ink.size:
        return np.zeros(2)
    fy, fx = np.nonzero(filled)
    ky, kx = np.nonzero(ink)
    shift = sign * np.array([kx.mean() - fx.mean(), ky.mean() - fy.mean()]) / max(ink.shape)
    spread = np.stack([kx - kx.mean(), ky - ky.mean()]).astype(np.float64)
    sd = spread.std(axis=1)
    if (sd <= 0).any():
        return np.zeros(2)
    skew = -sign * (spread**3).mean(axis=1) / sd**3
    length = float(np.hypot(*shift))
    if length < SHIFT_MIN or float(np.hypot(*skew)) < SKEW_MIN or shift @ skew <= 0:
        return np.zeros(2)
    return shift / length * SHAPE_VOTE * UP_STEP
