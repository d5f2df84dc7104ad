"""Pre-label a folder of photos with a detector (``xingzi label PHOTOS --out DATASET``).

Writes a YOLO dataset (``images/``, ``labels/``, ``data.yaml``) and Label Studio files to correct
the boxes in. Work is never lost: an existing label file is kept (corrected labels win) unless
``overwrite`` is asked, and then it is backed up first; every file is written atomically, so an
interrupted run simply resumes; a photo that cannot be read is reported and the rest go on.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xingzi.datasets.check import refuse_other_classes
from xingzi.datasets.classnames import dropped_note
from xingzi.datasets.labelstudio import save_label, write_labelstudio_files
from xingzi.datasets.split import clashes, place_file, refuse_clash
from xingzi.datasets.yolo import (
    IMAGE_SUFFIXES,
    atomic_write_text,
    data_yaml_text,
    format_labels,
    image_files,
    jpeg_cut_short,
    xyxy_to_yolo,
)
from xingzi.vision.detections import Detections

if TYPE_CHECKING:
    from PIL import Image

Predictor = Callable[[np.ndarray], Detections]
# Photos are decoded at reduced size for the detector (boxes are stored normalised, so the scale
# does not matter); the copy in the dataset keeps full resolution.
DECODE_SIZE = (1280, 1280)


@dataclass(frozen=True)
class PrelabelReport:
    out: str
    photos: int
    predicted: int  # label files written from the model this run
    kept: int  # existing label files left alone (corrected labels win; resumed runs)
    replaced: int  # with overwrite: changed after a backup
    failed: tuple[tuple[str, str], ...]  # (photo, why) for photos that could not be read
    predict_seconds: float  # reading + predicting + writing, for the photos predicted
    tasks_file: str
    cut_short: tuple[str, ...] = ()  # JPEGs without their end, labelled as they decode
    foreign: int = 0  # boxes left out as tiles of no Xingzi face (winds, flowers), this run
    new: int = 0  # of the predicted: label files there were none of
    unchanged: int = 0  # of the predicted, with overwrite: the same boxes as the file there (left as it was)

    @property
    def photos_per_second(self) -> float:
        return self.predicted / self.predict_seconds if self.predict_seconds > 0 else 0.0

    def summary(self) -> str:
        lines = [f"{self.out}: {self.photos} photos, {self.predicted} pre-labelled"  # the parts add up to the whole
                 f" ({self.photos_per_second:.2f} photos/s: {self.new} new, {self.replaced} replaced (backups in"
                 f" labels_backup/), {self.unchanged} unchanged), {self.kept} existing labels kept,"
                 f" {len(self.failed)} failed"]
        lines += [f"  skipped {p}: {why}" for p, why in self.failed]
        if self.foreign:
            lines.append(f"left out {self.foreign} boxes read as tiles of no Xingzi face (winds, flowers)")
            lines.append(dropped_note(self.foreign))
        if self.cut_short:  # as `xingzi eval` scores them and training reads them: the labels fit what they show
            lines.append(f"note: {len(self.cut_short)} JPEG(s) cut short, labelled as they decode (their lower part "
                         f"grey), e.g. {self.cut_short[0]}: copy them again if you have them whole")
        lines.append(f"Label Studio: import {self.tasks_file} with labelling config labelstudio_config.xml")
        return "\n".join(lines)


CONVERTED = (".heic", ".heif")  # an iPhone's photos: stored as JPEG, which every labelling and training tool reads


def load_photo(path: Path) -> tuple[np.ndarray, bool]:
    """(BGR image as the viewer sees it, reduced for speed; whether EXIF rotates it). Raises
    OSError/ValueError for files that are not readable images."""
    from PIL import ImageOps

    from xingzi.vision.photo import eight_bit, imread_quiet

    if jpeg_cut(path):  # Pillow stops at the cut; OpenCV decodes the rest grey, as eval and training read it
        image = imread_quiet(path)
        if image is None:
            raise ValueError("OpenCV decodes nothing of it")
        return image, _is_rotated(path)
    with _open_image(path) as im:
        rotated = im.getexif().get(0x0112, 1) not in (1, None)
        im.draft("RGB", DECODE_SIZE)  # JPEG: decode at 1/2..1/8 scale, much faster
        rgb = eight_bit(ImageOps.exif_transpose(im)).convert("RGB")  # 16-bit grey scaled, not clipped white
        return np.ascontiguousarray(np.asarray(rgb)[:, :, ::-1]), rotated


def _open_image(path: Path) -> Image.Image:
    """PIL's image; a decompression bomb is a photo not to read (PIL raises no OSError for it)."""
    from PIL import Image

    if path.suffix.lower() in CONVERTED:
        from pillow_heif import register_heif_opener  # (the vision extra's; only an iPhone's photos need it)

        register_heif_opener()

    try:
        return Image.open(path)
    except Image.DecompressionBombError as e:
        raise ValueError(str(e)) from None


