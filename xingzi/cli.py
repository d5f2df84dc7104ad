"""The ``xingzi`` command. Each subcommand lives in ``xingzi.commands.<module>`` with
``add_arguments(parser)`` and ``run(args) -> int``; modules are imported lazily so that
``xingzi score --hand`` never pays for importing torch."""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module under xingzi.commands, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "score": ("score", "score a hand, a JSON situation or a photo"),
    "rules": ("rules", "print the active ruleset as a table"),
    "bench": ("bench", "benchmarks: engine speed, synth throughput, detector latency"),
    "synth": ("synth", "generate synthetic photos of revealed hands (YOLO dataset)"),
    "train": ("train", "train the tile detector"),
    "eval": ("evaluate", "evaluate a detector on a YOLO dataset"),
    "serve": ("serve", "start the phone web page"),
    "label": ("label", "pre-label photos with the model; Label Studio import/export"),
    "dataset": ("dataset", "check, merge and split YOLO datasets"),
}


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="xingzi", description="Read, group and score photos of revealed Xingzi (星子) mahjong hands.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Only the chosen subcommand's module is imported.
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            mod = importlib.import_module(f"xingzi.commands.{module}")
            mod.add_arguments(p)
            p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0 if not argv else 2
    try:
        return int(args._run(args) or 0)
    except ValueError as e:  # bad input: a clear message, no traceback
        print(f"xingzi {args.command}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file not found, not readable or not writable
        print(f"xingzi {args.command}: error: {e}", file=sys.stderr)
        return 2
    except RecursionError:  # JSON or TOML nested thousands deep: no situation or ruleset looks like that
        print(f"xingzi {args.command}: error: the input is nested too deeply to be a situation or a ruleset",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
