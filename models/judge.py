"""Judge a candidate detector against the shipped reading, photo by photo, on every measurement set.

    python -m xingzi.models.judge runs/train/gpu800/weights/best.pt            # or a .onnx
    python -m xingzi.models.judge CANDIDATE --sets /tmp --second none          # reuse sets made earlier

A new stage of training is shipped only on a gain that holds on ``real_cn_val`` and on the sets not used to
choose (docs/detector.md, "Continue in a later session"). This runs the commands that decide it — ``xingzi eval``
on the real validation photos and the synthetic seed-99 set, ``xingzi bench pipeline`` end to end on the held-out
seeds and the composite hands — once with the shipped models and once with the candidate, pairs the two readings
photo by photo (McNemar's exact p), and prints the verdict with every command it ran. The real photos' saved
boxes are also scored against the corrected labels (``--errata auto``); that row is shown, not counted, since the
corrections were found with the shipped model's help. The shipped readings are
kept under ``OUT/shipped-<hash of the shipped model files>/``, so the next candidate pays only for its own.
"""

from __future__ import annotations

import argparse
import codecs
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from xingzi.vision.eval_compare import compare, compare_runs, format_p, mcnemar_p

ROOT = Path(__file__).resolve().parent
REAL_VAL = Path("../shared/data/real_cn_val")
SETS_DIR = Path("runs/judge/sets")
OUT_DIR = Path("runs/judge")
SECOND = ROOT / "xingzi_yolo11n_s5.onnx"  # a new stage reads with the stage-5 second opinion, as the shipped one does
HAND_MAX = 18
PREDS = "boxes"  # where an eval reading keeps its boxes, inside its folder
# the files whose bytes make the shipped reading (a code change that moves it needs --fresh)
SHIPPED_FILES = ("xingzi_yolo11n.onnx", "xingzi_yolo11n_s5.onnx", "xingzi_tilecls.onnx", "xingzi_tilecls.json",
                 "xingzi_tilecls_w32.onnx", "xingzi_tilecls_w32.json")

Runner = Callable[[list[str]], None]


@dataclass(frozen=True)
class MeasureSet:
    """One set the two readings are measured on: ``eval`` (tiles against labels) or ``pipeline`` (炮 totals)."""

    name: str
    kind: str
    make: tuple[str, ...] = ()  # the command that makes it (after `python -m`), empty for a set that is given
    flags: tuple[str, ...] = ()  # more options of its command
    decides: bool = True  # False: shown beside the others, left out of the verdict
    rescores: str = ""  # the eval set whose saved boxes it scores again (no model call), when they are there

    def path(self, sets: Path, real: Path) -> Path:
        if not self.make:
            return real
        if "--real" in self.make and other_photos(real):  # made from other photos: kept apart
            return sets / f"{self.name}-real-{real_key(real)}"
        return sets / self.name

    def data_arg(self, sets: Path, real: Path) -> Path:
        folder = self.path(sets, real)
        return folder / "data.yaml" if self.kind == "eval" and self.make else folder


def measure_sets(real: Path) -> tuple[MeasureSet, ...]:
    """The decisive set first (the real photos), then the sets not used to choose."""
    heldout = tuple(MeasureSet(f"heldout_s{s}", "pipeline", ("xingzi", "synth", "--n", "150", "--seed", str(s),
                                                            "--imgsz", "1280")) for s in (59, 71, 83))
    return (MeasureSet("real_cn_val", "eval"),
            MeasureSet("real_corrected", "eval", flags=("--errata", "auto"), decides=False, rescores="real_cn_val"),
            MeasureSet("synth_s99", "eval", ("xingzi", "synth", "--n", "300", "--seed", "99", "--imgsz", "640")),
            *heldout,
            MeasureSet("composite_s7", "pipeline", ("xingzi.datasets.composite", "--real", str(real), "--n", "150",
                                                    "--seed", "7")))


