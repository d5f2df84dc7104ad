"""The items of one reading of a winning hand: §3 own 炮, §4 additions, §5 花炮 patterns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .notation import BAI, N_KINDS, ZHONG, Meld, Tile, is_dragon, suit_of
from .rules import Rules
from .shapes import Counts, Placement, Split, two_sides, wait_kind, xiaosa_count

Items = dict[str, int]  # item key -> 炮, summed per key (two 明杠 are one `kong` item of 2)
SetRole = Literal["run", "concealed_pung", "won_pung", "pung", "kong", "concealed_kong"]

PAO = {
    "ping_hu": 1, "self_draw_plain": 1, "self_draw_flower": 5, "concealed": 1, "single_wait": 1,
    "kong": 1, "concealed_kong": 2, "kong_bloom": 10, "kong_tears": 10, "robbing_kong": 10,
    "xiaosa": 5, "haohua": 5, "wenrou": 5, "quan_qiu_ren": 5, "shuang_bian": 5, "optional": 5,
    "qing_yi_se": 15, "hun_yi_se": 10, "peng_peng_hu": 10, "qi_dui": 10, "yi_tiao_long": 10, "hong_qi": 10,
    "qi_xian_nv": 100,
}
# §3: a 中/白 set on its own; a 碰 the winning discard completed (won_triplet_concealed = false) is a 碰
DRAGON_SET: dict[SetRole, tuple[str, int]] = {
    "pung": ("dragon_pung", 1), "won_pung": ("dragon_pung", 1), "concealed_pung": ("dragon_concealed_pung", 2),
    "kong": ("dragon_kong", 3), "concealed_kong": ("dragon_concealed_kong", 4),
}
# §5: a 中/白 set under 红旗飘飘, on top of its 10
HONG_QI_SET: dict[SetRole, int] = {"pung": 0, "won_pung": 0, "concealed_pung": 1, "kong": 2,
                                   "concealed_kong": 3}


@dataclass(frozen=True)
class Win:
    """What every reading of one claim shares."""

    melds: tuple[Meld, ...]
    waits: tuple[Tile, ...]  # before the winning tile
    fa: int
    self_draw: bool
    events: frozenset[str]
    rules: Rules

    @property
    def sea_moon(self) -> bool:
        """海底捞月 counted: it holds the 自摸 addition."""
        return self.self_draw and "hai_di_lao_yue" in self.events & self.rules.optional


def _add(items: Items, key: str, pao: int) -> None:
    items[key] = items.get(key, 0) + pao


def event_items(items: Items, win: Win, place: Placement | None) -> None:
    """§4's additions for how the hand won; ``place``: where the winning tile sits (None for 七对)."""
    on = win.events & win.rules.optional
    discard = not win.self_draw
    if discard and "kong_tears" in win.events:
        _add(items, "kong_tears", PAO["kong_tears"])
    if discard and "robbing_kong" in win.events:
        _add(items, "robbing_kong", PAO["robbing_kong"])
    wait = wait_kind(place) if place else None
    # the event says the other copies are seen; the shape must still be the one the row names.
    # 痛苦: an edge or middle wait that was the only wait ("won on the last").
    # 伤心痛苦: a two-sided wait on exactly its two sides; a side the winner holds all four of
    # leaves a single wait (胡单张), not 伤心痛苦 (the project's decision, docs/engine.md).
    shapes = {
        "tong_ku": wait in ("edge", "middle") and len(win.waits) == 1,
        "shang_xin": place is not None and wait == "two_sided" and set(win.waits) == two_sides(place),
        "hai_di_lao_yue": win.self_draw, "hai_di_pao": discard, "hui_tou": discard, "wang_en": discard,
        "tao_sheng": True,
    }
    for key, fits in shapes.items():
        if key in on and fits:
            _add(items, key, PAO["optional"])


def seven_pairs_items(counts: Counts, win: Win) -> Items:
    kinds = [t for t in range(N_KINDS) if counts[t]]
    suits = {suit_of(t) for t in kinds if not is_dragon(t)}
    dragons = any(is_dragon(t) for t in kinds)
    fa = {"fa": win.rules.fa_value(win.fa)} if win.fa else {}
    if not dragons and len(suits) == 1 and len(kinds) == 7 and kinds[-1] - kinds[0] == 6:
        return {"qi_xian_nv": PAO["qi_xian_nv"], **fa}  # "nothing else": no 自摸, no event
    items: Items = {"qi_dui": PAO["qi_dui"], **fa}
    if len(suits) == 1:
        key = "hun_yi_se" if dragons else "qing_yi_se"
        items[key] = PAO[key]
    need = 4 if win.rules.hong_qi_needs_fours else 2
    if counts[ZHONG] >= need and counts[BAI] >= need:
        items["hong_qi"] = PAO["hong_qi"]
    if xiaosa := xiaosa_count(kinds):
        items["xiaosa"] = PAO["xiaosa"] * xiaosa
    if fours := min(3, sum(1 for c in counts if c == 4)):
        items["haohua"] = PAO["haohua"] * fours
    if win.self_draw and not win.sea_moon:
        items["self_draw"] = PAO["self_draw_flower"]
    event_items(items, win, None)
    return items


