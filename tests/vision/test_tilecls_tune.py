"""The classifier-tuning tool reuses its cached detector boxes only for the very photos they came from."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
from PIL import Image

import xingzi.vision.detector as detector_module
from xingzi.models.tilecls_tune import detect_all
from xingzi.vision.detections import Detections
from xingzi.vision.eval_data import Dataset


class _CountingDetector:
    calls = 0

    def __init__(self, *args, **kwargs) -> None:
        pass

    def predict(self, image: np.ndarray) -> Detections:
        type(self).calls += 1
        probs = np.full((1, 31), 0.01, np.float32)
        return Detections(np.array([[1, 1, 5, 5]], np.float32), np.array([3]), np.array([0.9], np.float32), probs)


@pytest.fixture
def photos(tmp_path, monkeypatch):
    monkeypatch.setattr(detector_module, "Detector", _CountingDetector)
    _CountingDetector.calls = 0
    paths = []
    for k in range(2):
        path = tmp_path / f"p{k}.png"
        Image.new("RGB", (16, 16), (k * 40, 0, 0)).save(path)
        paths.append(path)
    return Dataset(paths, ["1m"], tmp_path)


def test_a_cache_of_these_photos_is_read_back_without_the_detector(photos, tmp_path):
    cache = tmp_path / "dets.pkl"
    first = detect_all(photos, None, cache)
    assert _CountingDetector.calls == 2 and len(first) == 2
    again = detect_all(photos, None, cache)
    assert _CountingDetector.calls == 2  # from the cache
    assert [a[0] for a in again] == [str(p) for p in photos.images]
    np.testing.assert_array_equal(again[0][1], first[0][1])


def test_photos_made_again_under_the_same_names_are_read_again(photos, tmp_path, capsys):
    cache = tmp_path / "dets.pkl"
    detect_all(photos, None, cache)
    Image.new("RGB", (20, 16), (200, 0, 0)).save(photos.images[1])  # another photo, same name
    os.utime(photos.images[1], ns=(1, 1))
    detect_all(photos, None, cache)
    assert _CountingDetector.calls == 4
    assert "made from other photos" in capsys.readouterr().out


def test_a_cache_in_the_old_format_is_not_trusted(photos, tmp_path):
    cache = tmp_path / "dets.pkl"
    stale = [(str(p), np.zeros((0, 4)), np.zeros(0), np.zeros(0), np.zeros((0, 31))) for p in photos.images]
    cache.write_bytes(pickle.dumps(stale))  # paths alone matched before: a remade set passed as the old one
    out = detect_all(photos, None, cache)
    assert _CountingDetector.calls == 2 and len(out[0][2]) == 1


def test_errata_score_the_cached_boxes_against_corrected_labels_and_leave_out_unusable_photos(
        tmp_path, monkeypatch, capsys):
    from yolo_folder import write_yolo_folder

    from xingzi.models.tilecls_tune import main

    monkeypatch.setattr(detector_module, "Detector", _CountingDetector)  # one 4m box at (1,1)-(5,5) per photo
    monkeypatch.setattr(_CountingDetector, "calls", 0)
    box = (3 / 16, 3 / 16, 4 / 16, 4 / 16)
    root = write_yolo_folder(tmp_path / "ds", ["4m", "1p"], {"a": [(1, *box)], "b": [(1, *box)], "c": [(0, *box)]},
                             size=(16, 16))
    errata = tmp_path / "fixes.toml"
    errata.write_text('[[photo]]\nimage = "a.png"\nwas = "1p"\nnow = "4m"\nwhy = "a 4m labelled 1p"\n\n'
                      '[[unusable]]\nimage = "b.png"\nwhy = "labels of another photo"\n')

    def detector_row(*extra: str) -> list[float]:
        main(["--data", str(root), "--cache", str(tmp_path / "dets.pkl"), *extra])
        line = next(s for s in capsys.readouterr().out.splitlines() if s.startswith("detector"))
        return [float(v) for v in line.split()[1:]]

    assert detector_row()[2:4] == pytest.approx([1 / 3, 1 / 3], abs=1e-4)  # F1, image exact: only c is right
    assert detector_row("--errata", str(errata))[2:4] == pytest.approx([1.0, 1.0])  # a fixed, b left out
    assert _CountingDetector.calls == 3  # the second run read the cache, made from every photo


def test_the_tuning_rows_are_the_detector_the_oracle_and_each_weight_and_gate(tmp_path, capsys, monkeypatch):
    from pathlib import Path

    from xingzi.models.tilecls_tune import main
    from xingzi.vision.classifier import TileClassifier

    moved_calls = []
    moved_readings = TileClassifier.moved_readings
    monkeypatch.setattr(TileClassifier, "moved_readings",
                        lambda self, *args: moved_calls.append(1) or moved_readings(self, *args))
    root = Path(__file__).resolve().parents[2]
    argv = ["--data", str(root / "datasets" / "sample" / "data.yaml"), "--cache", str(tmp_path / "dets.pkl"),
            "--classifier", str(root / "models" / "xingzi_tilecls.onnx"), "--weights", "0.5", "--recheck", "0,1"]
    assert main(argv) == 0
    rows = {line[:28].strip(): [float(v) for v in line[28:].split()]
            for line in capsys.readouterr().out.splitlines()[1:]}
    assert list(rows) == ["detector", "oracle classes", "combined w=0.5", "combined w=0.5 recheck 1"]
    assert all(len(v) == 6 and all(0 <= x <= 1 for x in v) for v in rows.values())
    assert rows["oracle classes"][2] >= max(v[2] for v in rows.values())  # true faces: the best F1 any reading gets
    assert len(moved_calls) == 8  # a gate asked for: every photo's boxes read from moved crops too
    assert main([*argv[:-1], "0"]) == 0 and len(moved_calls) == 8  # none asked for: no moved crops cut
