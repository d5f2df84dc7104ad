"""How much labelling work the pre-labels save: pre-label a labelled dataset as if it were not,
then count per photo the edits a person would make to reach the true labels.

    python -m xingzi.datasets.prelabel_eval --data ../shared/data/real_cn_val [--model W.pt]

A photo needs no correction when every true box is found with its class at IoU >= 0.5 and
nothing extra is there. Boxes of ``--ignore`` classes in the truth (class 30 ``other`` = winds in
the real data, which are not our ``back``) are left out, and so are predictions on them.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from xingzi.datasets.check import iou_matrix
from xingzi.datasets.yolo import image_files, read_labels, yolo_to_xyxy


@dataclass(frozen=True)
class LabelDiff:
    matched: int  # right class, IoU >= threshold
    relabel: int  # right place, wrong class: one click to fix
    extra: int  # to delete
    missing: int  # to draw

    @property
    def edits(self) -> int:
        return self.relabel + self.extra + self.missing

    @property
    def needs_no_correction(self) -> bool:
        return self.edits == 0


def _greedy_pairs(iou: np.ndarray, allowed: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Pairs (pred, truth) in order of falling IoU, each box used once."""
    score = np.where(allowed & (iou >= threshold), iou, -1.0)
    pairs: list[tuple[int, int]] = []
    for flat in np.argsort(-score, axis=None):
        p, t = np.unravel_index(flat, score.shape)
        if score[p, t] < 0:
            break
        if all(p != a and t != b for a, b in pairs):
            pairs.append((int(p), int(t)))
    return pairs


def match_labels(pred: np.ndarray, truth: np.ndarray, iou_threshold: float = 0.5,
                 ignore_classes: tuple[int, ...] = (30,)) -> tuple[list[tuple[int, int]], list[tuple[int, int]], list[int], list[int]]:
    """Classes of (matched pairs, relabel pairs) as (true, predicted), extra predicted classes and
    missing true classes, for YOLO rows ``cls cx cy w h``."""
    pred = np.asarray(pred, np.float64).reshape(-1, 5)
    truth = np.asarray(truth, np.float64).reshape(-1, 5)
    ignored = np.isin(truth[:, 0], ignore_classes)
    if ignored.any() and len(pred):
        on_ignored = (iou_matrix(yolo_to_xyxy(pred[:, 1:], 1, 1), yolo_to_xyxy(truth[ignored, 1:], 1, 1))
                      >= iou_threshold).any(axis=1)
        pred = pred[~on_ignored]
    truth = truth[~ignored]
    iou = iou_matrix(yolo_to_xyxy(pred[:, 1:], 1, 1), yolo_to_xyxy(truth[:, 1:], 1, 1))
    same_class = pred[:, None, 0] == truth[None, :, 0]
    matched = _greedy_pairs(iou, same_class, iou_threshold)
    free_p = np.ones(len(pred), bool)
    free_t = np.ones(len(truth), bool)
    for p, t in matched:
        free_p[p] = free_t[t] = False
    relabel = _greedy_pairs(iou, free_p[:, None] & free_t[None, :], iou_threshold)
    for p, t in relabel:
        free_p[p] = free_t[t] = False
    pc, tc = pred[:, 0].astype(int).tolist(), truth[:, 0].astype(int).tolist()
    return ([(tc[t], pc[p]) for p, t in matched], [(tc[t], pc[p]) for p, t in relabel],
            [c for c, f in zip(pc, free_p, strict=True) if f], [c for c, f in zip(tc, free_t, strict=True) if f])


def compare_labels(pred: np.ndarray, truth: np.ndarray, iou_threshold: float = 0.5,
                   ignore_classes: tuple[int, ...] = (30,)) -> LabelDiff:
    """Edits that turn ``pred`` into ``truth`` (both YOLO rows ``cls cx cy w h``)."""
    matched, relabel, extra, missing = match_labels(pred, truth, iou_threshold, ignore_classes)
    return LabelDiff(len(matched), len(relabel), len(extra), len(missing))


