"""How well the 萬 faces tell which way a row reads (vision/facing.py), measured two ways.

``--styles``: every 萬 face of each art style, flat on a table at the four quarter turns: does its red-to-ink way
point to the tile's top? ``--data DIR`` (a ``xingzi synth`` set): for each photo laid out in rows, the concealed
row's true reading way is the way its tiles were laid (the meta's order); the way the faces of the true boxes
choose (rowgeom.reading_way) is compared with it, as is the usual way boxes alone give (rightwards/downwards).

    python -m tools.facing_check --styles
    python -m tools.facing_check --data /tmp/heldout_s59 --data /tmp/heldout_s83
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from xingzi.datasets.synth import faces
from xingzi.vision import rowgeom
from xingzi.vision.bench_truth import truth_detections
from xingzi.vision.detections import Detections
from xingzi.vision.facing import face_up
from xingzi.vision.photo import load_image

TABLE = (40, 90, 30)
TOPS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # a tile's top with the photo turned k quarters clockwise


def style_rows() -> list[str]:
    sets = [faces.procedural_set(k) for k in range(0, 24, 3)] + [faces.brush_set(k) for k in range(3)]
    sets += [faces.load_pack(name) for name in faces.pack_dirs()]
    out = []
    for face_set in sets:
        right = wrong = untold = 0
        for index in range(9):
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
        out.append(f"{face_set.name:24s} right {right:2d}  wrong {wrong:2d}  untold {untold:2d}  (9 faces × 4 turns)")
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--styles", action="store_true", help="each art style's 萬 faces at four turns")
    p.add_argument("--data", action="append", default=[], type=Path, help="a xingzi synth set (repeatable)")
    args = p.parse_args(argv)
    if not args.styles and not args.data:
        p.error("say --styles, --data DIR, or both")
    for line in (style_rows() if args.styles else []) + [data_row(d) for d in args.data]:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
