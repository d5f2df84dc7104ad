"""The page's API in process, for the tools that drive it as a phone would (user_paths, choice_check)."""

from __future__ import annotations

import warnings
from typing import Any


def page_client(app: Any, **kwargs: Any) -> Any:
    """A Starlette test client of ``app``. Starlette warns on every import that its client wants ``httpx2``;
    the tools' output is read by people, so that line (not ours to act on: ``httpx`` serves) is kept out of it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")
        from fastapi.testclient import TestClient

        return TestClient(app, **kwargs)
