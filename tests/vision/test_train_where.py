"""Where `xingzi train` reads and writes: ``--data`` a data.yaml or a folder holding one (as `xingzi eval` takes),
and its runs under ``runs/train`` of the current folder (as eval writes ``runs/eval``), not the package's."""

from __future__ import annotations

import pytest

from xingzi.cli import main
from xingzi.models import train as tr
from xingzi.models.ship import checkpoint_of
from xingzi.models.train import data_yaml


def _set(folder):
    """A data.yaml with our 31 classes and an (empty) image folder: all `--data` checks pass, no photo read."""
    (folder / "images").mkdir(parents=True)
    return data_yaml(folder / "data.yaml", [folder / "images"], [folder / "images"])


@pytest.mark.parametrize(("given", "message"), [
    pytest.param("set/data.yaml", None, id="the-data-yaml"),
    pytest.param("set", None, id="a-folder-holding-it"),
    pytest.param("set/images", "expected a data.yaml file or a folder holding one, got {dir}/set/images (a folder "
                 "without data.yaml)", id="a-folder-without-one"),
    pytest.param("gone", "expected a data.yaml file or a folder holding one, got {dir}/gone (not there)",
                 id="nothing-there"),
])
def test_data_is_a_data_yaml_or_the_folder_holding_it(tmp_path, monkeypatch, capsys, given, message):
    _set(tmp_path / "set")
    started = []
    monkeypatch.setattr(tr, "train", lambda cfg: started.append(cfg) or tmp_path / "run")
    rc = main(["train", "--data", str(tmp_path / given), "--epochs", "1"])
    if message is None:
        assert rc == 0 and [cfg.data for cfg in started] == [str(tmp_path / "set" / "data.yaml")]
    else:
        assert rc == 2 and not started
        assert f"--data: {message.format(dir=tmp_path)}" in capsys.readouterr().err


def _a_run(root, name):
    """A finished-looking run under ``root/runs/train``: a checkpoint and a val mAP."""
    run = root / "runs" / "train" / name
    (run / "weights").mkdir(parents=True)
    for pt in ("best.pt", "last.pt"):
        (run / "weights" / pt).write_bytes(b"pt")
    (run / "results.csv").write_text("epoch, metrics/mAP50-95(B)\n1, 0.5\n")
    return run


@pytest.mark.parametrize("where", [
    pytest.param(lambda: tr.TrainConfig(data="d.yaml", model="m.pt").project, id="a-new-run"),
    pytest.param(lambda: tr.latest_run().parent, id="resume-latest"),
    pytest.param(lambda: checkpoint_of("best").parents[2], id="ship-best"),
])
def test_runs_are_those_of_the_current_folder(tmp_path, monkeypatch, where):
    _a_run(tmp_path, "mine")
    monkeypatch.chdir(tmp_path)
    assert str(where()) == str(tmp_path / "runs" / "train")


def test_a_training_run_from_another_folder_writes_there(tmp_path, monkeypatch, capsys):
    data = _set(tmp_path / "set")
    monkeypatch.chdir(tmp_path)
    started = []
    monkeypatch.setattr(tr, "train", lambda cfg: started.append(cfg) or tmp_path / "run")
    assert main(["train", "--data", str(data), "--name", "qa_tiny"]) == 0
    assert [cfg.project for cfg in started] == [str(tmp_path / "runs" / "train")]
