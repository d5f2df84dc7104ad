"""The page for the players who most need it to be plain: older players with their phone's text at its largest, at a
small phone's size and a smaller one, in each language; players who hear the page through a screen reader; players
who use only a keyboard. What they meet is read from the page as the browser lays it out and exposes it to assistive
technology: element boxes (the machine has no CJK font, so Chinese shows as boxes and is judged by its boxes, not its
glyphs), accessible names and roles, where focus is, the colours the text is drawn in.

Large text is set as a user sets it: Chromium's own font-size preference (webkit.webprefs.default_font_size, what
"Font size" in its settings writes), in a fresh profile, at 32 px: twice the usual 16 px, as a phone's largest text
setting is."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import pytest
from browser import chromium_or_skip, shared_playwright, uploaded
from web_helpers import jpeg_bytes

from xingzi.engine.tiles import Tile

LARGEST = 32  # px: 200 % of the 16 px a browser starts from
LANGS = [pytest.param("both", id="both"), pytest.param("zh", id="chinese"), pytest.param("en", id="english")]


@contextmanager
def large_text(tmp_path, url: str, width: int, height: int, size: int = LARGEST):
    """The page at a touch phone's size (2×), its browser's text size set to ``size`` px; yields the page."""
    executable = chromium_or_skip()
    from playwright.sync_api import expect

    profile = tmp_path / "profile"
    (profile / "Default").mkdir(parents=True)
    prefs = {"webkit": {"webprefs": {"default_font_size": size, "default_fixed_font_size": size * 13 // 16}}}
    (profile / "Default" / "Preferences").write_text(json.dumps(prefs))
    context = shared_playwright().chromium.launch_persistent_context(  # a browser of its own, on this profile
        str(profile), executable_path=executable, args=["--no-sandbox", "--disable-gpu"],
        viewport={"width": width, "height": height}, device_scale_factor=2, has_touch=True, is_mobile=True)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url)
        expect(page.locator("#faces button")).to_have_count(31)
        yield page
    finally:
        context.close()


def _read(page, lang: str = "both") -> None:
    """The language chosen, a photo read, and every fold of the page opened (the tally, the rules, the 炮 table)."""
    page.select_option("#lang", lang)
    page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
    page.wait_for_function("state.pending === 0 && state.reading === 0 && state.data !== null")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_function("state.pending === 0 && document.querySelectorAll('#pao-table tr').length > 0")


# What is cut off, overlaps or sticks out of the screen, each as "where what": a box wider than the screen or
# beyond its edges, a text wider than its box (a menu's chosen words, a label, a button), the language menu over the
# title. The photo's own box scrolls by design (zoom.js), and the file inputs are 1 px on purpose (index.html).
CUT_OFF = r"""(width) => {
  const out = [];
  const where = (e) => (e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className ? '.' + e.className.split(' ')[0] : ''))
    + (e.dataset.key ? '[' + e.dataset.key + ']' : '');
  for (const e of document.querySelectorAll('body *')) {
    if (!e.getClientRects().length || e.closest('#zoom-box') || e.closest('[hidden]')) continue;
    if (e.id === 'photo' || e.id === 'photo-pick' || ['OPTION', 'SCRIPT'].includes(e.tagName)) continue;
    const r = e.getBoundingClientRect();
    if (r.right > width + 0.5 || r.left < -0.5) out.push('off the screen: ' + where(e));
    if (e.scrollWidth > e.clientWidth + 1) out.push('wider than its box: ' + where(e));
  }
  const lang = document.getElementById('lang-box').getBoundingClientRect();
  const title = document.createRange();
  title.selectNodeContents(document.querySelector('header h1'));
  for (const t of title.getClientRects()) {
    if (t.right > lang.left && t.left < lang.right && t.bottom > lang.top && t.top < lang.bottom) {
      out.push('the language menu over the title');
      break;
    }
  }
  if (document.documentElement.scrollWidth > width) out.push('the page scrolls sideways');
  return out;
}"""

PHONES = [pytest.param(390, 844, lang, id=f"390x844-{lang}") for lang in ("both", "zh", "en")] + \
         [pytest.param(320, 568, lang, id=f"320x568-{lang}") for lang in ("both", "zh", "en")]


@pytest.mark.parametrize(("width", "height", "lang"), PHONES)
def test_at_the_largest_text_nothing_is_cut_off_overlaps_or_scrolls_sideways(server_ok, tmp_path, width, height, lang):
    from playwright.sync_api import expect

    with large_text(tmp_path, server_ok, width, height) as page:
        assert page.evaluate("getComputedStyle(document.body).fontSize") == f"{LARGEST}px"
        _read(page, lang)
        page.locator('#payers [data-key="zhong"]').select_option("concealed_kong")  # a menu's longest choice
        page.wait_for_function("state.pending === 0")
        page.locator("#add-hand").click()  # a hand in the tally, and the tally as text
        page.locator("#copy-tally").click()
        expect(page.locator("#tally-text")).to_be_visible()
        assert page.evaluate(CUT_OFF, width) == []
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        expect(page.locator("#score-peek")).to_be_visible()  # the score at the screen's foot, in full
        assert page.evaluate(CUT_OFF, width) == []
        page.locator("#strip .chip").first.click()  # a tile's picker: its title, actions and faces
        expect(page.locator("#picker")).to_be_visible()
        assert page.evaluate(CUT_OFF, width) == []


@pytest.mark.parametrize(("width", "height", "lang"), [p for p in PHONES if p.id in ("320x568-both", "320x568-en")])
def test_at_the_largest_text_a_score_read_below_the_screen_is_shown_at_its_foot(server_ok, tmp_path, width, height,
                                                                                 lang):
    from playwright.sync_api import expect

    with large_text(tmp_path, server_ok, width, height) as page:
        page.select_option("#lang", lang)
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")
        page.wait_for_function("state.pending === 0 && state.reading === 0")
        expect(page.locator("#result")).to_be_in_viewport()  # the page went to the photo read...
        expect(page.locator("#total")).not_to_be_in_viewport()  # ...whose score lies below it, out of view
        expect(page.locator("#score-peek")).to_be_visible()
        expect(page.locator("#score-peek")).to_contain_text("3")
        page.locator("#score-peek").click()
        expect(page.locator("#total")).to_be_in_viewport()


@pytest.mark.parametrize(("lang", "name"), [
    pytest.param("both", "读作 Read as 三万，改为 change to:", id="both"),
    pytest.param("zh", "读作 三万，改为", id="chinese"),
    pytest.param("en", re.compile(r"^Read as 3m ?, change to:$"), id="english"),
])
def test_the_tile_picker_is_a_dialog_named_in_the_language_shown_entered_and_left_by_keyboard(server_ok, lang, name):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.select_option("#lang", lang)
        tile = page.locator('#strip .chip[data-index="2"]')  # the 3m
        tile.focus()
        page.keyboard.press("Enter")
        dialog = page.get_by_role("dialog", name=name, exact=True)
        expect(dialog).to_be_visible()
        assert page.evaluate("document.getElementById('picker').contains(document.activeElement)")  # focus went in
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(tile).to_be_focused()  # and came back to the tile


@pytest.mark.parametrize("close", ["Cancel", "Escape"])
def test_the_picker_opened_on_bare_photo_gives_focus_back_to_the_photo_as_it_closes(server_missed, close):
    """A tap on the photo where no tile was found opens the picker to add one; closed, focus went to the page's
    top (<body>), where a keyboard or a screen reader then starts again: it goes back to the photo, as it goes back
    to a tile's button for the pickers opened there."""
    from playwright.sync_api import expect

    with uploaded(server_missed) as page:
        page.locator("#hits").click(position={"x": 20, "y": 20})  # where no tile was found
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-title")).to_have_text("添加 Add a tile here")
        if close == "Escape":
            page.keyboard.press("Escape")
        else:
            page.locator("#picker .cancel").click()
        expect(page.locator("#picker")).to_be_hidden()
        expect(page.locator("#annotated")).to_be_focused()
        page.locator("#hits").click(position={"x": 20, "y": 20})  # and once a tile is added there
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()
        expect(page.locator(".hit")).to_have_count(14)
        expect(page.locator("#annotated")).to_be_focused()