def store_photo(src: Path, dst: Path, rotated: bool, link: bool) -> None:
    """Put the photo into the dataset; a rotated one is saved upright so every tool sees the same
    pixels the boxes refer to, and an iPhone's HEIC as a JPEG (``dst`` names it so)."""
    if not rotated and src.suffix.lower() not in CONVERTED:
        refuse_clash(dst, src)  # another photo already there under this name: the new boxes would not fit it
        place_file(src, dst, link)
        return
    if dst.exists():  # the same photo: prelabel_folder refused another one before it began
        return
    from PIL import Image

    tmp = dst.with_name(f".{dst.name}.tmp")
    dst.parent.mkdir(parents=True, exist_ok=True)
    fmt = Image.registered_extensions().get(dst.suffix.lower(), "PNG")
    try:
        _upright(src).save(tmp, format=fmt, quality=95)
        tmp.replace(dst)
    except BaseException:  # (a full disk, Ctrl-C: no half-written copy left beside the photos)
        tmp.unlink(missing_ok=True)
        raise


def _upright(src: Path) -> Image.Image:
    """The photo as it is stored in the dataset when it is not copied as it is: upright, 8-bit RGB."""
    from PIL import Image, ImageOps

    from xingzi.vision.photo import eight_bit, imread_quiet

    if jpeg_cut(src):  # saved upright as it was labelled: OpenCV's decoding (Pillow stops at the cut)
        image = imread_quiet(src)
        if image is None:
            raise ValueError(f"{src}: OpenCV decodes nothing of it")
        return Image.fromarray(np.ascontiguousarray(image[..., ::-1]))
    with _open_image(src) as im:
        return eight_bit(ImageOps.exif_transpose(im)).convert("RGB")


# A photo stored again (upright, as a JPEG of quality 95) differs from its first copy by about 1 level on average;
# another photo, by far more.
SAME_PICTURE_LEVELS = 4.0


def _refuse_other_photo(src: Path, dst: Path, rotated: bool) -> None:
    """``dst``, the dataset's photo of the name ``src`` is stored under, must be ``src`` (copied as it is, or
    stored upright): another photo's labels would be taken for this one's, or this one's boxes put on it."""
    if not rotated and src.suffix.lower() not in CONVERTED:
        same = not clashes(dst, src)
    else:
        try:
            from PIL import Image

            with Image.open(dst) as im:
                there = np.asarray(im.convert("RGB"), np.int16)
            mine = np.asarray(_upright(src), np.int16)
            same = there.shape == mine.shape and float(np.abs(there - mine).mean()) <= SAME_PICTURE_LEVELS
        except (OSError, ValueError, SyntaxError):  # one of them unreadable: it is reported (or refused) as such
            return
    if not same:
        raise ValueError(f"{dst} already exists and differs from {src}, another photo of that name (labelled from "
                         "another folder?); expected the same photo again: rename it, or label into a new folder")


