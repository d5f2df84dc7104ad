"""The rulesets the engine's property tests run under: the two texts' readings, and every switch turned."""

from __future__ import annotations

from xingzi.engine import load_ruleset
from xingzi.engine.ruleset import OPTIONAL_ITEMS

RULESETS = {
    "default": load_ruleset(),
    "text000": load_ruleset("text000"),
    "all-switched": load_ruleset().with_overrides(
        {"optional": list(OPTIONAL_ITEMS), "won_triplet_concealed": False, "hai_di_pao": "start_at_10"}),
}
