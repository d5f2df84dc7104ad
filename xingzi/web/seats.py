"""The page's tally at a table of four: the seats it sends with a score, and the score settled between them by the
engine (who pays whom, the deal's next holder), so that the page does no settlement of its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xingzi.engine import next_dealer, seat_settlement
from xingzi.engine.ruleset import Ruleset
from xingzi.engine.seating import paying_seats

EXPECTED = ('table must be {"winner": 0-3, "discarder": 0-3 or null, "dealer": 0-3, "before": [winners already '
            'added on this discard]}')

WINDS = ("East", "South", "West", "North")  # the seats as the engine numbers them, in the order of play


@dataclass(frozen=True)
class Seats:
    """Who won or claimed, who discarded (None: 自摸), who deals this hand, and the winners already added on this
    same discard (一炮多响), first to last."""

    winner: int
    discarder: int | None
    dealer: int
    before: tuple[int, ...] = ()


def _seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in range(4)


def parse_seats(value: Any, self_draw: bool) -> Seats | None:
    """The seats of a request (None: none sent); ValueError saying what was expected."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{EXPECTED}, got {value!r}"[:300])
    fields: list[Any] = [value.get(k) for k in ("winner", "discarder", "dealer", "before")]
    winner, discarder, dealer, before = fields
    before = [] if before is None else before
    if not (_seat(winner) and _seat(dealer) and (discarder is None or _seat(discarder))
            and isinstance(before, list) and all(_seat(s) for s in before)):
        raise ValueError(f"{EXPECTED}, got {value!r}"[:300])
    if self_draw:
        if before:
            raise ValueError(f"a self-drawn win has one winner: no winners before it, got {value!r}"[:300])
        return Seats(winner, None, dealer)
    if discarder is None:
        raise ValueError("a discard win needs a discarder other than the winner: none was sent (a self-drawn win is "
                         "sent with self_draw true)")
    if discarder == winner:  # said in words: the page shows it as it is (a raw dict there told a player nothing)
        raise ValueError(f"a discard win needs a discarder other than the winner: seat {winner} ({WINDS[winner]}) "
                         "is sent as both")
    if discarder in before or winner in before or len(set(before)) != len(before):
        raise ValueError(f"the winners before on this discard are other seats than the discarder and the winner, "
                         f"each once, got {value!r}"[:300])
    return Seats(winner, discarder, dealer, tuple(before))


def seated_flags(seats: Seats, payers: Sequence[Mapping[str, Any]]) -> tuple[bool, tuple[dict[str, Any], ...]]:
    """The dealer flags the seats give: the winner's, and each payer's (the discarder, or on 自摸 the three others
    from the winner's 下家 on; a payer not sent is a plain one showing nothing). While the tally is open its seats
    say who deals (the table's settlement doubles by them, whatever the flags said), so the score's own payments
    follow them too instead of doubling another payment."""
    paying = paying_seats(seats.winner, seats.discarder)
    sent = list(payers) + [{"fa": 0, "melds": []}] * (len(paying) - len(payers))
    flagged = [{**p, "dealer": k < len(paying) and paying[k] == seats.dealer} for k, p in enumerate(sent)]
    return seats.dealer == seats.winner, tuple(flagged)


def table_view(result: dict, seats: Seats, ruleset: Ruleset | None = None) -> dict:
    """The result between the seats: payments with their seats, each seat's delta, and who deals next (the
    winner; with several on one discard the first after the discarder; after a false claim the deal stays)."""
    winners = [*seats.before, seats.winner] if result["valid"] else list(seats.before)
    return {"winner": seats.winner, "discarder": seats.discarder, "dealer": seats.dealer, "before": list(seats.before),
            **seat_settlement(result, seats.winner, seats.discarder, seats.dealer, ruleset),
            "next_dealer": next_dealer(seats.dealer, winners, seats.discarder)}
