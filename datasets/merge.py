"""Merge YOLO datasets into one (``xingzi dataset merge``): every source's labelled photos under its name as prefix,
classes mapped to ours by name, each photo once (a byte-identical copy skipped and said; one with other boxes
refused), every source read and checked before anything is written."""

from __future__ import annotations

from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from xingzi.datasets.check import (
    data_yaml_extra,
    dataset_pairs,
    parse_label_text,
    read_class_names,
    refuse_other_classes,
    refuse_unreadable,
    same_bytes,
)
from xingzi.datasets.classnames import no_tile_names
from xingzi.datasets.split import class_map_for, place_file, refuse_clash, remap_label_text
from xingzi.datasets.yolo import (
    atomic_write_text,
    data_yaml_text,
    format_labels,
    image_files,
    label_path_for,
    read_text,
)
from xingzi.datasets.zipped import dataset_folder, is_zip

# what a merge writes in data.yaml (key → value, None for any): a data.yaml saying more is not a merge's to rewrite
MERGE_KEYS: dict[str, str | None] = {"path": None, "train": "images", "val": "images", "nc": None, "names": None}


@dataclass(frozen=True)
class MergeReport:
    out: str
    images: int
    dropped_boxes: int
    unlabelled: int
    per_source: tuple[tuple[str, int], ...]
    unmapped_names: tuple[str, ...]
    # (source, how many of its images were skipped as copies of one merged before, the first: "a.jpg as b.jpg")
    copies: tuple[tuple[str, int, str], ...] = ()


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
    without a label file are skipped, and so is an image of the same bytes as one merged before it (from an earlier
    source, or in ``out`` already). Every source is read and checked before anything is written; a file already in
    ``out`` under a planned name must be the same file (a re-run), else it is refused."""
    srcs = [Path(s) for s in sources]
    if not srcs:
        raise ValueError("merge needs at least one dataset folder or zip, got none")
    out_dir = Path(out)
    _check_merge_paths(srcs, out_dir)
    with ExitStack() as stack:
        plans = [_plan_one(stack, given, prefix, out_dir) for given, prefix in zip(srcs, _prefixes(srcs), strict=True)]
        plans = _skip_copies(plans, out_dir)
        for plan in plans:
            for image, label_dst, text, meta in plan.files:
                place_file(image, _image_dst(label_dst, image), link)
                atomic_write_text(label_dst, text)
                if meta is not None:  # a pipeline sample's truth (synth, or a photo saved with its score)
                    place_file(meta, _meta_dst(label_dst), link)
    atomic_write_text(out_dir / "data.yaml", data_yaml_text(out_dir.resolve()))
    unmapped = set().union(*(p.unmapped for p in plans))
    dropped = sum(p.dropped[f[1]] for p in plans for f in p.files)  # a copy skipped drops nothing
    return MergeReport(str(out_dir), sum(len(p.files) for p in plans), dropped, sum(p.unlabelled for p in plans),
                       tuple((str(p.given), len(p.files)) for p in plans), tuple(sorted(unmapped)),
                       tuple((str(p.given), len(p.copies), p.copies[0]) for p in plans if p.copies))


def _check_merge_paths(srcs: list[Path], out_dir: Path) -> None:
    o = out_dir.resolve()
    given: dict[Path, Path] = {}
    for s in srcs:
        if s.exists() and not s.is_dir() and not is_zip(s):  # a label file, a photo, a list given by mistake
            raise ValueError(f"{s} is a file, not a dataset; expected a dataset folder (images/, labels/) or a .zip "
                             "of one")
        if not (s.is_dir() or (is_zip(s) and s.is_file())):
            raise FileNotFoundError(f"dataset folder or zip not found: {s}")
        r = s.resolve()
        if r in given:  # each of its photos would be a copy of one merged already: a slip for another source?
            twice = f"{s} is given twice" if str(s) == str(given[r]) else f"{given[r]} and {s} are one dataset"
            raise ValueError(f"{twice}; expected each dataset once")
        given[r] = s
        if o == r:
            raise ValueError(f"output {out_dir} is also an input; choose a new folder")
        # an output inside an input would be merged again by the next run, under new names
        if s.is_dir() and (o.is_relative_to(r) or r.is_relative_to(o)):
            raise ValueError(f"output {out_dir} overlaps the input {s}; expected a folder outside every input")
    refuse_other_classes(out_dir)
    kept = data_yaml_extra(out_dir / "data.yaml", MERGE_KEYS)
    if kept:  # a split dataset (train: images/train …) or one with a test set: a rewritten data.yaml would lose it
        raise ValueError(f"{out_dir / 'data.yaml'} says more than a merge writes ({', '.join(kept)}); expected a new "
                         "folder or one made by `xingzi dataset merge`")


@dataclass(frozen=True)
class _SourcePlan:
    given: Path
    files: tuple[tuple[Path, Path, str, Path | None], ...]  # (image, label in out, label text, meta or None)
    dropped: dict[Path, int]  # label in out → its boxes of classes we do not have
    unlabelled: int
    unmapped: set[str]
    folder: Path  # ``given``, or where its zip is unpacked
    copies: tuple[str, ...] = ()  # images left out as copies of one merged before: "a.jpg as b.jpg"

    def shown(self, path: Path) -> str:
        """A file of this source as the user knows it: in the zip, not in /tmp."""
        return str(path) if self.folder == self.given else f"{self.given}!/{path.relative_to(self.folder).as_posix()}"


def _image_dst(label_dst: Path, image: Path) -> Path:
    return label_dst.parent.parent / "images" / (label_dst.stem + image.suffix.lower())


def _meta_dst(label_dst: Path) -> Path:
    return label_dst.parent.parent / "meta" / (label_dst.stem + ".json")


def _plan_one(stack: ExitStack, given: Path, prefix: str, out_dir: Path) -> _SourcePlan:
    """What one source puts into ``out_dir``, checked: no two of its images on one name, nothing different
    already there. A zip stays unpacked until ``stack`` closes."""
    src = stack.enter_context(dataset_folder(given))
    try:
        return _plan_folder(given, src, prefix, out_dir)
    except ValueError as e:
        if src == given:
            raise
        raise ValueError(str(e).replace(f"{src}/", f"{given}!/")) from None  # the file in the zip, not in /tmp


def _plan_folder(given: Path, src: Path, prefix: str, out_dir: Path) -> _SourcePlan:
    names = read_class_names(src)
    strange = no_tile_names(names or ())
    if strange:  # their boxes would be dropped, and the tiles under them learnt as table
        raise ValueError(f"{given}: class name(s) {', '.join(map(repr, strange))} are no tile names (nor a wind, flower "
                         "or 'other'); name them as tiles in its data.yaml or classes.txt (5p, 中, back …), or as "
                         "'other' to leave their boxes out")
    cmap = class_map_for(names)
    unmapped = {names[i] for i, v in cmap.items() if v is None} if names else set()
    files: dict[Path, tuple[Path, Path, str, Path | None]] = {}
    dropped: dict[Path, int] = {}
    unlabelled = 0
    pairs = dataset_pairs(src)
    if not pairs:  # a wrong folder, most likely: merging nothing is no success
        raise ValueError(f"{given}: no images found (expected images/*.jpg beside labels/*.txt)")
    for image, label in pairs:
        if not label.exists():
            unlabelled += 1
            continue
        refuse_unreadable(image)  # eval and training stop on it
        text, d = remap_label_text(read_text(label), cmap, str(label))
        label_dst = out_dir / "labels" / f"{prefix}__{image.stem}.txt"
        if label_dst in files:  # train/images/x.jpg and valid/images/x.jpg, or x.jpg and x.png
            raise ValueError(f"{files[label_dst][0]} and {image} would both become {label_dst.stem}; expected "
                             "one image per file name in a source (rename one)")
        meta = src / "meta" / f"{image.stem}.json"
        refuse_clash(_image_dst(label_dst, image), image)
        refuse_clash(label_dst, text=text)
        if meta.is_file():
            refuse_clash(_meta_dst(label_dst), meta)
        files[label_dst] = (image, label_dst, text, meta if meta.is_file() else None)
        dropped[label_dst] = d
    return _SourcePlan(given, tuple(files.values()), dropped, unlabelled, unmapped, src)


def _skip_copies(plans: list[_SourcePlan], out_dir: Path) -> list[_SourcePlan]:
    """``plans`` without the images of the same bytes as one merged before them (in ``out_dir`` already, or an
    earlier one planned): a photo twice in a set would land on both sides of a split. Such a copy with other boxes
    is refused: which labels are right is the user's to say."""
    there = image_files(out_dir / "images") if (out_dir / "images").is_dir() else []
    # a planned image already in out_dir (a re-run) is that file; only the others are compared
    new = [(k, f) for k, p in enumerate(plans) for f in p.files if not _image_dst(f[1], f[0]).exists()]
    skipped: dict[int, dict[Path, str]] = defaultdict(dict)  # plan → label in out → "a.jpg as b.jpg"
    for group in same_bytes([*there, *(f[0] for _, f in new)]):
        first, *later = group  # ascending: what out_dir holds, then in the order given
        if first < len(there):
            kept, kept_shown = there[first], str(there[first])
            label = label_path_for(kept)
            kept_text = read_text(label) if label.is_file() else ""
        else:
            k, (image, label, kept_text, _) = new[first - len(there)]
            kept, kept_shown = _image_dst(label, image), plans[k].shown(image)
        for i in later:
            if i < len(there):
                continue  # both in out_dir already: not this merge's to mend
            k, (image, label, text, _) = new[i - len(there)]
            if _boxes(text) != _boxes(kept_text):
                raise ValueError(f"{plans[k].shown(image)} is the same photo (byte for byte) as {kept_shown} with "
                                 "other boxes; expected one labelling of a photo (remove the copy whose labels are wrong)")
            skipped[k][label] = f"{image.name} as {kept.name}"
    return [replace(p, files=tuple(f for f in p.files if f[1] not in skipped[k]),
                    copies=tuple(skipped[k].values())) for k, p in enumerate(plans)]


def _boxes(text: str) -> list[str]:
    """A label file's boxes as merge writes them, sorted: the same boxes compare equal however written or ordered."""
    rows = np.array([v for _, v in parse_label_text(text)[0]], np.float64).reshape(-1, 5)
    return sorted(format_labels(rows).splitlines())
