"""A situation's ``rules`` (§9 options, §10) read into the switches the oracle scores by."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .notation import BadInput

OPTIONAL_ITEMS = ("hai_di_lao_yue", "hai_di_pao", "tong_ku", "shang_xin", "hui_tou", "tao_sheng", "wang_en")
# §7 (003 说明1): these never help a hand reach 两炮起胡; specials_lift_threshold lets the first three (§9)
NOT_LIFTING = frozenset({"kong_tears", "robbing_kong", "hai_di_pao", "hui_tou", "tao_sheng", "shang_xin"})
LIFTED_BY_SWITCH = frozenset({"kong_tears", "robbing_kong", "hai_di_pao"})
MIN_OWN = 2

# each §9 option and the values the oracle reads (default first). 000's flower additions are given for
# 混一色 and 碰碰胡 only, and its "starts at 10" for 海底放炮 is unclear: RULES.md fixes too little to check them.
CHOICES: dict[str, tuple[Any, ...]] = {
    "flower_additions": ("003",),
    "specials_lift_threshold": (False, True),
    "hong_qi_seven_pairs": ("pairs", "fours"),
    "eaten_hong_qi": ("in_all", "on_top"),
    "four_fa": ("in_all", "on_top"),
    "self_draw_eating": ("each", "pool"),
    "hai_di_pao": ("addition",),
    "won_triplet_concealed": (True, False),
}


@dataclass(frozen=True)
class Rules:
    optional: frozenset[str] = frozenset()
    specials_lift_threshold: bool = False
    hong_qi_needs_fours: bool = False  # 七对's 红旗飘飘: four 中 and four 白, not a pair of each
    eaten_hong_qi_on_top: bool = False  # an eaten exposed 红旗: the sets' own values and another 10
    own_four_fa: int = 10  # 14 when "+10 on top"; a payer's four 发 are eaten as 10 either way (000 says so)
    pool_eaten: bool = False  # on 自摸 each payer pays the eaten 炮 of all three
    won_triplet_concealed: bool = True

    def not_lifting(self) -> frozenset[str]:
        return NOT_LIFTING - LIFTED_BY_SWITCH if self.specials_lift_threshold else NOT_LIFTING

    def fa_value(self, fa: int) -> int:
        """The winner's own 发: 1 each, four in all 10 (or 14)."""
        return self.own_four_fa if fa >= 4 else fa


def read_rules(overrides: dict[str, Any] | None) -> Rules:
    """The rules of a situation; BadInput for anything but the §9 options and their values."""
    given = dict(overrides or {})
    optional = given.pop("optional", [])
    if not isinstance(optional, list | tuple) or any(o not in OPTIONAL_ITEMS for o in optional):
        raise BadInput(f"rules.optional: a list of {', '.join(OPTIONAL_ITEMS)}")
    for key, value in given.items():
        if key not in CHOICES:
            raise BadInput(f"rules.{key}: the oracle reads only the §9 options")
        if value not in CHOICES[key] or isinstance(value, bool) is not isinstance(CHOICES[key][0], bool):
            raise BadInput(f"rules.{key} = {value!r}: the oracle reads {list(CHOICES[key])}")
    return Rules(
        optional=frozenset(optional),
        specials_lift_threshold=given.get("specials_lift_threshold", False),
        hong_qi_needs_fours=given.get("hong_qi_seven_pairs") == "fours",
        eaten_hong_qi_on_top=given.get("eaten_hong_qi") == "on_top",
        own_four_fa=14 if given.get("four_fa") == "on_top" else 10,
        pool_eaten=given.get("self_draw_eating") == "pool",
        won_triplet_concealed=given.get("won_triplet_concealed", True),
    )
