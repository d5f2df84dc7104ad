"""A corrected photo saved as training data: the page's "save labels" gives a zip of one YOLO sample.

The zip holds ``images/NAME.jpg`` (the photo as the server read it), ``labels/NAME.txt`` (every tile box
with its face as corrected, the tiles the user added, none of the boxes the user said are no tile, none of
the tiles of no Xingzi face), ``data.yaml`` and ``classes.txt``: unzipped into one folder, any number of them
make a dataset that ``xingzi dataset check`` / ``merge`` and training read (docs/labelling.md). A server started
with ``--collect DIR`` can instead keep the samples itself, in the dataset folder DIR (:class:`SampleStore`).
"""

from __future__ import annotations

import io
import re
import threading
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path

import cv2
import numpy as np

from xingzi.datasets.label import detections_to_label_text
from xingzi.datasets.yolo import atomic_write_bytes, atomic_write_text, data_yaml_text
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group

NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(value: object, default: str = "photo") -> str:
    """A file stem for the sample from the photo's file name: its extension dropped, only letters, digits,
    ``_ . -`` kept (others become ``_``), at most 64 characters."""
    if not isinstance(value, str):
        return default
    stem = value.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem.strip(".") else stem
    stem = NAME_CHARS.sub("_", stem).strip("._")[:64]
    return stem or default


def labelled(det: Detections, removed: Iterable[int], ignored: Iterable[int]) -> Detections:
    """The boxes that are tiles of the game: not removed by the user, not read as a tile of no Xingzi face
    (a face the user picked makes it one). Tiles set aside as not part of the hand are still tiles."""
    gone = set(int(i) for i in removed)
    roles = group(det, tuple(int(i) for i in ignored)).roles
    keep = np.array([i not in gone and roles[i] != "foreign" for i in range(len(det))], bool)
    return det.subset(keep)


def sample_files(image: np.ndarray, det: Detections, removed: Iterable[int], ignored: Iterable[int],
                 name: str) -> dict[str, bytes]:
    """The photo and its label file as one YOLO sample: ``{"images/NAME.jpg": …, "labels/NAME.txt": …}``;
    ``image`` BGR, ``det`` in its pixels."""
    h, w = image.shape[:2]
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise ValueError("the photo could not be encoded as JPEG")
    text = detections_to_label_text(labelled(det, removed, ignored), w, h)
    return {f"images/{name}.jpg": jpeg.tobytes(), f"labels/{name}.txt": text.encode()}


def labels_zip(image: np.ndarray, det: Detections, removed: Iterable[int], ignored: Iterable[int], name: str) -> bytes:
    """The zip of one sample (see the module)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in sample_files(image, det, removed, ignored, name).items():
            z.writestr(path, data)
        z.writestr("data.yaml", data_yaml_text("."))
        z.writestr("classes.txt", "\n".join(CLASS_NAMES) + "\n")
    return buf.getvalue()


class SampleStore:
    """A dataset folder the server adds the page's saved photos to (``xingzi serve --collect DIR``).

    Each held photo keeps one name: saved again after more corrections, its sample is replaced, not
    doubled. A name already in the folder (another photo, an earlier run) gets ``_2``, ``_3``… Files are
    written whole or not at all; ``data.yaml`` and ``classes.txt`` are written when missing."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise ValueError(f"--collect expects a folder, got the file {self.root}")
        self._names: dict[str, str] = {}  # held photo's token → its sample name
        self._lock = threading.Lock()

    def save(self, token: str, name: str, make: Callable[[str], dict[str, bytes]]) -> tuple[str, int]:
        """Store the sample ``make(stored name)`` gives (:func:`sample_files`); ``name`` is the one asked for.
        Returns the name the sample got and how many photos the folder now holds."""
        with self._lock:
            stored = self._names.get(token) or self._free_name(name)
            for path, data in make(stored).items():
                atomic_write_bytes(self.root / path, data)
            self._names[token] = stored
            if not (self.root / "data.yaml").exists():
                atomic_write_text(self.root / "data.yaml", data_yaml_text(self.root.resolve()))
            if not (self.root / "classes.txt").exists():
                atomic_write_text(self.root / "classes.txt", "\n".join(CLASS_NAMES) + "\n")
            return stored, self.count()

    def count(self) -> int:
        return sum(1 for _ in (self.root / "labels").glob("*.txt")) if (self.root / "labels").is_dir() else 0

    def _free_name(self, name: str) -> str:
        taken = set(self._names.values()) | {p.stem for p in (self.root / "images").glob("*")}
        candidate, n = name, 1
        while candidate in taken:
            n += 1
            candidate = f"{name}_{n}"
        return candidate
