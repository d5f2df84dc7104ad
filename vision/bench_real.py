"""``xingzi bench pipeline --data REAL``: the whole pipeline on real labelled photos (YOLO format).

Real photos come with boxes but no situation, and they are not Xingzi wins, so no 炮 total can be
checked. What can: whether the tiles the pipeline counts in the hand (every tile but strays, the
ones set aside and those of no Xingzi face) are the photo's labelled faces, as a multiset, as read
and after one correction on the page (:mod:`bench_fix`). Photos with a hand's worth of labelled
tiles (13 to 18, winds and flowers included) are used; their
labelled winds/flowers (``other``) should be left out, and tiles on the table that nobody labelled
should be strays. The same count over every box the detector found is printed beside it, which is
what the reading would be without grouping. The tiles of the photos read wrong are counted by cause
(``miss_causes``), so that a builder sees whether the detector, the classifier or the grouping missed.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from xingzi.datasets.errata import errata_for, without_unusable
from xingzi.engine.tiles import CLASS_NAMES

from .bench_fix import corrections, offered_faces, one_fix_right
from .detections import Detections
from .draw import hidden_under_labels
from .eval_data import load_dataset, name_table, truths_for
from .grouping import SET_ASIDE, group
from .metrics import IGNORE, UNREAD, ImageBoxes, box_iou, face_pairs
from .photo import load_image
from .pipeline import Context, PhotoResult, TileDetector, analyse, detect_hand

HAND_TILES = (13, 18)  # labelled tiles in a photo of one hand (14 and up to four kongs; 13 before the win)
LEFT_OUT = ("loose", *SET_ASIDE)  # roles of tiles not counted in the hand
# Why a photo's hand was read wrong, per tile: a labelled face with no box, read as another face, or left out
# of the hand; a labelled wind/flower counted in it; a box counted in it on nothing labelled.
CAUSES = ("no_box", "misread", "left_out", "wind_counted", "extra_counted")


def is_real_set(data: Path) -> bool:
    """A YOLO folder (images/, labels/) rather than a ``xingzi synth`` output (meta/)."""
    return (data / "labels").is_dir() and not (data / "meta").is_dir()


def run_real(data: Path, detector: TileDetector, keep_foreign: bool = False, limit: int = 0,
             show_misses: int = 0, errata: str = "none") -> tuple[dict, list[str]]:
    """Numbers (name → value) and up to ``show_misses`` lines on photos read wrong; ``errata``: 'none', 'auto'
    or an errata file (:mod:`xingzi.datasets.errata`) whose corrected labels the hands are counted against."""
    ds = load_dataset(data)
    fixes = errata_for(errata, data, ds.images)
    ds = without_unusable(ds, fixes) if fixes else ds
    truths, sizes = truths_for(ds, name_table(ds.names), fixes)
    t: Counter = Counter()
    latencies: list[float] = []
    misses: list[str] = []
    for path, truth, (w, _) in zip(ds.images, truths, sizes, strict=True):
        truth = truth.select(truth.cls != UNREAD)  # tiles on the table an erratum adds: not the hand's
        if not HAND_TILES[0] <= len(truth.cls) <= HAND_TILES[1]:
            continue
        if limit and t["photos"] >= limit:
            break
        t0 = time.perf_counter()
        image = load_image(path)
        dets, reading = detect_hand(detector, image)
        if keep_foreign and dets.foreign is not None:
            dets = replace(dets, foreign=None)
            reading = group(dets)
        res = analyse(image, dets, Context(), as_read=True, reading=reading)
        latencies.append(time.perf_counter() - t0)
        faces = Counter(int(c) for c in truth.cls if c != IGNORE)
        counted = counted_faces(res)
        every = Counter(int(c) for c in dets.cls)
        true_xyxy = truth.xyxy * (image.shape[1] / w)
        fixes = [] if counted == faces else corrections(res, true_xyxy, truth.cls, truth.cls != IGNORE)
        fix = counted == faces or one_fix_right(res, fixes, Context(), partial(_counts, faces), as_read=True)
        hand_tiles, hidden = hidden_under_labels(res.reading, res.tag_boxes)
        t.update(photos=1, hand_exact=int(counted == faces), hand_exact_fix=int(fix),
                 every_box_exact=int(every == faces), hand_tiles=hand_tiles, tiles_under_labels=hidden)
        t.update({f"misread_{k}": v for k, v in offered_faces(res, fixes).items()})
        t.update(_foreign_by_label(res.reading.roles, dets, true_xyxy, truth.cls))
        if counted != faces:
            causes = miss_causes(res.reading.roles, dets, true_xyxy, truth.cls)
            t.update(causes)
            if len(misses) < show_misses:
                why = ", ".join(f"{k} {causes[k]}" for k in CAUSES if causes[k])
                misses.append(f"{path.name}: labelled {_faces(faces)} | counted {_faces(counted)} | {why or '-'}")
    n = max(t["photos"], 1)
    lat = np.array(latencies or [0.0]) * 1000
    numbers = {
        "photos": t["photos"],
        "hand_tiles_exact_pct": round(100 * t["hand_exact"] / n, 1),
        "hand_tiles_one_fix_pct": round(100 * t["hand_exact_fix"] / n, 1),
        "every_box_exact_pct": round(100 * t["every_box_exact"] / n, 1),
        "foreign_left_out": t["foreign"],
        "foreign_on_labelled_other": t["foreign_other"],
        "foreign_on_labelled_face": t["foreign_face"],
        "foreign_on_nothing_labelled": t["foreign"] - t["foreign_other"] - t["foreign_face"],
        **{f"miss_tiles_{k}": t[k] for k in CAUSES},
        "misread_face_offered": f"{t['misread_offered']}/{t['misread_tiles']} ({t['misread_first']} first)",
        "tiles_under_labels_pct": round(100 * t["tiles_under_labels"] / max(t["hand_tiles"], 1), 1),
        "latency_median_ms": round(float(np.median(lat)), 1),
        "latency_p95_ms": round(float(np.percentile(lat, 95)), 1),
    }
    return numbers, misses


def counted_faces(res: PhotoResult) -> Counter:
    """The faces of the tiles counted in the hand (every box but those left out)."""
    det = res.detections
    return Counter(int(det.cls[i]) for i, role in enumerate(res.reading.roles) if role not in LEFT_OUT)


def _counts(faces: Counter, res: PhotoResult) -> bool:
    return counted_faces(res) == faces


def miss_causes(roles: tuple[str, ...], dets: Detections, true_xyxy: np.ndarray, true_cls: np.ndarray) -> Counter:
    """Tiles of one photo by CAUSES, boxes matched one to one to labels at IoU >= 0.5 as ``xingzi eval`` pairs
    them (a box of the tile's own face first: :func:`metrics.face_pairs`)."""
    truth = ImageBoxes.truth(np.asarray(true_xyxy, np.float64), np.asarray(true_cls))
    match = dict(face_pairs(truth, ImageBoxes.preds(dets.xyxy, dets.cls, dets.conf)))
    out: Counter = Counter()
    for j, c in enumerate(true_cls):
        i = match.get(j)
        if c == IGNORE:
            out["wind_counted"] += int(i is not None and roles[i] not in LEFT_OUT)
        elif i is None:
            out["no_box"] += 1
        elif roles[i] in LEFT_OUT:
            out["left_out"] += 1
        elif int(dets.cls[i]) != int(c):
            out["misread"] += 1
    matched = set(match.values())
    out["extra_counted"] += sum(1 for i, role in enumerate(roles) if role not in LEFT_OUT and i not in matched)
    return +out


def _foreign_by_label(roles: tuple[str, ...], dets: Detections, true_xyxy: np.ndarray, true_cls: np.ndarray) -> dict:
    """How many boxes were left out as foreign, and how many of them cover a labelled wind/flower or face."""
    idx = [i for i, role in enumerate(roles) if role == "foreign"]
    if not idx or not len(true_cls):
        return {"foreign": len(idx)}
    iou = box_iou(dets.xyxy[idx].astype(np.float64), true_xyxy.astype(np.float64))
    best = iou.argmax(axis=1)
    hit = iou[np.arange(len(idx)), best] >= 0.5
    other = hit & (true_cls[best] == IGNORE)
    return {"foreign": len(idx), "foreign_other": int(other.sum()), "foreign_face": int((hit & ~other).sum())}


def _faces(counts: Counter) -> str:
    return " ".join(f"{CLASS_NAMES[k]}×{v}" if v > 1 else CLASS_NAMES[k] for k, v in sorted(counts.items())) or "-"
