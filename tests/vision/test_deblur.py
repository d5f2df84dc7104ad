"""Shaken photos: a motion streak found in the cepstrum, taken out, and the photo read without it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from xingzi.vision.deblur import STREAK_DEPTH, find_streak, streak_kernel, unshaken, unstreak

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.jpg"  # a synthetic hand, 1280 x 1280


@pytest.fixture(scope="module")
def sharp() -> np.ndarray:
    image = cv2.imread(str(DEMO), cv2.IMREAD_COLOR)
    return cv2.resize(image, (800, 800), interpolation=cv2.INTER_AREA)


def smeared(image: np.ndarray, start: tuple[int, int], end: tuple[int, int]) -> np.ndarray:
    """The photo smeared along a one-pixel line from ``start`` to ``end`` (x, y) in a square kernel."""
    n = max(*start, *end) + 1
    kernel = np.zeros((n, n), np.float32)
    cv2.line(kernel, start, end, 1.0, 1)
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def sharpness(image: np.ndarray) -> float:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return float(np.mean(cv2.Sobel(grey, cv2.CV_32F, 1, 0) ** 2 + cv2.Sobel(grey, cv2.CV_32F, 0, 1) ** 2))


def same_line(angle: float, expected: float) -> float:
    """Degrees between two directions of a line (a streak has no way along it)."""
    d = abs(angle - expected) % 180
    return min(d, 180 - d)


@pytest.mark.parametrize(("start", "end"), [
    pytest.param((0, 2), (8, 6), id="shallow_9px"),
    pytest.param((2, 8), (6, 0), id="steep_9px"),
    pytest.param((0, 0), (6, 6), id="diagonal_7px"),
    pytest.param((0, 4), (12, 8), id="long_13px"),
])
def test_a_streak_is_found_with_its_length_and_direction(sharp, start, end):
    streak = find_streak(smeared(sharp, start, end), 800)
    dx, dy = end[0] - start[0], end[1] - start[1]
    assert not streak.axial and streak.depth > STREAK_DEPTH
    assert streak.length == pytest.approx(np.hypot(dx, dy) + 1, abs=1.5)
    assert same_line(streak.angle, float(np.degrees(np.arctan2(dy, dx)))) < 8


def test_a_sharp_photo_shows_no_streak(sharp):
    streak = find_streak(sharp, 800)
    assert streak.axial or streak.depth < STREAK_DEPTH / 2
    assert unshaken(sharp, 800) is sharp


def test_a_picture_stretched_along_an_axis_is_not_taken_for_a_shaken_one(sharp):
    strip = cv2.resize(sharp[:, :300], (900, 800), interpolation=cv2.INTER_LINEAR)  # three times as wide
    assert find_streak(strip, 900).axial
    assert unshaken(strip, 900) is strip


def test_taking_the_streak_out_brings_the_detail_back(sharp):
    blurred = smeared(sharp, (0, 2), (8, 6))
    restored = unstreak(blurred, streak_kernel(find_streak(blurred, 800)))
    assert restored.shape == blurred.shape and restored.dtype == np.uint8
    assert sharpness(blurred) < 0.5 * sharpness(sharp)
    assert sharpness(restored) > 1.5 * sharpness(blurred)
    assert abs(float(restored.mean()) - float(sharp.mean())) < 1.0  # no brighter or darker


def test_a_shallow_streak_is_taken_out_and_the_tiles_stay_where_they_were(sharp):
    # two pixels across ten: still a slant, not a picture stretched along an axis; the line's middle on the
    # kernel's, so the smear itself moves nothing and neither may its removal
    blurred = smeared(sharp, (0, 4), (10, 6))
    streak = find_streak(blurred, 800)
    assert not streak.axial and streak.depth > STREAK_DEPTH
    restored = unstreak(blurred, streak_kernel(streak))
    assert sharpness(restored) > 1.5 * sharpness(blurred)
    grey = [cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float32) for im in (sharp, restored)]
    (dx, dy), _ = cv2.phaseCorrelate(*grey)
    assert abs(dx) < 0.5 and abs(dy) < 0.5


def test_the_kernel_is_a_normalised_line_through_the_middle():
    from xingzi.vision.deblur import Streak

    kernel = streak_kernel(Streak(7.0, 0.0, 30.0, False))
    assert kernel.sum() == pytest.approx(1.0) and kernel.shape[0] % 2 == 1
    middle = kernel.shape[0] // 2
    row = kernel[middle]
    assert np.count_nonzero(row > 0.05) == 7 and row.sum() == pytest.approx(1.0, abs=0.05)
    assert np.allclose(kernel, kernel[::-1, ::-1], atol=1e-6)  # centred: reading it does not move the tiles


def test_a_shaken_photo_is_read_at_the_models_scale_and_can_be_left(sharp):
    big = cv2.resize(smeared(sharp, (0, 2), (8, 6)), (1600, 1600), interpolation=cv2.INTER_LINEAR)
    picture = unshaken(big, 800)
    assert picture.shape == (800, 800, 3) and sharpness(picture) > 1.5 * sharpness(cv2.resize(big, (800, 800)))
    assert unshaken(big, 800, depth=0) is big  # the step switched off
