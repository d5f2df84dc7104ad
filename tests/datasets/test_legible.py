"""Whether the part of a synthetic tile's face a photo shows tells its face (datasets/synth/legible.py)."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.datasets.synth import legible
from xingzi.datasets.synth.faces import procedural_set
from xingzi.datasets.synth.generate import render_sample
from xingzi.engine.tiles import Tile

HEIGHT_PX = 40  # a tile 40 px tall in the photo: the texture level drawn for it


def _rows(tex_shape, lo: float, hi: float) -> np.ndarray:
    """A mask over a texture showing the rows between the shares ``lo`` and ``hi`` of its height."""
    th, tw = tex_shape[:2]
    shown = np.zeros((th, tw), bool)
    shown[int(lo * th):int(hi * th)] = True
    return shown


@pytest.mark.parametrize("variant", [0, 3, 7])
@pytest.mark.parametrize("face", ["1m", "5m", "9m"])
def test_a_character_tile_cut_through_its_number_shows_only_what_all_of_them_share(variant, face):
    """The procedural 萬 tiles write their number above 萬: the lower part alone is the same on 1m … 9m, the upper
    three fifths tell them apart, and the whole face tells it from every other face."""
    faces = procedural_set(variant)
    cls = Tile(face).index
    shape = faces.face(cls, HEIGHT_PX).shape
    assert legible.telling_share(faces, cls, HEIGHT_PX, _rows(shape, 0.55, 1.0)) < legible.MIN_TELLING
    assert legible.telling_share(faces, cls, HEIGHT_PX, _rows(shape, 0.0, 0.6)) >= legible.MIN_TELLING
    assert legible.telling_share(faces, cls, HEIGHT_PX, _rows(shape, 0.0, 1.0)) >= 1.0  # the set's yardstick
    assert legible.telling_share(faces, cls, HEIGHT_PX, _rows(shape, 0.0, 0.0)) == 0.0


def test_the_shown_part_is_taken_back_into_the_texture_through_the_frame_and_the_tiles_in_front():
    """A face drawn upright over x 10..34, y 10..42 of a 50 x 40 photo: the frame cuts it at y 40, a nearer tile
    (id 7) covers its left half. What shows is the texture's right half, less the rows below the frame."""
    ids = np.full((40, 50), -1, np.int16)
    ids[10:, 10:34] = 3
    ids[:, :22] = 7
    quad = np.array([[10, 10], [34, 10], [34, 42], [10, 42]], float)
    shown = legible.shown_in_texture(ids, 3, quad, (64, 48, 4))
    assert shown.shape == (64, 48)
    assert not shown[:, :22].any() and shown[:56, 26:46].all()  # left half behind tile 7; right half in sight
    assert not shown[62:].any()  # the frame ends at y 40 = texture row 60
    assert not legible.shown_in_texture(ids, 5, quad, (64, 48, 4)).any()  # another tile's face: none of it
    far = np.array([[60, 10], [80, 10], [80, 30], [60, 30]], float)
    assert not legible.shown_in_texture(ids, 3, far, (64, 48, 4)).any()  # wholly outside the photo


@pytest.mark.parametrize("index, face", [pytest.param(142, "1m", id="a_1m_cut_through_its_number"),
                                         pytest.param(231, "1m", id="a_hand_tile_cut_the_same_way")])
def test_a_tile_the_frame_cuts_through_its_face_is_labelled_unread(index, face):
    """Seed 99 at 640 px: a 1m lies at the photo's top edge, only its 萬 inside (looked at by eye). Its label stays
    (a detector may still learn where a tile is), marked ``unread``; a hand tile so cut leaves the photo
    incomplete, as one the frame cuts off."""
    sample = render_sample(99, index, 640)
    unread = [t for t in sample.meta["tiles"] if t.get("unread")]
    assert [t["face"] for t in unread] == [face]
    assert unread[0]["xyxy"][1] == 0.0  # at the top edge
    assert len(sample.boxes) == len(sample.meta["tiles"])  # labelled all the same
    assert sample.meta["complete"] is (unread[0]["role"] == "loose")
    assert "hidden" not in sample.meta  # the frame cut it: no tile in front


def test_only_faces_the_frame_cuts_or_a_nearer_tile_covers_are_unread():
    """Seed 99's first 40 photos at 640 px: each unread tile touches the photo's edge or is counted as hidden."""
    unread = 0
    for index in range(40):
        sample = render_sample(99, index, 640)
        w, h = sample.meta["size"]
        for t in sample.meta["tiles"]:
            if t.get("unread"):
                unread += 1
                x0, y0, x1, y1 = t["xyxy"]
                assert min(x0, y0) == 0 or x1 == w or y1 == h or sample.meta.get("hidden"), (index, t)
    assert unread >= 1  # photo 27: a 7m at the left edge
