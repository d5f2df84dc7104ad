"""Headless Chromium for the page's tests (Playwright): finding or installing the browser, a server of the
app with a fixed detector, and the page opened at a phone's size.

Uses /usr/bin/chromium (Debian's ``chromium`` package). Where it is missing and we are root
with apt-get, the browser is installed; a test skips, saying why, only where no browser can be had.

One Playwright and one Chromium serve the tests of a process in turn, each page in a fresh context of its own
(its own storage, cache and clock: what a browser of its own would give it), so that no test pays for starting
them. Playwright's sync API keeps an asyncio loop running in the thread while it is started, so it is stopped
(:func:`stop_shared`, tests/web/conftest.py) before any test other than those of the test_browser*.py files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from web_helpers import FakeDetector, jpeg_bytes

from xingzi.web.loadtest import start_server

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


def find_chromium() -> str | None:
    for path in CANDIDATES:
        if Path(path).is_file():
            return path
    return shutil.which("chromium")


def chromium_or_skip() -> str:
    path = find_chromium()
    if path is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for cmd in (["apt-get", "install", "-y", "-q", "chromium"], ["apt-get", "update", "-q"],
                    ["apt-get", "install", "-y", "-q", "chromium"]):
            subprocess.run(cmd, env=env, capture_output=True, timeout=900, check=False)
            path = find_chromium()
            if path:
                break
    if path is None:
        pytest.skip("no Chromium: install Debian's 'chromium' package (apt-get install -y chromium)")
    return path


_shared: dict[str, Any] = {}  # "playwright" (started) and "browser" (launched) while tests share them


def shared_playwright():
    """This process's started Playwright (sync API), started on first use."""
    if "playwright" not in _shared:
        from playwright.sync_api import sync_playwright

        _shared["playwright"] = sync_playwright().start()
    return _shared["playwright"]


def shared_chromium():
    """This process's headless Chromium, launched on first use (again if it went away)."""
    browser = _shared.get("browser")
    if browser is None or not browser.is_connected():
        executable = chromium_or_skip()
        browser = shared_playwright().chromium.launch(executable_path=executable,
                                                       args=["--no-sandbox", "--disable-gpu"])
        _shared["browser"] = browser
    return browser


def stop_shared() -> None:
    """Close the shared Chromium and stop Playwright (its asyncio loop with it), if they were started."""
    browser, playwright = _shared.pop("browser", None), _shared.pop("playwright", None)
    try:
        if browser is not None and browser.is_connected():
            browser.close()
    finally:
        if playwright is not None:
            playwright.stop()


def serve_with(detector, **options):
    url, srv, thread = start_server(detector, **options)
    yield url
    srv.should_exit = True
    thread.join(timeout=10)


def serve(detections):
    yield from serve_with(FakeDetector(detections))


@contextmanager
def _page(url: str, **context_options):
    """The page of ``url`` in a fresh context (its own storage, cache and clock) of the shared Chromium, once the
    face picker is built."""
    from playwright.sync_api import expect

    context = shared_chromium().new_context(**context_options)
    try:
        page = context.new_page()
        page.goto(url)
        expect(page.locator("#faces button")).to_have_count(31)
        yield page
    finally:
        context.close()


@contextmanager
def opened(url: str, timezone: str | None = None):
    """A phone-sized page of ``url`` in headless Chromium (its clock in ``timezone`` if given); yields the page."""
    with _page(url, viewport={"width": 412, "height": 915}, device_scale_factor=1, timezone_id=timezone) as page:
        yield page


@contextmanager
def uploaded(url: str):
    """:func:`opened` with a photo uploaded."""
    with opened(url) as page:
        read_photo(page)
        yield page


def read_photo(page, name: str = "hand.jpg") -> None:
    """Choose a photo and wait until it is read and shown: the page scrolls to the score then, and a tap aimed
    before that scroll lands on whatever moved under it."""
    from playwright.sync_api import expect

    page.set_input_files("#photo", files=[{"name": name, "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
    expect(page.locator("#result")).to_have_attribute("aria-busy", "false")


@contextmanager
def on_phone(url: str, width: int = 360, height: int = 740):
    """:func:`opened` as a small touch phone at 2×: the page at the width where things get cut off or too small."""
    with _page(url, viewport={"width": width, "height": height}, device_scale_factor=2, has_touch=True,
               is_mobile=True) as page:
        yield page
