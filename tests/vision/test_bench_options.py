"""`xingzi bench detector` and `xingzi bench pipeline` refuse what they would misread or silently ignore, before
any timing or reading starts; photos that cannot be decoded are passed over by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.vision import bench_pipeline
from xingzi.vision.detector import DEFAULT_ONNX


def _photos(folder: Path, good: list[str], junk: list[str]) -> Path:
    folder.mkdir()
    for name in good:
        Image.new("RGB", (96, 64), (90, 120, 90)).save(folder / name)
    for name in junk:
        (folder / name).write_text("junk")
    return folder


@pytest.mark.parametrize(("good", "junk", "rc", "said"), [
    pytest.param([], ["x.jpg"], 2, "none of the 1 image files in {dir} can be read as a photo (e.g. x.jpg)",
                 id="junk-only"),
    pytest.param(["a.jpg"], ["b.jpg"], 0, "note: passed over 1 image file(s) that cannot be read as a photo: b.jpg\n"
                 "detector latency on 1 photo from {dir}, ", id="one-good-one-junk"),
])
def test_photos_that_cannot_be_decoded_are_passed_over_by_name(tmp_path, capsys, good, junk, rc, said):
    folder = _photos(tmp_path / "photos", good, junk)
    assert main(["bench", "detector", "--weights", str(DEFAULT_ONNX), "--images", str(folder), "--n", "2"]) == rc
    captured = capsys.readouterr()
    assert said.format(dir=folder) in (captured.err if rc else captured.out) and "Traceback" not in captured.err


@pytest.mark.parametrize(("weights", "flags", "message"), [
    pytest.param("shipped", ["--threads", "-1"], "--threads must be at least 1, got -1", id="threads-negative"),
    pytest.param("shipped", ["--threads", "0"], "--threads must be at least 1, got 0", id="threads-0"),
    pytest.param("shipped", ["--imgsz", "333"], "--imgsz must be a multiple of 32 from 32 to 4096, got 333",
                 id="imgsz-off-stride"),
    pytest.param("w.txt", [], "--weights: expected .pt or .onnx files, got {dir}/w.txt", id="weights-not-a-model"),
    pytest.param("bad.onnx", [], "{dir}/bad.onnx is not an ONNX network", id="onnx-corrupt"),
])
def test_bad_settings_are_refused_before_the_table_is_printed(tmp_path, capsys, weights, flags, message):
    folder = _photos(tmp_path / "photos", ["a.jpg"], [])
    for name in ("w.txt", "bad.onnx"):
        (tmp_path / name).write_text("not a network")
    path = DEFAULT_ONNX if weights == "shipped" else tmp_path / weights
    assert main(["bench", "detector", "--weights", str(path), "--images", str(folder), "--n", "1", *flags]) == 2
    captured = capsys.readouterr()
    assert message.format(dir=tmp_path) in captured.err and captured.out == ""


TRUTH_NO_DETECTOR = "--boxes truth runs no detector (the true boxes are read): {} has nothing to set"


@pytest.mark.parametrize(("flags", "message"), [
    pytest.param(["--data", "SYNTH", "--errata", "/nonexist.toml"], "--errata is for real labelled photos",
                 id="errata-file-on-a-synthetic-set"),
    pytest.param(["--data", "SYNTH", "--errata", "auto"], "--errata is for real labelled photos",
                 id="errata-auto-on-a-synthetic-set"),
    pytest.param(["--random-layouts", "3", "--layouts"], "--layouts and --random-layouts are two benches",
                 id="both-layout-benches"),
    pytest.param(["--layouts", "--data", "SYNTH"], "lay the hands out themselves: they read no --data",
                 id="layouts-with-data"),
    pytest.param(["--data", "SYNTH", "--conf", "5"], "--conf must be in (0, 1], got 5", id="conf-over-one"),
    pytest.param(["--data", "SYNTH", "--conf", "0"], "--conf must be in (0, 1], got 0", id="conf-0"),
    pytest.param(["--data", "SYNTH", "--boxes", "truth", "--conf", "0.5"], TRUTH_NO_DETECTOR.format("--conf"),
                 id="truth-with-conf"),
    pytest.param(["--data", "SYNTH", "--boxes", "truth", "--model", "m.onnx", "--second", "none"],
                 TRUTH_NO_DETECTOR.format("--model, --second"), id="truth-with-model-and-second"),
    pytest.param(["--data", "SYNTH", "--boxes", "truth", "--second-doubt", "2"],
                 TRUTH_NO_DETECTOR.format("--second-doubt"), id="truth-with-second-doubt"),
])
def test_pipeline_options_it_would_ignore_are_refused_before_any_work(synthetic, capsys, monkeypatch, flags, message):
    def ran(*args, **kwargs):
        pytest.fail("the bench started")

    for name in ("make_detector", "run_layouts", "run_random_layouts", "analyse"):
        monkeypatch.setattr(bench_pipeline, name, ran)
    assert main(["bench", "pipeline", *[str(synthetic) if f == "SYNTH" else f for f in flags]]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
