"""tools/oracle: a scorer written from RULES.md alone, and the engine checked against it on dealt situations."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shared_folder import shared_file

import tools.oracle.compare as comparison
from tools.oracle.__main__ import main
from tools.oracle.compare import (
    compare,
    compare_rounds,
    disagreement,
    engine_answer,
    engine_round,
    oracle_answer,
    oracle_round,
    round_disagreement,
)
from tools.oracle.deal import situations
from tools.oracle.deal_rounds import rounds
from tools.oracle.examples import TABLE, Example, check_examples, misses, worked_examples
from tools.oracle.score import score
from xingzi.engine import score_round, score_situation

SEED = 55
N_DEALT = 1000
N_ROUNDS = 400
ROUND_EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "round.json"
# every item key of RULES.md §3-§5 (and §10's names for the §3 values)
ITEM_KEYS = ["ping_hu", "fa", "kong", "concealed_kong", "dragon_pung", "dragon_concealed_pung", "dragon_kong",
             "dragon_concealed_kong", "self_draw", "concealed", "single_wait", "kong_bloom", "kong_tears",
             "robbing_kong", "xiaosa", "haohua", "wenrou", "quan_qiu_ren", "shuang_bian", "hai_di_lao_yue",
             "hai_di_pao", "tong_ku", "shang_xin", "hui_tou", "tao_sheng", "wang_en", "qing_yi_se", "hun_yi_se",
             "peng_peng_hu", "qi_dui", "yi_tiao_long", "hong_qi", "qi_xian_nv"]
Altering = Callable[[dict[str, Any]], dict[str, Any]]
SHANG_XIN_ON = {"events": ["shang_xin"], "rules": {"optional": ["shang_xin"]}}


@pytest.fixture(scope="module")
def dealt() -> list[dict[str, Any]]:
    return situations(N_DEALT, SEED)


@pytest.fixture(scope="module")
def dealt_rounds() -> list[dict[str, Any]]:
    return rounds(N_ROUNDS, SEED)


@pytest.mark.parametrize("example", [pytest.param(e, id=e.id) for e in TABLE])
def test_the_oracle_passes_every_worked_example(example: Example) -> None:
    assert misses(example) == []


def test_the_table_holds_the_shared_examples_and_all_pass() -> None:
    path = shared_file("rules_examples.jsonl")
    assert worked_examples(path) == TABLE
    lines, failed = check_examples(path)
    assert failed == 0, lines
    assert lines[-1] == "20/20 worked examples pass"


@pytest.mark.parametrize(("situation", "items"), [
    pytest.param({"hand": "123p456p789s99s345m", "win_tile": "5m"},
                 {"ping_hu": 1, "concealed": 1, "shang_xin": 5}, id="waits_on_both_sides_of_the_run"),
    pytest.param({"hand": "456p789p99s345m", "win_tile": "5m", "melds": ["concealed_kong 2m"]},
                 {"ping_hu": 1, "concealed_kong": 2, "concealed": 1, "single_wait": 1},
                 id="other_side_all_four_held_is_a_single_wait"),
    pytest.param({"hand": "123p789p99s234456m", "win_tile": "4m"}, {"ping_hu": 1, "concealed": 1},
                 id="three_waits"),
    pytest.param({"hand": "446666m78m", "win_tile": "6m", "melds": ["kong 9m", "pung 1p"]},
                 {"ping_hu": 1, "kong": 1}, id="two_waits_that_are_not_the_sides_of_the_run"),
])
def test_shang_xin_only_on_a_wait_on_exactly_the_two_sides_of_the_run(situation: dict[str, Any],
                                                                       items: dict[str, int]) -> None:
    situation = {**situation, **SHANG_XIN_ON}
    result = score(situation)
    assert {i["key"]: i["pao"] for i in result["items"]} == items
    assert disagreement(result, engine_answer(situation)) is None


def test_the_engine_agrees_with_the_oracle_on_dealt_situations(dealt: list[dict[str, Any]]) -> None:
    report = compare(dealt, show=1)
    assert report.total == N_DEALT
    assert report.disagreeing == 0, "\n".join(report.lines())


def _alter_the_engine(monkeypatch: pytest.MonkeyPatch, alter: Altering) -> None:
    """The engine the tool calls answers ``alter`` of its answer."""
    monkeypatch.setattr(comparison, "score_situation", lambda s, rules=None: alter(score_situation(s, rules)))


def _own_plus_one(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "own": result["own"] + 1}


def _amount_doubled(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "payments": [{**p, "amount": 2 * p["amount"]} for p in result["payments"]]}


def _valid_flipped(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "valid": not result["valid"]}


def _extra_item(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "items": [*result["items"], {"key": "tao_sheng", "name": "涛声依旧", "pao": 5}]}


@pytest.mark.parametrize(("alter", "group"), [
    pytest.param(_own_plus_one, "own", id="own"),
    pytest.param(_amount_doubled, "payments", id="amount"),
    pytest.param(_valid_flipped, "valid: oracle", id="valid"),
    pytest.param(_extra_item, "items ", id="item"),
])
def test_an_altered_engine_answer_is_a_disagreement(monkeypatch: pytest.MonkeyPatch, dealt: list[dict[str, Any]],
                                                    alter: Altering, group: str) -> None:
    _alter_the_engine(monkeypatch, alter)
    report = compare(dealt[:50])
    assert report.disagreeing == 50
    assert all(name.startswith(group) for name in report.counts), report.counts


def test_a_tie_between_best_readings_is_no_disagreement() -> None:
    first = [{"key": "qing_yi_se", "pao": 15}, {"key": "xiaosa", "pao": 5}]
    second = [{"key": "qing_yi_se", "pao": 15}, {"key": "shuang_bian", "pao": 5}]
    paid = [{"payer": 0, "eaten": 0, "pao": 20, "amount": 20}]
    oracle = {"valid": True, "own": 20, "items": first, "tied_items": [first, second], "payments": paid}
    engine = {"valid": True, "own": 20, "items": second, "payments": paid}
    assert disagreement(oracle, engine) is None
    assert disagreement({**oracle, "tied_items": [first]}, engine) == "items -shuang_bian +xiaosa"


def test_the_dealt_situations_reach_every_item_option_and_false_claims(dealt: list[dict[str, Any]]) -> None:
    answers = [oracle_answer(s) for s in dealt]
    shown = Counter(i["key"] for a in answers if a["valid"] for i in a["items"])
    assert [key for key in ITEM_KEYS if not shown[key]] == []
    assert set(shown) <= set(ITEM_KEYS)
    assert 20 < sum(not a["valid"] for a in answers) < N_DEALT // 5
    options = {(key, str(value)) for s in dealt for key, value in s["rules"].items() if key != "optional"}
    assert options == {("specials_lift_threshold", "True"), ("won_triplet_concealed", "False"),
                       ("four_fa", "on_top"), ("eaten_hong_qi", "on_top"), ("hong_qi_seven_pairs", "fours"),
                       ("self_draw_eating", "pool")}


def test_the_command_prints_counts_and_exits_1_on_a_disagreement(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--n", "30", "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith("situations 30  agree 30  disagree 0  groups 0")
    _alter_the_engine(monkeypatch, _own_plus_one)
    assert main(["--n", "30", "--seed", "3", "--show", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["situations 30  agree 0  disagree 30  groups 1", "    30  own"]
    assert len(out) == 3 and out[2].startswith('{"situation": ')


# hands that fit one table together: every one waits on 3m (§11 example 1 is PLAIN; FALSE has 1炮 on a discard)
PLAIN = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}  # own 3 on a discard, 4 on 自摸
EDGE = {"hand": "12m456p789s567s11p3m", "win_tile": "3m"}  # own 3
TWO_SIDED = {"hand": "45m123p789p567s99s3m", "win_tile": "3m"}  # own 2: ping_hu, concealed
FALSE = {"hand": "45m123p234s55s3m", "win_tile": "3m", "melds": ["pung 9p"]}  # own 1: 诈胡 on a discard
NOT_A_HAND = {"hand": "123m456m234s56s", "win_tile": "5s", "melds": ["pung 9p"]}


@pytest.mark.parametrize(("round_", "deltas", "next_dealer"), [
    pytest.param(json.loads(ROUND_EXAMPLE.read_text(encoding="utf-8")), [28, 20, -76, 28], 3, id="examples_round"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **PLAIN}]}, [0, -3, 3, 0], 2,
                 id="discard_with_the_dealer_a_bystander"),
    pytest.param({"dealer": 1, "discarder": 1, "wins": [{"seat": 2, **PLAIN}]}, [0, -6, 6, 0], 2,
                 id="the_dealer_discards"),
    pytest.param({"dealer": 2, "discarder": 1, "wins": [{"seat": 2, **PLAIN}]}, [0, -6, 6, 0], 2,
                 id="the_dealer_wins_on_a_discard"),
    pytest.param({"dealer": 1, "wins": [{"seat": 0, **PLAIN}]}, [16, -8, -4, -4], 0,
                 id="self_draw_paying_the_dealer_double"),
    pytest.param({"dealer": 0, "wins": [{"seat": 0, **PLAIN, "payers": [{"fa": 1}, {}, {"melds": ["pung 中"]}]}]},
                 [28, -10, -8, -10], 0, id="the_dealer_self_draws_eating_each_payers_own"),
    pytest.param({"dealer": 0, "discarder": 2, "wins": [{"seat": 1, **PLAIN}, {"seat": 3, **EDGE},
                                                       {"seat": 0, **TWO_SIDED}]},
                 [4, 3, -10, 3], 3, id="three_winners_the_first_after_the_discarder_deals"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **FALSE}, {"seat": 3, **PLAIN}]},
                 [40, 17, -80, 23], 3, id="the_first_after_the_discarder_claims_falsely"),
    pytest.param({"dealer": 0, "discarder": 3, "wins": [{"seat": 2, **FALSE}]}, [40, 20, -80, 20], 0,
                 id="false_claim_toward_a_dealer_who_did_not_discard_who_stays"),
    pytest.param({"dealer": 2, "discarder": 1, "wins": [{"seat": 2, **FALSE}]}, [40, 40, -120, 40], 2,
                 id="the_dealer_claims_falsely"),
    pytest.param({"dealer": 0, "wins": [{"seat": 2, **NOT_A_HAND}]}, [40, 20, -80, 20], 0,
                 id="false_self_draw"),
    pytest.param({"dealer": 2, "wins": [], "follow_dealer": "5p"}, [2, 2, -6, 2], 2, id="drawn_hand_with_follow"),
    pytest.param({"dealer": 3, "discarder": 1, "follow_dealer": "白", "wins": [{"seat": 0, **PLAIN}]},
                 [7, 1, 4, -12], 0, id="follow_on_bai_and_a_win"),
])
def test_a_round_settles_between_the_seats_as_the_engine_does(round_: dict[str, Any], deltas: list[int],
                                                              next_dealer: int) -> None:
    settled = oracle_round(round_)
    assert (settled["deltas"], settled["next_dealer"]) == (deltas, next_dealer)
    assert round_disagreement(settled, engine_round(round_)) is None


# (the last three the engine settled until session 55: it checked each claim's tiles alone, not the table's)
REFUSED = [
    pytest.param({"dealer": 1, "discarder": 2, "wins": [{"seat": 0, **PLAIN, "self_draw": True}]},
                 id="self_draw_beside_a_discarder"),
    pytest.param({"dealer": 0, "wins": [{"seat": 2, **PLAIN}, {"seat": 3, **EDGE}]}, id="two_winners_no_discarder"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 1, **PLAIN}]}, id="winning_on_ones_own_discard"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **PLAIN}, {"seat": 2, **EDGE}]},
                 id="a_seat_claiming_twice"),
    pytest.param({"dealer": 0, "discarder": 3, "wins": [{"seat": 2, **PLAIN, "payers": [{"dealer": True}]}]},
                 id="a_payers_dealer_flag_against_the_seats"),
    pytest.param({"dealer": 1, "wins": [], "follow_dealer": "发"}, id="follow_on_fa"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **PLAIN, "fa": 3}, {"seat": 3, **EDGE, "fa": 2}]},
                 id="five_fa_between_two_winners"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [
        {"seat": s, "hand": "12m456m789p22s3m", "win_tile": "3m", "melds": ["kong 9s"]} for s in (2, 3)]},
                 id="two_winners_each_with_kong_9s"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **PLAIN, "payers": [{"fa": 1}]},
                                                       {"seat": 3, **EDGE, "payers": [{"fa": 2}]}]},
                 id="the_discarder_shown_two_ways"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, **PLAIN}, {"seat": 3, **NOT_A_HAND}]},
                 id="claims_on_two_tiles_of_one_discard"),
]


@pytest.mark.parametrize("round_", [pytest.param(*p.values, id=p.id) for p in REFUSED])
def test_the_oracle_refuses_a_round_no_table_allows(round_: dict[str, Any]) -> None:
    assert "error" in oracle_round(round_)


@pytest.mark.parametrize("round_", REFUSED)
def test_the_engine_refuses_such_a_round_too(round_: dict[str, Any]) -> None:
    assert "error" in engine_round(round_)


def test_the_engine_agrees_with_the_oracle_on_dealt_rounds(dealt_rounds: list[dict[str, Any]]) -> None:
    report = compare_rounds(dealt_rounds, show=1)
    assert report.total == N_ROUNDS
    assert report.disagreeing == 0, "\n".join(report.lines())


def _round_tags(round_: dict[str, Any]) -> set[str]:
    """What a dealt round shows of §7-§8: several winners, 跟庄, false claims, the dealer's part."""
    settled = oracle_round(round_)
    dealer, discarder, results = round_["dealer"], round_.get("discarder"), settled["results"]
    winners = [r["seat"] for r in results if r["valid"]]
    false = [r["seat"] for r in results if not r["valid"]]
    follow = round_.get("follow_dealer")
    tags = {"drawn_hand"} if not results else {"self_draw"} if discarder is None else {"discard"}
    tags |= {"one_discard_several_winners"} if len(winners) > 1 else set()
    tags |= {"three_claimants"} if len(results) == 3 else set()
    tags |= {"next_dealer_not_the_first_listed"} if winners and settled["next_dealer"] != winners[0] else set()
    tags |= {"every_claim_false"} if results and not winners else set()
    tags |= {f"false_{'self_draw' if discarder is None else 'discard'}_claim"} if false else set()
    tags |= {"false_claim_toward_a_dealer_who_did_not_discard"} if discarder not in (None, dealer) and \
        any(seat != dealer for seat in false) else set()
    tags |= {"follow_on_a_dragon" if follow in ("中", "白", "Z", "B", "7z", "5z") else "follow"} if follow else set()
    role = "winner" if dealer in winners else "discarder" if dealer == discarder else "bystander"
    tags |= {f"dealer_as_{role}"} if winners else set()
    flags = [w for w in round_.get("wins") or [] if "dealer" not in w]
    tags |= {"flags_left_to_the_seats"} if flags else set()
    tags |= {"self_draw_left_to_the_seats"} if any("self_draw" not in w for w in round_.get("wins") or []) else set()
    return tags


