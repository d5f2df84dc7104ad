"""Find label errors in a YOLO dataset (``xingzi dataset check``).

Also holds the small dataset-walking helpers the other dataset tools share: which image goes with
which label file, which label files have no image, and the class names a dataset declares.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from xingzi.datasets.classnames import no_tile_names
from xingzi.datasets.errata import Errata, PhotoFix, fix_parsed
from xingzi.datasets.yolo import (
    IMAGE_SUFFIXES,
    image_files,
    image_size,
    jpeg_cut_short,
    label_path_for,
    parse_label_text,
    read_text,
    tiff_turned,
    unread_images,
)
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES

# A box may poke this far (normalised) past the border before it counts as outside: exporters round.
EDGE_TOLERANCE = 0.005
# Two boxes this similar mark the same tile twice.
DUPLICATE_IOU = 0.9
COPIES_PER_FACE = 4

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    severity: str  # ERROR or WARNING
    kind: str  # short machine name: malformed, unknown-class, outside, duplicate, fifth-copy, unreadable, ...
    path: str
    line: int | None
    message: str


@dataclass(frozen=True)
class CheckReport:
    root: str
    images: int
    label_files: int  # those beside an image
    boxes: int
    issues: tuple[Issue, ...]
    orphan_labels: int = 0  # label files with no image (each also an error below the header)

    @property
    def errors(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.severity == ERROR)

    @property
    def warnings(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.severity == WARNING)

    @property
    def ok(self) -> bool:
        return not self.errors

    def counts_by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(i.kind for i in self.issues).items()))

    def to_dict(self) -> dict:
        return {"root": self.root, "images": self.images, "label_files": self.label_files,
                "orphan_label_files": self.orphan_labels, "boxes": self.boxes, "errors": len(self.errors), "warnings": len(self.warnings),
                "by_kind": self.counts_by_kind(), "issues": [asdict(i) for i in self.issues]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def format_text(self, max_per_kind: int = 20) -> str:
        refuse_max_per_kind(max_per_kind)
        orphans = f" and {self.orphan_labels} with none" if self.orphan_labels else ""
        lines = [f"{self.root}: {self.images} images, {self.label_files} label files beside them{orphans}, "
                 f"{self.boxes} boxes"]
        shown: Counter[str] = Counter()
        for issue in self.issues:
            shown[issue.kind] += 1
            if shown[issue.kind] <= max_per_kind:
                where = issue.path + (f":{issue.line}" if issue.line else "")
                lines.append(f"  {issue.severity:7s} {issue.kind:14s} {where}: {issue.message}")
        for kind, n in self.counts_by_kind().items():
            if n > max_per_kind:
                lines.append(f"  ... {n - max_per_kind} more {kind}")
        by_file = Counter(i.path for i in self.warnings).most_common(5)
        if len(by_file) > 1:  # where to look first: labels wrong all over a photo give it many warnings
            lines.append("most warnings: " + ", ".join(f"{path} ({n})" for path, n in by_file))
        summary = ", ".join(f"{k}={n}" for k, n in self.counts_by_kind().items()) or "none"
        lines.append(f"{len(self.errors)} errors, {len(self.warnings)} warnings ({summary})")
        return "\n".join(lines)


def refuse_max_per_kind(n: int) -> None:
    """A negative count would print "… N more" for issues that were all shown."""
    if n < 0:
        raise ValueError(f"--max-per-kind must be 0 or more (0: only the counts per kind), got {n}")


def label_file_for(image: Path) -> Path:
    """YOLO layout (``images/`` ↔ ``labels/``), or CVAT's label next to the image when there is no
    ``images`` folder in the path."""
    if "images" in image.parts:
        return label_path_for(image)
    return image.with_suffix(".txt")


def dataset_pairs(root: str | Path) -> list[tuple[Path, Path]]:
    """(image, label path) for every image under ``root``; the label file may not exist."""
    r = Path(root)
    if r.exists() and not r.is_dir():  # a zip (or any file) given where a folder is read
        how = " (`xingzi dataset merge` makes a folder of a zip)" if r.suffix.lower() == ".zip" else ""
        raise ValueError(f"expected a dataset folder (images/, labels/, data.yaml), got the file {r}{how}")
    if not r.is_dir():
        raise FileNotFoundError(f"dataset folder not found: {r}")
    return [(img, label_file_for(img)) for img in image_files(r) if not _hidden(img.relative_to(r))]


def same_bytes(paths: list[Path]) -> list[list[int]]:
    """Indices into ``paths`` of files holding the same bytes (groups of two or more, each ascending); only files
    that share their size with another are read."""
    by_size: dict[int, list[int]] = defaultdict(list)
    for i, p in enumerate(paths):
        by_size[p.stat().st_size].append(i)
    by_digest: dict[bytes, list[int]] = defaultdict(list)
    for same_size in by_size.values():
        if len(same_size) > 1:
            for i in same_size:
                with open(paths[i], "rb") as f:
                    by_digest[hashlib.file_digest(f, "sha256").digest()].append(i)
    return sorted(g for g in by_digest.values() if len(g) > 1)


def orphan_labels(root: str | Path) -> list[Path]:
    """Label files inside a ``labels`` folder whose image (any image suffix) is missing."""
    r = Path(root)
    orphans = []
    for txt in sorted(r.rglob("*.txt")):
        rel = txt.relative_to(r)
        if "labels" not in rel.parts or _hidden(rel):
            continue
        parts = list(txt.parts)
        idx = len(parts) - 1 - parts[::-1].index("labels")
        parts[idx] = "images"
        stem = str(Path(*parts))[: -len(".txt")]  # not with_suffix: Roboflow stems contain dots
        if not any(Path(stem + s).exists() or Path(stem + s.upper()).exists() for s in IMAGE_SUFFIXES):
            orphans.append(txt)
    return orphans


def _hidden(rel: Path) -> bool:
    return any(p.startswith(".") for p in rel.parts)


def read_class_names(root: str | Path) -> tuple[str, ...] | None:
    """Class names a dataset declares: data.yaml (``names`` as list or mapping), or a CVAT-style
    ``obj.names`` / ``classes.txt`` (also a ``classes.txt`` in the parent folder, shared by splits
    as in ../shared/data). None when it declares none (our class order is assumed)."""
    r = Path(root)
    for yaml_path in [r / "data.yaml", *sorted(r.glob("*.yaml"))]:
        if yaml_path.exists():
            doc = load_yaml(yaml_path)
            names = doc.get("names") if isinstance(doc, dict) else None
            if isinstance(names, dict):
                if not all(isinstance(k, int) or str(k).isdigit() for k in names):
                    raise ValueError(f"{yaml_path}: 'names' must be a list of class names or a table from class ids, "
                                     f"got {names!r}"[:200])
                return tuple(str(names[k]) for k in sorted(names, key=int))
            if isinstance(names, list):
                return tuple(str(n) for n in names)
    for txt in (r / "obj.names", r / "classes.txt", r.resolve().parent / "classes.txt"):
        if txt.exists():
            return tuple(n.strip() for n in read_text(txt).splitlines() if n.strip())
    return None


def load_yaml(path: Path) -> object:
    """A dataset's YAML file as read; YAML that is not is bad input naming the file."""
    import yaml  # PyYAML comes with ultralytics

    try:
        return yaml.safe_load(read_text(path))
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None


