"""Photos changed another way: the true boxes move exactly as the photo does."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from demo_photo import demo_photo, write_demo_dataset

from xingzi.vision.perturb import PERTURBATIONS, get


def _bright_box(image: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(image.max(axis=2) > 128)
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float64)


def _photo_and_box() -> tuple[np.ndarray, np.ndarray]:
    image = np.zeros((200, 320, 3), np.uint8)
    image[30:110, 40:100] = 255  # a white tile on a black table
    return image, np.array([[40.0, 30.0, 100.0, 110.0]])


LIGHT_ONLY = {"blur", "jpeg30", "dim", "warm", "cold", "noise", "shot", "motion", "shake", "defocus", "shadow", "glare",
              "negate"}


@pytest.mark.parametrize("name", sorted(set(PERTURBATIONS) - LIGHT_ONLY))
def test_true_boxes_follow_the_photo(name):
    p = get(name)
    image, box = _photo_and_box()
    changed = p.image(image)
    moved = p.boxes(box, 320, 200)[0]
    seen = _bright_box(changed)
    assert np.abs(moved - seen).max() <= 3, (name, moved, seen)
    assert changed.dtype == np.uint8 and changed.ndim == 3


@pytest.mark.parametrize("name", sorted(LIGHT_ONLY))
def test_a_change_of_light_keeps_the_boxes_and_changes_the_photo(name):
    p = get(name)
    image, box = _photo_and_box()
    image[150:190, 200:300] = 120  # a grey patch, so a change of colour or light shows too
    changed = p.image(image)
    assert changed.shape == image.shape and changed.dtype == np.uint8
    assert np.array_equal(p.boxes(box, 320, 200), box)
    assert not np.array_equal(changed, image), name


def test_tilt_narrows_the_far_side_and_keeps_the_near_one():
    w, h = 320, 200
    top, bottom = np.array([[0.0, 0.0, 320.0, 10.0]]), np.array([[0.0, 190.0, 320.0, 200.0]])
    far, near = get("tilt").boxes(top, w, h)[0], get("tilt").boxes(bottom, w, h)[0]
    assert far[2] - far[0] < 0.75 * w
    assert near[2] - near[0] > 0.99 * w and near[3] == pytest.approx(h, abs=1)


@pytest.mark.parametrize("name, bgr_in, bgr_out", [
    pytest.param("dim", (255, 128, 0), (200, 57, 0), id="dim-gamma-1.8-at-most-200"),
    pytest.param("warm", (200, 200, 200), (110, 160, 200), id="warm-blue-0.55-green-0.8"),
    pytest.param("cold", (200, 200, 200), (200, 184, 150), id="cold-red-0.75-green-0.92"),
])
def test_a_light_change_is_the_one_its_row_name_says(name, bgr_in, bgr_out):
    # the README's figures are read under these lights: `--perturb NAME` says them in its help and row
    pixel = np.array([[bgr_in]], np.uint8)
    np.testing.assert_array_equal(get(name).image(pixel)[0, 0], bgr_out)


def test_noise_is_the_same_on_every_run():
    image, _ = _photo_and_box()
    assert np.array_equal(get("noise").image(image), get("noise").image(image))


def test_motion_streaks_one_way():
    image = np.zeros((200, 320, 3), np.uint8)
    image[100, 160] = 255  # one bright point spreads along the streak only
    lit = np.argwhere(get("motion").image(image)[..., 0] > 0)
    spread_y, spread_x = lit.max(0) - lit.min(0)
    assert spread_x > spread_y >= 1


def test_shake_bends_a_point_into_an_arc():
    image = np.zeros((200, 320, 3), np.uint8)
    image[100, 160] = 255
    lit = np.argwhere(get("shake").image(image)[..., 0] > 0)
    spread_y, spread_x = lit.max(0) - lit.min(0)
    assert spread_x >= 2 and spread_y >= 2  # both ways, unlike a straight streak along one
    # an arc, not a line: the points lie off the chord between its two ends
    ends = lit[np.argsort(lit[:, 0] + lit[:, 1])[[0, -1]]].astype(float)
    chord = ends[1] - ends[0]
    off = np.abs(np.cross(chord, lit - ends[0])) / np.linalg.norm(chord)
    assert off.max() >= 1.0


def test_defocus_spreads_a_point_into_a_round_disk():
    image = np.zeros((200, 320, 3), np.uint8)
    image[100, 160] = 255
    lit = np.argwhere(get("defocus").image(image)[..., 0] > 0)  # radius 320 / 200 = 1.6 px
    spread_y, spread_x = lit.max(0) - lit.min(0)
    assert spread_x == spread_y >= 2  # as wide as tall: no way along it
    assert np.abs(lit - (100, 160)).max() <= 2  # and no further than its radius (rounded up)


def test_shadow_darkens_lower_left_and_leaves_upper_right():
    image = np.full((200, 320, 3), 200, np.uint8)
    shaded = get("shadow").image(image)
    assert shaded[190, 10, 0] < 100 and shaded[10, 310, 0] > 190


def test_glare_washes_out_the_middle_only():
    image = np.full((200, 320, 3), 100, np.uint8)
    lit = get("glare").image(image)
    assert lit[100, 134, 0] > 200 and lit[5, 5, 0] == 100


@pytest.mark.parametrize(("name", "warmer"), [("warm", True), ("cold", False)])
def test_a_coloured_light_tints_a_white_tile(name, warmer):
    white = np.full((4, 4, 3), 240, np.uint8)
    b, _, r = (int(v) for v in get(name).image(white)[0, 0])
    assert (r > b + 40) if warmer else (b > r + 40)


def test_an_unknown_perturbation_names_the_known_ones():
    with pytest.raises(ValueError, match="rot90"):
        get("mirror")  # a mirrored 萬 is not a tile: deliberately not offered


def test_eval_reads_the_turned_photo_against_turned_truth(tmp_path, capsys, eval_scores_only):
    from xingzi.cli import main

    image, _, _ = demo_photo()
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    out = tmp_path / "out"
    assert main(["eval", "--data", str(data), "--out", str(out), "--perturb", "rot180"]) == 0
    (row,) = out.glob("*~rot180*.json")
    assert json.loads(row.read_text())["summary"]["f1"] > 0.9
    assert f"every photo {get('rot180').what}" in capsys.readouterr().out  # the figures say what they are of


def test_perturbing_prediction_files_is_refused(tmp_path, capsys):
    from xingzi.cli import main

    image, _, _ = demo_photo()
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    (tmp_path / "preds").mkdir()
    assert main(["eval", "--data", str(data), "--preds", str(tmp_path / "preds"), "--perturb", "rot90"]) != 0
    assert "--perturb" in capsys.readouterr().err


def test_the_eval_help_names_every_perturbation(capsys):
    from xingzi.cli import main

    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    listed = re.split(r", | or ", text.split("--perturb NAME")[-1].split(":", 1)[1].split(";")[0].strip())
    assert listed == list(PERTURBATIONS)
