"""``xingzi score``: score a hand given on the command line, §10 JSON situations (one object
or JSON Lines), or a photo (handed to the vision pipeline)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from xingzi.engine import load_ruleset, parse_meld, score_situation
from xingzi.engine.hand import EVENT_NAMES, EVENTS, SELF_DRAW_EVENTS, check_claim
from xingzi.engine.notation import format_tiles, parse_hand, parse_tiles
from xingzi.engine.unscored import OFF

from .rules import pad
from .score_json import answer, check_once, loads, score_whole
from .score_stream import opened, score_input

HELP_HAND = "the tiles standing in the hand, winning tile included; write it last after a space: '12m456m789p22345s 3m'"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("photo", nargs="?", help="a photo of a revealed hand (needs the vision extra)")
    p.add_argument("--hand", help=HELP_HAND)
    p.add_argument("--win", metavar="TILE", help="the winning tile, if not written last in --hand; "
                   "photo mode: which tile won, when the photo does not show it")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--self-draw", dest="self_draw", action="store_true", default=None,
                     help="won on own draw (自摸); with neither flag, --event kong_bloom or hai_di_lao_yue (self-draws "
                          "by their rule) is scored as one")
    how.add_argument("--discard", dest="self_draw", action="store_false",
                     help="won on a discard (the default when neither flag is given, except with --event kong_bloom "
                          "or hai_di_lao_yue: those are self-draws and are scored as one)")
    p.add_argument("--dealer", action="store_true", help="the winner is the dealer (庄家)")
    p.add_argument("--meld", action="append", default=[], metavar="MELD",
                   help="a meld in front of the winner, in the order made: 'pung 中', 'kong 9p', 'concealed_kong 4s'")
    p.add_argument("--fa", type=int, default=None, metavar="N",
                   help="发 set aside in front of the winner (0..4; a photo's are read from it)")
    p.add_argument("--event", action="append", default=[], choices=EVENTS, metavar="EVENT",
                   help=f"how the hand was won, repeatable: {', '.join(EVENTS)} (kong_bloom and hai_di_lao_yue "
                        "are self-draws: without --self-draw or --discard the hand is scored as one)")
    p.add_argument("--payer", action="append", default=[], metavar="SPEC",
                   help="what a payer shows, e.g. 'dealer; fa=2; pung 中; concealed_kong 4s', or 'none' "
                        "(once on a discard win; on 自摸 up to three times: players 1, 2, 3 in this order)")
    p.add_argument("--rules", metavar="FILE", help="ruleset TOML file or preset name (default, text000)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="override one ruleset option or 炮 number, e.g. --set specials_lift_threshold=true or a path in the "
                        "ruleset file, --set pao.ping_hu=3 "
                        "(with --json FILE, like --rules: for every situation that names no \"ruleset\" of its own)")
    p.add_argument("--json", nargs="?", const="", default=None, metavar="FILE",
                   help="with --hand: print the §10 result as JSON; with FILE (or - for stdin): "
                        "score a §10 situation or JSON Lines, one result per line as each is read "
                        "(a .jsonl file always as JSON Lines; on stdin the first answer waits for the second "
                        "line, which tells JSON Lines from one object, unless --lines is given)")
    p.add_argument("--lines", action="store_true",
                   help="with --json FILE or -: read JSON Lines whatever the input holds, each line answered as soon "
                        "as it is read (for a program that writes one situation and waits for its answer)")
    p.add_argument("--out", metavar="PATH", help="photo mode: where to write the annotated photo")
    p.add_argument("--model", metavar="PATH", help="photo mode: detector weights")
    p.add_argument("--conf", type=float, metavar="FLOAT", help="photo mode: detection confidence threshold")
    p.add_argument("--claim", metavar="TILE", action="append", default=[],
                   help="photo mode: like tiles read as standing in the hand are a claimed meld (碰/杠) of this "
                        "face, e.g. a pung laid against the row in a tray; repeatable")
    p.add_argument("--bloom", metavar="TILE",
                   help="photo mode, with --event kong_bloom: the kong just made (its face), when the photo shows "
                        "several kongs (杠上开花's 10 炮 include that kong's own)")
    p.add_argument("--as-read", dest="as_read", action="store_true",
                   help="photo mode: score the tiles exactly as read, even when they are no legal hand "
                        "(default: score the likeliest legal reading and say what it changed)")
    p.add_argument("--tiles", action="store_true",
                   help="photo mode: list every tile found, along the row, with the number the flags below take "
                        "(also written on each tile in --out)")
    p.add_argument("--fix", metavar="WHICH=FACE", action="append", default=[],
                   help="photo mode: a tile's true face; WHICH is its number (--tiles) or the face it was read as "
                        "when one tile alone was: '3s=2s', '10=2s'; a face-down tile of a concealed kong named "
                        "names the kong; repeatable")
    p.add_argument("--add", metavar="FACE@X0,Y0,X1,Y1|FACE@N", action="append", default=[],
                   help="photo mode: a tile the detector missed, its box in pixels of the photo as read (its size "
                        "is printed; it joins its row or meld by where it lies), or FACE@N to add it beside tile "
                        "N's row or meld, or beside face-down tile N left uncounted (a concealed kong that lost a face; "
                        "its place found); repeatable")
    p.add_argument("--aside", metavar="N", type=int, action="append", default=[],
                   help="photo mode: tile N is not part of this hand (another player's tile); repeatable")
    p.add_argument("--not-tile", dest="not_tile", metavar="N", type=int, action="append", default=[],
                   help="photo mode: box N is on no tile (left out of the hand and of --labels); repeatable")
    p.add_argument("--labels", metavar="DIR",
                   help="photo mode: keep the photo with its tiles as corrected as a training sample in the "
                        "dataset folder DIR (made if missing); run again with more fixes, it replaces its labels")


def _value(text: str, key: str = "") -> Any:
    if text.lower() in ("true", "false"):  # a shell user writes True as often as true
        return text.lower() == "true"
    try:
        value = loads(text)
    except json.JSONDecodeError:
        if key == "optional":  # --set optional=tong_ku,hui_tou: the list without its JSON brackets
            return [part.strip() for part in text.split(",") if part.strip()]
        return text
    check_once(value)
    return value


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` flags as §10 ``rules`` overrides (values JSON where they parse: true, 20, ["tong_ku"])."""
    overrides: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        overrides[key.strip()] = _value(text.strip(), key.strip())
    return overrides


