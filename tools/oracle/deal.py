"""``situations(n, seed)``: seeded §10 situations rich in what play makes rare (patterns, events, options)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .notation import BAI, N_KINDS, ZHONG, Meld, MeldKind, Tile, hand_text, meld_text, tile_name
from .rules import OPTIONAL_ITEMS
from .shapes import HandSet

ALL_SUITS = [0, 1, 2]
DRAGONS = [ZHONG, BAI]
# how often each kind of hand is dealt; "false" deals a hand with one tile swapped (mostly 诈胡)
SHAPE_WEIGHTS = {"plain": 14, "qing": 11, "hun": 11, "pph": 12, "seven_pairs": 14, "long": 7, "twin": 9,
                 "hong_qi": 8, "all_claimed": 4, "false": 6, "dense": 12}


class Wall:
    """The copies not dealt yet, so that no tile shows up a fifth time anywhere."""

    def __init__(self) -> None:
        self.left = [4] * N_KINDS
        self.fa = 4

    def has(self, tile: Tile, n: int = 1) -> bool:
        return self.left[tile] >= n

    def take(self, tile: Tile, n: int = 1) -> None:
        assert self.left[tile] >= n
        self.left[tile] -= n

    def take_run(self, start: Tile) -> bool:
        if start % 9 > 6 or not all(self.has(start + i) for i in range(3)):
            return False
        for i in range(3):
            self.take(start + i)
        return True


def _pick_set(rng: random.Random, wall: Wall, suits: list[int], runs: bool = True, dragons: bool = False,
              triplet_share: float = 0.4) -> HandSet | None:
    for _ in range(50):
        if dragons and rng.random() < 0.35:
            tile = rng.choice(DRAGONS)
            if wall.has(tile, 3):
                wall.take(tile, 3)
                return "triplet", tile
            continue
        suit = rng.choice(suits)
        if not runs or rng.random() < triplet_share:
            tile = suit * 9 + rng.randrange(9)
            if wall.has(tile, 3):
                wall.take(tile, 3)
                return "triplet", tile
        elif wall.take_run(start := suit * 9 + rng.randrange(7)):
            return "run", start
    return None


def _pick_pair(rng: random.Random, wall: Wall, suits: list[int], dragons: bool = False) -> Tile | None:
    for _ in range(50):
        dragon = dragons and rng.random() < 0.3
        tile = rng.choice(DRAGONS) if dragon else rng.choice(suits) * 9 + rng.randrange(9)
        if wall.has(tile, 2):
            wall.take(tile, 2)
            return tile
    return None


Sets = list[HandSet | None]


def _plain(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    sets = [_pick_set(rng, wall, ALL_SUITS, dragons=rng.random() < 0.2, triplet_share=0.25) for _ in range(4)]
    return sets, ALL_SUITS


def _one_suit(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    suits = [rng.randrange(3)]
    share = rng.choice([0.2, 0.5, 0.9])
    return [_pick_set(rng, wall, suits, triplet_share=share) for _ in range(4)], suits


def _mixed_suit(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    """混一色: one suit and one or two 中/白 triplets (sometimes the other dragon as the pair)."""
    suits = [rng.randrange(3)]
    dragons = rng.sample(DRAGONS, rng.choice([1, 1, 2]))
    sets: Sets = []
    for tile in dragons:
        wall.take(tile, 3)
        sets.append(("triplet", tile))
    share = rng.choice([0.2, 0.5, 0.9])
    sets += [_pick_set(rng, wall, suits, triplet_share=share) for _ in range(4 - len(dragons))]
    return sets, suits


def _triplets(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    """碰碰胡, often with consecutive triplets (潇洒)."""
    suits = rng.choice([[0], [1], [2], ALL_SUITS, [0, 1]])
    sets: Sets = []
    if rng.random() < 0.5:
        suit, length = rng.choice(suits), rng.choice([3, 3, 4])
        start = suit * 9 + rng.randrange(10 - length)
        for tile in range(start, start + length):
            wall.take(tile, 3)
            sets.append(("triplet", tile))
    while len(sets) < 4:
        sets.append(_pick_set(rng, wall, suits, runs=False, dragons=rng.random() < 0.4))
    return sets, suits


def _long(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    """一条龙: 123 456 789 of one suit."""
    suit = rng.randrange(3)
    sets: Sets = [("run", suit * 9 + r) for r in (0, 3, 6) if wall.take_run(suit * 9 + r)]
    suits = [suit] if rng.random() < 0.5 else ALL_SUITS
    return sets + [_pick_set(rng, wall, suits, dragons=rng.random() < 0.3)], suits


def _twin(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    """Two identical runs (双边双夹)."""
    suit = rng.randrange(3)
    start = suit * 9 + rng.choice([0, 6, rng.randrange(7)])
    sets: Sets = [("run", start) for _ in range(2) if wall.take_run(start)]
    suits = [suit] if rng.random() < 0.4 else ALL_SUITS
    return sets + [_pick_set(rng, wall, suits, dragons=rng.random() < 0.2) for _ in range(2)], suits


def _hong_qi(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    sets: Sets = []
    for tile in DRAGONS:
        wall.take(tile, 3)
        sets.append(("triplet", tile))
    suits = rng.choice([[rng.randrange(3)], ALL_SUITS])
    return sets + [_pick_set(rng, wall, suits) for _ in range(2)], suits


def _all_claimed(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    """Four triplets, all laid down later (全求人)."""
    suits = rng.choice([[rng.randrange(3)], ALL_SUITS])
    return [_pick_set(rng, wall, suits, runs=False, dragons=rng.random() < 0.4) for _ in range(4)], suits


def _dense(rng: random.Random, wall: Wall) -> tuple[Sets, list[int]]:
    """Every set inside a narrow window of one suit: many readings, many waits."""
    suit, low, width = rng.randrange(3), rng.randrange(5), rng.choice([3, 4, 5])
    sets: Sets = []
    for _ in range(4):
        picked: HandSet | None = None
        for _ in range(50):
            if rng.random() < 0.5:
                tile = suit * 9 + low + rng.randrange(width)
                if wall.has(tile, 3):
                    wall.take(tile, 3)
                    picked = ("triplet", tile)
                    break
            elif wall.take_run(start := suit * 9 + low + rng.randrange(max(1, width - 2))):
                picked = ("run", start)
                break
        sets.append(picked)
    return sets, [suit]


SHAPES: dict[str, Callable[[random.Random, Wall], tuple[Sets, list[int]]]] = {
    "plain": _plain, "qing": _one_suit, "hun": _mixed_suit, "pph": _triplets, "long": _long, "twin": _twin,
    "hong_qi": _hong_qi, "all_claimed": _all_claimed, "dense": _dense,
}


def _standard(rng: random.Random, wall: Wall, shape: str) -> tuple[list[HandSet], Tile] | None:
    sets, suits = SHAPES[shape](rng, wall)
    dragon_sets = [s[1] for s in sets if s and s[1] in DRAGONS]
    pair: Tile | None
    if shape == "hun" and len(dragon_sets) == 1 and rng.random() < 0.3:
        pair = BAI if dragon_sets == [ZHONG] else ZHONG  # the other dragon as the pair
        wall.take(pair, 2)
    else:
        share = 0.15 if shape == "dense" else 0.2 if shape in ("plain", "pph", "long", "all_claimed") else 0.0
        pair = _pick_pair(rng, wall, suits, dragons=rng.random() < share)
    complete = [s for s in sets if s is not None]
    return (complete, pair) if len(complete) == 4 and pair is not None else None


def _seven_pairs(rng: random.Random, wall: Wall) -> list[Tile] | None:
    """Seven pairs: often a run of them (潇洒, 七仙女), fours (豪华), 中 and 白 (红旗飘飘)."""
    suits = [rng.randrange(3)] if rng.random() < 0.5 else ALL_SUITS
    mode = rng.random()
    pairs: list[Tile] = []
    if mode < 0.55:  # a run of pairs; below 0.15 seven of them (七仙女)
        length = 7 if mode < 0.15 else rng.choice([3, 3, 4, 5, 6])
        suit = rng.randrange(3) if mode < 0.15 else rng.choice(suits)
        start = suit * 9 + rng.randrange(10 - length)
        for tile in range(start, start + length):
            wall.take(tile, 2)
            pairs.append(tile)
    if len(pairs) == 7:
        return pairs
    if rng.random() < 0.1 and len(pairs) <= 3:
        for tile in DRAGONS:
            wall.take(tile, 4)
            pairs += [tile, tile]
    elif rng.random() < 0.25:
        for tile in DRAGONS[:7 - len(pairs)]:
            wall.take(tile, 2)
            pairs.append(tile)
    for _ in range(200):
        if len(pairs) >= 7:
            break
        roll = rng.random()
        if roll < 0.25 and pairs:
            tile = rng.choice(pairs)  # a four (豪华)
        else:
            tile = rng.choice(DRAGONS) if roll < 0.35 else rng.choice(suits) * 9 + rng.randrange(9)
        if wall.has(tile, 2):
            wall.take(tile, 2)
            pairs.append(tile)
    return pairs if len(pairs) == 7 else None


def _lay_down(rng: random.Random, wall: Wall, sets: list[HandSet], shape: str) -> tuple[list[Tile], list[Meld]]:
    """Some triplets become the winner's melds (all of them for 全求人); the rest stand in the hand."""
    share = 1.0 if shape == "all_claimed" else rng.choice([0.0, 0.3, 0.5, 0.8])
    kinds: list[MeldKind] = ["pung", "pung", "kong"]
    if shape != "all_claimed":  # 全求人 asks for claimed melds; a concealed kong is none
        kinds.append("concealed_kong")
    hand: list[Tile] = []
    melds: list[Meld] = []
    for kind, tile in sets:
        if kind == "triplet" and rng.random() < share:
            meld = rng.choice(kinds)
            if meld != "pung" and not wall.has(tile):
                meld = "pung"
            elif meld != "pung":
                wall.take(tile)
            melds.append((meld, tile))
        else:
            hand += [tile] * 3 if kind == "triplet" else [tile, tile + 1, tile + 2]
    rng.shuffle(melds)
    return hand, melds


