"""Ship a checkpoint: strip the optimizer into ``models/xingzi_yolo11n.pt`` and export
``models/xingzi_yolo11n.onnx`` (static input at the training size, simplified, cut before its box
decoding: ``models/onnx_head.py``) for ONNX Runtime and OpenVINO (``vision/sessions.py``).

    xingzi train --ship best                          # best.pt of the run under ./runs/train with the highest val mAP50-95
    xingzi train --ship runs/train/real416            # the run's best.pt
    xingzi train --ship runs/train/real416/weights/last.pt
    python -m xingzi.models.ship RUN_DIR_OR_PT
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from xingzi.datasets.classnames import class_id_for_name
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.models.onnx_head import any_size, cut

MODELS_DIR = Path(__file__).resolve().parent
SHIPPED_PT = MODELS_DIR / "xingzi_yolo11n.pt"
SHIPPED_ONNX = MODELS_DIR / "xingzi_yolo11n.onnx"
SHIP_IMGSZ = 640
MAX_BYTES = 25 * 1024 * 1024


def is_checkout() -> bool:
    """Whether the models folder is a checkout's (its project file beside it), not an installed package's."""
    return (MODELS_DIR.parent / "pyproject.toml").is_file()


def best_run(project: Path) -> tuple[Path, float]:
    """The run under ``project`` whose validation mAP50-95 (results.csv) is highest, and that value."""
    from xingzi.models.train import read_results_csv

    scored = []
    for results in project.glob("*/results.csv"):
        values = [v for v in read_results_csv(results).get("metrics/mAP50-95(B)", []) if isinstance(v, float)]
        if values and (results.parent / "weights" / "best.pt").is_file():
            scored.append((max(values), results.parent))
    if not scored:
        raise FileNotFoundError(f"no run with results.csv and weights/best.pt under {project}")
    value, run = max(scored)
    return run, value


def checkpoint_of(source: Path) -> Path:
    """A run dir → its weights/best.pt (else last.pt); a .pt → itself; ``best`` → the best run's best.pt (of
    ./runs/train, where `xingzi train` writes)."""
    source = Path(source)
    if str(source) == "best":
        from xingzi.models.train import runs_dir

        return best_run(runs_dir() / "train")[0] / "weights" / "best.pt"
    if source.is_file() and source.suffix == ".pt":
        return source
    for name in ("best.pt", "last.pt"):
        if (source / "weights" / name).is_file():
            return source / "weights" / name
    raise FileNotFoundError(f"no checkpoint: expected a .pt file or a run dir with weights/best.pt, got {source}")


def ship(source: Path, out_pt: Path = SHIPPED_PT, out_onnx: Path | None = SHIPPED_ONNX,
         imgsz: int | None = None) -> list[str]:
    """Copy+strip+export (ONNX at ``imgsz``, default the training size); returns report lines."""
    shipped = {SHIPPED_PT.resolve(), SHIPPED_ONNX.resolve()}
    if not is_checkout() and {Path(p).resolve() for p in (out_pt, out_onnx) if p is not None} & shipped:
        raise ValueError(f"{MODELS_DIR} is an installed package's: shipping replaces the models of a checkout of the "
                         "project (git clone, make install), where they are committed; an installed xingzi takes "
                         "another detector with --model PATH")
    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics()
    from ultralytics import YOLO
    from ultralytics.utils.torch_utils import strip_optimizer

    ckpt = checkpoint_of(source)
    import torch

    try:
        raw = torch.load(ckpt, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001 — a file of any bytes: torch raises many kinds
        raise ValueError(f"{ckpt}: not an Ultralytics checkpoint ({type(e).__name__})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{ckpt}: not an Ultralytics checkpoint")
    epoch = raw.get("epoch", "?")  # strip_optimizer resets it
    imgsz = imgsz or (raw.get("train_args") or {}).get("imgsz") or SHIP_IMGSZ
    with tempfile.TemporaryDirectory() as tmp:
        stripped = Path(tmp) / "model.pt"
        info = strip_optimizer(ckpt, str(stripped))
        if not info:
            raise ValueError(f"{ckpt} is not an Ultralytics checkpoint")
        names = getattr(info["model"], "names", {}) or {}
        if len(names) != 31:
            raise ValueError(f"{ckpt} has {len(names)} classes, expected 31")
        wrong = [(k, names[k]) for k in sorted(names) if class_id_for_name(str(names[k])) != k]
        if wrong:  # the detector reads classes by their place: class 30 is `back` whatever the network calls it
            k, name = wrong[0]
            raise ValueError(f"{ckpt}: class {k} is {name!r} where ours is {CLASS_NAMES[k]!r}: trained on a class "
                             f"list that is not ours ({len(wrong)} differ); train on a set merged into ours "
                             "(`xingzi dataset merge`)")
        if stripped.stat().st_size > MAX_BYTES:
            raise ValueError(f"stripped weights are {stripped.stat().st_size / 1e6:.1f} MB, over the 25 MB limit")
        # Both files are made beside their places and put there together at the end: stopped midway (Ctrl-C, an
        # export that fails), the pair shipped before stays as it was, never a new .pt beside the old .onnx.
        staged = [_staged(out_pt)] + ([_staged(out_onnx)] if out_onnx is not None else [])
        try:
            shutil.copyfile(stripped, staged[0])
            if out_onnx is not None:
                exported = Path(YOLO(str(stripped)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=False,
                                                           half=False, device="cpu", nms=False))
                cut(exported, Path(tmp) / "cut.onnx")  # the box decoding runs faster in numpy (vision/dfl.py)
                any_size(Path(tmp) / "cut.onnx", staged[1])  # a canvas shaped like the photo: less padding to read
            places = [out_pt] + ([out_onnx] if out_onnx is not None else [])
            for made, place in zip(staged, places, strict=True):
                os.replace(made, place)
        finally:
            for made in staged:
                made.unlink(missing_ok=True)
        when = f"epoch index {epoch}" if isinstance(epoch, int) and epoch >= 0 else "final weights"
        lines = [f"{ckpt} ({when}) -> {out_pt} ({out_pt.stat().st_size / 1e6:.1f} MB)"]
        if out_onnx is not None:
            lines.append(f"exported {out_onnx} ({out_onnx.stat().st_size / 1e6:.1f} MB, made at {imgsz}x{imgsz}, "
                         "takes any size)")
    return lines


def _staged(place: Path) -> Path:
    """Where the file for ``place`` is made first: hidden beside it (the same disk, so putting it there is a rename)."""
    place.parent.mkdir(parents=True, exist_ok=True)
    return place.with_name(f".{place.name}.shipping")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="run dir (uses weights/best.pt), a .pt checkpoint, or 'best'")
    ap.add_argument("--no-onnx", action="store_true")
    ap.add_argument("--imgsz", type=int, default=None, help="ONNX input size (default: the training size)")
    args = ap.parse_args(argv)
    for line in ship(args.source, out_onnx=None if args.no_onnx else SHIPPED_ONNX, imgsz=args.imgsz):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
