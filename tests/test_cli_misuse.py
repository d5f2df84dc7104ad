"""`xingzi score` called the way a hurried user calls it: a photo given to --json, two photos, a photo on standard
input, an endless file. One line says what went wrong and how to say it instead; nothing hangs."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from xingzi.cli import main

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.jpg"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own refusals
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(("argv", "said"), [
    pytest.param(["score", "--json", "hand.jpg"], "xingzi score: error: --json hand.jpg names a photo, but --json "
                 "FILE reads JSON situations: give the photo first, its result as JSON with a bare --json after it "
                 "(xingzi score hand.jpg --json)", id="photo-after-json"),
    pytest.param(["score", "--tiles", "--json", "IMG_1.HEIC"], "--json IMG_1.HEIC names a photo", id="tiles-then-json"),
    pytest.param(["score", "a.jpg", "b.jpg"], 'xingzi: error: unrecognized arguments: b.jpg (one photo at a time: '
                 'for f in *.jpg; do xingzi score "$f"; done)', id="two-photos"),
    pytest.param(["score", "-"], "xingzi score: error: a photo is read from its file, not from standard input ('-'): "
                 "give the photo's path", id="photo-on-stdin"),
])
def test_a_photo_given_where_it_is_not_read_is_refused_saying_how(capsys, argv, said) -> None:
    code, out, err = run(argv, capsys)
    assert (code, out) == (2, "") and said in err and err.count("\n") == 1


def test_an_unknown_option_is_not_taken_for_a_second_photo(capsys) -> None:
    code, _, err = run(["score", str(DEMO), "--bogus"], capsys)
    assert code == 2 and err == "xingzi: error: unrecognized arguments: --bogus\n"


class Endless(io.RawIOBase):
    """A stream that never ends a line (/dev/zero, a binary file piped in)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        buffer[:] = b"\0" * len(buffer)
        return len(buffer)


def test_an_input_that_never_ends_a_line_is_refused_not_read_forever(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert (code, out) == (2, "")
    assert err == ("xingzi score: error: standard input: a line of more than 64 MiB with no end in sight: expected JSON "
                   "text (a situation is well under a kilobyte)\n")


# a package of an extra not installed (None in sys.modules: its import fails as a missing one's does)
WITHOUT = "import sys; sys.modules[{name!r}] = None; from xingzi.cli import main; raise SystemExit(main({argv!r}))"


@pytest.mark.parametrize(("name", "argv", "extra"), [
    pytest.param("onnxruntime", ["score", str(DEMO)], "read", id="score-a-photo"),
    pytest.param("onnxruntime", ["serve", "--port", "8799"], "read", id="serve"),
    pytest.param("uvicorn", ["serve", "--port", "8799"], "web", id="serve-without-web"),
])
def test_a_missing_optional_package_is_named_with_the_extra_that_brings_it(tmp_path, name, argv, extra) -> None:
    import os
    import subprocess

    env = os.environ | {"XINGZI_RUNTIME": "onnxruntime"}
    proc = subprocess.run([sys.executable, "-c", WITHOUT.format(name=name, argv=argv)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    command = argv[0]
    assert proc.stderr == (f"xingzi {command}: error: this needs the {name} package, which is not installed here: "
                           f"pip install 'xingzi[{extra}]'\n")


def test_the_version_is_said(capsys) -> None:
    from importlib import metadata

    code, out, _ = run(["--version"], capsys)
    assert (code, out) == (0, f"xingzi {metadata.version('xingzi')}\n")


def test_train_without_data_where_no_real_photos_lie_asks_for_data(tmp_path, capsys, monkeypatch) -> None:
    import xingzi.models.train as tr

    monkeypatch.setattr(tr, "SHARED_DATA", tmp_path / "shared" / "data")  # an installed package: no ../shared
    code, out, err = run(["train", "--epochs", "1"], capsys)
    assert (code, out) == (2, "")
    assert err == (f"xingzi train: error: give --data DATA.yaml: without it the real photos of {tmp_path}/shared/data "
                   "are trained on, and there are none there\n")
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("number", "words"), [
    pytest.param("ENOENT", "not found", id="not-found"),
    pytest.param("EACCES", "not allowed here (permission denied)", id="permission"),
    pytest.param("EPERM", "not permitted here (operation not permitted)", id="not-permitted"),
    pytest.param("ENOSPC", "the disk is full", id="disk-full"),
    pytest.param("EFBIG", "too large to write here (a limit on file sizes)", id="file-size-limit"),
    pytest.param("EROFS", "on a read-only disk", id="read-only-disk"),
])
def test_a_file_system_refusal_is_said_in_words_naming_the_path(number, words) -> None:
    import errno
    import os

    from xingzi.cli import os_error_text

    code = getattr(errno, number)
    assert os_error_text(OSError(code, os.strerror(code), "/data/out.jpg")) == f"/data/out.jpg: {words}"
    assert os_error_text(OSError(code, os.strerror(code))) == f"[Errno {code}] {os.strerror(code)}"  # no path: as is
