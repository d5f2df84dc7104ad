"""Training helpers that need no training: the real-photo data view, the class table of the
converter, and where shipping finds a checkpoint."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.tiles import CLASS_NAMES
from xingzi.models.convert_mahjong_detector import RIICHI_NAMES, class_row_map
from xingzi.models.ship import checkpoint_of
from xingzi.models.train import data_yaml, make_view, remap_real_labels


@pytest.mark.parametrize(
    ("rows", "kept_classes"),
    [pytest.param([[0, .5, .5, .1, .1], [29, .2, .2, .1, .1]], [0, 29], id="faces-kept"),
     pytest.param([[30, .5, .5, .1, .1], [13, .2, .2, .1, .1]], [13], id="other-dropped"),
     pytest.param(np.zeros((0, 5)), [], id="empty")],
)
def test_remap_real_labels(rows, kept_classes):
    out = remap_real_labels(np.array(rows, float).reshape(-1, 5))
    assert out[:, 0].astype(int).tolist() == kept_classes


def test_remap_rejects_ids_outside_the_real_label_set():
    with pytest.raises(ValueError, match="0..30"):
        remap_real_labels(np.array([[31, .5, .5, .1, .1]]))


def test_view_symlinks_images_and_writes_remapped_labels(tmp_path):
    src, dst = tmp_path / "real", tmp_path / "view"
    (src / "images").mkdir(parents=True)
    (src / "labels").mkdir()
    (src / "images" / "a.jpg").write_bytes(b"not really a jpeg")
    (src / "labels" / "a.txt").write_text("30 0.5 0.5 0.1 0.1\n4 0.2 0.2 0.1 0.1\n")
    assert make_view(src, dst) == 1
    assert (dst / "images" / "a.jpg").is_symlink()
    assert (dst / "labels" / "a.txt").read_text().split()[0] == "4"
    assert len((dst / "labels" / "a.txt").read_text().splitlines()) == 1
    assert make_view(src, dst) == 1  # idempotent


def test_view_of_an_empty_folder_is_a_clear_error(tmp_path):
    (tmp_path / "images").mkdir()
    with pytest.raises(FileNotFoundError, match="no images"):
        make_view(tmp_path, tmp_path / "view")


def test_data_yaml_lists_dirs_and_our_31_names(tmp_path):
    import yaml

    cfg = yaml.safe_load(data_yaml(tmp_path / "d.yaml", [tmp_path / "a", tmp_path / "b"], [tmp_path / "v"]).read_text())
    assert cfg["train"] == [str(tmp_path / "a"), str(tmp_path / "b")] and cfg["nc"] == 31
    assert [cfg["names"][i] for i in range(31)] == list(CLASS_NAMES)


def test_converter_copies_the_faces_both_sets_share():
    rows = class_row_map()
    assert len(rows) == 30  # all faces; `back` has no riichi counterpart
    assert RIICHI_NAMES[rows[CLASS_NAMES.index("zhong")]] == "chun"
    assert RIICHI_NAMES[rows[CLASS_NAMES.index("bai")]] == "haku"
    assert RIICHI_NAMES[rows[CLASS_NAMES.index("6p")]] == "6p"


def test_ship_finds_best_then_last_checkpoint(tmp_path):
    run = tmp_path / "run"
    (run / "weights").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="best.pt"):
        checkpoint_of(run)
    (run / "weights" / "last.pt").write_bytes(b"")
    assert checkpoint_of(run).name == "last.pt"
    (run / "weights" / "best.pt").write_bytes(b"")
    assert checkpoint_of(run).name == "best.pt"
    assert checkpoint_of(run / "weights" / "last.pt").name == "last.pt"


def test_resume_with_a_missing_dataset_says_which(tmp_path):
    import torch

    from xingzi.models.train import resume

    ckpt = tmp_path / "last.pt"
    torch.save({"train_args": {"data": str(tmp_path / "gone" / "data.yaml")}}, ckpt)
    with pytest.raises(FileNotFoundError, match="data.yaml is missing"):
        resume(ckpt)


def test_best_run_is_chosen_by_validation_map(tmp_path):
    from xingzi.models.ship import best_run

    for name, maps in (("a", [0.2, 0.35, 0.3]), ("b", [0.1, 0.33]), ("c", [0.9])):
        run = tmp_path / name
        (run / "weights").mkdir(parents=True)
        rows = "".join(f"{i + 1}, 0.5, {m}\n" for i, m in enumerate(maps))
        (run / "results.csv").write_text("epoch, metrics/mAP50(B), metrics/mAP50-95(B)\n" + rows)
        if name != "c":  # c has no best.pt: not a candidate
            (run / "weights" / "best.pt").write_bytes(b"")
    assert best_run(tmp_path) == (tmp_path / "a", 0.35)
