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
        pytest.param("5s789m", (MeldKind.PUNG,) * 3, "", id="no-fifth-copy-of-a-melded-pung"),
    ],
)
def test_wait_set(hand: str, melds: tuple, expected: str) -> None:
    filler = [Meld(kind, t) for kind, t in zip(melds, (Tile.S1, Tile.S5, Tile.P2)[: len(melds)], strict=True)]
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


def _reference_complete(counts: list[int], need_pair: bool = True) -> bool:
    """Plain recursive check, independent of the memoised engine code: sets + one pair."""
    i = next((k for k, n in enumerate(counts) if n), None)
    if i is None:
        return not need_pair
    if counts[i] >= 3:
        counts[i] -= 3
        ok = _reference_complete(counts, need_pair)
        counts[i] += 3
        if ok:
            return True
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        ok = _reference_complete(counts, need_pair)
        for k in (i, i + 1, i + 2):
            counts[k] += 1
        if ok:
            return True
    if need_pair and counts[i] >= 2:
        counts[i] -= 2
        ok = _reference_complete(counts, False)
        counts[i] += 2
        return ok
    return False


# 13 tiles from a narrow pool, so that many draws are one tile short of a win
narrow_hands = st.lists(
    st.sampled_from([Tile(f"{r}p") for r in range(1, 10)] + [Tile.S2, Tile.S3, Tile.S4, Tile.ZHONG, Tile.BAI]),
    min_size=13, max_size=13,
).filter(lambda tiles: all(tiles.count(t) <= 4 for t in tiles))


@settings(max_examples=300)
@given(narrow_hands)
def test_wait_set_matches_a_brute_force_reference(tiles: list[Tile]) -> None:
    expected = set()
    for tile in PLAYABLE:
        if tiles.count(tile) == 4:
            continue
        counts = [0] * 30
        for t in tiles + [tile]:
            counts[t.index] += 1
        seven = all(n % 2 == 0 for n in counts)
        if seven or _reference_complete(counts):
            expected.add(tile)
    assert wait_set(tiles) == expected


@pytest.mark.parametrize(
    "counts_of",
    [pytest.param({27: 5, 0: 3, 1: 3, 2: 2}, id="five_zhong"),
     pytest.param({29: 5, 9: 3, 10: 3, 11: 2}, id="five_bai"),
     pytest.param({4: 5, 9: 3, 10: 3, 11: 2}, id="five_5m")],
)
def test_waits_of_an_impossible_count_is_empty_not_a_crash(counts_of: dict[int, int]) -> None:
    # a misread photo can show five copies of a face; the repair step asks for waits of it
    from xingzi.engine.shapes import waits

    counts = tuple(counts_of.get(i, 0) for i in range(30))
    assert waits(counts) == frozenset()


def test_a_hand_holding_fa_has_no_split_into_sets() -> None:
    # 发 is a bonus tile set aside, never part of a set or the pair, even where a split would otherwise exist
    from xingzi.engine.shapes import standard_splits
    from xingzi.engine.tiles import tile_counts

    plain = tuple(tile_counts(parse_tiles("123m456m789p22345s")))
    assert standard_splits(plain)  # the same hand without 发 splits
    with_fa = tuple(n + 3 if i == Tile.FA.index else n for i, n in enumerate(plain))
    assert standard_splits(with_fa) == []


def test_is_complete_takes_a_hand_without_melds_unless_told() -> None:
    from xingzi.engine.shapes import is_complete
    from xingzi.engine.tiles import tile_counts

    fourteen = tuple(tile_counts(parse_tiles("12m456m789p22345s3m")))
    assert is_complete(fourteen)  # four sets and a pair: n_sets is 4 unless given
    assert not is_complete(fourteen, 3)  # with one meld, 11 tiles stand in the hand, not 14
    eleven = tuple(tile_counts(parse_tiles("123m456m789p22s")))
    assert is_complete(eleven, 3) and not is_complete(eleven)

    from xingzi.engine.shapes import waits

    thirteen = tuple(tile_counts(parse_tiles("12m456m789p22345s")))
    assert waits(thirteen) == waits(thirteen, None, 4) == {Tile.M3.index}
