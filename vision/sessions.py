"""One way to run the shipped .onnx networks: OpenVINO on a CPU with bfloat16 units, else ONNX Runtime.

On a CPU with bfloat16 units (AMX / AVX-512 BF16) OpenVINO runs the detector in about half ONNX Runtime's
time and the wide tile classifier in about a third, reading nearly the same tiles (docs/detector.md,
"OpenVINO in bfloat16"); elsewhere ONNX Runtime runs them in float32. ``XINGZI_RUNTIME=onnxruntime`` (or ``runtime="onnxruntime"``) keeps ONNX Runtime.
OpenVINO reads the .onnx itself (``Core.read_model``); its telemetry lives in its model converter (``ovc``), which
is not used, and the tests run both runtimes with the network cut.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

RUNTIMES = ("auto", "openvino", "onnxruntime")


def _openvino_available() -> bool:
    try:
        import openvino  # noqa: F401
    except ImportError:
        return False
    return True


@functools.cache
def _cpu_has_bf16() -> bool:
    """Whether OpenVINO can run this CPU in bfloat16 (AMX or AVX-512 BF16 units)."""
    import openvino as ov

    return "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def chosen_runtime(runtime: str | None = None) -> str:
    """"openvino" or "onnxruntime" for ``runtime`` (default: ``$XINGZI_RUNTIME``, else "auto").

    "auto" takes OpenVINO only where it runs in bfloat16: in float32 it is no faster than ONNX Runtime here
    (the wide classifier slower), so elsewhere ONNX Runtime stays."""
    runtime = runtime or os.environ.get("XINGZI_RUNTIME", "auto")
    if runtime not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    if runtime == "auto":
        return "openvino" if _openvino_available() and _cpu_has_bf16() else "onnxruntime"
    if runtime == "openvino" and not _openvino_available():
        raise ValueError("runtime 'openvino' asked for, but the openvino package is not installed")
    return runtime


class Session:
    """A loaded network: ``input_name``, ``input_shape`` (ints, or None where dynamic), ``output_count``,
    ``metadata`` (the ONNX metadata map), ``runtime``; ``run(x)`` → its outputs as numpy arrays."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str | None = None) -> None:
        self.path = Path(path)
        self.runtime = chosen_runtime(runtime)
        import onnx

        if not self.path.is_file():
            raise FileNotFoundError(f"network not found: {self.path}")
        try:
            model = onnx.load(str(self.path), load_external_data=False)
        except Exception as e:  # protobuf's DecodeError and friends
            raise ValueError(f"{self.path} is not an ONNX network: {e}") from e
        self.metadata = {p.key: p.value for p in model.metadata_props}
        dims = model.graph.input[0].type.tensor_type.shape.dim
        self.input_name = model.graph.input[0].name
        self.input_shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in dims)
        self.output_count = len(model.graph.output)
        self.output_shapes = [tuple(d.dim_value if d.HasField("dim_value") else None
                                    for d in o.type.tensor_type.shape.dim) for o in model.graph.output]
        self._run = self._openvino(threads) if self.runtime == "openvino" else self._onnxruntime(threads)

    def _onnxruntime(self, threads: int | None) -> Callable[[np.ndarray], list[np.ndarray]]:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
        session = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
        return lambda x: list(session.run(None, {self.input_name: x}))

    def _openvino(self, threads: int | None) -> Callable[[np.ndarray], list[np.ndarray]]:
        import openvino as ov

        core = ov.Core()
        precision = "bf16" if _cpu_has_bf16() else "f32"
        config: dict[str, str | int] = {"INFERENCE_PRECISION_HINT": precision, "PERFORMANCE_HINT": "LATENCY"}
        if threads:
            config["INFERENCE_NUM_THREADS"] = threads
        compiled = core.compile_model(core.read_model(str(self.path)), "CPU", config)
        request = compiled.create_infer_request()
        lock = threading.Lock()  # one request object: not to be used by two threads at once

        def run(x: np.ndarray) -> list[np.ndarray]:
            with lock:
                request.infer({0: x})
                return [request.get_output_tensor(i).data.copy() for i in range(self.output_count)]

        return run

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        return self._run(np.ascontiguousarray(x, np.float32))
