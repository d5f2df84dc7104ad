"""``xingzi eval``: score a detector (or another detector's YOLO txt predictions) on a YOLO dataset.

A dataset is a data.yaml (``path``/``val``/``names``) or a folder with ``images/`` and ``labels/``
whose class names come from ``classes.txt`` beside it or in its parent (read by :mod:`xingzi.vision.eval_data`,
every class list mapped onto ours by name). Results go to ``OUT/<row>.json`` and PNG plots; rows are printed
side by side.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision import eval_report
from xingzi.vision.eval_data import NC, Dataset
from xingzi.vision.eval_plots import confusion_png, per_class_png
from xingzi.vision.metrics import ImageBoxes, Scores, score
from xingzi.vision.perturb import Perturbation
from xingzi.vision.second import Second, second_paths

if TYPE_CHECKING:
    from xingzi.vision.classifier import TileClassifier

HAND_MAX_TILES = 18
# Pipeline hook for synthetic data with ground truth (DIR/meta/<stem>.json holding "expect"): a callable
# (image path, Detections, meta dict) -> bool "tiles -> melds -> 炮 total equal the truth". The grouping
# and scoring stage sets it (or passes it to preds_from_model); until then the share is not reported.
PIPELINE_CHECK: Callable[[Path, object, dict], bool | None] | None = None


PROGRESS_EVERY = 50  # photos between the lines saying how far a model's reading has got


def preds_from_model(ds: Dataset, weights: Path | None, imgsz: int | None, conf: float, iou: float,
                     pipeline_check: Callable | None = None,
                     classifier: str | Path | TileClassifier | None = "auto", stretched: bool = True,
                     negative: bool = True, perturb: Perturbation | None = None,
                     sharpen: bool = True, second: Second = "auto", second_doubt: float | None = None,
                     min_inside: float | None = None, lone_conf: float | None = None,
                     back_far: float | None = None, balance: bool = True,
                     noisy: float | None = None, shaken: float | None = None,
                     defocused: float | None = None, fit: bool = True) -> tuple[list[ImageBoxes], dict]:
    """Predict at a low threshold (for AP); returns boxes and extras: latency at the shipped settings,
    ``as_users`` (with a second opinion: each photo's boxes as ``xingzi score`` reads it, read again when its
    first reading makes no legal hand; :func:`evaluate_row` scores them) and, when a pipeline check and
    ground-truth meta exist, the share of whole results right (on those boxes).
    ``classifier``: the second-stage tile classifier ("auto": the shipped one if any; None: none);
    ``stretched``: re-read pictures with almost no tiles squeezed (:mod:`xingzi.vision.aspect`);
    ``negative``: read doubtful photos' negatives too (:mod:`xingzi.vision.negative`);
    ``sharpen``: read doubtful photos sharpened too (:mod:`xingzi.vision.sharpen`);
    ``second``: the second-opinion model for doubtful photos ("auto", a path, several paths or None;
    :class:`Detector`); ``second_doubt``: its gate (None: the detector's default);
    ``min_inside``: drop boxes the frame cuts to less of a tile (None: the detector's default; 0: keep all);
    ``lone_conf``: drop boxes less sure than this far from every sure box (None: the default; 0: keep all);
    ``back_far``: a 白板 this far in colour from the plate is a back (None: the default; 0: never; :mod:`backs`);
    ``balance``: read photos under a coloured light white-balanced too (:mod:`xingzi.vision.balance`);
    ``noisy``: read photos grainier than this smoothed (None: the default; 0: never; :mod:`denoise`);
    ``shaken``: also read photos with a streak deeper than this unstreaked (None: default; 0: never; :mod:`deblur`);
    ``defocused``: also read photos with a blur disk deeper than this with it divided out (likewise; :mod:`defocus`);
    ``fit``: a canvas fitted to each photo's shape where the networks allow it (False: the padded square);
    ``perturb``: read each photo changed so (:mod:`xingzi.vision.perturb`; no whole-pipeline check then)."""
    from xingzi.vision.detector import Detector
    from xingzi.vision.memo import remembering
    from xingzi.vision.photo import imread_quiet
    from xingzi.vision.pipeline import detect_hand

    given = (("second_doubt", second_doubt), ("min_inside", min_inside), ("lone_conf", lone_conf),
             ("back_far", back_far), ("noisy", noisy), ("shaken", shaken), ("defocused", defocused))
    overrides = {k: v for k, v in given if v is not None}
    reading = dict(classifier=classifier, stretched=stretched, negative=negative, sharpen=sharpen, second=second,
                   balance=balance, fit=fit, **overrides)
    det = Detector(weights, imgsz=imgsz, conf=min(conf, 0.001), iou=iou, **reading)
    at_conf = _AtConf(det, conf)
    check = None if perturb is not None else pipeline_check or PIPELINE_CHECK
    if check is None and perturb is None and (ds.root / "meta").is_dir():
        from xingzi.vision.bench_truth import pipeline_matches_truth

        check = pipeline_matches_truth
    out, right, as_users = [], [], []
    started = time.monotonic()
    for k, p in enumerate(ds.images):
        if k and k % PROGRESS_EVERY == 0:  # minutes on a few hundred photos: say it is getting on (not the report)
            left = (time.monotonic() - started) / k * (len(ds.images) - k)
            when = f"{left / 60:.0f} min" if left >= 90 else f"{left:.0f} s"
            print(f"eval: {k}/{len(ds.images)} photos read, about {when} left", file=sys.stderr, flush=True)
        image = imread_quiet(p)
        with remembering():  # a photo read again pays each picture once
            d = det.predict(image if perturb is None else np.ascontiguousarray(perturb.image(image)))
            shown = d.subset(d.conf >= conf)
            if perturb is None and det.second is not None:
                # as `xingzi score` and the page read: a reading that makes no legal hand is read again
                shown, _ = detect_hand(at_conf, image, first=shown)
                as_users.append(ImageBoxes.preds(shown.xyxy, shown.cls, shown.conf))
        out.append(ImageBoxes.preds(d.xyxy, d.cls, d.conf))
        meta = ds.root / "meta" / f"{p.stem}.json"
        if check is not None and meta.is_file():
            ok = check(p, shown, json.loads(meta.read_text()))
            if ok is not None:  # None: no usable ground truth for this photo
                right.append(bool(ok))
    extra: dict = {"latency": latency(Detector(weights, imgsz=imgsz, conf=conf, iou=iou, **reading), ds.images[:30])}
    if as_users:
        extra["as_users"] = as_users  # scored in evaluate_row, not written as they are
    if det.classifier is not None:
        extra["classifier"] = str(det.classifier.path)
    if det.second is not None:
        paths = [str(p) for p in second_paths(det.second)]
        extra.update(second="+".join(paths), second_paths=paths, second_doubt=det.second_doubt)
    if right:
        extra["pipeline_exact"] = float(np.mean(right))
        extra["pipeline_images"] = len(right)
    return out, extra


class _AtConf:
    """A detector reading at a low threshold, its boxes kept from ``conf`` up: the boxes it reads at ``conf``
    itself, box for box (no step looks below; tests/vision/test_detector.py), with its networks' answers shared."""

    def __init__(self, detector, conf: float) -> None:
        self.detector, self.conf, self.second = detector, conf, detector.second

    def predict(self, image: np.ndarray, ask_second: bool = False):
        d = self.detector.predict(image, ask_second=ask_second)
        return d.subset(d.conf >= self.conf)

    def at_conf(self, conf: float) -> _AtConf:
        """The same low reading kept from ``conf`` up (the faint tiles of ``pipeline.detect_hand``)."""
        return _AtConf(self.detector, conf)


def latency(det, images: Sequence[Path], warmup: int = 2) -> dict:
    """Median/p95 ms per image: model call alone and the whole predict (decode + NMS included)."""
    from xingzi.vision.canvas import canvas_blob
    from xingzi.vision.photo import imread_quiet

    frames = [imread_quiet(p) for p in images]
    model_ms, total_ms, cls_ms = [], [], []
    for i, im in enumerate([frames[0]] * warmup + frames):
        blob = canvas_blob(det.letterboxed(im)[0])
        t0 = time.perf_counter()
        det.backend(blob)
        t1 = time.perf_counter()
        found = det.predict(im)
        t2 = time.perf_counter()
        if getattr(det, "classifier", None) is not None:  # the second stage alone, on the same boxes
            det.classifier.refine(im, found)
        t3 = time.perf_counter()
        if i >= warmup:
            model_ms.append((t1 - t0) * 1e3)
            total_ms.append((t2 - t1) * 1e3)
            cls_ms.append((t3 - t2) * 1e3)
    out = {"images": len(frames), "imgsz": det.imgsz, "backend": det.weights.suffix[1:],
           "model_ms_median": float(np.median(model_ms)), "model_ms_p95": float(np.percentile(model_ms, 95)),
           "predict_ms_median": float(np.median(total_ms)), "predict_ms_p95": float(np.percentile(total_ms, 95))}
    if getattr(det, "classifier", None) is not None:
        out |= {"classifier_ms_median": float(np.median(cls_ms)), "classifier_ms_p95": float(np.percentile(cls_ms, 95))}
    return out


def summary(s: Scores) -> dict:
    p, r, f1 = s.micro()
    img, n_img = s.image_exact_rate()
    hand, n_hand = s.image_exact_rate(HAND_MAX_TILES)
    return {"mAP50": s.map50, "mAP50-95": s.map50_95, "precision": p, "recall": r, "f1": f1,
            "image_exact": img, "images": n_img, "hand_exact": hand, "hand_images": n_hand,
            "tiles": int(s.n_truth.sum()), "fixes": eval_report.fixes_per_image(s)}


SWEEP = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def conf_sweep(truths: list[ImageBoxes], preds: list[ImageBoxes], thresholds: Sequence[float] = SWEEP) -> list[dict]:
    """F1 and exactness at other operating thresholds (to choose one on a validation set)."""
    out = []
    for thr in thresholds:
        cut = [p.select(p.conf >= thr) for p in preds]
        s = score(truths, cut, NC, thr)
        p, r, f1 = s.micro()
        out.append({"conf": thr, "precision": p, "recall": r, "f1": f1, "image_exact": s.image_exact_rate()[0],
                    "hand_exact": s.image_exact_rate(HAND_MAX_TILES)[0]})
    return out


def per_class(s: Scores) -> dict:
    def num(x):
        return None if not np.isfinite(x) else round(float(x), 4)

    return {CLASS_NAMES[c]: {"truth": int(s.n_truth[c]), "tp": int(s.tp[c]), "fp": int(s.fp[c]), "fn": int(s.fn[c]),
                             "ap50": num(s.ap50[c]), "ap50_95": num(s.ap50_95[c]), "precision": num(s.precision[c]),
                             "recall": num(s.recall[c]), "f1": num(s.f1[c])} for c in range(NC)}


def evaluate_row(truths: list[ImageBoxes], preds: list[ImageBoxes], conf: float, out: Path, row: str,
                 extra: dict, images: Sequence[Path] | None = None, by: Sequence[str] = (),
                 meta_dir: Path | None = None) -> dict:
    """Score one row (:func:`score_row`) and write its JSON and plots (:func:`write_row`)."""
    result, s = score_row(truths, preds, conf, row, extra, images, by, meta_dir)
    write_row(out, result, s)
    return result


def score_row(truths: list[ImageBoxes], preds: list[ImageBoxes], conf: float, row: str, extra: dict,
              images: Sequence[Path] | None = None, by: Sequence[str] = (),
              meta_dir: Path | None = None) -> tuple[dict, Scores]:
    """Score one row, nothing written: its result and the scores its plots are drawn from. With ``images`` (in the
    truths' order) also what went wrong in each image not read exactly (``images``, ``misses``, ``misreads``) and
    image exact per value of each field in ``by`` of the images' ``meta_dir/<stem>.json`` (``by``: {field: {value:
    ...}})."""
    s = score(truths, preds, NC, conf)
    extra = dict(extra)
    if "as_users" in extra:  # the tiles as users get them: see preds_from_model
        extra["as_users"] = summary(score(truths, extra["as_users"], NC, conf))
    result = {"row": row, "conf": conf, **extra, "summary": summary(s), "per_class": per_class(s),
              # with the operating threshold: a best F1 below the row's own would be no best
              "conf_sweep": conf_sweep(truths, preds, sorted({*SWEEP, conf})), "confusion": s.confusion.tolist()}
    if images is not None:
        rows = eval_report.image_rows(images, s)
        result |= {"misses": eval_report.miss_kinds(rows), "misreads": eval_report.confusions(s), "images": rows}
        result["by"] = {key: eval_report.exact_by(images, s, meta_dir or Path("meta"), key, truths) for key in by}
    return result, s


def write_row(out: Path, result: dict, s: Scores) -> None:
    """A row's ``out/<row>.json``, ``<row>_confusion.png`` and ``<row>_per_class.png``."""
    row, conf = result["row"], result["conf"]
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{row}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    confusion_png(s.confusion, out / f"{row}_confusion.png", title=f"{row} (conf ≥ {conf})")
    per_class_png(s, out / f"{row}_per_class.png", title=row)


def format_rows(results: list[dict]) -> str:
    cols = [("mAP50", "mAP50"), ("mAP50-95", "mAP50-95"), ("precision", "P"), ("recall", "R"), ("f1", "F1"),
            ("image_exact", "img exact"), ("hand_exact", "hand exact")]
    w = max([34, *(len(r["row"]) + 1 for r in results)])  # a row's whole name: two rows may differ only at its end
    head = f"{'row':<{w}}" + "".join(f"{c:>11}" for _, c in cols) + f"{'ms med/p95':>14}"
    lines = [head, "-" * len(head)]
    for r in results:
        s = r["summary"]
        lat = r.get("latency")
        lat_s = f"{lat['model_ms_median']:.0f}/{lat['model_ms_p95']:.0f}" if lat else "-"
        lines.append(f"{r['row']:<{w}}" + "".join(f"{s[k]:>11.3f}" for k, _ in cols) + f"{lat_s:>14}")
        best = max(r.get("conf_sweep", []), key=lambda x: x["f1"], default=None)
        if best:
            lines.append(f"{'':<{w}}best F1 {best['f1']:.3f} at conf {best['conf']:g} (image exact "
                         f"{best['image_exact']:.3f}, hand exact {best['hand_exact']:.3f})")
        if lat and "classifier_ms_median" in lat:
            lines.append(f"{'':<{w}}second-stage classifier: {lat['classifier_ms_median']:.1f}/"
                         f"{lat['classifier_ms_p95']:.1f} ms med/p95 per photo (included in predict)")
        if "fixes" in s:  # (rows written before session 79 have none)
            f = s["fixes"]
            lines.append(f"{'':<{w}}fixes per photo (a face changed, a tile added or removed): "
                         + " · ".join(f"{k} {f[k]:.1%}" for k in ("0", "1", "2", "3+")) + f"; mean {f['mean']:.2f}")
        if "as_users" in r:
            u = r["as_users"]
            lines.append(f"{'':<{w}}as xingzi score reads (a reading that makes no hand read again): F1 {u['f1']:.3f}, "
                         f"image exact {u['image_exact']:.3f}, hand exact {u['hand_exact']:.3f}")
        if "pipeline_exact" in r:
            lines.append(f"{'':<{w}}pipeline exact (tiles → melds → 炮): {r['pipeline_exact']:.3f} "
                         f"over {r['pipeline_images']} images")
    n = results[0]["summary"] if results else {}
    if n:
        lines.append(f"{n['images']} images, {n['tiles']} tiles; hand exact over {n['hand_images']} images "
                     f"with ≤{HAND_MAX_TILES} tiles; ms = model call at the shipped settings")
    unlabelled = results[0].get("no_label_file") if results else None
    if unlabelled:  # YOLO's background photos, or label files lost: recall and image exact count them either way
        some = f"{len(unlabelled)} photos have" if len(unlabelled) > 1 else "1 photo has"
        lines.append(f"{some} no label file (scored as holding no tiles): first {unlabelled[0]}")
    return "\n".join(lines)


def markdown_rows(results: list[dict]) -> str:
    """The rows as a Markdown table (for the README / model card)."""
    lines = ["| row | mAP50 | mAP50-95 | P | R | F1 | image exact | hand exact (≤18) | model ms med/p95 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        s, lat = r["summary"], r.get("latency")
        ms = f"{lat['model_ms_median']:.0f}/{lat['model_ms_p95']:.0f} @{lat['imgsz']}" if lat else "–"
        lines.append(f"| {r['row']} | {s['mAP50']:.3f} | {s['mAP50-95']:.3f} | {s['precision']:.3f} | "
                     f"{s['recall']:.3f} | {s['f1']:.3f} | {s['image_exact']:.1%} | {s['hand_exact']:.1%} | {ms} |")
    return "\n".join(lines)
