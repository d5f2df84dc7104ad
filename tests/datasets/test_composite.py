"""Hands laid out from real tile pictures (datasets/composite.py): pictures chosen, truths right, bad input said."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from group_gaps import overlaps_between_groups
from yolo_folder import label_text

from xingzi.cli import main
from xingzi.datasets.composite import CompositeConfig, build, square_on, tile_bank
from xingzi.datasets.yolo import read_labels, xyxy_to_yolo
from xingzi.engine import parse_meld, parse_tiles, score_situation
from xingzi.engine.tiles import CLASS_NAMES

IVORY = (225, 235, 238)  # BGR of a tile's face


def _face(cls: int, w: int = 40, h: int = 56) -> np.ndarray:
    tile = np.full((h, w, 3), IVORY, np.uint8)
    cv2.putText(tile, str(cls), (4, h // 2 + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 160), 2)
    return tile


def _real_folder(root: Path, missing: int | None = None) -> Path:
    """One photo per face: the face upright, a second copy lying flat (too wide), a third at a slant (table in
    its corners), and an `other` tile (a wind) — only the first is a picture to use."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join([*CLASS_NAMES[:30], "other"]) + "\n")
    for c in range(30):
        if c == missing:
            continue
        photo = np.full((120, 240, 3), (60, 110, 60), np.uint8)
        photo[10:66, 10:50] = _face(c)
        photo[10:50, 70:126] = cv2.rotate(_face(c), cv2.ROTATE_90_CLOCKWISE)
        slant = _face(c)
        cv2.fillPoly(slant, [np.array([[0, 0], [12, 0], [0, 14]])], (60, 110, 60))
        photo[60:116, 140:180] = slant
        photo[10:66, 190:230] = _face(31)
        boxes = np.array([[10, 10, 50, 66], [70, 10, 126, 50], [140, 60, 180, 116], [190, 10, 230, 66]], float)
        rows = np.column_stack([[c, c, c, 30], xyxy_to_yolo(boxes, 240, 120)])
        cv2.imwrite(str(root / "images" / f"face{c:02d}.png"), photo)
        (root / "labels" / f"face{c:02d}.txt").write_text(label_text(rows))
    return root


def test_only_upright_pictures_square_on_of_the_30_faces_are_kept(tmp_path):
    bank = tile_bank(_real_folder(tmp_path / "real"))
    assert sorted(bank) == list(range(30)) and all(len(v) == 1 for v in bank.values())
    assert all(p.shape == (56, 40, 3) for v in bank.values() for p in v)
    assert square_on(_face(3)) and not square_on(np.full((56, 40, 3), (60, 110, 60), np.uint8))


@pytest.mark.parametrize("left_out", [None, "pair.rf.1.png"], ids=["both-copies-kept", "errata-leave-out-the-first"])
def test_a_box_over_its_neighbour_and_a_second_copy_of_a_photo_give_no_picture(tmp_path, monkeypatch, left_out):
    """Augmented copies of one photo (Roboflow's `<source>.rf.<hash>`) show the same tiles: only the tightest copy
    the label errata keep gives pictures. A box grown over its neighbour's (IoU over 0.05) holds part of that tile:
    neither gives one."""
    from xingzi.datasets import composite

    kept = composite.training_images
    monkeypatch.setattr(composite, "training_images", lambda folder: [p for p in kept(folder) if p.name != left_out])
    root = _real_folder(tmp_path / "real")
    photo = np.full((120, 240, 3), (60, 110, 60), np.uint8)
    for x, c in ((10, 3), (52, 4), (120, 6)):
        photo[10:66, x:x + 40] = _face(c)
    boxes = np.array([[10, 10, 50, 66], [52, 10, 92, 66], [85, 10, 160, 66]], float)  # 6's box grown over 4's
    for name in ("pair.rf.1", "pair.rf.2"):  # the same photo twice: the second copy adds nothing
        cv2.imwrite(str(root / "images" / f"{name}.png"), photo)
        (root / "labels" / f"{name}.txt").write_text(label_text(np.column_stack([[3, 4, 6],
                                                                                 xyxy_to_yolo(boxes, 240, 120)])))
    bank = tile_bank(root)
    assert len(bank[3]) == 2  # its own photo's and one copy's
    assert len(bank[4]) == 1 and len(bank[6]) == 1  # their own photos' only


