"""The values scoring works on: Hand (the winner's tiles), Payer, WinContext. Built and checked
here, so that scoring never sees a hand that could not exist on a table."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, TypeVar

from .melds import Meld, MeldKind
from .tiles import TILES, Tile

_INDEX_OF_VALUE: Final = {t.value: i for i, t in enumerate(TILES)}
EVENTS: Final = ("kong_bloom", "kong_tears", "robbing_kong", "hai_di_lao_yue", "hai_di_pao",
                 "tong_ku", "shang_xin", "hui_tou", "tao_sheng", "wang_en")
EVENT_NAMES: Final = {"kong_bloom": "杠上开花", "kong_tears": "杠上流泪", "robbing_kong": "抢杠", "hai_di_lao_yue": "海底捞月",
                      "hai_di_pao": "海底放炮", "tong_ku": "痛苦", "shang_xin": "伤心痛苦", "hui_tou": "回头一笑",
                      "tao_sheng": "涛声依旧", "wang_en": "忘恩负义"}
SELF_DRAW_EVENTS: Final = frozenset({"kong_bloom", "hai_di_lao_yue"})
DISCARD_EVENTS: Final = frozenset({"kong_tears", "robbing_kong", "hai_di_pao", "hui_tou", "wang_en"})
_C = TypeVar("_C")


@dataclass(frozen=True)
class Hand:
    """The winner's concealed tiles as a count vector (winning tile included), melds, 发 count."""

    counts: tuple[int, ...]
    win_tile: int
    melds: tuple[Meld, ...] = ()
    fa: int = 0

    @property
    def tiles(self) -> list[Tile]:
        return [TILES[i] for i, n in enumerate(self.counts) for _ in range(n)]

    @cached_property  # (a compiled build reads it afresh each time: the plain enum fields keep that cheap)
    def meld_ids(self) -> tuple[tuple[str, int], ...]:
        """(kind, tile id) of each meld in the order made; cached as enum lookups are slow."""
        return tuple((m.kind._value_, _INDEX_OF_VALUE[m.tile._value_]) for m in self.melds)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickle and copy rebuild from the fields: a compiled (mypyc) frozen dataclass cannot be
        # restored attribute by attribute
        return (Hand, (self.counts, self.win_tile, self.melds, self.fa))


def _python_class(cls: type[_C]) -> type[_C]:
    """Leaves a class as it is. Under mypyc a decorator it does not know keeps the class an ordinary Python
    class (as scoring.Score): its fields are then stored as given in both builds, so that its own checks see
    True or 1.0 where a compiled int field would have taken True as 1 and refused 1.0 with a TypeError."""
    return cls


@_python_class
@dataclass(frozen=True)
class Payer:
    """What a paying player shows in front of them (for 吃炮). Checked when made: ValueError saying what is wrong."""

    dealer: bool = False
    fa: int = 0
    melds: tuple[Meld, ...] = ()

    def __post_init__(self) -> None:
        # read from __dict__, as given: compiled, self.fa would be read as an int (True as 1, 1.0 a TypeError)
        fields = self.__dict__
        dealer, fa, melds = fields["dealer"], fields["fa"], fields["melds"]
        if not isinstance(dealer, bool):
            raise ValueError(f"Payer dealer must be True or False, got {dealer!r}")
        if not isinstance(fa, int) or isinstance(fa, bool) or not 0 <= fa <= 4:
            raise ValueError(f"Payer fa (发 in front of the payer) must be 0..4, got {fa!r}")
        if not isinstance(melds, (list, tuple)) or len(melds) > 4 or not all(isinstance(m, Meld) for m in melds):
            raise ValueError(f"Payer melds must be up to 4 Meld (parse_meld('pung 中')), got {melds!r}")
        if isinstance(melds, list):
            object.__setattr__(self, "melds", tuple(melds))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Payer, (self.dealer, self.fa, self.melds))  # as Hand.__reduce__


@dataclass(frozen=True)
class WinContext:
    """How the hand was won and who pays. ``payers`` as given (padding happens at settlement)."""

    self_draw: bool = False
    dealer: bool = False
    events: frozenset[str] = frozenset()
    payers: tuple[Payer, ...] = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (WinContext, (self.self_draw, self.dealer, self.events, self.payers))  # as Hand.__reduce__


