"""Shapes, wait sets and order independence, with hypothesis property tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine import Meld, MeldKind, Tile, is_winning, parse_tiles, score_situation, wait_set
from xingzi.engine.notation import format_tiles

PLAYABLE = [t for t in Tile if t is not Tile.FA]
SEQ_STARTS = [Tile(f"{r}{s}") for s in "mps" for r in range(1, 8)]


SETS = [[Tile(f"{s.rank + i}{s.suit}") for i in range(3)] for s in SEQ_STARTS] + [[t] * 3 for t in PLAYABLE]


def _join(sets: list[list[Tile]], pair: Tile) -> list[Tile]:
    return [t for s in sets for t in s] + [pair, pair]


# Any 4 sets + a pair that a 120-tile set can hold.
winning_hands = st.builds(
    _join, st.lists(st.sampled_from(SETS), min_size=4, max_size=4), st.sampled_from(PLAYABLE)
).filter(lambda tiles: all(tiles.count(t) <= 4 for t in tiles))


@pytest.mark.parametrize(
    "hand, melds, expected",
    [
        pytest.param("12m456m789p22345s", (), "3m", id="edge"),
        pytest.param("45667s123m456p99p", (), "5s8s", id="45667s-not-single"),
        pytest.param("8889p", (MeldKind.PUNG, MeldKind.PUNG, MeldKind.PUNG), "7p9p", id="888p9p-not-single"),
        pytest.param("111333555777s9s", (), "8s9s", id="example6"),
        pytest.param("1112345678999m", (), "123456789m", id="nine-gates"),
        pytest.param("1133m5577p99s白白中", (), "中", id="seven-pairs"),
        pytest.param("中中123m456m789s55p", (), "5p中", id="dragon-shanpon"),
        pytest.param("1111m", (MeldKind.PUNG,) * 3, "", id="no-fifth-copy"),
    ],
)
def test_wait_set(hand: str, melds: tuple, expected: str) -> None:
    filler = [Meld(kind, t) for kind, t in zip(melds, (Tile.S1, Tile.S5, Tile.P2))]
    assert wait_set(parse_tiles(hand), tuple(filler)) == set(parse_tiles(expected))


def test_seven_pairs_with_four_of_a_kind_wins_but_not_with_melds() -> None:
    assert is_winning(parse_tiles("11112233m556677p"))
    assert not is_winning(parse_tiles("112233m5566p77s"), (Meld(MeldKind.PUNG, Tile.BAI),))
    assert not is_winning(parse_tiles("123m456m789p1234s9s"))


@given(winning_hands)
def test_any_four_sets_and_a_pair_wins(tiles: list[Tile]) -> None:
    assert is_winning(tiles)


@given(winning_hands, st.data())
def test_removing_a_tile_leaves_a_hand_waiting_on_it(tiles: list[Tile], data) -> None:
    tile = data.draw(st.sampled_from(tiles))
    rest = list(tiles)
    rest.remove(tile)
    assert tile in wait_set(rest)
    assert all(is_winning(rest + [w]) for w in wait_set(rest))


@settings(max_examples=60)
@given(winning_hands, st.data(), st.booleans())
def test_score_does_not_depend_on_tile_order(tiles: list[Tile], data, self_draw: bool) -> None:
    win = data.draw(st.sampled_from(tiles))
    shuffled = data.draw(st.permutations(tiles))
    a = score_situation({"hand": format_tiles(tiles), "win_tile": win.symbol, "self_draw": self_draw})
    b = score_situation({"hand": format_tiles(shuffled, sort=False), "win_tile": win.symbol, "self_draw": self_draw})
    assert (a["valid"], a["own"], a["items"], a["payments"]) == (b["valid"], b["own"], b["items"], b["payments"])
    assert a["own"] >= 1