PLAIN_PAYER = "none"  # --payer none: a payer who is not the dealer and shows nothing (a self-draw's player 2 of 3)


def parse_payer(spec: str) -> dict[str, Any]:
    """``'dealer; fa=2; pung 中'`` → ``{"dealer": true, "fa": 2, "melds": ["pung 中"]}``; ``'none'``: a plain payer.
    ``dealer`` or ``fa`` said twice is refused (which was meant cannot be known), as a JSON object giving a key twice
    is; so is a spec saying nothing ('', ' ', ';'), which looked like a flag left unfilled."""
    payer: dict[str, Any] = {"dealer": False, "fa": 0, "melds": []}
    if spec.strip().lower() == PLAIN_PAYER:
        return payer
    entries = [part.strip() for part in spec.replace(",", ";").split(";") if part.strip()]
    if PLAIN_PAYER in (e.lower() for e in entries):
        raise ValueError(f"payer {spec!r}: '{PLAIN_PAYER}' stands alone (a payer who is not the dealer and shows "
                         f"nothing), not combined with other entries: give 'dealer', 'fa=N' or melds instead")
    if not spec.replace(",", ";").replace(";", "").strip():
        raise ValueError(f"--payer is empty: expected what that payer shows, e.g. 'dealer; fa=2; pung 中', or "
                         f"'{PLAIN_PAYER}' for a payer who is not the dealer and shows nothing, got {spec!r}")
    said: set[str] = set()
    for part in spec.replace(",", ";").split(";"):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = "fa" if sep and key.strip() == "fa" else part
        if key in ("dealer", "fa"):
            if key in said:
                raise ValueError(f"payer {spec!r}: {key} is said twice; say it once")
            said.add(key)
        if key == "dealer":
            payer["dealer"] = True
        elif key == "fa":
            try:
                payer["fa"] = int(value.strip())
            except ValueError:
                raise ValueError(f"payer {spec!r}: fa=N needs a number, got {part!r}") from None
        else:
            parse_meld(part)  # fail early with the meld's own message
            payer["melds"].append(part)
    # said here, by the flag's own words, before a photo is read (the engine numbers payers from 0)
    if not 0 <= payer["fa"] <= 4:
        raise ValueError(f"payer {spec!r}: fa=N is the 发 that payer set aside, 0 to 4, got {payer['fa']}")
    if len(payer["melds"]) > 4:
        raise ValueError(f"payer {spec!r} shows {len(payer['melds'])} melds: a player has at most 4")
    return payer


