"""Reading and writing YOLO-format datasets (``images/``, ``labels/``, ``data.yaml``)."""

from __future__ import annotations

import json
import math
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np

from xingzi.engine.tiles import CLASS_NAMES

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
# photos `xingzi score` and the page read but the dataset tools (OpenCV, Ultralytics) do not: told, never passed
# over silently; `xingzi label` stores HEIC as JPEG
UNREAD_SUFFIXES = (".gif", ".heic", ".heif", ".avif")


def data_yaml_text(root: str | Path = ".", train: str = "images", val: str = "images",
                   names: tuple[str, ...] = CLASS_NAMES) -> str:
    """data.yaml naming ``names`` (default: the 31 class names generated from the tile enum)."""
    lines = [f"path: {_yaml_text(Path(root).as_posix())}", f"train: {_yaml_text(train)}", f"val: {_yaml_text(val)}",
             f"nc: {len(names)}", "names:"]
    lines += [f"  {i}: {n if n in CLASS_NAMES else _yaml_text(n)}" for i, n in enumerate(names)]
    return "\n".join(lines) + "\n"


def _yaml_text(value: str) -> str:
    """``value`` as YAML reads it back: plain when it is, else quoted (JSON strings are YAML too);
    `yes`, `a: b`, `x #1` or `/data/ 2024` would not read back plain."""
    import yaml

    try:
        plain = yaml.safe_load(f"k: {value}") == {"k": value}
    except yaml.YAMLError:
        plain = False
    return value if plain else json.dumps(value, ensure_ascii=False)


def classes_text() -> str:
    """``classes.txt``: the 31 class names, one per line, in class order."""
    return "\n".join(CLASS_NAMES) + "\n"