# After a choice made by keyboard the score is drawn again: focus stays on what the player was on (the tile, the
# choice), or where that is gone, moves to the score; never back to the top of the page.
AFTER_A_CHOICE = [
    pytest.param("server_ok", '#strip .chip[data-index="2"]', f'#faces button[data-cls="{Tile.M6.index}"]',
                 '#strip .chip[data-index="2"]', id="a-face-for-a-listed-tile"),
    pytest.param("server_ok", '#hits .hit[data-index="2"]', f'#faces button[data-cls="{Tile.M6.index}"]',
                 '#hits .hit[data-index="2"]', id="a-face-for-a-tile-on-the-photo"),
    pytest.param("server_ok", '#strip .chip[data-index="13"]', "#set-aside", '#strip .chip[data-index="13"]',
                 id="not-part-of-this-hand"),
    pytest.param("server_missed", "#strip .add-chip >> nth=0", f'#faces button[data-cls="{Tile.M5.index}"]',
                 "#strip .add-chip >> nth=0", id="a-missed-tile-added-by-the-rows-plus"),  # its first tile may change
    pytest.param("server_kong_down", "#strip .group >> nth=2 >> .add-chip", f'#faces button[data-cls="{Tile.P9.index}"]',
                 "#strip .group >> nth=2 >> .chip >> nth=-1", id="a-pung-made-a-kong-by-its-plus"),  # its + gone
    pytest.param("server_win_in_row", '#win-options button[data-tile="1m"]', None,
                 '#win-options button[data-tile="1m"]', id="which-tile-won"),
    pytest.param("server_kong_down", '#kong-options button[data-tile="中"]', None, "#score-heading",
                 id="a-face-down-kong-named-and-its-question-gone"),
]


