"""Fixtures for the web tests (helpers in web_helpers.py; the browser's in browser.py): a server of the app
for each kind of photo the browser tests read, one per test module."""

from __future__ import annotations

import pytest
from browser import serve, serve_with, stop_shared
from web_helpers import (
    FakeDetector,
    extra_box_detections,
    foreign_fa_detections,
    jpeg_bytes,
    kong_down_detections,
    kong_lost_face_detections,
    layout_detections,
    missed_tile_detections,
    stray_fa_detections,
    tray_detections,
    two_kongs_detections,
)

MISSED, _ = missed_tile_detections()


@pytest.fixture
def photo() -> bytes:
    return jpeg_bytes()


@pytest.fixture(scope="module")
def server():
    yield from serve(layout_detections(misread_2s_as_3s=True))


@pytest.fixture(scope="module")
def server_win_in_row():
    yield from serve(layout_detections(win_apart=False))


@pytest.fixture(scope="module")
def server_extra_box():
    yield from serve(extra_box_detections())


@pytest.fixture(scope="module")
def server_kong_down():
    yield from serve(kong_down_detections())


@pytest.fixture(scope="module")
def server_two_kongs():
    yield from serve(two_kongs_detections())


@pytest.fixture(scope="module")
def server_kong_lost_face():
    yield from serve(kong_lost_face_detections())


@pytest.fixture(scope="module")
def server_stray_fa():
    yield from serve(stray_fa_detections())


@pytest.fixture(scope="module")
def server_foreign():
    yield from serve(foreign_fa_detections())


@pytest.fixture(scope="module")
def server_tray():
    yield from serve(tray_detections())


@pytest.fixture(scope="module")
def server_ok():
    yield from serve(layout_detections())


@pytest.fixture(scope="module")
def server_missed():
    yield from serve(MISSED)


@pytest.fixture(scope="module")
def server_collecting(tmp_path_factory):
    folder = tmp_path_factory.mktemp("collected")
    for url in serve_with(FakeDetector(layout_detections()), collect=folder):
        yield url, folder


def pytest_runtest_teardown(item, nextitem):
    """The browser tests share one Playwright and Chromium (browser.py); they are stopped as soon as the next test
    is not one of theirs, for Playwright's sync API keeps an asyncio loop running in this thread."""
    if nextitem is None or not nextitem.path.name.startswith("test_browser"):
        stop_shared()
