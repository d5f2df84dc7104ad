"""`xingzi score` flags beside a situation file, the ruleset's own numbers in the words, and --payer said once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xingzi.cli import main
from xingzi.commands.score import parse_overrides, parse_payer

HAND = "12m456m789p22345s 3m"  # 平胡 1 + 门前清 1 + 胡单张 1 = 3 炮 on a discard


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def situation_file(folder, situation: dict | None = None):
    path = folder / "s.json"
    path.write_text(json.dumps(situation or {"hand": "12m456m789p22345s3m", "win_tile": "3m"}), encoding="utf-8")
    return path


def test_set_changes_the_scores_of_a_situation_file(tmp_path, capsys) -> None:
    path = situation_file(tmp_path)
    assert json.loads(run(["score", "--json", str(path)], capsys)[1])["own"] == 3
    code, out, _ = run(["score", "--json", str(path), "--set", "ping_hu=5"], capsys)
    assert code == 0 and json.loads(out)["own"] == 7  # as `--hand ... --set ping_hu=5` gives


def test_set_goes_on_top_of_rules_and_under_a_situations_own_rules(tmp_path, capsys) -> None:
    house = tmp_path / "house.toml"
    house.write_text("[pao]\nping_hu = 2\n", encoding="utf-8")
    path = situation_file(tmp_path)
    assert json.loads(run(["score", "--json", str(path), "--rules", str(house)], capsys)[1])["own"] == 4
    out = run(["score", "--json", str(path), "--rules", str(house), "--set", "ping_hu=4"], capsys)[1]
    assert json.loads(out)["own"] == 6
    own_rules = situation_file(tmp_path, {"hand": "12m456m789p22345s3m", "win_tile": "3m", "rules": {"ping_hu": 9}})
    assert json.loads(run(["score", "--json", str(own_rules), "--set", "ping_hu=5"], capsys)[1])["own"] == 11


@pytest.mark.parametrize("flags, named", [
    pytest.param(["--dealer"], "--dealer", id="dealer"),
    pytest.param(["--self-draw"], "--self-draw/--discard", id="self-draw"),
    pytest.param(["--discard"], "--self-draw/--discard", id="discard"),
    pytest.param(["--fa", "2"], "--fa", id="fa"),
    pytest.param(["--meld", "pung 9s"], "--meld", id="meld"),
    pytest.param(["--event", "robbing_kong"], "--event", id="event"),
    pytest.param(["--payer", "fa=1"], "--payer", id="payer"),
    pytest.param(["--win", "3s"], "--win", id="win"),
])
def test_hand_flags_beside_a_situation_file_are_refused_not_left_unread(tmp_path, capsys, flags, named) -> None:
    code, out, err = run(["score", "--json", str(situation_file(tmp_path)), *flags], capsys)
    assert code == 2 and out == ""
    assert f"error: {named} describes a hand given by flags" in err and "each situation says it itself" in err


def test_the_dealers_factor_in_the_words_is_the_rulesets(tmp_path, capsys) -> None:
    house = tmp_path / "house.toml"
    house.write_text("[settlement]\ndealer_factor = 3\n", encoding="utf-8")
    code, out, _ = run(["score", "--rules", str(house), "--hand", HAND, "--self-draw", "--payer", "dealer"], capsys)
    assert code == 0
    assert "pays 12  (4 炮 ×3 庄家 dealer)" in out and "×2" not in out


def test_a_hand_scored_under_set_says_so_beside_the_rulesets_name(capsys) -> None:
    out = run(["score", "--hand", HAND, "--set", "ping_hu=5"], capsys)[1]
    assert "own       7 炮   (ruleset: default (003 text), with --set ping_hu=5)" in out
    assert "(ruleset: default (003 text))" in run(["score", "--hand", HAND], capsys)[1]
    # and in the JSON, where a program reading it would otherwise take the default's numbers for those scored by
    assert json.loads(run(["score", "--hand", HAND, "--set", "ping_hu=5", "--json"], capsys)[1])["ruleset"] == (
        "default (003 text), with --set ping_hu=5")


@pytest.mark.parametrize("text, name", [
    pytest.param("[pao]\nqing_yi_se = 30\n", "house.toml, on default (003 text)", id="changed-default"),
    pytest.param('base = "text000"\n[pao]\nqing_yi_se = 30\n', "house.toml, on text000 (000 text readings)", id="changed-000"),
    pytest.param('name = "our table"\n[pao]\nqing_yi_se = 30\n', "our table", id="named"),
])
def test_a_house_file_without_a_name_is_not_called_by_its_bases(tmp_path, capsys, text, name) -> None:
    """A house file that does not name itself is called after its file, not "default": the name is all a score shows of
    the rules it was scored by."""
    house = tmp_path / "house.toml"
    house.write_text(text, encoding="utf-8")
    out = run(["score", "--rules", str(house), "--hand", HAND], capsys)[1]
    assert f"(ruleset: {name})" in out


@pytest.mark.parametrize("spec, said", [
    pytest.param("fa=2; fa=3", "fa is said twice", id="fa-twice"),
    pytest.param("fa=2, fa = 2", "fa is said twice", id="fa-twice-spaced"),
    pytest.param("dealer; dealer", "dealer is said twice", id="dealer-twice"),
])
def test_a_payer_saying_a_thing_twice_is_refused(spec, said) -> None:
    with pytest.raises(ValueError, match=said):
        parse_payer(spec)


@pytest.mark.parametrize("spec, payer", [
    pytest.param("fa=4", {"dealer": False, "fa": 4, "melds": []}, id="four-fa"),
    pytest.param("pung 1m; pung 2m; pung 3m; kong 4m", {"dealer": False, "fa": 0,
                 "melds": ["pung 1m", "pung 2m", "pung 3m", "kong 4m"]}, id="four-melds"),
])
def test_a_payer_at_the_limits_is_taken(spec, payer) -> None:
    """4 发 and 4 melds are as many as a player shows: taken (one more is refused, below)."""
    assert parse_payer(spec) == payer


def test_a_payers_fa_may_be_written_with_spaces() -> None:
    assert parse_payer("fa = 2; dealer") == {"dealer": True, "fa": 2, "melds": []}
    with pytest.raises(ValueError, match="fa=N needs a number, got 'fa = two'"):
        parse_payer("fa = two")


@pytest.mark.parametrize("argv, said", [
    # a payer saying nothing looked like a flag left unfilled: it was scored as a plain payer without a word
    pytest.param(["--payer", ""], "--payer is empty: expected what that payer shows, e.g. 'dealer; fa=2; pung 中', "
                 "or 'none' for a payer who is not the dealer and shows nothing, got ''", id="payer-empty"),
    pytest.param(["--payer", "  "], "--payer is empty", id="payer-blank"),
    pytest.param(["--payer", " ; , "], "--payer is empty", id="payer-separators-alone"),
    pytest.param(["--self-draw", "--payer", "fa=1", "--payer", ""], "--payer is empty", id="payer-second-empty"),
    # --json's value is a file; a bare --json (no value) prints JSON: '' is neither
    pytest.param(["--json", ""], "--json is empty: expected a file or folder, got ''", id="json-empty"),
    pytest.param(["--json="], "--json is empty: expected a file or folder, got ''", id="json-equals-empty"),
    # an empty --bloom was taken for one not given, then named with two spaces ("--bloom  says which kong...")
    pytest.param(["--bloom", ""], "--bloom is empty: expected a value, got ''", id="bloom-empty"),
    pytest.param(["--bloom", " "], "--bloom is empty: expected a value, got ' '", id="bloom-blank"),
    pytest.param(["--win", " "], "--win is empty: expected a value, got ' '", id="win-blank"),
])
def test_an_empty_value_is_refused_in_one_line(capsys, argv, said) -> None:
    code, out, err = run(["score", "--hand", HAND, *argv], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and said in err


@pytest.mark.parametrize("spec", ["none", " None ", "NONE"])
def test_a_payer_who_shows_nothing_is_said_none(spec) -> None:
    assert parse_payer(spec) == {"dealer": False, "fa": 0, "melds": []}


@pytest.mark.parametrize("payers, said", [
    pytest.param(["fa=5"], "payer 'fa=5': fa=N is the 发 that payer set aside, 0 to 4, got 5", id="five-fa"),
    pytest.param(["fa=-1"], "got -1", id="negative-fa"),
    pytest.param(["none", "fa=5"], "payer 'fa=5'", id="second-payer-named-by-its-words"),
    pytest.param(["pung 1m; pung 2m; pung 3m; pung 4m; pung 5m"], "shows 5 melds: a player has at most 4",
                 id="five-melds"),
])
@pytest.mark.parametrize("mode", ["hand", "photo"])
def test_a_payer_out_of_range_is_refused_by_its_own_words_before_a_photo_is_read(tmp_path, capsys, monkeypatch,
                                                                                 payers, said, mode) -> None:
    from xingzi.vision import photo_command

    monkeypatch.setattr(photo_command, "load_image", lambda path: (_ for _ in ()).throw(AssertionError("photo read")))
    where = ["--hand", HAND] if mode == "hand" else [str(tmp_path / "p.jpg")]
    flags = [f for spec in payers for f in ("--payer", spec)]
    code, out, err = run(["score", *where, "--self-draw", *flags], capsys)
    assert code == 2 and out == "" and said in err and "payer 0" not in err and "payer 1:" not in err


@pytest.mark.parametrize("flags, self_draw", [
    pytest.param(["--event", "hai_di_lao_yue"], True, id="hai-di-lao-yue-is-a-self-draw"),
    pytest.param([], False, id="neither-a-discard"),
    pytest.param(["--event", "hai_di_lao_yue", "--discard"], None, id="said-discard-refused"),
])
def test_a_photo_takes_a_self_draw_event_as_hand_does(tmp_path, capsys, flags, self_draw) -> None:
    """Neither --self-draw nor --discard: an event only a self-draw has says it, on a photo as with --hand."""
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples"
    for where in (["--hand", "1122233344567s 4s"], [str(examples / "demo.jpg"), "--model", str(examples / "demo.json")]):
        code, out, err = run(["score", *where, *flags], capsys)
        if self_draw is None:
            assert code == 2 and "won only by self-draw: set self-draw" in err
        else:
            assert code == 0 and ("第3家 player 3" in out) is self_draw, out


@pytest.mark.parametrize("flags, said, own", [
    pytest.param(["--event", "hai_di_pao"], "not counted 海底放炮 hai_di_pao: optional, off under these rules "
                 "(--set 'optional=[\"hai_di_pao\"]' counts it)", 16, id="optional-off-said"),
    pytest.param(["--event", "hai_di_pao", "--set", 'optional=["hai_di_pao"]'], None, 21, id="switched-on-counted"),
    pytest.param(["--event", "tong_ku", "--event", "wang_en"], "not counted 痛苦 tong_ku", 16, id="each-said"),
    pytest.param([], None, 16, id="no-event-nothing-said"),
])
def test_an_optional_event_these_rules_leave_out_is_said_not_dropped_silently(capsys, flags, said, own) -> None:
    code, out, _ = run(["score", "--hand", "1122233344567s 4s", *flags], capsys)
    assert code == 0 and f"own       {own} 炮" in out
    assert out.count("not counted") == flags.count("--event") - ("--set" in flags)
    assert said is None or said in out


def test_a_photos_score_says_an_event_not_counted_once_as_a_hands_does(capsys) -> None:
    """One mechanism, the engine's ``events_not_counted``, for the hand and the photo alike (session 75: the photo's
    report kept a list of its own beside it)."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    code, out, _ = run(["score", str(examples / "demo.jpg"), "--model", str(examples / "demo.json"),
                        "--event", "hai_di_pao"], capsys)
    assert code == 0 and "own       26 炮" in out
    assert out.count("not counted") == 1
    assert "not counted 海底放炮 hai_di_pao: optional, off under these rules (--set 'optional=[\"hai_di_pao\"]' counts " \
           "it)" in out


