"""吃炮 table, dealer doubling, 跟庄, several winners on one discard, the next dealer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xingzi.engine import (
    Payer,
    Tile,
    follow_dealer,
    load_ruleset,
    next_dealer,
    parse_meld,
    score_round,
    score_situation,
    seat_settlement,
)
from xingzi.engine.settlement import eaten_from

IN_ALL = load_ruleset()
ON_TOP = IN_ALL.with_overrides({"eaten_hong_qi": "on_top"})


@pytest.mark.parametrize(
    "fa, melds, in_all, on_top",
    [
        pytest.param(1, [], 1, 1, id="one-fa"),
        pytest.param(4, [], 10, 10, id="four-fa"),
        pytest.param(0, ["kong 5m", "concealed_kong 5p", "pung 5s"], 3, 3, id="suit-melds"),
        pytest.param(0, ["pung 中"], 1, 1, id="dragon-pung"),
        pytest.param(0, ["kong 白"], 3, 3, id="dragon-kong"),
        pytest.param(0, ["concealed_kong 中"], 4, 4, id="dragon-concealed-kong"),
        pytest.param(0, ["pung 中", "pung 白"], 10, 12, id="hong-qi-pungs"),
        pytest.param(0, ["pung 中", "concealed_kong 白"], 12, 15, id="pung-and-concealed-kong"),
        pytest.param(0, ["kong 中", "concealed_kong 白"], 13, 17, id="kong-and-concealed-kong"),
        pytest.param(0, ["pung 中", "kong 白"], 11, 14, id="pung-and-kong"),
        pytest.param(0, ["kong 中", "kong 白"], 12, 16, id="two-kongs"),
        pytest.param(0, ["concealed_kong 中", "concealed_kong 白"], 14, 18, id="two-concealed-kongs"),
        pytest.param(2, ["pung 中", "concealed_kong 4s"], 5, 5, id="example-13"),
    ],
)
def test_eaten_table(fa: int, melds: list[str], in_all: int, on_top: int) -> None:
    payer = Payer(False, fa, tuple(parse_meld(m) for m in melds))
    assert eaten_from(payer, Tile.M1.index, frozenset(), IN_ALL) == in_all
    assert eaten_from(payer, Tile.M1.index, frozenset(), ON_TOP) == on_top


def test_kong_tears_and_robbing_kong_do_not_eat_that_kong() -> None:
    payer = Payer(False, 0, (parse_meld("pung 中"), parse_meld("kong 白")))
    assert eaten_from(payer, Tile.M1.index, frozenset({"kong_tears"}), IN_ALL) == 1  # 白 kong gone
    assert eaten_from(payer, Tile.BAI.index, frozenset({"robbing_kong"}), IN_ALL) == 10  # 白 back to a pung


@pytest.mark.parametrize(("event", "melds", "fa", "eaten"), [
    pytest.param("robbing_kong", ["pung 中", "pung 3s"], 0, 1, id="robbed-pung-listed-before-its-fourth"),
    pytest.param("robbing_kong", ["pung 中", "kong 3s"], 0, 1, id="robbed-kong-listed-turns-back-to-a-pung"),
    pytest.param("robbing_kong", [], 1, 1, id="robbed-melds-not-given"),
    pytest.param("kong_tears", ["pung 白", "kong 中"], 0, 1, id="tears-the-kong-just-made-is-not-eaten"),
    pytest.param("kong_tears", ["concealed_kong 6s"], 0, 0, id="tears-after-a-concealed-kong"),
    # the kong not listed (the page lists only 中/白 sets and kongs): what is listed is eaten as it stands
    pytest.param("robbing_kong", ["pung 中"], 0, 1, id="robbed-pung-not-listed"),
    pytest.param("robbing_kong", ["kong 9s"], 0, 1, id="robbed-pung-not-listed-beside-a-kong"),
    pytest.param("kong_tears", [], 1, 1, id="tears-the-kong-not-listed"),  # (melds listed without it: refused)
])
def test_the_discarder_of_a_kong_event_is_eaten_without_that_kong(event, melds, fa, eaten) -> None:
    """Example 11's hand (own 13) on a kong event, the discarder's melds as given: accepted, that kong not eaten."""
    result = score_situation({"hand": "123m456m789p12s55p3s", "win_tile": "3s", "events": [event],
                              "payers": [{"melds": melds, "fa": fa}]})
    assert result["valid"] and result["own"] == 13 and [p["eaten"] for p in result["payments"]] == [eaten]


@pytest.mark.parametrize(
    "dealer, winners, discarder, expected",
    [
        pytest.param(0, [2], None, 2, id="self-draw"),
        pytest.param(0, [1], 3, 1, id="discard"),
        pytest.param(0, [1, 2], 0, 1, id="two-winners-next-after-discarder"),
        pytest.param(0, [0, 1], 2, 0, id="wraps-around"),
        pytest.param(1, [0, 2, 3], 1, 2, id="three-winners"),
        pytest.param(3, [], None, 3, id="drawn-hand-dealer-stays"),
    ],
)
def test_next_dealer(dealer: int, winners: list[int], discarder, expected: int) -> None:
    assert next_dealer(dealer, winners, discarder) == expected


def test_next_dealer_rejects_impossible_seats() -> None:
    with pytest.raises(ValueError, match="0..3"):
        next_dealer(0, [4], 1)
    with pytest.raises(ValueError, match="own discard"):
        next_dealer(0, [1], 1)


@pytest.mark.parametrize("tile, pao, amount", [(Tile.M5, 1, 2), (Tile.ZHONG, 2, 4), (Tile.BAI, 2, 4)])
def test_follow_dealer(tile: Tile, pao: int, amount: int) -> None:
    assert [(p.payee, p.pao, p.amount) for p in follow_dealer(tile, IN_ALL)] == [(i, pao, amount) for i in range(3)]
    undoubled = IN_ALL.with_overrides({"settlement": {"follow_dealer_doubled": False}})
    assert {p.amount for p in follow_dealer(tile, undoubled)} == {pao}


def test_two_winners_on_one_discard_are_scored_apart() -> None:
    round_ = {
        "dealer": 0, "discarder": 1, "follow_dealer": "中",
        "wins": [
            {"seat": 3, "hand": "12m456m789p22345s3m", "win_tile": "3m", "payers": [{"dealer": False, "fa": 1}]},
            {"seat": 0, "hand": "111333555777s33m", "win_tile": "3m", "payers": [{"fa": 1}]},
        ],
    }
    out = score_round(round_)
    assert [(r["seat"], r["own"], r["payments"][0]["amount"]) for r in out["results"]] == [(3, 3, 4), (0, 16, 34)]
    assert out["next_dealer"] == 3
    assert [p["amount"] for p in out["follow_dealer"]] == [4, 4, 4]


def test_round_marks_the_dealer_among_plain_payers() -> None:
    win = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}
    on_discard = score_round({"dealer": 1, "discarder": 1, "wins": [{"seat": 2, **win}]})
    assert on_discard["results"][0]["payments"][0]["amount"] == 6 and on_discard["next_dealer"] == 2
    drawn = score_round({"dealer": 0, "discarder": None, "wins": [{"seat": 2, **win}]})
    # seats 3, 0, 1 pay; seat 0 is the dealer
    assert [p["amount"] for p in drawn["results"][0]["payments"]] == [4, 8, 4]
    with pytest.raises(ValueError, match="\"self_draw\" must be"):
        score_round({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, "self_draw": True, **win}]})


def test_round_marks_the_dealer_among_payers_named_by_what_they_show() -> None:
    win = {"hand": "12m456m789p22345s3m", "win_tile": "3m", "payers": [{"fa": 1}]}  # own 3, 1 发 eaten
    on_discard = score_round({"dealer": 1, "discarder": 1, "wins": [{"seat": 3, **win}]})
    assert on_discard["results"][0]["payments"][0]["amount"] == 8 and on_discard["deltas"] == [0, -8, 0, 8]
    # 自摸 (own 4) with only the first payer named: seats 0, 1, 2 pay; seat 1 deals
    drawn = score_round({"dealer": 1, "discarder": None, "wins": [{"seat": 3, **win}]})
    assert [(p["seat"], p["amount"]) for p in drawn["results"][0]["payments"]] == [(0, 5), (1, 8), (2, 4)]
    with pytest.raises(ValueError, match=r"payer 1 \(seat 1\) dealer flag is True, but the round's dealer is seat 0"):
        score_round({"dealer": 0, "discarder": 1, "wins": [{"seat": 3, **win, "payers": [{"dealer": True}]}]})


def test_seat_settlement_doubles_by_the_seats_not_the_flags() -> None:
    plain = score_situation({"hand": "12m456m789p22345s3m", "win_tile": "3m"})  # no one marked dealer
    assert plain["payments"][0]["amount"] == 3
    for dealer, amount in ((1, 6), (3, 6), (0, 3)):
        settled = seat_settlement(plain, seat=3, discarder=1, dealer=dealer)
        assert settled["payments"][0]["amount"] == amount and settled["deltas"] == [0, -amount, 0, amount]


@pytest.mark.parametrize("round_", [pytest.param({"dealer": 1}, id="no-wins-key"),
                                    pytest.param({"dealer": 1, "discarder": None, "wins": None}, id="wins-null"),
                                    pytest.param({"dealer": 1, "discarder": None, "wins": []}, id="wins-empty")])
def test_a_drawn_hand_moves_nothing_and_the_dealer_stays(round_) -> None:
    """§8 黄庄: nobody won, so nobody pays, and the same seat deals again."""
    assert score_round(round_) == {"results": [], "next_dealer": 1, "deltas": [0, 0, 0, 0]}


def test_follow_dealer_is_never_on_fa() -> None:
    with pytest.raises(ValueError, match="never 发"):
        follow_dealer(Tile.FA, IN_ALL)
    with pytest.raises(ValueError, match="never 发"):
        score_round({"dealer": 0, "discarder": None, "wins": [], "follow_dealer": "发"})


EDGE_WIN = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}
OTHER_WIN = {"hand": "12m456p789s567s11p3m", "win_tile": "3m"}


@pytest.mark.parametrize(("wins", "message"), [
    pytest.param([{"seat": 2, **EDGE_WIN, "fa": 3}, {"seat": 3, **OTHER_WIN, "fa": 2}],
                 "5 发 in front of the winners on one discard and its discarder", id="five_fa_between_two_winners"),
    pytest.param([{"seat": s, "hand": "12m456m789p22s3m", "win_tile": "3m", "melds": ["kong 9s"]} for s in (2, 3)],
                 "8 copies of 9s in the table of one discard", id="two_kongs_of_9s"),
    pytest.param([{"seat": 2, **EDGE_WIN, "payers": [{"fa": 1}]}, {"seat": 3, **OTHER_WIN, "payers": [{"fa": 2}]}],
                 "seat 1 shows one thing to every winner on its discard, got seat 2: fa 1, melds []; seat 3: fa 2",
                 id="the_discarder_shown_two_ways"),
    pytest.param([{"seat": 2, **EDGE_WIN}, {"seat": 3, "hand": "123m456m234s55s", "win_tile": "5s",
                                             "melds": ["pung 9p"]}],
                 "claims on one discard are on one tile, got seat 2 3m, seat 3 5s", id="claims_on_two_tiles"),
    pytest.param([{"seat": 2, **EDGE_WIN}, {"seat": 3, "hand": "123p456p789s11s333m", "win_tile": "3m"},
                  {"seat": 0, "hand": "456p789p123s55s333m", "win_tile": "3m"}],
                 "5 copies of 3m in the table of one discard", id="a_fifth_3m_across_three_winners"),
])
def test_claims_on_one_discard_are_checked_as_one_table(wins, message) -> None:
    """Each claim alone may hold (its tiles and the discarder's), the four seats together not: a set of 120 tiles."""
    with pytest.raises(ValueError) as refused:
        score_round({"dealer": 0, "discarder": 1, "wins": wins})
    assert message in str(refused.value)


def test_the_discard_three_winners_hold_is_one_tile() -> None:
    """Three winners on one 3m each hold it: it is counted once, so two more in one hand and one in another make four."""
    out = score_round({"dealer": 0, "discarder": 1, "wins": [
        {"seat": 2, **EDGE_WIN}, {"seat": 3, "hand": "123p456p789s11s333m", "win_tile": "3m"},
        {"seat": 0, "hand": "123m345m789p123s55s", "win_tile": "3m"}]})
    assert [r["valid"] for r in out["results"]] == [True, True, True] and sum(out["deltas"]) == 0
    robbing = {"events": ["robbing_kong"], "payers": [{"melds": ["kong 3m"]}]}  # its fourth 3m is the one robbed
    out = score_round({"dealer": 0, "discarder": 1, "wins": [
        {"seat": 2, **EDGE_WIN, **robbing}, {"seat": 3, "hand": "123m456p789s567s11p", "win_tile": "3m", **robbing}]})
    assert out["deltas"] == [0, -26, 13, 13]


@pytest.mark.parametrize(("round_", "seats", "deltas"), [
    pytest.param({"dealer": 2, "discarder": 1, "wins": [{"seat": 3, "hand": "123m456m234s55s", "win_tile": "5s",
                                                         "melds": ["pung 9p"]}]},
                 [1, 0, 2], [20, 20, 40, -80], id="false_claim_pays_the_dealer_double_though_not_the_discarder"),
    pytest.param({"dealer": 0, "discarder": None, "wins": [{"seat": 2, "hand": "12m456m789p22345s3m",
                                                            "win_tile": "3m"}]},
                 [3, 0, 1], [-8, -4, 16, -4], id="self_draw_paid_by_the_three_from_the_winners_next"),
    pytest.param({"dealer": 0, "discarder": 1, "follow_dealer": "中", "wins": [
                     {"seat": 3, "hand": "12m456m789p22345s3m", "win_tile": "3m", "payers": [{"fa": 1}]},
                     {"seat": 0, "hand": "111333555777s33m", "win_tile": "3m", "payers": [{"fa": 1}]}]},
                 [1], [22, -34, 4, 8], id="two_winners_and_the_dealer_followed"),
    pytest.param({"dealer": 1, "discarder": None, "wins": [{"seat": 2, "hand": "12m456m789p22345s3m", "win_tile": "3m",
                                                            "payers": [{"dealer": False}, {"dealer": False},
                                                                       {"dealer": True}]}]},
                 [3, 0, 1], [-4, -8, 16, -4], id="self_draw_payers_named_in_play_order_the_dealer_last"),
])
def test_a_round_is_settled_seat_by_seat(round_, seats, deltas) -> None:
    out = score_round(round_)
    assert [p["seat"] for p in out["results"][0]["payments"]] == seats
    assert out["deltas"] == deltas and sum(out["deltas"]) == 0
    assert [sum(r["deltas"]) for r in out["results"]] == [0] * len(out["results"])


@settings(max_examples=60, deadline=None)
@given(dealer=st.integers(0, 3), winner=st.integers(0, 3), discarder=st.one_of(st.none(), st.integers(0, 3)),
       valid=st.booleans(), showing=st.integers(0, 3))
def test_every_round_settles_to_zero_and_the_winner_gains_what_others_pay(dealer, winner, discarder, valid,
                                                                          showing) -> None:
    if discarder == winner:
        discarder = None
    hand = {"hand": "12m456m789p22345s3m", "win_tile": "3m"} if valid else \
        {"hand": "123m456m234s55s", "win_tile": "5s", "melds": ["pung 9p"]}
    if not valid and discarder is None:
        hand = {"hand": "123m456m234s5s9s", "win_tile": "9s", "melds": ["pung 9p"]}  # no hand at all
    if showing:  # payers named by what they show (a 发 each), none marked dealer: the seats say who deals
        hand["payers"] = [{"fa": 1}] * (1 if discarder is not None else showing)
    out = score_round({"dealer": dealer, "discarder": discarder, "wins": [{"seat": winner, **hand}]})
    result = out["results"][0]
    assert sum(out["deltas"]) == 0 and result["valid"] is valid
    assert (out["deltas"][winner] > 0) is valid
    paying = [s for s in range(4) if out["deltas"][s] < 0]
    others = [s for s in range(4) if s != winner]
    if valid:
        assert paying == ([discarder] if discarder is not None else others)
    else:  # 诈胡: the claimant pays 20 to each other seat, 40 to or from the dealer
        assert paying == [winner]
        assert [out["deltas"][s] for s in others] == [40 if dealer in (winner, s) else 20 for s in others]
    for p in result["payments"]:  # the dealer's double on either side of each payment
        assert p["amount"] == p["pao"] * (2 if dealer in (winner, p["seat"]) else 1)


def test_a_false_claim_eats_nothing_from_what_the_others_show() -> None:
    """§7 诈胡: the claimant pays the penalty to each other player (doubled where the dealer is on either side);
    the 中 pung a payer shows is eaten only on a valid win (§6)."""
    from xingzi.engine import make_context, make_hand, score_hand
    from xingzi.engine.notation import parse_tiles
    from xingzi.engine.settlement import CLAIMANT, Payment

    hand = make_hand(parse_tiles("123m456m234s55s"), Tile.parse("4s"), (parse_meld("pung 9p"),))  # 平胡 on a discard
    payers = (Payer(melds=(parse_meld("pung 中"),)),)
    score = score_hand(hand, make_context(hand, False, True, [], payers), IN_ALL)
    assert not score.valid and score.own == 1
    assert score.payments == tuple(Payment(CLAIMANT, i, 0, 20, 40) for i in range(3))


def test_the_dealer_followed_pays_the_others_from_the_next_seat_on() -> None:
    """§8 跟庄: seat 2 deals, the three others follow its 中: it pays seats 3, 0 and 1 two 炮 each, doubled as dealer."""
    out = score_round({"dealer": 2, "discarder": None, "wins": [], "follow_dealer": "中"})
    assert [(p["seat"], p["pao"], p["amount"]) for p in out["follow_dealer"]] == [(3, 2, 4), (0, 2, 4), (1, 2, 4)]
    assert {p["payer"] for p in out["follow_dealer"]} == {"dealer"}  # the dealer pays: said so
    assert out["deltas"] == [4, 4, -12, 4] and out["next_dealer"] == 2


WIN_3M = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}  # RULES.md §11 example 1: 3 炮


