"""What the web app answers before (or instead of) any work: a refused request as ``{"error": ..., "error_zh": ...}``
saying what was expected and what came (its Chinese from :mod:`refusals`), for the app's own checks
(:class:`BadRequest`) and for Starlette's (no such address, a method the address does not take); a query that gives a
parameter twice; a body sent as a form, too large or stalled; the lists of tiles a body names (added, set aside,
claimed); a dataset folder that cannot be written."""

from __future__ import annotations

import asyncio
import ctypes
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

MAX_MESSAGE = 600  # characters of an error message sent back
STALL_SECONDS = 30.0  # an upload that sends nothing for this long is given up (a stalled phone, or a slow-loris)


class BadRequest(ValueError):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _libc_trim() -> Any:
    """glibc's malloc_trim, or None where the C library has none (musl, macOS, Windows)."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _libc_trim()


def give_back_memory() -> bool:
    """Hand the heap freed since to the system. A photo decodes into buffers of hundreds of megabytes (a 48-MP HEIC
    takes +0.65 GB) that glibc keeps once freed: a server left running held ~0.5 GB more than it used (a soak test,
    session 76: 1.2 GB, 0.7 GB after a trim). About 2 ms. False where there is nothing to call."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


def short(message: str, limit: int = MAX_MESSAGE) -> str:
    """An error message of bounded length: some echo what was sent, which may be megabytes."""
    return message if len(message) <= limit else message[:limit] + f"… ({len(message) - limit} more characters)"


def mib(n: int) -> str:
    return f"{n / 2 ** 20:.1f} MiB" if n % 2 ** 20 else f"{n // 2 ** 20} MiB"


def add_error_pages(app: FastAPI) -> None:
    """Starlette's own refusals (an address that is not there, a method an address does not take) as the app's
    others are: ``{"error": ...}``, which the page shows, rather than ``{"detail": "Method Not Allowed"}``."""

    @app.exception_handler(HTTPException)
    async def refused(request: Request, exc: HTTPException) -> JSONResponse:
        path, headers = request.url.path, dict(exc.headers or {})
        if exc.status_code == 405:
            allow = next((v for k, v in headers.items() if k.lower() == "allow"), "other methods")
            message = f"{path} takes {', '.join(sorted(allow.split(', ')))}, not {request.method}"
        elif exc.status_code == 404:
            message = f"no such address: {path} (the page is at /)"
        else:
            message = str(exc.detail)
        from .refusals import refusal  # (refusals reads short from here)

        return JSONResponse(refusal(message, exc.status_code), status_code=exc.status_code, headers=headers)


def query(request: Request) -> dict[str, str]:
    """The query's parameters; one given twice is refused (which was meant is unclear), as a JSON body's key is."""
    params = request.query_params
    if len(params) == len(params.multi_items()):
        return dict(params)
    key = next(k for k in params if len(params.getlist(k)) > 1)
    values = ", ".join(map(repr, params.getlist(key)))
    raise BadRequest(short(f"{key} is given {len(params.getlist(key))} times in the query ({values}): give it once "
                           "(which was meant is unclear)"))


def media_type(request: Request) -> str:
    """The body's media type, without its parameters, in lower case (``Multipart/Form-Data; boundary=x``)."""
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def form_hint(kind: str, data: bytes) -> str:
    """Said after a photo that cannot be read when it came as ``curl -d @photo.jpg`` sends it: a urlencoded form
    with its line breaks taken out (a photo of more than a few kB without a byte 10 or 13 is all but unknown)."""
    if kind != "application/x-www-form-urlencoded" or len(data) < 4096 or b"\n" in data or b"\r" in data:
        return ""
    return " (it came without a line break, as curl -d sends a file: send the photo with --data-binary @photo.jpg)"


def not_json(e: ValueError | RecursionError) -> str:
    """What came, when a body or a query parameter is no JSON."""
    if isinstance(e, RecursionError):
        return "JSON nested thousands deep"
    if isinstance(e, json.JSONDecodeError):
        return f"no JSON: {e.msg} at line {e.lineno} column {e.colno}"
    if isinstance(e, UnicodeDecodeError):
        return f"no UTF-8 text: byte {e.start} is {e.object[e.start:e.start + 1]!r}"
    return f"no JSON: {e}"


def save_failed(e: OSError, root: Path) -> BadRequest:
    """The dataset folder could not take a sample (full, read-only, a file in the way): 507, saying where and why."""
    from xingzi.cli import os_error_text

    if e.filename2:  # a file written aside, then put in place: the place is what to name
        e = OSError(e.errno, e.strerror, e.filename2)
    return BadRequest(short(f"存不进训练集 the photo could not be saved in the server's dataset folder {root}: "
                            f"{os_error_text(e)}"), 507)


async def read_body(request: Request, limit: int, what: str = "upload") -> bytes:
    """The raw body, refused (413) past ``limit`` bytes without reading the rest; ``what`` it is, in the message
    (a photo's "upload", or a JSON "request")."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise BadRequest(f"{what} of {mib(int(declared))} is over the {mib(limit)} limit", 413)
    chunks, size = [], 0
    stream = request.stream().__aiter__()
    try:
        while True:
            try:
                chunk = await asyncio.wait_for(stream.__anext__(), STALL_SECONDS)
            except StopAsyncIteration:
                break
            size += len(chunk)
            if size > limit:
                raise BadRequest(f"{what} is over the {mib(limit)} limit", 413)
            chunks.append(chunk)
    except ClientDisconnect:  # the client went away mid-upload: nothing to answer, no traceback to log
        raise BadRequest(f"the {what} was cut off before its end") from None
    except TimeoutError:
        raise BadRequest(f"the upload stalled: nothing came for {STALL_SECONDS:g} s", 408) from None
    return b"".join(chunks)


def added_tiles(body: dict) -> list[tuple[Any, Any]]:
    """Tiles the user placed where the detector found none: [{cls, xyxy}] → [(cls, xyxy)], or [{cls, beside}] →
    [(cls, index of a tile)] for one to be placed beside that tile's row or meld (the page's "+"; the page sends
    it back as {cls, xyxy, placed: true}, a box where it reads best, not where it lies)."""
    value = body.get("added")
    value = [] if value is None else value
    if not isinstance(value, list) or not all(isinstance(t, dict) and "cls" in t and len({"xyxy", "beside"} & t.keys())
                                              == 1 for t in value):
        raise BadRequest(f"added must be a list of {{cls, xyxy}} or {{cls, beside}} objects, got {value!r}"[:300])
    for t in value:
        if "beside" in t and (isinstance(t["beside"], bool) or not isinstance(t["beside"], int)):
            raise BadRequest(f"beside must be the index of a tile of the row or meld, got {t['beside']!r}"[:300])
        if not isinstance(t.get("placed", False), bool):  # (a guessed box must not pass for a label)
            raise BadRequest(f"placed must be true or false, got {t['placed']!r}"[:300])
    return [(t["cls"], t["xyxy"] if "xyxy" in t else t["beside"]) for t in value]


def indices(body: dict, key: str) -> list[int]:
    """A list of tile indices from the request (ignored, removed, claimed, released)."""
    value = body.get(key)
    value = [] if value is None else value
    if not isinstance(value, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in value):
        raise BadRequest(f"{key} must be a list of tile indices, got {value!r}")
    return value