def data_yaml_extra(yaml_path: Path, ours: dict[str, str | None]) -> dict:
    """What a data.yaml says beyond ``ours`` (key → the value we write, None for any): a test set, a note, a
    download line, or where its images are when that is not where we put them."""
    doc = load_yaml(yaml_path) if yaml_path.is_file() else None
    if not isinstance(doc, dict):
        return {}
    return {k: v for k, v in doc.items() if k not in ours or ours[k] not in (None, v)}


def refuse_other_classes(folder: str | Path) -> None:
    """Stop before our labels (and a data.yaml naming our classes) go into a dataset folder whose labels are
    numbered after another class list (``../shared/data``'s id 30 is `other`, ours `back`): ValueError. A folder
    with no labels yet, named only by its parent's classes.txt, is taken: what is written there names ours."""
    f = Path(folder)
    names = read_class_names(f) if f.is_dir() else None
    if names in (None, CLASS_NAMES):
        return
    own = any((f / n).exists() for n in ("obj.names", "classes.txt")) or any(f.glob("*.yaml"))  # (data.yaml too)
    if own or any((f / "labels").rglob("*.txt")):
        raise ValueError(f"{f} holds labels of other classes than ours (its data.yaml or classes.txt, there or in its "
                         "parent, names them); expected a new folder or one of our datasets")


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU between every box of ``a`` (N,4 xyxy) and ``b`` (M,4 xyxy)."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(axis=2)
    area_a = (a[:, 2:] - a[:, :2]).clip(0).prod(axis=1)
    area_b = (b[:, 2:] - b[:, :2]).clip(0).prod(axis=1)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def check_label_text(text: str, path: str, names: tuple[str, ...] = CLASS_NAMES,
                     fix: PhotoFix | None = None) -> tuple[list[Issue], int]:
    """Issues in one label file's text, and the number of well-formed boxes (``fix``: read it as corrected)."""
    issues: list[Issue] = []
    parsed, bad = parse_label_text(text)
    rows: list[tuple[int | None, list[float]]] = list(parsed) if fix is None else fix_parsed(parsed, fix, names)
    issues += [Issue(ERROR, "malformed", path, n, why) for n, why in bad]
    good: list[tuple[int, int, list[float]]] = []  # (line, class, xyxy)
    for lineno, (c, cx, cy, w, h) in rows:
        if lineno is None:  # a tile an erratum adds: checked when the errata file is read
            continue
        if c != int(c) or not 0 <= c < len(names):
            issues.append(Issue(ERROR, "unknown-class", path, lineno,
                                f"class must be an integer 0..{len(names) - 1}, got {c:g}"))
            continue
        x1, y1, x2, y2 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
        if w <= 0 or h <= 0:
            issues.append(Issue(ERROR, "empty-box", path, lineno, f"width and height must be > 0, got {w:g} x {h:g}"))
            continue
        t = EDGE_TOLERANCE
        if x1 < -t or y1 < -t or x2 > 1 + t or y2 > 1 + t:
            issues.append(Issue(ERROR, "outside", path, lineno,
                                f"box {x1:.3f},{y1:.3f}..{x2:.3f},{y2:.3f} reaches outside the image (0..1)"))
        good.append((lineno, int(c), [x1, y1, x2, y2]))
    twice: set[int] = set()  # lines of a tile labelled again the same: said as a duplicate, not as a fifth copy
    if len(good) > 1:
        boxes = np.array([g[2] for g in good])
        iou = iou_matrix(boxes, boxes)
        for i, j in zip(*np.nonzero(np.triu(iou, 1) > DUPLICATE_IOU), strict=True):
            (li, ci, _), (lj, cj, _) = good[i], good[j]
            if ci == cj:
                twice.add(lj)
            what = f"same tile '{names[ci]}' twice" if ci == cj else \
                f"one tile labelled both '{names[ci]}' and '{names[cj]}'"
            issues.append(Issue(ERROR, "duplicate", path, lj, f"{what} (IoU {iou[i, j]:.2f} with line {li})"))
    counts = Counter(c for line, c, _ in good if line not in twice)
    for c, n in sorted(counts.items()):
        if c < min(BACK_CLASS, len(names)) and n > COPIES_PER_FACE and names[c] == CLASS_NAMES[c]:
            issues.append(Issue(ERROR, "fifth-copy", path, None,
                                f"'{names[c]}' labelled {n} times; a set has only {COPIES_PER_FACE} of each face"))
    return issues, len(good)


