"""The server's trim after each decode (guards.give_back_memory): the heap freed leaves the process where the C
library can give it back, and nothing breaks where it cannot."""

from __future__ import annotations

import ctypes

import pytest
from web_helpers import client_for, layout_detections

from xingzi.web import guards


def _resident() -> int:
    """This process's resident memory in bytes (Linux)."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


@pytest.mark.skipif(guards._TRIM is None, reason="no malloc_trim in this C library")
def test_the_heap_given_back_leaves_the_process():
    """What the trim is for: 75 MiB freed between blocks still in use (as a decode's buffers among the server's own)
    stays the process's until it is given back; then most of it leaves."""
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    size = 64 * 1024  # under glibc's mmap threshold: on the heap
    blocks = [libc.malloc(size) for _ in range(2400)]
    for b in blocks:
        ctypes.memset(b, 1, size)
    try:
        for b in blocks[
            0::2
        ]:  # every other one: each freed block lies between two in use, none at the heap's top
            libc.free(b)
        held = _resident()
        assert guards.give_back_memory() is True
        assert held - _resident() > 40 << 20
    finally:
        for b in blocks[1::2]:
            libc.free(b)


def test_without_malloc_trim_nothing_is_given_back_and_a_photo_is_still_read(monkeypatch, photo):
    """musl, macOS, Windows: no malloc_trim to call (False); the page reads photos as before."""
    monkeypatch.setattr(guards, "_TRIM", None)
    assert guards.give_back_memory() is False
    client, _ = client_for(layout_detections())
    assert client.post("/api/read", content=photo).status_code == 200
