"""Whether read tiles can be a winning hand, and the count facts that rule a reading out.

Shared by the grouping (which reading to keep), the repair (which edits give a hand) and the user's marks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.shapes import is_complete
from xingzi.engine.tiles import BACK_CLASS, Tile, tile_counts

# The tile-count fact, written by count_problems and read back by short_of_tiles: one text for both.
COUNT_MESSAGE = "{total} tiles (a winning hand has 14, plus one per kong: {need} here)"
COUNT_PROBLEM = re.compile(re.escape(COUNT_MESSAGE).replace(r"\{total\}", r"(\d+)").replace(r"\{need\}", r"(\d+)"))
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def is_legal(tiles, melds, hidden_kongs: int = 0) -> bool:
    """A complete hand (standard shape or seven pairs) with no tile more than four times. ``hidden_kongs``:
    concealed kongs shown all face down, sets of the hand whose face is unknown."""
    counts = tile_counts(tiles)
    total = list(counts)
    for m in melds:
        total[m.tile.index] += m.kind.size
    sets = len(melds) + hidden_kongs
    if any(c > 4 for c in total) or sets > 4:
        return False
    return is_complete(tuple(counts), 4 - sets)


def count_problems(tiles: tuple[Tile, ...], melds: list[Meld] | tuple[Meld, ...], fa: int = 0,
                   hidden_kongs: int = 0) -> list[str]:
    """Tile-count facts that rule a reading out: '13 tiles', 'five 3p'. ``hidden_kongs``: concealed
    kongs shown all face down, counted in the hand though their face is unknown."""
    out: list[str] = []
    kongs = sum(1 for m in melds if m.kind is not MeldKind.PUNG) + hidden_kongs
    total = len(tiles) + sum(m.kind.size for m in melds) + 4 * hidden_kongs
    need = 14 + kongs
    if total != need:
        out.append(COUNT_MESSAGE.format(total=total, need=need))
    counts = Counter(tiles)
    for m in melds:
        counts.update(m.tiles)
    for tile, c in sorted(counts.items()):
        if c > 4:
            out.append(f"{count_word(c)} {tile.symbol} (only four of each tile exist)")
    return out


def fifth_copy(classes: Iterable[int]) -> bool:
    """Whether detections' classes (face-down tiles aside) hold a face more than four times: no hand can."""
    return any(c > 4 for k, c in Counter(int(k) for k in classes).items() if k != BACK_CLASS)


def short_of_tiles(problems: Iterable[str]) -> bool:
    """Whether the count problems say the hand has fewer tiles than a winning hand needs."""
    return any((m := COUNT_PROBLEM.fullmatch(p)) is not None and int(m[1]) < int(m[2]) for p in problems)


def count_word(n: int) -> str:
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)
