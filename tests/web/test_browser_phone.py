"""The page in headless Chromium at a small phone's size, by keyboard and by screen reader: nothing cut off, every
control big enough to tap and named in both languages, refusals said in Chinese too."""

from __future__ import annotations

import re

import pytest
from browser import on_phone, opened, read_photo, uploaded
from web_helpers import jpeg_bytes

# Each visible control, with its height or width when under 40 px (a finger's width); tile boxes on the photo are as
# big as the tiles in it, and a checkbox or radio in a label is tapped through its label; a menu is as narrow as its
# longest choice (a 0–4 count) unless told otherwise.
SMALL_TARGETS = """() => Array.from(document.querySelectorAll(
    'button, summary, select, input[type=text], input:not([type]), input[type=checkbox], input[type=radio]'))
  .filter((e) => !e.closest('#hits') && e.getClientRects().length)
  .map((e) => [e, (e.type === 'checkbox' || e.type === 'radio') && e.closest('label') || e])
  .filter(([e, hit]) => hit.getBoundingClientRect().height < 39.5
    || (e.type === 'checkbox' || e.type === 'radio' || e.tagName === 'SELECT') && hit.getBoundingClientRect().width < 39.5)
  .map(([e, hit]) => (e.id || e.className || e.tagName) + ' ' + Math.round(hit.getBoundingClientRect().width) + 'x'
    + Math.round(hit.getBoundingClientRect().height) + 'px')"""


