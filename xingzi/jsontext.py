"""JSON as people write it: an object may give a key twice, and JSON readers keep the last without a word; Python's
reader also takes NaN and Infinity, and reads 1e400 as infinity, none of which a JSON answer can give back."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any


def repeated_key(pairs: list[tuple[str, Any]]) -> str | None:
    """The first key given a second time in one object's ``pairs`` (``json``'s ``object_pairs_hook``), or None."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return None


def twice_message(key: str) -> str:
    return f"key {key!r} is given twice in one object: give it once (which was meant is unclear; JSON readers keep the last)"


class KeyTwice(ValueError):
    """A JSON object gave one key twice."""


def once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` refusing an object that gives a key twice (``KeyTwice``, a ValueError)."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        raise KeyTwice(twice_message(repeated_key(pairs) or ""))
    return obj


class NotJsonNumber(ValueError):
    """NaN, Infinity or a number too large for a float: no situation holds one."""


def no_constant(word: str) -> Any:
    """``parse_constant`` refusing ``NaN``, ``Infinity`` and ``-Infinity`` (Python reads them; JSON has none)."""
    raise NotJsonNumber(f"{word} is no JSON number: write a number, or leave the key out")


def finite_float(text: str) -> float:
    """``parse_float`` refusing a number too large to be held (Python would read 1e400 as infinity)."""
    value = float(text)
    if not math.isfinite(value):
        raise NotJsonNumber(f"{text[:40]} is too large a number: write a smaller one, or leave the key out")
    return value


def strict_loads(text: str | bytes, object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] = once) -> Any:
    """``json.loads`` taking only what JSON allows (no NaN, no infinity) and refusing a key given twice (``once``,
    or the caller's own hook): ``NotJsonNumber`` and ``KeyTwice`` are ValueErrors that say what was wrong."""
    return json.loads(text, object_pairs_hook=object_pairs_hook, parse_constant=no_constant, parse_float=finite_float)
