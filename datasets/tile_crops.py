"""Tile crops for the second-stage classifier, cut from YOLO-labelled photos.

Each labelled box gives ``copies`` crops: the box is first moved and resized a little (the detector's
boxes are never exact), then cut as the classifier will see it at run time
(:func:`xingzi.vision.classifier.crop_tiles`), then blurred / JPEG-compressed / shrunk at random.
No flips ever (a mirrored 萬 is not a tile); quarter turns and colour jitter happen during training.

    python -m xingzi.datasets.tile_crops --out data/tilecls --seed 0 \\
        --real ../shared/data/real_cn_train --synth data/synth_s1 --synth-images 1500

writes ``OUT/{train,dev}_x.npy`` (N,64,64,3 uint8 BGR), ``_y.npy`` (N, classifier class ids) and
``crops.json`` (the settings and counts). ``dev`` holds every crop of a held-out share of the real
source photos (Roboflow exports four variants of each photo: they stay on one side of the split).
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from xingzi.datasets.errata import shipped_fixer, training_images
from xingzi.datasets.yolo import image_files, label_path_for, read_labels, yolo_to_xyxy
from xingzi.vision.classifier import CLS_NAMES, CONTEXT, CROP_SIZE, OTHER_CLASS, check_crop_size, crop_tiles
from xingzi.vision.photo import imread_any

REAL_NAMES = (*CLS_NAMES[:30], "other")  # real_cn_*: 30 faces, then winds/flowers


@dataclass(frozen=True)
class Jitter:
    """Random changes applied when cutting one crop (all shares of the box's longer side)."""

    shift: float = 0.06  # std of the centre shift
    scale: float = 0.08  # std of log width/height change
    blur: float = 0.3  # chance of a Gaussian blur
    jpeg: float = 0.4  # chance of a JPEG round trip, quality 30..90
    shrink: float = 0.25  # chance of a down-and-up scale (a tile seen at 16-40 px)


def jitter_boxes(boxes: np.ndarray, rng: np.random.Generator, jit: Jitter) -> np.ndarray:
    """(N,4) xyxy → the same boxes with random centre shifts and size changes."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    wh = boxes[:, 2:] - boxes[:, :2]
    side = wh.max(axis=1, keepdims=True)
    centre = (boxes[:, :2] + boxes[:, 2:]) / 2 + rng.normal(0, jit.shift, (len(boxes), 2)) * side
    wh = wh * np.exp(rng.normal(0, jit.scale, (len(boxes), 2)))
    return np.concatenate([centre - wh / 2, centre + wh / 2], axis=1)


def degrade(crop: np.ndarray, rng: np.random.Generator, jit: Jitter) -> np.ndarray:
    """Blur, shrink or JPEG-compress one uint8 crop at random; same shape out."""
    size = crop.shape[0]
    if rng.random() < jit.shrink:
        small = int(rng.integers(16, 41))
        crop = cv2.resize(cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA), (size, size),
                          interpolation=cv2.INTER_LINEAR)
    if rng.random() < jit.blur:
        crop = cv2.GaussianBlur(crop, (0, 0), float(rng.uniform(0.4, 1.2)))
    if rng.random() < jit.jpeg:
        ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 91))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            crop = decoded
    return crop


def class_table(names: list[str]) -> np.ndarray:
    """Their class id → classifier class id, by the evaluator's name table (riichi aliases too);
    tiles not in a Xingzi set (``other``, winds, flowers) → OTHER_CLASS; ValueError for an unknown name."""
    from xingzi.vision.eval_data import our_class
    from xingzi.vision.metrics import IGNORE

    return np.array([OTHER_CLASS if (c := our_class(n)) == IGNORE else c for n in names], np.int64)


def photo_group(path: Path) -> str:
    """Roboflow names variants '<photo>_jpg.rf.<hash>.jpg': the part before '.rf.' names the photo."""
    return path.name.split(".rf.")[0]


def in_dev(path: Path, share: float) -> bool:
    """Whether a real photo's crops go to ``dev``: a stable hash of its source photo's name, so the split
    depends on neither the seed nor the order, and a photo's variants fall together."""
    return (zlib.crc32(photo_group(path).encode()) % 1000) < share * 1000


def labelled_photo(image_path: Path, table: np.ndarray, fix: Callable[[str, np.ndarray], np.ndarray] | None = None,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """A labelled photo as (BGR image, pixel xyxy boxes, class ids through ``table``), its label errata applied
    (``fix``); None when it labels no tile."""
    rows = read_labels(label_path_for(image_path))
    rows = fix(image_path.name, rows) if fix else rows
    if not len(rows):
        return None
    image = imread_any(image_path)
    if image is None:
        raise ValueError(f"cannot read image {image_path}")
    h, w = image.shape[:2]
    return image, yolo_to_xyxy(rows[:, 1:5], w, h), table[rows[:, 0].astype(np.int64)]


def crops_of(image_path: Path, table: np.ndarray, copies: int, rng: np.random.Generator, jit: Jitter,
             size: int = CROP_SIZE, context: float = CONTEXT,
             fix: Callable[[str, np.ndarray], np.ndarray] | None = None) -> Iterator[tuple[np.ndarray, int]]:
    """(crop, class) pairs of one labelled photo; the first copy of each box is cut without jitter.
    ``fix``: label errata for the photo's dataset (:func:`xingzi.datasets.errata.shipped_fixer`)."""
    photo = labelled_photo(image_path, table, fix)
    if photo is None:
        return
    image, boxes, cls = photo
    for k in range(copies):
        b = boxes if k == 0 else jitter_boxes(boxes, rng, jit)
        for crop, c in zip(crop_tiles(image, b, size, context), cls, strict=True):
            yield (crop if k == 0 else degrade(crop, rng, jit)), int(c)


def names_of(folder: Path) -> list[str]:
    """Class names of a YOLO folder: its data.yaml's ``names``, else classes.txt (in it or its parent)."""
    from xingzi.vision.eval_data import load_dataset

    yaml_path = folder / "data.yaml"
    return load_dataset(yaml_path if yaml_path.is_file() else folder).names


@dataclass(frozen=True)
class CropConfig:
    real: str | None
    synth: str | None
    out: str
    seed: int = 0
    real_copies: int = 3
    synth_copies: int = 1
    synth_images: int = 1500
    dev_share: float = 0.08
    size: int = CROP_SIZE
    context: float = CONTEXT
    leave_loose: float | None = None  # real copies whose boxes cover their neighbours left out (datasets/loose_boxes)


def build(cfg: CropConfig, jit: Jitter = Jitter()) -> dict:
    rng = np.random.default_rng(cfg.seed)
    parts: dict[str, tuple[list[np.ndarray], list[int]]] = {"train": ([], []), "dev": ([], [])}
    sources = []
    if cfg.real:
        real = Path(cfg.real)
        sources.append((real, training_images(real, cfg.leave_loose), cfg.real_copies, True))
    if cfg.synth:
        synth = Path(cfg.synth)
        images = image_files(synth / "images")
        pick = np.sort(rng.permutation(len(images))[: cfg.synth_images])
        sources.append((synth, [images[i] for i in pick], cfg.synth_copies, False))
    for root, images, copies, split_dev in sources:
        table, fix = class_table(names_of(root)), shipped_fixer(root)
        for p in images:
            dev = split_dev and in_dev(p, cfg.dev_share)
            xs, ys = parts["dev" if dev else "train"]
            for crop, c in crops_of(p, table, 1 if dev else copies, rng, jit, cfg.size, cfg.context, fix):
                xs.append(crop)
                ys.append(c)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split, (xs, ys) in parts.items():
        x = np.stack(xs) if xs else np.zeros((0, cfg.size, cfg.size, 3), np.uint8)
        y = np.array(ys, np.int64)
        np.save(out / f"{split}_x.npy", x)
        np.save(out / f"{split}_y.npy", y)
        counts[split] = {"crops": len(y), "per_class": np.bincount(y, minlength=len(CLS_NAMES)).tolist()}
    info = {"config": asdict(cfg), "jitter": asdict(jit), "classes": list(CLS_NAMES), "counts": counts}
    (out / "crops.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--real", default=None, help="YOLO folder of real photos (classes.txt: 30 faces + other)")
    ap.add_argument("--synth", default=None, help="synthetic YOLO folder with data.yaml (30 faces + back)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real-copies", type=int, default=3)
    ap.add_argument("--synth-copies", type=int, default=1)
    ap.add_argument("--synth-images", type=int, default=1500)
    ap.add_argument("--dev-share", type=float, default=0.08)
    ap.add_argument("--size", type=int, default=CROP_SIZE, help="crop side in pixels (a multiple of 16, at least 64)")
    ap.add_argument("--shift", type=float, default=Jitter.shift,
                    help="std of the centre shift of jittered copies, share of the box's longer side (detector boxes "
                         "sit a few pixels off the tile)")
    ap.add_argument("--leave-loose", type=float, default=None, metavar="IOU",
                    help="leave out the real copies whose boxes overlap at a median IoU over this (their crops hold "
                         "several tiles; the tightest copy of each photo stays; as xingzi train --leave-loose)")
    a = ap.parse_args(argv)
    if not 0 <= a.shift < 0.5:
        raise SystemExit(f"--shift must be in [0, 0.5), got {a.shift}")
    try:
        check_crop_size(a.size)
    except ValueError as e:
        raise SystemExit(f"--size: {e}") from None
    if not a.real and not a.synth:
        raise SystemExit("give --real and/or --synth")
    if a.leave_loose is not None and not 0 < a.leave_loose <= 1:
        raise SystemExit(f"--leave-loose: expected an IoU in (0, 1], got {a.leave_loose}")
    info = build(CropConfig(a.real, a.synth, a.out, a.seed, a.real_copies, a.synth_copies, a.synth_images,
                            a.dev_share, a.size, leave_loose=a.leave_loose), Jitter(shift=a.shift))
    print(json.dumps(info["counts"]["train"]["crops"]), "train crops,", info["counts"]["dev"]["crops"], "dev crops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
