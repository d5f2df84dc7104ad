"""Whether two image files hold the same photo, re-encoded or resized by a labelling tool.

A YOLO export of CVAT or Roboflow carries the images back, often re-compressed, scaled or
stretched to a square. Its normalised labels still fit our original then, but not a different
photo that happens to have the same file name. Both are compared as 32 x 32 grey thumbnails
(the stretch drops out); thresholds measured on the 2,096 real photos of ``../shared/data``
(``docs/labelling.md``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_SIDE = 32
# Mean difference of the thumbnails. The same photo re-compressed at JPEG quality 30, scaled down to
# 160 px wide or stretched to 320 x 320: at most 0.0066; two different photos (2.2 M pairs, bursts of
# one hand among them): at least 0.0172.
MAX_MEAN_DIFFERENCE = 0.010


def thumbnail(path: str | Path) -> np.ndarray:
    """The photo as viewers show it (EXIF turn applied), grey, ``_SIDE`` square, values 0..1."""
    from PIL import Image, ImageOps

    with Image.open(path) as im:
        im.draft("L", (4 * _SIDE, 4 * _SIDE))  # JPEG: decode at a fraction of the size
        small = ImageOps.exif_transpose(im).convert("L").resize((_SIDE, _SIDE), Image.Resampling.BOX)
    return np.asarray(small, np.float64) / 255.0


def same_photo(a: str | Path, b: str | Path) -> bool:
    """True when ``a`` and ``b`` show the same picture; a file that cannot be read is not the same."""
    from PIL import Image

    try:
        ta, tb = thumbnail(a), thumbnail(b)
    except (OSError, ValueError, Image.DecompressionBombError):
        return False
    return float(np.abs(ta - tb).mean()) <= MAX_MEAN_DIFFERENCE
