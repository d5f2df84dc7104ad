"""Ultralytics' settings file, written in the user's cache the first time it loads: its network integrations
(sync, hub, the experiment trackers) turned off in it, since xingzi works offline."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SETUP = "from xingzi.vision.runtime import configure_ultralytics; configure_ultralytics(1)"


def test_the_settings_file_written_on_first_load_has_the_network_integrations_off(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "YOLO_CONFIG_DIR"} | {"XINGZI_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", SETUP], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    settings = json.loads((tmp_path / "ultralytics" / "Ultralytics" / "settings.json").read_text(encoding="utf-8"))
    on = {k for k in ("sync", "hub", "clearml", "comet", "dvc", "mlflow", "neptune", "raytune", "tensorboard", "wandb")
          if settings.get(k)}
    assert "sync" in settings and on == set(), settings
