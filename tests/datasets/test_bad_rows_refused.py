"""What `dataset check` reports as an error does not travel on: merge, `label --import-yolo` and split refuse a box
of no tile and a class the list lacks, naming file and line; check itself refuses what it cannot read sensibly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.datasets.check import check_dataset
from xingzi.datasets.labelstudio import import_yolo_export

BOX = " 0.5 0.5 0.1 0.1\n"


def dataset(root: Path, bad_row: str, names: list[str] | None = None) -> Path:
    """Four photos with a box each; ``p2``'s label file has ``bad_row`` as its second line."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for i in range(4):
        Image.new("RGB", (16, 16), (40 * i, 90, 90)).save(root / "images" / f"p{i}.png")
        (root / "labels" / f"p{i}.txt").write_text(f"{i}{BOX}" + (bad_row + "\n" if i == 2 else ""))
    if names is not None:
        (root / "data.yaml").write_text(f"names: {names}\n")
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


NO_TILE = [
    pytest.param("3 1.5 0.5 0.1 0.1", "expected a box on the photo (0..1), got one wholly outside it at cx 1.5",
                 id="wholly-right-of-the-photo"),
    pytest.param("3 0.5 -0.2 0.1 0.1", "expected a box on the photo (0..1), got one wholly outside it at cx 0.5 cy -0.2",
                 id="wholly-above-the-photo"),
    pytest.param("3 0.5 0.5 -0.1 0.1", "expected a box of some width and height, got w -0.1 h 0.1",
                 id="negative-width"),
    pytest.param("3 0.5 0.5 0.1 0", "expected a box of some width and height, got w 0.1 h 0", id="no-height"),
]


@pytest.mark.parametrize(("row", "message"), NO_TILE)
def test_merge_refuses_a_box_of_no_tile(tmp_path, capsys, row, message):
    src = dataset(tmp_path / "a", row)
    before = snapshot(tmp_path)
    assert main(["dataset", "merge", str(src), "--out", str(tmp_path / "m")]) == 2
    assert f"a/labels/p2.txt:2: {message}" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(("row", "message"), NO_TILE)
def test_yolo_import_refuses_a_box_of_no_tile(tmp_path, capsys, row, message):
    export = dataset(tmp_path / "export", row, names=["1m", "2m", "3m", "4m"])
    before = snapshot(tmp_path)
    assert main(["label", "--import-yolo", str(export), "--out", str(tmp_path / "d")]) == 2
    assert f"export/labels/p2.txt:2: {message}" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_yolo_import_refuses_a_box_of_no_tile_even_of_a_class_it_drops(tmp_path):
    export = dataset(tmp_path / "export", "3 0.5 0.5 0 0.1", names=["1m", "2m", "3m", "East"])
    with pytest.raises(ValueError, match=r"p2.txt:2: expected a box of some width and height"):
        import_yolo_export(export, tmp_path / "d")


@pytest.mark.parametrize(("row", "names", "message"), [
    pytest.param("45 0.5 0.5 0.1 0.1", None, r"class 45 is not in the dataset's class list \(0..30\)", id="class-45"),
    pytest.param("-3 0.5 0.5 0.1 0.1", None, r"class -3 is not in the dataset's class list \(0..30\)",
                 id="negative-class"),
    pytest.param("31 0.5 0.5 0.1 0.1", None, r"class 31 is not", id="one-past-ours"),
    pytest.param("4 0.5 0.5 0.1 0.1", ["1m", "2m", "3m", "4m"], r"class 4 is not in the dataset's class list \(0..3\)",
                 id="one-past-its-own-list"),
    pytest.param("3 1.5 0.5 0.1 0.1", None, "wholly outside it", id="a-box-off-the-photo"),
    pytest.param("3 0.5 0.5 0 0.1", None, "expected a box of some width and height", id="a-box-of-no-width"),
])
@pytest.mark.parametrize("out", [pytest.param(False, id="in-place"), pytest.param(True, id="to-a-new-folder")])
def test_split_refuses_what_merge_refuses(tmp_path, capsys, row, names, message, out):
    root = dataset(tmp_path / "d", row, names)
    before = snapshot(tmp_path)
    args = ["dataset", "split", str(root), "--val", "0.4"] + (["--out", str(tmp_path / "o")] if out else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "d/labels/p2.txt:2: " in err and re.search(message, err)
    assert snapshot(tmp_path) == before  # no list written, nothing copied


def test_check_of_the_images_folder_says_to_give_the_dataset_folder(tmp_path, capsys):
    root = dataset(tmp_path / "R5", "")
    assert main(["dataset", "check", str(root / "images")]) == 2
    err = capsys.readouterr().err
    assert f"give the dataset folder (the one holding images/ and labels/), got {root / 'images'}" in err
    assert f"outside it, in {root / 'labels'}" in err and "subpath" not in err
    with pytest.raises(ValueError, match="give the dataset folder"):
        check_dataset(root / "images")


@pytest.mark.parametrize("n", [pytest.param(-1, id="minus-one"), pytest.param(-20, id="minus-twenty")])
def test_check_refuses_a_negative_max_per_kind(tmp_path, capsys, n):
    root = dataset(tmp_path / "d", "")
    (root / "labels" / "p1.txt").unlink()  # one unlabelled: -1 made it "… 2 more unlabelled"
    assert main(["dataset", "check", str(root), f"--max-per-kind={n}"]) == 2
    assert f"--max-per-kind must be 0 or more (0: only the counts per kind), got {n}" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--max-per-kind must be 0 or more"):
        check_dataset(root).format_text(n)


HOW = [pytest.param(lambda root, o: ["merge", str(root), "--out", str(o)], id="merge"),
       pytest.param(lambda root, o: ["split", str(root), "--val", "0.4"], id="split-in-place"),
       pytest.param(lambda root, o: ["split", str(root), "--val", "0.4", "--out", str(o)], id="split-to-a-new-folder")]


@pytest.mark.parametrize("photo", [pytest.param(b"", id="zero-bytes"), pytest.param(b"not an image\n", id="text")])
@pytest.mark.parametrize("how", HOW)
def test_a_photo_check_cannot_open_does_not_travel_on(tmp_path, capsys, photo, how):
    root = dataset(tmp_path / "d", "")
    (root / "images" / "p2.png").write_bytes(photo)  # its labels kept: `xingzi eval` stopped on the copy
    assert "unreadable" in check_dataset(root).counts_by_kind()
    before = snapshot(tmp_path)
    assert main(["dataset", *how(root, tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert f"{root / 'images' / 'p2.png'}: not a readable image" in err and len(err.splitlines()) == 1
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("how", [pytest.param(lambda yaml, o: ["check", str(yaml)], id="check"), *HOW])
def test_a_data_yaml_given_stands_for_its_folder(tmp_path, capsys, how):
    root = dataset(tmp_path / "d", "", names=["1m", "2m", "3m", "4m"])
    assert main(["dataset", *how(root / "data.yaml", tmp_path / "o")]) == 0
    assert "not found" not in capsys.readouterr().err


@pytest.mark.parametrize(("action", "name"), [
    pytest.param("split", "d.zip", id="split-of-a-zip"),
    pytest.param("check", "notes.txt", id="check-of-a-text-file"),
])
def test_a_file_given_for_a_folder_is_said_to_be_a_file(tmp_path, capsys, action, name):
    (tmp_path / name).write_bytes(b"PK\x05\x06" + bytes(18) if name.endswith(".zip") else b"notes\n")
    assert main(["dataset", action, str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert f"expected a dataset folder (images/, labels/, data.yaml), got the file {tmp_path / name}" in err
    assert "not found" not in err
