"""`xingzi dataset check --model`: labels a model reads surely otherwise, and tiles with no label, are warnings."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from xingzi.cli import main
from xingzi.datasets.audit import audit_dataset, audit_image
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.eval_data import name_table

NAMES = [*CLASS_NAMES[:30], "other"]  # as ../shared/data: winds and flowers are class 30
TABLE = name_table(NAMES)
W, H = 640, 480
BOX = [0.25, 0.5, 0.1, 0.2]  # cx cy w h of the labelled tile
PIXELS = [128.0, 192.0, 192.0, 288.0]  # the same box in pixels
FAR = [480.0, 100.0, 544.0, 196.0]  # a box on no label


def dets(boxes, classes, confs, foreign=None) -> Detections:
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.array(classes, np.int64),
                      np.array(confs, np.float32), foreign=None if foreign is None else np.array(foreign, np.float32))


@pytest.mark.parametrize("label,det,kinds,says", [
    pytest.param(Tile.S1.index, dets([PIXELS], [Tile.P1.index], [0.9]), ["disagree"], "labelled '1s', the model reads '1p' (0.90)",
                 id="face-read-surely-otherwise"),
    pytest.param(Tile.S1.index, dets([PIXELS], [Tile.P1.index], [0.5]), [], None, id="not-sure-enough"),
    pytest.param(Tile.S1.index, dets([PIXELS], [Tile.S1.index], [0.95]), [], None, id="agrees"),
    pytest.param(30, dets([PIXELS], [Tile.S1.index], [0.95]), [], None, id="a-wind-label-is-not-judged"),
    pytest.param(Tile.S1.index, dets([PIXELS], [Tile.S1.index], [0.9], [0.9]), ["disagree"], "reads no Xingzi face",
                 id="labelled-face-the-classifier-calls-a-wind"),
    pytest.param(Tile.S1.index, dets([PIXELS, FAR], [Tile.S1.index, Tile.M6.index], [0.9, 0.9]), ["unlabelled-tile"],
                 "finds a tile '6m' (0.90) at 0.800,0.308 with no label", id="a-sure-tile-with-no-label"),
    pytest.param(Tile.S1.index, dets([PIXELS, FAR], [Tile.S1.index, Tile.M6.index], [0.9, 0.6]), [], None,
                 id="an-unsure-box-with-no-label"),
    pytest.param(Tile.S1.index, dets([PIXELS, FAR], [Tile.S1.index, Tile.M6.index], [0.9, 0.9], [0.0, 0.9]), [], None,
                 id="a-wind-with-no-label"),
    pytest.param(30, dets([[130, 190, 194, 290]], [Tile.S1.index], [0.9]), [], None, id="a-box-on-a-wind-label"),
])
def test_what_the_model_warns_of(label, det, kinds, says):
    image = np.zeros((H, W, 3), np.uint8)
    issues = audit_image(image, [(3, [label, *BOX])], TABLE, det, "labels/a.txt")
    assert [i.kind for i in issues] == kinds
    assert all(i.severity == "warning" and i.path == "labels/a.txt" for i in issues)
    if says:
        assert says in issues[0].message
    if kinds == ["disagree"]:
        assert issues[0].line == 3


@pytest.mark.parametrize("det, kind", [
    pytest.param(dets([PIXELS], [Tile.P1.index], [0.75]), "disagree", id="a-disagreement"),
    pytest.param(dets([PIXELS, FAR], [Tile.S1.index, Tile.M6.index], [0.9, 0.75]), "unlabelled-tile",
                 id="a-tile-with-no-label"),
])
def test_a_box_read_exactly_as_surely_as_asked_is_worth_a_look(det, kind):
    # 0.75 is exact in float32 and float64: `--sure` is where a sure reading starts, not a bar to pass
    image = np.zeros((H, W, 3), np.uint8)
    issues = audit_image(image, [(1, [Tile.S1.index, *BOX])], TABLE, det, "labels/a.txt", sure=0.75)
    assert [i.kind for i in issues] == [kind]
    assert audit_image(image, [(1, [Tile.S1.index, *BOX])], TABLE, det, "labels/a.txt", sure=0.76) == []


class Fixed:
    def __init__(self, det: Detections) -> None:
        self.det = det

    def predict(self, image: np.ndarray) -> Detections:
        assert image.shape == (H, W, 3)
        return self.det


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    """One photo whose only label says 1s where the model reads 1p; a second with no label file."""
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    (tmp_path / "classes.txt").write_text("\n".join(NAMES) + "\n")
    for stem in ("a", "b"):
        cv2.imwrite(str(tmp_path / "images" / f"{stem}.jpg"), np.full((H, W, 3), 120, np.uint8))
    (tmp_path / "labels" / "a.txt").write_text(f"{Tile.S1.index} {' '.join(map(str, BOX))}\n")
    return tmp_path


def test_a_dataset_is_read_photo_by_photo(dataset):
    issues = audit_dataset(dataset, Fixed(dets([PIXELS], [Tile.P1.index], [0.95])))
    assert [(i.kind, i.path, i.line) for i in issues] == [("disagree", "labels/a.txt", 1)]


def test_the_check_command_adds_the_warnings_and_still_passes(dataset, monkeypatch, capsys):
    import xingzi.vision.pipeline as pipeline

    (dataset / "labels" / "b.txt").write_text("")  # a background photo: no error from the plain check
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fixed(dets([PIXELS], [Tile.P1.index], [0.95])))
    assert main(["dataset", "check", str(dataset), "--model", "auto", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the same box on the background photo has no label there
    assert report["errors"] == 0 and report["by_kind"] == {"disagree": 1, "unlabelled-tile": 1}
    assert main(["dataset", "check", str(dataset), "--model", "auto", "--sure", "0.99"]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out


def test_labels_an_erratum_fixes_are_checked_as_corrected(dataset, monkeypatch, capsys):
    """Check → look → write the fix → check again: what is fixed no longer shows, what is not still does."""
    import xingzi.vision.pipeline as pipeline

    (dataset / "labels" / "b.txt").write_text(f"{Tile.S1.index} {' '.join(map(str, BOX))}\n" * 2)  # labelled twice
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fixed(dets([PIXELS], [Tile.P1.index], [0.95])))
    argv = ["dataset", "check", str(dataset), "--model", "auto", "--json"]
    assert main(argv) == 1
    before = json.loads(capsys.readouterr().out)["by_kind"]
    assert before == {"disagree": 2, "duplicate": 1}
    fixes = dataset / "fixes.toml"
    fixes.write_text('[[photo]]\nimage = "a.jpg"\nwas = "1s"\nnow = "1p"\nwhy = "a circle"\n'
                     '[[photo]]\nimage = "b.jpg"\nwas = "1s 1s"\nnow = "1s -"\nwhy = "twice"\n')
    assert main([*argv, "--errata", str(fixes)]) == 0
    assert json.loads(capsys.readouterr().out)["by_kind"] == {"disagree": 1}  # b's 1s: not fixed, still shown
    assert main(["dataset", "check", str(dataset), "--errata", str(fixes)]) == 0
    assert "read as corrected: labels corrected by fixes.toml: 2 photos, 1 boxes relabelled, 1 dropped" in \
        capsys.readouterr().out


def test_a_tile_an_erratum_adds_is_no_longer_unlabelled(dataset, monkeypatch, capsys):
    import xingzi.vision.pipeline as pipeline

    (dataset / "labels" / "b.txt").write_text((dataset / "labels" / "a.txt").read_text())
    monkeypatch.setattr(pipeline, "make_detector",
                        lambda model, conf: Fixed(dets([PIXELS, FAR], [Tile.S1.index, Tile.M6.index], [0.95, 0.9])))
    argv = ["dataset", "check", str(dataset), "--model", "auto", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["by_kind"] == {"unlabelled-tile": 2}  # on a.jpg and on b.jpg
    fixes = dataset / "fixes.toml"
    fixes.write_text('[[photo]]\nimage = "a.jpg"\nwas = "1s"\nnow = "1s"\nwhy = "a tile behind"\n'
                     'add = ["unread 0.8 0.3083 0.1 0.2"]\n')
    assert main([*argv, "--errata", str(fixes)]) == 0
    assert json.loads(capsys.readouterr().out)["by_kind"] == {"unlabelled-tile": 1}  # b.jpg's is still shown


def test_a_dataset_naming_no_classes_is_read_in_ours(dataset):
    (dataset / "classes.txt").unlink()  # as `xingzi label` writes ours in data.yaml, or a bare folder
    (dataset / "labels" / "a.txt").write_text(f"{BACK_CLASS} {' '.join(map(str, BOX))}\n")
    issues = audit_dataset(dataset, Fixed(dets([PIXELS], [Tile.BAI.index], [0.95])))
    assert [i.message for i in issues] == ["labelled 'back', the model reads 'bai' (0.95)"]


def test_a_label_of_a_negative_class_is_not_judged(dataset):
    # `dataset check` reports the bad line itself; the audit must not read -1 as the last class (`back` here):
    # the tile on it has no label
    (dataset / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    (dataset / "labels" / "a.txt").write_text(f"-1 {' '.join(map(str, BOX))}\n")
    issues = audit_dataset(dataset, Fixed(dets([PIXELS], [Tile.P1.index], [0.95])))
    assert [(i.kind, i.path) for i in issues] == [("unlabelled-tile", "labels/a.txt")]


def test_bad_input_is_refused_with_a_reason(dataset):
    with pytest.raises(ValueError, match="sure must be in"):
        audit_dataset(dataset, Fixed(dets([], [], [])), sure=0)
    (dataset / "images" / "0.jpg").write_bytes(b"not a picture")  # `dataset check` calls it unreadable: the audit
    (dataset / "labels" / "0.txt").write_text("")  # passes over it and reads the others (it stopped at it)
    issues = audit_dataset(dataset, Fixed(dets([PIXELS], [Tile.P1.index], [0.95])))
    assert [(i.kind, i.path) for i in issues] == [("disagree", "labels/a.txt")]


def test_the_text_report_names_the_files_with_most_warnings(dataset, monkeypatch, capsys):
    import xingzi.vision.pipeline as pipeline

    (dataset / "labels" / "b.txt").write_text("")
    boxes = dets([PIXELS, FAR], [Tile.P1.index, Tile.M6.index], [0.95, 0.9])  # a: 1s read 1p and a tile with no label
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fixed(boxes))
    assert main(["dataset", "check", str(dataset), "--model", "auto"]) == 0
    out = capsys.readouterr().out
    assert "most warnings: labels/a.txt (2), labels/b.txt (2)" in out


def _cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # its end lost in copying: the top half decodes


def _header_alone(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"\xff\xda")] + b"\xff\xd9")  # size and tables, no pixels: Pillow opens it


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _dangling_link(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.with_name("gone.jpg"))


@pytest.mark.parametrize("damage, kinds, error", [
    # read as training reads it (the model's finds on its top half), libjpeg's own words not printed over the report
    pytest.param(_cut_short, {"cut-short": 1, "disagree": 1}, None, id="jpeg-cut-short"),
    # check_dataset passed it (it reads headers alone); the audit passed over it without a word
    pytest.param(_header_alone, {"unreadable": 1},
                 "images/a.jpg: its header reads but OpenCV decodes nothing of it (damaged?)", id="header-alone"),
    # check_dataset says these cannot be opened; the audit passes over them (a folder: opened as a JPEG, it stopped all)
    pytest.param(_folder, {"unreadable": 1}, "images/a.jpg: not a readable image", id="a-folder"),
    pytest.param(_dangling_link, {"unreadable": 1, "no-image": 1}, "images/a.jpg: not a readable image",
                 id="a-link-to-nothing"),
])
def test_a_damaged_photo_is_named_not_crashed_on(dataset, monkeypatch, capfd, damage, kinds, error):
    import xingzi.vision.pipeline as pipeline

    (dataset / "labels" / "b.txt").write_text((dataset / "labels" / "a.txt").read_text())
    (dataset / "images" / "b.jpg").write_bytes(b"")  # b: empty, said unreadable by the check alone
    cv2.imwrite(str(dataset / "images" / "a.jpg"), np.random.default_rng(1).integers(0, 255, (H, W, 3), np.uint8))
    damage(dataset / "images" / "a.jpg")
    monkeypatch.setattr(pipeline, "make_detector", lambda model, conf: Fixed(dets([PIXELS], [Tile.P1.index], [0.95])))
    code = main(["dataset", "check", str(dataset), "--model", "auto", "--json"])
    out, err = capfd.readouterr()  # (file descriptor 2: libjpeg and OpenCV write there themselves)
    report = json.loads(out)
    assert code == 1 and err == ""
    assert {k: v for k, v in report["by_kind"].items() if k != "unreadable"} == \
        {k: v for k, v in kinds.items() if k != "unreadable"}
    assert report["by_kind"]["unreadable"] == kinds.get("unreadable", 0) + 1  # (+ b.jpg)
    if error:
        said = [f"{i['path']}: {i['message']}" for i in report["issues"] if i["kind"] == "unreadable"]
        assert any(line.startswith(error) for line in said)