def parse_label_text(text: str) -> tuple[list[tuple[int, list[float]]], list[tuple[int, str]]]:
    """Rows ``(line number, [cls cx cy w h])`` and malformed lines ``(line number, reason)``.
    Polygon rows are reduced to their bounding box, as Ultralytics does."""
    rows, bad = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            values = [float(v) for v in parts]
        except ValueError:
            bad.append((lineno, f"expected numbers 'cls cx cy w h', got {line.strip()!r}"))
            continue
        if not all(math.isfinite(v) for v in values):
            bad.append((lineno, f"expected finite numbers 'cls cx cy w h', got {line.strip()[:120]!r}"))
            continue
        if len(values) >= 7 and len(values) % 2 == 1:
            xs, ys = np.array(values[1::2]), np.array(values[2::2])
            values = [values[0], (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2,
                      xs.max() - xs.min(), ys.max() - ys.min()]
        elif len(values) != 5:
            bad.append((lineno, f"expected 5 numbers 'cls cx cy w h', got {len(values)}"))
            continue
        rows.append((lineno, values))
    return rows, bad


def box_problem(values: list[float]) -> str | None:
    """Why a label row ``cls cx cy w h`` (normalised) boxes no tile of the photo: no area, or wholly outside the
    photo; None when it may. (A box partly outside is a tile the frame cuts: ``xingzi dataset check`` says where.)"""
    _cls, cx, cy, w, h = values[:5]
    if w <= 0 or h <= 0:
        return f"expected a box of some width and height, got w {w:g} h {h:g}"
    if cx + w / 2 <= 0 or cx - w / 2 >= 1 or cy + h / 2 <= 0 or cy - h / 2 >= 1:
        return f"expected a box on the photo (0..1), got one wholly outside it at cx {cx:g} cy {cy:g}"
    return None


def read_labels(path: str | Path) -> np.ndarray:
    """(N, 5) float array ``cls cx cy w h`` (normalised). Missing file → empty array.

    Polygon rows (more than 5 numbers) are reduced to their bounding box; a malformed line, a class id that is
    no whole number or a box on no part of the photo is an error (ids out of range are the caller's to tell).
    """
    p = Path(path)
    if not p.exists():
        return np.zeros((0, 5), np.float64)
    rows, bad = parse_label_text(read_text(p))
    if bad:
        lineno, why = bad[0]
        raise ValueError(f"{p}:{lineno}: {why}")
    for lineno, values in rows:
        if values[0] != int(values[0]):
            raise ValueError(f"{p}:{lineno}: expected a whole class id, got {values[0]:g}")
        problem = box_problem(values)
        if problem:
            raise ValueError(f"{p}:{lineno}: {problem}")
    return np.array([values for _, values in rows], np.float64).reshape(-1, 5)


def format_labels(rows: np.ndarray) -> str:
    """YOLO lines ``cls cx cy w h`` from (N, 5) rows, or prediction lines ``cls cx cy w h conf`` from (N, 6)."""
    return "".join(f"{int(r[0])} {r[1]:.6f} {r[2]:.6f} {r[3]:.6f} {r[4]:.6f}" + (f" {r[5]:.5f}\n" if len(r) > 5 else "\n")
                   for r in rows)


def read_text(path: str | Path) -> str:
    """A text file of a dataset; bytes that are not UTF-8 are bad input naming the file, not a bare codec error."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: expected UTF-8 text, got byte {e.object[e.start]:#04x} at {e.start}") from None


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write via a temp file and rename, so a crash never leaves a half-written file."""
    atomic_write_bytes(path, text.encode("utf-8"))


# The process's umask, read once at import (setting it to read it is not safe once threads run): a file written
# through a temp file gets the mode an ordinary open() would give it, not mkstemp's private 0600, so a dataset can
# be served by Label Studio running as another user and read by the team.
_UMASK = os.umask(0o022)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """:func:`atomic_write_text` for bytes (an image)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), FILE_MODE)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def xyxy_to_yolo(xyxy: np.ndarray, width: int, height: int) -> np.ndarray:
    """Pixel boxes (N,4) → normalised cx cy w h (N,4)."""
    b = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.stack([(b[:, 0] + b[:, 2]) / 2 / width, (b[:, 1] + b[:, 3]) / 2 / height,
                     (b[:, 2] - b[:, 0]) / width, (b[:, 3] - b[:, 1]) / height], axis=1)


def yolo_to_xyxy(cxcywh: np.ndarray, width: int, height: int) -> np.ndarray:
    """Normalised cx cy w h (N,4) → pixel boxes (N,4)."""
    b = np.asarray(cxcywh, np.float64).reshape(-1, 4)
    return np.stack([(b[:, 0] - b[:, 2] / 2) * width, (b[:, 1] - b[:, 3] / 2) * height,
                     (b[:, 0] + b[:, 2] / 2) * width, (b[:, 1] + b[:, 3] / 2) * height], axis=1)


def image_files(images_dir: str | Path) -> list[Path]:
    d = Path(images_dir)
    return sorted(p for p in d.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)


def unread_images(folder: str | Path) -> list[Path]:
    """Photos under ``folder`` in a format the dataset tools do not read (GIF, HEIC, AVIF), hidden ones aside."""
    d = Path(folder)
    return sorted(p for p in d.rglob("*") if p.suffix.lower() in UNREAD_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(d).parts))


def unread_note(folder: str | Path) -> str:
    """A line naming the photos under ``folder`` these tools pass over (empty when none)."""
    found = unread_images(folder)
    if not found:
        return ""
    kinds = sorted({p.suffix.lower() for p in found})
    return (f"{len(found)} photo(s) under {folder} passed over ({', '.join(kinds)}: not read by the dataset tools), "
            f"e.g. {found[0].name}: save them as JPEG (`xingzi label` stores HEIC photos as JPEG)")


def image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) as the photo is shown, its EXIF turn applied (as OpenCV and Ultralytics read it, and as labels
    are drawn); ValueError naming the file when Pillow cannot open it."""
    from PIL import Image, UnidentifiedImageError  # (only the tools that read images need Pillow)

    try:
        with warnings.catch_warnings():  # only the header is read: no bomb to warn of
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = Image.open(path)
        with im:  # (Pillow's TIFF reader gives the turned size itself)
            turned = im.format != "TIFF" and im.getexif().get(0x0112, 1) in (5, 6, 7, 8)  # width and height swap
            return (im.height, im.width) if turned else (im.width, im.height)
    except UnidentifiedImageError:
        raise ValueError(f"{path}: not a readable image (no format Pillow knows)") from None
    except Image.DecompressionBombError as e:  # twice Pillow's limit: refused even for its header
        raise ValueError(f"{path}: not read, a picture too large to be a photo ({e})") from None
    except OSError as e:  # a JPEG cut inside its header: "Truncated File Read", naming no file
        raise ValueError(f"{path}: not a readable image ({e})") from None


def tiff_turned(path: str | Path) -> bool:
    """A TIFF whose EXIF turns it a quarter: OpenCV (5.1), which the tools read photos with, cannot read one."""
    from PIL import Image

    if Path(path).suffix.lower() not in (".tif", ".tiff"):
        return False
    with Image.open(path) as im:
        return im.getexif().get(0x0112, 1) in (5, 6, 7, 8)


def jpeg_cut_short(path: str | Path) -> bool:
    """A JPEG file that does not end with the end-of-image marker (zero padding aside): cut short in copying or
    uploading, its lower part lost. Only the file's first and last bytes are read: a file that does not start as a
    JPEG (text named .jpg) is none cut short but no image at all."""
    with open(path, "rb") as f:
        if f.read(2) != b"\xff\xd8":
            return False
        f.seek(0, os.SEEK_END)
        f.seek(max(0, f.tell() - 4096))
        tail = f.read()
    return not tail.rstrip(b"\0").endswith(b"\xff\xd9")


def label_path_for(image_path: str | Path) -> Path:
    """YOLO convention: the last ``images`` folder in the path becomes ``labels``, suffix .txt."""
    parts = list(Path(image_path).parts)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            break
    return Path(*parts).with_suffix(".txt")
