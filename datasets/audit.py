"""Labels a model disagrees with: ``xingzi dataset check DIR --model auto``.

The checks of ``check.py`` read the label files alone: a tile labelled with the wrong face, or a tile
nobody labelled, passes them. A detector sees both. Where it reads a labelled tile surely as another
face, or surely finds a tile that has no label, a person should look. These are warnings, not errors:
the model errs too, and a photo may leave tiles on the table unlabelled on purpose.

``detector`` is anything with ``predict(image_bgr) -> Detections`` (the shipped detector and its
classifier through ``vision.pipeline.make_detector``, or a fake in tests).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xingzi.datasets.check import ERROR, WARNING, Issue, dataset_pairs, parse_label_text, read_class_names
from xingzi.datasets.errata import UNREAD_ID, Errata, fix_parsed
from xingzi.datasets.yolo import image_size, tiff_turned
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.eval_data import name_table
from xingzi.vision.grouping import FOREIGN_P
from xingzi.vision.metrics import IGNORE, box_iou, pair_boxes
from xingzi.vision.photo import imread_quiet

SURE = 0.8  # detector confidence from which a disagreement is worth a look
UNLABELLED_IOU = 0.3  # a sure box overlapping no label (of any class) by this much is an unlabelled tile
NO_FACE = "no Xingzi face (a wind or flower?)"


def audit_dataset(root: str | Path, detector, sure: float = SURE, errata: Errata | None = None) -> list[Issue]:
    """Warnings ``disagree`` (a labelled face read surely as another) and ``unlabelled-tile`` (a tile found
    surely where there is no label), one per box, for every labelled image under ``root`` (``errata``: the
    labels of the photos they fix read as corrected). A photo whose header reads but whose pixels OpenCV cannot
    decode (which ``check_dataset``, reading headers alone, passes) is an error ``unreadable``."""
    if not 0 < sure <= 1:
        raise ValueError(f"sure must be in (0, 1], got {sure}")
    r = Path(root)
    names = read_class_names(r) or CLASS_NAMES
    table = name_table(names)
    issues: list[Issue] = []
    for image_path, label_path in dataset_pairs(r):
        if not label_path.exists() or (errata and image_path.name in errata.left_out):
            continue  # check_dataset reports a missing file; photos left out are known
        if not opens(image_path):  # check_dataset says it cannot be opened: the others are still read
            continue
        image = imread_quiet(image_path)  # (libjpeg's words on a JPEG cut short: check_dataset warns of it)
        if image is None:  # its header reads (check_dataset passed it), its pixels do not
            issues.append(Issue(ERROR, "unreadable", str(image_path.relative_to(r)), None,
                                "its header reads but OpenCV decodes nothing of it (damaged?), so the model could not "
                                "check it; training and evaluation read photos with OpenCV too: save it again"))
            continue
        parsed, _ = parse_label_text(label_path.read_text(errors="replace"))
        fix = errata.fix_for(image_path.name) if errata else None
        rows: list[tuple[int | None, list[float]]] = list(parsed) if fix is None else fix_parsed(parsed, fix, names)
        rows = [(n, v) for n, v in rows if v[0] == int(v[0]) and (0 <= v[0] < len(names) or v[0] == UNREAD_ID)]
        issues += audit_image(image, rows, table, detector.predict(image), str(label_path.relative_to(r)), sure)
    return issues


def opens(path: Path) -> bool:
    """Whether ``check_dataset`` finds the photo readable (it reports the others as ``unreadable``: not an image
    Pillow knows, a folder, a link to nothing, a TIFF turned by EXIF, which OpenCV cannot read)."""
    try:
        image_size(path)  # (the header alone, as check_dataset reads it)
        return not tiff_turned(path)
    except (ValueError, OSError):
        return False


def audit_image(image: np.ndarray, rows: list[tuple[int | None, list[float]]], table: np.ndarray, det,
                where: str, sure: float = SURE) -> list[Issue]:
    """The warnings for one image: ``rows`` are (line, [cls cx cy w h]) in the dataset's classes,
    ``table`` maps them to ours (IGNORE: winds and flowers), ``det`` the model's reading of it."""
    h, w = image.shape[:2]
    labels = np.array([[(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h]
                       for _, (_, cx, cy, bw, bh) in rows], np.float64).reshape(-1, 4)
    ours = np.array([IGNORE if v[0] == UNREAD_ID else table[int(v[0])] for _, v in rows], np.int64)
    boxes = np.asarray(det.xyxy, np.float64).reshape(-1, 4)
    foreign = np.zeros(len(boxes)) if det.foreign is None else np.asarray(det.foreign)
    out: list[Issue] = []
    for j, i in pair_boxes(labels, boxes):
        if det.conf[i] < sure or ours[j] == IGNORE:
            continue
        if foreign[i] > FOREIGN_P:
            read = NO_FACE
        elif int(det.cls[i]) != int(ours[j]):
            read = f"'{CLASS_NAMES[int(det.cls[i])]}'"
        else:
            continue
        out.append(Issue(WARNING, "disagree", where, rows[j][0],
                         f"labelled '{CLASS_NAMES[int(ours[j])]}', the model reads {read} ({float(det.conf[i]):.2f})"))
    overlap = box_iou(boxes, labels) if len(labels) else np.zeros((len(boxes), 0))
    for i in range(len(boxes)):
        if det.conf[i] < sure or foreign[i] > FOREIGN_P or (overlap.shape[1] and overlap[i].max() >= UNLABELLED_IOU):
            continue
        cx, cy = (boxes[i, 0] + boxes[i, 2]) / 2 / w, (boxes[i, 1] + boxes[i, 3]) / 2 / h
        out.append(Issue(WARNING, "unlabelled-tile", where, None,
                         f"the model finds a tile '{CLASS_NAMES[int(det.cls[i])]}' ({float(det.conf[i]):.2f}) "
                         f"at {cx:.3f},{cy:.3f} with no label there"))
    return out