def _payer(rng: random.Random, wall: Wall, kong_last: bool = False) -> dict[str, Any]:
    """What one other player shows: some 发, pungs and kongs (中/白 often, for exposed 红旗飘飘)."""
    fa = 0
    if rng.random() < 0.4 and wall.fa:
        fa = rng.randint(1, wall.fa)
        fa = min(fa, 2) if rng.random() < 0.5 else fa
        wall.fa -= fa
    melds: list[Meld] = []

    def show(tile: Tile, kind: MeldKind) -> bool:
        if any(t == tile for _, t in melds) or not wall.has(tile, 3 if kind == "pung" else 4):
            return False
        wall.take(tile, 3 if kind == "pung" else 4)
        melds.append((kind, tile))
        return True

    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        tile = rng.choice(DRAGONS) if rng.random() < 0.45 else rng.randrange(27)
        show(tile, rng.choice(["pung", "pung", "kong", "concealed_kong"]))
    if kong_last:  # 杠上流泪: the discarder's kong made just before
        for _ in range(30):
            tile = rng.choice(DRAGONS) if rng.random() < 0.3 else rng.randrange(27)
            if show(tile, rng.choice(["kong", "kong", "concealed_kong"])):
                break
        else:  # no kong could be shown: the discarder's melds not given (melds without that kong are refused)
            melds.clear()
    return {"dealer": False, "fa": fa, "melds": [meld_text(m) for m in melds]}


