"""Tile face textures: the art packs of ``../shared/art`` (vendored copies as fallback) and a
procedural Chinese style drawn here (fonts + drawn pips and sticks).

A :class:`FaceSet` holds the 30 faces of one style as BGRA arrays (alpha = rounded corners) at
a few resolutions, so the renderer can pick the level closest to the tile's size on screen.
Faces are built once per process and cached.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from xingzi.engine.tiles import TILES, Tile

FACE_W, FACE_H = 96, 128  # level-0 texture size (3:4 like a real tile front)
LEVELS = ((96, 128), (48, 64), (24, 32))
PROCEDURAL_VARIANTS = 20  # distinct procedural Chinese sets (fonts, colours, 万/萬, 白 frames)
_REPO = Path(__file__).resolve().parents[2]
VENDORED_ART = Path(__file__).resolve().parents[1] / "art"
_FILE_NAMES = {t: t.value for t in TILES}


def shared_art_dir() -> Path | None:
    """``$XINGZI_ART`` or ``../shared/art`` next to the repository, when present."""
    env = os.environ.get("XINGZI_ART")
    for cand in ([Path(env)] if env else []) + [_REPO.parent / "shared" / "art"]:
        if cand.is_dir():
            return cand
    return None


def pack_dirs() -> dict[str, Path]:
    """Art pack name -> folder: every pack of the shared art folder, else the vendored ones."""
    packs: dict[str, Path] = {}
    for root in (shared_art_dir(), VENDORED_ART):
        if root is None:
            continue
        for d in sorted(root.iterdir()):
            if d.is_dir() and (d / "1m.png").exists() and d.name not in packs:
                packs[d.name] = d
    return packs


def font_files() -> list[Path]:
    found: list[Path] = []
    for root in (shared_art_dir(), VENDORED_ART):
        if root is None:
            continue
        d = root / "fonts_subset" if (root / "fonts_subset").is_dir() else root / "fonts"
        found += sorted(p for p in d.glob("*") if p.suffix in (".ttf", ".otf"))
        if found:
            return found
    raise FileNotFoundError(f"no CJK font subsets found in ../shared/art/fonts_subset or {VENDORED_ART}/fonts")


def style_names() -> list[str]:
    """The face styles drawn by default: ``procedural`` plus one per art pack found."""
    return ["procedural"] + list(pack_dirs())


# Styles drawn only when asked for (``--styles brush``), so default datasets stay as they were.
EXTRA_STYLES = ("brush",)


def known_styles() -> list[str]:
    """Every style a dataset may ask for: the default ones and :data:`EXTRA_STYLES`."""
    return style_names() + list(EXTRA_STYLES)


@dataclass(frozen=True)
class FaceSet:
    name: str
    faces: tuple[tuple[np.ndarray, ...], ...]  # [tile index][level] -> BGRA uint8
    plate: tuple[int, ...]  # BGR colour of the tile front / body face layer

    def face(self, index: int, height_px: float) -> np.ndarray:
        """Texture of tile ``index`` whose height is the smallest level >= the on-screen height."""
        levels = self.faces[index]
        for lvl in reversed(levels):
            if lvl.shape[0] >= height_px:
                return lvl
        return levels[0]


@functools.lru_cache(maxsize=4)
def _corner_alpha(w: int, h: int) -> np.ndarray:
    s = 4
    m = np.zeros((h * s, w * s), np.uint8)
    r = int(0.13 * w * s)
    cv2.rectangle(m, (r, 0), (w * s - 1 - r, h * s - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w * s - 1, h * s - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * s - 1 - r, r), (r, h * s - 1 - r), (w * s - 1 - r, h * s - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def _levels(bgr: np.ndarray) -> tuple[np.ndarray, ...]:
    out = []
    for w, h in LEVELS:
        img = cv2.resize(bgr, (w, h), interpolation=cv2.INTER_AREA)
        out.append(np.dstack([img, _corner_alpha(w, h)]))
    return tuple(out)


# ---------------------------------------------------------------- art packs

def _pack_face(path: Path, plate: tuple[int, int, int]) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ValueError(f"cannot read tile art {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    if img.shape[2] == 3:
        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
    alpha = img[..., 3]
    ys, xs = np.nonzero(alpha > 16)
    if len(xs):
        img = img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    opaque = (img[..., 3] > 200).mean()
    canvas = np.empty((FACE_H * 2, FACE_W * 2, 3), np.float32)
    canvas[:] = plate
    if opaque > 0.9:  # the art carries its own plate: stretch it over the whole front
        box = (0, 0, FACE_W * 2, FACE_H * 2)
    else:  # glyphs on transparency: keep aspect, leave a margin of plate
        mw, mh = FACE_W * 2 * 0.84, FACE_H * 2 * 0.86
        s = min(mw / img.shape[1], mh / img.shape[0])
        w, h = max(1, round(img.shape[1] * s)), max(1, round(img.shape[0] * s))
        box = ((FACE_W * 2 - w) // 2, (FACE_H * 2 - h) // 2, w, h)
    x, y, w, h = box
    art = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    a = art[..., 3:] / 255.0
    canvas[y:y + h, x:x + w] = art[..., :3] * a + canvas[y:y + h, x:x + w] * (1 - a)
    return canvas.astype(np.uint8)


@functools.lru_cache(maxsize=32)
def load_pack(name: str) -> FaceSet:
    dirs = pack_dirs()
    if name not in dirs:
        raise ValueError(f"unknown art style {name!r}: expected one of {', '.join(style_names())}")
    plate = (232, 242, 246) if "black" not in name else (40, 40, 40)
    faces = []
    for t in TILES:
        p = dirs[name] / f"{_FILE_NAMES[t]}.png"
        # a face missing from a pack (no 白, no dragons) is drawn procedurally on the pack's plate
        bgr = _pack_face(p, plate) if p.exists() else _procedural_face(t, _variant(0), plate)
        faces.append(_levels(bgr))
    return FaceSet(name, tuple(faces), plate)


# ---------------------------------------------------------------- procedural Chinese style

@dataclass(frozen=True)
class _Variant:
    font_num: str
    font_wan: str
    wan: str  # 万 or 萬
    fa: str  # 发 or 發
    num_colour: tuple[int, int, int]  # RGB
    red: tuple[int, int, int]
    green: tuple[int, int, int]
    blue: tuple[int, int, int]
    corner_index: bool
    bai: str  # frame | double | blank
    plate: tuple[int, int, int]  # RGB
    pip_scale: float = 1.0  # size of circles
    stick_scale: float = 1.0  # width of bamboo sticks


@functools.lru_cache(maxsize=PROCEDURAL_VARIANTS + 1)
def _variant(k: int) -> _Variant:
    rng = np.random.default_rng([7919, k])
    fonts = [str(p) for p in font_files()]
    blues = [(20, 50, 150), (15, 30, 110), (30, 80, 170), (20, 20, 30)]
    plates = [(246, 246, 240), (242, 238, 222), (250, 250, 250), (236, 240, 232)]
    return _Variant(
        font_num=fonts[rng.integers(len(fonts))], font_wan=fonts[rng.integers(len(fonts))],
        wan="万" if rng.random() < 0.6 else "萬", fa="发" if rng.random() < 0.6 else "發",
        num_colour=blues[rng.integers(len(blues))],
        red=(int(rng.integers(170, 215)), int(rng.integers(10, 40)), int(rng.integers(20, 50))),
        green=(int(rng.integers(0, 40)), int(rng.integers(105, 150)), int(rng.integers(50, 90))),
        blue=blues[rng.integers(3)], corner_index=bool(rng.random() < 0.6),
        bai=("frame", "double", "blank")[rng.choice(3, p=[0.55, 0.3, 0.15])],
        plate=plates[rng.integers(len(plates))],
        pip_scale=float(rng.uniform(0.85, 1.1)), stick_scale=float(rng.uniform(0.8, 1.35)),
    )


_S = 3  # supersampling of the procedural drawing
_NUM_CN = "一二三四五六七八九"
# pip centres in a unit face (x, y), per rank
_PIPS = {
    1: [(0.5, 0.5)], 2: [(0.5, 0.28), (0.5, 0.72)], 3: [(0.27, 0.22), (0.5, 0.5), (0.73, 0.78)],
    4: [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)],
    5: [(0.27, 0.25), (0.73, 0.25), (0.5, 0.5), (0.27, 0.75), (0.73, 0.75)],
    6: [(0.3, y) for y in (0.2, 0.5, 0.8)] + [(0.7, y) for y in (0.2, 0.5, 0.8)],
    7: [(0.22, 0.14), (0.5, 0.25), (0.78, 0.36)] + [(x, y) for y in (0.6, 0.84) for x in (0.3, 0.7)],
    8: [(x, y) for y in (0.14, 0.38, 0.62, 0.86) for x in (0.3, 0.7)],
    9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.22, 0.5, 0.78)],
}
_STICKS = {
    2: [(0.5, 0.3), (0.5, 0.7)], 3: [(0.5, 0.3), (0.3, 0.7), (0.7, 0.7)],
    4: [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)],
    5: [(0.25, 0.3), (0.75, 0.3), (0.5, 0.5), (0.25, 0.7), (0.75, 0.7)],
    6: [(x, y) for y in (0.3, 0.7) for x in (0.22, 0.5, 0.78)],
    7: [(0.5, 0.17)] + [(x, y) for y in (0.5, 0.8) for x in (0.22, 0.5, 0.78)],
    8: [(x, y) for y in (0.3, 0.7) for x in (0.17, 0.39, 0.61, 0.83)],
    9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.22, 0.5, 0.78)],
}


def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def _text(draw: ImageDraw.ImageDraw, text: str, font_path: str, box: tuple, fill,
          brush: np.random.Generator | None = None) -> None:
    """Draw ``text`` scaled to fill ``box`` (x0, y0, x1, y1) in canvas pixels; with ``brush``,
    the glyph is bent and its strokes thickened or thinned first (:func:`_brush_mask`)."""
    if brush is not None:
        mask = Image.new("L", draw.im.size, 0)
        _text(ImageDraw.Draw(mask), text, font_path, box, 255)
        warped = Image.fromarray(_brush_mask(np.array(mask), box, brush))
        draw.bitmap((0, 0), warped, fill=fill)
        return
    x0, y0, x1, y1 = box
    size = int(y1 - y0)
    font = _font(font_path, size)
    bx0, by0, bx1, by1 = font.getbbox(text)
    sx, sy = (x1 - x0) / max(1, bx1 - bx0), (y1 - y0) / max(1, by1 - by0)
    s = min(sx, sy)
    font = _font(font_path, max(8, int(size * s)))
    bx0, by0, bx1, by1 = font.getbbox(text)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    draw.text((cx - (bx0 + bx1) / 2, cy - (by0 + by1) / 2), text, font=font, fill=fill)


def _brush_mask(mask: np.ndarray, box: tuple, rng: np.random.Generator) -> np.ndarray:
    """A glyph mask as a hand with a brush might write it: slanted, sheared, its strokes bent by a
    smooth random field and made heavier or lighter. Tile sets print numerals in many hands
    (cursive 二/三/七 among them); fonts alone show the reader only a few."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    angle, shear, scale = rng.uniform(-10, 10), rng.uniform(-0.3, 0.3), rng.uniform(0.85, 1.1)
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 1] += shear
    m[0, 2] -= shear * cy
    H, W = mask.shape
    out = cv2.warpAffine(mask, m, (W, H), flags=cv2.INTER_LINEAR)
    # a smooth displacement field bends the strokes (elastic distortion)
    sigma, amp = 0.12 * min(w, h), rng.uniform(0.02, 0.06) * min(w, h)
    dx, dy = (cv2.GaussianBlur(rng.uniform(-1, 1, (H, W)).astype(np.float32), (0, 0), sigma) for _ in range(2))
    dx *= amp / max(1e-6, float(np.abs(dx).max()))
    dy *= amp / max(1e-6, float(np.abs(dy).max()))
    gx, gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    out = cv2.remap(out, gx + dx, gy + dy, cv2.INTER_LINEAR)
    k = int(rng.integers(-1, 4))  # stroke weight in canvas pixels: a little thinner (<0) or heavier (>0)
    if k:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(k) + 1, 2 * abs(k) + 1))
        out = cv2.dilate(out, kernel) if k > 0 else cv2.erode(out, kernel)
    return out


