"""A sample saved again (`xingzi score PHOTO --labels DIR`, `xingzi serve --collect DIR`) keeps the labels it replaces
in labels_backup/, as `xingzi label --overwrite` does: a hand correction made since is not lost."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from xingzi.cli import main
from xingzi.datasets.samples import SampleStore
from xingzi.engine.tiles import BACK_CLASS
from xingzi.vision import pipeline
from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout

ONE = "0 0.500000 0.500000 0.100000 0.100000\n"
HAND_FIXED = "5 0.500000 0.500000 0.100000 0.100000\n"


def test_labels_replaced_by_other_ones_are_backed_up_and_the_same_ones_are_not(tmp_path):
    store = SampleStore(tmp_path / "set")
    jpeg = b"\xff\xd8a photo\xff\xd9"
    first = store.save("hand", jpeg, ONE)
    assert (first.replaced, first.backup) == (False, "")
    (tmp_path / "set" / "labels" / "hand.txt").write_text(HAND_FIXED)  # corrected by hand since
    again = store.save("hand", jpeg, ONE)
    assert again.replaced and (tmp_path / "set" / "labels" / "hand.txt").read_text() == ONE
    [backup] = (tmp_path / "set" / "labels_backup").iterdir()
    assert again.backup == str(backup) and backup.name.startswith("hand.") and backup.read_text() == HAND_FIXED
    assert store.save("hand", jpeg, ONE).backup == ""  # the same labels again: nothing to keep
    assert len(list((tmp_path / "set" / "labels_backup").iterdir())) == 1


class Fake:
    def __init__(self, detections: Detections) -> None:
        self.detections = detections

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        return self.detections


def test_score_labels_again_says_where_the_hand_corrected_labels_are_kept(tmp_path, monkeypatch, capsys):
    w, h = 1280, 960
    photo = tmp_path / "demo.jpg"
    Image.new("RGB", (w, h), (50, 120, 40)).save(photo)
    hand = hand_layout("123m456m789p12s55p", "3s", size=70, center=(w / 2, h / 2)).detections
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fake(hand))
    folder = tmp_path / "HB"
    assert main(["score", str(photo), "--labels", str(folder)]) in (0, 1)
    label = folder / "labels" / "demo.txt"
    cls, rest = label.read_text().split(" ", 1)
    corrected = f"{(int(cls) + 1) % BACK_CLASS} {rest}"  # the first box's face put right by hand
    label.write_text(corrected)
    capsys.readouterr()
    assert main(["score", str(photo), "--labels", str(folder)]) in (0, 1)
    out = capsys.readouterr().out
    [backup] = (folder / "labels_backup").iterdir()
    assert f"demo replaced (1 photo in the set); the labels it had are kept in {backup}" in out
    assert backup.read_text() == corrected and label.read_text() != corrected
    assert Path(backup).parent.name == "labels_backup"
