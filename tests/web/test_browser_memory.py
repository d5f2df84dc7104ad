"""The page in headless Chromium, reloaded (a phone does it to a tab it swapped out): the photo, its score and the
user's taps come back, kept in this browser; read again from the browser's copy when the server no longer holds
the photo; replaced by a new photo; a kept hand that no longer loads is dropped, the page as on a first visit."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from browser import opened, read_photo, serve_with, uploaded
from web_helpers import HEIGHT, WIDTH, FakeDetector, jpeg_bytes, layout_detections, missed_tile_detections

from xingzi.engine.tiles import Tile

MISSED, MISSED_BOX = missed_tile_detections()
HAND_KEY = "xingzi.hand.v1"


@pytest.fixture(scope="module")
def server_counting():
    """The hand with its 2s read as 3s, and the detector (it counts the photos it was given)."""
    detector = FakeDetector(layout_detections(misread_2s_as_3s=True))
    for url in serve_with(detector):
        yield url, detector


@pytest.fixture(scope="module")
def server_missed_counting():
    detector = FakeDetector(MISSED)
    for url in serve_with(detector):
        yield url, detector


def _reload(page) -> None:
    page.reload()
    from playwright.sync_api import expect

    expect(page.locator("#faces button")).to_have_count(31)


def _read(url: str) -> str:
    """A photo sent straight to the server (as another phone would): the token it holds it under."""
    request = urllib.request.Request(url + "/api/read", data=jpeg_bytes(), method="POST",
                                     headers={"Content-Type": "image/jpeg"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["token"]


def _crowd_out(url: str) -> None:
    """The server holds the last 16 photos: after 16 more, not the page's."""
    for _ in range(16):
        _read(url)


def _dropped(page) -> None:
    """The kept hand dropped (and not tried again): no score, no error, the ticks as on a first visit."""
    from playwright.sync_api import expect

    page.wait_for_function(f"localStorage.getItem('{HAND_KEY}') === null")
    expect(page.locator("#result")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("")
    for tick in ("#self_draw", "#dealer", "#as_read"):
        expect(page.locator(tick)).not_to_be_checked()


def _photo_kept(page) -> None:
    """Until the browser's copy of the photo shown is written (IndexedDB writes come after the read); a page that
    keeps none goes on at once (and fails on what a reload shows)."""
    page.wait_for_function("async () => typeof photoStore !== 'function'"
                           " || ((await photoStore('readonly', (s) => s.get('last'))) || {}).id === kept.photo")


def test_a_reload_shows_the_same_photo_score_and_taps_without_reading_the_photo_again(server_counting):
    from playwright.sync_api import expect

    url, detector = server_counting
    with uploaded(url) as page:
        expect(page.locator("#verdict")).to_contain_text("valid win")
        page.locator('#strip .chip[data-index="10"]').click()  # the 3s, said to be a 2s
        page.locator(f'#faces button[data-cls="{Tile.S2.index}"]').click()
        expect(page.locator('#strip .chip[data-index="10"]')).to_have_class(re.compile(r"\bfixed\b"))
        page.locator("#self_draw").check()
        page.locator("#dealer").check()
        page.locator("#payers-box summary").click()
        page.locator('#payers .payer[data-payer="1"] select[data-key="fa"]').select_option("1")
        expect(page.locator("#payments li")).to_have_text([
            "下家付 next player pays 8 (4 炮 ×2 庄家 dealer)", "对家付 opposite pays 10 (含吃 1 炮 eaten, 5 炮 ×2 庄家 dealer)",
            "上家付 previous player pays 8 (4 炮 ×2 庄家 dealer)"])
        photo = page.locator("#annotated").get_attribute("src")
        read = detector.calls

        _reload(page)
        expect(page.locator("#total")).to_have_text("4")
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator("#payments li")).to_have_text([
            "下家付 next player pays 8 (4 炮 ×2 庄家 dealer)", "对家付 opposite pays 10 (含吃 1 炮 eaten, 5 炮 ×2 庄家 dealer)",
            "上家付 previous player pays 8 (4 炮 ×2 庄家 dealer)"])
        expect(page.locator("#annotated")).to_be_visible()
        assert page.locator("#annotated").get_attribute("src") == photo  # the same annotated photo
        corrected = page.locator('#strip .chip[data-index="10"]')
        expect(corrected).to_have_class(re.compile(r"\bfixed\b"))  # the user's correction, still theirs
        expect(corrected).to_have_text("二条")
        expect(page.locator("#self_draw")).to_be_checked()
        expect(page.locator("#dealer")).to_be_checked()
        expect(page.locator('#payers .payer[data-payer="1"] select[data-key="fa"]')).to_have_value("1")
        expect(page.locator("#payers-set")).to_have_text("：已设 1 家")
        expect(page.locator("#status")).to_have_text("")
        assert detector.calls == read  # the server still held the photo: not read again

        page.locator("#dealer").uncheck()  # taps after the reload score as before it
        expect(page.locator("#payments li")).to_have_text(["下家付 next player pays 4",
                                                           "对家付 opposite pays 5 (含吃 1 炮 eaten)",
                                                           "上家付 previous player pays 4"])


