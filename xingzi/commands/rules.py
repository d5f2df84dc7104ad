"""``xingzi rules``: print the active ruleset (item, 炮, on/off) and its §9 options."""

from __future__ import annotations

import argparse
import unicodedata

from xingzi.engine import load_ruleset
from xingzi.engine.ruleset import Ruleset, least_win_name
from xingzi.ruletable import item_rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", metavar="FILE", help="ruleset TOML file or preset name (default, text000)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides",
                   help="the table with one ruleset option or 炮 number changed, as `score --set` and `serve --set` "
                        "take it, e.g. --set four_fa=on_top")


def cells(text: str) -> int:
    """Terminal cells ``text`` takes, CJK characters (and full-width punctuation) two each."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int) -> str:
    """Left-align in a column counting CJK characters as two cells."""
    return text + " " * max(1, width - cells(text))


def table_lines(rules: Ruleset) -> list[str]:
    rows = item_rows(rules)
    pao_width = max(34, *(cells(row["pao"]) + 2 for row in rows))  # a house ruleset's values may be longer
    head = pad("item", 24) + pad("名称", 10) + pad("炮", pao_width) + pad("on/off", 8) + "replaces"
    lines = [f"ruleset: {rules.name}", "", head]
    for row in rows:
        kind = " (花炮)" if row["flower"] else ""
        lines.append(pad(row["key"] + kind, 24) + pad(row["zh"], 10) + pad(row["pao"], pao_width)
                     + pad("on" if row["on"] else "off", 8) + ", ".join(row["replaces"]))
    lines += ["", "options (RULES.md §9):"]
    for key, value in rules.options.items():
        shown = ", ".join(value) if isinstance(value, tuple) else str(value).lower() if isinstance(value, bool) else value
        lines.append(f"  {key:<26}{shown or '-'}")
    lines += ["", f"{least_win_name(rules.min_own)} (the least a win may be): own 炮 ≥ {rules.min_own}; "
                  f"not lifting: {', '.join(sorted(rules.not_lifting))}"]
    eat = rules.eating
    hq = rules.eating_hong_qi
    lines.append("吃炮: " + ", ".join(f"{k} {v}" for k, v in eat.items() if k != "hong_qi")
                 + f"; exposed 红旗 {hq['base']} + {hq['pung']}/{hq['kong']}/{hq['concealed_kong']} per set")
    s = rules.settlement
    lines.append(f"settlement: dealer ×{s['dealer_factor']}, 诈胡 {s['false_win_penalty']} to each, "
                 f"跟庄 {s['follow_dealer']} ({s['follow_dealer_dragon']} for 中/白)")
    return lines


def run(args: argparse.Namespace) -> int:
    from xingzi.commands.score import parse_overrides

    overrides = parse_overrides(args.overrides)
    lines = table_lines(load_ruleset(args.rules).with_overrides(overrides))
    if overrides:  # the ruleset's name alone would hide that its numbers were changed
        lines[0] += f", with --set {' '.join(args.overrides)}"
    print("\n".join(lines))
    return 0
