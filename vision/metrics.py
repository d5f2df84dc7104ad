"""Detection metrics in plain numpy: AP over IoU thresholds, P/R/F1 at an operating threshold,
a confusion matrix with a background row/column, and per-image exactness.

Ground-truth class ``IGNORE`` (-1) marks regions that are not ours (winds, flowers), ``UNREAD`` (-2) a tile
nobody labelled whose face is not given (label errata): such boxes are never misses, and a prediction lying on
one is not a false positive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

IGNORE = -1
UNREAD = -2
IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


@dataclass(frozen=True)
class ImageBoxes:
    """Boxes of one image, pixel xyxy. Ground truth has conf all ones."""

    xyxy: np.ndarray
    cls: np.ndarray
    conf: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.cls)
        if np.shape(self.xyxy) != (n, 4) or np.shape(self.conf) != (n,):
            raise ValueError(f"boxes need xyxy (N,4), cls (N,), conf (N,); got {np.shape(self.xyxy)}, "
                             f"{np.shape(self.cls)}, {np.shape(self.conf)}")

    @classmethod
    def truth(cls, xyxy: np.ndarray, classes: np.ndarray) -> ImageBoxes:
        c = np.asarray(classes, np.int64).reshape(-1)
        return cls(np.asarray(xyxy, np.float64).reshape(-1, 4), c, np.ones(len(c)))

    @classmethod
    def preds(cls, xyxy: np.ndarray, classes: np.ndarray, conf: np.ndarray) -> ImageBoxes:
        return cls(np.asarray(xyxy, np.float64).reshape(-1, 4), np.asarray(classes, np.int64).reshape(-1),
                   np.asarray(conf, np.float64).reshape(-1))

    def __len__(self) -> int:
        return len(self.cls)

    def select(self, mask: np.ndarray) -> ImageBoxes:
        return ImageBoxes(self.xyxy[mask], self.cls[mask], self.conf[mask])


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N,4) × (M,4) xyxy → (N,M) IoU."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-12)


def drop_ignored(truth: ImageBoxes, preds: ImageBoxes, iou: float = 0.5) -> tuple[ImageBoxes, ImageBoxes]:
    """Remove ignored truth boxes and predictions that overlap one by ≥ iou (and no real tile better)."""
    ign = truth.cls < 0  # IGNORE or UNREAD
    if not ign.any():
        return truth, preds
    real = truth.select(~ign)
    ious_ign = box_iou(preds.xyxy, truth.xyxy[ign]).max(axis=1) if len(preds) else np.zeros(0)
    ious_real = box_iou(preds.xyxy, real.xyxy).max(axis=1) if len(preds) and len(real) else np.zeros(len(preds))
    on_ignored = (ious_ign >= iou) & (ious_ign > ious_real)
    return real, preds.select(~on_ignored)


def _greedy(iou: np.ndarray, order: np.ndarray, thr: float) -> np.ndarray:
    """COCO's matching: each prediction in ``order`` takes the unmatched truth it overlaps most (IoU ≥ thr).

    ``iou`` is (P, T >= 1) with pairs that may not match set below 0. Returns the truth index per prediction, -1 if
    none.
    """
    found = np.full(iou.shape[0], -1, np.int64)
    used = np.zeros(iou.shape[1], bool)
    for p in order:
        cand = np.where(~used & (iou[p] >= thr), iou[p], -1.0)
        g = int(cand.argmax())
        if cand[g] >= 0:
            used[g] = True
            found[p] = g
    return found


def _same_face_iou(truth: ImageBoxes, preds: ImageBoxes) -> np.ndarray:
    """(P, T) IoU where the prediction reads the truth's face, -1 elsewhere."""
    return np.where(preds.cls[:, None] == truth.cls[None, :], box_iou(preds.xyxy, truth.xyxy), -1.0)


def match_tp(truth: ImageBoxes, preds: ImageBoxes, thresholds: np.ndarray = IOU_THRESHOLDS) -> np.ndarray:
    """(P, T) bool: prediction p is a true positive at IoU threshold t (same class, greedy by conf)."""
    tp = np.zeros((len(preds), len(thresholds)), bool)
    if not len(preds) or not len(truth):
        return tp
    iou = _same_face_iou(truth, preds)
    order = np.argsort(-preds.conf, kind="stable")
    for ti, thr in enumerate(thresholds):
        tp[:, ti] = _greedy(iou, order, thr) >= 0
    return tp


def average_precision(tp: np.ndarray, conf: np.ndarray, n_truth: int) -> np.ndarray:
    """AP per IoU threshold (COCO 101-point interpolation) for one class; tp (P,T)."""
    if n_truth == 0:
        return np.full(tp.shape[1], np.nan)
    if len(conf) == 0:
        return np.zeros(tp.shape[1])
    order = np.argsort(-conf, kind="stable")
    tpc = np.cumsum(tp[order], axis=0)
    fpc = np.cumsum(~tp[order], axis=0)
    recall = tpc / n_truth
    precision = tpc / np.maximum(tpc + fpc, 1e-12)
    points = np.linspace(0, 1, 101)
    aps = []
    for t in range(tp.shape[1]):
        envelope = np.maximum.accumulate(precision[::-1, t])[::-1]  # best precision at recall ≥ r
        idx = np.searchsorted(recall[:, t], points, side="left")
        aps.append(np.where(idx < len(envelope), envelope[np.minimum(idx, len(envelope) - 1)], 0).mean())
    return np.array(aps)


