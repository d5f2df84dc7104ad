"""Running the shipped networks through OpenVINO or ONNX Runtime: the choice, and the same tiles either way."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from xingzi.vision import sessions
from xingzi.vision.canvas import decode, letterbox
from xingzi.vision.classifier import DEFAULT_CLASSIFIER, crop_tiles, softmax, to_blob
from xingzi.vision.detector import DEFAULT_ONNX, _OnnxBackend
from xingzi.vision.metrics import box_iou
from xingzi.vision.sessions import Session, chosen_runtime

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.jpg"


@pytest.mark.parametrize(
    "asked, installed, bf16, chosen",
    [pytest.param("auto", True, True, "openvino", id="auto_openvino_in_bf16"),
     pytest.param("auto", True, False, "onnxruntime", id="auto_no_bf16_on_this_cpu"),
     pytest.param("auto", False, True, "onnxruntime", id="auto_without_openvino"),
     pytest.param("onnxruntime", True, True, "onnxruntime", id="asked_onnxruntime"),
     pytest.param("openvino", True, False, "openvino", id="asked_openvino_in_f32")],
)
def test_the_runtime_chosen(monkeypatch, asked, installed, bf16, chosen):
    monkeypatch.setattr(sessions, "_openvino_available", lambda: installed)
    monkeypatch.setattr(sessions, "_cpu_has_bf16", lambda: bf16)
    assert chosen_runtime(asked) == chosen


def test_the_environment_picks_the_runtime_and_bad_names_are_refused(monkeypatch):
    monkeypatch.setenv("XINGZI_RUNTIME", "onnxruntime")
    assert chosen_runtime() == "onnxruntime"
    monkeypatch.setenv("XINGZI_RUNTIME", "tensorrt")
    with pytest.raises(ValueError, match="runtime must be one of"):
        chosen_runtime()
    monkeypatch.setattr(sessions, "_openvino_available", lambda: False)
    with pytest.raises(ValueError, match="not installed"):
        chosen_runtime("openvino")


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_a_session_describes_its_network(runtime):
    session = Session(DEFAULT_ONNX, 2, runtime)
    assert session.runtime == runtime and session.input_name == "images"
    assert session.input_shape == (1, 3, None, None) and session.output_count == 2  # any size (session 32)
    assert session.output_shapes == [(1, 64, None), (1, 31, None)]
    assert [o.shape for o in session.run(np.zeros((1, 3, 608, 800), np.float32))] == [(1, 64, 9975), (1, 31, 9975)]
    assert session.metadata["xingzi_head"] == "dfl"


def test_openvino_reads_the_demo_photo_as_onnxruntime_does(no_network):
    """bfloat16 where the CPU has it: the same tiles, faces and (nearly) confidences."""
    image = cv2.imread(str(DEMO))
    blob, scale, pad = letterbox(image, 800)
    read = {rt: decode(_OnnxBackend(DEFAULT_ONNX, 2, rt)(blob), scale, pad, image.shape[:2], 0.25, 0.5)
            for rt in ("onnxruntime", "openvino")}
    ref, ov = read["onnxruntime"], read["openvino"]
    assert len(ref) >= 14 and len(ov) == len(ref)
    iou = box_iou(ref.xyxy, ov.xyxy)
    match = iou.argmax(axis=1)
    assert (iou.max(axis=1) > 0.95).all() and (ov.cls[match] == ref.cls).all()
    np.testing.assert_allclose(ov.conf[match], ref.conf, atol=0.03)
    crops = to_blob(crop_tiles(image, ref.xyxy, 64, 0.15))
    probs = {rt: softmax(Session(DEFAULT_CLASSIFIER, 2, rt).run(crops)[0]) for rt in ("onnxruntime", "openvino")}
    assert (probs["openvino"].argmax(1) == probs["onnxruntime"].argmax(1)).all()
    assert np.abs(probs["openvino"] - probs["onnxruntime"]).max() < 0.05


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
@pytest.mark.parametrize("data", [b"not a network", b"\x08\x07hello", bytes(range(256)) * 8, b"cut"],
                         ids=["text", "protobuf-start", "binary", "cut-short"])
def test_a_missing_or_broken_network_is_a_clear_error_in_one_line(tmp_path, capfd, runtime, data):
    with pytest.raises(FileNotFoundError, match="network not found"):
        Session(tmp_path / "none.onnx", 2, runtime)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(data if data != b"cut" else DEFAULT_CLASSIFIER.read_bytes()[:5000])
    with pytest.raises(ValueError, match="is not an ONNX network") as refused:
        Session(bad, 2, runtime)
    assert "\n" not in str(refused.value)  # (OpenVINO's own spans lines: where in its C++ it was raised)
    assert capfd.readouterr().err == ""  # (its TensorFlow reader wrote "E0000 … text_format.cc" lines to fd 2)


def test_openvino_keeps_compiled_networks_where_told(tmp_path, monkeypatch):
    monkeypatch.setenv("XINGZI_CACHE_DIR", str(tmp_path / "cache"))
    assert sessions.compile_cache() == tmp_path / "cache" / "openvino"
    Session(DEFAULT_CLASSIFIER, 2, "openvino")
    assert any((tmp_path / "cache" / "openvino").iterdir())  # the next start reads it instead of compiling
    monkeypatch.setenv("XINGZI_CACHE_DIR", "")
    assert sessions.compile_cache() is None
    (tmp_path / "file").write_text("a file where the folder should go")
    monkeypatch.setenv("XINGZI_CACHE_DIR", str(tmp_path / "file"))
    assert sessions.compile_cache() is None
