"""``xingzi train``: fine-tune the tile detector, resume it, or ship a checkpoint."""

from __future__ import annotations

import argparse
import math
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None,
                        help="data.yaml, or a folder holding one (default: build the real_cn view under ./runs/data "
                             "and use it)")
    parser.add_argument("--extra-train", type=Path, nargs="*", default=[],
                        help="more train image dirs (e.g. synthetic) added to the default real_cn view")
    parser.add_argument("--model", default=None,
                        help="start weights (.pt) or a model yaml (default: the shipped detector, "
                             "models/xingzi_yolo11n.pt; 'mahjong-detector': that package's network converted to our "
                             "31 classes, where the first runs began)")
    parser.add_argument("--imgsz", type=int, default=416)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=None, help="default 16 on CPU, 64 on a GPU")
    parser.add_argument("--workers", type=int, default=None, help="data loader processes (default 2 CPU, 8 GPU)")
    parser.add_argument("--close-mosaic", type=int, default=10, help="last N epochs without mosaic")
    parser.add_argument("--leave-loose", type=float, default=None, metavar="IOU",
                        help="without --data: leave out the training photos' augmented copies whose boxes overlap "
                             "each other at a median IoU over this (0.3 leaves 331 of 1,800; the tightest copy of each "
                             "photo stays; python -m xingzi.datasets.loose_boxes)")
    parser.add_argument("--lr0", type=float, default=0.02)
    parser.add_argument("--warmup-epochs", type=float, default=0.3)
    parser.add_argument("--freeze", type=int, default=10, help="freeze the first N layers (0: none)")
    parser.add_argument("--time", type=float, default=None,
                        help="training budget in hours: the epochs and LR schedule are fitted to it")
    parser.add_argument("--device", default=None, help="cpu, 0, 0,1 ... (default: GPU if there is one)")
    parser.add_argument("--bf16", action="store_true",
                        help="train on the CPU in bfloat16 (about 2x faster where the CPU has AVX-512 BF16 or AMX)")
    parser.add_argument("--name", default="real416",
                        help="run name under ./runs/train (runs/ of the current folder, as `xingzi eval` writes "
                             "./runs/eval)")
    parser.add_argument("--resume", nargs="?", const="latest", default=None, metavar="RUN_DIR_OR_PT",
                        help="continue a run from its weights/last.pt or a copied last.pt (default: the newest run "
                             "under ./runs/train); "
                             "a missing data view is rebuilt with --extra-train")
    parser.add_argument("--ship", type=Path, default=None, metavar="RUN_DIR_OR_PT",
                        help="copy best.pt of a run (or a .pt, or 'best': the run under ./runs/train with the "
                             "highest val mAP50-95) to models/ (stripped) and export ONNX")


def check_numbers(args: argparse.Namespace) -> None:
    """Every number of a training checked before any work: Ultralytics would train on some nonsense (an image size
    of 0, a negative budget or freeze) and stop on the rest only after building the data view."""
    from xingzi.vision.detector import MAX_IMGSZ

    if args.imgsz % 32 or not 32 <= args.imgsz <= MAX_IMGSZ:
        raise ValueError(f"--imgsz must be a multiple of 32 from 32 to {MAX_IMGSZ}, got {args.imgsz}")
    wholes = {"--epochs": (args.epochs, 1), "--batch": (args.batch, 1), "--workers": (args.workers, 0),
              "--close-mosaic": (args.close_mosaic, 0), "--freeze": (args.freeze, 0)}
    for flag, (value, least) in wholes.items():
        if value is not None and value < least:
            raise ValueError(f"{flag} must be at least {least}, got {value}")
    if not (math.isfinite(args.lr0) and 0 < args.lr0 <= 1):
        raise ValueError(f"--lr0 must be a learning rate above 0 and at most 1, got {args.lr0}")
    if not (math.isfinite(args.warmup_epochs) and args.warmup_epochs >= 0):
        raise ValueError(f"--warmup-epochs must be 0 or more, got {args.warmup_epochs}")
    if args.time is not None and not (math.isfinite(args.time) and args.time > 0):
        raise ValueError(f"--time must be a budget in hours above 0, got {args.time}")


