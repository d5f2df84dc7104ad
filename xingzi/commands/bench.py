"""``xingzi bench TARGET [options]``: speed and throughput figures. Each target's module
exposes ``add_arguments(parser)`` and ``run(args) -> int`` and is imported only when chosen."""

from __future__ import annotations

import argparse
import importlib

TARGETS: dict[str, str] = {
    "engine": "xingzi.engine.bench",
    "synth": "xingzi.datasets.synth.bench",
    "detector": "xingzi.vision.bench",
    "pipeline": "xingzi.vision.bench_pipeline",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", nargs="?", choices=list(TARGETS), help="what to benchmark")
    p.add_argument("options", nargs=argparse.REMAINDER,
                   help="options of that benchmark (see xingzi bench TARGET --help)")


def run(args: argparse.Namespace) -> int:
    if args.target is None:  # (argparse said "the following arguments are required: target, options")
        *some, last = TARGETS
        raise ValueError(f"expected a target: {', '.join(some)} or {last} (xingzi bench TARGET --help: its options)")
    try:
        mod = importlib.import_module(TARGETS[args.target])
    except ModuleNotFoundError as e:
        raise ValueError(f"benchmark {args.target!r} is not available: {e}") from None
    from xingzi.cli import OneLineParser  # (imported when run: the cli imports this module)

    parser = OneLineParser(prog=f"xingzi bench {args.target}")
    mod.add_arguments(parser)
    return int(mod.run(parser.parse_args(args.options)) or 0)
