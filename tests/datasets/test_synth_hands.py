"""The hand sampler behind the synthetic photos draws legal Xingzi hands of the asked pattern."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from xingzi.datasets.synth.hands import PATTERN_WEIGHTS, sample_deal
from xingzi.engine.melds import MeldKind
from xingzi.engine.tiles import Tile

SEEDS = range(60)


@pytest.mark.parametrize("pattern", list(PATTERN_WEIGHTS))
def test_deals_use_real_tiles(pattern):
    for seed in SEEDS:
        d = sample_deal(np.random.default_rng([seed]), pattern)
        counts = Counter(d.hand) + Counter(t for m in d.melds for t in m.tiles)
        counts[Tile.FA] += d.fa
        assert max(counts.values()) <= 4
        assert Tile.FA not in d.hand and 0 <= d.fa <= 4
        kongs = sum(m.kind is not MeldKind.PUNG for m in d.melds)
        assert sum(counts.values()) - d.fa == 14 + kongs
        assert d.win_tile in d.hand
        sit = d.situation()
        assert len(sit["payers"]) == (3 if d.self_draw else 1)


# pattern -> the scoring item every such hand must earn
FLOWER = {
    "qi_dui": "qi_dui", "haohua": "haohua", "peng_peng_hu": "peng_peng_hu", "qing_yi_se": "qing_yi_se",
    "hun_yi_se": "hun_yi_se", "hong_qi": "hong_qi", "qi_xian_nv": "qi_xian_nv",
    "yi_tiao_long": "yi_tiao_long",
}


@pytest.mark.parametrize("pattern, item", list(FLOWER.items()))
def test_pattern_hands_score_their_pattern(pattern, item):
    from xingzi.engine import score_situation

    for seed in SEEDS:
        d = sample_deal(np.random.default_rng([seed]), pattern)
        result = score_situation(d.situation())
        assert result["valid"], (pattern, d.situation(), result)
        keys = {i["key"] for i in result["items"]}
        assert item in keys, (pattern, d.situation(), result["items"])


KONG_ITEMS = {"kong", "concealed_kong", "dragon_kong", "dragon_concealed_kong"}


@pytest.mark.parametrize("pattern, seeds", [
    pytest.param("kongs", range(400), id="kongs-hold-a-kong"),  # 3 of 14 photos of seed 21 held none
    pytest.param("ping_hu", range(400), id="plain-draws"),  # some came out 红旗飘飘 and kept the plain label
    pytest.param("qing_yi_se", range(1000), id="one-suit-draws"),  # 5 in 1000 are 七仙女
    pytest.param(None, range(400), id="the-default-mix"),
])
def test_each_label_is_what_the_hand_is(pattern, seeds):
    """meta's ``pattern`` names what the hand shows: a kongs hand holds a kong, every other hand scores its item."""
    from xingzi.engine import score_situation

    for seed in seeds:
        d = sample_deal(np.random.default_rng([seed]), pattern)
        keys = {i["key"] for i in score_situation(d.situation())["items"]}
        if d.pattern == "kongs":
            assert any(m.kind is not MeldKind.PUNG for m in d.melds), (seed, d.situation())
        elif d.pattern != "not_winning":
            assert d.pattern in keys, (seed, d.pattern, d.situation(), sorted(keys))


def test_plain_and_kong_hands_are_complete_wins():
    from xingzi.engine import score_situation

    for pattern in ("ping_hu", "kongs"):
        for seed in SEEDS:
            d = sample_deal(np.random.default_rng([seed]), pattern)
            result = score_situation(d.situation())
            # a win may still be refused (两炮起胡), but never because the tiles are no win
            assert result["valid"] or result["own"] == 1, (d.situation(), result)


def test_non_winning_rows_are_no_wins():
    from xingzi.engine import score_situation

    for seed in SEEDS:
        d = sample_deal(np.random.default_rng([seed]), "not_winning")
        result = score_situation(d.situation())
        assert not result["valid"] and result["own"] == 0, (d.situation(), result)


def test_unknown_pattern_is_refused():
    with pytest.raises(ValueError, match="unknown hand pattern 'x'"):
        sample_deal(np.random.default_rng(0), "x")


def test_tiles_lying_beside_the_hand_come_from_the_same_set():
    """Loose tiles and face-down wall stretches never make a fifth copy of a face (seed 99 drew 11 in 400 before)."""
    from xingzi.datasets.synth.scene import layout_deal

    with_loose = 0
    for index in range(400):
        rng = np.random.default_rng([99, index])
        layout = layout_deal(sample_deal(rng, None), rng)
        counts = Counter(t.cls for t in layout.tiles)
        assert max(counts.values()) <= 4, (index, counts.most_common(1))
        with_loose += any(t.role == "loose" for t in layout.tiles)
    assert with_loose > 50  # the check saw plenty of loose tiles
