"""Which build of the rules engine runs: the hot modules compiled to C by mypyc, or their
Python source. Both are the same code: setup.py compiles the .py files in ``MODULES`` when it
can (mypy from the build requirements and a C compiler) and leaves the package pure Python
when it cannot.

The compiled modules are imported unless ``XINGZI_PURE`` is set (to anything but "" or "0"),
or unless the build no longer matches the source: setup.py records the sha256 of each compiled
source file in ``MANIFEST``, and a checkout edited since its last build (``pip install -e .``)
gets its Python source, with a warning, instead of stale compiled code. This module is never
compiled itself; importing it makes the choice, and the package's ``__init__`` imports it first.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

MODULES = ("shapes", "items", "scoring", "settlement", "hand", "ruleset")
GROUP = "_compiled"  # the shared library holding them: _compiled__mypyc.<suffix>
MANIFEST = "_compiled.sha256"  # sha256sum format: "<hash>  <module>.py" per compiled module
HERE = Path(__file__).resolve().parent
PACKAGE = __name__.rpartition(".")[0]

_state = {"build": "", "why": ""}


def source_hashes(folder: Path, modules: Sequence[str] = MODULES) -> str:
    """The manifest text for the sources of ``modules`` in ``folder``."""
    lines = []
    for name in modules:
        digest = hashlib.sha256((folder / f"{name}.py").read_bytes()).hexdigest()
        lines.append(f"{digest}  {name}.py\n")
    return "".join(lines)


def _extension(folder: Path, name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (folder / (name + suffix)).is_file():
            return folder / (name + suffix)
    return None


def _wanted() -> bool:
    return os.environ.get("XINGZI_PURE", "") in ("", "0")


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' .py files first, so that the extensions are never loaded."""

    def __init__(self, package: str, folder: Path) -> None:
        self.package, self.folder = package, folder

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        parent, _, name = fullname.rpartition(".")
        if parent != self.package or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, self.folder / f"{name}.py")


def choose() -> str:
    """Decide once per process, before the engine modules are imported: "compiled" or "pure"."""
    if _state["build"]:
        return _state["build"]
    built = [_extension(HERE, name) for name in (*MODULES, GROUP + "__mypyc")]
    manifest = HERE / MANIFEST
    if not any(built):
        why = "no compiled build"
    elif not _wanted():
        why = "XINGZI_PURE is set"
    elif not all(built) or not manifest.is_file():
        why = "the compiled build is incomplete"
        warnings.warn(f"xingzi.engine: {why}; using the Python source (rebuild: pip install -e .)", stacklevel=2)
    elif manifest.read_text(encoding="utf-8") != source_hashes(HERE):
        why = "the compiled build is older than the source"
        warnings.warn(f"xingzi.engine: {why} (edited since `pip install -e .`?); using the Python source",
                      stacklevel=2)
    else:
        _state.update(build="compiled", why="mypyc")
        return "compiled"
    sys.meta_path.insert(0, _SourceFinder(PACKAGE, HERE))
    _state.update(build="pure", why=why)
    return "pure"


def describe() -> str:
    """One line for people: which build this process runs, and why when it is not the compiled one."""
    scoring = sys.modules.get(f"{PACKAGE}.scoring")
    compiled = scoring is not None and not str(scoring.__file__).endswith(".py")
    if compiled:
        return "compiled (mypyc)"
    return f"pure Python ({_state['why'] or 'not chosen yet'})"


if PACKAGE:  # imported as part of the package (setup.py only reads the constants above)
    choose()
