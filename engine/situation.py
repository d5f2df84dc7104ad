"""The §10 JSON contract: a situation dict in, a result dict out. Also whole rounds
(several winners on one discard, 跟庄, the next dealer) as an extension of the contract."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .hand import EVENTS, Hand, Payer, WinContext, _check_copies, make_context, make_hand, robbed
from .items import NAMES
from .limits import HAND_CHARS, MELD_CHARS, check_shape, check_text, shown
from .melds import Meld
from .notation import check_written_win, format_counts, format_meld, parse_hand, parse_meld, parse_tiles
from .ruleset import Ruleset, load_ruleset
from .scoring import SYMBOLS, Score, score_hand
from .seating import _base, _seated_payers, seat_settlement
from .settlement import CLAIMANT, Payment, follow_dealer, next_dealer
from .tiles import Tile
from .unscored import events_not_counted


def _said(value: Any) -> str:
    """A value as the JSON it came from spells it where Python would not (true, false, null); others as Python does."""
    return json.dumps(value) if value is None or isinstance(value, bool) else shown(value)


def _bool(s: Mapping, key: str, default: bool = False) -> bool:
    value = s.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{key!r} must be true or false, got {_said(value)}")
    return value


def _int(s: Mapping, key: str, default: int = 0) -> int:
    value = s.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key!r} must be a whole number, got {_said(value)}")
    return value


def _melds(value: Any, who: str) -> tuple[Meld, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"{who} melds must be a list like [\"pung 中\", \"kong 9p\"], got {shown(value)}")
    out = []
    for m in value:
        if isinstance(m, Mapping):  # the object form, {"kind": "pung", "tile": "中"}, is taken too
            kind, tile = m.get("kind"), m.get("tile")
            if not (isinstance(kind, str) and isinstance(tile, str)):
                raise ValueError(f"{who} meld objects need \"kind\" and \"tile\" as text, like "
                                 f"{{\"kind\": \"pung\", \"tile\": \"中\"}}, got {dict(m)!r}"[:300])
            m = f"{kind} {tile}"
        check_text(m, f"{who} meld", MELD_CHARS)
        out.append(parse_meld(m))
    return tuple(out)


def _tile(text: Any, what: str) -> Tile:
    if not isinstance(text, str):
        raise ValueError(f"{what} must be one tile such as '3m' or '中', got {shown(text)}")
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise ValueError(f"{what} must be exactly one tile, got {text!r}")
    return tiles[0]


def parse_situation(s: Any, ruleset: Ruleset | None = None) -> tuple[Hand, WinContext, Ruleset]:
    """Check a §10 situation and turn it into values. Raises ValueError on malformed input."""
    ruleset = _base(ruleset)
    if not isinstance(s, Mapping):
        raise ValueError(f"a situation is a JSON object with at least \"hand\", got {type(s).__name__}")
    check_shape(s, "the situation")
    if "hand" not in s:
        raise ValueError("situation has no \"hand\" (the tiles standing in the hand, winning tile included)")
    text = s["hand"]
    if isinstance(text, list):  # pieces of notation: joined, none set apart as the winning tile (that is win_tile's)
        text = "".join(map(str, text))
    if not isinstance(text, str):
        raise ValueError(f"\"hand\" must be a tile string like '123m456p中中', got {shown(text)}")
    check_text(text, "\"hand\"", HAND_CHARS)
    tiles, separated = parse_hand(text)
    win = separated
    if s.get("win_tile") is not None:
        win = _tile(s["win_tile"], "win_tile")
        if separated is not None and win is not separated:
            raise ValueError(f"\"win_tile\" {win.symbol} disagrees with the winning tile set apart at the end of "
                             f"\"hand\", {separated.symbol}")
    melds = _melds(s.get("melds"), "the winner's")
    check_written_win(text, len(tiles), len(melds), win is None)
    hand = make_hand(tiles, win, melds, _int(s, "fa"))
    payers = _payers(s.get("payers"))
    events = _events(s.get("events"))
    ctx = make_context(hand, _bool(s, "self_draw"), _bool(s, "dealer"), events, payers)
    return hand, ctx, _rules_of(s, ruleset)


def _rules_of(s: Mapping[str, Any], ruleset: Ruleset | None) -> Ruleset:
    """The ruleset an object (a situation or a round) names in ``ruleset``, else ``ruleset`` (else the shipped
    one), with its ``rules`` on top."""
    base = ruleset
    if s.get("ruleset") is not None:
        if not isinstance(s["ruleset"], str):
            raise ValueError(f"\"ruleset\" must be a preset name or a ruleset file, got {shown(s['ruleset'])}")
        base = load_ruleset(s["ruleset"])
    return _with_overrides(base or load_ruleset(), s.get("rules"))


_OVERRIDDEN: dict[tuple[int, str], tuple[Ruleset, Ruleset]] = {}


def _with_overrides(base: Ruleset, overrides: Any) -> Ruleset:
    """``base.with_overrides``, remembered: JSON Lines often repeat the same overrides."""
    if overrides is None or overrides == {}:
        return base
    if not isinstance(overrides, Mapping):
        raise ValueError(f"\"rules\" must be an object of ruleset options and 炮 numbers, got {overrides!r}"[:300])
    try:
        key = (id(base), json.dumps(overrides, sort_keys=True))
    except TypeError:
        return base.with_overrides(overrides)
    hit = _OVERRIDDEN.get(key)
    if hit is not None and hit[0] is base:
        return hit[1]
    if len(_OVERRIDDEN) > 256:
        _OVERRIDDEN.clear()
    rules = base.with_overrides(overrides)
    _OVERRIDDEN[key] = (base, rules)
    return rules


def payment_json(p: Payment) -> dict[str, Any]:
    if p.payer == CLAIMANT:
        return {"payer": "claimant", "payee": p.payee, "pao": p.pao, "amount": p.amount}
    return {"payer": p.payer, "eaten": p.eaten, "pao": p.pao, "amount": p.amount}


def score_json(score: Score, hand: Hand, rules: Ruleset, ctx: WinContext | None = None) -> dict[str, Any]:
    """A Score as the §10 result object (plus readable extras; with ``ctx``, the events it declares that the score
    leaves out, and why: ``events_not_counted``, absent when there are none)."""
    out: dict[str, Any] = {
        "valid": score.valid,
        "own": score.own,
        "items": [{"key": k, "name": NAMES[k], "pao": v} for k, v in score.items],
        "payments": [payment_json(p) for p in score.payments],
    }
    if not score.valid:
        out["reason"] = score.reason
    out["hand"] = format_counts(hand.counts)
    out["win_tile"] = SYMBOLS[hand.win_tile]
    out["melds"] = [str(m) for m in hand.melds]
    out["reading"] = list(score.reading)
    out["waits"] = [SYMBOLS[t] for t in score.waits]
    out["ruleset"] = rules.name
    missed = events_not_counted(score, hand, ctx, rules) if ctx is not None and ctx.events else []
    if missed:
        out["events_not_counted"] = missed
    return out


def score_situation(situation: dict, ruleset: Ruleset | None = None) -> dict:
    """§10: score one situation dict and return the result dict.

    Malformed input raises ValueError; a false claim (诈胡) is a result with ``valid`` false.
    ``ruleset`` is the base ruleset (default: the shipped one); the situation's ``rules``
    overrides apply on top of it.
    """
    hand, ctx, rules = parse_situation(situation, ruleset)
    return score_json(score_hand(hand, ctx, rules), hand, rules, ctx)


# the fields a situation's reader and a round's read (RULES.md §10; any other field is let be)
SITUATION_FIELDS = ("hand", "win_tile", "melds", "fa", "self_draw", "dealer", "events", "payers", "rules", "ruleset")
ROUND_FIELDS = ("dealer", "discarder", "wins", "follow_dealer", "rules", "ruleset")


def _payers(raw: Any) -> tuple[Payer, ...]:
    raw = [] if raw is None else raw  # (0, "" or {} are no list of payers: refused, not read as none)
    if not isinstance(raw, list) or not all(isinstance(p, Mapping) for p in raw):
        raise ValueError(f"\"payers\" must be a list of objects like {{\"dealer\": true, \"fa\": 1}}, got {shown(raw)}")
    payers = []
    for i, p in enumerate(raw):
        fa = _int(p, "fa")
        if not 0 <= fa <= 4:
            raise ValueError(f"payer {i}: fa must be 0..4, got {fa}")
        melds = _melds(p.get("melds"), f"payer {i}'s")
        if len(melds) > 4:  # (the Payer's own check speaks of Python objects)
            raise ValueError(f"payer {i} shows {len(melds)} melds: a player has at most 4")
        payers.append(Payer(_bool(p, "dealer"), fa, melds))
    return tuple(payers)


def _events(raw: Any) -> list[str]:
    events = [] if raw is None else raw
    if not isinstance(events, list) or not all(isinstance(e, str) for e in events):
        raise ValueError(f"\"events\" must be a list of names, got {shown(events)}")
    return events


def check_context(events: Any, payers: Any) -> None:
    """The shape of what a §10 situation says beside the winner's tiles (``events`` a list of names, ``payers`` of
    ``{dealer, fa, melds}`` with readable melds), checked before the tiles are known (a photo not read yet):
    ValueError saying what was expected. Whether they fit the hand is the score's to say."""
    for e in _events(events):
        if e not in EVENTS:
            raise ValueError(f"unknown event {shown(e)}; expected any of {', '.join(EVENTS)}")
    _payers(payers)


