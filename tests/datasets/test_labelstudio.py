"""Label Studio round trip and YOLO exports of other tools as input."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from xingzi.cli import main
from xingzi.datasets import photo_match
from xingzi.datasets.labelstudio import (
    CONFIG_FILE,
    TASKS_FILE,
    import_labelstudio,
    import_yolo_export,
    labeling_config_xml,
    oriented_size,
    task_for,
    write_labelstudio_files,
)
from xingzi.datasets.yolo import read_labels
from xingzi.engine.tiles import CLASS_NAMES

W, H = 200, 100
ROWS = np.array([[0, 0.25, 0.5, 0.1, 0.4], [27, 0.7, 0.3, 0.2, 0.2]])


def make_dataset(root: Path, stems: dict[str, np.ndarray | None]) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for stem, rows in stems.items():
        Image.new("RGB", (W, H), "white").save(root / "images" / f"{stem}.jpg")
        if rows is not None:
            (root / "labels" / f"{stem}.txt").write_text(
                "".join(f"{int(r[0])} {r[1]} {r[2]} {r[3]} {r[4]}\n" for r in rows))
    return root


def as_export(tasks: list[dict], updated_at: str = "2026-01-01T00:00:00Z") -> list[dict]:
    """What Label Studio exports when the annotator accepted the predictions as they were."""
    return [{"id": i, "data": t["data"], "annotations": [
        {"id": 1, "result": t["predictions"][0]["result"], "was_cancelled": False, "updated_at": updated_at}]}
        for i, t in enumerate(tasks, 1)]


def rect(x, y, w, h, name, rotation=0):
    return {"type": "rectanglelabels", "from_name": "label", "to_name": "image", "original_width": W,
            "original_height": H, "value": {"x": x, "y": y, "width": w, "height": h, "rotation": rotation,
                                           "rectanglelabels": [name]}}


def test_config_names_all_classes():
    root = ET.fromstring(labeling_config_xml())
    labels = [e.get("value") for e in root.iter("Label")]
    assert labels == list(CLASS_NAMES)
    assert root.find("RectangleLabels").get("toName") == root.find("Image").get("name")


@pytest.mark.parametrize("orientation", range(1, 9))
def test_the_size_is_the_one_viewers_show(tmp_path, orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation  # 5..8: turned a quarter (8 ways of holding a phone, mirrored ones included)
    Image.new("RGB", (W, H)).save(tmp_path / "p.jpg", exif=exif.tobytes())
    assert oriented_size(tmp_path / "p.jpg") == ((H, W) if orientation >= 5 else (W, H))


def test_task_is_in_percent_from_top_left():
    task = task_for("img.jpg", W, H, ROWS)
    first = task["predictions"][0]["result"][0]
    assert first["value"]["rectanglelabels"] == ["1m"]
    assert [round(first["value"][k], 6) for k in ("x", "y", "width", "height")] == [20.0, 30.0, 10.0, 40.0]
    assert (first["original_width"], first["original_height"]) == (W, H)
    assert task["predictions"][0]["result"][1]["value"]["rectanglelabels"] == ["zhong"]


def test_round_trip_keeps_labels(tmp_path):
    d = make_dataset(tmp_path / "d", {"a": ROWS, "b": ROWS[:1]})
    tasks_path = write_labelstudio_files(d)
    tasks = json.loads(tasks_path.read_text())
    assert tasks[0]["data"]["image"] == "/data/local-files/?d=d/images/a.jpg"
    assert (d / CONFIG_FILE).exists()
    export = tmp_path / "export.json"
    export.write_text(json.dumps(as_export(tasks)))
    report = import_labelstudio(export, d)
    assert (report.new, report.replaced, report.not_annotated) == (0, 0, 0)
    np.testing.assert_allclose(read_labels(d / "labels" / "a.txt"), ROWS, atol=1e-6)
    assert not (d / "labels_backup").exists()


def test_correction_replaces_with_backup_and_unannotated_tasks_keep_prelabels(tmp_path):
    d = make_dataset(tmp_path / "d", {"a": ROWS, "b": ROWS, "c": None})
    old_b = (d / "labels" / "b.txt").read_text()
    export = [
        {"data": {"image": "/data/local-files/?d=d/images/a.jpg"}, "annotations": []},
        {"data": {"image": "/data/upload/4/3f2a9c01-b.jpg"}, "annotations": [
            {"result": [rect(0, 0, 50, 50, "中")], "was_cancelled": False, "updated_at": "2026-01-02T00:00:00Z"},
            {"result": [rect(50, 50, 50, 50, "1m")], "was_cancelled": False, "updated_at": "2026-01-01T00:00:00Z"},
            {"result": [], "was_cancelled": True, "updated_at": "2026-01-03T00:00:00Z"}]},
        {"data": {"image": "c.jpg"}, "annotations": [{"result": [], "was_cancelled": False}]},
    ]
    (tmp_path / "e.json").write_text(json.dumps(export))
    report = import_labelstudio(tmp_path / "e.json", d)
    assert (report.new, report.replaced, report.unchanged, report.not_annotated) == (1, 1, 0, 1)
    np.testing.assert_allclose(read_labels(d / "labels" / "b.txt"), [[27, 0.25, 0.25, 0.5, 0.5]])
    np.testing.assert_allclose(read_labels(d / "labels" / "a.txt"), ROWS)
    assert (d / "labels" / "c.txt").read_text() == ""
    backups = list((d / "labels_backup").iterdir())
    assert len(backups) == 1 and backups[0].name.startswith("b.") and backups[0].read_text() == old_b


def test_rotated_box_becomes_its_bounding_rectangle(tmp_path):
    d = make_dataset(tmp_path / "d", {"a": None})
    # 20x10 px box at (100, 20) turned 90° clockwise about its top-left corner: x 90..100, y 20..40
    export = [{"data": {"image": "a.jpg"}, "annotations": [{"result": [rect(50, 20, 10, 10, "5p", rotation=90)]}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    import_labelstudio(tmp_path / "e.json", d)
    np.testing.assert_allclose(read_labels(d / "labels" / "a.txt"), [[13, 0.475, 0.3, 0.05, 0.2]], atol=1e-6)


@pytest.mark.parametrize("key", [
    pytest.param("rectanglelabels", id="rectangle-labels"),
    pytest.param("labels", id="a-labels-control-beside-the-rectangle"),  # <Labels> + <Rectangle> in the config
])
def test_json_min_export(tmp_path, key):
    d = make_dataset(tmp_path / "d", {"a": None})
    export = [{"image": "/data/local-files/?d=d%2Fimages%2Fa.jpg", "id": 3,
               "label": [{"x": 10, "y": 20, "width": 30, "height": 40, "rotation": 0, key: ["back"],
                          "original_width": W, "original_height": H}]}]
    (tmp_path / "e.json").write_text(json.dumps(export))
    import_labelstudio(tmp_path / "e.json", d)
    np.testing.assert_allclose(read_labels(d / "labels" / "a.txt"), [[30, 0.25, 0.4, 0.3, 0.4]])


def box(**changes) -> dict:
    """A region of the export with ``changes`` to its value (or to its image size)."""
    r = rect(10, 10, 20, 20, "1m")
    for key, value in changes.items():
        (r if key.startswith("original_") else r["value"])[key] = value
    return r


def after_a_good_task(region: dict, image: str = "a.jpg") -> list[dict]:
    """An export whose second task has ``region``: the first one, good, must not be written either."""
    return [{"data": {"image": "b.jpg"}, "annotations": [{"result": [rect(10, 10, 5, 5, "2m")]}]},
            {"data": {"image": image}, "annotations": [{"result": [region]}]}]


def with_ids(tasks: list[dict], *ids) -> list[dict]:
    return [{"id": i, **t} for i, t in zip(ids, tasks, strict=True)]


@pytest.mark.parametrize(("export", "message"), [
    pytest.param({"not": "a list"}, "expected a JSON list", id="not-a-list"),
    pytest.param([{"data": {}}], "no image reference", id="no-image"),
    pytest.param([{"data": {"image": "zzz.jpg"}, "annotations": []}], "not in", id="unknown-image"),
    pytest.param([{"data": {"image": "b.jpg"}, "annotations": [{"result": [rect(0, 0, 5, 5, "1m")]}]},
                  {"data": {"image": "a.jpg"}, "annotations": [{"result": [rect(0, 0, 5, 5, "East")]}]}],
                 "unknown class name 'East'", id="unknown-class-writes-nothing"),
    pytest.param([1, 2], "task 0 is not shaped like a Label Studio task", id="numbers-for-tasks"),
    pytest.param([{"data": 5}], "task 0 is not shaped like a Label Studio task", id="data-a-number"),
    pytest.param([{"data": {"image": 5}}], "task 0 has no image reference", id="image-a-number"),
    pytest.param([{"data": {"image": "a.jpg"}, "annotations": 5}], "task 0 is not shaped like a Label Studio task",
                 id="annotations-a-number"),
    pytest.param(after_a_good_task(box(x=float("nan"))), "finite number for x, got nan", id="x-nan"),
    pytest.param(after_a_good_task(box(width=float("inf"))), "finite number for width, got inf", id="width-infinite"),
    pytest.param(after_a_good_task(box(x=10**400)), "finite number for x", id="x-past-what-a-float-holds"),
    pytest.param(after_a_good_task(box(y="12")), "finite number for y, got '12'", id="y-text"),
    pytest.param(after_a_good_task(box(rotation=float("nan"))), "finite number for rotation", id="rotation-nan"),
    pytest.param(after_a_good_task(box(original_width=-W)), "positive image size", id="negative-image-width"),
    pytest.param(after_a_good_task(box(x=150)), "no area on the photo", id="box-right-of-the-photo"),
    pytest.param(after_a_good_task(box(width=0)), "no area on the photo", id="box-of-no-width"),
    pytest.param(after_a_good_task(rect(0, 0, 5, 5, "1m"), image="b.jpg"), "task 0 and task 1 label b.jpg differently",
                 id="one-image-annotated-in-two-tasks"),
    # Label Studio's own ids, not places in the list ("task 1 (a.jpg)" named the task Label Studio shows as 8)
    pytest.param(with_ids(after_a_good_task(box(y="12")), 7, 8), r"task 8 \(a.jpg\): box 0: expected a finite",
                 id="named-by-label-studio-id"),
    pytest.param(with_ids(after_a_good_task(rect(0, 0, 5, 5, "1m"), image="b.jpg"), 7, 9),
                 "task 7 and task 9 label b.jpg differently", id="two-tasks-by-their-ids"),
    pytest.param([{"id": True, "data": 5}], "task 0 is not shaped", id="an-id-that-is-no-id"),
])
def test_bad_exports_change_nothing(tmp_path, export, message):
    d = make_dataset(tmp_path / "d", {"a": ROWS, "b": ROWS})
    before = {p.name: p.read_text() for p in (d / "labels").iterdir()}
    (tmp_path / "e.json").write_text(json.dumps(export))
    with pytest.raises(ValueError, match=message):
        import_labelstudio(tmp_path / "e.json", d)
    assert {p.name: p.read_text() for p in (d / "labels").iterdir()} == before


@pytest.mark.parametrize(("encode", "message"), [
    pytest.param(lambda text: text.encode("utf-8-sig"), None, id="utf-8-with-a-bom"),
    pytest.param(lambda text: text.encode("utf-16"), None, id="utf-16"),
    pytest.param(lambda text: b"\x81\x82" + text.encode(), "e.json: not a Label Studio JSON export", id="not-unicode"),
])
def test_export_encodings(tmp_path, encode, message):
    d = make_dataset(tmp_path / "d", {"a": None})
    (tmp_path / "e.json").write_bytes(encode(json.dumps(after_a_good_task(rect(10, 10, 5, 5, "中"))[1:])))
    if message is None:
        import_labelstudio(tmp_path / "e.json", d)
        assert read_labels(d / "labels" / "a.txt")[:, 0].tolist() == [27]
    else:
        with pytest.raises(ValueError, match=message):
            import_labelstudio(tmp_path / "e.json", d)


def export_with(tmp_path: Path, images: list[str]) -> Path:
    """A YOLO export holding ``images`` (paths under it), each with its label file beside or in labels/."""
    src = tmp_path / "export"
    for i, rel in enumerate(images):
        image = src / rel
        image.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (W, H), ("red", "blue")[i]).save(image)
        label = image.parent.parent / "labels" / f"{image.stem}.txt" if image.parent.name == "images" \
            else image.with_suffix(".txt")
        label.parent.mkdir(parents=True, exist_ok=True)
        label.write_text(f"{i} 0.5 0.5 0.1 0.1\n")
    return src


@pytest.mark.parametrize("images", [
    pytest.param(["train/images/x.jpg", "valid/images/x.jpg"], id="same-name-in-two-splits"),
    pytest.param(["obj_train_data/x.jpg", "obj_train_data/x.png"], id="same-stem-two-suffixes"),
])
def test_yolo_import_refuses_two_images_on_one_label_file(tmp_path, images):
    with pytest.raises(ValueError, match="would share the label file x.txt"):
        import_yolo_export(export_with(tmp_path, images), tmp_path / "d")
    assert not (tmp_path / "d").exists()


def test_roboflow_yolo_export_mapped_by_name(tmp_path, capsys):
    src = tmp_path / "rf"
    for split in ("train", "valid"):
        (src / split / "images").mkdir(parents=True)
        (src / split / "labels").mkdir()
    (src / "data.yaml").write_text("train: ../train/images\nval: ../valid/images\nnc: 3\nnames: ['East', 'Red', '1m']\n")
    Image.new("RGB", (W, H)).save(src / "train" / "images" / "p_jpg.rf.1.jpg")
    (src / "train" / "labels" / "p_jpg.rf.1.txt").write_text("2 0.5 0.5 0.1 0.1\n0 0.2 0.2 0.1 0.1\n")
    Image.new("RGB", (W, H)).save(src / "valid" / "images" / "q.jpg")
    (src / "valid" / "labels" / "q.txt").write_text("1 0.5 0.5 0.1 0.1\n")
    report = import_yolo_export(src, tmp_path / "d")
    # 'Red' is not one of our spellings: dropped and reported, like the wind
    assert (report.new, report.dropped_boxes, report.unmapped_names) == (2, 2, ("East", "Red"))
    assert main(["label", "--import-yolo", str(src), "--out", str(tmp_path / "e"), "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "dropped 2 boxes of classes we do not have: East, Red" in said
    assert "counts a tile read on one of those 2 boxes as a false positive" in said  # unsaid before
    assert read_labels(tmp_path / "d" / "labels" / "p_jpg.rf.1.txt")[:, 0].tolist() == [0]
    assert (tmp_path / "d" / "images" / "q.jpg").exists() and (tmp_path / "d" / "data.yaml").exists()


def test_cvat_yolo_export_and_cli(tmp_path, capsys):
    src = tmp_path / "cvat"
    (src / "obj_train_data").mkdir(parents=True)
    (src / "obj.names").write_text("zhong\nfa\nbai\n")
    for stem, cls in (("h1", 1), ("h2", 2)):  # h1 comes back scaled and re-compressed: the same photo
        Image.new("RGB", (W // 2, H // 2), "white").save(src / "obj_train_data" / f"{stem}.jpg", quality=60)
        (src / "obj_train_data" / f"{stem}.txt").write_text(f"{cls} 0.5 0.5 0.1 0.1\n")
    d = make_dataset(tmp_path / "d", {"h1": ROWS})
    assert main(["label", "--import-yolo", str(src), "--out", str(d), "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "1 new, 1 replaced" in said and "dropped" not in said  # every class named in the export is ours
    assert [read_labels(d / "labels" / f"{s}.txt")[:, 0].tolist() for s in ("h1", "h2")] == [[28], [29]]
    [backup] = (d / "labels_backup").iterdir()
    np.testing.assert_allclose(read_labels(backup), ROWS)
    assert len(json.loads((d / TASKS_FILE).read_text())) == 2
    with Image.open(d / "images" / "h1.jpg") as kept:
        assert kept.size == (W, H)  # our original stays, its labels replaced


def test_yolo_import_of_a_folder_without_labelled_images_is_refused(tmp_path):
    (tmp_path / "export").mkdir()
    with pytest.raises(ValueError, match="no labelled images found"):
        import_yolo_export(tmp_path / "export", tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_yolo_import_refuses_a_name_clash(tmp_path):
    src = make_dataset(tmp_path / "src", {"h1": ROWS})
    d = tmp_path / "d"
    (d / "images").mkdir(parents=True)
    Image.new("RGB", (W, H)).save(d / "images" / "h1.png")
    with pytest.raises(ValueError, match="would share the label file"):
        import_yolo_export(src, d)


def test_cli_export_rewrites_tasks_from_current_labels(tmp_path, capsys):
    d = make_dataset(tmp_path / "d", {"a": ROWS, "b": None})
    assert main(["label", "--export-labelstudio", "--out", str(d), "--url-prefix", "http://h/"]) == 0
    tasks = json.loads((d / TASKS_FILE).read_text())
    assert [t["data"]["image"] for t in tasks] == ["http://h/images/a.jpg", "http://h/images/b.jpg"]
    assert len(tasks[0]["predictions"][0]["result"]) == 2
    assert "predictions" not in tasks[1]  # no label file yet: labelled from scratch
    assert main(["label", "--export-labelstudio", "--out", str(tmp_path / "none")]) == 2
    assert "no dataset at" in capsys.readouterr().err


boxes = st.lists(st.tuples(st.integers(0, 30), st.floats(0.05, 0.95), st.floats(0.05, 0.95),
                           st.floats(0.01, 0.1), st.floats(0.01, 0.1)), max_size=20)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=boxes)
def test_any_labels_survive_the_round_trip(tmp_path_factory, rows):
    d = make_dataset(tmp_path_factory.mktemp("rt"), {"a": None})
    rows_arr = np.array(rows, np.float64).reshape(-1, 5)
    task = task_for("a.jpg", W, H, rows_arr)
    export = tmp_path_factory.mktemp("e") / "e.json"
    export.write_text(json.dumps([{"data": task["data"], "annotations": [{"result": task["predictions"][0]["result"]}]}]))
    import_labelstudio(export, d)
    np.testing.assert_allclose(read_labels(d / "labels" / "a.txt"), rows_arr, atol=2e-6)


def scene(seed: int, size: tuple[int, int] = (W, H)) -> Image.Image:
    """A smooth picture of colours, as photos are at a thumbnail's scale; another seed, another picture."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (6, 12, 3), dtype=np.uint8)
    return Image.fromarray(small).resize(size, Image.Resampling.BICUBIC)


