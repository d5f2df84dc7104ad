"""A photo held twice (a zip of a folder merged with it, a copy under another name) is merged once and split to one
side: byte-identical copies in train and val would score the model on photos it learnt."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.datasets.merge import merge_datasets
from xingzi.datasets.split import split_dataset

BOX = " 0.5 0.5 0.1 0.1\n"


def photo(path: Path, n: int) -> None:
    """A 16 x 16 JPEG of its own: ``n`` drawn in white squares (clear through JPEG)."""
    im = Image.new("RGB", (16, 16), "gray")
    for bit in range(16):
        if n >> bit & 1:
            im.paste("white", (bit % 4 * 4, bit // 4 * 4, bit % 4 * 4 + 4, bit // 4 * 4 + 4))
    path.parent.mkdir(parents=True, exist_ok=True)
    im.save(path)


def dataset(root: Path, photos: dict[str, tuple[int, str]]) -> Path:
    """``stem: (which photo, label text)``: stems given one number are copies, byte for byte."""
    (root / "labels").mkdir(parents=True)
    for stem, (n, text) in photos.items():
        photo(root / "images" / f"{stem}.jpg", n)
        (root / "labels" / f"{stem}.txt").write_text(text)
    return root


def zipped(folder: Path, path: Path) -> Path:
    """``folder`` zipped as the page's saved labels are: images/ and labels/ at the top."""
    with zipfile.ZipFile(path, "w") as z:
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(folder).as_posix())
    return path


THREE = {f"p{i}": (i + 1, f"{i}{BOX}") for i in range(3)}


def zip_and_its_folder(t: Path) -> tuple[list[Path], Path]:
    w = dataset(t / "w1", THREE)
    return [zipped(w, t / "z1.zip"), w], t / "m"


def merged(t: Path) -> Path:
    """``a``'s three photos merged into ``m``."""
    merge_datasets([dataset(t / "a", THREE)], t / "m")
    return t / "m"


def copy_already_in_the_output(t: Path) -> tuple[list[Path], Path]:
    out = merged(t)
    return [dataset(t / "b", {"renamed": (2, f"1{BOX}"), "new": (9, f"5{BOX}")})], out


def two_copies_in_one_source(t: Path) -> tuple[list[Path], Path]:
    return [dataset(t / "a", {**THREE, "p0_copy": (1, f"0{BOX}")})], t / "m"


def copy_with_its_boxes_reordered(t: Path) -> tuple[list[Path], Path]:
    a = dataset(t / "a", {"x": (1, f"0{BOX}3 0.2 0.2 0.1 0.1\n")})
    return [a, dataset(t / "b", {"x": (1, "3 0.2 0.2 0.1 0.1\n" f"0{BOX}")})], t / "m"


@pytest.mark.parametrize(("setup", "merged", "copies", "held"), [
    pytest.param(zip_and_its_folder, 3, [("w1", 3, "p0.jpg as z1__p0.jpg")], 3, id="a-zip-of-a-folder-and-the-folder"),
    pytest.param(copy_already_in_the_output, 1, [("b", 1, "renamed.jpg as a__p1.jpg")], 4,
                 id="a-copy-of-a-photo-already-in-the-output"),
    pytest.param(two_copies_in_one_source, 3, [("a", 1, "p0_copy.jpg as a__p0.jpg")], 3, id="two-copies-in-one-source"),
    pytest.param(copy_with_its_boxes_reordered, 1, [("b", 1, "x.jpg as a__x.jpg")], 1, id="the-same-boxes-reordered"),
])
def test_merge_takes_each_photo_once_and_says_what_it_skipped(tmp_path, setup, merged, copies, held):
    sources, out = setup(tmp_path)
    report = merge_datasets(sources, out)
    assert report.images == merged
    assert [(Path(src).stem, n, first) for src, n, first in report.copies] == copies
    images = sorted((out / "images").iterdir())
    assert len(images) == held == len({p.read_bytes() for p in images})  # no photo twice
    assert sorted(p.stem for p in (out / "labels").iterdir()) == [p.stem for p in images]


def test_the_boxes_of_a_copy_skipped_are_not_counted_as_dropped(tmp_path):
    folders = [dataset(tmp_path / n, {"x": (1, f"0{BOX}1 0.2 0.2 0.1 0.1\n")}) for n in ("a", "b")]
    for f in folders:
        (f / "data.yaml").write_text("names: [1m, East]\n")
    report = merge_datasets(folders, tmp_path / "m")
    assert (report.images, report.dropped_boxes, report.unmapped_names) == (1, 1, ("East",))


