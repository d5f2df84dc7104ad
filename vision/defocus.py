"""Photos out of focus: find the blur disk a lens left and divide it out.

A lens focused in front of or behind the tiles spreads every point into a small disk. The disk's spectrum
falls to zero on rings, so the photo's log spectrum ripples the same way in every direction, and the
cepstrum (the spectrum of the log spectrum) dips on a circle whose radius is about 1.9 times the disk's.
Taken around each circle (the median, so that a dip along one axis, left by resampling, does not count), a
sharp photo's cepstrum stays within three robust spreads of its median; a disk blur pulls one circle 4 to 12
spreads below. The disk drawn at the radius so found is divided out of the photo
(Wiener, as for a streak in :mod:`xingzi.vision.deblur`, which reads the copy and keeps its reading only when
it is the surer). Measured in docs/detector.md ("Out-of-focus photos").
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .denoise import shrunk

DISK_DEPTH = 4.0  # the circle's dip, in robust spreads below the cepstrum's median, from which a photo is out of focus
MIN_RING, MAX_RING = 4, 25  # circle radii looked at, in pixels at the model's scale (3 is where any blur dips)
RING_PER_RADIUS = 1.9  # the dip's circle radius over the blur disk's (1.8–1.95 on drawn disks of radius 2–12, tests)


@dataclass(frozen=True)
class Disk:
    radius: float  # the blur disk's radius in pixels, at the scale it was found
    depth: float  # the circle's dip in robust spreads below the cepstrum's median (larger: surer)


def cepstrum_of(image: np.ndarray, side: int) -> np.ndarray | None:
    """The centred cepstrum of the photo in grey, shrunk to ``side`` on its long side (if larger); None for a
    picture too small to show a blur of the lengths looked for."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"expected a BGR uint8 photo, got shape {image.shape} and dtype {image.dtype}")
    grey = shrunk(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), side)
    if min(grey.shape) <= 2 * (MAX_RING + 2) + 1:
        return None
    centred = grey.astype(np.float32) - float(grey.mean())
    window = cv2.createHanningWindow(centred.shape[::-1], cv2.CV_32F)  # no wrap-around edges in the spectrum
    spectrum = cv2.dft(centred * window, flags=cv2.DFT_COMPLEX_OUTPUT)
    log_spectrum = np.log1p(cv2.magnitude(spectrum[..., 0], spectrum[..., 1]))
    # the log spectrum is real and even, so its transform is real: the cepstrum (up to the 1/N of the inverse)
    cepstrum = cv2.dft(log_spectrum, flags=cv2.DFT_COMPLEX_OUTPUT)[..., 0] / log_spectrum.size
    return np.fft.fftshift(cepstrum)


_DY, _DX = np.mgrid[-MAX_RING - 2:MAX_RING + 3, -MAX_RING - 2:MAX_RING + 3]
_RADIUS = np.hypot(_DY, _DX)
_ANNULUS = (_RADIUS >= MIN_RING) & (_RADIUS <= MAX_RING)
_RINGS = np.arange(MIN_RING - 1, MAX_RING + 2)  # one more each side: the neighbours of the parabola's top
_CIRCLES = [np.flatnonzero(np.abs(_RADIUS - r) < 0.5) for r in _RINGS]  # the pixels of each circle


def disk_in(cepstrum: np.ndarray) -> Disk:
    """The likeliest blur disk of a centred cepstrum (:func:`cepstrum_of`), however shallow its circle."""
    cy, cx, m = cepstrum.shape[0] // 2, cepstrum.shape[1] // 2, MAX_RING + 2
    near = cepstrum[cy - m:cy + m + 1, cx - m:cx + m + 1]
    middle = float(np.median(near[_ANNULUS]))
    spread = float(np.median(np.abs(near[_ANNULUS] - middle))) + 1e-9
    # the median around each circle: a disk dips all the way round, resampling along an axis only at the axis
    flat = near.reshape(-1)
    dips = np.array([(middle - float(np.median(flat[circle]))) / spread for circle in _CIRCLES])
    i = 1 + int(np.argmax(dips[1:-1]))
    left, top, right = dips[i - 1:i + 2]
    curve = left - 2 * top + right  # the circle between whole pixels: the top of a parabola through three rings
    ring = float(_RINGS[i]) + (0.5 * (left - right) / curve if curve < 0 else 0.0)
    return Disk(float(ring / RING_PER_RADIUS), float(top))


def find_disk(image: np.ndarray, side: int) -> Disk:
    """The likeliest blur disk of the photo shrunk to ``side`` on its long side (if larger)."""
    cepstrum = cepstrum_of(image, side)
    return Disk(0.0, 0.0) if cepstrum is None else disk_in(cepstrum)


def disk_kernel(radius: float) -> np.ndarray:
    """A normalised disk of ``radius`` pixels (its edge anti-aliased) in an odd square."""
    if radius <= 0:
        raise ValueError(f"a blur disk needs a positive radius, got {radius}")
    fine = 8  # drawn eight times finer, then averaged down: a round edge at any radius
    size = int(np.ceil(radius)) * 2 + 3
    yy, xx = (np.mgrid[0:size * fine, 0:size * fine] + 0.5) / fine - size / 2
    inside = (np.hypot(yy, xx) <= radius).astype(np.float32)
    kernel = inside.reshape(size, fine, size, fine).mean((1, 3))
    return kernel / kernel.sum()
