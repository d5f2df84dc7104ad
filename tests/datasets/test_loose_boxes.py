"""Augmented copies with loose boxes: measured, and left out of training views on request (one copy stays)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from xingzi.datasets.loose_boxes import copy_looseness, loose_copies, looseness, main, source_of
from xingzi.datasets.yolo import read_labels

ROW = [(k, 0.1 + 0.06 * k, 0.5, 0.06, 0.2) for k in range(6)]  # six tiles side by side, touching


def rows(boxes, grow: float = 1.0) -> np.ndarray:
    return np.array([(c, x, y, w * grow, h) for c, x, y, w, h in boxes], np.float64)


@pytest.mark.parametrize("boxes, grow, low, high", [
    pytest.param(ROW, 1.0, 0.0, 0.0, id="touching-tiles"),
    pytest.param(ROW, 3.0, 0.4, 0.8, id="boxes-three-tiles-wide"),
    pytest.param(ROW[:1], 3.0, 0.0, 0.0, id="one-box"),
    pytest.param([], 1.0, 0.0, 0.0, id="no-box"),
])
def test_looseness_is_how_much_boxes_cover_their_neighbours(boxes, grow, low, high):
    assert low <= looseness(rows(boxes, grow).reshape(-1, 5)) <= high


def test_two_boxes_a_half_width_apart_cover_each_other_by_a_third():
    # x: 0.0..0.2 and 0.1..0.3 (same rows): a third of their union is shared
    rows = np.array([[0, 0.1, 0.5, 0.2, 0.1], [0, 0.2, 0.5, 0.2, 0.1]])
    assert looseness(rows) == pytest.approx(1 / 3)


def test_a_copy_exactly_as_loose_as_the_limit_stays():
    scores = {"a.rf.1.jpg": 0.0, "a.rf.2.jpg": 0.3, "a.rf.3.jpg": 0.31}
    assert loose_copies(scores, 0.3) == {"a.rf.3.jpg"}


def test_the_tightest_copy_of_each_photo_stays():
    scores = {"a.rf.1.jpg": 0.05, "a.rf.2.jpg": 0.45, "a.rf.3.jpg": 0.35,  # one tight copy: the loose two go
              "b.rf.1.jpg": 0.6, "b.rf.2.jpg": 0.5,  # all loose: the tightest stays
              "c.jpg": 0.9}  # a photo of its own
    assert loose_copies(scores, 0.3) == {"a.rf.2.jpg", "a.rf.3.jpg", "b.rf.1.jpg"}
    assert loose_copies(scores, 0.4) == {"a.rf.2.jpg", "b.rf.1.jpg"}
    assert source_of("a.rf.2.jpg") == source_of("a.rf.1.jpg") == "a"
    for bad in (0.0, 1.5, -0.2):
        with pytest.raises(ValueError, match=r"expected an IoU in \(0, 1\]"):
            loose_copies(scores, bad)


@pytest.fixture
def copies(tmp_path):
    """Two augmented copies of one photo, the second with its boxes three tiles wide; no errata of its own."""
    root = tmp_path / "copies"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for name, grow in (("p.rf.tight", 1.0), ("p.rf.loose", 3.0)):
        Image.new("RGB", (320, 160), (90, 120, 90)).save(root / "images" / f"{name}.jpg")
        (root / "labels" / f"{name}.txt").write_text(
            "".join(f"{c} {x} {y} {w * grow} {h}\n" for c, x, y, w, h in ROW))
    return root


def test_training_views_leave_loose_copies_out_only_when_asked(copies, tmp_path):
    from xingzi.models.pack_real import pack_split
    from xingzi.models.train import make_view

    scores = copy_looseness(copies)
    assert scores["p.rf.tight.jpg"] == 0.0 and scores["p.rf.loose.jpg"] > 0.3
    view = tmp_path / "view"
    assert make_view(copies, view) == 2
    assert make_view(copies, view, loose_over=0.3) == 1  # made again: the loose copy's link and labels go
    assert sorted(p.name for p in (view / "images").iterdir()) == ["p.rf.tight.jpg"]
    assert sorted(p.name for p in (view / "labels").iterdir()) == ["p.rf.tight.txt"]
    assert len(read_labels(view / "labels" / "p.rf.tight.txt")) == 6
    assert make_view(copies, view) == 2  # and back without the option
    pack = tmp_path / "pack"
    assert pack_split(copies, pack, quality=70) == 2
    assert pack_split(copies, pack, quality=70, loose_over=0.3) == 1
    assert sorted(p.name for p in (pack / "images").iterdir()) == ["p.rf.tight.webp"]
    assert sorted(p.name for p in (pack / "labels").iterdir()) == ["p.rf.tight.txt"]


def test_the_command_counts_loose_copies(copies, capsys):
    assert main([str(copies)]) == 0
    out = capsys.readouterr().out
    assert "2 photos of 1 sources" in out and "looser than 0.3: 1" in out
    assert "left out at --over 0.3 (the tightest copy of each source kept): 1" in out
    assert main([str(copies / "nowhere")]) == 2
    assert "no photos" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--leave-loose", "2"], "--leave-loose: expected an IoU in (0, 1], got 2.0", id="over-one"),
    pytest.param(["--leave-loose", "0.3", "--data", "mine.yaml"], "cannot change a --data of your own",
                 id="with-own-data"),
    pytest.param(["--extra-train", "more", "--data", "mine.yaml"], "--extra-train joins sets to the real photos' view",
                 id="extra-train-with-own-data"),
])
def test_train_refuses_a_bad_leave_loose_before_any_work(argv, message, capsys, tmp_path, monkeypatch):
    from xingzi.cli import main as cli

    monkeypatch.chdir(tmp_path)
    assert cli(["train", *argv]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_crops_for_the_classifier_leave_loose_copies_out_when_asked(copies, tmp_path):
    from xingzi.datasets.tile_crops import REAL_NAMES, CropConfig, build

    (copies / "classes.txt").write_text("\n".join(REAL_NAMES) + "\n")
    every = build(CropConfig(str(copies), None, str(tmp_path / "all"), real_copies=1, dev_share=0))
    tight = build(CropConfig(str(copies), None, str(tmp_path / "tight"), real_copies=1, dev_share=0, leave_loose=0.3))
    assert every["counts"]["train"]["crops"] == 12 and tight["counts"]["train"]["crops"] == 6
