"""A felt table with painted tiles read by a stand-in model: the plate-colour steps' test photos
(vision/backs.py, vision/balance.py)."""

from __future__ import annotations

import numpy as np

from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections

PLATE = (228, 236, 240)  # BGR: an ivory face
BAI = Tile.BAI.index


def photo(cells: list[tuple[int, int, int]], cast: tuple[float, float, float] = (1.0, 1.0, 1.0),
          faces: int = 4, plate: tuple[int, int, int] = PLATE) -> tuple[np.ndarray, Detections]:
    """A felt table with ``faces`` tiles of the ``plate`` colour printed with a red and a green stroke (read surely
    as 1m..), then one tile per colour of ``cells`` read as 白板 (a blank tile of that colour); ``cast`` scales
    B, G, R (a lamp)."""
    image = np.zeros((200, 60 * (faces + len(cells)) + 20, 3), np.float32)
    image[:] = (60, 110, 50)
    boxes = []
    for k, colour in enumerate([plate] * faces + list(cells)):
        x0 = 10 + 60 * k
        image[60:140, x0:x0 + 50] = colour
        if k < faces:  # the face's strokes: less than half its middle
            image[85:95, x0 + 18:x0 + 32] = (40, 40, 200)
            image[105:112, x0 + 20:x0 + 30] = (60, 150, 40)
        boxes.append([x0, 60, x0 + 50, 140])
    image = np.clip(image * np.array(cast, np.float32), 0, 255).astype(np.uint8)
    n = faces + len(cells)
    cls = np.array(list(range(faces)) + [BAI] * len(cells))
    probs = np.zeros((n, 31), np.float32)
    probs[np.arange(n), cls] = 0.8
    probs[faces:, BACK_CLASS] = 0.15
    return image, Detections(np.array(boxes, np.float32), cls, np.full(n, 0.9, np.float32), probs)
