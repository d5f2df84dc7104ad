"""The running program's own source for anyone who uses the page (AGPL-3.0 §13): a .tar.gz of the code as it is
installed here (Python, the page, rulesets, docs and licence notices), and the licence's text.

Made from the installed packages' folders, so it is what this server runs, edited or not: in a checkout (an
editable install) with the checkout's top files (pyproject.toml, Makefile, LICENSE, README.md) and its paths; from
an installed wheel, the package folders laid out again as in the checkout, with the top files setup.py packed into
the wheel (``xingzi/_checkout/``) and the licence from its dist-info, so that the archive builds as the checkout
does. Weights, fonts and pictures are data and are left out (the
repository and the wheel carry them; models/MODEL_CARD.md says where they come from). Built once, on first ask.
"""

from __future__ import annotations

import gzip
import importlib
import io
import tarfile
import threading
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

PACKAGES = ("xingzi", "xingzi.engine", "xingzi.vision", "xingzi.datasets", "xingzi.models")
TOP_FILES = ("pyproject.toml", "setup.py", "Makefile", "LICENSE", "README.md")
SOURCE_SUFFIXES = frozenset({".py", ".js", ".css", ".html", ".toml", ".md", ".txt", ".json", ".sh", ".yaml", ".ipynb"})
CHECKOUT_FILES = "_checkout"  # a wheel's copy of TOP_FILES, inside the xingzi package (setup.py's build_py)
SKIPPED_DIRS = frozenset({"__pycache__", "build", ".venv", "runs", CHECKOUT_FILES})
# Ultralytics writes its settings (an install id, perhaps API keys) into models/ultralytics_config: never offered.
SKIPPED_NAMES = frozenset({"settings.json"})
ARCHIVE_ROOT = "xingzi-source"
FIXED_MTIME = 0  # the same code gives the same bytes


def _version() -> str:
    try:
        return metadata.version("xingzi")
    except metadata.PackageNotFoundError:
        return "unknown"


def _package_dirs() -> list[Path]:
    return [Path(importlib.import_module(name).__path__[0]).resolve() for name in PACKAGES]


def _checkout_root(dirs: list[Path]) -> Path | None:
    """The checkout the packages were installed from (editable), or None for a wheel's site-packages."""
    root = dirs[0].parent
    return root if (root / "pyproject.toml").is_file() and all(d.is_relative_to(root) for d in dirs) else None


def source_files() -> Iterator[tuple[Path, str]]:
    """(file, its name in the archive) for every source file of the running program, sorted, each once."""
    dirs = _package_dirs()
    root = _checkout_root(dirs)
    top = root if root is not None else dirs[0] / CHECKOUT_FILES
    found = [(top / name, name) for name in TOP_FILES if (top / name).is_file()]
    if root is None and (licence := _installed_licence()) is not None:  # a wheel's is in its dist-info
        found.append((licence, "LICENSE"))
    named = _checkout_names(dirs, top / "pyproject.toml") if root is None else {}
    base = root if root is not None else dirs[0].parent
    for folder in dirs:
        for path in folder.rglob("*"):
            parts = path.relative_to(folder).parts
            hidden = any(part.startswith(".") for part in parts)
            if (path.is_file() and path.suffix in SOURCE_SUFFIXES and not set(parts[:-1]) & SKIPPED_DIRS
                    and path.name not in SKIPPED_NAMES and not hidden):
                found.append((path, _name_in(path, named) or path.relative_to(base).as_posix()))
    seen: set[Path] = set()
    for path, name in sorted(found, key=lambda f: f[1]):
        if path.resolve() not in seen:
            seen.add(path.resolve())
            yield path, name


def _checkout_names(dirs: list[Path], pyproject: Path) -> dict[Path, str]:
    """An installed package folder -> its folder in the checkout (``xingzi/engine`` -> ``engine``), as the packed
    pyproject.toml's ``package-dir`` maps them; {} where the wheel packed none (the site-packages layout is kept)."""
    import tomllib

    try:
        mapped = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    pairs = zip(PACKAGES, dirs, strict=False)  # (tests stand in fewer folders)
    return {folder: mapped[name] for name, folder in pairs if isinstance(mapped.get(name), str)}


def _name_in(path: Path, named: dict[Path, str]) -> str | None:
    """``path``'s name in the checkout: under the innermost mapped folder holding it."""
    holding = [folder for folder in named if path.is_relative_to(folder)]
    if not holding:
        return None
    folder = max(holding, key=lambda f: len(f.parts))
    return f"{named[folder]}/{path.relative_to(folder).as_posix()}"


def _installed_licence() -> Path | None:
    """The installed distribution's licence file (a wheel's dist-info/licenses/LICENSE), if it has one."""
    try:
        files = metadata.files("xingzi") or []
    except metadata.PackageNotFoundError:
        return None
    found = [Path(str(f.locate())) for f in files if Path(str(f)).name.upper().startswith(("LICENSE", "COPYING"))]
    return next((f for f in found if f.is_file()), None)


def licence_text() -> str:
    """The AGPL's text as shipped: the checkout's LICENSE, else the installed distribution's licence file."""
    root = _checkout_root(_package_dirs())
    if root is not None and (root / "LICENSE").is_file():
        return (root / "LICENSE").read_text(encoding="utf-8")
    if (licence := _installed_licence()) is not None:
        return licence.read_text(encoding="utf-8")
    return "GNU Affero General Public License, version 3 or later: https://www.gnu.org/licenses/agpl-3.0.html\n"


def source_archive() -> bytes:
    """The .tar.gz of :func:`source_files` under ``xingzi-source/``, with the same bytes for the same files."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=FIXED_MTIME) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, name in source_files():
            data = path.read_bytes()
            info = tarfile.TarInfo(f"{ARCHIVE_ROOT}/{name}")
            info.size, info.mtime, info.mode = len(data), FIXED_MTIME, 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


class SourceOffer:
    """The archive and the licence, built on the first request and kept (the code does not change under a server)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._archive: bytes | None = None

    @property
    def filename(self) -> str:
        return f"xingzi-{_version()}-source.tar.gz"

    def archive(self) -> bytes:
        with self._lock:
            if self._archive is None:
                self._archive = source_archive()
            return self._archive
