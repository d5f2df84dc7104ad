"""A trainable tile classifier rebuilt from its exported ONNX file.

Only the .onnx files ship, so on a fresh machine there is no checkpoint to fine-tune from. The export
folds each batch norm into the convolution before it (weight and bias only), which loses nothing the
network computes: ``model_from_onnx`` puts those weights back into a :class:`TileNet` and chooses batch-norm
statistics that leave every output as it was. Given crops, the statistics are the ones the crops give
(mean and variance of each channel before its norm), so that in training mode, where a batch's own
statistics are used, the network starts close to the shipped one instead of from a different function.

    python -m xingzi.models.tilecls import models/xingzi_tilecls.onnx runs/tilecls/shipped/best.pt \\
        --crops data/tilecls15
    python -m xingzi.models.tilecls train --init models/xingzi_tilecls.onnx ...   # the same, inline
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import torch
from torch import nn

if TYPE_CHECKING:
    from .tilecls import TileNet

CALIBRATION_CROPS = 4096
MAX_LOGIT_DIFF = 1e-3  # the rebuilt network must give the ONNX file's logits to this


def _onnx_weights(path: Path) -> tuple[int, list[tuple[np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray]]:
    """(input size, [(conv weight, conv bias)...] in graph order, (linear weight, linear bias))."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
    if len(dims) != 4 or dims[1] != 3 or dims[2] != dims[3] or dims[2] <= 0:
        raise ValueError(f"{path}: expected an input of shape (N,3,S,S), got {dims}")
    convs, linear = [], None
    for node in graph.node:
        if node.op_type == "Conv":
            if len(node.input) != 3:
                raise ValueError(f"{path}: expected every Conv with a folded bias, got inputs {list(node.input)}")
            convs.append((init[node.input[1]], init[node.input[2]]))
        elif node.op_type == "Gemm":
            linear = (init[node.input[1]], init[node.input[2]])
    if linear is None or not convs:
        raise ValueError(f"{path}: expected convolutions and one Gemm (a TileNet export), found neither")
    return dims[2], convs, linear


def model_from_onnx(path: str | Path, crops: np.ndarray | None = None, seed: int = 0,
                    width: int | None = None) -> TileNet:
    """A :class:`TileNet` in eval mode computing what ``path`` computes; ``crops`` ((N,S,S,3) uint8 BGR of the
    file's input size; a sample is used) set its batch-norm statistics to theirs. ``width``: the width expected."""
    from .tilecls import TileNet

    path = Path(path)
    size, convs, (lin_w, lin_b) = _onnx_weights(path)
    if width is not None and convs[0][0].shape[0] != width:
        raise ValueError(f"{path}: expected a network of width {width}, got width {convs[0][0].shape[0]}")
    if crops is not None and tuple(crops.shape[1:]) != (size, size, 3):
        raise ValueError(f"{path} reads {size}-px crops, got crops of shape {tuple(crops.shape[1:])}")
    width = convs[0][0].shape[0]
    model = TileNet(width, size=size)
    conv_mods = [m for m in model.features.modules() if isinstance(m, nn.Conv2d)]
    norm_mods = [m for m in model.features.modules() if isinstance(m, nn.BatchNorm2d)]
    linear = cast(nn.Linear, model.head[1])
    shapes = [tuple(m.weight.shape) for m in conv_mods] + [tuple(linear.weight.shape)]
    found = [tuple(w.shape) for w, _ in convs] + [tuple(lin_w.shape)]
    if shapes != found:
        raise ValueError(f"{path}: expected TileNet(width {width}, size {size}) weights {shapes}, got {found}")
    with torch.no_grad():
        for conv, norm, (w, b) in zip(conv_mods, norm_mods, convs, strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(np.array(b)))
            _stat(norm.running_mean).zero_()
            _stat(norm.running_var).fill_(1.0 - norm.eps)  # (x - 0) / sqrt(1) + b: the folded convolution exactly
        linear.weight.copy_(torch.from_numpy(np.array(lin_w)))
        linear.bias.copy_(torch.from_numpy(np.array(lin_b)))
    model.eval()
    if crops is not None and len(crops):
        _calibrate(model, conv_mods, norm_mods, crops, seed)
    return model


def _stat(buffer: torch.Tensor | None) -> torch.Tensor:
    if buffer is None:  # only without track_running_stats, which TileNet never sets
        raise ValueError("expected a batch norm that keeps running statistics")
    return buffer


def _calibrate(model: nn.Module, convs: list[nn.Conv2d], norms: list[nn.BatchNorm2d], crops: np.ndarray,
               seed: int) -> None:
    """Per channel y = (c − μ)/σ·σ + (b + μ) = c + b: the same outputs, with μ, σ² the crops' statistics of c."""
    from .tilecls import to_tensor

    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(len(crops), min(len(crops), CALIBRATION_CROPS), replace=False))
    stats: list[tuple[torch.Tensor, torch.Tensor]] = []
    hooks = [c.register_forward_hook(lambda _m, _i, out: stats.append(
        (out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3), unbiased=False)))) for c in convs]
    with torch.inference_mode():
        model(to_tensor(np.asarray(crops[pick])))
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for norm, (mean, var) in zip(norms, stats, strict=True):
            _stat(norm.running_mean).copy_(mean)
            _stat(norm.running_var).copy_(var)
            norm.weight.copy_((var + norm.eps).sqrt())
            norm.bias.add_(mean)


def check_against_onnx(model: nn.Module, path: str | Path, crops: np.ndarray) -> float:
    """Largest logit difference between the rebuilt network and ONNX Runtime on ``crops``; ValueError over
    MAX_LOGIT_DIFF."""
    import onnxruntime as ort

    from xingzi.vision.classifier import to_blob

    from .tilecls import to_tensor

    blob = to_blob(np.asarray(crops))
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    theirs = sess.run(None, {sess.get_inputs()[0].name: blob})[0]
    model.eval()
    with torch.inference_mode():
        ours = model(to_tensor(np.asarray(crops))).numpy()
    diff = float(np.abs(ours - theirs).max()) if len(blob) else 0.0
    if diff > MAX_LOGIT_DIFF:
        raise ValueError(f"rebuilt network differs from {path}: expected logits within {MAX_LOGIT_DIFF}, got {diff:.2e}")
    return diff


def import_checkpoint(onnx_path: Path, out: Path, crops_dir: Path | None = None) -> Path:
    """Write ``out`` (a checkpoint ``train --init`` and ``export`` read) from an exported classifier."""
    from dataclasses import asdict

    from .tilecls import TrainConfig

    crops = np.load(crops_dir / "train_x.npy", mmap_mode="r") if crops_dir else None
    model = model_from_onnx(onnx_path, crops)
    size, width = model.size, model.width
    sample = np.asarray(crops[:256]) if crops is not None else \
        np.random.default_rng(0).integers(0, 256, (64, size, size, 3), dtype=np.uint8)
    diff = check_against_onnx(model, onnx_path, sample)
    cfg = TrainConfig(width=width, init=str(onnx_path), crops=str(crops_dir or ""))
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "config": asdict(cfg), "step": 0, "dev_acc": float("nan"),
                "size": size, "from_onnx": str(onnx_path), "max_logit_diff": diff}, out)
    print(f"{onnx_path} → {out}: width {width}, {size} px, logits within {diff:.1e} of the ONNX file")
    return out
