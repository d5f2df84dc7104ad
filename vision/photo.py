"""Photos in and out: bytes or files decoded safely to BGR arrays (JPEG, PNG, and the HEIC of phones where
pillow-heif is installed), annotated pictures written."""

from __future__ import annotations

import io
import math
import os
import re
import struct
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from PIL import Image, ImageOps, JpegImagePlugin, UnidentifiedImageError

try:  # iPhones save HEIC; the decoder is a dependency of the vision extra
    from pillow_heif import register_heif_opener
except ImportError:  # without it such photos are "not an image"
    HEIF = False
else:
    register_heif_opener()
    HEIF = True

MAX_PIXELS = 40_000_000  # larger photos are refused before decoding (decompression bombs)
MAX_SIDE = 1600  # photos are scaled down to this before detection and drawing
# A JPEG over twice MAX_SIDE is decoded by libjpeg straight at 1/2, 1/4 or 1/8 scale, never at full size: MAX_PIXELS
# bounds what it is decoded to, and these its own size. One scan holding every component (a phone's baseline JPEG)
# is decoded a few rows at a time: 200 MP in 0.2-0.7 s and +45 MB. A progressive one is held whole as DCT
# coefficients meanwhile (3 to 6 bytes a pixel), each scan a pass over them: 200 MP took +0.6 to 1.2 GB (12 s in 100
# scans), 64 MP at most +0.5 GB (CMYK), in as long as 100 scans of 40 MP (about 3 s): as a 40-MP PNG (+0.5 GB)
MAX_JPEG_PIXELS = 250_000_000  # phones take 48, 50, 108 and 200 MP
MAX_PROGRESSIVE_PIXELS = 64_000_000
# A HEIC or AVIF is decoded whole (no reduced-scale decoding): a quarter more than ``max_pixels`` is let through for
# phones' 48- and 50-MP ones ("HEIF Max"; 50 MP at the default): 1.4 s and +0.7 GB for 49 MP, two at most at once on
# the page (``MAX_DECODING``), as a 64-MP progressive JPEG.
WHOLE_HEIF_SHARE = 1.25
HEIF_FORMATS = ("HEIF", "AVIF")
FORMATS = "a JPEG, PNG or HEIC photo" if HEIF else "a JPEG or PNG photo"
# what is decoded (the FORMATS said, and the other pictures a phone or an editor saves); never the rest of Pillow's
# formats: EPS runs Ghostscript (with temp files) on the upload, others are rarely fuzzed decoders no photo needs
Image.init()  # every plugin registered (an MPO, a phone's JPEG with a second picture, comes by the JPEG one)
OPENED = tuple(f for f in ("JPEG", "PNG", "HEIF", "AVIF", "WEBP", "GIF", "BMP", "TIFF") if f in Image.OPEN)
# scans of a progressive JPEG: cameras write 1 to ~12; each is a pass over the whole picture, so a few kB of empty
# ones repeated thousands of times cost minutes of decoding
MAX_SCANS = 100
_MARKER = re.compile(rb"\xff+([^\x00\xff\xd0-\xd7])")  # a JPEG marker: not a stuffed 0xFF, nor a restart


