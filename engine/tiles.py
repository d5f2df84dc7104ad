"""The 30 tile faces of a Xingzi set, in YOLO class order.

The enum order is the class order of the detector: ``1m..9m 1p..9p 1s..9s zhong fa bai``,
then the extra detection class ``back`` (a face-down tile) at index 30.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from enum import Enum


class Tile(Enum):
    """One tile face. ``Tile("5p")``, ``Tile.parse("中")``; ``.index`` is the class id."""

    M1 = "1m"
    M2 = "2m"
    M3 = "3m"
    M4 = "4m"
    M5 = "5m"
    M6 = "6m"
    M7 = "7m"
    M8 = "8m"
    M9 = "9m"
    P1 = "1p"
    P2 = "2p"
    P3 = "3p"
    P4 = "4p"
    P5 = "5p"
    P6 = "6p"
    P7 = "7p"
    P8 = "8p"
    P9 = "9p"
    S1 = "1s"
    S2 = "2s"
    S3 = "3s"
    S4 = "4s"
    S5 = "5s"
    S6 = "6s"
    S7 = "7s"
    S8 = "8s"
    S9 = "9s"
    ZHONG = "zhong"
    FA = "fa"
    BAI = "bai"

    @property
    def index(self) -> int:
        """Class id, 0..29."""
        return _INDEX[self]

    @property
    def suit(self) -> str | None:
        """'m', 'p' or 's' for number tiles, None for dragons."""
        return self.value[1] if self.value[0].isdigit() else None

    @property
    def rank(self) -> int | None:
        """1..9 for number tiles, None for dragons."""
        return int(self.value[0]) if self.value[0].isdigit() else None

    @property
    def is_dragon(self) -> bool:
        return self.suit is None

    @property
    def chinese(self) -> str:
        """Name as players say it: 五筒, 红中, 白板."""
        return CHINESE_NAMES[self.index]

    @property
    def symbol(self) -> str:
        """Compact notation: '5p', or 中/发/白 for dragons."""
        return _SYMBOL.get(self, self.value)

    @classmethod
    def from_index(cls, index: int) -> Tile:
        # any whole number (a numpy class id too: operator.index, cheaper per detection than an ABC check), not True/False
        try:
            i = -1 if isinstance(index, bool) else operator.index(index)
        except TypeError:
            i = -1
        if not 0 <= i < len(TILES):
            raise ValueError(f"tile class id must be 0..{len(TILES) - 1}, got {index!r}")
        return TILES[i]

    @classmethod
    def parse(cls, text: str) -> Tile:
        """One tile from any accepted spelling: '5p', '中', 'Z', '7z', 'zhong', '红中'."""
        if not isinstance(text, str):
            raise ValueError(f"a tile is text such as '5p' or '中', got {text!r}")
        key = text.strip()
        tile = _ALIASES.get(key) or _ALIASES.get(key.lower())
        if tile is None:
            raise ValueError(
                f"unknown tile {text!r}: expected 1m..9m, 1p..9p, 1s..9s, 中/发/白 "
                "(or Z/F/B, 7z/6z/5z, zhong/fa/bai)"
            )
        return tile

    def __str__(self) -> str:
        return self.symbol

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.index < other.index


TILES: tuple[Tile, ...] = tuple(Tile)
_INDEX = {t: i for i, t in enumerate(TILES)}
SUITS = ("m", "p", "s")
DRAGONS = (Tile.ZHONG, Tile.FA, Tile.BAI)
BACK_CLASS = len(TILES)  # 30: the face-down detection class
CLASS_NAMES: tuple[str, ...] = tuple(t.value for t in TILES) + ("back",)

_NUM_CN = "一二三四五六七八九"
_SUIT_CN = {"m": "万", "p": "筒", "s": "条"}
CHINESE_NAMES: tuple[str, ...] = tuple(
    [_NUM_CN[r] + _SUIT_CN[s] for s in SUITS for r in range(9)] + ["红中", "发财", "白板"]
)
CLASS_NAMES_CN: tuple[str, ...] = CHINESE_NAMES + ("背面",)

_SYMBOL = {Tile.ZHONG: "中", Tile.FA: "发", Tile.BAI: "白"}
_ALIASES: dict[str, Tile] = {}
for _t in TILES:
    _ALIASES[_t.value] = _t
    _ALIASES[_t.chinese] = _t
for _sym, _t in {
    "中": Tile.ZHONG, "发": Tile.FA, "發": Tile.FA, "白": Tile.BAI,
    "z": Tile.ZHONG, "f": Tile.FA, "b": Tile.BAI,
    "7z": Tile.ZHONG, "6z": Tile.FA, "5z": Tile.BAI,
}.items():
    _ALIASES[_sym] = _t


def tile_counts(tiles: Iterable[Tile]) -> list[int]:
    """Count vector of length 30 indexed by class id."""
    counts = [0] * len(TILES)
    for t in tiles:
        counts[t.index] += 1
    return counts

