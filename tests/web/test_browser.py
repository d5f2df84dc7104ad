"""The page in a real headless Chromium (Playwright): upload → correct a tile → the score changes.

Uses /usr/bin/chromium (Debian's ``chromium`` package). Where it is missing and we are root
with apt-get, the test installs it; it skips, saying why, only where no browser can be had.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
from web_helpers import (
    HEIGHT,
    WIDTH,
    FakeDetector,
    extra_box_detections,
    foreign_fa_detections,
    jpeg_bytes,
    kong_down_detections,
    layout_detections,
    missed_tile_detections,
    stray_fa_detections,
    tray_detections,
)

from xingzi.engine.tiles import Tile
from xingzi.web.loadtest import start_server

MISSED, MISSED_BOX = missed_tile_detections()

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


def find_chromium() -> str | None:
    for path in CANDIDATES:
        if Path(path).is_file():
            return path
    return shutil.which("chromium")


def chromium_or_skip() -> str:
    path = find_chromium()
    if path is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        for cmd in (["apt-get", "install", "-y", "-q", "chromium"], ["apt-get", "update", "-q"],
                    ["apt-get", "install", "-y", "-q", "chromium"]):
            subprocess.run(cmd, env=env, capture_output=True, timeout=900, check=False)
            path = find_chromium()
            if path:
                break
    if path is None:
        pytest.skip("no Chromium: install Debian's 'chromium' package (apt-get install -y chromium)")
    return path


def _serve_with(detector, **options):
    url, srv, thread = start_server(detector, **options)
    yield url
    srv.should_exit = True
    thread.join(timeout=10)


def _serve(detections):
    yield from _serve_with(FakeDetector(detections))


@pytest.fixture(scope="module")
def server():
    yield from _serve(layout_detections(misread_2s_as_3s=True))


@pytest.fixture(scope="module")
def server_win_in_row():
    yield from _serve(layout_detections(win_apart=False))


@pytest.fixture(scope="module")
def server_extra_box():
    yield from _serve(extra_box_detections())


@pytest.fixture(scope="module")
def server_kong_down():
    yield from _serve(kong_down_detections())


@pytest.fixture(scope="module")
def server_stray_fa():
    yield from _serve(stray_fa_detections())


@pytest.fixture(scope="module")
def server_foreign():
    yield from _serve(foreign_fa_detections())


@pytest.fixture(scope="module")
def server_tray():
    yield from _serve(tray_detections())


@pytest.fixture(scope="module")
def server_ok():
    yield from _serve(layout_detections())


@pytest.fixture(scope="module")
def server_missed():
    yield from _serve(MISSED)


@pytest.fixture(scope="module")
def server_collecting(tmp_path_factory):
    folder = tmp_path_factory.mktemp("collected")
    for url in _serve_with(FakeDetector(layout_detections()), collect=folder):
        yield url, folder


@contextmanager
def opened(url: str):
    """A phone-sized page of ``url`` in headless Chromium; yields the page."""
    executable = chromium_or_skip()
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 412, "height": 915}, device_scale_factor=1)
            page.goto(url)
            expect(page.locator("#faces button")).to_have_count(31)
            yield page
        finally:
            browser.close()


@contextmanager
def uploaded(url: str):
    """:func:`opened` with a photo uploaded."""
    with opened(url) as page:
        page.set_input_files("#photo", files=[{"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes()}])
        yield page


def test_upload_correct_a_tile_and_toggle_self_draw(server, tmp_path):
    from playwright.sync_api import expect

    with uploaded(server) as page:
        # the 2s read as 3s: scored as the likeliest legal hand, and the page says what it changed
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#problems")).to_contain_text("read tile #10 3s as 2s")
        page.locator("#as_read").check()  # exactly as read: no hand
        expect(page.locator("#verdict")).to_contain_text("诈胡")
        expect(page.locator(".hit")).to_have_count(14)
        expect(page.locator(".tag-hit")).to_have_count(14)  # each tile's label drawn on the photo opens it too
        page.locator('.tag-hit[data-index="10"]').click()
        expect(page.locator("#picker")).to_be_visible()
        expect(page.locator("#picker-title")).to_contain_text("改为")  # the tile's picker, not "add a tile here"
        expect(page.locator("#picker-current")).to_have_text("三条")
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
        page.locator('#payers .payer[data-payer="1"] select[data-key="fa"]').select_option("3")  # 2 + 3 > 4 发
        expect(page.locator("#verdict")).to_contain_text("more than four 发")


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


def test_setting_a_stray_tile_aside(server_stray_fa):
    from playwright.sync_api import expect

    with uploaded(server_stray_fa) as page:
        expect(page.locator("#total")).to_have_text("4")  # the stray 发 counted as a bonus tile
        page.locator('.hit[data-index="14"]').click()
        page.locator("#set-aside").click()
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator("#problems")).to_contain_text("1 tile(s) set aside as not part of the hand")
        expect(page.locator("#problems li").first).to_contain_text("1 张牌已设为不属于这手牌")  # Chinese first
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
    files = [{"name": f"table_{k}.jpg", "mimeType": "image/jpeg", "buffer": jpeg_bytes(WIDTH - 40 * k, HEIGHT)}
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
        expect(page.locator("#mark-win")).to_be_hidden()
        expect(page.locator("#alts")).to_be_hidden()  # no reading to offer others of
        page.locator(f'#faces button[data-cls="{Tile.M5.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("valid win")
        expect(page.locator("#total")).to_have_text("3")
        expect(page.locator(".hit")).to_have_count(14)
        expect(page.locator("#notation")).to_have_text("123456m55789p12s 3s")
        page.locator('.hit[data-index="13"]').click()  # the added tile is a tile like the others: correct it
        expect(page.locator("#picker-title")).to_contain_text("Change to")
        expect(page.locator("#picker-current")).to_have_text("五万")
        expect(page.locator("#mark-win")).to_be_visible()
        page.locator(f'#faces button[data-cls="{Tile.M4.index}"]').click()
        expect(page.locator("#verdict")).to_contain_text("诈胡")


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
    for url in _serve_with(detector):
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
    pytest.param("big.png", "image/png", lambda: _big_png(4000, 3000), (1200, 1600, 3), "image/jpeg",
                 id="36MB-png-shrunk"),  # the server refuses uploads over 12 MB: this one came shrunk
    pytest.param("turned.jpg", "image/jpeg", _turned_jpeg, (1600, 1200, 3), "image/jpeg",
                 id="exif-turned-jpeg-stays-portrait"),
    pytest.param("IMG_0001.HEIC", "image/heic", _heic, (480, 640, 3), "image/heic",
                 id="heic-sent-as-it-is"),  # Chromium cannot decode HEIC: the server does
])
def test_the_page_shrinks_large_photos_before_uploading_them(server_recording, name, mime, make, seen, sent_as):
    from playwright.sync_api import expect

    url, detector = server_recording
    data = make()
    types = []
    with opened(url) as page:
        page.on("request", lambda r: types.append(r.headers.get("content-type")) if "/api/read" in r.url else None)
        page.set_input_files("#photo", files=[{"name": name, "mimeType": mime, "buffer": data}])
        expect(page.locator("#verdict")).to_contain_text("valid win", timeout=30_000)
    assert detector.shapes[-1] == seen
    assert types == [sent_as]


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
        assert asked == ["跟庄: 南 付每家 pays each 2?"]
        expect(page.locator('.seat[data-seat="1"] .seat-dealer')).to_be_checked()  # play goes on: the deal stays
        page.locator("#undo-hand").click()
        page.locator('.seat[data-seat="2"] .seat-name').fill("Ann")
        page.locator('.seat[data-seat="2"] .seat-name').press("Enter")
        expect(page.locator("#winner option")).to_have_text(["东", "南", "Ann", "北"])
        page.reload()  # kept in this browser
        expect(page.locator("#faces button")).to_have_count(31)
        page.locator("#table-box summary").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["-6", "+6", "0", "0"])
        expect(page.locator('.seat[data-seat="2"] .seat-name')).to_have_value("Ann")
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-game").click()
        expect(page.locator("#seats .seat-total")).to_have_text(["0", "0", "0", "0"])
        expect(page.locator("#hands li")).to_have_count(0)
        expect(page.locator("#undo-hand")).to_be_disabled()


def test_the_score_follows_the_player_up_the_page(server_ok):
    from playwright.sync_api import expect

    with uploaded(server_ok) as page:
        page.set_viewport_size({"width": 360, "height": 640})  # a small phone
        expect(page.locator("#total")).to_have_text("3")
        page.locator("#total").scroll_into_view_if_needed()
        expect(page.locator("#score-peek")).to_be_hidden()  # the score itself in view: no bar
        page.evaluate("window.scrollTo(0, 0)")  # up to the toggles: the score is out of view
        expect(page.locator("#score-peek")).to_be_visible()
        expect(page.locator("#score-peek")).to_have_text("3 炮 · 胡牌")
        page.locator("#self_draw").check()
        expect(page.locator("#score-peek")).to_have_text("4 炮 · 胡牌")  # a change above the score, seen at once
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
        page.wait_for_timeout(300)
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
