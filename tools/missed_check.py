"""How well a missed tile added by its face and group alone (the page's "+", ``xingzi score --add 3m@N``) lands where
the detector would have found it: on `xingzi synth` (or composite) folders, every tile of each hand's true boxes that
belongs to a group (the row, a meld, the 发) is left out in turn and added back beside another tile of its group; the
hand is right when the reading keeps what scoring takes (the tiles standing, the melds, the 发, and the winning tile
where the photo shows it apart). The same tile added at its true box is the ceiling (a tap on the photo where it lies).

    python -m tools.missed_check --data /tmp/heldout_s59 [--data ...] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from xingzi.engine.tiles import BACK_CLASS
from xingzi.vision.bench_truth import truth_detections
from xingzi.vision.detections import Detections
from xingzi.vision.eval_data import image_size, load_dataset, name_table, truths_for
from xingzi.vision.grouping import HandReading, group, is_legal_reading
from xingzi.vision.metrics import box_iou
from xingzi.vision.missed import add_missed

ROLES = ("concealed", "pung", "kong", "concealed_kong", "fa")
HAND_TILES = (13, 18)  # labelled photos of this many tiles hold one hand


def same_hand(got: HandReading, truth: HandReading) -> bool:
    """``got`` reads what scoring takes from ``truth``: the winning tile too where ``truth`` shows it apart."""
    def key(r: HandReading) -> tuple:
        return sorted(t.value for t in r.tiles), sorted(str(m) for m in r.melds), r.fa

    return key(got) == key(truth) and (not truth.win_set_apart
                                       or (got.win_set_apart and got.win_tile == truth.win_tile))


def mates(reading: HandReading, i: int) -> list[int]:
    """The other tiles of tile ``i``'s group: the row (with the winning tile), its meld, the 发."""
    role, meld = reading.roles[i], reading.meld_of[i]
    if role == "concealed":
        return [j for j, r in enumerate(reading.roles) if j != i and r in ("concealed", "win")]
    return [j for j, (r, m) in enumerate(zip(reading.roles, reading.meld_of, strict=True))
            if j != i and r == role and m == meld]


def check_photo(det: Detections, shape: tuple[int, ...], tally: Counter, times: list[float]) -> None:
    full = group(det)
    legal = is_legal_reading(full)
    for i, role in enumerate(full.roles):
        if role not in ROLES or int(det.cls[i]) == BACK_CLASS:
            continue
        tally["tiles"] += 1
        others = mates(full, i)
        if not others:
            tally["alone in its group"] += 1
            continue
        less = det.subset(np.arange(len(det)) != i)
        # a concealed kong's face beside a face-down tile of its kong: they lie uncounted without it, and the page
        # offers its "+" after them
        at = next((j for j in others if int(det.cls[j]) == BACK_CLASS), others[0]) if role == "concealed_kong" else others[0]
        beside, face = at - (at > i), int(det.cls[i])
        tapped, _ = add_missed(less, [(face, tuple(float(v) for v in det.xyxy[i]))], shape)
        tally["right at its true box"] += same_hand(group(tapped), full)
        tally[f"tried {role}"] += 1
        tally["tried"] += 1
        tally["legal tried"] += legal  # (the truth a winning hand, as a Xingzi photo's is)
        t0 = time.perf_counter()
        try:
            back, placed = add_missed(less, [(face, beside)], shape)
        except ValueError:  # the group broke up without the tile, or no place counts it: the "+" refuses
            tally["refused"] += 1
            continue
        times.append(time.perf_counter() - t0)
        tally["placed"] += 1
        iou = box_iou(np.array([placed[0][1]]), det.xyxy[i:i + 1].astype(np.float64))[0, 0]
        tally["on its tile"] += bool(iou >= 0.5)  # (what a training label needs)
        right = same_hand(group(back), full)
        tally["right"] += right
        tally["legal right"] += legal and right
        tally[f"right {role}"] += right


