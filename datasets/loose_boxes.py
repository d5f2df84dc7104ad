"""Labelled copies whose boxes are loose: tiles never overlap, but the axis-aligned boxes of a photo turned or
sheared by an augmentation (each source photo of `real_cn_train` comes as 4 such copies) grow round the turned
tiles until they cover their neighbours. Such copies teach the detector boxes 2-5 times a tile's width.

    python -m xingzi.datasets.loose_boxes ../shared/data/real_cn_train [--over 0.3]

A copy's looseness is the median, over its boxes, of each box's largest IoU with another box of the copy (0 for
boxes that only touch). ``loose_copies`` names the copies over a threshold, keeping the tightest copy of every
source photo (copies share the name before ``.rf.``) so that no scene is lost.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from .check import iou_matrix
from .yolo import image_files, read_labels


def looseness(rows: np.ndarray) -> float:
    """Median over the boxes (YOLO rows: class, cx, cy, w, h) of each one's largest IoU with another; 0 below two."""
    if len(rows) < 2:
        return 0.0
    cx, cy, w, h = (rows[:, k].astype(np.float64) for k in (1, 2, 3, 4))
    xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    iou = iou_matrix(xyxy, xyxy)
    np.fill_diagonal(iou, 0.0)
    return float(np.median(iou.max(axis=1)))


def source_of(name: str) -> str:
    """The source photo an augmented copy was made from (Roboflow names copies ``<source>.rf.<hash>``)."""
    return name.split(".rf.", 1)[0]


def copy_looseness(folder: Path) -> dict[str, float]:
    """Each labelled image of a dataset folder (images/, labels/) by name: its looseness."""
    out = {}
    for img in image_files(Path(folder) / "images"):
        label = Path(folder) / "labels" / f"{img.stem}.txt"
        out[img.name] = looseness(read_labels(label)) if label.is_file() else 0.0
    return out


def tightest_copies(scores: dict[str, float]) -> frozenset[str]:
    """The copy of each source photo whose boxes are tightest (ties: the first name)."""
    by_source: dict[str, list[str]] = defaultdict(list)
    for name in scores:
        by_source[source_of(name)].append(name)
    return frozenset(min(names, key=lambda n: (scores[n], n)) for names in by_source.values())


def loose_copies(scores: dict[str, float], over: float) -> frozenset[str]:
    """The copies looser than ``over``, less the tightest copy of each source photo (one copy of every scene stays)."""
    if not 0 < over <= 1:
        raise ValueError(f"--over: expected an IoU in (0, 1], got {over}")
    keep = tightest_copies(scores)
    return frozenset(n for n, score in scores.items() if n not in keep and score > over)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", type=Path, nargs="+", help="YOLO dataset folders (images/, labels/)")
    ap.add_argument("--over", type=float, default=0.3, help="the looseness above which a copy is left out")
    args = ap.parse_args(argv)
    try:
        for folder in args.folders:
            scores = copy_looseness(folder)
            if not scores:
                raise ValueError(f"{folder}/images: no photos")
            values = np.array(list(scores.values()))
            sources = {source_of(n) for n in scores}
            print(f"{folder}: {len(scores)} photos of {len(sources)} sources, median looseness "
                  f"{float(np.median(values)):.3f}")
            for t in (0.2, 0.3, 0.4, 0.5):
                print(f"  looser than {t}: {int((values > t).sum())}")
            left = loose_copies(scores, args.over)
            print(f"  left out at --over {args.over} (the tightest copy of each source kept): {len(left)}")
    except (OSError, ValueError) as e:
        print(f"loose_boxes: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
