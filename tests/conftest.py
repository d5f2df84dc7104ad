"""Fixtures shared by tests in more than one folder."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

# Property tests take well under a millisecond an example, but on CI's two loaded cores one example can wait for the
# CPU past Hypothesis's 200 ms deadline (seen: 280–600 ms under load), failing a test that is right: no deadline.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


@pytest.fixture
def eval_scores_only(monkeypatch):
    """``xingzi eval`` scores and writes each row's JSON as ever, but draws none of its PNGs and does not time
    the model (latency figures of 0 ms): for tests whose assertions read the rows' names and scores only.
    The drawing is tested in vision/test_eval_plots.py, the timing in vision/test_eval.py (the latency tests)."""
    from xingzi.vision import evaluate

    def untimed(det, images, warmup=2):
        return {"images": len(images), "imgsz": det.imgsz, "backend": det.weights.suffix[1:],
                **dict.fromkeys(("model_ms_median", "model_ms_p95", "predict_ms_median", "predict_ms_p95"), 0.0)}

    monkeypatch.setattr(evaluate, "confusion_png", lambda *args, **kwargs: None)
    monkeypatch.setattr(evaluate, "per_class_png", lambda *args, **kwargs: None)
    monkeypatch.setattr(evaluate, "latency", untimed)
