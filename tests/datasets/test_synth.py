"""The synthetic photo generator: labels agree with the drawn tiles and the ground-truth hand,
output is deterministic, every face style renders, bad arguments are refused clearly."""

from __future__ import annotations

import json
import re
import tracemalloc
from collections import Counter
from itertools import combinations
from pathlib import Path

import cv2
import numpy as np
import pytest
from group_gaps import overlaps_between_groups
from yolo_folder import shared_style_folder

from xingzi.cli import main as cli_main
from xingzi.datasets.synth import dataset as synth_dataset
from xingzi.datasets.synth.dataset import contact_sheet, generate_dataset, stem
from xingzi.datasets.synth.faces import brush_set, known_styles, procedural_set, style_names
from xingzi.datasets.synth.generate import check_styles, render_sample
from xingzi.datasets.yolo import data_yaml_text, read_labels, yolo_to_xyxy
from xingzi.engine.notation import parse_meld, parse_tiles
from xingzi.engine.tiles import BACK_CLASS, CLASS_NAMES, TILES, Tile

SEED, N, IMGSZ = 11, 10, 256


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("synth")
    list(generate_dataset(out, N, seed=SEED, imgsz=IMGSZ, workers=1))
    return out


def _load(dataset: Path, i: int):
    name = stem(SEED, i)
    img = cv2.imread(str(dataset / "images" / f"{name}.jpg"))
    labels = read_labels(dataset / "labels" / f"{name}.txt")
    meta = json.loads((dataset / "meta" / f"{name}.json").read_text())
    return img, labels, meta


@pytest.mark.parametrize("i", range(N))
def test_labels_lie_inside_the_image_and_are_the_meta_tiles(dataset, i):
    img, labels, meta = _load(dataset, i)
    h, w = img.shape[:2]
    assert [w, h] == meta["size"]
    assert len(labels) == len(meta["tiles"]) > 0
    assert np.all(labels[:, 1:] >= 0) and np.all(labels[:, 1:] <= 1)
    boxes = yolo_to_xyxy(labels[:, 1:], w, h)
    assert np.all(boxes[:, 2] > boxes[:, 0]) and np.all(boxes[:, 3] > boxes[:, 1])
    assert np.all(boxes >= -1e-3) and np.all(boxes[:, 2] <= w + 1e-3) and np.all(boxes[:, 3] <= h + 1e-3)
    meta_boxes = np.array([t["xyxy"] for t in meta["tiles"]])
    np.testing.assert_allclose(boxes, meta_boxes, atol=0.01)
    assert labels[:, 0].astype(int).tolist() == [t["cls"] for t in meta["tiles"]]
    for t in meta["tiles"]:
        assert (t["cls"] == BACK_CLASS) == t["face_down"]
        assert t["role"] in ("concealed", "win", "pung", "kong", "concealed_kong", "fa", "loose")


@pytest.mark.parametrize("i", range(N))
def test_meta_tiles_show_exactly_the_ground_truth_hand(dataset, i):
    _, _, meta = _load(dataset, i)
    sit = meta["situation"]
    shown = [t for t in meta["tiles"] if t["role"] != "loose"]
    want = Counter(parse_tiles(sit["hand"]))
    for m in sit["melds"]:
        want.update(parse_meld(m).tiles)
    want[Tile.FA] += sit["fa"]
    got = Counter(Tile(t["face"]) for t in shown)
    if not meta["complete"]:  # part of the hand cut off by the frame or hidden behind tiles: what shows is the hand's
        assert 0 < got.total() < want.total() and not got - want
        return
    assert got == want
    # faces seen in the photo = everything not turned down; backs only in concealed kongs
    seen = Counter(t["cls"] for t in shown)
    downs = [t for t in shown if t["face_down"]]
    assert seen[BACK_CLASS] == len(downs)
    assert all(t["role"] == "concealed_kong" for t in downs)
    assert sum(1 for t in shown if t["role"] == "win") == 1
    assert Tile(next(t["face"] for t in shown if t["role"] == "win")) == parse_tiles(sit["win_tile"])[0]
    groups = Counter(t["group"] for t in shown)
    assert all(t["group"] == 0 for t in shown if t["role"] in ("concealed", "win"))  # the row is group 0
    for k, m in enumerate(sit["melds"], start=1):
        meld = parse_meld(m)
        assert groups[k] == meld.kind.size
        assert all(Tile(t["face"]) == meld.tile and t["role"] == meld.kind.value for t in shown if t["group"] == k)
    kongs = [k for k, m in enumerate(sit["melds"], start=1) if m.startswith("concealed_kong")]
    for k in kongs:  # turned down as players do: both ends, both middles, or all four
        down = tuple(t["face_down"] for t in shown if t["group"] == k)
        assert down in ((True, False, False, True), (False, True, True, False), (True,) * 4), down
    assert all(t["group"] == -1 for t in meta["tiles"] if t["role"] == "loose")


