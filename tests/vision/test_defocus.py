"""Photos out of focus: the blur disk found in the cepstrum, divided out, and the photo read without it; what the
streak and the disk share (bad input, tiny pictures, the detector reading the copy) is tested here for both."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from plate_photo import photo
from test_deblur import smeared

from xingzi.vision.deblur import find_streak, unshaken
from xingzi.vision.defocus import DISK_DEPTH, Disk, cepstrum_of, disk_kernel, find_disk
from xingzi.vision.detector import DEFAULT_ONNX, Detector
from xingzi.vision.perturb import get as perturbation

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.jpg"  # a synthetic hand, 1280 x 1280


@pytest.fixture(scope="module")
def sharp() -> np.ndarray:
    image = cv2.imread(str(DEMO), cv2.IMREAD_COLOR)
    return cv2.resize(image, (800, 800), interpolation=cv2.INTER_AREA)


def defocused(image: np.ndarray, radius: float) -> np.ndarray:
    """The photo spread by a disk drawn with OpenCV (not the kernel the step divides out)."""
    n = 2 * int(np.ceil(radius)) + 1
    fine = np.zeros((8 * n, 8 * n), np.float32)
    cv2.circle(fine, (4 * n, 4 * n), round(8 * radius), 1.0, -1)
    kernel = cv2.resize(fine, (n, n), interpolation=cv2.INTER_AREA)
    return cv2.filter2D(image, -1, kernel / kernel.sum())


def sharpness(image: np.ndarray) -> float:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return float(np.mean(cv2.Sobel(grey, cv2.CV_32F, 1, 0) ** 2 + cv2.Sobel(grey, cv2.CV_32F, 0, 1) ** 2))


@pytest.mark.parametrize("radius", [pytest.param(2.5, id="r2.5"), pytest.param(4.0, id="r4"),
                                    pytest.param(6.0, id="r6")])
def test_a_blur_disk_is_found_with_its_radius(sharp, radius):
    disk = find_disk(defocused(sharp, radius), 800)
    assert disk.depth > DISK_DEPTH
    assert disk.radius == pytest.approx(radius, rel=0.15)


def test_the_radius_is_found_between_whole_rings(sharp):
    # the dip's circle is placed between whole pixels by a parabola through three rings: to a tenth of a pixel
    # on average over radii 2–9 (a whole ring alone is half a ring out, 0.26 px, at worst)
    radii = np.arange(2.0, 9.01, 0.5)
    errors = [abs(find_disk(defocused(sharp, r), 800).radius - r) for r in radii]
    assert float(np.mean(errors)) < 0.085 and max(errors) < 0.2


def test_the_cepstrum_is_the_transform_of_the_log_spectrum_of_the_windowed_grey_photo(sharp):
    grey = cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY).astype(np.float64)
    window = np.sqrt(np.outer(np.hanning(800), np.hanning(800)))  # OpenCV's 2-D Hann window
    log_spectrum = np.log1p(np.abs(np.fft.fft2((grey - grey.mean()) * window)))
    expected = np.fft.fftshift(np.fft.fft2(log_spectrum).real) / log_spectrum.size
    got = cepstrum_of(sharp, 800)
    near = (slice(380, 421), slice(380, 421))  # where the streaks and disks are looked for
    ring = expected[near].copy()
    ring[18:23, 18:23] = 0  # the spike at the middle dwarfs the rest
    assert np.allclose(got[near], expected[near], atol=0.02 * np.abs(ring).max(), rtol=1e-3)


def test_a_sharp_photo_shows_no_blur_disk(sharp):
    assert find_disk(sharp, 800).depth < DISK_DEPTH / 2
    assert unshaken(sharp, 800) is sharp


def test_the_disk_is_found_at_the_models_scale(sharp):
    big = cv2.resize(defocused(sharp, 3.0), (1600, 1600), interpolation=cv2.INTER_LINEAR)  # 6 px in the photo
    assert find_disk(big, 800).radius == pytest.approx(3.0, rel=0.15)


def test_dividing_the_disk_out_brings_the_detail_back(sharp):
    blurred = defocused(sharp, 4.0)
    restored = unshaken(blurred, 800)
    assert restored is not blurred and restored.shape == blurred.shape and restored.dtype == np.uint8
    assert sharpness(blurred) < 0.5 * sharpness(sharp)
    assert sharpness(restored) > 1.5 * sharpness(blurred)
    assert abs(float(restored.mean()) - float(sharp.mean())) < 1.0  # no brighter or darker
    assert unshaken(blurred, 800, disk_depth=0) is blurred  # the step switched off


def test_any_depth_above_zero_switches_a_step_on(sharp):
    shaken, blurred = smeared(sharp, (0, 2), (8, 6)), defocused(sharp, 4.0)
    assert unshaken(shaken, 800, depth=0.5, disk_depth=0) is not shaken
    assert unshaken(blurred, 800, depth=0, disk_depth=0.5) is not blurred


def test_the_eval_perturbation_is_found_as_the_disk_it_draws(sharp):
    blurred = perturbation("defocus").image(sharp)  # radius long side / 200 = 4 px
    assert find_disk(blurred, 800).radius == pytest.approx(4.0, rel=0.15)


@pytest.mark.parametrize("radius", [1.0, 2.5, 7.0])
def test_the_kernel_is_a_normalised_centred_disk(radius):
    kernel = disk_kernel(radius)
    assert kernel.sum() == pytest.approx(1.0) and kernel.shape[0] % 2 == 1
    assert np.allclose(kernel, kernel[::-1, ::-1], atol=1e-6) and np.allclose(kernel, kernel.T, atol=1e-6)
    middle = kernel.shape[0] // 2
    assert np.count_nonzero(kernel[middle] > 0.5 * kernel.max()) == pytest.approx(2 * radius, abs=1.5)
    assert kernel[0, 0] == 0  # round: the corners stay empty


@pytest.mark.parametrize("radius", [0.0, -2.0])
def test_a_disk_without_a_radius_is_refused(radius):
    with pytest.raises(ValueError, match="positive radius"):
        disk_kernel(radius)


@pytest.mark.parametrize("find", [find_streak, find_disk], ids=["streak", "disk"])
@pytest.mark.parametrize(("image", "what"), [
    pytest.param(np.zeros((100, 100), np.uint8), "BGR", id="grey_photo"),
    pytest.param(np.zeros((100, 100, 3), np.float32), "uint8", id="float_photo"),
])
def test_bad_input_is_refused_with_what_was_expected(find, image, what):
    with pytest.raises(ValueError, match=what):
        find(image, 800)


def test_a_tiny_picture_has_no_room_for_a_streak_or_a_disk():
    tiny = np.random.default_rng(0).integers(0, 255, (40, 60, 3), dtype=np.uint8)
    assert find_disk(tiny, 800) == Disk(0.0, 0.0) and find_streak(tiny, 800).depth == 0.0
    assert unshaken(tiny, 800) is tiny


@pytest.mark.parametrize("blur", ["streak", "disk"])
@pytest.mark.parametrize(("copy_conf", "kept"), [
    pytest.param(0.95, "copy", id="the_surer_copy_is_kept"),
    pytest.param(0.70, "photo", id="a_less_sure_copy_is_not"),
])
def test_the_detector_also_reads_a_blurred_photo_with_the_blur_divided_out(monkeypatch, sharp, blur, copy_conf, kept):
    from xingzi.vision import detector as mod

    seen = []

    def read(self, picture, ask_second=False, also=None):
        seen.append(picture.shape)
        boxes = photo([], faces=6)[1]  # boxes in the picture read
        conf = copy_conf if picture.shape[0] == 800 else 0.8  # the copy is read at 800
        return mod.Detections(boxes.xyxy, boxes.cls, np.full(len(boxes.cls), conf, np.float32), boxes.probs)

    monkeypatch.setattr(mod.Detector, "read", read)
    plain = {"classifier": None, "stretched": False, "negative": False, "sharpen": False, "second": None,
             "balance": False}
    blurred = smeared(sharp, (0, 2), (8, 6)) if blur == "streak" else defocused(sharp, 4.0)
    blurred = cv2.resize(blurred, (1600, 1600), interpolation=cv2.INTER_LINEAR)
    found = Detector(DEFAULT_ONNX, **plain).predict(blurred)
    assert seen == [(1600, 1600, 3), (800, 800, 3)]  # as taken, then the copy at the model's scale
    want = (0.95, 2) if kept == "copy" else (0.8, 1)  # the copy's boxes moved back: twice as large in the photo
    assert np.allclose(found.conf, want[0]) and np.allclose(found.xyxy, photo([], faces=6)[1].xyxy * want[1])
    switch = "shaken" if blur == "streak" else "defocused"
    seen.clear()
    Detector(DEFAULT_ONNX, **{switch: 0}, **plain).predict(blurred)
    assert seen == [(1600, 1600, 3)]  # the step switched off: read once, as taken
    seen.clear()
    Detector(DEFAULT_ONNX, **plain).predict(sharp)
    assert seen == [(800, 800, 3)]  # no blur found: read once
    with pytest.raises(ValueError, match=switch):
        Detector(DEFAULT_ONNX, **{switch: -1}, **plain)
