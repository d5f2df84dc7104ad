"""Fixtures shared by the vision tests."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.json"


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: models, fonts and runtimes work offline."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args[:2]}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture
def synthetic(tmp_path) -> Path:
    """A synthetic set of one sample (the demo photo and its truth)."""
    for sub in ("images", "meta"):
        (tmp_path / "synth" / sub).mkdir(parents=True)
    shutil.copy(DEMO.with_suffix(".jpg"), tmp_path / "synth" / "images" / "demo.jpg")
    shutil.copy(DEMO, tmp_path / "synth" / "meta" / "demo.json")
    return tmp_path / "synth"
