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


@pytest.fixture
def eval_scores_only(monkeypatch):
    """``xingzi eval`` scores and writes each row's JSON as ever, but draws none of its PNGs and does not time
    the model (latency figures of 0 ms): for tests whose assertions read the rows' names and scores only.
    The drawing is tested in test_eval_plots.py, the timing in test_eval.py (the latency tests)."""
    from xingzi.vision import evaluate

    def untimed(det, images, warmup=2):
        return {"images": len(images), "imgsz": det.imgsz, "backend": det.weights.suffix[1:],
                **dict.fromkeys(("model_ms_median", "model_ms_p95", "predict_ms_median", "predict_ms_p95"), 0.0)}

    monkeypatch.setattr(evaluate, "confusion_png", lambda *args, **kwargs: None)
    monkeypatch.setattr(evaluate, "per_class_png", lambda *args, **kwargs: None)
    monkeypatch.setattr(evaluate, "latency", untimed)