def _swap_one(rng: random.Random, wall: Wall, hand: list[Tile], win: Tile) -> None:
    """A false claim: one tile (not the winning one) turned into another."""
    for _ in range(20):
        i = rng.randrange(len(hand))
        tile = rng.randrange(N_KINDS)
        if (hand[i] != win or hand.count(win) > 1) and wall.has(tile):
            wall.take(tile)
            wall.left[hand[i]] += 1
            hand[i] = tile
            return


def _events(rng: random.Random, wall: Wall, hand: list[Tile], melds: list[Meld], win: Tile,
            self_draw: bool) -> tuple[list[str], dict[str, Any]]:
    """The §4 events of the claim and the §9 options of the table (reordering melds for 杠上开花)."""
    events: list[str] = []
    kongs = [i for i, (kind, _) in enumerate(melds) if kind != "pung"]
    if self_draw and kongs and rng.random() < 0.35:
        events.append("kong_bloom")
        if rng.random() < 0.8:  # mostly a kong just made; else an earlier one, a pung made since
            melds.append(melds.pop(rng.choice(kongs)))
    roll = rng.random()
    if not self_draw and roll < 0.08:
        events.append("kong_tears")
    elif not self_draw and roll < 0.16 and hand.count(win) == 1 and wall.has(win, 3):
        events.append("robbing_kong")
    rules: dict[str, Any] = {}
    if rng.random() < 0.2:
        offered = ["tong_ku", "shang_xin", "tao_sheng"]
        offered += ["hai_di_lao_yue"] if self_draw else ["hai_di_pao", "hui_tou", "wang_en"]
        # 痛苦 and 伤心痛苦 count only on the wait shapes they name: offer both often, to meet those shapes
        chosen = ["tong_ku", "shang_xin"] if rng.random() < 0.3 else rng.sample(offered, rng.choice([1, 1, 2]))
        events += chosen
        if rng.random() < 0.8:
            rules["optional"] = chosen if rng.random() < 0.7 else rng.sample(OPTIONAL_ITEMS, 3)
    if rng.random() < 0.06:
        rules["specials_lift_threshold"] = True
    if rng.random() < 0.04:
        rules["won_triplet_concealed"] = False
    for option, other in (("four_fa", "on_top"), ("eaten_hong_qi", "on_top"), ("hong_qi_seven_pairs", "fours"),
                          ("self_draw_eating", "pool")):
        if rng.random() < 0.03:
            rules[option] = other
    return events, rules


