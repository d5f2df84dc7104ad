"""Average two checkpoints of one detector in weight space (a "model soup" / WiSE-FT blend).

Two fine-tunes from the same start often lie in one basin, and a point between them can read better
than either end. ``alpha`` is the share of the second checkpoint (0 gives the first back unchanged).

    python -m xingzi.models.soup models/xingzi_yolo11n.pt models/candidates/xingzi_yolo11n_cpu34.pt \
        --alpha 0.5 --out /tmp/soup50/soup.pt
    # then export it beside, not over, the shipped model (ship(soup, out_pt, out_onnx): docs/detector.md,
    # "Session 35") and measure it with xingzi eval; `python -m xingzi.models.ship` would replace models/

Float tensors (weights, batch-norm statistics) are blended in float32 and stored in the first
checkpoint's dtype; integer buffers (batch counters) are the first checkpoint's.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

import torch


def blend_states(first: Mapping[str, torch.Tensor], second: Mapping[str, torch.Tensor],
                 alpha: float) -> dict[str, torch.Tensor]:
    """(1 − alpha)·first + alpha·second, tensor by tensor; both must hold the same names and shapes."""
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    if first.keys() != second.keys():
        only = sorted(set(first) ^ set(second))[:5]
        raise ValueError(f"checkpoints of different networks: expected the same tensor names, these differ: {only}")
    blended = {}
    for name, a in first.items():
        b = second[name]
        if a.shape != b.shape:
            raise ValueError(f"tensor {name!r}: expected shape {tuple(a.shape)}, got {tuple(b.shape)}")
        if a.is_floating_point():
            blended[name] = ((1.0 - alpha) * a.float() + alpha * b.float()).to(a.dtype)
        else:
            blended[name] = a.clone()
    return blended


def soup(first: Path, second: Path, alpha: float, out: Path) -> Path:
    """Write an Ultralytics checkpoint at ``out``: ``first``'s with its network blended toward ``second``'s.
    The optimizer and EMA are dropped (the result is for shipping or a fresh start, not for resuming)."""
    if Path(out).resolve() in (Path(first).resolve(), Path(second).resolve()):
        raise ValueError(f"--out must be a new file, got one of the inputs: {out}")
    ckpt_a = torch.load(first, weights_only=False, map_location="cpu")
    ckpt_b = torch.load(second, weights_only=False, map_location="cpu")
    for path, ckpt in ((first, ckpt_a), (second, ckpt_b)):
        if not isinstance(ckpt, dict) or not hasattr(ckpt.get("model"), "state_dict"):
            raise ValueError(f"expected an Ultralytics checkpoint with a 'model', got {path}")
    model = ckpt_a["model"]
    model.load_state_dict(blend_states(model.state_dict(), ckpt_b["model"].state_dict(), alpha))
    ckpt_a.update(ema=None, optimizer=None, soup={"first": str(first), "second": str(second), "alpha": alpha})
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt_a, out)
    return Path(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--alpha", type=float, default=0.5, help="share of the second checkpoint (default 0.5)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    print("wrote", soup(args.first, args.second, args.alpha, args.out))


if __name__ == "__main__":
    main()
