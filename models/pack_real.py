"""Pack the real_cn photos small enough to travel to a lent GPU machine (64 MiB per call).

The photos are noisy 640x640 JPEGs that JPEG re-encoding does not shrink; WebP at quality 70
takes about 25 KB each (1,800 train ~ 43 MiB); every third val photo
(99, ~6 MiB) is enough to pick the best epoch. Labels are remapped like the training
view (`other` rows dropped). The pack lives in an ignored folder (``.devdata/``), never in git.

    python -m xingzi.models.pack_real --out .devdata
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image

from xingzi.datasets.errata import shipped_fixer, training_images
from xingzi.datasets.yolo import atomic_write_text, format_labels, read_labels
from xingzi.models.train import SHARED_DATA, remap_real_labels

QUALITY = {"train": 70, "val": 80}


def pack_split(src: Path, dst: Path, quality: int, every: int = 1, loose_over: float | None = None) -> int:
    """Write every ``every``-th of ``src``'s images as WebP, with remapped labels, under ``dst`` (``loose_over``:
    without the augmented copies whose boxes are looser, datasets/loose_boxes)."""
    images = training_images(src, loose_over)[::every]  # less photos whose labels cannot be mended (datasets/errata)
    if not images:
        raise FileNotFoundError(f"no images under {src / 'images'}")
    (dst / "images").mkdir(parents=True, exist_ok=True)
    (dst / "labels").mkdir(parents=True, exist_ok=True)
    kept = {img.stem for img in images}
    for old in list((dst / "images").glob("*.webp")):  # packed before with other photos left out
        if old.stem not in kept:
            old.unlink()
            (dst / "labels" / f"{old.stem}.txt").unlink(missing_ok=True)
    fixed = shipped_fixer(src)  # known label errors corrected (datasets/errata)
    for img in images:
        out = dst / "images" / f"{img.stem}.webp"
        if not out.is_file():
            with Image.open(img) as im:
                im.convert("RGB").save(out, "WEBP", quality=quality, method=4)
        rows = remap_real_labels(fixed(img.name, read_labels(src / "labels" / f"{img.stem}.txt")))
        atomic_write_text(dst / "labels" / f"{img.stem}.txt", format_labels(rows))
    return len(images)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=SHARED_DATA)
    ap.add_argument("--out", type=Path, default=Path(".devdata"))
    ap.add_argument("--val-every", type=int, default=3, help="keep every N-th val photo (size limit)")
    ap.add_argument("--tar", action="store_true", help="also write OUT/real.tar.gz (what travels)")
    ap.add_argument("--leave-loose", type=float, default=None, metavar="IOU",
                    help="leave out the training copies whose boxes overlap at a median IoU over this (as xingzi train)")
    args = ap.parse_args(argv)
    if args.leave_loose is not None and not 0 < args.leave_loose <= 1:
        ap.error(f"--leave-loose: expected an IoU in (0, 1], got {args.leave_loose}")
    for split, quality in QUALITY.items():
        every = args.val_every if split == "val" else 1
        loose = args.leave_loose if split == "train" else None
        n = pack_split(args.shared / f"real_cn_{split}", args.out / split, quality, every, loose)
        size = sum(p.stat().st_size for p in (args.out / split).rglob("*") if p.is_file())
        print(f"{split}: {n} images, {size / 2**20:.1f} MiB")
    if args.tar:  # one file per split: the transfer counts disk blocks, and 2,000 label files waste them
        import tarfile

        packed = args.out / "real.tar.gz"
        with tarfile.open(packed, "w:gz", compresslevel=1) as tar:
            for split in QUALITY:
                tar.add(args.out / split, arcname=split)
        print(f"{packed}: {packed.stat().st_size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