@pytest.mark.parametrize("i", range(N))
def test_expected_result_is_what_the_engine_says(dataset, i):
    from xingzi.engine import score_situation

    _, _, meta = _load(dataset, i)
    assert meta["expect"] == json.loads(json.dumps(score_situation(meta["situation"]), ensure_ascii=False))


def test_same_seed_gives_same_bytes_and_another_seed_does_not():
    a = render_sample(5, 3, 192)
    b = render_sample(5, 3, 192)
    c = render_sample(6, 3, 192)
    assert a.jpeg == b.jpeg and a.meta == b.meta
    assert a.jpeg != c.jpeg


def test_worker_count_does_not_change_the_output(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    list(generate_dataset(one, 4, seed=2, imgsz=160, workers=1))
    list(generate_dataset(two, 4, seed=2, imgsz=160, workers=2))
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file() and p.name != "data.yaml")
    assert len(files) == 13  # 4 photos, labels and truths, and the list of runs (the workers are no setting)
    for f in files:
        assert (one / f).read_bytes() == (two / f).read_bytes(), f


def test_data_yaml_lists_the_31_classes(dataset):
    text = (dataset / "data.yaml").read_text()
    assert f"nc: {len(CLASS_NAMES)}" in text
    assert "  30: back" in text and "  0: 1m" in text and "  29: bai" in text


