"""One correction on the page, simulated for the pipeline benches: whether the truth is one tile away.

The page lets the user tap a tile and pick its face, tap where a tile was missed and pick the face it shows,
or set a box aside (not part of the hand, or no tile at all). For a photo read wrong, each such correction
the truth allows is tried (the detections matched to the true tiles by overlap): a misread tile given its
true face (strays too: the page corrects any tile), a true tile of the hand with no box added where it lies,
a box on no tile of the hand or a second box on a tile set aside (a stray lying apart too: without it the
rows may group otherwise). The photo counts as one correction away when any of them gives the truth (the 炮
total of a synthetic photo, the labelled faces of a real one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from xingzi.engine.tiles import CLASS_NAMES

from .grouping import SET_ASIDE
from .metrics import box_iou
from .pipeline import OFFERED_FACES, Context, PhotoResult, analyse
from .usermarks import add_tiles, apply_corrections

MATCH_IOU = 0.5  # a box on a true tile, read with some face
NONE_IOU = 0.3  # under this with every box, a true tile was not found (and a box lies on no true tile)
MAX_TRIES = 12  # corrections tried per photo (faces first, then added tiles, then tiles set aside)


def synth_truth(meta: dict, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A ``xingzi synth`` sample's true tiles for a photo ``width`` pixels wide: boxes, classes, and
    whether each is part of the hand (not a stray tile lying about)."""
    tiles = meta.get("tiles", [])
    scale = width / max(meta.get("size", [width])[0], 1)
    xyxy = np.array([t["xyxy"] for t in tiles], np.float64).reshape(-1, 4) * scale
    return xyxy, np.array([int(t["cls"]) for t in tiles], np.int64), np.array([t["role"] != "loose" for t in tiles])


def corrections(res: PhotoResult, xyxy: np.ndarray, cls: np.ndarray, in_hand: np.ndarray) -> list[dict]:
    """The single corrections the truth (boxes, classes, part of the hand) allows on this reading:
    ``{"fix": (i, cls)}``, ``{"add": (cls, xyxy)}`` or ``{"aside": i}``."""
    det = res.detections
    iou = np.zeros((len(det), len(xyxy)))
    if len(xyxy):
        for i in range(len(det)):
            iou[i] = box_iou(det.xyxy[i].astype(np.float64), xyxy)
    best = iou.argmax(axis=1) if len(xyxy) else np.full(len(det), -1)
    out: list[dict] = []
    for i, j in enumerate(best):
        if j >= 0 and iou[i, j] >= MATCH_IOU and 0 <= cls[j] < len(CLASS_NAMES) and int(det.cls[i]) != cls[j]:
            out.append({"fix": (i, int(cls[j]))})
    for k in np.flatnonzero(in_hand):
        if not len(det) or iou[:, k].max() < NONE_IOU:
            out.append({"add": (int(cls[k]), xyxy[k])})
    for i, role in enumerate(res.reading.roles):
        j = int(best[i])
        # a second box on a tile another box covers better: "not a tile" on the page
        twin = j >= 0 and any(best[o] == j and iou[o, j] > iou[i, j] for o in range(len(det)) if o != i)
        if role not in SET_ASIDE and (j < 0 or iou[i, j] < NONE_IOU or not in_hand[j] or twin):
            out.append({"aside": i})
    return out


def one_fix_right(res: PhotoResult, fixes: list[dict], context: Context, right: Callable[[PhotoResult], bool],
                  as_read: bool = False) -> bool:
    """Whether one of ``fixes`` (:func:`corrections`, the first ``MAX_TRIES``) makes the photo's result
    ``right``."""
    for fix in fixes[:MAX_TRIES]:
        det, fixed, ignored = res.detections, [], []
        try:
            if "fix" in fix:
                i, k = fix["fix"]
                det, fixed = apply_corrections(det, {i: k}), [i]
            elif "add" in fix:
                det = add_tiles(det, [fix["add"]], res.image.shape)
                fixed = [len(det) - 1]
            else:
                ignored = [fix["aside"]]
            again = analyse(res.image, det, context, as_read=as_read, fixed=fixed, ignored=ignored)
        except ValueError:  # a true tile wholly outside the photo, a grouping the engine refuses
            continue
        if right(again):
            return True
    return False


def offered_faces(res: PhotoResult, fixes: list[dict]) -> Counter:
    """Of the misread tiles among ``fixes``, how many the page offers their true face for at the top of the
    picker (the likeliest faces after the one read): ``tiles`` (misread), ``first`` (offered first), ``offered``."""
    out: Counter = Counter()
    for fix in fixes:
        if "fix" in fix:
            i, k = fix["fix"]
            alts = res.detections.alternatives(i, OFFERED_FACES)
            out.update(tiles=1, first=int(alts[:1] == [k]), offered=int(k in alts))
    return out
