"""Photos under a coloured light: read a white-balanced copy too.

Under a warm bulb a phone that does not correct the white balance shows every tile's plate orange; a 白板 then
looks like a tile with an orange back (`xingzi eval --perturb warm`: 147 白板 of `real_cn_val` read as backs, image
exact 78 → 52 %). The plate of the faces read surely gives the light's colour: where it lies along the light's
axis (yellow–blue, little red–green) the photo is scaled channel by channel so the plate is grey again, read, and
that reading kept unless it finds fewer sure tiles or reads them clearly less surely. A plate coloured off that
axis (red or jade tiles) is the set's own colour, not the light's: left as it is. Measured in docs/detector.md
("Coloured light").
"""

from __future__ import annotations

import cv2
import numpy as np

from .backs import MIN_PLATES, PLATE_MIN_L, plate_middles
from .detections import Detections
from .negative import Reader, sure_median

CAST = 25.0  # |b*| (8-bit Lab) of the plate from which a photo counts as lit by a coloured light
AXIS = 0.6  # a light's colour: |a*| at most this share of |b*| (tungsten, shade, LEDs)
LOSS = 0.02  # the balanced reading is kept unless its sure tiles' median confidence is this much lower


def plate_colour(image: np.ndarray, det: Detections) -> np.ndarray | None:
    """The plate's (L, a, b) in the photo as taken, whatever its colour: the median of the sure suit tiles'
    middles (:func:`backs.plate_middles`); None with fewer than ``MIN_PLATES`` of them or in a grey photo."""
    middles = plate_middles(image, det)
    return np.median(np.array(middles), axis=0) if len(middles) >= MIN_PLATES else None


def light_cast(plate: np.ndarray | None) -> bool:
    """Whether a plate's colour is a light's: light enough, yellow or blue by at least ``CAST``, little red or
    green beside it."""
    if plate is None or plate[0] < PLATE_MIN_L:
        return False
    a, b = float(plate[1]) - 128, float(plate[2]) - 128
    return abs(b) >= CAST and abs(a) <= AXIS * abs(b)


def balanced(image: np.ndarray, plate: np.ndarray) -> np.ndarray:
    """The photo scaled channel by channel so that the plate's colour becomes a grey of its brightest channel."""
    pixel = np.clip(plate, 0, 255).astype(np.uint8).reshape(1, 1, 3)
    bgr = cv2.cvtColor(pixel, cv2.COLOR_LAB2BGR)[0, 0].astype(np.float32)
    gains = bgr.max() / np.maximum(bgr, 1.0)
    return np.clip(image.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def read_balanced(read: Reader, image: np.ndarray, first: Detections) -> tuple[Detections, np.ndarray]:
    """``first`` and the photo, or, under a coloured light, the reading of the balanced photo and that photo
    when it finds at least as many sure tiles, about as surely."""
    plate = plate_colour(image, first)
    if not light_cast(plate):
        return first, image
    assert plate is not None
    picture = balanced(image, plate)
    other = read(picture)
    count, median = sure_median(first)
    other_count, other_median = sure_median(other)
    if other_count and other_count >= count and other_median >= median - LOSS:
        return other, picture
    return first, image
