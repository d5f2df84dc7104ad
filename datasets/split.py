"""Split a YOLO dataset by source photo (``xingzi dataset split``), and the label and file steps a merge
(datasets/merge.py) shares with it.

Versions of one photo (Roboflow's augmented copies ``NAME_jpg.rf.HASH``, our ``NAME__aug3``) share a
source key, and so do byte-identical copies under other names; a split puts all of them on the same side, so
validation never sees a twin of a training photo.
"""

from __future__ import annotations

import filecmp
import os
import random
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xingzi.datasets.check import (
    data_yaml_extra,
    dataset_pairs,
    parse_label_text,
    read_class_names,
    refuse_unreadable,
    same_bytes,
)
from xingzi.datasets.classnames import class_id_for_name
from xingzi.datasets.yolo import (
    FILE_MODE,
    atomic_write_text,
    box_problem,
    data_yaml_text,
    format_labels,
    image_files,
    read_text,
)
from xingzi.engine.tiles import CLASS_NAMES

# Marks a version of a photo rather than a photo: ``__aug<N>`` copies (Roboflow's ``.rf.`` is split off first).
_VERSION_SUFFIX = re.compile(r"__aug\d+$")


def source_key(stem: str) -> str:
    """The source photo a file name comes from: ``a_jpg.rf.3f2e`` → ``a_jpg``."""
    if ".rf." in stem:
        return stem.split(".rf.")[0]
    return _VERSION_SUFFIX.sub("", stem)


def class_map_for(names: tuple[str, ...] | None) -> dict[int, int | None]:
    """Source class id → our class id (None: drop). No names declared: ids are taken as ours."""
    if names is None:
        return {i: i for i in range(len(CLASS_NAMES))}
    return {i: class_id_for_name(n) for i, n in enumerate(names)}


def remap_label_text(text: str, class_map: dict[int, int | None], where: str = "") -> tuple[str, int]:
    """Label text with classes mapped to ours; rows of dropped classes removed. Returns the new text
    and how many rows were dropped. Malformed lines, classes not in the list and boxes of no tile (no area, or
    wholly off the photo) are an error: fix them before merging."""
    rows, bad = parse_label_text(text)
    if bad:
        n, why = bad[0]
        raise ValueError(f"{where}:{n}: {why} (run `xingzi dataset check` first)")
    kept, dropped = [], 0
    for lineno, (c, *box) in rows:
        if c != int(c) or int(c) not in class_map:  # 1.5 is no class: int() would quietly make it 1
            raise ValueError(f"{where}:{lineno}: class {c:g} is not in the dataset's class list (0..{len(class_map) - 1})")
        problem = box_problem([c, *box])
        if problem:
            raise ValueError(f"{where}:{lineno}: {problem} (run `xingzi dataset check` first)")
        ours = class_map[int(c)]
        if ours is None:
            dropped += 1
        else:
            kept.append([ours, *box])
    return format_labels(np.array(kept, np.float64).reshape(-1, 5)), dropped


def clashes(dst: Path, src: Path | None = None, text: str | None = None) -> bool:
    """Whether ``dst`` exists holding something else than the file ``src`` (or the ``text``) meant for it."""
    if not dst.is_file():
        return dst.exists()
    if src is not None:
        return not filecmp.cmp(src, dst, shallow=False)
    return dst.read_bytes() != (text or "").encode("utf-8")


def refuse_clash(dst: Path, src: Path | None = None, text: str | None = None) -> None:
    """Stop before replacing another file of the same name: it is someone's photo or labels."""
    if clashes(dst, src, text):
        raise ValueError(f"{dst} already exists and differs from what would be written there "
                         f"({src or 'new labels'}); expected a new folder, or the same data again")


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
        os.chmod(tmp, FILE_MODE)  # as an ordinary copy would be, not mkstemp's 0600
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class SplitReport:
    root: str
    train: tuple[str, ...]  # image paths relative to root
    val: tuple[str, ...]
    groups_train: int
    groups_val: int
    unlabelled: int = 0  # images without a label file, in neither part


