"""The vision boundary: detections as numpy arrays, independent of any detector library."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xingzi.engine.tiles import CLASS_NAMES


@dataclass(frozen=True)
class Detections:
    """N detections in pixel coordinates of the image they came from.

    xyxy: (N, 4) float32 boxes; cls: (N,) int64 class ids (0..29 faces, 30 ``back``);
    conf: (N,) float32 scores. ``probs`` optionally holds (N, 31) per-class scores so that
    later stages can offer second choices; ``foreign`` optionally (N,) the probability that a box
    holds a tile with none of the 30 faces (a wind, flower or season: not a Xingzi tile), from the
    tile classifier. ``up`` optionally (N, 2) a vector pointing to each tile's top as its face shows it,
    zero where the face does not tell (:mod:`xingzi.vision.facing`).
    """

    xyxy: np.ndarray
    cls: np.ndarray
    conf: np.ndarray
    probs: np.ndarray | None = field(default=None)
    foreign: np.ndarray | None = field(default=None)
    up: np.ndarray | None = field(default=None)

    def __post_init__(self) -> None:
        n = len(self.cls)
        if self.xyxy.shape != (n, 4) or self.conf.shape != (n,):
            raise ValueError(
                f"detections need xyxy (N,4), cls (N,), conf (N,); got {self.xyxy.shape}, "
                f"{self.cls.shape}, {self.conf.shape}"
            )
        if n and not (self.cls.min() >= 0 and self.cls.max() < len(CLASS_NAMES)):
            raise ValueError(f"class ids must be 0..{len(CLASS_NAMES) - 1} (30 faces, then back), got "
                             f"{sorted({int(c) for c in self.cls if not 0 <= c < len(CLASS_NAMES)})[:5]}")
        ordered = (self.xyxy[:, 2:] >= self.xyxy[:, :2]).all(1)  # (False for NaN too)
        if not ordered.all() or not np.isfinite(self.xyxy).all():
            bad = int(np.flatnonzero(~(ordered & np.isfinite(self.xyxy).all(1)))[0])
            raise ValueError(f"boxes must be finite [x0, y0, x1, y1] with x0 <= x1 and y0 <= y1, got box {bad}: "
                             f"{[round(float(v), 2) for v in self.xyxy[bad]]}")  # (float32: 317.57, not 317.5700073)
        if self.probs is not None and self.probs.shape != (n, len(CLASS_NAMES)):
            raise ValueError(f"probs must be (N, {len(CLASS_NAMES)}), got {self.probs.shape}")
        if self.foreign is not None and self.foreign.shape != (n,):
            raise ValueError(f"foreign must be (N,) = ({n},), got {self.foreign.shape}")
        if self.up is not None and self.up.shape != (n, 2):
            raise ValueError(f"up must be (N, 2) = ({n}, 2), got {self.up.shape}")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.int64), np.zeros(0, np.float32))

    def __len__(self) -> int:
        return len(self.cls)

    def subset(self, mask: np.ndarray) -> Detections:
        """Detections selected by a boolean mask or index array."""
        probs = None if self.probs is None else self.probs[mask]
        foreign = None if self.foreign is None else self.foreign[mask]
        up = None if self.up is None else self.up[mask]
        return Detections(self.xyxy[mask], self.cls[mask], self.conf[mask], probs, foreign, up)

    def alternatives(self, i: int, n: int, min_prob: float = 0.01) -> list[int]:
        """Up to ``n`` classes other than the one read for box ``i``, likeliest first, each at least ``min_prob``
        (none without ``probs``): what the box may show instead."""
        if self.probs is None:
            return []
        order = np.argsort(-self.probs[i], kind="stable")
        return [int(k) for k in order if int(k) != int(self.cls[i]) and self.probs[i, k] >= min_prob][:n]

    def joined(self, other: Detections) -> Detections:
        """These detections, then ``other``'s (per-class scores and foreign odds kept only where both have them;
        the faces' tops where either has them, an added box telling none)."""
        probs = None if self.probs is None or other.probs is None else np.concatenate([self.probs, other.probs])
        foreign = None if self.foreign is None or other.foreign is None else np.concatenate([self.foreign, other.foreign])
        up = None
        if self.up is not None or other.up is not None:
            up = np.concatenate([d.up if d.up is not None else np.zeros((len(d), 2), np.float32) for d in (self, other)])
        return Detections(np.concatenate([self.xyxy, other.xyxy]), np.concatenate([self.cls, other.cls]),
                          np.concatenate([self.conf, other.conf]), probs, foreign, up)

    @property
    def centers(self) -> np.ndarray:
        return (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2


def check_tile_index(index: int, n: int, what: str) -> None:
    """A tile index the user gave (a correction, a tile set aside, the winning tile…) must name one of the
    ``n`` tiles found: ``ValueError`` saying which and how many there are otherwise."""
    if not 0 <= int(index) < n:
        raise ValueError(f"{what} #{index}: there are {n} tiles (0..{n - 1})")
