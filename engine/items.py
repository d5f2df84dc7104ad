"""The scoring items: one small function each, all ``item(r: Reading) -> int`` (炮, 0 = absent).

``ITEMS`` lists them in the order they are reported, each with its key (the §10 item key) and
Chinese name; the 炮 numbers come from the ruleset. Which items cancel which is not decided
here: that is the ruleset's ``[replaces]`` table, applied in ``scoring.apply_replaces``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .hand import EVENT_NAMES, Hand, WinContext
from .melds import MeldKind
from .ruleset import FLOWER_PATTERNS, Ruleset
from .shapes import BAI, SEQ, ZHONG, Part, hand_parts

FLOWER: Final = FLOWER_PATTERNS
DRAGONS: Final = (ZHONG, BAI)

# What a reading shows; an item is tried only when the reading shows one of the things it needs.
FA_SHOWN: Final = 1
MELDS_SHOWN: Final = 1 << 1
SELF_DRAW: Final = 1 << 2
SINGLE: Final = 1 << 3
EVENTS_SHOWN: Final = 1 << 4
SEVEN: Final = 1 << 5
PENG: Final = 1 << 6
SEQ_WIN: Final = 1 << 7
# finer bits: each 花炮 pattern, and each kind of 中/白 set, on its own
PATTERN_SHOWN: Final = {key: 1 << (8 + i) for i, key in enumerate(FLOWER)}
DRAGON_KIND_SHOWN: Final = {kind: 1 << (8 + len(FLOWER) + i)
                            for i, kind in enumerate(("pung", "concealed_pung", "kong", "concealed_kong"))}


class Facts:
    """What one hand shows whatever way it is read, worked out once per claim.

    ``suits`` is a bit mask of the suits present (bit 0 m, 1 p, 2 s), melds included;
    ``mask`` the ``shown`` bits that hold for every reading of the claim.
    """

    __slots__ = ("hand", "ctx", "rules", "events", "waits", "single", "exposed", "melds", "bloom", "suits", "dragons",
                 "mask", "won_tri_open", "parts")

    def __init__(self, hand: Hand, ctx: WinContext, rules: Ruleset, events: frozenset[str], waits: int,
                 parts: tuple[Part, ...] | None = None) -> None:
        # waits: how many tile kinds the hand waited on before the winning tile
        self.hand, self.ctx, self.rules, self.events, self.waits = hand, ctx, rules, events, waits
        self.single = single = waits == 1
        counts = hand.counts
        if parts is None:
            parts = hand_parts(counts)
        self.parts = parts
        self.suits = suits = parts[0].present | parts[1].present << 1 | parts[2].present << 2
        self.dragons = dragons = bool(counts[ZHONG] or counts[BAI])
        mask = (FA_SHOWN if hand.fa else 0) | (SELF_DRAW if ctx.self_draw else 0) | (
            SINGLE if single else 0) | (EVENTS_SHOWN if events else 0)
        # §9 won_triplet_concealed: a triplet completed by the winning discard counts as exposed
        self.won_tri_open = not ctx.self_draw and not rules.options["won_triplet_concealed"]
        self.exposed, self.bloom = 0, -1
        self.melds: tuple[tuple[str, int], ...] = ()
        if hand.melds:
            # (kind, tile id) of each meld, in the order made
            self.melds = melds = hand.meld_ids
            mask |= MELDS_SHOWN
            self.exposed = sum(1 for k, _t in melds if k != "concealed_kong")
            if "kong_bloom" in events:
                for i in range(len(melds) - 1, -1, -1):
                    if melds[i][0] != "pung":
                        self.bloom = i
                        break
            for _k, t in melds:
                if t < 27:
                    suits |= 1 << (t // 9)
                else:
                    dragons = True
            self.suits, self.dragons = suits, dragons
        self.mask = mask


class Reading:
    """One way of reading a winning hand: a split (or seven pairs) and the winning tile's role.

    ``role`` is ("pair",), ("tri", tile), ("seq", first tile, position of the winning tile),
    or ("seven",). ``dragon_sets`` lists (tile, kind, is the 杠上开花 kong) for 中/白 triplets
    and kongs, kind one of pung / concealed_pung / kong / concealed_kong.
    """

    __slots__ = ("f", "rules", "exposed", "seven", "pair", "sets", "role", "patterns", "dragon_sets",
                 "won_tri_exposed", "peng_peng")

    def __init__(self, f: Facts, seven: bool, pair: int, sets: tuple, role: tuple,
                 peng_peng: bool, patterns: tuple[str, ...] = ()) -> None:
        self.f, self.rules, self.exposed = f, f.rules, f.exposed
        self.seven, self.pair, self.sets, self.role, self.patterns = seven, pair, sets, role, patterns
        self.peng_peng = peng_peng
        self.won_tri_exposed = won_tri = f.won_tri_open and role[0] == "tri"
        dragon_sets: list[tuple[int, str, bool]] | tuple = ()
        if f.dragons:
            dragon_sets = []
            for _kind, t in sets:
                if t >= 27:  # dragons only form triplets
                    exposed = won_tri and role[1] == t
                    dragon_sets.append((t, "pung" if exposed else "concealed_pung", False))
            for i, (kind, t) in enumerate(f.melds):
                if t >= 27:
                    dragon_sets.append((t, kind, i == f.bloom))
        self.dragon_sets = dragon_sets

    # the same for every reading of the claim: read from the facts
    @property
    def hand(self) -> Hand:
        return self.f.hand

    @property
    def ctx(self) -> WinContext:
        return self.f.ctx

    @property
    def events(self) -> frozenset[str]:
        return self.f.events

    @property
    def single(self) -> bool:
        return self.f.single

    @property
    def bloom(self) -> int:
        return self.f.bloom


Item = Callable[[Reading], int]


def _addition(r: Reading, key: str) -> int:
    """自摸/门前清/胡单张 value: depends on the hand having 花炮 (RULES §4 and §9 flower_additions)."""
    table = r.rules.additions[key]
    if not r.patterns:
        return table["ping_hu"]
    return max(table.get(p, table["flower"]) for p in r.patterns)


def _pattern(key: str) -> Item:
    def item(r: Reading) -> int:
        return r.rules.pao[key] if key in r.patterns else 0
    item.__doc__ = f"§5 {key} (a 花炮 pattern): its 炮 when the reading shows it."
    return item


def hong_qi(r: Reading) -> int:
    """§5 红旗飘飘: base 炮 plus each 中/白 set at its 红旗 value (replacing the §3 value)."""
    if "hong_qi" not in r.patterns:
        return 0
    sets = r.rules.hong_qi_sets
    return r.rules.pao["hong_qi"] + sum(sets[kind] for _t, kind, bloom in r.dragon_sets if not bloom)


def ping_hu(r: Reading) -> int:
    """§3 平胡 base: a standard-shape hand showing no 花炮 pattern."""
    return 0 if r.seven or r.patterns else r.rules.pao["ping_hu"]  # every pattern is a 花炮


def fa(r: Reading) -> int:
    """§3 发 in front: 1 each; four are worth the four_fa number (in all, or on top per §9)."""
    n = r.hand.fa
    if n < 4:
        return n * r.rules.pao["fa"]
    if r.rules.options["four_fa"] == "on_top":
        return 4 * r.rules.pao["fa"] + r.rules.pao["four_fa"]
    return r.rules.pao["four_fa"]


def _suit_kongs(kind: MeldKind) -> Item:
    key, name = ("kong", "明杠") if kind is MeldKind.KONG else ("concealed_kong", "暗杠")

    def item(r: Reading) -> int:
        n = sum(1 for i, (k, t) in enumerate(r.f.melds) if k == kind.value and t < 27 and i != r.bloom)
        return n * r.rules.pao[key]
    item.__doc__ = f"§3 {name} ({key}) of m/p/s in front of the winner (the 杠上开花 kong is reported apart)."
    return item


DRAGON_SET_NAMES: Final = {"pung": "碰", "concealed_pung": "暗刻", "kong": "明杠", "concealed_kong": "暗杠"}


def _dragon(kind: str, key: str) -> Item:
    def item(r: Reading) -> int:
        if "hong_qi" in r.patterns:
            return 0
        return sum(r.rules.pao[key] for _t, k, bloom in r.dragon_sets if k == kind and not bloom)
    item.__doc__ = f"§3 {DRAGON_SET_NAMES[kind]} 中/白 ({key}): at its own value, unless 红旗飘飘 values it."
    return item


def bloom_kong(r: Reading) -> int:
    """§4 杠上开花: the kong just made, reported apart so that 杠上开花 can swallow it."""
    if r.bloom < 0:
        return 0
    kind, t = r.f.melds[r.bloom]
    if t < 27:
        return r.rules.pao[kind]
    if "hong_qi" in r.patterns:
        return r.rules.hong_qi_sets[kind]
    return r.rules.pao["dragon_" + kind]


def self_draw(r: Reading) -> int:
    """§4 自摸: won on one's own draw (kong or 发 replacements included)."""
    return _addition(r, "self_draw") if r.ctx.self_draw else 0


