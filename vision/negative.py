"""Dark tiles with light faces: read the photo's negative too when the first reading is doubtful.

The detector learnt tiles as light bodies with dark or coloured strokes. A set with black (or other
dark) bodies and light faces looks, to it, like nothing it knows: few boxes, low confidence. The
negative of such a photo shows light bodies with dark strokes, which it reads well. The negative is
read only when the sure tiles of the first reading have a low median confidence, and kept only when
it finds at least as many sure tiles, read clearly more surely. Boxes need no mapping back: the
negative has the photo's geometry. On light tiles the negative reads worse and is never kept.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .aspect import SURE
from .detections import Detections

DOUBTFUL = 0.8  # a first reading whose sure tiles' median confidence is below this is also read negated
GAIN = 0.1  # the negative's median confidence must beat the first reading's by this much
Reader = Callable[[np.ndarray], Detections]


def sure_median(det: Detections) -> tuple[int, float]:
    """(number of sure tiles, their median confidence; 0 when there are none)."""
    sure = det.conf[det.conf >= SURE]
    return int(sure.size), float(np.median(sure)) if sure.size else 0.0


def read_negative(read: Reader, image: np.ndarray, first: Detections) -> Detections:
    """``first``, or the reading of the photo's negative when that is clearly the better one."""
    return read_instead(read, lambda im: 255 - im, image, first, DOUBTFUL, GAIN)


def read_instead(read: Reader, change: Callable[[np.ndarray], np.ndarray], image: np.ndarray,
                 first: Detections, doubtful: float, gain: float) -> Detections:
    """When ``first`` is doubtful (its sure tiles' median confidence under ``doubtful``), read the changed
    photo too and return that reading if it finds at least as many sure tiles, ``gain`` more surely.
    The change must keep the photo's geometry: its boxes stand for the photo's as they are."""
    count, median = sure_median(first)
    if median >= doubtful:
        return first
    other = read(np.ascontiguousarray(change(image)))
    other_count, other_median = sure_median(other)
    if other_count and other_count >= count and other_median > median + gain:
        return other
    return first
