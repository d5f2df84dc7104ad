"""Rulesets: shipped presets, house files, overrides, and what a bad file gets told."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from shared_folder import shared_file

from xingzi.engine import load_ruleset, score_situation
from xingzi.engine.items import ITEMS
from xingzi.engine.ruleset import CHOICES, OPTIONAL_ITEMS

EX6 = {"hand": "111333555777s99s", "win_tile": "9s", "self_draw": True}


def test_default_has_every_option_and_every_number() -> None:
    rules = load_ruleset()
    assert set(CHOICES) | {"optional"} == set(rules.options)
    assert rules.optional == frozenset()
    pattern_and_event_keys = {k for k, _n, _f, _needs in ITEMS} - {
        "bloom_kong", "self_draw", "concealed", "single_wait"}
    assert pattern_and_event_keys <= set(rules.pao)
    assert "data=" not in repr(rules)  # the raw TOML tables stay out of messages that show the ruleset


def test_text000_preset_takes_every_other_reading() -> None:
    default, text000 = load_ruleset(), load_ruleset("text000")
    for key, (first, other) in CHOICES.items():
        assert default.options[key] == first and text000.options[key] == other, key
        assert default.option(key) == first and text000.option(key) == other, key  # what the web page shows
    assert text000.optional == frozenset(OPTIONAL_ITEMS)
    assert text000.replaces["shuang_bian"] == () and default.replaces["shuang_bian"] == ("single_wait",)


def test_no_overrides_give_the_same_ruleset() -> None:
    rules = load_ruleset()
    assert rules.with_overrides({}) is rules


def test_overrides_make_a_new_ruleset_and_leave_the_old_one() -> None:
    rules = load_ruleset()
    house = rules.with_overrides({"qing_yi_se": 20, "optional": ["tong_ku"], "specials_lift_threshold": True})
    assert house.pao["qing_yi_se"] == 20 and "tong_ku" in house.optional and "robbing_kong" not in house.not_lifting
    assert rules.pao["qing_yi_se"] == 15 and rules.optional == frozenset() and "robbing_kong" in rules.not_lifting
    assert score_situation({**EX6, "rules": {"pao": {"qing_yi_se": 20}}})["own"] == 40


@pytest.mark.parametrize(
    "overrides, where, value",
    [
        pytest.param({"pao.qing_yi_se": 20}, ("pao", "qing_yi_se"), 20, id="a-pao-path"),
        pytest.param({"options.four_fa": "on_top"}, ("options", "four_fa"), "on_top", id="an-option-path"),
        pytest.param({"eating.hong_qi.in_all.base": 7}, ("eating", "hong_qi", "in_all", "base"), 7, id="a-deep-path"),
        pytest.param({"pao": {"ping_hu": 3}, "pao.qing_yi_se": 20}, ("pao", "qing_yi_se"), 20, id="beside-its-table"),
    ],
)
def test_an_override_may_name_the_path_its_errors_name(overrides, where, value) -> None:
    """An error names a setting by its path in the file (``ruleset pao.ping_hu must be a whole number``), so the
    same spelling is accepted as an override."""
    place = load_ruleset().with_overrides(overrides).data
    for key in where:
        place = place[key]
    assert place == value


@pytest.mark.parametrize(
    "overrides, message",
    [
        pytest.param({"pao.ping_hu": "abc"}, "pao.ping_hu must be a whole number ≥ 0, got 'abc'", id="its-value"),
        pytest.param({"pao.no_such_item": 3}, "unknown key 'pao.no_such_item'", id="an-unknown-key"),
        pytest.param({"no_such_table.x": 3}, "is not an option, a 炮 name, a table", id="an-unknown-table"),
        pytest.param({"pao.qing_yi_se.x": 3}, r"pao.qing_yi_se must be a whole number ≥ 0, got \{'x': 3\}", id="a-number-as-a-table"),
    ],
)
def test_a_wrong_path_override_is_refused_by_its_path(overrides, message) -> None:
    with pytest.raises(ValueError, match=message):
        load_ruleset().with_overrides(overrides)


@pytest.mark.parametrize(
    "overrides, message",
    [
        pytest.param({"min_own": 3}, r"'min_own' belongs under \[threshold\]: name it by its path, threshold.min_own$",
                     id="min-own"),
        pytest.param({"dealer_factor": 3}, r"belongs under \[settlement\]: name it by its path, settlement.dealer_factor$",
                     id="a-settlement"),
        pytest.param({"base": 7}, r"belongs under \[eating.hong_qi.in_all\] or \[eating.hong_qi.on_top\]: name it by its "
                     r"path, e.g. eating.hong_qi.in_all.base$", id="in-two-tables"),
        pytest.param({"settlement.min_own": 3}, r"unknown key 'settlement.min_own'.*\(min_own belongs under \[threshold\]\)",
                     id="under-another-table"),
    ],
)
def test_an_override_of_a_key_without_its_table_is_told_its_path(overrides, message) -> None:
    """``--set min_own=3`` was refused as "not an option, a 炮 name, a table ...", listing only the options, while a
    house file with ``qing_yi_se`` outside [pao] was told where it belongs: any key of a table now is."""
    with pytest.raises(ValueError, match=message):
        load_ruleset().with_overrides(overrides)


@pytest.mark.parametrize("qi_dui", [0, 10])
def test_seven_pairs_never_take_concealed_nor_single_wait_whatever_they_are_worth(qi_dui) -> None:
    """RULES.md §4: 门前清 and 胡单张 are 'not for 七对', a condition on the shape: at 0 炮 the 七对 item went, and its
    [replaces] with it, so a house's seven pairs scored 门前清 1 + 胡单张 1 (a fair win of 2)."""
    result = score_situation({"hand": "1122m3344p5566s中中", "win_tile": "中", "rules": {"qi_dui": qi_dui}})
    items = {i["key"] for i in result["items"]}
    assert not items & {"concealed", "single_wait", "ping_hu"}
    assert (result["valid"], result["own"]) == ((True, 10) if qi_dui else (False, 0))


