"""`xingzi serve`: its options reach the app (the server itself is stood in for: it would block)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from xingzi.cli import main


@pytest.fixture
def served(monkeypatch):
    """What `xingzi serve` handed to uvicorn: {"app", "host", "port"}."""
    import uvicorn

    got: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, log_level: got.update(app=app, host=host, port=port))
    return got


def test_serve_with_a_dataset_folder(served, tmp_path, capsys):
    folder = tmp_path / "table_photos"
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123", "--collect", str(folder)]) == 0
    assert (served["host"], served["port"]) == ("0.0.0.0", 8123)
    assert f"saved labels go to {folder}" in capsys.readouterr().out
    meta = TestClient(served["app"]).get("/api/faces").json()
    assert meta["collect"] == 0 and not folder.exists()  # made by the first photo saved, not before


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["--port", "0"], "--port must be 1..65535", id="port"),
    pytest.param(["--max-upload-mb", "0"], "--max-upload-mb must be positive", id="upload-limit"),
    pytest.param(["--collect", "FILE"], "expected a dataset folder, got the file", id="collect-into-a-file"),
])
def test_bad_serve_options_say_so(served, tmp_path, capsys, argv, message):
    (tmp_path / "notes.txt").write_text("mine")
    argv = [str(tmp_path / "notes.txt") if a == "FILE" else a for a in argv]
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err and not served
    assert (tmp_path / "notes.txt").read_text() == "mine"
