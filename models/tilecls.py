"""Train the second-stage tile classifier (a small CNN in plain PyTorch) and export it to ONNX.

    nice -n 10 python -m xingzi.models.tilecls train --crops data/tilecls --out runs/tilecls/run1 --minutes 30
    nice -n 10 python -m xingzi.models.tilecls train --out runs/tilecls/run1 --resume   # continue
    nice -n 10 python -m xingzi.models.tilecls train --crops data/tilecls3 --out runs/tilecls/run3 \
        --init runs/tilecls/run1/best.pt --minutes 35   # fine-tune on new crops
    python -m xingzi.models.tilecls export runs/tilecls/run1/best.pt runs/tilecls/run1/tilecls.onnx
    python -m xingzi.models.tilecls import models/xingzi_tilecls.onnx runs/tilecls/shipped.pt --crops data/tilecls
    nice -n 10 python -m xingzi.models.tilecls train --crops data/tilecls15 --init models/xingzi_tilecls.onnx \
        --out runs/tilecls/run15 --lr 0.0015 --minutes 30   # fine-tune the shipped network on a fresh machine
    python -m xingzi.models.tilecls teach data/tilecls10 models/xingzi_tilecls_w32.onnx --turns 2   # a teacher's
    nice -n 10 python -m xingzi.models.tilecls train --crops data/tilecls10 --teacher data/tilecls10/teacher.npy \
        --init runs/tilecls/run4/best.pt --out runs/tilecls/kd --minutes 25   # readings learnt beside the labels

Crops come from :mod:`xingzi.datasets.tile_crops`. Each step draws a random batch, turns every crop
by a random quarter turn (tiles lie sideways and upside down on the table) and jitters its colours;
never a flip. ``config.json`` beside the checkpoints records the settings; ``last.pt`` is written at
every evaluation (resume from it), ``best.pt`` when the dev accuracy improves, ``log.csv`` one line each.
torch is imported only here: inference runs the exported .onnx (:mod:`xingzi.vision.classifier`).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
from torch import nn

from xingzi.vision.classifier import CLS_NAMES, CONTEXT, CROP_SIZE, check_crop_size


def block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class TileNet(nn.Module):
    """``size``×``size`` RGB in [0,1] → 32 logits. Full resolution for the first layer (the strokes are thin), then
    halving four times; above 64 px an average pool brings the map to 4×4, so every weight has the same shape at any
    size and a network trained at 64 px can start one at 96 or 128."""

    def __init__(self, width: int = 16, classes: int = len(CLS_NAMES), dropout: float = 0.2,
                 size: int = CROP_SIZE) -> None:
        super().__init__()
        check_crop_size(size)
        self.width, self.size = width, size
        w = width
        # a 4×4 map, not a global average: the tile is in the middle, its neighbours at the edges
        to_4x4 = [nn.AvgPool2d(size // 16 - 3, stride=1)] if size > CROP_SIZE else []
        self.features = nn.Sequential(
            block(3, w), block(w, 2 * w, 2), block(2 * w, 2 * w), nn.MaxPool2d(2),
            block(2 * w, 4 * w), block(4 * w, 4 * w), nn.MaxPool2d(2),
            block(4 * w, 8 * w), block(8 * w, 8 * w), nn.MaxPool2d(2), *to_4x4, nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(8 * w * 16, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


@dataclass(frozen=True)
class TrainConfig:
    crops: str = "data/tilecls"
    out: str = "runs/tilecls/run1"
    seed: int = 0
    width: int = 16
    batch: int = 128
    lr: float = 3e-3
    weight_decay: float = 5e-4
    label_smoothing: float = 0.05
    steps: int = 6000
    eval_every: int = 300
    minutes: float = 0.0  # stop (and keep the checkpoints) after this wall time; 0 = no limit
    threads: int = 2
    colour: float = 0.25  # strength of brightness/contrast/colour-balance jitter
    recolour: float = 0.0  # share of crops whose colour channels are swapped at random (0.3 read no better: docs)
    squash: float = 0.0  # share of crops shrunk along one axis (a tile seen from low down: its face foreshortened)
    tilt: float = 0.0  # crops turned by up to this many degrees either way (tiles lying askew in their box)
    negate: float = 0.0  # share of crops made negatives (dark tile sets; 0.3 read them better, the rest worse: docs)
    init: str = ""  # start from this checkpoint's weights (same width), with a fresh schedule
    teacher: str = ""  # (N,32) probabilities of the train crops from `teach`: learn them as well as the labels
    distill: float = 0.7  # with a teacher: the share of the loss that follows it
    temperature: float = 2.0  # with a teacher: both distributions softened by this before they are compared


SQUASH_RANGE = (0.4, 0.9)  # how far a squashed crop's content is shrunk along its axis


def reshape(x: torch.Tensor, gen: torch.Generator, squash: float, tilt: float) -> torch.Tensor:
    """Each crop of ``squash`` share shrunk along one axis (by a factor in ``SQUASH_RANGE``, about the centre) and
    every crop turned by up to ``tilt`` degrees; the edges that come in repeat the crop's border. A mirror image
    is never made: the map has a positive determinant."""
    b = x.shape[0]
    scale = torch.ones(b, 2)
    pick = torch.rand(b, generator=gen) < squash
    lo, hi = SQUASH_RANGE
    factor = lo + (hi - lo) * torch.rand(b, generator=gen)
    axis = torch.randint(0, 2, (b,), generator=gen)
    scale[pick, axis[pick]] = factor[pick]
    angle = torch.deg2rad(tilt * (torch.rand(b, generator=gen) * 2 - 1))
    cos, sin = torch.cos(angle), torch.sin(angle)
    # output → input coordinates: turn, then undo the shrink (a shrunk picture samples further out)
    theta = torch.zeros(b, 2, 3)
    theta[:, 0, 0], theta[:, 0, 1] = cos / scale[:, 0], -sin / scale[:, 0]
    theta[:, 1, 0], theta[:, 1, 1] = sin / scale[:, 1], cos / scale[:, 1]
    grid = nn.functional.affine_grid(theta, list(x.shape), align_corners=False)
    return nn.functional.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def augment(x: torch.Tensor, gen: torch.Generator, colour: float, recolour: float = 0.0, squash: float = 0.0,
            tilt: float = 0.0, negate: float = 0.0) -> torch.Tensor:
    """Random quarter turns and colour jitter on a (B,3,H,W) float batch in [0,1]; no flips. ``recolour``: the
    share of crops whose colour channels are put in a random order (red ink becomes blue or green...);
    ``negate``: the share made their negative (a light face becomes a dark one); ``squash``/``tilt``: see
    :func:`reshape`."""
    if squash or tilt:
        x = reshape(x, gen, squash, tilt)
    turns = torch.randint(0, 4, (x.shape[0],), generator=gen)
    out = x.clone()
    for k in range(1, 4):
        sel = turns == k
        if sel.any():
            out[sel] = torch.rot90(x[sel], k, dims=(2, 3))
    if recolour:
        for i in torch.nonzero(torch.rand(x.shape[0], generator=gen) < recolour).flatten().tolist():
            out[i] = out[i][torch.randperm(3, generator=gen)]
    if negate:
        flip = torch.rand(x.shape[0], generator=gen) < negate
        out[flip] = 1.0 - out[flip]
    b = x.shape[0]
    gain = 1 + colour * (torch.rand(b, 1, 1, 1, generator=gen) * 2 - 1)
    tint = 1 + 0.4 * colour * (torch.rand(b, 3, 1, 1, generator=gen) * 2 - 1)
    bias = 0.4 * colour * (torch.rand(b, 1, 1, 1, generator=gen) * 2 - 1)
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 1 + colour * (torch.rand(b, 1, 1, 1, generator=gen) * 2 - 1)
    return (((out - mean) * contrast + mean) * gain * tint + bias).clamp(0, 1)


def to_tensor(x: np.ndarray) -> torch.Tensor:
    """(N,H,W,3) uint8 BGR → (N,3,H,W) float RGB in [0,1] (the same as vision.classifier.to_blob)."""
    return torch.from_numpy(np.ascontiguousarray(x[..., ::-1])).permute(0, 3, 1, 2).float() / 255.0


def evaluate(model: nn.Module, x: np.ndarray, y: np.ndarray, batch: int = 512) -> tuple[float, np.ndarray]:
    """Accuracy and (32,32) confusion on crops as cut (no turn)."""
    model.eval()
    pred = []
    with torch.inference_mode():
        for i in range(0, len(x), batch):
            pred.append(model(to_tensor(x[i:i + batch])).argmax(1).numpy())
    model.train()
    p = np.concatenate(pred) if pred else np.zeros(0, np.int64)
    cm = np.zeros((len(CLS_NAMES),) * 2, np.int64)
    np.add.at(cm, (y, p), 1)
    return float((p == y).mean()) if len(y) else 0.0, cm


def distill_loss(logits: torch.Tensor, teacher: torch.Tensor, temperature: float) -> torch.Tensor:
    """KL(teacher ‖ student) with both softened by ``temperature``, scaled by its square so that the
    gradient keeps its size whatever the temperature (the usual knowledge-distillation term)."""
    soft = teacher.clamp_min(1e-8).log() / temperature
    target = torch.softmax(soft, dim=1)
    log_student = torch.log_softmax(logits / temperature, dim=1)
    kl = (target * (target.clamp_min(1e-12).log() - log_student)).sum(dim=1).mean()
    return kl * temperature ** 2


def teach(crops: Path, classifier: Path, turns: int = 1, batch: int = 2048) -> Path:
    """Write ``crops/teacher.npy``: the exported classifier's (and its partners') probabilities of every
    train crop, averaged over ``turns`` readings, for ``train --teacher`` (partners read every crop: the teacher's
    soft targets are the pair's, however sure the first network is)."""
    from xingzi.vision.classifier import TileClassifier

    xtr = np.load(crops / "train_x.npy", mmap_mode="r")
    clf = TileClassifier(classifier, turns=turns, partner_gate=1.0)
    out = np.zeros((len(xtr), len(CLS_NAMES)), np.float16)
    start = time.time()
    for i in range(0, len(xtr), batch):
        out[i:i + batch] = clf.probabilities(np.asarray(xtr[i:i + batch]))
        if (i // batch) % 10 == 0:
            print(f"{i + batch}/{len(xtr)} crops ({time.time() - start:.0f} s)", flush=True)
    path = crops / "teacher.npy"
    np.save(path, out)
    (crops / "teacher.json").write_text(json.dumps(
        {"classifier": str(classifier), "partners": list(clf.info.partners), "turns": turns}, indent=1) + "\n")
    return path


def train(cfg: TrainConfig, resume: bool = False) -> Path:
    torch.set_num_threads(cfg.threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    crops = Path(cfg.crops)
    xtr, ytr = np.load(crops / "train_x.npy", mmap_mode="r"), np.load(crops / "train_y.npy")
    xdev, ydev = np.load(crops / "dev_x.npy"), np.load(crops / "dev_y.npy")
    size = xtr.shape[1]
    if xtr.shape[1:] != (size, size, 3) or xdev.shape[1:] != xtr.shape[1:]:
        raise ValueError(f"crops must be square (N,S,S,3) alike in train and dev, got {xtr.shape[1:]}, {xdev.shape[1:]}")
    xtr = np.ascontiguousarray(xtr)
    soft = np.load(cfg.teacher) if cfg.teacher else None
    if soft is not None and soft.shape != (len(ytr), len(CLS_NAMES)):
        raise ValueError(f"--teacher must hold ({len(ytr)},{len(CLS_NAMES)}) probabilities, got {soft.shape}")
    torch.manual_seed(cfg.seed)
    model = TileNet(cfg.width, size=size)
    if cfg.init and not resume and cfg.init.endswith(".onnx"):  # shipped weights, norms set from these crops
        from .tilecls_import import model_from_onnx

        model = model_from_onnx(cfg.init, xtr, cfg.seed, width=cfg.width)
        model.train()
    elif cfg.init and not resume:
        ck = torch.load(cfg.init, weights_only=False)
        if ck["config"]["width"] != cfg.width:
            raise ValueError(f"--init {cfg.init} has width {ck['config']['width']}, this run {cfg.width}")
        model.load_state_dict(ck["model"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=cfg.steps, pct_start=0.1)
    gen = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    step, best = 0, -1.0
    if resume and (out / "last.pt").is_file():
        ck = torch.load(out / "last.pt", weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        gen.set_state(ck["gen"])
        rng.bit_generator.state = ck["rng"]
        if "torch_rng" in ck:  # dropout draws from torch's own generator (checkpoints before session 54 lack it)
            torch.set_rng_state(ck["torch_rng"])
        step, best = ck["step"], ck["best"]
        print(f"resumed at step {step} (best dev accuracy {best:.4f})")
    (out / "config.json").write_text(json.dumps(asdict(cfg), indent=1) + "\n")
    lossf = nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    start, seen, run_loss = time.time(), 0, 0.0
    log = out / "log.csv"
    if not log.exists():
        log.write_text("step,train_loss,dev_acc,lr,seconds\n")
    model.train()
    while step < cfg.steps:
        idx = np.sort(rng.integers(0, len(ytr), cfg.batch))
        xb = augment(to_tensor(xtr[idx]), gen, cfg.colour, cfg.recolour, cfg.squash, cfg.tilt, cfg.negate)
        logits = model(xb)
        loss = lossf(logits, torch.from_numpy(ytr[idx]))
        if soft is not None:
            kd = distill_loss(logits, torch.from_numpy(soft[idx].astype(np.float32)), cfg.temperature)
            loss = (1 - cfg.distill) * loss + cfg.distill * kd
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        seen += 1
        run_loss += loss.item()
        timeout = cfg.minutes and (time.time() - start) > cfg.minutes * 60
        if step % cfg.eval_every == 0 or step == cfg.steps or timeout:
            acc, cm = evaluate(model, xdev, ydev)
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                     "gen": gen.get_state(), "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                     "step": step,
                     "best": max(best, acc), "config": asdict(cfg), "size": size}
            torch.save(state, out / "last.pt.tmp")
            (out / "last.pt.tmp").replace(out / "last.pt")
            if acc > best:
                best = acc
                torch.save({"model": model.state_dict(), "config": asdict(cfg), "step": step, "dev_acc": acc,
                            "size": size},
                           out / "best.pt")
                np.savetxt(out / "best_dev_confusion.txt", cm, fmt="%d")
            with log.open("a") as f:
                f.write(f"{step},{run_loss / max(seen, 1):.4f},{acc:.4f},{sched.get_last_lr()[0]:.2e},"
                        f"{time.time() - start:.0f}\n")
            print(f"step {step}/{cfg.steps} loss {run_loss / max(seen, 1):.4f} dev acc {acc:.4f} "
                  f"({time.time() - start:.0f} s)", flush=True)
            seen, run_loss = 0, 0.0
            if timeout:
                print("time budget reached; resume with --resume")
                break
    return out / "best.pt"


EXPORT_DEFAULTS = {"weight": 0.5, "min_conf": 0.05, "turns": 1, "recheck": 0.0}


def export_settings(json_path: Path, weight: float | None = None, min_conf: float | None = None,
                    recheck: float | None = None) -> tuple[dict, list[str]]:
    """The settings an export writes beside its .onnx, and the keys kept from the JSON already there: writing
    over a shipped classifier keeps what was tuned on it (partners, partner_gate, recheck, shift, weight...)
    unless a value is given; a fresh path gets the defaults (``recheck`` 0 reads every box once)."""
    kept: dict = {}
    if json_path.is_file():
        try:
            kept = json.loads(json_path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{json_path}: expected the JSON settings of an exported classifier "
                             f"(or no file there): {e}") from None
        if not isinstance(kept, dict):
            raise ValueError(f"{json_path}: expected a JSON object of classifier settings, got {type(kept).__name__}")
        kept = {k: v for k, v in kept.items() if k not in ("size", "context")}  # the checkpoint's own
    given = {k: v for k, v in (("weight", weight), ("min_conf", min_conf), ("recheck", recheck)) if v is not None}
    return {**EXPORT_DEFAULTS, **kept, **given}, sorted(k for k in kept if k not in given)


def export(checkpoint: Path, onnx_path: Path, weight: float | None = None, min_conf: float | None = None,
           recheck: float | None = None) -> Path:
    """best.pt → .onnx (dynamic batch, input ``crops`` (N,3,S,S) at the size it was trained at, output ``logits``
    (N,32)) + .json settings (:func:`export_settings`: those of a classifier written over are kept)."""
    settings, _kept = export_settings(onnx_path.with_suffix(".json"), weight, min_conf, recheck)
    ck = torch.load(checkpoint, weights_only=False)
    size = ck.get("size", CROP_SIZE)  # checkpoints from before sizes were chosen are 64 px
    model = TileNet(ck["config"]["width"], size=size)
    model.load_state_dict(ck["model"])
    model.eval()
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, size, size)
    torch.onnx.export(model, (dummy,), str(onnx_path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    info = {"size": size, "context": CONTEXT, **settings}
    onnx_path.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")
    return onnx_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m xingzi.models.tilecls", description="train / export the tile classifier")
    sub = ap.add_subparsers(dest="cmd", required=True)
    tr = sub.add_parser("train", help="train on a crop set (xingzi.datasets.tile_crops); checkpoints in --out (best.pt, last.pt)")
    for f in fields(TrainConfig):
        tr.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    tr.add_argument("--resume", action="store_true", help="continue from OUT/last.pt with OUT/config.json")
    te = sub.add_parser("teach", help="a classifier's probabilities of the train crops, for train --teacher")
    te.add_argument("crops", type=Path)
    te.add_argument("classifier", type=Path, help="exported .onnx (its JSON's partners are averaged in)")
    te.add_argument("--turns", type=int, default=1, choices=(1, 2, 4))
    im = sub.add_parser("import", help="a checkpoint rebuilt from an exported .onnx (to fine-tune shipped weights)")
    im.add_argument("onnx", type=Path)
    im.add_argument("checkpoint", type=Path)
    im.add_argument("--crops", type=Path, default=None, help="crop set whose statistics the batch norms take")
    ex = sub.add_parser("export", help="a checkpoint as the .onnx the reader loads, its settings in the .json beside it")
    ex.add_argument("checkpoint", type=Path)
    ex.add_argument("onnx", type=Path)
    def keep(key: str) -> str:
        return f" (default: as in the JSON already beside ONNX, else {EXPORT_DEFAULTS[key]})"

    ex.add_argument("--weight", type=float, default=None,
                    help="combination weight stored beside the .onnx" + keep("weight"))
    ex.add_argument("--min-conf", type=float, default=None,
                    help="boxes the detector read less surely than this are left as they are" + keep("min_conf"))
    ex.add_argument("--recheck", type=float, default=None,
                    help="boxes read less surely than this are read again from shifted crops (0: never)"
                    + keep("recheck"))
    a = ap.parse_args(argv)
    if a.cmd == "teach":
        print(teach(a.crops, a.classifier, a.turns))
        return 0
    if a.cmd == "import":
        from .tilecls_import import import_checkpoint

        print(import_checkpoint(a.onnx, a.checkpoint, a.crops))
        return 0
    if a.cmd == "export":
        _settings, kept = export_settings(a.onnx.with_suffix(".json"), a.weight, a.min_conf, a.recheck)
        print(export(a.checkpoint, a.onnx, a.weight, a.min_conf, a.recheck))
        if kept:
            print(f"kept from the settings written over: {', '.join(kept)}")
        return 0
    values = {f.name: getattr(a, f.name) for f in fields(TrainConfig)}
    saved = Path(a.out) / "config.json"
    if a.resume and saved.is_file():  # the run's own settings win, except a new time budget
        values = {**json.loads(saved.read_text()), "minutes": a.minutes}
    print(train(TrainConfig(**values), resume=a.resume))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