def make_hand(tiles: object, win_tile: object, melds: object = (), fa: object = 0) -> Hand:
    """Check and build a Hand. Raises ValueError naming what is wrong."""
    # every parameter typed object: compiled, a typed one would take True as 1 for fa, and refuse a tuple for
    # the list of tiles (or a list for the melds) with a TypeError, before the checks below could say what came
    if not isinstance(fa, int) or isinstance(fa, bool) or not 0 <= fa <= 4:
        raise ValueError(f"fa (发 in front of the winner) must be 0..4, got {fa!r}")
    if not isinstance(tiles, (list, tuple)) or not all(isinstance(t, Tile) for t in tiles):
        raise ValueError(f"tiles must be a list of Tile (parse_tiles('123m456p中中')), got {_first_not(tiles, Tile)}")
    if not isinstance(melds, (list, tuple)) or not all(isinstance(m, Meld) for m in melds):
        raise ValueError(f"melds must be a tuple of Meld (parse_meld('pung 中')), got {_first_not(melds, Meld)}")
    if win_tile is not None and not isinstance(win_tile, Tile):
        raise ValueError(f"win_tile must be a Tile (Tile.parse('3m')) or None, got {win_tile!r}")
    melds = tuple(melds)
    if len(melds) > 4:
        raise ValueError(f"at most 4 melds, got {len(melds)}")
    if Tile.FA in tiles:
        raise ValueError("发 is a bonus tile and never part of a hand: set it aside and count it with fa=N")
    expected = 14 - 3 * len(melds)
    if len(tiles) != expected:
        raise ValueError(
            f"a winning hand with {len(melds)} meld(s) has {expected} tiles standing in the hand "
            f"(winning tile included), got {len(tiles)}"
        )
    if win_tile is None:
        raise ValueError("winning tile missing: give win_tile, or write the hand as '12m456m789p22345s 3m'")
    if win_tile not in tiles:
        raise ValueError(f"winning tile {win_tile.symbol} is not among the hand's tiles")
    counts = [0] * len(TILES)
    for t in tiles:
        counts[_INDEX_OF_VALUE[t._value_]] += 1  # the enum's index property is slow in bulk
    _check_copies(counts, melds, "the winner's hand and melds")
    return Hand(tuple(counts), win_tile.index, melds, fa)


def _first_not(value: object, kind: type) -> str:
    """For a message: what came instead of a list of ``kind`` (its type, or the first item that is not one)."""
    if not isinstance(value, (list, tuple)):
        return repr(value) if value is None or isinstance(value, (str, bytes, int, float)) else type(value).__name__
    bad = next(v for v in value if not isinstance(v, kind))
    return f"{bad!r} ({type(bad).__name__}) among them"


def _check_copies(counts: list[int], melds: tuple[Meld, ...], what: str) -> list[int]:
    total = list(counts)
    for m in melds:
        total[m.tile.index] += m.kind.size
    for i, n in enumerate(total):
        if n > 4:
            raise ValueError(f"{n} copies of {TILES[i].symbol} in {what}: a set has only 4 of each tile")
    return total


def make_context(hand: object, self_draw: object, dealer: object, events: object, payers: object = ()) -> WinContext:
    """Check events and payers against the hand and build the WinContext."""
    # typed object: compiled, typed parameters would refuse 1 for True (or a list of payers) with a TypeError
    # before these checks could say what was expected
    if not isinstance(hand, Hand):
        raise ValueError(f"hand must be a Hand (make_hand(...)), got {type(hand).__name__}")
    if not isinstance(self_draw, bool):
        raise ValueError(f"self_draw must be True or False, got {self_draw!r}")
    if not isinstance(dealer, bool):
        raise ValueError(f"dealer must be True or False, got {dealer!r}")
    if not isinstance(events, (list, tuple, set, frozenset)):
        raise ValueError(f"events must be a list of event names, got {events!r}")
    if not isinstance(payers, (list, tuple)) or not all(isinstance(p, Payer) for p in payers):
        raise ValueError(f"payers must be a tuple of Payer, got {_first_not(payers, Payer)}")
    for e in events:
        if e not in EVENTS:
            raise ValueError(f"unknown event {e!r}; expected any of {', '.join(EVENTS)}")
    ev = frozenset(events)
    check_claim(self_draw, dealer, ev, [p.dealer for p in payers])
    if "kong_bloom" in ev and not any(m.kind is not MeldKind.PUNG for m in hand.melds):
        raise ValueError("kong_bloom needs the kong just made among the winner's melds (e.g. 'kong 9p')")
    if "robbing_kong" in ev:  # the kong maker's pung held three of the winning tile, the robbed tile is the fourth
        held = hand.counts[hand.win_tile] + sum(m.kind.size for m in hand.melds if m.tile.index == hand.win_tile)
        if held > 1:
            t = TILES[hand.win_tile].symbol
            raise ValueError(f"robbing_kong: the kong maker had a pung of {t} and added the fourth, so the winner "
                             f"holds no other {t}, got {held - 1}")
    if payers and not self_draw:
        _check_kong_maker(payers[0].melds, hand.win_tile, ev)
        _check_tears(payers[0].melds, ev)
    if hand.fa + sum(p.fa for p in payers) > 4:
        raise ValueError("more than four 发 in front of the players in all")
    total = list(hand.counts)
    for m in hand.melds:
        total[m.tile.index] += m.kind.size
    for p in payers:
        melds = p.melds
        if "robbing_kong" in ev:  # the robbed kong stays a pung: its fourth tile is the winning tile
            melds = robbed(melds, hand.win_tile)
        total = _check_copies(total, melds, "all players' hands and melds together")
    return WinContext(bool(self_draw), bool(dealer), ev, tuple(payers))


