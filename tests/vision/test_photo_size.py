"""Photos of many megapixels: a phone's 48-, 50- or 200-MP JPEG is decoded straight at a reduced scale (never its
full-size pixels) and read; what would be decoded whole (a PNG, a HEIC) keeps the 40-MP limit; a refusal says what
to do, and the command line names the file it refuses (the server never a path)."""

from __future__ import annotations

import io
import re
import struct

import pytest
from photo_bytes import png_header, record_jpeg_drafts
from PIL import Image

from xingzi.vision.photo import decode_image, jpeg_layout, jpeg_pixel_limit, load_image

RED, GREY = (220, 30, 30), (128, 128, 128)


def flat_jpeg(w: int, h: int, *, mode: str = "RGB", turn: int = 1, **options) -> bytes:
    """A mostly flat picture (a few hundred kB even at 200 MP), red in its top-left corner to see the EXIF turn
    (``turn``: the EXIF orientation) by."""
    im = Image.new(mode, (w, h), GREY if mode == "RGB" else 128)
    im.paste(RED if mode == "RGB" else 255, (0, 0, w // 8, h // 8))
    exif = Image.Exif()
    exif[0x0112] = turn
    out = io.BytesIO()
    im.save(out, format="JPEG", quality=80, exif=exif, **options)
    return out.getvalue()


def claiming(data: bytes, w: int, h: int, sof: bytes = b"\xff\xc0", code: bytes | None = None) -> bytes:
    """A small JPEG whose frame header claims ``w`` x ``h`` (and is of ``code``, where given): refused before it is
    decoded, or it would be said to be truncated."""
    i = data.index(sof)
    data = data[:i + 5] + struct.pack(">HH", h, w) + data[i + 9:]
    return data[:i + 1] + code + data[i + 2:] if code else data


def more_scans(data: bytes, n: int) -> bytes:
    """A progressive JPEG with its last scan repeated ``n`` times more."""
    last = data.rindex(b"\xff\xda")
    return data[:last] + data[last:data.rindex(b"\xff\xd9")] * (1 + n) + b"\xff\xd9"


@pytest.fixture
def drafts(monkeypatch) -> list[tuple[int, int]]:
    """The size each JPEG was asked to be decoded at (libjpeg's reduced scale)."""
    return record_jpeg_drafts(monkeypatch)


BGR_RED, WHITE = (30, 30, 220), (255, 255, 255)


@pytest.mark.parametrize(("make", "decoded", "shape", "corner", "colour"), [
    pytest.param(lambda: flat_jpeg(8000, 6000, turn=6), (2000, 1500), (1600, 1200), (40, 1160), BGR_RED,
                 id="48MP-phone-photo-turned-by-its-exif"),
    pytest.param(lambda: flat_jpeg(6000, 8000), (1500, 2000), (1600, 1200), (40, 40), BGR_RED, id="48MP-portrait"),
    pytest.param(lambda: flat_jpeg(8000, 6000, progressive=True), (2000, 1500), (1200, 1600), (40, 40), BGR_RED,
                 id="48MP-progressive"),
    pytest.param(lambda: flat_jpeg(8160, 6144, turn=3), (2040, 1536), (1205, 1600), (1180, 1580), BGR_RED,
                 id="50MP-upside-down"),
    pytest.param(lambda: flat_jpeg(12000, 9000), (3000, 2250), (1200, 1600), (40, 40), BGR_RED, id="108MP"),
    pytest.param(lambda: flat_jpeg(16320, 12240, mode="L"), (2040, 1530), (1200, 1600), (40, 40), WHITE,
                 id="200MP", marks=pytest.mark.slow),
])
def test_a_phone_jpeg_of_many_megapixels_is_read_at_a_reduced_scale(drafts, make, decoded, shape, corner, colour):
    bgr = decode_image(make())
    assert drafts == [decoded]  # what libjpeg decoded: never the full-size picture
    assert bgr.shape == (*shape, 3)
    assert [int(v) for v in bgr[corner]] == pytest.approx(colour, abs=10)  # the corner as shown, after the turn
    assert [int(v) for v in bgr[shape[0] // 2, shape[1] // 2]] == pytest.approx(GREY, abs=10)


@pytest.mark.parametrize(("make", "said"), [
    pytest.param(lambda: png_header(8000, 6000), "image is 8000x6000 = 48 megapixels; at most 40 are accepted in a "
                 "PNG (250 in a JPEG, read at a reduced scale): take the photo at a lower resolution, save it as a "
                 "JPEG, or shrink it to at most 1600 px on its long side", id="48MP-png"),
    pytest.param(lambda: claiming(flat_jpeg(64, 48), 20_000, 15_000), "image is 20000x15000 = 300 megapixels; at "
                 "most 250 are accepted in a JPEG: take the photo at a lower resolution, or shrink it to at most 1600 "
                 "px", id="300MP-jpeg"),
    pytest.param(lambda: claiming(flat_jpeg(64, 48, progressive=True), 12_000, 9_000, b"\xff\xc2"),
                 "= 108 megapixels; at most 64 are accepted in a progressive JPEG (250 in a baseline one, as cameras "
                 "save): save it as a baseline JPEG", id="108MP-progressive"),
    pytest.param(lambda: claiming(more_scans(flat_jpeg(64, 48, progressive=True), 80), 8000, 6000, b"\xff\xc2"),
                 "= 48 megapixels; at most 44 are accepted in a progressive JPEG of 90 scans", id="48MP-of-90-scans"),
    pytest.param(lambda: claiming(flat_jpeg(64, 48), 12_000, 9_000).replace(b"\xff\xda\x00\x0c\x03",
                                                                             b"\xff\xda\x00\x0c\x01"),
                 "at most 64 are accepted in a progressive JPEG", id="108MP-of-one-colour-in-its-first-scan"),
    pytest.param(lambda: claiming(flat_jpeg(64, 48), 8000, 6000, code=b"\xc9"),
                 "image is 8000x6000 = 48 megapixels; at most 40 are accepted: take the photo", id="48MP-arithmetic"),
])
def test_too_many_megapixels_are_refused_before_decoding_saying_what_to_do(drafts, make, said):
    with pytest.raises(ValueError, match=re.escape(said)):
        decode_image(make())
    assert drafts == []


@pytest.mark.parametrize(("size", "max_pixels", "drafted"), [
    pytest.param((4000, 3000), 2_000_000, (2000, 1500), id="4:3"),
    # its scaled size counted as it is, width times height (a panorama's height squared is within the limit)
    pytest.param((4000, 1000), 900_000, (2000, 500), id="panorama"),
])
def test_a_jpeg_read_at_a_scale_still_over_the_pixels_allowed_is_refused(drafts, size, max_pixels, drafted):
    """A small ``max_pixels``: the JPEG's own scale of 1/2 is still too many pixels."""
    w, h = size
    said = f"image is {w}x{h} = {w * h / 1e6:.0f} megapixels; at most {max_pixels / 1e6:.0f} are accepted: take"
    with pytest.raises(ValueError, match=f"^{re.escape(said)}"):
        decode_image(flat_jpeg(w, h), max_pixels=max_pixels)
    assert drafts == [drafted]  # asked, never decoded


def _png(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), GREY).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize(("max_pixels", "read"), [pytest.param(40 * 30, True, id="exactly-the-pixels-allowed-read"),
                                                  pytest.param(40 * 30 - 1, False, id="one-pixel-over-refused")])
def test_a_picture_of_as_many_pixels_as_allowed_is_read(max_pixels, read):
    if read:
        assert decode_image(_png(40, 30), max_pixels=max_pixels).shape == (30, 40, 3)
    else:
        with pytest.raises(ValueError, match=r"^image is 40x30 = 0 megapixels; at most 0 are accepted"):
            decode_image(_png(40, 30), max_pixels=max_pixels)


def test_a_large_jpeg_cut_off_before_its_first_scan_is_refused():
    """Its scans counted none: refused as cut short (it was refused as too large, 48 of 40 megapixels, though within
    what a baseline JPEG may have), no crash; a small one so too."""
    for width, height in ((8000, 6000), (64, 48)):
        data = claiming(flat_jpeg(64, 48), width, height)
        with pytest.raises(ValueError, match=r"^the image cannot be decoded \(truncated or corrupt\): the JPEG ends "
                                             r"before its picture data"):
            decode_image(data[:data.index(b"\xff\xda")])


@pytest.mark.parametrize(("make", "limit", "kind"), [
    pytest.param(lambda: flat_jpeg(64, 48), 250_000_000, "JPEG", id="baseline"),
    pytest.param(lambda: flat_jpeg(64, 48, progressive=True), 64_000_000, "progressive JPEG", id="progressive"),
    pytest.param(lambda: flat_jpeg(64, 48, mode="L", progressive=True), 64_000_000, "progressive JPEG",
                 id="grey-progressive"),
    pytest.param(lambda: more_scans(flat_jpeg(64, 48, progressive=True), 80), 44_444_444,
                 "progressive JPEG of 90 scans", id="90-scans-each-a-pass"),
    pytest.param(lambda: more_scans(flat_jpeg(64, 48, progressive=True), 90), 40_000_000,
                 "progressive JPEG of 100 scans", id="100-scans"),
    pytest.param(lambda: flat_jpeg(64, 48) * 2, 250_000_000, "JPEG", id="an-MPO-by-its-first-picture"),
    pytest.param(lambda: flat_jpeg(64, 48).replace(b"\xff\xd9", b"\xff\xda\x00\x02\xff\xd9"), 64_000_000,
                 "progressive JPEG", id="baseline-of-two-scans"),
    pytest.param(lambda: claiming(flat_jpeg(64, 48), 64, 48, code=b"\xc3"), 40_000_000, "JPEG of this kind",
                 id="lossless"),
])
def test_the_pixels_a_jpeg_may_have_follow_from_how_it_is_coded(make, limit, kind):
    assert jpeg_pixel_limit(jpeg_layout(make()), (64, 48)) == (limit, kind)


@pytest.mark.parametrize(("data", "said"), [
    pytest.param(b"this is no photo", "not an image: expected a JPEG", id="not-an-image"),
    pytest.param(flat_jpeg(640, 480)[:-300], "the image cannot be decoded", id="truncated"),
    pytest.param(png_header(8000, 6000), "image is 8000x6000 = 48 megapixels", id="48MP-png"),
])
def test_the_command_line_names_the_file_it_refuses(tmp_path, capsys, data, said):
    """(the server's refusal of the same bytes names no file: tests/web/test_app_megapixels.py)"""
    from xingzi.cli import main

    path = tmp_path / "junk" / "x.jpg"
    path.parent.mkdir()
    path.write_bytes(data)
    with pytest.raises(ValueError, match=f"^{re.escape(f'{path}: {said}')}"):
        load_image(path)
    assert main(["score", str(path)]) == 2
    assert f"error: {path}: {said}" in capsys.readouterr().err
