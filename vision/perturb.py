"""Photos taken another way: named changes to a photo and its true boxes, for measuring how the
detector holds up beyond the conditions of its validation set (`xingzi eval --perturb NAME`).

At the table a phone may shoot the hand from either side or from the player's left, in dim light, shaky,
small or heavily compressed; each change here stands for one of those. A change maps the image and
moves the true boxes with it, so the same scorer measures the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Perturbation:
    name: str
    what: str
    image: Callable[[np.ndarray], np.ndarray]
    # true boxes (N, 4) xyxy in the original photo of size (width, height) -> boxes in the changed photo
    boxes: Callable[[np.ndarray, int, int], np.ndarray]


def _same(xyxy: np.ndarray, w: int, h: int) -> np.ndarray:
    return xyxy


def _rot90_boxes(xyxy: np.ndarray, w: int, h: int) -> np.ndarray:
    # a quarter turn clockwise: (x, y) -> (h - y, x)
    x1, y1, x2, y2 = xyxy.T
    return np.stack([h - y2, x1, h - y1, x2], axis=1)


def _rot180_boxes(xyxy: np.ndarray, w: int, h: int) -> np.ndarray:
    x1, y1, x2, y2 = xyxy.T
    return np.stack([w - x2, h - y2, w - x1, h - y1], axis=1)


def _jpeg(image: np.ndarray, quality: int = 30) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("cannot encode the photo as JPEG")
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:
        raise ValueError("cannot decode the re-saved JPEG")
    return decoded


def _dim(image: np.ndarray) -> np.ndarray:
    lut = (np.linspace(0, 1, 256) ** 1.8 * 200).astype(np.uint8)  # darker, mid-tones crushed
    return cv2.LUT(image, lut)


def _cast(image: np.ndarray, bgr: tuple[float, float, float]) -> np.ndarray:
    return np.clip(image.astype(np.float32) * np.array(bgr, np.float32), 0, 255).astype(np.uint8)


def _blur(image: np.ndarray) -> np.ndarray:
    sigma = max(image.shape[:2]) / 400  # 1.6 px on a 640 photo: a slightly shaken phone
    return cv2.GaussianBlur(image, (0, 0), sigma)


PERTURBATIONS: dict[str, Perturbation] = {p.name: p for p in (
    Perturbation("rot90", "turned a quarter clockwise (shot from the side)",
                 lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE), _rot90_boxes),
    Perturbation("rot180", "upside down (shot from across the table)",
                 lambda im: cv2.rotate(im, cv2.ROTATE_180), _rot180_boxes),
    Perturbation("half", "half the size (a photo from further away or downscaled)",
                 lambda im: cv2.resize(im, (max(1, im.shape[1] // 2), max(1, im.shape[0] // 2)),
                                       interpolation=cv2.INTER_AREA),
                 lambda b, w, h: b * np.array([(w // 2) / w, (h // 2) / h] * 2)),
    Perturbation("blur", "Gaussian blur, sigma = long side / 400 (shake, focus)", _blur, _same),
    Perturbation("jpeg30", "re-saved as JPEG quality 30 (messaging apps)", _jpeg, _same),
    Perturbation("dim", "dim light (gamma 1.8, at most 200)", _dim, _same),
    Perturbation("warm", "a warm lamp, no white balance (blue × 0.55, green × 0.8: a tungsten bulb)",
                 lambda im: _cast(im, (0.55, 0.8, 1.0)), _same),
    Perturbation("cold", "cold light (red × 0.75, green × 0.92: shade, a daylight LED)",
                 lambda im: _cast(im, (1.0, 0.92, 0.75)), _same),
)}


def get(name: str) -> Perturbation:
    if name not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {name!r}: expected one of {', '.join(PERTURBATIONS)}")
    return PERTURBATIONS[name]
