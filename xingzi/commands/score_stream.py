"""Reading ``xingzi score --json FILE|-`` a line at a time. JSON Lines (split at \\n, a \\r before it dropped) are
answered as they come: each result written and flushed before the next line is read, in memory bounded by one line.
Input whose first line is not one whole JSON object (an object over many lines, a JSON list) is read whole, as
before, up to WHOLE_LIMIT bytes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import IO, Any, NamedTuple

LINE_LIMIT = 1 << 20  # bytes of one JSON line (a situation is well under a kilobyte)
WHOLE_LIMIT = 64 << 20  # bytes of input read whole: one object over many lines, a JSON list
BOM = b"\xef\xbb\xbf"
JSON_SPACE = b" \t\r\n"  # the white space JSON reads (str.strip() takes more: an input holding it is no one value)
EMPTY = "no situation given: expected a §10 JSON object, or JSON Lines of them"


def too_long(size: int) -> str:
    return (f"line too long: {size:,} bytes, over the limit of {LINE_LIMIT:,} bytes (1 MiB) for one JSON line "
            f"(a situation is well under a kilobyte)")


def too_much() -> str:
    return (f"more than {WHOLE_LIMIT >> 20} MiB of input whose first line is not one JSON object: too much to read as "
            f"one JSON value; give JSON Lines (one situation per line), which are read a line at a time")


def check_line(item: str) -> str:
    """A JSON line as given, or a ValueError if it is over the limit of one line."""
    if len(item) > LINE_LIMIT // 4 and (size := len(item.encode("utf-8", "surrogatepass"))) > LINE_LIMIT:
        raise ValueError(too_long(size))
    return item


class Line(NamedTuple):
    """One line, its end (\\n or \\r\\n) taken off. ``text`` None: over the limit (read through, not kept), or not
    UTF-8 (``bad``: the input's bytes before the first bad byte, and that byte)."""

    text: str | None
    number: int
    size: int  # bytes, its end not counted
    blank: bool  # white space only, as str.strip() has it
    json_space: bool  # only the white space JSON reads
    bad: tuple[int, bytes] | None = None


class Reader:
    """Lines of a byte stream (``readline(n)``, ``read(n)``), a leading byte-order mark dropped; ``detail``: a bad
    byte's place said even before anything was answered (standard input: a file is named instead)."""

    def __init__(self, stream: Any, where: str, detail: bool) -> None:
        self._stream, self.where, self._detail = stream, where, detail
        self._offset = self._number = 0  # bytes (a byte-order mark not counted) and lines read

    def _read(self, how: Callable[[int], bytes], n: int) -> bytes:
        try:
            return how(n)
        except OSError as e:
            raise ValueError(f"cannot read {self.where}: {e.strerror}") from None

    def line(self, limit: int) -> Line | None:
        """The next line (None: no more); one over ``limit`` bytes is read through a block at a time, not kept."""
        want = limit + 2 + len(BOM)  # (a line of `limit` bytes, its \r\n, a byte-order mark before the first)
        raw = self._read(self._stream.readline, want)
        if not raw:
            return None
        cut = len(raw) >= want and not raw.endswith(b"\n")
        if not self._number:
            raw = raw.removeprefix(BOM)
        start, self._number = self._offset, self._number + 1
        size, tail, blank = len(raw), raw[-2:], not raw.strip(JSON_SPACE)
        while cut:
            if size > WHOLE_LIMIT:  # (/dev/zero, a binary file: read through, it never ended)
                raise ValueError(f"{self.where}: a line of more than {WHOLE_LIMIT >> 20} MiB with no end in sight: "
                                 "expected JSON text (a situation is well under a kilobyte)")
            raw = self._read(self._stream.readline, 1 << 16)
            cut = bool(raw) and not raw.endswith(b"\n")
            size, tail, blank = size + len(raw), (tail + raw)[-2:], blank and not raw.strip(JSON_SPACE)
        self._offset += size
        size -= 2 if tail == b"\r\n" else 1 if tail.endswith(b"\n") else 0
        if size > limit:
            return Line(None, self._number, size, blank, blank)
        try:
            text = raw[:size].decode("utf-8")
        except UnicodeDecodeError as e:
            return Line(None, self._number, size, False, False, (start + e.start, raw[e.start:e.start + 1]))
        return Line(text, self._number, size, not text.strip(), not text.strip(JSON_SPACE.decode()))

    def lines(self) -> Iterator[Line]:
        while (line := self.line(LINE_LIMIT)) is not None:
            yield line

    def rest(self, limit: int) -> str:
        """All the input not yet read, decoded; a ValueError if it is over ``limit`` bytes or not UTF-8."""
        data = bytearray()
        while len(data) <= limit and (more := self._read(self._stream.read, limit + 1 - len(data))):
            data += more
        if len(data) > limit:
            raise ValueError(too_much())
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.not_utf8((self._offset + e.start, bytes(data[e.start:e.start + 1]))) from None

    def not_utf8(self, bad: tuple[int, bytes], line: int = 0) -> ValueError:
        """What is said of a bad byte: before anything was answered, or (``line``) after the lines before it were."""
        (offset, byte), what = bad, f"{self.where} is not UTF-8 text (expected JSON)"
        if line:
            return ValueError(f"{what}: byte {offset}, on line {line}, is {byte!r} (the lines before it are answered; "
                              f"reading stopped there)")
        return ValueError(what + (f": byte {offset} is {byte!r}" if self._detail else ""))


class _Encoded:
    """A text stream put in standard input's place (tests, embedding), read as UTF-8 bytes."""

    def __init__(self, text: IO[str]) -> None:
        self.readline = lambda n: text.readline(n).encode("utf-8", "surrogatepass")
        self.read = lambda n: text.read(n).encode("utf-8", "surrogatepass")


@contextmanager
def opened(name: str) -> Iterator[Reader]:
    """The input ``--json NAME`` names: ``-`` standard input, otherwise a file."""
    if name == "-":
        if sys.stdin is None:  # (started with standard input closed: `<&-`)
            raise ValueError("there is no standard input to read (it is closed): give --json FILE, or pipe the "
                             "situations in")
        stream = getattr(sys.stdin, "buffer", None)
        yield Reader(_Encoded(sys.stdin) if stream is None else stream, "standard input", detail=True)
        return
    try:
        fh = open(name, "rb")  # noqa: SIM115 (closed below, once read)
    except OSError as e:
        raise ValueError(f"cannot read situation file {name!r}: {e.strerror}") from None
    with fh:
        yield Reader(fh, f"situation file {name!r}", detail=False)


Answer = Callable[[str, int], tuple[dict[str, Any], bool]]


def score_input(reader: Reader, out: IO[str], *, as_lines: bool, parse: Callable[[str], Any], answer: Answer,
                whole: Callable[[str], int]) -> int:
    """Score what ``reader`` gives. ``as_lines``: JSON Lines whatever it holds. Otherwise the first line that is not
    blank decides: one JSON object with only blank lines after it → that one situation (``whole``); an object (or
    one the parser refuses) with more lines after it → JSON Lines, each answered (``answer``) as it comes; no whole
    JSON value (an object over many lines, a list) → the input read whole, up to WHOLE_LIMIT, and ``whole``."""
    if as_lines:
        return _json_lines(reader, out, answer)
    first = reader.line(WHOLE_LIMIT)  # (it may be a JSON list on one line: read as far as input read whole)
    while first is not None and first.blank:
        if not first.json_space:  # white space JSON does not take: the input is no one JSON value
            return _json_lines(reader, out, answer)
        first = reader.line(WHOLE_LIMIT)
    if first is None:
        raise ValueError(EMPTY)
    if first.bad:
        raise reader.not_utf8(first.bad)
    if first.text is None:
        raise ValueError(too_much())
    before = "\n" * (first.number - 1)  # (the blank lines before it: the whole input's line numbers)
    try:
        kind = "object" if isinstance(parse(first.text), dict) else "other"
    except json.JSONDecodeError:
        kind = "other"
    except ValueError:  # nested too deep, a number too long: one bad line, or the whole input refused
        kind = "refused"
    if kind == "other":
        return whole(before + first.text + "\n" + reader.rest(WHOLE_LIMIT - first.size))
    for line in reader.lines():
        if not (line.json_space if kind == "object" else line.blank):
            return _json_lines(reader, out, answer, [first, line])
    return whole(before + first.text)


def _json_lines(reader: Reader, out: IO[str], answer: Answer, pending: Iterable[Line] = ()) -> int:
    """Answer each line (``pending``: read already) as it is read: its result or error record written and flushed
    before the next is read."""
    failed = answered = False
    for line in chain(pending, reader.lines()):
        if line.bad:  # reading stops there
            raise reader.not_utf8(line.bad, line.number if answered else 0)
        if line.blank:
            continue
        record, scored = (answer(line.text, line.number) if line.text is not None and line.size <= LINE_LIMIT
                          else ({"error": too_long(line.size), "line": line.number}, False))
        failed, answered = failed or not scored, True
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.flush()
    if not answered:
        raise ValueError(EMPTY)
    return 1 if failed else 0
