"""Detection metrics on hand-made boxes whose answers can be worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.vision.metrics import (
    IGNORE,
    UNREAD,
    ImageBoxes,
    box_iou,
    confusion,
    face_pairs,
    image_errors,
    score,
)

NC = 31
ROW = np.array([[10, 10, 40, 50], [50, 10, 80, 50], [90, 10, 120, 50]], float)  # three tiles in a row


def truth(cls):
    return ImageBoxes.truth(ROW[: len(cls)], np.array(cls))


def preds(boxes, cls, conf=None):
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    conf = np.full(len(cls), 0.9) if conf is None else np.asarray(conf, float)
    return ImageBoxes.preds(boxes, np.array(cls, int), conf)


def test_box_iou_known_values():
    a = np.array([[0, 0, 10, 10]], float)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], float)
    np.testing.assert_allclose(box_iou(a, b), [[1.0, 50 / 150, 0.0]])


@pytest.mark.parametrize(
    ("pred", "tp", "fp", "fn", "exact"),
    [
        pytest.param(preds(ROW, [0, 9, 27]), 3, 0, 0, True, id="perfect"),
        pytest.param(preds(ROW[:2], [0, 9]), 2, 0, 1, False, id="one-miss"),
        pytest.param(preds(ROW, [0, 10, 27]), 2, 1, 1, False, id="one-wrong-class"),
        pytest.param(preds(np.vstack([ROW, [[130, 10, 160, 50]]]), [0, 9, 27, 5]), 3, 1, 0, False, id="extra-box"),
        pytest.param(preds(ROW + 0.5 * 30, [0, 9, 27]), 0, 3, 3, False, id="shifted-half-a-tile"),
    ],
)
def test_counts_at_operating_threshold(pred, tp, fp, fn, exact):
    s = score([truth([0, 9, 27])], [pred], NC, conf=0.25)
    assert (int(s.tp.sum()), int(s.fp.sum()), int(s.fn.sum())) == (tp, fp, fn)
    assert bool(s.image_exact[0]) is exact
    p, r, f1 = s.micro()
    assert p == pytest.approx(tp / max(tp + fp, 1))
    assert r == pytest.approx(tp / 3)


@pytest.mark.parametrize(("tiles", "read", "expected"), [
    pytest.param([0], preds(ROW[:1], [0]), (1.0, 1.0, 1.0), id="one-tile-read-right"),
    pytest.param([0], preds(ROW[:1], [9]), (0.0, 0.0, 0.0), id="one-tile-misread"),
    pytest.param([0], preds(np.zeros((0, 4)), []), (0.0, 0.0, 0.0), id="nothing-read"),
    pytest.param([], preds(ROW[:1], [0]), (0.0, 0.0, 0.0), id="a-box-on-an-empty-table"),
])
def test_precision_recall_f1_of_a_single_box(tiles, read, expected):
    t = ImageBoxes.truth(ROW[: len(tiles)], np.array(tiles, np.int64))
    assert score([t], [read], NC, conf=0.25).micro() == pytest.approx(expected)


def test_per_class_precision_recall_f1():
    # 1m: two tiles, one found (P 1, R 1/2); 1p: one tile, found, and one box extra (P 1/2, R 1); 中: never seen
    tiles = ImageBoxes.truth(np.vstack([ROW, [[130, 10, 160, 50]]]), np.array([0, 0, 9, 27]))
    read = preds(np.vstack([ROW[[0, 2]], [[170, 10, 200, 50]]]), [0, 9, 9])
    s = score([tiles], [read], NC, conf=0.25)
    np.testing.assert_allclose(s.precision[[0, 9]], [1.0, 0.5])
    np.testing.assert_allclose(s.recall[[0, 9, 27]], [0.5, 1.0, 0.0])
    np.testing.assert_allclose(s.f1[[0, 9]], [2 / 3, 2 / 3])
    assert np.isnan(s.recall[5]) and np.isnan(s.f1[5])  # no 5m on the table


def test_a_tile_whose_face_is_not_given_is_no_miss_and_its_box_no_extra():
    # a tile added by the label errata without a face (UNREAD), next to a 1m read right
    tiles = ImageBoxes.truth(ROW[:2], np.array([0, UNREAD]))
    s = score([tiles], [preds(ROW[:2], [0, 7])], NC, conf=0.25)
    assert (int(s.tp.sum()), int(s.fp.sum()), int(s.fn.sum())) == (1, 0, 0)
    assert s.image_exact.tolist() == [True] and s.n_tiles.tolist() == [1]


def test_perfect_gives_ap_one_and_only_classes_with_truth_count():
    s = score([truth([0, 9, 27])], [preds(ROW, [0, 9, 27])], NC, conf=0.25)
    assert s.map50 == pytest.approx(1.0)
    assert s.map50_95 == pytest.approx(1.0)
    assert np.isnan(s.ap50[1]) and s.n_truth[[0, 9, 27]].tolist() == [1, 1, 1]


def test_low_confidence_boxes_count_for_ap_but_not_at_operating_threshold():
    s = score([truth([0, 9, 27])], [preds(ROW, [0, 9, 27], conf=[0.9, 0.9, 0.1])], NC, conf=0.25)
    assert s.ap50[27] == pytest.approx(1.0)
    assert int(s.fn[27]) == 1 and not s.image_exact[0]


def test_false_positive_ranked_above_true_positive_halves_ap():
    # class 0: one truth; a wrong box with higher confidence then the right one -> precision 1/2 at recall 1
    t = ImageBoxes.truth(ROW[:1], np.array([0]))
    p = preds([[200, 200, 230, 240], ROW[0]], [0, 0], conf=[0.9, 0.8])
    s = score([t], [p], NC, conf=0.25)
    assert s.ap50[0] == pytest.approx(0.5, abs=0.01)


def test_ignored_truth_is_not_a_miss_and_prediction_on_it_is_not_extra():
    t = truth([0, IGNORE, 27])
    p = preds(ROW, [0, 5, 27])  # something predicted on the wind tile
    s = score([t], [p], NC, conf=0.25)
    assert (int(s.tp.sum()), int(s.fp.sum()), int(s.fn.sum())) == (2, 0, 0)
    assert s.image_exact[0] and s.n_tiles[0] == 2


@pytest.mark.parametrize(("width", "extra"), [
    pytest.param(30 / 0.55, 0, id="iou-0.55-on-the-wind-is-not-extra"),
    pytest.param(30 / 0.45, 1, id="iou-0.45-on-the-wind-is-extra"),
    pytest.param(60, 0, id="iou-exactly-0.5-on-the-wind-is-not-extra"),
])
def test_a_box_on_an_ignored_tile_is_left_out_from_iou_one_half(width, extra):
    wind = ImageBoxes.truth(ROW[:1], np.array([IGNORE]))  # 30 x 40
    box = preds([[10, 10, 10 + width, 50]], [5])  # the same height, wider: IoU 30 / width
    assert box_iou(box.xyxy, wind.xyxy)[0, 0] == pytest.approx(30 / width)
    s = score([wind], [box], NC, conf=0.25)
    assert int(s.fp.sum()) == extra and bool(s.image_exact[0]) == (extra == 0)


def test_one_box_of_another_face_over_a_tile_labelled_twice_is_one_misread_and_one_miss():
    twice = ImageBoxes.truth(np.vstack([ROW[:1], ROW[:1] + 1]), np.array([9, 9]))  # 1p labelled twice
    read = preds(ROW[:1], [10])  # read as 2p
    assert face_pairs(twice, read) == [(0, 0)]  # one pair: a box stands for one tile
    cm = confusion(twice, read, NC)
    assert cm[9, 10] == 1 and cm[9, NC] == 1 and cm.sum() == 2
    assert sorted(image_errors(twice, read, NC)) == [(9, 10, False), (9, NC, False)]


def test_two_boxes_of_other_faces_on_one_tile_are_one_misread_and_one_extra():
    tile = ImageBoxes.truth(ROW[:1], np.array([9]))  # 1p
    read = preds(np.vstack([ROW[:1], ROW[:1] + 1]), [10, 11], [0.9, 0.8])  # read as 2p, and again as 3p
    cm = confusion(tile, read, NC)
    assert cm[9, 10] == 1 and cm[NC, 11] == 1 and cm.sum() == 2
    assert sorted(image_errors(tile, read, NC)) == [(9, 10, False), (NC, 11, True)]  # the 3p: a second box on it


def test_a_set_with_no_tiles_has_map_zero():
    s = score([ImageBoxes.truth(np.zeros((0, 4)), np.zeros(0, int))], [preds(ROW[:1], [0])], NC, conf=0.25)
    assert (s.map50, s.map50_95) == (0.0, 0.0)


def test_a_box_of_its_own_face_pairs_with_its_tile_from_iou_one_half():
    tile = ImageBoxes.truth(ROW[:1], np.array([9]))
    near = preds([[10, 10, 10 + 30 / 0.55, 50]], [9])  # the same height, wider: IoU 0.55
    far = preds([[10, 10, 10 + 30 / 0.45, 50]], [9])  # IoU 0.45
    assert box_iou(near.xyxy, tile.xyxy)[0, 0] == pytest.approx(0.55)
    assert face_pairs(tile, near) == [(0, 0)] and face_pairs(tile, far) == []


def test_confusion_matrix_rows_truth_cols_prediction_with_background():
    cm = confusion(truth([0, 9, 27]), preds(np.vstack([ROW[:2], [[130, 10, 160, 50]]]), [0, 10, 4]), NC)
    assert cm[0, 0] == 1 and cm[9, 10] == 1  # right, and 1p read as 2p
    assert cm[27, NC] == 1 and cm[NC, 4] == 1  # missed zhong, extra 5m
    assert cm.sum() == 4


def test_tiles_lying_over_each_other_each_with_a_box_of_its_own_face_are_read_exactly():
    # 1m half under 5m: each box overlaps the other tile more than its own, yet each tile has a box of its
    # own face at IoU >= 0.5, so both are true positives and the image is exact (as COCOeval counts them).
    tiles = ImageBoxes.truth(np.array([[0.6, 9.3, 28.0, 33.6], [1.6, 11.3, 31.3, 30.8]]), np.array([0, 4]))
    read = preds([[0.8, 9.9, 30.6, 30.6], [1.1, 13.2, 33.2, 30.7]], [0, 4], [0.64, 0.63])
    assert box_iou(read.xyxy, tiles.xyxy)[0, 1] > box_iou(read.xyxy, tiles.xyxy)[0, 0] >= 0.5
    s = score([tiles], [read], NC, 0.25)
    assert s.tp.sum() == 2 and s.fp.sum() == 0 and s.fn.sum() == 0
    assert s.image_exact.tolist() == [True] and s.errors == ((),)
    assert np.trace(s.confusion) == 2 and s.confusion.sum() == 2


def test_hand_exact_only_counts_images_with_at_most_max_tiles():
    many = ImageBoxes.truth(np.array([[i * 40, 0, i * 40 + 30, 40] for i in range(20)], float), np.zeros(20, int))
    s = score([truth([0, 9, 27]), many], [preds(ROW, [0, 9, 27]), preds(many.xyxy[:19], [0] * 19)], NC, 0.25)
    assert s.image_exact_rate() == (0.5, 2)
    assert s.image_exact_rate(max_tiles=18) == (1.0, 1)


def test_hand_exact_counts_a_photo_of_one_tile_and_is_zero_without_hands():
    one = ImageBoxes.truth(ROW[:1], np.array([0]))
    empty = ImageBoxes.truth(np.zeros((0, 4)), np.zeros(0, int))  # a photo of no tile, read as none: exact
    s = score([one, truth([0, 9, 27]), empty], [preds(ROW[:1], [0]), preds(ROW[:2], [0, 9]), preds(ROW[:0], [])],
              NC, 0.25)
    assert s.image_exact.tolist() == [True, False, True]
    assert s.image_exact_rate(max_tiles=18) == (0.5, 2)  # the one-tile photo is a hand of its own, no tile is none
    assert s.image_exact_rate(max_tiles=0) == (0.0, 0)  # no photo qualifies: no share, not a made-up one


@pytest.mark.parametrize(
    ("truths", "predictions", "message"),
    [
        pytest.param([truth([0])], [], "one prediction set per image", id="length-mismatch"),
        pytest.param([truth([31])], [preds(ROW[:1], [0])], "class ids", id="class-out-of-range"),
        pytest.param([truth([0])], [preds(ROW[:1], [IGNORE])], "ignore class", id="ignored-prediction"),
    ],
)
def test_bad_input_is_a_clear_value_error(truths, predictions, message):
    with pytest.raises(ValueError, match=message):
        score(truths, predictions, NC, conf=0.25)


def test_boxes_shape_is_checked():
    with pytest.raises(ValueError, match=r"xyxy \(N,4\)"):
        ImageBoxes(np.zeros((2, 3)), np.zeros(2, int), np.ones(2))
