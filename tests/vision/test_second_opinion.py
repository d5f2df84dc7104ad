"""The second-opinion model: averaged in only where the shipped model reads with doubt; bad settings fail clearly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from demo_photo import demo_photo, write_demo_dataset

from xingzi.vision import detector as mod
from xingzi.vision.classifier import DEFAULT_CLASSIFIER
from xingzi.vision.detector import DEFAULT_ONNX, DEFAULT_SECOND, Detector
from xingzi.vision.second import Averaged, second_paths, share


class _ScoresOff:
    """A stand-in second model: the first model's boxes with every face score zero (counts its calls)."""

    def __init__(self, first) -> None:
        self.first, self.calls = first, 0
        self.fixed_size, self.any_size = first.fixed_size, first.any_size

    def __call__(self, blob):
        self.calls += 1
        raw = self.first(blob).copy()
        raw[4:] = 0
        return raw


def test_the_shipped_second_model_is_found_beside_the_shipped_model_only(tmp_path):
    assert DEFAULT_SECOND.is_file()
    assert Detector(DEFAULT_ONNX, classifier=None).second is not None
    copy = tmp_path / "other.onnx"
    shutil.copy(DEFAULT_ONNX, copy)  # any other model: no second opinion unless asked for
    assert Detector(copy, classifier=None).second is None
    assert Detector(copy, classifier=None, second=DEFAULT_SECOND).second is not None
    assert Detector(DEFAULT_ONNX, classifier=None, second=None).second is None
    # the shipped .pt run at another size: the second model takes any size, so both read the same canvas
    small = Detector(mod.DEFAULT_WEIGHTS, imgsz=320, classifier=None)
    assert small.second is not None and small.fit
    image, truth, _ = demo_photo()
    both = small.detect(image[160:1120], ask_second=True)  # a 4:3 cut of the demo photo, on a 320x240 canvas
    assert len(both) >= len(truth) // 2  # the averaged outputs still find tiles at this size


@pytest.mark.parametrize(("second", "error", "message"), [
    pytest.param("missing.onnx", FileNotFoundError, "not found", id="missing"),
    pytest.param(mod.DEFAULT_WEIGHTS, ValueError, "must be an .onnx", id="pytorch"),
    pytest.param(DEFAULT_CLASSIFIER, ValueError, "cannot be averaged", id="other-size"),
])
def test_bad_second_models_are_refused(second, error, message):
    with pytest.raises(error, match=message):
        Detector(DEFAULT_ONNX, classifier=None, second=second)


@pytest.mark.parametrize(("doubt", "asked"), [pytest.param(0.0, False, id="sure"), pytest.param(1.01, True, id="doubtful")])
def test_the_second_opinion_is_averaged_in_only_when_the_reading_is_doubtful(doubt, asked):
    image = demo_photo()[0]
    alone = Detector(DEFAULT_ONNX, classifier=None, second=None).detect(image)
    det = Detector(DEFAULT_ONNX, classifier=None, second=None, second_doubt=doubt)
    det.second = _ScoresOff(det.backend)
    both = det.detect(image)
    assert det.second.calls == int(asked)
    if not asked:
        np.testing.assert_array_equal(both.conf, alone.conf)
        return
    # averaged half and half with zero scores: the same boxes, every score halved
    sure = alone.conf >= 2 * det.conf
    assert sure.sum() >= 10 and len(both) == sure.sum()
    np.testing.assert_allclose(np.sort(both.conf), np.sort(alone.conf[sure] / 2), rtol=1e-5)
    np.testing.assert_allclose(both.xyxy[np.argsort(-both.conf)], alone.xyxy[sure][np.argsort(-alone.conf[sure])],
                               atol=1e-3)


def test_eval_names_the_second_opinion_in_its_row_and_can_leave_it_out(tmp_path, eval_scores_only):
    from xingzi.cli import main

    data = write_demo_dataset(tmp_path / "data", demo_photo()[0], "demo.jpg")
    names = {}
    for flags in ([], ["--second", "none"]):
        out = tmp_path / ("none" if flags else "auto")
        assert main(["eval", "--data", str(data), "--out", str(out), *flags]) == 0
        (row,) = out.glob("*.json")
        names[bool(flags)] = row.name
    assert "+xingzi_yolo11n_s5+" in names[False] and "xingzi_yolo11n_s5" not in names[True]


def test_several_second_opinions_are_averaged_so_that_every_network_counts_the_same():
    image = demo_photo()[0]
    alone = Detector(DEFAULT_ONNX, classifier=None, second=None).detect(image)
    det = Detector(DEFAULT_ONNX, classifier=None, second=None, second_doubt=1.01)
    zeros = [_ScoresOff(det.backend), _ScoresOff(det.backend)]
    det.second = Averaged(zeros, [Path("a.onnx"), Path("b.onnx")])
    three = det.detect(image)
    assert [z.calls for z in zeros] == [1, 1]
    # the detector's own output in thirds with two zero-score opinions: every score a third
    sure = alone.conf >= 3 * det.conf
    assert sure.sum() >= 10 and len(three) == sure.sum()
    np.testing.assert_allclose(np.sort(three.conf), np.sort(alone.conf[sure] / 3), rtol=1e-5)


