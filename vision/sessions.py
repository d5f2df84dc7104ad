"""One way to run the shipped .onnx networks: OpenVINO on a CPU with bfloat16 units, else ONNX Runtime.

On a CPU with bfloat16 units (AMX / AVX-512 BF16) OpenVINO runs the detector in about half ONNX Runtime's
time and the wide tile classifier in about a third, reading nearly the same tiles (docs/detector.md,
"OpenVINO in bfloat16"); elsewhere ONNX Runtime runs them in float32. ``XINGZI_RUNTIME=onnxruntime`` (or
``runtime="onnxruntime"``) keeps ONNX Runtime. OpenVINO reads the .onnx itself (``Core.read_model``). Both
report usage to their makers unless told not to: ``xingzi/__init__.py`` tells them before either starts
(tests/vision/test_no_telemetry.py reads a photo with each and finds nothing written under the home folder).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def compile_cache() -> Path | None:
    """Where OpenVINO keeps compiled networks: ``$XINGZI_CACHE_DIR``, else ``$XDG_CACHE_HOME/xingzi`` (or
    ``~/.cache/xingzi``), in ``openvino/``; None (no cache) when it cannot be made or ``XINGZI_CACHE_DIR`` is ""."""
    from xingzi.vision.runtime import user_cache

    return user_cache("openvino")


def _last_words(error: Exception) -> str:
    """A runtime's refusal in one line: OpenVINO's spans several (where in its C++ sources it was raised, then
    what failed); its last line says what."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else type(error).__name__


class Session:
    """A loaded network: ``input_name``, ``input_shape`` and ``output_shapes`` (ints, None where dynamic),
    ``output_count``, ``metadata`` (the ONNX metadata map), ``runtime``; ``run(x)`` → its outputs as arrays.

    Each runtime reads the file's shapes and metadata itself (importing ``onnx`` costs a second at start)."""

    def __init__(self, path: str | Path, threads: int | None = None, runtime: str | None = None) -> None:
        self.path = Path(path)
        self.runtime = chosen_runtime(runtime)
        if not self.path.is_file():
            raise FileNotFoundError(f"network not found: {self.path}")
        self.metadata: dict[str, str] = {}
        self.input_name = ""
        self.input_shape: tuple[int | None, ...] = ()
        self.output_shapes: list[tuple[int | None, ...]] = []
        try:
            self._run = self._openvino(threads) if self.runtime == "openvino" else self._onnxruntime(threads)
        except ModuleNotFoundError:  # the runtime itself is not installed: not the file's fault (cli names the extra)
            raise
        except Exception as e:  # a file that is no network: each runtime raises its own kind
            raise ValueError(f"{self.path} is not an ONNX network this runtime ({self.runtime}) can run: "
                             f"{_last_words(e)}") from e
        self.output_count = len(self.output_shapes)

    def _onnxruntime(self, threads: int | None) -> Callable[[np.ndarray], list[np.ndarray]]:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
        session = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
        self.metadata = dict(session.get_modelmeta().custom_metadata_map)
        inp = session.get_inputs()[0]
        self.input_name = inp.name
        self.input_shape = tuple(d if isinstance(d, int) else None for d in inp.shape)
        self.output_shapes = [tuple(d if isinstance(d, int) else None for d in o.shape) for o in session.get_outputs()]
        return lambda x: list(session.run(None, {self.input_name: x}))

    def _openvino(self, threads: int | None) -> Callable[[np.ndarray], list[np.ndarray]]:
        import openvino as ov
        from openvino.frontend import FrontEndManager

        # asked of the ONNX reader alone: given a file no reader takes, OpenVINO tries them all, and its TensorFlow
        # one writes lines of its own to the terminal
        if not FrontEndManager().load_by_framework("onnx").supported(str(self.path)):
            raise ValueError("not an ONNX file")
        core = ov.Core()
        model = core.read_model(str(self.path))
        if model.has_rt_info(["framework"]):  # the ONNX metadata map, as OpenVINO's reader keeps it
            framework = model.get_rt_info(["framework"]).astype(dict)
            self.metadata = {key: str(value.astype(str)) for key, value in framework.items()}
        self.input_name = model.inputs[0].get_any_name()
        self.input_shape = _dims(model.inputs[0].get_partial_shape())
        self.output_shapes = [_dims(o.get_partial_shape()) for o in model.outputs]
        precision = "bf16" if _cpu_has_bf16() else "f32"
        config: dict[str, str | int] = {"INFERENCE_PRECISION_HINT": precision, "PERFORMANCE_HINT": "LATENCY"}
        if threads:
            config["INFERENCE_NUM_THREADS"] = threads
        cache = compile_cache()
        if cache is not None:  # compiling the four networks takes ~1.2 s; from the cache ~0.3 s
            config["CACHE_DIR"] = str(cache)
        compiled = core.compile_model(model, "CPU", config)
        request = compiled.create_infer_request()
        lock = threading.Lock()  # one request object: not to be used by two threads at once
        count = len(self.output_shapes)

        def run(x: np.ndarray) -> list[np.ndarray]:
            with lock:
                request.infer({0: x})
                return [request.get_output_tensor(i).data.copy() for i in range(count)]

        return run

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        return self._run(np.ascontiguousarray(x, np.float32))


def _dims(shape: Any) -> tuple[int | None, ...]:
    """An OpenVINO partial shape as ints, None where dynamic."""
    return tuple(d.get_length() if d.is_static else None for d in shape)
