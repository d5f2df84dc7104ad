"""Packaging hook (the metadata is in pyproject.toml): compile the rules engine's hot modules
with mypyc when possible.

The modules listed in engine/compiled.py are compiled from the very same .py files, which stay
in the package. When mypy (a build requirement) is missing, the C compiler or the Python headers
fail, or XINGZI_PURE is set, the package installs as pure Python and works the same, slower.
The compiled build records the sha256 of what it compiled (engine/compiled.py checks it on
import, so that an edited checkout never runs stale compiled code).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from runpy import run_path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
ENGINE = ROOT / "engine"
BUILD = run_path(str(ENGINE / "compiled.py"))  # MODULES, GROUP, MANIFEST, source_hashes
STAGE = ROOT / "build" / "mypyc"  # the engine laid out under the name it is imported by
STAGED = STAGE / "xingzi" / "engine"
PLACEHOLDER = Extension(f"xingzi.engine.{BUILD['GROUP']}__mypyc", sources=[])  # made real by BuildExt
BUILDING = {"build", "build_ext", "bdist", "bdist_wheel", "editable_wheel", "install", "develop"}  # not metadata


def _say(message: str) -> None:
    print(f"xingzi setup: {message}", file=sys.stderr)


def compiled_extensions() -> list[Extension]:
    """The extensions mypyc makes of the engine, or [] for a pure-Python build."""
    if os.environ.get("XINGZI_PURE", "") not in ("", "0"):
        _say("XINGZI_PURE is set: the engine stays pure Python")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypy (mypyc) is not installed: the engine stays pure Python")
        return []
    shutil.rmtree(STAGE, ignore_errors=True)
    STAGED.mkdir(parents=True)
    (STAGED.parent / "__init__.py").write_text("")
    for source in ENGINE.glob("*.py"):
        shutil.copy2(source, STAGED / source.name)
    (STAGE / "mypy.ini").write_text("[mypy]\nignore_missing_imports = True\n")  # not the project's config
    here = os.getcwd()
    os.chdir(STAGE)  # module names follow the staged package: xingzi.engine.<name>
    try:
        return mypycify(["--config-file", "mypy.ini", *(f"xingzi/engine/{m}.py" for m in BUILD["MODULES"])],
                        group_name=PLACEHOLDER.name.removesuffix("__mypyc"), target_dir=str(STAGE / "c"))
    except (Exception, SystemExit) as e:  # mypy reports type errors by exiting
        _say(f"mypyc could not compile the engine ({e!r}): it stays pure Python")
        return []
    finally:
        os.chdir(here)


def _remove_compiled() -> None:
    """An in-place pure build leaves no older compiled one in the source tree."""
    names = (*BUILD["MODULES"], f"{BUILD['GROUP']}__mypyc")
    for path in ENGINE.iterdir():
        if path.suffix in (".so", ".pyd") and path.name.split(".")[0] in names:
            path.unlink()
    (ENGINE / BUILD["MANIFEST"]).unlink(missing_ok=True)


class BuildExt(build_ext):
    """Compiles the engine if it can; never fails the install for it."""

    extensions: list[Extension]

    def finalize_options(self) -> None:
        commands = set(self.distribution.commands)
        building = bool(BUILDING & commands)  # mypyc takes a while: not for metadata only
        if self.distribution.ext_modules == [PLACEHOLDER]:
            self.distribution.ext_modules = compiled_extensions() if building else []
        super().finalize_options()
        # (setuptools finalizes this command before it tells it that an editable install is in place)
        if building and not self.extensions and (self.inplace or {"editable_wheel", "develop"} & commands):
            _remove_compiled()

    def run(self) -> None:
        inplace = self.inplace
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as e:  # no C compiler, no Python headers, ...
            _say(f"compiling the engine failed ({e!r}): it stays pure Python")
            for ext in self.extensions:  # no half build: each module's shim needs the shared library
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            if inplace:
                _remove_compiled()
            self.extensions = []
            return
        folder = Path(self.get_ext_fullpath(f"xingzi.engine.{BUILD['MODULES'][0]}")).parent
        (folder / BUILD["MANIFEST"]).write_text(BUILD["source_hashes"](STAGED), encoding="utf-8")
        _say(f"compiled the engine with mypyc: {', '.join(BUILD['MODULES'])} (in {folder})")


class BuildPy(build_py):
    """A wheel also carries the checkout's build files (xingzi/_checkout/), so that the page's /source, offered from
    an installed wheel, builds as the checkout does (AGPL-3.0: the scripts that build and install it)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install serves the checkout itself
            return
        packed = Path(self.build_lib) / "xingzi" / "_checkout"
        packed.mkdir(parents=True, exist_ok=True)
        for name in ("pyproject.toml", "setup.py", "Makefile", "README.md"):  # the licence: in the dist-info
            if (ROOT / name).is_file():
                shutil.copy2(ROOT / name, packed / name)


setup(ext_modules=[PLACEHOLDER], cmdclass={"build_ext": BuildExt, "build_py": BuildPy})
