"""The one parser and formatter of hand notation used by every tool and test.

Tiles: mpsz runs (``123m456p789s``), dragons as 中/发/白 (also Z/F/B, ``5z``=白, ``6z``=发,
``7z``=中, or words ``zhong``/``fa``/``bai``). Whitespace and commas between groups are ignored.
A hand string may end with a separated winning tile: ``"12m456m789p22345s 3m"``.
Melds: ``"pung 中"``, ``"kong 9p"``, ``"concealed_kong 4s"`` (also 碰/明杠/暗杠, ``ankong``).
"""

from __future__ import annotations

import re

from .melds import Meld, MeldKind
from .tiles import SUITS, Tile

_DRAGON_CHARS = {"中": Tile.ZHONG, "发": Tile.FA, "發": Tile.FA, "白": Tile.BAI,
                 "Z": Tile.ZHONG, "F": Tile.FA, "B": Tile.BAI}
_HONOR_Z = {"5": Tile.BAI, "6": Tile.FA, "7": Tile.ZHONG}
_WORDS = re.compile(r"zhong|fa|bai", re.IGNORECASE)
_MELD_KINDS = {
    "pung": MeldKind.PUNG, "peng": MeldKind.PUNG, "碰": MeldKind.PUNG,
    "kong": MeldKind.KONG, "gang": MeldKind.KONG, "minggang": MeldKind.KONG, "明杠": MeldKind.KONG,
    "concealed_kong": MeldKind.CONCEALED_KONG, "ankong": MeldKind.CONCEALED_KONG,
    "angang": MeldKind.CONCEALED_KONG, "暗杠": MeldKind.CONCEALED_KONG,
}


def parse_tiles(text: str) -> list[Tile]:
    """Tiles in the order written. Raises ValueError naming the bad part."""
    if not isinstance(text, str):
        raise ValueError(f"expected a tile string such as '123m中中', got {type(text).__name__}")
    tiles: list[Tile] = []
    digits = ""
    i = 0
    while i < len(text):
        ch = text[i]
        word = _WORDS.match(text, i)
        if word and not digits:
            tiles.append(Tile(word.group(0).lower()))
            i = word.end()
            continue
        if "0" <= ch <= "9":  # ASCII only: a full-width １ is told as unexpected, not read as a face
            digits += ch
        elif ch in SUITS or ch == "z":
            if not digits:
                raise ValueError(f"suit letter {ch!r} at position {i} in {text!r} has no digits before it")
            if "10" in digits and ch != "z":  # a rank written as a number past 9, not a 1 and a red five
                where = "" if text.strip() == digits + ch else f" in {text!r}"
                raise ValueError(f"'{digits}{ch}'{where}: ranks are 1..9, one digit a tile ('123{ch}')")
            for d in digits:
                tiles.append(_number_tile(d, ch, text))
            digits = ""
        elif ch in _DRAGON_CHARS and not digits:
            tiles.append(_DRAGON_CHARS[ch])
        elif ch in " \t,;" and not digits:
            pass
        else:
            expected = "a suit letter m/p/s/z after digits" if digits else "digits, m/p/s/z or 中/发/白"
            raise ValueError(f"unexpected {ch!r} at position {i} in {text!r}: expected {expected}")
        i += 1
    if digits:
        raise ValueError(f"digits {digits!r} at the end of {text!r} have no suit letter (m/p/s)")
    return tiles


def _number_tile(digit: str, suit: str, text: str) -> Tile:
    if suit == "z":
        if digit not in _HONOR_Z:
            raise ValueError(f"'{digit}z' in {text!r}: only 5z=白, 6z=发, 7z=中 exist (no winds)")
        return _HONOR_Z[digit]
    if digit == "0":
        raise ValueError(f"'0{suit}' in {text!r}: ranks are 1..9 (no red fives)")
    return Tile(f"{digit}{suit}")


