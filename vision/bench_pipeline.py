"""``xingzi bench pipeline``: end to end on synthetic photos with ground truth (``xingzi synth``).

Measures, over the complete samples of a synthetic set (``meta/<stem>.json`` beside
``images/``): the share whose 炮 total (valid + own) is exactly right, the share read exactly
(tiles, winning tile, melds, 发), meld accuracy (truth melds found; with true boxes also melds
grouped exactly: the same tiles, kind and face), per-tile role accuracy, and the latency photo
file → annotated JPEG + score. ``--boxes truth`` feeds the true boxes in place of the detector,
so the grouping is measured on its own.

Samples whose truth holds more than the photo shows (``needs_input``: the winning tile sorted
into the row, a concealed kong all face down, tiles in a grid or strewn about) are counted in
the totals and also reported apart, with the 炮 accuracy on the other ("readable") samples.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from dataclasses import replace
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from xingzi.datasets.yolo import image_files

from . import bench_real
from .bench_fix import corrections, offered_faces, one_fix_right, synth_truth
from .bench_layouts import hand_key, run_layouts, run_random_layouts
from .bench_truth import (
    context_of,
    one_tap_right,
    total_right,
    truth_detections,
)
from .draw import hidden_under_labels
from .edges import CUT_HAND, hint_cut_hand
from .eval_compare import compare_runs, format_runs
from .eval_report import check_out_file
from .facing import with_up
from .grouping import HandReading, group
from .handcheck import short_of_tiles
from .photo import load_image
from .pipeline import TileDetector, analyse, detect_hand, make_detector


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", metavar="DIR", help="a `xingzi synth` output folder (images/, meta/), photos saved with "
                   "their score (`xingzi serve --collect DIR`, `xingzi score --labels DIR`: meta/ too), or real labelled "
                   "photos (images/, labels/, classes.txt): the hand's tiles against the labels (vision/bench_real.py)")
    p.add_argument("--layouts", action="store_true",
                   help="instead: grouping on hand-built layouts over rotations, perspectives, gaps")
    p.add_argument("--random-layouts", type=int, default=None, metavar="N",
                   help="instead: grouping on N hands dealt as `xingzi synth` deals them, each laid out at a random "
                   "rotation, perspective, gap and box noise (vision/bench_layouts.py)")
    p.add_argument("--seed", type=int, default=0, help="the random layouts' seed")
    p.add_argument("--boxes", choices=("model", "truth"), default="model",
                   help="detections from the model, or the ground-truth boxes (grouping alone)")
    p.add_argument("--model", metavar="PATH", help="detector weights (default: the shipped model)")
    p.add_argument("--conf", type=float, metavar="FLOAT", help="detection confidence threshold")
    p.add_argument("--second", action="append", default=[], metavar="PATH",
                   help="second-opinion .onnx (repeatable, averaged; 'none': without; default: the shipped one)")
    p.add_argument("--second-doubt", type=float, default=None, metavar="G",
                   help="ask the second opinion under this median confidence (default: the shipped gate; >1: always)")
    p.add_argument("--limit", type=int, default=0, metavar="N", help="use at most N samples (0: all)")
    p.add_argument("--as-read", dest="as_read", action="store_true",
                   help="score readings exactly as read (no likeliest legal reading in place of an illegal one)")
    p.add_argument("--show-misses", type=int, default=0, metavar="N", help="print the first N wrong samples")
    p.add_argument("--keep-foreign", dest="keep_foreign", action="store_true",
                   help="group as if the classifier had not seen winds/flowers (tiles of no Xingzi face)")
    p.add_argument("--json-out", metavar="FILE", help="also write the numbers as JSON (with the samples scored wrong)")
    p.add_argument("--compare", metavar="FILE", help="a --json-out file of an earlier run on the same set: the samples "
                   "each run alone scores right, and McNemar's exact p")
    p.add_argument("--errata", default="none", metavar="FILE",
                   help="real photos: count against corrected labels ('auto': datasets/errata/<folder>.toml)")


NEEDS_INPUT = {
    "win_in_row": "the winning tile stands inside the row (sorted in: no photo shows which tile was drawn)",
    "kong_face_down": "a concealed kong lies all face down (its face is not in the photo)",
    "grid": "tiles laid in a grid: claimed melds and the winning tile not set apart",
    "scatter": "tiles strewn about: claimed melds and the winning tile not set apart",
}


def needs_input(meta: dict) -> tuple[str, ...]:
    """Why the truth of a sample holds more than its photo can show (keys of NEEDS_INPUT): the page
    lets the user mark the winning tile and set a tile's face; a photo alone cannot."""
    tiles = meta["tiles"]
    out = []
    row = [t["role"] for t in tiles if t["group"] == 0]
    if "win_shown" in meta:  # said outright: a photo saved with its score (vision/sample_meta.py), a synthetic one
        if not meta["win_shown"]:
            out.append("win_in_row")
    elif "win" in row and "concealed" in row[row.index("win") + 1:]:
        out.append("win_in_row")
    down = Counter(t["group"] for t in tiles if t["role"] == "concealed_kong" and t["face_down"])
    if any(n == 4 for n in down.values()):
        out.append("kong_face_down")
    if meta.get("layout", "rows") in ("grid", "scatter"):
        out.append(meta["layout"])
    return tuple(out)