def told_self_draw(args: argparse.Namespace) -> bool:
    """--self-draw or --discard; neither: the events may say (海底捞月 and 杠上开花 are self-draws), else a discard."""
    said = getattr(args, "self_draw", None)
    return bool(set(getattr(args, "event", None) or []) & SELF_DRAW_EVENTS) if said is None else bool(said)


def situation_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The §10 situation described by the command-line flags."""
    hand = getattr(args, "hand", None)
    if not hand:
        raise ValueError("give --hand '12m456m789p22345s 3m' (or --json FILE, or a photo)")
    events = list(dict.fromkeys(getattr(args, "event", None) or []))
    self_draw = told_self_draw(args)
    situation: dict[str, Any] = {
        "hand": hand,
        "melds": list(getattr(args, "meld", None) or []),
        "fa": getattr(args, "fa", 0) or 0,
        "self_draw": self_draw,
        "dealer": bool(getattr(args, "dealer", False)),
        "events": events,
        "payers": [parse_payer(s) for s in getattr(args, "payer", None) or []],
    }
    if getattr(args, "win", None):
        situation["win_tile"] = args.win
    if getattr(args, "rules", None):
        situation["ruleset"] = args.rules
    overrides = parse_overrides(getattr(args, "overrides", []) or [])
    if overrides:
        situation["rules"] = overrides
    return situation


def print_result(result: dict[str, Any], out=None) -> None:
    """The human-readable report of one result."""
    out = out or sys.stdout
    win = "自摸 self-draw" if result.get("self_draw") else "on a discard"
    out.write(f"hand      {result['hand_before']} + {result['win_tile']} ({win})\n")
    if result["melds"]:
        out.write(f"melds     {', '.join(result['melds'])}\n")
    if result["reading"]:
        out.write(f"reading   {' '.join(result['reading'])}\n")
    out.write(f"waited on {' '.join(result['waits']) or '-'}\n")
    for item in result["items"]:
        out.write(f"  {pad(item['name'], 10)}{item['key']:<22}{item['pao']:>4} 炮\n")
    for line in not_counted_lines(result):
        out.write(line + "\n")
    out.write(f"own       {result['own']} 炮   (ruleset: {result['ruleset']})\n")
    if not result["valid"]:
        out.write(f"诈胡 false win: {result['reason']}\n")
        for p in result["payments"]:
            out.write(false_win_line(p, bool(result.get("self_draw"))) + "\n")
        return
    for p in result["payments"]:
        out.write(payment_line(p, bool(result.get("self_draw"))) + "\n")


def not_counted_lines(result: dict[str, Any]) -> list[str]:
    """A line for each event declared but not counted, with why (the engine's ``events_not_counted``)."""
    return [f"not counted {EVENT_NAMES[e['event']]} {e['event']}: {e['reason']}"
            + (f" (--set 'optional=[\"{e['event']}\"]' counts it)" if e["reason"] == OFF else "")
            for e in result.get("events_not_counted", ())]


def false_win_line(payment: dict[str, Any], self_draw: bool) -> str:
    """What the false winner pays one other player, named as the valid win names its payers (and as the page does):
    on a self-draw the three in the order of --payer, on a discard the discarder first."""
    k = payment["payee"] + 1
    to = f"第{k}家 player {k}" if self_draw else "放炮者 the discarder" if k == 1 else "另一家 another player"
    note = f"  ({payment['pao']} 炮 ×{payment['amount'] // payment['pao']} 庄家 dealer)" \
        if payment["amount"] != payment["pao"] else ""
    return f"  pays {pad(to, 22)}{payment['amount']}{note}"


def payment_line(payment: dict[str, Any], self_draw: bool) -> str:
    """Who pays how much, as the phone page says it: the discarder, or each of the three on a self-draw (numbered
    from 1 in the order of --payer); the 炮 eaten from that payer and the dealer's doubling when they apply."""
    k = payment["payer"] + 1
    who = f"第{k}家 player {k}" if self_draw else "放炮者 the discarder"
    notes = [f"含吃 {payment['eaten']} 炮 eaten"] if payment["eaten"] else []
    if payment["amount"] != payment["pao"]:  # the ruleset's dealer factor (settlement.dealer_factor)
        notes.append(f"{payment['pao']} 炮 ×{payment['amount'] // payment['pao']} 庄家 dealer")
    return f"{pad(who, 22)}pays {payment['amount']}" + (f"  ({', '.join(notes)})" if notes else "")


PHOTO_ONLY = ("out", "model", "conf", "claim", "bloom", "as_read", "tiles", "fix", "add", "aside", "not_tile", "labels")
# what a situation file says itself: refused beside --json FILE rather than left unread
SITUATION_FLAGS: tuple[tuple[str, str, Any], ...] = (
    ("win", "--win", None), ("self_draw", "--self-draw/--discard", None), ("dealer", "--dealer", False),
    ("meld", "--meld", []), ("fa", "--fa", None), ("event", "--event", []), ("payer", "--payer", []))


# what a photo's file is called: given to --json (``xingzi score --json hand.jpg``), the photo was meant
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".heic", ".heif", ".webp", ".avif", ".bmp", ".tif", ".tiff", ".gif")


