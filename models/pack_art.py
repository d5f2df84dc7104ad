"""Pack the tile-face art packs small enough to travel with the real photos to a lent GPU.

Without them the synthetic photos generated there use only the vendored styles (procedural and
two packs), and the art packs the detector reads worst never reach GPU training. The generator
draws each face at 192x256 (`datasets/synth/faces.py`), so each face is cropped to its visible
part, fitted into that size and kept as WebP with its alpha (lossless when the art is smaller than
that): about 2 MiB for all packs, against 11 MiB of PNG; licence files travel beside. On the machine, ``--unpack`` turns them back into
the PNG packs the generator reads, under a folder that ``XINGZI_ART`` then names.

    python -m xingzi.models.pack_art --out .devdata            # here: .devdata/art.tar.gz
    python -m xingzi.models.pack_art --unpack .devdata/art.tar.gz --out /tmp/xingzi_art   # there
"""

from __future__ import annotations

import argparse
import shutil
import tarfile
import tempfile
from pathlib import Path

from PIL import Image

from xingzi.datasets.synth.faces import FACE_H, FACE_W, shared_art_dir

FIT = (FACE_W * 2, FACE_H * 2)  # the size the generator draws a face at
QUALITY = 90
VISIBLE_ALPHA = 16  # the generator's own crop threshold


def shrink_face(src: Path, dst: Path) -> None:
    """One face PNG -> WebP cropped to its visible part and fitted into ``FIT``."""
    with Image.open(src) as im:
        im.load()
        face = im.convert("RGBA")
    bbox = face.getchannel("A").point(lambda a: 255 if a > VISIBLE_ALPHA else 0).getbbox()
    if bbox:
        face = face.crop(bbox)
    if face.width <= FIT[0] and face.height <= FIT[1]:  # small art: lossy WebP would blur it, and it is small
        face.save(dst, "WEBP", lossless=True, method=6)
    else:
        face.thumbnail(FIT, Image.Resampling.LANCZOS)
        face.save(dst, "WEBP", quality=QUALITY, method=6)


def pack_art(src: Path, out: Path) -> Path:
    """Every pack under ``src`` (a folder per pack with ``1m.png`` …) -> ``out/art.tar.gz``."""
    packs = sorted(d for d in src.iterdir() if d.is_dir() and (d / "1m.png").is_file())
    if not packs:
        raise FileNotFoundError(f"no art packs (folders with 1m.png) under {src}")
    out.mkdir(parents=True, exist_ok=True)
    packed = out / "art.tar.gz"
    with tempfile.TemporaryDirectory() as tmp:
        for pack in packs:
            (Path(tmp) / pack.name).mkdir()
            for f in sorted(pack.iterdir()):
                if f.suffix == ".png":
                    shrink_face(f, Path(tmp) / pack.name / f"{f.stem}.webp")
                elif f.is_file():  # licence and notice files stay with the art
                    shutil.copy2(f, Path(tmp) / pack.name / f.name)
        with tarfile.open(packed, "w:gz") as tar:
            for pack in packs:
                tar.add(Path(tmp) / pack.name, arcname=pack.name)
    return packed


def unpack_art(packed: Path, out: Path) -> list[str]:
    """``art.tar.gz`` -> PNG packs under ``out``; returns the pack names."""
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(packed) as tar:
        tar.extractall(tmp, filter="data")
        names = []
        for pack in sorted(d for d in Path(tmp).iterdir() if d.is_dir()):
            (out / pack.name).mkdir(parents=True, exist_ok=True)
            for f in pack.iterdir():
                if f.suffix == ".webp":
                    with Image.open(f) as im:
                        im.save(out / pack.name / f"{f.stem}.png")
                else:
                    shutil.copy2(f, out / pack.name / f.name)
            if (out / pack.name / "1m.png").is_file():
                names.append(pack.name)
    if not names:
        raise ValueError(f"expected art packs (folders with 1m.webp) in {packed}, found none")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--art", type=Path, default=None, help="art folder (default: ../shared/art)")
    ap.add_argument("--out", type=Path, default=Path(".devdata"))
    ap.add_argument("--unpack", type=Path, default=None, help="an art.tar.gz to turn back into PNG packs")
    args = ap.parse_args(argv)
    if args.unpack is not None:
        names = unpack_art(args.unpack, args.out)
        print(f"{args.out}: {len(names)} packs: {' '.join(names)}")
        return 0
    src = args.art or shared_art_dir()
    if src is None:
        ap.error("no art folder: give --art or set XINGZI_ART")
    packed = pack_art(src, args.out)
    print(f"{packed}: {packed.stat().st_size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