def plan_split(stems: list[str], val: float, seed: int,
               key: Callable[[str], str] = source_key) -> tuple[set[str], set[str]]:
    """(train stems, val stems): whole source groups (``key``) go to val, in a seeded random order, while each
    brings the val count of images nearer ``val`` of them (a tie rounds up); at least one group goes to each part.
    Same input and seed → same split."""
    if not 0 < val < 1:
        raise ValueError(f"--val must be a fraction between 0 and 1, got {val}")
    groups: dict[str, list[str]] = defaultdict(list)
    for s in stems:
        groups[key(s)].append(s)
    keys = sorted(groups)
    if len(keys) < 2:
        raise ValueError(f"need at least two source photos to split, got {len(keys)}")
    random.Random(seed).shuffle(keys)
    target = val * len(stems)
    val_stems: set[str] = set()
    for k in keys[:-1]:  # the last group always stays in train
        if val_stems and abs(len(val_stems) + len(groups[k]) - target) > abs(len(val_stems) - target):
            break  # the nearest count, not the first past it (0.34 of 3 photos is 1, not 2)
        val_stems.update(groups[k])
    return set(stems) - val_stems, val_stems


def split_dataset(root: str | Path, val: float = 0.15, seed: int = 0, out: str | Path | None = None,
                  link: bool = False, overwrite: bool = False) -> SplitReport:
    """Split the labelled images of ``root`` into train/val by source photo.

    Without ``out`` nothing is moved: ``train.txt`` / ``val.txt`` list the images and ``data.yaml``
    points at them (Ultralytics reads such lists). A ``train.txt``/``val.txt`` there that lists otherwise (another
    seed or share, or the user's own lists) and a data.yaml with comments (which writing it again would drop) are
    replaced only with ``overwrite``; the same split again changes nothing. With ``out`` the images and labels are
    copied into ``out/images/{train,val}`` and ``out/labels/{train,val}``.
    """
    r = Path(root)
    if overwrite and out is not None:
        raise ValueError("--overwrite is for a split in place (it replaces DIR's train.txt/val.txt); with --out give "
                         "a new or empty folder instead")
    found = dataset_pairs(r)
    pairs = [(i, lab) for i, lab in found if lab.exists()]
    names = read_class_names(r) or CLASS_NAMES  # the labels stay as they are: so must the names of their classes
    ours: dict[int, int | None] = {i: i for i in range(len(names))}
    for image, label in pairs:  # a broken line or photo would travel into training unseen: merge refuses them too
        remap_label_text(read_text(label), ours, str(label))
        refuse_unreadable(image)
    by_stem: dict[str, tuple[Path, Path]] = {}
    for image, label in pairs:
        if image.stem in by_stem:
            raise ValueError(f"two images share the name {image.stem!r}: {by_stem[image.stem][0]} and {image}")
        by_stem[image.stem] = (image, label)
    photo = _photo_keys(by_stem)
    train, val_set = plan_split(sorted(by_stem), val, seed, photo.__getitem__)
    groups_val = len({photo[s] for s in val_set})
    groups_train = len({photo[s] for s in train})
    if out is None:
        broken = sorted(i.relative_to(r).as_posix() for i, _ in by_stem.values() if "\n" in i.name or "\r" in i.name)
        if broken:  # a list file holds one path a line
            raise ValueError(f"{broken[0]!r}: a file name with a line break cannot be listed in train.txt/val.txt; "
                             "expected names without one (rename it), or --out to copy the images instead")
        _refuse_unlistable(i for i, _ in by_stem.values())
        lists = {part: tuple(sorted(by_stem[s][0].relative_to(r).as_posix() for s in stems))
                 for part, stems in (("train", train), ("val", val_set))}
        texts = {r / f"{part}.txt": "".join(f"./{p}\n" for p in rel) for part, rel in lists.items()}
        kept = _other_yaml(r / "data.yaml")  # read before it is written again
        texts[r / "data.yaml"] = data_yaml_text(r.resolve(), "train.txt", "val.txt", names) + kept
        if not overwrite:
            _refuse_replacing(texts)
        for path, text in texts.items():
            if clashes(path, text=text) or not path.is_file():  # the same split again: left as it is
                atomic_write_text(path, text)
        return SplitReport(str(r), lists["train"], lists["val"], groups_train, groups_val, len(found) - len(pairs))
    o = Path(out)
    if o.resolve().is_relative_to(r.resolve()):
        raise ValueError(f"--out {o} is inside the dataset {r}; expected a folder outside it")
    plan = {part: [(*by_stem[s], o / "images" / part / by_stem[s][0].name, o / "labels" / part / (s + ".txt"))
                   for s in sorted(stems)] for part, stems in (("train", train), ("val", val_set))}
    _refuse_stale(o, [row for rows in plan.values() for row in rows])
    for rows in plan.values():
        for image, label, image_dst, label_dst in rows:
            place_file(image, image_dst, link)
            atomic_write_text(label_dst, read_text(label))
            meta = r / "meta" / f"{image.stem}.json"
            if meta.is_file():  # a pipeline sample's truth (synth, or a photo saved with its score) goes with it
                place_file(meta, o / "meta" / meta.name, link)
    atomic_write_text(o / "data.yaml", data_yaml_text(o.resolve(), "images/train", "images/val", names))
    lists = {part: tuple(f"images/{part}/{row[2].name}" for row in rows) for part, rows in plan.items()}
    return SplitReport(str(o), lists["train"], lists["val"], groups_train, groups_val, len(found) - len(pairs))


