"""The whole-pipeline check that `xingzi eval` applies to synthetic sets with ground truth."""

import json
from pathlib import Path

import pytest

from xingzi.vision.bench_truth import pipeline_matches_truth, truth_detections

DEMO = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture()
def meta():
    return json.loads((DEMO / "demo.json").read_text(encoding="utf-8"))


def test_true_boxes_give_the_true_total(meta):
    assert pipeline_matches_truth(DEMO / "demo.jpg", truth_detections(meta), meta) is True


def test_two_missing_tiles_are_not_the_true_total(meta):
    dets = truth_detections(meta)
    concealed = [i for i, t in enumerate(meta["tiles"]) if t["role"] == "concealed"]
    keep = [i for i, t in enumerate(meta["tiles"]) if t["role"] != "win" and i != concealed[0]]
    assert pipeline_matches_truth(DEMO / "demo.jpg", dets.subset(keep), meta) is False


def test_one_missing_tile_is_added_back_as_the_likeliest_hand(meta):
    dets = truth_detections(meta)
    keep = [i for i, t in enumerate(meta["tiles"]) if t["role"] != "win"]
    assert pipeline_matches_truth(DEMO / "demo.jpg", dets.subset(keep), meta) is True


@pytest.mark.parametrize("change", [
    pytest.param({"complete": False}, id="tiles_cut_off"),
    pytest.param({"expect": {"error": "scorer raised"}}, id="no_expected_result"),
])
def test_samples_without_usable_truth_are_not_counted(meta, change):
    assert pipeline_matches_truth(DEMO / "demo.jpg", truth_detections(meta), {**meta, **change}) is None
