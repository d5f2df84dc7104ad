"""``xingzi serve``: the phone web page on a local address (default 127.0.0.1:8000)."""

from __future__ import annotations

import argparse
import errno
import socket
from pathlib import Path

from xingzi.outputs import check_writable
from xingzi.web.lan import ALL_INTERFACES, qr_lines, serve_urls


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="bind address (default 127.0.0.1; use 0.0.0.0 to reach it from a phone on the LAN)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--model", metavar="PATH", help="detector weights (.pt or .onnx; default: the shipped model)")
    p.add_argument("--conf", type=float, metavar="FLOAT", help="detection confidence threshold (default 0.25)")
    p.add_argument("--collect", metavar="DIR",
                   help="a dataset folder (YOLO: images/, labels/, data.yaml; made if missing) where the page's "
                        "\"save labels\" keeps each photo as corrected, instead of handing the phone a zip")
    p.add_argument("--max-upload-mb", type=float, default=12.0, metavar="MiB",
                   help="largest photo accepted, in MiB (default 12; at least 0.5: a phone's photo, shrunk by the page, "
                        "takes a few hundred KiB)")
    p.add_argument("--rules", metavar="FILE", help="the table's ruleset: a TOML file or preset name (default, text000)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override one ruleset option or 炮 number for every score, e.g. --set four_fa=on_top")
    p.add_argument("--no-qr", action="store_true",
                   help="with --host 0.0.0.0: print the addresses for a phone without a QR code of them")


def run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    if not 0.5 <= args.max_upload_mb <= 1024:  # also refuses nan and inf
        raise ValueError(f"--max-upload-mb must be 0.5 to 1024 (MiB), got {args.max_upload_mb}")
    if args.conf is not None and not 0 <= args.conf <= 1:  # the detector is made at the first photo: say it now
        raise ValueError(f"--conf must be a confidence from 0 to 1, got {args.conf:g}")
    if args.model is not None and not Path(args.model).is_file():
        raise ValueError(f"--model: detector weights not found: {args.model}")
    try:
        socket.getaddrinfo(args.host, args.port)
    except (socket.gaierror, UnicodeError):
        raise ValueError(f"--host: not an address of this machine or a name it can resolve: {args.host!r}") from None
    check_port(args.host, args.port)
    if args.collect:
        check_collect(Path(args.collect))
    import uvicorn

    from xingzi.vision.sessions import chosen_runtime

    if not str(args.model or "").endswith(".pt") and chosen_runtime() == "onnxruntime":  # what reads the photos
        import onnxruntime  # noqa: F401  (missing: said now, not as a failed read at the first photo)

    from xingzi.commands.score import parse_overrides
    from xingzi.web.app import create_app
    from xingzi.web.rules import TableRules

    rules = TableRules(args.rules, parse_overrides(args.overrides))  # a bad file or value: refused here
    detector = None  # the shipped model: made at the first photo, the page up at once
    if args.model is not None:  # a file that is no model would fail every photo: loaded, or refused, now
        from xingzi.vision.pipeline import make_detector

        try:
            detector = make_detector(args.model, args.conf)
        except (ValueError, RuntimeError, OSError) as e:
            raise ValueError(f"--model: {e}") from None
    app = create_app(detector, model=args.model, conf=args.conf, max_upload=int(args.max_upload_mb * 1024 * 1024),
                     collect=args.collect, rules=rules)
    print(startup_text(args.host, args.port, qr=not args.no_qr), end="")
    print(f"rules: {rules.ruleset.name}" + (f", with {', '.join(args.overrides)}" if args.overrides else ""))
    if args.collect:
        print(f"saved labels go to {args.collect} (check them with `xingzi dataset check {args.collect}`)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def check_port(host: str, port: int) -> None:
    """Refuse a port that cannot be listened on before saying where the page is (uvicorn would print the address,
    then fail on it): taken by another server, or under 1024 without the right."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: a closing socket is no hold
        if family == socket.AF_INET6:  # asyncio binds IPv6 alone: an IPv4 server on the port is no hold either
            probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        shown = f"[{host}]" if ":" in host else host
        try:
            probe.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRNOTAVAIL:
                raise ValueError(f"--host {host}: not an address of this machine ({e.strerror}): 127.0.0.1 for this "
                                 "machine alone, 0.0.0.0 for phones on its network") from None
            raise ValueError(f"--port {port}: cannot listen on {shown}:{port} ({e.strerror}); another server may "
                             "hold it: choose another --port") from None


def check_collect(folder: Path) -> None:
    """Refuse a --collect folder that cannot be written (read-only, a file in the way) before the page is served,
    rather than at the first "save labels"; nothing is made or written here (the first photo saved makes it)."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--collect {folder}: expected a dataset folder, got the file")
    check_writable("--collect", folder, folder.absolute(), "photos cannot be saved there")


def startup_text(host: str, port: int, qr: bool = True, lan: list[str] | None = None) -> str:
    """Where to open the page: on this machine, from a phone on the same network (with a QR code for its camera),
    or how to let a phone reach it when the server listens on this machine alone."""
    local, remote = serve_urls(host, port, lan)
    lines = [f"xingzi serve: {local[0] if local else remote[0]}  (Ctrl-C to stop)"]
    if remote and local:
        lines.append("from a phone on the same network: " + "  ".join(remote))
    if remote and qr:
        lines.append(f"scan with the phone's camera to open {remote[0]}")
        lines.append(qr_lines(remote[0]).rstrip("\n"))
    if not remote and host in ALL_INTERFACES:
        lines.append("no network address found: a phone can reach this machine only once it is on a network")
    elif not remote:
        lines.append("a phone cannot reach this address: start with --host 0.0.0.0 to use the page at the table")
    if host == "::":
        lines.append("listening on IPv6 alone: a phone on an IPv4 network reaches the page with --host 0.0.0.0")
    return "\n".join(lines) + "\n"
