"""`xingzi bench pipeline --json-out` is checked before the bench runs (a folder in its place, a file on its path, a
folder that cannot be written), its missing folder made; `xingzi bench` without a target names the targets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from xingzi.cli import main
from xingzi.vision import bench_pipeline


@pytest.mark.parametrize(("flags", "message"), [
    pytest.param(["--json-out", "{d}/synth"], "--json-out {d}/synth: expected a file, got a folder", id="a-folder"),
    pytest.param(["--json-out", "{d}/afile/x.json"], "--json-out {d}/afile/x.json: {d}/afile is a file, where a folder "
                 "is needed", id="under-a-file"),
    pytest.param(["--json-out", "{d}/ro/x.json"], "--json-out {d}/ro/x.json: cannot be written there ({d}/ro is not "
                 "writable)", id="in-a-read-only-folder"),
    pytest.param(["--json-out", "{d}/ro/no/x.json"], "--json-out {d}/ro/no/x.json: cannot be written there ({d}/ro is "
                 "not writable)", id="under-a-read-only-folder"),
    pytest.param(["--json-out", "{d}/locked.json"], "--json-out {d}/locked.json: expected a file that can be written, "
                 "got one that cannot (not writable)", id="a-file-not-writable"),
    pytest.param(["--json-out", "{d}/x.json", "--random-layouts", "3"], "--json-out writes the numbers of a --data "
                 "bench: --layouts and --random-layouts print theirs only", id="with-random-layouts"),
])
def test_a_json_out_that_cannot_be_written_is_refused_before_the_bench(synthetic, tmp_path, capsys, monkeypatch, flags,
                                                                       message):
    def ran(*args, **kwargs):
        pytest.fail("the bench started")

    for name in ("make_detector", "run_layouts", "run_random_layouts", "analyse", "load_image"):
        monkeypatch.setattr(bench_pipeline, name, ran)
    (tmp_path / "afile").write_text("in the way")
    (tmp_path / "locked.json").write_text("{}")
    (tmp_path / "ro").mkdir()
    access = os.access
    locked = {tmp_path / "ro", tmp_path / "locked.json"}
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: Path(path) not in locked and access(path, mode))
    data = [] if "--random-layouts" in flags else ["--data", str(synthetic), "--boxes", "truth"]
    assert main(["bench", "pipeline", *data, *[f.format(d=tmp_path) for f in flags]]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"xingzi bench: error: {message.format(d=tmp_path)}\n" and captured.out == ""


def test_a_json_out_in_a_folder_not_there_yet_is_written_there(synthetic, tmp_path, capsys):
    out = tmp_path / "new" / "runs" / "bench.json"
    assert main(["bench", "pipeline", "--data", str(synthetic), "--boxes", "truth", "--json-out", str(out)]) == 0
    assert json.loads(out.read_text())["samples"] == 1 and "samples" in capsys.readouterr().out


def test_bench_without_a_target_names_the_targets(capsys):
    assert main(["bench"]) == 2
    captured = capsys.readouterr()
    assert captured.err == ("xingzi bench: error: expected a target: engine, synth, detector or pipeline "
                            "(xingzi bench TARGET --help: its options)\n") and captured.out == ""


@pytest.mark.parametrize("n", ["0", "-2"])
def test_random_layouts_of_no_hands_is_refused_as_such(capsys, n):
    assert main(["bench", "pipeline", "--random-layouts", n]) == 2
    assert capsys.readouterr().err == (f"xingzi bench: error: --random-layouts must be 1 or more, got {n}: it is the "
                                       "number of hands to lay out\n")
