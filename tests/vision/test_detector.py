"""The detector wrapper: geometry of pre/post-processing, and the shipped weights loading offline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xingzi.vision.canvas import canvas_blob, canvas_shape, decode, letterbox, nms, tile_score
from xingzi.vision.detections import Detections
from xingzi.vision.detector import (
    BACK_CONF,
    DEFAULT_ONNX,
    DEFAULT_WEIGHTS,
    Detector,
    drop_faint_backs,
)


def _raw(boxes_cxcywh, scores):
    """Fake model output (35, A) with the given letterbox-pixel boxes and (A, 31) scores."""
    return np.concatenate([np.asarray(boxes_cxcywh, np.float32).T, np.asarray(scores, np.float32).T])


def test_letterbox_pads_to_square_and_keeps_aspect():
    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :, 0] = 255  # blue in BGR
    blob, scale, pad = letterbox(img, 64)
    assert blob.shape == (1, 3, 64, 64) and scale == pytest.approx(0.32) and pad == (0, 16)
    assert blob[0, 2, 32, 32] == pytest.approx(1.0) and blob[0, 0, 32, 32] == 0  # RGB order
    assert blob[0, 0, 0, 0] == pytest.approx(114 / 255)  # padding


@pytest.mark.parametrize(
    "shape, fit, canvas",
    [pytest.param((480, 640), True, (608, 800), id="landscape_4_3"),
     pytest.param((640, 480), True, (800, 608), id="portrait_4_3"),
     pytest.param((1000, 1000), True, (800, 800), id="square"),
     pytest.param((1080, 1920), True, (480, 800), id="wide_16_9"),
     pytest.param((100, 2000), True, (416, 800), id="strip_kept_half_as_wide"),
     pytest.param((3000, 4), True, (800, 416), id="thread"),
     pytest.param((480, 640), False, (800, 800), id="unfitted")],
)
def test_a_fitted_canvas_keeps_the_long_side_and_rounds_the_short_to_32(shape, fit, canvas):
    assert canvas_shape(shape, 800, fit) == canvas
    image = np.full((*shape, 3), 200, np.uint8)
    blob, scale, (px, py) = letterbox(image, 800, fit)
    assert blob.shape == (1, 3, *canvas) and scale == pytest.approx(min(800 / shape[0], 800 / shape[1]))
    nh, nw = max(1, round(shape[0] * scale)), max(1, round(shape[1] * scale))
    assert (px, py) == ((canvas[1] - nw) // 2, (canvas[0] - nh) // 2)  # centred, as the model was trained
    assert blob[0, 0, py + nh // 2, px + nw // 2] == pytest.approx(200 / 255)


@pytest.mark.parametrize("shape", [(800, 800, 3), (64, 64, 3), (5, 7, 3)])
def test_the_blob_is_the_canvas_in_rgb_planes_scaled_to_one(shape):
    canvas = np.random.default_rng(3).integers(0, 256, shape, np.uint8)
    blob = canvas_blob(canvas)
    assert blob.shape == (1, 3, *shape[:2]) and blob.dtype == np.float32 and blob.flags.c_contiguous
    np.testing.assert_array_equal(blob[0], canvas[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0)


def test_decode_maps_boxes_back_to_the_original_image_and_keeps_probs():
    scores = np.zeros((3, 31))
    scores[0, 13] = 0.9  # 5p
    scores[0, 14] = 0.05  # second choice 6p
    scores[1, 13] = 0.6  # same tile, weaker: suppressed by NMS
    scores[2, 27] = 0.1  # below threshold
    raw = _raw([[32, 32, 16, 16], [33, 32, 16, 16], [10, 10, 4, 4]], scores)
    d = decode(raw, scale=0.32, pad=(0, 16), shape=(100, 200), conf=0.25, iou=0.5)
    assert isinstance(d, Detections) and len(d) == 1
    np.testing.assert_allclose(d.xyxy[0], [(24) / 0.32, (24 - 16) / 0.32, 40 / 0.32, (40 - 16) / 0.32], rtol=1e-5)
    assert d.cls.tolist() == [13] and d.conf[0] == pytest.approx(0.95)  # 5p 0.9 + 6p 0.05
    assert d.probs.shape == (1, 31) and d.probs[0, 14] == pytest.approx(0.05)


@pytest.mark.parametrize(
    ("face_scores", "kept", "score"),
    [pytest.param({1: 0.14, 2: 0.13}, True, 0.27, id="torn_between_2m_and_3m"),
     pytest.param({1: 0.1, 2: 0.08, 4: 0.09}, True, 0.27, id="three_lookalikes"),
     pytest.param({1: 0.1, 2: 0.05, 4: 0.05, 5: 0.05}, False, 0.2, id="only_three_count"),
     pytest.param({27: 0.2}, False, 0.2, id="one_weak_face"),
     pytest.param({1: 0.7, 2: 0.5}, True, 1.0, id="capped_at_one")],
)
def test_a_box_scores_its_three_likeliest_faces_together(face_scores, kept, score):
    scores = np.zeros((1, 31))
    for k, v in face_scores.items():
        scores[0, k] = v
    assert tile_score(scores)[0] == pytest.approx(score)
    d = decode(_raw([[32, 32, 16, 16]], scores), scale=1.0, pad=(0, 0), shape=(64, 64), conf=0.25, iou=0.5)
    assert len(d) == int(kept)
    if kept:
        assert d.cls[0] == max(face_scores, key=face_scores.get) and d.conf[0] == pytest.approx(score)


def test_nms_is_class_agnostic_and_ordered_by_score():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10]], float)
    assert nms(boxes, np.array([0.5, 0.9, 0.7]), 0.5).tolist() == [1, 2]


@pytest.mark.parametrize(
    ("image", "message"),
    [pytest.param(np.zeros((10, 10), np.uint8), "HxWx3", id="grey"),
     pytest.param(np.zeros((10, 10, 3), np.float32), "uint8", id="float")],
)
def test_bad_image_is_a_clear_value_error(image, message):
    with pytest.raises(ValueError, match=message):
        letterbox(image, 64)


@pytest.mark.parametrize(
    ("cls", "conf", "kept"),
    [pytest.param([30, 30, 4], [0.45, 0.9, 0.3], [1, 2], id="faint_back_dropped"),
     pytest.param([30, 4], [BACK_CONF, 0.26], [0, 1], id="back_at_the_bar_kept"),
     pytest.param([4, 12], [0.3, 0.26], [0, 1], id="faint_faces_untouched")],
)
def test_faint_face_down_boxes_are_dropped(cls, conf, kept):
    det = Detections(np.arange(len(cls) * 4, dtype=np.float32).reshape(-1, 4), np.array(cls), np.array(conf))
    out = drop_faint_backs(det, BACK_CONF)
    np.testing.assert_array_equal(out.conf, np.array(conf)[kept])
    assert len(drop_faint_backs(det, 0.0)) == len(cls)


def test_the_detector_drops_faint_backs_it_reads(monkeypatch):
    from xingzi.vision import detector as mod

    faint = Detections(np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32), np.array([30, 3]),
                       np.array([0.3, 0.3], np.float32))
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: faint)
    img = np.zeros((40, 40, 3), np.uint8)
    assert Detector(DEFAULT_ONNX, classifier=None, stretched=False, negative=False).predict(img).cls.tolist() == [3]
    kept = Detector(DEFAULT_ONNX, classifier=None, stretched=False, negative=False, back_conf=0).predict(img)
    assert kept.cls.tolist() == [30, 3]


def test_wrong_class_count_is_rejected():
    with pytest.raises(ValueError, match="expected 31"):
        decode(np.zeros((4 + 34, 10), np.float32), 1.0, (0, 0), (10, 10), 0.25, 0.5)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [pytest.param({"weights": "missing.pt"}, FileNotFoundError, "not found", id="missing"),
     pytest.param({"imgsz": 100}, ValueError, "multiple of 32", id="imgsz"),
     pytest.param({"imgsz": 64000}, ValueError, "multiple of 32 from 32 to 4096, got 64000", id="imgsz-huge"),
     pytest.param({"imgsz": 0}, ValueError, "multiple of 32 from 32 to 4096, got 0", id="imgsz-zero"),
     pytest.param({"conf": 1.5}, ValueError, "conf", id="conf"),
     pytest.param({"back_conf": -0.1}, ValueError, "back_conf", id="back_conf")],
)
def test_bad_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        Detector(**({"weights": DEFAULT_ONNX} | kwargs))


@pytest.mark.parametrize(("content", "why"), [
    pytest.param(b"junk\n", "not a loadable checkpoint", id="text"),
    pytest.param(bytes(range(256)) * 8, "not a loadable checkpoint", id="random-bytes"),
    pytest.param(b"", "not a loadable checkpoint", id="empty"),
    pytest.param("TORCH_DICT", "", id="a-torch-file-of-no-model"),
])
def test_weights_that_are_no_checkpoint_are_a_clear_error(tmp_path, no_network, content, why):
    path = tmp_path / "weights.pt"
    if content == "TORCH_DICT":
        import torch

        torch.save({"a": 1}, path)
    else:
        path.write_bytes(content)
    with pytest.raises(ValueError, match="not a YOLO checkpoint \\(.pt\\) that Ultralytics can load") as err:
        Detector(weights=path)
    assert why in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_an_onnx_graph_with_a_fixed_input_that_is_not_square_is_refused(tmp_path, monkeypatch, runtime):
    # The canvas is square or of any size; a graph fixed at 32x64 would be fed a square and read nonsense.
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Relu", ["images"], ["y"], name="relu")], "g",
                              [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 32, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 32, 64])])
    path = tmp_path / "wide.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    monkeypatch.setenv("XINGZI_RUNTIME", runtime)  # each runtime reports the graph's input shape its own way
    with pytest.raises(ValueError, match="wide.onnx: expected a square input or one of any size, got 32x64"):
        Detector(weights=path, classifier=None, second=None)


@pytest.mark.parametrize("weights", [pytest.param(DEFAULT_WEIGHTS, id="pytorch"), pytest.param(DEFAULT_ONNX, id="onnx")])
def test_shipped_weights_load_offline_and_return_detections(weights, no_network):
    assert weights.is_file(), f"shipped weights missing: {weights}"
    det = Detector(weights, imgsz=320 if weights.suffix == ".pt" else 640, conf=0.0001, classifier=None)
    img = np.full((120, 160, 3), 128, np.uint8)
    img[30:90, 40:70] = 250  # a bright tile-sized block
    d = det.predict(img)
    assert isinstance(d, Detections) and d.probs is not None and d.probs.shape == (len(d), 31)
    assert len(d) > 0  # at conf 1e-4 some boxes always survive
    assert (d.xyxy[:, [0, 2]] <= 160).all() and (d.xyxy[:, [1, 3]] <= 120).all() and (d.xyxy >= 0).all()
    np.testing.assert_allclose(d.conf, tile_score(d.probs), rtol=1e-6)
    assert (d.cls == d.probs.argmax(axis=1)).all()


def test_a_fitted_canvas_reads_the_photo_as_the_square_one_does(no_network):
    """The canvas fitted to a 4:3 photo (800x608) gives the same tiles as the padded square, in photo pixels."""
    import cv2

    sample = sorted((Path(__file__).resolve().parents[2] / "datasets" / "sample" / "images").glob("*.jpg"))
    fitted, square = Detector(DEFAULT_ONNX), Detector(DEFAULT_ONNX, fit=False)
    assert fitted.fit and not square.fit
    for path in sample[:3]:  # portrait and landscape
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        a, b = fitted.predict(image), square.predict(image)
        assert len(a) >= 10 and sorted(a.cls.tolist()) == sorted(b.cls.tolist())
        order_a, order_b = np.lexsort(a.xyxy.T[::-1]), np.lexsort(b.xyxy.T[::-1])
        np.testing.assert_allclose(a.xyxy[order_a], b.xyxy[order_b], atol=3)


def test_predict_paths_reads_each_photo_as_predict_does_and_names_one_it_cannot_read(tmp_path, no_network):
    import cv2

    sample = sorted((Path(__file__).resolve().parents[2] / "datasets" / "sample" / "images").glob("*.jpg"))[:2]
    det = Detector(DEFAULT_ONNX, classifier=None, second=None)
    by_path = det.predict_paths(str(p) for p in sample)
    assert len(by_path) == 2
    for path, d in zip(sample, by_path, strict=True):
        alone = det.predict(cv2.imread(str(path), cv2.IMREAD_COLOR))
        assert len(d) >= 10 and d.cls.tolist() == alone.cls.tolist()
        np.testing.assert_allclose(d.xyxy, alone.xyxy)
    (tmp_path / "notes.jpg").write_text("not a photo")
    with pytest.raises(ValueError, match=r"cannot read image .*notes\.jpg"):
        det.predict_paths([sample[0], tmp_path / "notes.jpg"])


def test_pytorch_and_onnx_agree(no_network):
    img = np.random.default_rng(1).integers(0, 255, (200, 300, 3), np.uint8)
    a = Detector(DEFAULT_WEIGHTS, conf=0.01, stretched=False, negative=False).predict(img)
    b = Detector(DEFAULT_ONNX, conf=0.01, stretched=False, negative=False).predict(img)
    top_a, top_b = np.argsort(-a.conf)[:5], np.argsort(-b.conf)[:5]
    np.testing.assert_allclose(a.conf[top_a], b.conf[top_b], atol=2e-3)
    np.testing.assert_allclose(a.xyxy[top_a], b.xyxy[top_b], atol=0.5)


def test_a_non_image_still_raises_pillows_error_after_ultralytics_is_set_up(tmp_path, no_network):
    # Ultralytics patches PIL.Image.open to pip-install a HEIF plugin on unknown files; we undo it
    from PIL import Image, UnidentifiedImageError

    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics()
    import ultralytics.utils.patches  # noqa: F401  (the patch is applied on import)

    configure_ultralytics()
    bad = tmp_path / "x.jpg"
    bad.write_text("not an image")
    with pytest.raises(UnidentifiedImageError):
        Image.open(bad)


def test_ultralytics_is_set_offline_with_its_integrations_off(monkeypatch):
    # Told it is online, Ultralytics checks for updates and fetches assets; each integration may call home.
    import ultralytics.utils as uutils

    from xingzi.vision.runtime import configure_ultralytics

    calling_home = ("sync", "clearml", "comet", "dvc", "mlflow", "raytune", "tensorboard", "wandb")
    settings = {**uutils.SETTINGS, **{k: True for k in calling_home}, "runs_dir": "runs"}
    monkeypatch.setattr(uutils, "SETTINGS", settings)  # a plain dict: nothing saved to the settings file
    monkeypatch.setattr(uutils, "ONLINE", True)
    assert configure_ultralytics(2) == 2
    assert uutils.ONLINE is False
    assert not any(settings[k] for k in calling_home) and settings["runs_dir"] == "runs"


@pytest.mark.parametrize("fit, canvas", [pytest.param([], {"608x800", "800x608"}, id="fitted"),
                                         pytest.param(["--no-fit"], {"800x800"}, id="square")])
def test_bench_detector_prints_each_timing_of_the_shipped_model(capsys, no_network, fit, canvas):
    from xingzi.cli import main
    from xingzi.vision.sessions import chosen_runtime

    sample = Path(__file__).resolve().parents[2] / "datasets" / "sample" / "images"  # 4:3 photos
    args = ["bench", "detector", "--weights", str(DEFAULT_ONNX), "--images", str(sample), "--n", "2", *fit]
    assert main(args) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("openvino", "onnxruntime"))}
    assert set(rows) == {chosen_runtime("auto"), "onnxruntime"}  # OpenVINO too, where it runs in bfloat16
    for row in rows.values():
        numbers = [float(v) for v in row[2:8]]
        assert row[1] in canvas and all(0 < v < 60_000 for v in numbers)  # milliseconds: no call takes a minute
    assert "b2b med" in out and "cpu med" in out
    assert out.startswith(f"detector latency on 2 photos from {sample}, ")


@pytest.mark.parametrize("where,said", [
    pytest.param("", "no images (", id="an-empty-folder"),
    pytest.param("gone", "--images: expected a folder of photos, got {} (not there)", id="not-there"),
    pytest.param("a.txt", "--images: expected a folder of photos, got {} (a file)", id="a-file"),
])
def test_bench_detector_refuses_a_folder_without_photos_saying_which(tmp_path, capsys, where, said):
    from xingzi.cli import main

    (tmp_path / "a.txt").write_text("no photo")
    folder = tmp_path / where if where else tmp_path
    assert main(["bench", "detector", "--weights", str(DEFAULT_ONNX), "--images", str(folder), "--n", "2"]) == 2
    assert said.format(folder) in capsys.readouterr().err


def test_bench_detector_names_missing_weights_before_printing_anything(tmp_path, capsys):
    from PIL import Image

    from xingzi.cli import main

    Image.new("RGB", (64, 64)).save(tmp_path / "a.jpg")
    gone = tmp_path / "gone.onnx"
    assert main(["bench", "detector", "--weights", str(gone), "--images", str(tmp_path), "--n", "1"]) == 2
    captured = capsys.readouterr()
    assert f"detector weights not found: {gone}" in captured.err and captured.out == ""


# hard photos of real_cn_val: doubtful readings (second opinion, sharpened copy), misreads, many tiles
HARD_PHOTOS = ("valid__IMG_2751_JPG*", "valid__IMG_2769_JPG*", "valid__382645002_*", "valid__395417244_*",
               "valid__IMG_2745_JPG*", "valid__Screenshot-2023-10-24-at-22-32-40-*")


@pytest.fixture(scope="module")
def eval_and_user_readers():
    """The detector as xingzi eval reads (conf 0.001) and as users read (0.25); built once for the module."""
    return Detector(conf=0.001), Detector(conf=0.25)


@pytest.mark.parametrize("pattern", HARD_PHOTOS)
def test_the_boxes_eval_scores_are_the_ones_users_get(no_network, eval_and_user_readers, pattern):
    # xingzi eval reads at conf 0.001 (for AP) and scores the boxes at 0.25; xingzi score and the page read at
    # 0.25: every second reading and gate must leave the boxes over 0.25 as they are, or eval measures another reader
    import cv2
    from shared_folder import shared_file

    from xingzi.vision.memo import remembering

    low, user = eval_and_user_readers
    # the user's reading is the low one's networks at 0.25: the same settings but the threshold, ...
    shared = low.at_conf(0.25)
    settings = [{k: v for k, v in vars(d).items() if k not in ("backend", "classifier", "second")} for d in (user, shared)]
    assert settings[0] == settings[1]
    photo = next(shared_file("data", "real_cn_val", "images").glob(pattern))
    image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    with remembering():  # ... so a picture both readings give the networks is computed once (vision/memo.py)
        scored, got = low.predict(image), shared.predict(image)
    scored = scored.subset(scored.conf >= 0.25)
    order_s, order_g = np.lexsort(scored.xyxy.T), np.lexsort(got.xyxy.T)
    assert scored.cls[order_s].tolist() == got.cls[order_g].tolist(), photo.name
    np.testing.assert_allclose(scored.xyxy[order_s], got.xyxy[order_g], atol=1e-3)
    np.testing.assert_allclose(scored.conf[order_s], got.conf[order_g], atol=1e-6)


def test_a_detector_at_a_lower_threshold_shares_its_networks():
    det = Detector(DEFAULT_ONNX, classifier=None, second=None)
    low = det.at_conf(0.05)
    assert (low.conf, det.conf) == (0.05, 0.25) and low.backend is det.backend
    for bad in (0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="conf must be in"):
            det.at_conf(bad)
