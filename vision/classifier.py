"""Second stage: a small CNN re-reads the face of every tile the detector boxed.

The detector sees a whole photo at 800 px, so the stroke that tells 五 from 九 may be a few pixels;
the classifier sees each tile alone, square-cropped with some context and scaled to 64 px.
Its class probabilities are combined with the detector's (a weighted sum of logs), the box and the
detector's confidence stay as they were: only ``cls`` and ``probs`` change.
numpy/OpenCV/ONNX Runtime only; the network is trained by :mod:`xingzi.models.tilecls`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from xingzi.engine.tiles import CLASS_NAMES

from .detections import Detections
from .memo import recall
from .sessions import Session

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_CLASSIFIER = MODELS_DIR / "xingzi_tilecls.onnx"
# The classifier's outputs: our 31 classes and one for tiles that are not Xingzi tiles (winds, flowers).
CLS_NAMES: tuple[str, ...] = (*CLASS_NAMES, "other")
OTHER_CLASS = len(CLASS_NAMES)
CROP_SIZE = 64
CONTEXT = 0.15  # margin around the box on each side, as a share of its longer side
PAD_VALUE = 114
EPS = 1e-6
# Shifted re-reading of doubtful boxes: the crop moved by this share of the box up, down, left and right.
SHIFTS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def check_crop_size(size: int) -> int:
    """A crop side the classifier network can take: 64 px or a larger multiple of 16 (its map is halved four
    times, then pooled to 4×4)."""
    if size < CROP_SIZE or size % 16:
        raise ValueError(f"crop size must be a multiple of 16 and at least {CROP_SIZE}, got {size}")
    return size


def square_window(box: np.ndarray, context: float = CONTEXT) -> np.ndarray:
    """(N,4) xyxy boxes → (N,4) square windows around the same centres, side = longer side · (1 + 2·context)."""
    box = np.asarray(box, np.float64).reshape(-1, 4)
    if context < 0:
        raise ValueError(f"context must be >= 0, got {context}")
    size = np.maximum(box[:, 2] - box[:, 0], box[:, 3] - box[:, 1])
    if (size <= 0).any():
        raise ValueError(f"boxes must have positive width or height, got {box[size <= 0].tolist()}")
    half = size * (0.5 + context)
    cx, cy = (box[:, 0] + box[:, 2]) / 2, (box[:, 1] + box[:, 3]) / 2
    return np.stack([cx - half, cy - half, cx + half, cy + half], axis=1)


def crop_tiles(image: np.ndarray, boxes: np.ndarray, size: int = CROP_SIZE, context: float = CONTEXT) -> np.ndarray:
    """(N, size, size, 3) uint8 crops of the boxes' square windows; outside the photo is grey (114)."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected an HxWx3 uint8 BGR image, got shape {image.shape} dtype {image.dtype}")
    h, w = image.shape[:2]
    windows = square_window(boxes, context)
    out = np.empty((len(windows), size, size, 3), np.uint8)
    for i, (x1, y1, x2, _) in enumerate(windows):
        side = max(1, int(round(x2 - x1)))
        left, top = int(round(x1)), int(round(y1))
        canvas = np.full((side, side, 3), PAD_VALUE, np.uint8)
        sx1, sy1 = max(left, 0), max(top, 0)
        sx2, sy2 = min(left + side, w), min(top + side, h)
        if sx2 > sx1 and sy2 > sy1:
            canvas[sy1 - top:sy2 - top, sx1 - left:sx2 - left] = image[sy1:sy2, sx1:sx2]
        interp = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
        out[i] = cv2.resize(canvas, (size, size), interpolation=interp)
    return out


def to_blob(crops: np.ndarray) -> np.ndarray:
    """(N,H,W,3) uint8 BGR → (N,3,H,W) float32 RGB in [0, 1], the network's input."""
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8:
        raise ValueError(f"expected (N,H,W,3) uint8 crops, got shape {crops.shape} dtype {crops.dtype}")
    return np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), np.float32) / 255.0


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def combine(det_probs: np.ndarray, cls_probs: np.ndarray, weight: float) -> np.ndarray:
    """(N,31) detector scores ⊕ (N,32) classifier probabilities → (N,31) distribution over our classes.

    log p = (1 − weight)·log(detector, normalised) + weight·log(classifier without ``other``, normalised);
    weight 0 keeps the detector's reading, 1 takes the classifier's.
    """
    n, nc = len(det_probs), len(CLASS_NAMES)
    if det_probs.shape != (n, nc) or cls_probs.shape != (n, len(CLS_NAMES)):
        raise ValueError(f"need detector probs (N,{nc}) and classifier probs (N,{len(CLS_NAMES)}), "
                         f"got {det_probs.shape} and {cls_probs.shape}")
    if not 0 <= weight <= 1:
        raise ValueError(f"weight must be in [0, 1], got {weight}")
    d = np.clip(det_probs.astype(np.float64), EPS, None)
    c = np.clip(cls_probs[:, :nc].astype(np.float64), EPS, None)
    logp = (1 - weight) * np.log(d / d.sum(1, keepdims=True)) + weight * np.log(c / c.sum(1, keepdims=True))
    return softmax(logp)


