"""Make an exported detector ONNX faster on the CPU: cut it before its box decoding, let it take any size, int8.

    python -m xingzi.models.onnx_head cut EXPORT.onnx CUT.onnx      # an Ultralytics export, as `xingzi train --ship`
    python -m xingzi.models.onnx_head int8 CUT.onnx INT8.onnx --photos ../shared/data/real_cn_train/images
    python -m xingzi.models.onnx_head any-size CUT.onnx ANY.onnx   # or INT8.onnx: int8 needs the fixed size first

``cut``: the graph ends at the head's side-distance logits and class scores; the decoding (a softmax
over 16 bins that ONNX Runtime runs slowly) is done in numpy by ``vision/dfl.py``, with the same
result. Metadata records it, so ``Detector`` reads either kind of file. ``any-size``: a static export
takes any input of multiples of 32 (the attention block's reshapes, which bake in the grid at the
export size, are made to follow the input), so a 4:3 photo is read on an 800×608 canvas rather than
padded to 800×800 (docs/detector.md, "A canvas the photo's shape"). ``int8``: static quantization
(ONNX Runtime, QDQ, weights per channel), calibrated on letterboxed photos; measured before shipping
(docs/detector.md, "A faster model call").
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xingzi.vision.dfl import HEAD_KEY, STRIDES_KEY, strides_for

# What the export says of itself (Ultralytics writes itself as the author and names the training run's temporary
# data file), said of the shipped file instead: the card carries the data, licences and attribution.
PROVENANCE = {
    "author": "xingzi contributors",
    "description": "xingzi tile detector: YOLO11n, 31 classes (30 Xingzi faces and back); data, start weights and "
                   "attribution in models/MODEL_CARD.md",
    "license": "AGPL-3.0-or-later",
}

if TYPE_CHECKING:
    import onnx

CALIBRATION_PHOTOS = 64
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


def load_graph(src: Path) -> onnx.ModelProto:
    """``src`` read as an ONNX model; ValueError when it is not one."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        return onnx.load(str(src))
    except DecodeError as e:
        raise ValueError(f"{src}: expected an ONNX model, the file does not read as one ({e})") from None


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

    model = load_graph(src)
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
        cut_model.metadata_props.add(key=prop.key, value=PROVENANCE.get(prop.key, prop.value))
    cut_model.metadata_props.add(key=HEAD_KEY, value="dfl")
    cut_model.metadata_props.add(key=STRIDES_KEY, value=",".join(map(str, strides)))
    onnx.checker.check_model(cut_model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(cut_model, str(dst))
    return dst


def any_size(src: Path, dst: Path) -> Path:
    """Write ``src`` to ``dst`` taking any input height and width that are multiples of its largest stride.

    A static export bakes the grid into the reshapes of YOLO11's attention block (e.g. [1, 2, 128, 625]
    and [1, 128, 25, 25] at 800 px): a flattened grid becomes -1, a (rows, columns) pair is taken from
    the input's own shape divided by that stride. Every other node already follows its input.
    """
    import onnx
    from onnx import helper, numpy_helper

    model = load_graph(src)
    graph = model.graph
    dims = graph.input[0].type.tensor_type.shape.dim
    if len(dims) != 4 or not (dims[2].dim_value and dims[3].dim_value):
        raise ValueError(f"{src}: expected a graph with a fixed (1, 3, H, W) input, got "
                         f"{[d.dim_value or d.dim_param for d in dims]}")
    height, width = dims[2].dim_value, dims[3].dim_value
    consts = {i.name: i for i in graph.initializer}
    consts.update({n.output[0]: n.attribute[0].t for n in graph.node if n.op_type == "Constant"})
    image = graph.input[0].name
    changed, added = 0, []
    for node in list(graph.node):
        if node.op_type != "Reshape" or node.input[1] not in consts:
            continue
        target = numpy_helper.to_array(consts[node.input[1]]).astype(np.int64)
        stride = next((s for s in (8, 16, 32, 64) if target.size == 4 and
                       tuple(target[2:]) == (height // s, width // s)), None)
        if stride is not None:  # (batch, channels, rows, columns): rows and columns from the input
            prefix = node.name + "/any_size"
            added += [
                helper.make_node("Constant", [], [prefix + "/lead"], value=numpy_helper.from_array(target[:2])),
                helper.make_node("Constant", [], [prefix + "/stride"],
                                 value=numpy_helper.from_array(np.array([stride], np.int64))),
                helper.make_node("Shape", [image], [prefix + "/shape"], start=2, end=4),
                helper.make_node("Div", [prefix + "/shape", prefix + "/stride"], [prefix + "/grid"]),
                helper.make_node("Concat", [prefix + "/lead", prefix + "/grid"], [prefix + "/target"], axis=0),
            ]
            node.input[1] = prefix + "/target"
            changed += 1
        elif any(target[-1] == (height // s) * (width // s) for s in (8, 16, 32, 64)) and -1 not in target:
            flat = target.copy()
            flat[-1] = -1  # the flattened grid: whatever the input's size makes it
            name = node.name + "/any_size_target"
            added.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(flat)))
            node.input[1] = name
            changed += 1
    if not changed:
        raise ValueError(f"{src}: no reshape tied to the {height}x{width} input found; nothing to change")
    for node in reversed(added):  # constants first: the graph stays topologically sorted
        graph.node.insert(0, node)
    used = {name for n in graph.node for name in n.input}
    for node in [n for n in graph.node if n.op_type == "Constant" and n.output[0] not in used]:
        graph.node.remove(node)  # the baked shapes, now unused
    for init in [i for i in graph.initializer if i.name not in used]:
        graph.initializer.remove(init)
    dims[2].dim_param, dims[3].dim_param = "height", "width"
    for out in graph.output:
        last = out.type.tensor_type.shape.dim[-1]
        last.dim_param = "anchors"
    del graph.value_info[:]
    onnx.checker.check_model(model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    return dst


def calibration_photos(folder: Path, n: int, seed: int = 0) -> list[Path]:
    photos = sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)
    if not photos:
        raise FileNotFoundError(f"no photos (.jpg/.png) under {folder}")
    random.Random(seed).shuffle(photos)
    return photos[:n]


def int8(src: Path, dst: Path, photos: list[Path]) -> Path:
    """Static int8 quantization of a cut graph, calibrated on ``photos`` letterboxed as the detector does."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from xingzi.vision.canvas import letterbox
    from xingzi.vision.photo import imread_any

    model = load_graph(src)
    if not any(p.key == HEAD_KEY for p in model.metadata_props):
        raise ValueError(f"{src}: cut the graph first (its box decoding does not survive int8)")
    name = model.graph.input[0].name
    dims = model.graph.input[0].type.tensor_type.shape.dim
    size = dims[2].dim_value
    if not (size and dims[3].dim_value):  # the quantizer infers every tensor's shape from a fixed input
        raise ValueError(f"{src}: expected a graph of fixed input size (quantize the cut graph, then `any-size` "
                         "its int8 copy), got one that takes any size")

    class Photos(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(photos)

        def get_next(self) -> dict[str, np.ndarray] | None:
            path = next(self.left, None)
            if path is None:
                return None
            image = imread_any(path)
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
    a = sub.add_parser("any-size", help="let a static export take any input size (multiples of 32)")
    a.add_argument("src", type=Path)
    a.add_argument("dst", type=Path)
    q = sub.add_parser("int8", help="static int8 quantization of a cut graph")
    q.add_argument("src", type=Path)
    q.add_argument("dst", type=Path)
    q.add_argument("--photos", type=Path, required=True, help="folder of calibration photos")
    q.add_argument("--n", type=int, default=CALIBRATION_PHOTOS)
    args = ap.parse_args(argv)
    try:
        if args.step == "cut":
            written = cut(args.src, args.dst)
        elif args.step == "any-size":
            written = any_size(args.src, args.dst)
        else:
            written = int8(args.src, args.dst, calibration_photos(args.photos, args.n))
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"written {written}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
