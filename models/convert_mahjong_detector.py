"""Turn the ONNX YOLO11n of the ``mahjong-detector`` package (34 riichi classes, AGPL) into a
31-class Ultralytics checkpoint that fine-tuning starts from.

The ONNX holds fused conv+BN weights in the same order as an unfused YOLO11n, so each fused conv
goes into ``conv.weight`` with an identity BatchNorm carrying its bias. The first conv was trained
on grey images replicated to three channels; it is re-weighted by luminance so that an RGB input
gives the same activation as its grey version. Head rows for faces that exist in both sets are
copied by name; ``back`` keeps its fresh initialisation.

    python -m xingzi.models.convert_mahjong_detector --out runs/start/mahjong_detector_31.pt
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from xingzi.engine.tiles import CLASS_NAMES

# Class order of the package: rank-major, then dragons and winds.
RIICHI_NAMES = tuple(f"{r}{s}" for r in range(1, 10) for s in "mps") + (
    "chun", "haku", "hatsu", "nan", "pe", "sha", "tou")
# riichi name -> our class name; winds (nan pe sha tou) are not Xingzi tiles.
RIICHI_TO_OURS = {n: n for n in RIICHI_NAMES if n[0].isdigit()} | {
    "chun": "zhong", "hatsu": "fa", "haku": "bai"}
# Luminance weights in the channel order the model sees (RGB, Ultralytics converts BGR->RGB).
LUMA_RGB = np.array([0.299, 0.587, 0.114], np.float32)


def onnx_model_path() -> Path:
    try:
        import mahjong_detector
    except ModuleNotFoundError:
        raise ValueError("the mahjong-detector network comes in its package: pip install --no-deps "
                         "mahjong-detector==0.0.6 (`make eval` does; `xingzi train` starts from "
                         "the shipped detector unless told --model mahjong-detector)") from None

    return Path(mahjong_detector.__file__).parent / "model.onnx"


def onnx_weights(path: Path) -> dict[str, np.ndarray]:
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer if t.name.startswith("model.")}


def class_row_map() -> dict[int, int]:
    """our class id -> riichi row."""
    ours = {name: i for i, name in enumerate(CLASS_NAMES)}
    return {ours[o]: RIICHI_NAMES.index(r) for r, o in RIICHI_TO_OURS.items()}


def build_state_dict(onnx_w: dict[str, np.ndarray], target: dict, nc: int) -> tuple[dict, list[str]]:
    """Map ONNX fused weights onto the keys of an unfused YOLO11n state_dict ``target``.

    Returns (new state dict, names of target tensors left at their initial value).
    """
    import torch

    out = {k: v.clone() for k, v in target.items()}
    done: set[str] = set()
    rows = class_row_map()
    for name, w in onnx_w.items():
        base = name.rsplit(".", 1)[0]  # e.g. model.2.cv1.conv
        kind = name.rsplit(".", 1)[1]
        if base.endswith(".conv") and f"{base[:-5]}.bn.weight" in target:  # fused Conv+BN
            bn = base[:-5] + ".bn"
            if kind == "weight":
                if name == "model.0.conv.weight":
                    w = w.sum(axis=1, keepdims=True) * LUMA_RGB.reshape(1, 3, 1, 1)
                out[name] = torch.from_numpy(np.array(w))
                done.add(name)
            else:
                out[f"{bn}.weight"] = torch.ones_like(target[f"{bn}.weight"])
                out[f"{bn}.bias"] = torch.from_numpy(w.copy())
                out[f"{bn}.running_mean"] = torch.zeros_like(target[f"{bn}.running_mean"])
                # var + eps == 1 so the BN is an identity plus the fused bias
                out[f"{bn}.running_var"] = torch.full_like(target[f"{bn}.running_var"], 1 - 1e-3)
                done.update(f"{bn}.{s}" for s in ("weight", "bias", "running_mean", "running_var"))
        elif name in target:
            t = target[name]
            if tuple(t.shape) == w.shape:
                out[name] = torch.from_numpy(w.copy())
                done.add(name)
            elif w.shape[0] == len(RIICHI_NAMES) and t.shape[0] == nc:  # class rows of the head
                new = t.clone()
                for ours, riichi in rows.items():
                    new[ours] = torch.as_tensor(np.array(w[riichi]))
                out[name] = new
                done.add(name)
    skipped = [k for k in target if k not in done and not k.endswith("num_batches_tracked")]
    return out, skipped


def convert(out_path: Path, onnx_path: Path | None = None) -> list[str]:
    """Write an Ultralytics-loadable checkpoint; returns the tensor names not transferred."""
    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics()
    import torch
    from ultralytics.nn.tasks import DetectionModel

    nc = len(CLASS_NAMES)
    model = DetectionModel("yolo11n.yaml", nc=nc, verbose=False)
    bn_eps = {m.eps for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)}
    if bn_eps != {1e-3}:
        raise ValueError(f"expected BatchNorm eps 1e-3 in yolo11n, got {bn_eps}")
    state, skipped = build_state_dict(onnx_weights(onnx_path or onnx_model_path()), model.state_dict(), nc)
    model.load_state_dict(state)
    model.names = dict(enumerate(CLASS_NAMES))
    model.args = {"imgsz": 640}  # type: ignore[assignment]
    out_path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.half(), "ema": None, "optimizer": None, "epoch": -1,
                "train_args": {}, "date": None, "version": None,
                "source": "converted from mahjong-detector 0.0.6 model.onnx (AGPL-3.0)"}, out_path)
    return skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("runs/start/mahjong_detector_31.pt"))
    ap.add_argument("--onnx", type=Path, default=None, help="model.onnx (default: the installed package's)")
    args = ap.parse_args(argv)
    try:
        skipped = convert(args.out, args.onnx)
    except ValueError as e:  # the package missing, a file that is no such network: a line, not a traceback
        ap.exit(2, f"{ap.prog}: error: {e}\n")
    left = f"{len(skipped)} tensors left at init: {', '.join(skipped)}" if skipped else "every tensor transferred"
    print(f"wrote {args.out}; {left}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
