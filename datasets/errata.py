"""Label errata: corrections to a dataset we may read but not commit (``datasets/errata/<folder>.toml``).

A photo's fix names every label line twice: ``was``, the class each line has in the file as shipped (a
fingerprint: if the file no longer reads so, the fix is refused rather than applied to other boxes), and
``now``, what each line should be (``-`` drops it: a tile labelled twice). Classes are the dataset's own
names (``classes.txt`` / ``data.yaml``), so ``other`` stays ``other`` in sets that have it. ``add`` gives
tiles nobody labelled, one ``"name cx cy w h"`` line each (normalised, as in a YOLO label file): a face, or
``unread`` for a tile whose face the labels do not give (tiles lying about behind the hand): scored as
neither a hit nor a miss, and never trained on. An ``[[unusable]]`` table (``image``, ``why``) names a photo whose
labels no line-by-line fix can mend (an augmented copy whose boxes lost the tiles, or were all dropped): it is left
out of training and of scoring.

``xingzi eval --errata auto`` scores against the corrected labels; ``xingzi bench pipeline --errata auto``
counts a real hand's tiles against them; training (the CPU view, the GPU pack, the classifier's crops) always
reads them. Excluding photos instead (``without_images``) keeps for the record
what ``--exclude`` did before errata existed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xingzi.datasets.yolo import image_files

if TYPE_CHECKING:
    from xingzi.vision.eval_data import Dataset

ERRATA_DIR = Path(__file__).resolve().parent / "errata"
DROP = "-"
UNREAD = "unread"  # in ``add``: a tile is there, its face is not given
UNREAD_ID = -2  # its class id in the rows a fix returns (vision.metrics.UNREAD: not IGNORE's -1, a wind)
KEYS = {"image", "was", "now", "why"}


@dataclass(frozen=True)
class PhotoFix:
    image: str  # file name of the photo
    was: tuple[str, ...]  # class of each label line as shipped, in file order
    now: tuple[str, ...]  # what each line should be; DROP removes it
    why: str
    add: tuple[tuple[str, float, float, float, float], ...] = ()  # tiles nobody labelled: name cx cy w h

    @property
    def changed(self) -> int:
        return sum(a != b and b != DROP for a, b in zip(self.was, self.now, strict=True))

    @property
    def dropped(self) -> int:
        return self.now.count(DROP)

    @property
    def unread(self) -> int:
        return sum(a[0] == UNREAD for a in self.add)


@dataclass(frozen=True)
class Unusable:
    image: str
    why: str


@dataclass(frozen=True)
class Errata:
    path: Path
    photos: tuple[PhotoFix, ...]
    unusable: tuple[Unusable, ...] = ()

    @property
    def left_out(self) -> frozenset[str]:
        return frozenset(u.image for u in self.unusable)

    @property
    def images(self) -> tuple[str, ...]:
        """Every photo the errata name, fixed or left out."""
        return tuple(f.image for f in self.photos) + tuple(u.image for u in self.unusable)

    def fix_for(self, image_name: str) -> PhotoFix | None:
        return next((f for f in self.photos if f.image == image_name), None)

    def summary(self) -> str:
        changed = sum(f.changed for f in self.photos)
        dropped = sum(f.dropped for f in self.photos)
        added = sum(len(f.add) for f in self.photos)
        unread = sum(f.unread for f in self.photos)
        more = f", {added} added ({unread} of them tiles whose face is not given)" if added else ""
        more += f"; {len(self.unusable)} photos left out (labels unusable)" if self.unusable else ""
        return (f"labels corrected by {self.path.name}: {len(self.photos)} photos, {changed} boxes relabelled, "
                f"{dropped} dropped{more}")


def _classes(text: object, where: str) -> tuple[str, ...]:
    if not isinstance(text, str) or not text.split():
        raise ValueError(f"{where}: expected a string of class names separated by spaces, got {text!r}")
    return tuple(text.split())


def _added(lines: object, where: str) -> tuple[tuple[str, float, float, float, float], ...]:
    if not isinstance(lines, list) or not lines or not all(isinstance(x, str) for x in lines):
        raise ValueError(f"{where}: expected a list of strings 'name cx cy w h', got {lines!r}")
    out = []
    for line in lines:
        parts = line.split()
        try:
            cx, cy, w, h = (float(v) for v in parts[1:])
        except ValueError:
            raise ValueError(f"{where}: expected 'name cx cy w h' (four numbers), got {line!r}") from None
        if len(parts) != 5 or parts[0] == DROP:
            raise ValueError(f"{where}: expected 'name cx cy w h' (four numbers), got {line!r}")
        slack = 0.01  # the model's boxes may reach a hair past the frame
        if not (0 < w <= 1 and 0 < h <= 1 and abs(cx - 0.5) + w / 2 <= 0.5 + slack
                and abs(cy - 0.5) + h / 2 <= 0.5 + slack):
            raise ValueError(f"{where}: the box of {line!r} must lie inside the photo (0..1)")
        out.append((parts[0], cx, cy, w, h))
    return tuple(out)


def load_errata(path: str | Path) -> Errata:
    """Read and check an errata file; ValueError says which photo and what is wrong."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"errata file not found: {p}")
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{p}: not valid TOML ({e})") from e
    entries, unusable_entries = data.get("photo", []), data.get("unusable", [])
    if not isinstance(entries, list) or not isinstance(unusable_entries, list) or not (entries or unusable_entries):
        raise ValueError(f"{p}: expected [[photo]] tables with image, was, now and why (or [[unusable]] with image, why)")
    photos, seen = [], set()
    for k, entry in enumerate(entries, 1):
        where = f"{p.name}, photo {k}"
        if not isinstance(entry, dict) or not KEYS <= set(entry) <= KEYS | {"add"}:
            raise ValueError(f"{where}: expected the keys image, was, now, why (and add); got {sorted(entry)}")
        image = str(entry["image"])
        was, now = _classes(entry["was"], f"{where} 'was'"), _classes(entry["now"], f"{where} 'now'")
        if len(was) != len(now):
            raise ValueError(f"{where} ({image}): 'was' has {len(was)} label lines, 'now' {len(now)}: one class per line")
        if DROP in was:
            raise ValueError(f"{where} ({image}): 'was' lists the file as shipped; '{DROP}' only belongs in 'now'")
        if image in seen:
            raise ValueError(f"{where}: {image} is fixed twice")
        seen.add(image)
        add = _added(entry["add"], f"{where} ({image}) 'add'") if "add" in entry else ()
        photos.append(PhotoFix(image, was, now, str(entry["why"]), add))
    unusable = []
    for k, entry in enumerate(unusable_entries, 1):
        if not isinstance(entry, dict) or set(entry) != {"image", "why"}:
            raise ValueError(f"{p.name}, unusable {k}: expected the keys image, why; got {sorted(entry)}")
        image = str(entry["image"])
        if image in seen:
            raise ValueError(f"{p.name}, unusable {k}: {image} is fixed or left out twice")
        seen.add(image)
        unusable.append(Unusable(image, str(entry["why"])))
    return Errata(p, tuple(photos), tuple(unusable))


