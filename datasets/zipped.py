"""A dataset given as a zip (the page's "save labels", a CVAT or Roboflow export) read like a folder.

A zip made of the dataset's folder (``zip -r set.zip set/``: every member under one top folder) is read as
that folder, its data.yaml included. Only what a YOLO dataset holds is unpacked (images, label ``.txt`` files, ``.yaml`` / ``.names``, ``meta/*.json``), into a
temporary folder removed afterwards; a member that would land outside it or is named twice, or a zip that
unpacks past ``MAX_UNPACKED`` bytes, is refused before anything is written.
"""

from __future__ import annotations

import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from .yolo import IMAGE_SUFFIXES

MAX_UNPACKED = 4 * 1024**3  # bytes: a zip bomb stops here
INNER_FOLDERS = {"images", "labels", "meta"}  # a dataset's own folders: a zip of images/ alone is not wrapped in one
KEPT_SUFFIXES = (*IMAGE_SUFFIXES, ".txt", ".yaml", ".yml", ".names", ".json")  # .json: a sample's truth (meta/)


def is_zip(path: str | Path) -> bool:
    return Path(path).suffix.lower() == ".zip"


def zip_members(z: zipfile.ZipFile, where: str = "zip") -> list[zipfile.ZipInfo]:
    """The members worth unpacking, checked: relative paths inside the zip, a bounded total size."""
    kept, total, seen = [], 0, set[PurePosixPath]()
    for info in z.infolist():
        if info.is_dir():
            continue
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
            raise ValueError(f"{where}: member {info.filename!r} points outside the zip's folder; not unpacked")
        if path.suffix.lower() not in KEPT_SUFFIXES or path.name.startswith("."):
            continue
        if path in seen:  # unpacked, the second copy would silently replace the first
            raise ValueError(f"{where}: expected each member once, got {info.filename!r} twice; not unpacked")
        seen.add(path)
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
        members = zip_members(z, str(p))
        for info in members:
            _extract(z, info, tmp, p)
        top = _wrapping_folder(members)
        yield Path(tmp) if top is None else Path(tmp) / top


def _wrapping_folder(members: list[zipfile.ZipInfo]) -> str | None:
    """The one folder every member lies in, when there is one (the dataset's own folder zipped whole): its
    data.yaml names the classes, and read from the zip's root it would be missed and the ids read as ours."""
    parts = [PurePosixPath(info.filename.replace("\\", "/")).parts for info in members]
    tops = {p[0] for p in parts}
    if len(tops) != 1 or any(len(p) < 2 for p in parts) or tops & INNER_FOLDERS:
        return None
    return tops.pop()


def _extract(z: zipfile.ZipFile, info: zipfile.ZipInfo, folder: str, where: Path) -> None:
    """Unpack one member; a damaged, encrypted or oddly compressed one is bad input, not a crash."""
    info.filename = info.filename.replace("\\", "/")  # a zip written on Windows by an old tool: still folders here
    try:
        z.extract(info, folder)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
        raise ValueError(f"{where}: member {info.filename!r} cannot be unpacked ({e}); expected an undamaged "
                         "zip without a password") from None
