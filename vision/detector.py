"""The tile detector: a 31-class YOLO11n run through PyTorch (.pt) or ONNX Runtime (.onnx).

Both back ends share the letterbox pre-processing and numpy post-processing of vision/canvas.py, so they return
the same :class:`Detections`, including the per-class scores (``probs``) of every kept box.
NMS is class-agnostic: tiles do not overlap, so two boxes on one tile are one tile read twice.
Ultralytics is imported here only when a ``.pt`` file is loaded.
"""

from __future__ import annotations

import contextlib
import copy
import logging
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from xingzi.engine.tiles import BACK_CLASS
from xingzi.vision.aspect import read_stretched
from xingzi.vision.backs import FAR as BACK_FAR
from xingzi.vision.backs import settle_backs
from xingzi.vision.balance import read_balanced
from xingzi.vision.canvas import canvas_blob, decode, letterbox_canvas
from xingzi.vision.deblur import STREAK_DEPTH, read_unshaken
from xingzi.vision.defocus import DISK_DEPTH
from xingzi.vision.denoise import NOISY, quietened, to_photo
from xingzi.vision.detections import Detections
from xingzi.vision.dfl import HEAD_KEY, STRIDES_KEY, anchor_grid, boxes_from_dfl
from xingzi.vision.edges import MIN_INSIDE, drop_cut_tiles
from xingzi.vision.lone import LONE_CONF, drop_lone_boxes
from xingzi.vision.memo import recall
from xingzi.vision.negative import read_negative, sure_median
from xingzi.vision.photo import imread_any
from xingzi.vision.second import Second, load_second, share
from xingzi.vision.sessions import Session
from xingzi.vision.sharpen import read_sharpened

if TYPE_CHECKING:
    from xingzi.vision.classifier import TileClassifier

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_WEIGHTS = MODELS_DIR / "xingzi_yolo11n.pt"
DEFAULT_ONNX = MODELS_DIR / "xingzi_yolo11n.onnx"
DEFAULT_IMGSZ = 640
MAX_IMGSZ = 4096  # a 4,032-px phone photo at full size; beyond, the network's activations alone need many GB
# A face-down tile is a plain block the model is sure of (held-out synthetic: 5th percentile 0.78);
# a faint `back` is most often a dark stripe or shadow (real photos: 24 of 31 such boxes under 0.5,
# none a tile). Measured in docs/detector.md ("Faint backs").
BACK_CONF = 0.5
# A second opinion: an earlier training stage (stage 5, three art styles) errs elsewhere than the
# shipped one; where the shipped model's sure tiles are read with doubt, both read the same letterbox
# and their raw outputs (same anchors) are averaged before NMS. Measured in docs/detector.md.
DEFAULT_SECOND = MODELS_DIR / "xingzi_yolo11n_s5.onnx"
SECOND_DOUBT = 0.88  # the shipped model's sure-tile median confidence under which the second is asked


def default_weights() -> Path:
    """The shipped ONNX model when present (faster on CPU, no torch import), else the .pt."""
    return DEFAULT_ONNX if DEFAULT_ONNX.is_file() else DEFAULT_WEIGHTS


def load_yolo_checkpoint(path: Path, fuse: bool = True) -> tuple[Any, dict]:
    """The network and checkpoint dict of a YOLO ``.pt`` on the CPU; a ValueError naming the file when it is none."""
    from ultralytics.nn.tasks import load_checkpoint
    from ultralytics.utils import LOGGER

    try:
        with _quiet(LOGGER):
            return load_checkpoint(str(path), device="cpu", fuse=fuse)
    except Exception as e:  # noqa: BLE001 — a file of any bytes: torch and Ultralytics raise many kinds
        why = str(e).replace("ERROR ❌️", "").strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: not a YOLO checkpoint (.pt) that Ultralytics can load: {why}") from None


@contextlib.contextmanager
def _quiet(logger: logging.Logger) -> Iterator[None]:
    """Ultralytics' log held to warnings: fusing logs the model's summary on stdout, which `--json` keeps for the
    answer alone (its handler holds the stdout of import time, past any redirect)."""
    level = logger.level
    logger.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        logger.setLevel(level)


