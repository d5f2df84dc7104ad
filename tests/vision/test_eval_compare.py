"""Readings compared photo by photo: McNemar's exact test, the paired counts, and `xingzi eval` with two rows."""

from __future__ import annotations

import json

import pytest
from yolo_folder import label_text, write_yolo_folder

from xingzi.cli import main
from xingzi.commands.evaluate import unique_row
from xingzi.vision.eval_compare import (
    compare,
    compare_runs,
    format_every_row_wrong,
    format_p,
    format_paired,
    format_runs,
    mcnemar_p,
    wrong_in_every_row,
)


@pytest.mark.parametrize(("gained", "lost", "p"), [
    pytest.param(0, 0, 1.0, id="no-discordant-photo"),
    pytest.param(3, 3, 1.0, id="even-split"),
    pytest.param(5, 0, 2 / 32, id="five-to-none"),
    pytest.param(0, 5, 2 / 32, id="symmetric"),
    pytest.param(8, 5, 2 * sum((1, 13, 78, 286, 715, 1287)) / 2**13, id="eight-to-five"),
    pytest.param(20, 2, 2 * (1 + 22 + 231) / 2**22, id="clear-gain"),
])
def test_mcnemar_exact_p(gained, lost, p):
    assert mcnemar_p(gained, lost) == pytest.approx(p)


def test_small_p_values_keep_their_figures():
    assert (format_p(1.0), format_p(0.0625), format_p(mcnemar_p(3, 18))) == ("1.00", "0.06", "1.5e-03")
    assert (format_p(0.01), format_p(0.0099)) == ("0.01", "9.9e-03")  # two decimals from 0.01 up


@pytest.mark.parametrize(("gained", "lost"), [(-1, 2), (2, -1)])
def test_mcnemar_refuses_negative_counts(gained, lost):
    with pytest.raises(ValueError, match="counts of photos >= 0"):
        mcnemar_p(gained, lost)


def _result(row, misses, images=10):
    return {"row": row, "summary": {"images": images}, "images": [{"image": n, "tiles": t} for n, t in misses.items()]}


def test_compare_counts_the_photos_each_reads_alone_and_the_hands_among_them():
    base = _result("base", {"a.jpg": 14, "b.jpg": 30, "c.jpg": 14})
    other = _result("new", {"c.jpg": 14, "d.jpg": 13, "e.jpg": 40})
    pair = compare(base, other, 18)
    assert (pair.gained, pair.lost) == (("a.jpg", "b.jpg"), ("d.jpg", "e.jpg"))
    assert (pair.hand_gained, pair.hand_lost) == (1, 1)  # b and e hold more than 18 tiles
    assert pair.p == 1.0 and pair.as_dict()["lost"] == ["d.jpg", "e.jpg"]
    assert "images exact +2 -2 (net +0" in format_paired(pair)


@pytest.mark.parametrize(("other", "message"), [
    pytest.param(_result("new", {}, images=9), "different sets", id="other-set"),
    pytest.param({"row": "new", "summary": {"images": 10}}, "scored with its images", id="no-image-list"),
])
def test_compare_refuses_rows_it_cannot_pair(other, message):
    with pytest.raises(ValueError, match=message):
        compare(_result("base", {}), other, 18)


def test_rows_from_files_of_one_name_get_names_of_their_own(tmp_path):
    taken = {"preds"}
    assert unique_row("preds", tmp_path / "runA" / "preds", taken) == "runA-preds"
    assert unique_row("preds", tmp_path / "runA" / "preds", taken | {"runA-preds"}) == "runA-preds-2"
    assert unique_row("other", tmp_path / "x" / "other", taken) == "other"
    model_row = "xingzi_yolo11n.onnx@800+xingzi_tilecls"  # a candidate exported beside the shipped file name
    assert unique_row(model_row, tmp_path / "cand" / "xingzi_yolo11n.onnx", {model_row}) == f"cand-{model_row}"


