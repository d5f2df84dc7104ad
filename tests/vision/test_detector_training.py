"""Training helpers that need no training: the real-photo data view, the class table of the
converter, and where shipping finds a checkpoint."""

from __future__ import annotations

import sys
from pathlib import Path

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


@pytest.mark.parametrize("cls", [pytest.param(31, id="past-other"), pytest.param(-1, id="negative")])
def test_remap_rejects_ids_outside_the_real_label_set(cls):
    with pytest.raises(ValueError, match="0..30"):
        remap_real_labels(np.array([[cls, .5, .5, .1, .1]]))


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


def test_the_converter_reads_the_model_s_weights_and_nothing_else(tmp_path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from xingzi.models.convert_mahjong_detector import onnx_weights

    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              [numpy_helper.from_array(weight, "model.0.conv.weight"),
                               numpy_helper.from_array(np.ones(3, np.float32), "onnx::Mul_7")])
    onnx.save(helper.make_model(graph), str(tmp_path / "model.onnx"))
    got = onnx_weights(tmp_path / "model.onnx")
    assert list(got) == ["model.0.conv.weight"]  # constants the exporter added are no weights of the network
    np.testing.assert_array_equal(got["model.0.conv.weight"], weight)


def test_the_converter_says_in_a_line_when_its_network_is_not_installed(monkeypatch, tmp_path, capsys):
    from xingzi.models import convert_mahjong_detector as conv

    def missing():
        raise ValueError("the mahjong-detector network comes in its package")

    monkeypatch.setattr(conv, "onnx_model_path", missing)
    with pytest.raises(SystemExit) as stop:
        conv.main(["--out", str(tmp_path / "start.pt")])
    assert stop.value.code == 2 and "error: the mahjong-detector network comes in its package" in capsys.readouterr().err
    assert not (tmp_path / "start.pt").exists()


@pytest.mark.parametrize(("skipped", "said"), [
    pytest.param([], "; every tensor transferred", id="none-left"),
    pytest.param(["model.24.a", "model.24.b"], "; 2 tensors left at init: model.24.a, model.24.b", id="two-left"),
])
def test_the_converter_names_the_tensors_left_at_init_only_when_some_are(tmp_path, capsys, monkeypatch, skipped, said):
    """It printed "0 tensors left at init: " with nothing after the colon."""
    from xingzi.models import convert_mahjong_detector as conv

    monkeypatch.setattr(conv, "convert", lambda out, onnx: skipped)
    assert conv.main(["--out", str(tmp_path / "start.pt")]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'start.pt'}{said}\n"


def test_the_converter_maps_fused_weights_head_rows_and_the_grey_first_layer():
    import torch

    from xingzi.models.convert_mahjong_detector import LUMA_RGB, build_state_dict

    rng = np.random.default_rng(0)
    conv0, bias0 = rng.normal(size=(2, 3, 3, 3)).astype(np.float32), rng.normal(size=2).astype(np.float32)
    head_w, head_b = rng.normal(size=(34, 4, 1, 1)).astype(np.float32), rng.normal(size=34).astype(np.float32)
    onnx_w = {"model.0.conv.weight": conv0, "model.0.conv.bias": bias0,
              "model.23.cv3.2.weight": head_w, "model.23.cv3.2.bias": head_b}
    target = {"model.0.conv.weight": torch.zeros(2, 3, 3, 3), "model.0.bn.num_batches_tracked": torch.tensor(0),
              **{f"model.0.bn.{k}": torch.full((2,), 7.0) for k in ("weight", "bias", "running_mean", "running_var")},
              "model.23.cv3.2.weight": torch.full((31, 4, 1, 1), 5.0), "model.23.cv3.2.bias": torch.full((31,), 5.0),
              "model.24.fresh": torch.zeros(3)}
    state, skipped = build_state_dict(onnx_w, target, 31)
    assert skipped == ["model.24.fresh"]
    # the first layer, trained on a grey image in all three channels, gives an RGB photo its grey's activation
    photo = torch.from_numpy(rng.uniform(0, 1, (1, 3, 8, 8)).astype(np.float32))
    grey = (photo * torch.from_numpy(LUMA_RGB).reshape(1, 3, 1, 1)).sum(1, keepdim=True).expand(1, 3, 8, 8)
    torch.testing.assert_close(torch.nn.functional.conv2d(photo, state["model.0.conv.weight"]),
                               torch.nn.functional.conv2d(grey, torch.from_numpy(conv0)), atol=1e-5, rtol=1e-5)
    # the BatchNorm after it is an identity carrying the fused bias (eps 1e-3)
    bn = torch.nn.BatchNorm2d(2, eps=1e-3).eval()
    bn.load_state_dict({k[len("model.0.bn."):]: v for k, v in state.items() if k.startswith("model.0.bn.")})
    x = torch.randn(1, 2, 4, 4)
    torch.testing.assert_close(bn(x), x + torch.from_numpy(bias0).reshape(1, 2, 1, 1), atol=1e-5, rtol=1e-5)
    # each face's head row is its riichi namesake's; `back` keeps its fresh initialisation
    for ours, riichi in class_row_map().items():
        assert torch.equal(state["model.23.cv3.2.weight"][ours], torch.from_numpy(head_w[riichi]))
        assert float(state["model.23.cv3.2.bias"][ours]) == float(head_b[riichi])
    back = CLASS_NAMES.index("back")
    assert torch.all(state["model.23.cv3.2.weight"][back] == 5.0) and float(state["model.23.cv3.2.bias"][back]) == 5.0


