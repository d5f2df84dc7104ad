"""Writing a synthetic YOLO dataset (images/, labels/, meta/, data.yaml) and the preview sheet."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import cv2
import numpy as np

from xingzi.datasets.yolo import (
    atomic_write_bytes,
    atomic_write_text,
    data_yaml_text,
    format_labels,
    xyxy_to_yolo,
)
from xingzi.engine.tiles import CLASS_NAMES

from . import faces
from .generate import MAX_SIDE, MIN_SIDE, Sample, check_styles, render_sample
from .runs import RUNS_FILE, earlier_runs, refuse_other_settings, refuse_unlisted_photos, stem

MAX_SHEET = 256  # photos on a contact sheet: 320 px cells, about 80 MB of pixels
# photos in one run: 100,000 at 640 px are about 6 GB and hours of CPU; a number past it is most likely a slip
# (a digit too many), which would fill the disk (a larger set is made in several runs, by --start)
MAX_PHOTOS = 100_000


def label_text(sample: Sample) -> str:
    yolo = xyxy_to_yolo(sample.boxes, sample.width, sample.height)
    rows = np.column_stack([sample.classes.astype(np.float64), yolo]) if len(yolo) else np.zeros((0, 5))
    return format_labels(rows)


def write_sample(out: Path, name: str, sample: Sample) -> None:
    atomic_write_bytes(out / "images" / f"{name}.jpg", sample.jpeg)  # (its temp file removed whatever stops it)
    atomic_write_text(out / "labels" / f"{name}.txt", label_text(sample))
    atomic_write_text(out / "meta" / f"{name}.json", json.dumps(sample.meta, ensure_ascii=False, indent=1) + "\n")


def _init_worker() -> None:
    cv2.setNumThreads(1)  # the processes already use the cores; OpenCV's own threads would fight them
    # Ctrl-C reaches the whole process group: the parent alone stops (and ends the pool), no worker prints its
    # traceback; a worker ended by the pool (SIGTERM) leaves as by an exception, removing the photo it was writing
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_worker)


def _stop_worker(signum: int, _frame: object) -> NoReturn:
    raise SystemExit(128 + signum)


def _job(args: tuple) -> tuple[int, dict[int, int]]:
    out, seed, index, imgsz, styles, blur_share = args
    sample = render_sample(seed, index, imgsz, styles, blur_share=blur_share)
    write_sample(Path(out), stem(seed, index), sample)
    return index, {int(c): int((sample.classes == c).sum()) for c in np.unique(sample.classes)}


def warm_faces(styles: tuple[str, ...]) -> None:
    """Build the face textures of ``styles`` now (they are cached per process)."""
    for style in styles:
        if style in ("procedural", "brush"):
            for k in range(faces.PROCEDURAL_VARIANTS):
                faces.face_set(style, k)
        else:
            faces.load_pack(style)


def generate_dataset(out: str | Path, n: int, seed: int = 0, imgsz: int = 640, workers: int = 1,
                     styles: tuple[str, ...] | None = None, start: int = 0,
                     blur_share: float = 0.0) -> Iterator[tuple[int, dict]]:
    """Write images ``start .. start+n-1``; yields (index, per-class counts) as each is done.
    ``blur_share``: the share of photos blurred more (``photo.camera_effects``; 0: the usual photos)."""
    if not 1 <= n <= MAX_PHOTOS:
        raise ValueError(f"--n must be 1..{MAX_PHOTOS} photos (more in several runs, with --start), got {n}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    cpus = os.cpu_count() or 1
    if workers > 4 * cpus:  # each is a process with its own copy of the faces: thousands would swamp the machine
        raise ValueError(f"--workers must be at most {4 * cpus} ({cpus} cores here), got {workers}")
    if seed < 0 or start < 0:
        raise ValueError(f"--seed and --start must be >= 0, got {seed} and {start}")
    if not MIN_SIDE <= imgsz <= MAX_SIDE:
        raise ValueError(f"--imgsz must be {MIN_SIDE}..{MAX_SIDE} pixels (a phone photo's long side is about 4,000), "
                         f"got {imgsz}")
    if not 0 <= blur_share <= 1:
        raise ValueError(f"--blur-share must be between 0 and 1, got {blur_share}")
    styles = check_styles(styles)
    out = Path(out)
    # (they read YAML: imported only when a dataset is written)
    from xingzi.datasets.check import data_yaml_extra, refuse_other_classes
    from xingzi.datasets.merge import MERGE_KEYS

    refuse_other_classes(out)  # more photos go into one of our datasets only
    kept = data_yaml_extra(out / "data.yaml", MERGE_KEYS)
    if kept:  # split in place (train: train.txt …) or a test set: the data.yaml we write would lose it
        raise ValueError(f"{out / 'data.yaml'} says more than synth writes ({', '.join(kept)}); expected a new folder "
                         "or one made by `xingzi synth` (write the photos to a new folder, then `xingzi dataset merge` the two)")
    run = {"seed": seed, "start": start, "n": n, "imgsz": imgsz, "styles": list(styles), "blur_share": blur_share}
    earlier = earlier_runs(out)
    refuse_other_settings(out, run, earlier)
    refuse_unlisted_photos(out, run, earlier)
    out.mkdir(parents=True, exist_ok=True)
    if run not in earlier:  # before the photos: an interrupted run is resumed with the same settings
        with open(out / RUNS_FILE, "a", encoding="utf-8") as f:
            f.write(json.dumps(run) + "\n")
    atomic_write_text(out / "data.yaml", data_yaml_text(out.resolve()))
    # made as needed: a list of a billion jobs would fill the memory before the first photo
    jobs = ((str(out), seed, i, imgsz, styles, blur_share) for i in range(start, start + n))
    if workers == 1:
        yield from map(_job, jobs)
        return
    # spawned (not forked) workers: a fork after OpenCV has started its thread pool can hang
    ctx = mp.get_context("spawn")
    with ctx.Pool(min(workers, n), initializer=_init_worker) as pool:
        yield from pool.imap_unordered(_job, jobs, chunksize=4)


def decode(sample: Sample) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(sample.jpeg, np.uint8), cv2.IMREAD_COLOR)
    if img is None:  # pragma: no cover - the bytes come from cv2.imencode
        raise ValueError("generated JPEG does not decode")
    return img


def draw_boxes(sample: Sample) -> np.ndarray:
    img = decode(sample)
    for (x1, y1, x2, y2), c in zip(sample.boxes, sample.classes, strict=True):
        colour = (0, 0, 255) if c != len(CLASS_NAMES) - 1 else (255, 160, 0)
        cv2.rectangle(img, (int(x1), int(y1)), (int(x2), int(y2)), colour, 1, cv2.LINE_AA)
        cv2.putText(img, CLASS_NAMES[int(c)], (int(x1) + 1, int(y1) + 9), cv2.FONT_HERSHEY_SIMPLEX, 0.3,
                    (255, 255, 255), 1, cv2.LINE_AA)
    return img


def contact_sheet(seed: int = 0, count: int = 12, cols: int = 4, cell: int = 320, imgsz: int = 640,
                  styles: tuple[str, ...] | None = None, boxes: bool = True) -> np.ndarray:
    """A grid of generated photos (with their boxes and class names when ``boxes``)."""
    if not 1 <= count <= MAX_SHEET or cols < 1:
        raise ValueError(f"a contact sheet needs count 1..{MAX_SHEET} and cols >= 1, got {count} and {cols}")
    rows = -(-count // cols)
    sheet = np.full((rows * cell, cols * cell, 3), 24, np.uint8)
    for i in range(count):
        sample = render_sample(seed, i, imgsz, check_styles(styles))
        img = draw_boxes(sample) if boxes else decode(sample)
        s = cell / max(img.shape[:2])
        img = cv2.resize(img, (int(img.shape[1] * s), int(img.shape[0] * s)), interpolation=cv2.INTER_AREA)
        r, c = divmod(i, cols)
        y, x = r * cell + (cell - img.shape[0]) // 2, c * cell + (cell - img.shape[1]) // 2
        sheet[y:y + img.shape[0], x:x + img.shape[1]] = img
    return sheet
