"""Class names of other datasets read as ours: any spelling of a face, a riichi dragon's name, ``back``; the names
other sets give tiles with no Xingzi face; and the rest, which are misspellings to be told about."""

from __future__ import annotations

from xingzi.engine.tiles import BACK_CLASS, Tile

# Names other sets give tiles with no Xingzi face (winds, flowers, a catch-all class): their boxes are left out of a
# merge and are no miss for `xingzi eval`. Any other name that is no tile is a misspelling to be told about.
_WINDS_CN = [w + s for w in "东南西北東" for s in ("", "风", "風")]
_FLOWERS = ["spring", "summer", "autumn", "winter", "plum", "orchid", "chrysanthemum", "bamboo", "花", "春", "夏",
            "秋", "冬", "梅", "兰", "蘭", "竹", "菊", *(f"{k}{n}" for k in ("flower", "season", "f") for n in "1234")]
NOT_OURS = frozenset({"other", "nan", "pe", "sha", "tou", "east", "south", "west", "north", "1z", "2z", "3z", "4z",
                      "flower", "season", "joker", *_WINDS_CN, *_FLOWERS})
RIICHI_ALIASES = {"chun": "zhong", "hatsu": "fa", "haku": "bai"}
# other ways sets write the Chinese names (traditional characters, 饼 and 索 for 筒 and 条) → the ones Tile.parse reads
_VARIANTS = str.maketrans({"萬": "万", "饼": "筒", "餅": "筒", "索": "条", "條": "条", "紅": "红", "發": "发", "財": "财"})


def class_id_for_name(name: str) -> int | None:
    """Our class id for a class name in another dataset's list (any spelling Tile.parse accepts, a riichi
    dragon's name, or ``back``); None when the name is not one of ours (winds, and names that are no tile)."""
    key = name.strip()
    if key.lower() in ("back", "背面", "tile_back", "facedown", "face_down"):
        return BACK_CLASS
    for text in (RIICHI_ALIASES.get(key.lower(), key), key.translate(_VARIANTS)):
        try:
            return Tile.parse(text).index
        except ValueError:
            continue
    return None


def no_tile_names(names: tuple[str, ...] | list[str]) -> list[str]:
    """The names of a class list that are neither one of ours nor a tile with no Xingzi face: misspellings."""
    return [n for n in names if class_id_for_name(n) is None and n.strip().lower() not in NOT_OURS]


def dropped_note(n: int, what: str = "boxes") -> str:
    """What leaving ``n`` wind/flower boxes out does to `xingzi eval` on the set written (docs/labelling.md)."""
    return (f"note: `xingzi eval` on this set counts a tile read on one of those {n} {what} as a false positive (on a "
            "set that keeps them as 'other' it is ignored): evaluate on the set they came from")