@pytest.mark.parametrize(("round_", "deltas", "followed"), [
    pytest.param({"wins": [{"seat": 2, **WIN_3M, "rules": {"settlement": {"dealer_factor": 3}}}]},
                 [-9, 0, 9, 0], None, id="a-wins-own-rules-double-its-dealer"),
    pytest.param({"rules": {"settlement": {"dealer_factor": 3}}, "wins": [{"seat": 2, **WIN_3M}]},
                 [-9, 0, 9, 0], None, id="the-rounds-rules-under-each-win"),
    pytest.param({"rules": {"settlement": {"dealer_factor": 3}},
                  "wins": [{"seat": 2, **WIN_3M, "rules": {"settlement": {"dealer_factor": 2}}}]},
                 [-6, 0, 6, 0], None, id="a-wins-rules-over-the-rounds"),
    pytest.param({"ruleset": "default", "discarder": None, "wins": [], "follow_dealer": "1m",  # a drawn hand
                  "rules": {"settlement": {"follow_dealer": 5}}}, [-30, 10, 10, 10], 10, id="the-rounds-rules-set-follow"),
])
def test_a_round_is_settled_under_the_rulesets_it_and_its_wins_name(round_, deltas, followed) -> None:
    """The dealer (seat 0) discards; each payment to or from the dealer is doubled by the factor of the ruleset the
    win is scored under (RULES.md §8), a round's own rules under each win's and over 跟庄."""
    out = score_round({"dealer": 0, "discarder": 0, **round_})
    assert out["deltas"] == deltas
    if followed is not None:
        assert [p["amount"] for p in out["follow_dealer"]] == [followed] * 3