@dataclass(frozen=True)
class Pairing:
    """One set: the figure of each reading and the photos only the candidate (gained) or only the shipped reading
    (lost) gets right — image exact for ``eval`` sets, the 炮 total for ``pipeline`` sets."""

    name: str
    measure: str
    shipped: float
    candidate: float
    gained: int
    lost: int
    decides: bool = True

    @property
    def net(self) -> int:
        return self.gained - self.lost

    @property
    def p(self) -> float:
        return mcnemar_p(self.gained, self.lost)


def verdict(pairings: Sequence[Pairing]) -> tuple[bool, str]:
    """Ship when the candidate reads more real photos exactly than it loses, and the sets not used to choose
    lose no more photos than they gain, together."""
    if not pairings or pairings[0].name != "real_cn_val":
        raise ValueError(f"expected the real_cn_val pairing first, got {[p.name for p in pairings][:1]}")
    real, rest = pairings[0], [p for p in pairings[1:] if p.decides]
    rest_net = sum(p.net for p in rest)
    if real.net <= 0:
        return False, f"real_cn_val: no gain (net {real.net:+d})"
    if rest_net < 0:
        return False, f"real_cn_val gains (net {real.net:+d}) but the other sets lose (net {rest_net:+d})"
    return True, f"real_cn_val gains (net {real.net:+d}, p {format_p(real.p)}); the other sets net {rest_net:+d}"


def shipped_key(models: Path = ROOT) -> str:
    """12 hex digits over the shipped model files' bytes: a new shipped model gets new shipped readings."""
    h = hashlib.sha256()
    for name in SHIPPED_FILES:
        path = models / name
        h.update(name.encode())
        h.update(path.read_bytes() if path.exists() else b"-")
    return h.hexdigest()[:12]


def errata_fit(real: Path) -> bool:
    """Whether the shipped label corrections (``--errata auto``) are written for this folder of photos: named as
    it is, and fixing only photos it holds (else its eval would stop after the readings were paid for)."""
    from xingzi.datasets.errata import errata_for
    from xingzi.datasets.yolo import image_files

    try:
        return errata_for("auto", real, image_files(real / "images")) is not None
    except (ValueError, FileNotFoundError):
        if not other_photos(real):  # written for these: a broken file is to be said, not passed over
            raise
        return False


def other_photos(real: Path) -> bool:
    """Whether ``real`` is some folder other than the real validation photos the shipped readings are of."""
    return real.resolve() != REAL_VAL.resolve()


def real_key(real: Path) -> str:
    """8 hex digits naming a folder of real photos by where it is and the files it holds (names and sizes)."""
    h = hashlib.sha256(str(real.resolve()).encode())
    for path in sorted(p for p in real.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(real)}:{path.stat().st_size}".encode())
    return h.hexdigest()[:8]


def second_key(second: str) -> str:
    """8 hex digits naming a second opinion: its bytes when it is a file, else the word itself ('none')."""
    path = Path(second)
    return hashlib.sha256(path.read_bytes() if path.is_file() else second.encode()).hexdigest()[:8]


def reading_args(model: Path | None, second: str | None) -> list[str]:
    """The model flags of one reading; none for the shipped one (its defaults)."""
    args = [] if model is None else ["--model", str(model)]
    return args + ([] if second is None else ["--second", second])


def run_reading(mset: MeasureSet, data: Path, flags: list[str], out: Path, runner: Runner) -> Path:
    """Read one set once (skipped when its result is already there); the path of the result JSON."""
    if mset.kind == "eval":
        folder = out / mset.name
        found = _eval_json(folder)
        if found is None:
            saved = _saved_boxes(out / mset.rescores) if mset.rescores else None
            reading = ["--preds", str(saved)] if saved else [*flags, "--save-preds", str(folder / PREDS)]
            runner(["xingzi", "eval", "--data", str(data), *mset.flags, *reading, "--out", str(folder)])
            found = _eval_json(folder)
        if found is None:
            raise ValueError(f"xingzi eval wrote no result JSON to {folder}")
        return found
    result = out / f"{mset.name}.json"
    if not result.exists():
        runner(["xingzi", "bench", "pipeline", "--data", str(data), "--boxes", "model", *flags,
                "--json-out", str(result)])
    return result


