"""Helpers for the web tests: a fake detector (no weights needed) and photos made in memory."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
from fastapi.testclient import TestClient
from PIL import Image

from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.detections import Detections
from xingzi.vision.layouts import hand_layout
from xingzi.web.app import create_app

WIDTH, HEIGHT = 1280, 960
HAND = ("123m456m789p12s55p", "3s")  # on a discard: 平胡 1 + 门前清 1 + 胡单张 1 = 3 炮


def client_for(detections: Detections, **kwargs) -> tuple[TestClient, FakeDetector]:
    """A test client of the app with a fake detector returning ``detections``, and that detector."""
    fake = FakeDetector(detections)
    return TestClient(create_app(fake, **kwargs), raise_server_exceptions=False), fake


class FakeDetector:
    """Returns a fixed set of detections whatever the photo; counts its calls."""

    def __init__(self, detections: Detections) -> None:
        self.detections = detections
        self.calls = 0

    def predict(self, image: np.ndarray) -> Detections:
        assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
        self.calls += 1
        return self.detections


def layout_detections(misread_2s_as_3s: bool = False, win_apart: bool = True) -> Detections:
    """``HAND`` laid out; ``win_apart=False`` sorts the winning tile into the row (the photo does not show it)."""
    det = hand_layout(*HAND, size=70, center=(WIDTH / 2, HEIGHT / 2), probs=True, win_apart=win_apart).detections
    if not misread_2s_as_3s:
        return det
    cls, probs = det.cls.copy(), det.probs.copy()
    cls[10] = Tile.S3.index  # the 2s, seen as a 3s: the hand no longer wins
    probs[10, Tile.S3.index], probs[10, Tile.S2.index] = 0.6, 0.3
    return replace(det, cls=cls, probs=probs)


def missed_tile_detections() -> tuple[Detections, np.ndarray]:
    """``HAND`` with its 5m (#4) not found, and where that tile lies: 13 tiles, no hand as read; the 5m added
    there by the user gives 3 炮 again."""
    det = layout_detections()
    assert int(det.cls[4]) == Tile.M5.index
    keep = np.arange(len(det)) != 4
    return det.subset(keep), det.xyxy[4].copy()


def extra_box_detections() -> Detections:
    """``HAND`` with a faint box read as 9m (#14) against the row's end: 15 tiles standing, scored as the likeliest
    legal hand without it (3 炮)."""
    det = layout_detections()
    x0, y0, x1, y1 = det.xyxy[12]
    probs = np.zeros((1, det.probs.shape[1]), np.float32)
    probs[0, Tile.M9.index] = 0.3
    return Detections(np.vstack([det.xyxy, [[x1, y0, 2 * x1 - x0, y1]]]).astype(np.float32),
                      np.append(det.cls, Tile.M9.index), np.append(det.conf, np.float32(0.3)),
                      np.vstack([det.probs, probs]))


def kong_down_detections() -> Detections:
    """A hand whose concealed 中 kong lies all face down: 4 炮 as guessed, 6 once named 中."""
    return hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD", size=70,
                       center=(WIDTH / 2, HEIGHT / 2), probs=True).detections


def two_kongs_detections() -> Detections:
    """A 明杠 of 9p and a 中 暗杠 laid after it: on 杠上开花 13 炮 as laid (中 just made), 16 once 9p is named."""
    return hand_layout("234m678s5p", "5p", ["kong 9p", "concealed_kong 中"], kong_shown="FDDF", size=70,
                       center=(WIDTH / 2, HEIGHT / 2), probs=True).detections


def kong_lost_face_detections() -> Detections:
    """``two_kongs_detections`` with the 中 kong's first face (#12) not found: its face-down tiles lie uncounted (#12,
    #13) and its other face reads in the row; the 中 added beside them makes the kong again."""
    det = two_kongs_detections()
    assert int(det.cls[12]) == Tile.ZHONG.index and int(det.cls[13]) == BACK_CLASS
    return det.subset(np.arange(len(det)) != 12)


def stray_fa_detections() -> Detections:
    """``HAND`` and a 发 lying on the table below it (#14), counted as a bonus tile: 4 炮, 3 set aside."""
    det = layout_detections()
    box = np.array([[WIDTH / 2 - 200, HEIGHT / 2 + 120, WIDTH / 2 - 150, HEIGHT / 2 + 190]], np.float32)
    probs = np.zeros((1, det.probs.shape[1]), np.float32)
    probs[0, Tile.FA.index] = 0.9
    return Detections(np.vstack([det.xyxy, box]), np.append(det.cls, Tile.FA.index),
                      np.append(det.conf, np.float32(0.9)), np.vstack([det.probs, probs]))


def foreign_fa_detections() -> Detections:
    """``stray_fa_detections`` with the classifier seeing no Xingzi face in the tile below the row (#14):
    a wind read as 发, left out (3 炮) until the user says it is a 发 (4 炮)."""
    det = stray_fa_detections()
    return replace(det, foreign=np.append(np.zeros(len(det) - 1), 0.95).astype(np.float32))


def tray_detections() -> Detections:
    """A claimed pung of 8s laid against the row, no gap, no tile turned: read as standing (17 炮);
    claimed, 12 炮. Tiles #11-13 are the 8s."""
    return hand_layout("22288m66s中中中", "6s", ["pung 8s"], gap=0.0, sideways_at=-1, size=70,
                       center=(WIDTH / 2, HEIGHT / 2), probs=True).detections


def grid_detections(n: int) -> Detections:
    xyxy = np.array([[40 + (i % 10) * 110, 40 + (i // 10) * 160, 120 + (i % 10) * 110, 150 + (i // 10) * 160]
                     for i in range(n)], np.float32).reshape(n, 4)
    cls = np.arange(n, dtype=np.int64) % 27
    return Detections(xyxy, cls, np.full(n, 0.8, np.float32))


def jpeg_bytes(width: int = WIDTH, height: int = HEIGHT) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (50, 120, 40)).save(buf, "JPEG", quality=80)
    return buf.getvalue()