def deal_one(rng: random.Random) -> dict[str, Any] | None:
    """One situation, or None when the wall could not give the shape drawn."""
    shape = rng.choices(list(SHAPE_WEIGHTS), weights=list(SHAPE_WEIGHTS.values()))[0]
    false_claim = shape == "false"
    if false_claim:
        shape = rng.choice(["plain", "qing", "hun", "pph", "twin", "dense"])
    wall = Wall()
    sets: list[HandSet] = []
    melds: list[Meld] = []
    if shape == "seven_pairs":
        if (pairs := _seven_pairs(rng, wall)) is None:
            return None
        hand = [t for t in pairs for _ in range(2)]
    else:
        if (dealt := _standard(rng, wall, shape)) is None:
            return None
        sets, pair = dealt
        hand, melds = _lay_down(rng, wall, sets, shape)
        hand += [pair, pair]
    twins = [t for kind, t in sets if kind == "run" and sets.count(("run", t)) >= 2]
    win = twins[0] + rng.randrange(3) if twins and shape == "twin" and rng.random() < 0.7 else rng.choice(hand)
    if false_claim:
        _swap_one(rng, wall, hand, win)
    self_draw = rng.random() < 0.4
    events, rules = _events(rng, wall, hand, melds, win, self_draw)
    fa = rng.choice([1, 1, 2, 3, 4]) if rng.random() < 0.35 else 0
    wall.fa -= fa
    dealer = rng.random() < 0.25
    if self_draw:
        payers = [_payer(rng, wall) for _ in range(3 if rng.random() < 0.85 else rng.randint(0, 2))]
    else:
        payers = [_payer(rng, wall, kong_last="kong_tears" in events)]
        if "robbing_kong" in events and rng.random() < 0.6 and wall.has(win, 3):
            wall.take(win, 3)
            payers[0]["melds"].append(f"pung {tile_name(win)}")  # the pung the robbed kong was made from
        elif "robbing_kong" in events:  # the kong maker's melds not given (shown without that pung: refused)
            payers[0]["melds"] = []
    if not dealer and payers and rng.random() < 0.5:
        rng.choice(payers)["dealer"] = True
    hand_str, win_str = hand_text(hand), tile_name(win)
    if rng.random() < 0.1:  # the other dragon notations of §1
        zhong, bai = rng.choice([("Z", "B"), ("7z", "5z")])
        hand_str = hand_str.replace("中", zhong).replace("白", bai)
        win_str = win_str.replace("中", zhong).replace("白", bai)
    return {"hand": hand_str, "win_tile": win_str, "melds": [meld_text(m) for m in melds], "fa": fa,
            "self_draw": self_draw, "dealer": dealer, "events": events, "payers": payers, "rules": rules}


def situations(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` situations, the same for the same seed."""
    rng = random.Random(seed)
    found: list[dict[str, Any]] = []
    while len(found) < n:
        if (situation := deal_one(rng)) is not None:
            found.append(situation)
    return found