def reread(det_probs: np.ndarray, read: np.ndarray, weight: float, gate: float,
           moved_for: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(classifier reading, combined reading) after the boxes whose combined top probability is under ``gate``
    were read again: ``moved_for(indices)`` gives, per such box, the sum of its moved crops' readings, averaged
    in with the first reading."""
    joint = combine(det_probs, read, weight)
    doubt = np.flatnonzero(joint.max(1) < gate)
    if doubt.size == 0:
        return read, joint
    read = read.copy()
    read[doubt] = (read[doubt] + moved_for(doubt)) / (1 + len(SHIFTS))
    joint[doubt] = combine(det_probs[doubt], read[doubt], weight)
    return read, joint


@dataclass(frozen=True)
class ClassifierInfo:
    """What the exported network expects, read from the JSON beside the .onnx."""

    size: int = CROP_SIZE
    context: float = CONTEXT
    weight: float = 0.5  # combination weight tuned on real_cn_val
    min_conf: float = 0.05  # boxes below this detector confidence are left as they are
    turns: int = 1  # 4: average the readings of the crop turned by 0/90/180/270° (4× the time)
    partners: tuple[str, ...] = ()  # more .onnx files beside it: their readings are averaged in (each at its own size)
    partner_gate: float = 1.0  # ... only for crops the first network reads less surely than this (1: every crop)
    recheck: float = 0.0  # boxes whose combined reading is less sure than this are read again from shifted crops
    shift: float = 0.06  # how far those crops move, as a share of the box's width and height


class TileClassifier:
    """Re-read detections with the classifier in an .onnx file (settings in ``<file>.json`` beside it)."""

    def __init__(self, path: str | Path | None = None, weight: float | None = None, threads: int | None = None,
                 batch: int = 64, turns: int | None = None, recheck: float | None = None,
                 shift: float | None = None, partner_gate: float | None = None) -> None:
        p = Path(path) if path is not None else DEFAULT_CLASSIFIER
        if p.suffix != ".onnx":
            raise ValueError(f"classifier must be an .onnx file, got {p.name!r}")
        if not p.is_file():
            raise FileNotFoundError(f"classifier not found: {p}")
        meta = p.with_suffix(".json")
        fields = json.loads(meta.read_text()) if meta.is_file() else {}
        info = ClassifierInfo(**{**fields, "partners": tuple(fields.get("partners", ()))})
        info = info if weight is None else replace(info, weight=weight)
        info = info if turns is None else replace(info, turns=turns)
        info = info if recheck is None else replace(info, recheck=recheck)
        info = info if partner_gate is None else replace(info, partner_gate=partner_gate)
        self.info = info if shift is None else replace(info, shift=shift)
        if not 0 <= self.info.weight <= 1 or self.info.turns not in (1, 2, 4):
            raise ValueError(f"weight must be in [0, 1] and turns 1, 2 or 4, got {self.info.weight}, {self.info.turns}")
        if not 0 <= self.info.partner_gate <= 1:
            raise ValueError(f"partner_gate must be in [0, 1], got {self.info.partner_gate}")
        if not 0 <= self.info.recheck <= 1 or not 0 <= self.info.shift < 0.5:
            raise ValueError(f"recheck must be in [0, 1] and shift in [0, 0.5), got {self.info.recheck}, {self.info.shift}")
        self.sessions = []  # (session, crop side in pixels)
        for net in (p, *(p.parent / name for name in self.info.partners)):
            if not net.is_file():
                raise FileNotFoundError(f"classifier not found: {net}")
            session = Session(net, threads)  # OpenVINO in bfloat16 where the CPU has it, else ONNX Runtime
            outputs = session.output_shapes[0][-1]
            if outputs != len(CLS_NAMES):
                raise ValueError(f"classifier {net.name} has {outputs} outputs, expected {len(CLS_NAMES)}")
            side = session.input_shape[-1]  # fixed in the graph at export; else the JSON's size
            self.sessions.append((session, side if side else self.info.size))
        self.path, self.batch = p, batch

    @property
    def sizes(self) -> tuple[int, ...]:
        """The crop sides the networks read, the main network's first."""
        return tuple(dict.fromkeys(size for _, size in self.sessions))

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N,H,W,3) uint8 BGR crops → (N,32) float32 class probabilities (every network must read that size)."""
        return self._read({crops.shape[1] if crops.ndim == 4 else -1: crops})

    def _read(self, crops_by_size: dict[int, np.ndarray]) -> np.ndarray:
        missing = [size for size in self.sizes if size not in crops_by_size]
        if missing:
            got = ", ".join(f"{c.shape[1]}x{c.shape[2]}" if c.ndim == 4 else str(c.shape) for c in crops_by_size.values())
            raise ValueError(f"crops must be {' and '.join(f'{s}x{s}' for s in missing)}, got {got}")
        (first, size), partners = self.sessions[0], self.sessions[1:]
        probs = self._network(first, crops_by_size[size])
        gate = self.info.partner_gate
        doubt = np.arange(len(probs)) if gate >= 1 else np.flatnonzero(probs.max(1) < gate)
        if partners and doubt.size:  # the partners read only what the first network is unsure of, and are averaged in there
            total = probs[doubt] + sum(self._network(session, crops_by_size[side][doubt]) for session, side in partners)
            probs[doubt] = total / (1 + len(partners))
        return probs.astype(np.float32)

    def _network(self, session: Session, crops: np.ndarray) -> np.ndarray:
        """(N,32) float64 probabilities of one network, averaged over the crop's turns."""
        blob, n = to_blob(crops), len(crops)
        probs = np.zeros((n, len(CLS_NAMES)), np.float64)
        for k in range(0, 4, 4 // self.info.turns):
            turned = np.ascontiguousarray(np.rot90(blob, k, axes=(2, 3)))
            for i in range(0, n, self.batch):
                chunk = turned[i:i + self.batch]
                probs[i:i + self.batch] += softmax(recall(session, chunk, partial(session.run, chunk))[0])
        return probs / self.info.turns

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(N,32) probabilities for pixel xyxy boxes of a BGR photo."""
        return self._read({size: crop_tiles(image, boxes, size, self.info.context) for size in self.sizes})

    def reread_doubtful(self, image: np.ndarray, boxes: np.ndarray, det_probs: np.ndarray,
                        read: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(classifier reading, combined reading) of ``boxes`` after the doubtful ones were read again.

        A box whose combined reading's top probability is under ``recheck`` is cropped four more times,
        moved by ``shift`` of its size each way, and the five readings are averaged: a detector box a few
        pixels off can cut the stroke that tells 二 from 三, and one of the moved crops then holds it.
        """
        gate = self.info.recheck if self.info.shift > 0 else 0.0
        boxes = np.asarray(boxes)
        return reread(det_probs, read, self.info.weight, gate, lambda doubt: self.moved_readings(image, boxes[doubt]))

    def _combined(self, image: np.ndarray, boxes: np.ndarray, det_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(classifier reading, combined reading) of ``boxes`` in ``image``, the doubtful ones read again
        (new arrays, which ``refine`` may change in place)."""
        return self.reread_doubtful(image, boxes, det_probs, self.classify(image, boxes))

    def moved_readings(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(N,32): per box, the sum of the readings of its crop moved ``shift`` of its size each way."""
        box = np.asarray(boxes, np.float64).reshape(-1, 4)
        step = (box[:, 2:] - box[:, :2]) * self.info.shift
        moved = np.concatenate([box + np.tile(step * d, 2) for d in np.array(SHIFTS, np.float64)])
        return self.classify(image, moved).reshape(len(SHIFTS), len(box), -1).sum(0)

    def refine(self, image: np.ndarray, det: Detections, also: np.ndarray | None = None) -> Detections:
        """The detections with ``cls``/``probs`` from the combined reading; boxes and ``conf`` unchanged.

        ``probs`` keeps the detector's scale: the chosen class scores ``conf`` and the others keep
        their ratios to it, so thresholds and second-choice costs read as before. ``foreign`` is the
        classifier's probability of ``other`` (a wind, flower or season; 0 for boxes left alone).
        ``also``: another picture of the same geometry (the photo, when ``image`` is its negative); each
        box keeps whichever of the two readings is the surer (a dark set it learnt reads best as it is).
        """
        if len(det) == 0:
            return det
        if det.probs is None:
            raise ValueError("the classifier needs the detector's per-class scores (Detections.probs)")
        if also is not None and also.shape != image.shape:
            raise ValueError(f"the other picture must match the image's shape {image.shape}, got {also.shape}")
        todo = np.flatnonzero(det.conf >= self.info.min_conf)
        if todo.size == 0:
            return det
        read, joint = self._combined(image, det.xyxy[todo], det.probs[todo])
        if also is not None:
            other_read, other_joint = self._combined(also, det.xyxy[todo], det.probs[todo])
            surer = other_joint.max(1) > joint.max(1)
            read[surer], joint[surer] = other_read[surer], other_joint[surer]
        cls, probs, foreign = det.cls.copy(), det.probs.copy(), np.zeros(len(det), np.float32)
        cls[todo] = joint.argmax(1)
        probs[todo] = (joint * (det.conf[todo] / joint.max(1))[:, None]).astype(np.float32)
        foreign[todo] = read[:, OTHER_CLASS]
        return Detections(det.xyxy, cls, det.conf, probs, foreign)
