"""Photos as phones save them: HEIC (iPhones' default) is read like a JPEG, and a broken one is refused clearly."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from xingzi.vision.detections import Detections
from xingzi.vision.photo import HEIF, decode_image, imread_quiet, load_image
from xingzi.vision.pipeline import Context, read_photo


def test_heic_is_read_where_the_vision_extra_is_installed():
    assert HEIF, "pillow-heif (a dependency of the vision extra) is missing: HEIC photos would be refused"


def _photo(w: int = 320, h: int = 240) -> Image.Image:
    """Four coloured quarters: a turn or a mirror would put the colours elsewhere."""
    rgb = np.zeros((h, w, 3), np.uint8)
    rgb[: h // 2, : w // 2] = (220, 30, 30)
    rgb[: h // 2, w // 2 :] = (30, 200, 30)
    rgb[h // 2 :, : w // 2] = (30, 30, 220)
    rgb[h // 2 :, w // 2 :] = (240, 240, 240)
    return Image.fromarray(rgb)


def _heic(im: Image.Image) -> bytes:
    out = io.BytesIO()
    im.save(out, format="HEIF", quality=90)
    return out.getvalue()


def test_a_heic_photo_reads_as_the_same_picture():
    im = _photo()
    bgr = decode_image(_heic(im))
    assert bgr.shape == (240, 320, 3) and bgr.dtype == np.uint8
    want = np.asarray(im)[..., ::-1].astype(int)
    inner = (slice(20, 100), slice(20, 140))  # away from the edges between quarters
    assert np.abs(bgr.astype(int) - want)[inner].mean() < 6
    assert np.abs(bgr.astype(int) - want)[120 + 20 : 220, 160 + 20 : 300].mean() < 6


def test_a_large_heic_is_scaled_down_like_a_jpeg():
    bgr = decode_image(_heic(_photo(800, 600)), max_side=400)
    assert bgr.shape == (300, 400, 3)


@pytest.mark.parametrize("cut", [pytest.param(600, id="header-only"), pytest.param(-200, id="tail-missing")])
def test_a_truncated_heic_is_refused_with_a_clear_message(cut):
    data = _heic(_photo())
    with pytest.raises(ValueError, match="cannot be decoded|not an image"):
        decode_image(data[:cut])


def test_a_heic_of_too_many_pixels_is_refused_before_it_is_decoded():
    with pytest.raises(ValueError, match=r"320x240 = 0 megapixels; at most 0 are accepted"):
        decode_image(_heic(_photo()), max_pixels=50_000)


@pytest.mark.parametrize("max_pixels, read", [pytest.param(400_000, True, id="a-quarter-more-read"),
                                               pytest.param(380_000, False, id="more-refused")])
def test_a_heic_is_decoded_whole_up_to_a_quarter_more_pixels_than_other_pictures(max_pixels, read):
    """A HEIC cannot be decoded at a reduced scale as a JPEG is: a quarter more than ``max_pixels`` is let through
    so that phones' 48- and 50-MP ones are read at the default (WHOLE_HEIF_SHARE); a PNG is not."""
    photo = _photo(800, 600)  # 480,000 pixels
    if read:
        assert decode_image(_heic(photo), max_pixels=max_pixels).shape == (600, 800, 3)
    else:
        with pytest.raises(ValueError, match=r"800x600 = 0 megapixels; at most 0 are accepted in a HEIF"):
            decode_image(_heic(photo), max_pixels=max_pixels)
    png = io.BytesIO()
    photo.save(png, format="PNG")
    with pytest.raises(ValueError, match="at most 0 are accepted in a PNG"):
        decode_image(png.getvalue(), max_pixels=max_pixels)


