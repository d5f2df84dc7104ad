"""Datasets given as zips (the page's saved labels, exports): merged and checked like folders; bad zips refused."""

from __future__ import annotations

import io
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.datasets import zipped
from xingzi.datasets.merge import merge_datasets
from xingzi.datasets.zipped import dataset_folder
from xingzi.vision.detections import Detections
from xingzi.web.labels import labels_zip

BOX = " 0.5 0.5 0.1 0.1\n"


def page_zip(path: Path, classes: list[int], name: str = "hand", grey: int = 90) -> Path:
    """A zip as the page's "save labels" makes it, of a grey photo with one box per class."""
    xyxy = np.array([[10 + 40 * i, 10, 40 + 40 * i, 50] for i in range(len(classes))], float).reshape(-1, 4)
    det = Detections(xyxy, np.array(classes, int), np.full(len(classes), 0.9))
    path.write_bytes(labels_zip(np.full((120, 400, 3), grey, np.uint8), det, range(len(det)), name))
    return path


def raw_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), "gray").save(buf, "JPEG")
    return buf.getvalue()


def test_page_zips_merge_with_a_folder_into_one_dataset(tmp_path, monkeypatch):
    unpacked = tmp_path / "tmp"
    unpacked.mkdir()
    monkeypatch.setattr(zipped.tempfile, "tempdir", str(unpacked))
    folder = tmp_path / "old"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    Image.new("RGB", (16, 16), "gray").save(folder / "images" / "p.jpg")
    (folder / "labels" / "p.txt").write_text(f"7{BOX}")
    first, second = page_zip(tmp_path / "hand.zip", [0, 1, 2]), page_zip(tmp_path / "hand (1).zip", [29], grey=120)
    report = merge_datasets([folder, first, second], tmp_path / "new")
    labels = tmp_path / "new" / "labels"
    assert sorted(p.name for p in labels.iterdir()) == ["hand (1)__hand.txt", "hand__hand.txt", "old__p.txt"]
    assert [r.split()[0] for r in (labels / "hand__hand.txt").read_text().splitlines()] == ["0", "1", "2"]
    assert (labels / "hand (1)__hand.txt").read_text().split()[0] == "29"
    assert report.images == 3 and [n for _, n in report.per_source] == [1, 1, 1]
    assert (tmp_path / "new" / "images" / "hand__hand.jpg").stat().st_size > 0
    assert not list(unpacked.iterdir())  # the zips' unpacked copies are gone


def test_a_samples_truth_comes_along_into_the_merged_set(tmp_path):
    page_zip(tmp_path / "hand.zip", [0, 1])
    with zipfile.ZipFile(tmp_path / "hand.zip", "a") as z:
        z.writestr("meta/hand.json", '{"situation": {}, "expect": null}')
    merge_datasets([tmp_path / "hand.zip"], tmp_path / "m")
    assert (tmp_path / "m" / "meta" / "hand__hand.json").read_text() == '{"situation": {}, "expect": null}'


