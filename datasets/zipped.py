"""A dataset given as a zip (the page's "save labels", a CVAT or Roboflow export) read like a folder.

Only what a YOLO dataset holds is unpacked (images, label ``.txt`` files, ``.yaml`` / ``.names``, ``meta/*.json``), into a
temporary folder removed afterwards; a member that would land outside it, or a zip that unpacks past
``MAX_UNPACKED`` bytes, is refused before anything is written.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from .yolo import IMAGE_SUFFIXES

MAX_UNPACKED = 4 * 1024**3  # bytes: a zip bomb stops here
KEPT_SUFFIXES = (*IMAGE_SUFFIXES, ".txt", ".yaml", ".yml", ".names", ".json")  # .json: a sample's truth (meta/)


def is_zip(path: str | Path) -> bool:
    return Path(path).suffix.lower() == ".zip"


def zip_members(z: zipfile.ZipFile, where: str = "zip") -> list[zipfile.ZipInfo]:
    """The members worth unpacking, checked: relative paths inside the zip, a bounded total size."""
    kept, total = [], 0
    for info in z.infolist():
        if info.is_dir():
            continue
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
            raise ValueError(f"{where}: member {info.filename!r} points outside the zip's folder; not unpacked")
        if path.suffix.lower() not in KEPT_SUFFIXES or path.name.startswith("."):
            continue
        total += info.file_size
        if total > MAX_UNPACKED:
            raise ValueError(f"{where}: unpacks to more than {MAX_UNPACKED / 1024**3:.0f} GB; not unpacked")
        kept.append(info)
    return kept


@contextmanager
def dataset_folder(path: str | Path) -> Iterator[Path]:
    """The dataset at ``path`` as a folder: a folder as it is, a ``.zip`` unpacked for the ``with`` block."""
    p = Path(path)
    if not is_zip(p):
        yield p
        return
    if not p.is_file():
        raise FileNotFoundError(f"dataset zip not found: {p}")
    try:
        z = zipfile.ZipFile(p)
    except zipfile.BadZipFile:
        raise ValueError(f"{p}: not a zip file (or a damaged one)") from None
    with z, tempfile.TemporaryDirectory(prefix="xingzi-zip-") as tmp:
        for info in zip_members(z, str(p)):
            z.extract(info, tmp)
        yield Path(tmp)
