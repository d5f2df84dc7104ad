"""The page in one language only (the header's menu: 中文 or English), through what a player does on it: a photo
read and scored, a photo refused, tiles corrected, set aside and claimed, the questions the photo leaves open (which
tile won, a face-down kong, the kong 杠上开花 was won on), events, payers, the rules and their 炮 table, the tally
(hands added, undone, copied as text). After each step every text the page shows is read from the DOM as the browser
renders it: its visible text, the visible attributes a player or a screen reader meets (title, aria-label,
placeholder, alt), the choices of its visible menus, what CSS writes before and after elements, the tab's title,
the questions the page asks and the tally as copied.

In Chinese no English word may show: tile notation (8m, 123m456p) stays, as do numbers and signs, and the name of the
photo's own file; the page writes no "Xingzi" in Chinese (星子). In English no Han character may show: the faces
drawn on the photo are a picture, not text; the seats' default names 东 南 西 北 are kept in both languages as the
seats' names at a mahjong table (a player may type others). The language menu names each language in its own
(中文 / English), as such menus do: its choices are not read, its own name is."""

from __future__ import annotations

import re

import pytest
from browser import opened
from web_helpers import jpeg_bytes

from xingzi.engine.tiles import Tile

LANGS = [pytest.param("zh", id="chinese"), pytest.param("en", id="english")]
OTHER = {"zh": "en", "en": "zh"}

# Every text the page shows now: (where, text).
SHOWN = r"""() => {
  const out = [];
  const shown = (el) => el.checkVisibility({ checkVisibilityCSS: true });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement, text = n.nodeValue.trim();
    if (!text || !el || ["SCRIPT", "STYLE", "OPTION", "TEXTAREA"].includes(el.tagName) || !shown(el)) continue;
    out.push([el.id || el.className || el.tagName, text]);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (!shown(el)) continue;
    const where = "#" + el.id + "." + el.className + " " + el.tagName;
    for (const a of ["title", "aria-label", "placeholder", "alt"]) {
      const v = el.getAttribute(a);
      if (v && v.trim()) out.push([where + " @" + a, v.trim()]);
    }
    if (el.tagName === "SELECT" && el.id !== "lang") {  // the language menu names each language in its own
      for (const o of el.options) out.push([where + " option", o.textContent.trim()]);
    }
    for (const pseudo of ["::before", "::after"]) {
      const c = getComputedStyle(el, pseudo).content;
      if (c && c !== "none" && c !== "normal") out.push([where + pseudo, c]);
    }
  }
  out.push(["title", document.title]);
  return out;
}"""

NOTATION = re.compile(r"(?:\d+[mpsz])+")  # tile notation: 8m, 123m456p, 777z
FILES = re.compile(r"\b(?:hand|notes)(?:\.(?:jpg|zip))?\b")  # the photos' own file names
LATIN = re.compile(r"[A-Za-z]+")
HAN = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")  # Han, and CJK punctuation (，：（）)
SEAT = re.compile(r"(?<![\u3400-\u9fff])[东南西北](?![\u3400-\u9fff])")  # a seat's name standing alone


def stray(text: str, lang: str) -> str | None:
    """What in ``text`` is in the other language, or None."""
    if lang == "zh":
        words = LATIN.findall(NOTATION.sub(" ", FILES.sub(" ", text)))
        return " ".join(words) or None
    found = HAN.findall(SEAT.sub(" ", text))
    return "".join(found) or None


class Reader:
    """The page in ``lang``: reads what it shows after each step; every text in the other language is kept, with the
    step. The questions it asks (confirm) are read as they come, and answered yes."""

    def __init__(self, page, lang: str) -> None:
        self.page, self.bad = page, {}
        page.on("dialog", self._asked)
        self.choose(lang)

    def choose(self, lang: str) -> None:
        """The header's menu set to ``lang``: what the page shows is read in it from now on."""
        self.page.select_option("#lang", lang)
        self.lang = lang

    def _asked(self, dialog) -> None:
        self.check("a question asked", dialog.message)
        dialog.accept()

    def check(self, step: str, text: str, where: str = "") -> None:
        wrong = stray(text, self.lang)
        if wrong:  # each text once, with the first step that showed it
            self.bad.setdefault((where, text), f"{step}: {where} {text!r} ({wrong})")

    def look(self, step: str) -> None:
        self.page.wait_for_function("state.pending === 0")
        for where, text in self.page.evaluate(SHOWN):
            self.check(step, text, where)

    def done(self) -> None:
        assert not self.bad, "\n".join(self.bad.values())