def parse_hand(text: str) -> tuple[list[Tile], Tile | None]:
    """A hand with an optional winning tile written last after whitespace.

    ``"12m456m789p22345s 3m"`` gives the 14 tiles (winning tile included, last) and ``3m``.
    Without a separated last group the winning tile is None.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected a hand string such as '12m456m789p22345s 3m', got {type(text).__name__}")
    parts = text.split()
    if len(parts) >= 2:
        last = parse_tiles(parts[-1])
        if len(last) == 1:
            return parse_tiles(" ".join(parts[:-1])) + last, last[0]
    return parse_tiles(text), None


def check_written_win(text: str, n_tiles: int, n_melds: int, no_win: bool) -> None:
    """A hand's text with its winning tile written otherwise than once, last, after a space ('... 22345s 3m'): said
    so, with what came after the space (make_hand would count the tiles, or find no winning tile, without a word on
    how the text was read)."""
    groups, expected = text.split(), 14 - 3 * n_melds
    if len(groups) < 2:
        return
    if no_win and n_tiles == expected:
        raise ValueError(f"winning tile missing: write one tile last, after a space ('12m456m789p22345s 3m'), got "
                         f"{groups[-1]!r} after the space ({n_tiles - len(parse_tiles(groups[-1]))} + "
                         f"{len(parse_tiles(groups[-1]))} tiles)")
    k = 0
    while k < len(groups) - 1 and _one_tile(groups[-1 - k]):
        k += 1
    if k >= 2 and n_tiles > expected:
        raise ValueError(f"one winning tile is written last, after a space ('12m456m789p22345s 3m'), got "
                         f"{' '.join(groups[-k:])!r} after the hand: {n_tiles} tiles in all, where a hand with "
                         f"{n_melds} meld(s) has {expected} (winning tile included)")


def _one_tile(group: str) -> bool:
    try:
        return len(parse_tiles(group)) == 1
    except ValueError:
        return False


def format_tiles(tiles: list[Tile] | tuple[Tile, ...], sort: bool = True) -> str:
    """Compact notation: ``123m456p99s中中``. Unsorted keeps order, still grouping runs of a suit."""
    if not isinstance(tiles, (list, tuple)) or not all(isinstance(t, Tile) for t in tiles):
        raise ValueError(f"expected a list of Tile (parse_tiles('123m')), got {tiles!r}"[:300])
    seq = sorted(tiles) if sort else list(tiles)
    out: list[str] = []
    run = ""
    suit = ""
    for t in seq:
        if t.suit is not None and t.suit == suit:
            run += str(t.rank)
            continue
        if run:
            out.append(run + suit)
        run, suit = ("", "")
        if t.suit is None:
            out.append(t.symbol)
        else:
            run, suit = str(t.rank), t.suit
    if run:
        out.append(run + suit)
    return "".join(out)


def parse_meld(text: str) -> Meld:
    """``"pung 中"`` → Meld(PUNG, 中)."""
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2:
        raise ValueError(
            f"meld {text!r}: expected 'pung|kong|concealed_kong TILE', e.g. 'pung 中' or 'kong 9p'"
        )
    kind = _MELD_KINDS.get(parts[0].lower())
    if kind is None:
        raise ValueError(f"meld {text!r}: kind {parts[0]!r} is not one of pung, kong, concealed_kong")
    tiles = parse_tiles(parts[1])
    if len(tiles) == 1:
        return Meld(kind, tiles[0])
    if len(tiles) == kind.size and len(set(tiles)) == 1:
        return Meld(kind, tiles[0])
    raise ValueError(
        f"meld {text!r}: a {kind.value} is {kind.size} copies of one tile; write the tile once, got {parts[1]!r}"
    )


def format_meld(meld: Meld) -> str:
    if not isinstance(meld, Meld):
        raise ValueError(f"expected a Meld (parse_meld('pung 中')), got {meld!r}")
    return f"{meld.kind.value} {meld.tile.symbol}"


_RUN_DIGIT = tuple(str(i % 9 + 1) for i in range(27))
_SUIT_OF = tuple("mps"[i // 9] for i in range(27))
_DRAGON_SYMBOL = {27: "中", 28: "发", 29: "白"}


def format_counts(counts: tuple[int, ...] | list[int]) -> str:
    """Compact notation of a count vector indexed by class id (same text as ``format_tiles``)."""
    out: list[str] = []
    for base in (0, 9, 18):
        run = "".join(_RUN_DIGIT[i] * counts[i] for i in range(base, base + 9))
        if run:
            out.append(run + _SUIT_OF[base])
    out.extend(_DRAGON_SYMBOL[i] * counts[i] for i in (27, 28, 29) if counts[i])
    return "".join(out)