def decode_image(data: bytes, max_pixels: int = MAX_PIXELS, max_side: int = MAX_SIDE) -> np.ndarray:
    """Image bytes → BGR uint8, refusing what is not an image, truncated, or too many pixels.

    The pixel count is read from the header before any decoding; JPEGs are decoded straight at
    a reduced scale when they are at least twice ``max_side`` (a 12-MP phone photo at half its size), and are then
    accepted up to ``MAX_JPEG_PIXELS`` (``MAX_PROGRESSIVE_PIXELS`` for a progressive one) while what is decoded
    stays within ``max_pixels``.
    """
    if not data:
        raise ValueError(f"the upload is empty: expected {FORMATS}")
    layout = jpeg_layout(data) if data.startswith(b"\xff\xd8") else None
    if layout is not None and layout.frames and not layout.scans:  # its header whole, no picture data after it
        raise ValueError("the image cannot be decoded (truncated or corrupt): the JPEG ends before its picture data "
                         "(a photo cut off in sending?)")
    if layout is not None and layout.scans > MAX_SCANS:
        raise ValueError(f"image refused: a JPEG of more than {MAX_SCANS} scans, each decoded over the whole picture "
                         "(a camera writes at most about 12: a decompression bomb?)")
    refused: str | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the size is checked here
            warnings.simplefilter("ignore", UserWarning)  # corrupt EXIF: the photo is read without its turn
            im = _opened(data)
            with im:
                w, h = im.size
                limit, kind = max_pixels, im.format or "picture"
                decoded_limit = max_pixels  # what may be decoded: the photo itself, or a JPEG at a reduced scale
                if im.format in HEIF_FORMATS:
                    limit = decoded_limit = int(max_pixels * WHOLE_HEIF_SHARE)
                if layout is not None and im.format in ("JPEG", "MPO") and max(w, h) > max_side:
                    limit, kind = jpeg_pixel_limit(layout, (w, h), max_pixels)  # decoded at 1/2, 1/4, 1/8 scale
                    if w * h <= limit:
                        k = max_side / max(w, h)  # the size asked must keep the photo's shape, or a 4:3
                        im.draft("RGB", (math.ceil(w * k), math.ceil(h * k)))  # photo is decoded whole
                        if im.size[0] * im.size[1] > max_pixels:  # (a small max_pixels: a scale of 1 or 1/2)
                            limit, kind = max_pixels, "JPEG read at this size"
                if w * h > limit or im.size[0] * im.size[1] > decoded_limit:
                    refused = too_large(w, h, limit, kind, max_pixels, max_side)
                else:
                    im.load()
                    rgb = eight_bit(ImageOps.exif_transpose(im)).convert("RGB")
    except (UnidentifiedImageError, ImportError):  # ImportError: a format plugin (HEIF, registered by
        # another library) whose decoder is not installed tried the bytes
        raise ValueError(f"not an image: expected {FORMATS}") from None
    except Image.DecompressionBombError:  # Pillow's own limit, far above ours: the header claims a huge picture
        raise ValueError(f"image refused: its header claims far more than the {max_pixels / 1e6:.0f} megapixels "
                         f"accepted (a decompression bomb?)") from None
    except (OSError, SyntaxError, EOFError, ValueError, RuntimeError) as e:  # pillow-heif on a broken HEIC/AVIF
        raise ValueError(f"the image cannot be decoded (truncated or corrupt): {e}") from None
    if refused:
        raise ValueError(refused)
    arr = np.asarray(rgb)
    rows, cols = arr.shape[:2]  # as shown, after the EXIF turn
    if max(rows, cols) > max_side:  # OpenCV: several times faster than Pillow's resize and the numpy channel swap
        k = max_side / max(rows, cols)  # under 2× (a JPEG already decoded at a reduced scale) bilinear will do
        way = cv2.INTER_LINEAR if k > 0.5 else cv2.INTER_AREA
        arr = cv2.resize(arr, (max(1, round(cols * k)), max(1, round(rows * k))), interpolation=way)
    return cv2.cvtColor(arr, cv2.COLOR_RGB2BGR)


def _opened(data: bytes) -> Image.Image:
    """The picture, its header read. A JPEG is opened by Pillow's JPEG plugin itself, as ``Image.open`` does, but
    without ``Image.open``'s own bomb limit (179 MP): a 200-MP phone JPEG is within ours, read at a reduced scale."""
    if data.startswith(b"\xff\xd8\xff"):
        try:
            return JpegImagePlugin.jpeg_factory(io.BytesIO(data))
        except (SyntaxError, IndexError, TypeError, struct.error):  # what Image.open takes for another format
            raise UnidentifiedImageError from None
    return Image.open(io.BytesIO(data), formats=OPENED)


class JpegLayout(NamedTuple):
    """What a JPEG's first picture is made of, read from its markers before it is decoded."""

    scans: int  # counted no further than the limit asked and one
    frames: tuple[tuple[int, int, int, int], ...]  # each frame header (SOFn) before the scans: code, width, height,
    # components
    first_scan: int  # the components of its first scan


def jpeg_layout(data: bytes, limit: int = MAX_SCANS) -> JpegLayout:
    """The frame headers and scans of a JPEG's first picture (one pass over its markers, ``jpeg_scans``)."""
    frames: list[tuple[int, int, int, int]] = []
    scans = first_scan = 0
    for code, i in _markers(data):
        if code == 0xDA:
            scans += 1
            if scans == 1 and i + 2 < len(data):
                first_scan = data[i + 2]
            if scans > limit:
                break
        elif 0xC0 <= code <= 0xCF and code not in (0xC4, 0xC8, 0xCC) and not scans and i + 7 < len(data):
            frames.append((code, int.from_bytes(data[i + 5:i + 7], "big"), int.from_bytes(data[i + 3:i + 5], "big"),
                           data[i + 7]))
    return JpegLayout(scans, tuple(frames), first_scan)


