"""Lone boxes: a box read with doubt, far from every tile the photo surely shows, is not a tile of the hand.

A revealed hand lies in rows, its melds and bonus tiles a tile or two apart. A box standing alone much
further off is a tile of the heap or the wall behind, a corner of a tile at the frame, or no tile at all
(a knuckle, a button of the table); the real photos' labellers left such tiles unlabelled. When the model
also reads it with doubt, it is dropped: it would be counted as a stray at best, and on the annotated photo
it is noise. A lone tile read surely (a bonus 发 laid far aside) stays, and so does every box of a photo whose
tiles lie strewn rather than in rows (no row to be far from). Distances are in tile lengths: the median longer
side of the sure boxes, so the rule holds at any scale. Chosen on ``real_cn_train`` and measured in
docs/detector.md ("Lone boxes").
"""

from __future__ import annotations

import numpy as np

from xingzi.vision.detections import Detections
from xingzi.vision.edges import MIN_WHOLE, SURE_CONF

LONE_CONF = 0.6  # boxes read less surely than this are dropped when lone (0: keep all)
LONE_GAP = 2.0  # lone: no sure box's centre within this many tile lengths of the box's centre
# Rows: half the sure boxes have another within this many tile lengths (touching tiles: 0.75-1); strewn
# tiles (a hand tipped out on the table) are all far apart and none is lone among them.
ROW_STEP = 1.2


def lone_boxes(det: Detections, max_conf: float = LONE_CONF, gap: float = LONE_GAP) -> np.ndarray:
    """Per box, whether it is read less surely than ``max_conf`` and no other box read at least
    :data:`SURE_CONF` has its centre within ``gap`` tile lengths (all False when fewer than
    :data:`MIN_WHOLE` boxes are sure, too few to know a tile's length, or when the sure boxes lie
    strewn, not in rows: see :data:`ROW_STEP`)."""
    if not 0 <= max_conf <= 1 or gap <= 0:
        raise ValueError(f"max_conf must be in [0, 1] and gap > 0, got max_conf={max_conf}, gap={gap}")
    out = np.zeros(len(det), bool)
    sure = det.conf >= SURE_CONF
    doubtful = det.conf < max_conf
    if sure.sum() < MIN_WHOLE or not doubtful.any():
        return out
    xyxy = det.xyxy.astype(np.float64)
    tile = float(np.median(np.max(xyxy[sure, 2:] - xyxy[sure, :2], axis=1)))
    centre = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    dist = np.linalg.norm(centre[:, None] - centre[None, sure], axis=2)
    dist[np.flatnonzero(sure), np.arange(int(sure.sum()))] = np.inf  # a box is not its own neighbour
    nearest = dist.min(axis=1)
    if np.median(nearest[sure]) > ROW_STEP * tile:
        return out
    return doubtful & (nearest > gap * tile)


def drop_lone_boxes(det: Detections, max_conf: float = LONE_CONF, gap: float = LONE_GAP) -> Detections:
    """The detections without their :func:`lone_boxes` (``max_conf`` 0: keep all)."""
    lone = lone_boxes(det, max_conf, gap)
    return det.subset(~lone) if lone.any() else det
