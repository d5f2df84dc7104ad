"""What ``xingzi eval`` says beyond its summary: per image not read exactly the wrong boxes in words and (with
``--draw-misses``) drawn; over the set how many images failed by a misread face, a box off its tile, a tile with
no box or a box on nothing; image exact per value of a synthetic set's meta field (``--by``); and the model's boxes
as YOLO txt files (``--save-preds``) that ``--preds`` scores again without running the model.

Works on :class:`~xingzi.vision.metrics.Scores` (``errors`` per image) and the image paths in the same order.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xingzi.datasets.yolo import atomic_write_text, classes_text, format_labels, read_text, xyxy_to_yolo
from xingzi.engine.tiles import CLASS_NAMES, CLASS_NAMES_CN
from xingzi.outputs import check_writable, read_only
from xingzi.vision.metrics import ImageBoxes, Scores, error_boxes

NC = len(CLASS_NAMES)
# a face read as another; the right face with its box off the tile (IoU under 0.5: a loose label or a box
# astray); a tile with no box; a box on no tile
KINDS = ("misread", "off", "missed", "extra")


def error_kind(truth: int, read: int) -> str:
    """The kind of a wrong box (one of KINDS); a pair of the same face is always one whose box is off."""
    if truth == NC:
        return "extra"
    if read == NC:
        return "missed"
    return "misread" if truth != read else "off"


def describe(truth: int, read: int, off: bool = False) -> str:
    """One wrong box in words: ``3m read as 2m``, ``5p box off its tile``, ``5p not found``, ``1s on no tile``,
    ``1s a second box on a tile`` (``off`` for a box left over: on a tile another box was paired with)."""
    kind = error_kind(truth, read)
    if kind == "extra":
        return f"{CLASS_NAMES[read]} " + ("a second box on a tile" if off else "on no tile")
    if kind == "missed":
        return f"{CLASS_NAMES[truth]} not found"
    if kind == "off":
        return f"{CLASS_NAMES[truth]} box off its tile"
    return f"{CLASS_NAMES[truth]} read as {CLASS_NAMES[read]}" + (", box off its tile" if off else "")


def image_rows(images: Sequence[Path], s: Scores) -> list[dict]:
    """The images not read exactly, most wrong boxes first (then by name): counts per kind and the errors."""
    if len(images) != len(s.errors):
        raise ValueError(f"need one image per scored image: {len(images)} paths, {len(s.errors)} scored")
    rows = []
    for path, n_tiles, errors in zip(images, s.n_tiles, s.errors, strict=True):
        if not errors:
            continue
        kinds = Counter(error_kind(t, p) for t, p, _ in errors)
        said = Counter(describe(*e) for e in errors)
        rows.append({"image": Path(path).name, "tiles": int(n_tiles), **{k: kinds[k] for k in KINDS},
                     "errors": [f"{n}× {d}" if n > 1 else d for d, n in sorted(said.items())]})
    return sorted(rows, key=lambda r: (-sum(r[k] for k in KINDS), r["image"]))


def miss_kinds(rows: Sequence[dict]) -> dict:
    """Over the images not read exactly: how many had each kind of error, how many that kind alone,
    and the wrong boxes of each kind in all."""
    out: dict = {"images_not_exact": len(rows)}
    for k in KINDS:
        out[f"images_with_{k}"] = sum(1 for r in rows if r[k])
        out[f"images_only_{k}"] = sum(1 for r in rows if r[k] and all(not r[o] for o in KINDS if o != k))
        out[f"boxes_{k}"] = sum(r[k] for r in rows)
    return out


def fixes_per_image(s: Scores) -> dict[str, float]:
    """How many fixes a user makes on each photo before its tiles are right, over the images: one per face
    misread (the picker), tile missed (added) or box on no tile (removed); a box off its tile with the right face
    needs none. Shares of images with 0, 1, 2 and 3 or more, and the mean."""
    counts = np.array([sum(error_kind(t, p) != "off" for t, p, _ in errors) for errors in s.errors], np.int64)
    n = max(len(counts), 1)
    return {"0": float((counts == 0).sum() / n), "1": float((counts == 1).sum() / n),
            "2": float((counts == 2).sum() / n), "3+": float((counts >= 3).sum() / n),
            "mean": float(counts.mean()) if len(counts) else 0.0}


def confusions(s: Scores, top: int = 10) -> list[tuple[str, int]]:
    """The commonest misreads over the set ("3m read as 2m"), with counts."""
    count = Counter(describe(t, p) for errors in s.errors for t, p, _ in errors if t != p and NC not in (t, p))
    return count.most_common(top)


def format_misses(row: str, rows: Sequence[dict], common: Sequence[tuple[str, int]], show: int) -> str:
    """Text for ``--show-misses N``: the kinds of error, the commonest misreads, then the first N images."""
    kinds = miss_kinds(rows)
    lines = [f"{row}: {kinds['images_not_exact']} images not exact; by kind of wrong box "
             "(images with it, with it alone, boxes): "
             + ", ".join(f"{k} {kinds[f'images_with_{k}']}/{kinds[f'images_only_{k}']}/{kinds[f'boxes_{k}']}"
                         for k in KINDS)]
    if common:
        lines.append("  commonest misreads: " + ", ".join(f"{what} ×{n}" for what, n in common))
    for r in rows[:show]:
        lines.append(f"  {r['image']} ({r['tiles']} tiles): " + "; ".join(r["errors"]))
    if len(rows) > show:
        lines.append(f"  {'…' if show else ''}{len(rows) - show} {'more ' if show else ''}in the JSON ('images')")
    return "\n".join(lines)


def write_preds(images: Sequence[Path], sizes: Sequence[tuple[int, int]], preds: Sequence[ImageBoxes],
                out: Path) -> Path:
    """One ``cls cx cy w h conf`` file per image (named by its stem) and ``classes.txt``: what ``--preds`` reads."""
    if not len(images) == len(sizes) == len(preds):
        raise ValueError(f"need a size and predictions per image: {len(images)} images, {len(sizes)} sizes, "
                         f"{len(preds)} predictions")
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "classes.txt", classes_text())
    for path, (w, h), boxes in zip(images, sizes, preds, strict=True):
        rows = np.column_stack([boxes.cls, xyxy_to_yolo(boxes.xyxy, w, h), boxes.conf])
        atomic_write_text(out / f"{Path(path).stem}.txt", format_labels(rows))
    return out


def check_out_folder(flag: str, folder: Path) -> None:
    """Refuse, before any photo is read, a folder to write into that cannot be: a file in its place or on its path,
    or a folder that cannot be written (read-only, another user's). Nothing is made here: a folder not there yet is
    made when written, as its missing parents are."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{flag} {folder}: expected a folder, got a file")
    check_writable(flag, folder, folder)