def _circle_pip(draw, cx, cy, r, outer, inner) -> None:
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=outer)
    r2 = r * 0.72
    draw.ellipse((cx - r2, cy - r2, cx + r2, cy + r2), fill=(250, 250, 250))
    r3 = r * 0.5
    draw.ellipse((cx - r3, cy - r3, cx + r3, cy + r3), fill=inner)
    r4 = r * 0.2
    draw.ellipse((cx - r4, cy - r4, cx + r4, cy + r4), fill=(250, 250, 250))


def _stick(draw, cx, cy, w, h, colour) -> None:
    draw.rounded_rectangle((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), radius=w / 2, fill=colour)
    for f in (0.5,):  # the bamboo node
        y = cy - h / 2 + h * f
        draw.rectangle((cx - w * 0.62, y - w * 0.18, cx + w * 0.62, y + w * 0.18), fill=colour)
    draw.line((cx, cy - h * 0.4, cx, cy + h * 0.4), fill=(250, 250, 250), width=max(1, int(w * 0.15)))


def _bird(draw, W, H, v: _Variant) -> None:
    g, r = v.green, v.red
    draw.ellipse((W * 0.28, H * 0.35, W * 0.7, H * 0.62), fill=g)  # body
    draw.ellipse((W * 0.55, H * 0.22, W * 0.75, H * 0.38), fill=g)  # head
    draw.polygon([(W * 0.74, H * 0.28), (W * 0.86, H * 0.31), (W * 0.74, H * 0.33)], fill=r)  # beak
    for k in range(4):  # tail feathers
        draw.line((W * 0.32, H * 0.55, W * (0.08 + 0.07 * k), H * (0.8 + 0.04 * k)), fill=v.blue if k % 2 else g,
                  width=int(W * 0.05))
    draw.line((W * 0.45, H * 0.6, W * 0.42, H * 0.78), fill=r, width=int(W * 0.03))
    draw.line((W * 0.55, H * 0.6, W * 0.58, H * 0.78), fill=r, width=int(W * 0.03))
    draw.ellipse((W * 0.62, H * 0.26, W * 0.66, H * 0.3), fill=(250, 250, 250))


