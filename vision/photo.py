"""Photos in and out: bytes or files decoded safely to BGR arrays (JPEG, PNG, and the HEIC of phones where
pillow-heif is installed), annotated pictures written."""

from __future__ import annotations

import io
import math
import os
import re
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

try:  # iPhones save HEIC; the decoder is a dependency of the vision extra
    from pillow_heif import register_heif_opener
except ImportError:  # without it such photos are "not an image"
    HEIF = False
else:
    register_heif_opener()
    HEIF = True

MAX_PIXELS = 40_000_000  # larger photos are refused before decoding (decompression bombs)
MAX_SIDE = 1600  # photos are scaled down to this before detection and drawing
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
    a reduced scale when they are at least twice ``max_side`` (a 12-MP phone photo at half its size).
    """
    if not data:
        raise ValueError(f"the upload is empty: expected {FORMATS}")
    if data.startswith(b"\xff\xd8") and jpeg_scans(data, MAX_SCANS) > MAX_SCANS:
        raise ValueError(f"image refused: a JPEG of more than {MAX_SCANS} scans, each decoded over the whole picture "
                         "(a camera writes at most about 12: a decompression bomb?)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the size is checked here
            warnings.simplefilter("ignore", UserWarning)  # corrupt EXIF: the photo is read without its turn
            im = Image.open(io.BytesIO(data), formats=OPENED)
            with im:
                w, h = im.size
                if w * h <= max_pixels:
                    if im.format in ("JPEG", "MPO") and max(w, h) > max_side:  # decoded at 1/2, 1/4, 1/8 scale
                        k = max_side / max(w, h)  # the size asked must keep the photo's shape, or a 4:3
                        im.draft("RGB", (math.ceil(w * k), math.ceil(h * k)))  # photo is decoded whole
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
    if w * h > max_pixels:
        raise ValueError(f"image is {w}x{h} = {w * h / 1e6:.0f} megapixels; at most "
                         f"{max_pixels / 1e6:.0f} are accepted")
    arr = np.asarray(rgb)
    rows, cols = arr.shape[:2]  # as shown, after the EXIF turn
    if max(rows, cols) > max_side:  # OpenCV: several times faster than Pillow's resize and the numpy channel swap
        k = max_side / max(rows, cols)  # under 2× (a JPEG already decoded at a reduced scale) bilinear will do
        way = cv2.INTER_LINEAR if k > 0.5 else cv2.INTER_AREA
        arr = cv2.resize(arr, (max(1, round(cols * k)), max(1, round(rows * k))), interpolation=way)
    return cv2.cvtColor(arr, cv2.COLOR_RGB2BGR)


def jpeg_scans(data: bytes, limit: int = MAX_SCANS) -> int:
    """The scans (SOS segments) of a JPEG's first picture, up to its end marker, counted no further than
    ``limit + 1``. Segments are stepped over by their lengths (an EXIF thumbnail's own scans are not counted), the
    coded data between them searched for the next marker."""
    scans, i = 0, 2
    while scans <= limit:
        found = _MARKER.search(data, i)
        if found is None:
            break
        code, i = found.group(1)[0], found.end()
        if code == 0xD9:  # end of the picture (an MPO's second one follows)
            break
        if code == 0x01 or 0xD0 <= code <= 0xD8:  # markers with no length
            continue
        scans += code == 0xDA
        i += int.from_bytes(data[i:i + 2], "big")
    return scans


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
        raise FileNotFoundError(f"photo not found: {path}")
    data = path.read_bytes()
    if not data:  # (an upload's own word, "the upload is empty", is no file's)
        raise ValueError(f"{path} is an empty file: expected {FORMATS}")
    return decode_image(data)


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


def imread_quiet(path: str | Path) -> np.ndarray | None:
    """``cv2.imread`` (as training reads photos), without libjpeg's own "Premature end of JPEG file" on a JPEG cut
    short: the tools name such photos once, in their own words. None where OpenCV reads no image."""
    from xingzi.datasets.yolo import jpeg_cut_short

    if Path(path).suffix.lower() in (".jpg", ".jpeg") and jpeg_cut_short(path):
        with _stderr_silenced():
            return cv2.imread(str(path), cv2.IMREAD_COLOR)
    return cv2.imread(str(path), cv2.IMREAD_COLOR)


def write_image(path: str | Path, bgr: np.ndarray) -> None:
    path = Path(path)
    if path.suffix.lower() not in (".jpg", ".jpeg", ".png"):
        raise ValueError(f"--out {path}: expected a .jpg or .png file name")
    if path.is_dir():
        raise ValueError(f"--out {path} is a folder: give a file name for the annotated photo")
    path.parent.mkdir(parents=True, exist_ok=True)
    # written beside it, then put in its place: Ctrl-C or a full disk midway left a picture that does not decode
    # (over the one before, when there was one)
    part = path.with_name(f".{path.name}.part{os.getpid()}{path.suffix}")
    try:
        Image.fromarray(np.ascontiguousarray(bgr[..., ::-1])).save(part, quality=90)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