def melds_exact(reading: HandReading, meta: dict) -> int:
    """Truth melds read exactly: the same detections grouped as one meld of the right kind and face."""
    from xingzi.engine.notation import parse_meld

    truth = [parse_meld(m) for m in meta["situation"]["melds"]]
    right = 0
    for k, meld in enumerate(truth, start=1):
        idx = [i for i, t in enumerate(meta["tiles"]) if t["group"] == k]
        read = {reading.meld_of[i] for i in idx}
        if len(read) != 1 or -1 in read:
            continue
        m = read.pop()
        if reading.melds[m] == meld and reading.meld_of.count(m) == len(idx) == meld.kind.size:
            right += 1
    return right


def compare(reading: HandReading, meta: dict) -> dict:
    """Per-sample grouping facts: exact reading, melds found (and exactly grouped), tile roles right."""
    from xingzi.engine.notation import parse_hand, parse_meld, parse_tiles

    s = meta["situation"]
    hand, _ = parse_hand(s["hand"])
    win = parse_tiles(s["win_tile"])[0] if s.get("win_tile") else None
    truth_melds = [str(parse_meld(m)) for m in s["melds"]]
    read_melds = [str(m) for m in reading.melds]
    exact = hand_key([t.value for t in hand], win, truth_melds, s.get("fa", 0)) == hand_key(
        [t.value for t in reading.tiles], reading.win_tile, read_melds, reading.fa)
    found = sum((Counter(truth_melds) & Counter(read_melds)).values())
    roles = [t["role"] for t in meta["tiles"]]
    same = sum(1 for a, b in zip(roles, reading.roles, strict=False) if a == b) if len(roles) == len(reading.roles) else 0
    return {"exact": exact, "melds_true": len(truth_melds), "melds_found": found, "melds_read": len(read_melds),
            "melds_exact": melds_exact(reading, meta) if len(roles) == len(reading.roles) else 0,
            "roles": len(roles), "roles_right": same}


