"""The ruleset as players read it: each scoring item with its 炮 under these rules and whether it counts. Shared by
`xingzi rules` (a table in the terminal) and the page's rules panel."""

from __future__ import annotations

from xingzi.engine.items import FLOWER, ITEMS
from xingzi.engine.ruleset import OPTIONAL_ITEMS, Ruleset

_FLEXIBLE = ("self_draw", "concealed", "single_wait")


def pao_text(key: str, rules: Ruleset) -> str:
    """What ``key`` is worth, as `xingzi rules` and the page showing both languages say it: the English words,
    but the 自摸/门清/单张 rows in Chinese (their 平胡 / 花炮 split reads best so)."""
    zh, en = pao_words(key, rules)
    return zh if key in _FLEXIBLE else en


def pao_words(key: str, rules: Ruleset) -> tuple[str, str]:
    """What ``key`` is worth under these rules, (in Chinese, in English), each alone (the page in one language)."""
    from xingzi.vision.names import item_name

    pao = rules.pao
    if key in _FLEXIBLE:
        table = rules.additions[key]
        extra = [(k, v) for k, v in table.items() if k not in ("ping_hu", "flower")]
        zh = "，".join(f"{item_name(k)} {v}" for k, v in extra)
        en = ", ".join(f"{item_name(k, chinese=False)} {v}" for k, v in extra)
        return (f"平胡 {table['ping_hu']} / 花炮 {table['flower']}" + (f"（{zh}）" if extra else ""),
                f"plain win {table['ping_hu']} / pattern hand {table['flower']}" + (f" ({en})" if extra else ""))
    if key == "fa":
        four = (f"{4 * pao['fa']}+" if rules.options["four_fa"] == "on_top" else "") + str(pao["four_fa"])
        return f"每张 {pao['fa']}，四张 = {four}", f"{pao['fa']} each, four = {four}"
    if key == "hong_qi":
        sets = "/".join(str(v) for v in rules.hong_qi_sets.values())
        return f"{pao['hong_qi']} + 每组中/白 {sets}", f"{pao['hong_qi']} + {sets} per zhong/bai set"
    if key == "hai_di_pao" and rules.options["hai_di_pao"] == "start_at_10":
        return f"从 {pao['hai_di_pao_start']} 起算", f"counts from {pao['hai_di_pao_start']}"
    if key == "xiaosa":
        return f"每连一级 {pao['xiaosa']}", f"{pao['xiaosa']} per run step"
    if key == "haohua":
        return f"每个 {pao['haohua']}，最多 {pao['haohua_max']} 个", f"{pao['haohua']} each, at most {pao['haohua_max']}"
    if key == "bloom_kong":
        return "按开花的那个杠计", "that kong's value"
    return str(pao[key]), str(pao[key])


def item_rows(rules: Ruleset) -> list[dict]:
    """One row per scoring item, in the engine's order: key, Chinese name, 炮 as text, whether these rules count
    it (the optional additions may be off; a 花炮 pattern a house set to 0 is not counted at all), whether it is a
    花炮 pattern, the items it replaces."""
    return [{"key": key, "zh": name, "pao": pao_text(key, rules),
             "on": not (key in OPTIONAL_ITEMS and key not in rules.optional) and not (key in FLOWER and not rules.pao[key]),
             "flower": key in FLOWER,
             "replaces": list(rules.replaces.get(key, ()))}
            for key, name, _item, _needs in ITEMS]
