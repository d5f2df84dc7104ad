"""``xingzi synth``: synthetic photos of revealed hands as a YOLO dataset, or a preview sheet."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, default=1000, help="number of images (1..100000; default 1000)")
    parser.add_argument("--out", default=None,
                        help="output folder (default synth_data), or the sheet file with --preview")
    parser.add_argument("--seed", type=int, default=0, help="same seed, same bytes (default 0)")
    parser.add_argument("--start", type=int, default=0, help="first image index (to extend a dataset)")
    parser.add_argument("--imgsz", type=int, default=640, help="long side of each photo in pixels (default 640)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--styles", nargs="+", default=None, metavar="STYLE",
                        help="face styles to use (default: procedural and every art pack: those of $XINGZI_ART, else "
                             "../shared/art beside the checkout, else the few vendored in the package); also `brush`, "
                             "the procedural faces with hand-written characters, drawn only when named")
    parser.add_argument("--blur-share", type=float, default=0.0, metavar="P",
                        help="share of photos also blurred as by a shaken phone: half Gaussian (sigma 1-2.5 px per 640 "
                             "px), half a motion streak (5-10 px per 640 px, any angle); default 0: the usual photos, "
                             "the same bytes for a seed as before")
    parser.add_argument("--list-styles", action="store_true", help="print the available face styles and exit")
    parser.add_argument("--preview", action="store_true",
                        help="write a contact sheet with boxes instead of a dataset (default synth_preview.jpg)")
    parser.add_argument("--count", type=int, default=None, help="photos on the preview sheet (default 12)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def run(args: argparse.Namespace) -> int:
    import cv2

    from xingzi.datasets.synth.dataset import MAX_SHEET, contact_sheet, generate_dataset
    from xingzi.datasets.synth.faces import EXTRA_STYLES, shared_art_dir, style_names
    from xingzi.datasets.synth.generate import MAX_SIDE, MIN_SIDE

    if args.list_styles:
        print("\n".join(style_names() + [f"{s} (only when named)" for s in EXTRA_STYLES]))
        return 0
    styles = tuple(args.styles) if args.styles else None
    if args.out is not None and not args.out.strip():  # Path('') is '.', which synth_data stood in for unsaid
        raise ValueError(f"--out must name {'a sheet file' if args.preview else 'a folder'}, got {args.out!r}")
    if args.preview:
        out = Path(args.out or "synth_preview.jpg")
        args.count = 12 if args.count is None else args.count
        if out.suffix.lower() not in (".jpg", ".jpeg", ".png"):
            raise ValueError(f"--out for --preview must be a .jpg or .png file, got {str(out)!r}")
        if not 1 <= args.count <= MAX_SHEET:  # (the sheet's columns are its own)
            raise ValueError(f"--count for --preview must be 1..{MAX_SHEET}, got {args.count}")
        if not MIN_SIDE <= args.imgsz <= MAX_SIDE:  # (the sheet's own words name no option)
            raise ValueError(f"--imgsz must be {MIN_SIDE}..{MAX_SIDE} pixels, got {args.imgsz}")
        sheet = contact_sheet(args.seed, args.count, imgsz=args.imgsz, styles=styles)
        out.parent.mkdir(parents=True, exist_ok=True)
        quality = [cv2.IMWRITE_JPEG_QUALITY, 85] if out.suffix.lower() != ".png" else []  # (a PNG has no quality)
        if out.is_dir() or not cv2.imwrite(str(out), sheet, quality):  # OpenCV only says False
            raise ValueError(f"--out for --preview must be a writable file, got {str(out)!r}")
        print(f"wrote {out} ({args.count} photos)")
        return 0
    if args.count is not None:  # it was read as nothing
        raise ValueError(f"--count is the number of photos on a --preview sheet; a dataset's is --n (got --count "
                         f"{args.count} without --preview)")
    out = Path(args.out or "synth_data")
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out must be a folder, got the file {str(out)!r}")
    if styles is None and shared_art_dir() is None:  # the same seed gives other photos than with every pack
        print(f"note: no art folder found ($XINGZI_ART, or ../shared/art beside the checkout): the faces are drawn in "
              f"the {len(style_names())} styles vendored in the package ({', '.join(style_names())})", file=sys.stderr)
    t0 = time.perf_counter()
    totals: dict[int, int] = {}
    done = 0
    for _, counts in generate_dataset(out, args.n, args.seed, args.imgsz, args.workers, styles, args.start,
                                        args.blur_share):
        done += 1
        for c, k in counts.items():
            totals[c] = totals.get(c, 0) + k
        if not args.quiet and (done % 100 == 0 or done == args.n):
            rate = done / (time.perf_counter() - t0)
            print(f"{done}/{args.n} images, {rate:.1f} images/s", file=sys.stderr, flush=True)
    dt = time.perf_counter() - t0
    print(f"wrote {done} images, {sum(totals.values())} boxes to {out} in {dt:.1f} s "
          f"({done / dt:.1f} images/s); data.yaml at {out / 'data.yaml'}")
    return 0
