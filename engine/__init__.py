"""Xingzi rules engine: tiles, notation, decomposition, scoring, settlement. No vision imports."""

from __future__ import annotations

from .compiled import describe as engine_build  # first: importing it picks the build the others load
from .hand import Hand, Payer, WinContext, make_context, make_hand
from .melds import Meld, MeldKind
from .notation import format_meld, format_tiles, parse_hand, parse_meld, parse_tiles
from .ruleset import Ruleset, load_ruleset
from .scoring import Score, score_hand
from .seating import seat_settlement
from .settlement import Payment, follow_dealer, next_dealer
from .shapes import is_complete, waits
from .situation import check_context, parse_situation, score_round, score_situation
from .tiles import CLASS_NAMES, TILES, Tile


def _count(tiles: list[Tile], melds: tuple[Meld, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    if not isinstance(tiles, (list, tuple)) or not all(isinstance(t, Tile) for t in tiles):
        raise ValueError(f"tiles must be a list of Tile (parse_tiles('123m456p中中')), got {tiles!r}"[:300])
    if not isinstance(melds, (list, tuple)) or not all(isinstance(m, Meld) for m in melds):
        raise ValueError(f"melds must be a tuple of Meld (parse_meld('pung 中')), got {melds!r}"[:300])
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
    if max(used) > 4:  # a fifth copy (melds included): no hand, as waits() says of one in the hand
        return set()
    return {TILES[i] for i in waits(counts, used, n_sets)}


def is_winning(tiles: list[Tile], melds: tuple[Meld, ...] = ()) -> bool:
    """4 sets + a pair (melds counting as sets) or, without melds, seven pairs (RULES §2)."""
    counts, used, n_sets = _count(tiles, melds)
    return max(used) <= 4 and is_complete(counts, n_sets)


__all__ = [
    "CLASS_NAMES", "TILES", "Hand", "Meld", "MeldKind", "Payer", "Payment", "Ruleset", "Score", "Tile",
    "WinContext", "check_context", "engine_build", "follow_dealer", "format_meld", "format_tiles", "is_winning", "load_ruleset",
    "make_context", "make_hand", "next_dealer", "parse_hand", "parse_meld", "parse_situation",
    "parse_tiles", "score_hand", "score_round", "score_situation", "seat_settlement", "wait_set",
]