def test_shipping_the_shipped_checkpoint_makes_the_shipped_onnx_again(tmp_path, no_network):
    # the step a new detector goes through: stripped .pt, ONNX at the training size, cut before its box
    # decoding and open to any input size; the committed files must be what it makes, offline
    import onnxruntime as ort

    from xingzi.models.ship import SHIPPED_ONNX, SHIPPED_PT, ship

    lines = ship(SHIPPED_PT, out_pt=tmp_path / "w.pt", out_onnx=tmp_path / "w.onnx")
    assert lines[0].startswith(f"{SHIPPED_PT} (final weights) -> ") and f"-> {tmp_path / 'w.pt'}" in lines[0]
    assert "made at 800x800, takes any size" in lines[1]
    made, shipped = (ort.InferenceSession(str(p), providers=["CPUExecutionProvider"])
                     for p in (tmp_path / "w.onnx", SHIPPED_ONNX))
    blob = np.random.default_rng(0).uniform(0, 1, (1, 3, 608, 800)).astype(np.float32)  # not the size it was made at
    ours, theirs = (s.run(None, {s.get_inputs()[0].name: blob}) for s in (made, shipped))
    cells = 76 * 100 + 38 * 50 + 19 * 25  # at strides 8, 16 and 32
    assert [o.shape for o in ours] == [(1, 64, cells), (1, 31, cells)]  # box distributions, class scores
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-4)


def test_shipping_refuses_what_is_no_31_class_ultralytics_checkpoint(tmp_path):
    import torch

    from xingzi.models.ship import SHIPPED_PT, ship

    torch.save({"weights": torch.zeros(3)}, tmp_path / "plain.pt")
    with pytest.raises(ValueError, match="plain.pt is not an Ultralytics checkpoint"):
        ship(tmp_path / "plain.pt", out_pt=tmp_path / "out.pt", out_onnx=None)
    riichi = torch.load(SHIPPED_PT, map_location="cpu", weights_only=False)
    riichi["model"].names = dict(enumerate(RIICHI_NAMES))
    torch.save(riichi, tmp_path / "riichi.pt")
    with pytest.raises(ValueError, match="riichi.pt has 34 classes, expected 31"):
        ship(tmp_path / "riichi.pt", out_pt=tmp_path / "out.pt", out_onnx=None)
    winds = torch.load(SHIPPED_PT, map_location="cpu", weights_only=False)  # real_cn's list: 30 is `other`
    winds["model"].names = {**winds["model"].names, 30: "other"}
    torch.save(winds, tmp_path / "winds.pt")
    with pytest.raises(ValueError, match="winds.pt: class 30 is 'other' where ours is 'back'"):
        ship(tmp_path / "winds.pt", out_pt=tmp_path / "out.pt", out_onnx=None)
    (tmp_path / "junk.pt").write_text("junk")
    with pytest.raises(ValueError, match=r"junk.pt: not an Ultralytics checkpoint \(UnpicklingError\)"):
        ship(tmp_path / "junk.pt", out_pt=tmp_path / "out.pt", out_onnx=None)
    assert not (tmp_path / "out.pt").exists()


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
    torch.save({"train_args": {"data": str(tmp_path / "gone" / "data.yaml")}, "optimizer": {}, "epoch": 2}, ckpt)
    with pytest.raises(FileNotFoundError, match="data.yaml is missing"):
        resume(ckpt)


