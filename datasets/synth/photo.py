"""Everything in a synthetic photo that is not a tile: the table, shadows, a rack, fingers, and the
camera's own marks (lighting, glare, white balance, blur, noise; JPEG is applied by the caller)."""

from __future__ import annotations

import functools
from typing import Any

import cv2
import numpy as np

from .render import Camera, Placed, TileShape, body_points

_TEX = 256  # table texture size (pixels) before it is warped into the photo
# BGR table colours: felt greens, blue, red/pink, greys, black, beige
_FELTS = [(50, 125, 45), (40, 85, 30), (70, 140, 60), (140, 85, 30), (95, 95, 185), (120, 130, 200),
          (150, 150, 150), (200, 200, 198), (35, 35, 38), (165, 190, 205), (120, 60, 40)]
_WOODS = [(60, 110, 170), (45, 80, 130), (90, 150, 200), (30, 55, 95), (110, 170, 215)]
_SKIN = [(150, 180, 225), (120, 155, 205), (95, 130, 180), (70, 100, 150), (170, 195, 235)]


def _smooth_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    g = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(g, (size, size), interpolation=cv2.INTER_CUBIC)


def _wood(rng: np.random.Generator, size: int) -> np.ndarray:
    base = np.array(_WOODS[rng.integers(len(_WOODS))], np.float32) * rng.uniform(0.85, 1.15)
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
    warp = _smooth_noise(rng, size, 5) * rng.uniform(30, 90) + _smooth_noise(rng, size, 30) * rng.uniform(2, 8)
    period = rng.uniform(10, 40)
    grain = np.sin((xs + warp) * (2 * np.pi / period)) ** 2
    fine = rng.random((size, 1)).astype(np.float32).repeat(size, 1)  # thin streaks along the grain
    k = 0.9 + rng.uniform(0.03, 0.1) * grain + 0.04 * (fine.T - 0.5) + 0.12 * (_smooth_noise(rng, size, 8) - 0.5)
    tex = base[None, None, :] * k[..., None]
    if rng.random() < 0.5:  # planks
        tex = np.ascontiguousarray(np.rot90(tex))
    return tex


def table_texture(rng: np.random.Generator) -> np.ndarray:
    """A square uint8 BGR texture of the table top (felt, cloth, wood or plain)."""
    kind = rng.choice(3, p=[0.55, 0.3, 0.15])
    if kind == 1:
        tex = _wood(rng, _TEX)
    else:
        base = np.array(_FELTS[rng.integers(len(_FELTS))], np.float32) * rng.uniform(0.8, 1.2)
        k = 1 + 0.12 * (_smooth_noise(rng, _TEX, 5) - 0.5) + 0.05 * (_smooth_noise(rng, _TEX, 60) - 0.5)
        tex = base[None, None, :] * k[..., None]
        if kind == 2 and rng.random() < 0.5:  # a woven cloth
            ys, xs = np.mgrid[0:_TEX, 0:_TEX]
            tex *= (1 + 0.06 * np.sin(xs * rng.uniform(1, 2)) * np.sin(ys * rng.uniform(1, 2)))[..., None]
    if rng.random() < 0.3:  # the table's frame beyond the playing surface
        edge = int(rng.uniform(0.7, 0.9) * _TEX)
        frame = _wood(rng, _TEX)
        tex[edge:] = frame[edge:]
    return np.clip(tex, 0, 255).astype(np.uint8)


