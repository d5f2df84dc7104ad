"""Counting the edits a person makes to pre-labels (the measure behind docs/labelling.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from xingzi.datasets.prelabel_eval import LabelDiff, compare_labels, confusion_matrix, score_prelabels

A = [3, 0.2, 0.5, 0.1, 0.2]
B = [27, 0.6, 0.5, 0.1, 0.2]
WIND = [30, 0.8, 0.5, 0.1, 0.2]


def shifted(row, dx):
    return [row[0], row[1] + dx, *row[2:]]


@pytest.mark.parametrize(("pred", "truth", "diff"), [
    pytest.param([A, B], [A, B], LabelDiff(2, 0, 0, 0), id="perfect"),
    pytest.param([shifted(A, 0.02), B], [A, B], LabelDiff(2, 0, 0, 0), id="slightly-off-is-fine"),
    pytest.param([shifted(A, 0.06), B], [A, B], LabelDiff(1, 0, 1, 1), id="iou-below-half"),
    pytest.param([[5, *A[1:]], B], [A, B], LabelDiff(1, 1, 0, 0), id="wrong-class"),
    pytest.param([A], [A, B], LabelDiff(1, 0, 0, 1), id="missed"),
    pytest.param([A, B, [9, 0.4, 0.1, 0.1, 0.1]], [A, B], LabelDiff(2, 0, 1, 0), id="extra"),
    pytest.param([A, B, [30, *WIND[1:]]], [A, B, WIND], LabelDiff(2, 0, 0, 0), id="prediction-on-a-wind-ignored"),
    pytest.param([A, B], [A, B, WIND], LabelDiff(2, 0, 0, 0), id="unlabelled-wind-ignored"),
    pytest.param([A, A], [A], LabelDiff(1, 0, 1, 0), id="double-box"),
    pytest.param([], [], LabelDiff(0, 0, 0, 0), id="empty"),
])
def test_compare_labels(pred, truth, diff):
    got = compare_labels(np.array(pred).reshape(-1, 5), np.array(truth).reshape(-1, 5))
    assert got == diff
    assert got.needs_no_correction == (diff.edits == 0)


def test_a_box_overlapping_its_tile_by_under_half_is_an_edit_of_two():
    truth = np.array([[3, 0.5, 0.5, 0.2, 0.2]])
    shifted = np.array([[3, 0.5 + 0.2 * 0.4, 0.5, 0.2, 0.2]])  # IoU 0.6 / 1.4 = 0.43
    assert compare_labels(shifted, truth) == LabelDiff(0, 0, 1, 1)
    assert compare_labels(shifted, truth, iou_threshold=0.4) == LabelDiff(1, 0, 0, 0)


def test_no_ignored_classes_counts_winds():
    assert compare_labels(np.array([A]), np.array([A, WIND]), ignore_classes=()) == LabelDiff(1, 0, 0, 1)


def test_score_prelabels(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "t").mkdir()
    fmt = lambda rows: "".join(" ".join(map(str, r)) + "\n" for r in rows)  # noqa: E731
    (tmp_path / "p" / "x.txt").write_text(fmt([A, B]))
    (tmp_path / "t" / "x.txt").write_text(fmt([A, B]))
    (tmp_path / "p" / "y.txt").write_text(fmt([A]))
    (tmp_path / "t" / "y.txt").write_text(fmt([A, B, WIND]))
    q = score_prelabels(tmp_path / "p", tmp_path / "t", ["x", "y"], 2.0)
    assert (q.photos, q.no_correction, q.no_correction_share, q.edits_per_photo) == (2, 1, 0.5, 0.5)
    assert (q.box_precision, q.box_recall) == (1.0, 0.75)


def test_confusion_matrix_rows_are_truth():
    pairs = [(np.array([A, [5, *B[1:]], [9, 0.4, 0.1, 0.1, 0.1]]), np.array([A, B, WIND])),
             (np.zeros((0, 5)), np.array([B]))]
    m = confusion_matrix(pairs, ignore_classes=())
    expected = {(3, 3): 1, (27, 5): 1, (31, 9): 1, (30, 31): 1, (27, 31): 1}
    assert {(int(i), int(j)): int(m[i, j]) for i, j in zip(*np.nonzero(m), strict=True)} == expected


def test_measure_command_end_to_end(tmp_path, monkeypatch, capsys):
    """The measure script with a fake detector that finds A and B in every photo."""
    from PIL import Image

    import xingzi.datasets.label as label_mod
    from xingzi.datasets.prelabel_eval import main
    from xingzi.vision.detections import Detections

    data = tmp_path / "val"
    (data / "images").mkdir(parents=True)
    (data / "labels").mkdir()
    truths = {"ok": [A, B, WIND], "missed": [A, B, [8, 0.4, 0.8, 0.1, 0.2]], "extra": [A]}
    for stem, rows in truths.items():
        Image.new("RGB", (100, 50)).save(data / "images" / f"{stem}.jpg")
        (data / "labels" / f"{stem}.txt").write_text("".join(" ".join(map(str, r)) + "\n" for r in rows))

    def fake_predict(image):
        h, w = image.shape[:2]
        rows = np.array([A, B])
        xyxy = np.column_stack([(rows[:, 1] - rows[:, 3] / 2) * w, (rows[:, 2] - rows[:, 4] / 2) * h,
                                (rows[:, 1] + rows[:, 3] / 2) * w, (rows[:, 2] + rows[:, 4] / 2) * h])
        return Detections(xyxy.astype(np.float32), rows[:, 0].astype(np.int64), np.ones(2, np.float32))

    monkeypatch.setattr(label_mod, "detector_predictor", lambda *a: fake_predict)
    assert main(["--data", str(data), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["photos"], doc["no_correction"], doc["edits_per_photo"]) == (3, 1, 2 / 3)
    assert main(["--data", str(data), "--limit", "2"]) == 0
    assert "needed no correction: 0/2" in capsys.readouterr().out  # 'extra' and 'missed' come first