@pytest.mark.parametrize(
    "situation, zeroed, own, items",
    [
        # 碰碰胡 at 0 took the 平胡 base away and left a 1-炮 hand: a false win, 20 炮 paid by the winner
        pytest.param({"hand": "111m333p555s白白", "win_tile": "白", "melds": ["pung 7s"]}, "peng_peng_hu", 2,
                     {"ping_hu": 1, "single_wait": 1}, id="peng_peng_hu"),
        # 红旗 at 0 valued the 中/白 sets at nothing: 1 炮 with 单张 and no base
        pytest.param({"hand": "中中中123p456p99s", "win_tile": "9s", "melds": ["pung 白"]}, "hong_qi", 5,
                     {"ping_hu": 1, "dragon_pung": 1, "dragon_concealed_pung": 2, "single_wait": 1}, id="hong_qi"),
        pytest.param({"hand": "123456789m234p66s", "win_tile": "6s"}, "yi_tiao_long", 3,
                     {"ping_hu": 1, "concealed": 1, "single_wait": 1}, id="yi_tiao_long"),
        pytest.param({"hand": "123m345m678m白白白99m", "win_tile": "7m"}, "hun_yi_se", 5,
                     {"ping_hu": 1, "dragon_concealed_pung": 2, "concealed": 1, "single_wait": 1}, id="hun_yi_se"),
        # and the 花炮 自摸 (+5) went on though no 花炮 was counted
        pytest.param({"hand": "123m345m678m999m11m", "win_tile": "7m", "self_draw": True}, "qing_yi_se", 4,
                     {"ping_hu": 1, "self_draw": 1, "concealed": 1, "single_wait": 1}, id="qing_yi_se-self-draw"),
    ],
)
def test_a_pattern_a_house_sets_to_nothing_is_no_pattern(situation, zeroed, own, items) -> None:
    """A table that writes a 花炮 pattern down to 0 炮 does not count it: the hand is scored as one without it (the
    平胡 base, plain additions, 中/白 sets at their own values), not as a pattern worth nothing that takes those away."""
    result = score_situation({**situation, "rules": {zeroed: 0}})
    assert (result["valid"], result["own"]) == (True, own)
    assert {i["key"]: i["pao"] for i in result["items"]} == items


