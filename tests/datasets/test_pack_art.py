"""The art packs shrunk to travel to a GPU machine draw the same faces once unpacked."""

from __future__ import annotations

import tarfile

import numpy as np
import pytest
from PIL import Image

from xingzi.datasets.synth.faces import VENDORED_ART, _pack_face
from xingzi.engine.tiles import TILES
from xingzi.models import pack_art as packing
from xingzi.models.pack_art import FIT, pack_art, shrink_face, unpack_art

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


def _face(path, size, margin, alpha=255):
    """A face drawn inside a transparent margin: a red plate with a dark stroke."""
    im = Image.new("RGBA", (size[0] + 2 * margin, size[1] + 2 * margin), (0, 0, 0, 0))
    plate = Image.new("RGBA", size, (200, 30, 30, alpha))
    plate.paste((20, 20, 20, alpha), (size[0] // 3, 0, size[0] // 3 + 8, size[1]))
    im.paste(plate, (margin, margin))
    im.save(path)
    return path


@pytest.mark.parametrize("size,lossless", [pytest.param((150, 200), True, id="small-kept-as-it-is"),
                                           pytest.param((900, 1200), False, id="large-fitted"),
                                           pytest.param((900, 150), False, id="wide-fitted")])
def test_a_face_is_cropped_to_what_shows_and_fitted_into_what_the_generator_draws(tmp_path, size, lossless):
    shrink_face(_face(tmp_path / "1m.png", size, margin=40), tmp_path / "1m.webp")
    with Image.open(tmp_path / "1m.webp") as im:
        assert im.format == "WEBP"
        w, h = im.size
        face = np.asarray(im.convert("RGBA"))  # (an opaque face is stored without alpha)
    assert w <= FIT[0] and h <= FIT[1]  # fitted
    scale = min(1.0, FIT[0] / size[0], FIT[1] / size[1])
    assert abs(w - size[0] * scale) <= 1 and abs(h - size[1] * scale) <= 1  # cropped to the face, then fitted
    assert face[..., 3].min() > 200  # the transparent margin is gone
    if lossless:
        assert np.array_equal(face[h // 2, : w // 3, :3], np.tile([200, 30, 30], (w // 3, 1)))


def test_a_faint_shadow_is_no_part_of_the_face(tmp_path):
    im = Image.new("RGBA", (300, 300), (0, 0, 0, 0))
    im.paste((0, 0, 0, packing.VISIBLE_ALPHA), (0, 0, 300, 300))  # a shadow just at the threshold
    im.paste((200, 30, 30, 255), (100, 100, 200, 220))
    im.save(tmp_path / "1m.png")
    shrink_face(tmp_path / "1m.png", tmp_path / "1m.webp")
    with Image.open(tmp_path / "1m.webp") as out:
        assert out.size == (100, 120)


def test_the_command_packs_and_unpacks_and_needs_an_art_folder(tmp_path, capsys, monkeypatch):
    assert packing.main(["--art", str(VENDORED_ART), "--out", str(tmp_path / "out")]) == 0
    assert "art.tar.gz: " in capsys.readouterr().out
    assert packing.main(["--unpack", str(tmp_path / "out" / "art.tar.gz"), "--out", str(tmp_path / "art")]) == 0
    names = sorted(d.name for d in VENDORED_ART.iterdir() if (d / "1m.png").is_file())
    assert capsys.readouterr().out.strip() == f"{tmp_path / 'art'}: {len(names)} packs: {' '.join(names)}"
    monkeypatch.setattr(packing, "shared_art_dir", lambda: None)
    with pytest.raises(SystemExit) as stop:
        packing.main(["--out", str(tmp_path / "none")])
    assert stop.value.code == 2 and "no art folder: give --art or set XINGZI_ART" in capsys.readouterr().err