def test_a_photo_the_server_no_longer_holds_is_read_again_from_the_browsers_copy(server_missed_counting):
    from playwright.sync_api import expect

    url, detector = server_missed_counting
    with uploaded(url) as page:
        expect(page.locator("#verdict")).to_contain_text("valid win")  # scored with a 5m it did not find
        page.locator("#as_read").check()  # as read: 13 tiles, no hand, until the missed 5m is added
        expect(page.locator("#verdict")).to_contain_text("not scored")
        layer = page.locator("#hits").bounding_box()
        cx, cy = float(MISSED_BOX[0] + MISSED_BOX[2]) / 2, float(MISSED_BOX[1] + MISSED_BOX[3]) / 2
        page.locator("#hits").click(position={"x": cx / WIDTH * layer["width"], "y": cy / HEIGHT * layer["height"]})
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()
        expect(page.locator("#total")).to_have_text("3")
        _photo_kept(page)
        _crowd_out(url)
        read = detector.calls

        _reload(page)
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator(".hit")).to_have_count(14)  # the tile the user added, added again
        expect(page.locator("#notation")).to_have_text("123456m55789p12s 3s")
        expect(page.locator("#as_read")).to_be_checked()
        expect(page.locator("#status")).to_have_text("")
        assert detector.calls == read + 1  # read again, once, from the photo this browser kept

        # the server's detector changed: the photo read again finds other tiles, where the taps would not fit
        detector.detections = layout_detections()
        try:
            _crowd_out(url)
            _reload(page)
            _dropped(page)  # without a word
        finally:
            detector.detections = MISSED


def test_a_new_photo_replaces_the_kept_one(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator('.hit[data-index="3"]').click()
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()  # 4m → 5m: no hand
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        page.set_input_files("#photo", files=[{"name": "next.jpg", "mimeType": "image/jpeg",
                                               "buffer": jpeg_bytes(WIDTH - 40, HEIGHT)}])
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        photo = page.locator("#annotated").get_attribute("src")
        _reload(page)
        expect(page.locator("#total")).to_have_text("3")  # the new photo as read, not the last one's taps
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator('#strip .chip[data-index="3"]')).not_to_have_class(re.compile(r"\bfixed\b"))
        assert page.locator("#annotated").get_attribute("src") == photo


def _hand(**changes) -> str:
    hand = {"v": 1, "token": "never-given", "photo": None, "tiles": "", "name": "hand.jpg", "corrections": {},
            "added": [], "ignored": [], "removed": [], "claimed": [], "released": [], "win": None, "bloom": None,
            "self_draw": True, "dealer": False, "as_read": False, "events": [], "payers": [], "tallied": False}
    return json.dumps({**hand, **changes})


