"""Training the tile classifier: from another classifier's readings (knowledge distillation), with colours swapped."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch

from xingzi.models.tilecls import TileNet, TrainConfig, distill_loss, export, teach, train
from xingzi.models.tilecls import main as tilecls_main
from xingzi.vision.classifier import TileClassifier


def _crops(folder: Path, n: int = 24, seed: int = 0, size: int = 64) -> Path:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev"):
        np.save(folder / f"{split}_x.npy", rng.integers(0, 256, (n, size, size, 3), dtype=np.uint8))
        np.save(folder / f"{split}_y.npy", rng.integers(0, 32, n).astype(np.int64))
    return folder


@pytest.mark.parametrize("temperature", [pytest.param(1.0, id="T1"), pytest.param(2.0, id="T2"),
                                         pytest.param(4.0, id="T4")])
def test_distill_loss_is_zero_when_the_student_agrees_and_positive_otherwise(temperature):
    logits = torch.randn(5, 32, generator=torch.Generator().manual_seed(1))
    same = torch.softmax(logits, dim=1)
    assert distill_loss(logits, same, temperature).item() == pytest.approx(0.0, abs=1e-5)
    other = torch.softmax(torch.randn(5, 32, generator=torch.Generator().manual_seed(2)), dim=1)
    assert distill_loss(logits, other, temperature).item() > 0.01


def test_distill_loss_pulls_the_student_towards_the_teacher():
    logits = torch.zeros(3, 32, requires_grad=True)
    teacher = torch.full((3, 32), 0.01 / 31)
    teacher[:, 7] = 0.99
    before = distill_loss(logits, teacher, 2.0)
    before.backward()
    assert logits.grad is not None
    assert (logits.grad[:, 7] < 0).all()  # a step down the gradient raises class 7
    stepped = (logits - 1.0 * logits.grad).detach()
    assert distill_loss(stepped, teacher, 2.0).item() < before.item()


def test_teach_writes_the_classifiers_readings_of_every_train_crop(tmp_path):
    torch.manual_seed(0)
    torch.save({"model": TileNet(4).state_dict(), "config": asdict(TrainConfig(width=4))}, tmp_path / "t.pt")
    onnx = export(tmp_path / "t.pt", tmp_path / "teacher.onnx")
    crops = _crops(tmp_path / "crops", n=21)
    path = teach(crops, onnx, turns=2, batch=8)
    probs = np.load(path)
    assert probs.shape == (21, 32) and probs.dtype == np.float16
    want = TileClassifier(onnx, turns=2).probabilities(np.load(crops / "train_x.npy"))
    np.testing.assert_allclose(probs.astype(np.float32), want, atol=2e-3)
    meta = json.loads((crops / "teacher.json").read_text())
    assert meta["classifier"] == str(onnx) and meta["turns"] == 2


def test_a_student_that_only_follows_the_teacher_learns_what_it_says(tmp_path):
    crops = _crops(tmp_path / "crops")
    teacher = np.full((24, 32), 0.001 / 31, np.float16)
    teacher[:, 5] = 0.999  # the teacher calls every crop 5p... whatever the labels say
    np.save(tmp_path / "teacher.npy", teacher)
    cfg = TrainConfig(crops=str(crops), out=str(tmp_path / "run"), width=4, batch=8, steps=40, eval_every=40,
                      lr=0.01, weight_decay=0.0, teacher=str(tmp_path / "teacher.npy"), distill=1.0)
    train(cfg)
    model = TileNet(4)
    model.load_state_dict(torch.load(tmp_path / "run" / "last.pt", weights_only=False)["model"])
    model.eval()
    x = torch.from_numpy(np.load(crops / "train_x.npy")[..., ::-1].copy()).permute(0, 3, 1, 2).float() / 255
    with torch.inference_mode():
        assert (model(x).argmax(1) == 5).float().mean().item() > 0.9


def test_a_run_stopped_by_its_time_budget_resumes_to_the_weights_of_one_never_stopped(tmp_path, capsys):
    crops = _crops(tmp_path / "crops")
    settings = dict(crops=str(crops), width=4, batch=8, steps=4, eval_every=2, lr=0.01, squash=0.5, tilt=5.0)
    train(TrainConfig(out=str(tmp_path / "whole"), **settings))
    train(TrainConfig(out=str(tmp_path / "cut"), minutes=1e-9, **settings))  # out of time after its first step
    assert "time budget reached; resume with --resume" in capsys.readouterr().out
    train(TrainConfig(out=str(tmp_path / "cut"), **settings), resume=True)
    assert "resumed at step 1 " in capsys.readouterr().out
    steps = [line.split(",")[0] for line in (tmp_path / "cut" / "log.csv").read_text().splitlines()[1:]]
    assert steps == ["1", "2", "4"]
    whole, cut = (torch.load(tmp_path / run / "last.pt", weights_only=False) for run in ("whole", "cut"))
    assert whole["step"] == cut["step"] == 4
    for name, tensor in whole["model"].items():
        torch.testing.assert_close(cut["model"][name], tensor, rtol=1e-5, atol=1e-6)


def test_dev_accuracy_and_confusion_count_each_crop_by_its_label_and_reading():
    from xingzi.models.tilecls import evaluate

    class Always3(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.one_hot(torch.full((len(x),), 3), 32).float()

    x = np.zeros((3, 64, 64, 3), np.uint8)
    model = Always3().train()
    acc, cm = evaluate(model, x, np.array([3, 3, 5]))
    assert model.training  # back to training (dropout) after reading the dev crops
    assert acc == pytest.approx(2 / 3) and cm.shape == (32, 32)
    assert (cm[3, 3], cm[5, 3], cm.sum()) == (2, 1, 3)
    assert evaluate(Always3(), x[:0], np.zeros(0, np.int64))[0] == 0.0


def test_augment_reshapes_the_crops_when_asked():
    from xingzi.models.tilecls import augment

    x = torch.zeros(16, 3, 16, 16)
    x[:, :, 6:10, 2:14] = 1.0  # a bar across the middle
    out = augment(x, torch.Generator().manual_seed(0), colour=0.0, squash=1.0)
    turns = [torch.rot90(x[0], k, dims=(1, 2)) for k in range(4)]
    assert not any(torch.allclose(img, t) for img in out for t in turns)  # every crop squashed, not only turned


def test_train_rejects_a_teacher_file_of_another_crop_set(tmp_path):
    crops = _crops(tmp_path / "crops", n=10)
    np.save(tmp_path / "teacher.npy", np.full((9, 32), 1 / 32, np.float16))
    cfg = TrainConfig(crops=str(crops), out=str(tmp_path / "run"), width=4, batch=4, steps=1,
                      teacher=str(tmp_path / "teacher.npy"))
    with pytest.raises(ValueError, match=r"\(10,32\) probabilities, got \(9, 32\)"):
        train(cfg)


def test_recolour_swaps_colour_channels_of_the_share_asked_and_nothing_else():
    from xingzi.models.tilecls import augment

    x = torch.zeros(64, 3, 8, 8)
    x[:, 0] = 0.9  # red ink only
    plain = augment(x, torch.Generator().manual_seed(0), colour=0.0)
    assert torch.equal(plain, x)  # no jitter, turns of a uniform crop: unchanged
    swapped = augment(x, torch.Generator().manual_seed(0), colour=0.0, recolour=1.0)
    red_moved = (swapped[:, 0].mean(dim=(1, 2)) < 0.5).float().mean().item()
    assert 0.45 < red_moved < 0.9  # 4 of the 6 orders move red elsewhere
    assert torch.allclose(swapped.sum(dim=1), x.sum(dim=1))  # the same values, other channels
    half = augment(x, torch.Generator().manual_seed(1), colour=0.0, recolour=0.5)
    assert 0.15 < (half[:, 0].mean(dim=(1, 2)) < 0.5).float().mean().item() < 0.55


def test_negate_makes_the_share_asked_its_negative_and_leaves_the_rest():
    from xingzi.models.tilecls import augment

    x = torch.full((200, 3, 8, 8), 0.8)
    x[:, :, 2:6, 2:6] = 0.1  # dark ink on a light face
    out = augment(x, torch.Generator().manual_seed(0), colour=0.0, negate=0.3)
    dark_face = out[:, 0, 0, 0] < 0.5
    assert 0.2 < dark_face.float().mean().item() < 0.4
    assert torch.allclose(out[dark_face], 1.0 - x[dark_face])  # light ink on a dark face
    assert torch.allclose(out[~dark_face], x[~dark_face])
    assert torch.allclose(augment(x, torch.Generator().manual_seed(0), colour=0.0), x)  # off by default


@pytest.mark.parametrize("size", [pytest.param(96, id="96px"), pytest.param(128, id="128px")])
def test_a_network_trained_at_64_px_starts_one_at_a_larger_size(tmp_path, size):
    torch.manual_seed(0)
    small = TileNet(4)
    torch.save({"model": small.state_dict(), "config": asdict(TrainConfig(width=4))}, tmp_path / "small.pt")
    big = TileNet(4, size=size)
    big.load_state_dict(small.state_dict())  # every weight has the same shape at any size
    assert big(torch.rand(2, 3, size, size)).shape == (2, 32)
    crops = _crops(tmp_path / "crops", n=16, size=size)
    cfg = TrainConfig(crops=str(crops), out=str(tmp_path / "run"), width=4, batch=8, steps=2, eval_every=2,
                      init=str(tmp_path / "small.pt"))
    onnx = export(train(cfg), tmp_path / "models" / "big.onnx")  # its folder made
    assert json.loads(onnx.with_suffix(".json").read_text())["size"] == size
    probs = TileClassifier(onnx).probabilities(np.load(crops / "dev_x.npy"))
    assert probs.shape == (16, 32) and np.allclose(probs.sum(1), 1, atol=1e-5)


@pytest.mark.parametrize("size", [pytest.param(48, id="smaller"), pytest.param(72, id="not-16s")])
def test_tilenet_refuses_sizes_it_cannot_bring_to_its_head(size):
    with pytest.raises(ValueError, match=f"crop size must be a multiple of 16 and at least 64, got {size}"):
        TileNet(4, size=size)


def test_train_refuses_crops_that_are_not_square(tmp_path):
    crops = _crops(tmp_path / "crops", n=4)
    np.save(crops / "train_x.npy", np.zeros((4, 64, 80, 3), np.uint8))
    with pytest.raises(ValueError, match="crops must be square"):
        train(TrainConfig(crops=str(crops), out=str(tmp_path / "run"), width=4, batch=2, steps=1))


def _ramp(n: int = 8, size: int = 32) -> torch.Tensor:
    """Crops that brighten left to right and are dark at the top: a mirror or a turn would show."""
    xs = torch.linspace(0, 1, size)
    x = xs.view(1, 1, 1, size).expand(n, 3, size, size).clone()
    x[:, :, : size // 4] = 0.0
    return x


def test_reshape_with_nothing_asked_leaves_crops_as_they_are():
    from xingzi.models.tilecls import reshape

    x = _ramp()
    assert torch.allclose(reshape(x, torch.Generator().manual_seed(0), 0.0, 0.0), x, atol=1e-5)


def test_squash_shrinks_the_content_along_one_axis_and_never_mirrors_it():
    from xingzi.models.tilecls import SQUASH_RANGE, reshape

    size = 32
    x = torch.zeros(64, 1, size, size)
    x[:, :, 8:24, 8:24] = 1.0  # a 16-px square in the middle
    out = reshape(x, torch.Generator().manual_seed(3), 1.0, 0.0)
    lit = out[:, 0] > 0.5
    width, height = lit.any(dim=1).sum(dim=1).float(), lit.any(dim=2).sum(dim=1).float()
    lo, hi = SQUASH_RANGE
    shrunk_w, shrunk_h = width < 15, height < 15
    assert (shrunk_w ^ shrunk_h).all()  # exactly one axis each
    assert 0.3 < shrunk_w.float().mean().item() < 0.7  # either axis, about as often
    short = torch.minimum(width, height)
    assert (short >= 16 * lo - 2).all() and (short <= 16 * hi + 1).all()
    ramp = reshape(_ramp(64), torch.Generator().manual_seed(4), 1.0, 0.0)
    assert (ramp[:, 0, -1, -1] > ramp[:, 0, -1, 0]).all()  # still brighter on the right
    assert (ramp[:, 0, 0, :].mean(dim=1) < ramp[:, 0, -1, :].mean(dim=1)).all()  # and dark at the top


def test_squash_takes_the_share_of_crops_asked_and_tilt_turns_them_a_little():
    from xingzi.models.tilecls import reshape

    x = torch.zeros(400, 1, 32, 32)
    x[:, :, 8:24, 8:24] = 1.0
    out = reshape(x, torch.Generator().manual_seed(5), 0.3, 0.0)
    changed = (out - x).abs().amax(dim=(1, 2, 3)) > 0.1
    assert 0.22 < changed.float().mean().item() < 0.38
    turned = reshape(x, torch.Generator().manual_seed(6), 0.0, 10.0)
    area = (turned[:, 0] > 0.5).sum(dim=(1, 2)).float()
    assert ((area - 256).abs() < 40).all()  # turned, not shrunk
    assert ((turned - x).abs().amax(dim=(1, 2, 3)) > 0.1).float().mean().item() > 0.5
    assert not torch.allclose(turned, reshape(x, torch.Generator().manual_seed(7), 0.0, 10.0))


def test_tilecls_help_says_what_each_subcommand_does(capsys):
    with pytest.raises(SystemExit):
        tilecls_main(["--help"])
    out = capsys.readouterr().out
    listed = out.split("  {train,teach,import,export}\n", 1)[1].splitlines()  # each with help has a line of its own
    helped = [line.split()[0] for line in listed if line.startswith("    ") and not line.startswith("     ")]
    assert helped == ["train", "teach", "import", "export"], out
