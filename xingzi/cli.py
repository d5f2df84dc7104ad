"""The ``xingzi`` command. Each subcommand lives in ``xingzi.commands.<module>`` with
``add_arguments(parser)`` and ``run(args) -> int``; modules are imported lazily so that
``xingzi score --hand`` never pays for importing torch."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import errno
import importlib
import os
import signal
import sys
from typing import NoReturn

# an optional package (its import name) -> the extra of pyproject.toml that installs it
OPTIONAL_PACKAGES = {"onnxruntime": "read", "pillow_heif": "read", "fastapi": "web", "uvicorn": "web", "segno": "web",
                     "multipart": "web", "starlette": "web", "torch": "vision", "torchvision": "vision",
                     "ultralytics": "vision", "onnx": "vision", "onnxslim": "vision", "openvino": "vision",
                     "matplotlib": "vision"}

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


class OneLineParser(argparse.ArgumentParser):
    """argparse's own refusals (``--n abc``, an unknown option) in one line, as every command's other refusals, not
    after its usage; the subcommands' parsers (and theirs) are made of this class too."""

    extra_hint = ""  # said after "unrecognized arguments" that are no options (set for the command chosen)

    def error(self, message: str) -> NoReturn:
        extra = message.removeprefix("unrecognized arguments:").split()
        if self.extra_hint and message.startswith("unrecognized arguments:") and not any(a.startswith("-") for a in extra):
            message += f" ({self.extra_hint})"
        self.exit(2, f"{self.prog}: error: {message}\n")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("xingzi")
    except metadata.PackageNotFoundError:  # (run from a checkout that was never installed)
        return "(not installed)"


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    parser = OneLineParser(prog="xingzi", description="Read, group and score photos of revealed Xingzi (星子) mahjong hands.")
    parser.add_argument("--version", action="version", version=f"xingzi {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Only the chosen subcommand's module is imported.
    chosen = next((a for a in argv if not a.startswith("-")), None)
    if chosen == "score":  # `xingzi score *.jpg`
        parser.extra_hint = 'one photo at a time: for f in *.jpg; do xingzi score "$f"; done'
    for name, (module, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            mod = importlib.import_module(f"xingzi.commands.{module}")
            mod.add_arguments(p)
            p.set_defaults(_run=mod.run)
    return parser


# options naming a file or folder: given '', argparse's Path('') is the current folder (outputs were written there)
PATH_OPTIONS = frozenset({"--out", "--labels", "--data", "--model", "--json", "--json-out", "--rules", "--preds",
                          "--errata", "--second", "--classifier", "--collect", "--compare", "--import-labelstudio",
                          "--import-yolo", "--export-labelstudio", "--extra-train", "--images", "--save-preds",
                          "--weights", "--resume", "--ship", "--name-map", "--sets", "--real", "--art", "--crops"})


def empty_path(argv: list[str]) -> str | None:
    """The first option of PATH_OPTIONS given an empty value (``--out ''`` or ``--out=``), else None."""
    for k, token in enumerate(argv):
        name, eq, value = token.partition("=")
        if name in PATH_OPTIONS and (eq and not value or not eq and k + 1 < len(argv) and argv[k + 1] == ""):
            return name
    return None


class Terminated(BaseException):
    """SIGTERM (``kill``, a service stopping) as an exception, so that what is being written is cleaned up as on
    Ctrl-C (temp files removed, the file before kept) before the program dies of the signal itself."""


def _terminated(signum: int, _frame: object) -> NoReturn:
    raise Terminated(signum)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.stdout is None:  # started with standard output closed (`>&-`): every command prints what it did there
        if sys.stderr is not None:
            print("xingzi: error: standard output is closed (>&-): nowhere to say what was done; send it to a file "
                  "or to /dev/null", file=sys.stderr)
        return 2
    if (empty := empty_path(argv)) is not None:
        command = " ".join(argv[:2] if argv[:1] in (["dataset"], ["bench"]) else argv[:1])
        print(f"xingzi{' ' + command if command else ''}: error: {empty} is empty: expected a file or folder, got ''",
              file=sys.stderr)
        return 2
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0 if not argv else 2
    try:
        return int(args._run(args) or 0)
    except BrokenPipeError:  # the reader went away (`| head -1`): nothing more to say, and nowhere to say it
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (the exit's flush finds nothing to fail)
        return 141  # as a shell reports a command ended by SIGPIPE
    except ValueError as e:  # bad input: a clear message, no traceback
        print(f"xingzi {args.command}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file not found, not readable or not writable
        print(f"xingzi {args.command}: error: {os_error_text(e)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:  # an optional package this command needs: which extra brings it
        extra = OPTIONAL_PACKAGES.get((e.name or "").split(".")[0])
        if extra is None:
            raise
        print(f"xingzi {args.command}: error: this needs the {e.name} package, which is not installed here: "
              f"pip install 'xingzi[{extra}]'", file=sys.stderr)
        return 2
    except RecursionError:  # JSON or TOML nested thousands deep: no situation or ruleset looks like that
        print(f"xingzi {args.command}: error: the input is nested too deeply to be a situation or a ruleset",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        _interrupted.append(True)
        return 130
    except Terminated:
        _interrupted.append(False)
        return 143


_interrupted: list[bool] = []  # main() ended by Ctrl-C (True) or SIGTERM (False); a test calls main() and reads 130


def program() -> None:
    """The `xingzi` program: main()'s code, or, after Ctrl-C or SIGTERM, death by that signal itself, so that a
    shell loop over photos stops there too (an exit with 130 tells bash the command handled the signal: the loop
    went on)."""
    if os.name == "posix" and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # (not where it is ignored)
        signal.signal(signal.SIGTERM, _terminated)
    code = main()
    if _interrupted and os.name == "posix":
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        atexit._run_exitfuncs()  # what an exit runs (a pool's semaphores given back), which dying by a signal skips
        which = signal.SIGINT if _interrupted[-1] else signal.SIGTERM
        signal.signal(which, signal.SIG_DFL)
        os.kill(os.getpid(), which)
    raise SystemExit(code)


# what the system's word means for a path given on the command line (its own reads "[Errno 17] File exists: 'x'")
OS_ERRORS = {errno.EEXIST: "already exists and is in the way (a file where a folder is needed?)", errno.ENOENT: "not found",
             errno.ENOTDIR: "a file stands where a folder is needed on this path", errno.EACCES: "not allowed here (permission denied)",
             errno.EISDIR: "is a folder; expected a file", errno.ENOSPC: "the disk is full",
             errno.EFBIG: "too large to write here (a limit on file sizes)", errno.EROFS: "on a read-only disk",
             errno.EDQUOT: "over the disk quota", errno.EIO: "the disk failed to write it (input/output error)",
             errno.EPERM: "not permitted here (operation not permitted)"}


def os_error_text(e: OSError) -> str:
    """An OSError as one line naming the path: ``/tmp/x.json: not found``."""
    if e.filename is None or e.errno not in OS_ERRORS:
        return str(e)
    return f"{e.filename}: {OS_ERRORS[e.errno]}"


if __name__ == "__main__":
    raise SystemExit(main())