def check_out_file(flag: str, path: Path) -> None:
    """Refuse, before any work, a file to write that cannot be: a folder in its place, a file on the path to it, a
    folder it cannot be written in or a file there that cannot be written over. Its folder, not there yet, is made
    when it is written."""
    if path.is_dir():
        raise ValueError(f"{flag} {path}: expected a file, got a folder")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{flag} {path}: expected a file that can be written, got one that cannot (not writable"
                         f"{', a read-only disk' if read_only(path) else ''})")
    check_writable(flag, path, path.parent)


TILE_PX = "tile_px"  # a --by key computed from the true boxes, so any set has it (real photos too)
TILE_PX_EDGES = (30, 40, 50, 60, 80)  # bands of the median tile's longer side in pixels
TILE_PX_BANDS = (f"<{TILE_PX_EDGES[0]} px",
                 *(f"{a}–{b} px" for a, b in zip(TILE_PX_EDGES[:-1], TILE_PX_EDGES[1:], strict=True)),
                 f"≥{TILE_PX_EDGES[-1]} px")


def tile_px_band(truth: ImageBoxes) -> str:
    """The band of the median longer side of an image's true tile boxes (ignored regions left out)."""
    boxes = truth.xyxy[truth.cls >= 0]
    if not len(boxes):
        return "no tiles"
    side = float(np.median((boxes[:, 2:] - boxes[:, :2]).max(axis=1)))
    return TILE_PX_BANDS[int(np.searchsorted(TILE_PX_EDGES, side, side="right"))]