def test_yolo_import_refuses_another_photo_under_one_of_our_names(tmp_path, capsys):
    d = make_dataset(tmp_path / "d", {"h1": ROWS})
    scene(1).save(d / "images" / "h1.jpg")
    before = {p: p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}
    src = tmp_path / "cvat"
    (src / "obj_train_data").mkdir(parents=True)
    (src / "obj.names").write_text("zhong\nfa\nbai\n")
    for stem, seed in (("h0", 0), ("h1", 2)):  # h1: a different photo of the same name
        scene(seed).save(src / "obj_train_data" / f"{stem}.jpg")
        (src / "obj_train_data" / f"{stem}.txt").write_text("1 0.5 0.5 0.1 0.1\n")
    with pytest.raises(ValueError, match="another photo than .*h1.jpg of the same name"):
        import_yolo_export(src, d)
    assert main(["label", "--import-yolo", str(src), "--out", str(d), "--no-progress"]) == 2
    assert "another photo" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()} == before  # nothing written


@pytest.mark.parametrize("redo", [
    pytest.param(lambda im: im, id="re-compressed"),
    pytest.param(lambda im: im.resize((W // 2, H // 2)), id="halved"),
    pytest.param(lambda im: im.resize((64, 64)), id="stretched-square"),
])
def test_yolo_import_takes_labels_for_our_photo_come_back_altered(tmp_path, redo):
    d = make_dataset(tmp_path / "d", {"h1": ROWS})
    scene(1).save(d / "images" / "h1.jpg", quality=95)
    ours = (d / "images" / "h1.jpg").read_bytes()
    src = tmp_path / "rf"
    (src / "train" / "images").mkdir(parents=True)
    (src / "train" / "labels").mkdir()
    (src / "data.yaml").write_text("names: ['1m']\n")
    redo(scene(1)).save(src / "train" / "images" / "h1.jpg", quality=50)
    (src / "train" / "labels" / "h1.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    report = import_yolo_export(src, d)
    assert (report.new, report.replaced) == (0, 1)
    assert (d / "images" / "h1.jpg").read_bytes() == ours
    assert read_labels(d / "labels" / "h1.txt").tolist() == [[0, 0.5, 0.5, 0.1, 0.1]]


def test_photo_match_measure_prints_the_figures_its_threshold_rests_on(tmp_path, capsys):
    for seed in (1, 2, 3):
        scene(seed, (320, 240)).save(tmp_path / f"p{seed}.jpg", quality=95)
    assert photo_match.main([str(tmp_path), "--sample", "2"]) == 0
    out = dict(line.rsplit(None, 1) for line in capsys.readouterr().out.splitlines())
    assert out["photos"] == "3"
    assert float(out["different_photos_min"]) > photo_match.MAX_MEAN_DIFFERENCE
    assert max(float(v) for k, v in out.items() if k.startswith("re-encoded")) < photo_match.MAX_MEAN_DIFFERENCE
    for seed in (2, 3):
        (tmp_path / f"p{seed}.jpg").unlink()
    assert photo_match.main([str(tmp_path)]) == 2
    assert "expected at least two photos" in capsys.readouterr().err