def _synth(data: Path) -> list[tuple[Detections, tuple[int, int]]]:
    """A `xingzi synth` folder's hands (the true boxes), those the frame cuts short left out."""
    paths = sorted((data / "meta").glob("*.json"))
    if not paths:
        raise SystemExit(f"{data}/meta has no .json files: expected a `xingzi synth --out` folder")
    out: list[tuple[Detections, tuple[int, int]]] = []
    for path in paths:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta.get("complete", True):
            w, h = image_size(data / "images" / f"{path.stem}.jpg")
            out.append((truth_detections(meta), (h, w)))
    return out


def _random(n: int, seed: int) -> list[tuple[Detections, tuple[int, int]]]:
    from xingzi.vision.bench_layouts import random_layout

    rng = np.random.default_rng(seed)
    return [(random_layout(rng, k)[1].detections, (960, 1280)) for k in range(n)]


def _labelled(data: Path) -> list[tuple[Detections, tuple[int, int]]]:
    """Labelled photos (YOLO, as `xingzi eval` reads them) of a hand's worth of tiles (13 to 18), their labels' boxes."""
    ds = load_dataset(data)
    truths, sizes = truths_for(ds, name_table(ds.names))
    out: list[tuple[Detections, tuple[int, int]]] = []
    for boxes, (w, h) in zip(truths, sizes, strict=True):
        tiles = boxes.cls >= 0  # (classes of no Xingzi face: not tiles of the hand)
        if HAND_TILES[0] <= int(tiles.sum()) <= HAND_TILES[1]:
            n = int(tiles.sum())
            out.append((Detections(boxes.xyxy[tiles].astype(np.float32), boxes.cls[tiles].astype(np.int64),
                                   np.ones(n, np.float32)), (h, w)))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.missed_check", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", action="append",
                   help="a `xingzi synth` folder, or labelled photos as `xingzi eval` reads them; repeatable")
    p.add_argument("--limit", type=int, default=0, help="photos per folder (0: all)")
    p.add_argument("--random-layouts", type=int, default=0, metavar="N",
                   help="also N hands dealt and laid out at random, as `xingzi bench pipeline --random-layouts` lays "
                        "them out (their true boxes)")
    p.add_argument("--seed", type=int, default=5, help="for --random-layouts")
    args = p.parse_args(argv)
    if args.random_layouts < 0 or args.limit < 0:
        p.error(f"--random-layouts and --limit must be 0 or more, got {args.random_layouts} and {args.limit}")
    sets: list[tuple[str, Path | None]] = [(str(data), data) for data in map(Path, args.data or [])]
    if args.random_layouts:
        sets.append((f"{args.random_layouts} random layouts (seed {args.seed})", None))
    if not sets:
        raise SystemExit("give --data DIR or --random-layouts N")
    for name, data in sets:
        tally: Counter = Counter()
        times: list[float] = []
        try:
            photos = (_random(args.random_layouts, args.seed) if data is None else
                      _synth(data) if (data / "meta").is_dir() else _labelled(data))
        except (OSError, ValueError) as e:
            raise SystemExit(f"--data {data}: {e}") from None
        for det, shape in photos[: args.limit or None]:
            check_photo(det, shape, tally, times)
        n = tally["tiles"]
        print(f"{name}: {n} tiles of a group, each left out and added back by face and group")
        print(f"  right: {tally['right']} ({100 * tally['right'] / max(n, 1):.1f} %); at its true box (a tap): "
              f"{tally['right at its true box']} ({100 * tally['right at its true box'] / max(n, 1):.1f} %)")
        if tally["legal tried"] < tally["tried"]:  # some truths are no winning hand (real photos of any tiles)
            print(f"  of the tiles of hands whose truth reads a winning hand: {tally['legal right']} / "
                  f"{tally['legal tried']} right")
        print("  by group: " + ", ".join(f"{r} {tally[f'right {r}']}/{tally[f'tried {r}']}" for r in ROLES
                                          if tally[f"tried {r}"]))
        print(f"  placed on the tile itself (IoU >= 0.5, as a training label must be): {tally['on its tile']} of "
              f"{tally['placed']}")
        print(f"  no '+' to use: alone in its group {tally['alone in its group']}; refused (the group broken up "
              f"without the tile, or no place counts it) {tally['refused']}")
        if times:
            print(f"  placing: median {1000 * float(np.median(times)):.1f} ms, "
                  f"p95 {1000 * float(np.percentile(times, 95)):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
