"""Fixtures for the web tests (helpers in web_helpers.py)."""

from __future__ import annotations

import pytest
from web_helpers import jpeg_bytes


@pytest.fixture
def photo() -> bytes:
    return jpeg_bytes()