def test_eval_compares_every_row_with_the_first_photo_by_photo(tmp_path, capsys, eval_scores_only):
    names = ["1m", "5p"]
    tiles = {s: [(0, 0.2, 0.5, 0.1, 0.4), (1, 0.5, 0.5, 0.1, 0.4)] for s in ("a", "b", "c")}
    data = write_yolo_folder(tmp_path / "ds", names, tiles, (200, 100))
    right = [(0, 0.2, 0.5, 0.1, 0.4, 0.9), (1, 0.5, 0.5, 0.1, 0.4, 0.9)]
    wrong = [(1, 0.2, 0.5, 0.1, 0.4, 0.9), (1, 0.5, 0.5, 0.1, 0.4, 0.9)]
    folders = []
    for run, reads in (("first", {"a": right, "b": right, "c": wrong}), ("second", {"a": wrong, "b": right, "c": right})):
        d = tmp_path / run / "preds"  # the same last part, as --save-preds of two runs writes them
        d.mkdir(parents=True)
        for stem, rows in reads.items():
            (d / f"{stem}.txt").write_text(label_text(rows))
        folders += ["--preds", str(d)]
    out = tmp_path / "out"
    assert main(["eval", "--data", str(data), *folders, "--out", str(out)]) == 0
    assert {p.name for p in out.glob("*.json")} == {"preds.json", "second-preds.json", "comparison.json"}
    (pair,) = json.loads((out / "comparison.json").read_text())
    assert (pair["base"], pair["row"], pair["gained"], pair["lost"]) == ("preds", "second-preds", ["c.png"], ["a.png"])
    assert pair["p"] == 1.0 and (pair["hand_gained"], pair["hand_lost"]) == (1, 1)
    printed = capsys.readouterr().out
    assert "against preds: images exact +1 -1 (net +0, McNemar exact p 1.00)" in printed
    # a.png is read by the second row, c.png by the first: every photo by one of them
    assert "read exactly by none of the 2 rows: 0 of 3 photos (at most 100.0 % image exact" in printed


def result(row: str, missed: list[str], images: int = 5) -> dict:
    return {"row": row, "summary": {"images": images}, "images": [{"image": m, "tiles": 14} for m in missed]}


def test_the_photos_no_row_reads_are_those_every_row_misses():
    rows = [result("a", ["p1", "p2", "p3"]), result("b", ["p2", "p3", "p4"]), result("c", ["p3", "p2"])]
    assert wrong_in_every_row(rows) == ("p2", "p3")
    assert wrong_in_every_row(rows[:1]) == ("p1", "p2", "p3")
    assert format_every_row_wrong(("p2", "p3"), 5, 3) == (
        "read exactly by none of the 3 rows: 2 of 5 photos (at most 60.0 % image exact for any choice among them)")
    with pytest.raises(ValueError, match="scored different sets"):
        wrong_in_every_row([rows[0], result("d", [], images=6)])
    with pytest.raises(ValueError, match="expected a result scored with its images"):
        wrong_in_every_row([{"row": "e", "summary": {"images": 5}}])
    with pytest.raises(ValueError, match="at least one result row"):
        wrong_in_every_row([])


def test_two_bench_runs_pair_their_samples():
    base = {"pao_samples": ["s1", "s2", "s3", "s4"], "pao_wrong": ["s1", "s2"]}
    other = {"pao_samples": ["s4", "s3", "s2", "s1"], "pao_wrong": ["s2", "s3"]}
    gained, lost = compare_runs(base, other)
    assert (gained, lost) == (("s1",), ("s3",))
    assert format_runs(gained, lost, "before.json") == ("against before.json: 炮 total right +1 -1 (net +0, "
                                                        "McNemar exact p 1.00)")
    for partial in ({"samples": 4}, {"pao_samples": ["s1"]}, {"pao_wrong": []}):  # either key missing is told
        with pytest.raises(ValueError, match="json-out. file of a synthetic set"):
            compare_runs(partial, other)
    with pytest.raises(ValueError, match="different samples"):
        compare_runs(base, {**other, "pao_samples": ["s1"]})
