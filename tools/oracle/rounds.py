"""``settle_round(round) -> result``: a whole round settled between the four seats (RULES.md §6-§8, §7's 诈胡).

A round is docs/engine.md's object with ``"wins"``: ``{"dealer": 0, "discarder": 1, "follow_dealer": "中",
"wins": [{"seat": 3, ...situation}]}``. Each win is scored on its own by ``score`` (一炮多响); the seats, never the
situations' ``dealer`` flags, say who pays whom and which payment is doubled. Points the contract leaves open,
read literally:

- seats 0-3 are numbered in order of play, so "counter-clockwise from the discarder" is discarder+1, +2, +3;
- no ``discarder`` means 自摸: a win without ``self_draw`` takes it from that, one that says otherwise is refused;
- on 自摸 the listed payers are the seats after the winner in order of play; missing ones are plain players;
- a false claim pays the other three seats in order of play from the discarder (on 自摸, from the claimant);
- only a valid win passes the deal: when every claim is false the dealer stays, as after 黄庄;
- the round holds no tile five times and no fifth 发 (§1), counting a discarded tile once however many claim
  it, and each seat's shown melds and 发 once (one seat shows one thing); claims on one discard are on one
  tile. (A 抢杠 payer never lists the kong robbed, as score.py reads it: the engine takes one listed as its pung.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .notation import N_KINDS, BadInput, Tile, is_dragon, parse_tile
from .score import DEALER_FACTOR, FALSE_WIN_PAO, Payer, Situation, read_situation, score
from .shapes import counts_of

SEATS = 4
FOLLOW_PAO = 1  # 跟庄: the dealer pays each other seat 1炮, 2炮 on 中 or 白 (§8)
FOLLOW_DRAGON_PAO = 2
COPIES = 4  # of each tile, and of 发 (§1)


@dataclass(frozen=True)
class Round:
    dealer: int
    discarder: int | None  # None: a 自摸 or a drawn hand
    seats: tuple[int, ...]  # the claimants, as listed
    wins: tuple[dict[str, Any], ...]  # their situations as the oracle scores them: flags cleared, self_draw set
    follow_dealer: Tile | None
    copies: tuple[int, ...]  # each tile kind on the table, for a generator that needs a tile nobody holds

    def factor(self, one: int, other: int) -> int:
        """§8 庄家翻倍: any payment to or from the dealer is doubled."""
        return DEALER_FACTOR if self.dealer in (one, other) else 1


def after(seat: int) -> list[int]:
    """The other three seats in order of play from ``seat``."""
    return [(seat + k) % SEATS for k in range(1, SEATS)]


def payer_seats(discarder: int | None, seat: int) -> list[int]:
    """The seats a win's ``payers`` stand for: the discarder, or on 自摸 the three after the winner."""
    return after(seat) if discarder is None else [discarder]


def _seat(value: Any, field: str) -> int:
    if type(value) is not int or not 0 <= value < SEATS:
        raise BadInput(f"{field}: a seat 0-3")
    return value


def _flag_agrees(entry: dict[str, Any], key: str, expected: bool, who: str) -> None:
    """A ``dealer`` or ``self_draw`` flag, where given, is true or false (§10) and says what the seats say."""
    if key in entry and entry[key] is not expected:
        raise BadInput(f"{who}: {key} {entry[key]!r} disagrees with the round's seats")


def _prepared(win: Any, seat: int, seats_paying: list[int], dealer: int, discarder: int | None) -> dict[str, Any]:
    """The win as ``score`` reads it: every flag checked against the seats, then cleared (the seats double)."""
    if not isinstance(win, dict):
        raise BadInput("a win is an object")
    self_draw = discarder is None
    _flag_agrees(win, "self_draw", self_draw, f"seat {seat}")
    _flag_agrees(win, "dealer", seat == dealer, f"seat {seat}")
    payers = win.get("payers") or []
    if not isinstance(payers, list) or len(payers) > len(seats_paying):
        raise BadInput(f"seat {seat}: at most {len(seats_paying)} payers")
    for entry, payer_seat in zip(payers, seats_paying, strict=False):
        if not isinstance(entry, dict):
            raise BadInput("a payer is an object")
        _flag_agrees(entry, "dealer", payer_seat == dealer, f"seat {seat}'s payer seat {payer_seat}")
    situation = {key: value for key, value in win.items() if key != "seat"}
    return {**situation, "self_draw": self_draw, "dealer": False,
            "payers": [{**entry, "dealer": False} for entry in payers]}


def _table(discarder: int | None, seats: list[int], parsed: list[Situation],
           paying: list[list[int]]) -> tuple[int, ...]:
    """The round's tiles by kind; BadInput where no set of 120 tiles could lay them out (§1)."""
    copies = [0] * N_KINDS
    fa = 0
    shown: dict[int, Payer] = {}
    for seat, sit, seats_paying in zip(seats, parsed, paying, strict=True):
        hand = counts_of(list(sit.hand))
        if discarder is not None:
            hand[sit.win_tile] -= 1  # the one discarded tile stands in every winner's hand: counted once below
        copies = [c + h for c, h in zip(copies, hand, strict=True)]
        shown[seat] = Payer(fa=sit.fa, melds=sit.melds)
        for payer_seat, payer in zip(seats_paying, sit.payers, strict=False):
            if shown.setdefault(payer_seat, payer) != payer:
                raise BadInput(f"seat {payer_seat} shows different melds or 发 in two wins")
    for payer in shown.values():
        fa += payer.fa
        for kind, tile in payer.melds:
            copies[tile] += 3 if kind == "pung" else 4
    if discarder is not None:
        tiles = {sit.win_tile for sit in parsed}
        if len(tiles) > 1:  # one discard is one tile (the engine refuses it too since session 55)
            raise BadInput("claims on one discard are on one tile")
        for tile in tiles:
            copies[tile] += 1
    if max(copies) > COPIES or fa > COPIES:
        raise BadInput("more than four copies of a tile, or of 发, in the round (§1)")
    return tuple(copies)


