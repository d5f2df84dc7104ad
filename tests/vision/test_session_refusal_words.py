"""A network file a runtime refuses: the message ends with what the runtime said was wrong, in its own words."""

from __future__ import annotations

import pytest

from xingzi.vision.classifier import DEFAULT_CLASSIFIER
from xingzi.vision.sessions import Session


@pytest.mark.parametrize(("runtime", "data", "said"), [
    pytest.param("onnxruntime", b"not a network", "Protobuf parsing failed.", id="onnxruntime-text"),
    pytest.param("openvino", b"not a network", "not an ONNX file", id="openvino-text"),
    # OpenVINO's own spans lines (where in its C++ it was raised, then what failed): its last one is kept
    pytest.param("openvino", b"cut", "Model can't be parsed", id="openvino-cut-short"),
])
def test_a_refused_network_says_the_runtimes_reason(tmp_path, runtime, data, said):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(data if data != b"cut" else DEFAULT_CLASSIFIER.read_bytes()[:5000])
    with pytest.raises(ValueError) as refused:
        Session(bad, 2, runtime)
    said_here = str(refused.value)
    assert said_here.startswith(f"{bad} is not an ONNX network this runtime ({runtime}) can run: ") and \
        said_here.endswith(said), said_here