def run(args: argparse.Namespace) -> int:
    check_options(args)
    if args.layouts:
        return run_layouts()
    if getattr(args, "random_layouts", None) is not None:
        return run_random_layouts(args.random_layouts, args.seed, args.show_misses)
    if args.limit < 0:
        raise ValueError(f"--limit must be 0 (all samples) or more, got {args.limit}")
    if not args.data:
        raise ValueError("give --data DIR (a `xingzi synth` output folder or labelled photos), --layouts "
                         "or --random-layouts N")
    data = Path(args.data)
    if data.is_file() and data.name == "data.yaml":  # the folder it describes, as `xingzi eval --data` takes it
        data = data.parent
    if not data.is_dir():
        raise FileNotFoundError(f"--data {args.data}: no such folder (a `xingzi synth` output folder or labelled "
                                "photos)")
    keep_foreign = getattr(args, "keep_foreign", False)
    if bench_real.is_real_set(data):
        return _report_real(data, args, keep_foreign)
    metas = sorted((data / "meta").glob("*.json"))
    if not metas:
        raise ValueError(f"{data}/meta has no .json files: expected a `xingzi synth --out` folder")
    if getattr(args, "errata", "none") != "none":  # a synthetic set's labels are drawn from its truth: nothing to mend
        raise ValueError(f"--errata is for real labelled photos (images/, labels/, no meta/): {data} is a synthetic "
                         "set")
    earlier = _earlier_run(args.compare) if getattr(args, "compare", None) else None  # bad file: told before the run
    detector = None if args.boxes == "truth" else _detector(args)
    totals: Counter = Counter()
    latencies: list[float] = []
    misses: list[str] = []
    outcomes: dict[str, bool] = {}  # sample → 炮 total right
    if not args.limit:  # photos saved with no truth (the page's, where a missed tile was added): skipped, and said
        totals["skipped"] += sum(not (data / "meta" / f"{p.stem}.json").is_file() for p in image_files(data / "images"))
    for path in metas[: args.limit or None]:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if not meta.get("complete", True) or meta.get("expect") is None:
            totals["skipped"] += 1
            if detector is None and cut_by_frame(meta):
                totals.update(cut_hint_tally(meta))
            continue
        image_path = data / "images" / f"{path.stem}.jpg"
        t0 = time.perf_counter()
        image = load_image(image_path)
        dets, reading = (with_up(image, truth_detections(meta)), None) if detector is None else detect_hand(detector, image)
        if keep_foreign and dets.foreign is not None:
            dets, reading = replace(dets, foreign=None), None
        res = analyse(image, dets, context_of(meta["situation"]), as_read=getattr(args, "as_read", False),
                      reading=reading)
        cv2.imencode(".jpg", res.annotated, [cv2.IMWRITE_JPEG_QUALITY, 85])
        latencies.append(time.perf_counter() - t0)
        expect, got = meta["expect"], res.result
        right = outcomes[path.stem] = total_right(res, meta)
        facts = compare(res.reading, meta) if detector is None else compare_counts(res.reading, meta)
        tap = right or one_tap_right(res, meta)
        fixes = corrections(res, *synth_truth(meta, image.shape[1]))
        fix = tap or one_fix_right(res, fixes, context_of(meta["situation"]), partial(total_right, meta=meta))
        totals.update({f"misread_{k}": v for k, v in offered_faces(res, fixes).items()})
        hand_tiles, hidden = hidden_under_labels(res.reading, res.tag_boxes)
        totals.update(hand_tiles=hand_tiles, tiles_under_labels=hidden)
        totals.update(samples=1, pao_right=int(right), pao_right_tap=int(tap), pao_right_fix=int(fix),
                      **{k: int(v) for k, v in facts.items()})
        totals.update(repaired=int(res.repair is not None), repaired_right=int(res.repair is not None and right),
                      whole_hinted=int(CUT_HAND in res.reading.problems))
        reasons = needs_input(meta)
        totals.update(needs_input=int(bool(reasons)), needs_input_right=int(bool(reasons) and right),
                      **{f"needs_{r}": 1 for r in reasons}, **{f"needs_{r}_right": int(right) for r in reasons})
        if not right and len(misses) < args.show_misses:
            misses.append(f"{path.stem} [{', '.join(reasons) or 'readable'}]: truth {meta['situation']['hand']} {meta['situation']['melds']} "
                          f"fa {meta['situation'].get('fa', 0)} own {expect['own']} | read {res.reading.notation} "
                          f"own {got and got['own']} | {'; '.join(res.reading.problems[:2])}")
    runs = {"pao_samples": sorted(outcomes), "pao_wrong": sorted(k for k, ok in outcomes.items() if not ok)}
    paired = None if earlier is None else format_runs(*compare_runs(earlier, runs), args.compare)
    return _report(f"pipeline bench on {data} ({args.boxes} boxes): {totals['samples']} samples, "
                   f"{totals['skipped']} skipped (tiles of the hand cut off, hidden or showing too little to tell, "
                   "or no expected result)",
                   summarise(totals, latencies, args.boxes), misses, args.json_out, runs, paired)


