"""Where a command will write, checked before any work: a folder that can be made and written (the part of its path
that stands already is a folder this process may write in), said in one line naming the option."""

from __future__ import annotations

import os
from pathlib import Path


def check_writable(flag: str, given: Path, folder: Path, cannot: str = "cannot be written there") -> None:
    """``folder`` (where ``given`` goes) can be made and written, else ValueError: ``{flag} {given}: …``."""
    there = next((p for p in (folder, *folder.parents) if p.exists()), Path.cwd())  # what stands of it
    if not there.is_dir():
        raise ValueError(f"{flag} {given}: {there} is a file, where a folder is needed")
    if not os.access(there, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {given}: {cannot} ({there} is not writable"
                         f"{', a read-only disk' if read_only(there) else ''})")


def read_only(path: Path) -> bool:
    """Whether ``path`` lies on a disk mounted read-only."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # (no statvfs on Windows)
        return False
