"""What the likeliest-legal-reading bar costs a player who claims a win he does not hold.

A photo whose reading makes no legal hand is scored as its cheapest legal reading when the detector found that
reading likely enough (``repair.ACCEPT_COST``). That mends misreads, but a real false claim (诈胡) one tile away from
a hand would be mended too. The benches cannot show this: their false claims are random tiles, far from any hand.
So it is simulated here: in each photo read as a legal hand, one standing tile at a time is given another face, and
the detector's scores of the two faces are swapped, so that the new face is read exactly as surely as the shown one
was. Where that leaves no legal hand (a false claim), the cheapest legal reading the repair finds is priced, and the
table says how many such claims each bar would score as wins.

    python -m tools.false_claims --data /tmp/heldout_s59 --data /tmp/composite_tr21 --photos 60
"""

from __future__ import annotations

import argparse
import json
import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np

from xingzi.datasets.yolo import image_files
from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import HandReading, group
from xingzi.vision.repair import ACCEPT_COST, diagnose

BARS = (20, 100, 1000, 10_000)  # "at least 1/N as likely as what was read"
HAND_FACES = [t.index for t in Tile if t is not Tile.FA]  # 发 never stands in a hand


def claim_costs(det: Detections, reading: HandReading, rng: random.Random, tiles: int = 3) -> list[float]:
    """For up to ``tiles`` standing tiles of a legal ``reading``, each given another face read as surely: the cost of
    the cheapest legal reading the repair offers (``inf`` when it offers none). A change that leaves a legal hand
    is no false claim and gives nothing."""
    if det.probs is None:
        raise ValueError("claim_costs needs the detector's per-face scores (Detections.probs), got none")
    standing = [i for i, role in enumerate(reading.roles) if role in ("concealed", "win")]
    counts = np.bincount(det.cls, minlength=len(Tile) + 1)  # every box of each face, and backs
    costs = []
    for i in rng.sample(standing, min(tiles, len(standing))):
        shown = int(det.cls[i])
        faces = [k for k in HAND_FACES if k != shown and counts[k] < 4]
        if not faces:
            continue
        new = rng.choice(faces)
        cls, probs = det.cls.copy(), det.probs.copy()
        cls[i] = new
        probs[i, shown], probs[i, new] = probs[i, new], probs[i, shown]
        diagnosis = diagnose(group(replace(det, cls=cls, probs=probs)))
        if not diagnosis.legal:
            costs.append(diagnosis.suggestions[0].cost if diagnosis.suggestions else math.inf)
    return costs


def table(costs: list[float]) -> dict[str, int]:
    """How many of the false claims each bar would score as a win (the shipped bar, and ``any``: no bar)."""
    rows = {f"1/{n}": sum(c <= math.log(n) for c in costs) for n in BARS}
    rows["shipped"] = sum(c <= ACCEPT_COST for c in costs)
    rows["any"] = sum(math.isfinite(c) for c in costs)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.false_claims", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", action="append", required=True, help="a folder with images/ (repeatable)")
    p.add_argument("--photos", type=int, default=60, help="photos read per folder (0: all)")
    p.add_argument("--tiles", type=int, default=3, help="tiles changed in turn per hand")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--json-out", type=Path)
    args = p.parse_args(argv)
    for folder in args.data:  # a mistyped folder read as holding no photo would pass for a clean result
        if not image_files(Path(folder, "images")):
            p.error(f"--data {folder}: no photos in {Path(folder, 'images')}")
    if args.photos < 0 or args.tiles < 1:
        p.error(f"--photos must be 0 or more and --tiles 1 or more, got {args.photos} and {args.tiles}")
    from xingzi.vision.photo import load_image  # the detector and photos only where the tool runs
    from xingzi.vision.pipeline import detect_hand, make_detector

    detector, rng = make_detector(None, None), random.Random(args.seed)
    costs: list[float] = []
    hands = 0
    for folder in args.data:
        for photo in image_files(Path(folder, "images"))[: args.photos or None]:
            det, reading = detect_hand(detector, load_image(str(photo)))
            if det.probs is None or not diagnose(reading).legal:
                continue
            hands += 1
            costs += claim_costs(det, reading, rng, args.tiles)
    rows = table(costs)
    print(f"{hands} photos read as a legal hand; {len(costs)} false claims made from them; scored as a win:")
    for name, n in rows.items():
        print(f"  bar {name:8s} {n:4d}  ({100 * n / max(len(costs), 1):.1f} %)")
    if args.json_out:
        args.json_out.write_text(json.dumps({"hands": hands, "claims": len(costs), "scored_as_win": rows,
                                             "costs": sorted(round(c, 3) for c in costs if math.isfinite(c)),
                                             "no_legal_reading": sum(not math.isfinite(c) for c in costs)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
