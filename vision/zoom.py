"""Two-pass reading for photos where the hand fills only part of the frame.

A phone photo of a table often shows the tiles in a band across a large image; letterboxed to the
model's input size they shrink to a few pixels. The first pass finds where the tiles are; the
second reads that region again at full model resolution.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

import numpy as np

from .detections import Detections

LARGE_TILE = 0.04  # tile side / photo's longer side from which the second pass is skipped


class Predictor(Protocol):
    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections: ...


class ZoomDetector:
    """Wraps any predictor; ``predict`` re-reads the tiles' region when it is small in the photo.

    fill: re-read when the tiles' extent covers less than this share of the photo's longer side.
    margin: added around the extent, in tile heights, so a tile the first pass missed at the edge
    of the hand is still inside the crop.
    large_tile: no second pass when the first already sees tiles this large, as a share of the
    photo's longer side (0.04: 32 px of an 800 px model input); closer looks at such tiles
    read no more tiles, and they cost a whole second detector call. 1 turns the rule off.
    """

    def __init__(self, detector: Predictor, fill: float = 0.6, margin: float = 1.5,
                 large_tile: float = LARGE_TILE) -> None:
        if not 0 < fill <= 1 or margin < 0 or not 0 < large_tile <= 1:
            raise ValueError(f"fill must be in (0, 1], large_tile in (0, 1] and margin >= 0, got fill={fill}, "
                             f"large_tile={large_tile}, margin={margin}")
        self.detector, self.fill, self.margin, self.large_tile = detector, fill, margin, large_tile

    def __getattr__(self, name: str):  # weights, imgsz, conf… of the wrapped detector
        return getattr(self.detector, name)

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        """``ask_second`` goes to the wrapped predictor on both passes."""
        first = self.detector.predict(image, ask_second)
        crop = self.region(first, image.shape[:2])
        if crop is None:
            return first
        x1, y1, x2, y2 = crop
        second = self.detector.predict(np.ascontiguousarray(image[y1:y2, x1:x2]), ask_second)
        if len(second) < len(first):  # the closer look lost tiles: keep the first reading
            return first
        shift = np.array([x1, y1, x1, y1], np.float32)
        return replace(second, xyxy=second.xyxy + shift)

    def at_conf(self, conf: float) -> ZoomDetector | None:
        """The same zooming over the wrapped detector reporting boxes from ``conf`` up (``Detector.at_conf``);
        None when the wrapped predictor has no threshold to set."""
        lower = getattr(self.detector, "at_conf", None)
        if lower is None:
            return None
        return ZoomDetector(lower(conf), self.fill, self.margin, self.large_tile)

    def region(self, det: Detections, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
        """Pixel crop (x1, y1, x2, y2) around the detections, or None when no zoom would help."""
        if len(det) == 0:
            return None
        h, w = shape[:2]
        lo, hi = det.xyxy[:, :2].min(0), det.xyxy[:, 2:].max(0)
        if max((hi - lo) / np.array([w, h])) >= self.fill:
            return None
        tile = float(np.median(np.maximum(det.xyxy[:, 2] - det.xyxy[:, 0], det.xyxy[:, 3] - det.xyxy[:, 1])))
        if tile >= self.large_tile * max(h, w):  # already seen large: a closer look adds nothing
            return None
        lo, hi = lo - self.margin * tile, hi + self.margin * tile
        x1, y1 = max(0, int(lo[0])), max(0, int(lo[1]))
        x2, y2 = min(w, int(np.ceil(hi[0]))), min(h, int(np.ceil(hi[1])))
        if (x2 - x1) * (y2 - y1) > 0.7 * w * h:  # barely smaller: not worth a second pass
            return None
        return x1, y1, x2, y2
