"""Synthetic-photo throughput (``xingzi bench synth``): images per second written to disk.

The face textures of every style are built first (the warm-up, reported apart; worker processes
inherit them); then ``--n`` images are generated and written (JPEG, labels, meta) and the rate is
printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--n", type=int, default=200, help="images to generate (default 200)")
    parser.add_argument("--imgsz", type=int, default=640, help="long side in pixels (default 640)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    from .dataset import generate_dataset, warm_faces
    from .generate import check_styles

    if args.n < 1 or args.workers < 1:
        raise ValueError(f"--n and --workers must be at least 1, got {args.n} and {args.workers}")
    styles = check_styles(None)
    t0 = time.perf_counter()
    warm_faces(styles)
    warm = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="xingzi_synth_bench_") as out:
        cpu0 = _cpu_seconds()
        t0 = time.perf_counter()
        done = sum(1 for _ in generate_dataset(out, args.n, args.seed, args.imgsz, args.workers, styles))
        dt = time.perf_counter() - t0
        cpu = _cpu_seconds() - cpu0
    cores = os.cpu_count() or 1
    print(f"synth: {done} images at {args.imgsz} px with {args.workers} worker(s): "
          f"{done / dt:.1f} images/s wall ({1000 * dt / done:.0f} ms each); "
          f"{1000 * cpu / done:.0f} ms CPU per image, i.e. {done / cpu * min(cores, args.workers):.1f} images/s "
          f"on {min(cores, args.workers)} otherwise idle core(s); face warm-up {warm:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {cores} cores")
    return 0


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the worker pool)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:  # until `xingzi bench synth` dispatches here
    parser = argparse.ArgumentParser(prog="python -m xingzi.datasets.synth.bench", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