@pytest.mark.parametrize(("fixture", "opener", "choice", "focused"), AFTER_A_CHOICE)
def test_after_a_choice_by_keyboard_focus_stays_where_the_player_was(request, fixture, opener, choice, focused):
    from playwright.sync_api import expect

    with uploaded(request.getfixturevalue(fixture)) as page:
        page.wait_for_function("state.pending === 0 && state.reading === 0 && state.data !== null")
        asked = page.evaluate("state.asked")
        page.locator(opener).focus()
        page.keyboard.press("Enter")
        if choice:
            expect(page.locator("#picker")).to_be_visible()
            page.locator(choice).focus()
            page.keyboard.press("Enter")
            expect(page.locator("#picker")).to_be_hidden()
        page.wait_for_function("(n) => state.asked > n && state.pending === 0", arg=asked)  # scored, drawn again
        expect(page.locator(focused)).to_be_focused()


# A button that its own tap switches off hands focus on to the next thing to do, not to the top of the page: as
# (what to set up before, the button, where focus goes).
SWITCHED_OFF = [
    pytest.param(None, "#add-hand", "#undo-hand", id="a-hand-added"),
    pytest.param("#add-hand", "#undo-hand", "#redo-hand", id="the-last-hand-undone"),  # to put it back at once
    pytest.param("#add-hand #undo-hand", "#redo-hand", "#undo-hand", id="the-hand-undone-redone"),
    pytest.param("#add-hand #new-game", "#restore-game", "#undo-hand", id="the-previous-game-brought-back"),
    pytest.param("#rule-hai_di_pao", "#rules-reset", "#rule-flower_additions", id="the-rules-reset"),
]


