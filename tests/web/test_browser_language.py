"""The page in headless Chromium in one language or both (the header's menu, kept in this browser): every label,
button, message and refusal the user sees is in the language chosen, those the server sends in both languages
too. What the user sees is read as the browser shows it (innerText: what is hidden is left out)."""

from __future__ import annotations

import re

import pytest
from browser import opened, uploaded
from web_helpers import jpeg_bytes

from xingzi.engine.tiles import Tile

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
LATIN = re.compile(r"[A-Za-z]")


def _seen(page, selector: str) -> str:
    return page.locator(selector).inner_text()


def _seen_all(page, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


def test_in_english_the_labels_the_score_the_servers_words_and_the_picker_are_english_only(server):
    from playwright.sync_api import expect

    with uploaded(server) as page:
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#lang")).to_have_value("both")  # both, until another is chosen
        page.select_option("#lang", "en")
        assert _seen(page, "label[for=photo]") == "Take a photo"
        assert _seen(page, "label[for=photo-pick]") == "Choose a photo"
        assert _seen(page, "header h1") == "Xingzi mahjong scorer"
        assert page.title() == "Xingzi scorer"
        assert _seen_all(page, ".toggles label")[:3] == ["self-draw", "winner is dealer", "score exactly as read"]
        assert _seen(page, "#total-unit").strip() == "pao"
        assert _seen(page, "#verdict") == "valid win"
        assert _seen_all(page, "#items li") == ["plain win: 1 pao", "concealed hand: 1 pao", "single wait: 1 pao"]
        assert _seen_all(page, "#payments li") == ["the discarder pays 3"]
        # the server's words, sent in both languages: the English alone
        problems = _seen_all(page, "#problems li")
        assert problems[0] == "123456m55789p133s does not split into sets and a pair (nor seven pairs)"
        assert problems[1] == "scored as the likeliest legal hand: read 3s as 2s"  # numbers only --tiles shows
        # the engine's sets and a repair's words, as the page says them in English (no number the page never shows)
        said = page.evaluate("() => [setsPhrase(['七对']).en, changesEn('read tile #21 9s as 8s; drop tile #3 (3s)'), "
                             "changesEn('read tile #14 face down as 白')]")
        assert said == ["seven pairs", "read 9s as 8s; drop 3s", "read a face-down tile as bai"]
        assert not CJK.search(_seen(page, "#result"))  # the photo, its tiles, the score: nothing in Chinese
        page.locator('#strip .chip[data-index="10"]').click()
        assert _seen(page, "#picker-title") == "Read as"
        assert _seen(page, "#picker-current") == "3s"
        expect(page.locator("#alts")).to_be_visible()
        assert not CJK.search(_seen(page, "#picker"))
        page.locator(f'#faces button[data-cls="{Tile.S2.index}"]').click()
        expect(page.locator('#strip .chip[data-index="10"]')).to_have_attribute("title", "2s set by hand")
        page.locator("#self_draw").check()
        expect(page.locator("#payments li").first).to_have_text("next player pays 4", use_inner_text=True)

        page.select_option("#lang", "both")  # back to both: as it was, without a new score
        expect(page.locator("#verdict")).to_have_text("胡牌 valid win", use_inner_text=True)
        assert _seen(page, "label[for=photo]") == "拍照 Take a photo"
        assert _seen_all(page, "#payments li")[0] == "下家付 next player pays 4"


def test_chinese_only_is_kept_across_visits_and_a_refusal_is_said_in_chinese(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.select_option("#lang", "zh")
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        expect(page.locator("#lang")).to_have_value("zh")  # kept in this browser
        assert page.title() == "星子麻将计分"
        assert _seen(page, "label[for=photo]") == "拍照"
        assert not LATIN.search(_seen(page, "header h1"))
        page.set_input_files("#photo", files=[{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"not a photo"}])
        expect(page.locator("#status")).to_have_text("出错 读不了这个文件（不是照片，或已损坏）", use_inner_text=True)
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#verdict")).to_have_text("胡牌", use_inner_text=True)
        assert _seen_all(page, "#items li") == ["平胡: 1 炮", "门前清: 1 炮", "胡单张: 1 炮"]
        assert _seen_all(page, "#payments li") == ["放炮者付 3"]
        assert _seen(page, '#strip .chip[data-index="13"]').split() == ["三", "条"]
        page.locator("#payers-box summary").click()
        assert _seen(page, '#payers .payer[data-payer="0"] p') == "放炮者"
        assert not LATIN.search(_seen(page, "#payers"))  # the payers' rows, their menus' choices too
        page.locator('.hit[data-index="3"]').click()  # the 4m said to be a 5m: no hand
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()
        # the server's reason, sent in both languages: the Chinese alone
        expect(page.locator("#verdict")).to_have_text("诈胡 不成胡：既不是四组加一对，也不是七对", use_inner_text=True)
        page.select_option("#lang", "en")
        expect(page.locator("#verdict")).to_have_text(
            "false win: not a winning hand: the tiles form neither 4 sets + a pair nor seven pairs", use_inner_text=True)


def test_in_english_a_refusal_and_a_question_leave_the_chinese_out(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.select_option("#lang", "en")
        page.set_input_files("#photo", files=[{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"not a photo"}])
        expect(page.locator("#status")).to_have_text(re.compile(r"^Error: not an image"), use_inner_text=True)
        assert not CJK.search(_seen(page, "#status"))
        assert _seen(page, "#verdict").startswith("This photo was not read; below is the previous photo's score: ")
        page.locator("#table-box summary").click()
        asked = []
        page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
        page.locator("#new-game").click()
        assert asked == ["New game: all totals back to 0?"]
        assert _seen(page, "#new-game") == "New game"
        expect(page.get_by_role("radio", name="dealer: East")).to_be_checked()  # named for a screen reader in English


def test_in_english_the_hands_notation_writes_every_dragon_as_mpsz_notation(server_two_kongs):
    """A lone 中 in the notation is a tile of it (concealed_kong 中), written 7z as `xingzi score --hand` reads it, as
    a run is (777z): not the word zhong, which the English of a sentence uses."""
    from playwright.sync_api import expect

    with uploaded(server_two_kongs) as page:
        expect(page.locator("#total")).to_have_text("7")
        page.select_option("#lang", "en")
        assert _seen(page, "#notation") == "234m5p678s 5p | kong 9p | concealed_kong 7z"
        page.select_option("#lang", "zh")
        assert _seen(page, "#notation") == "234m5p678s 5p | 明杠 9p | 暗杠 中"


def test_a_suggestions_changes_are_said_in_the_faces_chinese_names(server):
    """补上 a missed face or a missed face-down tile (no index: nothing to read again), 背面→五万 a face-down tile read
    as a face, 去掉 a box dropped; a face-down tile is 背面, never "null"."""
    changes = [{"index": None, "old": None, "new": None, "drop": False},
               {"index": None, "old": None, "new": "5m", "drop": False},
               {"index": 3, "old": None, "new": "5m", "drop": False},
               {"index": 4, "old": "6m", "new": "5m", "drop": False},
               {"index": 5, "old": None, "new": None, "drop": True}]
    with opened(server) as page:
        said = page.evaluate("(changes) => faceChanges(changes)", changes)
    assert said == "补上 背面，补上 五万，背面→五万，六万→五万，去掉 背面"


# The seats' own names in each language; with both shown the Chinese, as the page's Chinese labels come first.
WINDS = {"both": ["东", "南", "西", "北"], "zh": ["东", "南", "西", "北"], "en": ["East", "South", "West", "North"]}


def _names(page) -> list[str]:
    return [page.locator(f'.seat[data-seat="{s}"] .seat-name').input_value() for s in range(4)]


@pytest.mark.parametrize("lang", list(WINDS))
def test_the_seats_are_called_by_their_winds_in_the_language_shown(server_ok, lang):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.select_option("#lang", lang)
        page.locator("#table-box summary").click()
        east, south, west, north = WINDS[lang]
        assert _names(page) == WINDS[lang]
        expect(page.locator("#winner option")).to_have_text(WINDS[lang], use_inner_text=True)
        expect(page.locator("#discarder option")).to_have_text([east, west, north], use_inner_text=True)
        dealer = {"both": "庄家 dealer: ", "zh": "庄家：", "en": "dealer: "}[lang]
        expect(page.get_by_role("radio", name=dealer + east, exact=True)).to_be_checked()
        if lang == "en":
            assert not CJK.search(_seen(page, "#table-box"))
        page.reload()  # said in the language kept, from the first moment
        expect(page.locator("#faces button")).to_have_count(31)
        assert _names(page) == WINDS[lang]


def test_names_typed_are_kept_and_the_winds_follow_the_language_back_and_forth(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.select_option("#lang", "en")
        page.locator("#table-box summary").click()
        seat = page.locator('.seat[data-seat="2"] .seat-name')
        seat.fill("Ann")
        seat.press("Enter")
        expect(page.locator("#payments li")).to_have_text(["East pays 6 (3 pao ×2 dealer)"], use_inner_text=True)
        expect(page.locator("#add-hand")).to_have_text("Add this hand: South +6", use_inner_text=True)
        page.locator("#add-hand").click()  # South wins on East's discard, East dealing
        en_hand = "1. South wins on East's discard, 3 pao: East -6, South +6, Ann 0, North 0"
        zh_hand = "1. 南 胡 东 放炮 3 炮: 东 -6, 南 +6, Ann 0, 北 0"
        for lang, hand in [("zh", zh_hand), ("both", zh_hand), ("en", en_hand), ("zh", zh_hand), ("en", en_hand)]:
            page.select_option("#lang", lang)
            winds = WINDS[lang]
            assert _names(page) == [winds[0], winds[1], "Ann", winds[3]]
            expect(page.locator("#winner option")).to_have_text([winds[0], winds[1], "Ann", winds[3]],
                                                                use_inner_text=True)
            expect(page.locator("#hands li")).to_have_text([hand], use_inner_text=True)
            expect(page.get_by_role("radio", name=re.compile(winds[1] + "$"))).to_be_checked()  # South deals now
        page.locator("#copy-tally").click()
        assert page.locator("#tally-text").input_value().splitlines()[2:] == [
            "East -6 · South +6 (dealer) · Ann 0 · North 0", en_hand]
        page.reload()  # kept in this browser, in the language kept
        expect(page.locator("#faces button")).to_have_count(31)
        assert _names(page) == ["East", "South", "Ann", "North"]
        seat = page.locator('.seat[data-seat="2"] .seat-name')
        seat.fill("")  # a name cleared: the seat called by its wind again, in each language
        seat.press("Enter")
        assert _names(page) == WINDS["en"]
        page.select_option("#lang", "zh")
        assert _names(page) == WINDS["zh"]
        page.locator('.seat[data-seat="0"] .seat-name').fill("老王")
        page.locator('.seat[data-seat="0"] .seat-name').press("Enter")
        page.select_option("#lang", "en")
        assert _names(page) == ["老王", "South", "West", "North"]


@pytest.mark.parametrize("chosen", ["zh", "en"])
def test_the_language_menu_agrees_with_the_page_after_back_from_the_licence(server_ok, chosen):
    """Back from /licence, the browser restored the menu's own choice as it left it on a first visit (both), over the
    language the page was drawn in: a page in Chinese alone said "中文 + English" in its menu."""
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.select_option("#lang", chosen)
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#about a[href='/licence']").click()
        page.wait_for_url("**/licence")
        page.go_back()
        expect(page.locator("#faces button")).to_have_count(31)
        page.wait_for_load_state("load")
        expect(page.locator("html")).to_have_attribute("data-lang", chosen)
        expect(page.locator("#lang")).to_have_value(chosen)
        page.wait_for_timeout(300)  # a form's state is restored after the page's scripts ran: still so after it
        expect(page.locator("#lang")).to_have_value(chosen)
        assert page.evaluate("lang") == chosen


def test_a_page_back_from_the_back_forward_cache_is_drawn_in_the_language_kept_now(server_ok):
    """Kept whole while away (the back-forward cache), the page comes back as it was left; a language chosen in
    another tab meanwhile is the one kept: page and menu follow it, together."""
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.select_option("#lang", "zh")
        page.evaluate("localStorage.setItem('xingzi.lang.v1', 'en')")  # another tab's choice
        page.evaluate("dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))")
        expect(page.locator("html")).to_have_attribute("data-lang", "en")
        expect(page.locator("#lang")).to_have_value("en")
        assert _seen(page, "label[for=photo]") == "Take a photo"
