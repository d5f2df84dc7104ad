"""Blurred photos: read a sharpened copy too when the first reading is doubtful.

A shaken or badly focused phone blurs the strokes that tell 6p from 7p and the 万 numerals apart; the
detector then finds fewer tiles, less surely (`xingzi eval --perturb blur`: F1 0.777). An unsharp mask
(photo + 1.5 x (photo - its blur), the blur's sigma 1/400 of the long side) restores much of it, but
on a sharp photo it adds halos that cost more than they give. So, like the negative, the sharpened copy
is read only when the first reading is doubtful and kept only when it finds at least as many sure tiles,
more surely. Measured in docs/detector.md ("Blurred photos").
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections
from .negative import Reader, read_instead

DOUBTFUL = 0.85  # a reading whose sure tiles' median confidence is below this is also read sharpened
GAIN = 0.04  # the sharpened reading's median confidence must beat the first's by this much
AMOUNT = 1.5
SIGMA_PER_SIDE = 1 / 400


def sharpen(image: np.ndarray) -> np.ndarray:
    """The photo with an unsharp mask scaled to its size (same shape and dtype)."""
    sigma = max(image.shape[:2]) * SIGMA_PER_SIDE
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    return cv2.addWeighted(image, 1 + AMOUNT, soft, -AMOUNT, 0)


def read_sharpened(read: Reader, image: np.ndarray, first: Detections) -> Detections:
    """``first``, or the reading of the sharpened photo when that is clearly the better one."""
    return read_instead(read, sharpen, image, first, DOUBTFUL, GAIN)
