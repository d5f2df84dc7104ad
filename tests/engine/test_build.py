"""The compiled (mypyc) and the pure-Python engine: which one a process gets, and that both give
the same results. The rest of tests/engine runs against whichever build is installed (the
compiled one after `make install` where a C compiler is there); `XINGZI_PURE=1` runs it against
the Python source."""

from __future__ import annotations

import argparse
import copy
import importlib
import importlib.machinery
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xingzi.engine import bench, compiled, parse_situation, score_situation
from xingzi.engine.bench import random_win
from xingzi.engine.hand import EVENTS, WinContext
from xingzi.engine.ruleset import OPTIONAL_ITEMS
from xingzi.engine.scoring import SYMBOLS

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden_hands.jsonl"
MELD_KINDS = ("pung", "kong", "concealed_kong")

# scores every situation read from stdin (a JSON list); a malformed one gives its error message
SCORE_ALL = """
import json, sys
from xingzi.engine import engine_build, score_situation
def one(s):
    try:
        return score_situation(s)
    except ValueError as e:
        return {"error": str(e)}
print(json.dumps({"build": engine_build(), "results": [one(s) for s in json.load(sys.stdin)]}))
"""


def _run(code: str, env: dict[str, str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True,
                          env={**os.environ, **env}, cwd=cwd, timeout=120)


def _random_situation(rng: random.Random) -> dict:
    """A random claim as a §10 dict: winning or (now and then) one tile off, with melds, 发,
    events, payers and rule overrides; some of them are malformed on purpose (events that do
    not fit the hand, too much 发)."""
    concealed, melds, win = random_win(rng, closed=rng.random() < 0.4)
    if rng.random() < 0.15:  # a false claim: one tile swapped for another
        concealed[rng.randrange(len(concealed))] = rng.choice([t for t in range(30) if t != 28])
        win = rng.choice(concealed)
    s: dict = {"hand": "".join(SYMBOLS[t] for t in sorted(concealed)), "win_tile": SYMBOLS[win],
               "melds": [f"{k} {SYMBOLS[t]}" for k, t in melds], "fa": rng.choice([0, 0, 0, 1, 2, 4]),
               "self_draw": rng.random() < 0.5, "dealer": rng.random() < 0.25,
               "events": rng.sample(EVENTS, rng.choice([0, 0, 0, 1, 2]))}
    if rng.random() < 0.5:
        n = rng.choice([1, 3]) if s["self_draw"] else 1
        s["payers"] = [{"dealer": False, "fa": rng.choice([0, 0, 1]),
                        "melds": [f"{rng.choice(MELD_KINDS)} {SYMBOLS[rng.choice([27, 29, 4, 13])]}"]
                        if rng.random() < 0.3 else []} for _ in range(n)]
    if rng.random() < 0.3:
        s["rules"] = rng.choice([{"optional": list(OPTIONAL_ITEMS)}, {"hai_di_pao": "start_at_10"},
                                 {"won_triplet_concealed": False}, {"specials_lift_threshold": True}])
    if rng.random() < 0.2:
        s["ruleset"] = "text000"
    return s


def _scored(s: dict) -> dict:
    try:
        return score_situation(s)
    except ValueError as e:
        return {"error": str(e)}


def _score_all(situations: list[dict], pure: str, cwd: Path) -> dict:
    done = _run(SCORE_ALL, {"XINGZI_PURE": pure}, cwd, json.dumps(situations, ensure_ascii=False))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_both_builds_score_alike(tmp_path: Path) -> None:
    """Each build in its own process, whichever build this one runs (``XINGZI_PURE`` set or not)."""
    if compiled._extension(compiled.HERE, compiled.GROUP + "__mypyc") is None:
        assert not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")), (
            "a C compiler is here but the engine is not compiled: run `make install`")
        pytest.skip("no C compiler here, so no compiled build to compare")
    rng = random.Random(7)
    situations = [json.loads(line)["situation"] for line in GOLDEN.read_text(encoding="utf-8").splitlines()
                  if line.strip()]
    situations += [_random_situation(rng) for _ in range(3000)]
    fast, pure = _score_all(situations, "", tmp_path), _score_all(situations, "1", tmp_path)
    assert fast["build"].startswith("compiled"), fast["build"]  # not a stale or missing build
    assert pure["build"].startswith("pure Python"), pure["build"]
    results = pure["results"]
    assert sum("error" in r for r in results) > 50 and sum(r.get("valid") is False for r in results) > 50
    for situation, ours, theirs in zip(situations, fast["results"], results, strict=True):
        assert ours == theirs, situation
    here = [_scored(s) for s in situations[:300]]  # and this process agrees with both
    assert here == results[:300]


