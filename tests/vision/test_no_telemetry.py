"""Nothing leaves the machine at run time: ONNX Runtime and OpenVINO, which report usage to their makers unless told
not to, leave no trace of it (ONNX Runtime's device id and event queue under ~/.cache, OpenVINO's client id and run
count under ~/intel) when a photo is read with either."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.jpg"


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_reading_a_photo_writes_nothing_under_home(tmp_path, runtime):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), XINGZI_RUNTIME=runtime, XINGZI_CACHE_DIR="")  # (no compiled-network cache either)
    done = subprocess.run([sys.executable, "-m", "xingzi", "score", str(DEMO), "--json"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file()) == []


def test_the_runtimes_are_told_before_they_start():
    import xingzi

    assert xingzi and os.environ.get("ORT_DISABLE_TELEMETRY") == "1"
    assert sys.modules["openvino_telemetry"] is None  # OpenVINO's converter then takes its stub
