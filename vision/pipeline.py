"""Photo → detections → hand reading → §10 situation → engine result → annotated photo.

What the photo cannot show (self-draw or discard, dealer, events, the payers' bonus tiles) comes
in as a :class:`Context`. Any detector with ``predict(image_bgr) -> Detections`` will do, so tests
and the web page can inject a fake one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, CLASS_NAMES_CN, Tile

from . import unseen
from .detections import Detections
from .draw import draw
from .edges import hint_cut_hand, hint_photo_size
from .facing import with_up
from .faint import FAINT_CONF, faint_candidates, one_tile_short, with_faint_tile
from .grouping import WIN_GUESSED, HandReading, group, is_legal_reading, mark_win
from .memo import remembering
from .messages import chinese_of
from .photo import load_image
from .repair import Diagnosis, Suggestion, diagnose, likeliest
from .unseen import Choice, faceless_kongs, guess_kong_face
from .usermarks import apply_claims, apply_corrections, kong_named

OFFERED_FACES = 3  # the likeliest other faces of each tile, offered first when the user taps it


class TileDetector(Protocol):
    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections: ...


@dataclass(frozen=True)
class Context:
    """How the hand was won and what the payers show: the part a photo cannot tell."""

    self_draw: bool = False
    dealer: bool = False
    events: tuple[str, ...] = ()
    payers: tuple[dict, ...] = ()
    rules: Mapping[str, Any] = field(default_factory=dict)
    ruleset: str | None = None
    bloom: Tile | None = None  # 杠上开花 with several kongs: the face of the one just made (the user's word)

    def situation_part(self) -> dict:
        out: dict[str, Any] = {
            "self_draw": self.self_draw, "dealer": self.dealer, "events": list(self.events),
            "payers": [dict(p) for p in self.payers],
        }
        if self.rules:
            out["rules"] = dict(self.rules)
        if self.ruleset:
            out["ruleset"] = self.ruleset
        return out


@dataclass(frozen=True, eq=False)
class PhotoResult:
    image: np.ndarray  # BGR, as decoded (and scaled down)
    reading: HandReading
    diagnosis: Diagnosis
    situation: dict | None
    result: dict | None  # the §10 result, None when the tiles could not be scored
    error: str | None  # why there is no result
    annotated: np.ndarray
    timings: dict[str, float]
    repair: Suggestion | None = None  # the legal reading scored in place of an illegal one
    win_choices: tuple[Choice, ...] = ()  # the photo did not show which tile won: each one's total
    kong_choices: tuple[Choice, ...] = ()  # nor what a face-down concealed kong holds
    bloom_choices: tuple[Choice, ...] = ()  # nor, for 杠上开花, which kong was the one just made
    tag_boxes: dict[int, tuple[float, float, float, float]] = field(default_factory=dict)  # each tile's drawn label
    fixed: frozenset[int] = frozenset()  # detections whose face the user set (corrected or added)

    @property
    def detections(self) -> Detections:
        return self.reading.detections

    def to_json(self) -> dict:
        """The §10 result (when there is one) plus the reading, for ``--json`` and the web page."""
        out: dict[str, Any] = dict(self.result or {"valid": False})
        if "reading" in out:  # the engine's sets (123m 456p … 55s): "reading" is the photo's reading here
            out["sets"] = out.pop("reading")
        out["reading"] = reading_json(self.reading, self.diagnosis)
        for tile in out["reading"]["tiles"]:  # where its label was drawn: a tap there means the tile
            if tile["index"] in self.tag_boxes:
                tile["label_xyxy"] = [round(float(v), 1) for v in self.tag_boxes[tile["index"]]]
            tile["by_user"] = tile["index"] in self.fixed
        if self.repair is not None:
            out["reading"]["repaired"] = {**suggestion_json(self.repair), "note": repair_note(self.repair)}
        for key, choices in (("win_choices", self.win_choices), ("kong_choices", self.kong_choices),
                             ("bloom_choices", self.bloom_choices)):
            if choices:
                out["reading"][key] = [c.to_json() for c in choices]
        out["reading"]["messages_zh"].update(chinese_of([str(out.get("reason") or ""), str(self.error or ""),
                                                         *(e["reason"] for e in out.get("events_not_counted", ()))]))
        out["situation"] = self.situation
        if self.error:
            out["error"] = self.error
        out["timings_ms"] = {k: round(v * 1000, 1) for k, v in self.timings.items()}
        return out


def reading_json(reading: HandReading, diagnosis: Diagnosis | None = None) -> dict:
    det = reading.detections
    tiles = [
        {"index": i, "cls": int(det.cls[i]), "name": CLASS_NAMES[int(det.cls[i])],
         "conf": round(float(det.conf[i]), 3), "xyxy": [round(float(v), 1) for v in det.xyxy[i]],
         "role": reading.roles[i], "meld": reading.meld_of[i], "sideways": reading.sideways[i],
         "alts": det.alternatives(i, OFFERED_FACES)}
        for i in range(len(det))
    ]
    out = {
        "notation": reading.notation, **reading.situation(), "win_set_apart": reading.win_set_apart,
        "tiles": tiles, "problems": list(reading.problems),
    }
    if diagnosis is not None:
        out["legal"] = diagnosis.legal
        out["reasons"] = list(diagnosis.reasons)
        out["suggestions"] = [suggestion_json(s) for s in diagnosis.suggestions]
    out["messages_zh"] = chinese_of([*out["problems"], *out.get("reasons", [])])
    return out


def suggestion_json(s: Suggestion) -> dict:
    return {"text": s.text, "cost": round(s.cost, 3),
            "changes": [{"index": c.detection, "old": c.old and c.old.symbol, "new": c.new and c.new.symbol,
                         "drop": c.drop, **({} if c.beside is None else {"beside": c.beside})} for c in s.changes]}


def situation_for(reading: HandReading, context: Context) -> dict:
    return {**reading.situation(), **context.situation_part()}


NO_KONG_FACE = ("a concealed kong shows no face, and no face under it makes a winning hand of the other tiles: "
                "correct a misread tile, or name the kong by a face-down tile of it")


def score_reading(reading: HandReading, context: Context) -> tuple[dict | None, dict | None, str | None]:
    """(situation, result, error). Unreadable hands get an error rather than a 诈胡 verdict."""
    if not reading.tiles:
        return None, None, "; ".join(reading.problems) or "no tiles found"
    if reading.win_tile is None:
        return None, None, "no winning tile found"
    situation = situation_for(reading, context)
    try:
        hidden = faceless_kongs(reading)
        for k in range(hidden):
            guessed = guess_kong_face(situation, reading, still=hidden - k - 1)
            if guessed is situation:  # the engine would count the hand a set short, which it is not
                return situation, None, NO_KONG_FACE
            situation = guessed
        return (*unseen.scored_as_read(unseen.bloom_last(situation, context.bloom), reading), None)
    except ValueError as e:
        return situation, None, str(e)


def analyse(image: np.ndarray, detections: Detections, context: Context = Context(),
            timings: dict[str, float] | None = None, win_index: int | None = None,
            as_read: bool = False, fixed: Iterable[int] = (), reading: HandReading | None = None,
            ignored: Iterable[int] = (), claimed: Iterable[int] = (), released: Iterable[int] = (),
            numbered: bool = False) -> PhotoResult:
    """Everything after detection: grouping, diagnosis, scoring, drawing (``numbered``: each tile's number on it).

    ``reading``: the grouping of ``detections`` when the caller already made it (:func:`detect_hand`).

    ``win_index`` marks which detection is the winning tile (the user said so). A reading that is
    no legal hand is scored as its likeliest legal reading (``repair.likeliest``; the reading
    itself, the drawing's labels and tile indices stay as read) unless ``as_read``; the ``fixed``
    detections (faces the user set), the ``ignored`` ones (not part of the hand, the user said) and
    the marked winning tile are never changed by it. ``claimed``/``released``: tiles the user says are
    in a claimed meld / whose meld is not claimed (:mod:`usermarks`); the user's grouping is then
    scored as it stands (no likeliest legal reading, which would group the tiles afresh).
    """
    timings = dict(timings or {})
    t = time.perf_counter()
    ignored = tuple(int(i) for i in ignored)
    fixed = tuple(int(i) for i in fixed)
    reading = group(detections, ignored) if reading is None else reading
    shown_apart = reading.win_set_apart
    claimed, released = tuple(claimed), tuple(released)
    reading = apply_claims(reading, claimed, released)
    if win_index is not None:
        reading = mark_win(reading, int(win_index))
    reading = hint_photo_size(hint_cut_hand(reading, image.shape), image.shape, image)
    diagnosis = diagnose(reading, shape=image.shape)
    keep = frozenset(int(i) for i in (*fixed, *ignored)) | (frozenset() if win_index is None else {int(win_index)})
    repair = None if as_read or claimed or released else likeliest(diagnosis, keep)  # a regrouping drops claims
    timings["group"] = time.perf_counter() - t
    t = time.perf_counter()
    scored = reading if repair is None else repaired_reading(reading, repair)
    if win_index is not None and repair is not None and repair.reading is not None:
        scored = _win_kept(scored, repair, int(win_index))
    situation, result, error = score_reading(scored, context)
    if repair is None and situation and reading.win_tile and situation["win_tile"] != reading.win_tile.symbol:
        reading = _show_chosen_win(reading, situation["win_tile"])
    changed = frozenset(c.detection for c in repair.changes if c.detection is not None) if repair else frozenset()
    choices = unseen.win_choices(situation, reading, changed) if situation and result and not shown_apart else ()
    # A kong all face down whose lost tile the repair added: its face is guessed, so the faces are offered too.
    kongs = (unseen.kong_choices(situation, scored, len(detections))
             if situation and result and (repair is None or repair.hidden_kongs) else ())
    if kongs and repair is not None:
        kongs = _nameable(image.shape, detections, context, scored, kongs)
    blooms = unseen.bloom_choices(situation, reading) if situation and result else ()
    timings["score"] = time.perf_counter() - t
    t = time.perf_counter()
    shown = dict(result) if result is not None else {"valid": False, "error": error}  # no claim scored: no 诈胡
    marks: dict[int, int | None] = {}
    if repair is not None:
        shown["note"], shown["note_zh"] = repair_note(repair), repair_note_zh(repair)
        marks = {c.detection: None if c.drop else (c.new.index if c.new else BACK_CLASS) for c in repair.changes
                 if c.detection is not None}
    tag_boxes: dict[int, tuple[float, float, float, float]] = {}
    annotated = draw(image, reading, shown, marks=marks, user=fixed, numbered=numbered, tag_boxes=tag_boxes)
    timings["draw"] = time.perf_counter() - t
    return PhotoResult(image, reading, diagnosis, situation, result, error, annotated, timings, repair, choices,
                       kongs, blooms, tag_boxes, frozenset(fixed))


def _nameable(shape: tuple[int, ...], detections: Detections, context: Context, scored: HandReading,
              kongs: tuple[Choice, ...]) -> tuple[Choice, ...]:
    """The choices of a kong all face down whose lost tile the repair added, pointing at a tile of the photo that
    names it: the face named there, the repair adds the lost tile again and the choice's total is scored. Which tile
    does depends on where the repair then adds it, so each of the kong's tiles is tried (the choice scored first)."""
    chosen = next((c for c in kongs if c.chosen), kongs[0])
    tiles = [i for i, (r, m) in enumerate(zip(scored.roles, scored.meld_of, strict=True))
             if r == "concealed_kong" and m < 0 and i < len(detections)]
    for i in sorted(tiles, key=lambda i: i != chosen.index):
        named = kong_named(detections, {i: chosen.tile.index})
        again = group(apply_corrections(detections, named))
        fix = likeliest(diagnose(again, shape=shape), frozenset(named))
        _, result, _ = score_reading(again if fix is None else repaired_reading(again, fix), context)
        if result is not None and result["valid"] and result["own"] == chosen.own:
            return tuple(replace(c, index=i) for c in kongs)
    return kongs


def _win_kept(scored: HandReading, repair: Suggestion, win_index: int) -> HandReading:
    """The regrouped reading a repair scores, with the winning tile the user marked (grouping afresh guessed it again:
    a "which won" choice tapped after a silent repair changed nothing). Dropped boxes shift the indices after them."""
    index = win_index - sum(1 for c in repair.changes if c.drop and c.detection is not None and c.detection < win_index)
    try:
        return mark_win(scored, index)
    except ValueError:  # regrouped into a meld: no standing tile to mark
        return scored


def faces_as_scored(res: PhotoResult) -> Detections:
    """The photo's detections with the faces its score used: where a likeliest legal reading was scored, the
    faces it changed (drawn 三条→二条) are taken, as the user saw them; boxes it dropped and tiles it added are
    not (no box is known to be no tile, none is known where to add)."""
    if res.repair is None:
        return res.detections
    faces = {c.detection: (c.new.index if c.new is not None else BACK_CLASS) for c in res.repair.changes
             if c.detection is not None and not c.drop}
    return apply_corrections(res.detections, faces)


def repair_note(repair: Suggestion) -> str:
    """What the caption and the page say when a likeliest legal reading was scored."""
    return f"改读 scored as the likeliest legal hand: {repair.text}"


def repair_note_zh(repair: Suggestion) -> str:
    """The note in Chinese, by the faces the repair changed (as the page says it): 改读：九条→八条，补上 红中."""
    def name(tile: Tile | None) -> str:
        return "背面" if tile is None else CLASS_NAMES_CN[tile.index]

    said = [f"去掉 {name(c.old)}" if c.drop else f"补上 {name(c.new)}" if c.detection is None
            else f"{name(c.old)}→{name(c.new)}" for c in repair.changes]
    return "改读：" + "，".join(said)


def repaired_reading(reading: HandReading, repair: Suggestion) -> HandReading:
    """The reading to score for a suggestion: its regrouped reading, or with a missed tile added."""
    if repair.reading is not None:
        return repair.reading
    return replace(reading, tiles=repair.tiles, win_tile=repair.win_tile)


def _show_chosen_win(reading: HandReading, symbol: str) -> HandReading:
    for i, role in enumerate(reading.roles):
        if role in ("concealed", "win") and Tile.from_index(int(reading.detections.cls[i])).symbol == symbol:
            note = (f"{WIN_GUESSED}: scored with {symbol}, giving the total most of the hand's tiles "
                    "give as the winning tile; mark the real winning tile to change it")
            return mark_win(reading, i, set_apart=False, note=note)
    return reading


def detect_hand(detector: TileDetector, image: np.ndarray,
                first: Detections | None = None) -> tuple[Detections, HandReading]:
    """The detector's reading of a photo of a winning hand, and its grouping. When its tiles make no legal
    hand, a detector with a second opinion reads it again asking that opinion however sure the first reading
    was (the networks recall the pictures already read: vision/memo.py), and that reading is taken when it
    makes a hand: a photo shows a declared win, so a legal reading is the likelier one. A reading still one tile
    short takes a tile seen under the detector's threshold where that makes the hand (vision/faint.py). ``first``: the
    detector's reading of this photo when the caller has it already (``xingzi eval`` reads at a lower threshold)."""
    with remembering():
        det = with_up(image, detector.predict(image) if first is None else first)
        reading, asked = group(det), False
        if getattr(detector, "second", None) is not None and not is_legal_reading(reading):
            other = with_up(image, detector.predict(image, ask_second=True))
            other_reading = group(other)
            if is_legal_reading(other_reading):
                det, reading, asked = other, other_reading, True
        # one tile short: the photo read again lower (a detector that can), for a tile seen too faintly to report
        lower, threshold = getattr(detector, "at_conf", None), float(getattr(detector, "conf", 0.0))
        faint = lower(FAINT_CONF) if lower and threshold > FAINT_CONF and one_tile_short(reading) else None
        if faint is None:
            return det, reading
        seen = faint.predict(image, ask_second=asked)
    return with_faint_tile(det, reading, faint_candidates(det, seen, threshold), group)


def read_photo(source: str | Path | bytes | np.ndarray, detector: TileDetector, context: Context = Context(),
               as_read: bool = False, win: Tile | None = None, claims: Iterable[Tile] = ()) -> PhotoResult:
    """``win``: the face the user says won (one tile of that face standing in the hand is marked);
    ``claims``: faces whose like tiles standing in the hand are a claimed meld."""
    t0 = time.perf_counter()
    image = load_image(source)
    t1 = time.perf_counter()
    detections, reading = detect_hand(detector, image)
    t2 = time.perf_counter()
    return analyse(image, detections, context, {"decode": t1 - t0, "detect": t2 - t1}, as_read=as_read,
                   reading=reading, win_index=None if win is None else unseen.standing_index(reading, win),
                   claimed=[unseen.standing_index(reading, t, "claimed meld", "concealed") for t in claims])


class BoxesDetector:
    """Boxes read from a JSON file instead of a model: a ``xingzi synth`` meta file (``tiles`` with
    ``cls`` and ``xyxy``) such as ``examples/demo.json``. Shows grouping, scoring and drawing on
    their own, whatever the state of the trained model."""

    def __init__(self, path: str | Path) -> None:
        try:
            meta = json.loads(Path(path).read_text(encoding="utf-8"))
            tiles = meta["tiles"]
            self.size = tuple(meta.get("size") or (0, 0))
            self.xyxy = np.array([t["xyxy"] for t in tiles], np.float32).reshape(len(tiles), 4)
            self.cls = np.array([int(t["cls"]) for t in tiles], np.int64)
            Detections(self.xyxy, self.cls, np.ones(len(tiles), np.float32))  # NaN (json reads it), class 31…: refused
        except (OSError, ValueError, KeyError, TypeError, OverflowError) as e:  # Overflow: a class past int64
            raise ValueError(f"--model {path}: expected a synth meta JSON with tiles [{{cls, xyxy}}]: {e}") from None

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        """The boxes written in the file (``ask_second``: no other reading to ask)."""
        h, w = image.shape[:2]
        scale = w / self.size[0] if self.size[0] else 1.0  # the photo may have been scaled down
        return Detections(self.xyxy * scale, self.cls.copy(), np.ones(len(self.cls), np.float32))


def make_detector(model: str | None, conf: float | None, second: Sequence[str] = (),
                  second_doubt: float | None = None) -> TileDetector:
    """The YOLO detector (re-reading small hands zoomed in), or with a ``.json`` path the boxes
    written in that file. ``second``/``second_doubt``: its second opinion(s) and their gate, when not the
    shipped ones (:class:`Detector`)."""
    if model and str(model).lower().endswith(".json"):
        if second or second_doubt is not None:
            raise ValueError(f"--model {model}: boxes from a file have no second opinion to set")
        return BoxesDetector(model)
    from .detector import SECOND_DOUBT, Detector
    from .zoom import ZoomDetector

    return ZoomDetector(Detector(weights=model, conf=0.25 if conf is None else conf, second=list(second) or "auto",
                                 second_doubt=SECOND_DOUBT if second_doubt is None else second_doubt))
