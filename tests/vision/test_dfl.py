"""The box decoding done in numpy for ONNX graphs cut before it, and the tool that cuts them."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from xingzi.vision.canvas import letterbox
from xingzi.vision.detector import (
    DEFAULT_ONNX,
    DEFAULT_SECOND,
    DEFAULT_WEIGHTS,
    Detector,
    _OnnxBackend,
    _TorchBackend,
)
from xingzi.vision.dfl import HEAD_KEY, anchor_grid, boxes_from_dfl, strides_for

BINS = 16
SAMPLE_PHOTOS = Path(__file__).resolve().parents[2] / "datasets" / "sample" / "images"


def _one_hot_sides(sides: list[int], anchors: int) -> np.ndarray:
    """DFL logits whose distribution puts all weight on bin ``sides[k]`` for side k, at every anchor."""
    logits = np.full((4, BINS, anchors), -50.0, np.float32)
    for k, b in enumerate(sides):
        logits[k, b] = 50.0
    return logits.reshape(4 * BINS, anchors)


def test_anchor_grid_is_cell_centres_finest_stride_first():
    points, strides = anchor_grid(64)
    assert points.shape == (2, 64 + 16 + 4) and strides.shape == (84,)
    np.testing.assert_array_equal(points[:, :2], [[0.5, 1.5], [0.5, 0.5]])  # x runs fastest
    np.testing.assert_array_equal(points[:, 8], [0.5, 1.5])  # the second row of the 8×8 grid
    assert list(strides[[0, 63, 64, 79, 80, 83]]) == [8, 8, 16, 16, 32, 32]


@pytest.mark.parametrize(
    "sides, anchor, box",
    [pytest.param([2, 3, 4, 5], 0, [12, 12, 48, 64], id="first_anchor_stride_8"),
     pytest.param([0, 0, 0, 0], 9, [12, 12, 0, 0], id="a_point"),
     pytest.param([1, 1, 1, 1], 83, [48, 48, 64, 64], id="last_anchor_stride_32")],
)
def test_sides_become_centre_and_size_in_input_pixels(sides, anchor, box):
    points, strides = anchor_grid(64)
    scores = np.random.default_rng(0).random((31, 84)).astype(np.float32)
    out = boxes_from_dfl(_one_hot_sides(sides, 84), scores, points, strides)
    assert out.shape == (35, 84)
    np.testing.assert_allclose(out[:4, anchor], box, atol=1e-4)
    np.testing.assert_array_equal(out[4:], scores)


def test_an_undecided_distribution_gives_its_mean_distance():
    points, strides = anchor_grid(32)
    out = boxes_from_dfl(np.zeros((64, 21), np.float32), np.zeros((31, 21), np.float32), points, strides)
    np.testing.assert_allclose(out[2:4, 0], [15 * 8, 15 * 8], atol=1e-3)  # 7.5 cells each side


@pytest.mark.parametrize(
    "dfl_shape, scores_shape",
    [pytest.param((63, 84), (31, 84), id="not_four_sides"),
     pytest.param((64, 80), (31, 84), id="anchors_differ"),
     pytest.param((64,), (31, 84), id="flat")],
)
def test_bad_shapes_are_clear_errors(dfl_shape, scores_shape):
    points, strides = anchor_grid(64)
    with pytest.raises(ValueError, match="expected"):
        boxes_from_dfl(np.zeros(dfl_shape, np.float32), np.zeros(scores_shape, np.float32), points, strides)


def test_a_rectangular_grid_runs_along_its_width_first():
    points, strides = anchor_grid((32, 64))  # 4 rows of 8 at stride 8, then 2x4, then 1x2
    assert points.shape == (2, 32 + 8 + 2) and list(strides[[0, 31, 32, 39, 40, 41]]) == [8, 8, 16, 16, 32, 32]
    np.testing.assert_array_equal(points[:, [0, 7, 8]], [[0.5, 7.5, 0.5], [0.5, 0.5, 1.5]])
    np.testing.assert_array_equal(points[:, 40:], [[0.5, 1.5], [0.5, 0.5]])
    square = anchor_grid((64, 64))
    np.testing.assert_array_equal(square[0], anchor_grid(64)[0])


@pytest.mark.parametrize("size", [0, 60, -32, (64, 60), (0, 32), (32, 0)])
def test_a_size_off_the_strides_is_refused(size):
    with pytest.raises(ValueError, match="multiples? of every stride"):
        anchor_grid(size)


def test_strides_must_account_for_every_anchor():
    assert strides_for(13125, 800) == (8, 16, 32)
    with pytest.raises(ValueError, match="13000 anchors"):
        strides_for(13000, 800)


@pytest.mark.parametrize("onnx_path", [pytest.param(DEFAULT_ONNX, id="shipped"), pytest.param(DEFAULT_SECOND, id="second")])
def test_shipped_onnx_graphs_are_cut_before_the_box_decoding(onnx_path):
    import onnx

    meta = {p.key: p.value for p in onnx.load(str(onnx_path)).metadata_props}
    assert meta.get(HEAD_KEY) == "dfl"
    backend = _OnnxBackend(onnx_path, 2, "onnxruntime")
    assert backend.strides == (8, 16, 32) and backend.any_size and backend.trained_size == 800
    assert backend(np.zeros((1, 3, 800, 800), np.float32)).shape == (35, 13125)
    assert backend(np.zeros((1, 3, 608, 800), np.float32)).shape == (35, 100 * 76 + 50 * 38 + 25 * 19)


@pytest.mark.parametrize("fit, anchors", [pytest.param(False, 13125, id="square"), pytest.param(True, 9975, id="fitted")])
def test_the_shipped_cut_graph_matches_pytorch_anchor_by_anchor(fit, anchors):
    """numpy finishes the box decoding as the whole model does (the .pt run through PyTorch), on the
    square canvas and on one fitted to a 4:3 photo (800x608), which the shipped graph also takes."""
    image = np.random.default_rng(3).integers(0, 255, (480, 640, 3), np.uint8)
    blob = letterbox(image, 800, fit)[0]
    cut_raw = _OnnxBackend(DEFAULT_ONNX, 2, runtime="onnxruntime")(blob)  # float32 throughout
    torch_raw = _TorchBackend(DEFAULT_WEIGHTS, 2)(blob)
    assert cut_raw.shape == torch_raw.shape == (35, anchors)
    np.testing.assert_allclose(cut_raw[4:], torch_raw[4:], atol=2e-3)
    np.testing.assert_allclose(cut_raw[:4], torch_raw[:4], atol=0.5)


@pytest.fixture(scope="module")
def small_export(tmp_path_factory):
    """The shipped .pt exported whole by Ultralytics at 128 px, as `ship` and `xingzi train` do."""
    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics(2)
    from ultralytics import YOLO

    folder = tmp_path_factory.mktemp("export")
    pt = folder / "model.pt"
    shutil.copyfile(DEFAULT_WEIGHTS, pt)  # export writes beside the weights: never into models/
    return folder, YOLO(str(pt)).export(format="onnx", imgsz=128, simplify=True, dynamic=False, device="cpu")


def test_cutting_a_whole_export_keeps_its_output(small_export):
    from xingzi.models.onnx_head import cut, load_graph

    folder, whole = small_export
    cut_path = cut(whole, folder / "cut.onnx")
    blob = letterbox(np.random.default_rng(5).integers(0, 255, (100, 128, 3), np.uint8), 128)[0]
    whole_backend, cut_backend = _OnnxBackend(whole, 2, "onnxruntime"), _OnnxBackend(cut_path, 2, "onnxruntime")
    assert whole_backend.strides is None and cut_backend.strides == (8, 16, 32)
    np.testing.assert_allclose(cut_backend(blob), whole_backend(blob), atol=1e-3)
    with pytest.raises(ValueError, match="already cut"):
        cut(cut_path, folder / "twice.onnx")
    said = {p.key: p.value for p in load_graph(cut_path).metadata_props}
    assert said["author"] == "xingzi contributors" and "MODEL_CARD.md" in said["description"]
    assert said["license"] == "AGPL-3.0-or-later" and said["task"] == "detect"  # the rest kept as exported


def test_a_graph_made_to_take_any_size_reads_every_canvas_as_pytorch(small_export):
    from xingzi.models.onnx_head import any_size, cut

    folder, whole = small_export
    cut_path = cut(whole, folder / "cut_for_any.onnx")
    free = any_size(cut_path, folder / "any.onnx")
    fixed_backend, free_backend = _OnnxBackend(cut_path, 2, "onnxruntime"), _OnnxBackend(free, 2, "onnxruntime")
    assert not fixed_backend.any_size and free_backend.any_size and free_backend.trained_size == 128
    square = letterbox(np.random.default_rng(6).integers(0, 255, (100, 128, 3), np.uint8), 128)[0]
    np.testing.assert_array_equal(free_backend(square), fixed_backend(square))  # the same graph at its own size
    torch = _TorchBackend(DEFAULT_WEIGHTS, 2)
    for shape in [(1, 3, 96, 128), (1, 3, 128, 64), (1, 3, 256, 192)]:
        blob = np.random.default_rng(sum(shape)).random(shape, dtype=np.float32)
        np.testing.assert_allclose(free_backend(blob)[4:], torch(blob)[4:], atol=2e-3)
        np.testing.assert_allclose(free_backend(blob)[:4], torch(blob)[:4], atol=0.5)
    with pytest.raises(ValueError, match="fixed"):
        any_size(free, folder / "twice.onnx")
    # the detector fits its canvas to the photo only where every network it runs takes any size
    assert Detector(free, classifier=None, second=None).fit
    assert not Detector(cut_path, classifier=None, second=None).fit
    assert not Detector(free, classifier=None, second=cut_path).fit
    assert Detector(DEFAULT_WEIGHTS, classifier=None).fit  # PyTorch: any multiple of 32


def test_int8_copy_of_a_cut_graph_reads_like_it(small_export, tmp_path):
    import cv2

    from xingzi.models.onnx_head import calibration_photos, cut, int8

    folder, whole = small_export
    cut_path = folder / "cut_for_int8.onnx"
    cut(whole, cut_path)
    photos = calibration_photos(SAMPLE_PHOTOS, 3)
    quantized = int8(cut_path, tmp_path / "q.onnx", photos)
    assert quantized.stat().st_size < cut_path.stat().st_size / 2
    blob = letterbox(cv2.imread(str(photos[0])), 128)[0]
    fp32, q8 = _OnnxBackend(cut_path, 2, "onnxruntime")(blob), _OnnxBackend(quantized, 2, "onnxruntime")(blob)
    assert q8.shape == fp32.shape
    top = np.argsort(-fp32[4:].max(axis=0))[:10]  # the anchors the fp32 graph sees tiles at
    assert fp32[4:, top].max(axis=0).mean() > 0.2
    assert np.abs(q8[4:, top] - fp32[4:, top]).max(axis=0).mean() < 0.1  # the same picture, a little coarser


def test_int8_needs_a_cut_graph_and_calibration_photos(small_export, tmp_path):
    from xingzi.models.onnx_head import calibration_photos, int8

    _, whole = small_export
    with pytest.raises(ValueError, match="cut the graph first"):
        int8(whole, tmp_path / "q.onnx", [])
    with pytest.raises(FileNotFoundError, match="no photos"):
        calibration_photos(tmp_path, 4)


@pytest.mark.parametrize("step, message", [pytest.param("cut", "not one", id="cut"),
                                           pytest.param("any_size", "nothing to change", id="any_size")])
def test_a_graph_that_is_not_a_yolo_export_is_refused(tmp_path, step, message):
    import onnx
    from onnx import TensorProto, helper

    from xingzi.models import onnx_head

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 32, 32])])
    onnx.save(helper.make_model(graph), str(tmp_path / "relu.onnx"))
    with pytest.raises(ValueError, match=message):
        getattr(onnx_head, step)(tmp_path / "relu.onnx", tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()


def test_the_graph_steps_command_writes_each_step_and_refuses_what_is_no_graph(small_export, tmp_path, capsys):
    from xingzi.models import onnx_head

    _, whole = small_export
    cut_path, any_path = tmp_path / "cut" / "cut.onnx", tmp_path / "new" / "any.onnx"  # each step makes its folder
    steps = [["cut", str(whole), str(cut_path)],
             ["int8", str(cut_path), str(tmp_path / "q.onnx"), "--photos", str(SAMPLE_PHOTOS), "--n", "2"],
             ["any-size", str(tmp_path / "q.onnx"), str(any_path)]]
    for argv in steps:
        assert onnx_head.main(argv) == 0
        assert capsys.readouterr().out == f"written {argv[2]}\n"
    backend = _OnnxBackend(any_path, 2, "onnxruntime")
    assert backend.any_size and backend.strides == (8, 16, 32)  # each step kept what the one before it made
    (tmp_path / "junk.onnx").write_text("not a graph")
    for argv, message in [(["cut", str(tmp_path / "junk.onnx"), str(tmp_path / "x.onnx")], "expected an ONNX model"),
                          (["any-size", str(tmp_path / "none.onnx"), str(tmp_path / "x.onnx")], "No such file"),
                          (["int8", str(cut_path), str(tmp_path / "x.onnx"), "--photos", str(tmp_path)],
                           "no photos"),
                          (["int8", str(any_path), str(tmp_path / "x.onnx"), "--photos",
                            str(SAMPLE_PHOTOS)], "expected a graph of fixed input size")]:
        assert onnx_head.main(argv) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()
