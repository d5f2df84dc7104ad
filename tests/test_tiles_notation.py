"""The tile enum and the one hand-notation parser/formatter."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xingzi.engine import (
    CLASS_NAMES,
    TILES,
    Meld,
    MeldKind,
    Tile,
    format_meld,
    format_tiles,
    parse_hand,
    parse_meld,
    parse_tiles,
)
from xingzi.engine.notation import format_counts
from xingzi.engine.tiles import CHINESE_NAMES, tile_counts


def test_class_order_is_the_yolo_order():
    assert [t.value for t in TILES][:9] == [f"{r}m" for r in range(1, 10)]
    assert CLASS_NAMES[27:] == ("zhong", "fa", "bai", "back")
    assert len(CLASS_NAMES) == 31 and Tile("5p").index == 13 and Tile.from_index(29) is Tile.BAI
    assert Tile.from_index(0) is Tile.M1


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("123m", ["1m", "2m", "3m"], id="run"),
        pytest.param("1m2m", ["1m", "2m"], id="split_runs"),
        pytest.param("中发白", ["zhong", "fa", "bai"], id="dragons_chinese"),
        pytest.param("ZFB", ["zhong", "fa", "bai"], id="dragons_letters"),
        pytest.param("567z", ["bai", "fa", "zhong"], id="riichi_codes"),
        pytest.param("zhong bai,fa", ["zhong", "bai", "fa"], id="words_and_separators"),
        pytest.param("發", ["fa"], id="traditional_fa"),
        pytest.param("9s 1p", ["9s", "1p"], id="spaces"),
    ],
)
def test_parse_tiles(text, expected):
    assert [t.value for t in parse_tiles(text)] == expected


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("12x", "unexpected 'x'", id="unknown_letter"),
        pytest.param("１２m", "unexpected '１' at position 0 in '１２m': expected digits, m/p/s/z or 中/发/白",
                     id="full_width_digits"),
        pytest.param("0m", "ranks are 1..9", id="red_five"),
        pytest.param("1z", "no winds", id="wind"),
        pytest.param("123", "no suit letter", id="no_suit"),
        pytest.param("m", "no digits", id="no_digits"),
        pytest.param("1中", "unexpected '中'", id="digit_before_dragon"),
    ],
)
def test_parse_tiles_rejects(text, message):
    with pytest.raises(ValueError, match=message):
        parse_tiles(text)


def test_parse_hand_with_separated_winning_tile():
    tiles, win = parse_hand("12m456m789p22345s 3m")
    assert win is Tile("3m") and len(tiles) == 14 and tiles[-1] is Tile("3m")
    tiles, win = parse_hand("123m456m789p22345s")
    assert win is None and len(tiles) == 14
    assert parse_hand("3m") == ([Tile("3m")], None)  # one tile alone is not set apart from the others


@pytest.mark.parametrize(
    "text, kind, tile",
    [
        pytest.param("pung 中", MeldKind.PUNG, "zhong", id="pung"),
        pytest.param("kong 9999p", MeldKind.KONG, "9p", id="kong_written_out"),
        pytest.param("concealed_kong 4s", MeldKind.CONCEALED_KONG, "4s", id="concealed"),
        pytest.param("暗杠 白", MeldKind.CONCEALED_KONG, "bai", id="chinese_kind"),
    ],
)
def test_parse_meld(text, kind, tile):
    meld = parse_meld(text)
    assert meld == Meld(kind, Tile(tile))
    assert parse_meld(format_meld(meld)) == meld
    assert str(meld) == format_meld(meld)
    assert meld.tiles == (Tile(tile),) * (3 if kind is MeldKind.PUNG else 4)  # what the photo shows of it


def test_melds_of_one_kind_sort_by_tile():
    assert sorted([parse_meld("pung 中"), parse_meld("pung 9p"), parse_meld("pung 1m")]) == [
        parse_meld("pung 1m"), parse_meld("pung 9p"), parse_meld("pung 中")]


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("pung", re.escape("expected 'pung|kong|concealed_kong TILE'"), id="no_tile"),
        pytest.param("chow 123m", "not one of", id="chow"),
        pytest.param("kong 99p", "4 copies", id="short_kong"),
        pytest.param("pung 发", "bonus tile", id="fa_meld"),
    ],
)
def test_parse_meld_rejects(text, message):
    with pytest.raises(ValueError, match=message):
        parse_meld(text)


@given(st.lists(st.sampled_from(TILES), max_size=20))
def test_format_then_parse_round_trips(tiles):
    assert parse_tiles(format_tiles(tiles)) == sorted(tiles)
    assert parse_tiles(format_tiles(tiles, sort=False)) == tiles
    assert format_counts(tile_counts(tiles)) == format_tiles(tiles)  # the count-vector formatter writes the same


def test_chinese_names_are_unique_and_parse_back():
    assert len(set(CHINESE_NAMES)) == 30
    assert all(Tile.parse(t.chinese) is t for t in TILES)
    with pytest.raises(ValueError, match="unknown tile"):
        Tile.parse("east")


def test_tiles_order_strictly_by_their_class_index() -> None:
    faces = list(Tile)
    for a in faces:
        assert not a < a  # strict: a tile is not before itself
        for b in faces:
            assert (a < b) == (a.index < b.index)
    assert Tile("1m").__lt__("1m") is NotImplemented  # a tile compares only with tiles


@pytest.mark.parametrize("index", [-1, len(TILES), len(TILES) + 1, "3", 1.5, None, True])
def test_a_class_id_outside_the_faces_is_refused(index: object) -> None:
    with pytest.raises(ValueError, match=rf"tile class id must be 0\.\.{len(TILES) - 1}, got {index!r}"):
        Tile.from_index(index)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["Z", "Zhong", "ZHONG", "红中"])
def test_a_tile_name_is_read_in_any_case(text: str) -> None:
    assert Tile.parse(text) is Tile.ZHONG and Tile.parse(text.lower()) is Tile.ZHONG


def test_only_the_three_dragons_are_dragons() -> None:
    assert {t.symbol for t in Tile if t.is_dragon} == {"中", "发", "白"}
