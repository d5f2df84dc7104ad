"""The scorer's fast paths against plain references: splits from the per-suit tables against a
search over the whole hand, the wait set against adding each tile, and the mask-filtered item
loop against trying every item on every reading."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest
from engine_rulesets import RULESETS
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from xingzi.engine import make_context, make_hand, score_hand
from xingzi.engine.bench import random_win
from xingzi.engine.hand import EVENTS
from xingzi.engine.items import ITEMS, Facts, shown
from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.ruleset import OPTIONAL_ITEMS
from xingzi.engine.scoring import (
    Score,
    _items_to_try,
    active_events,
    apply_replaces,
    new_score,
    readings,
    value,
)
from xingzi.engine.shapes import FA, SEQ, TRIPLET, standard_splits
from xingzi.engine.situation import parse_situation
from xingzi.engine.tiles import TILES


def _plain_splits(counts: list[int], start: int = 0, pair: int = -1, sets: tuple = ()) -> set:
    """Every (pair, sorted sets) of the whole count vector, by a plain search tile by tile."""
    i = next((k for k in range(start, len(counts)) if counts[k]), None)
    if i is None:
        return {(pair, tuple(sorted(sets)))} if pair >= 0 else set()
    out: set = set()
    if counts[i] >= 3:
        counts[i] -= 3
        out |= _plain_splits(counts, i, pair, sets + ((TRIPLET, i),))
        counts[i] += 3
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        out |= _plain_splits(counts, i, pair, sets + ((SEQ, i),))
        for k in (i, i + 1, i + 2):
            counts[k] += 1
    if pair < 0 and counts[i] >= 2:
        counts[i] -= 2
        out |= _plain_splits(counts, i, i, sets)
        counts[i] += 2
    return out


def _complete(counts: list[int], n_sets: int) -> bool:
    if counts[FA] or sum(counts) != 3 * n_sets + 2:
        return False
    if n_sets == 4 and all(n % 2 == 0 for n in counts):
        return True
    return bool(_plain_splits(list(counts)))


# concealed tiles drawn from few kinds, so that many draws split several ways
dense_counts = st.lists(st.sampled_from([9, 10, 11, 12, 13, 14, 15, 20, 21, 27, 29]), min_size=2, max_size=14).map(
    lambda tiles: [tiles.count(i) for i in range(30)]).filter(lambda counts: max(counts) <= 4)


@settings(max_examples=300)
@given(dense_counts)
def test_splits_match_a_plain_search(counts: list[int]) -> None:
    splits = standard_splits(tuple(counts))
    as_sets = {(pair, tuple(sorted(sets))) for pair, sets in splits}
    assert len(as_sets) == len(splits)  # no split twice
    assert as_sets == _plain_splits(list(counts))


def _situation(seed: int, closed: bool, rules_name: str):
    """A random legal winning claim (tiles, melds, 发, events, payers) from one seed."""
    rng = random.Random(seed)
    concealed, melds, win = random_win(rng, closed)
    tiles = [TILES[t] for t in concealed]
    meld_objs = tuple(Meld(MeldKind(k), TILES[t]) for k, t in melds)
    rules = RULESETS[rules_name]
    try:
        hand = make_hand(tiles, TILES[win], meld_objs, rng.choice([0, 0, 1, 2, 4]))
        ctx = make_context(hand, rng.random() < 0.5, rng.random() < 0.2,
                           rng.sample(EVENTS, rng.choice([0, 0, 0, 1, 2])))
    except ValueError:  # events that do not fit the hand (e.g. 杠上开花 without a kong)
        return None
    return hand, ctx, rules


@settings(max_examples=200)
@given(st.integers(0, 2**32), st.booleans())
def test_waits_match_adding_each_tile(seed: int, closed: bool) -> None:
    got = _situation(seed, closed, "default")
    assume(got is not None)
    hand, ctx, rules = got
    before = list(hand.counts)
    before[hand.win_tile] -= 1
    held = list(before)
    for m in hand.melds:
        held[m.tile.index] += m.kind.size
    expected = []
    for t in range(30):
        trial = list(before)
        trial[t] += 1
        if held[t] < 4 and _complete(trial, 4 - len(hand.melds)):
            expected.append(t)
    assert score_hand(hand, ctx, rules).waits == tuple(expected)


def _facts(hand, ctx, rules, score: Score) -> Facts:
    """What the scorer works out once per claim, as ``score_hand`` did for ``score``."""
    return Facts(hand, ctx, rules, active_events(ctx, rules), len(score.waits))


def _plain_value(r) -> dict[str, int]:
    """Every item tried on the reading, none skipped by the ``needs`` masks."""
    values = {}
    for key, _name, item, _needs in ITEMS:
        if key in OPTIONAL_ITEMS and key not in r.rules.optional:
            continue
        v = item(r)
        if v:
            values[key] = v
    return apply_replaces(values, r.rules)


@settings(max_examples=300)
@given(st.integers(0, 2**32), st.booleans(), st.sampled_from(sorted(RULESETS)))
def test_best_reading_matches_trying_every_item(seed: int, closed: bool, rules_name: str) -> None:
    got = _situation(seed, closed, rules_name)
    assume(got is not None)
    hand, ctx, rules = got
    score = score_hand(hand, ctx, rules)
    facts = _facts(hand, ctx, rules, score)
    best = None
    for r in readings(facts):
        values = _plain_value(r)
        assert value(r) == values
        own = sum(values.values())
        lift = own - sum(v for k, v in values.items() if k in rules.not_lifting)
        if best is None or (lift >= rules.min_own, own) > best[0]:
            best = ((lift >= rules.min_own, own), values, (r.seven, r.pair, r.sets))
    assert best is not None  # every drawn claim is a winning shape
    (ok, own), values, split = best
    assert (score.valid, score.own, score.items, score.split[:3]) == (ok, own, tuple(values.items()), split)


def test_fast_score_constructor_gives_the_same_value_as_the_dataclass() -> None:
    names = [f.name for f in fields(Score)]
    args = (True, 12, (("qing_yi_se", 15),), (), "", (False, 3, (), ()), (3, 6), 11)
    made, plain = new_score(*args), Score(*args)
    assert [getattr(made, name) for name in names] == list(args)  # every field, in order
    assert made == plain and hash(made) == hash(plain) and made.reading == plain.reading
    assert vars(made) == vars(plain)  # nothing more, nothing less


ALWAYS = ["concealed", "ping_hu"]  # the items every reading tries (their conditions are cheap to rule out)


@pytest.mark.parametrize(
    "situation, tried",
    [
        pytest.param({"hand": "12m456m789p22345s3m", "win_tile": "3m"}, [*ALWAYS, "shuang_bian", "single_wait"],
                     id="plain_closed_wait_on_a_run"),
        pytest.param({"hand": "11m22m5555p77s中中白白", "win_tile": "白", "self_draw": True, "fa": 1},
                     [*ALWAYS, "fa", "haohua", "hong_qi", "qi_dui", "self_draw", "single_wait", "xiaosa"],
                     id="seven_pairs_self_drawn_with_fa"),
        pytest.param({"hand": "88s白白白", "win_tile": "8s", "melds": ["pung 中", "kong 5m", "concealed_kong 9p"],
                      "self_draw": True, "events": ["kong_bloom"]},
                     [*ALWAYS, "bloom_kong", "concealed_kong", "dragon_concealed_pung", "dragon_pung", "hong_qi", "kong",
                      "kong_bloom", "kong_tears", "peng_peng_hu", "quan_qiu_ren", "robbing_kong", "self_draw",
                      "single_wait", "wenrou", "xiaosa"],
                     id="pungs_and_kongs_after_a_kong"),
        pytest.param({"hand": "123m456m789m234p55p", "win_tile": "5p", "events": ["hai_di_pao", "tong_ku"],
                      "rules": {"optional": ["hai_di_pao", "tong_ku"]}},
                     [*ALWAYS, "hai_di_pao", "kong_bloom", "kong_tears", "robbing_kong", "tong_ku", "yi_tiao_long"],
                     id="events_on_a_pair_wait"),
        pytest.param({"hand": "123m456m789m234p55p", "win_tile": "5p", "fa": 2}, [*ALWAYS, "fa", "yi_tiao_long"],
                     id="fa_on_a_pair_wait"),
    ],
)
def test_a_reading_tries_only_the_items_it_can_show(situation: dict, tried: list[str]) -> None:
    """The ``needs`` masks are what makes scoring fast: an item is tried only where the reading shows something it
    needs (a 发, a meld, a 中/白 set, an event, ...). The value is checked against trying every item above; here,
    that the masks do leave out what cannot apply."""
    hand, ctx, rules = parse_situation(situation)
    facts = _facts(hand, ctx, rules, score_hand(hand, ctx, rules))
    got = {key for r in readings(facts) for key, _item in _items_to_try(rules, shown(r))[0]}
    assert sorted(got) == sorted(tried)
