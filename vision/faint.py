"""A tile the detector saw too faintly to report: taken when the hand is one tile short without it.

A photo shows a declared win, so a reading one tile short of a hand most likely lost a tile the detector was
unsure of. The photo is read again below the detector's threshold (its networks' answers recalled, vision/memo.py);
of the boxes found only there, lying on no box already read, the surest few are tried one at a time, and the first
that makes the tiles a legal hand when the photo is grouped again is taken. Its box keeps its low confidence, so the
drawing and the reading show how unsure it was. Measured in docs/pipeline.md ("Faint tiles").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from xingzi.engine.tiles import Tile

from .detections import Detections
from .grouping import HandReading, is_legal_reading
from .metrics import box_iou

FAINT_CONF = 0.05  # the lowest confidence a faint box is read at
FAINT_TRIES = 4  # the surest faint boxes tried, each costing one grouping
FAINT_APART = 0.3  # a faint box overlapping a box already read by this IoU or more is that tile seen again


def one_tile_short(reading: HandReading) -> bool:
    """The tiles counted are one short of a hand (14, plus one per kong), so one tile may be missing."""
    kongs = sum(1 for m in reading.melds if m.kind.size == 4)
    return reading.tile_count == 13 + kongs and not is_legal_reading(reading)


def faint_candidates(read: Detections, faint: Detections, threshold: float) -> Detections:
    """The boxes of ``faint`` (the same photo read at a lower threshold) under ``threshold`` that lie on no box of
    ``read``, surest first, at most FAINT_TRIES."""
    weak = faint.subset(faint.conf < threshold)
    if len(weak) and len(read):
        apart = box_iou(weak.xyxy.astype(np.float64), read.xyxy.astype(np.float64)).max(1) < FAINT_APART
        weak = weak.subset(apart)
    return weak.subset(np.argsort(-weak.conf, kind="stable")[:FAINT_TRIES])


def with_faint_tile(det: Detections, reading: HandReading, candidates: Detections,
                    regroup: Callable[[Detections], HandReading]) -> tuple[Detections, HandReading]:
    """The first candidate, surest first, whose box added to ``det`` groups into a legal hand, with that reading
    (saying so); ``det`` and ``reading`` as they are when none does."""
    for k in range(len(candidates)):
        more = det.joined(candidates.subset(np.array([k])))
        other = regroup(more)
        if is_legal_reading(other):
            i = len(det)
            face = Tile.from_index(int(more.cls[i])).symbol
            note = (f"tile #{i} ({face}, seen at {float(more.conf[i]):.2f}, under the detector's threshold) "
                    "counted: without it the hand is one tile short")
            return more, replace(other, problems=(*other.problems, note))
    return det, reading
