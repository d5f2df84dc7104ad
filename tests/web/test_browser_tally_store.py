"""The tally as the browser keeps it, in headless Chromium: two tabs of the page, storage that cannot keep it, and a
stored tally that cannot be read. Nothing a table counted is lost without a word."""

from __future__ import annotations

import json

from browser import opened, shared_chromium

KEY = "xingzi.table.v1"


def _totals(page) -> list[str]:
    return [t.strip() for t in page.locator("#seats .seat-total").all_text_contents()]


def _drawn_hand(page) -> None:
    """黄庄 added (moves no points, is written down): the tally as one more hand."""
    page.locator("#drawn-hand").click()


def test_a_tab_shows_what_another_tab_added_and_adds_after_it(server_ok):
    from playwright.sync_api import expect

    context = shared_chromium().new_context(viewport={"width": 412, "height": 915})
    try:
        first, second = context.new_page(), context.new_page()  # one phone, two tabs of the page
        for page in (first, second):
            page.goto(server_ok)
            expect(page.locator("#faces button")).to_have_count(31)
            page.evaluate("document.getElementById('table-box').open = true")  # (the first tab's open box is kept)
        _drawn_hand(first)
        expect(first.locator("#hands li")).to_have_count(1)
        # the other tab, open all along, shows it and says why (it kept its own copy, and wrote it over at its next tap)
        expect(second.locator("#hands li")).to_have_count(1)
        expect(second.locator("#tally-status")).to_contain_text("The tally was changed in another tab")
        _drawn_hand(second)
        expect(second.locator("#hands li")).to_have_count(2)
        expect(first.locator("#hands li")).to_have_count(2)
        first.reload()
        first.locator("#table-box summary").click()
        expect(first.locator("#hands li")).to_have_count(2)  # both hands kept
        assert len(json.loads(first.evaluate(f"localStorage.getItem('{KEY}')"))["hands"]) == 2
    finally:
        context.close()


def test_a_tally_the_browser_cannot_keep_is_said_so_with_each_hand(server_ok):
    from playwright.sync_api import expect

    with opened(server_ok) as page:
        page.locator("#table-box summary").click()
        page.evaluate("""() => { Storage.prototype.setItem = function () {
            throw new DOMException("quota", "QuotaExceededError"); }; }""")  # full, or blocked as in private mode
        _drawn_hand(page)
        expect(page.locator("#hands li")).to_have_count(1)  # counted on this page
        expect(page.locator("#tally-status")).to_contain_text("this browser is not keeping the tally: copy it as text")
        expect(page.locator("#tally-status")).to_contain_text("黄庄")


def test_a_stored_tally_that_cannot_be_read_is_kept_aside_and_said(server_ok):
    from playwright.sync_api import expect

    damaged = json.dumps({"names": ["a", "b", "c", "d"], "totals": [1, 2, 3, -6], "dealer": 0, "winner": 1,
                          "discarder": 0, "hands": [{"deltas": "oops", "dealer": 0}]})
    with opened(server_ok) as page:
        page.evaluate(f"localStorage.setItem('{KEY}', {json.dumps(damaged)})")
        page.reload()
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#table-box summary").click()
        assert _totals(page) == ["0", "0", "0", "0"]  # a new tally begun …
        expect(page.locator("#tally-status")).to_contain_text("could not be read: it is kept aside "
                                                              "(xingzi.table.v1.damaged)")
        _drawn_hand(page)
        assert page.evaluate(f"localStorage.getItem('{KEY}.damaged')") == damaged  # … the old one not written over


def test_a_hand_undone_in_one_tab_is_redone_in_another(server_ok):
    from playwright.sync_api import expect

    context = shared_chromium().new_context(viewport={"width": 412, "height": 915})
    try:
        first, second = context.new_page(), context.new_page()
        for page in (first, second):
            page.goto(server_ok)
            expect(page.locator("#faces button")).to_have_count(31)
            page.evaluate("document.getElementById('table-box').open = true")
        _drawn_hand(first)
        first.locator("#undo-hand").click()
        expect(second.locator("#hands li")).to_have_count(0)
        second.locator("#redo-hand").click()  # what the other tab undid, kept with the tally
        expect(second.locator("#hands li")).to_have_text(["1. 黄庄 东 连庄 keeps the deal"])
        expect(first.locator("#hands li")).to_have_count(1)
        expect(first.locator("#redo-hand")).to_be_disabled()
    finally:
        context.close()


def test_a_damaged_hand_undone_or_game_kept_before_is_kept_aside_as_a_damaged_tally_is(server_ok):
    from playwright.sync_api import expect

    good = {"names": ["", "", "", ""], "totals": [0, 0, 0, 0], "dealer": 0, "winner": 1, "discarder": 0, "hands": []}
    for extra in ({"undone": [{"hand": {"deltas": [1, 2], "dealer": 0}, "at": 0, "dealer": 0, "winner": 1,
                               "discarder": 0, "same": False}]},
                  {"previous": dict(good, totals=[1, 2, 3])}):
        damaged = json.dumps(dict(good, totals=[5, -5, 0, 0], **extra))
        with opened(server_ok) as page:
            page.evaluate(f"localStorage.setItem('{KEY}', {json.dumps(damaged)})")
            page.reload()
            expect(page.locator("#faces button")).to_have_count(31)
            page.locator("#table-box summary").click()
            assert _totals(page) == ["0", "0", "0", "0"]
            expect(page.locator("#tally-status")).to_contain_text("kept aside (xingzi.table.v1.damaged)")
            assert page.evaluate(f"localStorage.getItem('{KEY}.damaged')") == damaged