def read_round(round_: Any) -> Round:
    """The round's seats and wins; BadInput where the contract or a table of 120 tiles does not allow them."""
    if not isinstance(round_, dict):
        raise BadInput("a round is an object")
    dealer = _seat(round_.get("dealer"), "dealer")
    discarder = None if round_.get("discarder") is None else _seat(round_["discarder"], "discarder")
    wins = [] if round_.get("wins") is None else round_["wins"]
    if not isinstance(wins, list):
        raise BadInput("wins: a list")
    seats = [_seat(w.get("seat") if isinstance(w, dict) else None, "a win's seat") for w in wins]
    if len(set(seats)) < len(seats) or discarder in seats:
        raise BadInput("each seat claims once, and never on its own discard")
    if len(seats) > 1 and discarder is None:
        raise BadInput("several winners need a discarder (一炮多响 is on one discard)")
    follow = round_.get("follow_dealer")
    if follow is not None and not isinstance(follow, str):
        raise BadInput("follow_dealer: one tile, or null")
    follow_tile = parse_tile(follow) if follow is not None else None
    paying = [payer_seats(discarder, seat) for seat in seats]
    prepared = [_prepared(*args, dealer, discarder) for args in zip(wins, seats, paying, strict=True)]
    copies = _table(discarder, seats, [read_situation(w) for w in prepared], paying)
    return Round(dealer, discarder, tuple(seats), tuple(prepared), follow_tile, copies)


def _deltas(payments: list[dict[str, Any]], to: int | None = None, paid_by: int | None = None) -> list[int]:
    """What each seat wins or pays: every payment goes from its ``seat`` to ``to``, or to its seat from ``paid_by``."""
    deltas = [0] * SEATS
    for p in payments:
        winner, loser = (to, p["seat"]) if to is not None else (p["seat"], paid_by)
        assert winner is not None and loser is not None
        deltas[winner] += p["amount"]
        deltas[loser] -= p["amount"]
    return deltas


def _settled(rnd: Round, seat: int, situation: dict[str, Any]) -> dict[str, Any]:
    """One claim's ``score`` with each payment's seat and amount doubled by the seats, and its deltas."""
    result = score(situation)
    if result["valid"]:
        seats = payer_seats(rnd.discarder, seat)
        payments = [{**p, "seat": s, "amount": p["pao"] * rnd.factor(seat, s)}
                    for p, s in zip(result["payments"], seats, strict=True)]
        return {"seat": seat, **result, "payments": payments, "deltas": _deltas(payments, to=seat)}
    # §7: 20 to each other seat; the discarder first, since the situation names only that one (docs/engine.md)
    seats = after(seat if rnd.discarder is None else rnd.discarder)
    if rnd.discarder is not None:
        seats = [rnd.discarder] + [s for s in seats if s != seat]
    payments = [{"payer": "claimant", "payee": i, "seat": s, "pao": FALSE_WIN_PAO,
                 "amount": FALSE_WIN_PAO * rnd.factor(seat, s)} for i, s in enumerate(seats)]
    return {"seat": seat, **result, "payments": payments, "deltas": _deltas(payments, paid_by=seat)}


def next_dealer(rnd: Round, results: list[dict[str, Any]]) -> int:
    """§8: the winner; of several, the first in order of play from the discarder; with no valid win the dealer."""
    winners = [r["seat"] for r in results if r["valid"]]
    if not winners:
        return rnd.dealer
    if rnd.discarder is None:
        return winners[0]
    return next(s for s in after(rnd.discarder) if s in winners)


def follow_payments(rnd: Round) -> list[dict[str, Any]]:
    """§8 跟庄: the dealer pays each other seat 1炮 (2 on 中/白), doubled as a payment from the dealer."""
    if rnd.follow_dealer is None:
        return []
    pao = FOLLOW_DRAGON_PAO if is_dragon(rnd.follow_dealer) else FOLLOW_PAO
    return [{"seat": s, "pao": pao, "amount": pao * rnd.factor(rnd.dealer, s)} for s in after(rnd.dealer)]


def settle_round(round_: dict[str, Any]) -> dict[str, Any]:
    """The seats, ``results`` (one per claim, with seats and deltas), ``follow_dealer`` payments, ``next_dealer``
    and ``deltas`` (what seats 0-3 win or pay in the round; they sum to 0)."""
    rnd = read_round(round_)
    results = [_settled(rnd, seat, win) for seat, win in zip(rnd.seats, rnd.wins, strict=True)]
    follow = follow_payments(rnd)
    deltas = _deltas(follow, paid_by=rnd.dealer)
    for result in results:
        deltas = [d + r for d, r in zip(deltas, result["deltas"], strict=True)]
    return {"dealer": rnd.dealer, "discarder": rnd.discarder, "results": results, "follow_dealer": follow,
            "next_dealer": next_dealer(rnd, results), "deltas": deltas}
