"""How far apart the groups of a laid-out hand lie (the row, each meld, the 发, the loose tiles)."""

from __future__ import annotations

import numpy as np


def overlaps_between_groups(boxes: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """For every two boxes (x0 y0 x1 y1) of different groups, how deep they overlap on the axis they overlap
    least: negative for boxes apart by that much, 0 for boxes touching."""
    across = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    along = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    return np.minimum(across, along)[groups[:, None] != groups[None, :]]
