"""The page in headless Chromium: the table's tally (hands added, the deal moved, undone, copied), the rules
changed on the page, and the list of tiles read."""

from __future__ import annotations

import re

from browser import opened, read_photo, uploaded
from web_helpers import jpeg_bytes

from xingzi.engine.tiles import Tile


def _totals(page) -> list[str]:
    return [t.strip() for t in page.locator("#seats .seat-total").all_text_contents()]


def test_the_table_tally_adds_hands_moves_the_deal_and_undoes(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()  # open: the dealer ticks follow the table (东 deals, 南 wins)
        expect(page.locator("#payments li")).to_have_text(["东付 pays 6 (3 炮 ×2 庄家 dealer)"])  # seats named
        expect(page.locator("#dealer")).to_be_disabled()  # the tally says who deals; the tick only shows it
        expect(page.locator("#dealer")).not_to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("南 +6")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator("#hands li")).to_have_text(["1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, 西 0, 北 0"])
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()  # the winner deals next
        expect(page.locator("#add-hand")).to_be_disabled()  # added once: a second tap adds nothing
        expect(page.locator("#add-hand")).to_contain_text("已记入 added")  # and says why
        read_photo(page, "next.jpg")  # the next hand's photo, its ticks as the tally now says: 南 deals and wins
        expect(page.locator("#dealer")).to_be_checked()
        expect(page.locator("#payments li")).to_have_text(["东付 pays 6 (3 炮 ×2 庄家 dealer)"])
        page.locator("#self_draw").check()  # 南, now the dealer, draws the winning tile: each of three pays 4 ×2
        expect(page.locator("#dealer")).to_be_checked()
        expect(page.locator("#discarder-box")).to_be_hidden()
        expect(page.locator("#add-hand")).to_contain_text("南 +24")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-14", "+30", "-8", "-8"])
        page.locator("#undo-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        page.once("dialog", lambda dialog: dialog.dismiss())  # a tap in passing, taken back: nothing added
        page.locator("#follow-plain").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        asked = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        page.locator("#follow-plain").click()  # 跟庄: 南, the dealer, pays each of the others 1 ×2
        expect(page.locator("#seats .seat-total")).to_have_text(["-4", "0", "+2", "+2"])
        # what the dealer pays said as a player counts it: 1 炮, doubled for the dealer
        assert asked == ["跟庄：南 付另外三家各 1 炮，庄家翻倍 = 2？ "
                         "Dealer followed: 南 pays each of the others 1 pao, doubled for the dealer: 2?"]
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()  # play goes on: the deal stays
        # who pays and how much, said on both buttons: 2 炮 for 中/白, doubled
        expect(page.locator("#follow-plain")).to_have_text("跟庄 南 pays each of the others 1 pao, doubled for the "
                                                           "dealer: 2")
        expect(page.locator("#follow-dragon")).to_have_text("跟庄 中/白 南 pays each of the others 2 pao, doubled for "
                                                            "the dealer: 4")
        page.locator("#lang").select_option("zh")
        expect(page.locator("#follow-dragon")).to_have_text("跟庄 中/白：南 付另外三家各 2 炮，庄家翻倍 = 4")
        page.locator("#lang").select_option("en")
        expect(page.locator("#follow-plain")).to_have_text("Dealer followed: South pays each of the others 1 pao, "
                                                           "doubled for the dealer: 2")
        page.locator("#lang").select_option("both")
        page.locator("#undo-hand").click()
        page.locator('.seat[data-seat="2"] .seat-name').fill("Ann")
        page.locator('.seat[data-seat="2"] .seat-name').press("Enter")
        expect(page.locator("#winner option")).to_have_text(["东", "南", "Ann", "北"])
        page.reload()  # kept in this browser, open as it was left
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#table-box")).to_have_attribute("open", "")
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator('.seat[data-seat="2"] .seat-name')).to_have_value("Ann")
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-game").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["0", "0", "0", "0"])
        expect(page.locator("#hands li")).to_have_count(0)
        expect(page.locator("#undo-hand")).to_be_disabled()