def concealed(r: Reading) -> int:
    """§4 门前清: nothing claimed from others before winning (暗杠 allowed); never for 七对, whatever a house
    values 七对 at (its [replaces] entry alone went with an item worth 0)."""
    return 0 if r.exposed or r.seven else _addition(r, "concealed")


def single_wait(r: Reading) -> int:
    """§4 胡单张: the hand before the winning tile waited on exactly one tile kind; never for 七对 (as 门前清)."""
    return _addition(r, "single_wait") if r.single and not r.seven else 0


def _event(key: str) -> Item:
    def item(r: Reading) -> int:
        return r.rules.pao[key] if key in r.events else 0
    item.__doc__ = f"§4 {key}: a fixed addition when the event is given (and switched on if optional)."
    return item


def _runs(tiles: list[int]) -> int:
    """Number of 潇洒 among distinct m/p/s tile ids in order: each run of k ≥ 3 consecutive
    ranks in one suit gives k − 2 (one for every tile that is at least the third of its run)."""
    total = run = 0
    prev = -2
    for t in tiles:
        run = run + 1 if t == prev + 1 and t % 9 else 1  # rank 1 never continues the suit before
        if run >= 3:
            total += 1
        prev = t
    return total


def xiaosa(r: Reading) -> int:
    """§4 潇洒/带滚: runs of consecutive pairs (七对) or triplets/kongs (碰碰胡) in one suit."""
    if r.seven:
        counts = r.hand.counts
        parts = r.f.parts  # 七对 counts are even: the tiles held are the pairs and fours
        tiles = [t for t in parts[0].held + parts[1].held + parts[2].held if counts[t] >= 2]
    elif r.peng_peng:
        tiles = sorted({t for _k, t in r.sets if t < 27} | {t for _k, t in r.f.melds if t < 27})
    else:
        return 0
    return _runs(tiles) * r.rules.pao["xiaosa"]


