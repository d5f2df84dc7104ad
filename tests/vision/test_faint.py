"""A tile seen under the detector's threshold is counted when the hand is one tile short without it."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.vision.faint import FAINT_APART, FAINT_CONF, FAINT_TRIES, faint_candidates, one_tile_short
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.layouts import hand_layout
from xingzi.vision.pipeline import detect_hand
from xingzi.vision.zoom import ZoomDetector

IMAGE = np.zeros((960, 1280, 3), np.uint8)


class Threshold:
    """Boxes fixed in advance, each with its confidence; reports those from ``conf`` up, as the real detector does."""

    second = None

    def __init__(self, boxes: Detections, conf: float = 0.25) -> None:
        self.boxes, self.conf, self.reads = boxes, conf, []

    def predict(self, image, ask_second=False):
        self.reads.append(self.conf)
        return self.boxes.subset(self.boxes.conf >= self.conf)

    def at_conf(self, conf: float) -> Threshold:
        other = copy.copy(self)
        other.conf = conf
        return other


class NoThreshold:
    """A predictor with no threshold to lower (boxes from a file, a fake)."""

    second = None

    def __init__(self, boxes: Detections) -> None:
        self.boxes = boxes

    def predict(self, image, ask_second=False):
        return self.boxes.subset(self.boxes.conf >= 0.25)


def layout(hand: str = "123m456p789s55m67s", win: str = "8s") -> Detections:
    return hand_layout(hand, win).detections


def with_conf(det: Detections, conf: dict[int, float]) -> Detections:
    c = det.conf.copy()
    for i, v in conf.items():
        c[i] = v
    return Detections(det.xyxy, det.cls, c)


def with_face(det: Detections, i: int, face: str) -> Detections:
    cls = det.cls.copy()
    cls[i] = Tile(face).index
    return Detections(det.xyxy, cls, det.conf)


@pytest.mark.parametrize(("faint", "taken"), [
    pytest.param({3: 0.15}, 3, id="a-row-tile-seen-at-0.15"),
    pytest.param({3: 0.05}, 3, id="at-the-faint-threshold-itself"),
    pytest.param({3: 0.04}, None, id="under-the-faint-threshold"),
    pytest.param({13: 0.2}, 13, id="the-winning-tile-set-apart"),
    pytest.param({0: 0.2, 1: 0.2}, None, id="two-tiles-short-is-not-tried"),
])
def test_a_hand_one_tile_short_takes_the_tile_seen_faintly(faint, taken):
    det = with_conf(layout(), faint)
    got, reading = detect_hand(Threshold(det), IMAGE)
    if taken is None:
        assert len(got) == len(det) - len(faint) and not is_legal_reading(reading)
        return
    assert len(got) == len(det) and is_legal_reading(reading)
    assert got.conf[-1] == pytest.approx(faint[taken]) and got.cls[-1] == det.cls[taken]  # kept as seen: unsure
    note = [p for p in reading.problems if "under the detector's threshold" in p]
    assert note == [f"tile #{len(det) - 1} ({Tile.from_index(int(det.cls[taken])).symbol}, seen at "
                    f"{faint[taken]:.2f}, under the detector's threshold) counted: without it the hand is one tile short"]


def test_a_faint_box_whose_face_makes_no_hand_is_not_taken():
    det = with_face(with_conf(layout(), {3: 0.15}), 3, "9p")  # 4p missing, seen faintly as 9p: no hand
    got, reading = detect_hand(Threshold(det), IMAGE)
    assert len(got) == len(det) - 1 and not is_legal_reading(reading)
    assert not any("under the detector's threshold" in p for p in reading.problems)


def test_of_two_faint_boxes_the_one_that_makes_a_hand_is_taken_though_less_sure():
    base = layout()
    wrong = Detections(base.xyxy[3:4] + [0, 200, 0, 200], np.array([Tile("9p").index]), np.array([0.2], np.float32))
    det = with_conf(base, {3: 0.1})
    both = Detections(np.concatenate([det.xyxy, wrong.xyxy]), np.concatenate([det.cls, wrong.cls]),
                      np.concatenate([det.conf, wrong.conf]))
    got, reading = detect_hand(Threshold(both), IMAGE)
    assert is_legal_reading(reading) and got.conf[-1] == pytest.approx(0.1) and got.cls[-1] == base.cls[3]


def test_a_legal_reading_is_not_read_again():
    detector = Threshold(layout())
    _, reading = detect_hand(detector, IMAGE)
    assert is_legal_reading(reading) and detector.reads == [0.25]


@pytest.mark.parametrize("detector", [
    pytest.param(NoThreshold, id="no-threshold-to-lower"),
    pytest.param(lambda det: ZoomDetector(NoThreshold(det)), id="zooming-over-no-threshold"),
])
def test_no_faint_tile_where_the_detector_has_no_threshold_to_lower(detector):
    det = with_conf(layout(), {3: 0.15})
    got, reading = detect_hand(detector(det), IMAGE)
    assert len(got) == len(det) - 1 and not is_legal_reading(reading)


def test_a_detector_already_reading_at_the_faint_threshold_is_not_read_again():
    detector = Threshold(with_conf(layout(), {3: FAINT_CONF / 2}), conf=FAINT_CONF)
    _, reading = detect_hand(detector, IMAGE)
    assert not is_legal_reading(reading) and detector.reads == [FAINT_CONF]


def test_zooming_passes_the_lower_threshold_to_the_detector_it_wraps():
    det = with_conf(layout(), {3: 0.15})
    got, reading = detect_hand(ZoomDetector(Threshold(det)), IMAGE)
    assert len(got) == len(det) and is_legal_reading(reading)


@pytest.mark.parametrize(("overlap", "kept"), [
    pytest.param(0.25, True, id="apart"),
    pytest.param(0.35, False, id="the-same-tile-seen-again"),
])
def test_a_faint_box_on_a_box_already_read_is_no_candidate(overlap, kept):
    assert FAINT_APART == 0.3
    read = Detections(np.array([[0, 0, 100, 100]], np.float32), np.array([3]), np.array([0.9], np.float32))
    # a box of the same height shifted right: IoU = (100 - s) / (100 + s)
    s = 100 * (1 - overlap) / (1 + overlap)
    faint = Detections(np.array([[s, 0, 100 + s, 100]], np.float32), np.array([4]), np.array([0.1], np.float32))
    assert len(faint_candidates(read, faint, 0.25)) == int(kept)


def test_candidates_are_under_the_threshold_surest_first_and_few():
    n = FAINT_TRIES + 2
    xyxy = np.array([[200 * k, 0, 200 * k + 60, 80] for k in range(n)], np.float32)
    conf = np.array([0.06, 0.2, 0.25, 0.1, 0.24, 0.07][:n], np.float32)
    faint = Detections(xyxy, np.arange(n), conf)
    got = faint_candidates(Detections.empty(), faint, 0.25)
    assert got.conf.tolist() == pytest.approx(sorted((c for c in conf if c < 0.25), reverse=True)[:FAINT_TRIES])


@pytest.mark.parametrize(("hand", "win", "melds", "short"), [
    pytest.param("123m456p789s55m6s", "7s", (), True, id="13-tiles"),
    pytest.param("123m456p789s55m67s", "1p", (), False, id="14-tiles-no-hand"),
    pytest.param("456p789s55m6s", "7s", ("kong 1m",), True, id="a-kong-counts-one-more"),
    pytest.param("456p789s55m67s", "8s", ("kong 1m",), False, id="a-kong-with-its-hand"),
    pytest.param("123m456p789s55m", "6s", (), False, id="12-tiles"),
])
def test_one_tile_short(hand, win, melds, short):
    assert one_tile_short(group(hand_layout(hand, win, melds).detections)) is short


def test_eval_reading_kept_from_its_threshold_lowers_it_for_the_faint_tiles():
    from xingzi.vision.evaluate import _AtConf

    det = with_conf(layout(), {3: 0.15, 13: 0.01})  # 4p seen faintly, the winning 8s hardly at all
    shown = _AtConf(Threshold(det, conf=0.001), 0.25)
    assert len(shown.predict(IMAGE)) == len(det) - 2
    assert len(shown.at_conf(FAINT_CONF).predict(IMAGE)) == len(det) - 1
    assert len(detect_hand(shown, IMAGE)[0]) == len(det) - 2  # two short: nothing taken
    one_short = _AtConf(Threshold(with_conf(layout(), {3: 0.15}), conf=0.001), 0.25)
    got, reading = detect_hand(one_short, IMAGE)
    assert len(got) == len(det) and is_legal_reading(reading)


@pytest.mark.parametrize(("wrong", "taken"), [
    pytest.param(3, True, id="the-fourth-surest-tried"),
    pytest.param(4, False, id="the-fifth-not"),
])
def test_the_surest_four_faint_boxes_are_tried(wrong, taken):
    base = layout()
    # ``wrong`` faint boxes surer than the missing 4p (0.1), off the hand, of a face that makes no hand
    far = np.array([[100 + 80 * k, 800, 160 + 80 * k, 880] for k in range(wrong)], np.float32)
    det = with_conf(base, {3: 0.1})
    more = Detections(np.concatenate([det.xyxy, far]), np.concatenate([det.cls, np.full(wrong, Tile("9p").index)]),
                      np.concatenate([det.conf, np.full(wrong, 0.2, np.float32)]))
    got, reading = detect_hand(Threshold(more), IMAGE)
    assert is_legal_reading(reading) is taken and FAINT_TRIES == 4
