"""Drawing tiles as 3-D bodies seen by a pinhole camera.

World frame: millimetres, the table is the plane z = 0, +x to the player's right, +y away from
the player, +z up. A tile is a rounded box: a front (face) layer in the plate colour and a back
layer in the back colour. Bodies are filled polygons (back-face culled, painter-sorted), the face
is the face texture warped by the homography of its plane. Boxes are the extent of the projected
body, so they are exact for what is drawn.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

_ARC = 4  # points per rounded corner


@dataclass(frozen=True)
class TileShape:
    width: float  # mm, along the face's horizontal
    height: float  # mm, along the face's vertical
    depth: float  # mm, thickness
    front: float  # fraction of the thickness in the plate colour (the rest is the back colour)
    radius: float  # corner radius, mm


@dataclass(frozen=True)
class Placed:
    """One tile on the table. ``axes`` = rows u (face right), v (face up), w (face normal)."""

    cls: int  # 0..29 face class; the label is 30 (back) when face_down
    axes: np.ndarray  # (3, 3)
    centre: np.ndarray  # (3,)
    role: str
    group: int
    sideways: bool = False
    face_down: bool = False


@dataclass(frozen=True)
class Camera:
    rot: np.ndarray  # (3, 3) world -> camera
    pos: np.ndarray  # (3,) camera centre, world
    f: float
    cx: float
    cy: float
    width: int
    height: int

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """World points (N, 3) -> pixels (N, 2) and depth (N,)."""
        pc = (pts - self.pos) @ self.rot.T
        z = np.maximum(pc[:, 2], 1e-3)
        return np.stack([self.f * pc[:, 0] / z + self.cx, self.f * pc[:, 1] / z + self.cy], 1), pc[:, 2]

    def table_homography(self) -> np.ndarray:
        """3x3 map from table (x, y) mm to pixels."""
        k = np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1.0]])
        t = -self.rot @ self.pos
        return k @ np.column_stack([self.rot[:, 0], self.rot[:, 1], t])


def look_at(target: np.ndarray, azimuth: float, elevation: float, distance: float, roll: float) -> tuple:
    """Rotation world->camera and camera centre for a camera looking at ``target``.

    ``azimuth`` (radians) is the direction from the target to the camera on the table, measured
    from +x; the player's side is -pi/2. ``elevation`` is the angle above the table.
    """
    d = np.array([np.cos(azimuth) * np.cos(elevation), np.sin(azimuth) * np.cos(elevation), np.sin(elevation)])
    pos = target + distance * d
    fwd = -d
    up_hint = np.array([0, 0, 1.0]) if elevation < np.radians(88) else np.array([-np.cos(azimuth), -np.sin(azimuth), 0])
    right = np.cross(fwd, up_hint)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    rot = np.stack([right, down, fwd])
    c, s = np.cos(roll), np.sin(roll)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]) @ rot
    return rot, pos


def tile_axes(yaw: float, pose: str) -> np.ndarray:
    """Axes for a tile turned by ``yaw`` on the table: pose ``flat`` (face up), ``down`` or ``standing``."""
    c, s = np.cos(yaw), np.sin(yaw)
    u = np.array([c, s, 0.0])
    w = {"flat": np.array([0, 0, 1.0]), "down": np.array([0, 0, -1.0]), "standing": np.array([s, -c, 0.0])}[pose]
    v = np.cross(w, u)
    return np.stack([u, v, w])


@functools.lru_cache(maxsize=64)
def _outline(shape: TileShape) -> tuple[np.ndarray, np.ndarray]:
    """Rounded-rectangle outline (M, 2) in face coordinates and outward normals of its segments."""
    hw, hh, r = shape.width / 2, shape.height / 2, shape.radius
    corners = []
    for (cx, cy), a0 in (((hw - r, hh - r), 0), ((-hw + r, hh - r), 90), ((-hw + r, -hh + r), 180),
                         ((hw - r, -hh + r), 270)):
        for k in range(_ARC):
            a = np.radians(a0 + 90 * k / (_ARC - 1))
            corners.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    pts = np.array(corners)
    seg = np.roll(pts, -1, axis=0) - pts
    normals = np.stack([seg[:, 1], -seg[:, 0]], 1)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True) + 1e-9
    return pts, normals


def body_points(shape: TileShape, tile: Placed) -> np.ndarray:
    """World points of the three outline rings (face, layer split, back): (3*M, 3)."""
    outline, _ = _outline(shape)
    d2 = shape.depth / 2
    levels = (d2, d2 - shape.front * shape.depth, -d2)
    local = np.concatenate([np.column_stack([outline, np.full(len(outline), w)]) for w in levels])
    return tile.centre + local @ tile.axes


@dataclass(frozen=True)
class Colours:
    back: tuple[float, ...]  # BGR of the back layer
    plate: tuple[float, ...]  # BGR of the front layer


def _shade(colour, k: float) -> tuple[float, ...]:
    return tuple(float(min(255.0, c * k)) for c in colour)


def draw_tile(img: np.ndarray, cam: Camera, shape: TileShape, tile: Placed, face_tex: np.ndarray | None,
              colours: Colours, light: np.ndarray, ambient: float,
              gloss: tuple[float, float] = (0.0, 1.0)) -> np.ndarray:
    """Draw one tile; returns its projected points (for the box). ``gloss`` = (strength, exponent)."""
    outline, normals2 = _outline(shape)
    m = len(outline)
    world = body_points(shape, tile)
    px, _ = cam.project(world)
    to_cam = cam.pos - tile.centre
    u, v, w = tile.axes
    n_world = normals2[:, :1] * u + normals2[:, 1:2] * v  # (M, 3) side normals
    mids = tile.centre + (0.5 * (outline + np.roll(outline, -1, 0)))[:, :1] * u + \
        (0.5 * (outline + np.roll(outline, -1, 0)))[:, 1:2] * v
    visible = np.einsum("ij,ij->i", n_world, cam.pos - mids) > 0
    diffuse = np.clip(n_world @ light, 0, None)
    front_side = faces_camera(tile, cam)
    fp = (px * 16).astype(np.int32)
    slabs = [(1, 2, colours.back), (0, 1, colours.plate)]  # ring a, ring b, colour
    if not front_side:
        slabs.reverse()
    for a, b, colour in slabs:
        ring_a, ring_b = fp[a * m:(a + 1) * m], fp[b * m:(b + 1) * m]
        hull = cv2.convexHull(np.concatenate([ring_a, ring_b]))
        cv2.fillConvexPoly(img, hull, _shade(colour, ambient + 0.3 * (1 - ambient)), cv2.LINE_AA, 4)
        for i in np.nonzero(visible)[0]:
            j = (i + 1) % m
            quad = np.array([ring_a[i], ring_a[j], ring_b[j], ring_b[i]])
            cv2.fillConvexPoly(img, quad, _shade(colour, ambient + (1 - ambient) * diffuse[i]), cv2.LINE_8, 4)
    cap_n = w if front_side else -w
    cap_k = ambient + (1 - ambient) * max(0.0, float(cap_n @ light))
    # glossy plastic: a Phong highlight where the cap mirrors the light towards the camera
    view = to_cam / np.linalg.norm(to_cam)
    mirror = 2 * float(cap_n @ light) * cap_n - light
    spec = gloss[0] * 255 * max(0.0, float(mirror @ view)) ** gloss[1]
    ring = fp[2 * m:] if not front_side else fp[:m]
    cap_colour = colours.back if not front_side else colours.plate
    if front_side and face_tex is not None:
        _warp_face(img, cam, shape, tile, face_tex, cap_k, spec)
    else:
        cv2.fillConvexPoly(img, ring, tuple(min(255.0, c + spec) for c in _shade(cap_colour, cap_k)), cv2.LINE_AA, 4)
    # the rounded rim catches less light: a faint darker edge that also separates touching tiles
    cv2.polylines(img, [ring], True, _shade(cap_colour, cap_k * 0.8), 1, cv2.LINE_AA, 4)
    return px


def faces_camera(tile: Placed, cam: Camera) -> bool:
    """Whether the tile's face (not its back) is turned towards the camera."""
    return float(tile.axes[2] @ (cam.pos - tile.centre)) > 0