@pytest.mark.parametrize("style", style_names())
def test_each_face_style_renders_a_loadable_photo(style):
    s = render_sample(1, 0, 192, styles=(style,))
    img = cv2.imdecode(np.frombuffer(s.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape[:2] == (s.height, s.width) and max(img.shape[:2]) == 192
    assert s.meta["style"].split(":")[0] == style
    assert len(s.boxes) == len(s.classes) > 0


def test_contact_sheet_has_the_asked_grid():
    sheet = contact_sheet(seed=1, count=3, cols=2, cell=100, imgsz=128)
    assert sheet.shape == (200, 200, 3)
    assert sheet[:100, :100].std() > 5  # a photo was pasted, not the blank background


@pytest.mark.parametrize("call, message", [
    pytest.param(lambda: render_sample(1, 0, 32), "imgsz must be 64..8192 pixels, got 32", id="tiny-imgsz"),
    pytest.param(lambda: list(generate_dataset("unused", 1, imgsz=100_000)), "--imgsz must be 64..8192 pixels",
                 id="huge-imgsz"),
    pytest.param(lambda: check_styles(["nope"]), "unknown style(s) nope", id="unknown-style"),
    pytest.param(lambda: list(generate_dataset("unused", 0)), "--n must be 1..100000 photos", id="zero-images"),
    pytest.param(lambda: list(generate_dataset("unused", 10**9)), "--n must be 1..100000 photos (more in several runs, "
                 "with --start), got 1000000000", id="a-billion-images"),
    pytest.param(lambda: list(generate_dataset("unused", 2, workers=0)), "--workers must be at least 1",
                 id="zero-workers"),
    pytest.param(lambda: render_sample(1, 0, 128, blur_share=-0.1), "blur share must be between 0 and 1",
                 id="negative-blur-share"),
    pytest.param(lambda: list(generate_dataset("unused", 1, blur_share=1.5)), "--blur-share must be between 0 and 1",
                 id="blur-share-over-1"),
    pytest.param(lambda: list(generate_dataset("unused", 1, blur_share=-0.5)), "--blur-share must be between 0 and 1",
                 id="negative-blur-share-of-a-dataset"),
    pytest.param(lambda: render_sample(-1, 0, 128), "seed and index must be >= 0, got -1 and 0", id="negative-seed"),
    pytest.param(lambda: contact_sheet(count=10**8), "count 1..256", id="sheet-of-a-hundred-million"),
])
def test_bad_arguments_raise_clear_errors(call, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where "unused" would be written, were the arguments let through
    with pytest.raises(ValueError) as e:
        call()
    assert message in str(e.value)


def test_the_smallest_side_allowed_is_made(tmp_path):
    assert [i for i, _ in generate_dataset(tmp_path, 1, imgsz=64)] == [0]  # 64..8192, as the message says
    photo = cv2.imread(str(next((tmp_path / "images").glob("*.jpg"))))
    assert max(photo.shape[:2]) == 64


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--n", "0"], "--n must be 1..100000 photos", id="n"),
    pytest.param(["--n", "-5"], "--n must be 1..100000 photos (more in several runs, with --start), got -5",
                 id="n-negative"),
    pytest.param(["--n", "100001"], "--n must be 1..100000 photos (more in several runs, with --start), got 100001",
                 id="n-past-the-cap"),  # it was taken: photos written until the disk was full
    pytest.param(["--n", "1", "--workers", "0"], "--workers must be at least 1, got 0", id="workers"),
    pytest.param(["--n", "1", "--imgsz", "-1"], "--imgsz must be 64..8192 pixels", id="imgsz"),
    pytest.param(["--n", "1", "--start", "-1"], "--seed and --start must be >= 0, got 0 and -1", id="start"),
    pytest.param(["--preview", "--out", "sheet.jpg", "--imgsz", "0"], "--imgsz must be 64..8192 pixels, got 0",
                 id="preview-imgsz"),  # the sheet said "imgsz", naming no option
    pytest.param(["--styles", "nope", "--n", "1"], "unknown style(s) nope", id="styles"),
    pytest.param(["--preview", "--out", "sheet.txt"], "must be a .jpg or .png", id="preview-suffix"),
    pytest.param(["--preview", "--out", "sheet.jpg", "--count", "0"], "--count for --preview must be 1..256, got 0",
                 id="preview-count"),
    pytest.param(["--blur-share", "2", "--n", "1"], "--blur-share must be between 0 and 1", id="blur-share"),
    # these three were taken silently: ./synth_data written, --count and the sheet's --out read as nothing
    pytest.param(["--n", "1", "--out", ""], "--out is empty: expected a file or folder, got ''", id="out-empty"),
    pytest.param(["--preview", "--out", " "], "--out must name a sheet file, got ' '", id="preview-out-blank"),
    pytest.param(["--n", "1", "--count", "3"], "--count is the number of photos on a --preview sheet; a dataset's is "
                 "--n (got --count 3 without --preview)", id="count-without-preview"),
])
def test_cli_reports_bad_arguments(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    if "--preview" not in argv and "--out" not in argv:
        argv = argv + ["--out", str(tmp_path / "d")]
    assert cli_main(["synth", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("xingzi synth: error: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing written (nor ./synth_data)


def test_the_help_says_the_most_photos_a_run_makes():
    import argparse

    from xingzi.commands.synth import add_arguments
    from xingzi.datasets.synth.dataset import MAX_PHOTOS

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert f"1..{MAX_PHOTOS}" in " ".join(parser.format_help().split())


@pytest.mark.parametrize(("kwargs", "message"), [
    pytest.param({"seed": -1}, "--seed and --start must be >= 0, got -1 and 0", id="negative-seed"),
    pytest.param({"start": -3}, "--seed and --start must be >= 0, got 0 and -3", id="negative-start"),
    pytest.param({"workers": 100_000}, "--workers must be at most", id="a-hundred-thousand-workers"),
])
def test_generate_dataset_refuses_before_writing_or_starting_processes(tmp_path, monkeypatch, kwargs, message):
    monkeypatch.setattr(synth_dataset.mp, "get_context", lambda *_: pytest.fail("started worker processes"))
    with pytest.raises(ValueError, match=message):
        list(generate_dataset(tmp_path / "d", 1, **kwargs))
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(("names", "refused"), [
    pytest.param("names: [cat, dog]\n", True, id="another-class-list"),
    pytest.param(None, False, id="one-of-ours"),  # more photos of a synthetic set: its data.yaml written again
])
def test_photos_are_added_only_to_a_dataset_of_our_classes(tmp_path, monkeypatch, names, refused):
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))  # no drawing: only the bookkeeping
    out = tmp_path / "d"
    out.mkdir()
    yaml_text = names if names is not None else data_yaml_text(out.resolve())
    (out / "data.yaml").write_text(yaml_text)
    if refused:
        with pytest.raises(ValueError, match="holds labels of other classes than ours.*expected a new folder"):
            list(generate_dataset(out, 1))
    else:
        assert list(generate_dataset(out, 1)) == [(0, {})]
    assert (out / "data.yaml").read_text() == yaml_text  # kept, or written again the same


def test_no_photos_go_among_labels_a_classes_txt_in_the_parent_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))
    val = shared_style_folder(tmp_path / "data")  # as ../shared/data: no data.yaml, its id 30 `other`
    with pytest.raises(ValueError, match="holds labels of other classes than ours"):
        list(generate_dataset(val, 1))
    assert not (val / "data.yaml").exists()


@pytest.mark.parametrize(("second", "refused"), [
    pytest.param({"seed": 1, "start": 0, "n": 4}, False, id="the-same-run-again"),
    pytest.param({"seed": 1, "start": 2, "n": 1}, False, id="part-of-it-again"),
    pytest.param({"seed": 1, "start": 4, "n": 2, "styles": ("brush",)}, False, id="more-photos-after-it"),
    pytest.param({"seed": 2, "start": 0, "n": 4, "imgsz": 800}, False, id="another-seed"),
    pytest.param({"seed": 1, "start": 3, "n": 2, "styles": ("brush",)}, True, id="other-styles-over-its-last"),
    pytest.param({"seed": 1, "start": 0, "n": 1, "imgsz": 800}, True, id="another-size"),
    pytest.param({"seed": 1, "start": 0, "n": 4, "blur_share": 0.3}, True, id="blurred"),
])
def test_a_run_may_not_replace_photos_another_made(tmp_path, monkeypatch, second, refused):
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))  # no drawing: only the bookkeeping
    out = tmp_path / "d"
    list(generate_dataset(out, 4, seed=1, styles=("procedural",)))
    runs = (out / "synth_runs.jsonl").read_text()
    assert json.loads(runs) == {"seed": 1, "start": 0, "n": 4, "imgsz": 640, "styles": ["procedural"],
                                "blur_share": 0.0}
    kwargs = {"styles": ("procedural",), **second}
    if refused:
        with pytest.raises(ValueError, match=r"synth_s1_0000\d\d.* made with .* would be replaced .* --start 4 or more"):
            list(generate_dataset(out, **kwargs))
        assert (out / "synth_runs.jsonl").read_text() == runs
    else:
        assert len(list(generate_dataset(out, **kwargs))) == kwargs["n"]
        lines = (out / "synth_runs.jsonl").read_text().splitlines()
        assert len(lines) == 1 + (second != {"seed": 1, "start": 0, "n": 4})  # a run already listed is not again


