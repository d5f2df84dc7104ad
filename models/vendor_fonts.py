"""Re-create the fonts Ultralytics and the eval plots need, from system fonts (run once, commit the result).

Arial.ttf ← DejaVu Sans (Bitstream Vera / DejaVu licence); Arial.Unicode.ttf ← WenQuanYi Micro Hei
cut to ASCII plus the Chinese needed for tile names and plot labels (Apache-2.0).

    python -m xingzi.models.vendor_fonts
"""

from __future__ import annotations

import shutil
from pathlib import Path

from xingzi.engine.tiles import CLASS_NAMES_CN

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
WQY = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
EXTRA_CN = "一二三四五六七八九万萬筒条索中发發白板红紅财財背面景东南西北風风预测真值图片准确率召回炮胡杠碰吃≥≤·"
FONT_DIR = Path(__file__).resolve().parent / "ultralytics_config" / "Ultralytics"


def subset_cjk(src: Path, dst: Path, text: str) -> None:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(src), fontNumber=0)
    opts = subset.Options()
    opts.layout_features = []
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    sub = subset.Subsetter(opts)
    sub.populate(text=text)
    sub.subset(font)
    font.save(str(dst))


def main() -> int:
    FONT_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DEJAVU, FONT_DIR / "Arial.ttf")
    text = "".join(chr(c) for c in range(0x20, 0x7F)) + "".join(CLASS_NAMES_CN) + EXTRA_CN
    subset_cjk(WQY, FONT_DIR / "Arial.Unicode.ttf", "".join(sorted(set(text))))
    print(f"fonts written to {FONT_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
