"""Where Ultralytics keeps its settings: in the user's cache with copies of the vendored fonts, never in the package
(an installed package may be read-only; a wheel built from a checkout carried the developer's settings away), and its
notes on making that file never on standard output (they broke `xingzi score --json` the first time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from xingzi.vision import runtime

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo.jpg"
SHIPPED_PT = ROOT / "models" / "xingzi_yolo11n.pt"


def test_the_config_folder_is_the_users_cache_with_the_fonts_copied(tmp_path, monkeypatch):
    monkeypatch.setenv("XINGZI_CACHE_DIR", str(tmp_path / "cache"))
    folder = runtime.ultralytics_config()
    assert folder == tmp_path / "cache" / "ultralytics"
    for name in runtime.REQUIRED_FONTS:
        assert (folder / "Ultralytics" / name).read_bytes() == (runtime.FONT_DIR / name).read_bytes()
    (folder / "Ultralytics" / "Arial.ttf").write_bytes(b"cut short")  # a copy left half made: made again
    assert runtime.ultralytics_config() == folder
    assert (folder / "Ultralytics" / "Arial.ttf").stat().st_size == (runtime.FONT_DIR / "Arial.ttf").stat().st_size


def test_a_cache_that_cannot_be_written_gives_one_temporary_folder(tmp_path, monkeypatch):
    (tmp_path / "a_file").write_text("")
    monkeypatch.setenv("XINGZI_CACHE_DIR", str(tmp_path / "a_file"))  # no folder can be made under a file
    monkeypatch.setattr(runtime, "_temporary", [])
    folder = runtime.ultralytics_config()
    assert folder.name.startswith("xingzi-ultralytics-") and (folder / "Ultralytics" / "Arial.Unicode.ttf").is_file()
    assert runtime.ultralytics_config() == folder  # the same one for the rest of the process
    monkeypatch.setenv("XINGZI_CACHE_DIR", "")  # no cache asked for: the same
    assert runtime.ultralytics_config() == folder


def test_a_first_pt_model_load_writes_its_settings_in_the_cache_and_keeps_json_clean(tmp_path):
    before = sorted(p.name for p in runtime.FONT_DIR.iterdir())
    env = {k: v for k, v in os.environ.items() if k != "YOLO_CONFIG_DIR"} | {"XINGZI_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "xingzi", "score", str(DEMO), "--model", str(SHIPPED_PT), "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["own"] == 26  # nothing but the result on standard output
    assert "Settings" not in proc.stdout + proc.stderr
    assert (tmp_path / "ultralytics" / "Ultralytics" / "settings.json").is_file()
    assert sorted(p.name for p in runtime.FONT_DIR.iterdir()) == before  # nothing new beside the vendored fonts