@pytest.mark.parametrize("kept", [
    pytest.param("{not json", id="not-json"),
    pytest.param(json.dumps({"v": 0, "token": 5}), id="another-format"),
    pytest.param(_hand(), id="a-photo-the-server-never-had-and-no-copy"),
])
def test_a_kept_hand_that_no_longer_loads_is_dropped_quietly(server_ok, kept):
    from playwright.sync_api import expect

    held = _read(server_ok)  # a photo the server does hold
    with opened(server_ok) as page:  # no photo yet: nothing of this page's own is kept as it reloads
        page.evaluate("([key, value]) => localStorage.setItem(key, value)", [HAND_KEY, kept.replace("HELD", held)])
        _reload(page)
        _dropped(page)
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")  # the page works


def test_a_refused_winning_tile_is_not_kept_and_a_reload_shows_the_last_score_the_server_gave(server_kong_down):
    """"This is the winning tile" on a face-down tile of a concealed kong is refused: the mark is taken back, and not
    kept for a reload. Kept, it was sent on after each tick (refused again), and a reload dropped the photo, its
    score and the ticks without a word."""
    from playwright.sync_api import expect

    with uploaded(server_kong_down) as page:
        page.locator("#self_draw").check()
        expect(page.locator("#total")).to_have_text("5")
        page.locator('#strip .chip[data-index="8"]').click()  # 背: a face-down tile of the 中 kong
        page.locator("#mark-win").click()
        expect(page.locator("#status")).to_contain_text("only a tile standing in the hand can be the winning tile")
        # taken back, the score shown is the one for the page's taps again: current, not greyed as out of date
        expect(page.locator("#result")).not_to_have_class(re.compile(r"\bstale\b"))
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator("#status")).to_contain_text("only a tile standing in the hand can be the winning tile")
        page.locator("#dealer").check()  # the next tick is scored: the refused mark is not sent again
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator("#result")).not_to_have_class(re.compile(r"\bstale\b"))
        page.locator("#dealer").uncheck()
        page.locator('#strip .chip[data-index="8"]').click()
        page.locator("#mark-win").click()  # refused again, and left so: a reload comes next
        expect(page.locator("#status")).to_contain_text("only a tile standing in the hand can be the winning tile")
        _photo_kept(page)

        _reload(page)
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#total")).to_have_text("5")  # the last score the server gave
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator("#self_draw")).to_be_checked()
        expect(page.locator("#status")).to_have_text("")