def _saved_boxes(folder: Path) -> Path | None:
    """The one row of boxes an eval reading saved (``--save-preds``), or None (read before boxes were saved)."""
    rows = sorted(p for p in (folder / PREDS).iterdir() if p.is_dir()) if (folder / PREDS).is_dir() else []
    return rows[0] if len(rows) == 1 else None


def _eval_json(folder: Path) -> Path | None:
    rows = sorted(p for p in folder.glob("*.json") if p.name != "comparison.json") if folder.is_dir() else []
    if len(rows) > 1:
        raise ValueError(f"{folder} holds {len(rows)} result rows; expected one (remove the folder to read again)")
    return rows[0] if rows else None


def pair(mset: MeasureSet, shipped: Path, candidate: Path) -> Pairing:
    base, other = (json.loads(p.read_text(encoding="utf-8")) for p in (shipped, candidate))
    if mset.kind == "eval":
        paired = compare(base, other, HAND_MAX)
        return Pairing(mset.name, "image exact %", 100 * base["summary"]["image_exact"],
                       100 * other["summary"]["image_exact"], len(paired.gained), len(paired.lost), mset.decides)
    gained, lost = compare_runs(base, other)
    return Pairing(mset.name, "炮 total exact %", base["pao_total_exact_pct"], other["pao_total_exact_pct"],
                   len(gained), len(lost), mset.decides)


def prepare_candidate(candidate: Path, out: Path) -> Path:
    """The candidate as ONNX: a .pt is stripped and exported beside the judgement, as it would be shipped."""
    if not candidate.is_file():
        raise ValueError(f"candidate weights not found: {candidate} (expected a .pt checkpoint or an .onnx)")
    if candidate.suffix == ".onnx":
        return candidate
    if candidate.suffix != ".pt":
        raise ValueError(f"expected a .pt checkpoint or an .onnx for the candidate, got {candidate.name}")
    from xingzi.models.ship import ship

    onnx = out / "xingzi_yolo11n.onnx"
    if not onnx.exists():
        for line in ship(candidate, out / "xingzi_yolo11n.pt", onnx):
            print(line)
    return onnx


def subprocess_runner(cmd: list[str]) -> None:
    """Run one step as ``python -m ...``, its output shown as it comes; a failed step stops the judgement
    (CalledProcessError, its ``stderr`` the step's last line of errors: its own "error:" line, a traceback's last)."""
    print("$ python -m", *cmd, flush=True)
    decoder, tail = codecs.getincrementaldecoder("utf-8")(errors="replace"), ""
    with subprocess.Popen([sys.executable, "-m", *cmd], stderr=subprocess.PIPE) as proc:
        assert proc.stderr is not None
        while chunk := os.read(proc.stderr.fileno(), 65536):  # passed on at once: progress bars redraw in place
            text = decoder.decode(chunk)
            sys.stderr.write(text)
            sys.stderr.flush()
            tail = (tail + text)[-4000:]
    if proc.returncode:
        said = [line.strip() for line in tail.replace("\r", "\n").splitlines() if line.strip()]
        raise subprocess.CalledProcessError(proc.returncode, cmd, stderr=said[-1] if said else "")