def check_start_model(path: Path) -> None:
    """A model .yaml (from scratch) or a checkpoint Ultralytics can load; else a line saying so, not a traceback."""
    if path.suffix in (".yaml", ".yml"):
        return  # a model name Ultralytics knows (yolo11n.yaml) or a file of its own: it says which is wrong
    if not path.is_file():
        raise ValueError(f"--model: start weights not found: {path}")
    if path.suffix != ".pt":
        raise ValueError(f"--model: expected start weights (.pt) or a model .yaml, got {path}")
    from xingzi.vision.detector import load_yolo_checkpoint
    from xingzi.vision.runtime import configure_ultralytics

    configure_ultralytics()  # offline, fonts and settings in the project, before Ultralytics is first imported
    load_yolo_checkpoint(path, fuse=False)  # a ValueError naming the file when it is no checkpoint


def data_file(data: Path) -> Path:
    """``--data`` as a data.yaml: itself, or the one a folder holds (``xingzi eval --data`` takes either)."""
    if data.is_dir() and (data / "data.yaml").is_file():
        return data / "data.yaml"
    if not data.is_file():
        raise ValueError(f"--data: expected a data.yaml file or a folder holding one, got {data}"
                         + (" (a folder without data.yaml)" if data.is_dir() else " (not there)"))
    return data


def run(args: argparse.Namespace) -> int:
    from xingzi.models import train as tr

    if args.ship is not None:
        from xingzi.models.ship import ship

        for line in ship(args.ship):
            print(line)
        return 0
    if args.resume is not None:
        run_dir = tr.resume(None if args.resume == "latest" else Path(args.resume), args.extra_train)
        print(f"resumed run finished: {run_dir}")
        return 0
    if args.bf16 and str(args.device or "cpu").lower() != "cpu":
        raise ValueError("--bf16 is for training on the CPU (give --device cpu); a GPU uses its own mixed precision")
    device = "cpu" if args.bf16 else args.device  # bfloat16 here means the CPU even where a GPU is present
    check_numbers(args)
    if args.leave_loose is not None and not 0 < args.leave_loose <= 1:
        raise ValueError(f"--leave-loose: expected an IoU in (0, 1], got {args.leave_loose}")
    if args.leave_loose is not None and args.data is not None:
        raise ValueError("--leave-loose builds the real photos' view: it cannot change a --data of your own")
    if args.extra_train and args.data is not None:
        raise ValueError("--extra-train joins sets to the real photos' view: it cannot change a --data of your own "
                         "(merge them into it with `xingzi dataset merge`)")
    if args.data is not None:
        args.data = data_file(Path(args.data))
    if args.model not in (None, "mahjong-detector"):
        check_start_model(Path(args.model))
    if args.data is not None:
        tr.check_data(Path(args.data))  # Ultralytics would end in a traceback, a run folder made
    if args.data is None and not (tr.SHARED_DATA / "real_cn_train" / "images").is_dir():  # (an installed package)
        raise ValueError(f"give --data DATA.yaml: without it the real photos of {tr.SHARED_DATA} are trained on, "
                         "and there are none there")
    data = args.data or tr.prepare_real_view(extra_train=args.extra_train, loose_over=args.leave_loose)
    model = args.model or str(tr.START_WEIGHTS)
    if model == "mahjong-detector":
        if not tr.CONVERTED_START.is_file():
            from xingzi.models.convert_mahjong_detector import convert

            convert(tr.CONVERTED_START)
        model = str(tr.CONVERTED_START)
    gpu = tr.gpu_available(device)
    if args.bf16 and not tr.cpu_has_bf16():
        print("note: this CPU has no bfloat16 units (avx512_bf16/amx_bf16): --bf16 will be slower than float32")
    cfg = tr.TrainConfig(data=str(data), model=model, imgsz=args.imgsz, epochs=args.epochs,
                         batch=args.batch or (64 if gpu else 16), device=device,
                         workers=args.workers if args.workers is not None else (8 if gpu else 2), lr0=args.lr0,
                         warmup_epochs=args.warmup_epochs, freeze=args.freeze or None, name=args.name,
                         close_mosaic=args.close_mosaic, time=args.time, bf16=args.bf16)
    run_dir = tr.train(cfg)
    print(f"training finished: {run_dir}")
    return 0
