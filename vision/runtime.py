"""Set up Ultralytics to run offline inside the project: no downloads, no telemetry, no update checks.

Call :func:`configure_ultralytics` before the first ``import ultralytics`` (it is safe to call again
afterwards: the thread count and settings are re-applied).
"""

from __future__ import annotations

import os
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
CONFIG_DIR = MODELS_DIR / "ultralytics_config"
FONT_DIR = CONFIG_DIR / "Ultralytics"
REQUIRED_FONTS = ("Arial.ttf", "Arial.Unicode.ttf")
# Latin + the CJK glyphs of the tile names (WenQuanYi Micro Hei subset, Apache-2.0).
CJK_FONT = FONT_DIR / "Arial.Unicode.ttf"


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
    os.environ["YOLO_CONFIG_DIR"] = str(CONFIG_DIR)
    n = threads or _threads()
    import torch

    torch.set_num_threads(n)
    import ultralytics.utils as uutils
    import ultralytics.utils.torch_utils as tu

    # Ultralytics picks cpu_count-1 (=1 on a 2-core box); select_device resets torch to this value.
    tu.NUM_THREADS = n
    off = {k: False for k in ("sync", "hub", "clearml", "comet", "dvc", "mlflow", "neptune", "raytune",
                              "tensorboard", "wandb") if k in uutils.SETTINGS and uutils.SETTINGS[k]}
    if off:  # settings.json lives in the gitignored config dir; written only when something changes
        uutils.SETTINGS.update(off)
    uutils.ONLINE = False
    _restore_pil_open()
    return n


def _restore_pil_open() -> None:
    """Undo Ultralytics' patch of ``PIL.Image.open``: on a file Pillow cannot identify it tries to
    pip-install a HEIF plugin (a download at run time; offline it raises ModuleNotFoundError instead
    of Pillow's UnidentifiedImageError, which turns a bad upload into a crash)."""
    from PIL import Image
    from ultralytics.utils import patches

    original = getattr(patches, "_image_open", None)
    if original is not None and Image.open is not original:
        Image.open = original