def _sets(split: Split, place: Placement, win: Win) -> list[tuple[SetRole, Tile]]:
    """The winner's melds (in order) and the hand's sets, each with how it stands."""
    won_pung = place.role == "triplet" and not win.self_draw and not win.rules.won_triplet_concealed
    sets: list[tuple[SetRole, Tile]] = list(win.melds)
    for kind, t in split[1]:
        if kind == "run":
            sets.append(("run", t))
        else:  # one triplet of a kind at most, so this finds the one the winning tile made
            sets.append(("won_pung" if won_pung and t == place.start else "concealed_pung", t))
    return sets


def standard_items(split: Split, place: Placement, win: Win) -> Items:
    """The items of 4 sets and a pair read one way, the winning tile completing ``place``."""
    sets = _sets(split, place, win)
    kinds = [split[0], *(t for _, t in sets)]  # a run stays in its suit: its lowest tile tells the suit
    suits = {suit_of(t) for t in kinds if not is_dragon(t)}
    dragons = any(is_dragon(t) for t in kinds)
    runs = [t for role, t in sets if role == "run"]
    patterns = {
        "qing_yi_se": len(suits) == 1 and not dragons,
        "hun_yi_se": len(suits) == 1 and dragons,
        "peng_peng_hu": not runs,
        "yi_tiao_long": any(all(s * 9 + r in runs for r in (0, 3, 6)) for s in range(3)),
    }
    hong_qi = {t for _, t in sets if is_dragon(t)} == {ZHONG, BAI}
    items: Items = {key: PAO[key] for key, holds in patterns.items() if holds}
    flower = bool(items) or hong_qi
    if not flower:
        items["ping_hu"] = PAO["ping_hu"]
    if win.fa:
        items["fa"] = win.rules.fa_value(win.fa)
    kongs = [i for i, (kind, _) in enumerate(win.melds) if kind != "pung"]
    bloom = win.self_draw and "kong_bloom" in win.events and bool(kongs)
    bloom_kong = kongs[-1] if bloom else -1  # the winner's last kong (melds are listed in order, §10)
    hong_total = PAO["hong_qi"]
    for i, (role, t) in enumerate(sets):
        if i == bloom_kong:
            continue  # 杠上开花's 10 holds that kong's own 炮
        if is_dragon(t) and hong_qi:
            hong_total += HONG_QI_SET[role]
        elif is_dragon(t) and role != "run":
            _add(items, *DRAGON_SET[role])
        elif role in ("kong", "concealed_kong"):
            _add(items, role, PAO[role])
    if hong_qi:
        items["hong_qi"] = hong_total
    if win.self_draw and not bloom and not win.sea_moon:
        items["self_draw"] = PAO["self_draw_flower" if flower else "self_draw_plain"]
    claimed = [m for m in win.melds if m[0] != "concealed_kong"]
    won_pung = any(role == "won_pung" for role, _ in sets)
    if not claimed and patterns["peng_peng_hu"] and not won_pung:
        items["wenrou"] = PAO["wenrou"]
    elif not claimed:
        items["concealed"] = PAO["concealed"]
    twins = place.role == "run" and runs.count(place.start) >= 2 and wait_kind(place) in ("edge", "middle")
    if patterns["peng_peng_hu"] and len(claimed) == 4:
        items["quan_qiu_ren"] = PAO["quan_qiu_ren"]
    elif twins:
        items["shuang_bian"] = PAO["shuang_bian"]
    elif len(win.waits) == 1:
        items["single_wait"] = PAO["single_wait"]
    if patterns["peng_peng_hu"] and (xiaosa := xiaosa_count([t for _, t in sets])):
        items["xiaosa"] = PAO["xiaosa"] * xiaosa
    if bloom:
        items["kong_bloom"] = PAO["kong_bloom"]
    event_items(items, win, place)
    return items
