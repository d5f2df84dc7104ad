"""The tally's taps taken back, in headless Chromium: a hand undone and redone as it was settled, a new game begun
by mistake and the game before it brought back (its text not lost from the copy box), and the seats' names as they
are now in every hand's words."""

from __future__ import annotations

from browser import opened, read_photo, uploaded

TOTALS = "#seats .seat-total"


def _lines(page) -> list[str]:
    return page.locator("#tally-text").input_value().split("\n")


def _tally_opened(page, language: str | None = None) -> list[str]:
    """The photo read (3 炮), the tally opened, every question answered yes: the questions asked, as they come."""
    from playwright.sync_api import expect

    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    if language:
        page.locator("#lang").select_option(language)
    expect(page.locator("#total")).to_have_text("3")
    page.locator("#table-box summary").click()
    return asked


def test_a_hand_undone_is_redone_as_it_was_settled_even_after_a_reload(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()
        expect(page.locator("#redo-hand")).to_be_disabled()  # nothing undone
        page.locator("#add-hand").click()  # 南 wins on 东's discard (东 deals, pays double): 南 deals next
        read_photo(page, "next.jpg")
        page.locator("#self_draw").check()  # 南, dealing, draws: each of three pays 4 ×2
        expect(page.locator("#add-hand")).to_contain_text("南 +24")
        page.locator("#add-hand").click()
        expect(page.locator(TOTALS)).to_have_text(["-14", "+30", "-8", "-8"])
        hands = page.locator("#hands li").all_text_contents()
        page.locator("#undo-hand").click()
        page.locator("#undo-hand").click()
        expect(page.locator(TOTALS)).to_have_text(["0", "0", "0", "0"])
        expect(page.locator('.seat[data-seat="0"] .seat-dealer')).to_be_checked()
        expect(page.locator("#redo-hand")).to_be_enabled()
        # with both languages shown, one space between them (two before session 78)
        expect(page.locator("#tally-status")).to_have_text("已撤销 Undone: 1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, 西 0, 北 0"
                                                           "（可重做） (Redo puts it back)")
        page.reload()  # the hands undone are kept with the tally
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#redo-hand")).to_be_enabled()
        page.locator("#redo-hand").click()  # the first hand back: the winner's photo is not the one shown now
        expect(page.locator(TOTALS)).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()
        expect(page.locator("#tally-status")).to_contain_text("已重做 Redone: 1. 南 胡 东 放炮 3 炮")
        page.locator("#redo-hand").click()  # the second, settled as it was (南 dealt it), its photo added already
        expect(page.locator(TOTALS)).to_have_text(["-14", "+30", "-8", "-8"])
        expect(page.locator("#hands li")).to_have_text(hands)
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()  # the dealer won: 南 deals on
        expect(page.locator("#redo-hand")).to_be_disabled()
        expect(page.locator("#add-hand")).to_be_disabled()  # not added twice
        expect(page.locator("#add-hand")).to_contain_text("已记入 added")
        page.locator("#lang").select_option("zh")
        expect(page.locator("#redo-hand")).to_have_text("重做", use_inner_text=True)
        page.locator("#undo-hand").click()
        expect(page.locator("#tally-status")).to_have_text("已撤销 2. 南 自摸 4 炮: 东 -8, 南 +24, 西 -8, 北 -8（可重做）")
        page.locator("#lang").select_option("en")
        expect(page.locator("#redo-hand")).to_have_text("Redo the last undone hand", use_inner_text=True)
        expect(page.locator("#tally-status")).to_have_text("Undone: 2. South self-draw, 4 pao: East -8, South +24, "
                                                           "West -8, North -8 (Redo puts it back)")
        page.locator("#redo-hand").click()
        expect(page.locator("#tally-status")).to_have_text("Redone: 2. South self-draw, 4 pao: East -8, South +24, "
                                                           "West -8, North -8")
        page.locator("#undo-hand").click()
        page.locator("#drawn-hand").click()  # a new hand added: the hand undone is gone for good
        expect(page.locator("#redo-hand")).to_be_disabled()
        expect(page.locator(TOTALS)).to_have_text(["-6", "+6", "0", "0"])
        page.locator("#undo-hand").click()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-game").click()  # and a new game: nothing to redo in it
        expect(page.locator("#redo-hand")).to_be_disabled()


def test_a_new_game_begun_by_mistake_is_taken_back_and_its_text_is_not_lost(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        _tally_opened(page)
        expect(page.locator("#restore-game")).to_be_hidden()  # no game before this one
        page.locator('.seat[data-seat="2"] .seat-name').fill("Ann")
        page.locator('.seat[data-seat="2"] .seat-name').press("Enter")
        page.locator("#add-hand").click()
        page.locator("#copy-tally").click()
        game = _lines(page)
        assert game[-2:] == ["东 -6 · 南 +6 (庄 dealer) · Ann 0 · 北 0", "1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, Ann 0, 北 0"]
        page.locator("#new-game").click()
        expect(page.locator(TOTALS)).to_have_text(["0", "0", "0", "0"])
        expect(page.locator("#hands li")).to_have_count(0)
        # the copy box still holds the game just ended, said to be the previous one
        assert _lines(page) == ["上一局 The previous game:", *game]
        expect(page.locator("#restore-game")).to_be_visible()
        expect(page.locator("#tally-status")).to_contain_text("the previous game can be brought back")
        page.locator('.seat[data-seat="2"] .seat-name').fill("Cy")  # someone else sits down …
        page.locator('.seat[data-seat="2"] .seat-name').press("Enter")
        assert _lines(page)[-1] == "1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, Ann 0, 北 0"  # … not in the game before
        page.locator("#new-game").click()  # a second new game, on no hand: the game kept is still the one with hands
        page.locator("#lang").select_option("zh")
        expect(page.locator("#restore-game")).to_have_text("恢复上一局", use_inner_text=True)
        assert _lines(page)[0] == "上一局："
        assert _lines(page)[-1] == "1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, Ann 0, 北 0"
        page.locator("#lang").select_option("en")
        expect(page.locator("#restore-game")).to_have_text("Bring back the previous game", use_inner_text=True)
        assert _lines(page)[0] == "The previous game:"
        assert _lines(page)[-2:] == ["East -6 · South +6 (dealer) · Ann 0 · North 0",
                                     "1. South wins on East's discard, 3 pao: East -6, South +6, Ann 0, North 0"]
        page.reload()  # kept in this browser
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#restore-game")).to_be_visible()
        page.locator("#copy-tally").click()  # a new game's copy, on no hand: the game before it
        assert _lines(page)[0] == "The previous game:"
        page.locator("#restore-game").click()
        expect(page.locator(TOTALS)).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator("#hands li")).to_have_text(["1. South wins on East's discard, 3 pao: East -6, South +6, "
                                                        "Ann 0, North 0"])
        expect(page.locator('.seat[data-seat="2"] .seat-name')).to_have_value("Ann")
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()
        expect(page.locator("#restore-game")).to_be_hidden()
        expect(page.locator("#tally-status")).to_have_text("The previous game is back: 1 hand(s)")
        assert _lines(page)[0].startswith("Xingzi tally, ") and _lines(page)[-1].startswith("1. South wins")
        expect(page.locator("#add-hand")).to_be_disabled()  # its photo was added: not twice
        page.locator("#lang").select_option("both")
        page.locator("#new-game").click()
        page.locator("#drawn-hand").click()  # the new game's first hand: the game before is gone for good
        expect(page.locator("#restore-game")).to_be_hidden()
        assert _lines(page)[0].startswith("星子麻将记分 Xingzi tally, ") and _lines(page)[-1] == "1. 黄庄 东 连庄 keeps the deal"


def test_a_seat_renamed_after_its_hands_is_called_by_its_new_name_in_every_one(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        _tally_opened(page)
        page.locator("#add-hand").click()  # 南 wins on 东's discard: 南 deals next
        page.locator("#follow-plain").click()  # 南, dealing, pays each of the others 1 ×2
        page.locator("#drawn-hand").click()
        for seat, name in (("1", "Ann"), ("0", "Bo")):
            page.locator(f'.seat[data-seat="{seat}"] .seat-name').fill(name)
            page.locator(f'.seat[data-seat="{seat}"] .seat-name').press("Enter")
        zh = ["1. Ann 胡 Bo 放炮 3 炮: Bo -6, Ann +6, 西 0, 北 0", "2. 跟庄 Ann: Bo +2, Ann -6, 西 +2, 北 +2",
              "3. 黄庄 Ann 连庄"]
        en = ["1. Ann wins on Bo's discard, 3 pao: Bo -6, Ann +6, West 0, North 0",
              "2. Dealer followed (Ann pays each of the others 1 pao, doubled for the dealer: 2): Bo +2, Ann -6, "
              "West +2, North +2", "3. Drawn hand: Ann keeps the deal"]
        both = [*zh[:2], "3. 黄庄 Ann 连庄 keeps the deal"]
        expect(page.locator("#hands li")).to_have_text(both)
        page.locator("#copy-tally").click()
        assert _lines(page)[-4:] == ["Bo -4 · Ann 0 (庄 dealer) · 西 +2 · 北 +2", *both]
        for lang, said in (("zh", zh), ("en", en)):
            page.locator("#lang").select_option(lang)
            expect(page.locator("#hands li")).to_have_text(said)
            assert _lines(page)[-3:] == said  # the copy shown follows
        page.locator('.seat[data-seat="1"] .seat-name').fill("")  # a name cleared: its wind again, everywhere
        page.locator('.seat[data-seat="1"] .seat-name').press("Enter")
        expect(page.locator("#hands li").first).to_have_text("1. South wins on Bo's discard, 3 pao: Bo -6, South +6, "
                                                             "West 0, North 0")
        page.reload()  # the words are made from what each hand was, kept with it
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#hands li").nth(1)).to_have_text("2. Dealer followed (South pays each of the others 1 "
                                                              "pao, doubled for the dealer: 2): Bo +2, South -6, "
                                                              "West +2, North +2")


def test_a_hand_an_older_page_added_keeps_the_words_it_kept(server_ok):
    """A hand from before the hands said what they were (no ``kind``) has only its words, with the names of its time:
    they are shown as kept, the hands after it by the names now."""
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.evaluate("""localStorage.setItem("xingzi.table.v1", JSON.stringify({names: ["", "", "", ""],
            totals: [0, 0, 0, 0], dealer: 0, winner: 1, discarder: 0, hands: [{deltas: [0, 0, 0, 0], dealer: 0,
            text: "1. 黄庄 东 连庄 keeps the deal", say: {zh: "1. 黄庄 东 连庄", en: "1. Drawn hand: East keeps the deal",
            both: "1. 黄庄 东 连庄 keeps the deal"}, valid: false, same: false}]}))""")
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#table-box summary").click()
        page.locator("#drawn-hand").click()
        page.locator('.seat[data-seat="0"] .seat-name').fill("Bo")
        page.locator('.seat[data-seat="0"] .seat-name').press("Enter")
        expect(page.locator("#hands li")).to_have_text(["1. 黄庄 东 连庄 keeps the deal", "2. 黄庄 Bo 连庄 keeps the deal"])
        page.locator("#undo-hand").click()
        page.locator("#undo-hand").click()  # undone and redone as kept
        page.locator("#redo-hand").click()
        expect(page.locator("#hands li")).to_have_text(["1. 黄庄 东 连庄 keeps the deal"])


def test_a_first_tap_after_a_new_game_begun_by_mistake_is_undone_and_the_game_before_brought_back(server_ok):
    """New game by mistake, then one more tap: the photo the game before counted is not offered to the new one, and
    a 黄庄 tapped, undone, offers the game before again (before session 78 that tap lost it for good)."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        asked = _tally_opened(page, "en")
        page.locator("#add-hand").click()
        page.locator("#new-game").click()
        assert asked == ["New game: all totals back to 0? (this game can be brought back until a hand is added to "
                         "the new one)"]
        expect(page.locator("#tally-status")).to_have_text("A new game has begun: until a hand is added to it, the "
                                                           "previous game can be brought back")
        # the photo shown is the game before's last hand: not its first hand here too
        expect(page.locator("#add-hand")).to_be_disabled()
        expect(page.locator("#add-hand")).to_have_text("Add this hand — added to the previous game",
                                                       use_inner_text=True)
        page.locator("#drawn-hand").click()  # a tap by mistake
        expect(page.locator("#restore-game")).to_be_hidden()
        page.locator("#undo-hand").click()
        expect(page.locator("#restore-game")).to_be_visible()
        expect(page.locator("#tally-status")).to_have_text("Undone: 1. Drawn hand: East keeps the deal (Redo puts it "
                                                           "back; or bring back the previous game)")
        page.reload()  # kept so in this browser
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#restore-game").click()
        expect(page.locator(TOTALS)).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator("#hands li")).to_have_text(["1. South wins on East's discard, 3 pao: East -6, South +6, "
                                                        "West 0, North 0"])
        page.locator("#new-game").click()  # a new game's second hand is one of its own: the game before goes
        page.locator("#drawn-hand").click()
        page.locator("#drawn-hand").click()
        page.locator("#undo-hand").click()
        page.locator("#undo-hand").click()
        expect(page.locator("#restore-game")).to_be_hidden()
        read_photo(page, "next.jpg")  # a new photo is the new game's to add
        expect(page.locator("#add-hand")).to_be_enabled()


def test_a_new_game_on_a_game_whose_hands_are_all_undone_keeps_them_to_bring_back(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        asked = _tally_opened(page, "zh")
        page.locator("#add-hand").click()
        page.locator("#drawn-hand").click()
        page.locator("#undo-hand").click()
        page.locator("#undo-hand").click()
        expect(page.locator("#tally-status")).to_contain_text("（可重做）")
        page.locator("#new-game").click()
        assert asked == ["新一局：所有分数归零？（在新一局记入一手之前，可以恢复这一局）"]
        expect(page.locator("#tally-status")).to_have_text("新一局开始了。记入这一局的第一手之前，可以恢复上一局")  # no "redo"
        expect(page.locator("#redo-hand")).to_be_disabled()
        page.locator("#restore-game").click()
        expect(page.locator("#tally-status")).to_have_text("已恢复上一局（0 手，撤销的 2 手可重做）")
        page.locator("#redo-hand").click()
        page.locator("#redo-hand").click()
        expect(page.locator("#hands li")).to_have_text(["1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, 西 0, 北 0", "2. 黄庄 南 连庄"])
        # a game kept already, with hands, stays the one to bring back: a new game's hand undone is gone, and said so
        page.locator("#new-game").click()
        page.locator("#drawn-hand").click()
        page.locator("#undo-hand").click()
        page.locator("#lang").select_option("en")
        page.locator("#new-game").click()
        assert asked[-1] == "New game: all totals back to 0? (the hands undone here can no longer be redone)"
        expect(page.locator("#tally-status")).to_have_text("A new game has begun: until a hand is added to it, the "
                                                           "previous game can be brought back (the hands undone can "
                                                           "no longer be redone)")
        page.locator("#restore-game").click()
        expect(page.locator("#hands li")).to_have_count(2)


def test_a_self_drawn_hand_undone_after_a_win_on_its_winners_discard_leaves_another_seat_the_discarder(server_ok):
    """北 self-draws, then 南 wins on 北's discard: both undone, 北 is the winner again, and the discarder is not left
    as 北 too (before session 78: a blank menu, and the server refusing a win on one's own discard with a raw dict).
    The 自摸 tick stays as the user left it for the photo shown (the next hand's, as often)."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()
        page.locator("#self_draw").check()
        page.locator("#winner").select_option("3")
        expect(page.locator("#add-hand")).to_contain_text("北 +")
        page.locator("#add-hand").click()
        read_photo(page, "second.jpg")
        page.locator("#self_draw").uncheck()
        page.locator("#winner").select_option("1")
        page.locator("#discarder").select_option("3")
        expect(page.locator("#add-hand")).to_contain_text("南 +")
        page.locator("#add-hand").click()
        page.locator("#undo-hand").click()
        page.locator("#undo-hand").click()
        expect(page.locator("#winner")).to_have_value("3")
        expect(page.locator("#discarder")).to_have_value("2")  # the winner's 上家, as the winner's menu does
        expect(page.locator("#self_draw")).not_to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("北 +3")  # 北 on 西's discard, 东 dealing: not doubled
        expect(page.locator("#status")).not_to_contain_text("Error")
        page.locator("#redo-hand").click()  # the seats as they were before that undo
        expect(page.locator("#winner")).to_have_value("1")
        expect(page.locator("#discarder")).to_have_value("3")
        stored = page.evaluate("JSON.parse(localStorage.getItem('xingzi.table.v1'))")
        assert stored["winner"] != stored["discarder"]
        # a tally an older page left so is read with the winner's 上家 as the discarder
        page.evaluate("localStorage.setItem('xingzi.table.v1', JSON.stringify(Object.assign("
                      "JSON.parse(localStorage.getItem('xingzi.table.v1')), {winner: 3, discarder: 3})))")
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#discarder")).to_have_value("2")
