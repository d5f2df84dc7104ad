"""How well the tile classifier reads the real dev photos' labelled boxes, tight copies apart from loose ones.

    python -m xingzi.models.tilecls_dev [--classifier models/xingzi_tilecls.onnx] \\
        [--real ../shared/data/real_cn_train] [--over 0.3]

The dev photos are the share of ``real_cn_train`` that ``datasets/tile_crops.py`` keeps out of training (the same
hash of the source photo's name). Each labelled box is cut as at run time and read by the classifier as shipped
(its partners and gate included; no detector, no shifted re-reading). A copy whose boxes cover their neighbours
(``datasets/loose_boxes.py``: median largest IoU over ``--over``) holds two or three tiles in a crop under one
face, so its crops are counted apart: the training log's dev accuracy mixes both.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from xingzi.datasets.errata import shipped_fixer
from xingzi.datasets.loose_boxes import copy_looseness
from xingzi.datasets.tile_crops import class_table, in_dev, labelled_photo, names_of
from xingzi.datasets.yolo import image_files
from xingzi.vision.classifier import CLS_NAMES


class Reader(Protocol):
    def classify(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray: ...


@dataclass
class Tally:
    """Boxes read, boxes read right, and the commonest misreads (true → read) of one group of photos."""

    photos: int = 0
    boxes: int = 0
    right: int = 0
    misreads: Counter = field(default_factory=Counter)

    @property
    def accuracy(self) -> float:
        return self.right / self.boxes if self.boxes else float("nan")

    def to_json(self) -> dict:
        return {"photos": self.photos, "boxes": self.boxes, "right": self.right, "accuracy": self.accuracy,
                "misreads": {f"{a} read as {b}": n for (a, b), n in self.misreads.most_common()}}


def dev_photos(folder: Path, share: float) -> list[Path]:
    """The photos of a real training set whose crops ``tile_crops`` puts in ``dev``."""
    if not 0 < share <= 1:
        raise ValueError(f"dev share: expected a share in (0, 1], got {share}")
    return [p for p in image_files(folder / "images") if in_dev(p, share)]


def tally(folder: Path, reader: Reader, over: float, share: float = 0.08) -> dict[str, Tally]:
    """{"tight": …, "loose": …}: the reader's answers on every labelled box of the dev photos (label errata applied)."""
    if not 0 < over <= 1:
        raise ValueError(f"--over: expected an IoU in (0, 1], got {over}")
    looseness = copy_looseness(folder)
    table, fix = class_table(names_of(folder)), shipped_fixer(folder)
    out = {"tight": Tally(), "loose": Tally()}
    for path in dev_photos(folder, share):
        photo = labelled_photo(path, table, fix)
        if photo is None:
            continue
        image, boxes, truth = photo
        read = np.asarray(reader.classify(image, boxes)).argmax(axis=1)
        group = out["loose" if looseness.get(path.name, 0.0) > over else "tight"]
        group.photos += 1
        group.boxes += len(truth)
        group.right += int((read == truth).sum())
        group.misreads.update((CLS_NAMES[t], CLS_NAMES[r]) for t, r in zip(truth, read, strict=True) if t != r)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--classifier", type=Path, default=None, help="classifier .onnx (default: the shipped one)")
    ap.add_argument("--real", type=Path, default=Path("../shared/data/real_cn_train"))
    ap.add_argument("--over", type=float, default=0.3, help="looseness above which a copy counts as loose")
    ap.add_argument("--dev-share", type=float, default=0.08, help="as given to tile_crops (default 0.08)")
    ap.add_argument("--json", type=Path, default=None, help="also write the tallies here")
    a = ap.parse_args(argv)
    if not (a.real / "images").is_dir():
        raise SystemExit(f"--real: expected a YOLO folder with images/ and labels/, got {a.real}")
    try:
        from xingzi.vision.classifier import TileClassifier

        groups = tally(a.real, TileClassifier(a.classifier), a.over, a.dev_share)
    except (ValueError, FileNotFoundError) as e:
        raise SystemExit(str(e)) from e
    all_boxes = sum(g.boxes for g in groups.values())
    all_right = sum(g.right for g in groups.values())
    for name, g in groups.items():
        common = ", ".join(f"{t} read as {r} ×{n}" for (t, r), n in g.misreads.most_common(5)) or "none"
        print(f"{name:<6} {g.photos:>4} photos {g.boxes:>5} boxes  {g.right:>5} right  accuracy {g.accuracy:.3f}"
              f"  misreads: {common}")
    print(f"all    {all_boxes:>17} boxes  {all_right:>5} right  accuracy {all_right / max(all_boxes, 1):.3f}")
    if a.json:
        a.json.write_text(json.dumps({k: g.to_json() for k, g in groups.items()}, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
