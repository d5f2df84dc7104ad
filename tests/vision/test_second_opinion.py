"""The second-opinion model: averaged in only where the shipped model reads with doubt; bad settings fail clearly."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from demo_photo import demo_photo, write_demo_dataset

from xingzi.vision import detector as mod
from xingzi.vision.classifier import DEFAULT_CLASSIFIER
from xingzi.vision.detector import DEFAULT_ONNX, DEFAULT_SECOND, Detector


class _ScoresOff:
    """A stand-in second model: the first model's boxes with every face score zero (counts its calls)."""

    def __init__(self, first) -> None:
        self.first, self.calls = first, 0

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
def test_the_second_opinion_is_averaged_in_only_when_the_reading_is_doubtful(monkeypatch, doubt, asked):
    image = demo_photo()[0]
    alone = Detector(DEFAULT_ONNX, classifier=None, second=None).detect(image)
    det = Detector(DEFAULT_ONNX, classifier=None, second=None)
    det.second = _ScoresOff(det.backend)
    monkeypatch.setattr(mod, "SECOND_DOUBT", doubt)
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


def test_eval_names_the_second_opinion_in_its_row_and_can_leave_it_out(tmp_path):
    from xingzi.cli import main

    data = write_demo_dataset(tmp_path / "data", demo_photo()[0], "demo.jpg")
    names = {}
    for flags in ([], ["--second", "none"]):
        out = tmp_path / ("none" if flags else "auto")
        assert main(["eval", "--data", str(data), "--out", str(out), *flags]) == 0
        (row,) = out.glob("*.json")
        names[bool(flags)] = row.name
    assert "+xingzi_yolo11n_s5+" in names[False] and "xingzi_yolo11n_s5" not in names[True]
