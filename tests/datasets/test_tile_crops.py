"""Crops for the tile classifier: box jitter, degradations, class mapping, the photo split, no flips."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from xingzi.datasets.tile_crops import (
    CropConfig,
    Jitter,
    build,
    class_table,
    crops_of,
    degrade,
    jitter_boxes,
    photo_group,
)
from xingzi.vision.classifier import CLS_NAMES, OTHER_CLASS, crop_tiles

BOXES = np.array([(10, 20, 40, 60), (100, 100, 160, 140)], np.float64)


@pytest.mark.parametrize(("jit", "centre_moves", "size_changes"), [
    pytest.param(Jitter(shift=0, scale=0), False, False, id="none"),
    pytest.param(Jitter(shift=0.1, scale=0), True, False, id="shift-only"),
    pytest.param(Jitter(shift=0, scale=0.1), False, True, id="scale-only"),
])
def test_jitter_boxes_moves_and_resizes_as_asked(jit, centre_moves, size_changes):
    out = jitter_boxes(BOXES, np.random.default_rng(0), jit)
    centre = lambda b: (b[:, :2] + b[:, 2:]) / 2  # noqa: E731
    size = lambda b: b[:, 2:] - b[:, :2]  # noqa: E731
    assert np.allclose(centre(out), centre(BOXES)) != centre_moves
    assert np.allclose(size(out), size(BOXES)) != size_changes


@pytest.mark.parametrize("jit", [
    pytest.param(Jitter(blur=1, jpeg=0, shrink=0), id="blur"),
    pytest.param(Jitter(blur=0, jpeg=1, shrink=0), id="jpeg"),
    pytest.param(Jitter(blur=0, jpeg=0, shrink=1), id="shrink"),
])
def test_degrade_keeps_shape_and_changes_pixels(jit):
    rng = np.random.default_rng(1)
    crop = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    out = degrade(crop, rng, jit)
    assert out.shape == crop.shape and out.dtype == np.uint8 and not np.array_equal(out, crop)


@pytest.mark.parametrize(("names", "want"), [
    pytest.param(["1m", "bai", "other"], [0, 29, OTHER_CLASS], id="real-set"),
    pytest.param(["5p", "back"], [13, 30], id="synthetic-set"),
    pytest.param(["east", "zhong"], [OTHER_CLASS, 27], id="wind"),
    pytest.param(["chun", "flower"], [27, OTHER_CLASS], id="riichi-alias-and-flower"),
])
def test_class_table_maps_names_to_classifier_ids(names, want):
    assert class_table(names).tolist() == want


def test_class_table_rejects_unknown_names():
    with pytest.raises(ValueError, match="'dragonfly' is not a tile name"):
        class_table(["1m", "dragonfly"])


@pytest.mark.parametrize(("name", "group"), [
    pytest.param("train__hand_001_jpg.rf.50c25d.jpg", "train__hand_001_jpg", id="roboflow"),
    pytest.param("synth_s1_000001.jpg", "synth_s1_000001.jpg", id="plain"),
])
def test_photo_group_joins_roboflow_variants(name, group):
    assert photo_group(Path(name)) == group


def _write_set(root: Path, photos: dict[str, list[tuple[int, float, float, float, float]]]) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join(CLS_NAMES[:30]) + "\nother\n")
    rng = np.random.default_rng(0)
    for stem, rows in photos.items():
        cv2.imwrite(str(root / "images" / f"{stem}.jpg"), rng.integers(0, 256, (120, 160, 3), dtype=np.uint8))
        (root / "labels" / f"{stem}.txt").write_text("".join(f"{c} {x} {y} {w} {h}\n" for c, x, y, w, h in rows))


def test_crops_of_cuts_every_box_copies_times_and_the_first_copy_exactly(tmp_path):
    _write_set(tmp_path, {"a": [(4, 0.25, 0.5, 0.1, 0.2), (30, 0.7, 0.5, 0.1, 0.2)]})
    image_path = tmp_path / "images" / "a.jpg"
    pairs = list(crops_of(image_path, class_table(CLS_NAMES[:30] + ("other",)), 3, np.random.default_rng(0),
                          Jitter()))
    assert [c for _, c in pairs] == [4, OTHER_CLASS] * 3
    image = cv2.imread(str(image_path))
    exact = crop_tiles(image, np.array([(32, 48, 48, 72), (104, 48, 120, 72)], np.float64))
    np.testing.assert_array_equal(pairs[0][0], exact[0])
    assert not np.array_equal(pairs[2][0], exact[0])  # later copies are jittered


def test_build_writes_arrays_and_keeps_a_photo_s_variants_on_one_side(tmp_path):
    rows = [(0, 0.5, 0.5, 0.1, 0.2)]
    photos = {f"p{i}_jpg.rf.{v}": rows for i in range(12) for v in "ab"}
    _write_set(tmp_path / "real", photos)
    info = build(CropConfig(str(tmp_path / "real"), None, str(tmp_path / "out"), real_copies=2, dev_share=0.5))
    x = np.load(tmp_path / "out" / "train_x.npy")
    y = np.load(tmp_path / "out" / "train_y.npy")
    dev = np.load(tmp_path / "out" / "dev_y.npy")
    assert x.shape == (len(y), 64, 64, 3) and x.dtype == np.uint8
    n_dev_photos = len(dev)  # one crop per dev photo (no copies)
    assert n_dev_photos % 2 == 0 and 0 < n_dev_photos < 24  # variants a and b fall together
    assert len(y) == 2 * (24 - n_dev_photos)
    saved = json.loads((tmp_path / "out" / "crops.json").read_text())
    assert saved["counts"] == info["counts"] and saved["config"]["real_copies"] == 2


def test_the_command_cuts_crops_of_the_size_asked_and_refuses_others(tmp_path, capsys):
    from xingzi.datasets.tile_crops import main

    _write_set(tmp_path / "real", {f"p{i}": [(0, 0.5, 0.5, 0.1, 0.2)] for i in range(4)})
    assert main(["--out", str(tmp_path / "out"), "--real", str(tmp_path / "real"), "--size", "96"]) == 0
    assert np.load(tmp_path / "out" / "train_x.npy").shape[1:] == (96, 96, 3)
    assert json.loads((tmp_path / "out" / "crops.json").read_text())["config"]["size"] == 96
    for bad in ("48", "100"):
        with pytest.raises(SystemExit, match="--size: crop size must be a multiple of 16 and at least 64"):
            main(["--out", str(tmp_path / "bad"), "--real", str(tmp_path / "real"), "--size", bad])
    assert not (tmp_path / "bad").exists()  # refused before anything is written


def test_training_augmentation_turns_but_never_mirrors():
    import torch

    from xingzi.models.tilecls import augment

    x = torch.zeros(64, 3, 8, 8)
    x[:, :, 0, :3] = 1.0  # an asymmetric mark: a bar at the top-left
    x[:, :, 1, 0] = 1.0
    out = augment(x, torch.Generator().manual_seed(0), colour=0.0)
    turns = [torch.rot90(x[0], k, dims=(1, 2)) for k in range(4)]
    mirrors = [torch.flip(t, dims=(2,)) for t in turns]
    seen = set()
    for img in out:
        k = [i for i, t in enumerate(turns) if torch.equal(img, t)]
        assert len(k) == 1 and not any(torch.equal(img, m) for m in mirrors)
        seen.add(k[0])
    assert seen == {0, 1, 2, 3}


def test_the_command_takes_the_shift_of_jittered_copies_and_refuses_a_bad_one(tmp_path):
    from xingzi.datasets.tile_crops import main

    _write_set(tmp_path / "real", {f"p{i}": [(0, 0.5, 0.5, 0.1, 0.2)] for i in range(4)})
    assert main(["--out", str(tmp_path / "out"), "--real", str(tmp_path / "real"), "--shift", "0.1"]) == 0
    assert json.loads((tmp_path / "out" / "crops.json").read_text())["jitter"]["shift"] == 0.1
    for bad in ("0.5", "-0.1"):
        with pytest.raises(SystemExit, match="--shift must be in"):
            main(["--out", str(tmp_path / "bad"), "--real", str(tmp_path / "real"), "--shift", bad])
    assert not (tmp_path / "bad").exists()


def test_an_empty_dev_split_is_saved_in_the_crops_shape_and_a_limit_of_one_is_taken(tmp_path):
    from xingzi.datasets.tile_crops import main

    _write_set(tmp_path / "real", {f"p{i}": [(0, 0.5, 0.5, 0.1, 0.2)] for i in range(3)})
    argv = ["--out", str(tmp_path / "out"), "--real", str(tmp_path / "real"), "--dev-share", "0", "--leave-loose", "1"]
    assert main(argv) == 0
    train, dev = (np.load(tmp_path / "out" / f"{split}_x.npy") for split in ("train", "dev"))
    assert train.shape == (9, 64, 64, 3) and dev.shape == (0, 64, 64, 3) and dev.dtype == np.uint8
    assert np.concatenate([train, dev]).shape == (9, 64, 64, 3)


def test_synthetic_photos_give_training_crops_of_a_sample_of_their_photos_and_none_for_dev(tmp_path):
    from xingzi.datasets.yolo import data_yaml_text
    from xingzi.engine.tiles import BACK_CLASS, Tile

    synth = tmp_path / "synth"
    _write_set(synth, {f"s{i}": [(Tile.ZHONG.index, 0.25, 0.5, 0.1, 0.2), (BACK_CLASS, 0.7, 0.5, 0.1, 0.2)]
                       for i in range(5)})
    (synth / "classes.txt").unlink()  # a `xingzi synth` folder names its classes in data.yaml: ours, `back` last
    (synth / "data.yaml").write_text(data_yaml_text(synth))
    info = build(CropConfig(None, str(synth), str(tmp_path / "out"), synth_copies=2, synth_images=3, dev_share=1.0))
    y = np.load(tmp_path / "out" / "train_y.npy")
    assert info["counts"]["train"]["crops"] == len(y) == 3 * 2 * 2  # 3 of the 5 photos, 2 boxes, 2 copies each
    assert sorted(set(y.tolist())) == [Tile.ZHONG.index, CLS_NAMES.index("back")]
    assert info["counts"]["dev"]["crops"] == 0  # dev is real photos only, whatever its share