def _upload(page, name: str = "hand.jpg", data: bytes | None = None) -> None:
    page.set_input_files("#photo", files=[{"name": name, "mimeType": "image/jpeg",
                                           "buffer": jpeg_bytes() if data is None else data}])
    page.wait_for_function("state.pending === 0 && state.reading === 0")


def _open(page, summary: str) -> None:
    box = page.locator(summary)
    if box.evaluate("s => !s.parentElement.open"):
        box.click()


def _face(page, tile: Tile) -> None:
    page.locator(f'#faces button[data-cls="{tile.index}"]').click()


@pytest.mark.parametrize("lang", LANGS)
def test_a_photo_refused_read_corrected_and_the_rules_in_one_language(server, lang):
    from playwright.sync_api import expect

    with opened(server) as page:
        seen = Reader(page, lang)
        seen.look("the page before a photo")
        _upload(page, "notes.jpg", b"not a photo")
        expect(page.locator("#status")).to_have_class("bad")
        seen.look("a file that is no photo")
        _upload(page)
        expect(page.locator("#total")).to_have_text("3")  # the 3s read for a 2s: scored as the likeliest hand
        seen.look("the photo scored as its likeliest legal hand")
        for summary in ("details:has(#events) > summary", "#payers-box summary", "#rules-box > summary",
                        "#pao-box summary"):
            _open(page, summary)
        expect(page.locator("#pao-table tr")).to_have_count(34)
        seen.look("events, payers, rules and the 炮 table open")
        page.locator("#rule-four_fa").select_option(index=1)
        page.locator("#rule-opt-hai_di_pao").check()
        page.locator("#rule-hai_di_pao").select_option(index=1)
        expect(page.locator('#pao-table tr[data-key="hai_di_pao"]')).not_to_have_class("off")
        seen.look("rules changed on the page")
        page.locator('#strip .chip[data-index="10"]').click()
        expect(page.locator("#picker")).to_be_visible()
        seen.look("a tile's picker")
        page.locator("#alts button").first.click()
        expect(page.locator('#strip .chip[data-index="10"]')).to_have_class(re.compile(r"\bfixed\b"))
        seen.look("a tile corrected")
        page.locator('.hit[data-index="3"]').click()
        _face(page, Tile.M5)
        expect(page.locator("#verdict")).to_have_class("bad")
        seen.look("a correction that leaves no winning hand (a false win)")
        page.locator("#as_read").check()
        seen.look("scored exactly as read")
        page.locator("#hits").click(position={"x": 20, "y": 20})  # where no tile was found: add one
        expect(page.locator("#picker")).to_be_visible()
        seen.look("adding a tile")
        page.locator("#picker .cancel").click()
        seen.done()


@pytest.mark.parametrize("lang", LANGS)
def test_a_claimed_meld_a_claim_refused_a_fifth_copy_and_payers_that_do_not_fit_in_one_language(server_tray, lang):
    from playwright.sync_api import expect

    with opened(server_tray) as page:
        seen = Reader(page, lang)
        _upload(page)
        expect(page.locator("#total")).to_have_text("17")
        seen.look("a claimed pung read as standing, which tile won left open")
        page.locator('.hit[data-index="12"]').click()
        expect(page.locator("#claim")).to_be_visible()
        seen.look("a tile's picker offering to claim its meld")
        page.locator("#claim").click()
        expect(page.locator("#total")).to_have_text("12")
        seen.look("a meld claimed")
        page.locator('.hit[data-index="13"]').click()
        seen.look("a claimed tile's picker")
        page.locator("#picker .cancel").click()
        page.locator('.hit[data-index="3"]').click()  # an 8m: only two stand, the server refuses
        page.locator("#claim").click()
        expect(page.locator("#status")).to_have_class("bad")
        seen.look("a claim the server refuses")
        for index in (3, 4):  # both 8m read as 2m: five 2m
            page.locator(f'.hit[data-index="{index}"]').click()
            _face(page, Tile.M2)
        expect(page.locator("#verdict")).to_have_class("bad")
        seen.look("a fifth copy of a tile")
        _open(page, "#payers-box summary")
        payer = page.locator('#payers .payer[data-payer="0"]')
        payer.locator('select[data-key="zhong"]').select_option("pung")  # the winner holds three 中: not scored
        expect(page.locator("#verdict")).to_have_class("bad")
        seen.look("a payer showing a 中 pung the hand leaves no 中 for")
        _upload(page, "next.jpg")  # the rows stay set, and do not fit: cleared, and said
        expect(page.locator("#status")).to_have_class("bad")
        expect(payer.locator('select[data-key="zhong"]')).to_have_value("")
        seen.look("the payers' rows cleared for a photo they do not fit")
        seen.done()