def haohua(r: Reading) -> int:
    """§4 豪华: four of a kind inside 七对, counted as two pairs, each (up to a maximum)."""
    if not r.seven:
        return 0
    quads = r.hand.counts.count(4)
    return min(quads, r.rules.pao["haohua_max"]) * r.rules.pao["haohua"]


def wenrou(r: Reading) -> int:
    """§4 温柔碰碰胡: 碰碰胡 with nothing claimed (the completed triplet per won_triplet_concealed)."""
    ok = r.peng_peng and not r.exposed and not r.won_tri_exposed
    return r.rules.pao["wenrou"] if ok else 0


def quan_qiu_ren(r: Reading) -> int:
    """§4 全求人: 碰碰胡 with four exposed melds, won on the one tile left in hand."""
    return r.rules.pao["quan_qiu_ren"] if r.peng_peng and r.exposed == 4 else 0


def _edge_or_middle(role: tuple) -> bool:
    if role[0] != "seq":
        return False
    first, pos = role[1] % 9, role[2]
    return pos == 1 or (pos == 2 and first == 0) or (pos == 0 and first == 6)


def _two_sided(role: tuple) -> bool:
    if role[0] != "seq":
        return False
    first, pos = role[1] % 9, role[2]
    return (pos == 0 and first <= 5) or (pos == 2 and first >= 1)


