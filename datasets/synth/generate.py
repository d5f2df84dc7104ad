"""One synthetic photo: deal → layout → camera → table, shadows, tiles, fingers → camera effects → JPEG.

Every random choice comes from ``numpy.random.default_rng([seed, index])``, so an image depends
only on (seed, index, imgsz, styles) and not on how the work is split between processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from xingzi.engine.tiles import BACK_CLASS, Tile

from . import faces
from .hands import sample_deal
from .legible import face_told, shown_in_texture
from .photo import camera_effects, draw_clutter, draw_fingers, draw_rack, draw_shadows, draw_table
from .render import (
    Colours,
    body_points,
    draw_tile,
    face_quad,
    faces_camera,
    facing_cap,
    painted_ids,
    shown_shares,
)
from .scene import choose_camera, layout_deal

# BGR back colours of real sets: greens, blues, yellow, orange, pink, red, dark
BACK_COLOURS = [(60, 140, 40), (40, 95, 25), (80, 170, 90), (170, 100, 30), (200, 150, 70), (40, 190, 230),
                (40, 140, 240), (150, 120, 230), (40, 40, 170), (60, 60, 60), (120, 180, 120)]
PROCEDURAL_SHARE = 0.5  # the rest is spread evenly over the art packs
MIN_VISIBLE = 0.35  # a tile cut by the photo's edge is labelled if this share of its box is inside
MIN_SHOWN = MIN_VISIBLE  # ... and one behind other tiles if this share of its face (or back) shows
MAX_COVERED = 0.6  # a tile whose box is covered more than this by fingers is not labelled
MIN_SIDE, MAX_SIDE = 64, 8192  # a photo's long side in pixels


@dataclass(frozen=True)
class Sample:
    jpeg: bytes
    width: int
    height: int
    boxes: np.ndarray  # (N, 4) pixel xyxy, clipped to the image
    classes: np.ndarray  # (N,) class ids (30 = back)
    meta: dict


def check_styles(styles: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    known = faces.known_styles()
    if not styles:
        return tuple(faces.style_names())
    bad = [s for s in styles if s not in known]
    if bad:
        raise ValueError(f"unknown style(s) {', '.join(bad)}: expected some of {', '.join(known)}")
    return tuple(styles)


def _pick_style(rng: np.random.Generator, styles: tuple[str, ...]) -> str:
    packs = [s for s in styles if s != "procedural"]
    if "procedural" in styles and (not packs or rng.random() < PROCEDURAL_SHARE):
        return "procedural"
    return packs[rng.integers(len(packs))]


def _image_size(rng: np.random.Generator, imgsz: int) -> tuple[int, int]:
    aspect = (4 / 3, 3 / 4, 1.0, 16 / 9, 9 / 16)[rng.choice(5, p=[0.35, 0.35, 0.14, 0.08, 0.08])]
    if aspect >= 1:
        return imgsz, int(round(imgsz / aspect / 2) * 2)
    return int(round(imgsz * aspect / 2) * 2), imgsz


def expected_result(situation: dict) -> dict | None:
    """The engine's result for the situation (None while the engine has no scorer).

    A scorer failure must not stop a long generation run: it is recorded as ``{"error": ...}``
    in the meta (and counted by ``xingzi synth``) instead.
    """
    try:
        from xingzi.engine import score_situation
    except ImportError:
        return None
    try:
        return score_situation(situation)
    except Exception as e:  # noqa: BLE001 - recorded in the meta, see docstring
        return {"error": f"{type(e).__name__}: {e}"}


def _covered(mask: np.ndarray, box: tuple[float, ...]) -> float:
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    roi = mask[y1:max(y2, y1 + 1), x1:max(x2, x1 + 1)]
    return float(roi.mean()) if roi.size else 0.0


def _frame(seed: int, index: int, imgsz: int, styles: tuple[str, ...], pattern: str | None) -> tuple:
    """The draws that come before any drawing: (rng, deal, layout, camera, style, face variant)."""
    rng = np.random.default_rng([seed, index])
    deal = sample_deal(rng, pattern)
    layout = layout_deal(deal, rng)
    width, height = _image_size(rng, imgsz)
    cam = choose_camera(layout, rng, width, height)
    style = _pick_style(rng, styles)
    return rng, deal, layout, cam, style, int(rng.integers(faces.PROCEDURAL_VARIANTS))


def made_as(seed: int, index: int, imgsz: int, styles: tuple[str, ...], blur_share: float = 0.0) -> dict:
    """What ``render_sample``'s meta would say of how photo ``index`` is made (seed, index, size, face set, blur
    share when used), without drawing it (a few ms)."""
    _, _, _, cam, style, variant = _frame(seed, index, imgsz, check_styles(styles), None)
    made: dict[str, Any] = {"style": faces.face_set_name(style, variant), "size": [cam.width, cam.height],
                            "seed": seed, "index": index}
    if blur_share:
        made["blur_share"] = blur_share
    return made


def style_key(styles: list[str] | tuple[str, ...]) -> tuple:
    """What of a style list the photos depend on (``_pick_style``): whether procedural is among them, and the
    other styles in order, repeats included (each is drawn by its place in that list)."""
    return "procedural" in styles, tuple(s for s in styles if s != "procedural")


def render_sample(seed: int, index: int, imgsz: int = 640, styles: tuple[str, ...] | None = None,
                  pattern: str | None = None, blur_share: float = 0.0) -> Sample:
    if not MIN_SIDE <= imgsz <= MAX_SIDE:
        raise ValueError(f"imgsz must be {MIN_SIDE}..{MAX_SIDE} pixels, got {imgsz}")
    if not 0 <= blur_share <= 1:
        raise ValueError(f"blur share must be between 0 and 1, got {blur_share}")
    if seed < 0 or index < 0:  # numpy's own word for it names neither
        raise ValueError(f"seed and index must be >= 0, got {seed} and {index}")
    rng, deal, layout, cam, style, variant = _frame(seed, index, imgsz, check_styles(styles), pattern)
    width, height = cam.width, cam.height  # the camera may have turned the photo to fit the hand
    face_set = faces.face_set(style, variant)
    plate = tuple(float(c) * rng.uniform(0.96, 1.02) for c in face_set.plate)
    back = tuple(float(c) * rng.uniform(0.85, 1.1) for c in BACK_COLOURS[rng.integers(len(BACK_COLOURS))])
    colours = Colours(back=back, plate=plate)
    el = rng.uniform(np.radians(35), np.radians(80))
    az = rng.uniform(0, 2 * np.pi)
    light = np.array([np.cos(az) * np.cos(el), np.sin(az) * np.cos(el), np.sin(el)])
    ambient = rng.uniform(0.5, 0.75)
    gloss = (rng.uniform(0.0, 0.25) if rng.random() < 0.6 else 0.0, rng.uniform(10, 60))

    pts = np.concatenate([body_points(layout.shape, t) for t in layout.tiles])
    centre = (pts.min(0) + pts.max(0)) / 2
    extent = float(np.max(pts.max(0) - pts.min(0)))
    img = draw_table(cam, extent, centre, rng)
    if rng.random() < 0.2:
        draw_clutter(img, cam, pts.min(0), pts.max(0), rng)
    tile_px = cam.f * layout.shape.height / float(np.linalg.norm(cam.pos - centre))
    on_table = [t for t in layout.tiles if t.centre[2] < layout.shape.height]
    draw_shadows(img, cam, layout.shape, on_table, light, rng.uniform(0.25, 0.6), tile_px)
    if layout.rack is not None:
        r = layout.rack
        draw_rack(img, cam, r.lo, r.hi, r.colour, light, ambient)
    order = np.argsort([-np.linalg.norm(cam.pos - t.centre) for t in layout.tiles], kind="stable")
    projected: dict[int, np.ndarray] = {}
    for i in order:
        t = layout.tiles[i]
        tex = None if t.face_down else face_set.face(t.cls, tile_px)
        projected[int(i)] = draw_tile(img, cam, layout.shape, t, tex, colours, light, ambient, gloss)
    bodies = [projected[i] for i in range(len(layout.tiles))]
    ids = painted_ids(bodies, order, width, height)
    shown_share = shown_shares(ids, [facing_cap(p, t, cam) for p, t in zip(bodies, layout.tiles, strict=True)])
    fingers = draw_fingers(img, rng) if rng.random() < 0.15 else None
    seen = ids if fingers is None else np.where(fingers > 0, np.int16(-1), ids)  # what each pixel shows at last
    img = camera_effects(img, rng, blur_share)
    quality = int(rng.integers(55, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 image
        raise RuntimeError("JPEG encoding failed")

    boxes, classes, tiles_meta = [], [], []
    hidden = unread = 0  # tiles of the hand that others hide; whose face shows too little to be told
    for i, t in enumerate(layout.tiles):
        px = projected[i]
        x1, y1 = px.min(0)
        x2, y2 = px.max(0)
        cx1, cy1, cx2, cy2 = max(x1, 0.0), max(y1, 0.0), min(x2, width), min(y2, height)
        full = (x2 - x1) * (y2 - y1)
        if cx2 - cx1 < 2 or cy2 - cy1 < 2 or (cx2 - cx1) * (cy2 - cy1) < MIN_VISIBLE * full:
            continue
        if fingers is not None and _covered(fingers, (cx1, cy1, cx2, cy2)) > MAX_COVERED:
            continue
        if shown_share[i] < MIN_SHOWN:  # behind other tiles: a label there would teach a tile no one sees
            hidden += t.role != "loose"
            continue
        cls = BACK_CLASS if t.face_down else t.cls
        xyxy = [round(float(v), 2) for v in (cx1, cy1, cx2, cy2)]
        boxes.append(xyxy)
        classes.append(cls)
        tiles_meta.append({"cls": int(cls), "face": Tile.from_index(t.cls).value, "xyxy": xyxy, "group": t.group,
                           "role": t.role, "sideways": bool(t.sideways), "face_down": bool(t.face_down)})
        if faces_camera(t, cam) and not t.face_down and not face_told(face_set, t.cls, tile_px, shown_in_texture(
                seen, i, face_quad(cam, layout.shape, t), face_set.face(t.cls, tile_px).shape)):
            tiles_meta[-1]["unread"] = True  # the label stays for training; measuring counts it neither way
            unread += t.role != "loose"
            in_frame = (cx1, cy1, cx2, cy2) == (x1, y1, x2, y2)
            hidden += t.role != "loose" and in_frame  # nearer tiles or fingers cover its face, not the frame
    shown = sum(1 for t in tiles_meta if t["role"] != "loose") - unread
    situation = deal.situation()
    meta: dict[str, Any] = {"situation": situation, "expect": expected_result(situation), "style": face_set.name,
                            "pattern": deal.pattern, "layout": layout.kind, "standing": layout.standing,
                            "size": [width, height], "seed": seed,
                            "complete": shown == sum(1 for t in layout.tiles if t.role != "loose"), "index": index,
                            "tiles": tiles_meta}
    if hidden:  # recorded only when some are, as below: every other photo's meta stays as it was
        meta["hidden"] = hidden
    if not layout.win_shown:  # sorted into the row: which tile won, the photo cannot say (even at the row's end)
        meta["win_shown"] = False
    if blur_share:  # recorded only when used: the meta of the usual photos stays byte for byte
        meta["blur_share"] = blur_share
    return Sample(buf.tobytes(), width, height, np.array(boxes, np.float64).reshape(-1, 4),
                  np.array(classes, np.int64), meta)
