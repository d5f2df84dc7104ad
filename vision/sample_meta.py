"""A photo saved with its score as the truth of a pipeline sample, so real photos measure the whole pipeline.

A saved sample (the page's "save labels", ``xingzi score --labels``) gets ``meta/NAME.json`` in the format of
``xingzi synth``'s meta: the §10 situation as scored (with what the user said: faces, missed tiles, the winning
tile, claimed melds, self-draw, dealer, events, payers), the result, and each labelled box with its role and
group. ``xingzi bench pipeline --data DIR`` then measures on a folder of such photos what it measures on
synthetic ones: the 炮 total end to end, after one tap, after one correction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from xingzi.datasets.samples import labelled_indices
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES

from .detections import Detections
from .pipeline import PhotoResult, faces_as_scored

STANDING = ("concealed", "win")
NOT_IN_HAND = ("ignored", "loose")  # set aside by the user, or lying away from the hand


def truth_meta(res: PhotoResult, removed: Iterable[int], source: str) -> dict | None:
    """The sample's truth from a result scored exactly as its reading stands (no likeliest legal reading in
    between: its grouping is what was scored); None when there is no score to hold as the truth."""
    if res.result is None or res.situation is None or res.repair is not None:
        return None
    reading = res.reading
    det = reading.detections
    fa_group = len(reading.melds) + 1
    tiles = []
    for i in labelled_indices(reading.roles, removed):  # one truth per label row, in its order
        role, meld = reading.roles[i], reading.meld_of[i]
        group = 0 if role in STANDING else meld + 1 if meld >= 0 else fa_group if role == "fa" else -1
        cls = int(det.cls[i])
        tiles.append({"cls": cls, "face": CLASS_NAMES[cls], "xyxy": [round(float(v), 2) for v in det.xyxy[i]],
                      "group": group, "role": "loose" if role in NOT_IN_HAND else role,
                      "sideways": bool(reading.sideways[i]), "face_down": cls == BACK_CLASS})
    h, w = res.image.shape[:2]
    return {"situation": res.situation, "expect": res.result, "tiles": tiles, "size": [w, h], "complete": True,
            "layout": "photo", "win_shown": not res.win_choices, "source": source}


class Sample(NamedTuple):
    detections: Detections  # with the faces the score used
    keep: list[int]  # the boxes the label file holds (datasets.samples.labelled_indices)
    meta: dict | None  # the truth, or None


def sample_truth(res: PhotoResult, removed: Iterable[int], source: str,
                 as_read: Callable[[Detections], PhotoResult]) -> Sample:
    """The photo as a sample: its boxes with the faces the score used, those to label, the truth. Where a likeliest legal
    reading was scored, ``as_read`` (the same analysis of other faces, scored exactly as they stand) groups
    its faces afresh; a truth is kept only when that gives the same situation and result (a reading that
    dropped or added a tile does not)."""
    det, removed = faces_as_scored(res), list(removed)
    keep = labelled_indices(res.reading.roles, removed)  # faces changed, roles not: a tile of no Xingzi face stays one
    final = res
    if res.repair is not None:
        final = as_read(det)
        if (final.situation, final.result) != (res.situation, res.result):
            return Sample(det, keep, None)
    return Sample(det, keep, truth_meta(final, removed, source))
