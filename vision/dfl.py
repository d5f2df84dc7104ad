"""The box head's last step in numpy, for ONNX graphs cut before it.

A YOLO11 head gives, per anchor, 4 × 16 logits (a distribution over distances to the box's four sides,
"DFL") and the class scores. Ultralytics' ONNX export turns the logits into boxes inside the graph, and
ONNX Runtime's softmax over that axis takes about a fifth of the model's time on this CPU (27 of 138 ms
at 800 px, docs/detector.md "A faster model call"). A graph cut before it (``models/onnx_head.py``)
outputs the logits and the scores, and :func:`boxes_from_dfl` finishes the job in a few ms, giving the
same (4 + classes, anchors) array as the whole graph (to 1e-4 px).
"""

from __future__ import annotations

import numpy as np

HEAD_KEY = "xingzi_head"  # ONNX metadata: "dfl" marks a graph cut before the box decoding
STRIDES_KEY = "xingzi_strides"  # ONNX metadata: the head's strides, e.g. "8,16,32"
DEFAULT_STRIDES = (8, 16, 32)


def anchor_grid(size: int | tuple[int, int],
                strides: tuple[int, ...] = DEFAULT_STRIDES) -> tuple[np.ndarray, np.ndarray]:
    """Anchor centres (2, A) in grid cells and each anchor's stride (A,), in the head's order, for a
    square input of ``size`` or a (height, width) one."""
    height, width = (size, size) if isinstance(size, int) else size
    if height <= 0 or width <= 0 or any(s <= 0 or height % s or width % s for s in strides):
        raise ValueError(f"input height and width must be positive multiples of every stride {strides}, "
                         f"got {height}x{width}")
    points, steps = [], []
    for stride in strides:
        rows, cols = height // stride, width // stride
        ys, xs = np.meshgrid(np.arange(rows) + 0.5, np.arange(cols) + 0.5, indexing="ij")
        points.append(np.stack([xs.ravel(), ys.ravel()]))
        steps.append(np.full(rows * cols, stride))
    return np.concatenate(points, axis=1).astype(np.float32), np.concatenate(steps).astype(np.float32)


def boxes_from_dfl(dfl: np.ndarray, scores: np.ndarray, points: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """(4·bins, A) side-distance logits + (C, A) scores → (4 + C, A): centre x, y, width, height in
    input pixels, then the scores, as the whole exported graph gives them."""
    if dfl.ndim != 2 or dfl.shape[0] % 4 or dfl.shape[1] != points.shape[1] or scores.shape[1] != points.shape[1]:
        raise ValueError(f"expected (4*bins, {points.shape[1]}) logits and (classes, {points.shape[1]}) scores, "
                         f"got {dfl.shape} and {scores.shape}")
    bins = dfl.shape[0] // 4
    logits = dfl.reshape(4, bins, -1)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    sides = (weights * np.arange(bins, dtype=np.float32)[None, :, None]).sum(axis=1) / weights.sum(axis=1)
    left_top, right_bottom = sides[:2], sides[2:]
    centre = (points + (right_bottom - left_top) / 2) * strides
    size = (left_top + right_bottom) * strides
    return np.concatenate([centre, size, scores], axis=0).astype(np.float32)


def strides_for(anchors: int, size: int) -> tuple[int, ...]:
    """The strides whose grids at ``size`` hold ``anchors`` anchors in all (YOLO11's 8/16/32)."""
    if sum((size // s) ** 2 for s in DEFAULT_STRIDES) != anchors:
        raise ValueError(f"{anchors} anchors at {size} px do not match strides {DEFAULT_STRIDES}")
    return DEFAULT_STRIDES
