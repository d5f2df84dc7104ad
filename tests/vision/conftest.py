"""Fixtures shared by the vision tests."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: models, fonts and runtimes work offline."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args[:2]}")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
