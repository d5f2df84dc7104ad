"""``xingzi bench detector``: latency of the detector through PyTorch, OpenVINO and ONNX Runtime on this CPU.

Times the model call alone (letterboxed input) and the whole ``Detector.predict``
(letterbox, model, decode, NMS) over real photos or a synthetic frame, and prints median / p95; the
model calls are also timed back to back, with their CPU time (all threads), which a busy host does not inflate.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import numpy as np


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from xingzi.vision.detector import DEFAULT_ONNX, DEFAULT_WEIGHTS

    parser.add_argument("--weights", type=Path, nargs="+", default=[DEFAULT_ONNX, DEFAULT_WEIGHTS],
                        help="weights to compare (.pt and/or .onnx; .pt files are timed last)")
    parser.add_argument("--images", type=Path, default=None,
                        help="folder of photos (default: ../shared/data/real_cn_val/images if present)")
    parser.add_argument("--n", type=int, default=30, help="timed images per model")
    parser.add_argument("--imgsz", type=int, default=None,
                        help="input size (default: the size the model was made at; a static ONNX uses its own)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")
    parser.add_argument("--no-fit", dest="fit", action="store_false",
                        help="the padded square canvas for every photo, not one fitted to its shape")


def _frames(folder: Path | None, n: int) -> tuple[list[np.ndarray], str, list[Path]]:
    """Up to ``n`` photos of ``folder`` that decode, what they are, and the files passed over that do not."""

    from xingzi.datasets.yolo import IMAGE_SUFFIXES, image_files
    from xingzi.vision.photo import imread_any

    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "real_cn_val" / "images"
    folder = folder or (default if default.is_dir() else None)
    if folder is None:
        rng = np.random.default_rng(0)
        return [rng.integers(0, 255, (640, 640, 3), np.uint8)] * n, "random 640x640 frame", []
    if not folder.is_dir():  # "no images in" a path that is not there read as an empty folder
        raise ValueError(f"--images: expected a folder of photos, got {folder} "
                         f"({'a file' if folder.exists() else 'not there'})")
    paths = image_files(folder)
    if not paths:
        raise ValueError(f"no images ({' '.join(IMAGE_SUFFIXES)}) in {folder}")
    frames: list[np.ndarray] = []
    unreadable: list[Path] = []
    for p in paths:  # a file that does not decode is passed over: the next one takes its place
        if len(frames) == n:
            break
        image = imread_any(p)
        if image is None:
            unreadable.append(p)
        else:
            frames.append(image)
    if not frames:
        raise ValueError(f"none of the {len(unreadable)} image files in {folder} can be read as a photo "
                         f"(e.g. {unreadable[0].name})")
    return frames, f"{len(frames)} photo{'s' if len(frames) > 1 else ''} from {folder}", unreadable


def _check_weights(weights: list[Path], imgsz: int | None, threads: int | None) -> None:
    """What a Detector would refuse, said before the table's head: missing or unknown files, a size it cannot
    take, an .onnx no runtime loads (a .pt is loaded only when its turn comes: torch's threads would slow the rest)."""
    from xingzi.vision.detector import MAX_IMGSZ
    from xingzi.vision.sessions import Session

    if threads is not None and threads < 1:
        raise ValueError(f"--threads must be at least 1, got {threads}")
    if imgsz is not None and (imgsz % 32 or not 32 <= imgsz <= MAX_IMGSZ):
        raise ValueError(f"--imgsz must be a multiple of 32 from 32 to {MAX_IMGSZ}, got {imgsz}")
    for w in map(Path, weights):
        if not w.is_file():
            raise FileNotFoundError(f"detector weights not found: {w}")
        if w.suffix not in (".pt", ".onnx"):
            raise ValueError(f"--weights: expected .pt or .onnx files, got {w}")
        if w.suffix == ".onnx":
            Session(w, 1, "onnxruntime")  # a ValueError naming the file when it is no network


def bench_one(weights: Path, frames: list[np.ndarray], imgsz: int | None, threads: int | None,
              runtime: str = "auto", fit: bool = True) -> dict:
    """Timings of one weights file; an .onnx runs through ``runtime`` (its classifiers and second opinion too)."""
    import os

    from xingzi.vision.canvas import canvas_blob
    from xingzi.vision.detector import Detector

    before = os.environ.get("XINGZI_RUNTIME")
    os.environ["XINGZI_RUNTIME"] = runtime  # the runtime is a process-wide setting (vision/sessions.py)
    try:
        det = Detector(weights, imgsz=imgsz, threads=threads, fit=fit)
    finally:
        if before is None:
            del os.environ["XINGZI_RUNTIME"]
        else:
            os.environ["XINGZI_RUNTIME"] = before
    blobs = [canvas_blob(det.letterboxed(im)[0]) for im in frames]
    for _ in range(3):
        det.backend(blobs[0])
    shapes = Counter(f"{b.shape[2]}x{b.shape[3]}" for b in blobs)
    block_ms, cpu_ms = [], []  # model calls back to back (warm caches); CPU time is not inflated by a busy host
    for b in blobs:
        t0, c0 = time.perf_counter(), time.process_time()
        det.backend(b)
        block_ms.append((time.perf_counter() - t0) * 1e3)
        cpu_ms.append((time.process_time() - c0) * 1e3)
    model_ms, predict_ms = [], []
    for im, b in zip(frames, blobs, strict=True):
        t0 = time.perf_counter()
        det.backend(b)
        model_ms.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        det.predict(im)
        predict_ms.append((time.perf_counter() - t0) * 1e3)
    session = getattr(det.backend, "session", None)
    return {"weights": str(weights), "backend": session.runtime if session is not None else "pytorch",
            "imgsz": det.imgsz, "canvas": shapes.most_common(1)[0][0], "model_median": float(np.median(model_ms)),
            "model_p95": float(np.percentile(model_ms, 95)), "predict_median": float(np.median(predict_ms)),
            "predict_p95": float(np.percentile(predict_ms, 95)), "block_median": float(np.median(block_ms)),
            "cpu_median": float(np.median(cpu_ms))}


def run(args: argparse.Namespace) -> int:
    import os

    if args.n < 1:
        raise ValueError(f"--n must be at least 1, got {args.n}")
    _check_weights(args.weights, args.imgsz, args.threads)  # said before the table's head, not after it
    frames, what, unreadable = _frames(args.images, args.n)
    from xingzi.datasets.yolo import unread_note

    if args.images and (note := unread_note(args.images)):
        print(f"note: {note}")
    if unreadable:
        print(f"note: passed over {len(unreadable)} image file(s) that cannot be read as a photo: "
              f"{', '.join(p.name for p in unreadable[:3])}{' …' if len(unreadable) > 3 else ''}")
    threads = args.threads or os.cpu_count()
    print(f"detector latency on {what}, {threads} threads (ms)")
    print(f"{'runtime':<13}{'canvas':>9}{'model med':>11}{'model p95':>11}{'predict med':>13}{'predict p95':>13}"
          f"{'b2b med':>9}{'cpu med':>9}  weights")
    from xingzi.vision.sessions import chosen_runtime

    onnx_runtimes = list(dict.fromkeys((chosen_runtime("auto"), "onnxruntime")))  # OpenVINO first where it is chosen
    # torch's thread pool, once loaded, keeps taking CPU from the other runtimes in this process: .pt last
    for w in sorted(map(Path, args.weights), key=lambda p: p.suffix == ".pt"):
        for runtime in (["auto"] if w.suffix == ".pt" else onnx_runtimes):
            r = bench_one(w, frames, args.imgsz, threads, runtime, args.fit)
            print(f"{r['backend']:<13}{r['canvas']:>9}{r['model_median']:>11.1f}{r['model_p95']:>11.1f}"
                  f"{r['predict_median']:>13.1f}{r['predict_p95']:>13.1f}{r['block_median']:>9.1f}"
                  f"{r['cpu_median']:>9.1f}  {w}")
    print("canvas: the commonest model input; model: each call after a whole-photo read (predict); b2b: the calls "
          "back to back; cpu: CPU time of one call")
    return 0
