"""Shaken photos: find the streak a moving phone left and read a copy with it taken out.

When the phone moves while the shutter is open every point of the hand is smeared along one short line, and
the strokes that tell the faces apart run together (`xingzi eval --perturb motion`: image exact 78 → 50 % on
`real_cn_val`). Such a smear multiplies the photo's spectrum by a ripple whose period is the streak's length,
so the cepstrum (the spectrum of the log spectrum) dips deep at the streak's length and direction. Where the
dip stands far below the cepstrum's usual spread, the streak is drawn as a line of that length and direction
and divided out of the photo (Wiener deconvolution); the copy is read too, and its reading kept when it is the
surer one. A deepest dip within a pixel of an axis is not taken for a streak: resampling a picture along one
axis (a stretched strip, an upscaled screenshot) ties its pixels together along that axis the same way, so a
streak that close to an axis is left. A photo with no such streak whose cepstrum dips on a whole circle is out
of focus: the blur disk found there (:mod:`xingzi.vision.defocus`) is divided out the same way, on the same terms.
Measured in docs/detector.md ("Shaken photos", "Out-of-focus photos").
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .defocus import DISK_DEPTH, cepstrum_of, disk_in, disk_kernel
from .denoise import shrunk, to_photo
from .detections import Detections
from .negative import Reader, sure_median

STREAK_DEPTH = 20.0  # the dip, in robust spreads below the cepstrum's median, from which a photo counts as shaken
MIN_LENGTH, MAX_LENGTH = 4, 25  # streak lengths looked for, in pixels at the model's scale
NOISE_TO_SIGNAL = 0.01  # Wiener's regulariser: lower restores more and rings more
GAIN = 0.0  # the unstreaked reading's sure tiles' median confidence must beat the first's by more than this


@dataclass(frozen=True)
class Streak:
    length: float  # pixels, at the scale it was found
    angle: float  # degrees from the x axis, y pointing down
    depth: float  # the dip in robust spreads below the cepstrum's median (larger: surer)
    axial: bool  # within a pixel of an axis: taken for resampling (a stretched or upscaled picture), not a streak


# the offsets from the middle where a streak's dip may lie
_DY, _DX = np.mgrid[-MAX_LENGTH:MAX_LENGTH + 1, -MAX_LENGTH:MAX_LENGTH + 1]
_RADIUS = np.hypot(_DY, _DX)
_RING = (_RADIUS >= MIN_LENGTH) & (_RADIUS <= MAX_LENGTH)


def find_streak(image: np.ndarray, side: int) -> Streak:
    """The likeliest streak of the photo shrunk to ``side`` on its long side (if larger), however shallow."""
    cepstrum = cepstrum_of(image, side)
    return Streak(0.0, 0.0, 0.0, False) if cepstrum is None else streak_in(cepstrum)


def streak_in(cepstrum: np.ndarray) -> Streak:
    """The likeliest streak of a centred cepstrum (:func:`xingzi.vision.defocus.cepstrum_of`)."""
    cy, cx = cepstrum.shape[0] // 2, cepstrum.shape[1] // 2
    near = cepstrum[cy - MAX_LENGTH:cy + MAX_LENGTH + 1, cx - MAX_LENGTH:cx + MAX_LENGTH + 1]
    ring = near[_RING]
    middle = float(np.median(ring))
    spread = float(np.median(np.abs(ring - middle))) + 1e-9
    i = int(np.argmin(np.where(_RING, near, np.inf)))
    dy, dx = int(_DY.flat[i]), int(_DX.flat[i])
    return Streak(float(np.hypot(dy, dx)), float(np.degrees(np.arctan2(dy, dx))),
                  (middle - float(near.flat[i])) / spread, min(abs(dy), abs(dx)) <= 1)


def streak_kernel(streak: Streak) -> np.ndarray:
    """The smear as a normalised line of the streak's length and direction, in an odd square."""
    size = int(streak.length) * 2 + 3
    kernel = np.zeros((size, size), np.float32)
    middle, half = (size - 1) / 2, (streak.length - 1) / 2
    dx, dy = np.cos(np.radians(streak.angle)) * half, np.sin(np.radians(streak.angle)) * half
    sub = 16  # cv2.line's fixed-point coordinates (4 fractional bits)
    ends = [(round((middle + s * dx) * sub), round((middle + s * dy) * sub)) for s in (-1, 1)]
    cv2.line(kernel, ends[0], ends[1], 1.0, 1, cv2.LINE_AA, 4)
    return kernel / kernel.sum()


def unstreak(image: np.ndarray, kernel: np.ndarray, noise_to_signal: float = NOISE_TO_SIGNAL) -> np.ndarray:
    """The photo with the smear ``kernel`` divided out (Wiener), edges mirrored so they do not ring."""
    pad = kernel.shape[0] * 2
    padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REFLECT).astype(np.float32)
    h, w = padded.shape[:2]
    placed = np.zeros((h, w), np.float32)
    k = kernel.shape[0]
    placed[:k, :k] = kernel
    placed = np.roll(placed, (-(k // 2), -(k // 2)), (0, 1))  # the kernel's middle at the origin: no shift
    response = np.fft.rfft2(placed)
    # Wiener's inverse, scaled so the photo's mean brightness (the response at zero frequency, 1) is kept
    inverse = np.conj(response) * (1 + noise_to_signal) / (np.abs(response) ** 2 + noise_to_signal)
    out = np.stack([np.fft.irfft2(np.fft.rfft2(padded[..., c]) * inverse, s=(h, w))
                    for c in range(image.shape[2])], axis=-1)
    return np.clip(out[pad:-pad, pad:-pad], 0, 255).astype(np.uint8)


def unshaken(image: np.ndarray, side: int, depth: float = STREAK_DEPTH, disk_depth: float = DISK_DEPTH) -> np.ndarray:
    """The photo to read: when it shows a streak at ``side`` deeper than ``depth``, or else a blur disk deeper than
    ``disk_depth`` (0: never), shrunk to ``side`` (if larger) with that blur divided out, so the caller scales its
    boxes back; else the photo as it is."""
    if depth <= 0 and disk_depth <= 0:
        return image
    cepstrum = cepstrum_of(image, side)
    if cepstrum is None:
        return image
    streak = streak_in(cepstrum)
    if depth > 0 and not streak.axial and streak.depth >= depth:
        return unstreak(shrunk(image, side), streak_kernel(streak))
    disk = disk_in(cepstrum)
    if disk_depth > 0 and disk.depth >= disk_depth:
        return unstreak(shrunk(image, side), disk_kernel(disk.radius))
    return image


def read_unshaken(read: Reader, image: np.ndarray, first: Detections, side: int,
                  depth: float = STREAK_DEPTH, disk_depth: float = DISK_DEPTH) -> Detections:
    """``first``, or, for a photo with a streak deeper than ``depth`` or a blur disk deeper than ``disk_depth``
    (0: never), the reading of the copy with that blur divided out (boxes moved back to the photo) when that
    reads its sure tiles more surely. The copy is only as good as the kernel drawn: a smear that bends (a
    trembling hand) is divided out wrongly and reads less surely, so it is never taken on trust. The number of
    tiles is not compared: a right copy often finds one fewer or more at the photo's edges."""
    picture = unshaken(image, side, depth, disk_depth)
    if picture is image:
        return first
    other = to_photo(read(picture), picture.shape, image.shape)
    return other if sure_median(other)[1] > sure_median(first)[1] + GAIN else first