def shuang_bian(r: Reading) -> int:
    """§4 双边双夹: the winning tile closes one of two identical sequences at its edge or middle."""
    if not _edge_or_middle(r.role) or r.sets.count((SEQ, r.role[1])) < 2:  # (the role is a "seq" one)
        return 0
    return r.rules.pao["shuang_bian"]


def tong_ku(r: Reading) -> int:
    """§4 痛苦 (optional): an edge or middle wait won on its last copy (the event says it was). Edge and middle
    waits are kinds of 胡单张 in §4, so the hand waited on that one tile kind alone: with another kind still live
    there was no pain (003: only the one tile could win)."""
    return r.rules.pao["tong_ku"] if "tong_ku" in r.events and r.single and _edge_or_middle(r.role) else 0


def _other_side_live(r: Reading) -> bool:
    """Whether the other kind a two-sided role waited on (56 won on 4: the 7) still had a copy to come: the
    winner held fewer than four of it, in hand and melds."""
    first, pos = r.role[1], r.role[2]
    other = first + 3 if pos == 0 else first - 1
    held = r.f.hand.counts[other]
    for kind, t in r.f.melds:
        if t == other:
            held += 3 if kind == "pung" else 4
    return held < 4


def shang_xin(r: Reading) -> int:
    """§4 伤心痛苦 (optional): a two-sided wait won on the last of its eight tiles, so the hand waited on exactly
    the two kinds either side of the run the winning tile closed (a third kind would make twelve tiles; two live
    kinds of which one is no side of that run, as 78 beside 44 666 with every 9 held, are no two-sided wait)."""
    if "shang_xin" not in r.events or r.f.waits != 2 or not _two_sided(r.role):
        return 0
    return r.rules.pao["shang_xin"] if _other_side_live(r) else 0


def hai_di_pao(r: Reading) -> int:
    """§4 海底放炮 (optional): +5, or (§9) the hand counts from 10: lifted to that base."""
    if "hai_di_pao" not in r.events:
        return 0
    if r.rules.options["hai_di_pao"] == "addition":
        return r.rules.pao["hai_di_pao"]
    base = ping_hu(r) + sum(r.rules.pao[p] for p in r.patterns)
    return max(0, r.rules.pao["hai_di_pao_start"] - base)