def test_resuming_a_finished_run_or_no_checkpoint_is_said_in_a_line(tmp_path):
    """A finished run's last.pt keeps no optimizer: Ultralytics started a new training of its default data instead
    (coco8, a download, and a run folder in the repo)."""
    import torch

    from xingzi.models.train import resume

    finished = tmp_path / "run" / "weights" / "last.pt"
    finished.parent.mkdir(parents=True)
    torch.save({"train_args": {"data": "d.yaml"}, "optimizer": None, "epoch": -1}, finished)
    with pytest.raises(ValueError, match=r"that run has finished; nothing to resume \(start another from it with "
                                         r"--model .*run/weights/best.pt\)"):
        resume(tmp_path / "run")
    (tmp_path / "junk.pt").write_text("junk")
    with pytest.raises(ValueError, match=r"junk.pt: not a training checkpoint \(UnpicklingError\)"):
        resume(tmp_path / "junk.pt")


@pytest.mark.parametrize("given,passed", [("latest", None), ("runs/train/x/weights/last.pt", "runs/train/x/weights/last.pt")])
def test_the_train_command_resumes_the_run_named_and_says_where_it_ended(given, passed, monkeypatch, capsys):
    from xingzi.cli import main
    from xingzi.models import train as tr

    asked = []
    monkeypatch.setattr(tr, "resume", lambda ckpt, extra: asked.append((ckpt, extra)) or Path("runs/train/x"))
    assert main(["train", "--resume", given]) == 0
    assert asked == [(None if passed is None else Path(passed), [])]
    assert "resumed run finished: runs/train/x" in capsys.readouterr().out


@pytest.mark.parametrize("gpu,batch,workers,flags,imgsz,freeze", [
    (False, 16, 2, ["--imgsz", "32", "--freeze", "0", "--time", "0.5"], 32, None),  # smallest input, none frozen
    (True, 64, 8, [], 416, 10),
], ids=["cpu", "gpu"])
def test_the_train_command_builds_its_run_from_the_options(gpu, batch, workers, flags, imgsz, freeze, monkeypatch,
                                                           tmp_path, capsys):
    # No training: the run's config as the command builds it. --leave-loose 1 is the loosest IoU allowed.
    from xingzi.cli import main
    from xingzi.models import train as tr

    start, view = tmp_path / "start.pt", tmp_path / "view" / "data.yaml"
    start.write_bytes(b"")
    views, configs = [], []
    monkeypatch.setattr(tr, "START_WEIGHTS", start)
    monkeypatch.setattr(tr, "prepare_real_view", lambda extra_train, loose_over: views.append(
        (extra_train, loose_over)) or view)
    monkeypatch.setattr(tr, "gpu_available", lambda device: gpu)
    monkeypatch.setattr(tr, "train", lambda cfg: configs.append(cfg) or tmp_path / "run")
    argv = ["train", "--leave-loose", "1", "--epochs", "3", "--extra-train", str(tmp_path / "synth"), *flags]
    assert main(argv) == 0
    assert views == [([tmp_path / "synth"], 1.0)]
    cfg = configs[0]
    assert (cfg.data, cfg.model, cfg.epochs, cfg.batch, cfg.workers) == (str(view), str(start), 3, batch, workers)
    assert (cfg.imgsz, cfg.freeze, cfg.time) == (imgsz, freeze, 0.5 if "--time" in flags else None)
    assert f"training finished: {tmp_path / 'run'}" in capsys.readouterr().out


@pytest.mark.parametrize("flags,start", [pytest.param([], "shipped", id="the-shipped-detector"),
                                         pytest.param(["--model", "mahjong-detector"], "converted", id="converted")])
def test_training_starts_from_the_shipped_detector_unless_told(flags, start, monkeypatch, tmp_path):
    from xingzi.cli import main
    from xingzi.models import train as tr

    converted = tmp_path / "mahjong_detector_31.pt"
    converted.write_bytes(b"")  # made already: no package needed
    monkeypatch.setattr(tr, "CONVERTED_START", converted)
    monkeypatch.setattr(tr, "train", lambda cfg: configs.append(cfg) or tmp_path / "run")
    configs: list = []
    yaml_path = data_yaml(tmp_path / "d.yaml", [tmp_path / "a"], [tmp_path / "v"])
    for folder in ("a", "v"):  # a --data whose image folders are not there is refused
        (tmp_path / folder).mkdir()
    assert main(["train", "--data", str(yaml_path), *flags]) == 0
    assert configs[0].model == str(converted if start == "converted" else tr.REPO / "models" / "xingzi_yolo11n.pt")
    assert tr.START_WEIGHTS.is_file()  # shipped with the repository


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


