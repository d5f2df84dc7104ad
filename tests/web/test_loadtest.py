"""The page's load test (`python -m xingzi.web.loadtest`): what it counts, where it may point, what it refuses."""

from __future__ import annotations

import json
import socket

import pytest
from browser import serve_with
from web_helpers import jpeg_bytes

from xingzi.web import loadtest
from xingzi.web.loadtest import DemoDetector, load, loopback_only


@pytest.fixture(scope="module")
def demo_server():
    yield from serve_with(DemoDetector())


@pytest.mark.parametrize("url, expected", [
    pytest.param("http://127.0.0.1:8000/", "http://127.0.0.1:8000", id="ipv4-trailing-slash"),
    pytest.param("http://localhost:9", "http://localhost:9", id="localhost"),
    pytest.param("http://[::1]:8000", "http://[::1]:8000", id="ipv6"),
    pytest.param("http://127.8.9.10:80", "http://127.8.9.10:80", id="all-of-127/8"),
])
def test_loopback_addresses_are_taken(url, expected):
    assert loopback_only(url) == expected


@pytest.mark.parametrize("url, host", [
    pytest.param("http://192.168.1.5:8000", "192.168.1.5", id="lan"),
    pytest.param("http://example.com", "example.com", id="a-name"),
    pytest.param("http://0.0.0.0:8000", "0.0.0.0", id="any-address"),
    pytest.param("not a url", "", id="no-host"),
])
def test_other_addresses_are_refused_with_what_came(url, host):
    with pytest.raises(ValueError, match="loopback only") as info:
        loopback_only(url)
    assert str(info.value).endswith(f"got {host!r}")


def test_the_demo_detector_reads_a_whole_winning_hand_inside_its_photo():
    detections = DemoDetector().predict(None)  # type: ignore[arg-type]
    assert len(detections) == 14
    assert detections.probs is not None and detections.probs.shape == (14, 31)
    heights = detections.xyxy[:, 3] - detections.xyxy[:, 1]
    assert detections.xyxy.min() > 0 and detections.xyxy[:, 2].max() < 1280 and detections.xyxy[:, 3].max() < 960
    assert heights.min() > 960 / 20 and heights.max() < 960 / 8  # tiles of a hand shot from above, not a close-up


def test_a_load_run_counts_every_request_and_finds_the_server_up(demo_server):
    report = load(demo_server, jpeg_bytes(), n=6, concurrency=3, timeout=30)
    assert report["requests"] == 6 and report["concurrency"] == 3
    assert report["errors"] == 0 and report["server_up_after"] is True
    assert 0 < report["median_ms"] <= report["p95_ms"] <= report["max_ms"] <= report["wall_s"] * 1000 + 10
    wall = report["wall_s"]  # rounded to 10 ms, the rate to 0.1/s
    assert 0 < wall < 60  # six requests on loopback: seconds at most
    assert report["throughput_rps"] == pytest.approx(6 / wall, abs=0.06 + 6 * 0.005 / wall**2)


def test_requests_the_app_refuses_are_errors_and_the_server_stays_up(demo_server):
    report = load(demo_server, b"this is no photo", n=4, concurrency=2, timeout=30)
    assert report["errors"] == 4 and report["server_up_after"] is True
    assert report["throughput_rps"] == 0 and report["median_ms"] is None  # no photo answered: none timed


def test_a_server_that_is_not_there_is_all_errors_and_not_up():
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    report = load(f"http://127.0.0.1:{port}", jpeg_bytes(), n=3, concurrency=3, timeout=5)
    assert report["errors"] == 3 and report["server_up_after"] is False
    assert report["throughput_rps"] == 0 and report["p95_ms"] is None  # was 142.5 requests/s, all refused


def test_the_command_prints_its_report_and_exits_0_on_a_clean_run(demo_server, tmp_path, capsys):
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg_bytes())
    assert loadtest.main(["--url", demo_server + "/", "--n", "4", "--concurrency", "2", "--photo", str(photo)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["requests"] == 4 and report["concurrency"] == 2 and report["errors"] == 0


def test_the_command_exits_1_when_requests_fail(demo_server, tmp_path, capsys):
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a jpeg")
    assert loadtest.main(["--url", demo_server, "--n", "2", "--photo", str(junk)]) == 1
    assert json.loads(capsys.readouterr().out)["errors"] == 2


def test_the_command_starts_its_own_server_when_given_no_address(capsys):
    assert loadtest.main(["--n", "3", "--concurrency", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["requests"] == 3 and report["server_up_after"] is True


@pytest.mark.parametrize("argv, model", [pytest.param(["--real"], None, id="shipped"),
                                         pytest.param(["--real", "--model", "w.onnx"], "w.onnx", id="other-weights")])
def test_real_runs_its_own_server_on_the_detector_asked_for(argv, model, monkeypatch, capsys):
    import xingzi.vision.pipeline as pipeline

    class Recording(DemoDetector):
        seen: list[tuple[int, ...]] = []

        def predict(self, image):
            self.seen.append(image.shape)
            return super().predict(image)

    made = []
    monkeypatch.setattr(pipeline, "make_detector", lambda weights, conf: made.append((weights, conf)) or Recording())
    assert loadtest.main([*argv, "--n", "2", "--concurrency", "1"]) == 0
    assert made == [(model, None)]
    assert Recording.seen == [(960, 1280, 3)] * 2  # each upload read by that detector
    assert json.loads(capsys.readouterr().out)["errors"] == 0


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--n", "0"], "--n must be 1..5000", id="no-requests"),
    pytest.param(["--n", "5001"], "--n must be 1..5000", id="too-many-requests"),
    pytest.param(["--concurrency", "65"], "--concurrency 1..64", id="too-many-at-once"),
    pytest.param(["--url", "http://10.0.0.1:8000"], "--url: load tests run against loopback only", id="not-loopback"),
    pytest.param(["--photo", "no/such/photo.jpg"], "--photo: cannot read no/such/photo.jpg", id="no-photo"),
])
def test_bad_arguments_are_refused_with_a_message_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        loadtest.main(argv)
    assert info.value.code == 2
    assert message in capsys.readouterr().err
