"""Network answers remembered while one photo is read.

A photo whose first reading makes no legal hand is read again with the second opinion asked
(``pipeline.detect_hand``): the same pictures (the photo, its squeezed, negative or sharpened copies)
go through the same networks a second time. Inside a ``remembering()`` block a network given a picture
it has already read in that block answers from memory, so a photo read twice pays for each picture
once. Outside such a block nothing is kept. Blocks are per thread (the web server reads photos in
several threads with one detector).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

SAMPLES = 256  # values sampled from a picture to find the ones it may equal
_local = threading.local()


@contextmanager
def remembering() -> Iterator[None]:
    """Remember network answers until the block ends (a block inside another shares the outer one)."""
    if getattr(_local, "answers", None) is not None:
        yield
        return
    _local.answers = {}
    try:
        yield
    finally:
        _local.answers = None


def active() -> bool:
    """Whether this thread is inside a ``remembering()`` block."""
    return getattr(_local, "answers", None) is not None


def recall(network: object, picture: np.ndarray, compute: Callable[[], list[np.ndarray]]) -> list[np.ndarray]:
    """``network``'s answer for ``picture`` (its input, or what its input is made from): remembered when
    it read the same picture before in this block, else computed (and, in a block, remembered read-only).

    Pictures are told apart by a few hundred sampled values and then compared whole, so a photo read
    once pays nothing but the sampling (no digest of every byte)."""
    answers = getattr(_local, "answers", None)
    if answers is None:
        return compute()
    flat = picture.reshape(-1)
    probe = (id(network), picture.dtype.str, picture.shape, flat[:: max(1, flat.size // SAMPLES)].tobytes())
    for seen, outputs in answers.get(probe, ()):  # the networks outlive the block: their ids stay theirs
        if np.array_equal(seen, picture):
            return outputs
    outputs = compute()
    for out in outputs:
        out.flags.writeable = False
    answers.setdefault(probe, []).append((picture.copy(), outputs))
    return outputs
