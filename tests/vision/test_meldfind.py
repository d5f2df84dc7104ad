"""Melds in one segment: concealed kongs laid end to end with other kongs, walls of face-down tiles."""

from __future__ import annotations

import numpy as np
import pytest

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.grouping import _take_melds, group
from xingzi.vision.layouts import hand_layout

NO_FACE = "a concealed kong shows no face: cannot tell which tile it is"


def take(seq: str) -> tuple[list[Meld], list[str], list[str]]:
    """Melds, roles and problems of one segment written as faces (e.g. '7m') or D for a back."""
    cls = np.array([BACK_CLASS if t == "D" else Tile.parse(t).index for t in seq.split()], np.int64)
    n = len(cls)
    melds: list[Meld] = []
    roles, meld_of, problems = ["loose"] * n, [-1] * n, []
    _take_melds(list(range(n)), cls, np.zeros(n, bool), False, melds, roles, meld_of, problems)
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
])
def test_kongs_laid_end_to_end(seq, melds, no_face):
    found, roles, problems = take(seq)
    assert sorted(found, key=str) == sorted(melds, key=str)
    assert (NO_FACE in problems) is no_face


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
