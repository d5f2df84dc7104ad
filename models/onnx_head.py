"""Make an exported detector ONNX faster on the CPU: cut it before its box decoding, optionally int8.

    python -m xingzi.models.onnx_head cut models/xingzi_yolo11n.onnx OUT.onnx
    python -m xingzi.models.onnx_head int8 OUT.onnx OUT_int8.onnx --photos ../shared/data/real_cn_train/images

``cut``: the graph ends at the head's side-distance logits and class scores; the decoding (a softmax
over 16 bins that ONNX Runtime runs slowly) is done in numpy by ``vision/dfl.py``, with the same
result. Metadata records it, so ``Detector`` reads either kind of file. ``int8``: static quantization
(ONNX Runtime, QDQ, weights per channel), calibrated on letterboxed photos; measured before shipping
(docs/detector.md, "A faster model call").
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xingzi.vision.dfl import HEAD_KEY, STRIDES_KEY, strides_for

if TYPE_CHECKING:
    import onnx

CALIBRATION_PHOTOS = 64
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


def head_tensors(model: onnx.ModelProto) -> tuple[str, str]:
    """Names of the DFL logits and the class scores in an Ultralytics detect export."""
    nodes = list(model.graph.node)
    dfl = [n for n in nodes if n.name.endswith("/dfl/Reshape") and n.op_type == "Reshape"]
    out = model.graph.output[0].name if len(model.graph.output) == 1 else None
    last = [n for n in nodes if out in n.output and n.op_type == "Concat" and len(n.input) == 2]
    if len(dfl) != 1 or len(last) != 1:
        raise ValueError("expected an Ultralytics YOLO detect export (one output, a DFL block, boxes and "
                         "scores concatenated last); this graph is not one")
    return dfl[0].input[0], last[0].input[1]


def cut(src: Path, dst: Path) -> Path:
    """Write ``src`` without its box decoding to ``dst`` (outputs: DFL logits, class scores)."""
    import onnx
    from onnx.utils import extract_model

    model = onnx.load(str(src))
    if any(p.key == HEAD_KEY for p in model.metadata_props):
        raise ValueError(f"{src} is already cut before its box decoding")
    logits, scores = head_tensors(model)
    size = model.graph.input[0].type.tensor_type.shape.dim[2].dim_value
    anchors = model.graph.output[0].type.tensor_type.shape.dim[2].dim_value
    strides = strides_for(anchors, size)
    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / "part.onnx"
        extract_model(str(src), str(part), [model.graph.input[0].name], [logits, scores])
        cut_model = onnx.load(str(part))
    for prop in model.metadata_props:
        cut_model.metadata_props.add(key=prop.key, value=prop.value)
    cut_model.metadata_props.add(key=HEAD_KEY, value="dfl")
    cut_model.metadata_props.add(key=STRIDES_KEY, value=",".join(map(str, strides)))
    onnx.checker.check_model(cut_model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(cut_model, str(dst))
    return dst


def calibration_photos(folder: Path, n: int, seed: int = 0) -> list[Path]:
    photos = sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)
    if not photos:
        raise FileNotFoundError(f"no photos (.jpg/.png) under {folder}")
    random.Random(seed).shuffle(photos)
    return photos[:n]


def int8(src: Path, dst: Path, photos: list[Path]) -> Path:
    """Static int8 quantization of a cut graph, calibrated on ``photos`` letterboxed as the detector does."""
    import cv2
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from xingzi.vision.detector import letterbox

    model = onnx.load(str(src))
    if not any(p.key == HEAD_KEY for p in model.metadata_props):
        raise ValueError(f"{src}: cut the graph first (its box decoding does not survive int8)")
    name = model.graph.input[0].name
    size = model.graph.input[0].type.tensor_type.shape.dim[2].dim_value

    class Photos(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(photos)

        def get_next(self) -> dict[str, np.ndarray] | None:
            path = next(self.left, None)
            if path is None:
                return None
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"cannot read calibration photo {path}")
            return {name: letterbox(image, size)[0]}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(src), str(prepared))
        quantize_static(str(prepared), str(dst), Photos(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    return dst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    c = sub.add_parser("cut", help="cut the graph before its box decoding")
    c.add_argument("src", type=Path)
    c.add_argument("dst", type=Path)
    q = sub.add_parser("int8", help="static int8 quantization of a cut graph")
    q.add_argument("src", type=Path)
    q.add_argument("dst", type=Path)
    q.add_argument("--photos", type=Path, required=True, help="folder of calibration photos")
    q.add_argument("--n", type=int, default=CALIBRATION_PHOTOS)
    args = ap.parse_args(argv)
    if args.step == "cut":
        print(f"written {cut(args.src, args.dst)}")
    else:
        print(f"written {int8(args.src, args.dst, calibration_photos(args.photos, args.n))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
