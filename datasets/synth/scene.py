"""Where the tiles of a deal lie on the table, and where the phone is.

Groups (the ``group`` of every tile in the meta ``tiles`` list):
- 0: the concealed row, including the winning tile (role ``win``, often set a little apart);
- 1..k: the melds, in the order of the situation's ``melds`` list;
- k+1: the 发 set aside (role ``fa``); -1: loose extra tiles (role ``loose``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from xingzi.engine.melds import MeldKind
from xingzi.engine.tiles import Tile

from .hands import Deal
from .render import Camera, Placed, TileShape, body_points, look_at, tile_axes


@dataclass(frozen=True)
class Rack:
    lo: np.ndarray  # (3,) min corner, mm
    hi: np.ndarray  # (3,) max corner
    colour: tuple[int, int, int]


@dataclass(frozen=True)
class Layout:
    tiles: tuple[Placed, ...]
    shape: TileShape
    rack: Rack | None
    standing: bool
    kind: str  # "rows" (a revealed hand), "grid" (its tiles in rows of a few) or "scatter" (strewn about)
    win_shown: bool = True  # False: the winning tile sorted into the row like the rest (at an end or not)


def random_shape(rng: np.random.Generator) -> TileShape:
    w = rng.uniform(23, 30)
    return TileShape(width=w, height=w * rng.uniform(1.3, 1.45), depth=w * rng.uniform(0.58, 0.8),
                     front=rng.uniform(0.45, 0.72), radius=w * rng.uniform(0.07, 0.16))


class _Builder:
    def __init__(self, rng: np.random.Generator, shape: TileShape) -> None:
        self.rng, self.shape = rng, shape
        self.tiles: list[Placed] = []

    def put(self, tile: Tile, x: float, y: float, pose: str, role: str, group: int, base: float = 0.0,
            yaw: float = 0.0, sideways: bool = False) -> None:
        s, rng = self.shape, self.rng
        yaw += rng.normal(0, 0.02) + (np.pi / 2 if sideways else 0.0)
        z = base + (s.height / 2 if pose == "standing" else s.depth / 2)
        centre = np.array([x + rng.normal(0, 0.3), y + rng.normal(0, 0.3), z])
        self.tiles.append(Placed(tile.index, tile_axes(yaw, pose), centre, role, group, sideways,
                                 pose == "down"))

    def boxes(self, tiles: list[Placed]) -> np.ndarray:
        """Footprints on the table as (N, 4) x0 y0 x1 y1."""
        out = []
        for t in tiles:
            p = body_points(self.shape, t)
            out.append([p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()])
        return np.array(out).reshape(-1, 4)

    def clear(self, start: int, direction: tuple[float, float], rack: Rack | None = None) -> None:
        """Slide the tiles placed since ``start`` along ``direction`` until they touch nothing else
        (earlier tiles or the rack): groups never interpenetrate."""
        moving = self.tiles[start:]
        fixed = self.boxes(self.tiles[:start])
        if rack is not None:
            fixed = np.vstack([fixed, [[rack.lo[0], rack.lo[1], rack.hi[0], rack.hi[1]]]])
        if not moving or not len(fixed):
            return
        mine = self.boxes(moving)
        step = np.array(direction, np.float64) * 4.0
        shift = np.zeros(2)
        for _ in range(200):
            m = mine + np.concatenate([shift, shift])
            hit = ((m[:, None, 0] < fixed[None, :, 2] + 1) & (m[:, None, 2] > fixed[None, :, 0] - 1)
                   & (m[:, None, 1] < fixed[None, :, 3] + 1) & (m[:, None, 3] > fixed[None, :, 1] - 1))
            if not hit.any():
                break
            shift += step
        if shift.any():
            delta = np.array([shift[0], shift[1], 0.0])
            self.tiles[start:] = [Placed(t.cls, t.axes, t.centre + delta, t.role, t.group, t.sideways, t.face_down)
                                  for t in moving]

    def line(self, tiles, x: float, y: float, pose: str, role: str, group: int, gap: float, base: float = 0.0,
             sideways: int = -1, face_down: tuple[int, ...] = ()) -> float:
        """Tiles side by side from ``x``; returns the x after the last one."""
        s = self.shape
        for i, t in enumerate(tiles):
            side = i == sideways
            along = s.height if side else s.width
            dy = -(s.height - s.width) / 2 if side else 0.0  # a turned tile lines up with the near edge
            p = "down" if i in face_down else pose
            self.put(t, x + along / 2, y + dy, p, role, group, base, sideways=side)
            x += along + gap
        return x


def layout_deal(deal: Deal, rng: np.random.Generator) -> Layout:
    shape = random_shape(rng)
    b = _Builder(rng, shape)
    gap = rng.uniform(0.0, 1.2)
    standing = bool(rng.random() < 0.3)
    row_pose = "standing" if standing else "flat"
    rack = None
    base = 0.0
    row = list(deal.concealed)
    if rng.random() < 0.15:
        rng.shuffle(row)
    win_mode = rng.choice(3, p=[0.65, 0.15, 0.2])  # apart at the end, apart in front, in the row
    if win_mode == 2:
        row_all = sorted(row + [deal.win_tile])
        win_at = row_all.index(deal.win_tile) + int(rng.integers(0, row_all.count(deal.win_tile)))
    else:
        row_all, win_at = row, -1
    row_len = len(row_all) * (shape.width + gap)
    if rng.random() < (0.6 if standing else 0.12):
        base = rng.uniform(6, 14)
        depth = (shape.depth if standing else shape.height) + rng.uniform(14, 40)
        colours = [(235, 235, 232), (200, 200, 198), (40, 40, 44), (170, 200, 215), (60, 110, 60)]
        rack = Rack(np.array([-rng.uniform(8, 30), -depth * 0.6, 0.0]),
                    np.array([row_len + rng.uniform(8, 30) + shape.width * 1.5, depth * 0.4, base]),
                    colours[rng.integers(len(colours))])
    x = 0.0
    for i, t in enumerate(row_all):
        b.put(t, x + shape.width / 2, 0.0, row_pose, "win" if i == win_at else "concealed", 0, base)
        x += shape.width + gap
    row_depth = shape.depth if standing else shape.height
    if win_mode == 0:
        b.put(deal.win_tile, x + rng.uniform(3, 22) + shape.width / 2, 0.0,
              row_pose if rng.random() < 0.6 else "flat", "win", 0, base)
        x += shape.width + 22
    elif win_mode == 1:
        start = len(b.tiles)
        b.put(deal.win_tile, rng.uniform(0.3, 1.0) * x, -row_depth / 2 - shape.height / 2 - rng.uniform(4, 18),
              "flat", "win", 0, yaw=rng.normal(0, 0.15))
        b.clear(start, (0, -1), rack)
    # melds: to the right on the same line, or on a line in front of / behind the row
    place = rng.choice(3, p=[0.45, 0.4, 0.15])
    if place == 0:
        mx, my = x + rng.uniform(10, 35), 0.0 if not standing else -row_depth / 2 - shape.height / 2 - 3
    else:
        sign = -1 if place == 1 else 1
        mx = rng.uniform(-20, 60)
        my = sign * (row_depth / 2 + shape.height / 2 + rng.uniform(8, 30) + (shape.height if win_mode == 1 else 0))
    start = len(b.tiles)
    for k, meld in enumerate(deal.melds, start=1):
        n = meld.kind.size
        sideways = int(rng.integers(n)) if meld.kind is not MeldKind.CONCEALED_KONG and rng.random() < 0.3 else -1
        down: tuple[int, ...] = ()
        if meld.kind is MeldKind.CONCEALED_KONG:
            down = ((0, 3), (1, 2), (0, 1, 2, 3))[rng.choice(3, p=[0.5, 0.25, 0.25])]
        role = meld.kind.value
        mx = b.line([meld.tile] * n, mx, my, "flat", role, k, gap, sideways=sideways, face_down=down)
        mx += rng.uniform(5, 22)
    b.clear(start, ((1, 0), (0, -1), (0, 1))[place], rack)
    if deal.fa:
        fa_group = len(deal.melds) + 1
        start = len(b.tiles)
        if rng.random() < 0.5:
            fx = -rng.uniform(15, 45) - deal.fa * (shape.width + gap)
            b.line([Tile.FA] * deal.fa, fx, 0.0 if not standing else -row_depth, "flat", "fa", fa_group, gap)
            b.clear(start, (-1, 0), rack)
        else:
            fy = -(row_depth / 2 + shape.height * 1.2 + rng.uniform(5, 25))
            b.line([Tile.FA] * deal.fa, rng.uniform(-30, 80), fy, "flat", "fa", fa_group, gap)
            b.clear(start, (0, -1), rack)
    kind = "rows"
    r = rng.random()
    if r < 0.08 and not standing:
        kind, rack = "scatter", None
        b.tiles = _scatter(b.tiles, shape, rng)
    elif r < 0.18 and not standing:
        kind = "grid"
        b.tiles, rack = _grid(b.tiles, shape, rng)
    _add_loose(b, rng, rack)
    return Layout(tuple(b.tiles), shape, rack, standing and kind == "rows", kind, win_mode != 2)


def _grid(tiles: list[Placed], shape: TileShape, rng: np.random.Generator) -> tuple[list[Placed], Rack | None]:
    """The same tiles in rows of a few (as when a hand is sorted out in a tray), in reading order."""
    cols = int(rng.integers(4, 10))
    gx, gy = rng.uniform(0, 2.5), rng.uniform(0, 5)
    base = rng.uniform(3, 8) if rng.random() < 0.6 else 0.0
    out = []
    for i, t in enumerate(tiles):
        r, c = divmod(i, cols)
        centre = np.array([c * (shape.width + gx) + rng.normal(0, 0.4), -r * (shape.height + gy) + rng.normal(0, 0.4),
                           base + shape.depth / 2])
        axes = tile_axes(rng.normal(0, 0.02), "down" if t.face_down else "flat")
        out.append(Placed(t.cls, axes, centre, t.role, t.group, False, t.face_down))
    tray = None
    if base:
        rows = -(-len(tiles) // cols)
        m = rng.uniform(4, 15)
        lo = np.array([-shape.width / 2 - m, -(rows - 0.5) * (shape.height + gy) - m, 0.0])
        hi = np.array([(cols - 0.5) * (shape.width + gx) + m, shape.height / 2 + m, base])
        colours = [(30, 30, 32), (50, 50, 55), (225, 225, 222), (60, 90, 130)]
        tray = Rack(lo, hi, colours[rng.integers(len(colours))])
    return out, tray


def _scatter(tiles: list[Placed], shape: TileShape, rng: np.random.Generator) -> list[Placed]:
    """The same tiles strewn over the table at random turns, not touching."""
    out: list[Placed] = []
    r = np.hypot(shape.width, shape.height) / 2 + 1.0
    area = np.sqrt(len(tiles)) * 2.4 * r
    for t in tiles:
        for _ in range(200):
            c = rng.uniform(-area, area, 2)
            if all(np.hypot(*(c - o.centre[:2])) > 2 * r for o in out):
                break
        pose = "down" if t.face_down else "flat"
        centre = np.array([c[0], c[1], shape.depth / 2])
        out.append(Placed(t.cls, tile_axes(rng.uniform(0, 2 * np.pi), pose), centre, t.role, t.group,
                          False, t.face_down))
    return out


def _spare(b: _Builder, drawn: int, rng: np.random.Generator, more: list[Tile] | None = None,
           face_up: bool = False) -> Tile:
    """The face of a tile lying outside the hand: ``drawn`` unless the set's four of it are all on the table
    already (in ``b`` or ``more``), or it is a 发 lying face up, else another drawn among the faces left. A 发
    face up beside a hand is that player's bonus tile (RULES.md §1: whoever draws one sets it out), never a
    stray. Only a clash draws more from ``rng``, so photos without one stay as they were."""
    used = Counter(t.cls for t in b.tiles) + Counter(t.index for t in more or [])
    barred = {Tile.FA.index} if face_up else set()
    if used[drawn] < 4 and drawn not in barred:
        return Tile.from_index(drawn)
    left = [k for k in range(30) if used[k] < 4 and k not in barred]
    return Tile.from_index(left[int(rng.integers(len(left)))])


def _add_loose(b: _Builder, rng: np.random.Generator, rack: Rack | None) -> None:
    """Sometimes other tiles lie around: a few loose ones, or a stretch of face-down wall."""
    shape = b.shape
    pts = np.array([t.centre[:2] for t in b.tiles])
    lo, hi = pts.min(0), pts.max(0)
    r = np.hypot(shape.width, shape.height) / 2 + 1.0
    if rng.random() < 0.25:
        for _ in range(int(rng.integers(1, 6))):
            for _ in range(50):
                c = rng.uniform(lo - 4 * r, hi + 4 * r)
                on_rack = rack is not None and bool(np.all(c > rack.lo[:2] - r) and np.all(c < rack.hi[:2] + r))
                if not on_rack and all(np.hypot(*(c - t.centre[:2])) > 2 * r for t in b.tiles):
                    tile = _spare(b, int(rng.integers(30)), rng)
                    pose = "down" if rng.random() < 0.25 else "flat"
                    if pose == "flat":  # drawn after the face, so photos without a loose 发 face up stay as they were
                        tile = _spare(b, tile.index, rng, face_up=True)
                    b.put(tile, c[0], c[1], pose, "loose", -1, yaw=rng.uniform(0, 2 * np.pi))
                    break
    if rng.random() < 0.12:
        n = int(rng.integers(3, 9))
        y = hi[1] + r + rng.uniform(20, 60)
        x0 = rng.uniform(lo[0] - 40, hi[0] - 100)
        faces: list[Tile] = []
        for i in rng.integers(30, size=n):
            faces.append(_spare(b, int(i), rng, faces))
        start = len(b.tiles)
        b.line(faces, x0, y, "down", "loose", -1, rng.uniform(0, 1.0), face_down=tuple(range(n)))
        b.clear(start, (0, 1), rack)


def choose_camera(layout: Layout, rng: np.random.Generator, width: int, height: int) -> Camera:
    """A phone camera that frames all tiles except loose ones, from any angle a person might use."""
    core = [t for t in layout.tiles if t.role != "loose"] or list(layout.tiles)
    pts = np.concatenate([body_points(layout.shape, t) for t in core])
    target = (pts.min(0) + pts.max(0)) / 2
    target[2] = 0.0
    extent = float(np.max(pts.max(0) - pts.min(0)))
    if layout.standing:
        azimuth = -np.pi / 2 + rng.uniform(-0.8, 0.8)
        elevation = rng.uniform(np.radians(16), np.radians(58))
    else:
        azimuth = -np.pi / 2 + rng.uniform(-1.0, 1.0) if rng.random() < 0.6 else rng.uniform(0, 2 * np.pi)
        elevation = rng.uniform(np.radians(28), np.radians(90))
    roll = rng.normal(0, 0.12)
    if rng.random() < 0.3:
        roll += rng.choice([np.pi / 2, np.pi, -np.pi / 2])
    distance = extent * rng.uniform(0.8, 2.2) + 150
    rot, pos = look_at(target + rng.normal(0, extent * 0.03, 3) * [1, 1, 0], azimuth, elevation, distance, roll)
    probe = Camera(rot, pos, 1.0, 0.0, 0.0, width, height)
    px, _ = probe.project(pts)
    lo, hi = px.min(0), px.max(0)
    aspect = (hi[0] - lo[0]) / max(hi[1] - lo[1], 1e-9)
    if ((aspect > 1.5 and width < height) or (aspect < 0.67 and width > height)) and rng.random() < 0.85:
        width, height = height, width  # the photographer turns the phone to fit the hand
    fill = rng.uniform(0.7, 1.0)
    if rng.random() < 0.15:  # close-up: part of the hand runs off the photo
        fill = rng.uniform(1.1, 1.8)
    f = fill * min(width / (hi[0] - lo[0]), height / (hi[1] - lo[1]))
    free_x, free_y = width - f * (hi[0] - lo[0]), height - f * (hi[1] - lo[1])
    cx = -f * lo[0] + (rng.uniform(0.1, 0.9) if free_x > 0 else rng.uniform(0, 1)) * free_x
    cy = -f * lo[1] + (rng.uniform(0.1, 0.9) if free_y > 0 else rng.uniform(0, 1)) * free_y
    return Camera(rot, pos, float(f), float(cx), float(cy), width, height)
