"""Fine-tune the 31-class YOLO11n tile detector with Ultralytics, offline, on CPU or GPU.

Runs go to ``runs/train`` under the current folder (as ``xingzi eval`` writes ``runs/eval``), not the package's.
The real photos are read from ``../shared/data`` through a *data view* under that ``runs/`` (symlinked
images, labels remapped to our 31 classes), so no photo is ever copied into the repository.
Settings are written as ``xingzi_train.json`` beside Ultralytics' own ``args.yaml`` in the run dir.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xingzi.datasets.errata import shipped_fixer, training_images
from xingzi.datasets.yolo import atomic_write_text, format_labels, image_files, read_labels
from xingzi.engine.tiles import CLASS_NAMES

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"
# Where training starts: the shipped detector (new photos teach it more), or with `--model mahjong-detector` that
# package's network converted to our 31 classes, where the first runs began
START_WEIGHTS = REPO / "models" / "xingzi_yolo11n.pt"
CONVERTED_START = REPO / "runs" / "start" / "mahjong_detector_31.pt"  # a cache of the package's, not a run
# real_cn_* label ids 0..29 are our faces; 30 is `other` (winds, flowers), dropped -> background.
REAL_OTHER_CLASS = 30


def runs_dir() -> Path:
    """``runs/`` under the current folder, read when used (a user's run lands where they work)."""
    return Path.cwd() / "runs"


@dataclass(frozen=True)
class TrainConfig:
    data: str
    model: str
    imgsz: int = 416
    epochs: int = 30
    batch: int = 16
    device: str | None = None  # None: Ultralytics picks cuda:0 when there is one, else cpu
    workers: int = 2
    optimizer: str = "SGD"
    lr0: float = 0.02
    warmup_epochs: float = 0.3
    freeze: int | None = 10
    fliplr: float = 0.0  # a mirrored 萬 is not a tile
    mosaic: float = 1.0
    degrees: float = 0.0
    cache: bool = True
    save_period: int = 1
    close_mosaic: int = 10
    patience: int = 100
    project: str = field(default_factory=lambda: str(runs_dir() / "train"))  # absolute: a resume writes there
    name: str = "real416"
    seed: int = 0
    time: float | None = None  # hours; Ultralytics then fits the epochs (and LR schedule) to this budget
    bf16: bool = False  # on the CPU: forward and loss in bfloat16 (weights and optimizer stay float32)
    extra: dict = field(default_factory=dict)

    def ultralytics_kwargs(self) -> dict:
        kw = {k: v for k, v in asdict(self).items() if k not in ("model", "extra", "bf16")}
        if self.bf16:
            kw["amp"] = "bf16"
        kw.update(self.extra)
        kw.update(exist_ok=False, plots=False, verbose=True, val=True)
        for key in ("device", "time"):
            if kw[key] is None:
                kw.pop(key)
        return kw


def remap_real_labels(rows: np.ndarray) -> np.ndarray:
    """Drop `other` rows of a real_cn label array; class ids 0..29 are already ours."""
    if len(rows) and (rows[:, 0].min() < 0 or rows[:, 0].max() > REAL_OTHER_CLASS):
        raise ValueError(f"real_cn labels must use ids 0..{REAL_OTHER_CLASS}, got {sorted(set(rows[:, 0]))}")
    return rows[rows[:, 0] != REAL_OTHER_CLASS]


def make_view(src: Path, dst: Path, loose_over: float | None = None) -> int:
    """Symlink ``src/images/*`` into ``dst/images`` and write remapped labels to ``dst/labels`` (with
    ``loose_over``: without the augmented copies whose boxes are looser, datasets/loose_boxes)."""
    images = training_images(src, loose_over)  # less photos whose labels cannot be mended (datasets/errata)
    if not images:
        raise FileNotFoundError(f"no images under {src / 'images'}")
    (dst / "images").mkdir(parents=True, exist_ok=True)
    (dst / "labels").mkdir(parents=True, exist_ok=True)
    fixed = shipped_fixer(src)  # known label errors corrected (datasets/errata)
    kept = {img.name for img in images}
    for link in list((dst / "images").iterdir()):  # from a view made with other photos left out
        if link.name not in kept:
            link.unlink()
            (dst / "labels" / f"{link.stem}.txt").unlink(missing_ok=True)
    for img in images:
        link = dst / "images" / img.name
        if not link.is_symlink():
            link.symlink_to(img.resolve())
        rows = remap_real_labels(fixed(img.name, read_labels(src / "labels" / f"{img.stem}.txt")))
        atomic_write_text(dst / "labels" / f"{img.stem}.txt", format_labels(rows))
    return len(images)


def data_yaml(path: Path, train: list[Path], val: list[Path]) -> Path:
    """A data.yaml with absolute image dirs and the 31 class names."""
    lines = ["train:"] + [f"  - {p.resolve().as_posix()}" for p in train]
    lines += ["val:"] + [f"  - {p.resolve().as_posix()}" for p in val]
    lines += [f"nc: {len(CLASS_NAMES)}", "names:"] + [f"  {i}: {n}" for i, n in enumerate(CLASS_NAMES)]
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path


def prepare_real_view(shared: Path = SHARED_DATA, out: Path | None = None,
                      extra_train: list[Path] | None = None, loose_over: float | None = None) -> Path:
    """Build the real_cn view (default ``runs/data/real_cn`` here) and return its data.yaml (optionally with extra
    train image dirs; ``loose_over``: training copies with looser boxes left out, the validation photos all kept)."""
    out = out or runs_dir() / "data" / "real_cn"
    for split in ("train", "val"):
        make_view(shared / f"real_cn_{split}", out / split, loose_over if split == "train" else None)
    train = [out / "train" / "images"] + list(extra_train or [])
    name = "data.yaml" if not extra_train else "data_plus.yaml"
    return data_yaml(out / name, train, [out / "val" / "images"])


def check_data(path: Path) -> None:
    """A data.yaml of the user's own (``xingzi train --data``) checked as Ultralytics will read it, before it starts
    and makes a run folder: YAML with 'train', 'val' and 'names', our 31 classes in our order (any spelling
    ``xingzi eval`` maps), the image folders or lists there, and label files beside them with our class ids."""
    from xingzi.datasets.check import load_yaml
    from xingzi.vision.eval_data import names_from

    if path.suffix.lower() not in (".yaml", ".yml"):
        raise ValueError(f"--data: expected a data.yaml (.yaml or .yml), got {path}")
    try:
        cfg = load_yaml(path)
    except ValueError as e:  # (it names the file)
        raise ValueError(f"--data {e}") from None
    if not isinstance(cfg, dict) or not all(cfg.get(k) for k in ("train", "val", "names")):
        keys = sorted(map(str, cfg)) if isinstance(cfg, dict) else type(cfg).__name__
        raise ValueError(f"--data {path}: expected a data.yaml with 'train', 'val' and 'names', got {keys}")
    names = names_from(cfg["names"])
    strange = _not_tiles(names)
    if strange:
        raise ValueError(f"--data {path}: class names {', '.join(map(repr, strange[:5]))} are no tile names "
                         f"(expected our 31 classes in our order, {', '.join(CLASS_NAMES[:3])}…, in any spelling "
                         "`xingzi eval` reads)")
    from xingzi.datasets.classnames import class_id_for_name

    moved = [(k, n) for k, n in enumerate(names) if class_id_for_name(n) != k]
    if moved or len(names) != len(CLASS_NAMES):  # a network learns classes by their place, not their name
        k, n = moved[0] if moved else (len(names), "nothing")
        raise ValueError(f"--data {path}: its class {k} is {n!r} where ours is "
                         f"{CLASS_NAMES[k] if k < len(CLASS_NAMES) else 'nothing'!r} (the detector reads class 30 as "
                         "back, whatever a set calls it): make it ours first with `xingzi dataset merge DIR --out NEW` "
                         "(classes mapped by name, winds and `other` left out), then train on NEW/data.yaml")
    root = Path(cfg.get("path") or path.parent)  # as Ultralytics resolves it: a relative path from here
    if not root.exists() and not root.is_absolute():
        from xingzi.vision.runtime import configure_ultralytics

        configure_ultralytics()
        from ultralytics.utils import DATASETS_DIR  # ... else from its datasets folder

        root = Path(DATASETS_DIR) / root
    parts: list[tuple[str, Path]] = []
    for split in ("train", "val"):
        for part in cfg[split] if isinstance(cfg[split], list) else [cfg[split]]:
            where = (root / str(part)).resolve()
            if not where.exists() and isinstance(cfg[split], str) and part.startswith("../"):
                where = (root / part[3:]).resolve()
            if not where.exists():
                raise ValueError(f"--data {path}: its {split} images are not there: {where}")
            parts.append((split, where))
    for split, where in parts:  # (each part there first: a folder missing is the likelier slip)
        if where.is_dir():
            _check_labels(path, split, where)


UNREADABLE_ROWS = ("malformed", "unknown-class")  # `xingzi dataset check`'s kinds that Ultralytics cannot train on


def _check_labels(path: Path, split: str, images: Path) -> None:
    """The label files beside a part's image folder (Ultralytics' images/ → labels/): there, and every row one it
    can read (a class id past ours ended it in a traceback with a run folder made). Doubts about what a row says
    (a fifth copy of a face, a tile boxed twice, a box past the edge) are `xingzi dataset check`'s to list, not a
    reason to refuse: `real_cn_train` has eight photos with a fifth copy, and Ultralytics trains on such rows."""
    from xingzi.datasets.check import check_label_text
    from xingzi.datasets.yolo import image_files, label_path_for, read_text

    photos = image_files(images)
    labelled = [label_path_for(p) for p in photos if label_path_for(p).is_file()]
    if photos and not labelled:
        raise ValueError(f"--data {path}: none of its {len(photos)} {split} images has a label file (expected "
                         f"{label_path_for(photos[0])})")
    for label in labelled:
        text = read_text(label)
        issues, _ = check_label_text(text, str(label), CLASS_NAMES, None)
        wrong = next((f"{i.line}: {i.message}" for i in issues if i.kind in UNREADABLE_ROWS), None) or _dropped(text)
        if wrong is not None:
            raise ValueError(f"--data {path}: {label}:{wrong} (`xingzi dataset check` lists every such row)")


def _dropped(text: str) -> str | None:
    """The first row for which Ultralytics drops the whole photo as corrupt, unsaid but for a log line: a value
    past 1.01, or below 0 (down to -0.01 for a centre, none for a size); None when there is none."""
    from xingzi.datasets.yolo import parse_label_text

    for lineno, (_, cx, cy, w, h) in parse_label_text(text)[0]:
        if max(cx, cy, w, h) > 1.01 or min(cx, cy) < -0.01 or min(w, h) < 0:
            return (f"{lineno}: box {cx:g} {cy:g} {w:g} {h:g} is outside what Ultralytics trains on (0..1, with 0.01 "
                    "to spare): it would drop the whole photo")
    return None


def _not_tiles(names: list[str]) -> list[str]:
    """The names ``xingzi eval`` would not map onto a tile class (nor ignore as a wind or flower)."""
    from xingzi.vision.eval_data import our_class

    out = []
    for name in names:
        try:
            our_class(name)
        except ValueError:
            out.append(name)
    return out


def gpu_available(device: str | None) -> bool:
    """Whether training will run on CUDA (device None = automatic)."""
    if device is not None and str(device).lower() in ("cpu", "mps"):
        return False
    import torch

    return torch.cuda.is_available()


def read_results_csv(path: Path) -> dict[str, list]:
    """results.csv as {column: values}; what Ultralytics stores in checkpoints (it uses polars)."""
    import csv

    try:
        with path.open() as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    out: dict[str, list] = {}
    for row in rows:
        for key, value in row.items():
            try:
                out.setdefault(key.strip(), []).append(float(value))
            except (TypeError, ValueError):
                out.setdefault(key.strip(), []).append(value)
    return out


def _patch_for_offline_gpu() -> None:
    # Ultralytics' AMP check downloads a reference model; on a GPU we trust AMP instead.
    import ultralytics.engine.trainer as trainer

    trainer.check_amp = lambda model: True
    try:  # a lent GPU machine has no polars (and cannot install it); checkpoints only need the csv
        import polars  # noqa: F401
    except ImportError:
        trainer.BaseTrainer.read_results_csv = lambda self: read_results_csv(Path(self.csv))  # type: ignore[method-assign]


def cpu_has_bf16() -> bool:
    """Whether this CPU computes in bfloat16 natively (AVX-512 BF16 or AMX): there a bfloat16 forward
    pass trains about twice as fast; elsewhere it is emulated and slower than float32."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return any(flag in flags.split() for flag in ("avx512_bf16", "amx_bf16"))


def _patch_for_cpu_bf16() -> None:
    """Ultralytics allows bfloat16 autocast only on CUDA; on the CPU torch's own autocast does the same job.
    Its gradient scaler stays off for bfloat16 (no underflow to guard against)."""
    import torch
    import ultralytics.engine.trainer as trainer

    cuda_only = trainer.autocast
    if getattr(cuda_only, "cpu_bf16", False):  # patched already: wrap once
        return

    def autocast(enabled, device: str = "cuda"):
        if device == "cpu" and enabled is torch.bfloat16:
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return cuda_only(enabled, device=device)

    autocast.cpu_bf16 = True  # type: ignore[attr-defined]
    trainer.autocast = autocast


def train(cfg: TrainConfig) -> Path:
    """Run a training; returns the run directory."""
    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics()
    _patch_for_offline_gpu()
    if cfg.bf16:
        if gpu_available(cfg.device):
            raise ValueError("--bf16 is for training on the CPU; on a GPU Ultralytics' own mixed precision is used")
        _patch_for_cpu_bf16()
    from ultralytics import YOLO

    model = YOLO(cfg.model)
    kw = cfg.ultralytics_kwargs()
    callback_state: dict = {}

    def save_config(trainer) -> None:  # once the run dir exists
        if callback_state.get("saved"):
            return
        callback_state["saved"] = True
        save = Path(trainer.save_dir) / "xingzi_train.json"
        atomic_write_text(save, json.dumps(asdict(cfg) | run_facts(cfg, trainer), indent=2) + "\n")

    model.add_callback("on_train_start", save_config)
    model.train(**kw)
    assert model.trainer is not None
    return Path(model.trainer.save_dir)


def run_facts(cfg: TrainConfig, trainer: Any) -> dict[str, Any]:
    """What a run's settings alone do not say, saved beside them: the device, the run folder (Ultralytics adds -2 to
    a name taken), the data.yaml's text as it was (the real view's is written again by the next run), the start
    weights' digest (models/ changes when a model is shipped) and the commit of the code."""
    data = Path(cfg.data)
    start = Path(cfg.model)
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True,
                                text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"device_used": str(trainer.device), "run_dir": str(trainer.save_dir),
            "data_yaml": data.read_text(encoding="utf-8") if data.is_file() else None,
            "model_sha256": hashlib.sha256(start.read_bytes()).hexdigest() if start.is_file() else None,
            "commit": commit}


