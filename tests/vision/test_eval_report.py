"""What `xingzi eval` says about the images it missed, and the boxes it saves for `--preds`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from xingzi.cli import main
from xingzi.engine.tiles import Tile
from xingzi.vision import eval_report
from xingzi.vision.eval_data import NC, load_dataset, name_table, preds_from_dir
from xingzi.vision.metrics import ImageBoxes, score

T3M, T2M, T5P, T1S = (Tile(n).index for n in ("3m", "2m", "5p", "1s"))


def _box(i: int) -> list[float]:
    return [10.0 + 30 * i, 10.0, 35.0 + 30 * i, 45.0]


def _boxes(classes: list[int], slots: list[int], conf: float = 0.9) -> ImageBoxes:
    xyxy = np.array([_box(i) for i in slots]).reshape(-1, 4)
    return ImageBoxes.preds(xyxy, np.array(classes), np.full(len(classes), conf))


TRUTHS = [ImageBoxes.truth(np.array([_box(i) for i in range(3)]), np.array([T3M, T5P, T5P])),
          ImageBoxes.truth(np.array([_box(i) for i in range(2)]), np.array([T1S, T1S])),
          ImageBoxes.truth(np.array([_box(0)]), np.array([T3M]))]
PREDS = [_boxes([T2M, T5P], [0, 1]),  # 3m read as 2m, the second 5p not found
         _boxes([T1S, T1S, T1S], [0, 1, 4]),  # a 1s on no tile
         _boxes([T3M], [0])]  # exact
IMAGES = [Path("x/a.jpg"), Path("x/b.jpg"), Path("x/c.jpg")]


def test_errors_per_image_name_each_wrong_box():
    s = score(TRUTHS, PREDS, NC, conf=0.25)
    assert s.errors == (((T3M, T2M, False), (T5P, NC, False)), ((NC, T1S, False),), ())
    assert [eval_report.describe(*e) for e in s.errors[0]] == ["3m read as 2m", "5p not found"]
    assert eval_report.describe(NC, T1S) == "1s on no tile"


def test_a_second_box_on_a_tile_is_said_so_not_on_no_tile():
    """A tile read twice: the box paired with it is right, the other one lies on it, not on nothing."""
    truth = ImageBoxes.truth(np.array([_box(0), _box(1)]), np.array([T5P, T3M]))
    twice = _boxes([T5P, T5P, T3M], [0, 0, 1])
    twice.xyxy[1] += [1, 0, 1, 0]
    s = score([truth], [twice], NC, conf=0.25)
    assert s.errors == (((NC, T5P, True),),)
    assert [eval_report.describe(*e) for e in s.errors[0]] == ["5p a second box on a tile"]


@pytest.mark.parametrize(
    ("shift", "read", "errors", "said"),
    [
        pytest.param(12, T5P, ((T5P, T5P, True),), ["5p box off its tile"], id="right-face-box-off"),
        pytest.param(12, T3M, ((T5P, T3M, True),), ["5p read as 3m, box off its tile"], id="wrong-face-box-off"),
        pytest.param(30, T5P, ((T5P, NC, False), (NC, T5P, False)), ["5p not found", "5p on no tile"],
                     id="next-slot-is-elsewhere"),
        pytest.param(3, T5P, (), [], id="close-enough-is-a-match"),
    ],
)
def test_a_box_overlapping_its_tile_too_little_is_off_not_missed(shift, read, errors, said):
    truth = ImageBoxes.truth(np.array([_box(0)]), np.array([T5P]))
    box = np.array([_box(0)]) + [shift, 0, shift, 0]
    s = score([truth], [ImageBoxes.preds(box, np.array([read]), np.array([0.9]))], NC, conf=0.25)
    assert s.errors == (errors,) and s.image_exact.tolist() == [not errors]
    assert [eval_report.describe(*e) for e in errors] == said


def test_rows_hold_only_images_missed_most_errors_first():
    rows = eval_report.image_rows(IMAGES, score(TRUTHS, PREDS, NC, conf=0.25))
    assert [r["image"] for r in rows] == ["a.jpg", "b.jpg"]
    assert rows[0] == {"image": "a.jpg", "tiles": 3, "misread": 1, "off": 0, "missed": 1, "extra": 0,
                       "errors": ["3m read as 2m", "5p not found"]}
    kinds = eval_report.miss_kinds(rows)
    assert (kinds["images_not_exact"], kinds["images_with_misread"], kinds["images_only_extra"],
            kinds["boxes_missed"], kinds["images_only_misread"]) == (2, 1, 1, 1, 0)


def test_repeated_errors_are_counted_once_with_a_number():
    truth = ImageBoxes.truth(np.array([_box(i) for i in range(3)]), np.array([T3M] * 3))
    s = score([truth], [_boxes([T2M] * 3, [0, 1, 2])], NC, conf=0.25)
    assert eval_report.image_rows(IMAGES[:1], s)[0]["errors"] == ["3× 3m read as 2m"]
    assert eval_report.confusions(s) == [("3m read as 2m", 3)]


@pytest.mark.parametrize(("show", "tail"), [
    pytest.param(1, "  …1 more in the JSON ('images')", id="one-shown-one-more"),
    pytest.param(2, "  b.jpg (2 tiles): 1s on no tile", id="all-shown-no-more-line"),
    pytest.param(0, "  2 in the JSON ('images')", id="none-shown-the-count"),
])
def test_the_misses_text_says_how_many_more_are_in_the_json(show, tail):
    rows = eval_report.image_rows(IMAGES, score(TRUTHS, PREDS, NC, conf=0.25))  # a.jpg and b.jpg not exact
    text = eval_report.format_misses("row", rows, [], show).splitlines()
    assert text[-1] == tail


def test_rows_need_one_path_per_scored_image():
    with pytest.raises(ValueError, match="one image per scored image"):
        eval_report.image_rows(IMAGES[:2], score(TRUTHS, PREDS, NC, conf=0.25))


def test_saved_boxes_read_back_the_same(tmp_path):
    sizes = [(200, 100)] * 3
    out = eval_report.write_preds(IMAGES, sizes, PREDS, tmp_path / "preds")
    names = (out / "classes.txt").read_text().split()
    assert names[T5P] == "5p" and len(names) == NC
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "classes.txt").write_text("3m\n")
    for p in IMAGES:
        Image.new("RGB", sizes[0]).save(root / "images" / p.name)
    back = preds_from_dir(load_dataset(root), sizes, out, name_table(names))
    for a, b in zip(PREDS, back, strict=True):
        np.testing.assert_allclose(a.xyxy, b.xyxy, atol=1e-3)
        assert a.cls.tolist() == b.cls.tolist()
        np.testing.assert_allclose(a.conf, b.conf, atol=1e-5)
    with pytest.raises(ValueError, match="a size and predictions per image"):
        eval_report.write_preds(IMAGES, sizes[:2], PREDS, tmp_path / "bad")


def test_eval_cli_lists_the_misses_and_saves_nothing_for_preds_rows(tmp_path, capsys, eval_scores_only):
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("3m\n5p\n")
    preds = tmp_path / "theirs"
    preds.mkdir()
    (preds / "classes.txt").write_text("3m\n5p\n")
    for stem, truth, pred in [("a", "0 0.25 0.5 0.2 0.5\n1 0.75 0.5 0.2 0.5\n", "1 0.25 0.5 0.2 0.5 0.9\n"),
                              ("b", "1 0.5 0.5 0.2 0.5\n", "1 0.5 0.5 0.2 0.5 0.9\n")]:
        Image.new("RGB", (200, 100)).save(root / "images" / f"{stem}.png")
        (root / "labels" / f"{stem}.txt").write_text(truth)
        (preds / f"{stem}.txt").write_text(pred)
    out = tmp_path / "out"
    assert main(["eval", "--data", str(root), "--preds", str(preds), "--out", str(out), "--show-misses", "3"]) == 0
    text = capsys.readouterr().out
    assert "theirs: 1 images not exact" in text and "misread 1/0/1, off 0/0/0, missed 1/0/1, extra 0/0/0" in text and "a.png (2 tiles): 3m read as 5p; 5p not found" in text
    result = json.loads((out / "theirs.json").read_text())
    assert result["misses"]["images_with_missed"] == 1 and result["misreads"] == [["3m read as 5p", 1]]
    assert [r["image"] for r in result["images"]] == ["a.png"]


def test_perturbed_boxes_cannot_be_saved(tmp_path, capsys):
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("3m\n")
    Image.new("RGB", (50, 50)).save(root / "images" / "a.png")
    (root / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.5\n")
    assert main(["eval", "--data", str(root), "--perturb", "rot90", "--save-preds", str(tmp_path / "p")]) != 0
    assert "--save-preds" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def _tiny_set(tmp_path: Path, size: tuple[int, int], rows: list[tuple[str, str, str]],
              colour: tuple[int, int, int] = (0, 0, 0)) -> tuple[Path, Path]:
    """A YOLO folder (classes 3m, 5p) with a blank photo per (stem, label line, prediction line) and a predictions
    folder ("theirs") beside it; gives back both folders."""
    root, preds = tmp_path / "ds", tmp_path / "theirs"
    for folder in (root / "images", root / "labels", preds):
        folder.mkdir(parents=True)
    for folder in (root, preds):
        (folder / "classes.txt").write_text("3m\n5p\n")
    for stem, label_line, pred_line in rows:
        Image.new("RGB", size, colour).save(root / "images" / f"{stem}.png")
        (root / "labels" / f"{stem}.txt").write_text(label_line + "\n")
        (preds / f"{stem}.txt").write_text(pred_line + "\n")
    return root, preds


def test_image_exact_by_a_meta_field(tmp_path, capsys, eval_scores_only):
    root = tmp_path / "synth"
    for sub in ("images", "labels", "meta"):
        (root / sub).mkdir(parents=True)
    (root / "classes.txt").write_text("3m\n5p\n")
    preds = tmp_path / "theirs"
    preds.mkdir()
    (preds / "classes.txt").write_text("3m\n5p\n")
    for stem, style, pred in [("a", "jade", "0"), ("b", "jade", "1"), ("c", "brush", "1"), ("d", None, "1")]:
        Image.new("RGB", (200, 100)).save(root / "images" / f"{stem}.png")
        (root / "labels" / f"{stem}.txt").write_text("1 0.5 0.5 0.2 0.5\n")
        (preds / f"{stem}.txt").write_text(f"{pred} 0.5 0.5 0.2 0.5 0.9\n")
        (root / "meta" / f"{stem}.json").write_text(json.dumps({"style": style} if style else {}))
    out = tmp_path / "out"
    assert main(["eval", "--data", str(root), "--preds", str(preds), "--out", str(out), "--by", "style"]) == 0
    by = json.loads((out / "theirs.json").read_text())["by"]["style"]
    assert by == {"jade": {"images": 2, "image_exact": 0.5}, "?": {"images": 1, "image_exact": 1.0},
                  "brush": {"images": 1, "image_exact": 1.0}}
    assert "jade" in capsys.readouterr().out
    shutil.rmtree(root / "meta")
    assert main(["eval", "--data", str(root), "--preds", str(preds), "--out", str(out), "--by", "style"]) != 0
    assert "needs per-image meta files" in capsys.readouterr().err


@pytest.mark.parametrize(("sides", "band"), [
    pytest.param([20, 25, 29.9], "<30 px", id="small"),
    pytest.param([29, 30, 39], "30–40 px", id="band-lower-edge-included"),
    pytest.param([10, 55, 90], "50–60 px", id="median-of-three"),
    pytest.param([80, 120], "≥80 px", id="large"),
    pytest.param([], "no tiles", id="empty"),
])
def test_tile_px_band_is_the_median_longer_side_of_the_true_boxes(sides, band):
    xyxy = np.array([[0, 0, 10, side] for side in sides], float).reshape(-1, 4)  # the longer side counts
    truth = ImageBoxes(xyxy, np.zeros(len(sides), np.int64), np.ones(len(sides)))
    assert eval_report.tile_px_band(truth) == band
    ignored = ImageBoxes(np.vstack([xyxy, [[0, 0, 500, 500]] * 3]), np.r_[truth.cls, [-1, -1, -1]], np.ones(len(sides) + 3))
    assert eval_report.tile_px_band(ignored) == band  # winds and flowers do not count


def test_image_exact_by_tile_size_needs_no_meta(tmp_path, capsys, eval_scores_only):
    # 400×400 photos: a tile 0.05 high is 20 px, 0.3 high 120 px; b is misread
    root, preds = _tiny_set(tmp_path, (400, 400), [(stem, f"1 0.5 0.5 0.03 {h}", f"{c} 0.5 0.5 0.03 {h} 0.9")
                                                   for stem, h, c in (("a", 0.05, 1), ("b", 0.05, 0), ("c", 0.3, 1))])
    out = tmp_path / "out"
    assert main(["eval", "--data", str(root), "--preds", str(preds), "--out", str(out), "--by", "tile_px"]) == 0
    by = json.loads((out / "theirs.json").read_text())["by"]["tile_px"]
    assert list(by) == ["<30 px", "≥80 px"]  # smallest first
    assert by["<30 px"] == {"images": 2, "image_exact": 0.5} and by["≥80 px"] == {"images": 1, "image_exact": 1.0}
    assert "image exact by tile_px" in capsys.readouterr().out
    assert main(["eval", "--data", str(root), "--preds", str(preds), "--out", str(out), "--by", "style"]) != 0
    assert "--by style needs per-image meta files" in capsys.readouterr().err


def test_drawing_marks_each_wrong_box_in_its_colour_and_nothing_else():
    image = np.full((120, 200, 3), 90, np.uint8)
    drawn = eval_report.draw_misses(image, TRUTHS[0], PREDS[0])  # 3m read as 2m at slot 0, 5p missed at slot 2
    assert drawn.shape == image.shape and drawn.dtype == np.uint8
    changed = np.any(drawn != image, axis=2)
    (x0, y0, x1, y1), (m0, _, m1, _) = ([int(v) for v in _box(i)] for i in (0, 2))
    assert changed[y0:y1 + 1, x0].any() and changed[y0:y1 + 1, m0].any()  # both outlined
    orange = np.all(np.abs(drawn[..., ::-1].astype(int) - eval_report.MISS_COLORS["misread"]) < 40, axis=2)
    red = np.all(np.abs(drawn[..., ::-1].astype(int) - eval_report.MISS_COLORS["missed"]) < 40, axis=2)
    assert orange[:, x0:x1 + 1].any() and red[:, m0:m1 + 1].any()
    r0, r_top, r1, r_bottom = (int(v) for v in _box(1))
    assert not changed[r_top + 1:r_bottom, r0 + 3:r1 - 2].any()  # the tile read right: no label over it
    assert np.array_equal(eval_report.draw_misses(image, TRUTHS[2], PREDS[2]), image)  # exact: nothing drawn


def test_a_misread_box_is_drawn_beside_its_tile_outlined_in_white():
    image = np.full((160, 200, 3), 90, np.uint8)
    x0, y0, x1, y1 = _box(0)
    truth = ImageBoxes.truth(np.array([[x0, y0, x1, y1]]), np.array([T3M]))
    read = ImageBoxes.preds(np.array([[x0, y0 + 8, x1, y1 + 8]]), np.array([T2M]), np.array([0.9]))  # lower
    drawn = eval_report.draw_misses(image, truth, read)[..., ::-1].astype(int)  # RGB
    white = np.all(drawn > 230, axis=2)
    orange = np.all(np.abs(drawn - eval_report.MISS_COLORS["misread"]) < 40, axis=2)
    assert white[int(y1) - 1:int(y1) + 1, int(x0) + 5:int(x1) - 5].all()  # the tile's bottom edge: white
    assert orange[int(y1) + 7:int(y1) + 9, int(x0) + 5:int(x1) - 5].all()  # the box's, lower: orange
    assert not orange[int(y1) - 1:int(y1) + 1, int(x0) + 5:int(x1) - 5].any()


def test_eval_cli_draws_only_the_images_it_missed(tmp_path, capsys, eval_scores_only):
    root, preds = _tiny_set(tmp_path, (200, 100), [(stem, "1 0.5 0.5 0.2 0.5", f"{c} 0.5 0.5 0.2 0.5 0.9")
                                                   for stem, c in (("a", 0), ("b", 1))], colour=(80, 80, 80))
    out = tmp_path / "drawn"
    assert main(["eval", "--data", str(root), "--preds", str(preds), "--out", str(tmp_path / "o"),
                 "--draw-misses", str(out)]) == 0
    assert [p.name for p in (out / "theirs").iterdir()] == ["a.jpg"]
    assert Image.open(out / "theirs" / "a.jpg").size == (200, 100)
    assert "1 pictures of images not read exactly" in capsys.readouterr().out