def test_house_file_with_base_and_changes(tmp_path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('base = "text000"\nname = "our table"\n[pao]\npeng_peng_hu = 12\n', encoding="utf-8")
    rules = load_ruleset(path)
    assert rules.name == "our table" and rules.pao["peng_peng_hu"] == 12
    assert rules.options["four_fa"] == "on_top"  # from text000
    # 15 清一色 + 12 碰碰胡 + 5 自摸 + 5 温柔 + 5 门清 (000: 温柔 adds to a +5 门清)
    assert score_situation(EX6, rules)["own"] == 42


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("[options]\nfour_fa = 'lots'\n", "four_fa", id="bad-choice"),
        pytest.param("[pao]\nqi_dui = -1\n", "pao.qi_dui must be a whole number ≥ 0, got -1", id="negative"),
        pytest.param("[pao]\nqi_dui = 'ten'\n", "pao.qi_dui must be a whole number ≥ 0, got 'ten'", id="not-a-number"),
        pytest.param("[pao]\nno_such_item = 5\n", "no_such_item", id="unknown-key"),
        pytest.param("qing_yi_se = 20\n", r"unknown key 'qing_yi_se'.*\(qing_yi_se belongs under \[pao\]\)",
                     id="a-pao-number-outside-its-table"),
        pytest.param("hong_qi_seven_pairs = 'fours'\n", r"\(hong_qi_seven_pairs belongs under \[options\]\)",
                     id="an-option-outside-its-table"),
        pytest.param("four_fa = 'on_top'\n", r"\(four_fa belongs under \[pao\], \[options\] or \[eating\]\)",
                     id="both-a-number-and-an-option"),
        pytest.param("min_own = 3\n", r"unknown key 'min_own'.*\(min_own belongs under \[threshold\]\)",
                     id="a-threshold-key-outside-its-table"),
        pytest.param("[settlement]\nmin_own = 3\n", r"unknown key 'settlement.min_own'.*\(min_own belongs under \[threshold\]\)",
                     id="a-key-in-another-table"),
        pytest.param("hun_yi_se = 3\n", r"\(hun_yi_se belongs under \[pao\], \[flower_additions.000.self_draw\], "
                     r"\[flower_additions.000.concealed\] or \[flower_additions.000.single_wait\]\)$",
                     id="in-four-tables-all-named"),
        pytest.param("kong = 3\n", r"\(kong belongs under \[pao\], \[hong_qi_sets\], \[eating\], "
                     r"\[eating.hong_qi.in_all\] or …\)$", id="in-five-tables-four-named"),
        pytest.param("[options]\noptional = ['tong_ku', 'flying']\n", r"must list items among \[.*\], got \['tong_ku', 'flying'\]",
                     id="unknown-optional"),
        pytest.param("[options\n", "not valid TOML", id="broken-toml"),
        pytest.param("[options]\nspecials_lift_threshold = 'True'\n",
                     "'specials_lift_threshold' must be true or false, got 'True'", id="a-switch-as-text"),
        pytest.param("[pao]\nqing_yi_se = 99999999999999999999999\n",
                     "pao.qing_yi_se must be at most 1,000,000, got 99,999,999,999,999,999,999,999", id="past-any-table"),
        pytest.param("[flower_additions.003.self_draw]\nflower = 2000000\n",
                     "flower_additions.003.self_draw.flower must be at most 1,000,000", id="an-addition-past-any-table"),
        pytest.param("[pao]\nhong_qi = 'x'\n", "pao.hong_qi must be a whole number ≥ 0, got 'x'", id="hong-qi-text"),
        pytest.param("[eating.hong_qi.in_all]\nbase = -1\n", "eating.hong_qi.in_all.base must be a whole number ≥ 0",
                     id="eaten-hong-qi-negative"),
        pytest.param("[settlement]\nfollow_dealer_doubled = 1\n", "follow_dealer_doubled must be true or false",
                     id="doubled-not-a-switch"),
        pytest.param("name = 5\n", "ruleset name must be text, got 5", id="name-not-text"),
        pytest.param("[settlement]\ndealer_factor = -1\n", "settlement.dealer_factor must be a whole number ≥ 0, got -1",
                     id="dealer-factor-negative"),
        pytest.param("[threshold]\nnot_lifting = 'kong_tears'\n", "threshold.not_lifting must be a list of item keys, got 'kong_tears'",
                     id="not-lifting-text"),
        pytest.param("[replaces]\nshuang_bian = 'single_wait'\n",
                     "replaces.shuang_bian must be a list of item keys, got 'single_wait'", id="replaces-text"),
        pytest.param("[replaces]\nshuang_bian = [1]\n", r"replaces.shuang_bian must be a list of item keys, got \[1\]",
                     id="replaces-a-number"),
        pytest.param("[threshold]\nmin_own = '2'\n", "threshold.min_own must be a whole number", id="min-own-text"),
        pytest.param("[replaces]\nwenrou = ['concealedd']\n", "replaces.wenrou: 'concealedd' is no scoring item",
                     id="replaces-a-misspelt-item"),
        pytest.param("[replaces]\nwenrouu = []\n", "replaces: 'wenrouu' is no scoring item", id="replacing-no-item"),
        pytest.param("[threshold]\nnot_lifting = ['kong_tearz']\n",
                     "threshold.not_lifting: 'kong_tearz' is no scoring item", id="not-lifting-a-misspelt-item"),
        pytest.param("[threshold]\nlifted_by_option = ['hai_di']\n",
                     "threshold.lifted_by_option: 'hai_di' is no scoring item", id="lifted-a-misspelt-item"),
        pytest.param("base = 'nowhere'\n", r"base must be one of \['default', 'text000'\], got 'nowhere'", id="bad-base"),
        pytest.param("base = [1]\n", r"base must be one of \['default', 'text000'\], got \[1\]", id="base-a-list"),
        pytest.param('[flower_additions."003"]\nconcealed = { ping_hu = 1.5, flower = 1 }\n',
                     r"flower_additions.003.concealed.ping_hu must be a whole number ≥ 0, got 1.5", id="addition-fraction"),
        pytest.param('[flower_additions."003"]\nself_draw = { ping_hu = -5, flower = 5 }\n',
                     r"flower_additions.003.self_draw.ping_hu must be a whole number ≥ 0, got -5", id="addition-negative"),
        pytest.param('[flower_additions."003"]\nsingle_wait = { ping_hu = 1, flower = 1, flying = 2 }\n',
                     r"'flying' is neither ping_hu, flower nor a 花炮 pattern", id="addition-unknown-pattern"),
        pytest.param('[flower_additions]\n"003" = 5\n', "'flower_additions.003' must be a table, got 5",
                     id="addition-table-a-number"),
        pytest.param("[eating]\nhong_qi = 5\n", "'eating.hong_qi' must be a table, got 5",
                     id="eaten-hong-qi-a-number"),
        pytest.param("[eating.hong_qi.twice]\nbase = 1\n", r"unknown key 'eating.hong_qi.twice'; expected one of \['in_all', 'on_top'\]",
                     id="eaten-hong-qi-a-third-way"),
        pytest.param('[flower_additions."house"]\nself_draw = { ping_hu = 1, flower = 5 }\n',
                     r"flower_additions.house must hold the tables \['self_draw', 'concealed', 'single_wait'\]",
                     id="addition-table-short"),
        pytest.param('[flower_additions."house"]\nself_draw = { ping_hu = 1, flower = 5 }\nconcealed = { ping_hu = 1 }\n'
                     'single_wait = { ping_hu = 1, flower = 1 }\n',
                     r"flower_additions.house.concealed must give ping_hu and flower .*got \{'ping_hu': 1\}",
                     id="addition-without-flower"),
    ],
)
def test_bad_ruleset_files_say_what_is_wrong(tmp_path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_ruleset(path)


@pytest.mark.parametrize("value", [1.5, -1, True, None, [1]])
def test_additions_that_are_no_whole_number_are_refused_from_a_situation_too(value) -> None:
    rules = {"flower_additions": {"003": {"concealed": {"ping_hu": value}}}}
    with pytest.raises(ValueError, match="flower_additions.003.concealed.ping_hu must be a whole number"):
        score_situation({**EX6, "rules": rules})


@pytest.mark.parametrize("rules, message", [
    pytest.param({"replaces": {"wenrou": ["concealedd"]}}, "replaces.wenrou: 'concealedd'", id="replaces"),
    pytest.param({"threshold": {"not_lifting": ["kong_tearz", "robbing_kong"]}}, "not_lifting: 'kong_tearz'",
                 id="not-lifting"),
])
def test_an_item_key_misspelt_in_a_situations_rules_is_refused(rules, message) -> None:
    """Read as nothing, a misspelt key would quietly change the score (门前清 back beside 温柔, a 1-炮 杠上流泪 hand
    lifted over the threshold): refused as every other unknown key is."""
    with pytest.raises(ValueError, match=message):
        score_situation({**EX6, "rules": rules})


def test_a_file_an_editor_began_with_a_byte_order_mark_is_read(tmp_path) -> None:
    """Windows Notepad saves UTF-8 with a mark before the text; tomllib refuses it at line 1, column 1, a place where
    the user sees nothing wrong."""
    path = tmp_path / "house.toml"
    path.write_bytes("\ufeff[pao]\nqing_yi_se = 30\n".encode())
    assert load_ruleset(path).pao["qing_yi_se"] == 30


def test_missing_file_and_bad_override() -> None:
    with pytest.raises(ValueError, match="not found"):
        load_ruleset("/nonexistent/house.toml")
    with pytest.raises(ValueError, match="is not an option"):
        score_situation({**EX6, "rules": {"double_everything": True}})


def test_a_folder_or_bytes_that_are_not_text_are_no_ruleset(tmp_path) -> None:
    with pytest.raises(ValueError, match="is a folder: give a TOML file"):
        load_ruleset(tmp_path)
    binary = tmp_path / "house.toml"
    binary.write_bytes(b"\xff\xfe[pao]")
    with pytest.raises(ValueError, match=r"not valid TOML \(UTF-8 text\)"):
        load_ruleset(binary)


def _rules_sections() -> dict[int, str]:
    """RULES.md by section number."""
    text = shared_file("RULES.md").read_text(encoding="utf-8")
    heads = [(int(m.group(1)), m.start()) for m in re.finditer(r"^## (\d+)\.", text, re.M)]
    return {n: text[start:end] for (n, start), (_n, end) in zip(heads, [*heads[1:], (0, len(text))], strict=True)}


def _source_docstrings() -> dict[str, str]:
    """Docstrings of the module-level functions of engine/items.py, read from its source (the compiled build
    drops them; the items made by factories set theirs at run time)."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / "engine" / "items.py").read_text(encoding="utf-8"))
    return {f.name: ast.get_docstring(f) or "" for f in tree.body if isinstance(f, ast.FunctionDef)}


@pytest.mark.parametrize("key, item", [pytest.param(k, f, id=k) for k, _n, f, _needs in ITEMS])
def test_every_item_names_the_rules_section_it_implements(key: str, item) -> None:
    """The docstring opens with §N and the thing it scores, and RULES.md §N speaks of that thing."""
    doc = item.__doc__ or _source_docstrings().get(item.__name__, "")
    found = re.match(r"§(\d+) ([^\s:(/]+)", doc)
    assert found, f"{key}: docstring should open with the RULES.md section, got {doc[:40]!r}"
    section = _rules_sections().get(int(found.group(1)), "")
    assert found.group(2) in section, f"{key}: RULES.md §{found.group(1)} does not mention {found.group(2)!r}"
