"""Stand-ins for the detector in tests of the second-reading rules (negative, sharpened copy)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xingzi.vision.detections import Detections


def tiles(n: int, conf: float) -> Detections:
    """``n`` tile boxes side by side, all read with confidence ``conf``."""
    xs = np.arange(n, dtype=np.float32) * 20
    xyxy = np.stack([xs, np.zeros(n), xs + 18, np.full(n, 25)], 1).astype(np.float32)
    return Detections(xyxy, np.zeros(n, np.int64), np.full(n, conf, np.float32))


class SwitchReader:
    """Reads ``then`` when ``test(picture)`` holds, else ``otherwise``; counts its calls."""

    def __init__(self, test: Callable[[np.ndarray], bool], then: Detections, otherwise: Detections) -> None:
        self.test, self.then, self.otherwise, self.calls = test, then, otherwise, 0

    def __call__(self, image: np.ndarray) -> Detections:
        self.calls += 1
        return self.then if self.test(image) else self.otherwise