def test_a_photo_says_an_optional_event_left_out_too(capsys) -> None:
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples"
    photo = [str(examples / "demo.jpg"), "--model", str(examples / "demo.json")]
    plain = run(["score", *photo], capsys)[1]
    code, out, _ = run(["score", *photo, "--event", "tong_ku"], capsys)
    assert code == 0 and "not counted 痛苦 tong_ku: optional" in out and "not counted" not in plain
    assert out.splitlines()[-2:] == plain.splitlines()[-2:]  # the same total and payment


NO_PAIN = ["--hand", "123m456m234s5s 5s", "--meld", "pung 9p", "--event", "tong_ku"]
ON = ["--set", 'optional=["tong_ku"]']


@pytest.mark.parametrize("flags, reason, hint", [
    pytest.param([*NO_PAIN, *ON], "needs an edge or middle wait (边张/夹心) and no other tile kind waited on: 5s "
                 "completed the hand as 单钓 pair, and it waited on 2s 5s", "", id="tong-ku-on-a-pair-wait"),
    pytest.param(["--hand", "123m456m789p22s35s 4s", "--self-draw", "--event", "shang_xin", "--set",
                  'optional=["shang_xin"]'], "needs a two-sided wait (两面) on exactly the two kinds either side of the "
                 "run the winning tile closes, the other side not all held by the winner: 4s completed the hand as 夹心 "
                 "middle, and it waited on 4s", "", id="shang-xin-on-a-middle-wait"),
    pytest.param(NO_PAIN, "optional, off under these rules", " (--set 'optional=[\"tong_ku\"]' counts it)",
                 id="optional-off"),
])
def test_an_event_that_does_not_apply_is_said_in_words_and_in_the_json(capsys, flags, reason, hint) -> None:
    event = flags[flags.index("--event") + 1]
    code, out, _ = run(["score", *flags], capsys)
    name = {"tong_ku": "痛苦", "shang_xin": "伤心痛苦"}[event]
    assert code == 0 and f"not counted {name} {event}: {reason}{hint}" in out.splitlines()
    result = json.loads(run(["score", *flags, "--json"], capsys)[1])
    assert result["events_not_counted"] == [{"event": event, "name": name, "reason": reason}]
    assert {"valid", "own", "items", "payments"} <= set(result)


