"""`xingzi score photo.jpg --out NAME`: a NAME no annotated photo can be written to is refused before the photo is
read (no score said, no --labels sample kept, nothing written); the photo written is said in the text report, and
--json's output stays one JSON value a line."""

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
    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        return HAND


class Unreachable:
    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        raise AssertionError("the photo was read although --out was wrong")


@pytest.mark.parametrize(("name", "message"), [
    pytest.param("annotated.txt", "expected a .jpg or .png file name", id="not-a-picture-name"),
    pytest.param("made.jpg", "is a folder: give a file name for the annotated photo", id="a-folder"),
])
def test_an_out_no_photo_can_be_written_to_is_refused_before_the_photo_is_read(tmp_path, monkeypatch, capsys,
                                                                               name, message):
    photo = tmp_path / "hand.jpg"
    Image.new("RGB", (320, 240), (50, 120, 40)).save(photo)
    (tmp_path / "made.jpg").mkdir()
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Unreachable())
    labels = tmp_path / "set"
    code = main(["score", str(photo), "--out", str(tmp_path / name), "--labels", str(labels)])
    captured = capsys.readouterr()
    assert code == 2 and message in captured.err and captured.out == "", captured
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand.jpg", "made.jpg"]  # no --labels folder, no picture


@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_the_annotated_photo_written_is_said_in_the_text_report_alone(tmp_path, monkeypatch, capsys, json_out):
    photo, out = tmp_path / "hand.jpg", tmp_path / "annotated.jpg"
    Image.new("RGB", (W, H), (50, 120, 40)).save(photo)
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake())
    code = main(["score", str(photo), "--out", str(out), *(["--json"] if json_out else [])])
    said = capsys.readouterr().out
    assert code == 0 and out.is_file()
    if json_out:
        assert [json.loads(line)["own"] for line in said.splitlines()] == [3]
    else:
        assert "own       3 炮" in said and said.endswith(f"wrote     {out}\n"), said
