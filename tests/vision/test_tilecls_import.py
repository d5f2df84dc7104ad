"""A classifier rebuilt from its ONNX export: the same readings, batch norms set from crops, trainable again."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch

from xingzi.models.tilecls import CONTEXT, TileNet, TrainConfig, export, main, to_tensor, train
from xingzi.models.tilecls_import import check_against_onnx, import_checkpoint, model_from_onnx
from xingzi.vision.classifier import TileClassifier


def _trained_onnx(folder: Path, width: int = 4, size: int = 64) -> Path:
    """An export whose batch norms hold statistics far from 0/1, so folding them changes the weights."""
    torch.manual_seed(3)
    net = TileNet(width, size=size)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.2, 3.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    folder.mkdir(parents=True, exist_ok=True)
    torch.save({"model": net.state_dict(), "config": asdict(TrainConfig(width=width)), "size": size},
               folder / "net.pt")
    return export(folder / "net.pt", folder / "net.onnx")


def _crops(folder: Path, n: int = 48, size: int = 64) -> Path:
    rng = np.random.default_rng(5)
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev"):
        base = rng.integers(0, 200, (n, 1, 1, 3))
        np.save(folder / f"{split}_x.npy", (base + rng.integers(0, 56, (n, size, size, 3))).astype(np.uint8))
        np.save(folder / f"{split}_y.npy", rng.integers(0, 32, n).astype(np.int64))
    return folder


@pytest.mark.parametrize("width,size,calibrate", [
    pytest.param(4, 64, False, id="w4-identity-norms"),
    pytest.param(4, 64, True, id="w4-norms-from-crops"),
    pytest.param(8, 96, True, id="w8-96px"),
])
def test_the_rebuilt_network_reads_as_the_onnx_file(tmp_path, width, size, calibrate):
    onnx = _trained_onnx(tmp_path, width, size)
    crops = np.load(_crops(tmp_path / "crops", size=size) / "train_x.npy")
    model = model_from_onnx(onnx, crops if calibrate else None, width=width)
    assert check_against_onnx(model, onnx, crops) < 1e-3
    ours = torch.softmax(model(to_tensor(crops)), 1).detach().numpy()
    assert np.allclose(ours, TileClassifier(onnx).probabilities(crops), atol=1e-4)


def test_norms_from_crops_keep_a_training_batch_of_those_crops_reading_the_same(tmp_path):
    """In training mode a batch norm uses the batch's own statistics: set from the same crops, nothing moves."""
    onnx = _trained_onnx(tmp_path)
    crops = np.load(_crops(tmp_path / "crops") / "train_x.npy")
    model = model_from_onnx(onnx, crops)
    with torch.no_grad():
        before = model.features(to_tensor(crops))
        model.train()
        during = model.features(to_tensor(crops))
    assert torch.allclose(before, during, atol=1e-3)
    plain = model_from_onnx(onnx)  # without crops the norms are 0/1: a training batch reads differently
    with torch.no_grad():
        plain.train()
        assert not torch.allclose(before, plain.features(to_tensor(crops)), atol=1e-2)


def test_import_then_export_gives_the_same_readings_and_training_goes_on(tmp_path):
    onnx = _trained_onnx(tmp_path)
    crops_dir = _crops(tmp_path / "crops")
    ckpt = import_checkpoint(onnx, tmp_path / "imported.pt", crops_dir)
    again = export(ckpt, tmp_path / "again.onnx")
    x = np.load(crops_dir / "dev_x.npy")
    assert np.allclose(TileClassifier(again).probabilities(x), TileClassifier(onnx).probabilities(x), atol=1e-5)
    for init in (str(ckpt), str(onnx)):  # from the checkpoint, or straight from the .onnx
        cfg = TrainConfig(crops=str(crops_dir), out=str(tmp_path / f"run_{Path(init).suffix[1:]}"), width=4,
                          batch=8, steps=2, eval_every=2, init=init)
        assert train(cfg).is_file()


def test_the_command_line_writes_a_checkpoint(tmp_path, capsys):
    onnx = _trained_onnx(tmp_path)
    assert main(["import", str(onnx), str(tmp_path / "c.pt"), "--crops", str(_crops(tmp_path / "crops"))]) == 0
    assert "logits within" in capsys.readouterr().out
    assert torch.load(tmp_path / "c.pt", weights_only=False)["config"]["width"] == 4


def test_import_refuses_what_it_cannot_rebuild(tmp_path):
    onnx = _trained_onnx(tmp_path)
    crops_dir = _crops(tmp_path / "crops")
    with pytest.raises(ValueError, match="expected a network of width 16, got width 4"):
        train(TrainConfig(crops=str(crops_dir), out=str(tmp_path / "run"), width=16, batch=8, steps=1, init=str(onnx)))
    big = _crops(tmp_path / "crops96", size=96)
    with pytest.raises(ValueError, match="reads 64-px crops, got crops of shape"):
        train(TrainConfig(crops=str(big), out=str(tmp_path / "run96"), width=4, batch=8, steps=1, init=str(onnx)))
    not_ours = tmp_path / "not_ours.onnx"
    torch.onnx.export(torch.nn.Linear(3, 2), (torch.zeros(1, 3),), str(not_ours), dynamo=False)
    with pytest.raises(ValueError, match=r"expected an input of shape \(N,3,S,S\)"):
        model_from_onnx(not_ours)


def test_an_export_over_a_tuned_classifier_keeps_its_settings_unless_given(tmp_path, capsys):
    _trained_onnx(tmp_path)  # writes net.pt (and a first net.onnx)
    shipped = tmp_path / "shipped.onnx"
    tuned = {"size": 999, "context": 0.5, "weight": 0.8, "min_conf": 0.05, "turns": 1,
             "partners": ["net.onnx"], "partner_gate": 0.9, "recheck": 0.8, "shift": 0.06}
    shipped.with_suffix(".json").write_text(json.dumps(tuned))
    assert main(["export", str(tmp_path / "net.pt"), str(shipped), "--recheck", "0.7"]) == 0
    assert "kept from the settings written over: min_conf, partner_gate, partners, shift, turns, weight" in \
        capsys.readouterr().out
    written = json.loads(shipped.with_suffix(".json").read_text())
    assert written == {**tuned, "size": 64, "context": CONTEXT, "recheck": 0.7}  # size/context: the checkpoint's
    assert TileClassifier(shipped).info.partners == ("net.onnx",)  # and its partner is read
    fresh = export(tmp_path / "net.pt", tmp_path / "fresh.onnx")
    assert json.loads(fresh.with_suffix(".json").read_text()) == {
        "size": 64, "context": CONTEXT, "weight": 0.5, "min_conf": 0.05, "turns": 1, "recheck": 0.0}


@pytest.mark.parametrize("text", ["not json", "[1, 2]"])
def test_an_export_over_settings_that_are_not_ours_is_refused_first(tmp_path, text):
    _trained_onnx(tmp_path)
    target = tmp_path / "other.onnx"
    target.with_suffix(".json").write_text(text)
    with pytest.raises(ValueError, match="expected .*classifier"):
        export(tmp_path / "net.pt", target)
    assert target.with_suffix(".json").read_text() == text and not target.exists()
