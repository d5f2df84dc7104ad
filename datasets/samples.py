"""One corrected photo as a YOLO training sample, and a dataset folder that gathers such samples.

A sample is the photo as read (JPEG) and its label file: every tile box with its face as corrected, the
tiles the user added, none of the boxes the user said are no tile, none of the tiles of no Xingzi face.
With it may go its truth as a pipeline sample (``meta/NAME.json``, ``vision/sample_meta.py``). The page hands it
over as a zip (``xingzi/web/labels.py``); ``xingzi serve --collect DIR`` and ``xingzi score PHOTO --labels DIR`` keep
it in a dataset folder (:class:`SampleStore`).
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from xingzi.datasets.check import data_yaml_extra, refuse_other_classes
from xingzi.datasets.label import detections_to_label_text
from xingzi.datasets.labelstudio import BACKUP_DIR
from xingzi.datasets.yolo import atomic_write_bytes, atomic_write_text, classes_text, data_yaml_text
from xingzi.vision.detections import Detections

NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
JPEG_QUALITY = 95
SAMPLE_FILES = (("images", ".jpg"), ("labels", ".txt"), ("meta", ".json"))  # a sample's files: folder, extension


def safe_name(value: object, default: str = "photo") -> str:
    """A file stem for the sample from the photo's file name: its extension dropped, only letters, digits,
    ``_ . -`` kept (others become ``_``), at most 64 characters."""
    if not isinstance(value, str):
        return default
    stem = value.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem.strip(".") else stem
    stem = NAME_CHARS.sub("_", stem).strip("._")[:64]
    return stem or default


def labelled_indices(roles: Sequence[str], removed: Iterable[int]) -> list[int]:
    """The boxes a sample's label file holds, in its order, given each box's role in the reading: the tiles of the
    game — not those the user said are no tile, nor those read as a tile of no Xingzi face (a face the user picked
    makes it one). Tiles set aside as not part of the hand are still tiles."""
    gone = {int(i) for i in removed}
    return [i for i, role in enumerate(roles) if i not in gone and role != "foreign"]


def encode_sample(image: np.ndarray, det: Detections, keep: Sequence[int]) -> tuple[bytes, str]:
    """(JPEG of ``image``, YOLO label text of the boxes ``keep`` names, :func:`labelled_indices`) of one sample;
    ``image`` BGR, ``det`` in its pixels."""
    h, w = image.shape[:2]
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("the photo could not be encoded as JPEG")
    mask = np.zeros(len(det), bool)
    mask[list(keep)] = True
    return jpeg.tobytes(), detections_to_label_text(det.subset(mask), w, h)


def meta_text(meta: dict) -> str:
    return json.dumps(meta, ensure_ascii=False, indent=1) + "\n"


@dataclass(frozen=True)
class Saved:
    name: str  # the sample's file stem in the folder
    photos: int  # samples the folder holds now
    replaced: bool  # the same photo was there already: its labels were replaced
    backup: str = ""  # where the labels it had are kept (labels_backup/NAME.<UTC time>.txt), when they differed


class SampleStore:
    """A dataset folder (``images/``, ``labels/``, ``data.yaml``, ``classes.txt``) that samples are added to.

    A photo already in the folder (the same JPEG, under any name) gets its labels replaced: saved again after more
    corrections, or under another name, it is not doubled; labels replaced by others are kept in ``labels_backup/``.
    Another photo of a name already taken gets the first free ``_N``. Files are written whole or not at all."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise ValueError(f"expected a dataset folder, got the file {self.root}")
        refuse_other_classes(self.root)
        elsewhere = {k: v for k, v in data_yaml_extra(self.root / "data.yaml", {"train": "images", "val": "images"}).items()
                     if k in ("train", "val")}
        if elsewhere:  # a split dataset (train: images/train …): a sample put in images/ would never be trained on
            said = ", ".join(f"{k}: {v}" for k, v in elsewhere.items())
            raise ValueError(f"{self.root / 'data.yaml'} reads its photos elsewhere ({said}) than images/, where a "
                             "sample goes; expected a new folder or one of samples (split it afterwards)")
        self._lock = threading.Lock()

    def save(self, name: str, jpeg: bytes, label_text: str, meta: dict | None = None,
             source: str | Path | None = None) -> Saved:
        """Add (or replace) a sample; ``meta``: its truth as a pipeline sample (``meta/NAME.json``; an older one
        of the same photo is removed when there is none now); ``source``: the file the photo was read from (one of
        this folder's own photos is that sample, whose bytes a new JPEG never matches)."""
        with self._lock:
            if not (self.root / "data.yaml").exists():  # first: a sample is not left without them on a full disk
                atomic_write_text(self.root / "data.yaml", data_yaml_text(self.root.resolve()))
            if not (self.root / "classes.txt").exists():
                atomic_write_text(self.root / "classes.txt", classes_text())
            stored, replaced = self._own(source) or self._place(name, jpeg)
            image, labels, meta_path = (self.root / d / f"{stored}{ext}" for d, ext in SAMPLE_FILES)
            backup = self._back_up(labels, label_text)
            try:
                if not replaced:
                    atomic_write_bytes(image, jpeg)
                atomic_write_text(labels, label_text)
                if meta is not None:
                    atomic_write_text(meta_path, meta_text(meta))
                else:
                    meta_path.unlink(missing_ok=True)
            except BaseException:  # (a full disk) a new sample is kept whole or not at all: its photo without its
                if not replaced:  # labels would train as a photo of no tiles
                    for path in (image, labels, meta_path):
                        with contextlib.suppress(OSError):
                            path.unlink(missing_ok=True)
                raise
            return Saved(stored, self.count(), replaced, str(backup) if backup else "")

    def _back_up(self, labels: Path, text: str) -> Path | None:
        """A copy of the label file about to be replaced by other labels (corrected by hand since it was saved, perhaps),
        as `xingzi label --overwrite` keeps one: ``labels_backup/NAME.<UTC time>.txt``."""
        if not labels.is_file() or labels.read_bytes() == text.encode("utf-8"):
            return None
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = self.root / BACKUP_DIR / f"{labels.stem}.{stamp}.txt"
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(labels, backup)
        return backup

    def count(self) -> int:
        labels = self.root / "labels"
        return sum(1 for _ in labels.glob("*.txt")) if labels.is_dir() else 0

    def _own(self, source: str | Path | None) -> tuple[str, bool] | None:
        """(its name, True) when ``source`` is one of this folder's own photos: labelled again from the set's copy."""
        if source is None:
            return None
        path = Path(source).resolve()
        images = (self.root / "images").resolve()
        if path.parent == images and path.suffix == ".jpg" and path.is_file():
            return path.stem, True
        return None

    def _place(self, name: str, jpeg: bytes) -> tuple[str, bool]:
        """(the name for the photo, whether it is there already). The same photo is known by its bytes under whatever
        name it was saved (a phone names one photo IMG_0001.jpg, then image.jpg): a second sample of it would train
        twice and split to both sides. The folder is listed once and a photo's bytes read only where its size
        matches."""
        folder = self.root / "images"
        stems = set()
        for path in folder.iterdir() if folder.is_dir() else ():
            stems.add(path.stem)
            if path.suffix == ".jpg" and path.stat().st_size == len(jpeg) and path.read_bytes() == jpeg:
                return path.stem, True
        n = 1
        while (candidate := name if n == 1 else f"{name}_{n}") in stems:
            n += 1
        return candidate, False
