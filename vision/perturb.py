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


def _noise(image: np.ndarray) -> np.ndarray:
    # a phone at high ISO: fine luminance grain plus blotchy colour noise; fixed seed, so runs repeat
    rng = np.random.default_rng(0)
    h, w = image.shape[:2]
    grain = rng.normal(0.0, 14.0, (h, w, 1)).astype(np.float32)
    blotch = cv2.resize(rng.normal(0.0, 10.0, (h // 3 + 1, w // 3 + 1, 3)).astype(np.float32), (w, h))
    return np.clip(image.astype(np.float32) + grain + blotch, 0, 255).astype(np.uint8)


def _shot(image: np.ndarray) -> np.ndarray:
    # photon shot noise: each pixel a Poisson count, 60 at white, so dark parts are the grainiest
    rng = np.random.default_rng(1)
    counts = rng.poisson(image.astype(np.float32) * (60 / 255))
    return np.clip(counts * (255 / 60), 0, 255).astype(np.uint8)


def _motion(image: np.ndarray) -> np.ndarray:
    # the phone moved while the shutter was open: a streak along one direction, not a round blur; drawn here,
    # not with the generator's streak (datasets/synth/photo.py), so the test is not the training data's own
    n = max(3, round(max(image.shape[:2]) / 90)) | 1  # 7 px on a 640 photo
    kernel = np.zeros((n, n), np.float32)
    cv2.line(kernel, (0, n // 3), (n - 1, n - 1 - n // 3), 1.0, 1)
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def _shake(image: np.ndarray) -> np.ndarray:
    # a trembling hand: the smear bends along a quarter circle instead of running straight
    r = max(2, round(max(image.shape[:2]) / 107))  # 6 px on a 640 photo
    kernel = np.zeros((r + 3, r + 3), np.float32)
    for a in np.linspace(0, np.pi / 2, 8 * r):
        kernel[round(1 + r * np.sin(a)), round(1 + r * (1 - np.cos(a)))] += 1
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def _defocus(image: np.ndarray) -> np.ndarray:
    # the lens focused off the tiles: every point spread into a disk; drawn with OpenCV's circle four times
    # finer and averaged down, not with the kernel the pipeline divides out (vision/defocus.py)
    r = max(image.shape[:2]) / 200  # 3.2 px on a 640 photo
    n = 2 * int(np.ceil(r)) + 1
    fine = np.zeros((4 * n, 4 * n), np.float32)
    cv2.circle(fine, (2 * n, 2 * n), round(4 * r), 1.0, -1, cv2.LINE_8, 0)
    kernel = cv2.resize(fine, (n, n), interpolation=cv2.INTER_AREA)
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def _shadow(image: np.ndarray) -> np.ndarray:
    # the player's arm or phone between lamp and table: a soft-edged shadow over the lower left of the photo
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    across = (xx / w - 0.45) - (yy / h - 0.5)  # < 0: lower left of a diagonal through the middle
    lit = 1.0 / (1.0 + np.exp(across / 0.03))
    light = (1.0 - 0.6 * lit)[..., None]
    return np.clip(image.astype(np.float32) * light, 0, 255).astype(np.uint8)


def _glare(image: np.ndarray) -> np.ndarray:
    # a ceiling lamp mirrored in the glossy tiles: two washed-out patches where the hand usually lies
    h, w = image.shape[:2]
    side = max(h, w)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    sheen = np.zeros((h, w), np.float32)
    for cx, cy, r in ((0.42, 0.5, 0.06), (0.66, 0.46, 0.04)):
        sheen += np.exp(-(((xx - cx * w) ** 2 + (yy - cy * h) ** 2) / (2 * (r * side) ** 2)))
    sheen = np.clip(sheen * 0.9, 0.0, 0.9)[..., None]
    return (image.astype(np.float32) * (1 - sheen) + 255.0 * sheen).astype(np.uint8)


def _tilt_matrix(w: int, h: int) -> np.ndarray:
    # shot low across the table: the far side of the photo narrower than the near side
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[0.16 * w, 0.1 * h], [0.84 * w, 0.1 * h], [w, h], [0, h]], np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, dst))


def _tilt(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    return cv2.warpPerspective(image, _tilt_matrix(w, h), (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _tilt_boxes(xyxy: np.ndarray, w: int, h: int) -> np.ndarray:
    # each box's corners moved, then the box that holds them
    x1, y1, x2, y2 = np.asarray(xyxy, np.float32).reshape(-1, 4).T
    corners = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1),
                        np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)
    moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), _tilt_matrix(w, h)).reshape(-1, 4, 2)
    return np.concatenate([moved.min(1), moved.max(1)], axis=1)


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
    Perturbation("noise", "high-ISO grain and colour noise (a phone in a dark room)", _noise, _same),
    Perturbation("shot", "photon shot noise, 60 counts at white (a small sensor in a dim room)", _shot, _same),
    Perturbation("motion", "motion blur, a streak of long side / 90 (the phone moved)", _motion, _same),
    Perturbation("shake", "a curved smear, a quarter circle of radius long side / 107 (a trembling hand)",
                 _shake, _same),
    Perturbation("defocus", "out of focus: a blur disk of radius long side / 200", _defocus, _same),
    Perturbation("shadow", "a soft shadow over the lower-left half, 40 % of the light left", _shadow, _same),
    Perturbation("glare", "two washed-out patches near the middle (a lamp mirrored in glossy tiles)", _glare, _same),
    Perturbation("tilt", "perspective: shot low across the table, the far side 68 % as wide", _tilt, _tilt_boxes),
    Perturbation("negate", "the photo's negative: dark tiles with light faces, a set no training photo shows",
                 lambda im: 255 - im, _same),
)}


def get(name: str) -> Perturbation:
    if name not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {name!r}: expected one of {', '.join(PERTURBATIONS)}")
    return PERTURBATIONS[name]