def test_on_a_small_phone_nothing_is_cut_off_and_every_control_is_big_enough_to_tap(server_ok):
    from playwright.sync_api import expect

    with on_phone(server_ok) as page:
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        settle(page)  # the tally's fold, opened, rescores
        expect(page.locator("#add-hand")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scrolling
        assert page.evaluate(SMALL_TARGETS) == []
        page.locator('.seat[data-seat="3"] .seat-dealer-pick').tap(position={"x": 3, "y": 3})  # beside the radio
        expect(page.locator('.seat[data-seat="3"] .seat-dealer')).to_be_checked()
        page.locator("#strip button").first.tap()  # a tile's picker: its actions and the 31 faces
        expect(page.locator("#picker")).to_be_visible()
        assert page.evaluate(SMALL_TARGETS) == []
        page.get_by_role("button", name="取消 Cancel").tap()
        expect(page.locator("#picker")).to_be_hidden()
        page.locator("#copy-tally").click()  # the tally as text, the last thing on the page
        expect(page.locator("#tally-text")).to_be_visible()
        expect(page.locator("#tally-status")).not_to_be_empty()  # copied: the line saying so is in place
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        expect(page.locator("#score-peek")).to_be_visible()  # the score is out of view at the foot of the page
        last = page.locator("#tally-text").bounding_box()
        hit = "([x, y]) => document.elementFromPoint(x, y).closest('#tally-text') !== null"
        for x in (last["x"] + 4, last["x"] + last["width"] / 2, last["x"] + last["width"] - 4):
            assert page.evaluate(hit, [x, last["y"] + last["height"] - 4])  # not under the floating score


def test_the_photo_buttons_are_reached_and_used_by_keyboard(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.on("filechooser", lambda chooser: None)  # asks Chromium for its file choosers now, not racing the key
        page.keyboard.press("Tab")  # the first thing on the page: taking a photo
        expect(page.locator("#photo")).to_be_focused()
        expect(page.get_by_role("button", name="拍照 Take a photo")).to_be_focused()
        page.keyboard.press("Tab")
        expect(page.get_by_role("button", name="选照片 Choose a photo")).to_be_focused()
        with page.expect_file_chooser() as chooser:
            page.keyboard.press(" ")
        chooser.value.set_files(files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")


def test_a_stale_score_says_so_in_full_colour_and_a_refused_photo_says_why_in_chinese(server_ok):
    from playwright.sync_api import expect

    # how see-through an element looks: its own opacity times all its ancestors'
    seen = "(id) => { let o = 1; for (let e = document.getElementById(id); e; e = e.parentElement) " \
           "o *= Number(getComputedStyle(e).opacity); return o; }"
    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.set_input_files("#photo", files=[{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"not a photo"}])
        expect(page.locator("#status")).to_contain_text("读不了这个文件（不是照片，或已损坏） not an image")
        expect(page.locator("#verdict")).to_contain_text("这张照片没读成")
        assert page.evaluate(seen, "total") < 0.5  # the old score greyed...
        assert page.evaluate(seen, "verdict") == 1  # ...the words saying it is out of date not
        big = b"\xff\xd8" + bytes(13 * 2**20)  # over the 12 MB limit, and no picture the page can shrink
        page.set_input_files("#photo", files=[{"name": "big.jpg", "mimeType": "image/jpeg", "buffer": big}])
        expect(page.locator("#status")).to_contain_text("照片太大（13.0 兆，上限 12 兆） upload of 13.0 MiB is over the 12 MiB "
                                                        "limit")  # the server's Chinese, sizes and all
        page.route("**/api/read*", lambda route: route.abort())  # off the table's Wi-Fi
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#status")).to_contain_text("连不上服务器 the server cannot be reached")


def test_every_payer_field_and_seat_is_named_in_both_languages(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#payers-box summary").click()
        for name in ["发 fa", "明杠 万筒条 suit kongs", "暗杠 万筒条 concealed suit kongs", "中 zhong set",
                     "白 bai set"]:
            expect(page.get_by_role("combobox", name=name, exact=True)).to_have_count(1)
        expect(page.locator('#payers select[data-key="zhong"] option')).to_have_text(
            ["—", "碰 pung", "明杠 kong", "暗杠 concealed kong"])
        page.locator("#table-box summary").click()
        expect(page.get_by_role("textbox", name="座位 2 名字 seat 2 name")).to_have_value("南")
        expect(page.get_by_role("radio", name="庄家 dealer: 东")).to_be_checked()  # which seat deals, by name
        page.get_by_role("radio", name="庄家 dealer: 西").check()
        expect(page.locator('.seat[data-seat="2"] .seat-dealer')).to_be_checked()


def test_the_score_before_is_dimmed_and_untouchable_while_the_next_photo_is_read(server_ok):
    from playwright.sync_api import expect

    held = []
    with uploaded(server_ok) as page:
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#result")).to_have_attribute("aria-busy", "false")
        page.route("**/api/read*", lambda route: held.append(route))  # the next photo's answer held back
        page.set_input_files("#photo", files=[{"name": "next.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#result")).to_have_attribute("aria-busy", "true")
        expect(page.locator("#result")).to_have_class(re.compile(r"\breading\b"))
        expect(page.locator("#status")).to_contain_text("读取中")
        assert page.locator("#result").evaluate("(e) => getComputedStyle(e).pointerEvents") == "none"
        # nor by the keyboard: Forget pressed now forgot the photo before, and the next one came unsaid (session 70)
        page.locator("#forget-photo").evaluate("(b) => b.focus()")
        assert page.evaluate("document.activeElement.id") != "forget-photo"
        held[0].continue_()
        expect(page.locator("#result")).to_have_attribute("aria-busy", "false")
        page.locator("#forget-photo").focus()
        assert page.evaluate("document.activeElement.id") == "forget-photo"
        expect(page.locator("#result")).not_to_have_class(re.compile(r"\breading\b"))
        expect(page.locator("#total")).to_have_text("3")


def test_a_tick_changed_while_the_photo_is_read_is_in_the_score_shown(server_ok):
    """The photo went with 自摸 unticked; the player ticks it before the answer comes: the score shown is the
    self-drawn one, not the one the read was asked for."""
    from playwright.sync_api import expect

    held = []
    with opened(server_ok) as page:
        page.route("**/api/read*", lambda route: held.append(route))
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        page.wait_for_function("state.reading === 1")
        page.locator("#self_draw").check()
        held[0].continue_()
        expect(page.locator("#total")).to_have_text("4")  # 自摸 adds 1 to 3 炮
        expect(page.locator("#payments li")).to_have_count(3)  # three pay a self-drawn win
        assert "self_draw=false" in held[0].request.url  # (the read itself was asked without it)


def test_on_a_small_phone_the_photo_zooms_in_scrolls_and_its_tiles_can_still_be_tapped(server_ok):
    from playwright.sync_api import expect

    width = 360
    box = "() => { const b = document.getElementById('zoom-box'); " \
          "return [b.scrollWidth, b.clientWidth, b.scrollHeight, b.clientHeight]; }"
    with on_phone(server_ok, width=width) as page:
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")
        photo, zoom = page.locator("#annotated"), page.get_by_role("button", name="放大 Zoom")
        fit = photo.bounding_box()["width"]
        assert fit <= width
        tile = page.locator('.hit[data-index="13"]')  # the 3s set apart, the winning tile, at the hand's right end
        small = tile.bounding_box()["width"]
        expect(zoom).to_have_attribute("aria-pressed", "false")
        zoom.tap()
        expect(zoom).to_have_attribute("aria-pressed", "true")
        assert photo.bounding_box()["width"] >= 2 * width
        scroll_width, client_width, _, _ = page.evaluate(box)
        assert scroll_width > client_width  # the photo scrolls sideways in its box...
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # ...the page itself does not
        assert tile.bounding_box()["width"] >= 2 * small - 1  # the tap targets grew with the photo
        assert zoom.bounding_box()["height"] >= 39.5
        seen = page.locator("#zoom-box").bounding_box()
        assert tile.bounding_box()["x"] >= seen["x"] + seen["width"]  # the hand is wider than the box: out of view
        tile.scroll_into_view_if_needed()
        assert seen["x"] <= tile.bounding_box()["x"] <= seen["x"] + seen["width"] - small
        tile.tap()
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-current")).to_have_text("三条")
        page.get_by_role("button", name="取消 Cancel").tap()
        expect(page.locator("#picker")).to_be_hidden()
        zoom.tap()  # back to the page's width
        expect(zoom).to_have_attribute("aria-pressed", "false")
        assert abs(photo.bounding_box()["width"] - fit) < 1
        scroll_width, client_width, _, _ = page.evaluate(box)
        assert scroll_width <= client_width
        zoom.tap()  # a new photo read while zoomed: read and shown whole
        expect(zoom).to_have_attribute("aria-pressed", "true")
        page.set_input_files("#photo", files=[{"name": "next.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(zoom).to_have_attribute("aria-pressed", "false")
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator(".hit")).to_have_count(14)
        assert abs(photo.bounding_box()["width"] - fit) < 1


def test_of_two_photos_chosen_one_after_the_other_the_last_is_shown_whichever_is_read_first(server_ok):
    from playwright.sync_api import expect

    held = []  # the first photo's answer is held back until the second's has been shown
    with opened(server_ok) as page:
        page.route("**/api/read*", lambda route: held.append(route) if not held else route.continue_())
        for name in ("first.jpg", "second.jpg"):
            page.set_input_files("#photo", files=[{"name": name, "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator("#total")).to_have_text("3")
        answer = held[0].fetch()
        held[0].fulfill(response=answer, json={**answer.json(), "own": 99, "token": "first"})  # told apart by these
        page.wait_for_function("state.reading === 0")
        expect(page.locator("#total")).to_have_text("3")
        assert page.evaluate("state.token") != "first"


def test_events_and_payers_left_set_from_the_last_hand_are_said_on_their_folds(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        expect(page.locator("#events-set")).to_have_text("")
        page.locator("#events").locator("xpath=..").locator("summary").click()
        page.locator("#ev-robbing_kong").check()
        page.locator("#payers-box summary").click()
        page.locator('#payers [data-key="fa"]').select_option("1")
        expect(page.locator("#total")).to_have_text("13")
        page.locator("#events").locator("xpath=..").locator("summary").click()  # folded away again
        page.locator("#payers-box summary").click()
        read_photo(page, "next.jpg")
        expect(page.locator("#events-set")).to_have_text("：抢杠")  # kept for the next photo, and seen to be
        expect(page.locator("#payers-set")).to_have_text("：已设 1 家")
        page.locator("#events").locator("xpath=..").locator("summary").click()
        page.locator("#ev-robbing_kong").uncheck()
        expect(page.locator("#events-set")).to_have_text("")
        expect(page.locator("#total")).to_have_text("3")


def test_a_finger_on_bare_photo_beside_a_tile_adds_one_there_and_on_a_tile_opens_that_tile(server_missed):
    """Chromium moves a touch tap onto the nearest button in the finger's reach: a tap where the missed 5m lies,
    beside the row, opened a neighbour's picker (a mouse click there opened "add"). The point under the finger
    decides (session 70)."""
    from playwright.sync_api import expect
    from web_helpers import HEIGHT, WIDTH, missed_tile_detections

    _, missed = missed_tile_detections()
    with on_phone(server_missed) as page:
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        expect(page.locator(".hit")).to_have_count(13)
        page.locator("#hits").scroll_into_view_if_needed()
        layer = page.locator("#hits").bounding_box()

        def at(x, y):  # a point of the photo on the screen
            return layer["x"] + float(x) / WIDTH * layer["width"], layer["y"] + float(y) / HEIGHT * layer["height"]

        page.touchscreen.tap(*at((missed[0] + missed[2]) / 2, (missed[1] + missed[3]) / 2))
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-title")).to_contain_text("Add a tile here")
        page.keyboard.press("Escape")
        expect(page.locator("#picker")).to_be_hidden()
        tile = page.evaluate("state.data.reading.tiles[4]")
        x0, y0, x1, y1 = tile["xyxy"]
        page.touchscreen.tap(*at((x0 + x1) / 2, (y0 + y1) / 2))  # on a tile: that tile, as before
        expect(page.locator("#picker-title")).to_contain_text("Read as")
        assert page.evaluate("state.picking.index") == tile["index"]


# Every control whose centre is on the screen and under which a tap there would not land on it: what lies there
# instead. Waited three frames for, so that the page has done whatever a scroll sets off.
UNTAPPABLE = """async () => {
  for (let i = 0; i < 3; i++) await new Promise((ok) => requestAnimationFrame(ok));
  const out = [];
  for (const e of document.querySelectorAll('button, summary, select, textarea, a[href], label, input:not([type=file])')) {
    if (!e.checkVisibility({ visibilityProperty: true }) || e.closest('dialog')) continue;
    const r = e.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (!r.width || !r.height || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
    const at = document.elementFromPoint(x, y);  // null: off the screen after all
    if (at && at !== e && !e.contains(at)) out.push((e.id || e.className || e.tagName) + ' under ' + (at.id || at.tagName));
  }
  const peek = document.getElementById('score-peek');
  return { untappable: out, peek: peek.checkVisibility({ visibilityProperty: true }) };
}"""


def settle(page) -> None:
    """Two frames for the events a change queued (a fold's toggle), then no score on its way."""
    page.evaluate("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
    page.wait_for_function("state.pending === 0")


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 640), (320, 568)], ids=["390x844", "360x640", "320x568"])
def test_the_floating_score_never_lies_over_a_control_wherever_the_page_is_scrolled(server_ok, width, height):
    """Scrolled so that a toggle, a menu or a button lies where the score floats at the screen's foot, the score
    stepped aside for it: the tap reached the control, not the score (session 75: it opened the score)."""
    from playwright.sync_api import expect

    with on_phone(server_ok, width=width, height=height) as page:
        read_photo(page)
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")  # every control
        settle(page)  # (the tally's fold, opened, rescores: its toggle event comes a task later)
        end = page.evaluate("document.documentElement.scrollHeight - innerHeight")
        shown, blocked = 0, {}
        for y in range(0, end + 30, 30):  # the pill is 44 px high: every control passes its place
            page.evaluate("(y) => window.scrollTo(0, y)", y)
            seen = page.evaluate(UNTAPPABLE)
            shown += seen["peek"]
            if seen["untappable"]:
                blocked[y] = seen["untappable"]
        assert blocked == {}
        assert shown >= 10  # still there while the score is out of view, where nothing is under it
        settle(page)
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        expect(page.locator("#score-peek")).to_be_visible()  # at the page's foot, under the last button
        page.locator("#copy-tally").tap()  # a control tapped through where it lay under the score
        expect(page.locator("#tally-text")).to_be_visible()


def test_the_floating_score_steps_aside_for_a_control_moved_under_it_without_any_event(server_ok):
    """A control that comes to lie under the score with no scroll, resize or fold to tell of it (here moved by a
    transform, which resizes nothing; on a phone a font arriving or iOS's keyboard closing): the bar still steps aside
    (it looks twice a second), and comes back once the control has moved off it (the CI run of session 78 saw it stay
    aside)."""
    from playwright.sync_api import expect

    with on_phone(server_ok, width=360, height=640) as page:
        read_photo(page)
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        settle(page)  # (the page long enough for the score to be out of view at its foot)
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        expect(page.locator("#score-peek")).to_be_visible()
        page.evaluate("""() => {
          const peek = document.getElementById('score-peek').getBoundingClientRect();
          const link = document.querySelector('#about a').getBoundingClientRect();
          document.getElementById('about').style.transform = `translateY(${peek.top + 4 - link.top}px)`;
        }""")
        expect(page.locator("#score-peek")).to_be_hidden()
        page.evaluate("document.getElementById('about').style.transform = ''")
        expect(page.locator("#score-peek")).to_be_visible()


def test_the_score_bars_timer_throws_nothing_while_the_page_is_still_loading(server_ok):
    """The bar's twice-a-second check starts with peek.js, before app.js (the last script) has come: on a slow
    network it threw "$ is not defined" every half second until app.js ran (found by random taps, session 79)."""
    import time

    from playwright.sync_api import expect

    with on_phone(server_ok) as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/static/app.js", lambda route: (time.sleep(1.5), route.continue_()))
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        page.wait_for_timeout(600)  # a tick of the timer after app.js, too
        assert errors == []


def test_the_floating_score_steps_aside_on_a_browser_without_check_visibility(server_ok):
    """Safari before 17.4 (iOS 16 phones) has no Element.checkVisibility: the score bar's check must not throw there
    (it ran inside the code showing a result, which would have stopped half way) and still steps aside."""
    from playwright.sync_api import expect

    with on_phone(server_ok, width=390, height=844) as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.evaluate("delete Element.prototype.checkVisibility")
        read_photo(page)
        expect(page.locator("#total")).to_have_text("3")
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_function("state.pending === 0")
        end = page.evaluate("document.documentElement.scrollHeight - innerHeight")
        aside, shown = 0, 0
        for y in range(0, end + 30, 30):
            page.evaluate("(y) => window.scrollTo(0, y)", y)
            page.evaluate("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
            state = page.evaluate("(() => { const p = document.getElementById('score-peek');"
                                  " return p.hidden ? '' : p.classList.contains('in-the-way') ? 'aside' : 'shown'; })()")
            aside, shown = aside + (state == "aside"), shown + (state == "shown")
        assert errors == [] and aside > 0 and shown > 0


# Each button of the picker brought into view as a tap would bring it: whether the tap lands on it.
PICKER_UNTAPPABLE = """async () => {
  const out = [];
  for (const b of document.querySelectorAll('#picker button')) {
    if (!b.checkVisibility()) continue;
    b.scrollIntoView({ block: 'nearest' });
    await new Promise((ok) => requestAnimationFrame(ok));
    const r = b.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!at || at.closest('button') !== b || r.bottom > innerHeight + 0.5 || r.top < -0.5) {
      out.push((b.id || b.dataset.cls || b.className) + ' under ' + (at && (at.id || at.className || at.tagName)));
    }
  }
  return out;
}"""


@pytest.mark.parametrize(("width", "height", "tile"), [
    pytest.param(390, 844, "10", id="390x844-likeliest-first"),  # the misread 3s: its likeliest faces offered first
    pytest.param(390, 844, "0", id="390x844"),
    pytest.param(320, 568, "10", id="320x568-likeliest-first"),
    pytest.param(320, 568, "0", id="320x568"),
    pytest.param(568, 320, "10", id="568x320-sideways"),
])
def test_every_face_of_the_picker_and_its_cancel_can_be_seen_and_tapped(server, width, height, tile):
    """The cancel button stayed at the picker's foot over its last row of faces (sticky): brought into view, a face
    there lay under it, and a tap on it cancelled (session 75)."""
    from playwright.sync_api import expect

    with on_phone(server, width=width, height=height) as page:
        read_photo(page)
        page.locator(f'#strip .chip[data-index="{tile}"]').tap()
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#faces button")).to_have_count(31)
        assert page.evaluate(PICKER_UNTAPPABLE) == []
        last = page.locator("#faces button").last  # the last face, tapped: chosen, not cancelled
        cls = int(last.get_attribute("data-cls"))
        last.tap()
        expect(page.locator("#picker")).to_be_hidden()
        page.wait_for_function("([tile, cls]) => state.corrections[tile] === cls", arg=[int(tile), cls])
