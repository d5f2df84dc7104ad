"""``xingzi serve``: the phone web page on a local address (default 127.0.0.1:8000)."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="bind address (default 127.0.0.1; use 0.0.0.0 to reach it from a phone on the LAN)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--model", metavar="PATH", help="detector weights (.pt or .onnx; default: the shipped model)")
    p.add_argument("--conf", type=float, metavar="FLOAT", help="detection confidence threshold (default 0.25)")
    p.add_argument("--collect", metavar="DIR",
                   help="a dataset folder (YOLO: images/, labels/, data.yaml; made if missing) where the page's "
                        "\"save labels\" keeps each photo as corrected, instead of handing the phone a zip")
    p.add_argument("--max-upload-mb", type=float, default=12.0, metavar="MB", help="largest accepted upload")


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    if args.max_upload_mb <= 0:
        raise ValueError(f"--max-upload-mb must be positive, got {args.max_upload_mb}")
    import uvicorn

    from xingzi.web.app import create_app

    app = create_app(model=args.model, conf=args.conf, max_upload=int(args.max_upload_mb * 1024 * 1024),
                     collect=args.collect)
    print(f"xingzi serve: http://{args.host}:{args.port}/  (Ctrl-C to stop)")
    if args.collect:
        print(f"saved labels go to {args.collect} (check them with `xingzi dataset check {args.collect}`)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
