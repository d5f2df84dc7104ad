"""``xingzi score photo.jpg``: the reading, the score and the annotated photo on the command line.

What the page does with taps the command does with flags: ``--fix`` a misread face, ``--add`` a tile the
detector missed where it lies, ``--aside`` a tile that is not part of the hand, ``--not-tile`` a box on no
tile; ``--tiles`` lists every box with the number these flags name it by, and ``--labels DIR`` keeps the
photo with its tiles as corrected as a training sample in a dataset folder.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from xingzi.datasets.samples import SampleStore, encode_sample, safe_name
from xingzi.datasets.split import class_id_for_name
from xingzi.engine.ruleset import load_ruleset
from xingzi.engine.tiles import CLASS_NAMES, CLASS_NAMES_CN, Tile

from . import pipeline, unseen
from .detections import Detections, check_tile_index
from .grouping import HandReading, group
from .missed import add_missed
from .photo import check_image_path, load_image, write_image
from .pipeline import OFFERED_FACES, Context, PhotoResult, TileDetector, analyse, detect_hand
from .sample_meta import sample_truth
from .usermarks import apply_corrections, kong_named


def face_class(text: str) -> int:
    """A class id from a face as the notation writes it (``5p``, ``中``, ``zhong``) or ``back``."""
    cls = class_id_for_name(text)
    if cls is None:
        raise ValueError(f"expected a tile face such as 5p, 中, zhong, or back; got {text!r}")
    return cls


PLAIN_NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")  # a tile's number: ASCII digits (isdigit() takes ² and ٣), no 0 before


def resolve_fix(spec: str, det: Detections) -> tuple[int, int]:
    """``WHICH=FACE`` → (tile index, class id). WHICH is a tile's number (``10`` or ``#10``, as ``--tiles``
    lists them) or the face it was read as, when one tile alone was read so (``3s=2s``)."""
    which, sep, face = spec.partition("=")
    if not sep or not which.strip() or not face.strip():
        raise ValueError(f"--fix expects WHICH=FACE, e.g. '3s=2s' or '10=2s', got {spec!r}")
    which = which.strip().lstrip("#")
    if PLAIN_NUMBER.fullmatch(which):
        index = int(which)
        check_tile_index(index, len(det), f"--fix {spec}: tile")
    else:
        read_as = face_class(which)
        found = [i for i in range(len(det)) if int(det.cls[i]) == read_as]
        if len(found) != 1:
            where = f"tiles {', '.join(f'#{i}' for i in found)}" if found else "no tile"
            raise ValueError(f"--fix {spec}: {where} read as {CLASS_NAMES[read_as]}; name the tile by its number "
                             "(--tiles lists them)")
        index = found[0]
    return index, face_class(face)


def parse_add(spec: str, shape: tuple[int, ...]) -> tuple[int, list[float] | int]:
    """``FACE@X0,Y0,X1,Y1`` → (class id, box) in pixels of the photo as read (its size is on the first line
    printed; ``add_tiles`` checks the box lies in the photo), or ``FACE@N`` → (class id, N): placed beside tile N's
    group (``missed.place_beside``)."""
    face, sep, where = spec.partition("@")
    if beside_spec(spec):
        return face_class(face), int(where)
    try:
        values = [float(v) for v in where.split(",")] if sep else []
    except ValueError:
        values = []
    if len(values) != 4:
        h, w = shape[:2]
        raise ValueError(f"--add expects FACE@X0,Y0,X1,Y1 in pixels of the {w}x{h} photo as read, or FACE@N to add "
                         f"it beside tile N's row or meld, got {spec!r}")
    return face_class(face), values


def beside_spec(spec: str) -> bool:
    """Whether an --add names a tile to add beside (``FACE@N``, N written plainly) rather than a box."""
    _, sep, where = spec.partition("@")
    return bool(sep) and PLAIN_NUMBER.fullmatch(where.strip()) is not None


def marked(args: argparse.Namespace, det: Detections, shape: tuple[int, ...]) -> tuple[
        Detections, dict[int, int], list[int], list[int]]:
    """The detections as the flags correct them, the faces the user set, the tiles set aside (the
    ``--not-tile`` boxes among them) and those boxes alone."""
    added = [parse_add(spec, shape) for spec in getattr(args, "add", None) or []]
    aside, removed = (list(getattr(args, key, None) or []) for key in ("aside", "not_tile"))
    # a tile added beside a group is placed as the user sees the hand: the faces the --fix flags set on the tiles
    # found, the tiles set aside left out (a --fix that names no found tile is said below)
    seen = [fix for spec in getattr(args, "fix", None) or [] if (fix := _found_fix(spec, det)) is not None]
    det, _ = add_missed(det, added, shape, seen=apply_corrections(det, kong_named(det, dict(seen))),
                        ignored=[i for i in {*aside, *removed} if 0 <= i < len(det)])
    fixes = [resolve_fix(spec, det) for spec in getattr(args, "fix", None) or []]
    twice = sorted({i for i, _ in fixes if len({k for j, k in fixes if j == i}) > 1})
    if twice:  # which of them the user meant is theirs to say
        faces = [CLASS_NAMES[k] for i, k in fixes if i == twice[0]]
        raise ValueError(f"--fix: tile #{twice[0]} is given two faces ({', '.join(faces)}); give it one")
    fixed = kong_named(det, dict(fixes))
    det = apply_corrections(det, fixed)
    fixed.update({i: int(det.cls[i]) for i in range(len(det) - len(added), len(det))})
    for flag, indices in (("--aside", aside), ("--not-tile", removed)):
        for i in indices:
            check_tile_index(i, len(det), f"{flag}: tile")
    return det, fixed, sorted({*aside, *removed}), sorted(set(removed))


def _found_fix(spec: str, det: Detections) -> tuple[int, int] | None:
    """A --fix as it names one of the tiles found, or None (what is wrong with it is said once all are added)."""
    try:
        return resolve_fix(spec, det)
    except ValueError:
        return None


def tiles_table(reading: HandReading) -> list[str]:
    """One line per box, along the row: its number, face, confidence, role and likeliest other faces."""
    det = reading.detections
    dx, dy = reading.direction
    along = det.centers @ np.array([dx, dy]) if len(det) else np.zeros(0)
    lines = []
    for i in (int(k) for k in np.argsort(along, kind="stable")):
        k = int(det.cls[i])
        role = reading.roles[i]
        if reading.meld_of[i] >= 0:
            role = f"{role} (meld {reading.meld_of[i] + 1})"
        alts = " ".join(CLASS_NAMES[a] for a in det.alternatives(i, OFFERED_FACES))
        box = ",".join(f"{v:.0f}" for v in det.xyxy[i])
        lines.append(f"#{i:<3} {CLASS_NAMES[k]:<5} {CLASS_NAMES_CN[k]:<3} {float(det.conf[i]):.2f}  {role:<16} "
                     f"{box:<19} {('or ' + alts) if alts else ''}".rstrip())
    return lines


def read_marked(args: argparse.Namespace, image: np.ndarray, detector: TileDetector, context: Context,
                timings: dict[str, float]) -> tuple[PhotoResult, list[int], Callable[[Detections], PhotoResult]]:
    """Detect, apply the flags' corrections, score: (result, boxes on no tile, the same analysis of other
    faces scored exactly as they stand)."""
    t = time.perf_counter()
    det, reading = detect_hand(detector, image)
    timings["detect"] = time.perf_counter() - t
    det, fixed, ignored, removed = marked(args, det, image.shape)
    if fixed or ignored:
        reading = group(det, tuple(ignored))
    win = Tile.parse(args.win) if getattr(args, "win", None) else None
    claims = [Tile.parse(t) for t in getattr(args, "claim", None) or []]
    score = partial(analyse, image, context=context, fixed=fixed, ignored=ignored,
                    win_index=None if win is None else unseen.standing_index(reading, win),
                    claimed=[unseen.standing_index(reading, t, "claimed meld", "concealed") for t in claims])
    res = score(det, timings=timings, as_read=bool(getattr(args, "as_read", False)), reading=reading,
                numbered=bool(getattr(args, "tiles", False)))
    return res, removed, partial(score, as_read=True)


def run_photo_command(args: argparse.Namespace, detector: TileDetector | None = None, out=None) -> int:
    """Print the read hand, melds, 炮 items, total, payments; write --out; keep --labels."""
    out = out or sys.stdout
    context = context_from_args(args)
    load_ruleset(context.ruleset).with_overrides(context.rules)  # a bad --rules or --set: said before any work
    if (conf := getattr(args, "conf", None)) is not None and not 0 <= conf <= 1:  # (the detector names no option)
        raise ValueError(f"--conf must be a confidence from 0 to 1, got {conf:g}")
    if getattr(args, "out", None) and Path(args.out).resolve() == Path(args.photo).resolve():
        raise ValueError(f"--out {args.out} is the photo itself: give another file for the annotated copy")
    if getattr(args, "out", None):
        check_image_path(args.out)
    t = time.perf_counter()
    image = load_image(args.photo)
    timings = {"decode": time.perf_counter() - t}
    store = _sample_store(args)  # a bad --labels is said before any work
    detector = detector or pipeline.make_detector(  # looked up here: tests stand one in
        getattr(args, "model", None), getattr(args, "conf", None))
    res, removed, as_read = read_marked(args, image, detector, context, timings)
    _check_bloom(context, res)
    if res.result is not None and getattr(args, "overrides", None):  # as --hand says it: the name alone hides them
        res.result["ruleset"] += f", with --set {' '.join(args.overrides)}"
    saved = _keep_labels(store, args, res, removed, as_read)
    # the score is said before the annotated photo is written: a photo that cannot be written loses no score
    if getattr(args, "json", None) is not None:
        out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
    else:
        _print_reading(args, res, context, out)
    if getattr(args, "out", None):
        out.flush()
        write_image(args.out, res.annotated)
        if getattr(args, "json", None) is None:
            out.write(f"wrote     {args.out}\n")
    if saved and getattr(args, "json", None) is None:
        out.write(f"labels    {saved}\n")
    return 0 if res.result is not None else 1


def _check_bloom(context: Context, res: PhotoResult) -> None:
    """--bloom names a kong the hand was scored with, or is refused (rather than scored as if not given)."""
    if context.bloom is None or res.situation is None:
        return
    if unseen.kong_at(res.situation["melds"], context.bloom) is None:
        raise ValueError(f"--bloom {context.bloom.symbol}: no kong of {context.bloom.symbol} among the melds read "
                         f"({', '.join(res.situation['melds']) or 'none'})")


def _sample_store(args: argparse.Namespace) -> SampleStore | None:
    folder = getattr(args, "labels", None)
    guessed = [spec for spec in getattr(args, "add", None) or [] if beside_spec(spec)]
    if folder and guessed:  # a training label must lie on its tile
        raise ValueError(f"--add {guessed[0]} places the tile where it reads best, not where it lies: with --labels "
                         "give its box (FACE@X0,Y0,X1,Y1), so that its label lies on the tile")
    return SampleStore(folder) if folder else None


def _keep_labels(store: SampleStore | None, args: argparse.Namespace, res: PhotoResult, removed: list[int],
                 as_read: Callable[[Detections], PhotoResult]) -> str:
    """The photo as scored added to the --labels folder, with the score as its truth; what the line says."""
    if store is None:
        return ""
    det, keep, meta = sample_truth(res, removed, "cli", as_read)
    saved = store.save(safe_name(str(args.photo)), *encode_sample(res.image, det, keep), meta, source=args.photo)
    kept = f"; the labels it had are kept in {saved.backup}" if saved.backup else ""
    return (f"{store.root}: {saved.name} {'replaced' if saved.replaced else 'added'} "
            f"({saved.photos} photo{'s' if saved.photos != 1 else ''} in the set){kept}")


def _print_reading(args: argparse.Namespace, res: PhotoResult, context: Context, out) -> None:
    r = res.reading
    h, w = res.image.shape[:2]
    ms = sum(res.timings.values()) * 1000
    out.write(f"photo     {args.photo} ({w}x{h}), {len(r.detections)} tiles seen in {ms:.0f} ms\n")
    if getattr(args, "tiles", False):
        for line in tiles_table(r):
            out.write(f"tile      {line}\n")
    out.write(f"read      {r.notation or '-'}\n")
    reasons = () if res.diagnosis.legal else res.diagnosis.reasons
    for p in r.problems:
        if p not in reasons:  # said once, as what makes the reading no hand
            out.write(f"problem   {p}\n")
    for reason in reasons:
        out.write(f"not legal {reason}\n")
    if not res.diagnosis.legal:
        for s in res.diagnosis.suggestions:
            out.write(f"maybe     {s.text}  (cost {s.cost:.2f})\n")
    if res.repair is not None:  # the hand it gives is printed next, by print_result
        out.write(f"scored as the likeliest legal reading: {res.repair.text} (--as-read scores the tiles as read)\n")
    # what the user said (--win, --bloom) is not asked again; the page keeps showing its choices, the one taken marked
    if unseen.choices_differ(res.win_choices) and not getattr(args, "win", None):
        out.write(f"which won {unseen.choices_text(res.win_choices)} (--win TILE says which)\n")
    if unseen.choices_differ(res.kong_choices):
        out.write(f"face-down kong {unseen.choices_text(res.kong_choices, '')} (--fix a tile at one of its ends: --tiles "
                  "lists them)\n")
    if unseen.choices_differ(res.bloom_choices) and not getattr(args, "bloom", None):
        out.write(f"kong just made {unseen.choices_text(res.bloom_choices, '')} (杠上开花 on which kong: --bloom "
                  "TILE says)\n")
    if res.result is None:
        out.write(f"no score  {res.error}\n")
        return
    from xingzi.commands.score import print_result

    shown = dict(res.result, self_draw=context.self_draw)  # (events not counted: said by the engine's result)
    shown["hand_before"] = _hand_before(res.situation) if res.situation else ""
    print_result(shown, out)


def context_from_args(args: argparse.Namespace) -> Context:
    """The score command's flags, through its own parser of them (payers, events, overrides)."""
    from xingzi.commands.score import situation_from_args

    flags = argparse.Namespace(**vars(args))
    flags.hand = flags.hand or "photo"  # tiles come from the photo; only the context is read here
    s = situation_from_args(flags)
    bloom = getattr(args, "bloom", None)
    if bloom is not None and "kong_bloom" not in s["events"]:
        raise ValueError(f"--bloom {bloom} says which kong 杠上开花 was drawn on: give --event kong_bloom too")
    return Context(self_draw=bool(s["self_draw"]), dealer=bool(s["dealer"]), events=tuple(s["events"]),
                   payers=tuple(s["payers"]), rules=s.get("rules", {}), ruleset=s.get("ruleset"),
                   bloom=None if bloom is None else Tile.parse(bloom))


def _hand_before(situation: dict) -> str:
    """The situation's standing tiles without the winning tile."""
    from xingzi.engine.notation import format_tiles, parse_tiles

    standing = parse_tiles(situation["hand"])
    standing.remove(Tile.parse(situation["win_tile"]))
    return format_tiles(standing)
