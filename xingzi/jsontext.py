"""JSON as people write it: an object may give a key twice, and JSON readers keep the last without a word."""

from __future__ import annotations

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