def test_xingzi_pure_loads_the_python_source(tmp_path: Path) -> None:
    code = ("import importlib, json, xingzi.engine as e\n"
            "print(e.engine_build())\n"
            f"print(json.dumps([importlib.import_module('xingzi.engine.' + m).__file__ for m in {compiled.MODULES!r}]))")
    done = _run(code, {"XINGZI_PURE": "1"}, tmp_path)
    assert done.returncode == 0, done.stderr
    build, files = done.stdout.splitlines()
    assert build.startswith("pure Python")
    assert all(f.endswith(".py") for f in json.loads(files))


def test_this_process_loads_the_build_that_was_chosen() -> None:
    chosen = compiled.choose()
    for name in compiled.MODULES:
        module = importlib.import_module(f"xingzi.engine.{name}")
        assert str(module.__file__).endswith(".py") == (chosen == "pure"), module.__file__
    assert compiled.describe().startswith("compiled" if chosen == "compiled" else "pure Python")


def _fake_build(tmp_path: Path, manifest: bool) -> Path:
    """A copy of the engine package with stand-in (empty) extension files next to the sources:
    importing one of those would fail, so a passing import shows they were left alone."""
    engine = tmp_path / "xingzi" / "engine"
    shutil.copytree(compiled.HERE, engine, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__",
                                                                         compiled.MANIFEST))
    (engine.parent / "__init__.py").write_text("")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in (*compiled.MODULES, compiled.GROUP + "__mypyc"):
        (engine / (name + suffix)).write_bytes(b"")
    if manifest:
        (engine / compiled.MANIFEST).write_text(compiled.source_hashes(engine), encoding="utf-8")
    return engine


SCORE_ONE = ("from xingzi.engine import engine_build, score_situation\n"
             "print(engine_build())\n"
             "print(score_situation({'hand': '12m456m789p22345s3m', 'win_tile': '3m'})['own'])")


@pytest.mark.parametrize("edit, why", [
    pytest.param(True, "older than the source", id="edited-after-build"),
    pytest.param(False, "incomplete", id="no-manifest"),
])
def test_a_build_that_does_not_match_the_source_is_not_used(tmp_path: Path, edit: bool, why: str) -> None:
    engine = _fake_build(tmp_path, manifest=edit)
    if edit:
        with (engine / "items.py").open("a", encoding="utf-8") as f:
            f.write("# edited\n")
    done = _run(SCORE_ONE, {"PYTHONPATH": str(tmp_path), "XINGZI_PURE": ""}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"pure Python (the compiled build is {why})", "3"]
    assert f"the compiled build is {why}" in done.stderr  # with a warning


def test_the_bench_says_which_build_ran(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.run(argparse.Namespace(hands=30, seed=1, repeat=1, rules=None)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"xingzi engine build: {compiled.describe()}"
    assert any(line.startswith("ratio: ") for line in lines)
    assert any(line.startswith("CPU time per closed hand: xingzi ") for line in lines)


@pytest.mark.parametrize("which", [pytest.param(0, id="hand"), pytest.param(1, id="context"),
                                   pytest.param(2, id="payer")])
def test_values_survive_copy_and_pickle(which: int) -> None:
    """Hand, WinContext and Payer rebuild from their fields (``__reduce__``), in either build."""
    hand, ctx, _rules = parse_situation({"hand": "12m456m789p22345s3m", "win_tile": "3m", "self_draw": True,
                                         "events": [], "payers": [{"dealer": True, "fa": 1, "melds": ["pung 中"]}]})
    value = (hand, ctx, ctx.payers[0])[which]
    assert copy.copy(value) == value and copy.deepcopy(value) == value and pickle.loads(pickle.dumps(value)) == value
    assert WinContext() == WinContext(False, False, frozenset(), ())  # the default: a plain discard win