def _refuse_unlistable(images: Iterable[Path]) -> None:
    """A file name whose bytes are not UTF-8 cannot be written into train.txt/val.txt (nor read back from them)."""
    for image in images:
        try:
            image.name.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(image).decode("utf-8", "backslashreplace")
            raise ValueError(f"{shown}: a file name whose bytes are not UTF-8 cannot be listed in train.txt/val.txt; "
                             "expected a UTF-8 name (rename it), or --out to copy the images instead") from None


def _refuse_replacing(texts: dict[Path, str]) -> None:
    """A list there that lists otherwise than this split (another --seed or --val, or the user's own), or a data.yaml
    with comments that writing it again would drop, is not replaced without --overwrite."""
    lists = [path for path in texts if path.suffix == ".txt" and clashes(path, text=texts[path])]
    if lists:
        said = " and ".join(str(p) for p in lists)
        raise ValueError(f"{said} already {'exist' if len(lists) > 1 else 'exists'} and differ"
                         f"{'' if len(lists) > 1 else 's'} from the lists this split writes (another --seed or --val, "
                         "or lists of your own); expected none there: remove them, or give --overwrite to replace them")
    yaml_path = next(path for path in texts if path.suffix == ".yaml")
    if clashes(yaml_path, text=texts[yaml_path]) and (comment := _yaml_comment(read_text(yaml_path))):
        line, said = comment
        raise ValueError(f"{yaml_path}:{line}: a comment ({said[:60]!r}) that writing the file again (train: train.txt, "
                         "val: val.txt) would drop; expected a data.yaml without comments: remove them, or give "
                         "--overwrite to write it without them")


def _yaml_comment(text: str) -> tuple[int, str] | None:
    """(line, text) of the first comment in a YAML text: a ``#`` in no scalar (``"set #2"`` is none)."""
    import yaml

    try:
        spans = [(t.start_mark.index, t.end_mark.index) for t in yaml.scan(text) if isinstance(t, yaml.ScalarToken)]
    except yaml.YAMLError:
        return None
    for m in re.finditer("#", text):
        if not any(a <= m.start() < b for a, b in spans):
            end = text.find("\n", m.start())
            return text.count("\n", 0, m.start()) + 1, text[m.start():end if end >= 0 else len(text)]
    return None


def _photo_keys(by_stem: dict[str, tuple[Path, Path]]) -> dict[str, str]:
    """Each image's photo: its source key, one for all images of the same bytes (a copy under another name, as two
    merged sources that both held it make); the smallest key of such a group names it."""
    stems = sorted(by_stem)
    key = {s: source_key(s) for s in stems}
    for group in same_bytes([by_stem[s][0] for s in stems]):
        joined = {key[stems[i]] for i in group}  # with every image already joined to one of them
        key = {s: min(joined) if k in joined else k for s, k in key.items()}
    return key


def _other_yaml(yaml_path: Path) -> str:
    """The keys of a data.yaml a split keeps when it writes the file again, as YAML."""
    import yaml

    extra = data_yaml_extra(yaml_path, dict.fromkeys(SPLIT_KEYS))
    return yaml.safe_dump(extra, allow_unicode=True, sort_keys=False) if extra else ""


SPLIT_KEYS = ("path", "train", "val", "nc", "names")  # what data_yaml_text writes


def _refuse_stale(out: Path, rows: list[tuple[Path, Path, Path, Path]]) -> None:
    """``out`` may hold only what this split writes there: a photo left from an earlier split (another seed
    or share) would sit on both sides, and a different file under a planned name is someone's work."""
    planned = {dst for _, _, image_dst, label_dst in rows for dst in (image_dst, label_dst)}
    found = [f for f in image_files(out / "images") if f not in planned] if (out / "images").is_dir() else []
    found += [f for f in sorted((out / "labels").rglob("*.txt")) if f not in planned]
    if found:
        raise ValueError(f"{found[0]} is not part of this split (left from an earlier one?); expected an empty "
                         f"or new --out folder ({len(found)} such files)")
    for image, label, image_dst, label_dst in rows:
        refuse_clash(image_dst, image)
        refuse_clash(label_dst, text=read_text(label))
