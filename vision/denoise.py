"""Grainy photos: read a quietened copy when the photo is noisy at the size the model sees it.

A phone in a dark room raises its gain and the photo fills with grain and colour blotches; the detector,
trained on photos with little noise, then misplaces boxes and misreads faces (`xingzi eval --perturb noise`:
image exact 78 → 34 % on `real_cn_val`). The grain is measured at the model's scale (a large photo shrunk
to the model's input averages much of it away) as the spread of a second-difference filter, which answers
to pixel noise and hardly to the edges of tiles. Above ``NOISY`` the photo is shrunk to the model's size and
read quietened by non-local means (each pixel averaged with pixels whose surroundings look alike, so strokes
stay sharp; a bilateral or median filter won back a third as much); the boxes are scaled back to the photo.
Photos as taken measure at most 3.7 (`real_cn_val`), so they are never changed.
Measured in docs/detector.md ("More ways a phone spoils a photo").
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections

NOISY = 6.0  # grey-level noise (sigma) at the model's scale from which a photo is read smoothed
STRENGTH, STRENGTH_RANGE = 0.6, (6.0, 12.0)  # the filter's strength per unit of measured sigma, and its bounds
# second differences across and along: pixel noise answers 6 sigma through it, flat ground and ramps nothing
_SECOND_DIFF = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
_MAD_TO_SIGMA = 1 / (0.6745 * 6)


def shrunk(image: np.ndarray, side: int) -> np.ndarray:
    """The image shrunk (area-averaged) to ``side`` on its long side; a smaller one as it is."""
    h, w = image.shape[:2]
    k = side / max(h, w)
    if k >= 1:
        return image
    return cv2.resize(image, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)


def noise_sigma(image: np.ndarray, side: int) -> float:
    """The photo's grain as a grey-level sigma, measured on the photo shrunk to ``side`` on its long side."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 photo, got shape {image.shape} and dtype {image.dtype}")
    if side < 8:
        raise ValueError(f"side must be at least 8 pixels, got {side}")
    grey = shrunk(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), side).astype(np.float32)  # grey first: 3x less to shrink
    if min(grey.shape) < 3:
        return 0.0
    response = np.abs(cv2.filter2D(grey, -1, _SECOND_DIFF))[1:-1:2, 1:-1:2]  # every other pixel: as robust, faster
    return float(np.median(response) * _MAD_TO_SIGMA)


def quieten(image: np.ndarray, sigma: float) -> np.ndarray:
    """The photo with its grain averaged out over similar patches (non-local means), strength from ``sigma``."""
    strength = float(np.clip(STRENGTH * sigma, *STRENGTH_RANGE))
    return cv2.fastNlMeansDenoisingColored(image, None, strength, strength, 5, 15)


def quietened(image: np.ndarray, side: int, noisy: float = NOISY) -> np.ndarray:
    """The photo to read: when its grain at ``side`` is above ``noisy`` (0: never), shrunk to ``side`` (if larger)
    and quietened, so the caller scales its boxes back (:func:`to_photo`); else the photo as it is."""
    if noisy <= 0:
        return image
    sigma = noise_sigma(image, side)
    if sigma <= noisy:
        return image
    return quieten(shrunk(image, side), sigma)


def to_photo(det: Detections, read: tuple[int, ...], photo: tuple[int, ...]) -> Detections:
    """Boxes found in a picture of shape ``read`` moved to the photo of shape ``photo`` it was made from."""
    if read[:2] == photo[:2]:
        return det
    scale = np.array([photo[1] / read[1], photo[0] / read[0]] * 2, np.float32)
    return Detections(det.xyxy * scale, det.cls, det.conf, det.probs, det.foreign)