def test_a_win_named_ruleset_settles_it_whatever_the_base(tmp_path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('name = "house"\n[settlement]\ndealer_factor = 3\n', encoding="utf-8")
    round_ = {"dealer": 0, "discarder": 0, "wins": [{"seat": 2, **WIN_3M, "ruleset": "default"}]}
    assert score_round(round_, load_ruleset(str(house)))["deltas"] == [-6, 0, 6, 0]
    round_["wins"][0]["ruleset"] = str(house)
    assert score_round(round_)["deltas"] == [-9, 0, 9, 0]


WIN_3S = {"hand": "123m456m789p12s55p3s", "win_tile": "3s"}
OTHER_3S = {"hand": "123p456p789m12s55m3s", "win_tile": "3s"}


@pytest.mark.parametrize(("round_", "message"), [
    pytest.param({"dealer": 0, "discarder": 2, "wins": [{"seat": 0, **WIN_3S, "events": ["robbing_kong"]},
                                                        {"seat": 1, **OTHER_3S}]},
                 "claims on one discard say the same of how it came (robbing_kong, kong_tears, hai_di_pao), got seat 0: "
                 "robbing_kong; seat 1: none of them", id="robbed-for-one-winner-only"),
    pytest.param({"dealer": 0, "discarder": 2, "wins": [{"seat": 0, **WIN_3S, "events": ["kong_tears"]},
                                                        {"seat": 1, **OTHER_3S, "events": ["hai_di_pao"]}]},
                 "got seat 0: kong_tears; seat 1: hai_di_pao", id="tears-and-last-tile"),
    pytest.param({"dealer": 0, "discarder": 2, "wins": []},
                 "a round with no wins (a drawn hand, 黄庄) has \"discarder\": null, got 2", id="a-drawn-hand-discarded"),
    pytest.param({"dealer": 0, "discarder": None, "wins": [{"seat": 1, **WIN_3S, "self_draw": False}]},
                 "seat 1: \"self_draw\" must be true when \"discarder\" is null", id="json-spellings"),
    pytest.param({"dealer": None, "discarder": None, "wins": []}, "'dealer' must be a whole number, got null",
                 id="dealer-null"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 2, "win_tile": "3s"}]}, "seat 2: situation has no "
                 "\"hand\"", id="which-win-lacks-its-hand"),
    pytest.param({"dealer": 0, "discarder": None, "wins": [], "follow_dealer": "xx"}, "\"follow_dealer\": ",
                 id="follow-dealer-named"),
])
def test_a_round_that_contradicts_itself_or_is_malformed_says_so(round_, message) -> None:
    """(session 75, a black-box pass on rounds): winners on one discard that disagree on what the discard was (抢杠
    for one alone), a drawn hand with a discarder, and messages naming the field and the win, spelt as JSON."""
    with pytest.raises(ValueError) as caught:
        score_round(round_)
    assert message in str(caught.value)


def test_winners_on_one_robbed_kong_both_say_so_and_both_are_paid_by_the_kong_maker() -> None:
    both = score_round({"dealer": 0, "discarder": 2, "wins": [
        {"seat": 0, **WIN_3S, "events": ["robbing_kong"], "payers": [{"melds": ["kong 3s"]}]},
        {"seat": 1, **OTHER_3S, "events": ["robbing_kong"], "payers": [{"melds": ["kong 3s"]}]}]})
    assert [r["own"] for r in both["results"]] == [13, 13] and both["deltas"][2] == -(26 + 13)
