"""Mutation testing: how many small wrong changes to the code the tests notice.

    python -m tools.mutants list engine                        # mutation points per file
    python -m tools.mutants run engine --sample 480 --out runs/mutants/engine.jsonl
    python -m tools.mutants report runs/mutants/engine.jsonl   # caught / missed, the missed listed

A mutant is one change to one file: a comparison turned (``<`` into ``<=``, ``in`` into ``not in``),
``and``/``or`` swapped, an arithmetic operator swapped, a whole number moved by one or a decimal by a
fifth, a condition negated, a ``not`` dropped, a returned value replaced, a one-line statement made
``pass``; in TOML a number moved by one, a boolean flipped, a list element dropped. Each is written into
the file, the preset's tests run (``pytest -x``; failing, crashing or running past the timeout all
count as caught), and the file is put back. Presets (files, tests, environment) are data in
``tools/mutants.toml``.

The files are changed in place, so ``run`` works in a clone of this checkout's HEAD
(``runs/mutants/clone``, made or brought up to date first, with a ``.venv`` of its own that borrows this
one's packages and installs the clone's source, the engine uncompiled): commit what you want measured.
``--root DIR`` changes DIR instead. It refuses to start while a preset file differs from git's HEAD (a
run killed hard leaves its mutant behind: ``git checkout -- FILE``), or while the tests fail unchanged.
``run`` appends to ``--out`` and skips the mutants already there, so a stopped run goes on where it was.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import sysconfig
import time
import tomllib
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from tools.mutation_points import Mutant, mutants_of

ROOT = Path(__file__).resolve().parent.parent
PRESETS = Path(__file__).with_name("mutants.toml")


def load_preset(name: str, presets: Path = PRESETS) -> dict:
    table = tomllib.loads(presets.read_text(encoding="utf-8"))
    if name not in table:
        raise ValueError(f"preset {name!r}: expected one of {', '.join(sorted(table))} ({presets})")
    return table[name]


def preset_files(preset: dict, root: Path) -> list[str]:
    excluded = {p.relative_to(root).as_posix() for g in preset.get("exclude", []) for p in root.glob(g)}
    found = sorted({p.relative_to(root).as_posix() for g in preset["files"] for p in root.glob(g)} - excluded)
    if not found:
        raise ValueError(f"no file under {root} matches {preset['files']}")
    return found


# --- running ----------------------------------------------------------------------------------------

def run_tests(root: Path, preset: dict, python: str) -> tuple[str, float, str]:
    """``caught`` or ``missed``, the seconds taken, the first failing test (or the output's end)."""
    cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--hypothesis-seed=0",
           *(f"--deselect={d}" for d in preset.get("deselect", [])), *preset["tests"]]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **preset.get("env", {})}
    began = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                              timeout=preset.get("timeout", 120), start_new_session=True)
    except subprocess.TimeoutExpired:
        return "caught", time.perf_counter() - began, "timeout"
    failed = [ln for ln in done.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    why = failed[0] if failed else (done.stdout.strip().splitlines() or [""])[-1]
    return ("missed" if done.returncode == 0 else "caught"), time.perf_counter() - began, why[:300]


def prepare_clone(source: Path, clone: Path) -> Path:
    """A clone of ``source``'s HEAD at ``clone`` with a ``.venv`` running its own source: made once,
    then moved to the new HEAD on each run (a run's mutant left behind is reset away)."""
    if not (clone / ".git").is_dir():
        if clone.exists():
            raise ValueError(f"--clone {clone}: exists and is no git clone (expected a folder this tool made)")
        clone.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["git", "fetch", "-q", str(source), head], cwd=clone, check=True)
    subprocess.run(["git", "reset", "-q", "--hard", head], cwd=clone, check=True)
    python = clone / ".venv" / "bin" / "python"
    installable = (clone / "pyproject.toml").exists() or (clone / "setup.py").exists()
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(clone / ".venv")], check=True)
        # this environment's packages, without its editable install of the source outside the clone
        site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              capture_output=True, text=True, check=True).stdout.strip()
        Path(site, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
        if installable:
            subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(clone)],
                           env={**os.environ, "XINGZI_PURE": "1"}, check=True)
    return clone


def check_clean(root: Path, files: list[str]) -> None:
    changed = subprocess.run(["git", "status", "--porcelain", "--", *files], cwd=root,
                             capture_output=True, text=True, check=True).stdout.strip()
    if changed:
        raise ValueError(f"these files differ from git's HEAD (a mutant left by a killed run? "
                         f"`git checkout -- FILE`):\n{changed}")


def _rows(out: Path) -> list[dict]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]


