"""The page's "save labels": one corrected photo as a YOLO sample in a zip (``datasets/samples.py``).

The zip holds ``images/NAME.jpg`` (the photo as the server read it), ``labels/NAME.txt``, ``data.yaml`` and
``classes.txt``: it is a dataset as it stands, and ``xingzi dataset check`` / ``merge`` read any number of
them (docs/labelling.md).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

import numpy as np

from xingzi.datasets.samples import encode_sample
from xingzi.datasets.yolo import data_yaml_text
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.detections import Detections


def labels_zip(image: np.ndarray, det: Detections, removed: Iterable[int], ignored: Iterable[int], name: str) -> bytes:
    """The zip of one sample (see the module): ``image`` BGR, ``det`` in its pixels."""
    jpeg, text = encode_sample(image, det, removed, ignored)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"images/{name}.jpg", jpeg)
        z.writestr(f"labels/{name}.txt", text)
        z.writestr("data.yaml", data_yaml_text("."))
        z.writestr("classes.txt", "\n".join(CLASS_NAMES) + "\n")
    return buf.getvalue()