def jpeg_cut(path: Path) -> bool:
    return path.suffix.lower() in (".jpg", ".jpeg") and jpeg_cut_short(path)


def detections_to_label_text(dets: Detections, width: int, height: int) -> str:
    """YOLO label text for detections in pixels of a ``width`` x ``height`` image; boxes clipped."""
    xyxy = np.asarray(dets.xyxy, np.float64).reshape(-1, 4).copy()
    xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clip(0, width)
    xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clip(0, height)
    cls = np.asarray(dets.cls, np.int64)  # 0..30: Detections holds no other
    keep = (xyxy[:, 2] > xyxy[:, 0]) & (xyxy[:, 3] > xyxy[:, 1])
    rows = np.concatenate([cls[keep, None].astype(np.float64), xyxy_to_yolo(xyxy[keep], width, height)], axis=1)
    return format_labels(rows)


def dataset_name_for(photo: Path, photos_dir: Path) -> str:
    """Photos in sub-folders get the folder in their name, so two ``IMG_0001.jpg`` cannot collide; a HEIC is
    kept as a JPEG of its name."""
    name = photo.relative_to(photos_dir).as_posix().replace("/", "__")
    return str(Path(name).with_suffix(".jpg")) if photo.suffix.lower() in CONVERTED else name


def photo_files(photos_dir: Path) -> list[Path]:
    """The photos to pre-label: any image the dataset tools read, and an iPhone's HEIC."""
    return sorted(p for p in photos_dir.rglob("*") if p.suffix.lower() in (*IMAGE_SUFFIXES, *CONVERTED))


def progress(items: list, desc: str, enabled: bool) -> Iterable:
    if not enabled:
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return _plain_progress(items, desc)
    return tqdm(items, desc=desc, unit="photo", file=sys.stderr)


def _plain_progress(items: list, desc: str) -> Iterator:
    n = len(items)
    for i, item in enumerate(items, 1):
        yield item
        print(f"\r{desc}: {i}/{n} photos", end="\n" if i == n else "", file=sys.stderr, flush=True)


def prelabel_folder(photos_dir: str | Path, out_dir: str | Path, predict: Predictor, overwrite: bool = False,
                    link: bool = False, show_progress: bool = True, url_prefix: str | None = None,
                    model_version: str = "xingzi") -> PrelabelReport:
    """Pre-label every photo under ``photos_dir`` into the dataset ``out_dir``."""
    src, out = Path(photos_dir), Path(out_dir)
    if src.is_file():
        raise ValueError(f"{src} is a photo: give the folder it is in (every photo under it is pre-labelled)")
    if not src.is_dir():
        raise FileNotFoundError(f"photo folder not found: {src}")
    out_resolved = out.resolve()
    found = photo_files(src)
    photos = [p for p in found if out_resolved not in p.resolve().parents]
    if not photos:  # the dataset's own photos are never read as new ones
        inside = f" ({len(found)} under it are the dataset {out}'s own: put new photos outside it)" if found else ""
        raise ValueError(f"no photos ({' '.join((*IMAGE_SUFFIXES, *CONVERTED))}) found under {src}{inside}")
    _refuse_shared_labels(photos, src, out)
    _refuse_unlistable_names(photos, src, out)
    refuse_other_classes(out)
    for photo in photos:  # before any is labelled: a run stopped half-way is no refusal
        image_dst = out / "images" / dataset_name_for(photo, src)
        if image_dst.exists():
            _refuse_other_photo(photo, image_dst, _is_rotated(photo))
    predicted = kept = replaced = new = unchanged = 0
    failed: list[tuple[str, str]] = []
    cut: list[str] = []
    foreign = 0
    seconds = 0.0
    for photo in progress(photos, "pre-labelling", show_progress):
        name = dataset_name_for(photo, src)
        image_dst = out / "images" / name
        label = out / "labels" / (Path(name).stem + ".txt")
        if label.exists() and not overwrite:
            if not image_dst.exists():
                store_photo(photo, image_dst, _is_rotated(photo), link)
            kept += 1
            continue
        t0 = time.perf_counter()
        try:
            image, rotated = load_photo(photo)
        except (OSError, ValueError, SyntaxError) as e:  # PIL's errors for broken files
            failed.append((str(photo), f"not a readable image ({e})"))
            continue
        store_photo(photo, image_dst, rotated, link)  # another photo already there under that name: stops the run
        if jpeg_cut(photo):
            cut.append(str(photo))
        found = predict(image)
        dets = no_foreign(found)
        foreign += len(found) - len(dets)
        text = detections_to_label_text(dets, image.shape[1], image.shape[0])
        status = save_label(out, label, text, replace=overwrite)
        seconds += time.perf_counter() - t0
        predicted += 1
        replaced += status == "replaced"
        new += status == "new"
        unchanged += status == "unchanged"
    if not (out / "data.yaml").exists():
        atomic_write_text(out / "data.yaml", data_yaml_text(out.resolve()))
    tasks = write_labelstudio_files(out, url_prefix, model_version)
    return PrelabelReport(str(out), len(photos), predicted, kept, replaced, tuple(failed), seconds, str(tasks),
                          tuple(cut), foreign, new, unchanged)


