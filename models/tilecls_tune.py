"""Tune and bound the second-stage classifier on a labelled set, from one detector pass.

    python -m xingzi.models.tilecls_tune --data ../shared/data/real_cn_val \\
        --classifier runs/tilecls/run1/tilecls.onnx --cache runs/tilecls/dets_real_val.pkl

prints, at the operating threshold, the detector alone, the *oracle* (every box that overlaps a
true tile by IoU ≥ 0.5 given the true class: the most any re-classifier could give), and the
detector combined with the classifier for a sweep of combination weights, and with ``--recheck G,…``
for each gate G the doubtful boxes (combined top probability under G) read again from crops moved by
``--shift`` (what ``recheck`` in the classifier's JSON does). The detector's boxes (conf ≥ 0.001, with
per-class scores) are cached in ``--cache`` so that later runs skip the detector.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
from pathlib import Path

import numpy as np

from xingzi.datasets.errata import errata_for, without_unusable
from xingzi.vision import eval_data as evd
from xingzi.vision import evaluate as ev
from xingzi.vision.classifier import TileClassifier, combine, reread
from xingzi.vision.metrics import ImageBoxes, box_iou, score
from xingzi.vision.photo import imread_any

Cached = list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


def _stamps(images: list[Path]) -> list[tuple[str, int, int]]:
    """What identifies the photos a cache was made from: path, size and change time of each (a set made again
    under the same names must not be scored with the old set's boxes)."""
    return [(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in images]


def detect_all(ds: evd.Dataset, weights: Path | None, cache: Path | None) -> Cached:
    """(path, xyxy, cls, conf, probs) per image, from the cache when it was made from these very files."""
    if cache and cache.is_file():
        saved = pickle.loads(cache.read_bytes())
        if isinstance(saved, dict) and saved.get("images") == _stamps(ds.images):
            return saved["detections"]
        print(f"cache {cache} was made from other photos: reading them again")
    from xingzi.vision.detector import Detector

    det = Detector(weights, conf=0.001, classifier=None)
    out: Cached = []
    for p in ds.images:
        d = det.predict(imread_any(p))
        assert d.probs is not None
        out.append((str(p), d.xyxy, d.cls, d.conf, d.probs))
    if cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps({"images": _stamps(ds.images), "detections": out}))
    return out


def oracle_classes(truth: ImageBoxes, xyxy: np.ndarray, cls: np.ndarray, conf: np.ndarray, thr: float,
                   iou: float = 0.5) -> np.ndarray:
    """Classes with every box ≥ thr that overlaps an unclaimed true tile by ≥ iou set to that tile's class
    (most confident box first, each true tile claimed once)."""
    out = cls.copy()
    real = truth.select(truth.cls >= 0)
    if not len(real) or not len(cls):
        return out
    overlap = box_iou(xyxy, real.xyxy)
    used = np.zeros(len(real), bool)
    for i in np.argsort(-conf, kind="stable"):
        if conf[i] < thr:
            break
        cand = np.where(~used & (overlap[i] >= iou), overlap[i], -1.0)
        g = int(cand.argmax())
        if cand[g] >= 0:
            used[g] = True
            out[i] = real.cls[g]
    return out


def row(truths: list[ImageBoxes], preds: list[ImageBoxes], conf: float) -> dict:
    return ev.summary(score(truths, preds, evd.NC, conf))


def combined_reading(det_probs: np.ndarray, read: np.ndarray, moved: np.ndarray | None, weight: float,
                     gate: float) -> np.ndarray:
    """The combined reading ``refine`` makes of these boxes, those under ``gate`` read again (``moved``: each box's
    moved readings summed, from ``moved_readings``; None when no gate asks for them)."""
    if moved is None:
        return combine(det_probs, read, weight)
    return reread(det_probs, read, weight, gate, lambda doubt: moved[doubt])[1]


def combined_rows(a: argparse.Namespace, dets: Cached, truths: list[ImageBoxes]) -> list[tuple[str, dict]]:
    """The detector combined with the classifier, per weight and per re-reading gate."""
    gates = [float(v) for v in a.recheck.split(",")]
    clf = TileClassifier(a.classifier, turns=a.turns, recheck=max(gates), shift=a.shift)
    cls_probs = []
    for path, x, _, f, _ in dets:
        todo = f >= a.min_conf
        image = imread_any(path)
        read = clf.classify(image, x[todo]) if todo.any() else None
        moved = clf.moved_readings(image, x[todo]) if read is not None and max(gates) > 0 else None
        cls_probs.append((todo, read, moved))
    out = []
    for w, gate in itertools.product((float(v) for v in a.weights.split(",")), gates):
        preds = []
        for (_, x, c, f, p), (todo, q, moved) in zip(dets, cls_probs, strict=True):
            c = c.copy()
            if q is not None:
                c[todo] = combined_reading(p[todo], q, moved, w, gate).argmax(1)
            preds.append(ImageBoxes.preds(x, c, f))
        out.append((f"combined w={w:g}" + (f" recheck {gate:g}" if gate else ""), row(truths, preds, a.conf)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--model", type=Path, default=None, help="detector weights (default: the shipped ones)")
    ap.add_argument("--classifier", type=Path, default=None, help="classifier .onnx (none: oracle only)")
    ap.add_argument("--cache", type=Path, default=None, help="pickle of the detector's boxes for this set")
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument("--min-conf", type=float, default=0.05)
    ap.add_argument("--turns", type=int, default=1, help="average over 1, 2 or 4 quarter turns of each crop")
    ap.add_argument("--weights", default="0,0.2,0.3,0.4,0.5,0.6,0.7,0.8,1")
    ap.add_argument("--recheck", default="0", help="gates under which a box is read again from moved crops "
                    "(0: never; e.g. 0,0.5,0.8,0.95)")
    ap.add_argument("--shift", type=float, default=0.06, help="how far the moved crops move (share of the box)")
    ap.add_argument("--errata", default="none", metavar="FILE",
                    help="score against corrected labels: a TOML of label fixes or 'auto' (as `xingzi eval`)")
    a = ap.parse_args(argv)
    ds = evd.load_dataset(a.data, "val")
    dets = detect_all(ds, a.model, a.cache)  # on every photo, so that one cache serves with and without errata
    errata = errata_for(a.errata, a.data, ds.images)
    if errata:
        kept = without_unusable(ds, errata)
        dets = [d for d, p in zip(dets, ds.images, strict=True) if p in kept.images]
        ds = kept
    truths, _ = evd.truths_for(ds, evd.name_table(ds.names), errata)
    base = [ImageBoxes.preds(x, c, f) for _, x, c, f, _ in dets]
    orc = [ImageBoxes.preds(x, oracle_classes(t, x, c, f, a.conf), f) for t, (_, x, c, f, _) in zip(truths, dets, strict=True)]
    results = [("detector", row(truths, base, a.conf)), ("oracle classes", row(truths, orc, a.conf))]
    if a.classifier:
        results += combined_rows(a, dets, truths)
    print(f"{'':<28}{'P':>8}{'R':>8}{'F1':>8}{'img exact':>11}{'hand exact':>12}{'mAP50':>8}")
    for name, s in results:
        print(f"{name:<28}{s['precision']:>8.4f}{s['recall']:>8.4f}{s['f1']:>8.4f}{s['image_exact']:>11.4f}"
              f"{s['hand_exact']:>12.4f}{s['mAP50']:>8.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