def score_round(round_: Mapping[str, Any], ruleset: Ruleset | None = None) -> dict:
    """A whole hand of play: ``{"dealer": seat, "discarder": seat|null, "wins": [situation +
    {"seat": n}], "follow_dealer": tile|null}`` → results per winner (each payment with the ``seat`` paying or
    paid, and the win's ``deltas`` per seat), 跟庄 payments, the next dealer, and the round's ``deltas``: what
    each of the four seats wins or pays.

    Several ``wins`` on one discard are 一炮多响: each is scored on its own. A win's ``payers`` are marked
    dealer or not from the seats (missing ones are plain players; a flag that disagrees is refused). The
    round's ``ruleset`` and ``rules``, as a situation's, settle 跟庄 and are the base of each win, which is
    scored and settled under its own on top.
    """
    if not isinstance(round_, Mapping):
        raise ValueError(f"a round is a JSON object with \"dealer\" and \"wins\", got {type(round_).__name__}")
    check_shape(round_, "the round")
    ruleset = _rules_of(round_, _base(ruleset))  # the round's own, under each win's and over 跟庄
    if "dealer" not in round_:  # (every payment to or from the dealer is doubled: no seat can be assumed)
        raise ValueError("a round needs \"dealer\": the seat 0..3 that deals this hand")
    dealer = _int(round_, "dealer")
    discarder = round_.get("discarder")
    if discarder is not None and (not isinstance(discarder, int) or isinstance(discarder, bool)):
        raise ValueError(f"\"discarder\" must be a seat 0..3 or null, got {shown(discarder)}")
    wins = round_.get("wins")
    wins = [] if wins is None else wins  # ({} or "" are no list of wins: refused, not read as none)
    if not isinstance(wins, list):
        raise ValueError("\"wins\" must be a list of situations with a \"seat\"")
    if discarder is not None and not wins:
        raise ValueError(f"a round with no wins (a drawn hand, 黄庄) has \"discarder\": null, got {discarder}")
    results, seats = [], []
    claims: list[tuple[int, dict]] = []
    for w in wins:
        if not isinstance(w, Mapping):
            raise ValueError(f"each win is a situation object, got {shown(w)}")
        if "seat" not in w:
            raise ValueError("each win in a round needs \"seat\": the winner's seat 0..3")
        seat = _int(w, "seat")
        if seat == discarder:  # (said before its payers are seated: they would read as two dealers)
            raise ValueError(f"seat {seat}: the discarder (seat {discarder}) cannot win on their own discard")
        s = dict(w)
        s.setdefault("dealer", seat == dealer)
        s.setdefault("self_draw", discarder is None)
        s["payers"] = _seated_payers(s.get("payers"), seat, discarder, dealer)
        if s["self_draw"] != (discarder is None):
            raise ValueError(f"seat {seat}: \"self_draw\" must be {'true' if discarder is None else 'false'} when "
                             f"\"discarder\" is {'null' if discarder is None else discarder}")
        if s["dealer"] != (seat == dealer):
            raise ValueError(f"seat {seat}: dealer flag disagrees with the round's dealer seat {dealer}")
        try:
            hand, ctx, rules = parse_situation(s, ruleset)  # the win's own ruleset settles it too (its dealer factor)
        except ValueError as e:  # which of the wins it is
            raise ValueError(f"seat {seat}: {e}") from None
        result = score_json(score_hand(hand, ctx, rules), hand, rules, ctx)
        result.update(seat_settlement(result, seat, discarder, dealer, rules))
        results.append({"seat": seat, **result})
        claims.append((seat, s))
        if result["valid"]:
            seats.append(seat)
    if discarder is None and len(wins) > 1:
        raise ValueError("several winners need a discarder (一炮多响 is on one discard)")
    claimed = [r["seat"] for r in results]
    if len(set(claimed)) != len(claimed):
        raise ValueError(f"each seat wins (or claims) once in a round, got seats {claimed}")
    if len(claims) > 1:
        _check_one_discard(claims, discarder, ruleset)
    out: dict[str, Any] = {"results": results, "next_dealer": next_dealer(dealer, seats, discarder)}
    deltas = [0, 0, 0, 0]
    for r in results:
        deltas = [a + b for a, b in zip(deltas, r["deltas"], strict=True)]
    if round_.get("follow_dealer") is not None:
        try:
            tile = _tile(round_["follow_dealer"], "\"follow_dealer\"")
        except ValueError as e:  # the tile reader's own words name no field
            raise ValueError(e if str(e).startswith("\"follow_dealer\"") else f"\"follow_dealer\": {e}") from None
        # the dealer pays (the payment's "claimant" is the dealer here, so it says so)
        out["follow_dealer"] = [{**payment_json(p), "payer": "dealer"}
                                for p in follow_dealer(tile, ruleset)]
        for k, p in enumerate(out["follow_dealer"]):  # the dealer pays the others, from 下家 on
            p["seat"] = (dealer + 1 + k) % 4
            deltas[dealer] -= p["amount"]
            deltas[p["seat"]] += p["amount"]
    out["deltas"] = deltas  # what each seat wins (+) or pays (−) over the round
    return out


