"""Set up Ultralytics to run offline inside the project: no downloads, no telemetry, no update checks.

Call :func:`configure_ultralytics` before the first ``import ultralytics`` (it is safe to call again
afterwards: the thread count and settings are re-applied).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
FONT_DIR = MODELS_DIR / "ultralytics_config" / "Ultralytics"  # the vendored fonts, read only
REQUIRED_FONTS = ("Arial.ttf", "Arial.Unicode.ttf")
# Latin + the CJK glyphs of the tile names (WenQuanYi Micro Hei subset, Apache-2.0).
CJK_FONT = FONT_DIR / "Arial.Unicode.ttf"
# Ultralytics' lines on creating its settings file tell how to use its own `yolo` command: not ours to print (and on
# standard output they broke `xingzi score --json` the first time a .pt model was loaded).
SETTINGS_NOTES = ("Ultralytics Settings", "yolo settings")
_temporary: list[Path] = []  # a temporary config folder, made once a process where the user's cache cannot be


def user_cache(name: str) -> Path | None:
    """``name/`` in this user's cache for xingzi: ``$XINGZI_CACHE_DIR``, else ``$XDG_CACHE_HOME/xingzi`` (or
    ``~/.cache/xingzi``); None where it cannot be made, or ``XINGZI_CACHE_DIR`` is "" (no cache)."""
    root = os.environ.get("XINGZI_CACHE_DIR")
    if root == "":
        return None
    base = Path(root) if root else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "xingzi"
    folder = base / name
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


def ultralytics_config() -> Path:
    """The folder ``YOLO_CONFIG_DIR`` names: ``ultralytics/`` of the user's cache (else a temporary folder), the
    vendored fonts copied into its ``Ultralytics/``, where Ultralytics looks for them and writes its settings file.
    The package's own folder is never written (an installed package may be read-only, and a wheel built from a
    checkout would carry the settings away)."""
    for root in (user_cache("ultralytics"), *_temporary):
        if root is not None and _with_fonts(root):
            return root
    _temporary.append(Path(tempfile.mkdtemp(prefix="xingzi-ultralytics-")))
    if not _with_fonts(_temporary[-1]):
        raise OSError(f"cannot copy the vendored fonts into {_temporary[-1]}")
    return _temporary[-1]


def _with_fonts(root: Path) -> bool:
    """Whether ``root/Ultralytics`` holds the vendored fonts (copied there when missing or of another size)."""
    try:
        (root / "Ultralytics").mkdir(parents=True, exist_ok=True)
        for name in REQUIRED_FONTS:
            src, dst = FONT_DIR / name, root / "Ultralytics" / name
            if not dst.is_file() or dst.stat().st_size != src.stat().st_size:
                part = dst.with_name(f".{name}.{os.getpid()}.part")
                shutil.copyfile(src, part)
                os.replace(part, dst)
    except OSError:
        return False
    return True


def _threads() -> int:
    return max(1, min(int(os.environ.get("XINGZI_THREADS", "0")) or (os.cpu_count() or 1), 8))


def configure_ultralytics(threads: int | None = None) -> int:
    """Point Ultralytics at the vendored config dir, forbid network use, set torch threads.

    Returns the number of CPU threads set. Raises FileNotFoundError when a vendored font is
    missing (Ultralytics would otherwise try to download it).
    """
    missing = [name for name in REQUIRED_FONTS if not (FONT_DIR / name).is_file()]
    if missing:
        raise FileNotFoundError(f"vendored fonts missing in {FONT_DIR}: {', '.join(missing)}")
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(ultralytics_config())
    quiet = logging.getLogger("ultralytics")  # (made before Ultralytics makes it: its filters stay)
    if not any(getattr(f, "__name__", "") == "_no_settings_notes" for f in quiet.filters):
        quiet.addFilter(_no_settings_notes)
    n = threads or _threads()
    import torch

    torch.set_num_threads(n)
    import ultralytics.utils as uutils
    import ultralytics.utils.torch_utils as tu

    # Ultralytics picks cpu_count-1 (=1 on a 2-core box); select_device resets torch to this value.
    tu.NUM_THREADS = n
    off = {k: False for k in ("sync", "hub", "clearml", "comet", "dvc", "mlflow", "neptune", "raytune",
                              "tensorboard", "wandb") if k in uutils.SETTINGS and uutils.SETTINGS[k]}
    if off:  # settings.json lives in the user's cache (ultralytics_config); written only when something changes
        uutils.SETTINGS.update(off)
    uutils.ONLINE = False
    _restore_pil_open()
    return n


def _no_settings_notes(record: logging.LogRecord) -> bool:
    return not any(note in record.getMessage() for note in SETTINGS_NOTES)


def _restore_pil_open() -> None:
    """Undo Ultralytics' patch of ``PIL.Image.open``: on a file Pillow cannot identify it tries to
    pip-install a HEIF plugin (a download at run time; offline it raises ModuleNotFoundError instead
    of Pillow's UnidentifiedImageError, which turns a bad upload into a crash)."""
    from PIL import Image
    from ultralytics.utils import patches

    original = getattr(patches, "_image_open", None)
    if original is not None and Image.open is not original:
        Image.open = original