def _tiny_real_split(root, n):
    from PIL import Image

    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for i in range(n):
        Image.new("RGB", (64, 64), (40 * i % 255, 90, 160)).save(root / "images" / f"p{i}.jpg")
        (root / "labels" / f"p{i}.txt").write_text("30 0.5 0.5 0.2 0.2\n7 0.3 0.3 0.1 0.1\n")


@pytest.mark.parametrize(("every", "kept"), [pytest.param(1, 5, id="all"), pytest.param(3, 2, id="every-third")])
def test_pack_real_writes_webp_with_remapped_labels(tmp_path, every, kept):
    from PIL import Image

    from xingzi.models.pack_real import pack_split

    _tiny_real_split(tmp_path / "src", 5)
    assert pack_split(tmp_path / "src", tmp_path / "out", quality=70, every=every) == kept
    images = sorted((tmp_path / "out" / "images").iterdir())
    assert [p.suffix for p in images] == [".webp"] * kept
    with Image.open(images[0]) as im:
        assert im.size == (64, 64)
    labels = (tmp_path / "out" / "labels" / f"{images[0].stem}.txt").read_text().splitlines()
    assert [line.split()[0] for line in labels] == ["7"]  # `other` dropped


def test_packing_again_with_fewer_photos_leaves_none_of_the_others_behind(tmp_path):
    from xingzi.models.pack_real import pack_split

    _tiny_real_split(tmp_path / "src", 6)
    assert pack_split(tmp_path / "src", tmp_path / "out", quality=70) == 6
    assert pack_split(tmp_path / "src", tmp_path / "out", quality=70, every=2) == 3  # another choice of photos
    for sub, suffix in (("images", ".webp"), ("labels", ".txt")):
        assert sorted(p.name for p in (tmp_path / "out" / sub).iterdir()) == [f"p{i}{suffix}" for i in (0, 2, 4)]


def test_pack_real_refuses_a_loose_threshold_outside_an_iou(tmp_path, capsys):
    from xingzi.models.pack_real import main

    with pytest.raises(SystemExit) as stop:
        main(["--shared", str(tmp_path), "--out", str(tmp_path / "o"), "--leave-loose", "0"])
    assert stop.value.code == 2 and "--leave-loose: expected an IoU in (0, 1], got 0.0" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_pack_real_main_writes_one_tarball_of_both_splits(tmp_path):
    import tarfile

    from xingzi.models.pack_real import main

    for split in ("train", "val"):
        _tiny_real_split(tmp_path / "shared" / f"real_cn_{split}", 3)
    assert main(["--shared", str(tmp_path / "shared"), "--out", str(tmp_path / "pack"), "--tar", "--val-every", "2"]) == 0
    with tarfile.open(tmp_path / "pack" / "real.tar.gz") as tar:
        names = tar.getnames()
    assert sum(n.startswith("train/images/") for n in names) == 3
    assert sum(n.startswith("val/images/") for n in names) == 2


def test_pack_real_of_a_missing_split_is_a_clear_error(tmp_path):
    from xingzi.models.pack_real import pack_split

    with pytest.raises(FileNotFoundError, match="no images"):
        pack_split(tmp_path / "nowhere", tmp_path / "out", quality=70)


def test_results_csv_reader_keeps_numbers_and_tolerates_a_missing_file(tmp_path):
    from xingzi.models.train import read_results_csv

    csv = tmp_path / "results.csv"
    csv.write_text("epoch, metrics/mAP50(B),note\n1,0.5,a\n2,0.75,b\n")
    assert read_results_csv(csv) == {"epoch": [1.0, 2.0], "metrics/mAP50(B)": [0.5, 0.75], "note": ["a", "b"]}
    assert read_results_csv(tmp_path / "missing.csv") == {}