def check_options(args: argparse.Namespace) -> None:
    """Options out of range, or that would be silently ignored, refused before any work (a Namespace built in code
    may leave the newer ones out)."""
    random_layouts = getattr(args, "random_layouts", None)
    layouts = args.layouts or random_layouts is not None
    if args.layouts and random_layouts is not None:
        raise ValueError("--layouts and --random-layouts are two benches: give one of them")
    if random_layouts is not None and random_layouts < 1:  # (0 read as not given: "give --data")
        raise ValueError(f"--random-layouts must be 1 or more, got {random_layouts}: it is the number of hands to "
                         "lay out")
    if layouts and args.data:
        raise ValueError("--layouts and --random-layouts lay the hands out themselves: they read no --data")
    json_out = getattr(args, "json_out", None)
    if layouts and json_out:  # (their figures are printed only)
        raise ValueError("--json-out writes the numbers of a --data bench: --layouts and --random-layouts print "
                         "theirs only")
    if json_out:  # said before the bench, not after it
        check_out_file("--json-out", Path(json_out))
    if args.conf is not None and not 0 < args.conf <= 1:
        raise ValueError(f"--conf must be in (0, 1], got {args.conf:g}")
    unused = [flag for flag, value in (("--model", args.model), ("--conf", args.conf), ("--second", getattr(
        args, "second", None) or None), ("--second-doubt", getattr(args, "second_doubt", None))) if value is not None]
    if args.boxes == "truth" and unused:
        raise ValueError(f"--boxes truth runs no detector (the true boxes are read): {', '.join(unused)} has "
                         "nothing to set")


def _earlier_run(path: str) -> dict:
    """The numbers of an earlier ``--json-out`` to compare with, checked before any photo is read."""
    try:
        run = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"--compare {path}: expected a JSON file written by --json-out: {e}") from None
    if not isinstance(run, dict) or "pao_wrong" not in run:
        raise ValueError(f"--compare {path}: expected a --json-out file of a synthetic set (with 'pao_wrong')")
    return run


def _report(title: str, numbers: dict, misses: list[str], json_out: str | None, samples: dict | None = None,
            paired: str | None = None) -> int:
    print(title)
    for key, value in numbers.items():
        print(f"  {key:<28}{value}")
    if paired:
        print("  " + paired)
    for line in misses:
        print("  miss " + line)
    if json_out:
        Path(json_out).parent.mkdir(parents=True, exist_ok=True)  # (checked writable before the bench)
        Path(json_out).write_text(json.dumps({**numbers, **(samples or {})}, indent=2) + "\n", encoding="utf-8")
    return 0


def _detector(args: argparse.Namespace) -> TileDetector:
    """The detector the options ask for (a Namespace built in code may leave the second-opinion ones out)."""
    return make_detector(args.model, args.conf, getattr(args, "second", []), getattr(args, "second_doubt", None))


def _report_real(data: Path, args: argparse.Namespace, keep_foreign: bool) -> int:
    if getattr(args, "compare", None):
        raise ValueError("--compare pairs 炮 totals of synthetic sets; real photos: `xingzi eval --preds A --preds B`")
    if args.boxes == "truth":
        raise ValueError("--boxes truth needs a `xingzi synth` folder: real photos are measured with the model")
    numbers, misses = bench_real.run_real(data, _detector(args), keep_foreign, args.limit,
                                          args.show_misses, getattr(args, "errata", "none"))
    return _report(f"pipeline bench on real photos {data} (a hand's worth of labelled tiles: {bench_real.HAND_TILES[0]}-"
                   f"{bench_real.HAND_TILES[1]}){' keeping foreign tiles' if keep_foreign else ''}",
                   numbers, misses, args.json_out)