def test_a_face_with_no_picture_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no upright picture of 7m"):
        tile_bank(_real_folder(tmp_path / "real", missing=6))


def test_a_folder_short_of_a_face_is_one_line_from_the_command(tmp_path, capsys):
    """``--real`` on a folder without an upright picture of every face ended in a traceback (ValueError)."""
    from xingzi.datasets.composite import main as composite_main

    with pytest.raises(SystemExit) as stopped:
        composite_main(["--real", str(_real_folder(tmp_path / "real", missing=6)), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("python -m xingzi.datasets.composite: error: ")
    assert "no upright picture of 7m; a hand needs every face" in err and not (tmp_path / "out").exists()


def test_the_command_says_what_it_does_under_its_module_name(capsys):
    import xingzi.datasets.composite as composite

    with pytest.raises(SystemExit) as stopped:
        composite.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert stopped.value.code == 0 and out.startswith("usage: python -m xingzi.datasets.composite ")
    assert " ".join(composite.__doc__.split("\n\n")[0].split()) in out  # its first paragraph, not another


def test_hands_laid_out_carry_their_truth(tmp_path):
    out = tmp_path / "composite"
    summary = build(CompositeConfig(str(_real_folder(tmp_path / "real")), str(out), n=6, seed=3))
    assert summary["pictures_per_face"]["5p"] == 1
    images = sorted((out / "images").glob("*.jpg"))
    assert len(images) == 6 and (out / "data.yaml").is_file()
    for image in images:
        meta = json.loads((out / "meta" / f"{image.stem}.json").read_text())
        assert meta["expect"] == score_situation(meta["situation"]) and meta["win_shown"]
        rows = read_labels(out / "labels" / f"{image.stem}.txt")
        assert [int(r) for r in rows[:, 0]] == [t["cls"] for t in meta["tiles"]]
        roles = [t["role"] for t in meta["tiles"]]
        standing = sorted(t["cls"] for t in meta["tiles"] if t["role"] in ("concealed", "win"))
        assert standing == sorted(t.index for t in parse_tiles(meta["situation"]["hand"]))
        in_melds = sum(1 for r in roles if r in ("pung", "kong", "concealed_kong"))
        assert in_melds == sum(parse_meld(m).kind.size for m in meta["situation"]["melds"])
        assert roles.count("fa") == meta["situation"]["fa"] and roles.count("win") == 1
        for k, text in enumerate(meta["situation"]["melds"], start=1):  # each meld its own group, turned as shown
            meld = parse_meld(text)
            tiles = [t for t in meta["tiles"] if t["group"] == k]
            assert len(tiles) == meld.kind.size and all(t["role"] == meld.kind.value for t in tiles)
            assert sum(t["sideways"] for t in tiles) == (0 if meld.kind.value == "concealed_kong" else 1)
        assert all(t["group"] == 0 for t in meta["tiles"] if t["role"] in ("concealed", "win"))
        boxes, groups = np.array([t["xyxy"] for t in meta["tiles"]]), np.array([t["group"] for t in meta["tiles"]])
        assert not (overlaps_between_groups(boxes, groups) > 0).any()  # groups lie apart
        upright = boxes[[not t["sideways"] for t in meta["tiles"]]]
        assert np.median((upright[:, 3] - upright[:, 1]) / (upright[:, 2] - upright[:, 0])) > 1  # 3:4, slanted
        assert cv2.imread(str(image)).shape[:2] == (960, 1280)
    again = tmp_path / "again"
    build(CompositeConfig(str(tmp_path / "real"), str(again), n=6, seed=3))
    assert [p.read_bytes() for p in images] == [p.read_bytes() for p in sorted((again / "images").glob("*.jpg"))]


def test_the_pipeline_scores_the_laid_out_hands_from_their_true_boxes(tmp_path):
    out = tmp_path / "composite"
    build(CompositeConfig(str(_real_folder(tmp_path / "real")), str(out), n=8, seed=5))
    numbers = tmp_path / "bench.json"
    assert main(["bench", "pipeline", "--data", str(out), "--boxes", "truth", "--json-out", str(numbers)]) == 0
    got = json.loads(numbers.read_text())
    assert got["samples"] == 8 and got["pao_total_exact_pct"] == 100.0


def test_no_hands_asked_for_is_refused(tmp_path):
    with pytest.raises(ValueError, match="--n must be at least 1"):
        build(CompositeConfig(str(tmp_path), str(tmp_path / "out"), n=0))


@pytest.mark.parametrize("backs", [pytest.param(((300, 0, 0),), id="over_255"), pytest.param((), id="none"),
                                   pytest.param(((10, 20),), id="two_numbers")])
def test_back_colours_that_are_no_colours_are_refused_before_any_work(tmp_path, backs):
    with pytest.raises(ValueError, match="back colours must be B,G,R triples of 0..255"):
        build(CompositeConfig(str(tmp_path), str(tmp_path / "out"), n=1, backs=backs))
    assert not (tmp_path / "out").exists()


def test_a_back_colour_is_read_from_the_command_line_to_its_ends():
    import argparse

    from xingzi.datasets.composite import _bgr

    assert _bgr("0,128,255") == (0, 128, 255)
    for bad in ("0,128,256", "-1,0,0", "1,2"):
        with pytest.raises(argparse.ArgumentTypeError, match="expected B,G,R"):
            _bgr(bad)


def test_no_hands_go_into_a_folder_of_other_classes(tmp_path):
    real = _real_folder(tmp_path / "real")  # its classes.txt names id 30 `other`: our data.yaml would make it `back`
    before = sorted(p.name for p in real.iterdir())
    with pytest.raises(ValueError, match="holds labels of other classes than ours"):
        build(CompositeConfig(str(real), str(real), n=1))
    assert sorted(p.name for p in real.iterdir()) == before


def test_the_backs_take_the_colours_asked_for(tmp_path, capsys):
    from xingzi.datasets.composite import main as composite_main

    purple = (140, 60, 140)
    out = tmp_path / "composite"
    assert composite_main(["--real", str(_real_folder(tmp_path / "real")), "--out", str(out), "--n", "12",
                           "--seed", "4", "--back", ",".join(map(str, purple))]) == 0
    assert json.loads((out / "composite.json").read_text())["backs"] == [list(purple)]
    middles = []
    for image in sorted((out / "images").glob("*.jpg")):
        picture = cv2.imread(str(image))
        for row in read_labels(out / "labels" / f"{image.stem}.txt"):
            if int(row[0]) == 30:  # a face-down tile: its middle is the colour asked for
                cx, cy = row[1] * picture.shape[1], row[2] * picture.shape[0]
                middles.append(picture[int(cy) - 2:int(cy) + 3, int(cx) - 2:int(cx) + 3].reshape(-1, 3).mean(0))
    assert middles, "no face-down tile was laid out: pick a seed that lays one"
    assert np.abs(np.array(middles) - purple).max() < 40
    for bad in ("140,60", "140,60,300", "a,b,c"):
        with pytest.raises(SystemExit):
            composite_main(["--real", str(tmp_path / "real"), "--out", str(tmp_path / "x"), "--back", bad])
        assert "expected B,G,R" in capsys.readouterr().err
    with pytest.raises(ValueError, match="back colours must be B,G,R triples of 0..255"):
        build(CompositeConfig(str(tmp_path / "real"), str(tmp_path / "y"), n=1, backs=()))