def confusion_matrix(pairs: list[tuple[np.ndarray, np.ndarray]], n_classes: int = 31, iou_threshold: float = 0.5,
                     ignore_classes: tuple[int, ...] = ()) -> np.ndarray:
    """(n+1, n+1) counts, rows = true class, columns = predicted class; the last row/column is
    background: a missed tile is counted in the last column, a box on nothing in the last row."""
    m = np.zeros((n_classes + 1, n_classes + 1), np.int64)
    for pred, truth in pairs:
        matched, relabel, extra, missing = match_labels(pred, truth, iou_threshold, ignore_classes)
        for t, p in matched + relabel:
            m[t, p] += 1
        for p in extra:
            m[n_classes, p] += 1
        for t in missing:
            m[t, n_classes] += 1
    return m


@dataclass(frozen=True)
class PrelabelQuality:
    photos: int
    no_correction: int
    edits_per_photo: float
    box_precision: float
    box_recall: float
    photos_per_second: float

    @property
    def no_correction_share(self) -> float:
        return self.no_correction / self.photos if self.photos else 0.0


def score_prelabels(pred_labels: Path, truth_labels: Path, stems: list[str], photos_per_second: float,
                    iou_threshold: float = 0.5, ignore_classes: tuple[int, ...] = (30,)) -> PrelabelQuality:
    diffs = [compare_labels(read_labels(pred_labels / f"{s}.txt"), read_labels(truth_labels / f"{s}.txt"),
                            iou_threshold, ignore_classes) for s in stems]
    matched = sum(d.matched for d in diffs)
    predicted = sum(d.matched + d.relabel + d.extra for d in diffs)
    true = sum(d.matched + d.relabel + d.missing for d in diffs)
    return PrelabelQuality(len(diffs), sum(d.needs_no_correction for d in diffs),
                           sum(d.edits for d in diffs) / max(len(diffs), 1),
                           matched / predicted if predicted else 0.0, matched / true if true else 0.0,
                           photos_per_second)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m xingzi.datasets.prelabel_eval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="labelled YOLO dataset (images/, labels/)")
    ap.add_argument("--model", help="detector weights (default: the shipped model)")
    ap.add_argument("--imgsz", type=int, default=None, help="model input size (default: the model's own)")
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument("--ignore", type=int, nargs="*", default=[30], help="truth classes left out (default: 30)")
    ap.add_argument("--out", help="keep the pre-labelled dataset here (default: a temporary folder)")
    ap.add_argument("--limit", type=int, help="only the first N photos (sorted by name)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from xingzi.datasets.label import detector_predictor, prelabel_folder

    data = Path(args.data)
    predict = detector_predictor(args.model, args.imgsz, args.conf)
    with tempfile.TemporaryDirectory() as tmp:
        photos = data / "images"
        if args.limit:
            photos = Path(tmp) / "photos"
            photos.mkdir()
            for p in image_files(data / "images")[: args.limit]:
                (photos / p.name).symlink_to(p.resolve())
        out = Path(args.out) if args.out else Path(tmp) / "prelabels"
        cpu0 = time.process_time()
        report = prelabel_folder(photos, out, predict, show_progress=not args.json)
        cpu_per_photo = (time.process_time() - cpu0) / max(report.predicted, 1)
        stems = sorted(p.stem for p in (out / "labels").glob("*.txt"))
        q = score_prelabels(out / "labels", data / "labels", stems, report.photos_per_second,
                            ignore_classes=tuple(args.ignore))
    if args.json:
        print(json.dumps({**asdict(q), "no_correction_share": q.no_correction_share,
                          "cpu_seconds_per_photo": cpu_per_photo}, indent=2))
    else:
        print(f"{data}: {q.photos} photos pre-labelled at {q.photos_per_second:.2f} photos/s (conf {args.conf}), "
              f"{cpu_per_photo:.2f} CPU-seconds per photo")
        print(f"needed no correction: {q.no_correction}/{q.photos} = {q.no_correction_share:.1%}; "
              f"{q.edits_per_photo:.1f} edits per photo; box precision {q.box_precision:.3f}, "
              f"recall {q.box_recall:.3f} (IoU 0.5, class must match)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