@pytest.mark.parametrize("lang", LANGS)
def test_which_tile_won_set_aside_and_a_face_down_kong_in_one_language(server_win_in_row, server_stray_fa,
                                                                       server_kong_down, lang):
    from playwright.sync_api import expect

    with opened(server_win_in_row) as page:
        seen = Reader(page, lang)
        _upload(page)
        expect(page.locator("#win-choices")).to_be_visible()
        seen.look("which tile won: the totals offered")
        page.locator('#win-options button[data-tile="1m"]').click()
        expect(page.locator("#total")).to_have_text("2")
        seen.look("the winning tile chosen")
        page.locator('.hit[data-index="0"]').click()
        page.locator("#mark-win").click()
        seen.look("the winning tile marked on the photo")
        seen.done()
    with opened(server_stray_fa) as page:
        seen = Reader(page, lang)
        _upload(page)
        expect(page.locator("#total")).to_have_text("4")
        seen.look("a stray 发 counted")
        page.locator('.hit[data-index="14"]').click()
        page.locator("#set-aside").click()
        expect(page.locator("#total")).to_have_text("3")
        seen.look("a tile set aside")
        page.locator('.hit[data-index="13"]').click()
        page.locator("#not-tile").click()
        seen.look("a box on no tile")
        seen.done()
    with opened(server_kong_down) as page:
        seen = Reader(page, lang)
        _upload(page)
        expect(page.locator("#kong-choices")).to_be_visible()
        seen.look("a face-down kong: its faces offered")
        page.locator('#kong-options button[data-tile="中"]').click()
        expect(page.locator("#total")).to_have_text("6")
        seen.look("the kong named")
        seen.done()


@pytest.mark.parametrize("lang", LANGS)
def test_events_kong_bloom_and_the_payers_in_one_language(server_two_kongs, lang):
    from playwright.sync_api import expect

    with opened(server_two_kongs) as page:
        seen = Reader(page, lang)
        _upload(page)
        expect(page.locator("#total")).to_have_text("7")
        _open(page, "details:has(#events) > summary")
        page.locator("#ev-kong_bloom").check()  # on a discard: the engine says it needs a self-draw
        expect(page.locator("#verdict")).to_have_class("bad")
        if lang == "en":  # the event by the page's name for it, not the engine's key (session 70)
            expect(page.locator("#result")).to_contain_text("win on a kong replacement is won only by self-draw")
            expect(page.locator("#result")).not_to_contain_text("kong_bloom")
        seen.look("an event that does not fit the win")
        page.locator("#self_draw").check()
        expect(page.locator("#bloom-choices")).to_be_visible()
        seen.look("which kong was just made: the totals offered")
        page.locator('#bloom-options button[data-tile="9p"]').click()
        expect(page.locator("#total")).to_have_text("16")
        seen.look("the kong just made chosen")
        _open(page, "#payers-box summary")
        first = page.locator('#payers .payer[data-payer="0"]')
        first.locator('select[data-key="fa"]').select_option("2")
        first.locator('select[data-key="bai"]').select_option("pung")
        first.locator(".payer-dealer").check()
        zhong = page.locator('#payers .payer[data-payer="1"] select[data-key="zhong"]')
        zhong.select_option("pung")  # the winner's 中 kong holds all four 中
        expect(page.locator("#verdict")).to_have_class("bad")
        seen.look("the payers set, more 中 than a set holds")
        zhong.select_option("")
        expect(page.locator("#verdict")).not_to_have_class("bad")
        seen.look("the payers eaten from")
        # the score just out of view below: its bar at the foot of the screen, over no control
        page.evaluate("window.scrollTo(0, scrollY + document.getElementById('total').getBoundingClientRect().top"
                      " - innerHeight - 2)")
        expect(page.locator("#score-peek")).to_be_visible()
        seen.look("the score's bar")
        seen.done()


