"""What a request to the page's API says, checked: the user's marks on a held photo's tiles (corrected faces,
tiles added or set aside, the winning tile), the situation (self-draw, dealer, events, payers, the page's rules)
and the tally's seats. Anything else is refused with a ``BadRequest`` saying what was expected."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from fastapi import Request

from xingzi.engine import check_context
from xingzi.engine.tiles import CLASS_NAMES, Tile
from xingzi.jsontext import KeyTwice, NotJsonNumber, strict_loads
from xingzi.vision.detections import Detections, check_tile_index
from xingzi.vision.missed import Placed, add_missed
from xingzi.vision.names import EVENTS
from xingzi.vision.pipeline import Context, apply_corrections
from xingzi.vision.usermarks import kong_named

from . import guards
from .guards import BadRequest
from .rules import TableRules
from .seats import Seats, parse_seats, seated_flags

MAX_JSON = 1024 * 1024  # a rescore or labels body: marks on at most a few hundred tiles


@dataclass
class Session:
    """A photo the server holds for rescoring: the picture and what the detector found on it."""

    image: np.ndarray
    detections: Detections


@dataclass(frozen=True)
class Marks:
    """What the user said about a held photo's tiles, checked: the detections with added tiles and corrected
    faces, the faces the user set (``fixed``: no likeliest legal reading changes them), and the tiles set aside
    (``removed`` ones among them: no tile at all), taken as claimed melds or stood back in the hand."""

    detections: Detections
    fixed: dict[int, int]
    ignored: list[int]
    removed: list[int]
    claimed: list[int]
    released: list[int]
    win: int | None
    context: Context
    as_read: bool
    added: Placed  # the tiles added, each with its box as placed
    guessed: list[int]  # those whose place the server chose (the "+"): their boxes are no training labels


def marks_of(body: dict, session: Session, rules: TableRules) -> Marks:
    corrections = body.get("corrections") or {}
    if not isinstance(corrections, dict):
        raise BadRequest("corrections must be an object {tile index: class id}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in corrections.values()):
        raise BadRequest(f"corrections must map tile indices to class ids (whole numbers), got {corrections!r}"[:300])
    odd = [k for k in corrections if not (len(k) < 10 and k.isascii() and k.lstrip("-").isdigit()
                                          and str(int(k)) == k)]
    if odd:  # (int() takes " 3", "03", "1_0" and "٣": "3" and "03" would name one tile twice)
        raise BadRequest(f"corrections: a tile index is a whole number written plainly, such as \"3\"; "
                         f"got {odd[0]!r}"[:300])
    fixed = {int(k): int(v) for k, v in corrections.items()}
    ignored, removed, claimed, released = (guards.indices(body, k) for k in ("ignored", "removed", "claimed", "released"))
    found = session.detections
    try:  # a tile added beside a group is placed as the user sees the hand: its faces corrected, its strays aside
        det, placed = add_missed(found, guards.added_tiles(body), session.image.shape, seen=as_seen(found, fixed),
                                 ignored=[i for i in {*ignored, *removed} if 0 <= i < len(found)])
    except ValueError as e:
        raise BadRequest(f"bad added tile: {e}") from None
    try:
        if all(0 <= i < len(det) for i in fixed):  # (a bad index: apply_corrections says so)
            fixed = kong_named(det, fixed)
        det = apply_corrections(det, fixed)
    except (TypeError, ValueError) as e:
        raise BadRequest(f"bad correction: {e}") from None
    fixed.update({i: int(det.cls[i]) for i in range(len(found), len(det))})  # the user's own
    win = body.get("win")
    if win is not None and (isinstance(win, bool) or not isinstance(win, int)):
        raise BadRequest(f"win must be a tile index or null, got {win!r}")
    try:
        for i in removed:
            check_tile_index(i, len(det), "removed tile")
    except ValueError as e:
        raise BadRequest(str(e)) from None
    # a box on no tile counts in no hand: set aside, as the user's "not part of this hand"
    guessed = [len(found) + j for j, t in enumerate(body.get("added") or []) if "beside" in t or t.get("placed")]
    return Marks(det, fixed, sorted({*ignored, *removed}), removed, claimed, released, win, situation_of(body, rules),
                 flag(body.get("as_read", False), "as_read"), placed, guessed)


def as_seen(found: Detections, fixed: dict[int, int]) -> Detections:
    """The tiles found with the faces the user set on them (those that name no found tile or face left out: what
    they say is checked after)."""
    valid = {i: k for i, k in fixed.items() if 0 <= i < len(found) and 0 <= k < len(CLASS_NAMES)}
    return apply_corrections(found, kong_named(found, valid))


async def read_json(request: Request) -> Any:
    data = await guards.read_body(request, MAX_JSON, "request")  # refused past the limit before it is all read
    try:
        return strict_loads(data)
    except (KeyTwice, NotJsonNumber) as e:
        raise BadRequest(str(e)) from None
    except (ValueError, RecursionError) as e:  # RecursionError: arrays nested thousands deep
        raise BadRequest("expected a JSON body {token, corrections, added, ignored, removed, claimed, released, win, "
                         f"self_draw, dealer, events}}; got {guards.not_json(e)}") from None


def flag(value: Any, name: str = "flag") -> bool:
    """A yes/no of the query ("1", "true", "on" …) or a JSON body (true/false); anything else is refused."""
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off", ""):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(value, bool) or value is None or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise BadRequest(f"{name} must be true or false, got {value!r}"[:200])


def situation_of(params: dict, rules: TableRules) -> Context:
    events = params.get("events") or []
    if isinstance(events, str):
        events = [e for e in events.split(",") if e]
    if not isinstance(events, list) or any(e not in EVENTS for e in events):
        raise BadRequest(f"events must be a list of: {', '.join(EVENTS)}; got {events!r}")
    payers = param_json(params.get("payers"), "payers") or []
    if not isinstance(payers, list) or not all(isinstance(p, dict) for p in payers):
        raise BadRequest("payers must be a list of objects like {\"dealer\": true, \"fa\": 1, \"melds\": []}")
    try:
        overrides = rules.for_page(param_json(params.get("rules"), "rules"))
    except ValueError as e:
        raise BadRequest(str(e)) from None
    self_draw, dealer = flag(params.get("self_draw", False), "self_draw"), flag(params.get("dealer", False), "dealer")
    bloom = params.get("bloom")
    try:
        bloom = None if bloom in (None, "") else Tile.parse(bloom)
    except ValueError as e:
        raise BadRequest(f"bloom (the kong 杠上开花 was drawn on) must be a face such as '9p' or null: {e}") from None
    try:
        check_context(events, payers)  # malformed: said now (400); not fitting the hand: the score says why
    except ValueError as e:
        raise BadRequest(str(e)) from None
    return Context(self_draw=self_draw, dealer=dealer, events=tuple(events), payers=tuple(payers), rules=overrides,
                   ruleset=rules.spec, bloom=bloom)


def param_json(value: Any, name: str) -> Any:
    """A parameter as the page sends it: JSON text in a query string, the value itself in a JSON body; None for
    none (or an empty text)."""
    if not isinstance(value, str):
        return value
    try:
        return strict_loads(value) if value.strip() else None
    except (KeyTwice, NotJsonNumber) as e:
        raise BadRequest(f"{name} in the query: {e}") from None
    except (ValueError, RecursionError):
        raise BadRequest(f"{name} in the query must be JSON, got {value[:80]!r}") from None


def seated(value: Any, context: Context) -> tuple[Seats | None, Context]:
    """The tally's seats (None: none sent) and the context with the dealer flags they give (web/seats.py)."""
    try:
        seats = parse_seats(param_json(value, "table"), context.self_draw)
    except ValueError as e:
        raise BadRequest(str(e)) from None
    if seats is None:
        return None, context
    dealer, payers = seated_flags(seats, context.payers)
    return seats, replace(context, dealer=dealer, payers=payers)
