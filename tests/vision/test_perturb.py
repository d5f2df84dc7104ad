"""Photos changed another way: the true boxes move exactly as the photo does."""

from __future__ import annotations

import json

import numpy as np
import pytest
from demo_photo import demo_photo, write_demo_dataset

from xingzi.vision.perturb import PERTURBATIONS, get


def _bright_box(image: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(image.max(axis=2) > 128)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float64)


@pytest.mark.parametrize("name", list(PERTURBATIONS))
def test_true_boxes_follow_the_photo(name):
    p = get(name)
    w, h = 320, 200
    image = np.zeros((h, w, 3), np.uint8)
    box = np.array([[40.0, 30.0, 100.0, 110.0]])
    image[30:110, 40:100] = 255  # a white tile on a black table
    changed = p.image(image)
    moved = p.boxes(box, w, h)[0]
    seen = _bright_box(changed)
    assert np.abs(moved - seen).max() <= 3, (name, moved, seen)
    assert changed.dtype == np.uint8 and changed.ndim == 3


@pytest.mark.parametrize(("name", "warmer"), [("warm", True), ("cold", False)])
def test_a_coloured_light_tints_a_white_tile(name, warmer):
    white = np.full((4, 4, 3), 240, np.uint8)
    b, _, r = (int(v) for v in get(name).image(white)[0, 0])
    assert (r > b + 40) if warmer else (b > r + 40)


def test_an_unknown_perturbation_names_the_known_ones():
    with pytest.raises(ValueError, match="rot90"):
        get("mirror")  # a mirrored 萬 is not a tile: deliberately not offered


def test_eval_reads_the_turned_photo_against_turned_truth(tmp_path):
    from xingzi.cli import main

    image, _, _ = demo_photo()
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    out = tmp_path / "out"
    assert main(["eval", "--data", str(data), "--out", str(out), "--perturb", "rot180"]) == 0
    (row,) = out.glob("*~rot180*.json")
    assert json.loads(row.read_text())["summary"]["f1"] > 0.9


def test_perturbing_prediction_files_is_refused(tmp_path, capsys):
    from xingzi.cli import main

    image, _, _ = demo_photo()
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    (tmp_path / "preds").mkdir()
    assert main(["eval", "--data", str(data), "--preds", str(tmp_path / "preds"), "--perturb", "rot90"]) != 0
    assert "--perturb" in capsys.readouterr().err