def test_a_damaged_list_of_runs_is_said_so(tmp_path, monkeypatch):
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))
    (tmp_path / "synth_runs.jsonl").write_text('{"seed": 1}\n')
    with pytest.raises(ValueError, match=r"synth_runs.jsonl:1: expected a JSON object with seed, start and n"):
        list(generate_dataset(tmp_path, 1))


def test_a_list_of_runs_that_is_not_utf8_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))
    (tmp_path / "synth_runs.jsonl").write_bytes(b'{"seed": 1, "start": 0, "n": 1}\n\xff\xfe\n')
    with pytest.raises(ValueError, match=r"synth_runs.jsonl: expected UTF-8 text, got byte 0xff at 32"):
        list(generate_dataset(tmp_path, 1))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["synth_runs.jsonl"]


def test_a_huge_n_starts_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(synth_dataset, "_job", lambda job: (job[2], {}))  # no drawing: only the bookkeeping
    tracemalloc.start()
    try:
        first = next(generate_dataset(tmp_path, synth_dataset.MAX_PHOTOS, workers=1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert first == (0, {}) and peak < 4_000_000  # a list of the 100,000 jobs would take over 10 MB


def test_a_preview_that_cannot_be_written_says_so(tmp_path, capsys):
    (tmp_path / "sheet.jpg").mkdir()
    assert cli_main(["synth", "--preview", "--out", str(tmp_path / "sheet.jpg"), "--count", "1", "--imgsz", "64"]) == 2
    assert "--out for --preview must be a writable file" in capsys.readouterr().err


def test_cli_lists_the_face_styles(capsys):
    from xingzi.datasets.synth.faces import EXTRA_STYLES, style_names

    assert cli_main(["synth", "--list-styles"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == style_names() + [f"{s} (only when named)" for s in EXTRA_STYLES] and "brush (only when named)" in listed


def test_cli_writes_a_preview_and_a_dataset(tmp_path, capsys):
    sheet = tmp_path / "sheet.jpg"
    assert cli_main(["synth", "--preview", "--out", str(sheet), "--count", "2", "--imgsz", "128"]) == 0
    assert cv2.imread(str(sheet)) is not None
    out = tmp_path / "d"
    assert cli_main(["synth", "--n", "2", "--out", str(out), "--imgsz", "128", "--workers", "1", "--quiet"]) == 0
    assert len(list((out / "images").glob("*.jpg"))) == len(list((out / "labels").glob("*.txt"))) == 2
    said = capsys.readouterr()
    assert "wrote 2 images" in said.out and said.err == ""  # --quiet: no progress lines
    assert cli_main(["synth", "--n", "2", "--out", str(tmp_path / "e"), "--imgsz", "128", "--workers", "1"]) == 0
    assert re.search(r"^2/2 images, [0-9.]+ images/s$", capsys.readouterr().err, re.M)  # the last image counted


SAMPLE = Path(__file__).resolve().parents[2] / "datasets" / "sample"


def test_committed_sample_labels_agree_with_its_meta():
    from xingzi.engine import score_situation

    images = sorted((SAMPLE / "images").glob("*.jpg"))
    assert len(images) == 8
    assert "path:" not in (SAMPLE / "data.yaml").read_text()  # portable: the root is the yaml's folder
    for image in images:
        img = cv2.imread(str(image))
        labels = read_labels(SAMPLE / "labels" / f"{image.stem}.txt")
        meta = json.loads((SAMPLE / "meta" / f"{image.stem}.json").read_text())
        assert [img.shape[1], img.shape[0]] == meta["size"]
        assert labels[:, 0].astype(int).tolist() == [t["cls"] for t in meta["tiles"]]
        boxes = yolo_to_xyxy(labels[:, 1:], img.shape[1], img.shape[0])
        np.testing.assert_allclose(boxes, [t["xyxy"] for t in meta["tiles"]], atol=0.01)
        result = score_situation(meta["situation"])
        assert (result["valid"], result["own"]) == (meta["expect"]["valid"], meta["expect"]["own"])


def _sharpness(sample) -> float:
    grey = cv2.imdecode(np.frombuffer(sample.jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def test_stronger_blur_is_opt_in_and_keeps_the_boxes():
    usual = render_sample(7, 1, 320)
    blurred = render_sample(7, 1, 320, blur_share=1.0)
    assert "blur_share" not in usual.meta and blurred.meta["blur_share"] == 1.0
    np.testing.assert_array_equal(usual.boxes, blurred.boxes)
    assert _sharpness(blurred) < 0.5 * _sharpness(usual)
    assert render_sample(7, 1, 320, blur_share=0.0).jpeg == usual.jpeg


def test_brush_faces_are_drawn_only_when_named():
    assert "brush" in known_styles() and "brush" not in style_names()
    assert check_styles(None) == tuple(style_names())
    s = render_sample(1, 0, 192, styles=("brush",))
    assert s.meta["style"].startswith("brush:")
    assert render_sample(1, 0, 192).meta["style"] != s.meta["style"]


@pytest.mark.parametrize("k", [0, 7])
def test_brush_faces_rewrite_the_characters_and_keep_the_pips(k):
    plain, brush = procedural_set(k), brush_set(k)
    for tile in (Tile("2m"), Tile("7m"), Tile.ZHONG, Tile.FA):
        a, b = plain.faces[tile.index][0], brush.faces[tile.index][0]
        assert a.shape == b.shape and np.abs(a.astype(int) - b.astype(int)).mean() > 1.0, tile
    for tile in (Tile("5p"), Tile("3s"), Tile.BAI):  # no characters on these
        np.testing.assert_array_equal(plain.faces[tile.index][0], brush.faces[tile.index][0])
    assert brush_set(k).faces[Tile("2m").index][0] is brush.faces[Tile("2m").index][0]  # cached


def test_brush_characters_stay_in_ink():
    """The glyph is bent, not lost: a written numeral keeps most of the ink the font gave it."""
    for k in range(4):
        plain, brush = procedural_set(k), brush_set(k)
        for tile in (Tile("1m"), Tile("2m"), Tile("3m")):
            top = slice(0, 128 * 2 // 5)  # the numeral's part of the face
            ink_a = (plain.faces[tile.index][0][top, :, :3].astype(int).sum(2) < 500).sum()
            ink_b = (brush.faces[tile.index][0][top, :, :3].astype(int).sum(2) < 500).sum()
            assert 0.4 * ink_a < ink_b < 3.0 * ink_a, (k, tile, ink_a, ink_b)


def test_brush_numerals_keep_their_place():
    """The hand bends a numeral where the font put it: its ink's middle moves by under 15 % of the face's width."""
    for k in range(8):
        plain, brush = procedural_set(k), brush_set(k)
        for rank in range(1, 10):
            tile = Tile(f"{rank}m")
            middles = []
            for face in (plain.faces[tile.index][0], brush.faces[tile.index][0]):
                ys, xs = np.nonzero(face[: face.shape[0] * 2 // 5, :, :3].astype(int).sum(2) < 500)
                middles.append((ys.mean(), xs.mean()))
            moved = np.hypot(middles[0][0] - middles[1][0], middles[0][1] - middles[1][1])
            assert moved < 0.15 * face.shape[1], (k, tile, moved)


def test_every_drawn_face_carries_ink_and_no_two_faces_look_alike():
    """A face drawn empty, or like another, would teach the detector a label its picture does not show."""
    tiles = list(TILES)
    for k in range(8):
        for faces in (procedural_set(k), brush_set(k)):
            plate = np.array(faces.plate, np.int16)
            drawn = [faces.faces[t.index][0].astype(np.int16) for t in tiles]
            for tile, face in zip(tiles, drawn, strict=True):
                inside = face[..., 3] > 200
                ink = ((np.abs(face[..., :3] - plate).sum(-1) > 90) & inside).sum() / inside.sum()
                assert tile is Tile.BAI or ink > 0.04, (faces.name, tile, ink)  # 白: bare, or a frame only
            for i, j in combinations(range(len(tiles)), 2):
                differ = np.abs(drawn[i][..., :3] - drawn[j][..., :3]).mean()
                assert differ > 2.0, (faces.name, tiles[i], tiles[j], differ)


def test_the_groups_of_a_laid_out_hand_never_lie_in_one_another():
    """The row, each meld, the 发 and the loose tiles are slid apart on the table until their footprints part."""
    from xingzi.datasets.synth.hands import sample_deal
    from xingzi.datasets.synth.render import body_points
    from xingzi.datasets.synth.scene import layout_deal

    laid_out = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        layout = layout_deal(sample_deal(rng), rng)
        if layout.kind != "rows":  # a grid or a scatter is laid out by other rules
            continue
        laid_out += 1
        points = [body_points(layout.shape, t) for t in layout.tiles]
        feet = np.array([[p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()] for p in points])
        groups = np.array([t.group for t in layout.tiles])
        overlap = overlaps_between_groups(feet, groups)
        assert not len(overlap) or overlap.max() < 0, (seed, overlap.max())
    assert laid_out > 80


def test_no_loose_tile_lies_face_up_as_a_fa():
    """A 发 face up on the table is a bonus tile set out by its owner (RULES.md §1), so a stray lying near a hand
    may be any face but that; face down it may be anything. Before this rule, 10 of these 400 deals had one."""
    from xingzi.datasets.synth.hands import sample_deal
    from xingzi.datasets.synth.scene import layout_deal

    face_up = Counter()
    for seed in range(400):
        rng = np.random.default_rng(seed)
        for tile in layout_deal(sample_deal(rng), rng).tiles:
            if tile.role == "loose" and not tile.face_down:
                face_up[Tile.from_index(tile.cls)] += 1
    assert face_up[Tile.FA] == 0, face_up
    assert face_up.total() > 200 and len(face_up) >= 25, face_up  # strays still show nearly every other face


def test_a_spare_face_is_drawn_again_only_for_a_fa_face_up():
    from xingzi.datasets.synth.scene import _Builder, _spare, random_shape

    rng = np.random.default_rng(3)
    b = _Builder(rng, random_shape(rng))
    assert _spare(b, Tile.FA.index, rng) is Tile.FA  # face down: any face
    state = rng.bit_generator.state
    assert _spare(b, Tile("5p").index, rng, face_up=True) is Tile("5p")
    assert rng.bit_generator.state == state  # no clash, no draw: other photos stay as they were
    again = {_spare(b, Tile.FA.index, rng, face_up=True) for _ in range(200)}
    assert Tile.FA not in again and len(again) > 20


def test_shown_shares_count_only_what_no_nearer_tile_covers():
    from xingzi.datasets.synth.render import painted_ids, shown_shares

    def square(x0, y0, side):
        return np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], float)

    far, half_over, whole_over, outside = square(10, 10, 20), square(20, 5, 30), square(60, 10, 10), square(200, 5, 10)
    hidden = square(62, 12, 5)
    bodies = [far, half_over, hidden, whole_over, outside]
    shares = shown_shares(painted_ids(bodies, np.array([0, 1, 2, 3, 4]), 100, 50), bodies)
    assert shares[0] == pytest.approx(0.5, abs=0.05)  # its right half lies under the next tile
    assert shares[1] == 1 and shares[3] == 1  # nothing painted over them
    assert shares[2] == 0  # painted over whole by a nearer tile
    assert shares[4] == 1  # outside the photo: the frame's rule decides, not this one
    painted_last = shown_shares(painted_ids(bodies, np.array([0, 1, 3, 2, 4]), 100, 50), bodies)
    assert painted_last[2] == 1 and painted_last[3] < 1  # the order says which lies in front


@pytest.mark.parametrize("index, hidden", [
    pytest.param(46, 3, id="a_pung_behind_the_standing_row"),
    pytest.param(81, 0, id="a_face_down_wall_behind_the_standing_row"),
])
def test_tiles_hidden_behind_others_are_not_labelled(monkeypatch, index, hidden):
    """Tiles lying flat behind a row of standing tiles may not show at all (seed 97 at 1,280 px: a claimed pung of
    photo 46 shows 0 % of its face, the four face-down loose tiles of photo 81 the same). They get no label, a
    hidden tile of the hand makes the photo incomplete (the bench skips it), and the photo drawn without them at
    all is the same picture: nothing of them was seen."""
    from xingzi.datasets.synth import generate

    sample = render_sample(97, index, 640)
    roles = Counter(t["role"] for t in sample.meta["tiles"])
    assert sample.meta.get("hidden", 0) == hidden
    if hidden:
        assert not sample.meta["complete"] and roles["pung"] == 0
    else:
        assert sample.meta["complete"] and roles["loose"] == 0 and BACK_CLASS not in sample.classes

    pictures = []
    monkeypatch.setattr(generate, "camera_effects", lambda img, rng, blur_share=0.0: pictures.append(img) or img)
    monkeypatch.setattr(generate, "draw_shadows", lambda *args: None)  # a hidden tile's shadow may show: not its face
    drawn = generate.draw_tile
    render_sample(97, index, 640)
    role = "pung" if hidden else "loose"

    def without_them(img, cam, shape, tile, *args):  # the same points, drawn on a scrap copy
        return drawn(img.copy() if tile.role == role else img, cam, shape, tile, *args)

    monkeypatch.setattr(generate, "draw_tile", without_them)
    render_sample(97, index, 640)
    assert np.abs(pictures[0].astype(int) - pictures[1]).max() <= 2


def test_a_layout_says_when_the_winning_tile_is_sorted_into_the_row():
    """``win_shown`` False: the winning tile stands in the row in its sorted place, one step from its neighbours like
    every other; True: it is laid apart, at least 3 mm further along the row's line or in front of it (each tile's
    place jitters by 0.3 mm)."""
    from xingzi.datasets.synth.hands import sample_deal
    from xingzi.datasets.synth.scene import layout_deal

    seen = Counter()
    for seed in range(150):
        rng = np.random.default_rng(seed)
        layout = layout_deal(sample_deal(rng), rng)
        row = sorted((t for t in layout.tiles if t.group == 0 and t.role != "win"), key=lambda t: t.centre[0])
        if layout.kind != "rows" or len(row) < 3:  # a grid or a scatter moves every tile; a row of 1 has no step
            continue
        win = next(t for t in layout.tiles if t.role == "win")
        step = float(np.median(np.diff([t.centre[0] for t in row])))
        nearest = min(abs(win.centre[0] - t.centre[0]) for t in row)
        on_line = abs(win.centre[1] - row[0].centre[1]) < 2
        if layout.win_shown:
            assert not on_line or nearest > step + 1.5, seed
        else:
            in_row = sorted([*row, win], key=lambda t: t.centre[0])
            assert [t.cls for t in in_row] == sorted(t.cls for t in in_row), seed
            assert on_line and abs(nearest - step) < 1.5, seed
        seen[layout.win_shown] += 1
    assert seen[False] > 15 and seen[True] > 60, seen


def test_concealed_kongs_are_turned_down_as_players_turn_them():
    """Both ends, both middles or all four tiles face down; each way is dealt. No tile of theirs lies sideways."""
    from xingzi.datasets.synth.hands import sample_deal
    from xingzi.datasets.synth.scene import layout_deal

    seen, turned = Counter(), Counter()
    for seed in range(150):
        rng = np.random.default_rng(seed)
        deal = sample_deal(rng, "kongs")
        layout = layout_deal(deal, rng)
        for k, meld in enumerate(deal.melds, start=1):
            tiles = [t for t in layout.tiles if t.group == k]
            if meld.kind.value == "concealed_kong":
                seen[tuple(t.face_down for t in tiles)] += 1
                assert not any(t.sideways for t in tiles)  # nobody's discard: no tile turned to show from whom
            else:
                turned[sum(t.sideways for t in tiles)] += 1
    assert set(seen) == {(True, False, False, True), (False, True, True, False), (True,) * 4}, seen
    assert set(turned) == {0, 1}, turned  # a claimed meld shows one tile turned, or none


def test_every_face_drawn_lies_inside_a_label_box(monkeypatch):
    """The labels are the tiles' bodies projected; the faces are drawn by another path (a texture warped onto
    the front). Every tile painted one colour, then another: the pixels that change are the faces, and they
    must lie in the boxes labelled (a face drawn too wide or off its tile would teach a box that misses it)."""
    from xingzi.datasets.synth import generate
    from xingzi.datasets.synth.faces import FaceSet

    base = procedural_set(0)

    def painted(bgr: tuple[int, int, int]) -> FaceSet:
        faces = tuple(tuple(np.dstack([np.broadcast_to(np.array(bgr, np.uint8), level.shape[:2] + (3,)),
                                       level[..., 3]]) for level in levels) for levels in base.faces)
        return FaceSet("painted", faces, base.plate)

    def drawn(index: int, bgr: tuple[int, int, int]):
        before_the_camera = {}

        def keep(img, rng, blur_share=0.0):  # the picture as drawn, before blur, grain and JPEG
            before_the_camera["img"] = img.copy()
            return img

        monkeypatch.setattr(generate.faces, "face_set", lambda style, variant=0: painted(bgr))
        monkeypatch.setattr(generate, "camera_effects", keep)
        sample = render_sample(5, index, 480)
        return sample, before_the_camera["img"].astype(int)

    for index in range(8):
        sample, magenta = drawn(index, (255, 0, 255))
        _, green = drawn(index, (0, 255, 0))
        face = np.abs(magenta - green).sum(-1) > 30
        labelled = np.zeros_like(face)
        for x1, y1, x2, y2 in sample.boxes:
            labelled[max(0, int(y1) - 1):int(np.ceil(y2)) + 1, max(0, int(x1) - 1):int(np.ceil(x2)) + 1] = True
        assert face.sum() > 1000, index
        assert (face & ~labelled).sum() < 0.002 * face.sum(), (index, (face & ~labelled).sum(), face.sum())


def test_a_pack_face_is_drawn_from_its_art_without_the_transparent_border(tmp_path):
    """Art saved with empty margins is cut to what it shows first, so the glyph fills the face as any other does."""
    from xingzi.datasets.synth.faces import _pack_face

    glyph = np.zeros((60, 40, 4), np.uint8)
    glyph[..., 2], glyph[..., 3] = 200, 0  # red, see-through
    glyph[10:50, 8:32, 3] = 255  # a red bar: the glyph
    padded = np.zeros((160, 120, 4), np.uint8)
    padded[50:110, 40:80] = glyph  # the same art in a wide transparent border
    for name, art in (("tight.png", glyph[10:50, 8:32]), ("padded.png", padded)):
        cv2.imwrite(str(tmp_path / name), art)
    plate = (240, 240, 235)
    tight, wide = (_pack_face(tmp_path / n, plate) for n in ("tight.png", "padded.png"))
    np.testing.assert_array_equal(tight, wide)
    assert (np.abs(tight.astype(int) - plate).sum(-1) > 90).mean() > 0.4  # the bar fills the face's middle


def test_art_with_its_own_plate_fills_the_face_and_glyphs_keep_a_margin_of_plate(tmp_path):
    from xingzi.datasets.synth.faces import _pack_face

    plate = (240, 240, 235)
    whole = np.full((90, 60, 4), (30, 30, 200, 255), np.uint8)  # opaque: a tile front of its own
    glyph = np.zeros((90, 60, 4), np.uint8)
    cv2.circle(glyph, (30, 45), 20, (30, 30, 200, 255), 4)  # a ring on transparency
    for name, art in (("whole.png", whole), ("glyph.png", glyph)):
        cv2.imwrite(str(tmp_path / name), art)
    filled, marked = (_pack_face(tmp_path / n, plate) for n in ("whole.png", "glyph.png"))
    red = np.array((30, 30, 200))
    assert (np.abs(filled.astype(int) - red).sum(-1) < 20).all()
    border = np.concatenate([marked[0], marked[-1], marked[:, 0], marked[:, -1]])
    assert (border == plate).all() and (np.abs(marked.astype(int) - red).sum(-1) < 20).any()


def test_the_art_packs_are_the_folders_that_hold_tile_pictures():
    from xingzi.datasets.synth.faces import VENDORED_ART, pack_dirs

    packs = pack_dirs()
    assert {"fluffy_regular", "unicode_noto_symbols2"} <= set(packs)  # vendored: found without ../shared/art
    assert all(folder.is_dir() and (folder / "1m.png").is_file() and folder.name == name
               for name, folder in packs.items())
    assert not {"fonts", "LICENSE"} & set(packs) and (VENDORED_ART / "fonts").is_dir()


def test_the_stronger_blur_is_sometimes_a_motion_streak(monkeypatch):
    from xingzi.datasets.synth import photo

    point = np.zeros((160, 160, 3), np.uint8)
    point[80, 80] = 255
    streak = photo._streak(point.astype(np.float32), 9, 30.0)
    ys, xs = np.nonzero(streak[..., 0] > 0)
    assert np.ptp(xs) >= 6 and len(xs) <= 0.5 * (np.ptp(xs) + 1) * (np.ptp(ys) + 1)  # a thin line, not a disc
    lengths: list[int] = []
    real_streak = photo._streak
    monkeypatch.setattr(photo, "_streak", lambda img, k, angle: lengths.append(k) or real_streak(img, k, angle))
    photo_640 = np.zeros((480, 640, 3), np.uint8)

    def streaks(seed: int, share: float) -> list[int]:
        lengths.clear()
        photo.camera_effects(photo_640, np.random.default_rng(seed), blur_share=share)
        return list(lengths)

    extra = [streaks(s, 1.0)[len(streaks(s, 0.0)):] for s in range(12)]  # the usual streak comes first
    assert 2 <= sum(map(len, extra)) <= 10  # about half of the stronger blurs are streaks
    assert all(5 <= k <= 10 for ks in extra for k in ks)  # longer than the usual 3-8 px


def test_a_preview_sheet_as_png(tmp_path, capfd):
    out = tmp_path / "sheet.png"
    assert cli_main(["synth", "--preview", "--out", str(out), "--count", "1", "--imgsz", "64"]) == 0
    assert cv2.imread(str(out)) is not None and "imwrite" not in capfd.readouterr().err  # no quality flag for a PNG


def test_synth_without_an_art_folder_says_it_draws_the_vendored_styles_only(tmp_path, monkeypatch, capsys):
    """An installed package finds no ../shared/art: its photos differ from a checkout's for the same seed."""
    from xingzi.cli import main
    from xingzi.datasets.synth import faces

    monkeypatch.setattr(faces, "shared_art_dir", lambda: None)
    assert main(["synth", "--n", "1", "--out", str(tmp_path / "s"), "--workers", "1", "--imgsz", "320", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "note: no art folder found ($XINGZI_ART, or ../shared/art beside the checkout): the faces are drawn in" in err
    assert "fluffy_regular" in err and "kde_" not in err
    monkeypatch.undo()
    assert main(["synth", "--n", "1", "--out", str(tmp_path / "t"), "--workers", "1", "--imgsz", "320", "--quiet"]) == 0
    assert "no art folder" not in capsys.readouterr().err  # (../shared/art beside this checkout)
