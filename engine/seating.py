"""A §10 result between the four seats at the table: who pays a win at a seat, the payers a round's win is scored
with (each marked dealer or not from the seats), and each payment settled seat to seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .limits import shown
from .ruleset import Ruleset, load_ruleset


def _base(ruleset: Any) -> Ruleset | None:
    if ruleset is not None and not isinstance(ruleset, Ruleset):
        raise ValueError(f"the base ruleset must be a Ruleset (load_ruleset(\"text000\")) or None, got {ruleset!r}")
    return ruleset


def paying_seats(seat: int, discarder: int | None) -> list[int]:
    """Who pays a win at ``seat``, in the order of its payers: the discarder, or on 自摸 the three others from the
    winner's 下家 on."""
    return [discarder] if discarder is not None else [(seat + k) % 4 for k in (1, 2, 3)]


def _seated_payers(payers: Any, seat: int, discarder: int | None, dealer: int) -> Any:
    """The payers of a win at ``seat``, each marked dealer or not from the seats (§8: the dealer's payment is
    doubled): missing ones are plain players; a ``dealer`` flag that disagrees with the seats is refused."""
    paying = paying_seats(seat, discarder)
    if payers is None:
        payers = []
    if not isinstance(payers, list) or not all(isinstance(p, Mapping) for p in payers):
        return payers  # score_situation says what was expected
    out = []
    for k, p in enumerate(payers):  # more than there are: score_situation refuses them
        p = dict(p)
        if k < len(paying):
            flag = p.setdefault("dealer", paying[k] == dealer)
            if flag is not (paying[k] == dealer):
                raise ValueError(f"seat {seat}: payer {k + 1} (seat {paying[k]}) dealer flag is {flag!r}, but the "
                                 f"round's dealer is seat {dealer}")
        out.append(p)
    out += [{"dealer": s == dealer} for s in paying[len(out):]]
    return out


def seat_settlement(result: Mapping[str, Any], seat: int, discarder: int | None, dealer: int,
                    rules: Ruleset | None = None) -> dict[str, Any]:
    """A §10 result between the four seats: its ``payments``, each with the ``seat`` on the other side, and
    ``deltas``, what each seat wins (+) or pays (−). ``seat`` won (or claimed), ``discarder`` discarded (None:
    自摸), ``dealer`` deals this hand.

    A win is paid by the discarder, or on 自摸 by the three others from the winner's 下家 on; a false claim pays
    every other seat, the discarder first. A false claim's situation names one payer on a discard, so its
    penalty to the two others could not be doubled for a dealer among them: the seats are known here, and each
    payment, a win's or a penalty, is doubled with the dealer on either side (§7, §8), whatever the situation's
    dealer flags said.
    """
    for who in (seat, dealer, *(() if discarder is None else (discarder,))):
        if isinstance(who, bool) or not isinstance(who, int) or who not in range(4):  # (1.0 is in range(4))
            raise ValueError(f"seats are 0..3 in order of play, got {shown(who)}")
    if not isinstance(result, Mapping) or "valid" not in result or "payments" not in result:
        raise ValueError(f"result must be a score_situation result (with \"valid\" and \"payments\"), got {result!r}"[:300])
    rules = _base(rules)
    if discarder == seat:
        raise ValueError(f"the discarder (seat {discarder}) cannot win on their own discard")
    others = [(seat + k) % 4 for k in (1, 2, 3)]
    if result["valid"]:
        counterparts = [discarder] if discarder is not None else others
    else:
        counterparts = others if discarder is None else [discarder] + [o for o in others if o != discarder]
    _check_payments(result["payments"])
    if len(result["payments"]) != len(counterparts):
        raise ValueError(f"a {'self-drawn' if discarder is None else 'discard'} {'win' if result['valid'] else 'claim'} "
                         f"has {len(counterparts)} payment(s), the result has {len(result['payments'])}")
    factor = int((rules or load_ruleset()).settlement["dealer_factor"])
    payments, deltas = [], [0, 0, 0, 0]
    for p, other in zip(result["payments"], counterparts, strict=True):
        p = {**p, "seat": other}
        p["amount"] = p["pao"] * (factor if dealer in (seat, other) else 1)  # the seats decide, not the flags
        if p["payer"] == "claimant":
            deltas[seat] -= p["amount"]
            deltas[other] += p["amount"]
        else:
            deltas[other] -= p["amount"]
            deltas[seat] += p["amount"]
        payments.append(p)
    return {"payments": payments, "deltas": deltas}


def _check_payments(payments: Any) -> None:
    """A result's payments as score_situation writes them: a list of objects, each with whole-number 炮 and a
    payer (the claimant, or a payer's index)."""
    if not isinstance(payments, list):
        raise ValueError(f"a result's \"payments\" is a list, got {shown(payments)}")
    for k, p in enumerate(payments):
        pao = p.get("pao") if isinstance(p, Mapping) else None
        payer = p.get("payer") if isinstance(p, Mapping) else None
        if (isinstance(pao, bool) or not isinstance(pao, int) or isinstance(payer, bool)
                or not (payer == "claimant" or isinstance(payer, int))):
            raise ValueError(f"payment {k} must be a score_situation payment (with whole-number \"pao\" and a "
                             f"\"payer\"), got {shown(p)}")