def refuse_unreadable(image: Path) -> None:
    """Stop before a photo no tool can open (empty, not an image) is copied into a dataset, where `xingzi eval` would
    stop on it: ValueError, as `dataset check` words it. A TIFF OpenCV passes over (``tiff_turned``) goes on."""
    try:
        image_size(image)
    except ValueError as e:
        raise ValueError(f"{e} (run `xingzi dataset check` first)") from None


def _image_issues(image: Path, where: str) -> list[Issue]:
    """A photo that cannot be opened (an error: training and evaluation stop on it, or skip it unsaid) or a JPEG
    cut short (a warning: it opens, with its lower part grey or lost)."""
    try:
        image_size(image)
    except ValueError as e:
        return [Issue(ERROR, "unreadable", where, None, str(e).removeprefix(f"{image}: "))]
    if tiff_turned(image):
        return [Issue(ERROR, "unreadable", where, None, "a TIFF turned by its EXIF tag, which OpenCV cannot read "
                      "(training and evaluation would pass it over): save it as JPEG")]
    if image.suffix.lower() in (".jpg", ".jpeg") and jpeg_cut_short(image):
        return [Issue(WARNING, "cut-short", where, None, "the JPEG ends without its end marker: cut short in copying?")]
    return []


def check_dataset(root: str | Path, errata: Errata | None = None) -> CheckReport:
    """Check every label file under ``root``; images without a label file and label files without
    an image are errors too (an empty label file is a deliberate background image). ``errata``: label
    files of the photos they fix are read as corrected, those they leave out (unusable) are not read."""
    r = Path(root)
    pairs = dataset_pairs(r)
    away = next((lab for _, lab in pairs if not lab.is_relative_to(r)), None)
    if away is not None:  # its images/ folder given: their labels/ is beside it, not in it
        raise ValueError(f"give the dataset folder (the one holding images/ and labels/), got {r}: the label files "
                         f"of its images are outside it, in {away.parent}")
    declared = read_class_names(r)
    names = declared or CLASS_NAMES
    issues: list[Issue] = []
    if declared is None and pairs:
        issues.append(Issue(WARNING, "no-class-names", ".", None, "no data.yaml or classes.txt names the classes: "
                            "ids read as ours (0-29 the faces, 30 back); `xingzi eval` refuses such a folder"))
    for k, name in enumerate(declared or ()):  # merge refuses them, eval asks for --name-map
        if not no_tile_names([name]):
            continue
        issues.append(Issue(ERROR, "no-tile-name", ".", None, f"class {k} {name!r} is no tile name "
                            "(nor a wind, flower or 'other'): name it as a tile, or 'other' to leave its boxes out"))
    boxes = label_files = 0
    for image, label in pairs:
        issues += _image_issues(image, str(image.relative_to(r)))
        if not label.exists():
            issues.append(Issue(ERROR, "unlabelled", str(image.relative_to(r)), None, "image has no label file"))
            continue
        label_files += 1
        if errata and image.name in errata.left_out:  # known: its labels are not used
            continue
        fix = errata.fix_for(image.name) if errata else None
        found, n = check_label_text(label.read_text(errors="replace"), str(label.relative_to(r)), names, fix)
        issues += found
        boxes += n
    for photo in unread_images(r):
        issues.append(Issue(WARNING, "unread-format", str(photo.relative_to(r)), None, "a photo of a kind the dataset "
                            "tools do not read (GIF, HEIC, AVIF): passed over by eval, merge, split and training"))
    orphans = orphan_labels(r)
    unread = {p.with_suffix("").relative_to(r).as_posix(): p for p in unread_images(r)}
    for txt in orphans:
        rel = txt.relative_to(r)
        photo = unread.get(Path(*["images" if part == "labels" else part for part in rel.parts]).with_suffix("").as_posix())
        what = ("label file has no image" if photo is None else f"its photo {photo.name} is of a kind the dataset tools "
                "do not read: save it as JPEG (`xingzi label` stores HEIC photos as JPEG)")
        issues.append(Issue(ERROR, "no-image", str(rel), None, what))
    if not pairs:  # a wrong folder, most likely: nothing checked is no pass
        issues.append(Issue(ERROR, "empty", ".", None, "no images found (expected images/*.jpg beside labels/*.txt)"))
    return CheckReport(str(r), len(pairs), label_files, boxes, tuple(issues), len(orphans))
