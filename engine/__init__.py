"""Xingzi rules engine: tiles, notation, decomposition, scoring, settlement. No vision imports."""

from .melds import Meld, MeldKind
from .notation import format_meld, format_tiles, parse_hand, parse_meld, parse_tiles
from .tiles import CLASS_NAMES, TILES, Tile

__all__ = [
    "CLASS_NAMES", "TILES", "Meld", "MeldKind", "Tile",
    "format_meld", "format_tiles", "parse_hand", "parse_meld", "parse_tiles",
]
