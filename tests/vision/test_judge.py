"""The candidate judge: which commands it runs, how it pairs the readings, and the verdict it draws."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from xingzi.models import judge
from xingzi.models.judge import MeasureSet, Pairing, verdict

REAL_VAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "real_cn_val"


@pytest.fixture(autouse=True)
def corrections_fit(monkeypatch):
    """The stand-in photo folders are taken for the ones the shipped label corrections are written for."""
    monkeypatch.setattr(judge, "errata_fit", lambda real: True)


def test_the_label_corrections_are_read_only_for_the_photos_they_are_written_for(tmp_path, monkeypatch):
    """With other photos (--real) the corrected row stopped the judge after every reading was paid for."""
    monkeypatch.undo()
    assert judge.errata_fit(REAL_VAL)
    other = tmp_path / "real_cn_val"  # named as the corrected folder, holding none of its photos
    (other / "images").mkdir(parents=True)
    assert not judge.errata_fit(other) and not judge.errata_fit(tmp_path)
    cand = tmp_path / "cand.onnx"
    cand.write_bytes(b"candidate")
    runner = FakeRunner(base_wrong={"p1"}, cand_wrong=set())
    _, _, pairs = judge.judge(cand, "none", tmp_path / "sets", tmp_path / "out", other, only=["real_cn_val"],
                              runner=runner)
    assert [p.name for p in pairs] == ["real_cn_val"] and not any("--errata" in c for c in runner.commands)


def pairing(name: str, gained: int, lost: int) -> Pairing:
    return Pairing(name, "image exact %", 70.0, 70.0, gained, lost)


@pytest.mark.parametrize(("real", "others", "ship"), [
    pytest.param((5, 2), [(3, 3), (1, 0)], True, id="real_gains_others_hold"),
    pytest.param((5, 2), [(0, 2), (1, 0)], False, id="others_lose"),
    pytest.param((2, 2), [(9, 0)], False, id="real_even"),
    pytest.param((1, 4), [(9, 0)], False, id="real_loses"),
    pytest.param((1, 0), [], True, id="real_alone"),
])
def test_verdict_needs_a_real_gain_that_the_other_sets_do_not_take_back(real, others, ship):
    pairs = [pairing("real_cn_val", *real)] + [pairing(f"set{i}", *o) for i, o in enumerate(others)]
    ok, why = verdict(pairs)
    assert ok is ship
    assert "real_cn_val" in why


def test_a_row_shown_but_not_counted_cannot_stop_a_gain():
    shown = Pairing("real_corrected", "image exact %", 88.0, 80.0, 0, 20, decides=False)
    ok, _why = verdict([pairing("real_cn_val", 5, 2), shown, pairing("synth_s99", 1, 1)])
    assert ok
    assert not verdict([pairing("real_cn_val", 5, 2), replace(shown, decides=True)])[0]
    assert "shown, not counted" in judge.report([shown], ok, "why").splitlines()[1]


def test_verdict_refuses_pairings_without_the_real_photos_first():
    with pytest.raises(ValueError, match="real_cn_val pairing first"):
        verdict([pairing("synth_s99", 3, 0)])


def test_sets_are_made_by_the_commands_that_made_the_measured_ones(tmp_path):
    real = tmp_path / "real"
    sets = {m.name: m for m in judge.measure_sets(real)}
    assert list(sets)[0] == "real_cn_val" and not sets["real_cn_val"].make
    assert sets["synth_s99"].make == ("xingzi", "synth", "--n", "300", "--seed", "99", "--imgsz", "640")
    assert sets["heldout_s71"].make[-4:] == ("--seed", "71", "--imgsz", "1280")
    assert sets["synth_s99"].data_arg(tmp_path, real) == tmp_path / "synth_s99" / "data.yaml"
    assert judge.measure_sets(REAL_VAL)[-1].data_arg(tmp_path, REAL_VAL) == tmp_path / "composite_s7"
    assert sets["composite_s7"].data_arg(tmp_path, real).name.startswith("composite_s7-real-")  # other photos'
    assert sets["real_cn_val"].data_arg(tmp_path, real) == real
    corrected = sets["real_corrected"]  # the same photos against their mended labels, shown beside
    assert corrected.data_arg(tmp_path, real) == real and corrected.flags == ("--errata", "auto")
    assert not corrected.decides and all(m.decides for m in sets.values() if m is not corrected)


def test_the_shipped_key_follows_the_model_files(tmp_path):
    for name in judge.SHIPPED_FILES:
        (tmp_path / name).write_bytes(b"weights")
    before = judge.shipped_key(tmp_path)
    assert before == judge.shipped_key(tmp_path) and len(before) == 12
    (tmp_path / judge.SHIPPED_FILES[0]).write_bytes(b"other weights")
    assert judge.shipped_key(tmp_path) != before


class FakeRunner:
    """Stands in for the commands: makes sets, writes results in which the candidate reads ``cand_wrong`` wrong
    and the shipped reading ``base_wrong``; remembers every command."""

    def __init__(self, base_wrong: set[str], cand_wrong: set[str]) -> None:
        self.base_wrong, self.cand_wrong, self.commands = base_wrong, cand_wrong, []

    def __call__(self, cmd: list[str]) -> None:
        self.commands.append(cmd)
        value = {flag: cmd[i + 1] for i, flag in enumerate(cmd[:-1]) if flag.startswith("--")}
        wrong = self.cand_wrong if "--model" in cmd else self.base_wrong
        photos = [f"p{i}" for i in range(10)]
        if cmd[:2] == ["xingzi", "synth"] or cmd[0] == "xingzi.datasets.composite":
            Path(value["--out"]).mkdir(parents=True)
        elif cmd[:2] == ["xingzi", "eval"]:
            if "--preds" in value:  # saved boxes scored again: whose they were decides what is wrong
                wrong = set(json.loads((Path(value["--preds"]) / "wrong.json").read_text()))
            if "--save-preds" in value:
                row = Path(value["--save-preds"]) / "model"
                row.mkdir(parents=True)
                (row / "wrong.json").write_text(json.dumps(sorted(wrong)))
            out = Path(value["--out"])
            out.mkdir(parents=True, exist_ok=True)
            images = [{"image": p, "tiles": 14} for p in photos if p in wrong]
            result = {"row": "model", "summary": {"images": 10, "image_exact": 1 - len(images) / 10}, "images": images}
            (out / "model.json").write_text(json.dumps(result))
        elif cmd[:3] == ["xingzi", "bench", "pipeline"]:
            result = {"pao_samples": photos, "pao_wrong": sorted(wrong & set(photos)),
                      "pao_total_exact_pct": 100 - 10 * len(wrong & set(photos))}
            Path(value["--json-out"]).write_text(json.dumps(result))
        else:
            raise AssertionError(f"unexpected command {cmd}")


def test_judge_pairs_every_set_and_keeps_the_shipped_readings(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    cand = tmp_path / "cand.onnx"
    cand.write_bytes(b"candidate")
    runner = FakeRunner(base_wrong={"p1", "p2", "p3"}, cand_wrong={"p3", "p4"})
    ok, why, pairs = judge.judge(cand, "none", tmp_path / "sets", tmp_path / "out", real, runner=runner)
    assert [p.name for p in pairs] == ["real_cn_val", "real_corrected", "synth_s99", "heldout_s59", "heldout_s71",
                                       "heldout_s83", "composite_s7"]
    assert all((p.gained, p.lost) == (2, 1) for p in pairs)
    assert pairs[0].shipped == pytest.approx(70.0) and pairs[0].candidate == pytest.approx(80.0)
    assert ok and "net +1" in why
    cand_runs = [c for c in runner.commands if "--model" in c]
    assert all(c[c.index("--model") + 1] == str(cand) and c[c.index("--second") + 1] == "none" for c in cand_runs)
    assert sum(c[:2] == ["xingzi", "synth"] for c in runner.commands) == 4  # s99 and three held-out seeds made
    saved = json.loads(next((tmp_path / "out").glob("candidate-cand-*/judgement.json")).read_text())
    assert saved["ship"] is True and len(saved["sets"]) == 7 and saved["sets"][1]["decides"] is False
    corrected = [c for c in runner.commands if "--errata" in c]
    assert len(corrected) == 2 and all(c[c.index("--errata") + 1] == "auto" for c in corrected)
    # the real photos are read once per reading: the corrected labels score the boxes that reading saved
    assert all("--preds" in c and "--model" not in c for c in corrected)
    assert sum(c[:2] == ["xingzi", "eval"] and "--model" in c for c in runner.commands) == 2  # real, s99

    # a second candidate: the sets and the shipped readings are there, only its own readings run
    other = tmp_path / "other.onnx"
    other.write_bytes(b"another candidate")
    again = FakeRunner(base_wrong=set(), cand_wrong={"p0", "p4", "p5", "p6"})
    ok, why, pairs = judge.judge(other, "none", tmp_path / "sets", tmp_path / "out", real, runner=again)
    assert len(again.commands) == 7
    assert all("--model" in c or "candidate-other" in c[c.index("--preds") + 1] for c in again.commands)
    assert all((p.gained, p.lost) == (3, 4) for p in pairs)  # against the shipped readings kept from before
    assert not ok and "no gain (net -1)" in why
    assert "real_cn_val" in report_text(pairs, ok, why)


def test_another_second_opinion_reads_again_and_the_same_one_does_not(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    cand, partner, other = (tmp_path / f"{n}.onnx" for n in ("cand", "partner", "other"))
    for path in (cand, partner, other):
        path.write_bytes(path.stem.encode())
    first = FakeRunner(base_wrong={"p1"}, cand_wrong={"p2"})
    judge.judge(cand, str(partner), tmp_path / "sets", tmp_path / "out", real, runner=first)
    # the same weights with another partner: its readings are its own, not the first pair's
    second = FakeRunner(base_wrong={"p1"}, cand_wrong=set())
    ok, _, pairs = judge.judge(cand, str(other), tmp_path / "sets", tmp_path / "out", real, runner=second)
    assert sum("--model" in c for c in second.commands) == 6  # real, s99, three held-out seeds, composite
    assert all(c[c.index("--second") + 1] == str(other) for c in second.commands if "--model" in c)
    assert ok and all((p.gained, p.lost) == (1, 0) for p in pairs)
    # the first pair again: nothing is read, its readings are kept
    again = FakeRunner(base_wrong=set(), cand_wrong=set())
    _, _, pairs = judge.judge(cand, str(partner), tmp_path / "sets", tmp_path / "out", real, runner=again)
    assert again.commands == [] and all((p.gained, p.lost) == (1, 1) for p in pairs)
    assert len(list((tmp_path / "out").glob("candidate-cand-*-second-*"))) == 2


def test_other_real_photos_are_read_again_not_taken_from_the_first_folders_readings(tmp_path):
    """The readings were kept by model alone: a second --real folder got the first folder's verdict word for word."""
    cand = tmp_path / "cand.onnx"
    cand.write_bytes(b"candidate")
    first, second = tmp_path / "a" / "real", tmp_path / "b" / "real"
    for folder, photos in ((first, 3), (second, 4)):
        (folder / "images").mkdir(parents=True)
        for i in range(photos):
            (folder / "images" / f"p{i}.jpg").write_bytes(b"x")
    judge.judge(cand, "none", tmp_path / "sets", tmp_path / "out", first, only=["real_cn_val"],
                runner=FakeRunner(base_wrong={"p1"}, cand_wrong=set()))
    again = FakeRunner(base_wrong=set(), cand_wrong={"p2"})
    _, _, pairs = judge.judge(cand, "none", tmp_path / "sets", tmp_path / "out", second, only=["real_cn_val"],
                              runner=again)
    assert sum("--model" in c for c in again.commands) == 1 and (pairs[0].gained, pairs[0].lost) == (0, 1)
    assert judge.real_key(first) != judge.real_key(second)
    made = judge.measure_sets(second)[-1]  # the composite set is made of the --real photos: kept apart per folder
    assert made.name == "composite_s7" and made.path(tmp_path / "sets", second).name == \
        f"composite_s7-real-{judge.real_key(second)}"