def exact_by(images: Sequence[Path], s: Scores, meta_dir: Path, key: str,
             truths: Sequence[ImageBoxes] | None = None) -> dict[str, dict]:
    """Image exact per value of a field of each image's ``meta/<stem>.json`` (synthetic sets: ``style``,
    ``layout``, ``pattern``…), most images first; images without the field count under ``?``. The key
    ``tile_px`` needs no meta: the images are grouped by the size of their tiles (``truths``), smallest first."""
    groups: dict[str, list[bool]] = {}
    if key == TILE_PX:
        if truths is None:
            raise ValueError("--by tile_px needs the true boxes of the images")
        for truth, errors in zip(truths, s.errors, strict=True):
            groups.setdefault(tile_px_band(truth), []).append(not errors)
        ordered = sorted(groups.items(), key=lambda kv: (TILE_PX_BANDS + ("no tiles",)).index(kv[0]))
    else:
        if not meta_dir.is_dir():
            raise ValueError(f"--by {key} needs per-image meta files in {meta_dir} (synthetic sets have them)")
        for path, errors in zip(images, s.errors, strict=True):
            value = _meta(meta_dir / f"{Path(path).stem}.json").get(key, "?")
            groups.setdefault(str(value), []).append(not errors)
        ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {v: {"images": len(ok), "image_exact": sum(ok) / len(ok)} for v, ok in ordered}


PLAIN = (str, int, float, bool)  # meta values that name a group; a list or a table would print whole as its name


def check_by(images: Sequence[Path], meta_dir: Path, keys: Sequence[str]) -> None:
    """Refuse, before any photo is read, a ``--by`` key that no meta file of ``images`` has or whose values are not
    plain text or numbers (``situation``, ``tiles``), naming the keys that would do; ``tile_px`` needs no meta."""
    asked = [key for key in keys if key != TILE_PX]
    if not asked:
        return
    if not meta_dir.is_dir():
        raise ValueError(f"--by {asked[0]} needs per-image meta files in {meta_dir} (synthetic sets have them); "
                         f"--by {TILE_PX} needs none")
    plain: dict[str, bool] = {}  # field → whether every value of it is plain
    for path in images:
        meta = _meta(meta_dir / f"{Path(path).stem}.json")
        for key, value in meta.items():
            plain[key] = plain.get(key, True) and (value is None or isinstance(value, PLAIN))
    usable = ", ".join([*sorted(k for k, ok in plain.items() if ok), TILE_PX])
    for key in asked:
        if key not in plain:
            raise ValueError(f"--by {key}: no meta file in {meta_dir} has that field; expected one of {usable}")
        if not plain[key]:
            raise ValueError(f"--by {key}: its values are not plain text or numbers; expected one of {usable}")


def _meta(path: Path) -> dict:
    """A photo's meta file as a table ({} when it has none)."""
    if not path.is_file():
        return {}
    try:
        meta = json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: expected a JSON object, got a syntax error ({e})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(meta).__name__}")
    return meta


def format_per_class(row: str, per_class: dict[str, dict]) -> str:
    """A row's per-class figures (the JSON's ``per_class``), one line a face, its Chinese name beside it; classes
    with no true tile and no box are left out."""
    from xingzi.engine.tiles import CLASS_NAMES, CLASS_NAMES_CN

    def cell(v: float | None) -> str:
        return f"{v:>7.3f}" if v is not None else f"{'-':>7}"

    zh = dict(zip(CLASS_NAMES, CLASS_NAMES_CN, strict=False))
    lines = [f"per class, {row}:", f"  {'class':<12}{'truth':>6}{'TP':>6}{'FP':>6}{'FN':>6}{'P':>7}{'R':>7}{'F1':>7}"
             f"{'AP50':>7}"]
    for name, c in per_class.items():
        if c["truth"] or c["fp"]:
            label = f"{name} {zh.get(name, '')}"
            pad = 12 - sum(2 if ord(ch) > 0x2E80 else 1 for ch in label)  # a Chinese character takes two cells
            lines.append(f"  {label}{' ' * max(pad, 1)}{c['truth']:>6}{c['tp']:>6}{c['fp']:>6}{c['fn']:>6}"
                         + "".join(cell(c[k]) for k in ("precision", "recall", "f1", "ap50")))
    return "\n".join(lines)