def run(root: Path, preset: dict, chosen: list[Mutant], out: Path, python: str) -> dict:
    check_clean(root, sorted({m.file for m in chosen}))
    status, _, why = run_tests(root, preset, python)
    if status != "missed":
        raise ValueError(f"the tests fail before any change: {why}")
    out.parent.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                            check=True).stdout.strip()
    earlier = {str(r.get("commit")) for r in _rows(out)} - {commit}
    if earlier:
        raise ValueError(f"{out} holds mutants of commit {min(earlier)[:12]}, not of this checkout's "
                         f"{commit[:12]} (their numbering differs): write to another --out")
    seen = {r["id"] for r in _rows(out)}

    def stop(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")  # the finally below puts the file back

    signal.signal(signal.SIGTERM, stop)
    for n, mutant in enumerate(m for m in chosen if m.id not in seen):
        path = root / mutant.file
        original = path.read_bytes()
        try:
            path.write_bytes(mutant.apply(original))
            status, secs, why = run_tests(root, preset, python)
        finally:
            path.write_bytes(original)
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps({**asdict(mutant), "commit": commit, "status": status, "secs": round(secs, 1),
                                "why": why},
                               ensure_ascii=False) + "\n")
        print(f"{n + 1:4d} {status:6s} {mutant.file}:{mutant.line} {mutant.old!r} -> {mutant.new!r}", flush=True)
    return summary(out)


def summary(out: Path) -> dict:
    rows = _rows(out)
    if not rows:
        raise ValueError(f"{out}: no mutants recorded (expected the --out of a run)")
    counts = Counter(r["status"] for r in rows)
    by_file: dict[str, Counter] = {}
    for r in rows:
        by_file.setdefault(r["file"], Counter())[r["status"]] += 1
    return {"mutants": len(rows), "caught": counts["caught"], "missed": counts["missed"],
            "caught_pct": round(100 * counts["caught"] / max(len(rows), 1), 1),
            "by_file": {f: dict(c) for f, c in sorted(by_file.items())},
            "missed_list": [f"{r['file']}:{r['line']} [{r['kind']}] {r['old']!r} -> {r['new']!r}"
                            for r in rows if r["status"] == "missed"]}


def print_summary(numbers: dict) -> None:
    print(f"{numbers['mutants']} mutants: {numbers['caught']} caught, {numbers['missed']} missed "
          f"({numbers['caught_pct']} % caught)")
    for file, counts in numbers["by_file"].items():
        print(f"  {file:<36} caught {counts.get('caught', 0):4d}  missed {counts.get('missed', 0):4d}")
    for line in numbers["missed_list"]:
        print("  missed " + line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.mutants", description=(__doc__ or "").split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("list", "run"):
        p = sub.add_parser(name)
        p.add_argument("preset", help=f"a table of {PRESETS.name}")
        p.add_argument("--root", type=Path, default=None,
                       help="the repository changed and tested, in place (default: a clone, --clone)")
        p.add_argument("--presets", type=Path, default=PRESETS)
    run_p = sub.choices["run"]
    run_p.add_argument("--clone", type=Path, default=ROOT / "runs" / "mutants" / "clone",
                       help="where the clone of this checkout's HEAD is kept (without --root)")
    run_p.add_argument("--sample", type=int, default=0, help="this many mutants drawn at random (0: all)")
    run_p.add_argument("--seed", type=int, default=0)
    run_p.add_argument("--out", type=Path, required=True, help="JSON lines, one per mutant (appended)")
    run_p.add_argument("--python", default=None, help="the interpreter running pytest (default: ROOT/.venv)")
    report = sub.add_parser("report")
    report.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    try:
        if args.command == "report":
            print_summary(summary(args.out))
            return 0
        preset = load_preset(args.preset, args.presets)
        if args.root is not None:
            root = args.root.resolve()
        elif args.command == "run":
            root = prepare_clone(ROOT, args.clone.resolve())
        else:
            root = ROOT
        found = mutants_of(root, preset_files(preset, root), preset.get("choices"))
        if args.command == "list":
            for file, n in sorted(Counter(m.file for m in found).items()):
                print(f"{file:<36} {n:5d}")
            print(f"{'all':<36} {len(found):5d}")
            return 0
        if args.sample < 0:
            raise ValueError(f"--sample: expected 0 (all) or more, got {args.sample}")
        chosen = found if not args.sample else random.Random(args.seed).sample(found, min(args.sample, len(found)))
        chosen.sort(key=lambda m: (m.file, m.start))
        venv = root / ".venv" / "bin" / "python"
        python = args.python or (str(venv) if venv.exists() else sys.executable)
        print_summary(run(root, preset, chosen, args.out, python))
    except (ValueError, OSError, subprocess.CalledProcessError) as e:
        print(f"mutants: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mutants: stopped; the file being changed was put back", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
