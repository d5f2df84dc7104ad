"""The ruleset as players read it: each scoring item with its 炮 under these rules and whether it counts. Shared by
`xingzi rules` (a table in the terminal) and the page's rules panel."""

from __future__ import annotations

from xingzi.engine.items import FLOWER, ITEMS
from xingzi.engine.ruleset import OPTIONAL_ITEMS, Ruleset

_FLEXIBLE = ("self_draw", "concealed", "single_wait")


def pao_text(key: str, rules: Ruleset) -> str:
    pao = rules.pao
    if key in _FLEXIBLE:
        table = rules.additions[key]
        extra = ", ".join(f"{k} {v}" for k, v in table.items() if k not in ("ping_hu", "flower"))
        return f"平胡 {table['ping_hu']} / 花炮 {table['flower']}" + (f" ({extra})" if extra else "")
    if key == "fa":
        four = "4+" if rules.options["four_fa"] == "on_top" else ""
        return f"{pao['fa']} each, four = {four}{pao['four_fa']}"
    if key == "hong_qi":
        sets = rules.hong_qi_sets
        return f"{pao['hong_qi']} + {'/'.join(str(v) for v in sets.values())} per 中/白 set"
    if key == "hai_di_pao" and rules.options["hai_di_pao"] == "start_at_10":
        return f"counts from {pao['hai_di_pao_start']}"
    if key == "xiaosa":
        return f"{pao['xiaosa']} per run step"
    if key == "haohua":
        return f"{pao['haohua']} each, at most {pao['haohua_max']}"
    if key == "bloom_kong":
        return "that kong's value"
    return str(pao[key])


def item_rows(rules: Ruleset) -> list[dict]:
    """One row per scoring item, in the engine's order: key, Chinese name, 炮 as text, whether these rules count
    it (the optional additions may be off), whether it is a 花炮 pattern, the items it replaces."""
    return [{"key": key, "zh": name, "pao": pao_text(key, rules),
             "on": not (key in OPTIONAL_ITEMS and key not in rules.optional), "flower": key in FLOWER,
             "replaces": list(rules.replaces.get(key, ()))}
            for key, name, _item, _needs in ITEMS]
