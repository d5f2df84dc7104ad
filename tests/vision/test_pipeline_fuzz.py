"""Any detections, however damaged, get an answer from the pipeline after detection: a score, or a reading that
says what is wrong (ValueError only for marks that name no tile). Never another exception."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine.bench import random_win
from xingzi.engine.scoring import SYMBOLS
from xingzi.engine.tiles import BACK_CLASS
from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout
from xingzi.vision.pipeline import Context, analyse

IMAGE = np.full((960, 1280, 3), 90, np.uint8)


def damaged_hand(rng: random.Random) -> Detections:
    """A winning hand laid out at a random angle, size and perspective, then damaged: tiles dropped or read twice,
    faces swapped (face-down ones too), boxes on nothing."""
    concealed, melds, win = random_win(rng, closed=rng.random() < 0.4)
    concealed = list(concealed)
    concealed.remove(win)
    det = hand_layout("".join(SYMBOLS[t] for t in sorted(concealed)), SYMBOLS[win],
                      [f"{kind} {SYMBOLS[t]}" for kind, t in melds], rng.choice([0, 0, 1, 2]),
                      angle=rng.uniform(-180, 180), size=rng.uniform(20, 120), perspective=rng.uniform(0, 0.4),
                      win_apart=rng.random() < 0.6, melds_row=rng.choice([0, 1]), jitter=rng.uniform(0, 0.2),
                      probs=rng.random() < 0.5, seed=rng.randrange(1000)).detections
    xyxy, cls, conf = det.xyxy.copy(), det.cls.copy(), det.conf.copy()
    probs = None if det.probs is None else det.probs.copy()
    for _ in range(rng.choice([0, 1, 2, 4])):
        i, op = rng.randrange(len(cls)), rng.choice(["drop", "twice", "face", "extra"])
        if op == "drop" and len(cls) > 1:
            keep = np.arange(len(cls)) != i
            xyxy, cls, conf, probs = xyxy[keep], cls[keep], conf[keep], None if probs is None else probs[keep]
            continue
        if op == "face":
            cls[i] = rng.randrange(BACK_CLASS + 1)
            continue
        x, y = rng.uniform(0, 1200), rng.uniform(0, 900)
        box = xyxy[i] + rng.uniform(-5, 5) if op == "twice" else np.array([x, y, x + 40, y + 55], np.float32)
        xyxy, conf = np.vstack([xyxy, box[None]]), np.append(conf, rng.uniform(0.25, 1))
        cls = np.append(cls, cls[i] if op == "twice" else rng.randrange(BACK_CLASS + 1))
        probs = None if probs is None else np.vstack([probs, probs[i:i + 1]])
    return Detections(xyxy.astype(np.float32), cls.astype(np.int64), conf.astype(np.float32), probs)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_damaged_detections_are_answered_never_crash(seed):
    rng = random.Random(seed)
    det = damaged_hand(rng)
    context = Context(self_draw=rng.random() < 0.4, dealer=rng.random() < 0.25)
    res = analyse(IMAGE, det, context, as_read=rng.random() < 0.2)
    answer = res.to_json()
    assert (res.result is None) == (res.error is not None)  # a score, or why there is none
    assert answer["valid"] is (res.result is not None and res.result["valid"])
    assert res.annotated.shape == IMAGE.shape
    standing = [i for i, role in enumerate(res.reading.roles) if role in ("concealed", "win")]
    k = rng.randrange(len(det))  # and the user's word: one face set, maybe a standing tile marked as the winning one
    win = rng.choice(standing) if standing and rng.random() < 0.5 else None
    marked = analyse(IMAGE, det, context, win_index=win, fixed=[k])
    assert (marked.result is None) == (marked.error is not None)


@pytest.mark.parametrize("seed", [3695, 4494, 6044])  # their layout's noise crossed a box's sides (x0 > x1)
def test_jittered_layouts_box_each_tile_as_a_detector_would(seed):
    det = damaged_hand(random.Random(seed))
    assert (det.xyxy[:, 2:] >= det.xyxy[:, :2]).all()
    assert analyse(IMAGE, det).annotated.shape == IMAGE.shape  # and the drawing takes them
