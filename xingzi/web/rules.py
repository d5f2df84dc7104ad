"""The rules a table plays by, on the page: the server's ruleset (`xingzi serve --rules FILE --set KEY=VALUE`) and
the points of RULES.md §9 on which tables differ, which the page may change for its own scores."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from xingzi.engine.ruleset import CHOICES, OPTIONAL_ITEMS, Ruleset, least_win_name, load_ruleset
from xingzi.ruletable import item_rows, pao_words
from xingzi.vision.names import ITEM_NAMES

YES_NO = {True: ("是 yes", "是", "yes"), False: ("否 no", "否", "no")}
# §9 options as the page names them: (Chinese, English, {value: (both, Chinese, English)}); "both" is the choice's
# text as sent before the page showed one language alone, kept for clients that read it
OPTION_TEXT: dict[str, tuple[str, str, Mapping[Any, tuple[str, str, str]]]] = {
    "flower_additions": ("花炮手的加炮", "additions on a pattern hand (flower pao)", {
        "003": ("003: 自摸 +5, 门清 +1, 单张 +1", "003：自摸 +5，门清 +1，单张 +1",
                "003: self-draw +5, concealed +1, single wait +1"),
        "000": ("000: 混一色 each +1, 碰碰胡 门清/自摸 +5", "000：混一色各 +1，碰碰胡 门清/自摸 +5",
                "000: one suit and dragons +1 each, all triplets concealed/self-draw +5")}),
    "specials_lift_threshold": ("杠上流泪/抢杠/海底放炮可起胡",
                                "a win after a kong, robbing a kong or on the last discard lifts a 1-pao hand", YES_NO),
    "hong_qi_seven_pairs": ("七对的红旗飘飘", "zhong and bai sets in seven pairs", {
        "pairs": ("中一对白一对 a pair of each", "中一对白一对", "a pair of each"),
        "fours": ("四中四白 four of each", "四中四白", "four of each")}),
    "eaten_hong_qi": ("吃明的红旗飘飘", "eaten exposed zhong and bai sets", {
        "in_all": ("共10 10 in all", "共10", "10 in all"),
        "on_top": ("各组另加10 its sets and 10 more", "各组另加10", "its sets and 10 more")}),
    "four_fa": ("四个发", "four fa of one's own", {
        "in_all": ("共10 10 in all", "共10", "10 in all"), "on_top": ("4+10 = 14", "4+10 = 14", "4+10 = 14")}),
    "self_draw_eating": ("自摸吃炮", "pao eaten on a self-draw", {
        "each": ("各付各的 each payer their own part", "各付各的", "each payer their own part"),
        "pool": ("三家合计 all three pooled", "三家合计", "all three pooled")}),
    "hai_di_pao": ("海底放炮", "won on the last discard", {
        "addition": ("加5 +5", "加5", "+5"), "start_at_10": ("从10起 counts from 10", "从10起", "counts from 10")}),
    "won_triplet_concealed": ("点炮成刻算暗刻", "a triplet the winning discard completes is concealed", YES_NO),
}
# the shipped rulesets' names in Chinese (a table's own file is named as it names itself)
RULESET_ZH = {"default (003 text)": "默认（按 003 文本）", "text000 (000 text readings)": "000 文本（按 000 文本的读法）"}
PAGE_KEYS = (*CHOICES, "optional")  # what the page may change; numbers of 炮 stay the server's


@dataclass(frozen=True)
class TableRules:
    """The server's ruleset: ``spec`` (a preset name or TOML file; None: the default) with ``overrides``."""

    spec: str | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ruleset  # noqa: B018 - a bad file or override is refused when the server starts, not per photo

    @cached_property
    def ruleset(self) -> Ruleset:
        return load_ruleset(self.spec).with_overrides(dict(self.overrides))

    def info(self) -> dict:
        """What the page shows: the ruleset's name, each §9 option with its choices and the server's value."""
        rules = self.ruleset
        options = []
        for key, allowed in CHOICES.items():
            zh, en, text = OPTION_TEXT[key]
            text = {**text, **_numbered_choices(key, rules)}
            options.append({"key": key, "zh": zh, "en": en, "value": rules.option(key),
                            "choices": [{"value": v, "text": text[v][0], "zh": text[v][1], "en": text[v][2]}
                                        for v in allowed]})
        optional = [{"key": k, "zh": ITEM_NAMES[k][0], "en": ITEM_NAMES[k][1], "on": k in rules.optional}
                    for k in OPTIONAL_ITEMS]
        return {**_names(rules, self.overrides), "options": options, "optional": optional}

    def for_page(self, page: Any) -> dict[str, Any]:
        """The overrides a score uses: the server's, then the page's own choices (§9 options only). Bad ones
        raise ValueError saying what was expected."""
        return self._with_page(page)[0]

    def _with_page(self, page: Any) -> tuple[dict[str, Any], Ruleset]:
        if page is None:
            page = {}
        if not isinstance(page, Mapping):
            raise ValueError(f"rules must be an object of options, e.g. {{\"four_fa\": \"on_top\"}}, got {page!r}")
        unknown = [k for k in page if k not in PAGE_KEYS]
        if unknown:
            raise ValueError(f"rules: the page may set only {', '.join(PAGE_KEYS)}; got {', '.join(map(str, unknown))}")
        for key, value in page.items():  # an option's choice, never a 炮 number (four_fa and hai_di_pao are both)
            allowed = CHOICES.get(key)
            if allowed is not None and not any(value == a and type(value) is type(a) for a in allowed):
                said = "true or false" if isinstance(allowed[0], bool) else f"one of {list(allowed)}"
                raise ValueError(f"rules: option {key!r} must be {said}, got {value!r}"[:300])
        merged = {**self.overrides, **page}
        return merged, load_ruleset(self.spec).with_overrides(merged)  # says which value is wrong

    def items(self, page: Any) -> dict:
        """Each scoring item with its 炮 under the server's rules and the page's changes (the page's 炮 table)."""
        rules = self._with_page(page)[1]
        rows = []
        for row in item_rows(rules):  # 炮 in each language alone too (pao_zh, pao_en): the page shows one
            zh, en = pao_words(row["key"], rules)
            rows.append({**row, "en": ITEM_NAMES.get(row["key"], ("", row["key"]))[1], "pao_zh": zh, "pao_en": en})
        return {**_names(rules, self.overrides), "items": rows, "settlement": settlement_rows(rules)}


