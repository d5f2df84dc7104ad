"""The page in a real headless Chromium (Playwright): upload → correct a tile → the score changes; the
photo's tiles corrected, added, set aside; large and turned photos shrunk before upload.

Uses /usr/bin/chromium (Debian's ``chromium`` package). Where it is missing and we are root
with apt-get, the test installs it; it skips, saying why, only where no browser can be had.
"""

from __future__ import annotations

import re

import pytest
from browser import opened, serve_with, uploaded
from web_helpers import (
    HEIGHT,
    WIDTH,
    FakeDetector,
    jpeg_bytes,
    layout_detections,
    missed_tile_detections,
    tray_detections,
)

from xingzi.engine.tiles import BACK_CLASS, Tile

_, MISSED_BOX = missed_tile_detections()  # where the missed tile lies: the server_missed photo's


def test_upload_correct_a_tile_and_toggle_self_draw(server, tmp_path):
    from playwright.sync_api import expect

    with uploaded(server) as page:
        # the 2s read as 3s: scored as the likeliest legal hand, and the page says what it changed
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#problems")).to_contain_text("read 3s as 2s")  # no tile number: the page shows none
        page.locator("#as_read").check()  # exactly as read: no hand
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        expect(page.locator("#score-peek")).to_have_text(re.compile(r"^诈胡 −\d+$"))  # the foot bar's words, said once
        expect(page.locator(".hit")).to_have_count(14)
        expect(page.locator(".tag-hit")).to_have_count(14)  # each tile's label drawn on the photo opens it too
        page.locator('.tag-hit[data-index="10"]').click()
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-title")).to_have_text("读作 Read as")  # the tile's picker, not "add a tile here"
        expect(page.locator("#picker-current")).to_have_text("三条")
        expect(page.locator("#picker-then")).to_have_text("，改为 change to:")  # read as 三条, change it to…
        expect(page.locator("#alts button").first).to_have_attribute("data-cls", str(Tile.S2.index))
        page.locator("#alts button").first.click()  # the likeliest other face, offered first
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#items")).to_contain_text("门前清")
        expect(page.locator("#payments li")).to_have_text(["放炮者付 the discarder pays 3"])
        expect(page.locator("#sets")).to_have_text(re.compile(r"牌型 sets: .*55p.* · 听 waited on: 3s$"))
        page.locator("#dealer").check()  # the dealer wins: each payment doubled, and the page says why
        expect(page.locator("#payments li")).to_have_text(["放炮者付 the discarder pays 6 (3 炮 ×2 庄家 dealer)"])
        page.locator("#dealer").uncheck()
        page.locator("#self_draw").check()
        expect(page.locator("#total")).to_have_text("4")
        expect(page.locator("#payments li")).to_have_text(["下家付 next player pays 4", "对家付 opposite pays 4",
                                                           "上家付 previous player pays 4"])  # as the payers' rows
        page.locator('.hit[data-index="0"]').click()  # the 1m: waits 1m/4m, no single-wait 炮
        page.locator("#mark-win").click()
        expect(page.locator("#total")).to_have_text("3")
        page.screenshot(path=str(tmp_path / "page.png"), full_page=True)


