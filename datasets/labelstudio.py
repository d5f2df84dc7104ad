"""Label Studio round trip, and YOLO exports from other tools (CVAT, Roboflow) as input.

Label Studio gets a pre-annotations file (one task per image with the model's boxes as
``predictions``, rectangles in percent of the image) and a labelling config naming our 31 classes.
Its JSON export comes back as YOLO label files. A label file that changes is backed up first, so
no earlier work is ever lost.
"""

from __future__ import annotations

import filecmp
import json
import math
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote
from xml.sax.saxutils import quoteattr

import numpy as np

from xingzi.datasets.check import dataset_pairs, parse_label_text, read_class_names, refuse_other_classes
from xingzi.datasets.photo_match import same_photo
from xingzi.datasets.split import class_id_for_name, class_map_for, place_file, remap_label_text
from xingzi.datasets.yolo import atomic_write_text, data_yaml_text, format_labels, read_labels, read_text
from xingzi.engine.tiles import CLASS_NAMES

TASKS_FILE = "labelstudio_tasks.json"
CONFIG_FILE = "labelstudio_config.xml"
BACKUP_DIR = "labels_backup"
FROM_NAME, TO_NAME = "label", "image"
# Label Studio prefixes uploaded files with 8 hex digits: ``3f2a9c01-IMG_0001.jpg``.
_UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-")


def oriented_size(image: str | Path) -> tuple[int, int]:
    """(width, height) as viewers show the photo, i.e. after its EXIF rotation."""
    from PIL import Image

    with Image.open(image) as im:
        w, h = im.size
        orientation = im.getexif().get(0x0112, 1)
    return (h, w) if orientation in (5, 6, 7, 8) else (w, h)


def labeling_config_xml(names: tuple[str, ...] = CLASS_NAMES) -> str:
    """Label Studio labelling interface: one rectangle tool with our class names."""
    labels = "\n".join(f"    <Label value={quoteattr(n)}/>" for n in names)
    return (f'<View>\n  <Image name="{TO_NAME}" value="$image" zoom="true"/>\n'
            f'  <RectangleLabels name="{FROM_NAME}" toName="{TO_NAME}">\n{labels}\n'
            "  </RectangleLabels>\n</View>\n")


def task_for(image_ref: str, width: int, height: int, rows: np.ndarray, model_version: str = "xingzi") -> dict:
    """One Label Studio task whose prediction is the YOLO ``rows`` (cls cx cy w h, normalised)."""
    result = []
    for i, (c, cx, cy, w, h) in enumerate(np.asarray(rows, np.float64).reshape(-1, 5)):
        result.append({
            "id": f"r{i}", "type": "rectanglelabels", "from_name": FROM_NAME, "to_name": TO_NAME,
            "original_width": int(width), "original_height": int(height), "image_rotation": 0,
            "value": {"x": (cx - w / 2) * 100, "y": (cy - h / 2) * 100, "width": w * 100, "height": h * 100,
                      "rotation": 0, "rectanglelabels": [CLASS_NAMES[int(c)]]},
        })
    return {"data": {"image": image_ref}, "predictions": [{"model_version": model_version, "result": result}]}


def write_labelstudio_files(dataset_dir: str | Path, url_prefix: str | None = None,
                            model_version: str = "xingzi") -> Path:
    """Write ``labelstudio_tasks.json`` (every image; its current labels, if any, as predictions) and
    ``labelstudio_config.xml`` into the dataset. Image URLs default to Label Studio's local-files
    form relative to the dataset's parent folder (LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT)."""
    d = Path(dataset_dir)
    prefix = f"/data/local-files/?d={d.resolve().name}/" if url_prefix is None else url_prefix
    tasks = []
    for image, label in dataset_pairs(d / "images") if (d / "images").is_dir() else []:
        ref = prefix + image.relative_to(d).as_posix()
        if label.exists():
            w, h = oriented_size(image)
            tasks.append(task_for(ref, w, h, read_labels(label), model_version))
        else:  # nothing to suggest: labelled from scratch
            tasks.append({"data": {"image": ref}})
    path = d / TASKS_FILE
    atomic_write_text(path, json.dumps(tasks, ensure_ascii=False, indent=1))
    atomic_write_text(d / CONFIG_FILE, labeling_config_xml())
    return path