@pytest.mark.parametrize(("before", "button", "focused"), SWITCHED_OFF)
def test_a_button_that_switches_itself_off_hands_focus_on(server_ok, before, button, focused):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate("document.querySelectorAll('#table-box, #rules-box').forEach((d) => { d.open = true; })")
        page.wait_for_function("state.pending === 0")
        if before == "#rule-hai_di_pao":
            page.locator(before).select_option(index=1)  # a rule changed: the rules can be reset
        elif before:
            page.on("dialog", lambda dialog: dialog.accept())  # a new game, asked first
            for tap in before.split():
                page.locator(tap).click()
        page.wait_for_function("state.pending === 0")
        page.locator(button).focus()
        page.keyboard.press("Enter")
        expect(page.locator(button)).to_be_disabled()
        expect(page.locator(focused)).to_be_focused()


def test_the_score_is_a_heading_and_said_again_whenever_it_changes(server):
    from playwright.sync_api import expect

    with uploaded(server) as page:  # the 2s read as 3s: scored as the likeliest legal hand
        expect(page.locator("#total")).to_have_text("3")
        heading = page.get_by_role("heading", level=2, name="3 炮 pao")  # reached by a screen reader's heading keys
        expect(heading).to_be_visible()
        region = page.locator("[aria-live]").filter(has=page.locator("#total"))  # said when its words change
        expect(region).to_have_count(1)
        expect(region).to_have_attribute("aria-live", "polite")
        expect(region).to_have_attribute("aria-atomic", "true")  # the whole score, not the one word that changed
        expect(region.locator("#verdict")).to_have_text("胡牌 valid win")
        page.locator("#as_read").check()  # scored as read: a false win, said in the same place
        expect(region).to_contain_text("诈胡")
        expect(page.locator("#status")).to_have_attribute("role", "status")  # and errors where they are said


@pytest.mark.parametrize(("lang", "on_photo", "listed"), [
    pytest.param("both", "第 13 张 三条 tile 13 3s", r"^第 13 张 tile 13 三条 0\.\d\d$", id="both"),
    pytest.param("zh", "第 13 张 三条", r"^第 13 张 三条 0\.\d\d$", id="chinese"),
    pytest.param("en", "tile 13 3s", r"^tile 13 3s 0\.\d\d$", id="english"),
])
def test_each_tile_is_named_for_a_screen_reader_in_the_languages_shown(server_ok, lang, on_photo, listed):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.select_option("#lang", lang)
        expect(page.get_by_role("button", name=on_photo, exact=True)).to_have_count(1)
        expect(page.get_by_role("button", name=re.compile(listed))).to_have_count(1)