def draw_table(cam: Camera, extent: float, centre: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The table top seen by the camera; beyond its far edge (or above the horizon) a dim room."""
    tex = table_texture(rng)
    side = extent * rng.uniform(4, 7)
    s = side / _TEX
    a = np.array([[s, 0, centre[0] - side / 2], [0, s, centre[1] - side / 2], [0, 0, 1.0]])
    h_table = cam.table_homography()
    img = cv2.warpPerspective(tex, h_table @ a, (cam.width, cam.height), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    # where does each pixel's ray meet the table? far away or never -> the room behind
    step = 8
    ys, xs = np.mgrid[0:cam.height + step:step, 0:cam.width + step:step].astype(np.float64)
    inv = np.linalg.inv(h_table)
    p = np.einsum("ij,jhw->ihw", inv, np.stack([xs, ys, np.ones_like(xs)]))
    w = p[2]
    ahead = w * np.sign(float((inv @ [cam.cx, cam.cy, 1.0])[2])) > 1e-12
    dist = np.hypot(p[0] / np.where(ahead, w, 1) - centre[0], p[1] / np.where(ahead, w, 1) - centre[1])
    reach = extent * rng.uniform(1.2, 3.0)
    room = np.where(ahead, np.clip((dist - reach) / (0.3 * reach), 0, 1), 1.0).astype(np.float32)
    if room.max() > 0:
        big = cv2.resize(room, (cam.width + step, cam.height + step), interpolation=cv2.INTER_LINEAR)
        far = big[:cam.height, :cam.width, None]
        wall = np.array(_FELTS[rng.integers(len(_FELTS))], np.float32) * rng.uniform(0.3, 0.8)
        img = img * (1 - far) + wall * far
    return img.astype(np.uint8)


def draw_clutter(img: np.ndarray, cam: Camera, lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator) -> None:
    """Flat things lying on the table around the tiles (coins, cards, a phone, paper): they teach
    the detector that not every bright rectangle is a tile. ``lo``/``hi`` bound the tiles' footprint."""
    size = float(np.max(hi - lo))
    for _ in range(int(rng.integers(1, 4))):
        for _ in range(20):  # a spot outside the tiles' footprint
            c = rng.uniform(lo[:2] - 0.4 * size, hi[:2] + 0.4 * size)
            if not (np.all(c > lo[:2] - 40) and np.all(c < hi[:2] + 40)):
                break
        else:
            continue
        kind = rng.integers(3)
        if kind == 0:  # coin or chip
            r = rng.uniform(8, 20)
            a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            pts = np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)], 1)
            colour: tuple[int, ...] = [(60, 150, 190), (170, 170, 170), (40, 40, 160), (150, 60, 40),
                                       (40, 120, 40)][rng.integers(5)]
        else:  # card, paper or phone
            w, h = (rng.uniform(50, 90), rng.uniform(80, 160)) if kind == 1 else (rng.uniform(65, 80), rng.uniform(140, 165))
            ang = rng.uniform(0, np.pi)
            rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
            pts = c + (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ rot.T
            colour = (235, 235, 232) if kind == 1 and rng.random() < 0.6 else (
                (30, 30, 30) if kind == 2 else tuple(int(v) for v in rng.integers(40, 230, 3)))
        px, _ = cam.project(np.column_stack([pts, np.full(len(pts), 0.5)]))
        k = rng.uniform(0.75, 1.1)
        cv2.fillPoly(img, [(px * 16).astype(np.int32)], tuple(float(v) * k for v in colour), cv2.LINE_AA, 4)


def draw_shadows(img: np.ndarray, cam: Camera, shape: TileShape, tiles: list[Placed], light: np.ndarray,
                 strength: float, tile_px: float) -> None:
    """Soft shadows cast on the table by the tiles (light direction ``light``, pointing to the light)."""
    # drawn and blurred at half resolution: a soft shadow has no detail to lose
    hh, hw = (img.shape[0] + 1) // 2, (img.shape[1] + 1) // 2
    mask = np.zeros((hh, hw), np.uint8)
    for t in tiles:
        pts = body_points(shape, t)
        on_table = pts - (pts[:, 2:3] / light[2]) * light
        px, _ = cam.project(on_table)
        hull = cv2.convexHull((px * 8).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, 4)
    sigma = max(0.5, tile_px * 0.04)
    soft = cv2.GaussianBlur(mask, (0, 0), sigma)
    soft = cv2.resize(soft, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_LINEAR)
    keep = 1 - soft.astype(np.float32) * (strength / 255.0)
    img[:] = cv2.multiply(img, cv2.merge([keep, keep, keep]), dtype=cv2.CV_8U)


def draw_rack(img: np.ndarray, cam: Camera, lo: np.ndarray, hi: np.ndarray, colour, light: np.ndarray,
              ambient: float) -> None:
    """An axis-aligned box (the tray in front of a player on an automatic table)."""
    xs, ys, zs = (lo[0], hi[0]), (lo[1], hi[1]), (lo[2], hi[2])
    corners = np.array([[x, y, z] for z in zs for y in ys for x in xs])
    px, _ = cam.project(corners)
    faces = {  # corner indices, outward normal
        (0, 1, 3, 2): (0, 0, -1), (4, 5, 7, 6): (0, 0, 1), (0, 1, 5, 4): (0, -1, 0), (2, 3, 7, 6): (0, 1, 0),
        (0, 2, 6, 4): (-1, 0, 0), (1, 3, 7, 5): (1, 0, 0),
    }
    centre = (lo + hi) / 2
    for idx, n in faces.items():
        normal = np.array(n, np.float64)
        face_c = centre + normal * (hi - lo) / 2
        if normal @ (cam.pos - face_c) <= 0:
            continue
        k = ambient + (1 - ambient) * max(0.0, float(normal @ light))
        cv2.fillConvexPoly(img, (px[list(idx)] * 16).astype(np.int32), tuple(float(c * k) for c in colour),
                           cv2.LINE_AA, 4)


def draw_fingers(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One to four fingers reaching in from an edge of the photo; returns their mask (0/1 uint8)."""
    h, w = img.shape[:2]
    side = rng.integers(4)
    n = int(rng.integers(1, 5))
    width = rng.uniform(0.05, 0.09) * max(h, w)
    length = rng.uniform(0.12, 0.3) * max(h, w)
    skin = np.array(_SKIN[rng.integers(len(_SKIN))], np.float64)
    along = rng.uniform(0.15, 0.85)
    angle = rng.normal(0, 0.35)
    inward = {0: (0, 1), 1: (0, -1), 2: (1, 0), 3: (-1, 0)}[int(side)]
    start = {0: (along * w, -width), 1: (along * w, h + width), 2: (-width, along * h), 3: (w + width, along * h)}[
        int(side)]
    c, s = np.cos(angle), np.sin(angle)
    d = np.array([c * inward[0] - s * inward[1], s * inward[0] + c * inward[1]])
    perp = np.array([-d[1], d[0]])
    layer = img.copy()
    mask = np.zeros(img.shape[:2], np.uint8)
    if rng.random() < 0.5:  # the palm, mostly outside the photo
        palm = np.array(start) - d * width * rng.uniform(0.5, 1.5)
        axes = (int(width * n * 0.75 * 16), int(width * 1.6 * 16))
        centre = (int(palm[0] * 16), int(palm[1] * 16))
        angle = float(np.degrees(np.arctan2(d[1], d[0])) + 90)
        cv2.ellipse(layer, centre, axes, angle, 0, 360, tuple(skin * 0.85), -1, cv2.LINE_AA, 4)
        cv2.ellipse(mask, centre, axes, angle, 0, 360, 1, -1, cv2.LINE_8, 4)
    for k in range(n):
        off = (k - (n - 1) / 2) * width * 0.95
        p0 = np.array(start) + perp * off
        p1 = p0 + d * length * (1 - 0.15 * abs(k - (n - 1) / 2))
        a, b = tuple(int(v) for v in p0 * 16), tuple(int(v) for v in p1 * 16)
        cv2.line(layer, a, b, tuple(skin * 0.7), int(width), cv2.LINE_AA, 4)
        cv2.line(mask, a, b, 1, int(width), cv2.LINE_8, 4)
        cv2.line(layer, a, b, tuple(skin), int(width * 0.75), cv2.LINE_AA, 4)
        tip = p1 - d * width * 0.15
        cv2.ellipse(layer, (int(tip[0]), int(tip[1])), (int(width * 0.22), int(width * 0.3)),
                    float(np.degrees(np.arctan2(d[1], d[0])) + 90), 0, 360, tuple(np.minimum(skin * 1.12, 255)), -1,
                    cv2.LINE_AA)
    img[:] = cv2.GaussianBlur(layer, (0, 0), 0.8)
    return mask


@functools.lru_cache(maxsize=1)
def _noise_bank() -> np.ndarray:
    return np.random.default_rng(20261129).standard_normal((1088, 1088, 3), dtype=np.float32)


BLUR_MORE = (1.0, 2.5)  # sigma range, in pixels per 640 px of the long side, of the opt-in stronger blur
STREAK_MORE = (5.0, 10.0)  # length range, in pixels per 640 px, of the opt-in longer motion streak


def _streak(img: np.ndarray, k: int, angle: float) -> np.ndarray:
    """Motion blur: the photo averaged along a line of ``k`` pixels at ``angle`` degrees."""
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2] = 1.0 / k
    rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), angle, 1.0)
    turned = cv2.warpAffine(kernel, rot, (k, k))
    return cv2.filter2D(img, -1, np.asarray(turned / max(float(turned.sum()), 1e-6), np.float32))


def camera_effects(img: np.ndarray, rng: np.random.Generator, blur_share: float = 0.0) -> np.ndarray:
    """Lighting falloff, white balance, glare, blur and sensor noise. ``blur_share``: the share of photos
    also blurred as a shaken or misfocused phone does (half Gaussian, sigma BLUR_MORE per 640 px, half a motion
    streak of STREAK_MORE); 0 draws nothing
    more from ``rng``, so photos of a seed stay as they were."""
    h, w = img.shape[:2]
    out: Any = img.astype(np.float32)  # float32 throughout (OpenCV's stubs lose the dtype)
    # illumination: a gentle gradient times a vignette, with a white-balance gain per channel
    ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    gx, gy = rng.normal(0, 0.25, 2)
    field = 1 + gx * (xs / w - 0.5) + gy * (ys / h - 0.5)
    r2 = ((xs / w - 0.5) ** 2 + (ys / h - 0.5) ** 2) * 2
    field *= 1 - rng.uniform(0, 0.35) * r2
    field *= rng.uniform(0.75, 1.2)
    gains = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    field3 = cv2.resize(field[..., None] * gains, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(out, field3, dtype=cv2.CV_32F)
    if rng.random() < 0.3:  # faded or punchy colours (old sets, phone processing)
        mean = out.mean(axis=2, keepdims=True)
        out = mean + (out - mean) * np.float32(rng.uniform(0.55, 1.3))
    if rng.random() < 0.35:  # glare: a bright soft spot from a lamp or window
        blob = np.zeros((h // 8 + 1, w // 8 + 1), np.float32)
        cx, cy = rng.uniform(0, w / 8), rng.uniform(0, h / 8)
        axes = (int(rng.uniform(2, 12) * w / 640) + 1, int(rng.uniform(2, 12) * h / 640) + 1)
        cv2.ellipse(blob, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        blob = cv2.GaussianBlur(blob, (0, 0), rng.uniform(1.5, 5))
        blob = cv2.resize(blob, (w, h), interpolation=cv2.INTER_LINEAR)
        out += blob[..., None] * rng.uniform(50, 170)
    if rng.random() < 0.25:  # shallow depth of field: sharp in a band, blurred away from it
        blurred = cv2.GaussianBlur(out, (0, 0), rng.uniform(1.0, 3.0))
        ang = rng.uniform(0, 2 * np.pi)
        across = ((xs - w / 2) * np.cos(ang) + (ys - h / 2) * np.sin(ang)) / (0.5 * max(w, h))
        band = np.clip((np.abs(across - rng.uniform(-0.3, 0.3)) - rng.uniform(0.1, 0.4)) / 0.4, 0, 1)
        m = cv2.resize(band.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
        out = out * (1 - m) + blurred * m
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.4))
    elif rng.random() < 0.2:
        k = int(rng.integers(3, 9))
        out = _streak(out, k, rng.uniform(0, 180))
    if blur_share and rng.random() < blur_share:
        if rng.random() < 0.5:
            out = cv2.GaussianBlur(out, (0, 0), rng.uniform(*BLUR_MORE) * max(h, w) / 640)
        else:  # the phone moved: a longer streak than the usual one (`xingzi eval --perturb motion`)
            out = _streak(out, max(3, round(rng.uniform(*STREAK_MORE) * max(h, w) / 640)), rng.uniform(0, 180))
    sigma = rng.uniform(1, 7)
    # sensor noise: a window of a fixed bank of Gaussian noise at a random offset (fast, deterministic)
    bank = _noise_bank()
    if h <= bank.shape[0] and w <= bank.shape[1]:
        y0, x0 = int(rng.integers(bank.shape[0] - h + 1)), int(rng.integers(bank.shape[1] - w + 1))
        out += bank[y0:y0 + h, x0:x0 + w] * np.float32(sigma)
    else:
        out += rng.standard_normal((h, w, 3), dtype=np.float32) * np.float32(sigma)
    np.clip(out, 0, 255, out=out)
    gamma = rng.uniform(0.85, 1.15)
    lut = (255 * (np.arange(256) / 255.0) ** gamma).astype(np.uint8)
    return cv2.LUT(out.astype(np.uint8), lut)
