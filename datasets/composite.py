"""Winning hands laid out from real tile pictures: a measure of the whole pipeline on tile faces no generator drew.

Every labelled tile of a real YOLO folder (its label errata applied) is cut out at its box; a synthetic deal
(:func:`xingzi.datasets.synth.hands.sample_deal`: the hand, its melds, the 发 set aside, the situation) is then
laid out on a table with those pictures: the concealed row, the winning tile set apart at its end, each claimed
meld after the row with one tile turned, a concealed kong with its two end tiles face down, the 发 before the
row. Written like ``xingzi synth`` (images/, labels/, meta/ with the situation and its expected result), so

    python -m xingzi.datasets.composite --real ../shared/data/real_cn_val --n 150 --seed 7 --out /tmp/composite_s7
    xingzi bench pipeline --data /tmp/composite_s7 --boxes model

gives the 炮 total end to end on real tile pixels. Tiles from the validation photos: the models never trained on
them (their thresholds were tuned there); the layout is plain, the tiles pasted flat on the table.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from xingzi.datasets.check import iou_matrix, refuse_other_classes
from xingzi.datasets.errata import shipped_fixer, training_images
from xingzi.datasets.loose_boxes import copy_looseness, tightest_copies
from xingzi.datasets.synth.dataset import write_sample
from xingzi.datasets.synth.generate import Sample
from xingzi.datasets.synth.hands import Deal, sample_deal
from xingzi.datasets.tile_crops import class_table, labelled_photo, names_of
from xingzi.datasets.yolo import atomic_write_text, data_yaml_text
from xingzi.engine import score_situation
from xingzi.engine.melds import MeldKind
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, Tile

MIN_SIDE = 24  # px: smaller tile pictures are too blurred to stand for a tile
# A box overlapping another labelled box by more than this (IoU) holds part of its neighbour: tight boxes of tiles
# side by side only touch (3,426 of real_cn_val's 3,440 upright pictures are at most this)
OVERLAP = 0.05
TABLES = ((40, 110, 50), (35, 70, 120), (70, 95, 130), (120, 120, 115), (30, 60, 35))  # BGR table cloths
BACKS = ((40, 130, 60), (150, 90, 30), (40, 150, 200), (120, 60, 140))  # BGR tile backs


@dataclass(frozen=True)
class CompositeConfig:
    real: str
    out: str
    n: int = 150
    seed: int = 7
    width: int = 1280
    height: int = 960
    backs: tuple[tuple[int, int, int], ...] = BACKS  # BGR colours of the face-down tiles, one drawn per picture


def tile_bank(folder: Path) -> dict[int, list[np.ndarray]]:
    """Upright pictures of each face (class id → BGR crops) from a YOLO folder's labelled tiles: of a source photo
    saved as several augmented copies only its tightest copy (a turned or sheared copy's boxes grow round its
    tiles: ``loose_boxes``), and no box that overlaps another (``OVERLAP``)."""
    table, fix = class_table(names_of(folder)), shipped_fixer(folder)
    images, looseness = training_images(folder), copy_looseness(folder)
    tightest = tightest_copies({p.name: looseness[p.name] for p in images})  # of the copies the errata keep
    bank: dict[int, list[np.ndarray]] = {}
    for path in images:
        photo = labelled_photo(path, table, fix) if path.name in tightest else None
        if photo is None:
            continue
        image, boxes, classes = photo
        h, w = image.shape[:2]
        iou = iou_matrix(boxes, boxes)
        np.fill_diagonal(iou, 0.0)
        for k, ((x0, y0, x1, y1), c) in enumerate(zip(boxes.round().astype(int), classes, strict=True)):
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            bw, bh = x1 - x0, y1 - y0
            # a face stands taller than wide; a tile seen turned or from its side is no picture of an upright face
            if (c < 30 and min(bw, bh) >= MIN_SIDE and 1.1 * bw <= bh <= 2.0 * bw and iou[k].max() <= OVERLAP
                    and square_on(image[y0:y1, x0:x1])):
                bank.setdefault(int(c), []).append(image[y0:y1, x0:x1].copy())
    missing = [CLASS_NAMES[c] for c in range(30) if c not in bank]
    if missing:
        raise ValueError(f"{folder}: no upright picture of {', '.join(missing)}; a hand needs every face")
    return bank


def square_on(crop: np.ndarray) -> bool:
    """Whether a tile's box holds the tile square on: all four corners light and colourless (the tile's face), not
    the table showing past the corners of a tile lying at a slant."""
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    h, w = crop.shape[:2]
    ch, cw = max(2, h // 8), max(2, w // 8)
    corners = (hsv[:ch, :cw], hsv[:ch, -cw:], hsv[-ch:, :cw], hsv[-ch:, -cw:])
    return all(c[..., 2].mean() > 140 and c[..., 1].mean() < 80 for c in corners)


class _Table:
    """A picture being laid out: tiles pasted left to right, their boxes, roles and groups kept."""

    def __init__(self, cfg: CompositeConfig, rng: np.random.Generator, tile_h: int) -> None:
        cloth = np.array(TABLES[rng.integers(len(TABLES))], np.float32)
        noise = rng.normal(0, 6, (cfg.height, cfg.width, 1)).astype(np.float32)
        self.image = np.clip(cloth + noise, 0, 255).astype(np.uint8)
        self.rng, self.h, self.w = rng, tile_h, int(round(tile_h * 0.75))
        self.back = cfg.backs[rng.integers(len(cfg.backs))]
        self.tiles: list[dict] = []

    def put(self, picture: np.ndarray | None, cls: int, x: float, y: float, role: str, group: int,
            sideways: bool = False) -> float:
        """Paste one tile with its top-left at (x, y); return the x where the next one goes."""
        w, h = (self.h, self.w) if sideways else (self.w, self.h)
        tile: np.ndarray
        if picture is None:  # face down: the back's colour with a lighter rim
            tile = np.full((h, w, 3), self.back, np.uint8)
            cv2.rectangle(tile, (0, 0), (w - 1, h - 1), (230, 230, 225), max(2, w // 12))
        else:
            tile = cv2.resize(picture, (self.w, self.h), interpolation=cv2.INTER_AREA)
            tile = cv2.rotate(tile, cv2.ROTATE_90_COUNTERCLOCKWISE) if sideways else tile
        x0, y0 = int(round(x)), int(round(y + (self.h - h if sideways else 0)))  # a turned tile lies on the row's line
        if x0 < 0 or y0 < 0 or x0 + w > self.image.shape[1] or y0 + h > self.image.shape[0]:
            raise _NoRoom
        self.image[y0:y0 + h, x0:x0 + w] = tile
        self.tiles.append({"cls": cls, "face": CLASS_NAMES[cls], "xyxy": [x0, y0, x0 + w, y0 + h], "group": group,
                           "role": role, "sideways": sideways, "face_down": picture is None})
        return x0 + w + self.rng.uniform(1, 4)


class _NoRoom(Exception):
    """The hand does not fit the picture at this tile size."""


def lay_out(deal: Deal, bank: dict[int, list[np.ndarray]], cfg: CompositeConfig,
            rng: np.random.Generator) -> _Table:
    """The deal on a table: 发, the concealed row and the winning tile apart, then the melds on a second line."""
    for tile_h in (int(rng.uniform(36, 100)), 56, 44, 36):
        try:
            return _lay_out(deal, bank, cfg, rng, tile_h)
        except _NoRoom:
            continue
    raise ValueError(f"the hand {deal.hand} does not fit a {cfg.width}x{cfg.height} picture")


def _lay_out(deal: Deal, bank: dict[int, list[np.ndarray]], cfg: CompositeConfig, rng: np.random.Generator,
             tile_h: int) -> _Table:
    t = _Table(cfg, rng, tile_h)

    def picture(tile: Tile) -> np.ndarray:
        choices = bank[tile.index]
        return choices[rng.integers(len(choices))]

    y = rng.uniform(0.25, 0.45) * cfg.height
    x = rng.uniform(0.02, 0.08) * cfg.width
    for _ in range(deal.fa):
        x = t.put(picture(Tile.FA), Tile.FA.index, x, y, "fa", len(deal.melds) + 1)
    x += t.w * rng.uniform(0.8, 1.5)
    for tile in deal.concealed:
        x = t.put(picture(tile), tile.index, x, y, "concealed", 0)
    t.put(picture(deal.win_tile), deal.win_tile.index, x + t.w * rng.uniform(0.6, 1.0), y, "win", 0)
    x, y = rng.uniform(0.05, 0.2) * cfg.width, y + t.h * rng.uniform(1.6, 2.2)
    for k, meld in enumerate(deal.melds, start=1):
        turned = -1 if meld.kind is MeldKind.CONCEALED_KONG else int(rng.integers(meld.kind.size))
        for i in range(meld.kind.size):
            down = meld.kind is MeldKind.CONCEALED_KONG and i in (0, 3)
            x = t.put(None if down else picture(meld.tile), BACK_CLASS if down else meld.tile.index, x, y,
                      meld.kind.value, k, sideways=i == turned)
        x += t.w * rng.uniform(0.7, 1.2)
    return t


def as_photographed(t: _Table, rng: np.random.Generator) -> np.ndarray:
    """The table as a phone sees it: turned, at a slant (a random homography of the whole picture, each tile's box
    the bounding box of its warped corners), a little out of focus."""
    h, w = t.image.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    angle = np.deg2rad(rng.uniform(-20, 20))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    centre = np.array([w / 2, h / 2])
    dst = (src - centre) @ rot.T * rng.uniform(0.8, 1.0) + centre
    dst += rng.uniform(-0.08, 0.08, (4, 2)) * [w, h]
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    cloth = tuple(int(v) for v in np.median(t.image.reshape(-1, 3), axis=0))
    image = cv2.warpPerspective(t.image, m, (w, h), flags=cv2.INTER_AREA, borderValue=cloth)
    for tile in t.tiles:
        x0, y0, x1, y1 = tile["xyxy"]
        corners = cv2.perspectiveTransform(np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32), m)[0]
        lo, hi = np.clip(corners.min(0), 0, [w, h]), np.clip(corners.max(0), 0, [w, h])
        tile["xyxy"] = [round(float(v), 2) for v in (*lo, *hi)]
    sigma = rng.uniform(0.0, 1.2)
    return cv2.GaussianBlur(image, (0, 0), sigma) if sigma > 0.3 else image


def render(deal: Deal, bank: dict[int, list[np.ndarray]], cfg: CompositeConfig, rng: np.random.Generator,
           index: int) -> Sample:
    t = lay_out(deal, bank, cfg, rng)
    situation = deal.situation()
    image = as_photographed(t, rng)
    if any(tile["xyxy"][2] - tile["xyxy"][0] < 8 or tile["xyxy"][3] - tile["xyxy"][1] < 8 for tile in t.tiles):
        raise _NoRoom  # a tile warped out of the picture: lay the hand out again
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 93))])
    if not ok:
        raise RuntimeError("could not encode a composite picture")
    meta = {"situation": situation, "expect": score_situation(situation), "tiles": t.tiles,
            "size": [cfg.width, cfg.height], "complete": True, "layout": "rows", "win_shown": True,
            "standing": False, "style": "real crops", "pattern": deal.pattern, "seed": cfg.seed, "index": index,
            "source": f"composite:{Path(cfg.real).name}"}
    boxes = np.array([tile["xyxy"] for tile in t.tiles], np.float64).reshape(-1, 4)
    classes = np.array([tile["cls"] for tile in t.tiles], np.int64)
    return Sample(jpeg.tobytes(), cfg.width, cfg.height, boxes, classes, meta)


def build(cfg: CompositeConfig) -> dict:
    if cfg.n < 1:
        raise ValueError(f"--n must be at least 1, got {cfg.n}")
    if not cfg.backs or any(len(c) != 3 or not all(0 <= v <= 255 for v in c) for c in cfg.backs):
        raise ValueError(f"back colours must be B,G,R triples of 0..255, got {list(cfg.backs)}")
    bank = tile_bank(Path(cfg.real))
    out = Path(cfg.out)
    refuse_other_classes(out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "data.yaml", data_yaml_text(out.resolve()))
    rng = np.random.default_rng(cfg.seed)
    for i in range(cfg.n):
        for _ in range(20):
            try:
                sample = render(sample_deal(rng), bank, cfg, rng, i)
                break
            except _NoRoom:
                continue
        else:
            raise ValueError(f"no hand could be laid out in {cfg.width}x{cfg.height} after 20 deals")
        write_sample(out, f"composite_s{cfg.seed}_{i:06d}", sample)
    summary = {**asdict(cfg), "pictures_per_face": {CLASS_NAMES[c]: len(v) for c, v in sorted(bank.items())}}
    atomic_write_text(out / "composite.json", json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
    return summary


def _bgr(text: str) -> tuple[int, int, int]:
    try:
        b, g, r = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected B,G,R (three whole numbers 0..255), got {text!r}") from None
    if not all(0 <= v <= 255 for v in (b, g, r)):
        raise argparse.ArgumentTypeError(f"expected B,G,R each 0..255, got {text!r}")
    return b, g, r


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m xingzi.datasets.composite", description=__doc__.split("\n\n")[0])
    p.add_argument("--real", required=True, help="a YOLO folder of real photos whose labelled tiles are cut out")
    p.add_argument("--out", required=True, help="the folder to write (images/, labels/, meta/, data.yaml)")
    p.add_argument("--n", type=int, default=CompositeConfig.n, help="hands to lay out")
    p.add_argument("--seed", type=int, default=CompositeConfig.seed, help="deals and layouts (same seed, same bytes)")
    p.add_argument("--back", action="append", type=_bgr, metavar="B,G,R",
                   help="a colour of the face-down tiles, one drawn per picture (repeatable; default: green, "
                        "blue, orange and purple)")
    args = p.parse_args(argv)
    backs = tuple(args.back) if args.back else BACKS
    try:
        summary = build(CompositeConfig(args.real, args.out, args.n, args.seed, backs=backs))
    except (ValueError, OSError) as e:  # a folder short of a face, none at all: one line, as argparse's own
        p.error(str(e))
    faces = summary["pictures_per_face"]
    print(f"{args.n} hands written to {args.out} from {sum(faces.values())} tile pictures "
          f"(fewest: {min(faces.values())} of {min(faces, key=faces.get)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
