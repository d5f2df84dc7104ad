"""What a synthetic dataset folder already holds, and which runs into it are refused: photo names carry only the
seed and index, so a run must not put other photos under the names of photos already there, nor put its photos
(and a data.yaml naming our classes) among photos no synth run made."""

from __future__ import annotations

import json
import re
from pathlib import Path

from xingzi.datasets.yolo import read_text

from .generate import made_as, style_key

RUNS_FILE = "synth_runs.jsonl"  # one line per run into a folder: its seed, indices and settings (how to make it again)
SETTINGS = ("imgsz", "styles", "blur_share")  # what a photo's bytes depend on besides its seed and index
_STEM = re.compile(r"synth_s(\d+)_(\d{6,})")


def stem(seed: int, index: int) -> str:
    return f"synth_s{seed}_{index:06d}"


def earlier_runs(out: Path) -> list[dict]:
    path = out / RUNS_FILE
    if not path.is_file():
        return []
    runs = []
    for i, line in enumerate(read_text(path).splitlines(), 1):  # not UTF-8: the file named, as a damaged line is
        try:
            run = json.loads(line)
            if not isinstance(run, dict) or not {"seed", "start", "n"} <= run.keys():
                raise ValueError
            runs.append(run)
        except ValueError:
            raise ValueError(f"{path}:{i}: expected a JSON object with seed, start and n, got {line[:80]!r}") from None
    return runs


def _same(key: str, old: object, new: object) -> bool:
    if key == "styles" and isinstance(old, list):  # the same photos from the styles in another order (see style_key)
        return style_key(old) == style_key(new)  # type: ignore[arg-type]
    return old == new


def refuse_other_settings(out: Path, run: dict, earlier: list[dict]) -> None:
    """A run with other settings on indices an earlier run of the seed wrote would replace those photos with others
    (same names, other faces or sizes): ValueError."""
    for old in earlier:
        first, last = max(run["start"], old["start"]), min(run["start"] + run["n"], old["start"] + old["n"]) - 1
        differ = [k for k in SETTINGS if not _same(k, old.get(k), run[k])]
        if old["seed"] == run["seed"] and first <= last and differ:
            was = ", ".join(f"{k} {old.get(k)}" for k in differ)
            names = stem(run["seed"], first) + ("" if first == last else f"..{stem(run['seed'], last)}")
            raise ValueError(f"{names} in {out} made with {was} ({out / RUNS_FILE}) would be replaced by photos of "
                             f"these settings: give another --seed, --start {old['start'] + old['n']} or more, "
                             "or a new folder")


def refuse_unlisted_photos(out: Path, run: dict, earlier: list[dict]) -> None:
    """Photos and labels in ``out`` that no line of its runs file lists are taken only when their meta says a synth
    run made them (a folder made before the runs file was kept, as the committed datasets/sample) and, where this run
    writes them again, that they are made as this run makes them: ValueError otherwise."""
    found = [f for d in ("images", "labels") if (out / d).is_dir() for f in sorted((out / d).rglob("*"))
             if f.is_file() and not any(p.startswith(".") for p in f.relative_to(out / d).parts)]  # (.x.tmp: ours)
    mine = [] if not found else [(f, m) for f in found if (m := _STEM.fullmatch(f.stem))]
    if len(mine) < len(found):
        other = next(f for f in found if not _STEM.fullmatch(f.stem))
        raise _not_ours(out, other, len(found) - len(mine), "its name is no synth photo's")
    unlisted: dict[str, tuple[int, int, dict]] = {}  # stem → seed, index, meta
    for f, m in mine:
        seed, index = int(m[1]), int(m[2])
        if f.stem in unlisted or any(r["seed"] == seed and r["start"] <= index < r["start"] + r["n"] for r in earlier):
            continue
        if f.suffix != (".jpg" if f.parent == out / "images" else ".txt") or f.parent.parent != out:
            raise _not_ours(out, f, 1, "synth writes images/NAME.jpg and labels/NAME.txt only")
        meta = _meta(out / "meta" / f"{f.stem}.json")
        if meta.get("seed") != seed or meta.get("index") != index:
            raise _not_ours(out, f, 1, f"no meta/{f.stem}.json of seed {seed} and index {index} beside it")
        unlisted[f.stem] = seed, index, meta
    mine_again = [(name, index, meta) for name, (seed, index, meta) in unlisted.items()
                  if seed == run["seed"] and run["start"] <= index < run["start"] + run["n"]]
    for name, index, meta in mine_again:
        made = made_as(run["seed"], index, run["imgsz"], tuple(run["styles"]), run["blur_share"])
        differ = [k for k in ("size", "style", "blur_share") if meta.get(k) != made.get(k)]
        if differ:
            after = max(i for s, i, _ in unlisted.values() if s == run["seed"]) + 1
            raise ValueError(f"{name} in {out} ({RUNS_FILE} lists no run that made it) has by its meta "
                             f"{', '.join(f'{k} {meta.get(k)}' for k in differ)}, where this run draws "
                             f"{', '.join(f'{k} {made.get(k)}' for k in differ)}: it would be replaced by another "
                             f"photo; give another --seed, --start {after} or more, or a new folder")


def _meta(path: Path) -> dict:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _not_ours(out: Path, first: Path, n: int, why: str) -> ValueError:
    more = f" and {n - 1} more" if n > 1 else ""
    return ValueError(f"{out} holds photos or labels no synth run made ({first.relative_to(out)}{more}: {why}; "
                      f"no line of a {RUNS_FILE} there lists them); expected a new folder or one made by `xingzi synth`")
