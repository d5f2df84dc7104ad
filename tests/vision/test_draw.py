"""Drawing a reading onto the photo: type in = type out, colours by role, caption, font coverage."""

from __future__ import annotations

import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image

from xingzi.engine.tiles import CLASS_NAMES_CN, Tile
from xingzi.vision.draw import COLORS, FONT_PATH, caption_lines, draw
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.names import ITEM_NAMES, font_text

BG = (60, 120, 40)  # RGB of the empty table


@pytest.fixture(scope="module")
def reading():
    layout = hand_layout("123m55p12s", "3s", ["pung 中", "concealed_kong 4s"], 2, size=50, center=(500, 380))
    return group(layout.detections)


def rgb_at(image_rgb: np.ndarray, x: float, y: float) -> tuple[int, ...]:
    return tuple(int(v) for v in image_rgb[int(round(y)), int(round(x))])


def test_numpy_bgr_in_numpy_bgr_out_with_role_colours(reading):
    bgr = np.zeros((760, 1000, 3), np.uint8)
    bgr[:] = BG[::-1]
    out = draw(bgr, reading)
    assert isinstance(out, np.ndarray) and out.shape == bgr.shape and out.dtype == np.uint8
    assert (bgr == np.array(BG[::-1])).all()  # the input is left alone
    rgb = out[..., ::-1]
    for role in ("win", "pung", "concealed_kong", "fa"):
        i = reading.roles.index(role)
        x0, y0, x1, y1 = reading.detections.xyxy[i]
        assert rgb_at(rgb, (x0 + x1) / 2, int(y1) - 1) == COLORS[role], role  # bottom edge of its box


def test_a_tile_set_aside_is_crossed_out_in_its_own_colour():
    layout = hand_layout("123m55p12s", "3s", ["pung 中"], 1, size=50, center=(500, 380))
    fa = layout.detections.cls.tolist().index(Tile.FA.index)
    reading = group(layout.detections, [fa])
    assert reading.roles[fa] == "ignored" and reading.fa == 0
    rgb = np.asarray(draw(Image.new("RGB", (1000, 760), BG), reading))
    x0, y0, x1, y1 = reading.detections.xyxy[fa]
    assert rgb_at(rgb, (x0 + x1) / 2, int(y1) - 1) == COLORS["ignored"]  # its box
    assert rgb_at(rgb, (x0 + x1) / 2, (y0 + y1) / 2) == COLORS["ignored"]  # the cross through its middle


def test_pil_in_pil_out(reading):
    img = Image.new("RGB", (1000, 760), BG)
    out = draw(img, reading.detections)
    assert isinstance(out, Image.Image) and out.size == img.size
    x0, y0, x1, y1 = reading.detections.xyxy[0]
    assert out.getpixel((int((x0 + x1) / 2), int(y1) - 1)) == COLORS["concealed"]


def test_grayscale_array_is_accepted(reading):
    out = draw(np.full((760, 1000), 128, np.uint8), reading)
    assert out.shape == (760, 1000, 3)


@pytest.mark.parametrize("bad", [None, "photo.jpg", np.zeros((2, 2, 2, 2), np.uint8)], ids=["none", "str", "4d"])
def test_bad_image_is_a_clear_error(bad, reading):
    with pytest.raises(ValueError, match="PIL image or an HxW"):
        draw(bad, reading)


def test_caption_changes_the_picture_top(reading):
    img = Image.new("RGB", (1000, 760), BG)
    plain = np.asarray(draw(img, reading.detections))
    scored = np.asarray(draw(img, reading, {"valid": True, "own": 3, "items": [], "payments": []}))
    assert (plain[:20] != scored[:20]).any()


@pytest.mark.parametrize(
    "result,expected",
    [
        pytest.param({"valid": True, "own": 3, "items": [{"key": "ping_hu", "pao": 1}, {"key": "concealed", "pao": 2}],
                      "payments": [{"payer": 0, "pao": 8, "amount": 16}]},
                     ["共 3 炮  平胡1 门前清2", "付 16"], id="valid"),
        pytest.param({"valid": False, "reason": "own 1 < 2"}, ["诈胡 invalid: own 1 < 2"], id="invalid"),
        pytest.param(None, [], id="none"),
    ],
)
def test_caption_lines(result, expected):
    assert caption_lines(result) == expected


def test_vendored_font_has_every_character_we_print():
    cmap = TTFont(str(FONT_PATH)).getBestCmap()
    needed = set(font_text())
    assert set("".join(CLASS_NAMES_CN)) <= needed
    assert {c for zh, _ in ITEM_NAMES.values() for c in zh} <= needed
    missing = sorted(c for c in needed if ord(c) not in cmap and not c.isspace())
    assert missing == []
