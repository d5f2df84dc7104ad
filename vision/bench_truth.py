"""The synthetic truth (``meta/<stem>.json`` of ``xingzi synth``) set beside a pipeline result: its boxes
as detections, its situation as a context, and whether a result, or the result after one tap on the
page, gives the true 炮."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xingzi.engine.notation import format_meld
from xingzi.engine.tiles import BACK_CLASS, Tile

from .detections import Detections
from .metrics import box_iou
from .photo import load_image
from .pipeline import Context, PhotoResult, analyse


def truth_detections(meta: dict) -> Detections:
    tiles = meta["tiles"]
    n = len(tiles)
    xyxy = np.array([t["xyxy"] for t in tiles], np.float32).reshape(n, 4)
    return Detections(xyxy, np.array([t["cls"] for t in tiles], np.int64), np.ones(n, np.float32))


def context_of(situation: dict) -> Context:
    return Context(self_draw=bool(situation.get("self_draw")), dealer=bool(situation.get("dealer")),
                   events=tuple(situation.get("events", [])), payers=tuple(situation.get("payers", [])),
                   rules=situation.get("rules") or {})


def one_tap_right(res: PhotoResult, meta: dict) -> bool:
    """Whether the true total is one tap away: the choice offered for the true winning tile or for a
    face one of the true concealed kongs holds gives it, or setting aside the stray 发 read as bonus
    tiles does, or naming a true claimed meld the reading left standing does."""
    expect, situation = meta["expect"], meta["situation"]
    kongs = {m.split(" ", 1)[1] for m in situation["melds"] if m.startswith("concealed_kong ")}
    return bool(expect["valid"]) and (
        any(c.tile.symbol == situation["win_tile"] and c.own == expect["own"] for c in res.win_choices)
        or any(c.tile.symbol in kongs and c.own == expect["own"] for c in res.kong_choices)
        or stray_fa_tap_right(res, meta) or claim_tap_right(res, meta))


def stray_fa_tap_right(res: PhotoResult, meta: dict) -> bool:
    """Whether setting aside the 发 read as bonus tiles that lie on a stray tile of the truth (one tap
    each on the page: "not part of this hand") gives the true total."""
    det, scale = res.detections, res.image.shape[1] / max(meta.get("size", [res.image.shape[1]])[0], 1)
    strays = np.array([t["xyxy"] for t in meta.get("tiles", []) if t["role"] == "loose"], np.float64) * scale
    taken = [i for i, role in enumerate(res.reading.roles) if role == "fa"]
    aside = [i for i in taken if len(strays) and box_iou(det.xyxy[i], strays).max() >= 0.5]
    if not aside:
        return False
    return total_right(analyse(res.image, det, context_of(meta["situation"]), ignored=aside), meta)


def claim_tap_right(res: PhotoResult, meta: dict) -> bool:
    """Whether taking a true claimed meld the reading left standing (one tap on one of its tiles:
    "a claimed meld") gives the true total."""
    read = {format_meld(m) for m in res.reading.melds}
    faces = [Tile.from_index(int(c)).symbol if int(c) != BACK_CLASS else "" for c in res.detections.cls]
    for text in meta["situation"]["melds"]:
        kind, face = text.split(" ", 1)
        standing = [i for i, role in enumerate(res.reading.roles) if role in ("concealed", "win") and faces[i] == face]
        if kind not in ("pung", "kong") or text in read or not standing:
            continue
        try:
            again = analyse(res.image, res.detections, context_of(meta["situation"]), claimed=standing[:1])
        except ValueError:  # too few of that face standing
            continue
        if total_right(again, meta):
            return True
    return False


def total_right(res: PhotoResult, meta: dict) -> bool:
    """The result's validity and own 炮 are the truth's."""
    return result_right(res.result, meta)


def result_right(result: dict | None, meta: dict) -> bool:
    """A §10 result (or the JSON of `xingzi score` and of the page: one with no score has no 'own') holds the
    truth's validity and own 炮."""
    expect = meta["expect"]
    return result is not None and result.get("valid") == expect["valid"] and result.get("own") == expect["own"]


def pipeline_matches_truth(image_path: Path, dets: Detections, meta: dict) -> bool | None:
    """Whole-pipeline check for `xingzi eval` on synthetic sets: the detections grouped and scored
    give the ground truth's validity and own 炮. None for samples with no usable truth."""
    if not meta.get("complete", True) or not isinstance(meta.get("expect"), dict) or "own" not in meta["expect"]:
        return None
    return total_right(analyse(load_image(image_path), dets, context_of(meta["situation"])), meta)