def test_a_photo_from_the_gallery_as_well_as_from_the_camera(server_recording):
    from playwright.sync_api import expect

    url, detector = server_recording
    with opened(url) as page:
        assert page.locator("#photo").get_attribute("capture") == "environment"  # the camera at once
        assert page.locator("#photo-pick").get_attribute("capture") is None  # the phone offers its gallery
        before = len(detector.shapes)
        page.set_input_files("#photo-pick", files=[{"name": "IMG_7.jpg", "mimeType": "image/jpeg",
                                                    "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")
        assert len(detector.shapes) == before + 1


def test_what_the_payers_show_is_eaten_and_one_player_is_the_dealer(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#payments li")).to_have_text(["放炮者付 the discarder pays 3"])
        page.locator("#payers-box summary").click()
        expect(page.locator("#payers .payer")).to_have_count(1)  # a discard win: the discarder alone pays
        discarder = page.locator('#payers .payer[data-payer="0"]')
        discarder.locator('select[data-key="fa"]').select_option("2")
        discarder.locator('select[data-key="zhong"]').select_option("pung")
        expect(page.locator("#payments li")).to_have_text(["放炮者付 the discarder pays 6 (含吃 3 炮 eaten)"])
        discarder.locator('select[data-key="kongs"]').select_option("1")  # a suit kong: 1 more, whatever its suit
        expect(page.locator("#payments li")).to_have_text(["放炮者付 the discarder pays 7 (含吃 4 炮 eaten)"])
        discarder.locator(".payer-dealer").check()
        expect(page.locator("#payments li")).to_have_text(
            ["放炮者付 the discarder pays 14 (含吃 4 炮 eaten, 7 炮 ×2 庄家 dealer)"])
        page.locator("#dealer").check()  # the winner is the dealer: the discarder no longer is
        expect(discarder.locator(".payer-dealer")).not_to_be_checked()
        page.locator("#self_draw").check()  # three payers; the first keeps what it shows
        expect(page.locator("#payers .payer")).to_have_count(3)
        expect(page.locator("#payments li")).to_have_text([
            "下家付 next player pays 16 (含吃 4 炮 eaten, 8 炮 ×2 庄家 dealer)",
            "对家付 opposite pays 8 (4 炮 ×2 庄家 dealer)",
            "上家付 previous player pays 8 (4 炮 ×2 庄家 dealer)"])
        fa = page.locator('#payers .payer[data-payer="1"] select[data-key="fa"] option:enabled')
        expect(fa).to_have_text(["0", "1", "2"])  # 2 + 3 > 4 发: not offered


def test_the_payers_menus_offer_no_meld_or_tile_a_table_does_not_have(server_ok):
    """A player shows at most 4 melds (4 sets and a pair); the set has four 发 and four 中: the menus offer no more.
    Six melds for one payer were offered, refused by the server, and the refusal greyed every later photo."""
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.locator("#self_draw").check()
        page.locator("#payers-box summary").click()
        first, second = page.locator('#payers .payer[data-payer="0"]'), page.locator('#payers .payer[data-payer="1"]')
        first.locator('select[data-key="kongs"]').select_option("3")
        concealed = first.locator('select[data-key="concealed_kongs"] option')
        expect(concealed.and_(page.locator(":enabled"))).to_have_text(["0", "1"])  # a fourth meld, no fifth
        first.locator('select[data-key="concealed_kongs"]').select_option("1")
        expect(first.locator('select[data-key="zhong"] option:enabled')).to_have_text(["—"])  # four already
        expect(first.locator('select[data-key="kongs"] option:enabled')).to_have_text(["0", "1", "2", "3"])
        first.locator('select[data-key="kongs"]').select_option("2")  # one less: a 中 set fits again
        first.locator('select[data-key="zhong"]').select_option("pung")
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win")
        expect(second.locator('select[data-key="zhong"] option:enabled')).to_have_text(["—"])  # 中 taken: 3 + 3 > 4
        expect(second.locator('select[data-key="bai"] option:enabled')).to_have_count(4)
        first.locator('select[data-key="fa"]').select_option("3")
        expect(second.locator('select[data-key="fa"] option:enabled')).to_have_text(["0", "1"])  # four 发 in a set
        assert page.evaluate("payers()[0].melds.length") == 4


def test_the_payers_fa_menus_count_the_winners_own_fa(server_stray_fa):
    """The set has four 发 in all: with one before the winner, the payers between them are offered three (six were
    offered, and the photo stayed unscored until the rows changed: random taps, session 79)."""
    from playwright.sync_api import expect

    with uploaded(server_stray_fa) as page:
        expect(page.locator("#total")).to_have_text("4")  # its 发 counted
        page.locator("#self_draw").check()  # three payers
        page.locator("#payers-box summary").click()
        first, second = page.locator('#payers .payer[data-payer="0"]'), page.locator('#payers .payer[data-payer="1"]')
        expect(first.locator('select[data-key="fa"] option:enabled')).to_have_text(["0", "1", "2", "3"])
        first.locator('select[data-key="fa"]').select_option("2")
        expect(second.locator('select[data-key="fa"] option:enabled')).to_have_text(["0", "1"])


@pytest.fixture(scope="module")
def server_switching():
    """Photos of the plain hand, until the test sets its detector's detections to another."""
    detector = FakeDetector(layout_detections())
    for url in serve_with(detector):
        yield url, detector


def test_payers_left_from_the_last_hand_that_the_next_photo_cannot_have_are_cleared_and_said(server_switching):
    """The payers' rows stay set from photo to photo; a 中 pung shown by the last hand's discarder cannot be where
    this winner holds three 中: the server refuses it, and that refusal greyed the new photo (and each after it)
    until the rows were changed. Now the rows are cleared for it, said, and the photo scored."""
    from playwright.sync_api import expect

    url, detector = server_switching
    with uploaded(url) as page:
        page.locator("#payers-box summary").click()
        discarder = page.locator('#payers .payer[data-payer="0"]')
        discarder.locator('select[data-key="zhong"]').select_option("pung")
        discarder.locator('select[data-key="fa"]').select_option("1")
        discarder.locator(".payer-dealer").check()
        expect(page.locator("#payments li")).to_have_text(
            ["放炮者付 the discarder pays 10 (含吃 2 炮 eaten, 5 炮 ×2 庄家 dealer)"])
        detector.detections = tray_detections()  # the next hand: 22288m66s中中中, a pung of 8s
        page.set_input_files("#photo", files=[{"name": "next.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#result")).to_have_attribute("aria-busy", "false")
        expect(page.locator("#status")).to_contain_text("吃炮的设置不适合这张照片（也许是上一手的），已清空")
        expect(page.locator("#status")).to_contain_text(
            "What the payers show does not fit this photo (set for the last hand?), and was cleared")
        expect(page.locator("#status")).to_contain_text("6 copies of 中")  # why
        expect(page.locator("#result")).not_to_have_class(re.compile(r"\bstale\b"))
        expect(page.locator("#total")).to_have_text("17")
        expect(discarder.locator('select[data-key="zhong"]')).to_have_value("")
        expect(discarder.locator('select[data-key="fa"]')).to_have_value("0")
        expect(discarder.locator(".payer-dealer")).to_be_checked()  # who deals is no part of what they show
        expect(page.locator("#payers-set")).to_have_text("：已设 1 家")
        page.locator("#table-box summary").click()
        expect(page.locator("#add-hand")).to_be_enabled()


def test_choosing_which_tile_won_from_the_offered_totals(server_win_in_row):
    from playwright.sync_api import expect

    with uploaded(server_win_in_row) as page:
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#win-choices")).to_be_visible()
        expect(page.locator("#win-options p")).to_have_count(2)  # 2 炮 and 3 炮
        expect(page.locator("#win-options button.chosen")).to_have_attribute("data-tile", "3s")
        page.locator('#win-options button[data-tile="1m"]').click()
        expect(page.locator("#total")).to_have_text("2")
        expect(page.locator("#win-options button.chosen")).to_have_attribute("data-tile", "1m")
        expect(page.locator("#notation")).to_contain_text(" 1m")


def test_naming_a_face_down_kong_from_the_offered_totals(server_kong_down):
    from playwright.sync_api import expect

    with uploaded(server_kong_down) as page:
        expect(page.locator("#total")).to_have_text("4")
        expect(page.locator("#win-choices")).to_be_hidden()
        expect(page.locator("#kong-options p")).to_have_count(2)  # 4 炮 and 6 炮
        page.locator('#kong-options button[data-tile="中"]').click()
        expect(page.locator("#total")).to_have_text("6")
        expect(page.locator("#kong-choices")).to_be_hidden()  # named: nothing left to choose
        expect(page.locator("#notation")).to_contain_text("concealed_kong 中")


def test_naming_the_kong_just_made_for_kong_bloom_from_the_offered_totals(server_two_kongs):
    from playwright.sync_api import expect

    with uploaded(server_two_kongs) as page:
        expect(page.locator("#bloom-choices")).to_be_hidden()  # no 杠上开花 yet: nothing to choose
        page.locator("#self_draw").check()
        page.locator("#events").locator("xpath=..").locator("summary").click()  # the events lie folded away
        page.locator("#ev-kong_bloom").check()
        expect(page.locator("#total")).to_have_text("13")
        expect(page.locator("#bloom-options p")).to_have_count(2)  # 13 炮 and 16 炮
        expect(page.locator("#bloom-options button.chosen")).to_have_attribute("data-tile", "中")
        page.locator('#bloom-options button[data-tile="9p"]').click()
        expect(page.locator("#total")).to_have_text("16")
        expect(page.locator("#bloom-options button.chosen")).to_have_attribute("data-tile", "9p")


def test_setting_a_stray_tile_aside(server_stray_fa):
    from playwright.sync_api import expect

    with uploaded(server_stray_fa) as page:
        expect(page.locator("#total")).to_have_text("4")  # the stray 发 counted as a bonus tile
        page.locator('.hit[data-index="14"]').click()
        page.locator("#set-aside").click()
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#problems")).to_contain_text("1 box(es) left out as you said (not part of the hand, or no tile)")
        expect(page.locator("#problems li").first).to_contain_text("1 个框按你说的未计")  # Chinese first
        page.locator('.hit[data-index="14"]').click()  # picking a face brings it back into the hand
        page.locator(f'#faces button[data-cls="{Tile.FA.index}"]').click()
        expect(page.locator("#total")).to_have_text("4")


def test_a_box_on_no_tile_removed_and_the_photo_saved_as_labels(server_stray_fa, tmp_path):
    import zipfile

    from playwright.sync_api import expect

    with uploaded(server_stray_fa) as page:
        expect(page.locator("#total")).to_have_text("4")  # the box below the row counted as a bonus 发
        page.locator('.hit[data-index="14"]').click()
        page.locator("#not-tile").click()  # say it is no tile at all: out of the hand, and of the labels
        expect(page.locator("#total")).to_have_text("3")
        page.locator('.hit[data-index="3"]').click()
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()  # a correction the labels carry
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        with page.expect_download() as info:
            page.locator("#save-labels").click()
        download = info.value
        assert download.suggested_filename == "hand.zip"
        path = tmp_path / "hand.zip"
        download.save_as(path)
        with zipfile.ZipFile(path) as z:
            rows = z.read("labels/hand.txt").decode().split("\n")
        rows = [r.split() for r in rows if r.strip()]
        assert len(rows) == 14 and int(rows[3][0]) == Tile.M5.index
        expect(page.locator("#status")).to_contain_text("hand.zip")


def test_saved_labels_go_to_the_servers_training_set(server_collecting):
    from playwright.sync_api import expect

    url, folder = server_collecting
    with uploaded(url) as page:
        expect(page.locator("#save-labels")).to_contain_text("Save to the training set (0 photos)")
        page.locator('.hit[data-index="3"]').click()
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        page.locator("#save-labels").click()  # no download: the server keeps it
        expect(page.locator("#status")).to_contain_text("Saved to the training set as hand (1 photo)")
        expect(page.locator("#save-labels")).to_contain_text("(1 photo)")
    rows = [line.split() for line in (folder / "labels" / "hand.txt").read_text().splitlines()]
    assert len(rows) == 14 and int(rows[3][0]) == Tile.M5.index and (folder / "images" / "hand.jpg").exists()


def test_photos_chosen_together_are_read_one_after_another(server_collecting):
    from playwright.sync_api import expect

    url, folder = server_collecting
    # photos of their own (the default photo may be in the folder already: a photo saved again is known by its bytes)
    files = [{"name": f"table_{k}.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes(WIDTH - 40 * (k + 1), HEIGHT)}
             for k in range(3)]
    with opened(url) as page:
        expect(page.locator("#next-photo")).to_be_hidden()
        page.set_input_files("#photo-pick", files=files)
        for k in range(3):
            expect(page.locator("#total")).to_have_text("3")
            if k < 2:
                expect(page.locator("#next-photo")).to_contain_text(f"Next photo ({2 - k} left)")
            else:
                expect(page.locator("#next-photo")).to_be_hidden()  # the last one
            page.locator("#save-labels").click()
            expect(page.locator("#status")).to_contain_text(f"as table_{k}")
            if k < 2:
                page.locator("#next-photo").click()
    assert {p.name for p in (folder / "labels").glob("table_*.txt")} == {f"table_{k}.txt" for k in range(3)}


def test_a_tile_of_no_xingzi_face_is_left_out_until_named(server_foreign):
    from playwright.sync_api import expect

    with uploaded(server_foreign) as page:
        expect(page.locator("#total")).to_have_text("3")  # the wind read as 发 is no bonus tile
        expect(page.locator("#problems")).to_contain_text("1 张不是星子麻将的牌（风牌或花牌？）未计")
        page.locator('.hit[data-index="14"]').click()
        expect(page.locator("#picker-current")).to_have_text("非星子牌？(发财)")
        page.locator(f'#faces button[data-cls="{Tile.FA.index}"]').click()  # the user says it is a 发
        expect(page.locator("#total")).to_have_text("4")


def test_claiming_a_meld_the_photo_hides_and_standing_it_back(server_tray):
    from playwright.sync_api import expect

    with uploaded(server_tray) as page:
        expect(page.locator("#total")).to_have_text("17")  # the claimed 8s pung read as standing
        page.locator('.hit[data-index="12"]').click()
        expect(page.locator("#claim")).to_contain_text("claimed meld")
        page.locator("#claim").click()
        expect(page.locator("#total")).to_have_text("12")
        expect(page.locator("#notation")).to_contain_text("pung 8s")
        page.locator('.hit[data-index="3"]').click()  # an 8m: only two stand, refused, nothing changes
        page.locator("#claim").click()
        expect(page.locator("#status")).to_contain_text("2 8m stand in the hand")
        page.locator('.hit[data-index="13"]').click()
        expect(page.locator("#claim")).to_contain_text("Not a claimed meld")
        page.locator("#claim").click()
        expect(page.locator("#total")).to_have_text("17")


def test_adding_a_tile_the_detector_missed_by_tapping_where_it_lies(server_missed):
    from playwright.sync_api import expect

    with uploaded(server_missed) as page:
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#problems")).to_contain_text("add a missed 5m")  # scored so, but where is it?
        page.locator("#as_read").check()  # as read: 13 tiles, no hand
        expect(page.locator("#verdict")).to_contain_text("not scored")
        expect(page.locator(".hit")).to_have_count(13)
        layer = page.locator("#hits").bounding_box()
        cx, cy = float(MISSED_BOX[0] + MISSED_BOX[2]) / 2, float(MISSED_BOX[1] + MISSED_BOX[3]) / 2
        page.locator("#hits").click(position={"x": cx / WIDTH * layer["width"], "y": cy / HEIGHT * layer["height"]})
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-title")).to_contain_text("Add a tile here")
        expect(page.locator("#picker-then")).to_be_hidden()
        expect(page.locator("#mark-win")).to_be_hidden()
        expect(page.locator("#alts")).to_be_hidden()  # no reading to offer others of
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator(".hit")).to_have_count(14)
        expect(page.locator("#notation")).to_have_text("123456m55789p12s 3s")
        page.locator('.hit[data-index="13"]').click()  # the added tile is a tile like the others: correct it
        expect(page.locator("#picker-title")).to_contain_text("Read as")
        expect(page.locator("#picker-current")).to_have_text("五万")
        expect(page.locator("#picker-then")).to_be_visible()
        expect(page.locator("#mark-win")).to_be_visible()
        page.locator(f'#faces button[data-cls="{Tile.M4.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("诈胡")


def test_adding_a_missed_tile_by_keyboard_alone_with_the_plus_after_its_group(server_missed):
    """No pointing at the photo (a keyboard, a screen reader): the "+" after the hand's tiles in the list, then the
    face; the server places it (in the gap it left) and the page keeps the place, across a reload too."""
    from playwright.sync_api import expect

    with uploaded(server_missed) as page:
        page.locator("#as_read").check()
        expect(page.locator("#verdict")).to_contain_text("not scored")
        plus = page.locator("#strip .group").first.locator(".add-chip")
        expect(plus).to_have_attribute("aria-label", "在手牌里添加漏读的牌 Add a missed tile to the hand")
        expect(page.locator("#strip .add-chip")).to_have_count(1)  # the row; the winning tile apart has none
        plus.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-title")).to_contain_text("Add to the hand")
        expect(page.locator("#mark-win")).to_be_hidden()
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').focus()
        page.keyboard.press("Enter")
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#notation")).to_have_text("123456m55789p12s 3s")
        expect(page.locator('#strip .chip[data-index="13"]')).to_have_class(re.compile(r"\bfixed\b"))
        added = page.evaluate("state.added")
        assert [a["cls"] for a in added] == [Tile.M5.index] and "beside" not in added[0]  # the place, as placed
        assert added[0]["placed"] is True  # by the server: not saved as a training label until placed by hand
        cx = (added[0]["xyxy"][0] + added[0]["xyxy"][2]) / 2
        assert abs(cx - float(MISSED_BOX[0] + MISSED_BOX[2]) / 2) < 0.2 * float(MISSED_BOX[2] - MISSED_BOX[0])
        assert page.evaluate("document.getElementById('result').contains(document.activeElement)")  # focus stays
        page.reload()
        expect(page.locator("#notation")).to_have_text("123456m55789p12s 3s")
        expect(page.locator(".hit")).to_have_count(14)
        page.locator("#save-labels").click()
        expect(page.locator("#status")).to_contain_text("for training labels tap")


@pytest.mark.parametrize(("fixture", "groups"), [
    pytest.param("server_kong_down", ["手牌", "碰"], id="a-kong-all-face-down-and-a-pung"),  # a kong is whole
    pytest.param("server_two_kongs", ["手牌"], id="two-kongs"),
    pytest.param("server_stray_fa", ["手牌", "发"], id="a-bonus-fa"),
    pytest.param("server_kong_lost_face", ["手牌", "不计"], id="face-down-tiles-of-a-kong-that-lost-a-face"),
])
def test_a_plus_follows_each_group_a_tile_may_be_missing_from(request, fixture, groups):
    from playwright.sync_api import expect

    with uploaded(request.getfixturevalue(fixture)) as page:
        page.wait_for_function("state.data !== null && state.pending === 0")
        expect(page.locator("#strip .group:has(.add-chip) .group-name [lang=zh]")).to_have_text(groups)


def test_a_concealed_kong_that_lost_a_face_is_mended_with_the_plus_after_its_face_down_tiles(server_kong_lost_face):
    from playwright.sync_api import expect

    with uploaded(server_kong_lost_face) as page:
        page.locator("#as_read").check()
        expect(page.locator("#verdict")).to_contain_text("not scored")
        plus = page.locator("#strip .group:has(.left-out) .add-chip")
        expect(plus).to_have_attribute("aria-label", "在扣着的牌里添加漏读的牌 Add a missed tile to the face-down tiles")
        plus.click()
        expect(page.locator("#picker-title")).to_contain_text("Add to the face-down tiles")
        page.locator(f'#faces button[data-cls="{Tile.ZHONG.index}"]').click()
        expect(page.locator("#notation")).to_have_text("234m5p678s 5p | kong 9p | concealed_kong 中")
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#strip .left-out")).to_have_count(0)


def test_a_missed_face_down_tile_whose_place_is_known_is_added_by_one_tap(server_kong_lost_face):
    """The repair's "补上 背面" beside the kong's face-down tiles is a button (the server says which tile it lies
    beside): one tap adds the tile there and the kong reads again, scored as read."""
    from playwright.sync_api import expect

    with uploaded(server_kong_lost_face) as page:
        page.locator("#as_read").check()
        expect(page.locator("#verdict")).to_contain_text("not scored")
        button = page.locator("#suggestions button", has_text="补上 背面")
        expect(button).to_have_count(1)
        button.click()
        expect(page.locator("#notation")).to_have_text("234m5p678s 5p | kong 9p | concealed_kong 中")
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#strip .left-out")).to_have_count(0)
        assert [a["cls"] for a in page.evaluate("state.added")] == [BACK_CLASS]


class ShapeRecorder(FakeDetector):
    """The fixed hand, and the size of each picture the server was given."""

    def __init__(self, detections) -> None:
        super().__init__(detections)
        self.shapes: list[tuple[int, ...]] = []

    def predict(self, image):
        self.shapes.append(image.shape)
        return super().predict(image)


@pytest.fixture(scope="module")
def server_recording():
    detector = ShapeRecorder(layout_detections())
    for url in serve_with(detector):
        yield url, detector


def _big_png(width: int, height: int) -> bytes:
    """Noise, stored uncompressed: far over the server's 12 MB upload limit."""
    import io

    import numpy as np
    from PIL import Image

    rgb = np.random.default_rng(0).integers(0, 256, (height, width, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG", compress_level=0)
    return out.getvalue()


def _turned_jpeg() -> bytes:
    """4000×3000 as stored, to be shown turned a quarter (EXIF orientation 6): a portrait photo."""
    import io

    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    Image.new("RGB", (4000, 3000), (90, 140, 90)).save(out, format="JPEG", quality=90, exif=exif)
    return out.getvalue()


def _heic() -> bytes:
    import io

    from PIL import Image

    from xingzi.vision import photo  # noqa: F401 (registers the HEIC codec with Pillow)

    out = io.BytesIO()
    Image.new("RGB", (640, 480), (90, 140, 90)).save(out, format="HEIF", quality=80)
    return out.getvalue()


@pytest.mark.parametrize("name,mime,make,seen,sent_as", [
    pytest.param("big.png", "image/png", lambda: _big_png(2560, 1920), (1200, 1600, 3), "image/jpeg",
                 id="15MB-png-shrunk"),  # the server refuses uploads over 12 MB: this one came shrunk
    pytest.param("turned.jpg", "image/jpeg", _turned_jpeg, (1600, 1200, 3), "image/jpeg",
                 id="exif-turned-jpeg-stays-portrait"),
    pytest.param("IMG_0001.HEIC", "image/heic", _heic, (480, 640, 3), "image/heic",
                 id="heic-sent-as-it-is"),  # Chromium cannot decode HEIC: the server does
])
def test_the_page_shrinks_large_photos_before_uploading_them(server_recording, name, mime, make, seen, sent_as):
    from playwright.sync_api import expect

    from xingzi.web.app import MAX_UPLOAD

    url, detector = server_recording
    data = make()
    assert (len(data) > MAX_UPLOAD) == (name == "big.png")  # sent as it is, the big one would be refused
    types = []
    with opened(url) as page:
        page.on("request", lambda r: types.append(r.headers.get("content-type")) if "/api/read" in r.url else None)
        page.set_input_files("#photo", files=[{"name": name, "mimeType": mime, "buffer": data}])
        expect(page.locator("#verdict")).to_contain_text("valid win", timeout=30_000)
    assert detector.shapes[-1] == seen
    assert types == [sent_as]