def test_the_dealt_rounds_reach_every_kind_of_settlement(dealt_rounds: list[dict[str, Any]]) -> None:
    shown = Counter(tag for r in dealt_rounds for tag in _round_tags(r))
    wanted = ["drawn_hand", "self_draw", "discard", "one_discard_several_winners", "three_claimants",
              "next_dealer_not_the_first_listed", "every_claim_false", "false_self_draw_claim", "false_discard_claim",
              "false_claim_toward_a_dealer_who_did_not_discard", "follow", "follow_on_a_dragon", "dealer_as_winner",
              "dealer_as_discarder", "dealer_as_bystander", "flags_left_to_the_seats", "self_draw_left_to_the_seats"]
    assert [tag for tag in wanted if shown[tag] < 2] == [], shown
    assert all(sum(oracle_round(r)["deltas"]) == 0 for r in dealt_rounds)


def _alter_the_rounds(monkeypatch: pytest.MonkeyPatch, alter: Altering) -> None:
    """The engine the tool calls answers ``alter`` of its round answer."""
    monkeypatch.setattr(comparison, "score_round", lambda r, *a, **k: alter(score_round(r, *a, **k)))


def _next_dealer_moved(answer: dict[str, Any]) -> dict[str, Any]:
    return {**answer, "next_dealer": (answer["next_dealer"] + 1) % 4}