def _procedural_face(tile: Tile, v: _Variant, plate_bgr: tuple[int, int, int] | None = None,
                     brush: np.random.Generator | None = None) -> np.ndarray:
    """One face of variant ``v``; ``brush`` (a random stream) writes its characters by hand."""
    W, H = FACE_W * _S, FACE_H * _S
    plate = tuple(reversed(plate_bgr)) if plate_bgr else v.plate
    img = Image.new("RGB", (W, H), plate)
    d = ImageDraw.Draw(img)
    suit, rank = tile.suit, tile.rank
    if suit == "m":
        _text(d, _NUM_CN[rank - 1], v.font_num, (W * 0.2, H * 0.08, W * 0.8, H * 0.42), v.num_colour, brush)
        _text(d, v.wan, v.font_wan, (W * 0.12, H * 0.47, W * 0.88, H * 0.92), v.red, brush)
    elif suit == "p":
        pips = _PIPS[rank]
        r = W * v.pip_scale * (0.36 if rank == 1 else 0.2 if rank <= 5 else 0.15 if rank != 9 else 0.13)
        cols = [v.blue, v.green, v.red]
        for i, (x, y) in enumerate(pips):
            outer = cols[(i + rank) % 3] if rank not in (1, 5) else (v.red if (rank == 5 and i == 2) else v.blue)
            if rank == 1:
                outer = v.green
            _circle_pip(d, x * W, 0.06 * H + y * H * 0.88, r, outer, v.red if rank == 1 else cols[(i + 1) % 3])
    elif suit == "s":
        if rank == 1:
            _bird(d, W, H, v)
        else:
            sticks = _STICKS[rank]
            sh = H * (0.34 if rank <= 6 else 0.26)
            sw = W * v.stick_scale * (0.13 if rank < 8 else 0.1)
            for i, (x, y) in enumerate(sticks):
                colour = v.red if (rank in (5, 7, 9) and (i == (len(sticks) // 2) or (rank == 7 and i == 0))) else (
                    v.blue if rank == 8 and i % 4 in (1, 2) else v.green)
                _stick(d, x * W, y * H, sw, sh, colour)
    elif tile is Tile.ZHONG:
        _text(d, "中", v.font_wan, (W * 0.1, H * 0.14, W * 0.9, H * 0.86), v.red, brush)
    elif tile is Tile.FA:
        _text(d, v.fa, v.font_wan, (W * 0.08, H * 0.12, W * 0.92, H * 0.88), v.green, brush)
    elif v.bai != "blank":
        m, t = W * 0.16, W * 0.06
        d.rectangle((m, m * 1.2, W - m, H - m * 1.2), outline=v.blue, width=int(t))
        if v.bai == "double":
            m2 = m + t * 2
            d.rectangle((m2, m2 * 1.1, W - m2, H - m2 * 1.1), outline=v.blue, width=int(t * 0.5))
    if v.corner_index and rank is not None:
        # small arabic index in the top-left corner, as on HK/automatic-table sets
        arr = np.array(img)
        cv2.putText(arr, str(rank), (int(W * 0.05), int(H * 0.14)), cv2.FONT_HERSHEY_DUPLEX, W / 260,
                    v.num_colour, max(2, W // 90), cv2.LINE_AA)
        img = Image.fromarray(arr)
    small = img.resize((FACE_W * 2, FACE_H * 2), Image.Resampling.LANCZOS)
    return cv2.cvtColor(np.array(small), cv2.COLOR_RGB2BGR)


@functools.lru_cache(maxsize=PROCEDURAL_VARIANTS)
def procedural_set(k: int) -> FaceSet:
    v = _variant(k % PROCEDURAL_VARIANTS)
    faces = tuple(_levels(_procedural_face(t, v)) for t in TILES)
    return FaceSet(f"procedural:{k}", faces, tuple(reversed(v.plate)))


@functools.lru_cache(maxsize=PROCEDURAL_VARIANTS)
def brush_set(k: int) -> FaceSet:
    """Procedural variant ``k`` with every character written by hand (:func:`_brush_mask`),
    each face in its own hand."""
    v = _variant(k % PROCEDURAL_VARIANTS)
    faces = tuple(_levels(_procedural_face(t, v, brush=np.random.default_rng([7920, k, t.index]))) for t in TILES)
    return FaceSet(f"brush:{k}", faces, tuple(reversed(v.plate)))


def face_set_name(style: str, variant: int = 0) -> str:
    """The name :func:`face_set` gives its faces (a photo's meta ``style``), without making them."""
    return f"{style}:{variant % PROCEDURAL_VARIANTS}" if style in ("procedural", "brush") else style


def face_set(style: str, variant: int = 0) -> FaceSet:
    """The faces of ``style`` (``procedural`` and ``brush`` use ``variant``)."""
    if style == "procedural":
        return procedural_set(variant % PROCEDURAL_VARIANTS)
    if style == "brush":
        return brush_set(variant % PROCEDURAL_VARIANTS)
    return load_pack(style)
