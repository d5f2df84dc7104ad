"""Melds set down in front of a player: exposed pungs and kongs, concealed kongs."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .tiles import Tile


class MeldKind(Enum):
    PUNG = "pung"  # 碰: exposed triplet
    KONG = "kong"  # 明杠: exposed kong (also a pung with a fourth tile added)
    CONCEALED_KONG = "concealed_kong"  # 暗杠

    @property
    def size(self) -> int:
        return 3 if self is MeldKind.PUNG else 4

    @property
    def chinese(self) -> str:
        return {"pung": "碰", "kong": "明杠", "concealed_kong": "暗杠"}[self.value]


@dataclass(frozen=True, order=True)
class Meld:
    kind: MeldKind
    tile: Tile

    def __post_init__(self) -> None:
        if not isinstance(self.kind, MeldKind):
            raise ValueError(f"a meld's kind must be a MeldKind (PUNG, KONG, CONCEALED_KONG), got {self.kind!r}")
        if not isinstance(self.tile, Tile):
            raise ValueError(f"a meld's tile must be a Tile (parse_meld('pung 中') reads text), got {self.tile!r}")
        if self.tile is Tile.FA:
            raise ValueError("发 is a bonus tile and cannot form a meld; count it with fa=N")

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return (self.tile,) * self.kind.size

    def __str__(self) -> str:
        return f"{self.kind.value} {self.tile.symbol}"
