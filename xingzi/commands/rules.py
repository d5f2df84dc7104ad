"""``xingzi rules``: print the active ruleset (item, 炮, on/off) and its §9 options."""

from __future__ import annotations

import argparse
import unicodedata

from xingzi.engine import load_ruleset
from xingzi.engine.items import FLOWER, ITEMS
from xingzi.engine.ruleset import OPTIONAL_ITEMS, Ruleset

_FLEXIBLE = ("self_draw", "concealed", "single_wait")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", metavar="FILE", help="ruleset TOML file or preset name (default, text000)")


def _pao_text(key: str, rules: Ruleset) -> str:
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


def pad(text: str, width: int) -> str:
    """Left-align in a column counting CJK characters as two cells."""
    cells = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(1, width - cells)


def table_lines(rules: Ruleset) -> list[str]:
    head = pad("item", 24) + pad("名称", 10) + pad("炮", 34) + pad("on/off", 8) + "replaces"
    lines = [f"ruleset: {rules.name}", "", head]
    for key, name, _f, _needs in ITEMS:
        on = "off" if key in OPTIONAL_ITEMS and key not in rules.optional else "on"
        kind = " (花炮)" if key in FLOWER else ""
        replaces = ", ".join(rules.replaces.get(key, ()))
        lines.append(pad(key + kind, 24) + pad(name, 10) + pad(_pao_text(key, rules), 34) + pad(on, 8) + replaces)
    lines += ["", "options (RULES.md §9):"]
    for key, value in rules.options.items():
        shown = ", ".join(value) if isinstance(value, tuple) else str(value).lower() if isinstance(value, bool) else value
        lines.append(f"  {key:<26}{shown or '-'}")
    lines += ["", f"两炮起胡: own 炮 ≥ {rules.min_own}; not lifting: {', '.join(sorted(rules.not_lifting))}"]
    eat = rules.eating
    hq = rules.eating_hong_qi
    lines.append("吃炮: " + ", ".join(f"{k} {v}" for k, v in eat.items() if k != "hong_qi")
                 + f"; exposed 红旗 {hq['base']} + {hq['pung']}/{hq['kong']}/{hq['concealed_kong']} per set")
    s = rules.settlement
    lines.append(f"settlement: dealer ×{s['dealer_factor']}, 诈胡 {s['false_win_penalty']} to each, "
                 f"跟庄 {s['follow_dealer']} ({s['follow_dealer_dragon']} for 中/白)")
    return lines


def run(args: argparse.Namespace) -> int:
    print("\n".join(table_lines(load_ruleset(args.rules))))
    return 0
