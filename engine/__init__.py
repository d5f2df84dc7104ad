"""Xingzi rules engine: tiles, notation, decomposition, scoring, settlement. No vision imports."""

from __future__ import annotations

from .compiled import describe as engine_build  # first: importing it picks the build the others load
from .hand import Hand, Payer, WinContext, make_context, make_hand
from .melds import Meld, MeldKind
from .notation import format_meld, format_tiles, parse_hand, parse_meld, parse_tiles
from .ruleset import Ruleset, load_ruleset
from .scoring import Score, score_hand
from .settlement import Payment, follow_dealer, next_dealer
from .shapes import is_complete, waits
from .situation import check_context, parse_situation, score_round, score_situation, seat_settlement
from .tiles import CLASS_NAMES, TILES, Tile


def _count(tiles: list[Tile], melds: tuple[Meld, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    counts = [0] * len(TILES)
    for t in tiles:
        counts[t.index] += 1
    used = list(counts)
    for m in melds:
        used[m.tile.index] += m.kind.size
    return tuple(counts), tuple(used), 4 - len(melds)


def wait_set(tiles: list[Tile], melds: tuple[Meld, ...] = ()) -> set[Tile]:
    """Tiles that would complete a hand of ``13 - 3*len(melds)`` concealed tiles (a fifth copy never)."""
    counts, used, n_sets = _count(tiles, melds)
    return {TILES[i] for i in waits(counts, used, n_sets)}


def is_winning(tiles: list[Tile], melds: tuple[Meld, ...] = ()) -> bool:
    """4 sets + a pair (melds counting as sets) or, without melds, seven pairs (RULES §2)."""
    counts, _used, n_sets = _count(tiles, melds)
    return is_complete(counts, n_sets)


__all__ = [
    "CLASS_NAMES", "TILES", "Hand", "Meld", "MeldKind", "Payer", "Payment", "Ruleset", "Score", "Tile",
    "WinContext", "check_context", "engine_build", "follow_dealer", "format_meld", "format_tiles", "is_winning", "load_ruleset",
    "make_context", "make_hand", "next_dealer", "parse_hand", "parse_meld", "parse_situation",
    "parse_tiles", "score_hand", "score_round", "score_situation", "seat_settlement", "wait_set",
]
