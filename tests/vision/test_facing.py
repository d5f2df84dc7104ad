"""Which way tiles face (vision/facing.py) and the row's reading way it sets (rowgeom.reading_way)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from xingzi.datasets.synth import faces
from xingzi.engine.notation import parse_tiles
from xingzi.engine.tiles import Tile
from xingzi.vision import facing, perturb, rowgeom
from xingzi.vision.detections import Detections
from xingzi.vision.facing import face_up, with_up
from xingzi.vision.grouping import group
from xingzi.vision.pipeline import Context, analyse
from xingzi.vision.rowgeom import UP_STEP

TABLE = (40, 90, 30)  # BGR felt
PLATE = 235.0
QUARTERS = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}  # a tile's top, photo turned k quarters clockwise


def turned(image: np.ndarray, xyxy: np.ndarray, quarters: int) -> tuple[np.ndarray, np.ndarray]:
    """The photo and its boxes turned clockwise by ``quarters`` quarter turns (vision/perturb.py's rot90)."""
    boxes = np.asarray(xyxy, np.float64).reshape(-1, 4)
    for _ in range(quarters % 4):
        boxes = perturb.get("rot90").boxes(boxes, image.shape[1], image.shape[0])
        image = perturb.get("rot90").image(image)
    return image, boxes.astype(np.float32)


def paste(image: np.ndarray, face_bgra: np.ndarray, x: int, y: int) -> list[float]:
    """The face drawn on an ivory tile at (x, y); its box."""
    h, w = face_bgra.shape[:2]
    alpha = face_bgra[..., 3:4].astype(np.float32) / 255
    image[y:y + h, x:x + w] = (face_bgra[..., :3] * alpha + PLATE * (1 - alpha)).astype(np.uint8)
    return [x, y, x + w, y + h]


def one_tile(face_set: faces.FaceSet, index: int) -> tuple[np.ndarray, np.ndarray]:
    face = face_set.face(index, 100)
    image = np.full((face.shape[0] + 40, face.shape[1] + 40, 3), TABLE, np.uint8)
    return image, np.array([paste(image, face, 20, 20)], np.float32)


def detections(xyxy: np.ndarray | list[list[float]], tiles: list[int]) -> Detections:
    return Detections(np.asarray(xyxy, np.float32), np.array(tiles, np.int64), np.ones(len(tiles), np.float32))


@pytest.mark.parametrize("style", ["procedural:0", "procedural:7", "brush:1", "fluffy_regular"])
@pytest.mark.parametrize("quarters", [0, 1, 2, 3])
def test_every_wan_face_points_to_its_top_at_every_quarter_turn(style: str, quarters: int) -> None:
    name, _, k = style.partition(":")
    face_set = {"procedural": faces.procedural_set, "brush": faces.brush_set}[name](int(k)) if k else \
        faces.load_pack(name)
    for index in range(9):  # 1m..9m
        image, box = turned(*one_tile(face_set, index), quarters)
        up = face_up(image, detections(box, [index]))[0]
        assert up @ np.array(QUARTERS[quarters]) > 0.1, (style, index, up)
        assert abs(up @ np.array(QUARTERS[(quarters + 1) % 4])) < abs(up @ np.array(QUARTERS[quarters]))


@pytest.mark.parametrize("style", ["procedural:0", "procedural:13", "brush:2", "gnome_smooth", "unicode_symbola"])
@pytest.mark.parametrize("quarters", [0, 1, 2, 3])
def test_faces_whose_strokes_lie_unevenly_point_to_their_top_at_every_quarter_turn(style: str, quarters: int) -> None:
    """3s (one stick above two), 7s (one above six), 中 (its box above its stroke's long foot): one vote each, on
    hand-drawn faces and on a set whose 萬 faces tell nothing (unicode_symbola) too."""
    name, _, k = style.partition(":")
    face_set = {"procedural": faces.procedural_set, "brush": faces.brush_set}[name](int(k)) if k else \
        faces.load_pack(name)
    for index in (Tile.S3.index, Tile.S7.index, Tile.ZHONG.index):
        image, box = turned(*one_tile(face_set, index), quarters)
        up = face_up(image, detections(box, [index]))[0]
        assert up @ np.array(QUARTERS[quarters]) > 0.7 * UP_STEP, (style, index, up)
        assert np.isclose(np.hypot(*up), UP_STEP), (style, index, up)  # a vote like a 萬 face's, no more


@pytest.mark.parametrize("index, box, why", [
    pytest.param(9, None, "a 筒 face has no red 萬 to place", id="other_suit"),
    pytest.param(Tile.P2.index, None, "a 2p's strokes lie evenly", id="even_face"),
    pytest.param(30, None, "a back shows no face", id="back"),
    pytest.param(0, [30, 30, 40, 40], "a box of 10 px", id="tiny"),
    pytest.param(0, [-60, -60, 10, 10], "a box mostly off the photo", id="off_photo"),
])
def test_a_face_that_cannot_tell_its_top_says_nothing(index: int, box: list[float] | None, why: str) -> None:
    image, first = one_tile(faces.procedural_set(0), 0)
    up = face_up(image, detections(first if box is None else [box], [index]))
    assert (up == 0).all(), why


def test_a_grey_photo_tells_no_top() -> None:
    image, box = one_tile(faces.procedural_set(0), 4)
    grey = np.repeat(image.mean(axis=2, keepdims=True).astype(np.uint8), 3, axis=2)
    assert (face_up(grey, detections(box, [4])) == 0).all()


def ups(*vectors: tuple[float, float]) -> np.ndarray:
    return np.array(vectors, np.float64).reshape(-1, 2)


RIGHT, LEFT, DOWN = np.array([1.0, 0.0]), np.array([-1.0, 0.0]), np.array([0.0, 1.0])


@pytest.mark.parametrize("u, up, expected", [
    pytest.param(RIGHT, None, RIGHT, id="no_faces_told"),
    pytest.param(RIGHT, ups(*[(0, -0.2)] * 4), RIGHT, id="upright_faces"),
    pytest.param(RIGHT, ups(*[(0, 0.2)] * 4), LEFT, id="faces_upside_down"),
    pytest.param(RIGHT, ups(*[(0, 0.2)] * 2), RIGHT, id="two_faces_are_too_few"),
    pytest.param(RIGHT, ups(*[(0, 0.2)] * 3, (0, 0), (0, 0)), LEFT, id="untold_faces_do_not_count"),
    pytest.param(RIGHT, ups(*[(0, 0.2)] * 4, *[(0, -0.2)] * 2), RIGHT, id="faces_disagreeing"),
    pytest.param(RIGHT, ups(*[(0, 0.01)] * 8), RIGHT, id="faint_evidence_counts_little"),
    pytest.param(DOWN, ups(*[(1, 0)] * 4), DOWN, id="photo_turned_a_quarter_clockwise"),
    pytest.param(DOWN, ups(*[(-1, 0)] * 4), -DOWN, id="photo_turned_a_quarter_anticlockwise"),
])
def test_the_row_reads_left_to_right_under_the_tiles_tops(u: np.ndarray, up: np.ndarray | None,
                                                         expected: np.ndarray) -> None:
    assert np.allclose(rowgeom.reading_way(u, up), expected)


HAND = "11123456789999m"  # 九莲宝灯 shape: every end tile a winning tile


def hand_photo(hand: str = HAND) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """A row of 14 tiles at even steps: which end is the winning tile's is a tie the reading way settles."""
    face_set = faces.procedural_set(0)
    tiles = [t.index for t in parse_tiles(hand)]
    width = face_set.face(0, 100).shape[1]
    image = np.full((220, 40 + (width + 4) * len(tiles), 3), TABLE, np.uint8)
    boxes = [paste(image, face_set.face(i, 100), 20 + k * (width + 4), 50) for k, i in enumerate(tiles)]
    return image, np.array(boxes, np.float32), tiles


@pytest.mark.parametrize("quarters", [0, 1, 2, 3])
def test_a_turned_photo_guesses_the_winning_tile_at_the_same_end(quarters: int) -> None:
    image, boxes, tiles = hand_photo()
    upright = group(with_up(image, detections(boxes, tiles)))
    image, boxes = turned(image, boxes, quarters)
    det = with_up(image, detections(boxes, tiles))
    reading = group(det)
    assert reading.win_tile is not None and upright.win_tile is not None
    assert reading.win_tile == upright.win_tile and not reading.win_set_apart
    assert reading.notation == upright.notation
    assert np.allclose(reading.direction, QUARTERS[(quarters + 1) % 4], atol=1e-6)  # the tiles' right-hand way
    assert analyse(image, det).reading.notation == upright.notation


@pytest.mark.parametrize("quarters", [1, 2, 3])
def test_a_hand_without_wan_tiles_is_read_the_same_way_turned(quarters: int, monkeypatch) -> None:
    """No 萬 tile: the 3s, 7s and 中 faces tell the tops. Either end (1s, 中) may have won: the same one is guessed at
    every turn; told by the boxes alone the half-turned row is read backwards."""
    image, boxes, tiles = hand_photo("111333777s99s中中中")
    upright = group(with_up(image, detections(boxes, tiles)))
    image, boxes = turned(image, boxes, quarters)
    reading = group(with_up(image, detections(boxes, tiles)))
    assert upright.win_tile is not None and (reading.win_tile, reading.notation) == (upright.win_tile, upright.notation)
    monkeypatch.setattr(facing, "SHAPE_SIGN", {})
    if quarters == 2:
        assert group(with_up(image, detections(boxes, tiles))).win_tile != upright.win_tile


def test_without_faces_told_a_half_turned_row_reads_the_usual_way() -> None:
    """No tops known (a 筒 hand, grey photo): the boxes alone decide, rightwards, as before."""
    image, boxes, tiles = hand_photo()
    image, boxes = turned(image, boxes, 2)
    reading = group(detections(boxes, tiles))
    assert np.allclose(reading.direction, (1.0, 0.0))


def test_the_top_travels_with_the_boxes() -> None:
    image, boxes, tiles = hand_photo()
    det = with_up(image, detections(boxes, tiles))
    assert det.up is not None and det.subset(np.arange(3)).up is not None
    assert np.array_equal(det.subset(np.array([2, 5])).up, det.up[[2, 5]])
    more = det.joined(detections(boxes[:1] + 300, tiles[:1]))
    assert more.up is not None and more.up.shape == (15, 2) and (more.up[-1] == 0).all()
    with pytest.raises(ValueError, match=r"up must be \(N, 2\)"):
        Detections(det.xyxy, det.cls, det.conf, up=np.zeros((3, 2), np.float32))


def test_the_check_tool_finds_the_true_way_of_a_row_turned_half_round(tmp_path) -> None:
    import cv2

    from tools.facing_check import data_row, main, real_row, turns_row

    image, boxes, tiles = hand_photo()
    image, boxes = turned(image, boxes, 2)  # laid left to right by the winner, seen from across the table
    (tmp_path / "images").mkdir()
    (tmp_path / "meta").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "p.png"), image)
    laid = [{"cls": c, "xyxy": [float(v) for v in b], "role": "concealed", "face_down": False, "sideways": False}
            for c, b in zip(tiles, boxes, strict=True)]
    (tmp_path / "meta" / "p.json").write_text(json.dumps({"layout": "rows", "tiles": laid}))
    assert data_row(tmp_path).endswith("1 photos in rows; the usual way is right in 0; the faces turned it in 1; "
                                       "the way read is right in 1")
    own = analyse(image, with_up(image, detections(boxes, tiles)), Context(self_draw=True)).result
    assert own is not None and own["valid"]
    meta = {"layout": "rows", "tiles": laid, "situation": {"self_draw": True}, "expect": {"valid": True, "own": own["own"]}}
    (tmp_path / "meta" / "p.json").write_text(json.dumps(meta))
    assert turns_row(tmp_path).endswith("1 photos; the same reading as taken, at 180° and at 90° in 1; "
                                        "炮 total right in 1 as taken, 2 of 2 turned")
    assert "at 180° and at 90° in 0;" in turns_row(tmp_path, tops=False)  # the boxes alone read it backwards once
    (tmp_path / "labels").mkdir()
    h, w = image.shape[:2]
    (tmp_path / "labels" / "p.txt").write_text("".join(
        f"{c} {(b[0] + b[2]) / 2 / w} {(b[1] + b[3]) / 2 / h} {(b[2] - b[0]) / w} {(b[3] - b[1]) / h}\n"
        for c, b in zip(tiles, boxes, strict=True)))
    assert real_row(tmp_path).endswith("1 photos of a hand's worth of faces; read the other way round in 1: p")
    with pytest.raises(SystemExit) as said:
        main([])
    assert said.value.code == 2
