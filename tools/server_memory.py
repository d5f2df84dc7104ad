"""What a running `xingzi serve` holds after large photos: its resident memory read from /proc (Linux).

    python -m tools.server_memory [--port 8765] [--rounds 4] [--small 20]

Starts a fresh server, reads one small photo, then ``--rounds`` times two 48-MP HEICs at once
(tests/data/photos/demo_48mp.heic), then ``--small`` small photos (examples/demo.jpg), and prints the server's VmRSS
after each stage (the largest seen during the HEIC rounds). The server is stopped at the end.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEIC = ROOT / "tests" / "data" / "photos" / "demo_48mp.heic"
SMALL = ROOT / "examples" / "demo.jpg"


def resident_mb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) // 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.server_memory", description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--small", type=int, default=20)
    args = p.parse_args(argv)
    url = f"http://127.0.0.1:{args.port}"
    server = subprocess.Popen([sys.executable, "-m", "xingzi.cli", "serve", "--port", str(args.port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.3)

        def read(path: Path) -> None:
            request = urllib.request.Request(url + "/api/read", data=path.read_bytes(), method="POST")
            urllib.request.urlopen(request, timeout=300).read()

        read(SMALL)
        first, peak = resident_mb(server.pid), 0
        for _ in range(args.rounds):
            pair = [threading.Thread(target=read, args=(HEIC,)) for _ in range(2)]
            for t in pair:
                t.start()
            for t in pair:
                t.join()
            peak = max(peak, resident_mb(server.pid))
        for _ in range(args.small):
            read(SMALL)
        print(f"server memory: {first} MB after one photo; {peak} MB after {args.rounds} rounds of two 48-MP HEICs "
              f"at once; {resident_mb(server.pid)} MB after {args.small} small photos more")
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
