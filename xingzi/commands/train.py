"""``xingzi train``: fine-tune the tile detector, resume it, or ship a checkpoint."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None,
                        help="data.yaml (default: build the real_cn view under runs/data and use it)")
    parser.add_argument("--extra-train", type=Path, nargs="*", default=[],
                        help="more train image dirs (e.g. synthetic) added to the default real_cn view")
    parser.add_argument("--model", default=None,
                        help="start weights or model yaml (default: mahjong-detector converted to 31 classes)")
    parser.add_argument("--imgsz", type=int, default=416)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=None, help="default 16 on CPU, 64 on a GPU")
    parser.add_argument("--workers", type=int, default=None, help="data loader processes (default 2 CPU, 8 GPU)")
    parser.add_argument("--close-mosaic", type=int, default=10, help="last N epochs without mosaic")
    parser.add_argument("--lr0", type=float, default=0.02)
    parser.add_argument("--warmup-epochs", type=float, default=0.3)
    parser.add_argument("--freeze", type=int, default=10, help="freeze the first N layers (0: none)")
    parser.add_argument("--time", type=float, default=None,
                        help="training budget in hours: the epochs and LR schedule are fitted to it")
    parser.add_argument("--device", default=None, help="cpu, 0, 0,1 ... (default: GPU if there is one)")
    parser.add_argument("--bf16", action="store_true",
                        help="train on the CPU in bfloat16 (about 2x faster where the CPU has AVX-512 BF16 or AMX)")
    parser.add_argument("--name", default="real416", help="run name under runs/train")
    parser.add_argument("--resume", nargs="?", const="latest", default=None, metavar="RUN_DIR_OR_PT",
                        help="continue a run from its weights/last.pt or a copied last.pt (default: newest run); "
                             "a missing data view is rebuilt with --extra-train")
    parser.add_argument("--ship", type=Path, default=None, metavar="RUN_DIR_OR_PT",
                        help="copy best.pt of a run (or a .pt, or 'best': the run with the highest val "
                             "mAP50-95) to models/ (stripped) and export ONNX")


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
    if args.imgsz % 32:
        raise ValueError(f"--imgsz must be a multiple of 32, got {args.imgsz}")
    if args.data is not None and not Path(args.data).is_file():
        raise ValueError(f"--data: dataset file not found: {args.data}")
    if args.model is not None and not Path(args.model).is_file() and not str(args.model).endswith(".yaml"):
        raise ValueError(f"--model: start weights not found: {args.model}")
    data = args.data or tr.prepare_real_view(extra_train=args.extra_train)
    model = args.model
    if model is None:
        if not tr.START_WEIGHTS.is_file():
            from xingzi.models.convert_mahjong_detector import convert

            convert(tr.START_WEIGHTS)
        model = str(tr.START_WEIGHTS)
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