def jpeg_pixel_limit(layout: JpegLayout, size: tuple[int, int], max_pixels: int = MAX_PIXELS) -> tuple[int, str]:
    """The most pixels a JPEG of this layout may have when it is decoded at a reduced scale, and what it is called
    in a refusal.

    ``MAX_JPEG_PIXELS`` where libjpeg decodes it a few rows at a time (a sequential Huffman JPEG, its one scan
    holding every component: baseline, as phones write); ``MAX_PROGRESSIVE_PIXELS`` where it holds the whole
    picture's coefficients (progressive, or components in scans of their own), fewer in a JPEG of so many scans
    that it would take longer to decode than the ``MAX_SCANS`` of ``max_pixels`` allowed anyway; ``max_pixels`` for
    the rest (arithmetic, lossless, a frame header the decoder would not read as this one)."""
    if len(layout.frames) != 1 or layout.frames[0][1:3] != size or layout.frames[0][0] not in (0xC0, 0xC1, 0xC2):
        return max_pixels, "JPEG of this kind"
    code, _, _, components = layout.frames[0]
    if code != 0xC2 and layout.scans == 1 and layout.first_scan == components:
        return max(max_pixels, MAX_JPEG_PIXELS), "JPEG"
    by_scans = MAX_SCANS * max_pixels // max(1, layout.scans)  # each scan a pass over the whole picture
    if by_scans < MAX_PROGRESSIVE_PIXELS:
        return max(max_pixels, by_scans), f"progressive JPEG of {layout.scans} scans"
    return max(max_pixels, MAX_PROGRESSIVE_PIXELS), "progressive JPEG"


def too_large(w: int, h: int, limit: int, kind: str, max_pixels: int = MAX_PIXELS, max_side: int = MAX_SIDE) -> str:
    """The refusal of a photo of too many pixels, saying what to do (the words before the colon are the web page's
    pattern for its Chinese, ``xingzi.web.refusals``)."""
    big = f"image is {w}x{h} = {w * h / 1e6:.0f} megapixels; at most {limit / 1e6:.0f} are accepted"
    shrink = f"or shrink it to at most {max_side} px on its long side (all that is read of it)"
    if kind.startswith("progressive JPEG"):
        return (f"{big} in a {kind} ({max(max_pixels, MAX_JPEG_PIXELS) / 1e6:.0f} in a baseline one, as "
                f"cameras save): save it as a baseline JPEG, take the photo at a lower resolution, {shrink}")
    if kind == "JPEG":
        return f"{big} in a JPEG: take the photo at a lower resolution, {shrink}"
    if max_pixels < MAX_JPEG_PIXELS and not kind.startswith("JPEG"):  # a PNG, a HEIC...: decoded whole
        return (f"{big} in a {kind} ({MAX_JPEG_PIXELS / 1e6:.0f} in a JPEG, read at a reduced scale): take the photo "
                f"at a lower resolution, save it as a JPEG, {shrink}")
    return f"{big}: take the photo at a lower resolution, {shrink}"


def jpeg_scans(data: bytes, limit: int = MAX_SCANS) -> int:
    """The scans (SOS segments) of a JPEG's first picture, up to its end marker, counted no further than
    ``limit + 1``. Segments are stepped over by their lengths (an EXIF thumbnail's own scans are not counted), the
    coded data between them searched for the next marker."""
    return jpeg_layout(data, limit).scans


def _markers(data: bytes) -> Iterator[tuple[int, int]]:
    """The markers of a JPEG's first picture up to its end marker, each with where its segment's length starts."""
    i = 2
    while True:
        found = _MARKER.search(data, i)
        if found is None:
            return
        code, i = found.group(1)[0], found.end()
        if code == 0xD9:  # end of the picture (an MPO's second one follows)
            return
        if code == 0x01 or 0xD0 <= code <= 0xD8:  # markers with no length
            continue
        yield code, i
        i += int.from_bytes(data[i:i + 2], "big")


