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


@pytest.mark.parametrize("share, told", [pytest.param(0.45, False, id="under_half_the_yardstick"),
                                          pytest.param(0.55, True, id="over_half")])
def test_a_face_is_told_when_what_shows_differs_from_each_other_face_in_half_the_yardstick(share, told):
    """1m beside 2m: hide every pixel where they differ but ``share`` of the yardstick (the set's two most alike
    faces' difference), the rest of the face in sight. Told exactly when that share is at least a half, however
    little of the face is hidden."""
    faces = procedural_set(0)
    one, two = Tile("1m").index, Tile("2m").index
    shape = faces.face(one, HEIGHT_PX).shape[:2]
    art = legible.art_at(faces, HEIGHT_PX, shape)
    apart = np.flatnonzero(legible.differs(art, one)[two])
    keep = int(round(share * art.least))
    assert len(apart) > keep and len(apart) - keep < art.least  # hidden: fewer pixels than any two faces differ in
    shown = np.ones(shape, bool)
    shown.flat[apart[keep:]] = False
    assert legible.face_told(faces, one, HEIGHT_PX, shown) is told
    assert legible.face_told(faces, one, HEIGHT_PX, np.ones(shape, bool))


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


def test_a_face_under_a_finger_is_unread_and_counted_hidden(monkeypatch):
    """Seed 99's photo 119: a finger lies over a 7m of the hand inside the frame, only a red tip of 七 showing
    (looked at by eye). The tile is unread and hidden (not cut by the frame), the hand incomplete; drawn with the
    same fingers left out of the judgement, every face is told."""
    from xingzi.datasets.synth import generate

    sample = render_sample(99, 119, 640)
    unread = [t for t in sample.meta["tiles"] if t.get("unread")]
    assert [(t["face"], t["role"]) for t in unread] == [("7m", "concealed")]
    x0, y0, x1, y1 = unread[0]["xyxy"]
    w, h = sample.meta["size"]
    assert min(x0, y0) > 0 and x1 < w and y1 < h
    assert sample.meta["hidden"] == 1 and not sample.meta["complete"]

    drawn = generate.draw_fingers
    monkeypatch.setattr(generate, "draw_fingers", lambda img, rng: 0 * drawn(img, rng))
    unseen = render_sample(99, 119, 640)
    assert not any(t.get("unread") for t in unseen.meta["tiles"]) and unseen.meta["complete"]
