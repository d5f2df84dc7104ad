"""`xingzi synth --out` into a folder that holds something: photos no run listed in synth_runs.jsonl (a copy of
datasets/sample made before the list, real photos), a split dataset's data.yaml, style lists that draw the same
photos; and argparse's refusals in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from xingzi.cli import main as cli_main
from xingzi.datasets.synth import dataset as synth_dataset
from xingzi.datasets.synth.dataset import generate_dataset
from xingzi.datasets.synth.generate import render_sample
from xingzi.datasets.yolo import data_yaml_text

SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample"
# how docs/synth.md makes it
SAMPLE_RUN = {"n": 8, "seed": 2026, "imgsz": 480, "styles": ("procedural", "fluffy_regular", "unicode_noto_symbols2")}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def no_drawing(monkeypatch) -> None:
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))  # only the bookkeeping


def real_photos(out: Path) -> None:
    (out / "images").mkdir(parents=True)
    (out / "labels").mkdir()
    (out / "images" / "p01.jpg").write_bytes(b"\xff\xd8 a phone's photo")
    (out / "labels" / "p01.txt").write_text("30 0.5 0.5 0.1 0.1\n")  # a wind, as their own list numbers it


def sample_without_meta(out: Path) -> None:
    shutil.copytree(SAMPLE, out)
    (out / "meta" / "synth_s2026_000003.json").unlink()


def split_in_place(out: Path) -> None:
    shutil.copytree(SAMPLE, out)
    (out / "data.yaml").write_text(data_yaml_text(out.resolve(), "train.txt", "val.txt") + "test: extra/test.txt\n")


@pytest.mark.parametrize(("setup", "run", "message"), [
    pytest.param(lambda out: shutil.copytree(SAMPLE, out), {**SAMPLE_RUN, "n": 2, "imgsz": 320},
                 r"synth_s2026_000000 in .* \(synth_runs.jsonl lists no run that made it\) has by its meta size "
                 r"\[360, 480\], where this run draws size \[240, 320\]: .* --start 8 or more", id="sample-at-320-px"),
    pytest.param(lambda out: shutil.copytree(SAMPLE, out), {**SAMPLE_RUN, "styles": ("procedural",)},
                 r"synth_s2026_000000 .* has by its meta style procedural:0, where this run draws style procedural:18", id="sample-in-other-styles"),
    pytest.param(real_photos, {"n": 1, "seed": 0}, r"holds photos or labels no synth run made \(images/p01.jpg and 1 "
                 "more: its name is no synth photo's; .*expected a new folder or one made by `xingzi synth`",
                 id="real-photos-and-no-class-list"),
    pytest.param(sample_without_meta, {"n": 1, "seed": 5}, r"images/synth_s2026_000003.jpg: no "
                 r"meta/synth_s2026_000003.json of seed 2026 and index 3 beside it", id="a-photo-without-its-meta"),
    pytest.param(split_in_place, {**SAMPLE_RUN, "n": 2, "start": 8},
                 r"data.yaml says more than synth writes \(train, val, test\); expected a new folder", id="split-in-place"),
])
def test_a_run_is_refused_where_it_would_replace_or_join_what_it_cannot_account_for(tmp_path, monkeypatch, setup, run,
                                                                                     message):
    no_drawing(monkeypatch)
    out = tmp_path / "d"
    setup(out)
    before = snapshot(out)
    with pytest.raises(ValueError, match=message):
        list(generate_dataset(out, **run))
    assert snapshot(out) == before  # nothing written: no runs file, no data.yaml


@pytest.mark.parametrize("run", [
    pytest.param(SAMPLE_RUN, id="the-sample-made-again-as-the-docs-say"),
    pytest.param({**SAMPLE_RUN, "styles": ("fluffy_regular", "procedural", "unicode_noto_symbols2")},
                 id="its-styles-with-procedural-elsewhere"),
    pytest.param({**SAMPLE_RUN, "n": 4, "start": 8, "imgsz": 320}, id="more-photos-after-them"),
    pytest.param({**SAMPLE_RUN, "seed": 7, "imgsz": 320}, id="another-seed"),
])
def test_a_folder_made_before_the_list_of_runs_takes_what_its_meta_says_is_made_the_same(tmp_path, monkeypatch, run):
    no_drawing(monkeypatch)
    out = tmp_path / "sample"
    shutil.copytree(SAMPLE, out)
    assert len(list(generate_dataset(out, **run))) == run["n"]
    assert json.loads((out / "synth_runs.jsonl").read_text())["seed"] == run["seed"]


@pytest.mark.parametrize(("first", "second", "same"), [
    pytest.param(("fluffy_regular", "procedural"), ("procedural", "fluffy_regular"), True, id="procedural-first-or-last"),
    pytest.param(("procedural", "procedural"), ("procedural",), True, id="procedural-twice"),
    pytest.param(("unicode_noto_symbols2", "fluffy_regular"), ("fluffy_regular", "unicode_noto_symbols2"), False,
                 id="two-packs-swapped"),
    pytest.param(("brush", "brush"), ("brush",), False, id="a-pack-twice"),
])
def test_style_lists_that_draw_the_same_photos_are_one(tmp_path, monkeypatch, first, second, same):
    """The list refused what would be written byte for byte again; a pack's place in the list picks photos."""
    assert same == all(render_sample(30, i, 96, first).jpeg == render_sample(30, i, 96, second).jpeg for i in range(4))
    no_drawing(monkeypatch)
    list(generate_dataset(tmp_path, 4, seed=30, styles=first))
    if same:
        assert len(list(generate_dataset(tmp_path, 4, seed=30, styles=second))) == 4
    else:
        with pytest.raises(ValueError, match="would be replaced by photos of these settings"):
            list(generate_dataset(tmp_path, 4, seed=30, styles=second))


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["synth", "--n", "abc"], "xingzi synth: error: argument --n: invalid int value: 'abc'", id="n"),
    pytest.param(["synth", "--imgsz", "640.5"], "argument --imgsz: invalid int value: '640.5'", id="imgsz"),
    pytest.param(["synth", "--blur-share", "x"], "argument --blur-share: invalid float value: 'x'", id="blur-share"),
    pytest.param(["dataset", "split", "d", "--val", "abc"],
                 "xingzi dataset split: error: argument --val: invalid float value: 'abc'", id="split-val"),
    pytest.param(["dataset", "merge", "d"], "the following arguments are required: --out", id="merge-without-out"),
    # every command's parser is made one-line by the CLI's (session 70): an unknown option, a nested benchmark's
    pytest.param(["score", "--bogus"], "xingzi: error: unrecognized arguments: --bogus", id="unknown-option"),
    pytest.param(["eval", "--conf", "x"], "xingzi eval: error: argument --conf: invalid float value: 'x'",
                 id="eval-conf"),
    pytest.param(["bench", "pipeline", "--limit", "x"],
                 "xingzi bench pipeline: error: argument --limit: invalid int value: 'x'", id="bench-target-option"),
])
def test_argparse_refusals_are_one_line(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        cli_main(argv + ["--out", "o"] if argv[0] == "synth" else argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.splitlines() == [err.strip()] and message in err
    assert list(tmp_path.iterdir()) == []
