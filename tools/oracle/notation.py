"""Tiles and melds as RULES.md §1 and §10 write them: mpsz runs, 中/白 (Z/B, 7z/5z), ``kong 9p``."""

from __future__ import annotations

from typing import Literal

Tile = int  # a tile kind: 0-8 are 1-9 万, 9-17 筒, 18-26 条, then 中 and 白 (发 is never in a hand, §1)
ZHONG = 27
BAI = 28
N_KINDS = 29
SUIT_LETTERS = "mps"
DIGITS = "0123456789"

MeldKind = Literal["pung", "kong", "concealed_kong"]
MELD_KINDS: tuple[MeldKind, ...] = ("pung", "kong", "concealed_kong")
Meld = tuple[MeldKind, Tile]

DRAGON_SIGNS = {"中": ZHONG, "Z": ZHONG, "白": BAI, "B": BAI}
HONOUR_CODES = {7: ZHONG, 5: BAI}  # the riichi codes 7z and 5z


class BadInput(ValueError):
    """A situation the oracle does not score: bad notation, impossible counts, an option it does not read."""


def is_dragon(tile: Tile) -> bool:
    return tile >= ZHONG


def suit_of(tile: Tile) -> int:
    return tile // 9


def rank_of(tile: Tile) -> int:
    """0 for a 1, 8 for a 9."""
    return tile % 9


def tile_name(tile: Tile) -> str:
    if tile == ZHONG:
        return "中"
    if tile == BAI:
        return "白"
    return f"{rank_of(tile) + 1}{SUIT_LETTERS[suit_of(tile)]}"


def parse_tiles(text: str) -> list[Tile]:
    """The tiles of an mpsz string, in order; BadInput on 发 (set aside, §1), winds or stray digits."""
    tiles: list[Tile] = []
    digits: list[int] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch in DIGITS:
            digits.append(int(ch))
            continue
        if ch in SUIT_LETTERS:
            if not digits or 0 in digits:
                raise BadInput(f"{text!r}: {ch} needs digits 1-9 before it")
            tiles += [SUIT_LETTERS.index(ch) * 9 + d - 1 for d in digits]
        elif ch == "z":
            if not digits or any(d not in HONOUR_CODES for d in digits):
                raise BadInput(f"{text!r}: only 7z (中) and 5z (白) stand in a hand")
            tiles += [HONOUR_CODES[d] for d in digits]
        elif ch in DRAGON_SIGNS and not digits:
            tiles.append(DRAGON_SIGNS[ch])
        elif ch in "发F":
            raise BadInput(f"{text!r}: 发 is set aside, never part of a hand")
        else:
            raise BadInput(f"{text!r}: cannot read {ch!r}")
        digits = []
    if digits:
        raise BadInput(f"{text!r}: digits without a suit letter")
    return tiles


def parse_tile(text: str) -> Tile:
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise BadInput(f"{text!r} is not one tile")
    return tiles[0]


def parse_meld(text: str) -> Meld:
    words = text.split()
    if len(words) != 2 or words[0] not in MELD_KINDS:
        raise BadInput(f"meld {text!r}: expected 'pung|kong|concealed_kong TILE'")
    kind: MeldKind = "pung" if words[0] == "pung" else "kong" if words[0] == "kong" else "concealed_kong"
    return kind, parse_tile(words[1])


def meld_text(meld: Meld) -> str:
    return f"{meld[0]} {tile_name(meld[1])}"


def hand_text(tiles: list[Tile]) -> str:
    """mpsz runs by suit, then 中 and 白 (``123m55p中中``)."""
    ordered = sorted(tiles)
    runs = ["".join(str(rank_of(t) + 1) for t in ordered if not is_dragon(t) and suit_of(t) == s) + letter
            for s, letter in enumerate(SUIT_LETTERS)]
    dragons = [tile_name(t) for t in ordered if is_dragon(t)]
    return "".join(r for r in runs if len(r) > 1) + "".join(dragons)
