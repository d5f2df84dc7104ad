"""Where the misread-发 rule fires on labelled photos, and what each tile it counts as 发 really is.

``vision/bonusfa.py`` counts a tile the detector read as another face as a bonus 发 when 发 is among its likeliest
faces and it lies with the bonus 发 (or alone beside a hand with none). A wrong firing adds a 炮 the hand does not
hold, so the rule is checked on every labelled photo, not only the hands the pipeline bench takes (13-18 tiles):
each photo is read as ``xingzi score`` reads it, and each tile the rule counted is matched to the labelled box it
overlaps most (IoU at least 0.5): labelled 发 (right), another face (wrong), a tile whose face the labels do not
give (a wind or flower, or one an erratum marks unread), or no labelled box.

    python -m tools.fa_firings --data ../shared/data/real_cn_val --data ../shared/data/real_cn_train --errata auto
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from xingzi.datasets.errata import errata_for, without_unusable
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.bonusfa import FA_CLASS
from xingzi.vision.detections import Detections
from xingzi.vision.eval_data import load_dataset, name_table, truths_for
from xingzi.vision.grouping import HandReading
from xingzi.vision.metrics import box_iou

KINDS = ("fa", "other_face", "no_face_given", "no_label")


def rule_counted(det: Detections, reading: HandReading) -> list[int]:
    """The boxes ``reading`` counts as bonus 发 though the detector read them as another face (the misread-发 rule:
    ``det`` is the detector's reading the grouping started from, box for box)."""
    return [i for i in range(len(det)) if reading.roles[i] == "fa" and int(det.cls[i]) != FA_CLASS]


def label_kind(box: np.ndarray, true_xyxy: np.ndarray, true_cls: np.ndarray) -> tuple[str, int | None]:
    """What the labelled box under ``box`` is (one of KINDS), and its class where it names a face."""
    if not len(true_cls):
        return "no_label", None
    iou = box_iou(box, true_xyxy)[0]
    best = int(iou.argmax())
    if iou[best] < 0.5:
        return "no_label", None
    cls = int(true_cls[best])
    if cls < 0:  # a wind or flower (IGNORE), or a tile whose face an erratum does not give (UNREAD)
        return "no_face_given", None
    return ("fa" if cls == FA_CLASS else "other_face"), cls


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.fa_firings", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", action="append", required=True, type=Path,
                   help="a labelled YOLO folder (images/, labels/) or data.yaml (repeatable)")
    p.add_argument("--errata", default="none", help="label corrections: none, auto (those shipped for the folder), "
                   "or a file")
    p.add_argument("--every", type=int, default=1, help="read every Nth photo (1: all)")
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    if args.every < 1:
        raise ValueError(f"--every must be 1 or more, got {args.every}")
    from xingzi.vision.photo import load_image  # the detector and photos only where the tool runs
    from xingzi.vision.pipeline import detect_hand, make_detector

    detector = make_detector(None, None)
    tally: Counter = Counter()
    firings = []
    for data in args.data:
        ds = load_dataset(data)
        fixes = errata_for(args.errata, data, ds.images)
        ds = without_unusable(ds, fixes) if fixes else ds
        truths, sizes = truths_for(ds, name_table(ds.names), fixes)
        for k in range(0, len(ds.images), args.every):
            path, truth, (w, _) = ds.images[k], truths[k], sizes[k]
            image = load_image(path)
            det, reading = detect_hand(detector, image)
            tally["photos"] += 1
            true_xyxy = truth.xyxy * (image.shape[1] / w)
            for i in rule_counted(det, reading):
                kind, cls = label_kind(reading.detections.xyxy[i], true_xyxy, truth.cls)
                tally[kind] += 1
                firings.append({"photo": str(path), "tile": i, "read": CLASS_NAMES[int(det.cls[i])], "label": kind,
                                "labelled": None if cls is None else CLASS_NAMES[cls]})
    fired = sum(tally[k] for k in KINDS)
    print(f"{tally['photos']} photos read; the misread-发 rule counted {fired} tile(s) as 发:")
    for kind in KINDS:
        print(f"  {kind:14s} {tally[kind]:4d}")
    for f in firings:
        print(f"  {f['photo']}: tile #{f['tile']} read {f['read']}, labelled {f['labelled'] or f['label']}")
    if args.json_out:
        args.json_out.write_text(json.dumps({"photos": tally["photos"], **{k: tally[k] for k in KINDS},
                                             "firings": firings}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except (ValueError, OSError) as e:  # a folder or errata file that is not what was expected: say so, no traceback
        print(f"fa_firings: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