def test_a_phones_48_mp_heic_is_read_and_scores_as_the_demo(capsys):
    """A 48-MP HEIC ("HEIF Max") was refused as over 40 MP; read whole now, it gives the demo's tiles and 26 炮."""
    import json

    from xingzi.cli import main

    data = Path(__file__).resolve().parents[1] / "data" / "photos" / "demo_48mp.heic"
    with Image.open(data) as im:
        assert im.size == (6928, 6928)  # 48.0 MP
    assert decode_image(data.read_bytes()).shape == (1600, 1600, 3)
    assert main(["score", str(data), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["own"] == 26 and result["reading"]["notation"] == "66m111s中中 中 | pung 白 | concealed_kong 3s | fa 3"


def test_a_heic_file_goes_through_the_whole_pipeline(tmp_path):
    path = tmp_path / "IMG_0001.HEIC"
    path.write_bytes(_heic(_photo()))
    assert load_image(path).shape == (240, 320, 3)

    class NoTiles:
        def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
            assert image.shape == (240, 320, 3)
            return Detections.empty()

    res = read_photo(path, NoTiles(), Context())
    assert res.result is None and res.error and "no tiles" in res.error.lower()


@pytest.mark.parametrize("size,decoded", [
    pytest.param((4032, 3024), (2016, 1512), id="12MP-4:3"),
    pytest.param((3024, 4032), (1512, 2016), id="12MP-portrait"),
    pytest.param((4000, 1800), (2000, 900), id="panorama"),
    pytest.param((7000, 5250), (1750, 1313), id="37MP-at-a-quarter"),
    pytest.param((2400, 1800), (2400, 1800), id="under-twice-whole"),
])
def test_a_large_jpeg_is_decoded_at_a_reduced_scale_that_still_fills_the_output(monkeypatch, size, decoded):
    from photo_bytes import record_jpeg_drafts

    seen = record_jpeg_drafts(monkeypatch)
    data = io.BytesIO()
    _photo(*size).save(data, format="JPEG", quality=80)
    bgr = decode_image(data.getvalue())
    assert seen == [decoded]  # the scale JPEG decoding was asked for
    long = max(size)
    assert bgr.shape[:2] == (round(size[1] * 1600 / long), round(size[0] * 1600 / long))
    assert [int(v) for v in bgr[20, 20]] == pytest.approx([30, 30, 220], abs=6)  # top left red, as BGR


def test_the_demo_photo_scores_the_same_at_phone_size_and_as_heic(tmp_path, capsys):
    """The shipped models through `xingzi score --json`: the bundled photo, the same photo at 16 MP (decoded at half
    size) and as HEIC give the same tiles and the same 26 炮."""
    import json
    from pathlib import Path

    from xingzi.cli import main

    demo = Path(__file__).resolve().parents[2] / "examples" / "demo.jpg"
    big, heic = tmp_path / "demo_16mp.jpg", tmp_path / "demo.heic"
    with Image.open(demo) as im:
        im.resize((4032, 4032), Image.Resampling.BICUBIC).save(big, quality=92)
        im.save(heic, format="HEIF", quality=90)
    results = []
    for path in (demo, big, heic):
        assert main(["score", str(path), "--json"]) == 0
        results.append(json.loads(capsys.readouterr().out))
    assert [r["own"] for r in results] == [26, 26, 26]
    assert len({r["reading"]["notation"] for r in results}) == 1


@pytest.mark.parametrize(("mode", "scale"), [
    pytest.param("I;16", 257, id="16-bit-grey"),
    pytest.param("I", 257, id="32-bit-integer-grey"),
    pytest.param("F", 1 / 255, id="float-grey"),
])
def test_deep_grey_photos_are_scaled_to_eight_bits_not_clipped_white(mode, scale):
    grey = np.tile(np.arange(0, 256, 8, dtype=np.uint8), (32, 1))  # a ramp, dark to light
    deep = Image.fromarray((grey.astype(np.float64) * scale).astype(np.uint16 if mode == "I;16" else np.float32))
    deep = deep.convert(mode) if deep.mode != mode else deep
    data = io.BytesIO()
    deep.save(data, format="TIFF")
    read = decode_image(data.getvalue())
    assert read.shape == (32, 32, 3)
    assert np.abs(read[..., 0].astype(int) - grey).max() <= 1  # the ramp, not a white picture


@pytest.mark.parametrize("bad", [pytest.param(float("inf"), id="inf"), pytest.param(float("nan"), id="nan")])
def test_one_non_finite_pixel_does_not_blacken_a_float_photo(bad):
    grey = np.tile(np.arange(0, 256, 8, dtype=np.uint8), (32, 1))
    values = grey.astype(np.float32) / 255
    values[5, 7] = bad
    data = io.BytesIO()
    Image.fromarray(values, mode="F").save(data, format="TIFF")
    read = decode_image(data.getvalue())[..., 0].astype(int)
    keep = np.ones(grey.shape, bool)
    keep[5, 7] = False
    assert np.abs(read[keep] - grey[keep]).max() <= 1  # the ramp, not a black picture


BROKEN = Path(__file__).parents[1] / "data" / "broken_images"


def test_a_decoded_photo_passes_as_it_is_and_any_other_array_is_refused():
    photo = np.zeros((24, 32, 3), np.uint8)
    assert load_image(photo) is photo
    for bad in (photo.astype(np.float32), photo[..., 0], np.zeros((24, 32, 4), np.uint8)):
        with pytest.raises(ValueError, match=r"expected an HxWx3 uint8 BGR image, got shape"):
            load_image(bad)


@pytest.mark.parametrize("name", ["no_image_item.avif", "huge_dimensions.heic"])
def test_images_the_decoders_give_up_on_are_refused_with_a_clear_message(name):
    with pytest.raises(ValueError, match="cannot be decoded"):
        decode_image((BROKEN / name).read_bytes())


def _progressive_jpeg(w: int, h: int, more_scans: int = 0, thumbnail: bytes = b"") -> bytes:
    """A progressive JPEG of ``_photo``, its last scan repeated ``more_scans`` times (each repeat a pass of the
    decoder over the whole picture, for a few bytes), ``thumbnail`` kept in an EXIF segment."""
    out = io.BytesIO()
    _photo(w, h).save(out, format="JPEG", quality=60, progressive=True)
    data = out.getvalue()
    last = data.rindex(b"\xff\xda")
    scan = data[last:data.rindex(b"\xff\xd9")]
    exif = b"Exif\x00\x00" + thumbnail
    app1 = b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif if thumbnail else b""
    return data[:2] + app1 + data[2:last] + scan * (1 + more_scans) + b"\xff\xd9"


@pytest.mark.parametrize(("data", "refused"), [
    pytest.param(lambda: _progressive_jpeg(320, 240), False, id="progressive"),
    pytest.param(lambda: _progressive_jpeg(320, 240) * 2, False, id="two-pictures-like-an-MPO"),
    pytest.param(lambda: _progressive_jpeg(320, 240, thumbnail=_progressive_jpeg(16, 16, 300)), False,
                 id="thumbnail-of-many-scans-not-counted"),
    pytest.param(lambda: _progressive_jpeg(320, 240, 90), False, id="100-scans"),
    pytest.param(lambda: _progressive_jpeg(1600, 1200, 300), True, id="300-scans"),
    pytest.param(lambda: _progressive_jpeg(1600, 1200, 3000), True, id="3000-scans-in-80-kB"),
])
def test_a_jpeg_of_hundreds_of_scans_is_refused_before_it_is_decoded(data, refused):
    """A scan bomb: 10,000 empty scans of a 12-MP JPEG (330 kB) took 40 s to decode, a 12-MB upload hours."""
    if refused:
        with pytest.raises(ValueError, match=r"a JPEG of more than 100 scans.*decompression bomb"):
            decode_image(data())
    else:
        assert decode_image(data()).shape == (240, 320, 3)


def _saved(fmt: str, **options) -> bytes:
    out = io.BytesIO()
    _photo().save(out, format=fmt, **options)
    return out.getvalue()


@pytest.mark.parametrize(("fmt", "read"), [
    pytest.param("WEBP", True, id="webp"), pytest.param("GIF", True, id="gif"),
    pytest.param("BMP", True, id="bmp"), pytest.param("TIFF", True, id="tiff"),
    pytest.param("PPM", False, id="ppm"), pytest.param("TGA", False, id="tga"),
    pytest.param("SGI", False, id="sgi"), pytest.param("ICO", False, id="ico"),
])
def test_photo_formats_are_read_and_pillows_other_formats_are_not_an_image(fmt, read):
    data = _saved(fmt)
    if read:
        assert decode_image(data).shape == (240, 320, 3)
    else:
        with pytest.raises(ValueError, match=r"^not an image: expected a JPEG, PNG"):
            decode_image(data)


def test_an_eps_upload_is_not_an_image_and_never_reaches_ghostscript(monkeypatch):
    """Pillow reads EPS by running Ghostscript on it (with files in the system's temp folder) where it is installed."""
    from PIL import EpsImagePlugin

    ran = []
    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", lambda *a, **k: ran.append(a) or Image.new("RGB", (10, 10)).im)
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nnewpath 0 0 moveto 10 10 lineto stroke\nshowpage\n"
    with pytest.raises(ValueError, match=r"^not an image: expected a JPEG, PNG"):
        decode_image(eps)
    assert ran == []


SOI, EOI, SOS = b"\xff\xd8", b"\xff\xd9", b"\xff\xda\x00\x04\x01\x02"  # a scan's header: its length, then 2 bytes


@pytest.mark.parametrize(("body", "scans"), [
    pytest.param(SOS * 3, 3, id="three-scans"),
    pytest.param(SOS * 100, 100, id="the-limit"),
    pytest.param(SOS * 500, 101, id="counted-no-further-than-the-limit-and-one"),
    pytest.param(SOS + b"\x12\xff\x00\x34\xff\xd3\x56" + SOS, 2, id="stuffed-bytes-and-restarts-in-the-coded-data"),
    pytest.param(SOI + b"\xff\x01" + SOS * 2, 2, id="markers-without-a-length"),
    pytest.param(b"\xff\xe1\x00\x08" + SOS + SOS, 1, id="a-scan-inside-a-segment-is-stepped-over"),
    pytest.param(SOS + EOI + SOI + SOS * 5, 1, id="the-first-picture-only"),
    pytest.param(b"", 0, id="no-scan"),
])
def test_jpeg_scans_counts_the_first_pictures_scans_by_its_markers(body, scans):
    from xingzi.vision.photo import jpeg_scans

    assert jpeg_scans(SOI + body + EOI, limit=100) == scans


@pytest.mark.parametrize(("shape", "scaled"), [pytest.param((5000, 1), (1600, 1), id="tall"),
                                              pytest.param((1, 5000), (1, 1600), id="wide")])
def test_a_strip_one_pixel_across_stays_one_pixel_across_when_scaled_down(shape, scaled):
    strip = np.full((*shape, 3), 200, np.uint8)
    data = io.BytesIO()
    Image.fromarray(strip).save(data, format="PNG")
    assert decode_image(data.getvalue()).shape == (*scaled, 3)


@pytest.mark.parametrize(("values", "mode", "grey"), [
    pytest.param([[65535, 0]], "I;16", [255, 0], id="16-bit-white-is-255"),
    pytest.param([[1.0, -0.5]], "F", [255, 0], id="float-below-black-is-black"),
])
def test_deep_values_at_and_beyond_the_ends_of_the_range_land_on_them(values, mode, grey):
    array = np.array(values, np.uint16 if mode == "I;16" else np.float32)
    data = io.BytesIO()
    Image.fromarray(array).save(data, format="TIFF")
    assert decode_image(data.getvalue())[..., 0].tolist() == [grey]


def test_load_image_reads_bytes_and_write_image_makes_the_folders_it_needs(tmp_path):
    from xingzi.vision.photo import write_image

    data = io.BytesIO()
    _photo().save(data, format="PNG")
    bgr = load_image(data.getvalue())
    assert bgr.shape == (240, 320, 3) and bgr[0, 0].tolist() == [30, 30, 220]  # red, in BGR order
    out = tmp_path / "new" / "deeper" / "annotated.png"
    write_image(out, bgr)
    assert np.array(Image.open(out)).tolist() == np.array(_photo()).tolist()  # written back in RGB, pixel for pixel


@pytest.mark.parametrize("keep, warned", [
    pytest.param(None, False, id="whole"),
    pytest.param(0.5, False, id="cut-short"),  # libjpeg's "Premature end of JPEG file" came twice per photo in eval
])
def test_a_jpeg_cut_short_is_read_as_it_decodes_without_libjpegs_own_line(tmp_path, capfd, keep, warned):
    noise = np.random.default_rng(0).integers(0, 256, (64, 96, 3), np.uint8)
    Image.fromarray(noise).save(tmp_path / "p.jpg")
    data = (tmp_path / "p.jpg").read_bytes()
    (tmp_path / "p.jpg").write_bytes(data if keep is None else data[: int(len(data) * keep)])
    image = imread_quiet(tmp_path / "p.jpg")
    assert image is not None and image.shape == (64, 96, 3)
    # silenced only meanwhile: standard output and standard error are each where they were after it
    os.write(1, b"out after\n")
    os.write(2, b"err after\n")
    out, err = capfd.readouterr()
    assert ("Premature end" in err) == warned
    assert (out, err.splitlines()[-1:]) == ("out after\n", ["err after"])


@pytest.mark.parametrize("name", ["out.png", "out.jpg"])
def test_an_annotated_photo_cut_off_while_written_leaves_the_one_before_whole(tmp_path, monkeypatch, name):
    """Ctrl-C while `--out x.png` was written left a PNG that does not decode, over the one before (session 70)."""
    from PIL import Image

    from xingzi.vision.photo import write_image

    out = tmp_path / name
    write_image(out, np.full((40, 60, 3), 200, np.uint8))
    before = out.read_bytes()

    def cut_off(self, fp, *args, **kwargs):
        Path(fp).write_bytes(b"\x89PNG\r\n\x1a\n partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(Image.Image, "save", cut_off)
    with pytest.raises(KeyboardInterrupt):
        write_image(out, np.zeros((40, 60, 3), np.uint8))
    assert out.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("name", [
    pytest.param(b"plain.jpg", id="plain"),
    pytest.param(b"x\xff\xfe.jpg", id="not-utf8"),  # OpenCV's own reader died of it (SIGSEGV) in eval and bench
    pytest.param("中文 照片.jpg".encode(), id="chinese-and-space"),
])
def test_a_photo_is_read_whatever_bytes_its_file_name_has_turned_as_its_exif_says(tmp_path, name):
    stripes = np.zeros((40, 80, 3), np.uint8)
    stripes[:, :20] = 255
    photo = Image.fromarray(stripes)
    exif = photo.getexif()
    exif[0x0112] = 6  # shown turned a quarter clockwise
    path = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), name)))
    photo.save(path, exif=exif.tobytes())
    image = imread_quiet(path)
    assert image is not None and image.shape == (80, 40, 3)
    assert image[:20].mean() > 200 and image[-20:].mean() < 50  # the white band on top, as the phone showed it
