"""Reading a dataset for ``xingzi eval``: its photos and class names (a data.yaml, a split set's image lists, or a
folder with ``classes.txt``), its labels and another detector's YOLO txt predictions as boxes with our class ids.
Every class list maps onto ours by name (:func:`name_table`); names that are no Xingzi tile become ignore regions."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from xingzi.datasets.check import EDGE_TOLERANCE, read_class_names
from xingzi.datasets.classnames import NOT_OURS, class_id_for_name
from xingzi.datasets.errata import UNREAD_ID, Errata, row_fixer
from xingzi.datasets.yolo import (
    box_problem,
    image_files,
    image_size,
    label_path_for,
    parse_label_text,
    read_labels,
    read_text,
    yolo_to_xyxy,
)
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.metrics import IGNORE, UNREAD, ImageBoxes
from xingzi.vision.perturb import Perturbation

NC = len(CLASS_NAMES)


def our_class(name: str) -> int:
    """Our class id for a label name of any set, IGNORE for non-Xingzi tiles; ValueError if unknown."""
    if name.strip().lower() in NOT_OURS:
        return IGNORE
    ours = class_id_for_name(name)
    if ours is None:
        raise ValueError(f"class name {name!r} is not a tile name; give it in --name-map (e.g. '{name}=5p' "
                         f"or '{name}=' to ignore)")
    return ours


def parse_name_map(text: str | None) -> dict[str, str]:
    """'a=5p,b=' or a JSON file {"a": "5p", "b": null} → {name: our name or ''}."""
    if not text:
        return {}
    p = Path(text)
    if p.suffix == ".json" and p.is_file():
        return _name_map_file(p)
    out = {}
    for item in text.split(","):
        if "=" not in item:
            raise ValueError(f"--name-map items must look like 'theirs=ours' (or 'theirs=' to ignore), got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _name_map_file(path: Path) -> dict[str, str]:
    """A --name-map JSON file; what is wrong with it said naming the file (the parser's message names none)."""
    try:
        table = json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise ValueError(f"--name-map {path}: expected JSON {{\"theirs\": \"ours\" or null}}, got a syntax error "
                         f"({e})") from None
    if not isinstance(table, dict) or not all(v is None or isinstance(v, str) for v in table.values()):
        raise ValueError(f"--name-map {path}: expected a JSON object {{\"theirs\": \"ours\" or null}}, "
                         f"got {json.dumps(table, ensure_ascii=False)[:120]}")
    return {k: (v or "") for k, v in table.items()}


def name_table(names: Sequence[str], overrides: dict[str, str] | None = None) -> np.ndarray:
    """Lookup array: their class id → our class id (or IGNORE). Every name no table knows is said at once."""
    overrides = overrides or {}
    for theirs, ours in overrides.items():
        if ours and ours.strip().lower() not in NOT_OURS and class_id_for_name(ours) is None:
            raise ValueError(f"--name-map '{theirs}={ours}': {ours!r} is none of our tiles (5p, 中, back …; or "
                             f"'{theirs}=' to ignore its boxes)")
    unknown = [n for n in names if n not in overrides and n.strip().lower() not in NOT_OURS
               and class_id_for_name(n) is None]
    if len(unknown) > 1:
        shown = ", ".join(repr(n) for n in unknown[:12]) + (f" and {len(unknown) - 12} more" if len(unknown) > 12 else "")
        raise ValueError(f"class names {shown} are not tile names; give them in --name-map (e.g. "
                         f"'{unknown[0]}=5p,{unknown[1]}=' , the second to ignore, or a JSON file of them all)")
    return np.array([(our_class(overrides[n]) if overrides[n] else IGNORE) if n in overrides else our_class(n)
                     for n in names], np.int64)


@dataclass(frozen=True)
class Dataset:
    images: list[Path]
    names: list[str]
    root: Path


def names_from(obj) -> list[str]:
    if isinstance(obj, dict) and all(isinstance(k, int) or str(k).isdigit() for k in obj):
        return [str(obj[k]) for k in sorted(obj, key=int)]
    if isinstance(obj, list):
        return [str(n) for n in obj]
    raise ValueError(f"data.yaml 'names' must be a list of class names or a table from class ids, got {obj!r}"[:200])


def load_dataset(data: Path, split: str = "val") -> Dataset:
    data = Path(data)
    if data.is_dir() and _names_split(data / "data.yaml", split):  # a split set (`xingzi dataset split`): its part
        data = data / "data.yaml"
    elif data.is_dir():  # its images/ and labels/, the classes named as `xingzi dataset check` finds them
        if split != "val":
            raise ValueError(f"{data} has no data.yaml naming a '{split}' part: give the data.yaml that does, or "
                             "leave --split out to score every photo of the folder")
        names = read_class_names(data)
        if names is None:
            raise FileNotFoundError(f"no data.yaml or classes.txt naming the classes in {data} (or classes.txt in its "
                                    "parent)")
        return Dataset(image_files(data / "images"), list(names), data)
    if not data.is_file():
        raise FileNotFoundError(f"dataset not found: {data}")
    import yaml

    try:
        cfg = yaml.safe_load(data.read_text())
    except yaml.YAMLError as e:
        raise ValueError(f"{data}: not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(cfg, dict) or "names" not in cfg or split not in cfg:
        raise ValueError(f"{data}: expected a data.yaml with 'names' and '{split}'")
    if not isinstance(cfg[split], (str, list)) or isinstance(cfg[split], list) and not all(
            isinstance(d, str) for d in cfg[split]):
        raise ValueError(f"{data}: '{split}' must be a folder or an image list (.txt), or a list of them, "
                         f"got {cfg[split]!r}")
    base = Path(cfg.get("path") or data.parent)
    base = base if base.is_absolute() else (data.parent / base)
    if not base.is_dir():  # a set moved since its data.yaml was written (its `path` names where it was)
        base = data.parent
    dirs = cfg[split] if isinstance(cfg[split], list) else [cfg[split]]
    images = [img for d in dirs for img in _split_images(Path(d) if Path(d).is_absolute() else base / d)]
    return Dataset(images, names_from(cfg["names"]), base)


def _names_split(yaml_path: Path, split: str) -> bool:
    """Whether a folder's data.yaml names a part ``split`` that is not the whole images/ folder."""
    import yaml

    if not yaml_path.is_file():
        return False
    try:
        cfg = yaml.safe_load(yaml_path.read_text())
    except yaml.YAMLError:
        return True  # said when read as the data.yaml
    return isinstance(cfg, dict) and split in cfg and cfg[split] not in ("images", "./images", "images/")


def _split_images(where: Path) -> list[Path]:
    """A part's photos: a folder's, or those a list names (``train.txt``: one path a line, ``./`` from the
    list's folder, as Ultralytics reads them)."""
    if where.suffix != ".txt":
        return image_files(where)
    if not where.is_file():
        raise FileNotFoundError(f"image list not found: {where}")
    paths = []
    for line in where.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line:
            p = Path(line[2:] if line.startswith("./") else line)
            paths.append(p if p.is_absolute() else where.parent / p)
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"{where} lists {len(missing)} photo(s) that are not there, e.g. {missing[0]}")
    return paths


def read_boxes(txt: Path, table: np.ndarray, size: tuple[int, int], with_conf: bool,
               fix: Callable[[np.ndarray], np.ndarray] | None = None) -> ImageBoxes:
    """YOLO txt (``cls cx cy w h [conf]``) → boxes in pixels with our class ids (``fix``: label errata)."""
    raw = _read_rows(txt, with_conf)
    ids = raw[:, 0].astype(np.int64)
    wrong = np.flatnonzero((ids < 0) | (ids >= len(table)))
    if len(wrong):  # its line: rows are the file's lines less blank ones (any other line was refused)
        lineno = [n for n, line in enumerate(read_text(txt).splitlines(), 1) if line.strip()][wrong[0]]
        more = f" (and {len(wrong) - 1} more rows)" if len(wrong) > 1 else ""
        raise ValueError(f"{txt}:{lineno}: expected a class id 0..{len(table) - 1} (one per class name), got "
                         f"{ids[wrong[0]]}{more}")
    rows = raw if fix is None else fix(raw)
    cls_raw = rows[:, 0].astype(np.int64)
    unread = cls_raw == UNREAD_ID  # only an erratum's added tiles carry it: the file's ids were checked above
    cls = np.where(unread, UNREAD, table[np.where(unread, 0, cls_raw)])
    xyxy = yolo_to_xyxy(rows[:, 1:5], *size)
    # a box is the part of the tile the photo shows (true ones reaching out: boxes_outside); a detector's box
    # reaching out is clipped the same, so the two are compared on the photo alone
    xyxy = np.clip(xyxy, 0, [size[0], size[1], size[0], size[1]])
    conf = rows[:, 5] if with_conf else np.ones(len(rows))
    boxes = ImageBoxes(xyxy, cls, conf.astype(np.float64))
    return boxes.select(boxes.cls != IGNORE) if with_conf else boxes


def _read_rows(txt: Path, with_conf: bool) -> np.ndarray:
    if not with_conf:
        return read_labels(txt)
    if not txt.exists():
        return np.zeros((0, 6))
    rows = []
    for lineno, line in enumerate(read_text(txt).splitlines(), 1):
        if line.strip():
            rows.append(_prediction_row(line, f"{txt}:{lineno}"))
    return np.array(rows, np.float64).reshape(-1, 6)


def _prediction_row(line: str, where: str) -> list[float]:
    """One ``cls cx cy w h conf`` row of a predictions file, refused (naming ``where``) unless a detector could have
    written it: a whole class id, a box on the photo (:func:`box_problem`) and a confidence in [0, 1]."""
    try:
        values = [float(v) for v in line.split()]
    except ValueError:
        raise ValueError(f"{where}: prediction rows must be numbers 'cls cx cy w h conf', got {line.strip()[:120]!r}"
                         ) from None
    if len(values) != 6:
        raise ValueError(f"{where}: prediction rows must be 'cls cx cy w h conf', got {len(values)} numbers")
    if not np.isfinite(values).all() or values[0] != round(values[0]):
        raise ValueError(f"{where}: prediction rows must be a whole class id and finite numbers 'cls cx cy w h conf', "
                         f"got {line.strip()[:120]!r}")
    problem = box_problem(values)
    if problem:
        raise ValueError(f"{where}: {problem}")
    if not 0 <= values[5] <= 1:
        raise ValueError(f"{where}: expected a confidence in [0, 1], got {values[5]:g}")
    return values


def truths_for(ds: Dataset, table: np.ndarray, errata: Errata | None = None,
               ) -> tuple[list[ImageBoxes], list[tuple[int, int]]]:
    """True boxes and photo sizes; ``errata``: label corrections (:mod:`xingzi.datasets.errata`) applied."""
    sizes = [image_size(p) for p in ds.images]
    fixed = row_fixer(errata, ds.names)
    return [unread_in_meta(read_boxes(label_path_for(p), table, s, False, partial(fixed, p.name)), ds.root, p)
            for p, s in zip(ds.images, sizes, strict=True)], sizes


def boxes_outside(ds: Dataset) -> list[str]:
    """``file:line`` of each label row whose box reaches out of its photo by more than a rounding hair: what `xingzi
    dataset check` calls an error, scored clipped to the photo (:func:`read_boxes`) and said by eval."""
    out = []
    for txt in (label_path_for(p) for p in ds.images):
        rows = parse_label_text(read_text(txt))[0] if txt.is_file() else []
        out += [f"{txt}:{n}" for n, (_, cx, cy, w, h) in rows
                if min(cx - w / 2, cy - h / 2) < -EDGE_TOLERANCE or max(cx + w / 2, cy + h / 2) > 1 + EDGE_TOLERANCE]
    return out


def missing_labels(ds: Dataset) -> list[str]:
    """The photos with no label file: scored as holding no tiles (YOLO's background photo), which the report says,
    since a label file lost or misnamed looks the same and lowers recall and image exact."""
    return [p.name for p in ds.images if not label_path_for(p).is_file()]


def unread_in_meta(truth: ImageBoxes, root: Path, image: Path) -> ImageBoxes:
    """A synthetic photo's tiles whose face too little of shows to be told (``unread`` in ``root/meta/<stem>.json``,
    :mod:`xingzi.datasets.synth.legible`) become ``UNREAD``: neither a hit nor a miss."""
    meta_path = root / "meta" / f"{image.stem}.json"
    if not meta_path.is_file():
        return truth
    tiles = json.loads(meta_path.read_text(encoding="utf-8")).get("tiles") or []
    unread = [k for k, t in enumerate(tiles) if isinstance(t, dict) and t.get("unread")]
    if not unread:
        return truth
    if len(tiles) != len(truth.cls):
        raise ValueError(f"{meta_path}: {len(tiles)} tiles in the meta, {len(truth.cls)} labels in the photo's txt")
    cls = truth.cls.copy()
    cls[unread] = UNREAD
    return ImageBoxes(truth.xyxy, cls, truth.conf)


def perturbed_truths(truths: list[ImageBoxes], sizes: Sequence[tuple[int, int]],
                     perturb: Perturbation) -> list[ImageBoxes]:
    """The true boxes moved as ``perturb`` moves its photo."""
    return [ImageBoxes(perturb.boxes(t.xyxy, w, h), t.cls, t.conf) for t, (w, h) in zip(truths, sizes, strict=True)]


def preds_table(pred_dir: Path, ds: Dataset, overrides: dict[str, str] | None = None) -> np.ndarray:
    """Our class per class id of a predictions folder: named by its classes.txt, else by the dataset's names."""
    names_file = pred_dir / "classes.txt"
    names = [n.strip() for n in read_text(names_file).splitlines() if n.strip()] if names_file.is_file() \
        else ds.names
    return name_table(names, overrides)


def preds_from_dir(ds: Dataset, sizes, pred_dir: Path, table: np.ndarray) -> list[ImageBoxes]:
    """Another detector's boxes, a ``STEM.txt`` per photo; a photo without one found nothing. None at all for any
    photo is refused: its names do not match the photos' (a merged set's are prefixed), not a detector blind."""
    if not pred_dir.is_dir():
        raise FileNotFoundError(f"predictions folder not found: {pred_dir}")
    missing = missing_preds(ds, pred_dir)
    if ds.images and len(missing) == len(ds.images):
        raise ValueError(f"{pred_dir} holds no prediction file for any of the {len(ds.images)} photos (each is named "
                         f"as its photo: {ds.images[0].stem}.txt for {ds.images[0].name})")
    return [read_boxes(pred_dir / f"{p.stem}.txt", table, s, True) for p, s in zip(ds.images, sizes, strict=True)]


def missing_preds(ds: Dataset, pred_dir: Path) -> list[str]:
    """The photos ``pred_dir`` has no ``STEM.txt`` for."""
    return [p.name for p in ds.images if not (pred_dir / f"{p.stem}.txt").is_file()]