# what a discard itself was (the kong robbed, the discard right after a kong, the last tile): every claim on it says it
DISCARD_EVENTS = ("robbing_kong", "kong_tears", "hai_di_pao")


def _check_one_discard(claims: list[tuple[int, dict]], discarder: int | None, ruleset: Ruleset | None) -> None:
    """Claims on one discard (一炮多响) are claims on one tile, the discarder shows each of them the same 发 and
    melds, and the table holds no fifth copy: the winners' tiles (the discard counted once), their melds and 发,
    and what the discarder shows. Each claim alone has been checked already."""
    parsed = [(seat, *parse_situation(s, ruleset)[:2]) for seat, s in claims]
    tiles = {seat: SYMBOLS[hand.win_tile] for seat, hand, _ in parsed}
    if len(set(tiles.values())) > 1:
        said = ", ".join(f"seat {k} {t}" for k, t in tiles.items())
        raise ValueError(f"claims on one discard are on one tile, got {said}")
    shown = {seat: (ctx.payers[0].fa, sorted(format_meld(m) for m in ctx.payers[0].melds)) if ctx.payers else (0, [])
             for seat, _, ctx in parsed}
    if len({repr(v) for v in shown.values()}) > 1:
        told = "; ".join(f"seat {k}: fa {fa}, melds {melds}" for k, (fa, melds) in shown.items())
        raise ValueError(f"seat {discarder} shows one thing to every winner on its discard, got {told}")
    how = {seat: [e for e in DISCARD_EVENTS if e in ctx.events] for seat, _, ctx in parsed}
    if len({tuple(v) for v in how.values()}) > 1:
        told = "; ".join(f"seat {k}: {', '.join(v) or 'none of them'}" for k, v in how.items())
        raise ValueError(f"claims on one discard say the same of how it came ({', '.join(DISCARD_EVENTS)}), got {told}")
    total = [0] * len(SYMBOLS)
    for _seat, hand, _ctx in parsed:
        for i, n in enumerate(hand.counts):
            total[i] += n - (i == hand.win_tile)  # the discard each claims is one tile, counted once below
        for m in hand.melds:
            total[m.tile.index] += m.kind.size
    first_hand, first_ctx = parsed[0][1], parsed[0][2]
    total[first_hand.win_tile] += 1
    discarder_shows = first_ctx.payers[0] if first_ctx.payers else Payer()
    melds = discarder_shows.melds
    if "robbing_kong" in first_ctx.events:  # the robbed kong's fourth tile is the discard
        melds = robbed(melds, first_hand.win_tile)
    _check_copies(total, melds, "the table of one discard (its winners and what its discarder shows)")
    fa = sum(hand.fa for _, hand, _ in parsed) + discarder_shows.fa
    if fa > 4:
        raise ValueError(f"{fa} 发 in front of the winners on one discard and its discarder: a set has only 4")