def test_a_tap_the_server_refused_and_left_on_the_page_is_not_kept_for_a_reload(server_ok):
    """A face picked whose rescore is refused stays on the page, greyed (the user may change it back); what is kept
    for a reload is what the server last scored, not the refused tap."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        _photo_kept(page)
        page.route("**/api/rescore", lambda route: route.fulfill(
            status=400, content_type="application/json", body='{"error": "refused for this test"}'))
        page.locator('.hit[data-index="3"]').click()
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()  # 4m → 5m: no hand, had it been scored
        expect(page.locator("#verdict")).to_contain_text("refused for this test")
        page.unroute("**/api/rescore")
        _reload(page)
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(page.locator('#strip .chip[data-index="3"]')).not_to_have_class(re.compile(r"\bfixed\b"))
        expect(page.locator("#status")).to_have_text("")


def test_a_kept_hand_whose_taps_the_server_refuses_comes_back_as_read_saying_so(server_ok):
    """Taps kept that the server refuses now (kept by an older page, or a server of other rules): the photo comes
    back as read, its ticks kept, and the page says the taps were not brought back; it is not dropped unsaid."""
    from playwright.sync_api import expect

    held = _read(server_ok)  # a photo the server does hold
    with opened(server_ok) as page:
        kept = _hand(token=held, corrections={"3": 99}, win=2)  # there is no face 99
        page.evaluate("([key, value]) => localStorage.setItem(key, value)", [HAND_KEY, kept])
        _reload(page)
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#total")).to_have_text("4")  # as read, on the self-draw kept
        expect(page.locator("#self_draw")).to_be_checked()
        expect(page.locator("#status")).to_contain_text("上一张照片已恢复，但对它的改动没能恢复")
        expect(page.locator("#status")).to_contain_text("The last photo is back, but your changes to it are not")
        expect(page.locator('#strip .chip[data-index="3"]')).not_to_have_class(re.compile(r"\bfixed\b"))
        _reload(page)  # what is kept now is what is shown
        expect(page.locator("#total")).to_have_text("4")
        expect(page.locator("#status")).to_have_text("")
        page.route("**/api/rescore", lambda route: route.fulfill(
            status=400, content_type="application/json", body='{"error": "refused for this test"}'))
        _reload(page)  # refused even as read: dropped, but said
        expect(page.locator("#status")).to_contain_text("上一张照片没能恢复（服务器不接受）")
        expect(page.locator("#status")).to_contain_text("The last photo could not be brought back (the server "
                                                        "refused it):")
        expect(page.locator("#status")).to_contain_text("refused for this test")
        expect(page.locator("#result")).to_be_hidden()


def test_a_kept_payer_showing_more_melds_than_a_player_can_is_brought_back_within_the_menus(server_ok):
    """Six melds for one payer, kept by a page whose menus offered them: brought back as the menus offer (the
    fifth and sixth left out), not refused and the photo greyed."""
    from playwright.sync_api import expect

    held = _read(server_ok)
    six = {"dealer": False, "fa": 1, "kongs": 4, "concealed_kongs": 2, "zhong": "", "bai": ""}
    with opened(server_ok) as page:
        page.evaluate("([key, value]) => localStorage.setItem(key, value)",
                      [HAND_KEY, _hand(token=held, self_draw=False, payers=[six])])
        _reload(page)
        discarder = page.locator('#payers .payer[data-payer="0"]')
        expect(discarder.locator('select[data-key="kongs"]')).to_have_value("4")
        expect(discarder.locator('select[data-key="concealed_kongs"]')).to_have_value("0")
        expect(page.locator("#payments li")).to_have_text(["放炮者付 the discarder pays 8 (含吃 5 炮 eaten)"])
        expect(page.locator("#result")).not_to_have_class(re.compile(r"\bstale\b"))


def test_a_hand_scored_with_the_tally_open_comes_back_settled_between_its_seats(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()  # open: 东 deals, 南 wins on 东's discard
        expect(page.locator("#payments li")).to_have_text(["东付 pays 6 (3 炮 ×2 庄家 dealer)"])
        _photo_kept(page)
        _reload(page)
        expect(page.locator("#table-box")).to_have_attribute("open", "")  # left open: open again
        expect(page.locator("#payments li")).to_have_text(["东付 pays 6 (3 炮 ×2 庄家 dealer)"])
        expect(page.locator("#add-hand")).to_contain_text("南 +6")
        page.locator("#table-box summary").click()  # closed: the page's own ticks settle it, and stay so
        closed = ["放炮者付 the discarder pays 6 (3 炮 ×2 庄家 dealer)"]  # (the payer's dealer tick left as the tally set it)
        expect(page.locator("#payments li")).to_have_text(closed)
        expect(page.locator("#dealer-by-tally")).to_be_hidden()
        _reload(page)
        expect(page.locator("#table-box")).not_to_have_attribute("open", "")
        expect(page.locator("#dealer-by-tally")).to_be_hidden()
        expect(page.locator("#payments li")).to_have_text(closed)


def test_a_hand_added_to_the_tally_stays_added_through_a_rescore_and_a_reload(server_ok):
    """Added once, whatever comes after: a rescore (the tally closed and opened, a toggle back and forth) gave the
    score a new object, and the photo could be added again, doubled for the next dealer."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        page.locator("#add-hand").click()  # 南 wins on 东's discard: 南 +6, 南 deals next
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        page.locator("#table-box summary").click()  # closed and opened: the score is settled again
        page.locator("#table-box summary").click()
        page.locator("#as_read").check()
        page.locator("#as_read").uncheck()
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#add-hand")).to_be_disabled()
        expect(page.locator("#add-hand")).to_contain_text("已记入 added")
        _photo_kept(page)
        _reload(page)
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#add-hand")).to_be_disabled()
        page.locator("#undo-hand").click()  # taken back: this photo may be added again
        expect(page.locator("#add-hand")).to_be_enabled()
        expect(page.locator("#seats .seat-total")).to_have_text(["0", "0", "0", "0"])