# Each text drawn too faintly against what lies under it, as "where 'text' ratio": its colour and every background and
# opacity under it composed as the screen shows them; WCAG AA, 4.5:1, or 3:1 for large text (24 px, or bold 18.66 px).
# A control switched off (disabled) has no minimum, as WCAG says.
FAINT = r"""() => {
  const rgba = (s) => { const m = s.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (c, under, a) => [0, 1, 2].map((k) => c[k] * a + under[k] * (1 - a));
  const lum = (c) => c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, k) => s + v * [0.2126, 0.7152, 0.0722][k], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.nodeValue.trim() || !el || ['SCRIPT', 'STYLE', 'OPTION'].includes(el.tagName)) continue;
    if (!el.checkVisibility({ checkVisibilityCSS: true }) || el.closest(':disabled')) continue;
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    let ground = [255, 255, 255];
    const layers = [];  // each element's opacity, and what lies under it
    for (const e of chain) {
      const cs = getComputedStyle(e), bg = rgba(cs.backgroundColor);
      layers.push([ground, Number(cs.opacity)]);
      ground = over(bg, ground, bg[3]);
    }
    const cs = getComputedStyle(el), fg = rgba(cs.color);
    let text = over(fg, ground, fg[3]), back = ground;
    for (const [under, opacity] of layers.reverse()) {
      text = over(text, under, opacity);
      back = over(back, under, opacity);
    }
    const size = parseFloat(cs.fontSize), large = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66);
    const r = ratio(text, back);
    if (r < (large ? 3 : 4.5)) out.push(`${el.id || el.className || el.tagName} '${n.nodeValue.trim()}' ${r.toFixed(2)}`);
  }
  return Array.from(new Set(out));
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_every_text_stands_out_from_its_background(server_foreign, lang):
    from playwright.sync_api import expect

    with uploaded(server_foreign) as page:  # a wind read as 发, listed as not counted
        page.wait_for_function("state.pending === 0 && state.reading === 0 && state.data !== null")
        page.select_option("#lang", lang)
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        expect(page.locator("#pao-table tr.off").first).to_be_visible()  # what these rules do not count
        expect(page.locator("#strip .chip.left-out")).to_have_count(1)
        page.wait_for_function("state.pending === 0")
        assert page.evaluate(FAINT) == []
        page.locator("#strip .chip").first.click()  # the picker: its red, grey and blue actions
        expect(page.locator("#picker")).to_be_visible()
        assert page.evaluate(FAINT) == []


# Each visible control a finger taps under 44 × 44 CSS px (WCAG 2.5.5), as "where W×H": a checkbox or radio is tapped
# through its label; the tiles' boxes on the photo are as big as the tiles in it (the zoom makes them bigger).
SMALL = r"""() => Array.from(document.querySelectorAll(
    'button, summary, select, a[href], input[type=text], input:not([type]), input[type=checkbox], input[type=radio]'))
  .filter((e) => !e.closest('#hits') && e.getClientRects().length)
  .map((e) => [e, (e.type === 'checkbox' || e.type === 'radio') && e.closest('label') || e])
  .map(([e, hit]) => [e, hit.getBoundingClientRect()])
  .filter(([e, r]) => r.height < 43.5 || r.width < 43.5)
  .map(([e, r]) => (e.id || e.className || e.tagName) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))"""


@pytest.mark.parametrize("lang", LANGS)
def test_every_control_is_at_least_44_px_a_side(server_ok, lang):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.select_option("#lang", lang)
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_function("state.pending === 0")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        expect(page.locator("#score-peek")).to_be_visible()
        assert page.evaluate(SMALL) == []
        page.locator("#strip .chip").first.click()
        expect(page.locator("#picker")).to_be_visible()
        assert page.evaluate(SMALL) == []


# Where focus is now: what has it, whether it is drawn (an outline; a file input's on its label), and whether the score
# floating at the foot of the screen lies over it.
FOCUS = r"""() => {
  const e = document.activeElement, peek = document.getElementById('score-peek');
  const shown = e.type === 'file' ? e.nextElementSibling : e;
  const r = shown.getBoundingClientRect(), q = peek.getBoundingClientRect();
  const cs = getComputedStyle(shown);
  return { where: e.id || e.className || e.tagName, ring: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0,
    under: !peek.hidden && r.bottom > q.top && r.top < q.bottom && r.right > q.left && r.left < q.right };
}"""


def test_by_keyboard_alone_each_control_is_reached_in_turn_shown_and_never_under_the_floating_score(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_function("state.pending === 0")
        page.evaluate("window.scrollTo(0, 0)")
        page.locator("#photo").focus()
        reached, hidden, unmarked = [], [], []
        for _ in range(200):  # the page's controls, one Tab at a time, to the language menu, the last
            page.keyboard.press("Tab")
            now = page.evaluate(FOCUS)
            reached.append(now["where"])
            if now["under"]:
                hidden.append(now["where"])
            if not now["ring"]:
                unmarked.append(now["where"])
            if now["where"] == "lang":
                break
        assert reached[-1] == "lang"  # no control keeps the focus from moving on
        assert {"photo-pick", "self_draw", "SUMMARY", "rule-flower_additions", "zoom", "hit", "chip", "save-labels",
                "seat-dealer", "seat-name", "winner", "add-hand", "drawn-hand", "copy-tally"} <= {
            w.split(" ")[0] for w in reached}
        assert unmarked == []
        assert hidden == []
