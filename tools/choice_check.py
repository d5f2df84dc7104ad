"""Every choice the phone page offers gives the total it promised, once tapped.

Where a photo does not show which tile won, or a concealed kong lies all face down, the page lists each choice with
the 炮 it gives (``win_choices``, ``kong_choices``). This reads each photo of a folder through the page's own API
(``POST /api/read``, in-process, the detector ``xingzi serve`` runs), taps every choice as the page does (``win``: the
tile marked as the winning one; a kong's choice: its face named on the tile it points at, ``POST /api/rescore``) and
counts those whose total differs from the one promised:

    python -m tools.choice_check --data /tmp/heldout_s83 [--bloom]

(``--bloom``: each photo read as a self-draw on 杠上开花, so that which kong was just made is offered and tapped too.)

Exit 1 when any does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from xingzi.datasets.yolo import image_files

KINDS = ("win_choices", "kong_choices", "bloom_choices")


def tap(client: Any, token: str, kind: str, choice: dict, faces: dict[str, int], context: dict) -> int | None:
    """The total after tapping ``choice`` (None: no valid win, or refused)."""
    body: dict[str, Any] = {"token": token, **context}
    if kind == "win_choices":
        body["win"] = choice["index"]
    elif kind == "bloom_choices":
        body["bloom"] = choice["tile"]
    else:
        body["corrections"] = {str(choice["index"]): faces[choice["tile"]]}
    got = client.post("/api/rescore", json=body)
    return got.json()["own"] if got.status_code == 200 and got.json().get("valid") else None


def check(client: Any, photos: list[Path], out=None, bloom: bool = False) -> tuple[int, int]:
    """(choices tapped, those not giving the total promised), each of the latter printed. ``bloom``: each photo read
    as a self-draw on 杠上开花, so that which kong was just made is offered too."""
    out = out or sys.stdout
    context: dict[str, Any] = {"self_draw": True, "events": ["kong_bloom"]} if bloom else {}
    query = "?self_draw=true&events=kong_bloom" if bloom else ""
    faces = {f["symbol"]: f["cls"] for f in client.get("/api/faces").json()["faces"]}
    tapped = wrong = 0
    for photo in photos:
        read = client.post("/api/read" + query, content=photo.read_bytes())
        if read.status_code != 200:
            out.write(f"{photo.name}: not read ({read.status_code})\n")
            continue
        token, reading = read.json()["token"], read.json()["reading"]
        for kind in KINDS:
            for choice in reading.get(kind, []):
                if choice["index"] is None and kind != "bloom_choices":  # no tile to tap: shown disabled
                    continue
                tapped += 1
                own = tap(client, token, kind, choice, faces, context)
                if own != choice["own"]:
                    wrong += 1
                    out.write(f"{photo.name} {kind} {choice['tile']} at #{choice['index']}: promised "
                              f"{choice['own']}, gave {own}\n")
    return tapped, wrong


def main(argv: list[str] | None = None, detector: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, required=True, help="a folder of photos (images/ inside, or the photos)")
    p.add_argument("--model", default=None, help="detector weights (default: the shipped ones)")
    p.add_argument("--bloom", action="store_true",
                   help="read each photo as a self-draw on 杠上开花: which kong was just made is offered too")
    args = p.parse_args(argv)
    folder = args.data / "images" if (args.data / "images").is_dir() else args.data
    photos = image_files(folder) if folder.is_dir() else []
    if not photos:
        p.error(f"--data: expected a folder of photos, got {args.data}")
    from tools.page_client import page_client
    from xingzi.vision import pipeline
    from xingzi.web.app import create_app

    client = page_client(create_app(detector or pipeline.make_detector(args.model, None)), raise_server_exceptions=False)
    tapped, wrong = check(client, photos, bloom=args.bloom)
    print(f"{args.data}: {tapped} choices tapped on {len(photos)} photos, {wrong} not giving the total promised")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
