"""Tiles cut off by the photo's edge: a sliver of a tile is not read as a tile.

A box that touches the frame shows only part of its tile. When the part inside is small (a strip of
the tile's side or a corner), its face cannot be read and the tile is not part of what the photo
shows: the real photos' labellers left such slivers unlabelled (none of the boxes this drops on
``real_cn_val`` lies on a label), and the synthetic labels keep a cut tile only when at least 35 % of
it is inside. How much of a cut tile is inside is judged against the tiles the photo shows whole:
along each axis the frame cuts, the box's extent over the median extent of the uncut boxes.
Measured in docs/detector.md ("Tiles cut by the frame").
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from xingzi.vision.detections import Detections
from xingzi.vision.handcheck import short_of_tiles

if TYPE_CHECKING:
    from xingzi.vision.grouping import HandReading

MIN_INSIDE = 0.35  # a cut box shorter than this share of a whole tile, along the cut axis, is dropped
EDGE_PX = 2.0  # a box side this close to the frame counts as cut by it
MIN_WHOLE = 3  # uncut boxes needed to know a whole tile's size; with fewer nothing is dropped
SURE_CONF = 0.25  # only boxes this sure tell a whole tile's size (evaluation reads down to 0.001)
# A hand short of tiles whose row reaches the frame most likely lost a tile there (cut off, or dropped
# as a strip): say so, since a photo taken again settles it and no regrouping can.
CUT_HAND = ("the hand reaches the photo's edge and is short of tiles: one may be cut off there "
            "(take the photo with the whole hand in it)")
HAND_ROLES = frozenset({"concealed", "win", "pung", "kong", "concealed_kong"})
# A hand tile this many of its shorter sides from the frame reaches it: a cut tile kept (a third or more inside)
# touches the frame; rows a player framed tightly stop 0.2-0.45 short of it (real_cn_val) and are not cut.
NEAR_EDGE = 0.1


def cut_shares(det: Detections, shape: tuple[int, ...]) -> np.ndarray:
    """Per box, the share of a whole tile inside the photo along the axes the frame cuts it (1.0 for a
    box the frame does not touch, or when too few boxes are whole to tell a tile's size)."""
    if len(shape) < 2 or shape[0] <= 0 or shape[1] <= 0:
        raise ValueError(f"expected an image shape (height, width, ...), got {shape}")
    height, width = shape[:2]
    share = np.ones(len(det))
    if len(det) == 0:
        return share
    x1, y1, x2, y2 = (det.xyxy[:, k].astype(np.float64) for k in range(4))
    cut_x = (x1 <= EDGE_PX) | (x2 >= width - EDGE_PX)
    cut_y = (y1 <= EDGE_PX) | (y2 >= height - EDGE_PX)
    whole = ~(cut_x | cut_y) & (det.conf >= SURE_CONF)
    if whole.sum() < MIN_WHOLE:
        return share
    w, h = x2 - x1, y2 - y1
    tile_w, tile_h = float(np.median(w[whole])), float(np.median(h[whole]))
    share = np.where(cut_x, np.minimum(share, w / tile_w), share)
    return np.where(cut_y, np.minimum(share, h / tile_h), share)


def drop_cut_tiles(det: Detections, shape: tuple[int, ...], min_inside: float = MIN_INSIDE) -> Detections:
    """The detections without the boxes the frame cuts to less than ``min_inside`` of a whole tile
    (0: keep all)."""
    if not 0 <= min_inside <= 1:
        raise ValueError(f"min_inside must be in [0, 1], got {min_inside}")
    if min_inside == 0 or len(det) == 0:
        return det
    sliver = cut_shares(det, shape) < min_inside
    return det.subset(~sliver) if sliver.any() else det


def hint_cut_hand(reading: HandReading, shape: tuple[int, ...]) -> HandReading:
    """The reading with :data:`CUT_HAND` among its problems when it is short of tiles and a tile of the
    hand lies within ``NEAR_EDGE`` of its shorter side from the photo's frame; else without it (a hint
    from before the user's marks is judged again)."""
    if CUT_HAND in reading.problems:
        reading = replace(reading, problems=tuple(p for p in reading.problems if p != CUT_HAND))
    if not short_of_tiles(reading.problems):
        return reading
    hand = np.array([role in HAND_ROLES for role in reading.roles], bool)
    if not hand.any():
        return reading
    height, width = shape[:2]
    boxes = reading.detections.xyxy[hand].astype(np.float64)
    room = np.minimum.reduce([boxes[:, 0], boxes[:, 1], width - boxes[:, 2], height - boxes[:, 3]])
    side = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    if not (room <= NEAR_EDGE * side).any():
        return reading
    return replace(reading, problems=(*reading.problems, CUT_HAND))


# A photo no tile could be found in, or too few for a hand, that is too small, too narrow or too dark to show one: said
# with its size or light, since "no tiles found" or "12 tiles" alone reads as a fault of the reader (a thumbnail, a
# screenshot's strip, a panorama, a photo taken in the dark).
SMALL_SIDE = 160  # px: a hand across it would give each tile under 10 px
STRIP_RATIO = 5.0  # long side over short: a hand with the table around it is never this narrow
SMALL_TILE = 16  # px, a tile's longer side: below it 萬 numerals and 条 counts blur together (the model reads at 640+)
DARK = 25  # mean brightness of 255: a photo at a tenth of its light still reads; at a thirtieth it does not


def hint_photo_size(reading: HandReading, shape: tuple[int, ...], image: np.ndarray | None = None) -> HandReading:
    """The reading with a problem naming what spoilt the photo when nothing, or too little for a hand, was found in it:
    too small or too narrow to show a hand, tiles too small to read, or too dark (``image``: the photo, to judge its
    light)."""
    found = len(reading.detections)
    if found and not short_of_tiles(reading.problems):
        return reading
    height, width = shape[:2]
    sides = np.maximum(reading.detections.xyxy[:, 2] - reading.detections.xyxy[:, 0],
                       reading.detections.xyxy[:, 3] - reading.detections.xyxy[:, 1])
    why = []
    if max(height, width) > STRIP_RATIO * min(height, width):  # (a strip is small across too: said as a strip)
        why.append(f"the photo is {width}x{height} px, a narrow strip: take the hand with some table around it")
    elif min(height, width) < SMALL_SIDE:
        why.append(f"the photo is {width}x{height} px, too small to show tiles: send it as the camera took it")
    elif found and float(np.median(sides)) < SMALL_TILE:
        why.append(f"the tiles are {float(np.median(sides)):.0f} px across in this {width}x{height} px photo, too small "
                   "to read: send the photo as the camera took it, or take it closer")
    light = -1.0 if image is None or image.size == 0 else float(image[::8, ::8].mean())
    if 0 <= light < DARK:
        why.append(f"the photo is very dark (brightness {light:.0f} of 255): take it again in more light")
    return replace(reading, problems=(*reading.problems, *why)) if why else reading