@pytest.mark.parametrize(("time", "has_time"), [pytest.param(None, False, id="epochs"), pytest.param(0.1, True, id="budget")])
def test_time_budget_reaches_ultralytics_only_when_set(time, has_time):
    from xingzi.models.train import TrainConfig

    kw = TrainConfig(data="d.yaml", model="m.pt", time=time).ultralytics_kwargs()
    assert ("time" in kw) == has_time and kw["fliplr"] == 0.0


def test_every_run_is_a_new_folder_validated_each_epoch_without_plots_whatever_extra_says():
    from xingzi.models.train import TrainConfig

    extra = {"exist_ok": True, "plots": True, "val": False, "mosaic": 0.5}
    kw = TrainConfig(data="d.yaml", model="m.pt", extra=extra).ultralytics_kwargs()
    # a second run of one name never writes over the first; plots need fonts fetched from the net
    assert (kw["exist_ok"], kw["plots"], kw["val"], kw["mosaic"]) == (False, False, True, 0.5)
    assert "model" not in kw and "extra" not in kw and "device" not in kw


@pytest.mark.parametrize("extra, name", [pytest.param([], "data.yaml", id="real-only"),
                                         pytest.param(["synth/images"], "data_plus.yaml", id="with-synthetic")])
def test_the_real_view_trains_on_real_cn_train_and_validates_on_real_cn_val(tmp_path, extra, name):
    import yaml

    from xingzi.models.train import prepare_real_view

    shared, out = tmp_path / "shared", tmp_path / "view"
    for split, n in (("train", 3), ("val", 2)):
        _tiny_real_split(shared / f"real_cn_{split}", n)
    extra_dirs = [tmp_path / e for e in extra]
    cfg = yaml.safe_load(prepare_real_view(shared, out, extra_dirs).read_text())
    assert (out / name).is_file()
    assert cfg["train"] == [str((out / "train" / "images").resolve()), *map(str, extra_dirs)]
    assert cfg["val"] == [str((out / "val" / "images").resolve())]
    assert sorted(p.name for p in (out / "train" / "images").iterdir()) == ["p0.jpg", "p1.jpg", "p2.jpg"]
    assert sorted(p.name for p in (out / "val" / "images").iterdir()) == ["p0.jpg", "p1.jpg"]
    assert (out / "val" / "labels" / "p0.txt").read_text().split()[0] == "7"  # winds dropped


def test_resuming_takes_the_run_whose_last_checkpoint_is_newest(tmp_path):
    import os

    from xingzi.models.train import latest_run

    for name, mtime in (("old", 1_000_000), ("new", 3_000_000), ("middle", 2_000_000)):
        last = tmp_path / name / "weights" / "last.pt"
        last.parent.mkdir(parents=True)
        last.write_bytes(b"pt")
        os.utime(last, (mtime, mtime))
    assert latest_run(tmp_path) == tmp_path / "new"
    with pytest.raises(FileNotFoundError, match="no checkpoint to resume"):
        latest_run(tmp_path / "nothing")


def test_on_a_gpu_training_trusts_amp_instead_of_downloading_its_check(monkeypatch):
    import ultralytics.engine.trainer as trainer

    from xingzi.models.train import _patch_for_offline_gpu

    monkeypatch.setattr(trainer, "check_amp", lambda model: False)
    monkeypatch.setattr(trainer.BaseTrainer, "read_results_csv", trainer.BaseTrainer.read_results_csv)
    _patch_for_offline_gpu()
    assert trainer.check_amp(None) is True


def test_device_script_is_valid_bash():
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "models" / "device_train.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)


@pytest.mark.parametrize(("bf16", "amp"), [pytest.param(False, None, id="float32"), pytest.param(True, "bf16", id="bf16")])
def test_bf16_reaches_ultralytics_as_its_amp_setting(bf16, amp):
    from xingzi.models.train import TrainConfig

    kw = TrainConfig(data="d.yaml", model="m.pt", bf16=bf16).ultralytics_kwargs()
    assert kw.get("amp") == amp and "bf16" not in kw


def test_cpu_bf16_patch_turns_on_torch_autocast_only_for_bfloat16_on_the_cpu(monkeypatch):
    import torch
    import ultralytics.engine.trainer as trainer
    import ultralytics.utils.torch_utils as torch_utils

    from xingzi.models.train import _patch_for_cpu_bf16

    # Ultralytics' own autocast (another test may have patched the trainer's already); undone after the test
    monkeypatch.setattr(trainer, "autocast", torch_utils.autocast)
    with pytest.raises(RuntimeError, match="bfloat16"):  # what Ultralytics does without the patch
        trainer.autocast(torch.bfloat16, device="cpu")
    _patch_for_cpu_bf16()
    a = torch.ones(4, 4)
    with trainer.autocast(torch.bfloat16, device="cpu"):
        assert (a @ a).dtype == torch.bfloat16
    with trainer.autocast(False, device="cpu"):
        assert (a @ a).dtype == torch.float32


