"""The art packs shrunk to travel to a GPU machine draw the same faces once unpacked."""

from __future__ import annotations

import tarfile

import numpy as np
import pytest

from xingzi.datasets.synth.faces import VENDORED_ART, _pack_face
from xingzi.engine.tiles import TILES
from xingzi.models.pack_art import pack_art, unpack_art

PLATE = (232, 242, 246)


def test_packed_art_draws_the_same_faces(tmp_path):
    packed = pack_art(VENDORED_ART, tmp_path / "out")
    names = unpack_art(packed, tmp_path / "art")
    originals = sorted(d.name for d in VENDORED_ART.iterdir() if (d / "1m.png").is_file())
    assert names == originals
    for name in names:
        for t in TILES:
            src = VENDORED_ART / name / f"{t.value}.png"
            if not src.exists():
                continue
            before = _pack_face(src, PLATE).astype(np.int16)
            after = _pack_face(tmp_path / "art" / name / f"{t.value}.png", PLATE).astype(np.int16)
            assert before.shape == after.shape
            assert np.abs(before - after).mean() < 3.0, (name, t.value)
        # licence files travel with the art
        assert {p.name for p in (VENDORED_ART / name).iterdir() if p.suffix != ".png"} <= {
            p.name for p in (tmp_path / "art" / name).iterdir()
        }


def test_packing_a_folder_without_packs_is_a_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no art packs"):
        pack_art(tmp_path / "empty", tmp_path / "out")


def test_unpacking_a_tarball_without_packs_is_a_clear_error(tmp_path):
    (tmp_path / "notes.txt").write_text("not art")
    with tarfile.open(tmp_path / "art.tar.gz", "w:gz") as tar:
        tar.add(tmp_path / "notes.txt", arcname="notes.txt")
    with pytest.raises(ValueError, match="expected art packs"):
        unpack_art(tmp_path / "art.tar.gz", tmp_path / "art")
