"""The second-stage tile classifier: crop geometry, the combination rule, ONNX inference, bad input."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.classifier import (
    CLS_NAMES,
    OTHER_CLASS,
    PAD_VALUE,
    TileClassifier,
    combine,
    crop_tiles,
    square_window,
    to_blob,
)
from xingzi.vision.detections import Detections

NC = len(CLASS_NAMES)


@pytest.mark.parametrize(("box", "context", "window"), [
    pytest.param((10, 20, 40, 60), 0.0, (5, 20, 45, 60), id="upright-no-context"),
    pytest.param((10, 20, 50, 50), 0.0, (10, 15, 50, 55), id="sideways-no-context"),
    pytest.param((0, 0, 30, 40), 0.25, (-15, -10, 45, 50), id="context-quarter-each-side"),
])
def test_square_window_is_centred_on_the_box_and_sized_by_its_longer_side(box, context, window):
    np.testing.assert_allclose(square_window(np.array([box]), context), [window])


@pytest.mark.parametrize(("box", "context", "match"), [
    pytest.param((5, 5, 5, 5), 0.1, "positive width or height", id="empty-box"),
    pytest.param((0, 0, 10, 10), -0.1, "context must be >= 0", id="negative-context"),
])
def test_square_window_rejects_bad_boxes(box, context, match):
    with pytest.raises(ValueError, match=match):
        square_window(np.array([box]), context)


def _photo() -> np.ndarray:
    """100×200 BGR photo: a red 20×30 tile at x 50..70, y 30..60 on blue, a green pixel block at its top-left."""
    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :] = (255, 0, 0)
    img[30:60, 50:70] = (0, 0, 255)
    img[30:36, 50:56] = (0, 255, 0)
    return img


@pytest.mark.parametrize(("box", "size", "centre_bgr"), [
    pytest.param((50, 30, 70, 60), 32, (0, 0, 255), id="tile-in-centre"),
    pytest.param((50, 30, 70, 60), 64, (0, 0, 255), id="upscaled"),
    pytest.param((120, 40, 140, 70), 16, (255, 0, 0), id="background-box"),
])
def test_crop_tiles_puts_the_box_centre_in_the_crop_centre(box, size, centre_bgr):
    crops = crop_tiles(_photo(), np.array([box], np.float32), size=size, context=0.0)
    assert crops.shape == (1, size, size, 3) and crops.dtype == np.uint8
    assert tuple(int(v) for v in crops[0, size // 2, size // 2]) == centre_bgr


def test_crop_tiles_keeps_orientation_and_fills_outside_with_grey():
    # context 0 on a 20×30 box: a 30×30 window from x 45..75, so the tile's top-left green block
    # sits in the crop's top-left quadrant (not mirrored), and a box at the photo's corner is padded grey.
    crops = crop_tiles(_photo(), np.array([(50, 30, 70, 60), (-10, -10, 10, 10)], np.float32), size=30, context=0.0)
    green = np.argwhere((crops[0] == (0, 255, 0)).all(axis=2))
    assert len(green) and green[:, 0].max() < 15 and green[:, 1].max() < 15
    assert (crops[1, :5, :5] == PAD_VALUE).all() and (crops[1, -5:, -5:] == (255, 0, 0)).all()


@pytest.mark.parametrize(("image", "match"), [
    pytest.param(np.zeros((10, 10), np.uint8), "HxWx3 uint8", id="grey"),
    pytest.param(np.zeros((10, 10, 3), np.float32), "HxWx3 uint8", id="float"),
])
def test_crop_tiles_rejects_images_that_are_not_bgr_uint8(image, match):
    with pytest.raises(ValueError, match=match):
        crop_tiles(image, np.array([(0, 0, 5, 5)]))


def test_to_blob_is_rgb_nchw_float_in_unit_range():
    crops = np.zeros((2, 8, 8, 3), np.uint8)
    crops[..., 0] = 255  # blue in BGR
    blob = to_blob(crops)
    assert blob.shape == (2, 3, 8, 8) and blob.dtype == np.float32
    assert blob[:, 2].min() == 1.0 and blob[:, :2].max() == 0.0
    with pytest.raises(ValueError, match=r"\(N,H,W,3\) uint8"):
        to_blob(crops[0])


def _one_hot_ish(n: int, cls: int, top: float, rest: float) -> np.ndarray:
    p = np.full(n, rest)
    p[cls] = top
    return p


@pytest.mark.parametrize(("det_cls", "det_top", "clf_cls", "clf_top", "weight", "want"), [
    pytest.param(4, 0.9, 8, 0.99, 0.0, 4, id="weight-0-keeps-detector"),
    pytest.param(4, 0.9, 8, 0.5, 1.0, 8, id="weight-1-takes-classifier"),
    pytest.param(4, 0.4, 8, 0.95, 0.5, 8, id="sure-classifier-beats-unsure-detector"),
    pytest.param(4, 0.95, 8, 0.2, 0.5, 4, id="sure-detector-beats-unsure-classifier"),
    pytest.param(4, 0.6, OTHER_CLASS, 0.9, 0.5, 4, id="other-is-not-a-choice"),
])
def test_combine_picks_the_jointly_likeliest_class(det_cls, det_top, clf_cls, clf_top, weight, want):
    det = _one_hot_ish(NC, det_cls, det_top, 0.01)[None]
    clf = _one_hot_ish(len(CLS_NAMES), clf_cls, clf_top, (1 - clf_top) / (len(CLS_NAMES) - 1))[None]
    joint = combine(det, clf, weight)
    assert joint.shape == (1, NC) and joint.argmax() == want
    assert joint.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(("det_shape", "clf_shape", "weight", "match"), [
    pytest.param((2, NC), (2, NC), 0.5, "classifier probs", id="classifier-without-other"),
    pytest.param((2, NC), (3, len(CLS_NAMES)), 0.5, "classifier probs", id="row-count-differs"),
    pytest.param((2, NC), (2, len(CLS_NAMES)), 1.5, "weight must be in", id="weight-above-1"),
])
def test_combine_rejects_bad_shapes_and_weights(det_shape, clf_shape, weight, match):
    with pytest.raises(ValueError, match=match):
        combine(np.full(det_shape, 0.1), np.full(clf_shape, 0.1), weight)


@pytest.fixture(scope="module")
def random_classifier(tmp_path_factory) -> Path:
    """An exported classifier with random weights (real export path, no training)."""
    import torch

    from xingzi.models.tilecls import TileNet, TrainConfig, export

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tilecls")
    torch.save({"model": TileNet(8).state_dict(), "config": asdict(TrainConfig(width=8))}, folder / "best.pt")
    return export(folder / "best.pt", folder / "tilecls.onnx", weight=0.5, min_conf=0.3)


@pytest.mark.parametrize("n", [pytest.param(0, id="none"), pytest.param(1, id="one"), pytest.param(70, id="two-batches")])
def test_onnx_classifier_returns_a_distribution_per_crop(random_classifier, n):
    clf = TileClassifier(random_classifier, batch=64)
    crops = np.random.default_rng(n).integers(0, 256, (n, 64, 64, 3), dtype=np.uint8)
    probs = clf.probabilities(crops)
    assert probs.shape == (n, len(CLS_NAMES)) and probs.dtype == np.float32
    np.testing.assert_allclose(probs.sum(axis=1), np.ones(n), rtol=1e-5)


def test_four_turns_read_a_tile_the_same_whichever_way_it_lies(random_classifier):
    crops = np.random.default_rng(3).integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)
    turned = np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2)))
    once, four = TileClassifier(random_classifier, turns=1), TileClassifier(random_classifier, turns=4)
    np.testing.assert_allclose(four.probabilities(crops), four.probabilities(turned), atol=1e-6)
    assert not np.allclose(once.probabilities(crops), once.probabilities(turned), atol=1e-6)


def test_refine_changes_classes_only_and_keeps_the_detector_scale(random_classifier):
    clf = TileClassifier(random_classifier, weight=1.0)
    assert clf.info.min_conf == 0.3  # read from the JSON beside the .onnx
    xyxy = np.array([(50, 30, 70, 60), (100, 20, 120, 50)], np.float32)
    probs = np.full((2, NC), 0.01, np.float32)
    probs[0, 3], probs[1, 5] = 0.8, 0.2
    det = Detections(xyxy, np.array([3, 5]), np.array([0.8, 0.2], np.float32), probs)
    out = clf.refine(_photo(), det)
    np.testing.assert_array_equal(out.xyxy, det.xyxy)
    np.testing.assert_array_equal(out.conf, det.conf)
    np.testing.assert_allclose(out.probs.max(axis=1), det.conf, rtol=1e-6)
    want = clf.classify(_photo(), xyxy[:1])[0, :NC].argmax()  # weight 1: the classifier's own choice
    assert out.cls[0] == want and out.cls[1] == 5  # the second box is below min_conf: untouched
    other = clf.classify(_photo(), xyxy[:1])[0, OTHER_CLASS]  # how likely a wind/flower: no face of ours
    assert out.foreign is not None and out.foreign.tolist() == pytest.approx([other, 0.0])
    assert len(clf.refine(_photo(), Detections.empty())) == 0  # a photo with no tiles
    with pytest.raises(ValueError, match="per-class scores"):
        clf.refine(_photo(), Detections(xyxy, det.cls, det.conf))


def test_refine_with_a_second_picture_keeps_the_surer_reading_per_box(random_classifier, monkeypatch):
    clf = TileClassifier(random_classifier, weight=1.0)
    photo, negative = _photo(), 255 - _photo()
    xyxy = np.array([(50, 30, 70, 60), (100, 20, 120, 50)], np.float32)
    det = Detections(xyxy, np.zeros(2, np.int64), np.full(2, 0.5, np.float32), np.full((2, NC), 0.5, np.float32))

    def reading(sure: list[tuple[int, float]]) -> np.ndarray:  # per box: (face, its probability)
        out = np.full((len(sure), len(CLS_NAMES)), 0.0, np.float32)
        for i, (face, p) in enumerate(sure):
            out[i] = (1 - p) / (len(CLS_NAMES) - 1)
            out[i, face] = p
        return out

    readings = {photo.tobytes(): reading([(3, 0.6), (4, 0.9)]), negative.tobytes(): reading([(7, 0.95), (8, 0.5)])}
    monkeypatch.setattr(clf, "classify", lambda image, boxes: readings[image.tobytes()])
    assert clf.refine(photo, det).cls.tolist() == [3, 4] and clf.refine(negative, det).cls.tolist() == [7, 8]
    assert clf.refine(photo, det, also=negative).cls.tolist() == [7, 4]  # the surer face of each box
    assert clf.refine(negative, det, also=photo).cls.tolist() == [7, 4]  # either way round
    with pytest.raises(ValueError, match="other picture must match"):
        clf.refine(photo, det, also=photo[:50])


def _with_settings(onnx: Path, folder: Path, **changes) -> Path:
    """A copy of an exported classifier with some JSON settings changed."""
    import shutil

    copy = folder / f"c{len(list(folder.glob('*.onnx')))}.onnx"
    shutil.copy(onnx, copy)
    copy.with_suffix(".json").write_text(json.dumps({**json.loads(onnx.with_suffix(".json").read_text()), **changes}))
    return copy


def test_doubtful_boxes_are_read_again_from_crops_moved_four_ways(random_classifier, tmp_path):
    xyxy = np.array([(100, 20, 120, 50), (50, 30, 70, 60)], np.float32)
    probs = np.full((2, NC), 0.01, np.float32)
    probs[0, 3] = 0.99  # the detector is sure of the first box; the second (on the tile) it cannot tell at all
    det = Detections(xyxy, np.array([3, 0]), np.array([0.99, 0.5], np.float32), probs)
    plain = TileClassifier(_with_settings(random_classifier, tmp_path, min_conf=0.0))
    once = plain.classify(_photo(), xyxy)
    joint = combine(probs, once, plain.info.weight)
    gate = float(joint.max(1).mean())  # between the two boxes' certainty
    assert joint[1].max() < gate <= joint[0].max()
    moved = np.array([[x1 + dx * (x2 - x1), y1 + dy * (y2 - y1), x2 + dx * (x2 - x1), y2 + dy * (y2 - y1)]
                      for x1, y1, x2, y2 in xyxy[1:] for dx, dy in ((0.3, 0), (-0.3, 0), (0, 0.3), (0, -0.3))])
    averaged = (once[1] + plain.classify(_photo(), moved).sum(0)) / 5
    clf = TileClassifier(_with_settings(random_classifier, tmp_path, min_conf=0.0, recheck=gate, shift=0.3))
    read, again = clf.reread_doubtful(_photo(), xyxy, probs, once)
    np.testing.assert_allclose(read[0], once[0])  # the sure box is left as it was read
    np.testing.assert_allclose(read[1], averaged, rtol=1e-5)
    np.testing.assert_allclose(again, combine(probs, read, clf.info.weight), rtol=1e-5)
    assert not np.allclose(read[1], once[1], rtol=1e-4, atol=0)  # the moved crops did change the reading
    out = clf.refine(_photo(), det)  # refine uses the re-read
    assert out.cls.tolist() == again.argmax(1).tolist()
    assert out.foreign is not None and out.foreign[1] == pytest.approx(averaged[OTHER_CLASS], rel=1e-5)
    # recheck 0 (the default when the JSON does not name it) reads every box once
    np.testing.assert_array_equal(plain.refine(_photo(), det).cls, joint.argmax(1))


@pytest.mark.parametrize(("changes", "match"), [
    pytest.param({"recheck": 1.5}, "recheck must be in", id="recheck-above-1"),
    pytest.param({"shift": 0.5}, "shift in", id="shift-half-a-box"),
    pytest.param({"shift": -0.1}, "shift in", id="negative-shift"),
    pytest.param({"weight": -0.5}, "weight must be in", id="negative-weight"),
    pytest.param({"weight": 1.5}, "weight must be in", id="weight-above-1"),
    pytest.param({"turns": 3}, "turns 1, 2 or 4", id="three-turns"),
    pytest.param({"recheck": -0.1}, "recheck must be in", id="negative-recheck"),
])
def test_classifier_rejects_bad_settings(random_classifier, tmp_path, changes, match):
    with pytest.raises(ValueError, match=match):
        TileClassifier(_with_settings(random_classifier, tmp_path, **changes))


@pytest.mark.parametrize("gate", [0.0, 0.5, 1.0])
def test_the_tuner_reads_doubtful_boxes_again_as_the_classifier_does(random_classifier, tmp_path, gate):
    from xingzi.models.tilecls_tune import combined_reading

    xyxy = np.array([(100, 20, 120, 50), (50, 30, 70, 60), (10, 10, 40, 30)], np.float32)
    probs = np.random.default_rng(4).dirichlet(np.full(NC, 0.3), 3).astype(np.float32)
    clf = TileClassifier(_with_settings(random_classifier, tmp_path, recheck=gate, shift=0.3))
    read = clf.classify(_photo(), xyxy)
    want = clf.reread_doubtful(_photo(), xyxy, probs, read)[1]
    got = combined_reading(probs, read, clf.moved_readings(_photo(), xyxy), clf.info.weight, gate)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    plain = combine(probs, read, clf.info.weight)
    # gate 0: nothing is read again; gate 1: every box is (a random network's readings move only a little)
    assert np.array_equal(got, plain) == (gate == 0.0)


def test_recheck_can_be_switched_off_without_editing_the_json(random_classifier, tmp_path):
    from xingzi.commands.evaluate import without_recheck
    from xingzi.vision.detector import DEFAULT_ONNX, Detector

    path = _with_settings(random_classifier, tmp_path, recheck=0.9)
    assert TileClassifier(path).info.recheck == 0.9
    off = without_recheck(str(path))
    assert (off.info.recheck, off.path) == (0.0, path)
    assert Detector(DEFAULT_ONNX, classifier=off).classifier is off  # a built classifier is used as it is
    with pytest.raises(FileNotFoundError, match="classifier not found"):
        without_recheck(str(tmp_path / "missing.onnx"))


def test_partner_networks_named_in_the_json_are_averaged_in(random_classifier, tmp_path):
    import shutil

    import torch

    from xingzi.models.tilecls import TileNet, TrainConfig, export

    torch.manual_seed(1)
    torch.save({"model": TileNet(8).state_dict(), "config": asdict(TrainConfig(width=8))}, tmp_path / "b.pt")
    other = export(tmp_path / "b.pt", tmp_path / "partner.onnx", weight=0.5, min_conf=0.3)
    main = tmp_path / "main.onnx"
    shutil.copy(random_classifier, main)
    settings = json.loads(random_classifier.with_suffix(".json").read_text())
    main.with_suffix(".json").write_text(json.dumps({**settings, "partners": ["partner.onnx"]}))
    crops = np.random.default_rng(5).integers(0, 256, (4, 64, 64, 3), dtype=np.uint8)
    pair = TileClassifier(main).probabilities(crops)
    alone, partner = TileClassifier(random_classifier).probabilities(crops), TileClassifier(other).probabilities(crops)
    np.testing.assert_allclose(pair, (alone + partner) / 2, atol=1e-6)
    assert not np.allclose(alone, partner, atol=1e-3)  # two different networks: the average is news
    main.with_suffix(".json").write_text(json.dumps({**settings, "partners": ["missing.onnx"]}))
    with pytest.raises(FileNotFoundError, match="classifier not found: .*missing.onnx"):
        TileClassifier(main)


def test_partners_read_only_the_crops_the_first_network_doubts(random_classifier, tmp_path):
    import shutil

    import torch

    from xingzi.models.tilecls import TileNet, TrainConfig, export

    torch.manual_seed(1)
    torch.save({"model": TileNet(8).state_dict(), "config": asdict(TrainConfig(width=8))}, tmp_path / "b.pt")
    other = export(tmp_path / "b.pt", tmp_path / "partner.onnx")
    main = tmp_path / "main.onnx"
    shutil.copy(random_classifier, main)
    settings = {**json.loads(random_classifier.with_suffix(".json").read_text()), "partners": ["partner.onnx"]}
    crops = np.random.default_rng(6).integers(0, 256, (8, 64, 64, 3), dtype=np.uint8)
    alone, partner = TileClassifier(random_classifier).probabilities(crops), TileClassifier(other).probabilities(crops)
    gate = float(np.median(alone.max(1)))  # half the crops read at least this surely by the first network
    sure = alone.max(1) >= gate
    assert 0 < sure.sum() < len(crops)
    main.with_suffix(".json").write_text(json.dumps({**settings, "partner_gate": gate}))
    gated = TileClassifier(main)
    seen: list[int] = []
    session = gated.sessions[1][0]
    run = session.run
    session.run = lambda x: seen.append(len(x)) or run(x)  # type: ignore[method-assign]
    got = gated.probabilities(crops)
    assert seen == [int((~sure).sum())]  # the partner was given the doubtful crops only
    np.testing.assert_allclose(got[sure], alone[sure], atol=1e-6)
    np.testing.assert_allclose(got[~sure], (alone[~sure] + partner[~sure]) / 2, atol=1e-6)
    # gate 1 (the default) averages every crop; gate 0 reads with the first network alone
    np.testing.assert_allclose(TileClassifier(main, partner_gate=1.0).probabilities(crops), (alone + partner) / 2,
                               atol=1e-6)
    np.testing.assert_allclose(TileClassifier(main, partner_gate=0.0).probabilities(crops), alone, atol=1e-6)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="partner_gate must be in"):
            TileClassifier(main, partner_gate=bad)


def test_a_partner_of_another_input_size_reads_its_own_crops(random_classifier, tmp_path):
    import shutil

    import torch

    from xingzi.models.tilecls import TileNet, TrainConfig, export

    torch.manual_seed(2)
    torch.save({"model": TileNet(8, size=96).state_dict(), "config": asdict(TrainConfig(width=8)), "size": 96},
               tmp_path / "big.pt")
    big = export(tmp_path / "big.pt", tmp_path / "big.onnx")
    assert json.loads(big.with_suffix(".json").read_text())["size"] == 96
    main = tmp_path / "main.onnx"
    shutil.copy(random_classifier, main)
    settings = json.loads(random_classifier.with_suffix(".json").read_text())
    main.with_suffix(".json").write_text(json.dumps({**settings, "partners": ["big.onnx"]}))
    pair = TileClassifier(main)
    assert pair.sizes == (64, 96)
    boxes = np.array([(50, 30, 70, 60), (100, 20, 120, 50)], np.float32)
    alone, partner = TileClassifier(random_classifier).classify(_photo(), boxes), TileClassifier(big).classify(_photo(), boxes)
    np.testing.assert_allclose(pair.classify(_photo(), boxes), (alone + partner) / 2, atol=1e-6)
    # crops of one size cannot feed both networks: the message names the size missing
    with pytest.raises(ValueError, match="crops must be 96x96, got 64x64"):
        pair.probabilities(np.zeros((1, 64, 64, 3), np.uint8))


def test_classifier_rejects_wrong_crop_size(random_classifier):
    with pytest.raises(ValueError, match="crops must be 64x64"):
        TileClassifier(random_classifier).probabilities(np.zeros((1, 32, 32, 3), np.uint8))


@pytest.mark.parametrize(("name", "exc", "match"), [
    pytest.param("model.pt", ValueError, "must be an .onnx file", id="not-onnx"),
    pytest.param("missing.onnx", FileNotFoundError, "classifier not found", id="missing"),
])
def test_classifier_rejects_bad_paths(tmp_path, name, exc, match):
    with pytest.raises(exc, match=match):
        TileClassifier(tmp_path / name)


def test_classifier_rejects_a_network_with_other_classes(tmp_path):
    import torch

    from xingzi.models.tilecls import TileNet, TrainConfig, export

    torch.save({"model": TileNet(4, classes=10).state_dict(), "config": asdict(TrainConfig(width=4))},
               tmp_path / "bad.pt")
    with pytest.raises(Exception, match="size mismatch"):  # the checkpoint does not fit a 32-class net
        export(tmp_path / "bad.pt", tmp_path / "bad.onnx")
    model = TileNet(4, classes=10).eval()
    torch.onnx.export(model, (torch.zeros(1, 3, 64, 64),), str(tmp_path / "ten.onnx"), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}}, dynamo=False)
    with pytest.raises(ValueError, match="has 10 outputs, expected 32"):
        TileClassifier(tmp_path / "ten.onnx")


@pytest.mark.parametrize("choice", [pytest.param("path", id="given-path"), pytest.param(None, id="none")])
def test_detector_runs_the_second_stage_only_when_given_one(random_classifier, choice):
    from xingzi.vision.detector import DEFAULT_ONNX, Detector

    img = np.random.default_rng(2).integers(0, 255, (200, 300, 3), np.uint8)
    plain = Detector(DEFAULT_ONNX, conf=0.01, classifier=None, stretched=False, negative=False).predict(img)
    det = Detector(DEFAULT_ONNX, conf=0.01, classifier=random_classifier if choice else None, stretched=False,
                   negative=False)
    assert (det.classifier is not None) == bool(choice)
    out = det.predict(img)
    np.testing.assert_array_equal(out.xyxy, plain.xyxy)  # same boxes and confidences either way
    np.testing.assert_array_equal(out.conf, plain.conf)
    if choice:
        want = TileClassifier(random_classifier).refine(img, plain)
        np.testing.assert_array_equal(out.cls, want.cls)
    else:
        np.testing.assert_array_equal(out.probs, plain.probs)


def _tiny_crops(folder: Path, n: int = 40) -> Path:
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev"):
        np.save(folder / f"{split}_x.npy", rng.integers(0, 256, (n, 64, 64, 3), dtype=np.uint8))
        np.save(folder / f"{split}_y.npy", rng.integers(0, 32, n).astype(np.int64))
    return folder


def test_training_can_start_from_another_runs_weights(tmp_path):
    import torch

    from xingzi.models.tilecls import TileNet, TrainConfig, train

    torch.manual_seed(3)
    start = TileNet(4)
    torch.save({"model": start.state_dict(), "config": asdict(TrainConfig(width=4))}, tmp_path / "start.pt")
    crops = _tiny_crops(tmp_path / "crops")
    cfg = TrainConfig(crops=str(crops), out=str(tmp_path / "run"), width=4, batch=8, steps=1, eval_every=1,
                      lr=0.0, weight_decay=0.0, init=str(tmp_path / "start.pt"))
    best = torch.load(train(cfg), weights_only=False)
    first_conv = "features.0.0.weight"
    torch.testing.assert_close(best["model"][first_conv], start.state_dict()[first_conv])  # lr 0: the start kept
    fresh = torch.load(train(TrainConfig(**{**asdict(cfg), "init": "", "out": str(tmp_path / "fresh")})),
                       weights_only=False)
    assert not torch.equal(fresh["model"][first_conv], start.state_dict()[first_conv])
    with pytest.raises(ValueError, match="width 4, this run 8"):
        train(TrainConfig(**{**asdict(cfg), "width": 8, "out": str(tmp_path / "wide")}))
