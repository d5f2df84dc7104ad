"""Grainy photos: the grain measured at the model's scale, and a noisy photo read smoothed."""

from __future__ import annotations

import numpy as np
import pytest
from plate_photo import photo

from xingzi.vision.denoise import NOISY, noise_sigma, quieten, quietened, to_photo
from xingzi.vision.detector import DEFAULT_ONNX, Detector


def grainy(image: np.ndarray, sigma: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    grain = rng.normal(0.0, sigma, image.shape[:2] + (1,))  # grey grain: the same in B, G and R
    return np.clip(image + grain, 0, 255).astype(np.uint8)


def clean_photo() -> np.ndarray:
    return photo([], faces=6)[0]


@pytest.mark.parametrize("sigma", [4.0, 10.0, 20.0])
def test_grain_on_a_flat_grey_photo_is_measured(sigma):
    flat = np.full((300, 400, 3), 128, np.uint8)
    assert noise_sigma(grainy(flat, sigma), 400) == pytest.approx(sigma, rel=0.12)


def test_the_edges_of_tiles_are_not_taken_for_grain():
    image = clean_photo()
    assert noise_sigma(image, max(image.shape)) < 0.5


def test_grain_is_measured_at_the_models_scale():
    big = grainy(np.full((1200, 1600, 3), 128, np.uint8), 10.0)
    at_full = noise_sigma(big, 1600)
    assert at_full == pytest.approx(10.0, rel=0.12)
    assert noise_sigma(big, 400) < at_full / 2  # shrinking four times averages most grain away
    assert noise_sigma(big, 3200) == pytest.approx(at_full)  # never enlarged


def test_a_noisy_photo_is_read_smoothed_and_a_clean_one_as_it_is():
    clean = clean_photo()
    assert quietened(clean, 800) is clean
    noisy = grainy(clean, 2 * NOISY)
    smooth = quietened(noisy, 800)
    assert smooth.shape == noisy.shape and smooth.dtype == np.uint8
    assert noise_sigma(smooth, 800) < noise_sigma(noisy, 800) / 2
    assert quietened(noisy, 800, noisy=0) is noisy  # the step switched off


def test_a_large_grainy_photo_is_read_at_the_models_size_and_its_boxes_scaled_back():
    big = grainy(np.full((1200, 1600, 3), 128, np.uint8), 40.0)  # grainy even shrunk to 800
    small = quietened(big, 800)
    assert small.shape == (600, 800, 3)
    assert quietened(big[:450, :600], 800).shape == (450, 600, 3)  # smaller than the model's size: never enlarged
    det = photo([], faces=2)[1]
    back = to_photo(det, small.shape, big.shape)
    assert np.allclose(back.xyxy, det.xyxy * 2) and np.array_equal(back.cls, det.cls)
    assert to_photo(det, big.shape, big.shape) is det


def test_smoothing_keeps_the_tiles_where_they_are():
    clean = clean_photo()
    smooth = quieten(grainy(clean, 15.0), 15.0)
    tiles_before, tiles_after = (im.min(axis=2) > 160 for im in (clean, smooth))  # ivory plates on green felt
    moved = np.logical_xor(tiles_before, tiles_after).sum()
    assert moved < 0.01 * tiles_before.sum()


@pytest.mark.parametrize(("image", "side", "what"), [
    pytest.param(np.zeros((10, 10), np.uint8), 800, "BGR", id="grey_photo"),
    pytest.param(np.zeros((10, 10, 3), np.float32), 800, "uint8", id="float_photo"),
    pytest.param(np.zeros((10, 10, 3), np.uint8), 4, "at least 8", id="tiny_side"),
])
def test_bad_input_is_refused_with_what_was_expected(image, side, what):
    with pytest.raises(ValueError, match=what):
        noise_sigma(image, side)


def test_the_detector_reads_a_grainy_photo_smoothed_unless_told_not_to(monkeypatch):
    from xingzi.vision import detector as mod

    seen = []

    def read(self, picture, ask_second=False, also=None):
        seen.append(noise_sigma(picture, self.imgsz))
        return photo([], faces=6)[1]  # boxes in the picture read

    monkeypatch.setattr(mod.Detector, "read", read)
    plain = {"classifier": None, "stretched": False, "negative": False, "sharpen": False, "second": None,
             "balance": False}
    noisy = grainy(clean_photo(), 2 * NOISY)
    Detector(DEFAULT_ONNX, **plain).predict(noisy)
    Detector(DEFAULT_ONNX, noisy=0, **plain).predict(noisy)
    smoothed, as_taken = seen
    assert smoothed < NOISY < as_taken
    seen.clear()
    big = grainy(np.full((1200, 1600, 3), 128, np.uint8), 40.0)
    found = Detector(DEFAULT_ONNX, **plain).predict(big)  # read at 800 wide: boxes twice as large in the photo
    assert seen[0] < NOISY and np.allclose(found.xyxy, photo([], faces=6)[1].xyxy * 2)
    with pytest.raises(ValueError, match="noisy"):
        Detector(DEFAULT_ONNX, noisy=-1, **plain)
