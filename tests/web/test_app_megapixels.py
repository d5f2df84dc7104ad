"""A phone's 48-MP JPEG uploaded is read (decoded at a reduced scale) where its bytes are within the upload limit;
a 48-MP PNG is refused saying what to do; a refusal names no file (the command line's does:
tests/vision/test_photo_size.py)."""

from __future__ import annotations

import io

import pytest
from photo_bytes import png_header
from PIL import Image
from web_helpers import client_for, layout_detections


def flat_jpeg(w: int, h: int) -> bytes:
    """A flat picture: under a MB even at 48 MP."""
    out = io.BytesIO()
    Image.new("RGB", (w, h), (128, 128, 128)).save(out, format="JPEG", quality=80)
    return out.getvalue()


@pytest.mark.parametrize(("make", "status", "said"), [
    pytest.param(lambda: flat_jpeg(8000, 6000), 200, None, id="48MP-jpeg-read"),
    pytest.param(lambda: flat_jpeg(8000, 6000) + b"\0" * 2_000_000, 413, "upload of", id="48MP-jpeg-over-the-bytes"),
    pytest.param(lambda: png_header(8000, 6000), 400, "image is 8000x6000 = 48 megapixels; at most 40 are accepted "
                 "in a PNG (250 in a JPEG, read at a reduced scale): take the photo at a lower resolution, save it "
                 "as a JPEG, or shrink it to at most 1600 px on its long side", id="48MP-png-refused"),
    pytest.param(lambda: b"this is no photo", 400, "not an image: expected a JPEG", id="not-an-image-named-not"),
])
def test_a_48MP_phone_jpeg_is_read_under_the_upload_limit(make, status, said):
    client, fake = client_for(layout_detections(), max_upload=2_000_000)
    r = client.post("/api/read", content=make())
    assert r.status_code == status, r.text
    assert fake.calls == (status == 200)
    if said:
        assert r.json()["error"].startswith(said)
