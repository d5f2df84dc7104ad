"""`xingzi score photo.jpg` names its ruleset as `score --hand` does: "with --set …" only when --set changed it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.vision import pipeline
from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout

W, H = 1280, 960
HAND = hand_layout("123m456m789p12s55p", "3s", size=70, center=(W / 2, H / 2)).detections  # 3 炮 on a discard


class Fake:
    def __init__(self, detections: Detections) -> None:
        self.detections = detections

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        return self.detections


@pytest.fixture
def photo(tmp_path):
    path = tmp_path / "IMG 0001.jpg"
    Image.new("RGB", (W, H), (50, 120, 40)).save(path)
    return path


@pytest.mark.parametrize(
    ("detections", "flags", "code", "said"),
    [
        pytest.param(HAND, [], 0, "default (003 text)", id="scored-without-set"),
        pytest.param(HAND, ["--json"], 0, "default (003 text)", id="scored-without-set-json"),
        pytest.param(Detections.empty(), ["--set", "ping_hu=5"], 1, None, id="no-tiles-under-set"),
        pytest.param(
            Detections.empty(), ["--set", "ping_hu=5", "--json"], 1, None, id="no-tiles-under-set-json"
        ),
    ],
)
def test_a_photo_names_its_ruleset_with_set_only_when_set_and_scored(
    photo, monkeypatch, capsys, detections, flags, code, said
):
    """No --set: the ruleset's name alone; a photo not scored under --set: no score, no ruleset, no traceback."""
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(detections))
    got = main(["score", str(photo), *flags])
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert got == code and "Traceback" not in text and "with --set" not in text
    if "--json" in flags:
        assert json.loads(captured.out).get("ruleset") == said
    elif said:
        assert f"(ruleset: {said})" in text
    else:
        assert "no score  no tiles found" in text