def errata_path(spec: str, data: Path) -> Path | None:
    """``--errata`` → file: 'none' → None; 'auto' → datasets/errata/<dataset folder>.toml (must exist)."""
    if spec == "none":
        return None
    if spec != "auto":
        return Path(spec)
    folder = data if data.is_dir() else data.parent
    path = ERRATA_DIR / f"{folder.name}.toml"
    if not path.is_file():
        known = sorted(q.stem for q in ERRATA_DIR.glob("*.toml"))
        raise ValueError(f"--errata auto: no {path.name} in datasets/errata for {folder} (there are: {known})")
    return path


def errata_for(spec: str, data: Path, images: Sequence[Path]) -> Errata | None:
    """The errata ``--errata SPEC`` names for the dataset at ``data``, checked to fix only photos it holds."""
    path = errata_path(spec, Path(data))
    if path is None:
        return None
    errata = load_errata(path)
    check_covers(errata, images)
    return errata


def check_covers(errata: Errata, images: Sequence[Path]) -> None:
    """Every fixed photo must be in the dataset: a fix for a photo not read would pass silently."""
    names = {p.name for p in images}
    missing = [name for name in errata.images if name not in names]
    if missing:
        raise ValueError(f"{errata.path.name} fixes {len(missing)} photos not in this dataset, e.g. {missing[0]}")


def fix_rows(rows: np.ndarray, fix: PhotoFix, names: Sequence[str]) -> np.ndarray:
    """Label rows ``cls cx cy w h`` (the dataset's class ids) as corrected by ``fix``; its added tiles follow,
    ``UNREAD_ID`` for those whose face is not given."""
    rows = np.asarray(rows, np.float64).reshape(-1, 5)
    ids = {n: i for i, n in enumerate(names)}
    shipped = tuple(names[int(c)] if 0 <= int(c) < len(names) else str(int(c)) for c in rows[:, 0])
    if shipped != fix.was:
        raise ValueError(f"{fix.image}: the labels read {' '.join(shipped) or '(none)'}, but the erratum was written "
                         f"for {' '.join(fix.was)}: the label file changed; check the photo again")
    unknown = sorted({n for n in fix.now if n != DROP and n not in ids} | {a[0] for a in fix.add if a[0] != UNREAD
                                                                          and a[0] not in ids})
    if unknown:
        raise ValueError(f"{fix.image}: classes {unknown} are not among the dataset's names {list(names)}")
    keep = np.array([n != DROP for n in fix.now], bool)
    out = rows[keep].copy()
    out[:, 0] = [ids[n] for n in fix.now if n != DROP]
    added = np.array([(ids.get(n, UNREAD_ID), *box) for n, *box in fix.add], np.float64).reshape(-1, 5)
    return np.vstack([out, added])


