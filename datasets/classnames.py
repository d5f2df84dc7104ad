"""Class names of other datasets read as ours: any spelling of a face, a riichi dragon's name, ``back``; the names
other sets give tiles with no Xingzi face; and the rest, which are misspellings to be told about."""

from __future__ import annotations

from xingzi.engine.tiles import BACK_CLASS, Tile

# Names other sets give tiles with no Xingzi face (winds, flowers, a catch-all class): their boxes are left out of a
# merge and are no miss for `xingzi eval`. Any other name that is no tile is a misspelling to be told about.
NOT_OURS = frozenset({"other", "nan", "pe", "sha", "tou", "east", "south", "west", "north", "1z", "2z", "3z", "4z",
                      "flower", "season", "joker", "东", "南", "西", "北"})
RIICHI_ALIASES = {"chun": "zhong", "hatsu": "fa", "haku": "bai"}


def class_id_for_name(name: str) -> int | None:
    """Our class id for a class name in another dataset's list (any spelling Tile.parse accepts, a riichi
    dragon's name, or ``back``); None when the name is not one of ours (winds, and names that are no tile)."""
    key = name.strip()
    if key.lower() in ("back", "背面", "tile_back", "facedown", "face_down"):
        return BACK_CLASS
    try:
        return Tile.parse(RIICHI_ALIASES.get(key.lower(), key)).index
    except ValueError:
        return None


def no_tile_names(names: tuple[str, ...] | list[str]) -> list[str]:
    """The names of a class list that are neither one of ours nor a tile with no Xingzi face: misspellings."""
    return [n for n in names if class_id_for_name(n) is None and n.strip().lower() not in NOT_OURS]
