"""Merge YOLO datasets and split one by source photo (``xingzi dataset merge`` / ``split``).

Versions of one photo (Roboflow's augmented copies ``NAME_jpg.rf.HASH``, our ``NAME__aug3``) share a
source key; a split puts all of them on the same side, so validation never sees a twin of a
training photo.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xingzi.datasets.check import dataset_pairs, parse_label_text, read_class_names
from xingzi.datasets.yolo import atomic_write_text, data_yaml_text, format_labels
from xingzi.datasets.zipped import dataset_folder, is_zip
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, Tile

# Marks a version of a photo rather than a photo: ``__aug<N>`` copies (Roboflow's ``.rf.`` is split off first).
_VERSION_SUFFIX = re.compile(r"__aug\d+$")


def source_key(stem: str) -> str:
    """The source photo a file name comes from: ``a_jpg.rf.3f2e`` → ``a_jpg``."""
    if ".rf." in stem:
        return stem.split(".rf.")[0]
    return _VERSION_SUFFIX.sub("", stem)


def class_id_for_name(name: str) -> int | None:
    """Our class id for a class name in another dataset's list (any spelling Tile.parse accepts,
    or ``back``); None when the name is not one of ours (e.g. winds)."""
    if name.strip().lower() in ("back", "背面", "tile_back", "facedown", "face_down"):
        return BACK_CLASS
    try:
        return Tile.parse(name).index
    except ValueError:
        return None


def class_map_for(names: tuple[str, ...] | None) -> dict[int, int | None]:
    """Source class id → our class id (None: drop). No names declared: ids are taken as ours."""
    if names is None:
        return {i: i for i in range(len(CLASS_NAMES))}
    return {i: class_id_for_name(n) for i, n in enumerate(names)}


def remap_label_text(text: str, class_map: dict[int, int | None], where: str = "") -> tuple[str, int]:
    """Label text with classes mapped to ours; rows of dropped classes removed. Returns the new text
    and how many rows were dropped. Malformed lines are an error: fix them before merging."""
    rows, bad = parse_label_text(text)
    if bad:
        n, why = bad[0]
        raise ValueError(f"{where}:{n}: {why} (run `xingzi dataset check` first)")
    kept, dropped = [], 0
    for lineno, (c, *box) in rows:
        if int(c) not in class_map:
            raise ValueError(f"{where}:{lineno}: class {c:g} is not in the dataset's class list (0..{len(class_map) - 1})")
        ours = class_map[int(c)]
        if ours is None:
            dropped += 1
        else:
            kept.append([ours, *box])
    return format_labels(np.array(kept, np.float64).reshape(-1, 5)), dropped


def place_file(src: Path, dst: Path, link: bool = False) -> None:
    """Copy (or hard-link) ``src`` to ``dst`` atomically; an existing ``dst`` is left alone."""
    if dst.exists():
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    if link:
        try:
            os.link(src, dst)
            return
        except OSError:
            pass  # other filesystem: fall back to copying
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class MergeReport:
    out: str
    images: int
    dropped_boxes: int
    unlabelled: int
    per_source: tuple[tuple[str, int], ...]
    unmapped_names: tuple[str, ...]


def _prefixes(sources: list[Path]) -> list[str]:
    names: list[str] = []
    seen: dict[str, int] = defaultdict(int)
    for s in sources:
        base = (s.stem if is_zip(s) else s.resolve().name) or "data"
        seen[base] += 1
        names.append(base if seen[base] == 1 else f"{base}{seen[base]}")
    return names


def merge_datasets(sources: list[str | Path], out: str | Path, link: bool = False) -> MergeReport:
    """Copy every labelled image of ``sources`` (folders, or zips such as the page's saved labels) into
    ``out/images`` + ``out/labels`` with our class ids (mapped by name when a source declares its own
    list). File names get the source's name as prefix so that two sources cannot collide. Images
    without a label file are skipped."""
    srcs = [Path(s) for s in sources]
    if not srcs:
        raise ValueError("merge needs at least one dataset folder or zip, got none")
    out_dir = Path(out)
    for s in srcs:
        if s.resolve() == out_dir.resolve():
            raise ValueError(f"output {out_dir} is also an input; choose a new folder")
        if not (s.is_dir() or (is_zip(s) and s.is_file())):
            raise FileNotFoundError(f"dataset folder or zip not found: {s}")
    total = dropped = unlabelled = 0
    per_source, unmapped = [], set()
    for given, prefix in zip(srcs, _prefixes(srcs), strict=True):
        with dataset_folder(given) as src:
            n, d, u, gone = _merge_one(src, prefix, out_dir, link)
        per_source.append((str(given), n))
        total, dropped, unlabelled = total + n, dropped + d, unlabelled + u
        unmapped |= gone
    atomic_write_text(out_dir / "data.yaml", data_yaml_text(out_dir.resolve()))
    return MergeReport(str(out_dir), total, dropped, unlabelled, tuple(per_source), tuple(sorted(unmapped)))


def _merge_one(src: Path, prefix: str, out_dir: Path, link: bool) -> tuple[int, int, int, set[str]]:
    """One source into ``out_dir``: (images, boxes dropped, images without labels, class names not ours)."""
    names = read_class_names(src)
    cmap = class_map_for(names)
    unmapped = {names[i] for i, v in cmap.items() if v is None} if names else set()
    n = dropped = unlabelled = 0
    for image, label in dataset_pairs(src):
        if not label.exists():
            unlabelled += 1
            continue
        text, d = remap_label_text(label.read_text(), cmap, str(label))
        name = f"{prefix}__{image.stem}"
        place_file(image, out_dir / "images" / (name + image.suffix.lower()), link)
        atomic_write_text(out_dir / "labels" / (name + ".txt"), text)
        meta = src / "meta" / f"{image.stem}.json"  # a pipeline sample's truth (synth, or a photo saved with its score)
        if meta.is_file():
            place_file(meta, out_dir / "meta" / (name + ".json"), link)
        dropped += d
        n += 1
    return n, dropped, unlabelled, unmapped


@dataclass(frozen=True)
class SplitReport:
    root: str
    train: tuple[str, ...]  # image paths relative to root
    val: tuple[str, ...]
    groups_train: int
    groups_val: int


def plan_split(stems: list[str], val: float, seed: int) -> tuple[set[str], set[str]]:
    """(train stems, val stems): whole source groups go to val, in a seeded random order, until the
    val share of images reaches ``val``. Same input and seed → same split."""
    if not 0 < val < 1:
        raise ValueError(f"--val must be a fraction between 0 and 1, got {val}")
    groups: dict[str, list[str]] = defaultdict(list)
    for s in stems:
        groups[source_key(s)].append(s)
    keys = sorted(groups)
    if len(keys) < 2:
        raise ValueError(f"need at least two source photos to split, got {len(keys)}")
    random.Random(seed).shuffle(keys)
    target = val * len(stems)
    val_stems: set[str] = set()
    for k in keys[:-1]:  # the last group always stays in train
        if len(val_stems) >= target:
            break
        val_stems.update(groups[k])
    return set(stems) - val_stems, val_stems


def split_dataset(root: str | Path, val: float = 0.15, seed: int = 0, out: str | Path | None = None,
                  link: bool = False) -> SplitReport:
    """Split the labelled images of ``root`` into train/val by source photo.

    Without ``out`` nothing is moved: ``train.txt`` / ``val.txt`` list the images and ``data.yaml``
    points at them (Ultralytics reads such lists). With ``out`` the images and labels are copied
    into ``out/images/{train,val}`` and ``out/labels/{train,val}``.
    """
    r = Path(root)
    pairs = [(i, lab) for i, lab in dataset_pairs(r) if lab.exists()]
    by_stem: dict[str, tuple[Path, Path]] = {}
    for image, label in pairs:
        if image.stem in by_stem:
            raise ValueError(f"two images share the name {image.stem!r}: {by_stem[image.stem][0]} and {image}")
        by_stem[image.stem] = (image, label)
    train, val_set = plan_split(sorted(by_stem), val, seed)
    groups_val = len({source_key(s) for s in val_set})
    groups_train = len({source_key(s) for s in train})
    if out is None:
        lists = {}
        for part, stems in (("train", train), ("val", val_set)):
            rel = sorted(by_stem[s][0].relative_to(r).as_posix() for s in stems)
            atomic_write_text(r / f"{part}.txt", "".join(f"./{p}\n" for p in rel))
            lists[part] = tuple(rel)
        atomic_write_text(r / "data.yaml", data_yaml_text(r.resolve(), "train.txt", "val.txt"))
        return SplitReport(str(r), lists["train"], lists["val"], groups_train, groups_val)
    o = Path(out)
    lists = {}
    for part, stems in (("train", train), ("val", val_set)):
        rel = []
        for s in sorted(stems):
            image, label = by_stem[s]
            place_file(image, o / "images" / part / image.name, link)
            atomic_write_text(o / "labels" / part / (s + ".txt"), label.read_text())
            rel.append(f"images/{part}/{image.name}")
        lists[part] = tuple(rel)
    atomic_write_text(o / "data.yaml", data_yaml_text(o.resolve(), "images/train", "images/val"))
    return SplitReport(str(o), lists["train"], lists["val"], groups_train, groups_val)