def test_a_bf16_cpu_training_runs_and_saves_weights(tmp_path):
    """One epoch of a tiny YOLO on four small pictures, computed in bfloat16: the run ends with weights whose
    parameters are finite, and the settings say bf16."""
    import json

    import torch
    from PIL import Image

    from xingzi.models.train import TrainConfig, train

    for split in ("train", "val"):
        (tmp_path / split / "images").mkdir(parents=True)
        (tmp_path / split / "labels").mkdir()
        for i in range(4):
            Image.new("RGB", (96, 96), (30 + 50 * i, 120, 200)).save(tmp_path / split / "images" / f"p{i}.jpg")
            (tmp_path / split / "labels" / f"p{i}.txt").write_text(f"{i} 0.5 0.5 0.3 0.4\n")
    data = data_yaml(tmp_path / "data.yaml", [tmp_path / "train" / "images"], [tmp_path / "val" / "images"])
    cfg = TrainConfig(data=str(data), model="yolo11n.yaml", imgsz=64, epochs=1, batch=4, device="cpu", workers=0,
                      freeze=None, cache=False, mosaic=0.0, project=str(tmp_path / "runs"), name="bf16", bf16=True,
                      extra={"pretrained": False})
    run = train(cfg)
    saved = json.loads((run / "xingzi_train.json").read_text())
    assert saved["bf16"] is True and saved["device_used"] == "cpu"
    # what the settings alone would not say again: the data.yaml as it was, the run folder, the code's commit
    assert saved["data_yaml"] == data.read_text() and saved["run_dir"] == str(run)
    assert saved["model_sha256"] is None and (saved["commit"] is None or len(saved["commit"]) == 40)
    ckpt = torch.load(run / "weights" / "last.pt", map_location="cpu", weights_only=False)
    assert ckpt["train_args"]["amp"] == "bf16"
    weights = [p for p in ckpt["model"].parameters()]
    assert weights and all(torch.isfinite(p).all() for p in weights)


def test_the_baseline_without_its_package_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    from xingzi.models import mahjong_detector_baseline

    monkeypatch.setitem(sys.modules, "mahjong_detector", None)  # as on a machine where it is not installed
    (tmp_path / "IMAGES").mkdir()
    code = mahjong_detector_baseline.main([str(tmp_path / "IMAGES"), str(tmp_path / "OUT")])
    err = capsys.readouterr().err
    assert code == 2 and "pip install --no-deps mahjong-detector==0.0.6 (`make eval` does" in err
    assert "Traceback" not in err and not (tmp_path / "OUT").exists()


class FakeRiichiSession:
    """Stands in for the package's network: answers three anchors whatever the picture, and keeps the picture."""

    def __init__(self) -> None:
        self.blobs: list[np.ndarray] = []

    def get_inputs(self):
        return [type("Input", (), {"name": "images"})()]

    def run(self, outputs, feed):
        self.blobs.append(feed["images"])
        raw = np.zeros((1, 4 + len(RIICHI_NAMES), 3), np.float32)
        raw[0, :4, 0] = [320, 320, 64, 32]  # in the 640 canvas: a tile at the photo's centre
        raw[0, 4 + RIICHI_NAMES.index("5p"), 0] = 0.9
        raw[0, :4, 1] = [322, 320, 64, 32]  # the same tile boxed again, less surely: NMS drops it
        raw[0, 4 + RIICHI_NAMES.index("6p"), 1] = 0.6
        raw[0, :4, 2] = [100, 200, 20, 20]  # under the confidence asked for
        raw[0, 4 + RIICHI_NAMES.index("chun"), 2] = 0.05
        return [raw]


@pytest.mark.parametrize("size, band, wh", [pytest.param((320, 160), (slice(None), slice(160, 480), slice(None)),
                                                         (0.1, 0.1), id="wide"),
                                            pytest.param((160, 320), (slice(None), slice(None), slice(160, 480)),
                                                         (0.2, 0.05), id="tall")])