def pair_boxes(a: np.ndarray, b: np.ndarray, iou: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one pairs (index in a, index in b) of boxes overlapping by IoU >= iou, largest IoU first."""
    if not len(a) or not len(b):
        return []
    ious = box_iou(a, b)
    pairs = np.argwhere(ious >= iou)
    pairs = pairs[np.argsort(-ious[pairs[:, 0], pairs[:, 1]], kind="stable")]
    used_a, used_b, out = set(), set(), []
    for i, j in pairs:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            out.append((int(i), int(j)))
    return out


def face_pairs(truth: ImageBoxes, preds: ImageBoxes, iou: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one (truth, prediction) pairs at IoU ≥ iou: first each tile with a box of its own face, matched as
    the true positives are (:func:`match_tp`), then the boxes left over with the tiles left over (misreads).

    So an image whose boxes are all true positives shows no misread, even where a neighbour's box of another face
    overlaps a tile more than its own box does (tiles overlapping in the photo, a tile labelled twice).
    """
    if not len(preds) or not len(truth):
        return []
    found = _greedy(_same_face_iou(truth, preds), np.argsort(-preds.conf, kind="stable"), iou)
    pairs = [(int(t), int(p)) for p, t in enumerate(found) if t >= 0]
    rest_t = np.setdiff1d(np.arange(len(truth)), found[found >= 0])
    rest_p = np.flatnonzero(found < 0)
    pairs += [(int(rest_t[a]), int(rest_p[b])) for a, b in pair_boxes(truth.xyxy[rest_t], preds.xyxy[rest_p], iou)]
    return pairs


LOOSE_IOU = 0.1  # a box overlapping a tile this much but under the match IoU is "off its tile", not elsewhere


def error_boxes(truth: ImageBoxes, preds: ImageBoxes, iou: float = 0.5,
                loose: float = LOOSE_IOU) -> list[tuple[int, int, bool]]:
    """One image's wrong boxes as (truth index, prediction index, off) triples; -1 where there is none.

    Boxes pair as in :func:`face_pairs`; a pair of a different face is a misread. A tile and a box left
    over that still overlap by ``loose`` pair up with ``off`` True (a box off its tile: a loose label or
    a box astray). The rest are tiles with no box (t, -1) and boxes on no tile (-1, p), ``off`` True for a box left
    over on a tile another box was paired with (a second box on one tile).
    """
    pairs = face_pairs(truth, preds, iou)
    out = [(t, p, False) for t, p in pairs if truth.cls[t] != preds.cls[p]]
    rest_t = np.setdiff1d(np.arange(len(truth)), [t for t, _ in pairs])
    rest_p = np.setdiff1d(np.arange(len(preds)), [p for _, p in pairs])
    near = [(int(rest_t[a]), int(rest_p[b])) for a, b in pair_boxes(truth.xyxy[rest_t], preds.xyxy[rest_p], loose)]
    near_t, near_p = {t for t, _ in near}, {p for _, p in near}
    out += [(t, p, True) for t, p in near]
    out += [(int(t), -1, False) for t in rest_t if t not in near_t]
    extra = [int(p) for p in rest_p if p not in near_p]
    on_a_tile = (box_iou(preds.xyxy[extra], truth.xyxy).max(axis=1) >= loose if len(extra) and len(truth)
                 else np.zeros(len(extra), bool))
    out += [(-1, p, bool(second)) for p, second in zip(extra, on_a_tile, strict=True)]
    return out


def image_errors(truth: ImageBoxes, preds: ImageBoxes, nc: int) -> tuple[tuple[int, int, bool], ...]:
    """:func:`error_boxes` as classes: (truth class, read class, off), ``nc`` standing for nothing."""
    return tuple((int(truth.cls[t]) if t >= 0 else nc, int(preds.cls[p]) if p >= 0 else nc, off)
                 for t, p, off in error_boxes(truth, preds))


def confusion(truth: ImageBoxes, preds: ImageBoxes, nc: int, iou: float = 0.5) -> np.ndarray:
    """(nc+1, nc+1) counts, rows = truth, cols = prediction, index nc = background.

    Boxes pair up one-to-one by IoU ≥ iou as in :func:`face_pairs`: an image is read exactly when every box
    lands on the diagonal, i.e. when it adds no false positive and no miss to the tile counts.
    """
    cm = np.zeros((nc + 1, nc + 1), np.int64)
    matched_t, matched_p = np.zeros(len(truth), bool), np.zeros(len(preds), bool)
    for t, p in face_pairs(truth, preds, iou):
        matched_t[t] = matched_p[p] = True
        cm[truth.cls[t], preds.cls[p]] += 1
    cm[:nc, nc] += np.bincount(truth.cls[~matched_t], minlength=nc)[:nc]
    cm[nc, :nc] += np.bincount(preds.cls[~matched_p], minlength=nc)[:nc]
    return cm


@dataclass(frozen=True)
class Scores:
    """Dataset-level results. Per-class arrays have length nc; NaN where a class has no truth."""

    ap50: np.ndarray
    ap50_95: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    n_truth: np.ndarray
    tp: np.ndarray  # at the operating threshold, IoU 0.5
    fp: np.ndarray
    fn: np.ndarray
    confusion: np.ndarray
    image_exact: np.ndarray  # (images,) bool
    n_tiles: np.ndarray  # (images,) truth tiles per image (ignored ones excluded)
    errors: tuple[tuple[tuple[int, int, bool], ...], ...] = ()  # per image: see image_errors

    @property
    def map50(self) -> float:
        return float(np.nanmean(self.ap50)) if np.isfinite(self.ap50).any() else 0.0

    @property
    def map50_95(self) -> float:
        return float(np.nanmean(self.ap50_95)) if np.isfinite(self.ap50_95).any() else 0.0

    def micro(self) -> tuple[float, float, float]:
        """Overall tile precision, recall, F1 at the operating threshold (all classes pooled)."""
        tp, fp, fn = self.tp.sum(), self.fp.sum(), self.fn.sum()
        p = tp / max(tp + fp, 1)
        r = tp / max(tp + fn, 1)
        return float(p), float(r), float(2 * p * r / max(p + r, 1e-12))

    def image_exact_rate(self, max_tiles: int | None = None) -> tuple[float, int]:
        """Share of images read exactly (optionally only those with 1..max_tiles truth tiles), and their count."""
        sel = np.ones(len(self.n_tiles), bool) if max_tiles is None else (self.n_tiles <= max_tiles) & (self.n_tiles > 0)
        n = int(sel.sum())
        return (float(self.image_exact[sel].mean()) if n else 0.0), n


def score(truths: list[ImageBoxes], preds: list[ImageBoxes], nc: int, conf: float) -> Scores:
    """Score predictions (at any confidence; ``conf`` is the operating threshold) against truths."""
    if len(truths) != len(preds):
        raise ValueError(f"need one prediction set per image: {len(truths)} truths, {len(preds)} predictions")
    for boxes in (*truths, *preds):
        bad = boxes.cls[(boxes.cls >= nc) | (boxes.cls < UNREAD)]
        if bad.size:
            raise ValueError(f"class ids must be {UNREAD}..{nc - 1}, got {sorted(set(bad.tolist()))}")
    if any((p.cls < 0).any() for p in preds):
        raise ValueError("predictions cannot use the ignore class; drop unmapped classes first")
    all_tp, all_conf, all_cls = [], [], []
    n_truth = np.zeros(nc, np.int64)
    tp_op, fp_op, fn_op = (np.zeros(nc, np.int64) for _ in range(3))
    cm = np.zeros((nc + 1, nc + 1), np.int64)
    exact, n_tiles, errors = [], [], []
    for t_raw, p_raw in zip(truths, preds, strict=True):
        t, p = drop_ignored(t_raw, p_raw)
        n_truth += np.bincount(t.cls, minlength=nc)
        all_tp.append(match_tp(t, p))
        all_conf.append(p.conf)
        all_cls.append(p.cls)
        op = p.select(p.conf >= conf)
        tp50 = match_tp(t, op, np.array([0.5]))[:, 0]
        tp_op += np.bincount(op.cls[tp50], minlength=nc)
        fp_op += np.bincount(op.cls[~tp50], minlength=nc)
        fn_op += np.bincount(t.cls, minlength=nc) - np.bincount(op.cls[tp50], minlength=nc)
        img_cm = confusion(t, op, nc)
        cm += img_cm
        errors.append(image_errors(t, op, nc))
        exact.append(bool(img_cm.sum() == np.trace(img_cm[:nc, :nc])))
        n_tiles.append(len(t))
    tp_all, conf_all, cls_all = np.concatenate(all_tp), np.concatenate(all_conf), np.concatenate(all_cls)
    ap = np.stack([average_precision(tp_all[cls_all == c], conf_all[cls_all == c], int(n_truth[c]))
                   for c in range(nc)])
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp_op / (tp_op + fp_op)
        recall = np.where(n_truth > 0, tp_op / n_truth, np.nan)
        f1 = 2 * precision * recall / (precision + recall)
    return Scores(ap[:, 0], ap.mean(axis=1) if len(ap) else ap, precision, recall, f1, n_truth, tp_op, fp_op,
                  fn_op, cm, np.array(exact, bool), np.array(n_tiles, np.int64), tuple(errors))