def latest_run(project: Path | None = None) -> Path:
    project = project or runs_dir() / "train"
    runs = [p.parent.parent for p in project.glob("*/weights/last.pt")]
    if not runs:
        raise FileNotFoundError(f"no checkpoint to resume under {project}/*/weights/last.pt")
    return max(runs, key=lambda p: (p / "weights" / "last.pt").stat().st_mtime)


def resume(run_or_ckpt: Path | None = None, extra_train: list[Path] | None = None) -> Path:
    """Continue an interrupted run from ``weights/last.pt`` of a run dir, or from a last.pt copied
    elsewhere (same args; it writes into the run dir recorded in the checkpoint). A missing
    real_cn data view is rebuilt first (``extra_train`` = the synthetic dirs the run was made with)."""
    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics()
    _patch_for_offline_gpu()
    _patch_for_cpu_bf16()  # a run started with --bf16 resumes in bfloat16 (its args say amp: bf16)
    import torch
    from ultralytics import YOLO

    target = run_or_ckpt or latest_run()
    last = target if target.suffix == ".pt" else target / "weights" / "last.pt"
    if not last.is_file():
        raise FileNotFoundError(f"no checkpoint {last}")
    try:
        ckpt = torch.load(last, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001 — a file of any bytes: torch raises many kinds
        raise ValueError(f"{last}: not a training checkpoint ({type(e).__name__})") from None
    if not isinstance(ckpt, dict) or not ckpt.get("train_args"):
        raise ValueError(f"{last}: not a training checkpoint of Ultralytics (no training arguments in it)")
    if ckpt.get("optimizer") is None or ckpt.get("epoch", -1) < 0:  # stripped when a run ends: Ultralytics would
        # start a new training of its own default data (coco8, a download) instead
        raise ValueError(f"{last}: that run has finished; nothing to resume (start another from it with "
                         f"--model {last.parent / 'best.pt'})")
    data = Path((ckpt.get("train_args") or {}).get("data", ""))
    if not data.is_file():
        if data.parent.parts[-3:] != ("runs", "data", "real_cn"):
            raise FileNotFoundError(f"the run's data.yaml is missing: {data}")
        for d in extra_train or []:
            if not image_files(d):
                raise FileNotFoundError(f"no images in {d}: regenerate the synthetic set first")
        rebuilt = prepare_real_view(out=data.parent, extra_train=extra_train)  # where the run had it, from anywhere
        if rebuilt != data:
            raise FileNotFoundError(f"rebuilt {rebuilt} but the run needs {data}: pass the run's --extra-train dirs")
    model = YOLO(str(last))
    model.train(resume=True)
    assert model.trainer is not None
    return Path(model.trainer.save_dir)

