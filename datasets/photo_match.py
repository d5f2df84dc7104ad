"""Whether two image files hold the same photo, re-encoded or resized by a labelling tool.

    python -m xingzi.datasets.photo_match ../shared/data/real_cn_train/images ../shared/data/real_cn_val/images

A YOLO export of CVAT or Roboflow carries the images back, often re-compressed, scaled or
stretched to a square. Its normalised labels still fit our original then, but not a different
photo that happens to have the same file name. Both are compared as 32 x 32 grey thumbnails
(the stretch drops out); thresholds measured on the 2,096 real photos of ``../shared/data``
(the command above prints them).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO

import numpy as np

_SIDE = 32
# Mean difference of the thumbnails. Each of the 2,096 photos re-compressed at JPEG quality 30, scaled
# to 320 px wide or stretched to 320 x 320: at most 0.0048; two different photos (2.2 M pairs, bursts
# of one hand among them): at least 0.0172. The threshold sits between, at about their geometric mean.
MAX_MEAN_DIFFERENCE = 0.010


def thumbnail(path: str | Path | BinaryIO) -> np.ndarray:
    """The photo as viewers show it (EXIF turn applied), grey, ``_SIDE`` square, values 0..1."""
    from PIL import Image, ImageOps

    with Image.open(path) as im:
        im.draft("L", (4 * _SIDE, 4 * _SIDE))  # JPEG: decode at a fraction of the size
        small = ImageOps.exif_transpose(im).convert("L").resize((_SIDE, _SIDE), Image.Resampling.BOX)
    return np.asarray(small, np.float64) / 255.0


def same_photo(a: str | Path, b: str | Path) -> bool:
    """True when ``a`` and ``b`` show the same picture; a file that cannot be read is not the same."""
    from PIL import Image

    try:
        ta, tb = thumbnail(a), thumbnail(b)
    except (OSError, ValueError, Image.DecompressionBombError):
        return False
    return float(np.abs(ta - tb).mean()) <= MAX_MEAN_DIFFERENCE


def measure(folders: list[Path], sample: int = 80, seed: int = 0) -> dict[str, float]:
    """The figures the threshold rests on: the smallest difference between two different photos of
    ``folders``, and the largest between a photo and its re-encodings (a ``sample`` of them)."""
    import io
    import random

    from PIL import Image, ImageOps

    paths = sorted(p for f in folders for p in Path(f).iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if len(paths) < 2:
        raise ValueError(f"expected at least two photos in {', '.join(map(str, folders))}, got {len(paths)}")
    thumbs = np.stack([thumbnail(p).ravel() for p in paths])
    different = min(float(np.abs(thumbs[i + 1:] - thumbs[i]).mean(1).min()) for i in range(len(paths) - 1))
    redone = {"quality 30": lambda im: im, "320 px wide": lambda im: im.resize((320, max(1, 320 * im.height // im.width))),
              "320 x 320": lambda im: im.resize((320, 320))}
    worst = dict.fromkeys(redone, 0.0)
    for p in random.Random(seed).sample(paths, min(sample, len(paths))):
        with Image.open(p) as im:
            upright = ImageOps.exif_transpose(im).convert("RGB")
        original = thumbnail(p)
        for name, redo in redone.items():
            buf = io.BytesIO()
            redo(upright).save(buf, "JPEG", quality=30)
            worst[name] = max(worst[name], float(np.abs(original - thumbnail(buf)).mean()))
    return {"photos": len(paths), "different_photos_min": different, **{f"re-encoded {k} max": v for k, v in worst.items()}}


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m xingzi.datasets.photo_match",
                                description="Measure how far apart photos and their re-encodings are.")
    p.add_argument("folders", nargs="+", type=Path, help="folders of photos, e.g. ../shared/data/*/images")
    p.add_argument("--sample", type=int, default=80, help="photos re-encoded (default 80)")
    args = p.parse_args(argv)
    try:
        figures = measure(args.folders, args.sample)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for k, v in figures.items():
        print(f"{k:28s} {v:.4f}" if isinstance(v, float) else f"{k:28s} {v}")
    print(f"threshold                    {MAX_MEAN_DIFFERENCE:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
