"""A served app under photos that take a while to read: a photo whose phone gave up waiting is not read when its
turn comes, and a correction (a rescore) does not wait behind other photos being read."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from browser import serve_with
from web_helpers import FakeDetector, jpeg_bytes, layout_detections

READ_S = 2.0  # each photo's detector call (the three given up on leave well inside one)


class SlowDetector(FakeDetector):
    """A detector that takes READ_S per photo and says when it has begun one."""

    def __init__(self) -> None:
        super().__init__(layout_detections())
        self.begun = threading.Event()

    def predict(self, image):
        self.begun.set()
        time.sleep(READ_S)
        return super().predict(image)


@pytest.fixture
def slow_server():
    detector = SlowDetector()
    for url in serve_with(detector):
        yield url, detector


def _post(url: str, data: bytes, timeout: float, kind: str = "image/jpeg") -> dict | None:
    """The answer's JSON, or None when the client gave up first."""
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": kind})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except TimeoutError:
        return None
    except urllib.error.URLError as e:
        if isinstance(e.reason, TimeoutError):
            return None
        raise


def test_a_photo_whose_client_left_is_not_read_when_its_turn_comes(slow_server):
    url, detector = slow_server
    first = threading.Thread(target=_post, args=(url + "/api/read", jpeg_bytes(), 30))
    first.start()
    assert detector.begun.wait(10)  # the detector busy with the first photo
    gave_up = [_post(url + "/api/read", jpeg_bytes(), 0.3) for _ in range(3)]  # each waits its turn, then leaves
    assert gave_up == [None, None, None]
    first.join(30)
    answer = _post(url + "/api/read", jpeg_bytes(), 30)
    assert answer is not None and answer["own"] == 3
    assert detector.calls == 2  # the first photo and the last: the three left behind were never read


def test_a_rescore_does_not_wait_for_another_photo_being_read(slow_server):
    url, detector = slow_server
    token = _post(url + "/api/read", jpeg_bytes(), 30)["token"]
    detector.begun.clear()
    other = threading.Thread(target=_post, args=(url + "/api/read", jpeg_bytes(), 30))
    other.start()
    assert detector.begun.wait(10)
    rescored = _post(url + "/api/rescore", json.dumps({"token": token, "self_draw": True}).encode(), READ_S / 2,
                     "application/json")
    assert rescored is not None and rescored["own"] > 3  # answered while the detector was still busy
    other.join(30)
