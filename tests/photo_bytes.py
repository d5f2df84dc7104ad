"""Photo files made in memory for the tests of decoding and uploads: a PNG whose header claims any size, and a record
of the size each JPEG was asked to be decoded at (libjpeg's reduced scale)."""

from __future__ import annotations

import struct
import zlib

import pytest
from PIL import JpegImagePlugin


def png_header(w: int, h: int) -> bytes:
    """A PNG's signature and header claiming ``w`` x ``h`` (and a few pixels): refused before decoding, or unreadable."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
            + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + struct.pack(">I", len(idat)) + b"IDAT" + idat
            + struct.pack(">I", zlib.crc32(b"IDAT" + idat)))


def record_jpeg_drafts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The size each JPEG opened from now on is asked to be decoded at (filled as they are)."""
    seen: list[tuple[int, int]] = []
    draft = JpegImagePlugin.JpegImageFile.draft

    def spy(self, mode, want):
        out = draft(self, mode, want)
        seen.append(self.size)
        return out

    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "draft", spy)
    return seen