def test_a_second_winner_on_one_discard_is_still_one_after_a_reload(server_ok):
    """The 一炮多响 tick is kept with the tally: lost on a reload, the second winner was settled with the next
    hand's dealer and took the deal (RULES.md §8)."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#table-box summary").click()
        page.locator("#winner").select_option("3")  # 北 wins on 南's discard; 东 deals
        page.locator("#discarder").select_option("1")
        page.locator("#add-hand").click()  # 北 deals next
        read_photo(page, "second.jpg")  # 东, who dealt that hand, won the same discard too
        page.locator("#winner").select_option("0")
        page.locator("#same-discard").check()
        expect(page.locator("#add-hand")).to_contain_text("东 +6")
        _photo_kept(page)
        _reload(page)
        expect(page.locator("#same-discard")).to_be_checked()
        expect(page.locator("#add-hand")).to_contain_text("东 +6")
        page.locator("#add-hand").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["+6", "-9", "0", "+3"])
        expect(page.locator('.seat[data-seat="3"] .seat-dealer')).to_be_checked()  # 北 keeps the deal
        expect(page.locator("#same-discard")).not_to_be_checked()


def test_forgetting_the_photo_clears_it_from_the_page_this_browser_and_the_server(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        _photo_kept(page)
        token = page.evaluate("state.token")
        page.once("dialog", lambda dialog: dialog.dismiss())  # asked first: a slip of the finger loses nothing
        page.locator("#forget-photo").click()
        expect(page.locator("#total")).to_have_text("3")
        asked = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        page.locator("#forget-photo").click()
        expect(page.locator("#result")).to_be_hidden()
        expect(page.locator("#status")).to_contain_text("The photo is forgotten")
        assert page.evaluate("document.activeElement.id") == "photo"  # focus on to the next photo, not lost
        assert asked == ["忘掉这张照片？它的分数和改动也一并删除 Forget this photo, its score and your changes?"]
        page.wait_for_function(f"localStorage.getItem('{HAND_KEY}') === null")
        page.wait_for_function("async () => (await photoStore('readonly', (s) => s.get('last'))) === undefined")
        gone = page.evaluate("""async (token) => (await fetch('/api/rescore', {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: JSON.stringify({token})})).status""", token)
        assert gone == 404  # the server no longer holds it
        _reload(page)
        _dropped(page)  # nothing comes back
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")  # the page works on


def test_forgetting_one_of_photos_chosen_together_moves_on_to_the_next(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.set_input_files("#photo-pick", files=[
            {"name": name, "mimeType": "image/jpeg", "buffer": jpeg_bytes()} for name in ("a.jpg", "b.jpg")])
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#next-photo")).to_be_visible()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#forget-photo").click()
        page.wait_for_function("state.name === 'b.jpg' && state.pending === 0")
        expect(page.locator("#result")).to_be_visible()
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#next-photo")).to_be_hidden()  # none left


def test_forgetting_a_photo_on_a_collecting_server_says_its_saved_copy_stays(server_collecting):
    from playwright.sync_api import expect

    url, folder = server_collecting
    with uploaded(url) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#save-labels").click()
        expect(page.locator("#status")).to_contain_text("Saved to the training set")
        saved = sorted(p.name for p in (folder / "images").iterdir())
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#forget-photo").click()
        expect(page.locator("#status")).to_contain_text("a copy saved to the training set stays there")
        assert sorted(p.name for p in (folder / "images").iterdir()) == saved  # forgetting deletes no sample