def _one_pao_moved(answer: dict[str, Any]) -> dict[str, Any]:
    return {**answer, "deltas": [answer["deltas"][0] + 1, answer["deltas"][1] - 1, *answer["deltas"][2:]]}


def _payer_seat_moved(answer: dict[str, Any]) -> dict[str, Any]:
    first, *rest = answer["results"]
    moved = [{**p, "seat": (p["seat"] + 1) % 4} for p in first["payments"]]
    return {**answer, "results": [{**first, "payments": moved}, *rest]}


def _follow_dropped(answer: dict[str, Any]) -> dict[str, Any]:
    return {**answer, "follow_dealer": []}


def _false_penalty_reversed(answer: dict[str, Any]) -> dict[str, Any]:
    return {**answer, "results": [r if r["valid"] else {**r, "payments": r["payments"][::-1]}
                                  for r in answer["results"]]}


@pytest.mark.parametrize(("alter", "applies", "group"), [
    pytest.param(_next_dealer_moved, lambda r: True, "next_dealer", id="next_dealer"),
    pytest.param(_one_pao_moved, lambda r: True, "deltas", id="deltas"),
    pytest.param(_payer_seat_moved, lambda r: r.get("wins"), "win (seat, amount)", id="payment_seat"),
    pytest.param(_follow_dropped, lambda r: r.get("follow_dealer"), "跟庄 (seat, amount)", id="follow_dealer"),
    pytest.param(_false_penalty_reversed, lambda r: r.get("discarder") is not None and
                 not all(w["valid"] for w in oracle_round(r)["results"]),
                 "false claim: the discarder not paid first", id="false_claim_order"),
])
def test_an_altered_engine_round_is_a_disagreement(monkeypatch: pytest.MonkeyPatch,
                                                   dealt_rounds: list[dict[str, Any]], alter: Altering,
                                                   applies: Callable[[dict[str, Any]], Any], group: str) -> None:
    chosen = [r for r in dealt_rounds if applies(r)][:30]
    _alter_the_rounds(monkeypatch, alter)
    report = compare_rounds(chosen)
    assert len(chosen) >= 5 and report.disagreeing == len(chosen)
    assert all(group in name for name in report.counts), report.counts


def test_the_rounds_command_prints_counts_and_exits_1_on_a_disagreement(monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rounds", "--n", "30", "--seed", "3"]) == 0
    assert capsys.readouterr().out.startswith("rounds 30  agree 30  disagree 0  groups 0")
    _alter_the_rounds(monkeypatch, _next_dealer_moved)
    assert main(["--rounds", "--n", "30", "--seed", "3", "--show", "1"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == ["rounds 30  agree 0  disagree 30  groups 1", "    30  next_dealer"]
    assert len(out) == 3 and out[2].startswith('{"round": ')
