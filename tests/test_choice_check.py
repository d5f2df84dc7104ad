"""tools/choice_check.py: every choice the page offers, tapped, gives the total promised (and a broken promise is
caught)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from tools import choice_check
from xingzi.vision import unseen
from xingzi.vision.layouts import hand_layout


class Fixed:
    def __init__(self, det) -> None:
        self.det = det

    def predict(self, image: np.ndarray):
        return self.det


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "images").mkdir()
    Image.new("RGB", (1280, 960), (60, 60, 60)).save(tmp_path / "images" / "a.jpg")
    return tmp_path


def test_the_choices_of_a_hand_with_its_win_sorted_in_and_a_kong_face_down_keep_their_promise(folder, capsys):
    det = hand_layout("11m77889p", "9p", ["concealed_kong 中", "pung 5m"], kong_shown="DDDD", win_apart=False).detections
    assert choice_check.main(["--data", str(folder)], detector=Fixed(det)) == 0
    said = capsys.readouterr().out
    tapped = int(said.split(": ")[1].split()[0])
    assert tapped > 20 and "0 not giving the total promised" in said


def test_a_choice_promising_another_total_is_caught(folder, capsys, monkeypatch):
    offer = unseen.kong_choices
    monkeypatch.setattr(unseen, "kong_choices", lambda *a, **k: tuple(replace(c, own=(c.own or 0) + 1)
                                                                      for c in offer(*a, **k)))
    det = hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD").detections
    assert choice_check.main(["--data", str(folder)], detector=Fixed(det)) == 1
    assert "kong_choices" in capsys.readouterr().out


def test_which_kong_was_just_made_is_tapped_too_with_bloom(folder, capsys):
    det = hand_layout("234m678s5p", "5p", ["kong 9s", "concealed_kong 中"], kong_shown="FDDF", win_apart=False).detections
    assert choice_check.main(["--data", str(folder), "--bloom"], detector=Fixed(det)) == 0
    said = capsys.readouterr().out
    plain = choice_check.main(["--data", str(folder)], detector=Fixed(det))
    fewer = capsys.readouterr().out
    assert plain == 0 and int(said.split(": ")[1].split()[0]) == int(fewer.split(": ")[1].split()[0]) + 2  # 9s, 中


@pytest.mark.parametrize("melds", [
    pytest.param(["concealed_kong 中", "kong 9p"], id="face-down-kong-laid-first"),
    pytest.param(["kong 9p", "concealed_kong 中"], id="face-down-kong-laid-last"),
    # synth_s71_000080: two laid all face down; the choices, priced for the first along the row, pointed at the other
    pytest.param(["pung 7s", "concealed_kong 白", "concealed_kong 1p"], id="two-face-down-kongs"),
])
def test_under_kong_bloom_a_face_down_kongs_choices_keep_their_promise(folder, capsys, melds):
    """Guessed, the kong all face down was the one just made (placed after the kongs read); named, it is read where it
    lies, and 杠上开花 took the last kong along the row: every choice gave another total (synth_s97_000141)."""
    hand = ("7m678p", "7m") if len(melds) == 3 else ("123m456s5p", "5p")
    det = hand_layout(*hand, melds, kong_shown="DDDD").detections
    back = np.arange(len(det))[::-1]  # the detector's order is not the row's: the last kong's tiles come first
    det = replace(det, xyxy=det.xyxy[back], cls=det.cls[back], conf=det.conf[back],
                  probs=None if det.probs is None else det.probs[back])
    assert choice_check.main(["--data", str(folder), "--bloom"], detector=Fixed(det)) == 0, capsys.readouterr().out


def test_the_page_client_of_the_tools_prints_no_warning_of_starlettes_own() -> None:
    """The tools' output is read by people: Starlette's import-time warning about its own HTTP client (one line on
    stderr of every run of user_paths and choice_check) is kept out of it."""
    import subprocess
    import sys

    code = "from tools.page_client import page_client\nfrom xingzi.web.app import create_app\npage_client(create_app())\n"
    run = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "Warning" not in run.stderr, run.stderr
