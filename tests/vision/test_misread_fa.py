"""A 发 misread as another face, left out beside the bonus 发 (or alone beside the hand where none is read), is
counted as 发 (``bonusfa.misread_fa``)."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.bonusfa import LONE_NOTE, TOUCH_NOTE, misread_fa
from xingzi.vision.detections import Detections
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.layouts import hand_layout, with_tiles

HAND, WIN = "123m456m789p12s55p", "3s"
FA, S1, S2, S3, S4, M1 = (Tile(t).index for t in ("fa", "1s", "2s", "3s", "4s", "1m"))


def fa_box(x0: float, y0: float = 450.0) -> list[float]:
    return [x0, y0, x0 + 45, y0 + 60]


def table(boxes: list[list[float]], classes: list[int], doubts: dict[int, dict[int, float]]) -> Detections:
    """The hand's complete row (y 270-330) plus ``boxes``; ``doubts``: for some of the added boxes (by their
    order), each face's score, the first read (every other box is read surely, with no second choice)."""
    det = with_tiles(hand_layout(HAND, WIN, size=60, center=(640, 300)).detections, boxes, classes)
    probs = np.zeros((len(det), 31), np.float32)
    probs[np.arange(len(det)), det.cls] = det.conf
    conf = det.conf.copy()
    for k, scores in doubts.items():
        i = len(det) - len(boxes) + k
        probs[i] = 0.0
        for face, p in scores.items():
            probs[i, face] = p
        conf[i] = max(scores.values())
    return Detections(det.xyxy, det.cls, conf, probs)


TWO_FA = [fa_box(300), fa_box(346)]


