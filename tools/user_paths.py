"""The end-to-end 炮 figure checked on the paths users take: the command and the phone page.

``xingzi bench pipeline`` scores synthetic photos by calling the pipeline in-process. This reads the same photos
the way users do, with what each photo cannot show (self-draw or discard, dealer, events, the payers) given as a
user gives it: ``xingzi score PHOTO --json`` with its flags, and the page's ``POST /api/read`` with its query, then
``POST /api/rescore`` with the payers when one shows something, as the page does (in-process, the app ``xingzi
serve`` runs). It prints each path's share of 炮 totals right and, given the bench's
``--json-out`` of the same set, whether all three score the same photos wrong:

    xingzi bench pipeline --data /tmp/heldout_s59 --json-out /tmp/bench_s59.json
    python -m tools.user_paths --data /tmp/heldout_s59 --bench /tmp/bench_s59.json

Exit 1 when a path differs from the bench.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from xingzi.vision.bench_truth import result_right

Verdict = Callable[[Path, dict], bool]


def samples(data: Path) -> list[tuple[Path, dict]]:
    """(photo, meta) of every sample the bench scores: complete, with an expected result."""
    out = []
    for path in sorted((data / "meta").glob("*.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta.get("complete", True) and isinstance(meta.get("expect"), dict) and "own" in meta["expect"]:
            out.append((data / "images" / f"{path.stem}.jpg", meta))
    return out


def payer_spec(payer: dict) -> str:
    """A payer as ``--payer`` takes it: 'dealer; fa=2; pung 中'."""
    parts = (["dealer"] if payer.get("dealer") else []) + ([f"fa={payer['fa']}"] if payer.get("fa") else [])
    return "; ".join(parts + list(payer.get("melds", []))) or "none"  # ('' is refused: a flag left unfilled?)


def command_flags(situation: dict) -> list[str]:
    """What a user types for what the photo cannot show."""
    flags = ["--self-draw" if situation.get("self_draw") else "--discard"]
    flags += ["--dealer"] if situation.get("dealer") else []
    for event in situation.get("events", []):
        flags += ["--event", event]
    for payer in situation.get("payers", []):
        flags += ["--payer", payer_spec(payer)]
    for key, value in (situation.get("rules") or {}).items():
        flags += ["--set", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return flags


def by_command(photo: Path, meta: dict) -> bool:
    done = subprocess.run([sys.executable, "-m", "xingzi", "score", str(photo), "--json",
                           *command_flags(meta["situation"])], capture_output=True, text=True, check=False)
    try:
        result = json.loads(done.stdout)
    except ValueError:
        raise RuntimeError(f"xingzi score {photo.name}: no JSON (exit {done.returncode}): {done.stderr[-300:]}") from None
    return result_right(result, meta)


def page_query(situation: dict) -> dict[str, str]:
    """The query the page sends with a photo (app.js ``upload``): everything but the payers."""
    return {"self_draw": str(bool(situation.get("self_draw"))).lower(),
            "dealer": str(bool(situation.get("dealer"))).lower(), "as_read": "false",
            "events": ",".join(situation.get("events", [])),
            "rules": json.dumps(situation.get("rules") or {}, ensure_ascii=False), "table": ""}


def shows_something(payers: list[dict]) -> bool:
    """Whether the page sends the payers at all (it does when one is the dealer or shows 发 or melds)."""
    return any(p.get("dealer") or p.get("fa") or p.get("melds") for p in payers)


def page_rescore(token: str, situation: dict) -> dict:
    """The rescore the page sends once a photo is read, when a payer shows something (app.js ``marks``)."""
    return {"token": token, "corrections": {}, "added": [], "ignored": [], "removed": [], "claimed": [],
            "released": [], "win": None, "self_draw": bool(situation.get("self_draw")),
            "dealer": bool(situation.get("dealer")), "as_read": False, "events": list(situation.get("events", [])),
            "payers": list(situation.get("payers", [])), "rules": situation.get("rules") or {}}


def page_verdict() -> Verdict:
    from tools.page_client import page_client
    from xingzi.web.app import create_app

    client = page_client(create_app())

    def by_page(photo: Path, meta: dict) -> bool:
        s = meta["situation"]
        answer = client.post("/api/read", content=photo.read_bytes(), params=page_query(s))
        if answer.status_code == 200 and shows_something(s.get("payers", [])):
            answer = client.post("/api/rescore", json=page_rescore(answer.json()["token"], s))
        if answer.status_code != 200:
            raise RuntimeError(f"{photo.name}: {answer.status_code} {answer.text[:300]}")
        return result_right(answer.json(), meta)

    return by_page


def wrong_ones(verdict: Verdict, items: list[tuple[Path, dict]], workers: int = 1) -> list[str]:
    with ThreadPoolExecutor(workers) as pool:
        oks = list(pool.map(lambda item: verdict(*item), items))
    return sorted(photo.stem for (photo, _), ok in zip(items, oks, strict=True) if not ok)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.user_paths", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="a `xingzi synth` output folder (images/, meta/)")
    ap.add_argument("--bench", type=Path, help="`xingzi bench pipeline --json-out` of the same set, to compare with")
    ap.add_argument("--limit", type=int, default=0, help="the first N samples only (0: all)")
    args = ap.parse_args(argv)
    if args.limit < 0:
        ap.error(f"--limit must be 0 (all) or more, got {args.limit}")
    earlier = None
    if args.bench:  # a bad file said before any photo is read
        try:
            earlier = json.loads(args.bench.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            ap.error(f"--bench {args.bench}: expected a `xingzi bench pipeline --json-out` file ({e})")
        if not isinstance(earlier, dict) or "pao_wrong" not in earlier:
            ap.error(f"--bench {args.bench}: expected a `xingzi bench pipeline --json-out` file of a synthetic set")
    items = samples(args.data)[: args.limit or None]
    if not items:
        raise SystemExit(f"{args.data}: no complete samples with an expected result in meta/")
    paths = {"xingzi score --json": wrong_ones(by_command, items, workers=2),
             "page POST /api/read": wrong_ones(page_verdict(), items)}
    for name, wrong in paths.items():
        print(f"{name:22} 炮 total right {len(items) - len(wrong)}/{len(items)} "
              f"({100 * (len(items) - len(wrong)) / len(items):.1f} %)")
    differ = False
    if earlier is not None:
        run = earlier
        stems = {photo.stem for photo, _ in items}
        scored = set(run.get("pao_samples") or stems) & stems  # a bench run with --limit read fewer photos
        bench_wrong = sorted(set(run["pao_wrong"]) & scored)
        unread = sorted(stems - scored)
        print(f"{'xingzi bench pipeline':22} 炮 total right {len(scored) - len(bench_wrong)}/{len(scored)}"
              + (f" (it did not read {len(unread)} of these photos: {', '.join(unread[:3])}{' …' if len(unread) > 3 else ''};"
                 " the paths are compared with it on the photos it read)" if unread else ""))
        for name, wrong in paths.items():
            wrong = [w for w in wrong if w in scored]
            if wrong != bench_wrong:
                differ = True
                print(f"{name} differs from the bench: only it wrong {sorted(set(wrong) - set(bench_wrong))}, "
                      f"only the bench wrong {sorted(set(bench_wrong) - set(wrong))}")
        print("the same photos wrong on every path" if not differ else "")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
