"""Second opinions: other networks of the detector's shape whose raw outputs are averaged with its own.

One second opinion is the shipped stage-5 model (docs/detector.md, "Second opinion"); several can be named
(`xingzi eval --second A.onnx --second B.onnx`) to measure ensembles: their outputs are averaged first, then
weighted so that every network, the detector's own included, counts the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

Second = str | Path | Sequence[str | Path] | None


class Network(Protocol):
    """What a second opinion offers the detector: its raw output for a blob, and the inputs it takes."""

    fixed_size: int | None

    @property
    def any_size(self) -> bool: ...

    def __call__(self, blob: np.ndarray) -> np.ndarray: ...


class Averaged:
    """Several networks of one shape read as one: the mean of their raw outputs (same anchors, same rows)."""

    def __init__(self, networks: Sequence[Network], paths: Sequence[Path]) -> None:
        if len(networks) < 2 or len(networks) != len(paths):
            raise ValueError(f"expected two or more networks, one path each, got {len(networks)} and {len(paths)}")
        self.networks, self.paths = tuple(networks), tuple(paths)
        sizes = {n.fixed_size for n in networks}
        if len(sizes) > 1:
            raise ValueError(f"second opinions read different sizes {sorted(s or 0 for s in sizes)}: "
                             "their outputs cannot be averaged")
        self.fixed_size = sizes.pop()

    @property
    def any_size(self) -> bool:
        return all(n.any_size for n in self.networks)

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        return sum((n(blob) for n in self.networks[1:]), self.networks[0](blob)) / len(self.networks)


def share(second: object) -> float:
    """The weight of the second opinions in the average: each network, the detector's own too, an equal part."""
    k = len(second.networks) if isinstance(second, Averaged) else 1
    return k / (k + 1)


def second_paths(second: object) -> tuple[Path, ...]:
    """The files a loaded second opinion was read from (none for None or a network with no file)."""
    if isinstance(second, Averaged):
        return second.paths
    path = getattr(second, "path", None)  # None for stand-ins in tests
    return () if path is None else (Path(path),)


def load_second(second: Second, threads: int | None, primary: Path, imgsz: int) -> Network | None:
    """The second-opinion model(s): "auto" is the shipped one, only beside the shipped primary model; a list of
    .onnx paths is averaged; None or "none": no second opinion."""
    from xingzi.vision.detector import DEFAULT_ONNX, DEFAULT_SECOND, DEFAULT_WEIGHTS, _OnnxBackend

    if second is None:
        return None
    named: list[str | Path] = [second] if isinstance(second, (str, Path)) else list(second)
    if not named:
        raise ValueError("expected a second-opinion path, 'auto' or 'none', got an empty list")
    if len(named) > 1 and any(str(s) in ("none", "auto") for s in named):
        raise ValueError(f"'auto' and 'none' stand alone, got the second opinions {[str(s) for s in named]}")
    if str(named[0]) == "none":
        return None
    auto = str(named[0]) == "auto"
    if auto:
        shipped = primary.resolve() in (DEFAULT_ONNX.resolve(), DEFAULT_WEIGHTS.resolve())
        if not (shipped and DEFAULT_SECOND.is_file()):
            return None
        named = [DEFAULT_SECOND]
    paths = [Path(s) for s in named]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"second-opinion weights not found: {path}")
        if path.suffix != ".onnx":
            raise ValueError(f"second-opinion weights must be an .onnx file, got {path.name!r}")
    networks = [_OnnxBackend(path, threads) for path in paths]
    for path, net in zip(paths, networks, strict=True):
        if net.fixed_size not in (None, imgsz):
            if auto:  # the shipped model run at another size: no second opinion
                return None
            raise ValueError(f"second-opinion model {path.name} reads {net.fixed_size} px, the detector {imgsz} px: "
                             "their outputs cannot be averaged")
    return networks[0] if len(networks) == 1 else Averaged(networks, paths)
