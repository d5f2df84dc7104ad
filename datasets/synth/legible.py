"""Whether the part of a tile's face that a photo shows tells which face it is.

A tile cut by the photo's edge, or partly behind a nearer tile, is labelled when enough of it shows (the frame's
and the painter's rules in ``generate``). That says nothing of its face: a 萬 tile cut through its number shows
only 萬, which every character tile has. Here the shown part is taken back into the face texture and set against
the same part of every other face of the same art. The yardstick is the art itself: the two most alike whole faces
of the set differ in some number of pixels, and a reader tells those apart. Where the shown part differs from some
other face in under half that many, no reader could give the face, and the label says so (``unread``: neither a
hit nor a miss when measuring).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .faces import FaceSet
from .render import texture_map

FACE_INK = 48  # a channel difference (0-255) between two faces' textures that is a stroke, not rounding
MIN_TELLING = 0.5  # of the pixels telling apart the set's two most alike faces, the share that must show
FACES = 30  # the face classes a texture exists for (not the back)


@dataclass(frozen=True)
class Art:
    """A face set's 30 textures at one level, as the judgement reads them."""

    planes: np.ndarray  # (3, 30, h, w) int16: each colour channel of every face
    inked: np.ndarray  # (30, h, w) bool: inside the face's outline (alpha)
    least: int  # the pixels in which the set's two most alike faces differ


_ART: dict[tuple[str, int, int], Art] = {}  # (set, texture height, width) → its art


def art_at(face_set: FaceSet, height_px: float, shape: tuple[int, ...]) -> Art:
    """The set's faces at the level drawn for ``height_px`` (each at ``shape``), kept for the process."""
    key = (face_set.name, int(shape[0]), int(shape[1]))
    if key not in _ART:
        th, tw = key[1:]
        texs = [face_set.face(c, height_px) for c in range(FACES)]
        stack = np.stack([t if t.shape[:2] == (th, tw) else cv2.resize(t, (tw, th), interpolation=cv2.INTER_AREA)
                          for t in texs])
        art = Art(np.ascontiguousarray(np.moveaxis(stack[..., :3], 3, 0)).astype(np.int16), stack[..., 3] > 0, 0)
        least = min(int(differs(art, c, c + 1).sum((1, 2)).min()) for c in range(FACES - 1))
        _ART[key] = Art(art.planes, art.inked, least)
    return _ART[key]


def differs(art: Art, cls: int, first: int = 0) -> np.ndarray:
    """(30 - first, h, w) bool: where faces ``first``… differ from face ``cls`` by a stroke in some channel."""
    out = np.zeros(art.inked[first:].shape, bool)
    for plane in art.planes:
        out |= np.abs(plane[first:] - plane[cls]) > FACE_INK
    return out & (art.inked[first:] | art.inked[cls])


def shown_in_texture(ids: np.ndarray, index: int, quad: np.ndarray, tex_shape: tuple[int, ...]) -> np.ndarray:
    """Of the face texture, the pixels that show in the photo (``ids == index``: painted last, inside the frame)."""
    height, width = ids.shape
    x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + 1, (width, height))
    th, tw = tex_shape[:2]
    if x1 <= x0 or y1 <= y0:
        return np.zeros((th, tw), bool)
    roi = (ids[y0:y1, x0:x1] == index).astype(np.uint8)
    to_photo = texture_map(tex_shape, quad, int(x0), int(y0))
    back = cv2.warpPerspective(roi, to_photo, (tw, th), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return back.astype(bool)


def telling_share(face_set: FaceSet, cls: int, height_px: float, shown: np.ndarray) -> float:
    """Over the other faces of ``face_set``, the fewest pixels of ``shown`` (a mask over face ``cls``'s texture)
    where that face differs, as a share of the pixels in which the set's two most alike whole faces differ."""
    art = art_at(face_set, height_px, shown.shape)
    seen = (differs(art, cls) & shown).sum((1, 2))
    seen[cls] = np.iinfo(seen.dtype).max
    return float(seen.min()) / max(art.least, 1)


def face_told(face_set: FaceSet, cls: int, height_px: float, shown: np.ndarray) -> bool:
    """Whether ``shown`` (a mask over face ``cls``'s texture: ``shown_in_texture``) holds enough of the face to tell
    it from every other face: over half the yardstick's pixels of difference to each."""
    least = art_at(face_set, height_px, shown.shape).least
    if np.count_nonzero(~shown) <= (1 - MIN_TELLING) * least:  # each other face differs in least pixels or more
        return True
    return telling_share(face_set, cls, height_px, shown) >= MIN_TELLING