def facing_cap(px: np.ndarray, tile: Placed, cam: Camera) -> np.ndarray:
    """Of a tile's projected body points (``draw_tile``'s return), the outline of the side turned to the
    camera: its face, or its back when the face looks away (the side ``draw_tile`` paints on top)."""
    m = len(px) // 3
    return px[:m] if faces_camera(tile, cam) else px[2 * m:]


def painted_ids(bodies: list[np.ndarray], order: np.ndarray, width: int, height: int) -> np.ndarray:
    """Which tile each pixel of the photo shows last (-1: none). Tiles are painted far to near in ``order``,
    each body over what lies behind it."""
    ids = np.full((height, width), -1, np.int16)
    for i in order:
        cv2.fillConvexPoly(ids, cv2.convexHull(np.round(bodies[i]).astype(np.int32)), int(i))
    return ids


def shown_shares(ids: np.ndarray, caps: list[np.ndarray]) -> np.ndarray:
    """For each tile, the share of its cap (``facing_cap``, the part inside the photo) that no tile painted
    after it covers (``ids``: ``painted_ids``): a tile lying flat behind a row of standing tiles can be hidden
    whole. A cap wholly outside the photo counts as shown (the frame's own rule decides on it)."""
    height, width = ids.shape
    shares = np.ones(len(caps))
    for i, cap in enumerate(caps):
        pts = np.round(cap).astype(np.int32)
        x0, y0 = np.maximum(pts.min(0), 0)
        x1, y1 = np.minimum(pts.max(0) + 1, (width, height))
        if x1 <= x0 or y1 <= y0:
            continue
        inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(inside, cv2.convexHull((pts - (x0, y0)).astype(np.int32)), 1)
        covered = inside.astype(bool)
        if covered.any():
            shares[i] = float(np.count_nonzero(ids[y0:y1, x0:x1][covered] == i)) / np.count_nonzero(covered)
    return shares