# (key, Chinese name, function, needs) in report order; patterns first. needs 0 = always tried.
ITEMS: Final[tuple[tuple[str, str, Item, int], ...]] = (
    ("qi_xian_nv", "七仙女", _pattern("qi_xian_nv"), PATTERN_SHOWN["qi_xian_nv"]),
    ("qing_yi_se", "清一色", _pattern("qing_yi_se"), PATTERN_SHOWN["qing_yi_se"]),
    ("hun_yi_se", "混一色", _pattern("hun_yi_se"), PATTERN_SHOWN["hun_yi_se"]),
    ("peng_peng_hu", "碰碰胡", _pattern("peng_peng_hu"), PATTERN_SHOWN["peng_peng_hu"]),
    ("qi_dui", "七对", _pattern("qi_dui"), PATTERN_SHOWN["qi_dui"]),
    ("yi_tiao_long", "一条龙", _pattern("yi_tiao_long"), PATTERN_SHOWN["yi_tiao_long"]),
    ("hong_qi", "红旗飘飘", hong_qi, PATTERN_SHOWN["hong_qi"]),
    ("ping_hu", "平胡", ping_hu, 0),
    ("fa", "发财", fa, FA_SHOWN),
    ("kong", "明杠", _suit_kongs(MeldKind.KONG), MELDS_SHOWN),
    ("concealed_kong", "暗杠", _suit_kongs(MeldKind.CONCEALED_KONG), MELDS_SHOWN),
    ("dragon_pung", "碰中/白", _dragon("pung", "dragon_pung"), DRAGON_KIND_SHOWN["pung"]),
    ("dragon_concealed_pung", "中/白暗刻", _dragon("concealed_pung", "dragon_concealed_pung"), DRAGON_KIND_SHOWN["concealed_pung"]),
    ("dragon_kong", "中/白明杠", _dragon("kong", "dragon_kong"), DRAGON_KIND_SHOWN["kong"]),
    ("dragon_concealed_kong", "中/白暗杠", _dragon("concealed_kong", "dragon_concealed_kong"), DRAGON_KIND_SHOWN["concealed_kong"]),
    ("bloom_kong", "开花的杠", bloom_kong, MELDS_SHOWN),
    ("self_draw", "自摸", self_draw, SELF_DRAW),
    ("concealed", "门前清", concealed, 0),
    ("single_wait", "胡单张", single_wait, SINGLE),
    ("kong_bloom", EVENT_NAMES["kong_bloom"], _event("kong_bloom"), EVENTS_SHOWN),
    ("kong_tears", EVENT_NAMES["kong_tears"], _event("kong_tears"), EVENTS_SHOWN),
    ("robbing_kong", EVENT_NAMES["robbing_kong"], _event("robbing_kong"), EVENTS_SHOWN),
    ("xiaosa", "潇洒", xiaosa, SEVEN | PENG),
    ("haohua", "豪华", haohua, SEVEN),
    ("wenrou", "温柔", wenrou, PENG),
    ("quan_qiu_ren", "全求人", quan_qiu_ren, PENG),
    ("shuang_bian", "双边双夹", shuang_bian, SEQ_WIN),
    ("hai_di_lao_yue", EVENT_NAMES["hai_di_lao_yue"], _event("hai_di_lao_yue"), EVENTS_SHOWN),
    ("hai_di_pao", EVENT_NAMES["hai_di_pao"], hai_di_pao, EVENTS_SHOWN),
    ("tong_ku", EVENT_NAMES["tong_ku"], tong_ku, EVENTS_SHOWN),
    ("shang_xin", EVENT_NAMES["shang_xin"], shang_xin, EVENTS_SHOWN),
    ("hui_tou", EVENT_NAMES["hui_tou"], _event("hui_tou"), EVENTS_SHOWN),
    ("tao_sheng", EVENT_NAMES["tao_sheng"], _event("tao_sheng"), EVENTS_SHOWN),
    ("wang_en", EVENT_NAMES["wang_en"], _event("wang_en"), EVENTS_SHOWN),
)
NAMES: Final[dict[str, str]] = {key: name for key, name, _f, _n in ITEMS}


_PATTERNS_SHOWN: Final[dict[tuple[str, ...], int]] = {}


def shown(r: Reading) -> int:
    """The bit mask of what this reading shows (see ITEMS needs)."""
    mask = r.f.mask
    if r.patterns:
        bits = _PATTERNS_SHOWN.get(r.patterns)
        if bits is None:
            bits = _PATTERNS_SHOWN[r.patterns] = sum(PATTERN_SHOWN[p] for p in set(r.patterns))
        mask |= bits
    for _t, kind, _bloom in r.dragon_sets:
        mask |= DRAGON_KIND_SHOWN[kind]
    if r.seven:
        mask |= SEVEN
    if r.peng_peng:
        mask |= PENG
    if r.role[0] == "seq":
        mask |= SEQ_WIN
    return mask
