"""A bounded load test of the web app on loopback: N uploads, C at a time; throughput, p95, errors.

    python -m xingzi.web.loadtest                      # own server, demo detector, 200 x 8
    python -m xingzi.web.loadtest --real               # own server, the shipped model
    python -m xingzi.web.loadtest --url http://127.0.0.1:8000 --photo examples/demo.jpg

Only loopback addresses are accepted as targets. The run stops after ``--n`` requests (and a
per-request timeout), then checks that the server still answers ``/healthz``.
"""

from __future__ import annotations

import argparse
import io
import ipaddress
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np
from PIL import Image

from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout


class DemoDetector:
    """Always the same hand (for load and page tests without weights)."""

    def __init__(self, width: int = 1280, height: int = 960) -> None:
        self.detections = hand_layout("123m456m789p12s55p", "3s", size=height / 12,
                                      center=(width / 2, height / 2), probs=True).detections

    def predict(self, image: np.ndarray) -> Detections:
        return self.detections


def loopback_only(url: str) -> str:
    host = urlparse(url).hostname or ""
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"load tests run against loopback only (127.0.0.1, ::1, localhost); got {host!r}")
    return url.rstrip("/")


def start_server(detector, **options: Any) -> tuple[str, Any, threading.Thread]:
    """The app with ``detector`` (and ``create_app`` ``options``) served on a free loopback port, in a thread."""
    import uvicorn

    from .app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(detector, **options), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start within 30 s")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server, thread


def one_upload(url: str, photo: bytes, timeout: float) -> tuple[float, int]:
    req = urllib.request.Request(url + "/api/read", data=photo, method="POST",
                                 headers={"Content-Type": "image/jpeg"})
    t = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except (urllib.error.URLError, TimeoutError, ConnectionError):
        status = 0
    return time.perf_counter() - t, status


def load(url: str, photo: bytes, n: int, concurrency: int, timeout: float) -> dict:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(lambda _: one_upload(url, photo, timeout), range(n)))
    wall = time.perf_counter() - t0
    # throughput and latency of the photos answered: a refused or timed-out request is an error, not a fast answer
    ms = np.array([t for t, status in results if status == 200]) * 1000
    errors = n - len(ms)
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=timeout) as r:
            alive = json.loads(r.read()).get("ok") is True
    except (urllib.error.URLError, TimeoutError, ConnectionError, ValueError):
        alive = False
    timed = {"median_ms": round(float(np.median(ms)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
             "max_ms": round(float(ms.max()), 1)} if len(ms) else {"median_ms": None, "p95_ms": None, "max_ms": None}
    return {"requests": n, "concurrency": concurrency, "wall_s": round(wall, 2),
            "throughput_rps": round(len(ms) / wall, 1), **timed,
            "errors": errors, "server_up_after": alive}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m xingzi.web.loadtest", description=__doc__.split("\n")[0])
    p.add_argument("--url", help="a running server on loopback (default: start one here)")
    p.add_argument("--n", type=int, default=200, help="requests in all (default 200, at most 5000)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8, at most 64)")
    p.add_argument("--photo", help="JPEG to upload (default: a 1280x960 photo made here)")
    p.add_argument("--real", action="store_true", help="own server with the real detector (default: demo detector)")
    p.add_argument("--model", help="with --real: detector weights")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    args = p.parse_args(argv)
    if not 1 <= args.n <= 5000 or not 1 <= args.concurrency <= 64:
        p.error("--n must be 1..5000 and --concurrency 1..64")
    if args.photo:
        try:
            photo = Path(args.photo).read_bytes()
        except OSError as e:
            p.error(f"--photo: cannot read {args.photo}: {e.strerror or e}")
    else:
        buf = io.BytesIO()
        Image.new("RGB", (1280, 960), (50, 120, 40)).save(buf, "JPEG", quality=85)
        photo = buf.getvalue()
    server: Any = None
    if args.url:
        try:
            url = loopback_only(args.url)
        except ValueError as e:
            p.error(f"--url: {e}")
    else:
        if args.real:
            from xingzi.vision.pipeline import make_detector

            detector = make_detector(args.model, None)
        else:
            detector = DemoDetector()
        url, server, thread = start_server(detector)
    try:
        report = load(url, photo, args.n, args.concurrency, args.timeout)
    finally:
        if server is not None:
            server.should_exit = True
            thread.join(timeout=10)
    print(json.dumps(report))
    return 0 if report["errors"] == 0 and report["server_up_after"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
