"""What a house ruleset may hold at the edge of what is taken, and how a wrong option is said back."""

from __future__ import annotations

import pytest

from xingzi.engine import load_ruleset, score_situation

# 15 清一色 + 10 碰碰胡 + 5 自摸 + 5 温柔
EX6 = {"hand": "111333555777s99s", "win_tile": "9s", "self_draw": True}


@pytest.mark.parametrize(
    ("text", "items"),
    [
        pytest.param(
            "[pao]\nqing_yi_se = 1000000\n", {"qing_yi_se": 1_000_000, "self_draw": 5}, id="a-pao-number"
        ),
        pytest.param(
            '[flower_additions."003".self_draw]\nflower = 1000000\n',
            {"qing_yi_se": 15, "self_draw": 1_000_000},
            id="an-addition",
        ),
    ],
)
def test_a_number_of_exactly_the_most_a_ruleset_takes_is_taken(tmp_path, text, items) -> None:
    """1,000,000 炮 is the largest number a house file may write (one more: refused, test_ruleset.py)."""
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    result = score_situation(EX6, load_ruleset(path))
    assert result["valid"] and result["own"] == sum(items.values()) + 15
    assert {i["key"]: i["pao"] for i in result["items"]} == {**items, "peng_peng_hu": 10, "wenrou": 5}


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        pytest.param(
            {"specials_lift_threshold": None},
            "'specials_lift_threshold' must be true or false, got null",
            id="a-switch-null",
        ),
        pytest.param(
            {"hong_qi_seven_pairs": None},
            r"'hong_qi_seven_pairs' must be one of \['pairs', 'fours'\], got null",
            id="a-choice-null",
        ),
        pytest.param(
            {"hong_qi_seven_pairs": True},
            r"'hong_qi_seven_pairs' must be one of \['pairs', 'fours'\], got true",
            id="a-choice-true",
        ),
        pytest.param(
            {"eaten_hong_qi": False},
            r"'eaten_hong_qi' must be one of \['in_all', 'on_top'\], got false",
            id="a-choice-false",
        ),
    ],
)
def test_a_wrong_option_in_a_situations_rules_is_said_as_json_writes_it(rules, message) -> None:
    """A situation's rules are JSON: null, true and false are said so, not as Python's None, True and False."""
    with pytest.raises(ValueError, match=message):
        score_situation({**EX6, "rules": rules})
