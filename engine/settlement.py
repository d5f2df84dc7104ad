"""Settlement (RULES.md §6–§8): 吃炮 from each payer, dealer doubling, 诈胡 penalties, 跟庄,
and who deals next. Seats are numbered 0..3 in the order of play (counter-clockwise)."""

from __future__ import annotations

from typing import Final, NamedTuple

from .hand import Hand, Payer, WinContext, robbed
from .melds import MeldKind
from .ruleset import Ruleset
from .tiles import Tile

CLAIMANT: Final = -1  # payer/payee index meaning the winner (or the false winner)
_DRAGONS: Final = (Tile.ZHONG, Tile.BAI)


class Payment(NamedTuple):
    """One payment. ``payer``/``payee`` index the payers (CLAIMANT = the winning player)."""

    payer: int
    payee: int
    eaten: int
    pao: int
    amount: int


def eaten_from(payer: Payer, win_tile: int, events: frozenset[str], rules: Ruleset) -> int:
    """§6 吃炮: the bonus 炮 the winner eats from what one payer shows."""
    if not payer.melds and not payer.fa:
        return 0
    eat = rules.eating
    melds = payer.melds
    if "kong_tears" in events:  # the kong just made by the discarder is not eaten
        for i in range(len(melds) - 1, -1, -1):
            if melds[i].kind is not MeldKind.PUNG:
                melds = melds[:i] + melds[i + 1:]
                break
    if "robbing_kong" in events:  # the robbed kong never happened: it stays a pung
        melds = robbed(melds, win_tile)
    total = eat["four_fa"] if payer.fa == 4 else payer.fa * eat["fa"]
    dragon_melds = [m for m in melds if m.tile in _DRAGONS]
    if {m.tile for m in dragon_melds} == set(_DRAGONS):  # an exposed 红旗飘飘
        table = rules.eating_hong_qi
        total += table["base"] + sum(table[m.kind.value] for m in dragon_melds)
    else:
        names = {"pung": "dragon_pung", "kong": "dragon_kong", "concealed_kong": "dragon_concealed_kong"}
        total += sum(eat[names[m.kind.value]] for m in dragon_melds)
    for m in melds:
        if m.tile not in _DRAGONS and m.kind is not MeldKind.PUNG:
            total += eat["kong" if m.kind is MeldKind.KONG else "concealed_kong"]
    return total


_PLAIN: Final = Payer()


def padded_payers(ctx: WinContext) -> tuple[Payer, ...]:
    """The payers of this win (missing ones are plain non-dealers): 1 on a discard, 3 on 自摸."""
    n = 3 if ctx.self_draw else 1
    return ctx.payers + (_PLAIN,) * (n - len(ctx.payers))


def settle(valid: bool, own: int, hand: Hand, ctx: WinContext, rules: Ruleset) -> tuple[Payment, ...]:
    """§8 payments of a claim; for 诈胡 the claimant pays the penalty to each other player."""
    factor = rules.settlement["dealer_factor"]
    if not valid:
        penalty = rules.settlement["false_win_penalty"]
        others = tuple(ctx.payers) + (Payer(),) * (3 - len(ctx.payers))
        return tuple(
            Payment(CLAIMANT, i, 0, penalty, penalty * (factor if ctx.dealer or p.dealer else 1))
            for i, p in enumerate(others)
        )
    payers = padded_payers(ctx)
    if not ctx.payers:  # nobody shows anything: nothing to eat
        return tuple(Payment(i, CLAIMANT, 0, own, own * (factor if ctx.dealer else 1)) for i in range(len(payers)))
    eaten = [eaten_from(p, hand.win_tile, ctx.events, rules) for p in payers]
    if ctx.self_draw and rules.options["self_draw_eating"] == "pool":
        eaten = [sum(eaten)] * len(payers)
    out = []
    for i, (p, e) in enumerate(zip(payers, eaten, strict=True)):
        pao = own + e
        out.append(Payment(i, CLAIMANT, e, pao, pao * (factor if ctx.dealer or p.dealer else 1)))
    return tuple(out)


def follow_dealer(tile: object, rules: object) -> tuple[Payment, ...]:
    """§8 跟庄: the three others discarded the dealer's first discard; the dealer pays each.

    Payer CLAIMANT here is the dealer; payees 0..2 are the other three players.
    """
    # typed object, checked: text such as '中' used to pass as a plain tile (paid as one), and compiled, a rules
    # that is no Ruleset was a TypeError
    if not isinstance(tile, Tile):
        raise ValueError(f"跟庄 takes the dealer's first discard as a Tile (Tile.parse('中')), got {tile!r}")
    if not isinstance(rules, Ruleset):
        raise ValueError(f"rules must be a Ruleset (load_ruleset()), got {type(rules).__name__}")
    if tile is Tile.FA:
        raise ValueError("跟庄 follows the dealer's first discard, which is never 发 (a 发 is set aside), got 发")
    s = rules.settlement
    pao = s["follow_dealer_dragon"] if tile in _DRAGONS else s["follow_dealer"]
    amount = pao * (s["dealer_factor"] if s["follow_dealer_doubled"] else 1)
    return tuple(Payment(CLAIMANT, i, 0, pao, amount) for i in range(3))


def _seat(seat: object) -> int:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(4):
        raise ValueError(f"seats are 0..3 in order of play, got {seat!r}")
    return seat


def next_dealer(dealer: object, winners: object, discarder: object = None) -> int:
    """§8: the winner deals next; several winners on one discard: the first one in play order
    after the discarder; nobody won (黄庄): the dealer stays."""
    # typed object: compiled, int parameters would take True as seat 1 and refuse 1.0 with a TypeError
    if not isinstance(winners, (list, tuple)):
        raise ValueError(f"winners must be a list of seats 0..3, got {winners!r}")
    dealer = _seat(dealer)
    winners = [_seat(w) for w in winners]
    discarder = None if discarder is None else _seat(discarder)
    if not winners:
        return dealer
    if discarder is None:
        if len(winners) != 1:
            raise ValueError(f"a self-drawn win has one winner, got {list(winners)}")
        return winners[0]
    if discarder in winners:
        raise ValueError(f"the discarder (seat {discarder}) cannot win on their own discard")
    for step in (1, 2, 3):
        seat = (discarder + step) % 4
        if seat in winners:
            return seat
    raise AssertionError("unreachable")
