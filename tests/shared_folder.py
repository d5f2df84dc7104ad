"""Where the project's shared material lies: a ``shared`` folder beside the checkout, or beside a folder above
it (a clone made inside the checkout, as the mutation tool makes, finds the same one)."""

from __future__ import annotations

from pathlib import Path


def shared_file(*parts: str) -> Path:
    """The path of ``shared/<parts>`` nearest above this file; AssertionError saying where it was looked for."""
    here = Path(__file__).resolve()
    for folder in here.parents:
        candidate = folder.joinpath("shared", *parts)
        if candidate.exists():
            return candidate
    raise AssertionError(f"shared/{'/'.join(parts)} not found beside any folder above {here.parent} (../shared)")