def fix_parsed(rows: list[tuple[int, list[float]]], fix: PhotoFix, names: Sequence[str],
               ) -> list[tuple[int | None, list[float]]]:
    """Parsed label lines ``(line number, [cls cx cy w h])`` as corrected, each kept line with its own number
    (``None`` for the tiles the fix adds)."""
    fixed = fix_rows(np.array([v for _, v in rows], np.float64), fix, names)
    kept: list[int | None] = [n for (n, _), now in zip(rows, fix.now, strict=True) if now != DROP]
    return list(zip(kept + [None] * len(fix.add), fixed.tolist(), strict=True))


def row_fixer(errata: Errata | None, names: Sequence[str]) -> Callable[[str, np.ndarray], np.ndarray]:
    """(image name, rows) → rows with that photo's fix applied (unchanged for photos with none)."""
    def fixed(image_name: str, rows: np.ndarray) -> np.ndarray:
        fix = errata.fix_for(image_name) if errata else None
        return rows if fix is None else fix_rows(rows, fix, names)

    return fixed


def training_rows(fixer: Callable[[str, np.ndarray], np.ndarray]) -> Callable[[str, np.ndarray], np.ndarray]:
    """The fixer less the tiles whose face is not given: nothing to learn a face from."""
    def fixed(image_name: str, rows: np.ndarray) -> np.ndarray:
        out = fixer(image_name, rows)
        return out[out[:, 0] != UNREAD_ID] if len(out) else out

    return fixed


def shipped_errata(folder: Path) -> Errata | None:
    """The errata shipped for a dataset folder (datasets/errata/<folder name>.toml), if they fix its photos."""
    path = ERRATA_DIR / f"{Path(folder).name}.toml"
    errata = load_errata(path) if path.is_file() else None
    here = {p.name for p in (Path(folder) / "images").glob("*")}
    if errata is None or not any(name in here for name in errata.images):
        return None  # none, or another set of the same name
    return errata


def training_images(folder: Path, loose_over: float | None = None) -> list[Path]:
    """A dataset folder's photos less those its shipped errata leave out (labels that cannot be mended), and with
    ``loose_over`` the augmented copies whose boxes are looser than that (:mod:`xingzi.datasets.loose_boxes`; the
    tightest copy of each source photo stays)."""
    errata = shipped_errata(folder)
    unusable = set(errata.left_out if errata else ())
    if loose_over is not None:
        from .loose_boxes import copy_looseness, loose_copies

        unusable |= loose_copies(copy_looseness(Path(folder)), loose_over)
    return [img for img in image_files(Path(folder) / "images") if img.name not in unusable]


def shipped_fixer(folder: Path) -> Callable[[str, np.ndarray], np.ndarray]:
    """For training on a dataset folder: the fixes shipped for it (datasets/errata/<folder name>.toml) as a row
    fixer, or one that changes nothing. Training always reads the corrected labels (added faces included,
    unread tiles left out)."""
    errata = shipped_errata(folder)
    if errata is None:
        return row_fixer(None, ())
    from xingzi.datasets.check import read_class_names

    names = read_class_names(folder)
    if names is None:
        raise ValueError(f"{folder}: errata {errata.path.name} need the dataset's class names (classes.txt or data.yaml)")
    return training_rows(row_fixer(errata, names))


def without_images(ds: Dataset, patterns: Sequence[str]) -> Dataset:
    """``ds`` less the images whose file name matches a glob (e.g. photos with known label errors).

    A pattern that matches nothing is an error: a typo must not pass as a clean measurement.
    """
    from xingzi.vision.eval_data import Dataset

    for pattern in patterns:
        if not any(fnmatch(img.name, pattern) for img in ds.images):
            raise ValueError(f"--exclude {pattern!r} matches no image of {ds.root}")
    kept = [img for img in ds.images if not any(fnmatch(img.name, p) for p in patterns)]
    return Dataset(kept, ds.names, ds.root)


def without_unusable(ds: Dataset, errata: Errata) -> Dataset:
    """``ds`` less the photos the errata leave out (labels unusable)."""
    from xingzi.vision.eval_data import Dataset

    return Dataset([img for img in ds.images if img.name not in errata.left_out], ds.names, ds.root)
