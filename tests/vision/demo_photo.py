"""The bundled demo photo as test material: the image, its true boxes, a one-photo YOLO dataset."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from xingzi.engine.tiles import CLASS_NAMES

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def demo_photo() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(BGR image, true boxes xyxy in its pixels, true classes)."""
    meta = json.loads((EXAMPLES / "demo.json").read_text(encoding="utf-8"))
    image = cv2.imread(str(EXAMPLES / "demo.jpg"))
    truth = np.array([t["xyxy"] for t in meta["tiles"]], np.float32) * (image.shape[1] / meta["size"][0])
    return image, truth, np.array([t["cls"] for t in meta["tiles"]])


def write_demo_dataset(root: Path, image: np.ndarray, name: str) -> Path:
    """``root`` as a YOLO dataset of one picture made from the demo photo (same content, any size:
    YOLO labels are relative, so a resized or stretched copy keeps them)."""
    demo, truth, cls = demo_photo()
    h, w = demo.shape[:2]
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / name), image)
    rows = [f"{c} {(x1 + x2) / 2 / w} {(y1 + y2) / 2 / h} {(x2 - x1) / w} {(y2 - y1) / h}"
            for c, (x1, y1, x2, y2) in zip(cls, truth, strict=True)]
    (root / "labels" / f"{Path(name).stem}.txt").write_text("\n".join(rows) + "\n")
    (root / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    return root