def report_text(pairs, ok, why) -> str:
    text = judge.report(pairs, ok, why)
    assert text.splitlines()[-1].startswith("verdict: ")
    return text


def test_only_some_sets_still_reads_the_real_photos(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    cand = tmp_path / "cand.onnx"
    cand.write_bytes(b"candidate")
    runner = FakeRunner(base_wrong={"p1"}, cand_wrong=set())
    ok, _why, pairs = judge.judge(cand, None, tmp_path / "sets", tmp_path / "out", real, only=["heldout_s59"],
                                  runner=runner)
    assert [p.name for p in pairs] == ["real_cn_val", "real_corrected", "heldout_s59"] and ok
    assert not any("--second" in c for c in runner.commands)


@pytest.mark.parametrize(("name", "content", "only", "message"), [
    pytest.param("missing.onnx", None, (), "candidate weights not found", id="missing"),
    pytest.param("weights.bin", b"x", (), r"expected a \.pt checkpoint or an \.onnx", id="wrong_kind"),
    pytest.param("cand.onnx", b"x", ("heldout_s60",), r"unknown sets \['heldout_s60'\]", id="unknown_set"),
])
def test_bad_input_is_told_before_anything_runs(tmp_path, name, content, only, message):
    real = tmp_path / "real"
    real.mkdir()
    cand = tmp_path / name
    if content is not None:
        cand.write_bytes(content)
    runner = FakeRunner(set(), set())
    with pytest.raises(ValueError, match=message):
        judge.judge(cand, None, tmp_path / "sets", tmp_path / "out", real, only=only, runner=runner)
    assert runner.commands == [] and not (tmp_path / "out").exists()


def test_main_says_what_is_wrong_and_exits_2(tmp_path, capsys):
    assert judge.main([str(tmp_path / "nope.pt"), "--real", str(tmp_path)]) == 2
    assert "candidate weights not found" in capsys.readouterr().err


def test_a_step_that_fails_is_said_by_its_own_error_line(tmp_path, capsys, monkeypatch):
    """A composite set made from --real photos short of a face stopped the judge with only "Command [...] returned
    non-zero exit status 1": the step's own error line is now said with it."""
    from xingzi.engine.tiles import CLASS_NAMES

    real = tmp_path / "real"
    (real / "images").mkdir(parents=True)
    (real / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    step = ["xingzi.datasets.composite", "--real", str(real), "--out", str(tmp_path / "composite_s7"), "--n", "1"]
    with pytest.raises(subprocess.CalledProcessError) as failed:
        judge.subprocess_runner(step)
    assert failed.value.returncode == 2
    assert failed.value.stderr.startswith("python -m xingzi.datasets.composite: error: ")
    assert failed.value.stderr.endswith("a hand needs every face")
    assert "usage: python -m xingzi.datasets.composite" in capsys.readouterr().err  # the step's output passed on

    def stopped(*args):
        raise failed.value

    monkeypatch.setattr(judge, "judge", stopped)
    assert judge.main([str(tmp_path / "best.pt"), "--real", str(real)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("judge: error: the step `python -m xingzi.datasets.composite --real ")
    assert "stopped (exit status 2): python -m xingzi.datasets.composite: error: " in err
    assert "no upright picture of 1m" in err


@pytest.mark.parametrize(("ok", "code"), [pytest.param(True, 0, id="ship"), pytest.param(False, 1, id="keep")])
def test_main_exits_0_to_ship_and_1_to_keep_the_shipped_model(tmp_path, capsys, monkeypatch, ok, code):
    pairings = [pairing("real_cn_val", 5, 2) if ok else pairing("real_cn_val", 1, 4)]
    monkeypatch.setattr(judge, "judge", lambda *args: (ok, "why", pairings))
    assert judge.main([str(tmp_path / "best.pt"), "--real", str(tmp_path)]) == code
    assert ("ship" if ok else "keep") in capsys.readouterr().out.lower()


def test_a_measure_set_path_is_the_real_folder_or_under_sets(tmp_path):
    given = MeasureSet("real_cn_val", "eval")
    made = MeasureSet("heldout_s59", "pipeline", ("xingzi", "synth"))
    assert given.path(tmp_path / "sets", tmp_path / "real") == tmp_path / "real"
    assert made.path(tmp_path / "sets", tmp_path / "real") == tmp_path / "sets" / "heldout_s59"


def test_the_corrected_labels_read_with_the_model_where_no_boxes_were_saved(tmp_path):
    real = tmp_path / "real"
    (tmp_path / "out" / "real_cn_val").mkdir(parents=True)  # a reading kept from before boxes were saved
    corrected = next(m for m in judge.measure_sets(real) if m.name == "real_corrected")
    runner = FakeRunner(base_wrong={"p1"}, cand_wrong=set())
    found = judge.run_reading(corrected, real, ["--model", "c.onnx"], tmp_path / "out", runner)
    assert found == tmp_path / "out" / "real_corrected" / "model.json"
    (cmd,) = runner.commands
    assert "--preds" not in cmd and cmd[cmd.index("--model") + 1] == "c.onnx" and "--errata" in cmd