def _is_rotated(photo: Path) -> bool:
    try:
        with _open_image(photo) as im:
            return im.getexif().get(0x0112, 1) != 1
    except (OSError, ValueError):
        return False


def _refuse_shared_labels(photos: list[Path], src: Path, out: Path) -> None:
    """Two photos on one label file (``x.jpg`` and ``x.png``, ``a/b.jpg`` and ``a__b.jpg``, or a photo and
    another image already in the dataset) would be given each other's boxes."""
    images = out / "images"
    there = {p.stem: p for p in image_files(images)} if images.is_dir() else {}
    mine: dict[str, Path] = {}
    for photo in photos:
        name = dataset_name_for(photo, src)
        stem = Path(name).stem
        other = mine.get(stem) or (there[stem] if stem in there and there[stem].name != name else None)
        if other is not None:
            raise ValueError(f"{photo} and {other} would share the label file labels/{stem}.txt; expected one "
                             "photo per name (rename one)")
        mine[stem] = photo


def _refuse_unlistable_names(photos: list[Path], src: Path, out: Path) -> None:
    """A file name whose bytes are not UTF-8 cannot be written into the Label Studio tasks (nor the train lists):
    refused before anything is written."""
    images = out / "images"
    there = [(p, p.relative_to(images).as_posix()) for p in image_files(images)] if images.is_dir() else []
    for path, name in [*((p, dataset_name_for(p, src)) for p in photos), *there]:
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            shown = os.fsencode(path).decode("utf-8", "backslashreplace")
            raise ValueError(f"{shown}: a file name whose bytes are not UTF-8 cannot be listed in the Label Studio "
                             "tasks; expected a UTF-8 name (rename it)") from None


def no_foreign(dets: Detections) -> Detections:
    """The boxes but those the classifier reads as a tile of no Xingzi face (a wind, a flower): labelled as the face
    they look most like, they would teach that face; the page and `xingzi score --labels` leave them out too."""
    from xingzi.vision.grouping import FOREIGN_P

    return dets if dets.foreign is None else dets.subset(dets.foreign <= FOREIGN_P)


def detector_predictor(weights: str | None = None, imgsz: int | None = None, conf: float = 0.25) -> Predictor:
    """The detector's ``predict`` (default: the shipped model at the input size it was made for).
    Imports the vision stack only when called."""
    try:
        from xingzi.vision.detector import Detector
    except ImportError as e:
        raise ValueError(f"the tile detector (xingzi.vision.detector) is not available: {e}") from e
    return Detector(weights=weights, imgsz=imgsz, conf=conf).predict