def check_claim(self_draw: bool, dealer: bool, ev: frozenset[str], payer_dealers: list[bool]) -> None:
    """What of a claim needs no tiles to be refused (a photo not yet read is checked with it): events that need the
    other way of winning, 抢杠 with 杠上流泪, more payers than the win has, two dealers."""
    if self_draw and ev & DISCARD_EVENTS:
        raise ValueError(f"{_named(ev & DISCARD_EVENTS)} only on a discard: clear self-draw")
    if not self_draw and ev & SELF_DRAW_EVENTS:
        raise ValueError(f"{_named(ev & SELF_DRAW_EVENTS)} only by self-draw: set self-draw")
    if "robbing_kong" in ev and "kong_tears" in ev:
        raise ValueError("robbing_kong and kong_tears cannot both happen on one tile")
    if len(payer_dealers) > (3 if self_draw else 1):
        raise ValueError(
            f"{'a self-drawn win has 3 payers' if self_draw else 'a discard win has 1 payer (the discarder)'}, "
            f"got {len(payer_dealers)}"
        )
    dealers = int(dealer) + sum(payer_dealers)
    if dealers > 1:
        raise ValueError(f"only one player is the dealer, got {dealers} (winner and payers together)")


def _named(events: frozenset[str]) -> str:
    """``杠上开花 kong_bloom is won`` / ``抢杠 robbing_kong and 杠上流泪 kong_tears are won``, in the order of EVENTS."""
    names = [f"{EVENT_NAMES[e]} {e}" for e in EVENTS if e in events]
    return f"{' and '.join(names)} {'is' if len(names) == 1 else 'are'} won"


def _check_kong_maker(shown: tuple[Meld, ...], win_tile: int, ev: frozenset[str]) -> None:
    """抢杠 (RULES.md §4) robs a tile added to an exposed pung: where the kong maker's melds show that tile only as a
    concealed kong, it cannot be robbed. A pung or kong of it not listed is taken as not entered (the page lists
    only 中/白 sets and kongs), and nothing of what is eaten turns on it."""
    if "robbing_kong" not in ev:
        return
    of_win = [m for m in shown if m.tile.index == win_tile]
    if of_win and all(m.kind is MeldKind.CONCEALED_KONG for m in of_win):
        listed = ", ".join(f"{m.kind.value} {m.tile.symbol}" for m in shown)
        raise ValueError(f"robbing_kong: a concealed kong cannot be robbed (only a pung made a kong by the "
                         f"tile added), got the kong maker's {listed}")


def _check_tears(shown: tuple[Meld, ...], ev: frozenset[str]) -> None:
    """杠上流泪 (RULES.md §4, §10) is won on the discard made right after the discarder's kong, the last of their
    melds that is a kong: melds listed with no kong among them cannot be, as 杠上开花 without the winner's kong. No
    melds listed are taken as not entered (the kong is not eaten either way)."""
    if "kong_tears" in ev and shown and all(m.kind is MeldKind.PUNG for m in shown):
        listed = ", ".join(f"{m.kind.value} {m.tile.symbol}" for m in shown)
        raise ValueError(f"kong_tears needs the kong just made among the discarder's melds (e.g. 'kong 9p'), got "
                         f"the discarder's {listed}")


def robbed(melds: tuple[Meld, ...], win_tile: int) -> tuple[Meld, ...]:
    """A payer's melds with the kong robbed by 抢杠 (of the winning tile) turned back into a pung."""
    out = list(melds)
    for i in range(len(out) - 1, -1, -1):
        if out[i].kind is MeldKind.KONG and out[i].tile.index == win_tile:
            out[i] = Meld(MeldKind.PUNG, out[i].tile)
            break
    return tuple(out)