def test_a_new_game_an_undo_and_closing_the_tally_each_settle_the_score_shown_again(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        expect(page.locator("#dealer-by-tally")).to_be_visible()  # why the tick cannot be changed, said on a phone
        page.locator("#add-hand").click()  # 南 wins on 东's discard: 南 deals next
        read_photo(page, "next.jpg")  # the next hand's photo, its ticks as the tally now says: 南 deals and wins
        expect(page.locator("#dealer")).to_be_checked()
        expect(page.locator("#payments li")).to_have_text(["东付 pays 6 (3 炮 ×2 庄家 dealer)"])
        page.locator("#self_draw").check()
        expect(page.locator("#dealer")).to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("南 +24")
        page.locator("#undo-hand").click()  # 东 deals again, and the score follows: 东 pays 4 ×2
        expect(page.locator("#dealer")).not_to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("南 +16")
        page.locator("#add-hand").click()  # 南 draws and deals next
        expect(page.locator("#seats .seat-total")).to_have_text(["-8", "+16", "-4", "-4"])
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-game").click()
        expect(page.locator("#dealer")).not_to_be_checked()
        expect(page.locator("#payments li")).to_have_text(["西付 pays 4", "北付 pays 4", "东付 pays 8 (4 炮 ×2 庄家 dealer)"])
        # the photo shown, the game ended counted: not the new game's first hand (a tap by mistake would add it)
        expect(page.locator("#add-hand")).to_contain_text("added to the previous game")
        page.locator("#table-box summary").click()  # closed: the page's own ticks settle it (东, 上家, left ticked)
        expect(page.locator("#dealer-by-tally")).to_be_hidden()
        expect(page.locator("#payments li")).to_have_text(["下家付 next player pays 4", "对家付 opposite pays 4",
                                                           "上家付 previous player pays 8 (4 炮 ×2 庄家 dealer)"])
        expect(page.locator("#payers .payer-dealer").nth(2)).to_be_enabled()
        page.locator("#payers-box summary").click()
        page.locator("#payers .payer-dealer").nth(2).uncheck()
        expect(page.locator("#payments li")).to_have_text(["下家付 next player pays 4", "对家付 opposite pays 4",
                                                           "上家付 previous player pays 4"])


# the page scrolled up until the score is just out of view, below the screen
SCORE_JUST_BELOW = "window.scrollTo(0, scrollY + document.getElementById('total').getBoundingClientRect().top - innerHeight - 2)"


def test_the_score_follows_the_player_up_the_page(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.set_viewport_size({"width": 360, "height": 640})  # a small phone
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#total").scroll_into_view_if_needed()
        expect(page.locator("#score-peek")).to_be_hidden()  # the score itself in view: no bar
        # up the page until the score is just out of view below: the bar lies over the words above it, no control
        page.evaluate(SCORE_JUST_BELOW)
        expect(page.locator("#score-peek")).to_be_visible()
        expect(page.locator("#score-peek")).to_have_text("3 炮 · 胡牌")
        page.locator("#self_draw").check()  # further up, at the toggles
        expect(page.locator("#score-peek")).to_have_text("4 炮 · 胡牌")  # a change above the score, seen at once
        page.evaluate(SCORE_JUST_BELOW)
        page.locator("#score-peek").click()
        expect(page.locator("#score-peek")).to_be_hidden()
        expect(page.locator("#total")).to_be_in_viewport()


def test_a_score_that_no_longer_matches_is_greyed_and_never_added(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()
        expect(page.locator("#add-hand")).to_be_enabled()
        # the server no longer holds the photo (restarted, or 16 photos read since): the correction cannot be scored
        page.route("**/api/rescore", lambda route: route.fulfill(
            status=404, content_type="application/json",
            body='{"error": "this photo is no longer held by the server: upload it again"}'))
        page.locator('.hit[data-index="0"]').click()
        page.locator('#faces button[data-cls="1"]').click()
        expect(page.locator("#verdict")).to_contain_text("已过时 没有按刚才的改动重新计分 Not scored again with your last change")
        expect(page.locator("#verdict")).to_contain_text("upload it again")
        expect(page.locator("#result")).to_have_class(re.compile("stale"))
        expect(page.locator("#add-hand")).to_be_disabled()  # the old score is not added as if corrected
        page.unroute("**/api/rescore")
        page.set_input_files("#photo", files=[{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"not a photo"}])
        expect(page.locator("#status")).to_contain_text("not an image")
        expect(page.locator("#verdict")).to_contain_text("这张照片没读成")
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator("#result")).not_to_have_class(re.compile("stale"))
        expect(page.locator("#add-hand")).to_be_enabled()


def test_a_false_win_in_the_tally_pays_the_three_others(server):
    from playwright.sync_api import expect

    with uploaded(server) as page:
        expect(page.locator("#verdict")).to_contain_text("valid win")
        page.locator("#as_read").check()  # the misread as read: no hand, 诈胡
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        expect(page.locator("#total")).to_have_text("诈胡 −60")  # what the claimant owes, not "0 炮"
        expect(page.locator("#total-unit")).to_be_hidden()
        expect(page.locator("#payments li")).to_have_text(["诈胡付 false win: pays 放炮者 the discarder 20",
                                                           "诈胡付 false win: pays 另一家 another player 20",
                                                           "诈胡付 false win: pays 另一家 another player 20"])
        page.locator("#table-box summary").click()
        page.locator("#winner").select_option("2")  # 西 claims; 东 deals: 20 to each, doubled with the dealer
        page.locator("#discarder").select_option("1")
        expect(page.locator("#add-hand")).to_contain_text("西 -80")
        expect(page.locator("#payments li")).to_have_text(["诈胡付 false win: pays 南 20", "诈胡付 false win: pays 北 20",
                                                           "诈胡付 false win: pays 东 40"])  # the dealer, though no discarder
        expect(page.locator("#total")).to_have_text("诈胡 −80")  # the headline as settled between the seats (was −60)
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+40", "+20", "-80", "+20"])
        expect(page.locator('.seat[data-seat="0"] .seat-dealer')).to_be_checked()  # a false win keeps the deal


def test_two_winners_on_one_discard_pass_the_deal_to_the_first_after_the_discarder(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()
        expect(page.locator("#same-box")).to_be_hidden()  # nothing added yet
        page.locator("#winner").select_option("3")  # 北 wins on 南's discard; 东 deals
        page.locator("#discarder").select_option("1")
        expect(page.locator("#add-hand")).to_contain_text("北 +3")
        page.locator("#add-hand").click()
        expect(page.locator('.seat[data-seat="3"] .seat-dealer')).to_be_checked()
        page.locator("#winner").select_option("0")  # 东, who dealt this hand, won the same discard too
        expect(page.locator("#add-hand")).to_be_disabled()  # that photo is in the tally: the second winner's is new
        read_photo(page, "second.jpg")
        page.locator("#same-discard").check()
        expect(page.locator("#dealer")).to_be_checked()  # the hand's dealer, not the deal's next holder
        expect(page.locator("#add-hand")).to_contain_text("东 +6")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+6", "-9", "0", "+3"])
        expect(page.locator("#hands li").last).to_contain_text("(一炮多响)")
        # the first winner after the discarder 南 in play order: 西 no, 北 yes
        expect(page.locator('.seat[data-seat="3"] .seat-dealer')).to_be_checked()
        expect(page.locator("#same-discard")).not_to_be_checked()
        page.locator("#undo-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["0", "-3", "0", "+3"])
        expect(page.locator('.seat[data-seat="3"] .seat-dealer')).to_be_checked()


def test_a_false_claim_on_a_discard_leaves_the_other_winners_on_it_their_dealer_and_the_deal(server):
    """诈胡 between two winners on one discard (一炮多响): the next winner is still one on that discard, settled with
    the dealer who dealt it, and the deal goes to the first valid winner after the discarder, as the engine's round
    (score_round) settles them."""
    from playwright.sync_api import expect

    with uploaded(server) as page:
        expect(page.locator("#verdict")).to_contain_text("valid win")
        page.locator("#table-box summary").click()
        page.locator("#add-hand").click()  # 南 wins on 东's discard; 东 deals, and pays double: 南 deals next
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()
        read_photo(page, "claim.jpg")
        page.locator("#as_read").check()  # 西 claims that discard too, on no hand: 诈胡
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        page.locator("#winner").select_option("2")
        page.locator("#same-discard").check()
        expect(page.locator("#add-hand")).to_contain_text("西 -80")  # 东 dealt: 40 to 东, 20 to each other
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+34", "+26", "-80", "+20"])
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()  # the deal stays with 南
        read_photo(page, "third.jpg")
        page.locator("#as_read").uncheck()  # 北 wins on that discard too
        for index in (11, 12):  # on a pair of 9m: the two hands before hold four 5p (the page refuses a fifth)
            page.locator(f'.hit[data-index="{index}"]').click()
            page.locator(f'#faces button[data-cls="{Tile.M9.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("valid win")
        page.locator("#winner").select_option("3")
        page.locator("#same-discard").check()
        expect(page.locator("#same-why")).to_be_hidden()  # the tick taken, not refused
        expect(page.locator("#dealer")).not_to_be_checked()  # 东 dealt this hand, not 南
        expect(page.locator("#add-hand")).to_contain_text("北 +6")  # 东 dealt and discarded: doubled
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+28", "+26", "-80", "+26"])
        expect(page.locator("#hands li").last).to_contain_text("(一炮多响)")
        # the first valid winner after the discarder 东: 南 (西's claim was false), not 北
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()


def test_a_false_claim_first_on_a_discard_takes_no_deal_from_the_winner_after_it(server):
    from playwright.sync_api import expect

    with uploaded(server) as page:
        page.locator("#as_read").check()  # 南 claims 东's discard on no hand: 诈胡, 东 deals
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        page.locator("#table-box summary").click()
        expect(page.locator("#add-hand")).to_contain_text("南 -80")
        page.locator("#add-hand").click()
        expect(page.locator('.seat[data-seat="0"] .seat-dealer')).to_be_checked()  # the deal stays
        read_photo(page, "second.jpg")
        page.locator("#as_read").uncheck()  # 西 wins on that discard
        page.locator("#winner").select_option("2")
        page.locator("#same-discard").check()
        expect(page.locator("#add-hand")).to_contain_text("西 +6")  # 东 dealt and discarded: doubled
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+34", "-80", "+26", "+20"])
        expect(page.locator("#hands li").last).to_contain_text("(一炮多响)")
        # the first winner after 东 is 西: 南's claim was false, and wins no deal
        expect(page.locator('.seat[data-seat="2"] .seat-dealer')).to_be_checked()


def test_undoing_a_second_winner_on_a_discard_and_adding_it_again_settles_it_the_same(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        page.locator('.seat[data-seat="2"] .seat-dealer').check()  # 西 deals
        page.locator("#discarder").select_option("2")  # 南 wins on 西's discard: 西 pays double
        expect(page.locator("#add-hand")).to_contain_text("南 +6")
        page.locator("#add-hand").click()
        read_photo(page, "second.jpg")
        page.locator("#winner").select_option("0")  # 东 wins on 西's discard too
        page.locator("#same-discard").check()
        expect(page.locator("#add-hand")).to_contain_text("东 +6")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+6", "+6", "-12", "0"])
        expect(page.locator('.seat[data-seat="0"] .seat-dealer')).to_be_checked()  # after 西: 北 no, 东 yes
        page.locator("#undo-hand").click()  # the tally as it was before that hand, the tick too
        expect(page.locator("#seats .seat-total")).to_have_text(["0", "+6", "-6", "0"])
        expect(page.locator("#same-discard")).to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("东 +6")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+6", "+6", "-12", "0"])
        expect(page.locator("#hands li").last).to_contain_text("(一炮多响)")
        expect(page.locator('.seat[data-seat="0"] .seat-dealer')).to_be_checked()


def test_another_winner_ticked_on_another_discard_is_refused_and_said_why(server_ok):
    """一炮多响 ticked, but the discarder is not the last hand's, or the winner is in the tally on it already: not
    added, as a hand of its own or otherwise, until the seats or the tick are put right; the page says why."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        page.locator("#add-hand").click()  # 南 wins on 东's discard
        read_photo(page, "second.jpg")
        page.locator("#winner").select_option("3")
        page.locator("#discarder").select_option("2")  # 北 on 西's discard, ticked as another winner on 东's
        page.locator("#same-discard").check()
        expect(page.locator("#add-hand")).to_contain_text("一炮多响不符")  # (scored: not off for a score on its way)
        expect(page.locator("#add-hand")).to_be_disabled()
        why = page.locator("#same-why")
        expect(why).to_be_visible()
        expect(why).to_have_text("一炮多响：上一手是东放的炮，这一手的放炮者却是西：请改放炮者，或取消勾选 "
                                 "Another winner on the last hand's discard: the last hand was won on 东's discard, "
                                 "but the discarder here is 西: choose the same discarder, or untick it")
        page.locator("#lang").select_option("en")
        expect(why).to_have_text("Another winner on the last hand's discard: the last hand was won on East's discard, "
                                 "but the discarder here is West: choose the same discarder, or untick it")
        expect(page.locator("#add-hand")).to_have_text("Add this hand — not on the last hand's discard: see above")
        page.locator("#lang").select_option("both")
        page.locator("#discarder").select_option("0")  # put right: 北 on 东's discard, 东 dealt it
        expect(why).to_be_hidden()
        expect(page.locator("#add-hand")).to_contain_text("北 +6")
        page.locator("#winner").select_option("1")  # 南 is in the tally on that discard already
        expect(why).to_contain_text("南在这一炮上已经记过了")
        expect(page.locator("#add-hand")).to_contain_text("一炮多响不符")
        page.locator("#same-discard").uncheck()  # a hand of its own: 南 on 东's discard again, 南 deals
        expect(why).to_be_hidden()
        expect(page.locator("#add-hand")).to_contain_text("南 +6")


def test_another_winner_on_a_discard_won_on_another_tile_is_refused(server_ok):
    """The engine refuses a round whose claims on one discard are on two tiles: so does the page."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        page.locator("#add-hand").click()  # 南 wins on 东's discard, on 3s
        read_photo(page, "second.jpg")
        for index, tile in ((9, Tile.S4), (10, Tile.S5), (13, Tile.S6)):  # 45s waiting, won on 6s
            page.locator(f'.hit[data-index="{index}"]').click()
            page.locator(f'#faces button[data-cls="{tile.index}"]').click()
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        page.locator("#winner").select_option("3")
        page.locator("#discarder").select_option("0")
        page.locator("#same-discard").check()  # 北 on 东's discard too: on 6s, when 南 won it on 3s
        expect(page.locator("#add-hand")).to_contain_text("一炮多响不符")  # (scored: not off for a score on its way)
        expect(page.locator("#add-hand")).to_be_disabled()
        expect(page.locator("#same-why")).to_have_text(
            "一炮多响：上一手胡的是三条，这一手胡的是六条，一炮只有一张牌：请改正牌，或取消勾选 Another winner on the last "
            "hand's discard: the last hand won on 3s, this one on 6s, and one discard is one tile: correct the tiles, "
            "or untick it")
        page.locator('.hit[data-index="13"]').click()  # won on 3s after all (45s waits on 3s and 6s)
        page.locator(f'#faces button[data-cls="{Tile.S3.index}"]').click()
        expect(page.locator("#same-why")).to_be_hidden()
        expect(page.locator("#add-hand")).to_contain_text("北 +4")  # 东 dealt it and discarded: 2 炮 ×2


def _events_fold(page):
    page.locator("#events").locator("xpath=..").locator("summary").click()


def _second_winner_on_east(page) -> None:
    """The next photo read, and ticked as 北's win on 东's discard, another winner on the last hand's."""
    read_photo(page, "second.jpg")
    page.locator("#winner").select_option("3")
    page.locator("#discarder").select_option("0")
    page.locator("#same-discard").check()


def test_another_winner_on_a_discard_robbed_or_not_as_the_last_is_refused(server_ok):
    """The engine refuses a round whose claims on one discard disagree on 抢杠 (杠上流泪, 海底放炮): one discard came
    one way for every winner on it. So does the page: said why in both languages; alike, it is added."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        _events_fold(page)
        page.locator("#ev-robbing_kong").check()  # 南 robs 东's kong
        expect(page.locator("#add-hand")).to_contain_text("南 +26")
        page.locator("#add-hand").click()
        _second_winner_on_east(page)
        page.locator("#ev-robbing_kong").uncheck()  # 北 on that discard too, but not robbing it
        expect(page.locator("#add-hand")).to_contain_text("一炮多响不符")  # (scored: not off for a score on its way)
        expect(page.locator("#add-hand")).to_be_disabled()
        why = page.locator("#same-why")
        expect(why).to_have_text(
            "一炮多响：这一炮上的上一手记的是抢杠，这一手是无；抢杠、杠上流泪、海底放炮同一炮每家都一样：请改加炮事件，或取消勾选 "
            "Another winner on the last hand's discard: the last hand on it said robbing the kong, this one none of "
            "them, and one discard is the same for every winner on it (robbing the kong, win on the discard after a "
            "kong, last tile discarded): set the events alike, or untick it")
        page.locator("#lang").select_option("en")
        expect(why).to_contain_text("the last hand on it said robbing the kong, this one none of them")
        expect(why).not_to_contain_text("抢杠")
        page.locator("#lang").select_option("both")
        page.locator("#ev-hai_di_pao").check()  # another of them is no better
        expect(why).to_contain_text("这一手是海底放炮")
        page.locator("#ev-hai_di_pao").uncheck()
        page.locator("#ev-robbing_kong").check()  # put right: 北 robs that kong too
        expect(why).to_be_hidden()
        expect(page.locator("#add-hand")).to_contain_text("北 +26")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-52", "+26", "0", "+26"])
        expect(page.locator("#hands li").last).to_contain_text("(一炮多响)")


def test_another_winner_on_a_discard_added_by_an_older_page_is_not_refused_by_what_it_did_not_keep(server_ok):
    """A hand an older page added kept no events (nor tile, payer, tiles): a claim after it on its discard is not
    refused for what that hand never said."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        _events_fold(page)
        page.locator("#ev-robbing_kong").check()
        page.locator("#add-hand").click()  # 南 robs 东's kong: +26
        _second_winner_on_east(page)
        page.locator("#ev-robbing_kong").uncheck()  # 北 on that discard, not robbing it: refused, as 南's hand says
        expect(page.locator("#same-why")).to_contain_text("这一炮上的上一手记的是抢杠")
        page.evaluate("""() => {
            const kept = JSON.parse(localStorage.getItem("xingzi.table.v1"));
            for (const key of ["tile", "events", "shown", "held", "fa"]) delete kept.hands[0][key];
            localStorage.setItem("xingzi.table.v1", JSON.stringify(kept));
        }""")
        page.reload()  # the same photo, seats and ticks, 南's hand as an older page kept it
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#seats .seat-total")).to_have_text(["-26", "+26", "0", "0"])
        expect(page.locator("#same-discard")).to_be_checked()
        expect(page.locator("#ev-robbing_kong")).not_to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("北 +6")
        expect(page.locator("#same-why")).to_be_hidden()
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-32", "+26", "0", "+6"])


def test_another_winner_shown_other_things_by_the_discarder_or_a_fifth_copy_is_refused(server_ok):
    """The engine refuses a round whose discarder shows its winners different 发 or melds, or whose winners' tiles
    hold a fifth copy of a tile: so does the page."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        page.locator("#payers-box summary").click()
        page.locator('#payers [data-key="fa"]').select_option("1")  # 东 shows one 发: 南 eats it
        page.locator('#payers [data-key="kongs"]').select_option("1")  # and a suit kong
        expect(page.locator("#add-hand")).to_contain_text("南 +10")
        page.locator("#add-hand").click()
        _second_winner_on_east(page)
        page.locator('#payers [data-key="fa"]').select_option("0")
        why = page.locator("#same-why")
        expect(why).to_have_text(
            "一炮多响：放炮者给这一炮上的上一手亮的是发 1、明杠 1，给这一手的是明杠 1；放炮者给每家看的是同样的牌：请改“吃炮”里的放炮者，"
            "或取消勾选 Another winner on the last hand's discard: the discarder showed the last hand on it 1 fa, "
            "1 suit kong, this one 1 suit kong, and shows every winner the same: set the discarder's row of what the "
            "payers show alike, or untick it")
        expect(page.locator("#add-hand")).to_be_disabled()
        page.locator('#payers [data-key="fa"]').select_option("1")  # put right
        expect(why).to_be_hidden()
        expect(page.locator("#add-hand")).to_contain_text("北 +10")
        for index in (0, 1, 2):  # 北's 123m read as 777p: with 789p four 7p, and 南's hand holds a fifth
            page.locator(f'.hit[data-index="{index}"]').click()
            page.locator(f'#faces button[data-cls="{Tile.P7.index}"]').click()
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(why).to_have_text(
            "一炮多响：这一炮的几手牌（连放炮者亮的牌）共有 5 张七筒，一副牌每种只有 4 张：请改正牌，或取消勾选 Another winner on the "
            "last hand's discard: the hands on that discard (with what the discarder shows) hold 5 of 7p, and a set "
            "has 4 of each: correct the tiles, or untick it")
        expect(page.locator("#add-hand")).to_be_disabled()
        # 发 beyond four in front of the winners and the discarder, as the tally counts them (no photo here has 发)
        refused = page.evaluate("""() => words(situationRefused(
            [{tile: "3s", events: [], shown: {fa: 1, melds: []}, held: {}, fa: 2}],
            {tile: "3s", events: [], shown: {fa: 1, melds: []}, held: {}, fa: 2}))""")
        assert refused == ("一炮多响：这一炮的赢家和放炮者面前共有 5 张发，一副牌只有 4 张：请改正发的张数，或取消勾选 Another winner "
                           "on the last hand's discard: 5 fa in front of the winners on that discard and its "
                           "discarder, and a set has 4: correct the fa, or untick it")


def test_a_damaged_tally_in_the_browser_starts_afresh(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.evaluate("""localStorage.setItem("xingzi.table.v1", JSON.stringify({names: ["a", "b", "c", "d"],
            totals: [1, 2, 3, -6], dealer: 0, winner: 1, discarder: 0, hands: [{deltas: "oops", dealer: 0}]}))""")
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#table-box summary").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["0", "0", "0", "0"])
        expect(page.locator("#winner option")).to_have_text(["东", "南", "西", "北"])
        page.evaluate('localStorage.setItem("xingzi.table.v1", "{not json")')
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)  # the page still starts


def test_a_name_being_typed_is_not_overwritten_by_a_score_coming_back(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()
        name = page.locator('.seat[data-seat="3"] .seat-name')
        name.fill("Bo")  # typed, not yet committed (no change event)
        page.evaluate("rescore()")  # a score comes back meanwhile and the table is shown again
        expect(name).to_have_value("Bo")
        name.press("Enter")
        expect(page.locator("#winner option").last).to_have_text("Bo")


def test_a_drawn_hand_is_written_down_and_the_tally_copied_as_text(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#table-box summary").click()
        page.locator("#add-hand").click()  # 南 wins on 东's discard (东 deals): 南 deals next
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        page.locator("#drawn-hand").click()  # 黄庄: nothing moves, 南 deals again
        expect(page.locator("#hands li").last).to_have_text("2. 黄庄 南 连庄 keeps the deal")
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()
        expect(page.locator("#tally-text")).to_be_hidden()
        page.locator("#copy-tally").click()
        box = page.locator("#tally-text")
        expect(box).to_be_visible()
        text = box.input_value()
        lines = text.split("\n")
        assert lines[0].startswith("星子麻将记分 Xingzi tally, ") and lines[0].endswith(", 2 hand(s)")
        assert lines[1:] == ["规则 rules: default (003 text)", "东 -6 · 南 +6 (庄 dealer) · 西 0 · 北 0",
                             "1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, 西 0, 北 0", "2. 黄庄 南 连庄 keeps the deal"]
        expect(page.locator("#status")).to_contain_text(re.compile("已复制|请选中复制"))  # clipboard or not, the user is told
        page.locator("#undo-hand").click()  # the copy shown follows the tally
        expect(box).not_to_contain_text("黄庄")
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()


def test_what_the_discarder_shows_stays_theirs_when_the_win_becomes_a_self_draw(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()  # 南 wins, 东 discarded (and deals)
        page.locator("#payers-box summary").click()
        page.locator('#payers [data-key="fa"]').select_option("1")
        expect(page.locator("#payments li")).to_have_text(["东付 pays 8 (含吃 1 炮 eaten, 4 炮 ×2 庄家 dealer)"])
        page.locator("#self_draw").check()  # the rows are now 西, 北, 东 (南's 下家, 对家, 上家)
        fa = page.locator('#payers [data-key="fa"]')
        expect(fa).to_have_count(3)
        assert [fa.nth(k).input_value() for k in range(3)] == ["0", "0", "1"]
        page.locator("#self_draw").uncheck()
        expect(page.locator('#payers [data-key="fa"]')).to_have_value("1")


def test_the_tally_copied_is_dated_by_the_tables_clock_not_utc(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok, timezone="Asia/Shanghai") as page:
        page.clock.set_fixed_time("2026-12-05T23:30:00Z")  # 07:30 on the 6th in Jiangxi
        page.locator("#table-box summary").click()
        page.locator("#copy-tally").click()
        expect(page.locator("#tally-text")).to_have_value(re.compile("^星子麻将记分 Xingzi tally, 2026-12-06, 0 hand"))


def test_the_tables_rules_changed_on_the_page_and_kept(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#rules-name")).to_have_text("default (003 text)")
        page.locator("#events").locator("xpath=..").locator("summary").click()
        page.locator("#ev-hai_di_pao").check()  # an optional addition: these rules do not count it, and say so
        expect(page.locator("#total")).to_have_text("3")
        assert page.evaluate("getComputedStyle(document.getElementById('ev-hai_di_pao').parentElement, '::after')"
                             ".content").find("not counted") >= 0
        page.locator("#rules-box > summary").click()
        page.locator("#rule-opt-hai_di_pao").check()  # this table counts it
        expect(page.locator("#total")).to_have_text("8")
        expect(page.locator("#rules-name")).to_contain_text("1 changed on this page")
        assert page.locator("#ev-hai_di_pao").evaluate("e => e.parentElement.hasAttribute('data-off')") is False
        page.locator("#rule-hai_di_pao").select_option(label="从10起 counts from 10")
        expect(page.locator("#total")).to_have_text("12")
        page.reload()  # kept in this browser: a new photo is scored by them from the start
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#events").locator("xpath=..").locator("summary").click()
        page.locator("#ev-hai_di_pao").check()
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("12")
        page.locator("#rules-box > summary").click()
        page.locator("#rules-reset").click()  # back to the server's rules
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#rules-name")).to_have_text("default (003 text)")
        expect(page.locator("#rules-reset")).to_be_disabled()


def test_damaged_saved_rules_leave_the_servers_rules(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.evaluate("""localStorage.setItem("xingzi.rules.v1", JSON.stringify({four_fa: 5, optional: "all",
            qing_yi_se: 99, hai_di_pao: "start_at_10"}))""")
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        # only the one change the page offers survives; the rest are not sent
        expect(page.locator("#rules-name")).to_have_text("default (003 text) · 本页改了 1 项 1 changed on this page")
        assert page.evaluate("JSON.stringify(rulesOverrides())") == '{"hai_di_pao":"start_at_10"}'
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate('localStorage.setItem("xingzi.rules.v1", "[1, 2")')
        page.reload()
        expect(page.locator("#rules-name")).to_have_text("default (003 text)")


def test_the_pao_table_follows_the_rules_chosen_on_the_page(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.locator("#rules-box > summary").click()
        page.locator("#pao-box summary").click()
        expect(page.locator("#pao-table tr")).to_have_count(34)
        expect(page.locator('#pao-table tr[data-key="qing_yi_se"] td').last).to_have_text("15")
        expect(page.locator('#pao-table tr[data-key="fa"] td').last).to_have_text("1 each, four = 10")
        expect(page.locator('#pao-table tr[data-key="tong_ku"]')).to_have_class("off")
        expect(page.locator('#settle-table tr[data-key="min_own"]')).to_contain_text("两炮起胡")
        expect(page.locator('#settle-table tr[data-key="min_own"] td').last).to_have_text("至少 2 炮 at least 2 pao")
        expect(page.locator('#settle-table tr[data-key="false_win_penalty"] td').last).to_contain_text("20")
        page.locator("#rule-four_fa").select_option(label="4+10 = 14")
        expect(page.locator('#pao-table tr[data-key="fa"] td').last).to_have_text("1 each, four = 4+10")
        page.locator("#rule-opt-tong_ku").check()
        expect(page.locator('#pao-table tr[data-key="tong_ku"]')).not_to_have_class("off")
        expect(page.locator('#pao-table tr[data-key="tong_ku"] td').last).to_have_text("5")


def test_an_answer_overtaken_by_a_later_one_is_not_shown(server_ok):
    """Two rescores in flight whose answers come back out of order: the page shows the later request's score."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        held = []

        def hold_the_first(route):
            if held:
                route.continue_()
            else:  # the first rescore waits here until the second has been answered and shown
                held.append(route)

        page.route("**/api/rescore", hold_the_first)
        page.locator("#self_draw").check()  # 自摸: 4 炮, asked first
        expect(page.locator("#status")).to_contain_text("Scoring")
        page.locator("#self_draw").uncheck()  # back to a discard: 3 炮, asked last, answered first
        expect(page.locator("#status")).to_have_text("")
        assert len(held) == 1
        with page.expect_response("**/api/rescore"):
            held[0].continue_()  # the 自摸 answer comes last
        page.wait_for_function("state.pending === 0")  # that answer handled (and, were it shown, drawn)
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#payments li")).to_have_count(1)


def test_the_tiles_read_are_listed_in_chinese_and_a_tap_on_one_corrects_it(server):
    from playwright.sync_api import expect

    with uploaded(server) as page:
        strip = page.locator("#strip")
        expect(strip.locator(".chip")).to_have_count(14)  # every tile found, big enough to read on a phone
        expect(strip.locator(".group-name")).to_have_text(["手牌hand", "胡won"])
        expect(strip.locator('.chip[data-index="13"]')).to_have_text("三条")  # the 3s set apart: the winning tile
        # the 2s read as 3s: scored as the likeliest legal hand's 2s, and the chip says so
        misread = strip.locator('.chip[data-index="10"]')
        expect(misread).to_have_class(re.compile(r"\bscored-as\b"))
        expect(misread).to_have_text("二条")
        expect(misread).to_have_attribute("title", re.compile(r"^三条 .* · 算作 scored as 二条$"))
        page.locator("#as_read").check()  # exactly as read: the chip shows what was read
        expect(misread).to_have_text("三条")
        expect(misread).not_to_have_class(re.compile(r"\bscored-as\b"))
        misread.click()  # a chip opens its tile's picker, as the tile on the photo does
        expect(page.locator("#picker-current")).to_have_text("三条")
        page.locator(f'#faces button[data-cls="{Tile.S2.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(misread).to_have_text("二条")
        expect(misread).to_have_class(re.compile(r"\bfixed\b"))  # set by hand: marked 改
        expect(misread).to_have_attribute("title", re.compile(r"^二条 改 set by hand$"))


def test_a_tile_left_out_is_listed_apart_and_named_back_in_from_the_list(server_foreign):
    from playwright.sync_api import expect

    with uploaded(server_foreign) as page:
        strip = page.locator("#strip")
        expect(strip.locator(".group-name")).to_have_text(["手牌hand", "胡won", "不计not counted"])
        wind = strip.locator('.chip[data-index="14"]')
        expect(wind).to_have_class(re.compile(r"\bleft-out\b"))
        wind.click()
        expect(page.locator("#picker-current")).to_have_text("非星子牌？(发财)")
        page.locator(f'#faces button[data-cls="{Tile.FA.index}"]').click()
        expect(page.locator("#total")).to_have_text("4")
        expect(strip.locator(".group-name")).to_have_text(["手牌hand", "胡won", "发bonus"])
        expect(wind).not_to_have_class(re.compile(r"\bleft-out\b"))


def test_a_box_the_score_leaves_out_is_listed_struck_through_with_its_face(server_extra_box):
    from playwright.sync_api import expect

    with uploaded(server_extra_box) as page:
        expect(page.locator("#total")).to_have_text("3")  # scored as the hand without the faint 9m
        dropped = page.locator('#strip .chip[data-index="14"]')
        expect(dropped).to_have_class(re.compile(r"\bdropped\b"))
        expect(dropped).to_have_text("九万")  # the face read, not a blank
        expect(dropped).to_have_attribute("title", re.compile(r"^九万 0\.30 · 算作不是牌 scored as no tile$"))


def test_an_event_switched_on_that_the_score_leaves_out_is_listed_with_why(server_ok):
    """伤心痛苦 switched on (and counted by the table's rules) on a hand won on an edge: the total stays, and the
    items say it is not counted and why, as the engine does (events_not_counted), not nothing at all."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#events").locator("xpath=..").locator("summary").click()
        page.locator("#ev-shang_xin").check()
        expect(page.locator("#items")).to_contain_text("伤心痛苦")
        expect(page.locator("#items")).to_contain_text("可选项，现用规则没有开")  # off under the server's rules
        page.locator("#rules-box > summary").click()
        page.locator("#rule-opt-shang_xin").check()  # counted by this table: now the wait is why
        expect(page.locator("#items")).to_contain_text("三条胡成边张，听三条")
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#ev-shang_xin").uncheck()
        expect(page.locator("#items")).not_to_contain_text("伤心痛苦")
