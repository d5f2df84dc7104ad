"""The rules treat the three suits alike, ranks 1..9 alike read from either end, and 中 and 白 alike, so a
situation and its image under any of these maps score the same: a metamorphic check over hands drawn to hit
the rare items (one suit, all triplets, seven pairs with runs and four of a kind, dragon sets, kongs, events,
payers' bonus 炮, every ruleset)."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine_rulesets import RULESETS
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine import Tile, format_tiles, parse_situation, parse_tiles, score_situation
from xingzi.engine.hand import DISCARD_EVENTS, EVENTS, SELF_DRAW_EVENTS
from xingzi.engine.items import Facts
from xingzi.engine.scoring import active_events, readings, value

PLAYABLE = [t for t in Tile if t is not Tile.FA]
MELD_KINDS = ("pung", "kong", "concealed_kong")


def _pool(rng: random.Random) -> list[Tile]:
    suits = rng.choice(["m", "p", "s", "mp", "ps", "mps"])
    ranks = range(1, 10) if rng.random() < 0.6 else range(rng.randint(1, 4), rng.randint(6, 9) + 1)
    tiles = [Tile(f"{r}{s}") for s in suits for r in ranks]
    return tiles + [Tile.ZHONG, Tile.BAI] * (rng.random() < 0.5)


def _sets_and_pair(rng: random.Random, pool: list[Tile]) -> tuple[list[Tile], list[tuple[str, Tile]]]:
    concealed: list[Tile] = []
    melds: list[tuple[str, Tile]] = []
    for _ in range(4):
        starts = [t for t in pool if t.rank is not None and t.rank <= 7 and Tile(f"{t.rank + 2}{t.suit}") in pool]
        if starts and rng.random() < 0.45:
            s = rng.choice(starts)
            concealed += [Tile(f"{s.rank + i}{s.suit}") for i in range(3)]
            continue
        t = rng.choice(pool)
        if rng.random() < 0.45:
            melds.append((rng.choice(MELD_KINDS), t))
        else:
            concealed += [t] * 3
    return concealed + [rng.choice(pool)] * 2, melds


def _seven_pairs(rng: random.Random, pool: list[Tile]) -> list[Tile]:
    suit = rng.choice("mps")
    start = rng.randint(1, 7)
    run = [Tile(f"{r}{suit}") for r in range(start, min(10, start + rng.randint(0, 7)))]
    kinds = (run + [rng.choice(pool) for _ in range(7)])[:7]
    return [t for t in kinds for _ in range(2)]


def _dragon_run(rng: random.Random) -> list[Tile]:
    suit = rng.choice("mps")
    return [Tile(f"{r}{suit}") for r in range(1, 10)]


def random_situation(seed: int) -> dict:
    """A situation in the §10 shape, mostly a real win, sometimes a tile changed (a false claim)."""
    rng = random.Random(seed)
    while True:
        pool = _pool(rng)
        mode = rng.random()
        if mode < 0.2:
            concealed, melds = _seven_pairs(rng, pool), []
        else:
            concealed, melds = _sets_and_pair(rng, pool)
            if mode < 0.3:  # 一条龙: 123 456 789 of one suit in place of three sets
                concealed, melds = _dragon_run(rng) + concealed[-5:], []
        if rng.random() < 0.1:
            concealed[rng.randrange(len(concealed))] = rng.choice(PLAYABLE)
        used = {t: concealed.count(t) + sum(3 + (k != "pung") for k, m in melds if m is t) for t in PLAYABLE}
        if max(used.values()) <= 4:
            break
    self_draw = rng.random() < 0.4
    allowed = [e for e in EVENTS if e not in (DISCARD_EVENTS if self_draw else SELF_DRAW_EVENTS)
               and (e != "kong_bloom" or melds and melds[-1][0] != "pung")]
    seats = 4 if self_draw else 2
    dealer = rng.randrange(seats + 1)  # seat 0 the winner, 1.. the payers, ``seats``: no dealer among them
    fa = [rng.choice([0, 0, 0, 1, 2, 4]) for _ in range(seats)]
    while sum(fa) > 4:
        fa[rng.randrange(seats)] = 0
    payers = [{"dealer": dealer == k, "fa": fa[k],
               "melds": [f"{rng.choice(MELD_KINDS)} {t.symbol}" for t in rng.sample(
                   [t for t in PLAYABLE if used[t] == 0], rng.choice([0, 0, 1, 2]))]} for k in range(1, seats)]
    return {
        "hand": format_tiles(concealed),
        "win_tile": rng.choice(concealed).symbol,
        "melds": [f"{k} {t.symbol}" for k, t in melds],
        "fa": fa[0],
        "self_draw": self_draw,
        "dealer": dealer == 0,
        "events": rng.sample(allowed, rng.choice([0, 0, 1, 1, 2])),
        "payers": payers if rng.random() < 0.7 else [],
    }


def _tile_map(suits: str, mirror: bool, swap_dragons: bool) -> Callable[[Tile], Tile]:
    def image(t: Tile) -> Tile:
        if t.rank is None:
            return {Tile.ZHONG: Tile.BAI, Tile.BAI: Tile.ZHONG}.get(t, t) if swap_dragons else t
        return Tile(f"{10 - t.rank if mirror else t.rank}{suits['mps'.index(t.suit)]}")
    return image


def _mapped(situation: dict, image: Callable[[Tile], Tile]) -> dict:
    def meld(text: str) -> str:
        kind, tile = text.split()
        return f"{kind} {image(Tile.parse(tile)).symbol}"

    return {
        **situation,
        "hand": format_tiles([image(t) for t in parse_tiles(situation["hand"])]),
        "win_tile": image(Tile.parse(situation["win_tile"])).symbol,
        "melds": [meld(m) for m in situation["melds"]],
        "payers": [{**p, "melds": [meld(m) for m in p["melds"]]} for p in situation["payers"]],
    }


def _outcome(situation: dict, rules_name: str) -> tuple | str:
    """What the score says, with the breakdowns of every best reading (on a tie the one reported is the first
    found, and which is first depends on the tiles' ids, not on the rules)."""
    try:
        r = score_situation(situation, RULESETS[rules_name])
    except ValueError:
        return "refused"
    hand, ctx, rules = parse_situation(situation, RULESETS[rules_name])
    facts = Facts(hand, ctx, rules, active_events(ctx, rules), len(r["waits"]))
    ranked = []
    for reading in readings(facts):
        values = value(reading)
        own = sum(values.values())
        lift = own - sum(v for k, v in values.items() if k in rules.not_lifting)
        ranked.append(((lift >= rules.min_own, own), tuple(sorted(values.items()))))
    top = max((k for k, _ in ranked), default=None)
    best = {items for k, items in ranked if k == top}
    items = tuple(sorted((i["key"], i["pao"]) for i in r["items"]))
    assert not best or items in best
    return r["valid"], r["own"], best, r["payments"], "reason" in r, len(r["waits"])


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(sorted(RULESETS)), st.permutations("mps"), st.booleans(),
       st.booleans())
def test_a_situation_scores_as_its_image_under_the_symmetries_of_the_rules(
        seed: int, rules_name: str, suits: list[str], mirror: bool, swap_dragons: bool) -> None:
    situation = random_situation(seed)
    image = _tile_map("".join(suits), mirror, swap_dragons)
    assert _outcome(_mapped(situation, image), rules_name) == _outcome(situation, rules_name), situation


def test_the_drawn_situations_reach_the_rare_items() -> None:
    """The generator is worth its name: over a thousand draws, every 花炮 pattern and most additions come up."""
    seen: set[str] = set()
    outcomes = [_outcome(random_situation(seed), "all-switched") for seed in range(1000)]
    for r in outcomes:
        if r != "refused":
            seen |= {key for items in r[2] for key, _ in items}
    expected = {"qing_yi_se", "hun_yi_se", "peng_peng_hu", "qi_dui", "hong_qi", "xiaosa", "haohua", "wenrou",
                "single_wait", "self_draw", "concealed", "dragon_pung", "dragon_concealed_kong", "kong_bloom",
                "robbing_kong", "fa", "ping_hu"}
    assert expected <= seen, expected - seen
    assert sum(r != "refused" and not r[0] for r in outcomes) > 20  # false claims too