def test_cli_checks_and_merges_zips(tmp_path, capsys):
    good = page_zip(tmp_path / "good.zip", [3, 4])
    bad = raw_zip(tmp_path / "bad.zip", {"images/p.jpg": jpeg(), "labels/p.txt": b"0 0.5 0.5 2 0.1\n"})
    assert main(["dataset", "check", str(good)]) == 0
    assert f"{good}: 1 images, 1 label files beside them, 2 boxes" in capsys.readouterr().out
    assert main(["dataset", "check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "labels/p.txt:1" in out and "reaches outside the image" in out and "xingzi-zip-" not in out
    assert main(["dataset", "merge", str(good), "--out", str(tmp_path / "m")]) == 0  # one zip is enough
    assert "m: 1 images" in capsys.readouterr().out


@pytest.mark.parametrize(("members", "message"), [
    pytest.param({"../evil.txt": b"x"}, "points outside", id="climbs-out"),
    pytest.param({"/etc/evil.txt": b"x"}, "points outside", id="absolute"),
    pytest.param({"images/a.jpg": b"\0" * 3000, "labels/a.txt": b"0" + BOX.encode()}, "more than", id="too-big"),
])
def test_a_harmful_zip_is_refused_before_anything_is_unpacked(tmp_path, monkeypatch, members, message):
    monkeypatch.setattr(zipped, "MAX_UNPACKED", 2000)
    path = raw_zip(tmp_path / "z.zip", {"images/ok.jpg": jpeg(), **members})
    with pytest.raises(ValueError, match=message), dataset_folder(path):
        pass
    assert not (tmp_path / "evil.txt").exists()
    with pytest.raises(ValueError, match=message):
        merge_datasets([path], tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_a_zip_of_full_size_phone_photos_is_unpacked(tmp_path):
    photo = b"\xff" * 6_000_000  # a 12-megapixel JPEG is several megabytes: far under the bomb limit
    with dataset_folder(raw_zip(tmp_path / "z.zip", {"images/a.jpg": photo, "labels/a.txt": b""})) as folder:
        assert (folder / "images" / "a.jpg").stat().st_size == len(photo)


def test_only_dataset_files_are_unpacked(tmp_path):
    path = raw_zip(tmp_path / "z.zip", {"images/a.jpg": jpeg(), "labels/a.txt": f"1{BOX}".encode(),
                                        "run.sh": b"rm -rf /", "labels/.hidden.txt": b"", "data.yaml": b"names: []\n",
                                        "meta/a.json": b"{}", "lib/x.so": b"ELF"})
    with dataset_folder(path) as folder:
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert files == ["data.yaml", "images/a.jpg", "labels/a.txt", "meta/a.json"]
    assert not folder.exists()


def test_not_a_zip_and_a_missing_zip_say_so(tmp_path):
    (tmp_path / "x.zip").write_bytes(b"PK not really")
    with pytest.raises(ValueError, match="not a zip file"), dataset_folder(tmp_path / "x.zip"):
        pass
    with pytest.raises(FileNotFoundError, match="gone.zip"), dataset_folder(tmp_path / "gone.zip"):
        pass
    with dataset_folder(tmp_path) as folder:  # a folder is read where it is
        assert folder == tmp_path


def with_flag(data: bytes, header_flag: int) -> bytes:
    """The zip ``data`` with a general-purpose flag bit set in every header (1: encrypted)."""
    b = bytearray(data)
    for sig, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = b.find(sig)
        while i >= 0:
            b[i + offset] |= header_flag
            i = b.find(sig, i + 4)
    return bytes(b)


def with_method(data: bytes, method: int) -> bytes:
    """The zip ``data`` claiming compression ``method`` in every header."""
    b = bytearray(data)
    for sig, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        i = b.find(sig)
        while i >= 0:
            b[i + offset] = method
            i = b.find(sig, i + 4)
    return bytes(b)


def zip_bytes(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile's "Duplicate name": made on purpose
        for name, data in members:
            z.writestr(name, data)
    return buf.getvalue()


GOOD = [("images/h.jpg", jpeg()), ("labels/h.txt", b"0" + BOX.encode())]


@pytest.mark.parametrize(("data", "message"), [
    pytest.param(lambda: zip_bytes([*GOOD, ("labels/h.txt", b"1" + BOX.encode())]), "got 'labels/h.txt' twice",
                 id="same-name-twice"),
    pytest.param(lambda: with_flag(zip_bytes(GOOD), 1), "cannot be unpacked", id="encrypted"),
    pytest.param(lambda: with_method(zip_bytes(GOOD), 99), "cannot be unpacked", id="unknown-compression"),
    pytest.param(lambda: zip_bytes(GOOD).replace(b"0" + BOX.encode(), b"9" + BOX.encode()), "cannot be unpacked",
                 id="damaged-member"),
    pytest.param(lambda: zip_bytes([*GOOD, ("images/x.jpg", jpeg()), ("labels/x.txt", b"\xff\xfe")]), "expected UTF-8 text", id="binary-label"),
    pytest.param(lambda: zip_bytes([*GOOD, ("images/x.jpg", jpeg()), ("labels/x.txt", b"1.5" + BOX.encode())]), "class 1.5 is not",
                 id="fractional-class"),
])
def test_a_zip_that_cannot_be_merged_is_a_clear_error(tmp_path, capsys, data, message):
    path = tmp_path / "hand.zip"
    path.write_bytes(data())
    assert main(["dataset", "merge", str(path), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert message in err and "xingzi-zip-" not in err  # the file as inside the zip, not in a temporary folder
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("top", ["perm/", "perm\\"])
def test_a_zip_of_the_dataset_folder_itself_is_read_by_its_data_yaml(tmp_path, capsys, top):
    """``zip -r set.zip set/``: every member under one folder; its data.yaml names the classes (here other than ours)."""
    members = {f"{top}images/a.jpg": jpeg(), f"{top}labels/a.txt": f"0{BOX}1 0.2 0.2 0.1 0.1\n".encode(),
               f"{top}data.yaml": "names: ['中', '5p']\n".encode()}
    path = raw_zip(tmp_path / "perm.zip", members)
    with dataset_folder(path) as folder:
        assert (folder / "data.yaml").is_file() and (folder / "labels" / "a.txt").is_file()
    merge_datasets([path], tmp_path / "m")
    labels = next((tmp_path / "m" / "labels").iterdir()).read_text().splitlines()
    assert [r.split()[0] for r in labels] == ["27", "13"]  # 中 and 5p in our order, not ids 0 and 1 (1m, 2m)
    assert main(["dataset", "check", str(path)]) == 0
    assert "no-class-names" not in capsys.readouterr().out


def test_a_zip_of_images_alone_is_not_taken_for_a_wrapped_dataset(tmp_path):
    with dataset_folder(raw_zip(tmp_path / "z.zip", {"images/a.jpg": jpeg(), "images/b.jpg": jpeg()})) as folder:
        assert (folder / "images" / "a.jpg").is_file()
