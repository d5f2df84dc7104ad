"""`xingzi train --data` checks the data.yaml as Ultralytics will read it, before Ultralytics starts (no traceback,
no empty run folder): a YAML file naming tile classes, its image folders there."""

from __future__ import annotations

import pytest

from xingzi.cli import main
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.models import train as tr

OURS = "[" + ", ".join(CLASS_NAMES) + "]"
THEIRS = "[" + ", ".join([*CLASS_NAMES[:30], "other"]) + "]"  # real_cn's list: its class 30 is no back


@pytest.mark.parametrize(("name", "text", "message"), [
    pytest.param("afile.txt", "train: images\nval: images\nnames: [1m]\n",
                 "--data: expected a data.yaml (.yaml or .yml), got {dir}/afile.txt", id="not-yaml"),
    pytest.param("data.yaml", "names: [1m\n", "--data {dir}/data.yaml: not valid YAML", id="broken-yaml"),
    pytest.param("data.yaml", "train: images\nnames: [1m]\n",
                 "expected a data.yaml with 'train', 'val' and 'names', got ['names', 'train']", id="no-val"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: [foo, bar]\n",
                 "--data {dir}/data.yaml: class names 'foo', 'bar' are no tile names", id="names-not-tiles"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: {{0: 1m, 1: east, 2: foo}}\n",
                 "class names 'foo' are no tile names", id="one-name-not-a-tile"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: nope\nnames: {ours}\n",
                 "--data {dir}/data.yaml: its val images are not there: {dir}/nope", id="val-folder-missing"),
    pytest.param("data.yaml", "train: [images, gone]\nval: images\nnames: {ours}\n",
                 "its train images are not there: {dir}/gone", id="train-list-with-a-missing-folder"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: {theirs}\n",
                 "its class 30 is 'other' where ours is 'back'", id="another-sets-class-list"),  # taught winds as back
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: [2m, 1m]\n",
                 "its class 0 is '2m' where ours is '1m'", id="our-names-in-another-order"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: {ours}\n",
                 "none of its 1 train images has a label file (expected {dir}/labels/a.txt)", id="no-labels"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: {ours}\n",
                 "{dir}/labels/a.txt:2: class must be an integer 0..30, got 40", id="a-class-id-past-ours"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: {ours}\n",
                 "{dir}/labels/a.txt:2: box 1.5 0.5 0.1 0.1 is outside what Ultralytics trains on", id="centre-past-1"),
    pytest.param("data.yaml", "path: {dir}\ntrain: images\nval: images\nnames: {ours}\n",
                 "{dir}/labels/a.txt:2: box 0.5 0.5 -0.1 0.1 is outside", id="negative-width"),
])
def test_a_data_yaml_ultralytics_cannot_train_on_is_refused_before_it_starts(tmp_path, capsys, monkeypatch, name,
                                                                              text, message):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(b"")  # (only its name is read)
    rows = {"got 40": "40 0.5 0.5 0.1 0.1", "box 1.5": "3 1.5 0.5 0.1 0.1", "-0.1": "3 0.5 0.5 -0.1 0.1"}
    for key, row in rows.items():
        if key in message:
            (tmp_path / "labels").mkdir()
            (tmp_path / "labels" / "a.txt").write_text(f"0 0.5 0.5 0.1 0.1\n{row}\n")
    (tmp_path / name).write_text(text.format(dir=tmp_path, ours=OURS, theirs=THEIRS))
    monkeypatch.setattr(tr, "train", lambda cfg: pytest.fail("training started"))
    assert main(["train", "--data", str(tmp_path / name), "--epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert message.format(dir=tmp_path) in err and "Traceback" not in err


@pytest.mark.parametrize("rows", [
    pytest.param("".join(f"10 0.{i}5 0.5 0.05 0.1\n" for i in range(5)), id="fifth-copy"),
    pytest.param("3 0.5 0.5 0.1 0.1\n3 0.5 0.5 0.1 0.1\n", id="a-tile-boxed-twice"),
    pytest.param("3 0.98 0.5 0.1 0.1\n", id="a-box-past-the-edge"),
])
def test_label_doubts_that_dataset_check_lists_do_not_stop_training(tmp_path, monkeypatch, rows):
    """Real sets carry such rows (`real_cn_train`: eight photos with a fifth copy of a face); Ultralytics trains on
    them, so refusing the set stopped a lent GPU's whole call (session 70)."""
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.png").write_bytes(b"")
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "a.txt").write_text(rows)
    (tmp_path / "data.yaml").write_text(f"path: {tmp_path}\ntrain: images\nval: images\nnames: {OURS}\n")
    from xingzi.datasets.check import ERROR, check_label_text

    assert any(i.severity == ERROR for i in check_label_text(rows, "a.txt")[0])  # what dataset check says of it
    started = []
    monkeypatch.setattr(tr, "train", lambda cfg: started.append(cfg) or tmp_path)
    main(["train", "--data", str(tmp_path / "data.yaml"), "--epochs", "1"])
    assert len(started) == 1
