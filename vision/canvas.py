"""The networks' input and output in numpy: the letterboxed canvas a photo is read on, and raw YOLO output
decoded into :class:`Detections` (class-agnostic NMS: two boxes on one tile are one tile read twice).
Shared by the ONNX and PyTorch back ends, the second opinion and the benches."""

from __future__ import annotations

import cv2
import numpy as np

from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.detections import Detections

PAD_VALUE = 114
STRIDE = 32  # the coarsest grid of YOLO11's head: canvas sides are multiples of it
# A fitted canvas is never narrower than this share of its length: the squeezed strips that
# vision/aspect.py reads (up to 16:1) keep the padding around them that its rules were measured with
# (read on canvases of their own shape, 3 real_cn_val photos were read worse: docs/detector.md).
FIT_MIN = 0.5
# A box's score is the sum of its three likeliest faces' scores (at most 1): a tile the model sees
# clearly but cannot place between two or three look-alike faces (2m/3m/5m) is still a tile, and the
# classifier or the hand's legality settles the face. Measured in docs/detector.md ("Box score").
TOP_FACES = 3


def letterbox(image: np.ndarray, size: int, fit: bool = False) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Resize keeping aspect ratio into the canvas of :func:`letterbox_canvas`; returns (NCHW float32 RGB,
    scale, (padx, pady))."""
    canvas, scale, pad = letterbox_canvas(image, size, fit)
    return canvas_blob(canvas), scale, pad


def canvas_blob(canvas: np.ndarray) -> np.ndarray:
    """A letterboxed BGR uint8 canvas as the networks' input: NCHW float32 RGB in 0..1.

    Plane by plane (OpenCV's split): the same values as a transposed copy in a quarter of the time."""
    blob = np.empty((1, 3, *canvas.shape[:2]), np.float32)
    for k, plane in enumerate(reversed(cv2.split(canvas))):
        blob[0, k] = plane
    blob /= np.float32(255.0)
    return blob


def canvas_shape(shape: tuple[int, ...], size: int, fit: bool = False) -> tuple[int, int]:
    """(height, width) of the canvas for an image of ``shape``: size×size, or with ``fit`` the long side
    ``size`` and the short one the image's, rounded up to a multiple of STRIDE (less padding to read),
    and at least FIT_MIN of the long side."""
    if not fit:
        return size, size
    h, w = shape[:2]
    scale = min(size / h, size / w)
    short = max(round(min(h, w) * scale), round(size * FIT_MIN), 1)
    short = -(-short // STRIDE) * STRIDE
    return (size, min(size, short)) if h >= w else (min(size, short), size)


def letterbox_canvas(image: np.ndarray, size: int, fit: bool = False) -> tuple[np.ndarray, float, tuple[int, int]]:
    """The BGR uint8 canvas of :func:`letterbox` (shaped by :func:`canvas_shape`), its scale and padding."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected an HxWx3 uint8 BGR image, got shape {image.shape} dtype {image.dtype}")
    h, w = image.shape[:2]
    ch, cw = canvas_shape(image.shape, size, fit)
    scale = min(size / h, size / w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR) if (nh, nw) != (h, w) else image
    canvas = np.full((ch, cw, 3), PAD_VALUE, np.uint8)
    px, py = (cw - nw) // 2, (ch - nh) // 2
    canvas[py:py + nh, px:px + nw] = resized
    return canvas, scale, (px, py)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of boxes kept by greedy non-maximum suppression, highest score first."""
    order = np.argsort(-scores, kind="stable")
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        lt = np.maximum(boxes[i, :2], boxes[rest, :2])
        rb = np.minimum(boxes[i, 2:], boxes[rest, 2:])
        inter = np.prod(np.clip(rb - lt, 0, None), axis=1)
        overlap = inter / np.maximum(areas[i] + areas[rest] - inter, 1e-9)
        order = rest[overlap <= iou]
    return np.array(keep, np.int64)


def decode(raw: np.ndarray, scale: float, pad: tuple[int, int], shape: tuple[int, int], conf: float,
           iou: float, max_det: int = 300) -> Detections:
    """Raw YOLO output (4+nc, A) in letterbox pixels → Detections in original image pixels.

    ``conf`` of a box is its :func:`tile_score`; ``cls`` its likeliest face; ``probs`` the raw scores.
    """
    nc = raw.shape[0] - 4
    if nc != len(CLASS_NAMES):
        raise ValueError(f"model has {nc} classes, expected {len(CLASS_NAMES)} ({', '.join(CLASS_NAMES)})")
    scores = raw[4:].T
    sel = np.flatnonzero(scores.max(axis=1) >= conf / TOP_FACES)  # cheap bound before the sums
    box_score = tile_score(scores[sel])
    sel, box_score = sel[box_score >= conf], box_score[box_score >= conf]
    if sel.size == 0:
        return Detections.empty()
    order = np.argsort(-box_score, kind="stable")[: max_det * 10]
    sel, box_score = sel[order], box_score[order]
    cx, cy, w, h = raw[:4, sel]
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    keep = nms(xyxy, box_score, iou)[:max_det]
    xyxy = xyxy[keep]
    xyxy[:, [0, 2]] = ((xyxy[:, [0, 2]] - pad[0]) / scale).clip(0, shape[1])
    xyxy[:, [1, 3]] = ((xyxy[:, [1, 3]] - pad[1]) / scale).clip(0, shape[0])
    probs = scores[sel[keep]].astype(np.float32)
    return Detections(xyxy.astype(np.float32), probs.argmax(axis=1).astype(np.int64),
                      box_score[keep].astype(np.float32), probs)


def tile_score(scores: np.ndarray) -> np.ndarray:
    """(N, classes) per-class scores → (N,) how surely each box is a tile: its TOP_FACES best summed, ≤ 1."""
    k = min(TOP_FACES, scores.shape[1])
    return np.minimum(1.0, np.partition(scores, -k, axis=1)[:, -k:].sum(axis=1))