def test_cli_merge_names_the_source_of_the_copies_it_skipped(tmp_path, capsys):
    sources, out = zip_and_its_folder(tmp_path)
    assert main(["dataset", "merge", *map(str, sources), "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{sources[0]}: 3 images"
    assert lines[1] == f"{sources[1]}: 0 images, skipped 3 identical (byte for byte) to photos merged before " \
                       "(p0.jpg as z1__p0.jpg, …)"
    assert lines[-1] == f"{out}: 3 images merged"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def same_folder_twice(t: Path, spelt: str) -> tuple[list[Path], Path]:
    a = dataset(t / "R5", THREE)
    return [a, Path(spelt.format(a))], t / "m"


def copy_with_other_boxes(t: Path, in_zip: bool) -> tuple[list[Path], Path]:
    a = dataset(t / "a", THREE)
    b = dataset(t / "b", {"p1": (2, f"7{BOX}")})
    return [a, zipped(b, t / "b.zip") if in_zip else b], t / "m"


@pytest.mark.parametrize(("setup", "message"), [
    pytest.param(lambda t: same_folder_twice(t, "{}"), r"R5 is given twice; expected each dataset once",
                 id="one-folder-given-twice"),
    pytest.param(lambda t: same_folder_twice(t, "{}/../R5"), r"R5 and .*R5/\.\./R5 are one dataset",
                 id="one-folder-spelt-two-ways"),
    pytest.param(lambda t: ([zipped(dataset(t / "w", THREE), t / "z.zip")] * 2, t / "m"), "z.zip is given twice",
                 id="one-zip-given-twice"),
    pytest.param(lambda t: copy_with_other_boxes(t, False),
                 r"b/images/p1.jpg is the same photo \(byte for byte\) as .*a/images/p1.jpg with other boxes",
                 id="a-copy-with-other-boxes"),
    pytest.param(lambda t: copy_with_other_boxes(t, True), r"b.zip!/images/p1.jpg is the same photo",
                 id="a-copy-in-a-zip-with-other-boxes"),
    pytest.param(lambda t: ([dataset(t / "b", {"q": (2, f"7{BOX}")})], merged(t)),
                 r"b/images/q.jpg is the same photo \(byte for byte\) as .*m/images/a__p1.jpg with other boxes",
                 id="a-copy-of-a-photo-in-the-output-with-other-boxes"),
])
def test_merge_refuses_a_source_twice_and_a_copy_with_other_boxes(tmp_path, setup, message):
    sources, out = setup(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match=message):
        merge_datasets(sources, out)
    assert snapshot(tmp_path) == before  # refused before anything was written


def versions_and_copies(root: Path) -> Path:
    """Ten photos; p0 has two versions (Roboflow's), and copies of its second version and of p1 lie under other
    names, as a set merged from two sources that both held them does."""
    photos = {f"p{i}": (i + 1, f"{i}{BOX}") for i in range(1, 10)}
    return dataset(root, {**photos, "p0_jpg.rf.1": (20, f"0{BOX}"), "p0_jpg.rf.2": (21, f"0{BOX}"),
                          "z__p0_jpg.rf.2": (21, f"0{BOX}"), "z__p1": (2, f"1{BOX}"), "y__p1": (2, f"1{BOX}")})


ONE_PHOTO = [{"p0_jpg.rf.1", "p0_jpg.rf.2", "z__p0_jpg.rf.2"}, {"p1", "z__p1", "y__p1"}]


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"seed-{s}") for s in range(6)])
@pytest.mark.parametrize("out", [pytest.param(False, id="in-place"), pytest.param(True, id="to-a-new-folder")])
def test_split_keeps_copies_of_a_photo_on_one_side(tmp_path, seed, out):
    root = versions_and_copies(tmp_path / "d")
    report = split_dataset(root, val=0.3, seed=seed, out=tmp_path / "o" if out else None)
    train, val = ({Path(p).stem for p in part} for part in (report.train, report.val))
    for photo_ in ONE_PHOTO:
        assert photo_ <= train or photo_ <= val
    assert report.groups_train + report.groups_val == 10  # p0 and p1 one photo each, with p2..p9


def test_a_merge_of_a_zip_and_its_folder_splits_without_a_photo_on_both_sides(tmp_path):
    w = dataset(tmp_path / "w1", {f"p{i}": (i + 1, f"{i}{BOX}") for i in range(8)})
    merge_datasets([zipped(w, tmp_path / "z1.zip"), w], tmp_path / "m")
    report = split_dataset(tmp_path / "m", val=0.4, seed=3, out=tmp_path / "o")
    train, val = ({(tmp_path / "o" / p).read_bytes() for p in part} for part in (report.train, report.val))
    assert len(train) + len(val) == 8 and not train & val
