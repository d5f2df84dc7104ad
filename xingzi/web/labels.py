"""A corrected photo saved as training data: the page's "save labels" gives a zip of one YOLO sample.

The zip holds ``images/NAME.jpg`` (the photo as the server read it), ``labels/NAME.txt`` (every tile box
with its face as corrected, the tiles the user added, none of the boxes the user said are no tile, none of
the tiles of no Xingzi face), ``data.yaml`` and ``classes.txt``: unzipped into one folder, any number of them
make a dataset that ``xingzi dataset check`` / ``merge`` and training read (docs/labelling.md).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable

import cv2
import numpy as np

from xingzi.datasets.label import detections_to_label_text
from xingzi.datasets.yolo import data_yaml_text
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group

NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(value: object, default: str = "photo") -> str:
    """A file stem for the sample from the photo's file name: its extension dropped, only letters, digits,
    ``_ . -`` kept (others become ``_``), at most 64 characters."""
    if not isinstance(value, str):
        return default
    stem = value.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem.strip(".") else stem
    stem = NAME_CHARS.sub("_", stem).strip("._")[:64]
    return stem or default


def labelled(det: Detections, removed: Iterable[int], ignored: Iterable[int]) -> Detections:
    """The boxes that are tiles of the game: not removed by the user, not read as a tile of no Xingzi face
    (a face the user picked makes it one). Tiles set aside as not part of the hand are still tiles."""
    gone = set(int(i) for i in removed)
    roles = group(det, tuple(int(i) for i in ignored)).roles
    keep = np.array([i not in gone and roles[i] != "foreign" for i in range(len(det))], bool)
    return det.subset(keep)


def labels_zip(image: np.ndarray, det: Detections, removed: Iterable[int], ignored: Iterable[int], name: str) -> bytes:
    """The zip of one sample (see the module): ``image`` BGR, ``det`` in its pixels."""
    h, w = image.shape[:2]
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if not ok:
        raise ValueError("the photo could not be encoded as JPEG")
    text = detections_to_label_text(labelled(det, removed, ignored), w, h)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"images/{name}.jpg", jpeg.tobytes())
        z.writestr(f"labels/{name}.txt", text)
        z.writestr("data.yaml", data_yaml_text("."))
        z.writestr("classes.txt", "\n".join(CLASS_NAMES) + "\n")
    return buf.getvalue()
