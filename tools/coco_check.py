"""The scorer of ``xingzi eval`` checked against pycocotools' COCOeval, the reference code of COCO's AP.

``vision/metrics.py`` computes AP, the counts at the operating threshold and image exactness itself. This runs
COCO's own evaluation on the same boxes and prints both, measure by measure:

    xingzi eval --data ../shared/data/real_cn_val --save-preds runs/eval/preds
    python -m tools.coco_check --data ../shared/data/real_cn_val --preds 'runs/eval/preds/<row>'

Boxes on regions that are not ours (winds, flowers) are dropped first, as ``xingzi eval`` drops them: COCO's
"crowd" regions match by another rule, so they are not used. Exit 1 when any figure differs.
``tests/vision/test_metrics_coco.py`` makes the same comparison on random boxes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xingzi.vision.metrics import ImageBoxes, Scores, drop_ignored, score

TOLERANCE = 1e-9


@dataclass(frozen=True)
class CocoScores:
    """COCOeval's answers in the shape of :class:`Scores`: AP per class (NaN without truth) and the counts."""

    ap: np.ndarray  # (thresholds, classes)
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    image_exact: np.ndarray


def _coco_eval(truths: list[ImageBoxes], preds: list[ImageBoxes], nc: int, thresholds: np.ndarray | None):
    """COCOeval over every image; ``thresholds``: IoU thresholds (None: COCO's own, 0.50:0.05:0.95)."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    images = [{"id": i} for i in range(len(truths))]
    categories = [{"id": c} for c in range(nc)]

    def rows(boxes: ImageBoxes, image: int) -> list[dict]:
        return [{"image_id": image, "category_id": int(c), "bbox": [float(x0), float(y0), float(x1 - x0), float(y1 - y0)],
                 "area": float((x1 - x0) * (y1 - y0)), "iscrowd": 0, "score": float(s)}
                for (x0, y0, x1, y1), c, s in zip(boxes.xyxy, boxes.cls, boxes.conf, strict=True)]

    def index(annotations: list[dict]):
        coco = COCO()
        coco.dataset = {"images": images, "categories": categories,
                        "annotations": [dict(a, id=k + 1) for k, a in enumerate(annotations)]}
        coco.createIndex()
        return coco

    with contextlib.redirect_stdout(io.StringIO()):  # pycocotools prints its progress
        ev = COCOeval(index([r for i, t in enumerate(truths) for r in rows(t, i)]),
                      index([r for i, p in enumerate(preds) for r in rows(p, i)]), "bbox")
        ev.params.imgIds = list(range(len(truths)))
        if thresholds is not None:
            ev.params.iouThrs = np.asarray(thresholds, np.float64)
        ev.params.maxDets = [10**9]  # every box counts, as in ours
        ev.params.areaRng, ev.params.areaRngLbl = [[0.0, 1e18]], ["all"]
        ev.evaluate()
        ev.accumulate()
    return ev


def coco_scores(truths: list[ImageBoxes], preds: list[ImageBoxes], nc: int, conf: float) -> CocoScores:
    """AP over COCO's IoU thresholds from every box, and the counts at IoU 0.5 from the boxes at ``conf`` or over."""
    pairs = [drop_ignored(t, p) for t, p in zip(truths, preds, strict=True)]
    truths, preds = [t for t, _ in pairs], [p for _, p in pairs]
    precision = _coco_eval(truths, preds, nc, None).eval["precision"][:, :, :, 0, 0]  # (T, recall, K)
    with np.errstate(invalid="ignore"):
        ap = np.where((precision > -1).all(axis=1), precision.mean(axis=1), np.nan)
    at_conf = _coco_eval(truths, [p.select(p.conf >= conf) for p in preds], nc, np.array([0.5]))
    tp, fp, fn = (np.zeros(nc, np.int64) for _ in range(3))
    exact = np.ones(len(truths), bool)
    for e in at_conf.evalImgs:
        if e is None:
            continue
        found, seen = np.asarray(e["dtMatches"][0]) > 0, np.asarray(e["gtMatches"][0]) > 0
        k = e["category_id"]
        tp[k] += found.sum()
        fp[k] += (~found).sum()
        fn[k] += (~seen).sum()
        exact[e["image_id"]] &= bool(found.all() and seen.all())
    return CocoScores(ap, tp, fp, fn, exact)


def differences(ours: Scores, coco: CocoScores) -> dict[str, float]:
    """The largest gap per measure between the two (0 everywhere when they agree)."""

    def gap(a, b) -> float:
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if (np.isnan(a) != np.isnan(b)).any():
            return float("inf")
        return float(np.nan_to_num(np.abs(a - b)).max(initial=0.0))

    return {"AP50 per class": gap(ours.ap50, coco.ap[0]), "AP50-95 per class": gap(ours.ap50_95, coco.ap.mean(axis=0)),
            "TP per class": gap(ours.tp, coco.tp), "FP per class": gap(ours.fp, coco.fp),
            "FN per class": gap(ours.fn, coco.fn), "images read exactly": gap(ours.image_exact, coco.image_exact)}


def main(argv: list[str] | None = None) -> int:
    from xingzi.vision.eval_data import NC, load_dataset, name_table, preds_from_dir, preds_table, truths_for

    ap = argparse.ArgumentParser(prog="python -m tools.coco_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="data.yaml or a folder with images/ and labels/ (as xingzi eval)")
    ap.add_argument("--preds", required=True, help="YOLO txt predictions 'cls cx cy w h conf' (xingzi eval --save-preds)")
    ap.add_argument("--conf", type=float, default=0.25, help="operating threshold (xingzi eval's default)")
    args = ap.parse_args(argv)
    try:
        ds = load_dataset(Path(args.data))
        truths, sizes = truths_for(ds, name_table(ds.names))
        if not Path(args.preds).is_dir():
            raise FileNotFoundError(f"--preds {args.preds}: no such folder (a row of `xingzi eval --save-preds DIR`: "
                                    "DIR/<row>)")
        preds = preds_from_dir(ds, sizes, Path(args.preds), preds_table(Path(args.preds), ds))
    except (FileNotFoundError, ValueError) as e:
        ap.error(str(e))
    ours = score(truths, preds, NC, args.conf)
    coco = coco_scores(truths, preds, NC, args.conf)
    p, r, f1 = ours.micro()
    tp, fp, fn = coco.tp.sum(), coco.fp.sum(), coco.fn.sum()
    print(f"{len(truths)} images, {int(ours.n_truth.sum())} tiles; operating threshold {args.conf}")
    print(f"{'':14}{'xingzi eval':>20}{'COCOeval':>20}")
    print(f"{'mAP50':14}{ours.map50:20.6f}{np.nanmean(coco.ap[0]):20.6f}")
    print(f"{'mAP50-95':14}{ours.map50_95:20.6f}{np.nanmean(coco.ap.mean(axis=0)):20.6f}")
    print(f"{'F1':14}{f1:20.6f}{2 * tp / max(2 * tp + fp + fn, 1):20.6f}")
    print(f"{'TP / FP / FN':14}{f'{ours.tp.sum()} / {ours.fp.sum()} / {ours.fn.sum()}':>20}{f'{tp} / {fp} / {fn}':>20}")
    print(f"{'image exact':14}{ours.image_exact.mean():20.6f}{coco.image_exact.mean():20.6f}")
    gaps = differences(ours, coco)
    worst = {k: v for k, v in gaps.items() if v > TOLERANCE}
    print("agree on every class and image" if not worst else f"DIFFER: {worst}")
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main())
