"""The scorer of ``xingzi eval`` against pycocotools' COCOeval on random boxes: every figure the same.

The boxes are drawn as a detector errs: most tiles boxed once, a few twice or not at all, boxes shifted by up to a
fifth of a tile (IoU around the 0.5 line), a tenth of the faces misread, stray boxes, ties in confidence, tiles of
no class of ours, and tiles lying over each other.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.coco_check import coco_scores, differences, main
from xingzi.vision.metrics import IGNORE, ImageBoxes, score

NC = 5


def random_set(rng: np.random.Generator) -> tuple[list[ImageBoxes], list[ImageBoxes]]:
    truths, preds = [], []
    for _ in range(int(rng.integers(1, 6))):
        n = int(rng.integers(0, 7))
        xy = rng.uniform(0, float(rng.choice([20, 80])), (n, 2))  # 20: tiles crowd over each other
        wh = rng.uniform(6, 30, (n, 2))
        cls = rng.integers(IGNORE if rng.random() < 0.2 else 0, NC, n)
        boxes, read = [], []
        for i in range(n):
            for _ in range(int(rng.choice([0, 1, 1, 1, 1, 1, 2]))):
                shift = rng.normal(0, float(rng.choice([0.02, 0.1, 0.2])), 4) * np.r_[wh[i], wh[i]]
                boxes.append(np.r_[xy[i], xy[i] + wh[i]] + shift)
                read.append(max(int(cls[i]), 0) if rng.random() < 0.9 else int(rng.integers(NC)))
        for _ in range(int(rng.choice([0, 0, 0, 1, 2]))):
            corner = rng.uniform(0, 80, 2)
            boxes.append(np.r_[corner, corner + rng.uniform(6, 30, 2)])
            read.append(int(rng.integers(NC)))
        b = np.array(boxes, np.float64).reshape(-1, 4)
        b = np.hstack([np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])])
        conf = np.round(rng.uniform(0.01, 1, len(b)), int(rng.choice([1, 2, 6])))  # 1 or 2 decimals: ties
        truths.append(ImageBoxes.truth(np.hstack([xy, xy + wh]), cls))
        preds.append(ImageBoxes.preds(b, np.array(read, np.int64), conf))
    return truths, preds


@pytest.mark.parametrize("seed", range(6))
def test_every_figure_is_cocoevals(seed):
    rng = np.random.default_rng(seed)
    exact = []
    for _ in range(150):
        truths, preds = random_set(rng)
        conf = float(rng.choice([0.25, 0.5]))
        ours = score(truths, preds, NC, conf)
        gaps = differences(ours, coco_scores(truths, preds, NC, conf))
        assert max(gaps.values()) < 1e-9, gaps
        exact += list(ours.image_exact)
    assert 0.1 < np.mean(exact) < 0.9  # the sets hold images read exactly and images not


def test_a_gap_is_reported():
    truths = [ImageBoxes.truth(np.array([[0, 0, 10, 10]], float), np.array([1]))]
    preds = [ImageBoxes.preds(np.array([[0, 0, 10, 10]], float), np.array([1]), np.array([0.9]))]
    coco = coco_scores(truths, preds, NC, 0.25)
    assert max(differences(score(truths, preds, NC, 0.25), coco).values()) < 1e-9
    missed = score(truths, [preds[0].select(np.array([False]))], NC, 0.25)
    gaps = differences(missed, coco)
    assert gaps["TP per class"] == 1 and gaps["FN per class"] == 1 and gaps["images read exactly"] == 1
    assert gaps["AP50 per class"] == pytest.approx(1)


def test_the_command_on_a_folder(tmp_path, capsys):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "preds").mkdir()
    (tmp_path / "classes.txt").write_text("\n".join(["1m", "2m", "other"]) + "\n")
    from PIL import Image

    for k in range(2):
        Image.new("RGB", (100, 80)).save(tmp_path / "images" / f"p{k}.jpg")
    (tmp_path / "labels" / "p0.txt").write_text("0 0.2 0.5 0.1 0.2\n1 0.5 0.5 0.1 0.2\n2 0.8 0.5 0.1 0.2\n")
    (tmp_path / "labels" / "p1.txt").write_text("1 0.5 0.5 0.1 0.2\n")
    # the predictions name their own classes, in another order than the labels
    (tmp_path / "preds" / "classes.txt").write_text("2m\n1m\n")
    (tmp_path / "preds" / "p0.txt").write_text("1 0.2 0.5 0.1 0.2 0.9\n1 0.5 0.5 0.1 0.2 0.8\n0 0.8 0.5 0.1 0.2 0.7\n")
    (tmp_path / "preds" / "p1.txt").write_text("0 0.5 0.5 0.1 0.2 0.6\n")
    assert main(["--data", str(tmp_path), "--preds", str(tmp_path / "preds")]) == 0
    out = capsys.readouterr().out
    assert "2 images, 3 tiles" in out  # the 'other' tile is not counted
    assert "TP / FP / FN             2 / 1 / 1           2 / 1 / 1" in out
    assert "image exact               0.500000            0.500000" in out
    assert "agree on every class and image" in out