def judge(candidate: Path, second: str | None, sets: Path, out: Path, real: Path, only: Sequence[str] = (),
          runner: Runner = subprocess_runner) -> tuple[bool, str, list[Pairing]]:
    chosen = [m for m in measure_sets(real)
              if not only or m.name in only or "real_cn_val" in (m.name, m.rescores)]  # the real photos always
    if not errata_fit(real):  # shown, never counted: left out for photos the shipped corrections are not about
        chosen = [m for m in chosen if "--errata" not in m.flags]
    unknown = set(only) - {m.name for m in measure_sets(real)}
    if unknown:
        raise ValueError(f"unknown sets {sorted(unknown)}; expected some of {[m.name for m in measure_sets(real)]}")
    if not real.is_dir():
        raise ValueError(f"real validation photos not found at {real} (give --real)")
    cand_out = out / f"candidate-{candidate.stem}-{hashlib.sha256(candidate.read_bytes()).hexdigest()[:8]}" \
        if candidate.is_file() else out / "candidate"
    if second is not None:  # another partner gives other readings: they must not be taken for these
        cand_out = cand_out.with_name(f"{cand_out.name}-second-{second_key(second)}")
    base_out = out / f"shipped-{shipped_key()}"
    if other_photos(real):  # other photos give other readings: they must not be taken for these
        cand_out, base_out = (d.with_name(f"{d.name}-real-{real_key(real)}") for d in (cand_out, base_out))
    onnx = prepare_candidate(candidate, cand_out)
    pairings = []
    for mset in chosen:
        data = mset.data_arg(sets, real)
        if mset.make and not mset.path(sets, real).exists():
            runner([*mset.make, "--out", str(mset.path(sets, real))])
        base = run_reading(mset, data, [], base_out, runner)
        cand = run_reading(mset, data, reading_args(onnx, second), cand_out, runner)
        pairings.append(pair(mset, base, cand))
    ok, why = verdict(pairings)
    (cand_out / "judgement.json").write_text(json.dumps(
        {"candidate": str(candidate), "second": second, "ship": ok, "why": why,
         "sets": [{**asdict(p), "p": p.p} for p in pairings]}, indent=2) + "\n", encoding="utf-8")
    return ok, why, pairings


def report(pairings: Sequence[Pairing], ok: bool, why: str) -> str:
    lines = [f"{'set':<16}{'measure':<18}{'shipped':>9}{'candidate':>11}   photos only candidate / only shipped"]
    for p in pairings:
        lines.append(f"{p.name:<16}{p.measure:<18}{p.shipped:>9.1f}{p.candidate:>11.1f}   "
                     f"+{p.gained} -{p.lost} (net {p.net:+d}, McNemar p {format_p(p.p)})"
                     + ("" if p.decides else "   shown, not counted"))
    lines.append(f"verdict: {'ship' if ok else 'keep the shipped model'}: {why}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m xingzi.models.judge", description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate", type=Path, help="candidate detector weights: a training .pt or an .onnx")
    ap.add_argument("--second", default=str(SECOND),
                    help="the candidate's second opinion .onnx, or 'none' (default: the shipped stage-5 model)")
    ap.add_argument("--sets", type=Path, default=SETS_DIR,
                    help=f"where the synthetic sets are, made there when missing (default {SETS_DIR}; names "
                         "synth_s99, heldout_s59/71/83, composite_s7)")
    ap.add_argument("--real", type=Path, default=REAL_VAL, help=f"the real validation photos (default {REAL_VAL})")
    ap.add_argument("--out", type=Path, default=OUT_DIR, help=f"where the readings and the verdict go ({OUT_DIR})")
    ap.add_argument("--only", nargs="+", default=[], metavar="SET",
                    help="these sets besides real_cn_val (a quick look; the verdict is then on those alone)")
    args = ap.parse_args(argv)
    try:
        ok, why, pairings = judge(args.candidate, args.second, args.sets, args.out, args.real, args.only)
    except ValueError as e:
        print(f"judge: error: {e}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:  # the step's own words, not only its exit status
        said = f": {e.stderr}" if e.stderr else ""
        print(f"judge: error: the step `python -m {' '.join(map(str, e.cmd))}` stopped (exit status {e.returncode})"
              f"{said}", file=sys.stderr)
        return 2
    print(report(pairings, ok, why))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