def settlement_rows(rules: Ruleset) -> list[dict[str, str]]:
    """What a win must reach and how the table pays, under these rules: the numbers a house file changes beside
    the items' (the least win, a false win's penalty, the dealer's factor, 跟庄), each worded in both languages."""
    s, least = rules.settlement, rules.min_own
    doubled = f"×{s['dealer_factor']}" if s["follow_dealer_doubled"] else ""
    return [
        {"key": "min_own", "zh": least_win_name(least), "en": "the least a win may be",
         "text_zh": f"至少 {least} 炮", "text_en": f"at least {least} pao"},
        {"key": "false_win_penalty", "zh": "诈胡", "en": "a false win",
         "text_zh": f"付其他三家各 {s['false_win_penalty']} 炮", "text_en": f"pays each other player {s['false_win_penalty']}"},
        {"key": "dealer_factor", "zh": "庄家", "en": "the dealer",
         "text_zh": f"输赢 ×{s['dealer_factor']}", "text_en": f"pays and is paid ×{s['dealer_factor']}"},
        {"key": "follow_dealer", "zh": "跟庄", "en": "following the dealer's first discard",
         "text_zh": f"庄家付每家 {s['follow_dealer']}（中/白 {s['follow_dealer_dragon']}）{doubled}",
         "text_en": f"the dealer pays each {s['follow_dealer']} ({s['follow_dealer_dragon']} on zhong/bai) {doubled}".strip()},
    ]


def _numbered_choices(key: str, rules: Ruleset) -> dict[Any, tuple[str, str, str]]:
    """An option's choices that name a number of 炮, with the numbers of these rules (a house file may change
    them); OPTION_TEXT words them with the shipped ones."""
    pao = rules.pao
    if key == "four_fa":
        n, each = pao["four_fa"], 4 * pao["fa"]
        return {"in_all": (f"共{n} {n} in all", f"共{n}", f"{n} in all"), "on_top": (f"{each}+{n} = {each + n}",) * 3}
    if key == "hai_di_pao":
        add, start = pao["hai_di_pao"], pao["hai_di_pao_start"]
        return {"addition": (f"加{add} +{add}", f"加{add}", f"+{add}"),
                "start_at_10": (f"从{start}起 counts from {start}", f"从{start}起", f"counts from {start}")}
    if key == "eaten_hong_qi":
        tables = rules.data["eating"]["hong_qi"]
        whole, more = tables["in_all"]["base"], tables["on_top"]["base"]
        return {"in_all": (f"共{whole} {whole} in all", f"共{whole}", f"{whole} in all"),
                "on_top": (f"各组另加{more} its sets and {more} more", f"各组另加{more}", f"its sets and {more} more")}
    return {}


def _names(rules: Ruleset, overrides: Mapping[str, Any]) -> dict[str, str]:
    """The ruleset's name as it names itself, and in Chinese where it is a shipped one; with the server's ``--set``
    changes after it (the name alone would hide that its numbers were changed, as ``xingzi score`` says too)."""
    name, zh = rules.name, RULESET_ZH.get(rules.name, rules.name)
    if overrides:
        said = " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                        for k, v in overrides.items())
        name, zh = f"{name}, with --set {said}", f"{zh}（另设 {said}）"
    return {"name": name, "name_zh": zh}
