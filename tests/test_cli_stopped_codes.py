"""A command stopped by Ctrl-C or SIGTERM: main() ends with the code a shell reports for that signal (128 + its
number), quietly; `program()` then dies of the signal itself."""

from __future__ import annotations

import signal

import pytest

import xingzi.cli as cli
import xingzi.commands.rules as rules
from xingzi.cli import main


@pytest.mark.parametrize(("stop", "code"), [
    pytest.param(KeyboardInterrupt, 128 + signal.SIGINT, id="ctrl-c"),
    pytest.param(lambda: cli.Terminated(signal.SIGTERM), 128 + signal.SIGTERM, id="sigterm"),
])
def test_a_stopped_command_ends_with_the_shells_code_for_its_signal(capsys, monkeypatch, stop, code) -> None:
    def stopped(args):
        raise stop()

    monkeypatch.setattr(rules, "run", stopped)
    assert main(["rules"]) == code
    assert capsys.readouterr().err == ""
