"""`xingzi label`: pre-labelling with an injected predictor never loses work."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from yolo_folder import shared_style_folder, write_yolo_folder

from xingzi.cli import main
from xingzi.datasets.check import read_class_names
from xingzi.datasets.label import detections_to_label_text, prelabel_folder
from xingzi.datasets.labelstudio import CONFIG_FILE, TASKS_FILE, import_yolo_export
from xingzi.datasets.samples import SampleStore
from xingzi.datasets.yolo import read_labels
from xingzi.engine.tiles import CLASS_NAMES
from xingzi.vision.detections import Detections

W, H = 120, 80
# What the fake detector sees in every photo: a 1m and a 中, given in fractions of the image.
FAKE = np.array([[0, 0.1, 0.2, 0.3, 0.6], [27, 0.5, 0.25, 0.9, 0.75]])
EXPECTED = np.array([[0, 0.2, 0.4, 0.2, 0.4], [27, 0.7, 0.5, 0.4, 0.5]])


class FakeDetector:
    """Stands in for the tile detector: records the image sizes it was shown."""

    def __init__(self, fail_after: int | None = None):
        self.seen: list[tuple[int, int]] = []
        self.fail_after = fail_after

    def __call__(self, image: np.ndarray) -> Detections:
        if self.fail_after is not None and len(self.seen) >= self.fail_after:
            raise KeyboardInterrupt  # the user pressed Ctrl-C
        h, w = image.shape[:2]
        self.seen.append((w, h))
        xyxy = (FAKE[:, 1:] * [w, h, w, h]).astype(np.float32)
        return Detections(xyxy, FAKE[:, 0].astype(np.int64), np.full(2, 0.9, np.float32))


def make_photos(folder: Path, names: list[str], size=(W, H)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / n).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", size, (200, 180, 160)).save(folder / n)
    return folder


def test_prelabel_writes_dataset_and_labelstudio_files(tmp_path):
    photos = make_photos(tmp_path / "photos", ["a.jpg", "b.png", "sub/a.jpg"])
    fake = FakeDetector()
    report = prelabel_folder(photos, tmp_path / "ds", fake, show_progress=False)
    ds = tmp_path / "ds"
    assert (report.photos, report.predicted, report.kept, report.failed) == (3, 3, 0, ())
    assert sorted(p.name for p in (ds / "labels").iterdir()) == ["a.txt", "b.txt", "sub__a.txt"]
    for stem in ("a", "b", "sub__a"):
        np.testing.assert_allclose(read_labels(ds / "labels" / f"{stem}.txt"), EXPECTED, atol=1e-6)
    assert (ds / "images" / "sub__a.jpg").exists() and "nc: 31" in (ds / "data.yaml").read_text()
    tasks = json.loads((ds / TASKS_FILE).read_text())
    assert len(tasks) == 3 and "<RectangleLabels" in (ds / CONFIG_FILE).read_text()
    labels = [[r["value"]["rectanglelabels"][0] for r in t["predictions"][0]["result"]] for t in tasks]
    assert labels == [["1m", "zhong"]] * 3


@pytest.mark.parametrize("foreign, kept", [
    pytest.param([0.9, 0.1], [27], id="a-flower-read-as-1m-left-out"),
    pytest.param([0.5, 0.2], [0, 27], id="as-likely-a-face-kept"),
    pytest.param(None, [0, 27], id="no-classifier-every-box"),
])
def test_a_tile_of_no_xingzi_face_is_not_pre_labelled_as_a_face(tmp_path, foreign, kept):
    """A flower the classifier sees as no Xingzi tile is drawn 非星子牌 and left out by the page and `score --labels`;
    pre-labelled as the face it looks most like, it would teach that face. The report says how many were left out
    and that `xingzi eval` on the set counts a tile read there as a false positive (unsaid before)."""
    class WithFlowers(FakeDetector):
        def __call__(self, image: np.ndarray) -> Detections:
            d = super().__call__(image)
            return Detections(d.xyxy, d.cls, d.conf, foreign=None if foreign is None else np.array(foreign, np.float32))

    photos = make_photos(tmp_path / "photos", ["a.jpg"])
    report = prelabel_folder(photos, tmp_path / "ds", WithFlowers(), show_progress=False)
    assert read_labels(tmp_path / "ds" / "labels" / "a.txt")[:, 0].tolist() == kept
    said = report.summary()
    assert ("left out 1 boxes read as tiles of no Xingzi face" in said) == (len(kept) == 1)
    assert ("counts a tile read on one of those 1 boxes as a false positive" in said) == (len(kept) == 1)


def test_an_iphones_heic_is_pre_labelled_and_kept_as_a_jpeg(tmp_path):
    from pillow_heif import register_heif_opener

    register_heif_opener()
    photos = make_photos(tmp_path / "photos", ["IMG_0001.HEIC", "IMG_0002.jpg"])
    report = prelabel_folder(photos, tmp_path / "ds", FakeDetector(), show_progress=False)
    ds = tmp_path / "ds"
    assert (report.photos, report.predicted) == (2, 2)
    assert sorted(p.name for p in (ds / "images").iterdir()) == ["IMG_0001.jpg", "IMG_0002.jpg"]
    with Image.open(ds / "images" / "IMG_0001.jpg") as im:
        assert (im.format, im.size) == ("JPEG", (W, H))
    np.testing.assert_allclose(read_labels(ds / "labels" / "IMG_0001.txt"), EXPECTED, atol=1e-6)


def test_corrected_labels_win_and_overwrite_keeps_a_backup(tmp_path):
    photos = make_photos(tmp_path / "photos", ["a.jpg", "b.jpg", "c.jpg"])
    ds = tmp_path / "ds"
    prelabel_folder(photos, ds, FakeDetector(), show_progress=False)
    corrected = "5 0.500000 0.500000 0.200000 0.200000\n"
    (ds / "labels" / "a.txt").write_text(corrected)
    again = FakeDetector()
    report = prelabel_folder(photos, ds, again, show_progress=False)
    assert (report.predicted, report.kept, again.seen) == (0, 3, [])
    assert (ds / "labels" / "a.txt").read_text() == corrected
    forced = prelabel_folder(photos, ds, FakeDetector(), overwrite=True, show_progress=False)
    assert (forced.predicted, forced.replaced) == (3, 1)  # b.txt and c.txt were already the same
    [backup] = (ds / "labels_backup").iterdir()
    assert backup.name.startswith("a.") and backup.read_text() == corrected
    np.testing.assert_allclose(read_labels(ds / "labels" / "a.txt"), EXPECTED, atol=1e-6)


@pytest.mark.parametrize(("again", "said"), [
    pytest.param(None, "3 new, 0 replaced (backups in labels_backup/), 0 unchanged), 0 existing labels kept, 0 failed",
                 id="a-first-run"),
    pytest.param([], "0 new, 0 replaced (backups in labels_backup/), 0 unchanged), 3 existing labels kept, 0 failed",
                 id="again-keeping-them"),
    pytest.param(["--overwrite"], "0 new, 1 replaced (backups in labels_backup/), 2 unchanged), 0 existing labels "
                 "kept, 0 failed", id="again-overwriting-one-corrected"),  # the two unchanged were counted nowhere
])
def test_the_summary_counts_every_photo_once(tmp_path, again, said):
    photos = make_photos(tmp_path / "photos", ["a.jpg", "b.jpg", "c.jpg"])
    ds = tmp_path / "ds"
    report = prelabel_folder(photos, ds, FakeDetector(), show_progress=False)
    if again is not None:
        (ds / "labels" / "a.txt").write_text("5 0.500000 0.500000 0.200000 0.200000\n")
        report = prelabel_folder(photos, ds, FakeDetector(), overwrite=bool(again), show_progress=False)
    assert said in report.summary()


def test_interrupted_run_resumes(tmp_path):
    photos = make_photos(tmp_path / "photos", [f"p{i}.jpg" for i in range(5)])
    ds = tmp_path / "ds"
    with pytest.raises(KeyboardInterrupt):
        prelabel_folder(photos, ds, FakeDetector(fail_after=2), show_progress=False)
    assert sorted(p.name for p in (ds / "labels").iterdir()) == ["p0.txt", "p1.txt"]
    assert not [p for p in ds.rglob("*.tmp")]
    rest = FakeDetector()
    report = prelabel_folder(photos, ds, rest, show_progress=False)
    assert (report.predicted, report.kept, len(rest.seen)) == (3, 2, 3)
    assert len(list((ds / "labels").iterdir())) == 5


def test_corrupt_photo_is_reported_and_skipped(tmp_path, capsys):
    photos = make_photos(tmp_path / "photos", ["a.jpg", "c.jpg"])
    (photos / "b.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    (photos / "d.jpg").write_bytes((photos / "c.jpg").read_bytes()[:20])  # cut inside its header
    report = prelabel_folder(photos, tmp_path / "ds", FakeDetector(), show_progress=True)
    assert [Path(p).name for p, _ in report.failed] == ["b.jpg", "d.jpg"]
    assert all("not a readable image" in why for _, why in report.failed)
    assert sorted(p.name for p in (tmp_path / "ds" / "labels").iterdir()) == ["a.txt", "c.txt"]
    assert not (tmp_path / "ds" / "images" / "b.jpg").exists()
    assert "4/4" in capsys.readouterr().err  # tqdm bar or the plain counter
    assert "skipped" in report.summary() and "b.jpg" in report.summary()


@pytest.mark.parametrize("orientation, seen", [
    pytest.param(None, (W, H), id="upright"),
    pytest.param(6, (H, W), id="turned-by-exif"),  # stored upright as it was labelled
])
def test_a_jpeg_cut_short_is_labelled_as_it_decodes_as_eval_scores_it(tmp_path, orientation, seen):
    """It was skipped as "not a readable image" where `dataset check` warns and `xingzi eval` scores it."""
    photos = tmp_path / "photos"
    photos.mkdir()
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    noise = np.random.default_rng(0).integers(0, 256, (H, W, 3), np.uint8)
    Image.fromarray(noise).save(photos / "cut.jpg", exif=exif.tobytes())
    whole = (photos / "cut.jpg").read_bytes()
    (photos / "cut.jpg").write_bytes(whole[: len(whole) // 2])  # its header whole, its lower half lost
    fake = FakeDetector()
    report = prelabel_folder(photos, tmp_path / "ds", fake, show_progress=False)
    assert (report.predicted, report.failed, fake.seen) == (1, (), [seen])
    assert "note: 1 JPEG(s) cut short, labelled as they decode" in report.summary()
    with Image.open(tmp_path / "ds" / "images" / "cut.jpg") as im:
        assert im.size == seen


def bomb(photos: Path, monkeypatch) -> None:
    """A photo of more pixels than PIL agrees to decode (made small by lowering PIL's limit)."""
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", W * H)  # past twice the limit PIL refuses outright
    make_photos(photos, ["x.jpg"], size=(3 * W, 3 * H))


@pytest.mark.parametrize("make", [
    pytest.param(bomb, id="decompression-bomb"),
    pytest.param(lambda photos, _: (photos / "x.jpg").write_bytes(b""), id="empty-file"),
    pytest.param(lambda photos, _: (photos / "x.jpg").mkdir(), id="a-folder-named-like-a-photo"),
])
def test_a_photo_that_cannot_be_read_is_skipped(tmp_path, monkeypatch, make):
    photos = make_photos(tmp_path / "photos", ["a.jpg"])
    make(photos, monkeypatch)
    report = prelabel_folder(photos, tmp_path / "ds", FakeDetector(), show_progress=False)
    assert [(Path(p).name, "not a readable image" in why) for p, why in report.failed] == [("x.jpg", True)]
    assert sorted(p.name for p in (tmp_path / "ds" / "labels").iterdir()) == ["a.txt"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def labelled_then(tmp_path: Path, change) -> Path:
    """``photos/x.jpg`` pre-labelled into ``ds``, then ``change(photos, ds)`` made."""
    photos = make_photos(tmp_path / "photos", ["x.jpg"])
    prelabel_folder(photos, tmp_path / "ds", FakeDetector(), show_progress=False)
    change(photos, tmp_path / "ds")
    return photos


def another_photo(path: Path) -> None:
    Image.new("RGB", (W, H), "blue").save(path)


@pytest.mark.parametrize(("setup", "message"), [
    pytest.param(lambda t: make_photos(t / "photos", ["x.jpg", "x.png"]), "share the label file labels/x.txt",
                 id="same-name-two-suffixes"),
    pytest.param(lambda t: make_photos(t / "photos", ["sub/a.jpg", "sub__a.jpg"]),
                 "share the label file labels/sub__a.txt", id="sub-folder-and-its-flat-name"),
    pytest.param(lambda t: labelled_then(t, lambda p, ds: ((p / "x.jpg").unlink(), another_photo(p / "x.png"))),
                 "share the label file labels/x.txt", id="another-photo-of-the-name-already-in-the-dataset"),
    pytest.param(lambda t: labelled_then(t, lambda p, ds: ((ds / "labels" / "x.txt").unlink(),
                                                           another_photo(p / "x.jpg"))),
                 "already exists and differs", id="photo-changed-since-it-was-copied"),
])
def test_photos_that_would_get_anothers_boxes_are_refused(tmp_path, setup, message):
    photos = setup(tmp_path)
    before = snapshot(tmp_path)
    fake = FakeDetector()
    with pytest.raises(ValueError, match=message):
        prelabel_folder(photos, tmp_path / "ds", fake, show_progress=False)
    assert snapshot(tmp_path) == before and fake.seen == []


@pytest.mark.parametrize("write", [
    pytest.param(lambda photos, export, ds: prelabel_folder(photos, ds, FakeDetector(), show_progress=False),
                 id="label"),
    pytest.param(lambda photos, export, ds: SampleStore(ds), id="samples-from-the-page-or-score-labels"),
    pytest.param(lambda photos, export, ds: import_yolo_export(export, ds), id="import-yolo"),
])
def test_a_folder_numbered_after_other_classes_gets_none_of_ours(tmp_path, write):
    ds = shared_style_folder(tmp_path / "data")  # a data.yaml of ours there would make its `other` a `back`
    photos = make_photos(tmp_path / "photos", ["x.jpg"])
    export = write_yolo_folder(tmp_path / "export", list(CLASS_NAMES), {"y": [(0, 0.5, 0.5, 0.1, 0.1)]})
    before = snapshot(tmp_path)
    with pytest.raises(ValueError, match="holds labels of other classes than ours"):
        write(photos, export, ds)
    assert snapshot(tmp_path) == before


def test_a_new_folder_beside_other_classes_is_ours(tmp_path):
    (tmp_path / "classes.txt").write_text("East\nSouth\n")
    prelabel_folder(make_photos(tmp_path / "photos", ["x.jpg"]), tmp_path / "new", FakeDetector(), show_progress=False)
    assert read_class_names(tmp_path / "new") == CLASS_NAMES


def test_only_corrupt_photos_still_finish(tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "x.jpg").write_text("not an image")
    report = prelabel_folder(photos, tmp_path / "ds", FakeDetector(), show_progress=False)
    assert (report.predicted, len(report.failed)) == (0, 1)
    assert json.loads((tmp_path / "ds" / TASKS_FILE).read_text()) == []


def test_exif_rotated_photo_is_stored_upright(tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    exif = Image.Exif()
    exif[0x0112] = 6  # the phone was held sideways: viewers turn it 90°
    Image.new("RGB", (W, H), "white").save(photos / "r.jpg", exif=exif.tobytes())
    fake = FakeDetector()
    prelabel_folder(photos, tmp_path / "ds", fake, show_progress=False)
    assert fake.seen == [(H, W)]
    with Image.open(tmp_path / "ds" / "images" / "r.jpg") as im:
        assert im.size == (H, W) and im.getexif().get(0x0112, 1) == 1
    task = json.loads((tmp_path / "ds" / TASKS_FILE).read_text())[0]
    assert task["predictions"][0]["result"][0]["original_width"] == H


@pytest.mark.parametrize("orientation, stored_size", [pytest.param(None, (W, H), id="upright"),
                                                       pytest.param(6, (H, W), id="exif-rotated")])
def test_a_kept_label_gets_its_photo_back_when_the_dataset_lost_it(tmp_path, orientation, stored_size):
    photos = tmp_path / "photos"
    photos.mkdir()
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    Image.new("RGB", (W, H), "white").save(photos / "r.jpg", exif=exif.tobytes())
    ds = tmp_path / "ds"
    prelabel_folder(photos, ds, FakeDetector(), show_progress=False)
    labels = (ds / "labels" / "r.txt").read_text()
    (ds / "images" / "r.jpg").unlink()
    again = FakeDetector()
    report = prelabel_folder(photos, ds, again, show_progress=False)
    assert (report.kept, report.predicted, again.seen) == (1, 0, [])
    assert (ds / "labels" / "r.txt").read_text() == labels
    with Image.open(ds / "images" / "r.jpg") as im:
        assert im.size == stored_size and im.getexif().get(0x0112, 1) == 1
    if orientation is None:  # an upright photo is copied as it is, not encoded again
        assert (ds / "images" / "r.jpg").read_bytes() == (photos / "r.jpg").read_bytes()


def test_without_tqdm_progress_counts_from_one_to_the_last_photo(capsys):
    from xingzi.datasets.label import _plain_progress

    assert list(_plain_progress(["a", "b", "c"], "pre-labelling")) == ["a", "b", "c"]
    err = capsys.readouterr().err
    assert err == "\rpre-labelling: 1/3 photos\rpre-labelling: 2/3 photos\rpre-labelling: 3/3 photos\n"


def test_photos_inside_the_output_are_not_labelled_again(tmp_path):
    photos = make_photos(tmp_path / "p", ["a.jpg"])
    report = prelabel_folder(photos, photos / "ds", FakeDetector(), show_progress=False)
    again = prelabel_folder(photos, photos / "ds", FakeDetector(), show_progress=False)
    assert (report.photos, again.photos, again.kept) == (1, 1, 1)


def test_detections_are_clipped():  # (a class past 30 is refused by Detections itself: tests/vision/test_detections.py)
    dets = Detections(np.array([[-5, 10, 50, 90], [10, 10, 10, 20]], np.float32), np.array([3, 4]),
                      np.ones(2, np.float32))
    rows = [line.split() for line in detections_to_label_text(dets, 100, 80).splitlines()]
    assert rows == [["3", "0.250000", "0.562500", "0.500000", "0.875000"]]  # the empty box is dropped


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(["label", "--out", "X"], "exactly one of", id="nothing-to-do"),
    pytest.param(["label", "P", "--import-labelstudio", "e.json", "--out", "X"], "exactly one of", id="two-things"),
    pytest.param(["label", "--import-labelstudio", "missing.json", "--out", "X"], "missing.json", id="missing-export"),
])
def test_cli_bad_use_is_a_clear_error(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_empty_or_missing_photo_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no photos"):
        prelabel_folder(tmp_path / "empty", tmp_path / "ds", FakeDetector())
    with pytest.raises(FileNotFoundError, match="photo folder not found"):
        prelabel_folder(tmp_path / "nope", tmp_path / "ds", FakeDetector())
    photos = make_photos(tmp_path / "photos", ["a.jpg"])
    with pytest.raises(ValueError, match="a.jpg is a photo: give the folder it is in"):
        prelabel_folder(photos / "a.jpg", tmp_path / "ds", FakeDetector())
    prelabel_folder(photos, tmp_path / "ds", FakeDetector(), show_progress=False)
    with pytest.raises(ValueError, match=r"\(1 under it are the dataset .*ds's own: put new photos outside it\)"):
        prelabel_folder(tmp_path / "ds", tmp_path / "ds", FakeDetector())


@pytest.mark.parametrize("broken,code", [(False, 0), (True, 1)], ids=["all-read", "one-photo-unreadable"])
def test_the_label_command_exits_1_when_a_photo_was_skipped(tmp_path, monkeypatch, capsys, broken, code):
    import xingzi.datasets.label as label

    photos = make_photos(tmp_path / "photos", ["a.jpg"])
    if broken:
        (photos / "b.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a jpeg")
    monkeypatch.setattr(label, "detector_predictor", lambda *args: FakeDetector())  # no network in this test
    assert main(["label", str(photos), "--out", str(tmp_path / "ds"), "--no-progress"]) == code
    assert ("b.jpg" in capsys.readouterr().out) is broken
    assert (tmp_path / "ds" / "labels" / "a.txt").exists()


@pytest.mark.parametrize("flags,message", [
    pytest.param(["--conf", "3"], "--conf must be a confidence from 0 to 1, got 3", id="conf-over-one"),
    pytest.param(["--conf", "nan"], "--conf must be a confidence from 0 to 1, got nan", id="conf-nan"),
    pytest.param(["--imgsz", "33"], "--imgsz must be a multiple of 32 from 32 to 4096, got 33", id="imgsz-off-stride"),
])
def test_the_label_command_names_the_option_out_of_range_before_any_work(tmp_path, monkeypatch, capsys, flags,
                                                                         message):
    import xingzi.datasets.label as label

    photos = make_photos(tmp_path / "photos", ["a.jpg"])
    monkeypatch.setattr(label, "detector_predictor", lambda *args: pytest.fail("no detector for a refused option"))
    assert main(["label", str(photos), "--out", str(tmp_path / "ds"), "--no-progress", *flags]) == 2
    assert f"xingzi label: error: {message}" in capsys.readouterr().err and not (tmp_path / "ds").exists()


def test_a_sample_store_knows_a_photo_by_its_bytes_not_its_size_or_name(tmp_path):
    store = SampleStore(tmp_path / "set")
    first, same_size = b"\xff\xd8first photo\xff\xd9", b"\xff\xd8other photo\xff\xd9"
    assert len(first) == len(same_size)
    (tmp_path / "set" / "images").mkdir(parents=True)
    (tmp_path / "set" / "images" / "image_2.png").write_bytes(same_size)  # that name taken by a file of no sample
    assert store.save("image", first, "").name == "image"
    assert (store.save("image", same_size, "").name, store.save("image", first, "0 0.5 0.5 0.1 0.1\n").replaced) == (
        "image_3", True)  # the same size is another photo; the same bytes are the first one again
    assert store.save("image", same_size, "").replaced and store.count() == 2
    assert (tmp_path / "set" / "labels" / "image.txt").read_text() == "0 0.5 0.5 0.1 0.1\n"


def test_a_sample_store_knows_a_photo_saved_again_under_another_name(tmp_path):
    """A phone names one photo IMG_0001.jpg, then image.jpg: the second save replaces the first's labels, under the
    first's name, instead of a second sample of one photo with other boxes (which merge then refuses)."""
    store = SampleStore(tmp_path / "set")
    photo = b"\xff\xd8one photo\xff\xd9"
    assert store.save("IMG_0001", photo, "0 0.5 0.5 0.1 0.1\n").replaced is False
    again = store.save("image", photo, "1 0.5 0.5 0.1 0.1\n", {"expect": None})
    assert (again.name, again.replaced, again.photos) == ("IMG_0001", True, 1)
    assert (tmp_path / "set" / "labels" / "IMG_0001.txt").read_text() == "1 0.5 0.5 0.1 0.1\n"
    assert sorted(p.relative_to(tmp_path / "set").as_posix() for p in (tmp_path / "set").rglob("*.*")
                  if p.parent.name not in ("set", "labels_backup")) == [
        "images/IMG_0001.jpg", "labels/IMG_0001.txt", "meta/IMG_0001.json"]
    assert Path(again.backup).read_text() == "0 0.5 0.5 0.1 0.1\n"  # the labels replaced



def test_a_sixteen_bit_grey_photo_is_shown_to_the_model_as_its_grey_not_white(tmp_path):
    """Pillow's own conversion clips 16-bit values past 255, which turned such a PNG white (and its labels empty)."""
    photos = tmp_path / "photos"
    photos.mkdir()
    grey = np.tile(np.linspace(0, 65535, W, dtype=np.uint16), (H, 1))
    Image.fromarray(grey).save(photos / "deep.png")  # (a uint16 array is mode I;16)
    shown: list[float] = []
    prelabel_folder(photos, tmp_path / "ds", lambda image: (shown.append(float(image.mean())), FakeDetector()(image))[1],
                    show_progress=False)
    assert shown and 100 < shown[0] < 155  # a ramp from black to white, as the page and `xingzi score` see it


@pytest.mark.parametrize(("yaml_lines", "refused"), [
    pytest.param("train: images/train\nval: images/val\n", True, id="split-into-subfolders"),
    pytest.param("train: train.txt\nval: val.txt\n", True, id="split-in-place"),
    pytest.param("train: images\nval: images\n", False, id="one-of-samples"),
])
def test_samples_go_only_where_the_datasets_yaml_trains(tmp_path, yaml_lines, refused):
    """A sample is put in images/: into a split dataset it was said "added" and never trained on (session 70)."""
    folder = tmp_path / "set"
    folder.mkdir()
    names = "[" + ", ".join(CLASS_NAMES) + "]"
    (folder / "data.yaml").write_text(f"path: {folder}\n{yaml_lines}names: {names}\n")
    if refused:
        with pytest.raises(ValueError, match=r"reads its photos elsewhere \(train: .+\) than images/"):
            SampleStore(folder)
    else:
        assert SampleStore(folder).save("a", b"\xff\xd8a\xff\xd9", "").replaced is False


@pytest.mark.parametrize("overwrite", [False, True], ids=["keeping-labels", "overwrite"])
@pytest.mark.parametrize("orientation", [None, 6], ids=["copied-as-it-is", "stored-upright"])
def test_another_photo_under_a_name_already_labelled_is_refused_not_kept(tmp_path, overwrite, orientation):
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    first, second = tmp_path / "p1", tmp_path / "p2"
    for folder, colour in ((first, "white"), (second, "blue")):
        folder.mkdir()
        Image.new("RGB", (W, H), colour).save(folder / "a.jpg", exif=exif.tobytes())
    ds = tmp_path / "ds"
    prelabel_folder(first, ds, FakeDetector(), show_progress=False)
    again = prelabel_folder(first, ds, FakeDetector(), overwrite=overwrite, show_progress=False)
    assert (again.kept, again.predicted) == ((0, 1) if overwrite else (1, 0))  # the same photo again: no refusal
    before = snapshot(tmp_path)
    fake = FakeDetector()
    with pytest.raises(ValueError, match=r"ds/images/a.jpg already exists and differs from .*p2/a.jpg, another photo "
                                         "of that name"):
        prelabel_folder(second, ds, fake, overwrite=overwrite, show_progress=False)
    assert snapshot(tmp_path) == before and fake.seen == []


@pytest.mark.parametrize("where", ["photos", "dataset"])
def test_a_photo_name_whose_bytes_are_not_utf8_is_refused_before_anything_is_written(tmp_path, monkeypatch, capsys,
                                                                                     where):
    import xingzi.datasets.label as label

    photos = make_photos(tmp_path / "photos", ["a.jpg"])
    ds = tmp_path / "ds"
    odd = os.fsdecode(os.fsencode(photos if where == "photos" else ds / "images") + b"/x\xff.jpg")
    if where == "dataset":  # a dataset made otherwise: its tasks file lists it too
        make_photos(ds / "images", ["b.jpg"])
    Image.new("RGB", (W, H), "white").save(odd, format="JPEG")
    before = snapshot(tmp_path)
    monkeypatch.setattr(label, "detector_predictor", lambda *args: FakeDetector())
    assert main(["label", str(photos), "--out", str(ds), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "x\\xff.jpg: a file name whose bytes are not UTF-8 cannot be listed in the Label Studio tasks" in err
    assert snapshot(tmp_path) == before


def test_a_photo_stored_upright_that_cannot_be_written_leaves_no_part_behind(tmp_path, monkeypatch):
    import errno

    from PIL import Image

    from xingzi.datasets.label import store_photo

    src = tmp_path / "turned.jpg"
    photo = Image.new("RGB", (40, 20), (200, 10, 10))
    exif = photo.getexif()
    exif[0x0112] = 6
    photo.save(src, exif=exif.tobytes())

    def disk_full(self, fp, *args, **kwargs):  # half the file written, then the disk is full
        Path(fp).write_bytes(b"\xff\xd8 half a JPEG")
        raise OSError(errno.ENOSPC, "No space left on device", str(fp))

    monkeypatch.setattr(Image.Image, "save", disk_full)
    out = tmp_path / "set" / "images"
    with pytest.raises(OSError, match="No space left"):
        store_photo(src, out / "turned.jpg", rotated=True, link=False)
    assert list(out.iterdir()) == []