def compare_counts(reading: HandReading, meta: dict) -> dict:
    """With model boxes the detections do not line up with the truth one by one: skip per-tile roles."""
    facts = compare(reading, meta)
    facts["roles"] = facts["roles_right"] = 0
    return facts


def cut_by_frame(meta: dict) -> bool:
    """Whether the photo's frame cuts off tiles of the hand: not all of it labelled, and none hidden behind other
    tiles (``hidden``, which the frame's message does not concern)."""
    return not meta.get("complete", True) and not meta.get("hidden")


def cut_hint_tally(meta: dict) -> Counter:
    """For a photo whose frame cuts tiles of the hand, read from its true boxes: whether the hand reads
    short of tiles, and whether it then says a tile may be cut off (:func:`edges.hint_cut_hand`)."""
    reading = group(truth_detections(meta))
    short = short_of_tiles(reading.problems)
    hinted = CUT_HAND in hint_cut_hand(reading, (meta["size"][1], meta["size"][0])).problems
    return Counter(cut_short=int(short), cut_hinted=int(short and hinted))


def summarise(t: Counter, latencies: list[float], boxes: str) -> dict:
    n = max(t["samples"], 1)
    out: dict[str, float | str] = {
        "samples": t["samples"],
        "pao_total_exact_pct": round(100 * t["pao_right"] / n, 1),
        "pao_exact_after_one_tap_pct": round(100 * t["pao_right_tap"] / n, 1),
        "pao_exact_after_one_fix_pct": round(100 * t["pao_right_fix"] / n, 1),
        "hand_read_exact_pct": round(100 * t["exact"] / n, 1),
        "melds_found_pct": round(100 * t["melds_found"] / max(t["melds_true"], 1), 1),
        "melds_spurious": t["melds_read"] - t["melds_found"],
    }
    out["scored_as_likeliest_legal"] = f"{t['repaired']} ({t['repaired_right']} right)"
    if t["misread_tiles"]:
        out["misread_tiles_face_offered"] = (f"{t['misread_offered']}/{t['misread_tiles']} "
                                             f"({t['misread_first']} first)")
    if boxes == "truth":
        out["melds_exact_pct"] = round(100 * t["melds_exact"] / max(t["melds_true"], 1), 1)
        out["tile_roles_right_pct"] = round(100 * t["roles_right"] / max(t["roles"], 1), 1)
        out["cut_off_hands_told"] = f"{t['cut_hinted']}/{t['cut_short']} skipped hands cut by the frame and short"
    out["whole_hands_told_cut_off"] = t["whole_hinted"]
    readable = t["samples"] - t["needs_input"]
    out["readable_samples"] = readable
    out["pao_exact_readable_pct"] = round(100 * (t["pao_right"] - t["needs_input_right"]) / max(readable, 1), 1)
    out["needs_user_input"] = t["needs_input"]
    out["pao_exact_needs_input_pct"] = round(100 * t["needs_input_right"] / max(t["needs_input"], 1), 1)
    for key in NEEDS_INPUT:
        if t[f"needs_{key}"]:
            out[f"needs_{key}"] = f"{t[f'needs_{key}_right']}/{t[f'needs_{key}']} right"
    if t["hand_tiles"]:  # the annotated photo: tiles of the hand whose face other tiles' labels hide
        out["tiles_under_labels_pct"] = round(100 * t["tiles_under_labels"] / t["hand_tiles"], 1)
    if latencies:
        ms = np.array(latencies) * 1000
        out["latency_median_ms"] = round(float(np.median(ms)), 1)
        out["latency_p95_ms"] = round(float(np.percentile(ms, 95)), 1)
    return out
