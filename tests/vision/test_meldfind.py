"""Melds in one segment: concealed kongs laid end to end with other kongs, walls of face-down tiles."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout
from xingzi.vision.meldfind import _meld_like, _take_melds, row_kongs

NO_FACE = "a concealed kong shows no face: cannot tell which tile it is"


def classes(seq: str) -> np.ndarray:
    """Faces (e.g. '7m', '7m*' lying sideways) or D for a back, as class ids."""
    return np.array([BACK_CLASS if t == "D" else Tile.parse(t.rstrip("*")).index for t in seq.split()], np.int64)


def take(seq: str, is_main: bool = False) -> tuple[list[Meld], list[str], list[str]]:
    """Melds, roles and problems of one segment (``is_main``: the hand row) written as for ``classes``."""
    cls = classes(seq)
    n = len(cls)
    melds: list[Meld] = []
    roles, meld_of, problems = ["loose"] * n, [-1] * n, []
    sideways = np.array([t.endswith("*") for t in seq.split()], bool)
    _take_melds(list(range(n)), cls, sideways, is_main, melds, roles, meld_of, problems)
    return melds, roles, problems


@pytest.mark.parametrize("seq,melds,no_face", [
    pytest.param("7m 7m 7m 7m D D D D D 5m 5m D", [Meld(MeldKind.CONCEALED_KONG, Tile.M5), Meld(MeldKind.KONG, Tile.M7)],
                 True, id="kong-alldown-kong-facesup"),
    pytest.param("D 5m 5m D D D D D 7m 7m 7m 7m", [Meld(MeldKind.CONCEALED_KONG, Tile.M5), Meld(MeldKind.KONG, Tile.M7)],
                 True, id="reversed"),
    pytest.param("9m 9m 9m D D D 4p", [Meld(MeldKind.PUNG, Tile.M9), Meld(MeldKind.CONCEALED_KONG, Tile.P4)],
                 False, id="pung-then-kong-face-up-at-far-end"),
    pytest.param("2s 2s 2s 2s D D D", [Meld(MeldKind.KONG, Tile.S2)], False, id="kong-then-three-backs"),
    pytest.param("D D D D D D 3s", [], False, id="wall-then-a-face"),
    pytest.param("D D D D D D D D", [], False, id="eight-backs-are-a-wall"),
    pytest.param("D D D D 5m D D 5m", [Meld(MeldKind.CONCEALED_KONG, Tile.M5)], True, id="all-down-then-face-up-ends"),
    # 2s 2s beside three backs, on either side: a 2s kong shown FDDD or DDDF would make five 2s.
    pytest.param("2s 2s D D D", [], False, id="pair-beside-three-backs-is-no-kong"),
    pytest.param("D D D 2s 2s", [], False, id="three-backs-beside-a-pair-at-the-end-is-no-kong"),
    pytest.param("D D D 4p 9m 9m 9m", [Meld(MeldKind.CONCEALED_KONG, Tile.P4), Meld(MeldKind.PUNG, Tile.M9)],
                 False, id="kong-face-up-at-near-end-then-pung"),
    # Face up at its start, a pung after it: no back beyond, so the four are a kong.
    pytest.param("4p D D D 9m 9m 9m", [Meld(MeldKind.CONCEALED_KONG, Tile.P4), Meld(MeldKind.PUNG, Tile.M9)],
                 False, id="kong-face-up-at-its-start-then-pung"),
    # The other way round: the face after the pung is not the pung's, so it starts a kong of its own.
    pytest.param("9m 9m 9m 4p D D D", [Meld(MeldKind.PUNG, Tile.M9), Meld(MeldKind.CONCEALED_KONG, Tile.P4)],
                 False, id="pung-then-kong-face-up-at-its-start"),
    # The face before four backs belongs to what lies before it: the backs are a kong of their own.
    pytest.param("5m D D D D 7m 7m 7m", [Meld(MeldKind.PUNG, Tile.M7)], True, id="face-then-all-down-kong"),
    pytest.param("5m D D D D", [], True, id="face-then-all-down-kong-ending-the-row"),
    pytest.param("5m D D 7m", [], False, id="two-faces-are-no-kong"),
    # Turned down at one end, as some tables show a concealed kong; not when a fourth face or a back lies beside.
    pytest.param("9m 9m 9m D", [Meld(MeldKind.CONCEALED_KONG, Tile.M9)], False, id="three-up-one-down"),
    pytest.param("D 9m 9m 9m", [Meld(MeldKind.CONCEALED_KONG, Tile.M9)], False, id="one-down-three-up"),
    pytest.param("9m 9m D D", [Meld(MeldKind.CONCEALED_KONG, Tile.M9)], False, id="two-up-two-down"),
    pytest.param("D D 9m 9m", [Meld(MeldKind.CONCEALED_KONG, Tile.M9)], False, id="two-down-two-up"),
    pytest.param("D 9m 9m 9m 9m", [Meld(MeldKind.KONG, Tile.M9)], False, id="four-up-beside-a-back-are-a-kong"),
    pytest.param("9m 9m D D D D", [], True, id="pair-beside-an-all-down-kong"),
    # A pung, then a kong shown D白白D that lost its last back: the back is the 白 kong's, not a fourth 6s.
    pytest.param("6s 6s 6s D 白 白", [Meld(MeldKind.PUNG, Tile.S6)], False, id="pung-beside-a-kong-short-of-a-back"),
    pytest.param("7m* 7m 7m 9m", [Meld(MeldKind.PUNG, Tile.M7)], False, id="sideways-first-of-a-pung"),
    pytest.param("7m 7m* 7m 9m", [Meld(MeldKind.PUNG, Tile.M7)], False, id="sideways-mid-pung-then-other-face"),
    # A turned tile beside one other of its face: two tiles are neither a pung nor a kong.
    pytest.param("9m 7m* 7m 5m", [], False, id="sideways-beside-one-of-its-face-is-no-meld"),
    pytest.param("7m 7m*", [], False, id="sideways-pair-at-the-end-is-no-meld"),
])
def test_kongs_laid_end_to_end(seq, melds, no_face):
    found, roles, problems = take(seq)
    assert sorted(found, key=str) == sorted(melds, key=str)
    assert (NO_FACE in problems) is no_face


@pytest.mark.parametrize("seq,melds", [
    pytest.param("D 中 中 中 9p 4s 4s 4s 9p", [], id="three-beside-a-stray-back-stay-in-the-row"),
    pytest.param("1m 2m 3m 9m 9m D D", [], id="two-beside-two-backs-stay-in-the-row"),
    pytest.param("1m 2m 3m 9m D D 9m", [Meld(MeldKind.CONCEALED_KONG, Tile.M9)], id="kong-shown-the-usual-way-is-taken"),
])
def test_the_hand_row_takes_only_the_usual_ways_of_showing_a_kong(seq, melds):
    # In the row a stray back beside a concealed pung is likelier than a kong shown turned down at one end.
    assert take(seq, is_main=True)[0] == melds


@pytest.mark.parametrize("order,shown", [
    pytest.param(["kong 7m", "concealed_kong 中", "concealed_kong 5m"], ("DDDD", "DFFD"), id="all-down-in-middle"),
    pytest.param(["concealed_kong 5m", "concealed_kong 中", "kong 7m"], ("DFFD", "DDDD"), id="reversed"),
])
@pytest.mark.parametrize("angle", [0, 75, 200])
def test_kong_touching_an_all_down_kong_keeps_its_four_faces(order, shown, angle):
    # Melds on their own row, laid with no gaps: one segment of faces and backs.
    layout = hand_layout("99m白白", "白", order, gap=0.0, melds_row=1, kong_shown=shown, angle=angle, sideways_at=-1)
    reading = group(layout.detections)
    assert set(reading.melds) == {Meld(MeldKind.KONG, Tile.M7), Meld(MeldKind.CONCEALED_KONG, Tile.M5)}
    assert NO_FACE in reading.problems
    in_melds = [i for i, r in enumerate(layout.roles) if r not in ("concealed", "win")]
    assert [reading.roles[i] for i in in_melds] == [layout.roles[i] for i in in_melds]


@pytest.mark.parametrize("angle", [0, 75, 200])
def test_kong_face_up_at_its_start_touching_a_pung(angle):
    # A pung then a concealed kong shown face up at its start (FDDD), laid with no gap: the face
    # beside the pung is another tile, so it is the kong's own, not a fourth copy of the pung's.
    layout = hand_layout("123m456s5p", "5p", ["pung 9m", "concealed_kong 4p"], gap=0.0, melds_row=1,
                         kong_shown="FDDD", angle=angle, sideways_at=-1)
    reading = group(layout.detections)
    assert set(reading.melds) == {Meld(MeldKind.PUNG, Tile.M9), Meld(MeldKind.CONCEALED_KONG, Tile.P4)}
    assert reading.tile_count == 15
    in_melds = [i for i, r in enumerate(layout.roles) if r not in ("concealed", "win")]
    assert [reading.roles[i] for i in in_melds] == [layout.roles[i] for i in in_melds]


@pytest.mark.parametrize("seq,meld_like", [
    pytest.param("7m D D 7m", True, id="kong-ends-up"),
    pytest.param("5m 5m 5m 7m 7m 7m 7m", True, id="pung-and-kong"),
    pytest.param("D 5m 7m", False, id="a-back-covers-only-its-neighbour"),
    pytest.param("5m 5m 7m", False, id="pair-and-single"),
    pytest.param("D 5m", False, id="too-short"),
])
def test_meld_like_segments(seq, meld_like):
    cls = classes(seq)
    assert _meld_like(list(range(len(cls))), cls) is meld_like


ROW = classes("1m 1m 1m 1m 5p 5p 5p 5p 9s")


def legal_if_rest(expected: str):
    """A ``legal`` for row_kongs: true when the tiles left in the row are ``expected``."""
    return lambda rest, extra: [int(c) for c in ROW[rest]] == list(classes(expected))


@pytest.mark.parametrize("over,rest,taken", [
    pytest.param(1, "1m 1m 1m 1m 9s", [[4, 5, 6, 7]], id="the-run-that-leaves-a-hand"),
    pytest.param(2, "9s", [[0, 1, 2, 3], [4, 5, 6, 7]], id="two-over-two-kongs"),
    pytest.param(1, "9s", [], id="no-single-kong-leaves-a-hand"),
    pytest.param(3, "", [], id="more-over-than-runs"),
    pytest.param(0, "1m 1m 1m 1m 5p 5p 5p 5p 9s", [], id="not-over"),
    pytest.param(-1, "", [], id="short-row"),
])
def test_row_kongs_taken_only_when_the_rest_is_legal(over, rest, taken):
    assert row_kongs(list(range(len(ROW))), ROW, over, legal_if_rest(rest)) == taken
