"""How large the parts of a §10 situation or round may be. Checked before anything is parsed, so that what is far
beyond any table's hand (a megabyte of notation, rules nested hundreds deep, a key that is no text) is refused
in a few words, quickly, as a ValueError, and an error quotes a bounded piece of what came."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

HAND_CHARS = 200  # a hand's notation: 14 tiles written one by one with spaces are 42 characters
TILE_CHARS = 16  # one tile: "3m", "中", "zhong"
MELD_CHARS = 40  # "kong 9p", {"kind": "concealed_kong", ...} joined
TEXT_CHARS = 4096  # any other text (a ruleset's path, an event's name)
DEPTH = 32  # a situation's objects and lists: a round's win's payer's melds are 5 deep
PARTS = 10_000  # values in one situation or round: a full round holds a few hundred


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to about ``limit`` characters with how long it was."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def check_text(value: Any, what: str, limit: int) -> None:
    """Text longer than ``limit`` characters refused, saying what is expected of ``what``."""
    if isinstance(value, str) and len(value) > limit:
        raise ValueError(f"{what} is {len(value)} characters long: expected at most {limit}, got {shown(value)}")


FIELD_CHARS = {"hand": HAND_CHARS, "win_tile": TILE_CHARS, "follow_dealer": TILE_CHARS}  # the top fields' own


def check_shape(value: Any, what: str) -> None:
    """A situation's (or round's) values as JSON gives them: objects with text keys, at most ``DEPTH`` deep,
    ``PARTS`` values in all, texts of at most ``TEXT_CHARS`` characters (``FIELD_CHARS`` for its own fields), each
    said by where it lies. A loop, not recursion: the value may be nested as deep as the JSON reader allowed."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    parts = 0
    while stack:
        v, depth, where = stack.pop()
        parts += 1
        if parts > PARTS:
            raise ValueError(f"{what} holds more than {PARTS} values: a situation or round holds a few hundred")
        if depth > DEPTH:
            raise ValueError(f"{what} is nested more than {DEPTH} deep: a situation's objects and lists are a few deep")
        if isinstance(v, str):
            limit = FIELD_CHARS.get(where.strip('"'), TEXT_CHARS) if depth == 2 else TEXT_CHARS
            check_text(v, f"{where} in {what}", limit)
        elif isinstance(v, Mapping):
            for key in v:
                if not isinstance(key, str):
                    raise ValueError(f"{what}: object keys are text, got {shown(key)}" + (f" in {where}" if where else ""))
                check_text(key, f"a key in {what}", TEXT_CHARS)
            stack.extend((item, depth + 1, f"{where}.{key}" if where else f'"{key}"') for key, item in v.items())
        elif isinstance(v, (list, tuple)):
            stack.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(v))
