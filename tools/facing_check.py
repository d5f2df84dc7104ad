"""How well the 萬 faces tell which way a row reads (vision/facing.py), measured two ways.

``--styles``: every 萬 face of each art style (and each face of facing.SHAPE_SIGN), flat on a table at the four
quarter turns: does its way point to the tile's top? ``--data DIR`` (a ``xingzi synth`` set): for each photo laid out in rows, the concealed
row's true reading way is the way its tiles were laid (the meta's order); the way the faces of the true boxes
choose (rowgeom.reading_way) is compared with it, as is the usual way boxes alone give (rightwards/downwards).
``--turns DIR``: each photo of the set read from its true boxes as taken, turned 180° and turned 90°: how many read
the same at all three turns, and how many 炮 totals are right (``--no-tops``: the boxes alone, as before).
``--real DIR`` (YOLO labels, our class ids): of the photos with a hand's worth of labelled faces (13-18), which are
read the other way round from their labelled boxes once the faces are looked at (to be looked at by eye).

    python -m tools.facing_check --styles
    python -m tools.facing_check --data /tmp/heldout_s59 --data /tmp/heldout_s83
    python -m tools.facing_check --turns /tmp/heldout_s59 [--no-tops]
    python -m tools.facing_check --real ../shared/data/real_cn_val
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from xingzi.datasets.synth import faces
from xingzi.vision import perturb, rowgeom
from xingzi.vision.bench_truth import context_of, total_right, truth_detections
from xingzi.vision.detections import Detections
from xingzi.vision.facing import MAN_CLASSES, SHAPE_SIGN, face_up, with_up
from xingzi.vision.grouping import group
from xingzi.vision.photo import load_image
from xingzi.vision.pipeline import analyse

TABLE = (40, 90, 30)
TOPS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # a tile's top with the photo turned k quarters clockwise


def style_rows() -> list[str]:
    sets = [faces.procedural_set(k) for k in range(0, 24, 3)] + [faces.brush_set(k) for k in range(3)]
    sets += [faces.load_pack(name) for name in faces.pack_dirs()]
    out = []
    for face_set in sets:
        right = wrong = untold = 0
        for index in [*range(MAN_CLASSES), *SHAPE_SIGN]:
            face = face_set.face(index, 120)
            alpha = face[..., 3:4].astype(np.float32) / 255
            image = np.full((face.shape[0] + 40, face.shape[1] + 40, 3), TABLE, np.uint8)
            image[20:-20, 20:-20] = (face[..., :3] * alpha + 235 * (1 - alpha)).astype(np.uint8)
            for k, top in enumerate(TOPS):
                turned = np.ascontiguousarray(np.rot90(image, -k))
                h, w = turned.shape[:2]
                det = Detections(np.array([[20, 20, w - 20, h - 20]], np.float32), np.array([index]),
                                 np.ones(1, np.float32))
                up = face_up(turned, det)[0]
                if not up.any():
                    untold += 1
                elif up @ np.array(top) > 0:
                    right += 1
                else:
                    wrong += 1
        out.append(f"{face_set.name:24s} right {right:2d}  wrong {wrong:2d}  untold {untold:2d}  "
                   f"({MAN_CLASSES + len(SHAPE_SIGN)} faces × 4 turns)")
    return out


def data_row(root: Path) -> str:
    rows = told = right = usual_right = 0
    for meta_path in sorted((root / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        laid = [t for t in meta.get("tiles", []) if t["role"] == "concealed" and not t["face_down"]]
        if meta.get("layout") != "rows" or len(laid) < 4:
            continue
        images = sorted((root / "images").glob(meta_path.stem + ".*"))
        if not images:
            continue
        centre = [np.add(t["xyxy"][:2], t["xyxy"][2:]) / 2 for t in laid]
        truth = centre[-1] - centre[0]
        usual = rowgeom.canonical(truth / np.linalg.norm(truth))
        det = truth_detections(meta)
        body = np.array([i for i, t in enumerate(meta["tiles"]) if t["role"] not in ("fa", "loose")])
        way = rowgeom.reading_way(usual, face_up(load_image(images[0]), det)[body])
        rows += 1
        usual_right += bool(usual @ truth > 0)
        if way @ usual < 0:
            told += 1
        right += bool(way @ truth > 0)
    return (f"{root}: {rows} photos in rows; the usual way is right in {usual_right}; the faces turned it in {told}; "
            f"the way read is right in {right}")


def turned(image: np.ndarray, det: Detections, name: str) -> tuple[np.ndarray, Detections]:
    """The photo and its boxes changed by the perturbation ``name`` (``rot180``, ``rot90``: vision/perturb.py)."""
    change = perturb.get(name)
    boxes = change.boxes(det.xyxy.astype(np.float64), image.shape[1], image.shape[0])
    return change.image(image), Detections(boxes.astype(np.float32), det.cls, det.conf)


def turns_row(root: Path, tops: bool = True) -> str:
    photos = same = right_taken = right_turned = 0
    for meta_path in sorted((root / "meta").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        images = sorted((root / "images").glob(meta_path.stem + ".*"))
        if not meta.get("tiles") or not meta.get("expect", {}).get("valid", True) or not images:
            continue
        image, det, context = load_image(images[0]), truth_detections(meta), context_of(meta["situation"])
        readings = []
        for name in ("", "rot180", "rot90"):
            picture, boxes = turned(image, det, name) if name else (image, det)
            result = analyse(picture, with_up(picture, boxes) if tops else boxes, context)
            readings.append((result.reading.notation, total_right(result, meta)))
        photos += 1
        same += len({notation for notation, _ in readings}) == 1
        right_taken += readings[0][1]
        right_turned += readings[1][1] + readings[2][1]
    return (f"{root}{'' if tops else ' (boxes alone)'}: {photos} photos; the same reading as taken, at 180° and at 90° "
            f"in {same}; 炮 total right in {right_taken} as taken, {right_turned} of {2 * photos} turned")


def real_row(root: Path) -> str:
    hands, turned_round = 0, []
    for label in sorted((root / "labels").glob("*.txt")):
        rows = [line.split() for line in label.read_text().splitlines() if line.strip()]
        rows = [r for r in rows if 0 <= int(r[0]) < 30]
        images = sorted((root / "images").glob(label.stem + ".*"))
        if not 13 <= len(rows) <= 18 or not images:
            continue
        image = load_image(images[0])
        h, w = image.shape[:2]
        xywh = np.array([[float(v) for v in r[1:5]] for r in rows])
        xyxy = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], axis=1) * [w, h, w, h]
        det = Detections(xyxy.astype(np.float32), np.array([int(r[0]) for r in rows]), np.ones(len(rows), np.float32))
        hands += 1
        if np.dot(group(det).direction, group(with_up(image, det)).direction) < 0:
            turned_round.append(label.stem)
    return f"{root}: {hands} photos of a hand's worth of faces; read the other way round in {len(turned_round)}: " + \
        ", ".join(turned_round)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--styles", action="store_true", help="each art style's 萬 faces at four turns")
    p.add_argument("--data", action="append", default=[], type=Path, help="a xingzi synth set (repeatable)")
    p.add_argument("--turns", action="append", default=[], type=Path,
                   help="a xingzi synth set read as taken and turned (repeatable)")
    p.add_argument("--real", action="append", default=[], type=Path, help="a labelled photo folder (repeatable)")
    p.add_argument("--no-tops", dest="tops", action="store_false", help="--turns from the boxes alone")
    args = p.parse_args(argv)
    if not args.styles and not args.data and not args.turns and not args.real:
        p.error("say --styles, --data DIR, --turns DIR or --real DIR")
    for line in (style_rows() if args.styles else []) + [data_row(d) for d in args.data] + [real_row(d) for d in args.real]:
        print(line)
    for root in args.turns:
        print(turns_row(root, args.tops), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