def eight_bit(im: Image.Image) -> Image.Image:
    """16-bit and float greyscale (a scanner's or a raw converter's PNG/TIFF) scaled to 8 bits: Pillow's own
    conversion clips every value over 255, which turns such a photo white."""
    if im.mode not in ("I;16", "I;16L", "I;16B", "I;16N", "I", "F"):
        return im
    values = np.array(im, dtype=np.float32)  # float32, changed in place: a 40-MP picture costs 160 MB, not a GB
    finite = np.isfinite(values)
    peak = float(values.max(initial=0.0, where=finite)) if values.size else 0.0
    # the range the values were saved in: 0..1 (float), 8 or 16 bits; else the brightest value
    top = next((t for t in (1.0, 255.0, 65535.0) if peak <= t), peak)
    if im.mode.startswith("I;16"):
        top = 65535.0
    np.nan_to_num(values, copy=False, nan=0.0, posinf=top, neginf=0.0)  # one bad pixel must not blacken the rest
    values *= 255.0 / max(top, 1e-12)
    np.clip(values, 0, 255, out=values)
    return Image.fromarray(values.astype(np.uint8), mode="L")


def load_image(source: str | Path | bytes | np.ndarray) -> np.ndarray:
    if isinstance(source, np.ndarray):
        if source.ndim != 3 or source.shape[2] != 3 or source.dtype != np.uint8:
            raise ValueError(f"expected an HxWx3 uint8 BGR image, got shape {source.shape} dtype {source.dtype}")
        return source
    if isinstance(source, bytes):
        return decode_image(source)
    path = Path(source)
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give a photo file ({FORMATS})")
    if not path.is_file():
        if str(source) == "-":  # (situations are read from it: --json -)
            raise ValueError("a photo is read from its file, not from standard input ('-'): give the photo's path")
        raise FileNotFoundError(f"photo not found: {path}")
    data = path.read_bytes()
    if not data:  # (an upload's own word, "the upload is empty", is no file's)
        raise ValueError(f"{path} is an empty file: expected {FORMATS}")
    try:
        return decode_image(data)
    except ValueError as e:  # the file named, as the command line gives it (decode_image, as the server calls
        raise ValueError(f"{path}: {e}") from None  # it, names none: an upload's refusal shows no server path)


_FD2 = threading.Lock()  # two threads swapping descriptor 2 at once could leave it on /dev/null for good


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 to /dev/null: libjpeg writes its warnings there itself, past Python's sys.stderr. For the
    command-line tools only: the whole process's stderr is quiet meanwhile (the server does not call it)."""
    with _FD2:
        sys.stderr.flush()
        saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)


def imread_any(path: str | Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray | None:
    """``cv2.imread`` for any file name: one whose bytes are not UTF-8 (Python holds it with surrogates) crashes
    OpenCV's own reader outright, so its bytes are read here and decoded (the same pixels; EXIF turns applied).
    None where OpenCV reads no image."""
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        data = np.fromfile(path, np.uint8)
        return cv2.imdecode(data, flags) if data.size else None
    return cv2.imread(name, flags)


def imread_quiet(path: str | Path) -> np.ndarray | None:
    """:func:`imread_any` (as training reads photos), without libjpeg's own "Premature end of JPEG file" on a JPEG
    cut short: the tools name such photos once, in their own words. None where OpenCV reads no image."""
    from xingzi.datasets.yolo import jpeg_cut_short

    if Path(path).suffix.lower() in (".jpg", ".jpeg") and jpeg_cut_short(path):
        with _stderr_silenced():
            return imread_any(path)
    return imread_any(path)


def check_image_path(path: str | Path) -> Path:
    """``path`` if an annotated photo may be written there (said before any work), else ValueError."""
    path = Path(path)
    if path.suffix.lower() not in (".jpg", ".jpeg", ".png"):
        raise ValueError(f"--out {path}: expected a .jpg or .png file name")
    if path.is_dir():
        raise ValueError(f"--out {path} is a folder: give a file name for the annotated photo")
    return path


def write_image(path: str | Path, bgr: np.ndarray) -> None:
    path = check_image_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # written beside it, then put in its place: Ctrl-C or a full disk midway left a picture that does not decode
    # (over the one before, when there was one)
    part = path.with_name(f".{path.name}.part{os.getpid()}{path.suffix}")
    try:
        Image.fromarray(np.ascontiguousarray(bgr[..., ::-1])).save(part, quality=90)
        os.replace(part, path)
    except OSError as e:  # said of the file asked for, not of the hidden one it was written through
        if e.errno is None:
            raise
        raise OSError(e.errno, e.strerror, str(path)) from None
    finally:
        part.unlink(missing_ok=True)
