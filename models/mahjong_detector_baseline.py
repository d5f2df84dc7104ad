"""Write the predictions of the ``mahjong-detector`` package (YOLO11n, 34 riichi classes) as YOLO txt
files, so ``xingzi eval --preds`` scores it with the same scorer as our model.

Pre-processing follows the package (grey, autocontrast, letterbox 640 on black); boxes are kept down to
conf 0.001 for AP, with class-agnostic NMS like our detector. ``classes.txt`` in the output names the
riichi classes; ``xingzi eval`` maps them by name (winds are ignored).

    python -m xingzi.models.mahjong_detector_baseline IMAGES_DIR OUT_DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from xingzi.datasets.yolo import atomic_write_text, format_labels, image_files
from xingzi.models.convert_mahjong_detector import RIICHI_NAMES, onnx_model_path
from xingzi.vision.canvas import nms

SIZE = 640


def preprocess(path: Path) -> tuple[np.ndarray, float, tuple[int, int], tuple[int, int]]:
    from PIL import Image, ImageOps

    with Image.open(path) as im:
        grey = ImageOps.autocontrast(im.convert("L"))
    w, h = grey.size
    scale = SIZE / max(w, h)
    sw, sh = int(w * scale), int(h * scale)
    canvas = Image.new("L", (SIZE, SIZE), 0)
    px, py = (SIZE - sw) // 2, (SIZE - sh) // 2
    canvas.paste(grey.resize((sw, sh), Image.Resampling.BILINEAR), (px, py))
    arr = np.asarray(canvas, np.float32)[None, None].repeat(3, axis=1) / 255.0
    return arr, scale, (px, py), (w, h)


def predict_rows(session, path: Path, conf: float, iou: float) -> np.ndarray:
    blob, scale, (px, py), (w, h) = preprocess(path)
    raw = session.run(None, {session.get_inputs()[0].name: blob})[0][0]
    scores = raw[4:].T
    best = scores.max(axis=1)
    sel = np.flatnonzero(best >= conf)
    sel = sel[np.argsort(-best[sel])][:3000]
    cx, cy, bw, bh = raw[:4, sel]
    xyxy = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
    keep = nms(xyxy, best[sel], iou)[:300]
    rows = []
    for k in keep:
        x1, y1, x2, y2 = xyxy[k]
        x1, x2 = np.clip([(x1 - px) / scale, (x2 - px) / scale], 0, w)
        y1, y2 = np.clip([(y1 - py) / scale, (y2 - py) / scale], 0, h)
        rows.append([scores[sel[k]].argmax(), (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h,
                     best[sel[k]]])
    return np.array(rows, np.float64).reshape(-1, 6)


def write_predictions(images_dir: Path, out_dir: Path, conf: float = 0.001, iou: float = 0.5) -> int:
    import onnxruntime as ort

    session = ort.InferenceSession(str(onnx_model_path()), providers=["CPUExecutionProvider"])
    images = image_files(images_dir)
    if not images:
        raise FileNotFoundError(f"no images under {images_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out_dir / "classes.txt", "\n".join(RIICHI_NAMES) + "\n")
    for p in images:
        atomic_write_text(out_dir / f"{p.stem}.txt", format_labels(predict_rows(session, p, conf, iou)))
    return len(images)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("images", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--conf", type=float, default=0.001)
    args = ap.parse_args(argv)
    try:
        n = write_predictions(args.images, args.out, args.conf)
    except (ValueError, FileNotFoundError) as e:  # no package, no images: said in a line, as the CLI does
        print(f"mahjong_detector_baseline: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote predictions for {n} images to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
