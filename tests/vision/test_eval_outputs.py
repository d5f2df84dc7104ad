"""Where `xingzi eval` writes (--out, --draw-misses, --save-preds) is checked before a photo is read: a file where a
folder is needed, a folder that cannot be written, said in a line; and a write that fails even so at the end costs
the files, not the figures, printed before the error."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import numpy as np
import pytest
from yolo_folder import label_text, write_yolo_folder

from xingzi.cli import main

NAMES = ["1m", "5p"]
TILES = {"a": [(0, 0.2, 0.5, 0.1, 0.4)], "b": [(1, 0.6, 0.5, 0.1, 0.4)]}


@pytest.fixture
def dataset(tmp_path) -> Path:
    return write_yolo_folder(tmp_path / "ds", NAMES, TILES)


@pytest.fixture
def preds(tmp_path) -> Path:
    """Predictions reading every tile but one of the dataset exactly (b.png has a miss to draw)."""
    d = tmp_path / "preds"
    d.mkdir()
    (d / "a.txt").write_text(label_text([(*TILES["a"][0], 0.9)]))
    (d / "b.txt").write_text("")
    return d


@pytest.fixture
def unread(monkeypatch):
    """The dataset read (or a model run): the test fails."""
    from xingzi.vision import eval_data, evaluate

    monkeypatch.setattr(eval_data, "load_dataset", lambda *a, **k: pytest.fail("the dataset was read"))
    monkeypatch.setattr(evaluate, "preds_from_model", lambda *a, **k: pytest.fail("a model ran"))


@pytest.mark.parametrize(("flag", "value", "message"), [
    pytest.param("--out", "afile", "--out {d}/afile: expected a folder, got a file", id="out-a-file"),
    pytest.param("--out", "afile/e", "--out {d}/afile/e: {d}/afile is a file, where a folder is needed",
                 id="out-under-a-file"),
    pytest.param("--out", "ro/e", "--out {d}/ro/e: cannot be written there ({d}/ro is not writable)",
                 id="out-in-a-read-only-folder"),
    pytest.param("--out", "ro", "--out {d}/ro: cannot be written there ({d}/ro is not writable)",
                 id="out-a-read-only-folder"),
    pytest.param("--draw-misses", "afile", "--draw-misses {d}/afile: expected a folder, got a file",
                 id="draw-misses-a-file"),
    pytest.param("--draw-misses", "ro/m", "--draw-misses {d}/ro/m: cannot be written there ({d}/ro is not writable)",
                 id="draw-misses-read-only"),
    pytest.param("--save-preds", "afile/p", "--save-preds {d}/afile/p: {d}/afile is a file, where a folder is needed",
                 id="save-preds-under-a-file"),
])
def test_an_output_that_cannot_be_written_is_refused_before_a_photo_is_read(tmp_path, capsys, monkeypatch, unread,
                                                                            flag, value, message):
    (tmp_path / "afile").write_text("in the way")
    (tmp_path / "ro").mkdir()
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) != tmp_path / "ro" and access(path, mode))
    argv = ["eval", "--data", str(tmp_path / "ds"), "--model", "any.onnx", flag, str(tmp_path / value)]
    if flag != "--out":
        argv += ["--out", str(tmp_path / "o")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"xingzi eval: error: {message.format(d=tmp_path)}\n" and captured.out == ""
    assert not (tmp_path / "o").exists()  # (the JSON went to --out before a --draw-misses file was refused)


def test_outputs_in_folders_not_there_yet_are_made(dataset, preds, tmp_path, capsys, eval_scores_only):
    out, drawn = tmp_path / "new" / "eval", tmp_path / "new" / "misses"
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(out),
                 "--draw-misses", str(drawn)]) == 0
    assert (out / "preds.json").is_file() and (drawn / "preds" / "b.jpg").is_file()
    assert "1 pictures of images not read exactly" in capsys.readouterr().out


def test_when_writing_fails_at_the_end_the_figures_are_printed_before_the_error(dataset, preds, tmp_path, capsys,
                                                                              monkeypatch, eval_scores_only):
    from xingzi.vision import evaluate

    def disk_full(cm, path, title):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(evaluate, "confusion_png", disk_full)
    out = tmp_path / "out"
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(out), "--per-class"]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("row ") and "\npreds " in captured.out and "per class, preds:" in captured.out
    assert captured.err == f"xingzi eval: error: {out / 'preds_confusion.png'}: the disk is full\n"


def test_save_preds_writes_the_model_rows_boxes_alone_and_they_score_the_same_read_back(
        dataset, preds, tmp_path, capsys, monkeypatch, eval_scores_only):
    from xingzi.vision import evaluate
    from xingzi.vision.metrics import ImageBoxes

    def model_reads(ds, weights, imgsz, *args, **kwargs):  # a.png read right, b.png's tile taken for 1m
        boxes = [ImageBoxes(np.array([[30.0, 30.0, 50.0, 70.0]]), np.array([0]), np.array([0.8])),
                 ImageBoxes(np.array([[110.0, 30.0, 130.0, 70.0]]), np.array([0]), np.array([0.7]))]
        timing = {"images": 2, "imgsz": imgsz or 640, "backend": "onnx",
                  **dict.fromkeys(("model_ms_median", "model_ms_p95", "predict_ms_median", "predict_ms_p95"), 0.0)}
        return boxes, {"latency": timing}

    monkeypatch.setattr(evaluate, "preds_from_model", model_reads)
    saved, out = tmp_path / "saved", tmp_path / "o"
    assert main(["eval", "--data", str(dataset), "--model", "net.onnx", "--preds", str(preds), "--out", str(out),
                 "--save-preds", str(saved)]) == 0
    assert [p.name for p in saved.iterdir()] == ["net.onnx@640"]  # the --preds row's files are not copied
    written = saved / "net.onnx@640"
    assert sorted(p.name for p in written.iterdir()) == ["a.txt", "b.txt", "classes.txt"]
    assert f"boxes written: {written}" in capsys.readouterr().out
    assert main(["eval", "--data", str(dataset), "--preds", str(written), "--out", str(tmp_path / "again")]) == 0
    model_row = json.loads((out / "net.onnx@640.json").read_text())["summary"]
    read_back = json.loads((tmp_path / "again" / "net.onnx@640.json").read_text())["summary"]
    assert model_row["f1"] == read_back["f1"] == 0.5  # 1 right, 1 taken for another face
    assert model_row["image_exact"] == read_back["image_exact"] == 0.5
