"""The page's "save labels": one corrected photo as a YOLO sample in a zip (``datasets/samples.py``).

The zip holds ``images/NAME.jpg`` (the photo as the server read it), ``labels/NAME.txt``, ``meta/NAME.json`` (the
score as the truth of a pipeline sample, when there is one), ``data.yaml`` and ``classes.txt``: it is a dataset as it stands, and ``xingzi dataset check`` / ``merge`` read any number of
them (docs/labelling.md).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence

import numpy as np

from xingzi.datasets.samples import encode_sample, meta_text
from xingzi.datasets.yolo import classes_text, data_yaml_text
from xingzi.vision.detections import Detections


def labels_zip(image: np.ndarray, det: Detections, keep: Sequence[int], name: str, meta: dict | None = None) -> bytes:
    """The zip of one sample (see the module): ``image`` BGR, ``det`` in its pixels, ``keep`` the boxes labelled;
    ``meta`` its truth as a pipeline sample (``meta/NAME.json``)."""
    jpeg, text = encode_sample(image, det, keep)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"images/{name}.jpg", jpeg)
        z.writestr(f"labels/{name}.txt", text)
        if meta is not None:
            z.writestr(f"meta/{name}.json", meta_text(meta))
        z.writestr("data.yaml", data_yaml_text("."))
        z.writestr("classes.txt", classes_text())
    return buf.getvalue()