@pytest.mark.parametrize("boxes,classes,doubts,fa,taken", [
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.59, FA: 0.57}}, 3, [2], id="beside-the-fa"),
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.52, FA: 0.39, S2: 0.21}}, 3, [2],
                 id="a-third-face-after-fa"),
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.92, FA: 0.41}}, 3, [2], id="read-surely-all-the-same"),
    # read surely as another face, 发 still its next: taken since session 63 (a 发 of a grey-inked set read 1s at 1.0)
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 1.0, FA: 0.07}}, 3, [2], id="fa-next-however-low"),
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.59, FA: 0.29}}, 3, [2], id="fa-next-under-0.3"),
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 1.0, FA: 0.009}}, 2, [], id="fa-under-any-offer"),
    # 发 second among the other faces (a grey-inked 发 read 1m, then 1s, then 发; session 64)
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.59, S2: 0.5, FA: 0.4}}, 3, [2],
                 id="fa-second-among-other-faces"),
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.35, S2: 0.04, FA: 0.03}}, 3, [2],
                 id="fa-second-and-low"),
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.59, S2: 0.5, M1: 0.45, FA: 0.4}}, 2, [],
                 id="fa-third-among-other-faces"),
    # a face-down tile shows no face: never a misread 发 (it crashed naming the face it was read as)
    pytest.param(TWO_FA + [fa_box(392)], [FA, FA, BACK_CLASS], {2: {BACK_CLASS: 0.8, FA: 0.5}}, 2, [], id="a-back"),
    # among other tiles (a tray, a grid): more than two around it, it lies with them, not with the 发
    pytest.param(TWO_FA + [fa_box(392), fa_box(392, 515), fa_box(438), fa_box(438, 515)], [FA, FA, S1, S2, S3, S4],
                 {2: {S1: 0.59, FA: 0.57}}, 2, [], id="among-three-other-tiles"),
    pytest.param(TWO_FA + [fa_box(392), fa_box(392, 515), fa_box(438)], [FA, FA, S1, S2, S3],
                 {2: {S1: 0.59, FA: 0.57}}, 3, [2], id="beside-two-other-tiles"),
    pytest.param(TWO_FA + [fa_box(900, 600)], [FA, FA, S1], {2: {S1: 0.59, FA: 0.57}}, 2, [], id="far-from-the-fa"),
    # (a box over most of a 发's box is that 发 boxed again, not another one)
    pytest.param(TWO_FA + [[350, 460, 380, 500]], [FA, FA, S1], {2: {S1: 0.46, FA: 0.39}}, 2, [], id="the-fa-boxed-twice"),
    pytest.param(TWO_FA + [fa_box(366)], [FA, FA, S1], {2: {S1: 0.46, FA: 0.39}}, 2, [], id="over-half-of-a-fa"),
    pytest.param(TWO_FA + [fa_box(371)], [FA, FA, S1], {2: {S1: 0.46, FA: 0.39}}, 3, [2], id="over-under-half-of-a-fa"),
    pytest.param(TWO_FA + [fa_box(392), fa_box(438)], [FA, FA, S1, S1], {2: {S1: 0.5, FA: 0.45}, 3: {S1: 0.5, FA: 0.4}},
                 4, [2, 3], id="two-in-a-line"),
    pytest.param(TWO_FA + [fa_box(392), fa_box(438), fa_box(484)], [FA, FA, FA, FA, S1], {4: {S1: 0.59, FA: 0.57}}, 4,
                 [], id="four-fa-already"),
    # no bonus 发 read: one tile lying alone near the hand, 发 its next face, is the 发 laid aside (session 64)
    pytest.param([fa_box(392)], [S1], {0: {S1: 1.0, FA: 0.07}}, 1, [0], id="a-lone-fa-read-1s"),
    pytest.param([fa_box(392)], [S1], {0: {S1: 0.59, S2: 0.5, FA: 0.4}}, 0, [], id="lone-fa-not-next"),
    pytest.param([fa_box(392, 620)], [S1], {0: {S1: 0.59, FA: 0.57}}, 0, [], id="lone-far-from-the-hand"),
    pytest.param([fa_box(392), fa_box(438)], [S1, S2], {0: {S1: 0.59, FA: 0.57}}, 0, [], id="lone-beside-a-stray"),
    pytest.param([fa_box(392), fa_box(700)], [S1, S1], {0: {S1: 0.59, FA: 0.57}, 1: {S1: 0.59, FA: 0.57}}, 0, [],
                 id="two-lone-tiles-either-may-be"),
])
def test_a_tile_left_out_beside_the_bonus_fa_that_may_be_one_is_one(boxes, classes, doubts, fa, taken):
    det = table(boxes, classes, doubts)
    reading = group(det)
    n = len(det) - len(boxes)
    assert reading.fa == fa and is_legal_reading(reading)
    plain = group(hand_layout(HAND, WIN).detections)
    assert (reading.tiles, reading.win_tile, reading.melds) == (plain.tiles, plain.win_tile, plain.melds)
    assert [k for k in range(len(boxes)) if classes[k] != FA and reading.roles[n + k] == "fa"] == taken
    assert [int(reading.detections.cls[n + k]) for k in taken] == [FA] * len(taken)
    # read as 发, its confidence is its 发 score (not the face it was misread as: what is drawn and checked for doubt)
    assert [float(reading.detections.conf[n + k]) for k in taken] == pytest.approx([doubts[k][FA] for k in taken])
    note = TOUCH_NOTE if FA in classes else LONE_NOTE
    assert [p for p in reading.problems if "counted as 发" in p] == [f"tile #{n + k} (read 1s) counted as 发: {note}"
                                                                     for k in taken]
    assert (det.cls[n:] == np.array(classes)).all()  # the caller's detections are not changed


def test_a_tile_of_the_hand_is_never_taken_for_a_bonus_fa():
    det = table(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.59, FA: 0.57}})
    roles = ["concealed"] * (len(det) - 3) + ["fa", "fa", "loose"]
    assert misread_fa(det, roles) == [len(det) - 1]
    assert misread_fa(det, roles[:-1] + ["concealed"]) == []
    assert misread_fa(det, roles[:-1] + ["foreign"]) == []  # a wind or flower beside the 发 stays one


def test_a_misread_fa_the_user_names_stays_as_named():
    from xingzi.vision.usermarks import apply_corrections

    det = table(TWO_FA + [fa_box(392)], [FA, FA, S1], {2: {S1: 0.59, FA: 0.57}})
    assert group(det).fa == 3
    named = group(apply_corrections(det, {len(det) - 1: S1}))
    assert named.fa == 2 and named.roles[-1] == "loose"