def _check_mode(args: argparse.Namespace) -> None:
    """A photo, --hand or --json FILE: flags of another mode are refused rather than left unread."""
    if args.json and not args.photo and args.json.lower().endswith(PHOTO_SUFFIXES):
        raise ValueError(f"--json {args.json} names a photo, but --json FILE reads JSON situations: give the photo "
                         f"first, its result as JSON with a bare --json after it (xingzi score {args.json} --json)")
    named = (("photo", "the photo's path"), ("hand", "--hand"), ("win", "--win"), ("bloom", "--bloom"))
    empty = [(flag, value) for name, flag in named  # (an empty path option: cli.empty_path)
             if isinstance(value := getattr(args, name, None), str) and not value.strip()]
    if empty:  # read as "not given", '' scored another hand or asked for one
        raise ValueError(f"{empty[0][0]} is empty: expected a value, got {empty[0][1]!r}")
    if args.lines and not (args.json and not args.hand and not args.photo):
        raise ValueError("--lines is for reading situations with --json FILE (or - for standard input)")
    if args.photo:
        if args.hand:
            raise ValueError("give a photo or --hand, not both")
        if args.json:
            raise ValueError(f"give a photo or --json FILE, not both (with a photo, a bare --json prints the result as "
                             f"JSON), got --json {args.json!r}")
        told = [flag for name, flag in (("meld", "--meld"), ("fa", "--fa")) if getattr(args, name) not in (None, [])]
        if told:  # they were left unread: the photo's own melds and 发 were scored
            raise ValueError(f"{told[0]} describes a hand given by --hand; a photo's melds and 发 are read from it "
                             "(correct what was misread with --fix, --add, --claim or --aside)")
        # what needs no tiles is refused now, not after the photo is read (as --hand refuses it)
        check_claim(told_self_draw(args), bool(args.dealer), frozenset(args.event or []),
                    [parse_payer(spec)["dealer"] for spec in args.payer or []])
        return
    given = [name for name in PHOTO_ONLY if getattr(args, name, None) not in (None, False, [])]
    if given:
        raise ValueError(f"--{given[0].replace('_', '-')} is for reading a photo: give the photo too")
    if args.json and not args.hand:
        told = [flag for name, flag, unset in SITUATION_FLAGS if getattr(args, name, unset) != unset]
        if told:
            raise ValueError(f"{told[0]} describes a hand given by flags; with --json {args.json!r} each situation "
                             f"says it itself (its fields: RULES.md §10)")


def run(args: argparse.Namespace) -> int:
    _check_mode(args)
    if args.photo:
        from xingzi.vision.photo_command import run_photo_command
        return run_photo_command(args)
    ruleset = load_ruleset(args.rules) if args.rules else None
    if args.json and not args.hand:
        overrides = parse_overrides(args.overrides)
        ruleset = (ruleset or load_ruleset()).with_overrides(overrides) if overrides else ruleset  # JSON Lines answered a line at a time, as they come (score_stream)
        with opened(args.json) as reader:
            return score_input(reader, sys.stdout, as_lines=args.lines or args.json.endswith(".jsonl"), parse=loads,
                               answer=lambda item, n: answer(item, n, ruleset),
                               whole=lambda text: score_whole(text, ruleset))
    if args.json and args.hand:
        raise ValueError("use either --hand (with a bare --json) or --json FILE, not both")
    situation = situation_from_args(args)
    result = score_situation(situation, ruleset)
    if args.overrides:  # the ruleset's name alone would hide that its numbers were changed
        result["ruleset"] += f", with --set {' '.join(args.overrides)}"
    if args.json is not None:
        print(json.dumps(result, ensure_ascii=False))
    else:
        result["self_draw"] = situation["self_draw"]
        tiles, _win = parse_hand(situation["hand"])
        tiles.remove(parse_tiles(result["win_tile"])[0])
        result["hand_before"] = format_tiles(tiles)
        print_result(result)
    return 0  # a false win (诈胡) is a correct answer, not an error
