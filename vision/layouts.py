"""Hand-built detection layouts: a hand laid out on a table as a detector would box it.

Used by the tests, the web app's demo detector and the grouping benchmark, so grouping can be
checked at any rotation, scale and perspective without a photo or a model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xingzi.engine.melds import MeldKind
from xingzi.engine.notation import parse_meld, parse_tiles
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, Tile

from .detections import Detections


@dataclass(frozen=True, eq=False)
class Layout:
    """Detections with the truth: each box's role (grouping.ROLES) and meld index (-1 if none)."""

    detections: Detections
    roles: tuple[str, ...]
    meld_of: tuple[int, ...]


def hand_layout(
    hand: str,
    win: str | None = None,
    melds: tuple[str, ...] | list[str] = (),
    fa: int = 0,
    *,
    angle: float = 0.0,
    size: float = 60.0,
    perspective: float = 0.0,
    gap: float = 0.8,
    win_apart: bool = True,
    melds_row: int = 0,
    sideways_at: int = 0,
    kong_shown: str | tuple[str, ...] = "FDDF",
    center: tuple[float, float] = (640.0, 480.0),
    jitter: float = 0.0,
    probs: bool = False,
    seed: int = 0,
) -> Layout:
    """Lay out ``hand`` (standing tiles, without the winning tile) then ``win`` apart, then the melds.

    ``size`` is a tile's height in pixels, ``gap`` the space between groups in tile heights,
    ``angle`` the rotation in degrees, ``perspective`` how much smaller the far (upper) side looks.
    Claimed melds get the tile at ``sideways_at`` turned sideways; concealed kongs are shown as
    ``kong_shown`` says (D face down, F face up; default the two middle tiles down; a tuple gives
    one pattern per concealed kong, in order). 发 lie in a row below. ``melds_row=1`` puts the melds on a second row.
    """
    rng = np.random.default_rng(seed)
    w, h = 0.75, 1.0  # tile width and height in tile heights
    rects: list[tuple[float, float, float, float]] = []  # x0, y0, x1, y1 in tile units, row frame
    classes: list[int] = []
    roles: list[str] = []
    meld_of: list[int] = []

    def put(x: float, y: float, cls: int, role: str, meld: int, sideways: bool = False) -> float:
        tw, th = (h, w) if sideways else (w, h)
        rects.append((x, y + (h - th), x + tw, y + h))  # sideways tiles lie on the row's base line
        classes.append(cls)
        roles.append(role)
        meld_of.append(meld)
        return x + tw

    x = 0.0
    for t in parse_tiles(hand):
        x = put(x, 0.0, t.index, "concealed", -1)
    if win is not None:
        x = put(x + (gap if win_apart else 0.0), 0.0, Tile.parse(win).index, "win", -1)
    row_y = 0.0
    if melds_row:
        x, row_y = 0.0, 1.6
    else:
        x += gap
    shown = (kong_shown,) if isinstance(kong_shown, str) else tuple(kong_shown)
    kongs_laid = 0
    for k, text in enumerate(melds):
        meld = parse_meld(text)
        pattern = shown[kongs_laid % len(shown)]
        kongs_laid += meld.kind is MeldKind.CONCEALED_KONG
        for j in range(meld.kind.size):
            down = meld.kind is MeldKind.CONCEALED_KONG and pattern[j] == "D"
            cls = BACK_CLASS if down else meld.tile.index
            side = meld.kind is not MeldKind.CONCEALED_KONG and j == sideways_at
            x = put(x, row_y, cls, meld.kind.value, k, side)
        x += gap
    for j in range(fa):
        put(j * w, row_y + 1.6 + (1.6 if melds_row else 0.0), Tile.FA.index, "fa", -1)

    boxes = _project(np.array(rects, np.float64), angle, size, perspective, center)
    if jitter:
        boxes += rng.normal(0.0, jitter * size, boxes.shape)
        # Noise on each side may cross a box's sides over: a detector's box never has x0 > x1.
        low, high = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
        boxes = np.concatenate([low, high], axis=1)
    cls_arr = np.array(classes, np.int64)
    conf = np.clip(rng.normal(0.9, 0.04, len(classes)), 0.3, 0.99).astype(np.float32)
    prob_arr = None
    if probs:
        prob_arr = np.full((len(classes), len(CLASS_NAMES)), 0.001, np.float32)
        prob_arr[np.arange(len(classes)), cls_arr] = conf
    det = Detections(boxes.astype(np.float32), cls_arr, conf, prob_arr)
    return Layout(det, tuple(roles), tuple(meld_of))


def _project(rects: np.ndarray, angle: float, size: float, perspective: float, center) -> np.ndarray:
    """Corners of each rectangle → rotate about the layout's middle, scale, perspective → bounding boxes."""
    corners = np.stack([rects[:, [0, 1]], rects[:, [2, 1]], rects[:, [2, 3]], rects[:, [0, 3]]], axis=1)
    mid = (rects[:, :2].min(axis=0) + rects[:, 2:].max(axis=0)) / 2
    pts = (corners - mid) * size
    # Perspective: points further up the table (negative y before rotation) shrink towards the middle.
    if perspective:
        extent = max(float(np.abs(pts).max()), 1e-9)
        factor = 1.0 / (1.0 + perspective * (-pts[..., 1] / extent))
        pts = pts * factor[..., None]
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    pts = pts @ rot.T + np.asarray(center, np.float64)
    return np.concatenate([pts.min(axis=1), pts.max(axis=1)], axis=1)


def with_tiles(det: Detections, boxes, classes) -> Detections:
    """The detections plus more tiles (pixel boxes, class ids) seen with confidence 0.9."""
    n = len(classes)
    return Detections(
        np.vstack([det.xyxy, np.array(boxes, np.float32).reshape(n, 4)]),
        np.append(det.cls, np.array(classes, np.int64)),
        np.append(det.conf, np.full(n, 0.9, np.float32)),
    )


def turned(det: Detections, angle: float, about: float = 640.0) -> Detections:
    """The same table turned by ``angle`` degrees about (about, about); each box keeps its size."""
    t = np.deg2rad(angle)
    rot = (det.centers - about) @ np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]]) + about
    half = (det.xyxy[:, 2:] - det.xyxy[:, :2]) / 2
    return Detections(np.hstack([rot - half, rot + half]).astype(np.float32), det.cls, det.conf)