class _TorchBackend:
    def __init__(self, path: Path, threads: int | None) -> None:
        from xingzi.vision.runtime import configure_ultralytics

        configure_ultralytics(threads)
        import torch

        model, ckpt = load_yolo_checkpoint(path)
        self.model = model.float().eval()
        self.torch = torch
        trained = (ckpt.get("train_args") or {}).get("imgsz")
        self.trained_size = trained if isinstance(trained, int) else None
        self.any_size = True  # a network of convolutions: any multiple of the stride

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        with self.torch.inference_mode():
            out = self.model(self.torch.from_numpy(blob))
        out = out[0] if isinstance(out, (list, tuple)) else out
        return out[0].numpy()


class _OnnxBackend:
    def __init__(self, path: Path, threads: int | None, runtime: str | None = None) -> None:
        self.path = path
        self.session = Session(path, threads, runtime)  # OpenVINO in bfloat16 where the CPU has it, else ONNX Runtime
        shape = self.session.input_shape
        if len(shape) == 4 and None not in shape[2:] and shape[2] != shape[3]:
            raise ValueError(f"{path.name}: expected a square input or one of any size, got {shape[2]}x{shape[3]}")
        self.fixed_size = shape[2] if len(shape) == 4 else None
        meta = self.session.metadata
        made = meta.get("imgsz", "").strip("[]").split(",")[0].strip()  # Ultralytics export: "[800, 800]"
        self.trained_size = int(made) if made.isdigit() else None
        self.strides = None  # set for a graph cut before its box decoding (vision/dfl.py)
        self.grids: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        if meta.get(HEAD_KEY) == "dfl":
            self.strides = tuple(int(s) for s in meta.get(STRIDES_KEY, "8,16,32").split(","))

    @property
    def any_size(self) -> bool:
        """Whether the graph takes inputs of any size (``models/onnx_head.py any-size``)."""
        return self.fixed_size is None

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        outputs = self.session.run(blob)
        if self.strides is None:
            return outputs[0][0]
        shape = (blob.shape[2], blob.shape[3])
        if shape not in self.grids:
            self.grids[shape] = anchor_grid(shape, self.strides)
        return boxes_from_dfl(outputs[0][0], outputs[1][0], *self.grids[shape])


def _load_classifier(classifier: str | Path | TileClassifier | None, threads: int | None) -> TileClassifier | None:
    from xingzi.vision.classifier import DEFAULT_CLASSIFIER, TileClassifier

    if isinstance(classifier, TileClassifier):  # built by the caller with settings of its own
        return classifier
    if classifier is None or str(classifier) == "none":
        return None
    if str(classifier) == "auto":
        return TileClassifier(DEFAULT_CLASSIFIER, threads=threads) if DEFAULT_CLASSIFIER.is_file() else None
    return TileClassifier(classifier, threads=threads)


def drop_faint_backs(det: Detections, back_conf: float) -> Detections:
    """The detections without the face-down boxes scored under ``back_conf``."""
    faint = (det.cls == BACK_CLASS) & (det.conf < back_conf)
    return det.subset(~faint) if faint.any() else det