def test_two_named_second_opinions_load_as_one_averaged_network():
    det = Detector(DEFAULT_ONNX, classifier=None, second=[DEFAULT_SECOND, DEFAULT_SECOND])
    assert isinstance(det.second, Averaged) and second_paths(det.second) == (DEFAULT_SECOND, DEFAULT_SECOND)
    assert share(det.second) == pytest.approx(2 / 3) and det.fit
    one = Detector(DEFAULT_ONNX, classifier=None, second=DEFAULT_SECOND)
    assert share(one.second) == 0.5 and second_paths(one.second) == (DEFAULT_SECOND,)
    image = demo_photo()[0]
    # the same network twice averages to itself: the reading equals the one with a single second opinion
    np.testing.assert_allclose(det.detect(image, ask_second=True).conf, _pairwise(one, image), rtol=1e-4)


def _pairwise(det: Detector, image: np.ndarray) -> np.ndarray:
    """The detector with one second opinion weighted as a third of three (the same network counted twice)."""
    canvas, scale, pad = det.letterboxed(image)
    blob = mod.canvas_blob(canvas)
    raw = (det.backend(blob) + 2 * det.second(blob)) / 3
    return mod.decode(raw, scale, pad, image.shape[:2], det.conf, det.iou).conf


@pytest.mark.parametrize(("second", "doubt", "message"), [
    pytest.param([], 0.88, "empty list", id="empty"),
    pytest.param(["auto", DEFAULT_SECOND], 0.88, "stand alone", id="auto-among-paths"),
    pytest.param([DEFAULT_SECOND, "missing.onnx"], 0.88, "not found", id="one-missing"),
    pytest.param(DEFAULT_SECOND, -0.1, "second_doubt", id="negative-gate"),
    pytest.param(DEFAULT_SECOND, float("nan"), "second_doubt", id="nan-gate-never-asks"),
])
def test_bad_second_opinion_lists_and_gates_are_refused(second, doubt, message):
    with pytest.raises((ValueError, FileNotFoundError), match=message):
        Detector(DEFAULT_ONNX, classifier=None, second=second, second_doubt=doubt)


def test_averaged_networks_must_read_one_size():
    class _Fixed:
        def __init__(self, size):
            self.fixed_size, self.any_size = size, False

        def __call__(self, blob):
            return np.ones((35, 4))

    with pytest.raises(ValueError, match="different sizes"):
        Averaged([_Fixed(800), _Fixed(640)], [Path("a.onnx"), Path("b.onnx")])
    with pytest.raises(ValueError, match="two or more"):
        Averaged([_Fixed(800)], [Path("a.onnx")])
    pair = Averaged([_Fixed(800), _Fixed(800)], [Path("a.onnx"), Path("b.onnx")])
    assert pair.fixed_size == 800 and not pair.any_size
    np.testing.assert_array_equal(pair(np.zeros((1, 3, 800, 800), np.float32)), np.ones((35, 4)))


def test_eval_names_every_second_opinion_and_the_gate_asked_for(tmp_path, eval_scores_only):
    from xingzi.cli import main

    data = write_demo_dataset(tmp_path / "data", demo_photo()[0], "demo.jpg")
    out = tmp_path / "two"
    flags = ["--second", str(DEFAULT_SECOND), "--second", str(DEFAULT_SECOND), "--second-doubt", "2"]
    assert main(["eval", "--data", str(data), "--out", str(out), "--classifier", "none", *flags]) == 0
    (row,) = out.glob("*.json")
    assert "+xingzi_yolo11n_s5+xingzi_yolo11n_s5@2" in row.name
    report = json.loads(row.read_text())
    assert report["second_paths"] == [str(DEFAULT_SECOND)] * 2 and report["second_doubt"] == 2


def test_eval_says_when_a_gate_is_set_but_no_second_opinion_reads(tmp_path, capsys, eval_scores_only):
    from xingzi.cli import main

    data = write_demo_dataset(tmp_path / "data", demo_photo()[0], "demo.jpg")
    other = tmp_path / "other.onnx"
    shutil.copy(DEFAULT_ONNX, other)  # not the shipped file: no second opinion unless one is named
    argv = ["eval", "--data", str(data), "--out", str(tmp_path / "out"), "--classifier", "none", "--model", str(other)]
    assert main([*argv, "--second-doubt", "2"]) == 0
    assert "--second-doubt 2 unused: other.onnx reads without a second opinion" in capsys.readouterr().out
    assert main([*argv, "--second-doubt", "2", "--second", str(DEFAULT_SECOND)]) == 0
    assert "unused" not in capsys.readouterr().out
