"""How often the repair's first suggestion is the truth, on random misread or short hands.

Laid-out synthetic deals (``tools.oracle.deal``, read from their true boxes) each get one of: one tile misread, two
tiles misread, or one tile missed. A misread box shows a random other face first; the truth is its second choice,
or now and then its third behind a random decoy. Every other box gets a random decoy second choice too (up to
``--decoy`` likely), as a real detector's scores have, so that the search has wrong edits to wade through.
``diagnose`` is run on each and its first suggestion compared with the true hand (tiles, melds, winning tile).

    python -m tools.repair_sample --n 1000 --seed 5
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from tools.oracle.deal import deal_one
from xingzi.engine.notation import format_tiles, parse_tiles
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.grouping import HandReading, group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.repair import diagnose, explain

KINDS = ("one misread", "two misreads", "one missed")
HAND_FACES = [t.index for t in Tile if t is not Tile.FA]


def key(r) -> tuple:
    return tuple(sorted(r.tiles)), r.win_tile, tuple(sorted(map(str, r.melds)))


def truth_and_reading(rng: random.Random, kind: str, decoy: float) -> tuple[HandReading, HandReading] | None:
    deal = deal_one(rng)
    if deal is None or deal["fa"] or "Z" in deal["hand"] or "z" in deal["hand"]:
        return None
    hand = parse_tiles(deal["hand"])
    win = Tile.parse(deal["win_tile"])
    if win not in hand:
        return None
    hand.remove(win)
    layout = hand_layout(format_tiles(hand), format_tiles([win]), deal["melds"], probs=True,
                         seed=rng.randrange(1 << 30))
    truth = group(layout.detections)
    if explain(truth):  # a deal the grouping cannot read as dealt is no test of the repair
        return None
    det = layout.detections
    cls, probs = det.cls.copy(), det.probs.copy()
    faces = [i for i in range(len(det)) if layout.roles[i] != "fa" and cls[i] != Tile.FA.index]
    for i in faces:  # a random decoy second choice on every box
        probs[i, rng.choice(HAND_FACES)] = rng.uniform(0.0, decoy)
    keep = np.ones(len(det), bool)
    if kind == "one missed":
        standing = [i for i in faces if layout.roles[i] == "concealed"]
        keep[rng.choice(standing)] = False
    else:
        for i in rng.sample(faces, 1 if kind == "one misread" else 2):
            true = int(cls[i])
            if true == BACK_CLASS:  # a face-down tile: not misread here
                return None
            shown = rng.choice([k for k in HAND_FACES if k != true])
            probs[i] = 0.001
            p_shown = rng.uniform(0.4, 0.85)
            probs[i, shown] = p_shown
            probs[i, true] = rng.uniform(0.05, min(0.5, p_shown))
            if rng.random() < 0.2:  # the truth only third
                probs[i, rng.choice([k for k in HAND_FACES if k not in (true, shown)])] = rng.uniform(probs[i, true], p_shown)
            cls[i] = shown
    reading = group(replace(det, cls=cls, probs=probs).subset(keep))
    return truth, reading


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.repair_sample", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1000, help="hands per seed")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--decoy", type=float, default=0.15, help="the likeliest a decoy second choice may be")
    p.add_argument("--kind", choices=KINDS, action="append", help="only these errors (repeatable; default all)")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    kinds = args.kind or list(KINDS)
    rows: Counter = Counter()
    times: list[float] = []
    done = 0
    while done < args.n:
        kind = kinds[done % len(kinds)]
        made = truth_and_reading(rng, kind, args.decoy)
        if made is None:
            continue
        truth, reading = made
        t0 = time.perf_counter()
        d = diagnose(reading)
        times.append(time.perf_counter() - t0)
        done += 1
        rows[kind, "hands"] += 1
        if d.legal:
            rows[kind, "read legal"] += 1
        elif not d.suggestions:
            rows[kind, "no suggestion"] += 1
        elif key(d.suggestions[0]) == key(truth):
            rows[kind, "first is truth"] += 1
        elif any(key(s) == key(truth) for s in d.suggestions):
            rows[kind, "truth later"] += 1
        else:
            rows[kind, "truth not offered"] += 1
    whats = ("hands", "first is truth", "truth later", "truth not offered", "no suggestion", "read legal")
    out: dict[str, dict[str, float]] = {kind: {what: rows[kind, what] for what in whats} for kind in kinds}
    out["all"] = {what: sum(v[what] for v in out.values()) for what in out[kinds[0]]}
    ms = sorted(1000 * t for t in times)
    out["ms"] = {"median": round(statistics.median(ms), 1), "p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
                 "max": round(ms[-1], 1)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