def test_kong_tears_without_a_kong_shown_by_the_discarder_is_refused(capsys) -> None:
    code, _, err = run(["score", "--hand", HAND, "--event", "kong_tears", "--payer", "pung 中; fa=1"], capsys)
    assert code == 2 and "kong_tears needs the kong just made among the discarder's melds" in err
    assert run(["score", "--hand", HAND, "--event", "kong_tears", "--payer", "pung 中; kong 9s"], capsys)[0] == 0


@pytest.mark.parametrize("flags, said, unsaid", [
    pytest.param(["--hand", "123m456m789p12s5p 中中"], "got '中中' after the space", "winning tile missing: give",
                 id="two-tiles-after-the-space"),
    pytest.param(["--hand", "12m456m789p22345s 3m 4m"], "got '3m 4m' after the hand", None, id="two-winning-tiles"),
    pytest.param(["--hand", HAND, "--meld", "pung 10s"], "'10s': ranks are 1..9, one digit a tile", "red fives",
                 id="rank-10"),
    pytest.param(["--hand", HAND, "--meld", "pung 0s"], "ranks are 1..9 (no red fives)", None, id="red-five"),
    pytest.param(["--hand", HAND, "--payer", "none; fa=1"], "payer 'none; fa=1': 'none' stands alone", "pung|kong",
                 id="none-with-more"),
])
def test_a_refusal_says_what_was_written(capsys, flags, said, unsaid) -> None:
    code, _, err = run(["score", *flags], capsys)
    assert code == 2 and said in err and (unsaid is None or unsaid not in err), err


def test_the_help_says_a_self_drawn_event_is_scored_as_a_self_draw(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    for flag in ("--self-draw", "--discard"):
        assert "kong_bloom or hai_di_lao_yue" in words.split(flag, 2)[-1].split("--dealer")[0], flag
    assert "without --self-draw or --discard the hand is scored as one" in words


@pytest.mark.parametrize("value, rules", [
    pytest.param("specials_lift_threshold=True", {"specials_lift_threshold": True}, id="capital-true"),
    pytest.param("won_triplet_concealed=FALSE", {"won_triplet_concealed": False}, id="capital-false"),
    pytest.param("optional=tong_ku,hui_tou", {"optional": ["tong_ku", "hui_tou"]}, id="a-list-without-brackets"),
    pytest.param('optional=["tong_ku"]', {"optional": ["tong_ku"]}, id="a-list-in-json"),
    pytest.param("four_fa=on_top", {"four_fa": "on_top"}, id="a-word"),
])
def test_set_takes_a_value_as_a_shell_user_writes_it(value, rules) -> None:
    assert parse_overrides([value]) == rules