def test_the_baseline_s_boxes_are_mapped_back_from_its_letterbox_to_the_photo(tmp_path, monkeypatch, capsys, size,
                                                                                band, wh):
    from PIL import Image

    from xingzi.models import mahjong_detector_baseline as baseline

    (tmp_path / "IMAGES").mkdir()
    Image.new("RGB", size, (200, 30, 30)).save(tmp_path / "IMAGES" / "photo.png")  # twice its size in the letterbox
    session = FakeRiichiSession()
    monkeypatch.setattr(baseline, "onnx_model_path", lambda: tmp_path / "model.onnx")
    monkeypatch.setattr("onnxruntime.InferenceSession", lambda path, providers: session)
    assert baseline.main([str(tmp_path / "IMAGES"), str(tmp_path / "OUT"), "--conf", "0.1"]) == 0
    assert "wrote predictions for 1 images" in capsys.readouterr().out
    [blob] = session.blobs
    photo = np.zeros((3, 640, 640), bool)
    photo[band] = True
    assert blob.shape == (1, 3, 640, 640) and np.all(blob[0][photo] > 0) and np.all(blob[0][~photo] == 0)
    rows = np.loadtxt(tmp_path / "OUT" / "photo.txt", ndmin=2)  # the tile at the photo's centre, once
    np.testing.assert_allclose(rows, [[RIICHI_NAMES.index("5p"), 0.5, 0.5, *wh, 0.9]], atol=1e-4)
    assert (tmp_path / "OUT" / "classes.txt").read_text().split() == list(RIICHI_NAMES)


@pytest.mark.parametrize(("flags", "message"), [
    pytest.param(["--imgsz", "0"], "--imgsz must be a multiple of 32 from 32 to 4096, got 0", id="imgsz-0"),
    pytest.param(["--imgsz", "8192"], "--imgsz must be a multiple of 32 from 32 to 4096, got 8192", id="imgsz-huge"),
    pytest.param(["--imgsz", "500"], "--imgsz must be a multiple of 32", id="imgsz-off-stride"),
    pytest.param(["--epochs", "0"], "--epochs must be at least 1, got 0", id="epochs-0"),
    pytest.param(["--batch", "0"], "--batch must be at least 1, got 0", id="batch-0"),
    pytest.param(["--workers", "-1"], "--workers must be at least 0, got -1", id="workers-negative"),
    pytest.param(["--freeze", "-3"], "--freeze must be at least 0, got -3", id="freeze-negative"),
    pytest.param(["--close-mosaic", "-1"], "--close-mosaic must be at least 0", id="close-mosaic-negative"),
    pytest.param(["--lr0", "nan"], "--lr0 must be a learning rate above 0 and at most 1, got nan", id="lr0-nan"),
    pytest.param(["--lr0", "0"], "--lr0 must be a learning rate above 0", id="lr0-0"),
    pytest.param(["--warmup-epochs", "-1"], "--warmup-epochs must be 0 or more, got -1.0", id="warmup-negative"),
    pytest.param(["--time", "-2"], "--time must be a budget in hours above 0, got -2.0", id="time-negative"),
    pytest.param(["--time", "inf"], "--time must be a budget in hours above 0, got inf", id="time-inf"),
    pytest.param(["--model", "MODEL.txt"], "--model: expected start weights (.pt) or a model .yaml", id="model-not-pt"),
    pytest.param(["--model", "JUNK.pt"], "not a YOLO checkpoint (.pt) that Ultralytics can load", id="model-junk-pt"),
])
def test_train_refuses_bad_settings_before_any_work(tmp_path, capsys, monkeypatch, flags, message):
    from xingzi.cli import main
    from xingzi.models import train as tr

    data = tmp_path / "data.yaml"
    data.write_text("path: .\ntrain: images\nval: images\nnames: {0: 1m}\n")
    (tmp_path / "MODEL.txt").write_text("not weights\n")
    (tmp_path / "JUNK.pt").write_bytes(b"\x80\x04junk" * 50)
    monkeypatch.setattr(tr, "train", lambda cfg: pytest.fail("training started"))
    flags = [str(tmp_path / f) if f in ("MODEL.txt", "JUNK.pt") else f for f in flags]
    assert main(["train", "--data", str(data), "--name", "refused", *flags]) == 2
    assert message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["JUNK.pt", "MODEL.txt", "data.yaml"]  # nothing written
