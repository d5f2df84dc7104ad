"""A photo read twice pays for each picture once: network answers remembered inside a block only,
the same tiles either way; rows found once per set of boxes."""

from __future__ import annotations

import threading
from contextlib import nullcontext

import numpy as np
import pytest
from demo_photo import demo_photo

from xingzi.vision import memo, rowgeom
from xingzi.vision.detector import DEFAULT_ONNX, Detector
from xingzi.vision.pipeline import detect_hand


class _Counting:
    """A network stand-in that counts the pictures it is given."""

    def __init__(self, network) -> None:
        self.network, self.calls = network, 0

    def __call__(self, blob):
        self.calls += 1
        return self.network(blob)


def _compute(value: float):
    calls = []

    def compute():
        calls.append(1)
        return [np.full(3, value)]
    return compute, calls


def test_answers_are_remembered_inside_a_block_only():
    picture = np.arange(1000, dtype=np.uint8).reshape(10, 100)
    compute, calls = _compute(1.0)
    memo.recall("net", picture, compute)
    memo.recall("net", picture, compute)
    assert len(calls) == 2 and not memo.active()
    with memo.remembering():
        first = memo.recall("net", picture, compute)
        with memo.remembering():  # an inner block shares the outer one
            again = memo.recall("net", picture.copy(), compute)
        assert memo.active()
        assert len(calls) == 3 and again is first
        with pytest.raises(ValueError, match="read-only"):
            first[0][0] = 5  # a remembered answer cannot be changed by one caller for the next
        memo.recall("other net", picture, compute)  # another network reads it for itself
        assert len(calls) == 4
    assert not memo.active()
    memo.recall("net", picture, compute)
    assert len(calls) == 5


def test_pictures_differing_where_no_sample_looks_are_told_apart():
    picture = np.zeros((64, 64, 3), np.uint8)
    other = picture.copy()
    other[0, 1, 0] = 1  # between the sampled values
    compute, calls = _compute(1.0)
    with memo.remembering():
        memo.recall("net", picture, compute)
        memo.recall("net", other, compute)
        memo.recall("net", picture.reshape(64, 192), compute)  # same bytes, another shape
        memo.recall("net", picture.astype(np.float32), compute)  # same values, another type
        memo.recall("net", other, compute)
    assert len(calls) == 4


def test_each_thread_has_its_own_block():
    picture = np.ones(50, np.uint8)
    compute, calls = _compute(2.0)
    seen = []
    with memo.remembering():
        memo.recall("net", picture, compute)
        worker = threading.Thread(target=lambda: seen.append((memo.active(), memo.recall("net", picture, compute))))
        worker.start()
        worker.join()
    assert seen[0][0] is False and len(calls) == 2


def test_a_photo_read_again_with_the_second_opinion_costs_one_call_per_picture():
    image = demo_photo()[0]
    plain = Detector(DEFAULT_ONNX, classifier=None, stretched=False, negative=False, sharpen=False)
    first, asked = plain.predict(image), plain.predict(image, ask_second=True)
    det = Detector(DEFAULT_ONNX, classifier=None, stretched=False, negative=False, sharpen=False)
    det.backend, det.second = _Counting(det.backend), _Counting(det.second)
    with memo.remembering():
        again = det.predict(image)
        asked_again = det.predict(image, ask_second=True)
        det.predict(image, ask_second=True)
    assert det.backend.calls == 1 and det.second.calls == 1
    for a, b in ((first, again), (asked, asked_again)):
        np.testing.assert_array_equal(a.xyxy, b.xyxy)
        np.testing.assert_array_equal(a.cls, b.cls)
        np.testing.assert_array_equal(a.conf, b.conf)


def test_detect_hand_remembers_and_reads_as_without_memory(monkeypatch):
    image = demo_photo()[0]
    det = Detector(DEFAULT_ONNX)
    monkeypatch.setattr("xingzi.vision.pipeline.is_legal_reading", lambda reading: False)  # force the second reading
    counted = _Counting(det.backend)
    det.backend = counted
    with_memory = detect_hand(det, image)[0]
    calls_with = counted.calls
    monkeypatch.setattr("xingzi.vision.pipeline.remembering", nullcontext)
    counted.calls = 0
    without = detect_hand(det, image)[0]
    assert calls_with < counted.calls
    np.testing.assert_array_equal(with_memory.xyxy, without.xyxy)
    np.testing.assert_array_equal(with_memory.cls, without.cls)


def test_rows_are_found_once_per_set_of_boxes():
    centers = np.array([[10.0 + 20 * i, 50.0] for i in range(8)])
    wh = np.tile([18.0, 26.0], (8, 1))
    body = np.arange(8)
    geo = rowgeom.find_rows(centers, wh, body)
    assert rowgeom.find_rows(centers.copy(), wh.copy(), body.copy()) is geo
    assert rowgeom.find_rows(centers, wh, body, line_tol=0.5) is not geo
    assert rowgeom.find_rows(centers + 1, wh, body) is not geo
    with pytest.raises(ValueError, match="read-only"):
        geo.along[0] = 0.0
    segments = rowgeom.row_segments(geo, 1.5, 0.3)
    segments[0].append(99)  # the caller's copy: the next caller gets the rows as found
    assert 99 not in rowgeom.row_segments(geo, 1.5, 0.3)[0]
    assert sorted(i for seg in rowgeom.row_segments(geo, 1.5, 0.3) for i in seg) == list(range(8))


def test_rows_found_last_are_remembered_once_the_memory_is_full():
    # The memory forgets the boxes used longest ago, not the ones just read: the grouping's next
    # setting and the repair's next face ask for those again.
    wh = np.tile([18.0, 26.0], (8, 1))
    body = np.arange(8)
    boxes = [np.array([[10.0 + 20 * i, 50.0 + k] for i in range(8)]) for k in range(rowgeom.ROWS_REMEMBERED + 2)]
    found = [rowgeom.find_rows(centers, wh, body) for centers in boxes]
    assert rowgeom.find_rows(boxes[-1].copy(), wh, body) is found[-1]
    assert rowgeom.find_rows(boxes[0].copy(), wh, body) is not found[0]