def save_label(dataset_dir: str | Path, label: Path, text: str, replace: bool) -> str:
    """Write one label file without losing work: ``new`` when there was none, ``unchanged`` when the
    text is the same, ``kept`` when it differs and ``replace`` is false, else ``replaced`` after the
    old file is copied to ``labels_backup/<stem>.<UTC time>.txt``."""
    if label.exists():
        if _same_labels(label.read_text(), text):
            return "unchanged"
        if not replace:
            return "kept"
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = Path(dataset_dir) / BACKUP_DIR / f"{label.stem}.{stamp}.txt"
        backup.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(label, backup)
        atomic_write_text(label, text)
        return "replaced"
    atomic_write_text(label, text)
    return "new"


def _same_labels(a: str, b: str) -> bool:
    """Same boxes, ignoring number formatting (rounding at 1e-6)."""
    if a == b:
        return True
    (rows_a, bad_a), (rows_b, bad_b) = parse_label_text(a), parse_label_text(b)
    if bad_a or bad_b or len(rows_a) != len(rows_b):
        return False
    return bool(np.allclose([r for _, r in rows_a], [r for _, r in rows_b], atol=2e-6)) if rows_a else True


@dataclass(frozen=True)
class ImportReport:
    new: int
    replaced: int
    unchanged: int
    not_annotated: int  # tasks nobody has corrected yet: their pre-labels stay
    backups: str
    unmapped_names: tuple[str, ...] = ()
    dropped_boxes: int = 0


