"""The classifier's dev accuracy, tight copies apart from loose ones, on the split that tile_crops makes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from xingzi.datasets.tile_crops import CropConfig, build
from xingzi.models.tilecls_dev import dev_photos, main, tally
from xingzi.vision.classifier import CLS_NAMES

FACES = (2, 24, 4, 26, 6)  # 3m 7s 5m 9s 7m: a box over three tiles averages to no face of its own
W, H, TILE, STEP = 400, 100, 40, 60  # tiles 40 px wide, 20 px apart


def grey(c: int) -> int:
    return 20 + 7 * c


def _write_photo(root: Path, stem: str, box_width: float) -> None:
    """A row of five flat tiles, each grey by its face; labels ``box_width`` pixels wide round each."""
    image = np.zeros((H, W, 3), np.uint8)
    rows = []
    for k, c in enumerate(FACES):
        x0 = 20 + STEP * k
        image[30:70, x0:x0 + TILE] = grey(c)
        rows.append(f"{c} {(x0 + TILE / 2) / W} 0.5 {box_width / W} 0.4\n")
    cv2.imwrite(str(root / "images" / f"{stem}.png"), image)
    (root / "labels" / f"{stem}.txt").write_text("".join(rows))


@pytest.fixture
def real(tmp_path: Path) -> Path:
    root = tmp_path / "real"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join(CLS_NAMES[:30]) + "\nother\n")
    _write_photo(root, "row_jpg.rf.tight", TILE)
    _write_photo(root, "row_jpg.rf.loose", 150)  # a turned copy's box, grown over both neighbours
    return root


class GreyReader:
    """Reads a box as the face whose grey is nearest the mean of the box: a box over three tiles reads wrong."""

    def classify(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        probs = np.zeros((len(boxes), len(CLS_NAMES)))
        for i, (x0, y0, x1, y1) in enumerate(np.asarray(boxes).round().astype(int)):
            inside = image[max(y0, 0):y1, max(x0, 0):x1]
            tile = inside[inside.max(axis=2) > 0].mean() if (inside > 0).any() else 0.0
            probs[i, min(FACES, key=lambda c: abs(grey(c) - tile))] = 1.0
        return probs


def test_loose_copies_are_counted_apart_and_read_worse(real):
    groups = tally(real, GreyReader(), over=0.3, share=1.0)
    tight, loose = groups["tight"], groups["loose"]
    assert (tight.photos, tight.boxes, tight.right) == (1, 5, 5)
    assert (loose.photos, loose.boxes) == (1, 5)
    assert loose.right < 5 and sum(loose.misreads.values()) == 5 - loose.right
    assert all(a != b for a, b in loose.misreads)
    saved = loose.to_json()
    assert saved["accuracy"] == pytest.approx(loose.right / 5) and sum(saved["misreads"].values()) == 5 - loose.right
    # nothing counts as loose when the bar is above every copy's looseness
    assert tally(real, GreyReader(), over=1.0, share=1.0)["tight"].boxes == 10


def test_the_dev_photos_are_the_ones_tile_crops_keeps_out_of_training(tmp_path, real):
    for k in range(12):  # more source photos, so that a half share splits them
        _write_photo(real, f"p{k}_jpg.rf.a", TILE)
    build(CropConfig(str(real), None, str(tmp_path / "crops"), dev_share=0.5))
    picked = dev_photos(real, 0.5)
    assert 0 < len(picked) < 14
    assert len(np.load(tmp_path / "crops" / "dev_y.npy")) == 5 * len(picked)
    names = {p.name for p in picked}
    assert ("row_jpg.rf.tight.png" in names) == ("row_jpg.rf.loose.png" in names)  # a photo's copies fall together


@pytest.mark.parametrize("over, share, message", [
    pytest.param(0.0, 0.08, r"--over: expected an IoU in \(0, 1\], got 0.0", id="over-zero"),
    pytest.param(1.5, 0.08, r"--over: expected an IoU in \(0, 1\], got 1.5", id="over-above-one"),
    pytest.param(0.3, 0.0, r"dev share: expected a share in \(0, 1\], got 0.0", id="share-zero"),
])
def test_bad_settings_are_refused(real, over, share, message):
    with pytest.raises(ValueError, match=message):
        tally(real, GreyReader(), over=over, share=share)


def test_the_command_reads_with_the_shipped_classifier_and_writes_its_tallies(real, tmp_path, capsys):
    out = tmp_path / "dev.json"
    assert main(["--real", str(real), "--dev-share", "1", "--json", str(out)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [line[:5] for line in lines[:2]] == [["tight", "1", "photos", "5", "boxes"], ["loose", "1", "photos", "5", "boxes"]]
    assert lines[2][:3] == ["all", "10", "boxes"]
    saved = json.loads(out.read_text())
    assert [saved[k]["boxes"] for k in ("tight", "loose")] == [5, 5]


@pytest.mark.parametrize("args, message", [
    pytest.param(["--real", "{tmp}/nowhere"], "--real: expected a YOLO folder", id="no-folder"),
    pytest.param(["--real", "{real}", "--over", "2"], r"--over: expected an IoU", id="bad-over"),
    pytest.param(["--real", "{real}", "--classifier", "{tmp}/none.onnx"], "classifier not found", id="no-classifier"),
])
def test_the_command_refuses_bad_input_with_a_message(real, tmp_path, args, message):
    args = [a.format(tmp=tmp_path, real=real) for a in args]
    with pytest.raises(SystemExit, match=message):
        main(args)
