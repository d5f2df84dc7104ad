"""tools/mutants.py: the mutants it makes, and a run on a small repository of its own."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tools import mutants
from tools.mutation_points import python_mutants, toml_mutants

TOOL = Path(mutants.__file__).resolve()

MODULE = '''"""A clamp; the docstring's x < low is text, not code."""
import functools


@functools.lru_cache(maxsize=8)
def clamp(x: int, low: int, high: int) -> int:
    if x < low:
        return low
    if x > high:
        raise ValueError(f"{x} > {high}")
    return x
'''
# clamp(0, ...) and clamp(9, ...) are never asked: the turned comparisons go unnoticed
TESTS = '''from mod import clamp


def test_clamp():
    assert clamp(-5, 0, 9) == 0
    assert clamp(4, 0, 9) == 4
'''
PRESETS = '''[toy]
files = ["mod.py"]
tests = ["test_mod.py"]
timeout = 60
'''


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args], cwd=root,
                   check=True, capture_output=True)


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # the toy's tests need no pytest plugin but Hypothesis's (the tool passes --hypothesis-seed): each of the tool's
    # pytest runs starts in under a second instead of 2-3 s loading every plugin installed here
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTEST_PLUGINS", "hypothesis.extra.pytestplugin")
    (tmp_path / "mod.py").write_text(MODULE)
    (tmp_path / "test_mod.py").write_text(TESTS)
    (tmp_path / "presets.toml").write_text(PRESETS)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "toy")
    return tmp_path


def _run(root: Path, out: Path, *more: str) -> int:
    return mutants.main(["run", "toy", "--root", str(root), "--presets", str(root / "presets.toml"),
                         "--out", str(out), "--python", sys.executable, *more])


def test_python_mutants_change_code_not_texts() -> None:
    found = python_mutants("mod.py", MODULE.encode())
    pairs = {(m.line, m.kind, m.old, m.new) for m in found}
    assert (7, "compare", "<", "<=") in pairs
    assert (9, "compare", ">", ">=") in pairs
    assert (7, "negate", "x < low", "not (x < low)") in pairs
    assert (11, "return", "x", "0") in pairs
    assert not [m for m in found if m.line in (1, 5, 10)]  # the docstring, decorator and raise's message stay
    for m in found:
        ast.parse(m.apply(MODULE.encode()))
        assert MODULE.encode()[m.start:m.end].decode() == m.old


def test_toml_mutants_each_parse_and_name_what_changed() -> None:
    text = ('mode = "each"  # "pool" too\nlimit = 10\nflag = true\nkeys = ["a", "b"]\n[pao]\nping_hu = 1\n'
            'name = "default (003 text, true)"\n')
    found = toml_mutants("r.toml", text.encode(), [["each", "pool"]])
    pairs = {(m.kind, m.old, m.new) for m in found}
    assert {("choice", "each", "pool"), ("number", "10", "11"), ("number", "10", "9"), ("flag", "true", "false"),
            ("number", "1", "2"), ("number", "1", "0")} <= pairs
    dropped = [tomllib.loads(m.apply(text.encode()).decode())["keys"] for m in found if m.kind == "drop_element"]
    assert sorted(dropped) == [["a"], ["b"]]
    assert all(m.line != 5 for m in found)  # a table header is no setting
    assert all(m.line != 7 for m in found)  # digits and words inside a text are no numbers or flags
    for m in found:
        tomllib.loads(m.apply(text.encode()).decode())


def test_a_run_tells_caught_from_missed_and_puts_the_file_back(toy: Path, capsys) -> None:
    out = toy / "runs" / "toy.jsonl"
    assert _run(toy, out) == 0
    assert (toy / "mod.py").read_text() == MODULE
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    status = {(r["line"], r["kind"], r["old"], r["new"]): r["status"] for r in rows}
    assert status[(7, "compare", "<", "<=")] == "missed"
    assert status[(9, "compare", ">", ">=")] == "missed"
    assert status[(7, "negate", "x < low", "not (x < low)")] == "caught"
    assert status[(11, "return", "x", "0")] == "caught"
    assert len({r["commit"] for r in rows}) == 1
    printed = capsys.readouterr().out
    caught = sum(s == "caught" for s in status.values())
    assert f"{len(rows)} mutants: {caught} caught, {len(rows) - caught} missed" in printed
    assert "missed mod.py:7 [compare] '<' -> '<='" in printed
    # run again: every mutant is there already, nothing is run twice
    assert _run(toy, out) == 0
    assert len(out.read_text().splitlines()) == len(rows)


def test_a_sample_is_drawn_by_its_seed(toy: Path) -> None:
    first, again = toy / "a.jsonl", toy / "b.jsonl"
    assert _run(toy, first, "--sample", "3", "--seed", "5") == 0
    assert _run(toy, again, "--sample", "3", "--seed", "5") == 0
    ids = [[json.loads(line)["id"] for line in f.read_text().splitlines()] for f in (first, again)]
    assert len(ids[0]) == 3 and ids[0] == ids[1]


def test_a_changed_file_is_refused_and_kept(toy: Path, capsys) -> None:
    edited = MODULE.replace("return x", "return x  # mine")
    (toy / "mod.py").write_text(edited)
    assert _run(toy, toy / "out.jsonl") == 2
    assert "differ from git's HEAD" in capsys.readouterr().err
    assert (toy / "mod.py").read_text() == edited
    assert not (toy / "out.jsonl").exists()


def test_tests_failing_unchanged_are_refused(toy: Path, capsys) -> None:
    (toy / "test_mod.py").write_text(TESTS.replace("== 4", "== 5"))
    _git(toy, "commit", "-q", "-am", "a failing test")
    assert _run(toy, toy / "out.jsonl") == 2
    assert "the tests fail before any change" in capsys.readouterr().err


def test_another_commit_s_results_are_not_resumed(toy: Path, capsys) -> None:
    out = toy / "out.jsonl"
    out.write_text(json.dumps({"id": "mod.py:0", "commit": "0" * 40, "status": "caught"}) + "\n")
    assert _run(toy, out) == 2
    assert "holds mutants of commit 000000000000" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 1


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["list", "nonesuch"], "expected one of", id="unknown_preset"),
    pytest.param(["report", "/nonexistent/out.jsonl"], "no mutants recorded", id="no_results"),
])
def test_bad_requests_say_what_was_expected(argv: list[str], message: str, toy: Path, capsys) -> None:
    if argv[0] == "list":
        argv = [*argv, "--root", str(toy), "--presets", str(toy / "presets.toml")]
    assert mutants.main(argv) == 2
    assert message in capsys.readouterr().err


def test_runs_go_to_a_clone_of_head_with_its_own_python(toy: Path, tmp_path_factory) -> None:
    clone = tmp_path_factory.mktemp("elsewhere") / "clone"
    assert mutants.prepare_clone(toy, clone) == clone
    assert (clone / "mod.py").read_text() == MODULE
    python = clone / ".venv" / "bin" / "python"
    done = subprocess.run([str(python), "-c", "import pytest, sys; print(sys.prefix)"], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == str(clone / ".venv")  # its own interpreter, this one's packages
    # a mutant left behind by a killed run, and a new commit here: the clone follows HEAD, clean
    (clone / "mod.py").write_text("left behind\n")
    (toy / "test_mod.py").write_text(TESTS + "\n\ndef test_more():\n    assert clamp(0, 0, 9) == 0\n")
    _git(toy, "commit", "-q", "-am", "one test more")
    mutants.prepare_clone(toy, clone)
    assert (clone / "mod.py").read_text() == MODULE
    assert "test_more" in (clone / "test_mod.py").read_text()
    assert mutants.main(["run", "toy", "--root", str(clone), "--presets", str(toy / "presets.toml"),
                         "--out", str(clone.parent / "out.jsonl"), "--sample", "2"]) == 0
    assert (toy / "mod.py").read_text() == MODULE


def test_a_folder_that_is_no_clone_is_not_taken_over(toy: Path, tmp_path_factory) -> None:
    mine = tmp_path_factory.mktemp("mine")
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(ValueError, match="is no git clone"):
        mutants.prepare_clone(toy, mine)
    assert (mine / "notes.txt").read_text() == "keep"


def test_the_shipped_presets_name_files_and_tests_that_exist() -> None:
    root = TOOL.parent.parent
    table = tomllib.loads((TOOL.parent / "mutants.toml").read_text())
    assert {"engine", "grouping", "repair"} <= set(table)
    for name, preset in table.items():
        assert mutants.preset_files(preset, root), name
        for test in preset["tests"]:
            assert (root / test).exists(), (name, test)
        for test in preset.get("deselect", []):
            path, _, func = test.partition("::")
            assert f"def {func}(" in (root / path).read_text(), (name, test)