class Detector:
    """Read tiles from BGR photos. ``weights``: a .pt (PyTorch) or .onnx (ONNX Runtime) file.

    ``imgsz`` None runs the model at the size it was made for: a static ONNX graph's input size, the export
    size in an any-size graph's metadata, or the training size stored in a .pt (640 if absent). A static
    ONNX graph always uses its own size.
    ``classifier``: a second-stage tile classifier (.onnx) that re-reads every box
    (:mod:`xingzi.vision.classifier`); "auto" uses the shipped one when it exists, None none.
    ``stretched``: when a photo shows (almost) no tiles, also read it squeezed along each axis, for
    pictures saved with one axis stretched (:mod:`xingzi.vision.aspect`).
    ``negative``: when the tiles found are read with little confidence, also read the photo's negative,
    for dark tiles with light faces (:mod:`xingzi.vision.negative`).
    ``back_conf``: face-down tiles read less surely than this are dropped (0: keep all).
    ``sharpen``: when the tiles found are read with some doubt, also read the photo sharpened, for
    blurred photos (:mod:`xingzi.vision.sharpen`).
    ``second``: an .onnx model of the same shape whose raw output is averaged with this one's where this
    one reads the sure tiles with doubt ("auto": the shipped stage-5 model, beside the shipped model
    only; None: never); several paths are averaged together first, every network counting the same
    (:mod:`xingzi.vision.second`). ``second_doubt``: the sure tiles' median confidence under which it is
    asked (above 1: always).
    ``min_inside``: boxes the photo's frame cuts to less than this share of a whole tile are dropped
    (:mod:`xingzi.vision.edges`; 0: keep all).
    ``lone_conf``: boxes read less surely than this, far from every sure box, are dropped
    (:mod:`xingzi.vision.lone`; 0: keep all).
    ``back_far``: a box read as 白板 whose middle lies farther than this in colour from the photo's plate is
    a face-down tile (:mod:`xingzi.vision.backs`; 0: never).
    ``balance``: when the plate of the tiles found is coloured by the light (a warm bulb), also read the photo
    white-balanced on it (:mod:`xingzi.vision.balance`).
    ``noisy``: a photo whose grain at the model's scale is above this is read smoothed
    (:mod:`xingzi.vision.denoise`; 0: never).
    ``shaken``: a photo whose motion streak at the model's scale is deeper than this is also read with the
    streak taken out, that reading kept when it is the surer (:mod:`xingzi.vision.deblur`; 0: never).
    ``defocused``: a photo without such a streak whose blur disk (out of focus) is deeper than this is also read
    with the disk divided out, on the same terms (:mod:`xingzi.vision.defocus`; 0: never).
    ``fit``: where the networks take inputs of any size, the canvas fits the photo's shape (long side
    ``imgsz``, the short one rounded up to a multiple of 32) instead of a padded square: a 4:3 photo costs
    three quarters of the model's time. False: always the square.
    """

    def __init__(self, weights: str | Path | None = None, imgsz: int | None = None, conf: float = 0.25,
                 iou: float = 0.5, threads: int | None = None,
                 classifier: str | Path | TileClassifier | None = "auto",
                 stretched: bool = True, negative: bool = True, back_conf: float = BACK_CONF,
                 sharpen: bool = True, second: Second = "auto", second_doubt: float = SECOND_DOUBT,
                 min_inside: float = MIN_INSIDE, lone_conf: float = LONE_CONF, back_far: float = BACK_FAR,
                 balance: bool = True, noisy: float = NOISY, shaken: float = STREAK_DEPTH,
                 defocused: float = DISK_DEPTH, fit: bool = True) -> None:
        path = Path(weights) if weights is not None else default_weights()
        if not path.is_file():
            raise FileNotFoundError(f"detector weights not found: {path}")
        if path.suffix not in (".pt", ".onnx"):
            raise ValueError(f"weights must be a .pt or .onnx file, got {path.name!r}")
        if imgsz is not None and (imgsz % 32 or not 32 <= imgsz <= MAX_IMGSZ):
            raise ValueError(f"imgsz must be a multiple of 32 from 32 to {MAX_IMGSZ}, got {imgsz}")
        if back_far < 0 or noisy < 0 or shaken < 0 or defocused < 0:
            raise ValueError(f"back_far, noisy, shaken and defocused must be >= 0, got back_far={back_far}, "
                             f"noisy={noisy}, shaken={shaken}, defocused={defocused}")
        bad = [f"{name} must be in [0, 1], got {v:g}" for name, v in (
            ("conf", conf), ("back_conf", back_conf), ("min_inside", min_inside), ("lone_conf", lone_conf))
            if not 0 <= v <= 1] + ([f"iou must be in (0, 1], got {iou:g}"] if not 0 < iou <= 1 else [])
        if bad:  # only the settings out of range: a user who gave --conf 5 reads of conf alone
            raise ValueError("; ".join(bad))
        self.weights = path
        self.backend = _OnnxBackend(path, threads) if path.suffix == ".onnx" else _TorchBackend(path, threads)
        fixed = getattr(self.backend, "fixed_size", None)
        self.imgsz: int = fixed or imgsz or getattr(self.backend, "trained_size", None) or DEFAULT_IMGSZ
        self.conf, self.iou = conf, iou
        self.classifier = _load_classifier(classifier, threads)
        self.stretched, self.negative = stretched, negative
        self.back_conf, self.sharpen = back_conf, sharpen
        if not second_doubt >= 0:  # NaN too: it would never ask
            raise ValueError(f"second_doubt must be >= 0 (above 1: always asked), got {second_doubt}")
        self.second = load_second(second, threads, path, self.imgsz)
        self.second_doubt = second_doubt
        self.min_inside, self.lone_conf = min_inside, lone_conf
        self.back_far, self.balance, self.noisy, self.shaken = back_far, balance, noisy, shaken
        self.defocused = defocused
        self.fit = fit and getattr(self.backend, "any_size", False) and (self.second is None or self.second.any_size)

    def predict(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        """The tiles of a BGR photo. ``ask_second``: average the second opinion in (when there is one)
        however surely the photo is read (the caller found the usual reading wanting)."""
        picture = quietened(image, self.imgsz, self.noisy)  # a grainy photo: shrunk and quietened
        det = to_photo(self._predict(picture, ask_second), picture.shape, image.shape)
        if picture is image:  # a streak under grain is not found, and its copy would sharpen the grain: one or other
            det = read_unshaken(partial(self._predict, ask_second=ask_second), image, det, self.imgsz, self.shaken,
                                self.defocused)
        return det

    def _predict(self, image: np.ndarray, ask_second: bool) -> Detections:
        read, detect = partial(self.read, ask_second=ask_second), partial(self.detect, ask_second=ask_second)
        refine = None if self.classifier is None else self.classifier.refine
        first = read(image)
        first = read_stretched(detect, image, first, refine) if self.stretched else first
        # the negative's boxes; the classifier reads each also in the photo itself and keeps the surer face
        as_negative = partial(self.read, ask_second=ask_second, also=image)
        det, picture = (read_negative(as_negative, image, first) if self.negative else first), image
        if det is first:  # a kept negative is a reading of another picture: not compared
            det, picture = read_balanced(read, image, det) if self.balance else (det, image)
            det = read_sharpened(read, picture, det) if self.sharpen else det
        # a settled back is kept; its colour is judged in the picture read (balanced under a coloured light)
        det = settle_backs(picture, drop_faint_backs(det, self.back_conf), self.back_far)
        whole = drop_cut_tiles(det, image.shape, self.min_inside)
        return drop_lone_boxes(whole, self.lone_conf)

    def read(self, image: np.ndarray, ask_second: bool = False, also: np.ndarray | None = None) -> Detections:
        """One model call on the image as it is, then the classifier if there is one (reading each box in
        ``also`` too, another picture of the same geometry, where that is the surer: ``TileClassifier.refine``)."""
        det = self.detect(image, ask_second)
        return det if self.classifier is None else self.classifier.refine(image, det, also)

    def detect(self, image: np.ndarray, ask_second: bool = False) -> Detections:
        """The model's boxes for the image as it is (no second stage); with the second opinion averaged
        in where the reading is doubtful, or always with ``ask_second``."""
        canvas, scale, pad = self.letterboxed(image)
        blob = canvas_blob(canvas)
        raw = recall(self.backend, canvas, lambda: [self.backend(blob)])[0]  # a photo read twice: vision/memo.py
        det = None if ask_second else decode(raw, scale, pad, image.shape[:2], self.conf, self.iou)
        second = self.second
        if second is not None and (det is None or sure_median(det)[1] < self.second_doubt):
            w = share(second)
            raw = (1 - w) * raw + w * recall(second, canvas, lambda: [second(blob)])[0]
            det = None  # decoded once, below, from the averaged output
        return det if det is not None else decode(raw, scale, pad, image.shape[:2], self.conf, self.iou)

    def at_conf(self, conf: float) -> Detector:
        """This detector reporting boxes from ``conf`` up: the same networks (their answers for a photo already
        read are recalled), only the threshold differs."""
        if not 0 < conf <= 1:
            raise ValueError(f"conf must be in (0, 1], got {conf}")
        other = copy.copy(self)
        other.conf = conf
        return other

    def letterboxed(self, image: np.ndarray) -> tuple[np.ndarray, float, tuple[int, int]]:
        """The canvas this detector feeds its networks for ``image`` (fitted or square), its scale and padding."""
        return letterbox_canvas(image, self.imgsz, self.fit)

    def predict_paths(self, paths: Iterable[str | Path]) -> list[Detections]:
        out = []
        for p in paths:
            image = imread_any(p)
            if image is None:
                raise ValueError(f"cannot read image {p}")
            out.append(self.predict(image))
        return out