@pytest.mark.parametrize("lang", LANGS)
def test_the_tally_added_undone_and_copied_in_one_language(server_ok, lang):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        seen = Reader(page, lang)
        _upload(page)
        expect(page.locator("#total")).to_have_text("3")
        _open(page, "#table-box summary")
        seen.look("the tally open")
        page.locator("#add-hand").click()  # 南 wins on 东's discard
        expect(page.locator("#hands li")).to_have_count(1)
        seen.look("a hand added")
        seen.choose(OTHER[lang])  # hands added in the other language are said again in this one
        _upload(page, "next.jpg")  # the next hand's photo: one added stays added
        page.locator("#self_draw").check()
        expect(page.locator("#add-hand")).to_be_enabled()
        page.locator("#add-hand").click()
        page.locator("#follow-dragon").click()
        page.locator("#drawn-hand").click()
        expect(page.locator("#hands li")).to_have_count(4)
        seen.choose(lang)
        seen.look("a self-draw, the dealer followed, a drawn hand")
        _upload(page, "third.jpg")
        page.locator("#self_draw").uncheck()
        expect(page.locator("#same-box")).to_be_visible()
        page.locator("#same-discard").check()  # after a drawn hand: no discard to win on again, and the page says so
        expect(page.locator("#same-why")).to_be_visible()
        seen.look("another winner ticked where the last hand was won on no discard")
        page.locator("#same-discard").uncheck()
        page.locator("#add-hand").click()  # 南 wins on 东's discard
        expect(page.locator("#hands li")).to_have_count(5)
        _upload(page, "fourth.jpg")
        page.locator("#same-discard").check()
        page.locator("#winner").select_option("2")  # 西 too
        expect(page.locator("#same-why")).to_be_hidden()
        seen.look("a second winner on one discard")
        page.locator("#add-hand").click()
        expect(page.locator("#hands li")).to_have_count(6)
        expect(page.locator("#hands li").last).to_contain_text(re.compile("一炮多响|second winner"))
        page.locator("#undo-hand").click()
        expect(page.locator("#hands li")).to_have_count(5)
        seen.look("a hand undone")
        page.locator("#copy-tally").click()
        expect(page.locator("#tally-text")).to_be_visible()
        seen.look("the tally copied")
        seen.check("the tally as copied", page.locator("#tally-text").input_value())
        page.locator("#new-game").click()
        expect(page.locator("#hands li")).to_have_count(0)
        seen.look("a new game")
        seen.done()


LEAST_WIN_IN_ENGLISH = [
    ("only 1 own 炮 counts towards 两炮起胡 (needs 2)", "only 1 own pao counts towards the 2-pao minimum (needs 2)"),
    ("only 2 own 炮 count towards 三炮起胡 (needs 3)", "only 2 own pao count towards the 3-pao minimum (needs 3)"),
    ("only 2 own 炮 count towards 12炮起胡 (needs 12)", "only 2 own pao count towards the 12-pao minimum (needs 12)"),
]


def test_the_least_win_is_said_in_english_by_the_rulesets_number(server):
    """A house minimum of 3 is 三炮起胡 in the engine's reason: in English it is the 3-pao minimum (the page's
    English once named every minimum 'the two-pao minimum', and left 三炮起胡 in Chinese)."""
    with opened(server) as page:
        said = page.evaluate("(texts) => texts.map(plainEn)", [zh for zh, _en in LEAST_WIN_IN_ENGLISH])
    assert said == [en for _zh, en in LEAST_WIN_IN_ENGLISH]


def test_a_choice_giving_no_valid_win_is_called_a_false_win(server):
    """A winning tile that makes the hand a 诈胡 (too few 炮 under the table's minimum, or no hand) is offered as
    what it is: a false win, not 'no win' (a club took 无胡 for a misread photo)."""
    with opened(server) as page:
        page.wait_for_function("state.faces && state.faces.length > 0")
        page.evaluate("""() => showChoices("win", [{own: null, tile: "5p", index: 1, chosen: false},
                                                   {own: 2, tile: "1m", index: 2, chosen: true}], () => {})""")
        heads = page.locator("#win-options p > span").all_inner_texts()
    assert [h.strip() for h in heads] == ["诈胡 false win:", "2 炮:"]


@pytest.mark.parametrize(("paid", "pao", "said"), [
    pytest.param(2, 1, "付另外三家各 1 炮，庄家翻倍 = 2", id="doubled"),
    pytest.param(6, 2, "付另外三家各 2 炮，庄家 ×3 = 6", id="a-house-x3"),  # not 翻倍 (twice) ×3
    pytest.param(1, 1, "付另外三家各 1 炮", id="not-doubled"),
])
def test_the_dealer_following_is_said_by_the_rulesets_factor(server, paid, pao, said):
    with opened(server) as page:
        phrase = page.evaluate("([paid, pao]) => { state.followDealer = {plain: paid}; state.followPao = {plain: pao}; "
                               "return followPays('plain'); }", [paid, pao])
    assert phrase["zh"].endswith(said), phrase