def face_quad(cam: Camera, shape: TileShape, tile: Placed) -> np.ndarray:
    """The face's corners in pixels (4, 2), in the order of the texture's: top left, top right, bottom right,
    bottom left."""
    hw, hh = shape.width / 2, shape.height / 2
    corners = np.array([[-hw, hh], [hw, hh], [hw, -hh], [-hw, -hh]])
    u, v, w = tile.axes
    world = tile.centre + corners[:, :1] * u + corners[:, 1:] * v + (shape.depth / 2) * w
    return cam.project(world)[0]


def texture_map(tex_shape: tuple[int, ...], quad: np.ndarray, x0: int, y0: int) -> np.ndarray:
    """3x3 map from a texture's pixels (its shape: height, width…) to those of a picture whose top left is the
    photo's (x0, y0)."""
    th, tw = tex_shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    return cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))


def _warp_face(img: np.ndarray, cam: Camera, shape: TileShape, tile: Placed, tex: np.ndarray, k: float,
               spec: float) -> None:
    """Warp the face texture onto the front plane, only over its bounding rectangle."""
    dst = face_quad(cam, shape, tile)
    x0, y0 = np.floor(dst.min(0)).astype(int)
    x1, y1 = np.ceil(dst.max(0)).astype(int) + 1
    x0c, y0c = max(x0, 0), max(y0, 0)
    x1c, y1c = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1c <= x0c or y1c <= y0c:
        return
    warped = cv2.warpPerspective(tex, texture_map(tex.shape, dst, x0c, y0c), (x1c - x0c, y1c - y0c), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:].astype(np.float32) * (1 / 255.0)
    roi = img[y0c:y1c, x0c:x1c]
    roi[:] = (roi * (1 - a) + (warped[..., :3] * k + spec) * a).clip(0, 255)