def format_by(row: str, key: str, table: dict[str, dict]) -> str:
    lines = [f"{row}: image exact by {key}"]
    lines += [f"  {v:<24} {t['image_exact']:6.1%} of {t['images']}" for v, t in table.items()]
    return "\n".join(lines)


MISS_COLORS = {"misread": (235, 110, 0), "off": (210, 170, 0), "missed": (220, 30, 30), "extra": (190, 0, 190)}


def draw_misses(image_bgr: np.ndarray, truth: ImageBoxes, preds: ImageBoxes) -> np.ndarray:
    """The photo with its wrong boxes drawn (same size, BGR): a misread box orange, labelled 真 true → 读 read;
    a box off its tile yellow beside its tile; a tile with no box red (漏 missed); a box on no tile purple (多 extra).
    ``truth`` without ignored boxes and ``preds`` at the operating threshold, as scored."""
    import cv2
    from PIL import Image, ImageDraw

    from xingzi.vision.draw import draw_tags, font
    from xingzi.vision.names import MISS_MARKS

    img = Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB))
    canvas = ImageDraw.Draw(img)
    side = float(np.median(np.concatenate([truth.xyxy[:, 2:] - truth.xyxy[:, :2],
                                           preds.xyxy[:, 2:] - preds.xyxy[:, :2]]))) if len(truth) + len(preds) else 20
    fnt, width = font(int(max(12, side * 0.35))), max(2, int(side / 15))
    tags = []
    for t, p, off in error_boxes(truth, preds):
        kind = error_kind(int(truth.cls[t]) if t >= 0 else NC, int(preds.cls[p]) if p >= 0 else NC)
        color = MISS_COLORS[kind]
        if t >= 0:
            canvas.rectangle(tuple(truth.xyxy[t]), outline=(255, 255, 255) if p >= 0 else color, width=width)
        if p >= 0:
            canvas.rectangle(tuple(preds.xyxy[p]), outline=color, width=width)
        true_cn = CLASS_NAMES_CN[int(truth.cls[t])] if t >= 0 else ""
        read_cn = CLASS_NAMES_CN[int(preds.cls[p])] if p >= 0 else ""
        m = MISS_MARKS
        text = {"misread": f"{m['true']}{true_cn}\n{m['read']}{read_cn}" + (f"\n{m['off']}" if off else ""),
                "off": f"{m['off']} {read_cn}", "missed": f"{m['missed']} {true_cn}",
                "extra": f"{m['extra']} {read_cn}"}[kind]
        x0, y0, x1, y1 = (float(v) for v in (preds.xyxy[p] if p >= 0 else truth.xyxy[t]))
        tags.append(((x0, y0, x1, y1), text, color))
    # each label where it covers no other label and as few tiles as may be, as on the annotated photo
    draw_tags(canvas, tags, fnt, [], img.size, np.concatenate([truth.xyxy, preds.xyxy]).astype(np.float64))
    return cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)


def write_miss_pictures(images: Sequence[Path], truths: Sequence[ImageBoxes], preds: Sequence[ImageBoxes],
                        conf: float, out: Path, perturb=None) -> int:
    """:func:`draw_misses` of every image not read exactly, as ``out/<stem>.jpg``; returns how many.
    ``perturb``: the change the photos were read with (``--perturb``), applied before drawing."""
    import cv2

    from xingzi.vision.metrics import drop_ignored
    from xingzi.vision.photo import imread_quiet

    n = 0
    for path, truth, pred in zip(images, truths, preds, strict=True):
        t, p = drop_ignored(truth, pred)
        op = p.select(p.conf >= conf)
        if not error_boxes(t, op):
            continue
        image = imread_quiet(path)
        if image is None:
            raise ValueError(f"cannot read {path} as an image")
        if perturb is not None:
            image = np.ascontiguousarray(perturb.image(image))
        out.mkdir(parents=True, exist_ok=True)
        ok, buf = cv2.imencode(".jpg", draw_misses(image, t, op), [cv2.IMWRITE_JPEG_QUALITY, 88])
        if not ok:
            raise ValueError(f"cannot encode the drawing of {path}")
        (out / f"{Path(path).stem}.jpg").write_bytes(buf.tobytes())
        n += 1
    return n
