"""`xingzi dataset check`: every kind of label error is found, clean data passes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.datasets.check import check_dataset, check_label_text, iou_matrix, orphan_labels, read_class_names
from xingzi.datasets.yolo import parse_label_text
from xingzi.engine.tiles import CLASS_NAMES

CLEAN = "0 0.20 0.50 0.10 0.20\n27 0.60 0.50 0.10 0.20\n"


def five_boxes(cls: int, copies: int) -> str:
    return "".join(f"{cls} {0.1 + 0.15 * i:.2f} 0.5 0.1 0.2\n" for i in range(copies))


@pytest.mark.parametrize(("text", "kinds"), [
    pytest.param(CLEAN, [], id="clean"),
    pytest.param("", [], id="empty-file-is-background"),
    pytest.param("0 0.5 0.5 0.1\n", ["malformed"], id="four-numbers"),
    pytest.param("zhong 0.5 0.5 0.1 0.1\n", ["malformed"], id="name-instead-of-id"),
    pytest.param("31 0.5 0.5 0.1 0.1\n", ["unknown-class"], id="class-31"),
    pytest.param("-1 0.5 0.5 0.1 0.1\n", ["unknown-class"], id="negative-class"),
    pytest.param("2.5 0.5 0.5 0.1 0.1\n", ["unknown-class"], id="fractional-class"),
    pytest.param("0 0.98 0.5 0.1 0.1\n", ["outside"], id="right-edge"),
    pytest.param("0 0.5 0.02 0.1 0.1\n", ["outside"], id="top-edge"),
    pytest.param("0 0.5 0.96 0.1 0.1\n", ["outside"], id="bottom-edge-by-a-tenth-of-its-height"),
    pytest.param("0 0.96 0.5 0.1 0.1\n", ["outside"], id="right-edge-by-a-tenth-of-its-width"),
    pytest.param("0 0.951 0.5 0.1 0.1\n", [], id="rounding-within-tolerance"),
    pytest.param("0 0.9545 0.5 0.1 0.1\n", [], id="rounding-at-the-tolerance"),
    pytest.param("0 0.5 0.5 0 0.1\n", ["empty-box"], id="zero-width"),
    pytest.param("0 0.5 0.5 0.1 0\n", ["empty-box"], id="zero-height"),
    pytest.param("3 0.5 0.5 0.1 0.1\n3 0.501 0.5 0.1 0.1\n", ["duplicate"], id="same-class-twice"),
    pytest.param("3 0.5 0.5 0.1 0.1\n4 0.5 0.5 0.1 0.1\n", ["duplicate"], id="two-classes-one-tile"),
    pytest.param("3 0.5 0.5 0.1 0.1\n3 0.55 0.5 0.1 0.1\n", [], id="neighbours-overlap-a-little"),
    pytest.param(five_boxes(0, 4), [], id="four-copies-ok"),
    pytest.param(five_boxes(0, 5), ["fifth-copy"], id="five-copies"),
    pytest.param(five_boxes(30, 6), [], id="backs-are-not-counted"),
    pytest.param(five_boxes(0, 4) + "0 0.1 0.5 0.1 0.2\n", ["duplicate"], id="a-fifth-line-that-is-a-duplicate"),
    pytest.param(five_boxes(0, 4) + "0 0.1 0.5 0.1 0.2\n" * 2, ["duplicate"] * 3, id="a-box-three-times"),
    pytest.param(five_boxes(0, 5) + "0 0.1 0.5 0.1 0.2\n", ["duplicate", "fifth-copy"],
                 id="five-tiles-and-a-duplicate"),
    pytest.param(five_boxes(0, 4) + "1 0.1 0.5 0.1 0.2\n", ["duplicate"], id="a-tile-with-two-classes"),
    pytest.param("1 0.4 0.4 0.6 0.4 0.6 0.6 0.4 0.6\n", [], id="polygon-row"),
    pytest.param("0 nan 0.5 0.2 0.3\n3 NaN NaN NaN NaN\n", ["malformed", "malformed"], id="nan-coordinates"),
    pytest.param("inf 0.5 0.5 0.2 0.3\n1e400 0.5 0.5 0.2 0.3\nnan 0.5 0.5 0.2 0.3\n3 0.5 0.5 0.1 0.1\n",
                 ["malformed"] * 3, id="non-finite-classes-and-the-check-goes-on"),
    pytest.param("1 0.4 0.4 0.6 nan 0.6 0.6 0.4 0.6\n", ["malformed"], id="nan-in-a-polygon"),
    pytest.param("0 0.5 0.5 0.1\n31 0.5 0.5 0.1 0.1\n" + five_boxes(2, 5), ["malformed", "unknown-class", "fifth-copy"],
                 id="several-at-once"),
])
def test_label_text_issues(text, kinds):
    issues, _ = check_label_text(text, "x.txt")
    assert sorted(i.kind for i in issues) == sorted(kinds)
    assert all(i.severity == "error" for i in issues)


@pytest.mark.parametrize(("text", "says"), [
    pytest.param("3 0.5 0.5 0.1 0.1\n3 0.501 0.5 0.1 0.1\n", "same tile '4m' twice", id="one-class"),
    pytest.param("3 0.5 0.5 0.1 0.1\n4 0.5 0.5 0.1 0.1\n", "'4m' and '5m'", id="two-classes"),
])
def test_a_duplicate_says_whether_the_classes_differ(text, says):
    [issue], _ = check_label_text(text, "x.txt")
    assert issue.kind == "duplicate" and says in issue.message


def test_a_polygon_row_is_read_as_its_bounding_box():
    rows, bad = parse_label_text("1 0.4 0.3 0.6 0.3 0.6 0.7 0.4 0.7\n")
    assert bad == [] and [(n, c, [round(v, 6) for v in box]) for n, (c, *box) in rows] == [(1, 1, [0.5, 0.5, 0.2, 0.4])]


def test_issue_points_at_the_line():
    issues, n = check_label_text(CLEAN + "0 1.2 0.5 0.1 0.1\n", "a.txt")
    assert [(i.kind, i.line) for i in issues] == [("outside", 3)]
    assert n == 3


def test_iou_matrix_values():
    a = [[0, 0, 2, 2]]
    b = [[0, 0, 2, 2], [1, 0, 3, 2], [5, 5, 6, 6]]
    assert iou_matrix(a, b).round(4).tolist() == [[1.0, round(2 / 6, 4), 0.0]]


def make_dataset(root: Path, labels: dict[str, str | None], extra_labels: dict[str, str] | None = None) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("".join(f"{n}\n" for n in CLASS_NAMES))
    for stem, text in labels.items():
        Image.new("RGB", (32, 24), "white").save(root / "images" / f"{stem}.jpg")
        if text is not None:
            (root / "labels" / f"{stem}.txt").write_text(text)
    for stem, text in (extra_labels or {}).items():
        (root / "labels" / f"{stem}.txt").write_text(text)
    return root


def test_dataset_finds_unlabelled_images_and_orphan_labels(tmp_path):
    root = make_dataset(tmp_path / "d", {"a": CLEAN, "b": None, "c": ""}, {"gone": CLEAN})
    report = check_dataset(root)
    assert report.counts_by_kind() == {"no-image": 1, "unlabelled": 1}
    assert {i.path for i in report.issues} == {"images/b.jpg", "labels/gone.txt"}
    assert (report.images, report.label_files, report.orphan_labels, report.boxes) == (3, 2, 1, 2)
    assert report.format_text().splitlines()[0] == f"{root}: 3 images, 2 label files beside them and 1 with none, 2 boxes"
    assert report.to_dict()["orphan_label_files"] == 1
    assert not report.ok


def test_photos_of_kinds_the_tools_do_not_read_are_named_and_tiffs_are_read(tmp_path, capsys):
    """A HEIC or GIF beside the JPEGs was passed over by eval, merge and split without a word, and its label file
    called one with no image; a TIFF, which OpenCV and Ultralytics read, was passed over too."""
    root = make_dataset(tmp_path / "d", {"a": CLEAN})
    Image.new("RGB", (32, 24), "white").save(root / "images" / "t.tif")
    (root / "labels" / "t.txt").write_text(CLEAN)
    turned = Image.Exif()
    turned[0x0112] = 6
    Image.new("RGB", (32, 24), "white").save(root / "images" / "r.tif", exif=turned)  # OpenCV reads none such
    (root / "labels" / "r.txt").write_text(CLEAN)
    Image.new("RGB", (32, 24), "white").save(root / "images" / "g.gif")
    (root / "labels" / "g.txt").write_text(CLEAN)
    report = check_dataset(root)
    assert report.images == 3 and report.counts_by_kind() == {"unread-format": 1, "no-image": 1, "unreadable": 1}
    assert next(i for i in report.issues if i.kind == "unreadable").path == "images/r.tif"
    orphan = next(i for i in report.issues if i.kind == "no-image")
    assert orphan.path == "labels/g.txt" and "its photo g.gif is of a kind the dataset tools do not read" in orphan.message
    assert main(["dataset", "split", str(root), "--val", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "note: 1 photo(s) under" in out and "(.gif: not read by the dataset tools), e.g. g.gif" in out
    assert main(["dataset", "merge", str(root), "--out", str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    assert "note: 1 photo(s) under" in out and sorted(p.name for p in (tmp_path / "m" / "images").iterdir()) == [
        "d__a.jpg", "d__r.tif", "d__t.tif"]


@pytest.mark.parametrize("layout", [pytest.param((), id="empty-folder"), pytest.param(("images",), id="no-images")])
def test_a_folder_without_images_is_no_pass(tmp_path, layout):
    for sub in layout:
        (tmp_path / sub).mkdir()
    report = check_dataset(tmp_path)
    assert [(i.kind, i.message) for i in report.issues] == [
        ("empty", "no images found (expected images/*.jpg beside labels/*.txt)")]


def test_photos_that_cannot_be_opened_or_were_cut_short(tmp_path):
    root = make_dataset(tmp_path / "d", {"cut": CLEAN, "header": CLEAN, "padded": CLEAN, "text": CLEAN})
    whole = (root / "images" / "padded.jpg").read_bytes()
    (root / "images" / "padded.jpg").write_bytes(whole + bytes(64))  # zeros after the end marker: whole
    noise = np.random.default_rng(0).integers(0, 256, (200, 200, 3), np.uint8)
    Image.fromarray(noise).save(root / "images" / "cut.jpg")
    cut = (root / "images" / "cut.jpg").read_bytes()
    (root / "images" / "cut.jpg").write_bytes(cut[: len(cut) // 2])  # its header whole, its lower half lost
    (root / "images" / "header.jpg").write_bytes(whole[:20])
    (root / "images" / "text.jpg").write_text("not a photo")
    report = check_dataset(root)
    assert [(i.severity, i.kind, i.path) for i in report.issues] == [
        ("warning", "cut-short", "images/cut.jpg"), ("error", "unreadable", "images/header.jpg"),
        ("error", "unreadable", "images/text.jpg")]
    assert report.issues[2].message == "not a readable image (no format Pillow knows)"
    assert report.boxes == 8, "the labels of those photos are checked all the same"


def test_roboflow_stems_with_dots_are_matched(tmp_path):
    root = make_dataset(tmp_path / "d", {"IMG_1_jpg.rf.0a1b2c": CLEAN})
    assert orphan_labels(root) == []
    assert check_dataset(root).ok


def test_class_list_from_data_yaml_limits_ids(tmp_path):
    root = make_dataset(tmp_path / "d", {"a": "2 0.5 0.5 0.1 0.1\n3 0.2 0.2 0.1 0.1\n"})
    (root / "data.yaml").write_text("path: .\ntrain: images\nval: images\nnames:\n  0: East\n  1: South\n  2: 5p\n")
    assert read_class_names(root) == ("East", "South", "5p")
    assert [(i.kind, i.line) for i in check_dataset(root).issues] == [("unknown-class", 2)]


@pytest.mark.parametrize(("name", "text", "expected"), [
    pytest.param("data.yaml", "names: [a, b]\n", ("a", "b"), id="yaml-list"),
    pytest.param("data.yaml", "names:\n  1: b\n  0: a\n", ("a", "b"), id="yaml-mapping"),
    pytest.param("obj.names", "a\nb\n\n", ("a", "b"), id="cvat-obj-names"),
    pytest.param("classes.txt", "a\nb\n", ("a", "b"), id="classes-txt"),
])
def test_read_class_names_formats(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text)
    assert read_class_names(tmp_path) == expected


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("names: [a, b\n", "not valid YAML", id="broken"),
    pytest.param("names: {a: x, b: y}\n", "'names' must be a list of class names or a table from class ids",
                 id="names-keyed-by-words"),
])
def test_a_data_yaml_that_cannot_be_read_is_said_so(tmp_path, capsys, text, message):
    root = make_dataset(tmp_path / "ds", {"a": "0 0.5 0.5 0.1 0.1\n"})
    (root / "data.yaml").write_text(text)
    assert main(["dataset", "check", str(root)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_class_names_shared_by_splits_in_the_parent(tmp_path):
    (tmp_path / "classes.txt").write_text("1m\nother\n")
    (tmp_path / "val").mkdir()
    assert read_class_names(tmp_path / "val") == ("1m", "other")
    assert read_class_names(tmp_path) == ("1m", "other")


def test_cli_exit_codes_and_json(tmp_path, capsys):
    clean = make_dataset(tmp_path / "clean", {"a": CLEAN})
    assert main(["dataset", "check", str(clean)]) == 0
    assert "0 errors" in capsys.readouterr().out
    bad = make_dataset(tmp_path / "bad", {"a": five_boxes(5, 5)})
    assert main(["dataset", "check", str(bad), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["errors"] == 1 and doc["by_kind"] == {"fifth-copy": 1}
    assert doc["issues"][0]["path"] == "labels/a.txt"


def test_the_text_shows_twenty_of_a_kind_and_counts_the_rest(tmp_path, capsys):
    root = make_dataset(tmp_path / "牌", {f"p{i:02d}": five_boxes(5, 5) for i in range(23)})
    assert main(["dataset", "check", str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert sum("fifth-copy" in line for line in lines) == 20 + 2  # and the "more" line and the summary
    assert "  ... 3 more fifth-copy" in lines
    assert main(["dataset", "check", str(root), "--json"]) == 1
    text = capsys.readouterr().out
    assert f'"root": "{root}"' in text and len(json.loads(text)["issues"]) == 23  # the folder's name as written


@pytest.mark.parametrize("argv, message", [
    pytest.param(["check", "--sure", "2"], "--sure is the confidence from which --model's readings warn: give --model "
                 "too (got --sure 2 without --model)", id="sure-without-model"),
    pytest.param(["check", "--sure", "0", "--model", "none.onnx"], "--sure must be in (0, 1], got 0",
                 id="sure-out-of-range-said-before-the-model"),
    pytest.param(["split", "--seed", "-1"], "--seed must be 0 or more, got -1", id="split-negative-seed"),
])
def test_options_read_as_nothing_are_refused(tmp_path, capsys, argv, message):
    """They were taken silently (synth refuses a negative seed)."""
    root = make_dataset(tmp_path / "ds", {"a": CLEAN, "b": CLEAN})
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    assert main(["dataset", argv[0], str(root), *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert err == f"xingzi dataset: error: {message}\n"
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


@pytest.mark.parametrize("argv, message", [
    # Path('') is the current folder: check reported on it, split wrote train.txt/val.txt or copied it, merge read it
    pytest.param(["check", ""], "DIR is empty: expected a dataset folder or zip, got ''", id="check"),
    pytest.param(["check", " ", "--json"], "DIR is empty: expected a dataset folder or zip, got ' '", id="check-blank"),
    pytest.param(["split", "", "--out", "copy"], "DIR is empty: expected a dataset folder or zip, got ''", id="split"),
    pytest.param(["merge", "ds", "", "--out", "merged"], "a source is empty: expected a dataset folder or zip, got ''",
                 id="merge"),
])
def test_an_empty_dataset_folder_is_refused_not_taken_for_the_current_one(tmp_path, monkeypatch, capsys, argv,
                                                                          message):
    make_dataset(tmp_path / "ds", {"a": CLEAN})
    monkeypatch.chdir(tmp_path)
    assert main(["dataset", *argv]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"xingzi dataset: error: {message}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_cli_missing_folder_is_a_clear_error(tmp_path, capsys):
    assert main(["dataset", "check", str(tmp_path / "nope")]) == 2
    assert "dataset folder not found" in capsys.readouterr().err