def _rect_to_yolo(value: dict, width: float, height: float) -> tuple[float, float, float, float]:
    """Label Studio rectangle (percent, rotated clockwise about its top-left corner) → the YOLO box
    of its axis-aligned bounding rectangle, clipped to the image."""
    x, y = value["x"] / 100 * width, value["y"] / 100 * height
    w, h = value["width"] / 100 * width, value["height"] / 100 * height
    a = math.radians(value.get("rotation", 0) or 0)
    cos, sin = math.cos(a), math.sin(a)
    xs = [x + dx * cos - dy * sin for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))]
    ys = [y + dx * sin + dy * cos for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))]
    x1, x2 = max(min(xs), 0) / width, min(max(xs), width) / width
    y1, y2 = max(min(ys), 0) / height, min(max(ys), height) / height
    return (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1


def _image_name(ref: str) -> str:
    return unquote(ref).replace("\\", "/").split("?d=")[-1].rsplit("/", 1)[-1]


def _chosen_regions(task: dict) -> list[dict] | None:
    """Regions of the newest non-cancelled annotation; None when the task has none. Handles the full
    JSON export (``annotations``) and JSON-MIN (``label`` list on the task)."""
    if "annotations" in task:
        done = [a for a in task["annotations"] if not a.get("was_cancelled")]
        if not done:
            return None
        newest = max(done, key=lambda a: str(a.get("updated_at") or a.get("created_at") or ""))
        return [r for r in newest.get("result", []) if r.get("type") == "rectanglelabels"]
    if "data" in task:
        return None
    return [dict(value=r, original_width=r.get("original_width"), original_height=r.get("original_height"))
            for r in task.get("label", [])]


def _finite(value: object, what: str) -> float:
    """A number of the export; text, NaN, infinity or 1e400 would become a label line no tool reads."""
    try:
        x = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an integer past float's range
        x = math.inf
    if not math.isfinite(x):
        raise ValueError(f"expected a finite number for {what}, got {value!r}"[:200])
    return x


def _box_row(r: dict, image: Path, size: tuple[int, int] | None) -> tuple[list[float], tuple[int, int] | None]:
    """One region as ``[cls, cx, cy, w, h]`` (and the photo's size, once read): refused unless it is a box
    with one known class and a positive area on the photo."""
    v = r["value"]
    names = v.get("rectanglelabels") or v.get("labels") or []
    if len(names) != 1:
        raise ValueError(f"a box needs exactly one class name, got {names}")
    cls = class_id_for_name(names[0])
    if cls is None:
        raise ValueError(f"unknown class name {names[0]!r}; expected one of {', '.join(CLASS_NAMES)}")
    rect = {k: _finite(v.get(k), k) for k in ("x", "y", "width", "height")}
    rect["rotation"] = _finite(v.get("rotation") or 0, "rotation")
    w, h = r.get("original_width"), r.get("original_height")
    if not (w and h):
        size = size or oriented_size(image)
        w, h = size
    if _finite(w, "original_width") <= 0 or _finite(h, "original_height") <= 0:
        raise ValueError(f"expected a positive image size, got original_width={w}, original_height={h}")
    box = _rect_to_yolo(rect, float(w), float(h))
    if not (box[2] > 0 and box[3] > 0):  # clipped to the photo, nothing is left (NaN from inf - inf: neither)
        raise ValueError(f"{names[0]} box at x={rect['x']:g}%, y={rect['y']:g}% of size {rect['width']:g}% x "
                         f"{rect['height']:g}% has no area on the photo; expected a box on it")
    return [cls, *box], size


def _labels_text(regions: list[dict], image: Path, where: str) -> str:
    rows, size = [], None
    for k, r in enumerate(regions):
        try:
            row, size = _box_row(r, image, size)
        except ValueError as e:
            raise ValueError(f"{where}: box {k}: {e}") from None
        rows.append(row)
    return format_labels(np.array(rows, np.float64).reshape(-1, 5))


def _task_name(task: object, n: int) -> str:
    """A task as Label Studio shows it, by its ``id``; one without an id (written by hand) by its place in the list,
    from 0."""
    ident = task.get("id") if isinstance(task, dict) else None
    if isinstance(ident, int) and not isinstance(ident, bool) or isinstance(ident, str) and ident.strip():
        return f"task {ident}"
    return f"task {n}"


def import_labelstudio(export_json: str | Path, dataset_dir: str | Path) -> ImportReport:
    """Bring Label Studio's corrected boxes back as YOLO labels of ``dataset_dir``. Everything is read
    and checked before any file is written; a changed label file is backed up first."""
    path = Path(export_json)
    try:
        tasks = json.loads(path.read_bytes())  # bytes: UTF-8 with or without a BOM, UTF-16 and -32 all read
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a Label Studio JSON export ({e})") from e
    if not isinstance(tasks, list):
        raise ValueError(f"{path}: expected a JSON list of tasks (Label Studio 'JSON' export), got {type(tasks).__name__}")
    d = Path(dataset_dir)
    by_name = {img.name: (img, lab) for img, lab in dataset_pairs(d / "images")}
    planned: dict[Path, tuple[str, str]] = {}  # label file -> (task, its text)
    not_annotated = 0
    for n, task in enumerate(tasks):
        t = _task_name(task, n)
        try:
            ref = (task.get("data") or {}).get("image") or task.get("image")
            if not isinstance(ref, str) or not ref:
                raise ValueError(f"{path}: {t} has no image reference (data.image)")
            name = _image_name(ref)
            hit = by_name.get(name) or by_name.get(_UPLOAD_PREFIX.sub("", name))
            if hit is None:
                raise ValueError(f"{path}: {t} image {name!r} is not in {d / 'images'}")
            regions = _chosen_regions(task)
            if regions is None:
                not_annotated += 1
                continue
            text = _labels_text(regions, hit[0], f"{path}: {t} ({name})")
            if planned.get(hit[1], (t, text))[1] != text:  # tasks imported twice, annotated both: which is right?
                raise ValueError(f"{path}: {planned[hit[1]][0]} and {t} label {name} differently; expected one "
                                 "annotated task per image (delete the other in Label Studio)")
            planned[hit[1]] = (t, text)
        except (AttributeError, TypeError, KeyError) as e:  # a list or a number where the export has an object
            raise ValueError(f"{path}: {t} is not shaped like a Label Studio task "
                             f"({type(e).__name__}: {e}); expected {{\"data\": {{\"image\": ...}}, "
                             f"\"annotations\": [...]}}") from None
    counts = {"new": 0, "replaced": 0, "unchanged": 0}
    for label, (_, text) in planned.items():
        counts[save_label(d, label, text, replace=True)] += 1
    return ImportReport(counts["new"], counts["replaced"], counts["unchanged"], not_annotated, str(d / BACKUP_DIR))


def _refuse_other_photo(image: Path, ours: Path) -> None:
    """Our photo of that name stays (the export's copy is often re-compressed or scaled), so the export's
    labels go with it only when the two show the same picture."""
    if ours.exists() and not filecmp.cmp(image, ours, shallow=False) and not same_photo(image, ours):
        raise ValueError(f"{image} is another photo than {ours} of the same name, so its labels would be put on "
                         "the wrong picture; expected the dataset's own photos back (rename one of them, or import "
                         "into a new folder)")


def import_yolo_export(src: str | Path, dataset_dir: str | Path, link: bool = False) -> ImportReport:
    """Take a YOLO export of another tool (Roboflow ``data.yaml`` + ``*/images``, CVAT ``obj.names``
    + labels next to the images) into ``dataset_dir``, mapping its classes to ours by name. Boxes
    of classes we do not have (e.g. winds) are dropped and reported; a line merge refuses (malformed, a class not in
    its list, a box of no area or wholly off the photo) stops it, naming file and line."""
    s, d = Path(src), Path(dataset_dir)
    refuse_other_classes(d)
    names = read_class_names(s)
    cmap = class_map_for(names)
    unmapped = tuple(sorted({names[i] for i, v in cmap.items() if v is None})) if names else ()
    planned, dropped, taken = [], 0, dict[str, Path]()
    present = {img.stem: img.name for img, _ in dataset_pairs(d / "images")} if (d / "images").is_dir() else {}
    for image, label in dataset_pairs(s):
        if label.exists():
            if present.get(image.stem, image.name) != image.name:
                raise ValueError(f"{image.name} would share the label file of {present[image.stem]} in {d / 'images'}; "
                                 "rename one of them")
            if image.stem in taken:  # train/images/x.jpg and valid/images/x.jpg
                raise ValueError(f"{taken[image.stem]} and {image} would share the label file {image.stem}.txt; "
                                 "expected one image per name in the export (rename one)")
            taken[image.stem] = image
            _refuse_other_photo(image, d / "images" / image.name)
            text, n = remap_label_text(read_text(label), cmap, str(label))
            planned.append((image, text))
            dropped += n
    if not planned:
        raise ValueError(f"{s}: no labelled images found (expected a YOLO export: images with label .txt files, "
                         f"and data.yaml or obj.names naming the classes)")
    counts = {"new": 0, "replaced": 0, "unchanged": 0}
    for image, text in planned:
        target = d / "images" / image.name
        place_file(image, target, link)
        counts[save_label(d, d / "labels" / (image.stem + ".txt"), text, replace=True)] += 1
    if not (d / "data.yaml").exists():
        atomic_write_text(d / "data.yaml", data_yaml_text(d.resolve()))
    return ImportReport(counts["new"], counts["replaced"], counts["unchanged"], 0, str(d / BACKUP_DIR),
                        unmapped, dropped)
