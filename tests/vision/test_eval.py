"""`xingzi eval` end to end on a tiny dataset built in tmp_path, scoring YOLO txt predictions."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from yolo_folder import label_text, write_yolo_folder

from xingzi.cli import main
from xingzi.engine.tiles import Tile
from xingzi.vision.eval_data import load_dataset, name_table, our_class, parse_name_map
from xingzi.vision.metrics import IGNORE

# their names: riichi-style and a non-Xingzi `other`
THEIR_NAMES = ["1m", "chun", "other", "5p"]
W, H = 200, 100
TILES = {  # image stem -> label rows (their class ids, normalised cx cy w h)
    "a": [(0, 0.1, 0.5, 0.1, 0.4), (1, 0.3, 0.5, 0.1, 0.4), (2, 0.5, 0.5, 0.1, 0.4)],
    "b": [(3, 0.2, 0.5, 0.1, 0.4), (3, 0.4, 0.5, 0.1, 0.4)],
}


@pytest.fixture
def dataset(tmp_path):
    return write_yolo_folder(tmp_path / "ds", THEIR_NAMES, TILES, (W, H))


def _preds(tmp_path, name, per_image):
    d = tmp_path / name
    d.mkdir()
    for stem, rows in per_image.items():
        (d / f"{stem}.txt").write_text(label_text(rows))
    return d


@pytest.mark.parametrize(
    ("preds", "f1", "image_exact", "fixes"),
    [
        pytest.param({"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.3, 0.5, 0.1, 0.4, 0.8)],
                      "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9), (3, 0.4, 0.5, 0.1, 0.4, 0.7)]}, 1.0, 1.0,
                     {"0": 1.0, "1": 0.0, "2": 0.0, "3+": 0.0, "mean": 0.0}, id="perfect-and-other-not-missed"),
        pytest.param({"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.3, 0.5, 0.1, 0.4, 0.8),
                            (0, 0.5, 0.5, 0.1, 0.4, 0.9)],  # a tile read on the `other` box: not extra
                      "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]}, 2 * 3 / 4 / (1 + 3 / 4), 0.5,
                     {"0": 0.5, "1": 0.5, "2": 0.0, "3+": 0.0, "mean": 0.5}, id="one-miss"),
        pytest.param({"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (3, 0.3, 0.5, 0.1, 0.4, 0.8)],
                      "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9), (3, 0.4, 0.5, 0.1, 0.4, 0.1)]}, 4 / 7, 0.0,
                     {"0": 0.0, "1": 1.0, "2": 0.0, "3+": 0.0, "mean": 1.0}, id="wrong-class-and-below-threshold"),
        pytest.param({"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.37, 0.5, 0.1, 0.4, 0.8),  # off its tile, face right
                            (3, 0.7, 0.5, 0.1, 0.4, 0.9), (3, 0.9, 0.5, 0.1, 0.4, 0.9)],  # two on no tile
                      "b": []}, 0.25, 0.0,  # 1 true box of 4 read, of 4 boxes
                     {"0": 0.0, "1": 0.0, "2": 1.0, "3+": 0.0, "mean": 2.0}, id="off-needs-no-fix"),
    ],
)
def test_eval_scores_yolo_txt_predictions(dataset, tmp_path, capsys, preds, f1, image_exact, fixes):
    pred_dir = _preds(tmp_path, "theirs", preds)
    (pred_dir / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    out = tmp_path / "out" / "eval"  # made with its parents
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(out)]) == 0
    result = json.loads((out / "theirs.json").read_text())
    assert result["summary"]["tiles"] == 4  # the `other` box is not a tile
    assert result["summary"]["f1"] == pytest.approx(f1)
    assert result["summary"]["image_exact"] == pytest.approx(image_exact)
    assert result["summary"]["fixes"] == pytest.approx(fixes)
    assert (out / "theirs_confusion.png").stat().st_size > 0
    assert "theirs" in capsys.readouterr().out


@pytest.mark.parametrize("text_named_jpeg, code", [
    pytest.param(False, 0, id="alone"),
    # no image at all: said unreadable, not counted among the JPEGs cut short (it was: "2 JPEG(s)")
    pytest.param(True, 2, id="beside-text-named-jpg"),
])
def test_a_jpeg_cut_short_is_scored_as_it_decodes_and_said(dataset, tmp_path, capsys, text_named_jpeg, code):
    import io

    from PIL import Image

    with Image.open(dataset / "images" / "a.png") as im:
        buf = io.BytesIO()
        im.convert("RGB").save(buf, "JPEG")
    (dataset / "images" / "a.png").unlink()
    (dataset / "images" / "a.jpg").write_bytes(buf.getvalue()[:-200])  # its end lost in copying
    if text_named_jpeg:
        (dataset / "images" / "c.jpg").write_text("not an image")
    pred_dir = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9)], "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]})
    (pred_dir / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(tmp_path / "out")]) == code
    err = capsys.readouterr().err
    assert "note: 1 JPEG(s) cut short, scored as they decode, e.g. a.jpg" in err
    assert ("c.jpg: not a readable image" in err) == text_named_jpeg


def test_predictions_named_unlike_the_photos_are_refused_and_a_photo_without_any_said(dataset, tmp_path, capsys,
                                                                                       eval_scores_only):
    both = {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.3, 0.5, 0.1, 0.4, 0.8)], "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]}
    renamed = _preds(tmp_path, "renamed", {f"set1__{stem}": rows for stem, rows in both.items()})
    (renamed / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    assert main(["eval", "--data", str(dataset), "--preds", str(renamed), "--out", str(tmp_path / "o")]) == 2
    assert "holds no prediction file for any of the 2 photos (each is named as its photo: a.txt for a.png)" \
        in capsys.readouterr().err
    one = _preds(tmp_path, "one", {"a": both["a"]})  # b: found nothing, no file written
    (one / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    assert main(["eval", "--data", str(dataset), "--preds", str(one), "--out", str(tmp_path / "o")]) == 0
    assert f"note: 1 of 2 photos have no prediction file in {one} (counted as finding no tile), e.g. b.png" \
        in capsys.readouterr().out
    assert main(["eval", "--data", str(dataset), "--preds", str(one), "--out", str(tmp_path / "o"),
                 "--save-preds", str(tmp_path / "saved")]) == 0
    assert f"with --preds rows alone nothing goes to {tmp_path / 'saved'}" in capsys.readouterr().out


@pytest.mark.parametrize("markdown", [pytest.param(True, id="asked"), pytest.param(False, id="not_asked")])
def test_the_rows_are_printed_as_a_markdown_table_when_asked(dataset, tmp_path, capsys, eval_scores_only,
                                                             markdown):
    pred_dir = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9)], "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]})
    (pred_dir / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    flags = ["--markdown"] if markdown else []
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(tmp_path / "out"), *flags]) == 0
    printed = capsys.readouterr().out
    assert "2 images, 4 tiles; hand exact over 2 images with ≤18 tiles" in printed  # what the figures are over
    table = [line for line in printed.splitlines() if line.startswith("| ")]
    assert len(table) == (2 if markdown else 0)  # the header and the row ("|---|" under the header)
    assert not markdown or table[-1].startswith("| theirs | ")


def test_the_figures_per_face_are_printed_when_asked(dataset, tmp_path, eval_scores_only, capsys):
    pred_dir = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (0, 0.3, 0.5, 0.1, 0.4, 0.9)],
                                           "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9), (3, 0.4, 0.5, 0.1, 0.4, 0.9)]})
    (pred_dir / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    out = tmp_path / "out"
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(out), "--per-class"]) == 0
    printed = capsys.readouterr().out.splitlines()
    start = printed.index("per class, theirs:")
    rows = {line.split()[0]: line.split()[2:] for line in printed[start + 2:start + 5]}
    assert rows == {"1m": ["1", "1", "1", "0", "0.500", "1.000", "0.667", "1.000"],  # the 中 read as 1m: an FP
                    "5p": ["2", "2", "0", "0", "1.000", "1.000", "1.000", "1.000"],
                    "zhong": ["1", "0", "0", "1", "-", "0.000", "-", "0.000"]}
    assert "  1m 一万" in printed[start + 2]
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(out)]) == 0
    assert "per class, theirs:" not in capsys.readouterr().out


def test_rows_whose_names_differ_only_at_their_end_are_printed_whole(dataset, tmp_path, capsys,
                                                                     eval_scores_only):
    rows = {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9)], "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]}
    stem = "xingzi_yolo11n.onnx@800-nonegative+xingzi_tilecls"
    dirs = [_preds(tmp_path, stem + end, rows) for end in ("", "_w32")]
    for d in dirs:
        (d / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    args = ["eval", "--data", str(dataset), "--out", str(tmp_path / "out")]
    assert main([*args, "--preds", str(dirs[0]), "--preds", str(dirs[1])]) == 0
    printed = capsys.readouterr().out.splitlines()
    table = [cells for cells in map(str.split, printed)
             if cells and cells[0].startswith(stem) and cells[1:2] and cells[1].replace(".", "").isdigit()]
    assert [cells[0] for cells in table] == [stem, stem + "_w32"]  # each row of figures named whole
    assert (tmp_path / "out" / "comparison.json").is_file()
    assert main([*args, "--preds", str(dirs[0])]) == 0
    assert not (tmp_path / "out" / "comparison.json").exists()  # one row now: nothing compared


@pytest.mark.parametrize("flags,message", [
    pytest.param(["--conf", "2"], "--conf must be in [0, 1], got 2", id="conf-over-one"),
    pytest.param(["--conf", "-1"], "--conf must be in [0, 1], got -1", id="conf-negative"),
    pytest.param(["--iou", "5"], "--iou must be in [0, 1], got 5", id="iou-over-one"),
    pytest.param(["--show-misses", "-1"], "--show-misses must be 0 or more, got -1", id="show-misses-negative"),
    pytest.param(["--imgsz", "0"], "--imgsz must be a multiple of 32 from 32 to 4096, got 0", id="imgsz-0"),
    pytest.param(["--imgsz", "500"], "--imgsz must be a multiple of 32 from 32 to 4096, got 500", id="imgsz-off-stride"),
])
def test_out_of_range_settings_are_refused_before_any_work(dataset, tmp_path, capsys, flags, message):
    assert main(["eval", "--data", str(dataset), "--preds", str(tmp_path), "--out", str(tmp_path / "o"), *flags]) == 2
    assert message in capsys.readouterr().err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("flags", [
    pytest.param(["--imgsz", "32"], id="imgsz-least"),
    pytest.param(["--imgsz", "4096"], id="imgsz-most"),
    pytest.param(["--conf", "0", "--iou", "1"], id="conf-0-iou-1"),
])
def test_settings_at_their_limits_are_taken(dataset, tmp_path, capsys, eval_scores_only, flags):
    preds = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9)], "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]})
    (preds / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(tmp_path / "o"), *flags]) == 0
    assert "must be" not in capsys.readouterr().err


@pytest.mark.parametrize("unread", [pytest.param(None, id="every-photo-read"), pytest.param("c.heic", id="a-heic")])
def test_photos_the_tools_pass_over_are_noted_once(dataset, tmp_path, capsys, eval_scores_only, unread):
    """A HEIC photo among the images is not read (the dataset tools read none): eval says so, in one note naming it;
    with every photo read, no note at all."""
    if unread:
        (dataset / "images" / unread).write_bytes(b"not read")
    preds = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9)], "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]})
    (preds / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(tmp_path / "o")]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert notes == ([f"note: 1 photo(s) under {dataset} passed over (.heic: not read by the dataset tools), e.g. "
                      f"{unread}: save them as JPEG (`xingzi label` stores HEIC photos as JPEG)"] if unread else [])


def test_prediction_classes_map_by_their_own_names(dataset, tmp_path, eval_scores_only):
    # a detector whose class list is in another order: index 0 = 5p, 1 = 1m, 2 = chun, 3 = a wind
    pred_dir = _preds(tmp_path, "other_order", {
        "a": [(1, 0.1, 0.5, 0.1, 0.4, 0.9), (2, 0.3, 0.5, 0.1, 0.4, 0.9), (3, 0.5, 0.5, 0.1, 0.4, 0.9)],
        "b": [(0, 0.2, 0.5, 0.1, 0.4, 0.9), (0, 0.4, 0.5, 0.1, 0.4, 0.9)]})
    (pred_dir / "classes.txt").write_text("5p\n1m\nchun\nnan\n")
    out = tmp_path / "out"
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(out)]) == 0
    summary = json.loads((out / "other_order.json").read_text())["summary"]
    assert (summary["f1"], summary["image_exact"], summary["hand_exact"]) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("val", [pytest.param("images", id="a_folder"), pytest.param("[images]", id="a_list")])
def test_data_yaml_is_read(dataset, tmp_path, val):
    yaml_path = tmp_path / "data.yaml"
    yaml_path.write_text(f"path: {dataset}\nval: {val}\nnames:\n  0: 1m\n  1: chun\n  2: other\n  3: 5p\n")
    ds = load_dataset(yaml_path)
    assert [p.name for p in ds.images] == ["a.png", "b.png"] and ds.names == THEIR_NAMES


def test_a_folder_named_by_its_data_yaml_is_read_from_where_it_lies(dataset, tmp_path):
    moved = tmp_path / "moved"
    dataset.rename(moved)  # its data.yaml's path still names where it was made (as a copied synthetic set's does)
    (moved / "classes.txt").unlink()
    (moved / "data.yaml").write_text(f"path: {dataset}\nval: images\nnames: [1m, chun, other, 5p]\n")
    ds = load_dataset(moved)
    assert [p.name for p in ds.images] == ["a.png", "b.png"] and ds.names == THEIR_NAMES and ds.root == moved
    (moved / "data.yaml").unlink()
    with pytest.raises(FileNotFoundError, match="no data.yaml or classes.txt naming the classes"):
        load_dataset(moved)


@pytest.mark.parametrize("out", [pytest.param(False, id="split-in-place-lists"),
                                 pytest.param(True, id="split-into-a-folder")])
def test_a_split_set_is_scored_on_its_val_part_whether_named_by_folder_or_data_yaml(tmp_path, out):
    from xingzi.datasets.split import split_dataset

    root = write_yolo_folder(tmp_path / "set", ["1m"], {f"p{i}": [(0, 0.5, 0.5, 0.1, 0.2)] for i in range(10)})
    target = tmp_path / "parts" if out else None
    report = split_dataset(root, val=0.3, seed=1, out=target)
    where = target or root
    val = sorted(Path(p).name for p in report.val)
    for data in (where, where / "data.yaml"):
        assert sorted(p.name for p in load_dataset(data).images) == val
    assert len(load_dataset(where, split="train").images) == len(report.train)
    moved = tmp_path / "moved"
    where.rename(moved)  # its data.yaml names where it was made
    assert sorted(p.name for p in load_dataset(moved).images) == val


def test_a_list_naming_a_missing_photo_and_a_part_a_folder_cannot_have_are_refused(tmp_path):
    from xingzi.datasets.split import split_dataset

    root = write_yolo_folder(tmp_path / "set", ["1m"], {f"p{i}": [(0, 0.5, 0.5, 0.1, 0.2)] for i in range(6)})
    report = split_dataset(root, val=0.5, seed=1)
    (root / report.val[0]).unlink()
    with pytest.raises(FileNotFoundError, match=r"val.txt lists 1 photo\(s\) that are not there"):
        load_dataset(root)
    with pytest.raises(ValueError, match="has no data.yaml naming a 'test' part"):
        load_dataset(write_yolo_folder(tmp_path / "plain", ["1m"], {}), split="test")


@pytest.mark.parametrize(
    ("name", "expected"),
    [pytest.param("5p", 13, id="ours"), pytest.param("chun", 27, id="riichi-red-dragon"),
     pytest.param("haku", 29, id="riichi-white-dragon"), pytest.param("other", IGNORE, id="other"),
     pytest.param("nan", IGNORE, id="riichi-south-wind"), pytest.param("back", 30, id="back"),
     pytest.param("东风", IGNORE, id="a-wind-in-chinese"), pytest.param("北風", IGNORE, id="traditional-wind"),
     pytest.param("花", IGNORE, id="a-flower"), pytest.param("spring", IGNORE, id="a-season"),
     pytest.param("flower3", IGNORE, id="a-numbered-flower"), pytest.param("一萬", 0, id="traditional-wan")],
)
def test_names_map_onto_our_classes(name, expected):
    assert our_class(name) == expected


def test_name_map_overrides_and_unknown_names():
    table = name_table(["red", "tile5"], parse_name_map("red=zhong,tile5="))
    assert table.tolist() == [27, IGNORE]
    with pytest.raises(ValueError, match="not a tile name"):
        name_table(["mystery"])
    with pytest.raises(ValueError, match=r"class names 'ghost', 'mystery' are not tile names; give them in --name-map"):
        name_table(["1m", "ghost", "mystery"])  # every one at once, not one a run
    with pytest.raises(ValueError, match=r"--name-map '5m=zz': 'zz' is none of our tiles"):
        name_table(["5m"], parse_name_map("5m=zz"))
    with pytest.raises(ValueError, match="theirs=ours"):
        parse_name_map("no-equals-sign")


def test_missing_dataset_is_a_clear_error(tmp_path, capsys):
    assert main(["eval", "--data", str(tmp_path / "nope.yaml"), "--preds", str(tmp_path)]) == 2
    assert "dataset not found" in capsys.readouterr().err


NOT_A_PART = "'val' must be a folder or an image list (.txt), or a list of them"


@pytest.mark.parametrize(("yaml_text", "message"), [
    pytest.param("names: [a\nval: images\n", "not valid YAML", id="broken"),
    pytest.param("names: 5\nval: images\n", "'names' must be a list of class names", id="names-a-number"),
    pytest.param("names: {a: x}\nval: images\n", "'names' must be a list of class names", id="names-keyed-by-words"),
    pytest.param("names: [x]\nval:\n", f"{NOT_A_PART}, got None", id="val-empty"),
    pytest.param("names: [x]\nval: 5\n", f"{NOT_A_PART}, got 5", id="val-a-number"),
    pytest.param("val: images\n", "expected a data.yaml with 'names' and 'val'", id="no-names"),
    pytest.param("names: [x]\nval: [images, 5]\n", f"{NOT_A_PART}, got ['images', 5]", id="val-a-list-with-a-number"),
])
def test_a_bad_data_yaml_is_a_clear_error(dataset, tmp_path, capsys, yaml_text, message):
    (dataset / "data.yaml").write_text(yaml_text)
    assert main(["eval", "--data", str(dataset / "data.yaml"), "--preds", str(tmp_path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(("where", "line", "message"), [
    pytest.param("labels", "1.7 0.5 0.5 0.2 0.3", "a.txt:1: expected a whole class id, got 1.7",
                 id="label-fractional-class"),
    pytest.param("labels", "0 nan 0.5 0.2 0.3", "a.txt:1: expected finite numbers 'cls cx cy w h', got '0 nan 0.5 0.2 0.3'",
                 id="label-nan"),
    pytest.param("preds", "0 0.5 0.5 0.2 0.3 nan", "a whole class id and finite numbers", id="pred-nan-conf"),
    pytest.param("preds", "0.5 0.5 0.5 0.2 0.3 0.9", "a whole class id and finite numbers", id="pred-fractional-class"),
    pytest.param("labels", "0 0.1 0.5 0.1 0.4\n\n99 0.5 0.5 0.2 0.3\n4 0.5 0.5 0.2 0.3",
                 "a.txt:3: expected a class id 0..3 (one per class name), got 99 (and 1 more rows)",
                 id="label-class-beyond-the-names"),  # its line, past a blank one
    pytest.param("preds", "0 0.1 0.5 0.1 0.4 0.9\n-1 0.5 0.5 0.2 0.3 0.9",
                 "a.txt:2: expected a class id 0..3 (one per class name), got -1", id="pred-negative-class"),
])
def test_numbers_that_are_no_label_are_refused_not_scored(dataset, tmp_path, capsys, where, line, message):
    preds = tmp_path / "preds"
    preds.mkdir()
    (preds / "a.txt").write_text("0 0.1 0.5 0.1 0.4 0.9\n")
    target = (dataset / "labels" / "a.txt") if where == "labels" else (preds / "a.txt")
    target.write_text(line + "\n")
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_truth_boxes_become_pixels(dataset):
    from xingzi.vision.eval_data import truths_for

    truths, sizes = truths_for(load_dataset(dataset), name_table(THEIR_NAMES))
    assert sizes == [(W, H), (W, H)]
    np.testing.assert_allclose(truths[0].xyxy[0], [10, 30, 30, 70])
    assert truths[0].cls.tolist() == [0, 27, IGNORE]


def test_model_row_reports_latency_and_the_pipeline_hook(dataset, monkeypatch, capsys):
    from xingzi.vision import evaluate
    from xingzi.vision.detector import DEFAULT_ONNX
    from xingzi.vision.evaluate import preds_from_model

    monkeypatch.setattr(evaluate, "PROGRESS_EVERY", 1)
    (dataset / "meta").mkdir()
    (dataset / "meta" / "a.json").write_text('{"expect": {"total": 10}}')  # only image a has ground truth
    seen = []

    def check(path, detections, meta):
        seen.append((path.name, meta["expect"]["total"], len(detections)))
        return path.name == "a.png"

    preds, extra = preds_from_model(load_dataset(dataset), DEFAULT_ONNX, 640, 0.25, 0.5, pipeline_check=check)
    assert len(preds) == 2 and [s[:2] for s in seen] == [("a.png", 10)]
    assert (extra["pipeline_exact"], extra["pipeline_images"]) == (1.0, 1)
    lat = extra["latency"]
    assert lat["images"] == 2 and lat["backend"] == "onnx" and 0 < lat["model_ms_median"] <= lat["model_ms_p95"]
    assert extra["second_paths"] and extra["second"] == "+".join(extra["second_paths"])  # the shipped second opinion
    assert 0 < extra["second_doubt"] <= 1
    assert capsys.readouterr().err.startswith("eval: 1/2 photos read, about ")  # how far a long reading has got


def test_latency_is_in_milliseconds(dataset):
    from xingzi.vision.evaluate import latency

    class Slow:  # a network that takes 20 ms a call
        imgsz, weights = 64, Path("slow.onnx")

        def letterboxed(self, image):
            return (np.zeros((64, 64, 3), np.uint8),)

        def backend(self, blob):
            time.sleep(0.02)

        def predict(self, image):
            return None

    class SlowClassifier:  # a second stage that takes 10 ms a photo
        def refine(self, image, found):
            time.sleep(0.01)

    lat = latency(Slow(), load_dataset(dataset).images, warmup=0)
    # milliseconds: seconds would read 0.02, microseconds 20,000; the bound above leaves room for a loaded machine
    assert 19 <= lat["model_ms_median"] < 1000 and lat["predict_ms_median"] < 10 and "classifier_ms_median" not in lat
    with_classifier = Slow()
    with_classifier.classifier = SlowClassifier()
    lat = latency(with_classifier, load_dataset(dataset).images, warmup=0)
    assert 9 <= lat["classifier_ms_median"] < 500


def test_the_conf_sweep_gives_shares_as_the_summary_does(dataset, tmp_path):
    from xingzi.vision.eval_data import NC, truths_for
    from xingzi.vision.evaluate import conf_sweep, score, summary

    truths, _ = truths_for(load_dataset(dataset), name_table(THEIR_NAMES))
    preds = [tr.select(tr.cls >= 0) for tr in truths]  # every tile read right (the ignored wind left out)
    preds = [replace(p, conf=np.full(len(p.cls), 0.9, np.float32)) for p in preds]
    row = next(r for r in conf_sweep(truths, preds) if r["conf"] == 0.3)
    s = summary(score(truths, preds, NC, 0.3))
    assert (row["image_exact"], row["hand_exact"]) == (s["image_exact"], s["hand_exact"]) == (1.0, 1.0)


@pytest.mark.parametrize(("conf", "best"), [
    pytest.param("0.25", "best F1 1.000 at conf 0.25", id="the-operating-threshold-between-the-sweep-s"),
    pytest.param("0.3", "best F1 0.889 at conf 0.1", id="one-on-the-sweep"),  # (0.2 as good)
])
def test_the_best_f1_is_never_below_the_row_s_own(dataset, tmp_path, capsys, eval_scores_only, conf, best):
    # every tile read at 0.25 and over but one at 0.27; a stray box at 0.22: F1 1 at 0.25, lower at 0.2 and 0.3
    pred_dir = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.3, 0.5, 0.1, 0.4, 0.27)],
                                           "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9), (3, 0.4, 0.5, 0.1, 0.4, 0.9),
                                                 (0, 0.8, 0.5, 0.1, 0.4, 0.22)]})
    out = tmp_path / "out"
    assert main(["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(out), "--conf", conf]) == 0
    assert best in capsys.readouterr().out
    sweep = [r["conf"] for r in json.loads((out / "theirs.json").read_text())["conf_sweep"]]
    assert sweep == sorted({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, float(conf)})


@pytest.mark.parametrize(
    ("exclude", "tiles", "image_exact"),
    [pytest.param([], 4, 0.5, id="all"),
     pytest.param(["b.*"], 2, 1.0, id="leave-out-b"),
     pytest.param(["a.png", "b.png"], None, None, id="nothing-left")],
)
def test_exclude_leaves_out_matching_images(dataset, tmp_path, capsys, eval_scores_only, exclude, tiles,
                                            image_exact):
    # `a` read right, `b` half missed: leaving `b` out makes every scored image exact
    pred_dir = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.3, 0.5, 0.1, 0.4, 0.8)],
                                           "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9)]})
    (pred_dir / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")
    argv = ["eval", "--data", str(dataset), "--preds", str(pred_dir), "--out", str(tmp_path / "out")]
    argv += [a for pattern in exclude for a in ("--exclude", pattern)]
    code = main(argv)
    if tiles is None:
        assert code != 0 and "no images" in capsys.readouterr().err
        return
    assert code == 0
    summary = json.loads((tmp_path / "out" / "theirs.json").read_text())["summary"]
    assert (summary["tiles"], summary["image_exact"]) == (tiles, pytest.approx(image_exact))
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("left out")]
    assert said == ([f"left out 1 of 2 images matching {exclude[0]}"] if exclude else [])  # the figure's images told


def test_exclude_pattern_matching_nothing_is_an_error(dataset, tmp_path, capsys):
    code = main(["eval", "--data", str(dataset), "--preds", str(tmp_path), "--exclude", "IMG_27*"])
    assert code != 0 and "matches no image" in capsys.readouterr().err


def _strip_at_the_right_edge(truth: np.ndarray, width: int, height: int, tile: float) -> np.ndarray:
    return np.array([width - 8, height / 2, width, height / 2 + tile])


def _three_tiles_above_the_first(truth: np.ndarray, width: int, height: int, tile: float) -> np.ndarray:
    box = truth[0] + np.array([0, -3 * tile, 0, -3 * tile])
    assert box[1] >= 0, "the demo photo has room above its tiles"
    return box


@pytest.mark.parametrize(
    ("flag", "extra_box", "extra_conf"),
    [pytest.param("cut", _strip_at_the_right_edge, 0.9, id="strip_cut_by_the_frame"),
     pytest.param("lone", _three_tiles_above_the_first, 0.3, id="doubtful_box_far_from_the_hand")],
)
def test_eval_drops_a_box_on_no_tile_unless_told_not_to(tmp_path, monkeypatch, eval_scores_only, flag, extra_box,
                                                        extra_conf):
    """``xingzi eval`` scores the detector with the step on; ``--no-<step>`` keeps the box (a row ending in
    ``-no<step>``), and the box, on no label, costs the photo."""
    from demo_photo import demo_photo, write_demo_dataset

    from xingzi.vision import detector as mod
    from xingzi.vision.detections import Detections

    image, truth, cls = demo_photo()
    h, w = image.shape[:2]
    extra = extra_box(truth, w, h, float(np.median(truth[:, 3] - truth[:, 1])))
    read = Detections(np.vstack([truth, extra]).astype(np.float32), np.append(cls, 4),
                      np.append(np.full(len(cls), 0.9), extra_conf).astype(np.float32))
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: read)
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    exact = {}
    for flags in ([], [f"--no-{flag}"]):
        out = tmp_path / ("keep" if flags else "drop")
        assert main(["eval", "--data", str(data), "--out", str(out), "--classifier", "none", *flags]) == 0
        (row,) = out.glob("*.json")
        assert (f"-no{flag}" in row.name) == bool(flags)
        exact[bool(flags)] = json.loads(row.read_text())["summary"]["image_exact"]
    assert exact == {False: 1.0, True: 0.0}


def test_eval_reads_a_coloured_blank_as_a_back_unless_told_not_to(tmp_path, monkeypatch, eval_scores_only):
    """The demo photo's two face-down tiles read as 白板 (as backs of an unseen colour were): by their colour
    against the plate they are backs again and the photo is exact; ``--no-backcolour`` leaves them 白板."""
    from demo_photo import demo_photo, write_demo_dataset

    from xingzi.vision import detector as mod
    from xingzi.vision.detections import Detections

    image, truth, cls = demo_photo()
    assert (cls == 30).sum() == 2, "the demo photo's concealed kong shows two backs"
    read = Detections(truth.astype(np.float32), np.where(cls == 30, Tile.BAI.index, cls),
                      np.full(len(cls), 0.9, np.float32))
    monkeypatch.setattr(mod.Detector, "read", lambda self, image, ask_second=False: read)
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    exact = {}
    for flags in ([], ["--no-backcolour"], ["--no-balance"]):
        out = tmp_path / ("-".join(flags) or "on")
        assert main(["eval", "--data", str(data), "--out", str(out), "--classifier", "none", *flags]) == 0
        (row,) = out.glob("*.json")
        assert ("-nobackcolour" in row.name) == ("--no-backcolour" in flags)
        assert ("-nobalance" in row.name) == ("--no-balance" in flags)
        exact[" ".join(flags)] = json.loads(row.read_text())["summary"]["image_exact"]
    assert exact == {"": 1.0, "--no-backcolour": 0.0, "--no-balance": 1.0}  # the demo photo is lit white


def test_eval_reads_a_grainy_photo_quietened_unless_told_not_to(tmp_path, monkeypatch, eval_scores_only):
    """A stand-in model that finds the demo photo's tiles only when the grain is gone: under ``--perturb noise``
    the photo is exact with the grain step and empty-handed with ``--no-denoise``."""
    import cv2
    from demo_photo import demo_photo, write_demo_dataset

    from xingzi.vision import detector as mod
    from xingzi.vision.denoise import NOISY, noise_sigma
    from xingzi.vision.detections import Detections

    image, truth, cls = demo_photo()
    small = cv2.resize(image, (640, round(640 * image.shape[0] / image.shape[1])), interpolation=cv2.INTER_AREA)
    scale = 640 / image.shape[1]

    def read(self, picture, ask_second=False, also=None):
        if noise_sigma(picture, self.imgsz) > NOISY:
            return Detections.empty()
        k = scale * picture.shape[1] / small.shape[1]  # boxes in the picture read (it may be shrunk)
        return Detections(truth * k, cls, np.full(len(cls), 0.9, np.float32))

    monkeypatch.setattr(mod.Detector, "read", read)
    data = write_demo_dataset(tmp_path / "data", small, "demo.png")
    exact = {}
    for flags in ([], ["--no-denoise"]):
        out = tmp_path / ("-".join(flags) or "on")
        assert main(["eval", "--data", str(data), "--out", str(out), "--classifier", "none", "--perturb", "noise",
                     *flags]) == 0
        (row,) = out.glob("*.json")
        assert ("-nodenoise" in row.name) == bool(flags)
        exact[" ".join(flags)] = json.loads(row.read_text())["summary"]["image_exact"]
    assert exact == {"": 1.0, "--no-denoise": 0.0}


def test_a_photo_that_cannot_be_opened_is_named(dataset, tmp_path, capsys):
    photo = next((dataset / "images").glob("a.*"))
    photo.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(40)))  # a JPEG cut inside its header: Pillow names no file
    assert main(["eval", "--data", str(dataset), "--preds", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{photo}: not a readable image" in err and "Traceback" not in err


def test_the_pipeline_figure_reads_again_a_reading_that_makes_no_hand(tmp_path, monkeypatch):
    """As `xingzi score` and the page do (pipeline.detect_hand): the first reading misses a tile, so the photo is
    read again asking the second opinion, whose reading makes the hand; the pipeline check sees that one."""
    from demo_photo import EXAMPLES, demo_photo, write_demo_dataset

    from xingzi.vision import detector as mod
    from xingzi.vision.detections import Detections
    from xingzi.vision.detector import DEFAULT_ONNX
    from xingzi.vision.eval_data import truths_for
    from xingzi.vision.evaluate import evaluate_row, format_rows, preds_from_model

    image, truth, cls = demo_photo()
    whole = Detections(truth.astype(np.float32), cls, np.full(len(cls), 0.9, np.float32))
    short = whole.subset(np.arange(len(cls)) != 3)
    asked = []

    def read(self, picture, ask_second=False, also=None):
        asked.append(ask_second)
        return whole if ask_second else short

    monkeypatch.setattr(mod.Detector, "read", read)
    data = write_demo_dataset(tmp_path / "data", image, "demo.png")
    (data / "meta").mkdir()
    (data / "meta" / "demo.json").write_text((EXAMPLES / "demo.json").read_text(encoding="utf-8"), encoding="utf-8")
    seen = []

    def check(path, detections, meta):
        seen.append(len(detections))
        return True

    ds = load_dataset(data)
    preds, extra = preds_from_model(ds, DEFAULT_ONNX, 640, 0.25, 0.5, pipeline_check=check, classifier=None)
    assert seen == [len(cls)] and True in asked
    assert len(preds[0]) == len(cls) - 1  # the tile figures are the detector's first reading ...
    truths, _ = truths_for(ds, name_table(ds.names))
    result = evaluate_row(truths, preds, 0.25, tmp_path / "out", "row", extra)
    assert result["summary"]["image_exact"] == 0.0
    assert result["as_users"]["image_exact"] == 1.0  # ... and beside them the reading users get
    assert "as xingzi score reads (a reading that makes no hand read again): F1 1.000, image exact 1.000" in \
        format_rows([result])


def test_a_synthetic_tile_whose_face_shows_too_little_is_neither_hit_nor_miss(dataset, tmp_path, capsys,
                                                                             eval_scores_only):
    """A synthetic set's meta marks a tile ``unread`` when its shown part cannot tell its face (datasets/synth/
    legible.py): a reading of another face there is no miss, and the photo can be exact without it."""
    preds = _preds(tmp_path, "theirs", {"a": [(0, 0.1, 0.5, 0.1, 0.4, 0.9), (1, 0.3, 0.5, 0.1, 0.4, 0.8)],
                                        "b": [(3, 0.2, 0.5, 0.1, 0.4, 0.9), (0, 0.4, 0.5, 0.1, 0.4, 0.9)]})
    (preds / "classes.txt").write_text("\n".join(THEIR_NAMES) + "\n")

    def scored(name):
        out = tmp_path / name
        assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(out)]) == 0
        return json.loads((out / "theirs.json").read_text())["summary"]

    before = scored("plain")
    assert (before["tiles"], before["image_exact"]) == (4, 0.5)  # b's second 5p read as 1m
    (dataset / "meta").mkdir()
    tiles = [{"cls": 3}, {"cls": 3, "unread": True}]
    (dataset / "meta" / "b.json").write_text(json.dumps({"tiles": tiles}))
    after = scored("unread")
    assert (after["tiles"], after["image_exact"], after["f1"]) == (3, 1.0, 1.0)

    (dataset / "meta" / "b.json").write_text(json.dumps({"tiles": tiles[1:]}))  # a meta of another photo
    assert main(["eval", "--data", str(dataset), "--preds", str(preds), "--out", str(tmp_path / "bad")]) == 2
    assert "1 tiles in the meta, 2 labels" in capsys.readouterr().err
