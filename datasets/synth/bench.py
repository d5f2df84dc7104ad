"""Synthetic-photo throughput (``xingzi bench synth``): images per second written to disk.

Images are generated and written (JPEG, labels, meta, scoring) by ``--workers`` processes; the
overall and steady rates (wall clock) and the CPU time per image are printed. The CPU figure says
what the generator costs whatever else the machine is running.
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
    from .dataset import MAX_PHOTOS, generate_dataset, warm_faces
    from .generate import check_styles

    if args.n < 1 or args.workers < 1:
        raise ValueError(f"--n and --workers must be at least 1, got {args.n} and {args.workers}")
    if args.n > MAX_PHOTOS:  # (said before the faces are built, as the others)
        raise ValueError(f"--n must be 1..{MAX_PHOTOS} photos, got {args.n}")
    if args.seed < 0:  # (said here: the generator's own message names --start, which this command has not)
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")
    styles = check_styles(None)
    t0, c0 = time.perf_counter(), time.process_time()
    warm_faces(styles)
    warm, warm_cpu = time.perf_counter() - t0, time.process_time() - c0
    stamps: list[float] = []
    with tempfile.TemporaryDirectory(prefix="xingzi_synth_bench_") as out:
        cpu0 = _cpu_seconds()
        t0 = time.perf_counter()
        for _ in generate_dataset(out, args.n, args.seed, args.imgsz, args.workers, styles):
            stamps.append(time.perf_counter())
        dt = time.perf_counter() - t0
        cpu = _cpu_seconds() - cpu0
    done = len(stamps)
    steady = steady_rate(stamps) or done / dt
    cores = os.cpu_count() or 1
    used = min(cores, args.workers)
    per_image = cpu_per_image(cpu, warm_cpu, args.workers, done)
    print(f"synth: {done} images at {args.imgsz} px with {args.workers} worker(s): {done / dt:.1f} images/s "
          f"overall, {steady:.1f} images/s steady (wall clock, load average {os.getloadavg()[0]:.1f} "
          f"on {cores} cores)")
    warmed = f"building every face style takes {warm:.1f} s ({warm_cpu:.1f} s CPU) once per process"
    if per_image is None:
        print(f"synth: {cpu:.1f} s CPU in all, too little beside the workers' start-up to tell the CPU per image "
              f"(try --n 200); {warmed}")
    else:
        print(f"synth: {1000 * per_image:.0f} ms CPU per image, i.e. {used / per_image:.1f} images/s on {used} idle "
              f"core(s); {warmed}")
    return 0


def cpu_per_image(cpu: float, warm_cpu: float, workers: int, done: int) -> float | None:
    """CPU seconds per image: with a pool each worker builds the face textures once as well (``warm_cpu``), which is
    taken out; None when that start-up is most of the time measured (a few images: the rest says nothing)."""
    if workers == 1:
        return cpu / done
    making = cpu - workers * warm_cpu
    return making / done if making >= cpu / 4 else None


def steady_rate(stamps: list[float]) -> float | None:
    """Images per second between the times images were finished, the first tenth left out (workers build their
    face textures while making their first images); None under two stamps left."""
    rest = stamps[len(stamps) // 10:]
    if len(rest) < 2 or rest[-1] <= rest[0]:
        return None
    return (len(rest) - 1) / (rest[-1] - rest[0])


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the worker pool)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:  # `python -m xingzi.datasets.synth.bench`, as `xingzi bench synth`
    parser = argparse.ArgumentParser(prog="python -m xingzi.datasets.synth.bench", description=__doc__)
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except ValueError as e:
        parser.error(str(e))


if __name__ == "__main__":
    raise SystemExit(main())
