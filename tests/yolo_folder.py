"""A tiny YOLO-format dataset on disk for tests: images/, labels/ and classes.txt."""

from __future__ import annotations

from pathlib import Path

from PIL import Image


def label_text(rows) -> str:
    """YOLO label/prediction lines, one per row of numbers ('cls cx cy w h [conf]')."""
    return "".join(" ".join(f"{v:g}" for v in r) + "\n" for r in rows)


def write_yolo_folder(root: Path, names: list[str], labels: dict, size: tuple[int, int] = (200, 100)) -> Path:
    """``labels``: image stem -> rows; each image a plain (width, height) = ``size`` PNG."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("\n".join(names) + "\n")
    for k, (stem, rows) in enumerate(labels.items()):  # each photo its own bytes: copies are one photo to a split
        Image.new("RGB", size, (90, 120, 90 + k % 160)).save(root / "images" / f"{stem}.png")
        (root / "labels" / f"{stem}.txt").write_text(label_text(rows))
    return root


def shared_style_folder(root: Path) -> Path:
    """``root/val``: a labelled photo whose class ids a classes.txt in ``root`` names as ../shared/data's does
    (id 30 `other`, where ours is `back`). Returns the ``val`` folder."""
    from xingzi.engine.tiles import CLASS_NAMES

    val = write_yolo_folder(root / "val", [], {"old": [(30, 0.5, 0.5, 0.1, 0.1)]})
    (val / "classes.txt").unlink()
    (root / "classes.txt").write_text("".join(f"{n}\n" for n in [*CLASS_NAMES[:30], "other"]))
    return val
