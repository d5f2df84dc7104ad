"""The web app with a fake detector: good and bad uploads, corrections, limits, no disk writes."""

from __future__ import annotations

import base64
import io
import json
import re
import struct
import tempfile
import threading
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from photo_bytes import png_header
from PIL import Image
from web_helpers import (
    client_for,
    foreign_fa_detections,
    grid_detections,
    jpeg_bytes,
    kong_down_detections,
    layout_detections,
    missed_tile_detections,
    stray_fa_detections,
    tray_detections,
    two_kongs_detections,
)

from xingzi.engine.tiles import Tile
from xingzi.vision.detections import Detections
from xingzi.web.app import MAX_SESSIONS, create_app

STATIC = Path(create_app.__code__.co_filename).parent / "static"


def huge_jpeg_header(width: int, height: int) -> bytes:
    """A small real JPEG whose frame header (SOF0) is patched to claim ``width`` x ``height``."""
    data = bytearray(jpeg_bytes(16, 16))
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def test_good_photo_is_read_scored_and_annotated(photo):
    client, fake = client_for(layout_detections())
    r = client.post("/api/read", content=photo)
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is True and body["own"] == 3
    assert [i["key"] for i in body["items"]] == ["ping_hu", "concealed", "single_wait"]
    assert body["items"][0]["zh"] == "平胡"
    assert body["reading"]["notation"] == "123456m55789p12s 3s"
    assert sorted(body["sets"]) == ["123m", "123s", "456m", "55p", "789p"] and body["waits"] == ["3s"]  # why 单张
    assert (body["width"], body["height"]) == (1280, 960)
    annotated = Image.open(io.BytesIO(base64.b64decode(body["image"].split(",", 1)[1])))
    assert annotated.size == (1280, 960)
    assert fake.calls == 1


def test_a_heic_photo_from_an_iphone_is_read_like_a_jpeg(photo):
    heic = io.BytesIO()
    Image.open(io.BytesIO(photo)).save(heic, format="HEIF", quality=80)
    client, fake = client_for(layout_detections())
    r = client.post("/api/read", content=heic.getvalue())
    assert r.status_code == 200
    assert r.json()["own"] == 3 and (r.json()["width"], r.json()["height"]) == (1280, 960)
    broken = client.post("/api/read", content=heic.getvalue()[:-300])
    assert broken.status_code == 400 and "cannot be decoded" in broken.json()["error"]
    assert fake.calls == 1


def test_the_payers_tiles_are_eaten_from_the_query_or_the_rescore(photo):
    client, _ = client_for(layout_detections())
    payers = [{"dealer": True, "fa": 2, "melds": ["pung 中"]}]
    read = client.post("/api/read", params={"payers": json.dumps(payers)}, content=photo).json()
    assert read["payments"] == [{"payer": 0, "eaten": 3, "pao": 6, "amount": 12}]
    again = client.post("/api/rescore", json={"token": read["token"], "payers": payers[:0]}).json()
    assert again["payments"] == [{"payer": 0, "eaten": 0, "pao": 3, "amount": 3}]
    three_fa = client.post("/api/rescore", json={"token": read["token"], "payers": [{"fa": 3}]}).json()
    assert three_fa["payments"] == [{"payer": 0, "eaten": 3, "pao": 6, "amount": 6}]
    bad = client.post("/api/read", params={"payers": "[{"}, content=photo)
    assert bad.status_code == 400 and "payers in the query must be JSON" in bad.json()["error"]
    twice = client.post("/api/rescore", content=f'{{"token": "{read["token"]}", "self_draw": true, "self_draw": false}}',
                        headers={"content-type": "application/json"})
    assert twice.status_code == 400 and "key 'self_draw' is given twice in one object" in twice.json()["error"]
    twice = client.post("/api/read", params={"payers": '[{"fa": 1, "fa": 2}]'}, content=photo)
    assert twice.status_code == 400 and "payers in the query: key 'fa' is given twice" in twice.json()["error"]
    # Python reads NaN, and 1e400 as infinity; JSON has neither: echoed back in the answer they failed it (a 500)
    for number, message in (("NaN", "NaN is no JSON number"), ("1e400", "1e400 is too large a number")):
        nan = client.post("/api/rescore", content=f'{{"token": "{read["token"]}", "payers": [{{"fa": 1, "x": {number}}}]}}',
                          headers={"content-type": "application/json"})
        assert nan.status_code == 400 and message in nan.json()["error"]
    nan = client.post("/api/read", params={"payers": '[{"fa": Infinity}]'}, content=photo)
    assert nan.status_code == 400 and "payers in the query: Infinity is no JSON number" in nan.json()["error"]
    clash = client.post("/api/rescore", json={"token": read["token"], "payers": [{"melds": ["kong 1m"]}]}).json()
    assert clash["valid"] is False and "5 copies of 1m" in clash["error"]


@pytest.mark.parametrize(("query", "own", "amounts"), [
    pytest.param("", 3, [3], id="discard"),
    pytest.param("dealer=1", 3, [6], id="dealer-on-a-discard"),  # the winner deals: the discarder pays double
    pytest.param("self_draw=1", 4, [4, 4, 4], id="self-draw"),  # +1 自摸, the three others pay
    pytest.param("self_draw=1&dealer=true", 4, [8, 8, 8], id="dealer-self-draw"),
])
def test_context_from_the_query_changes_the_score(photo, query, own, amounts):
    client, _ = client_for(layout_detections())
    body = client.post(f"/api/read?{query}", content=photo).json()
    assert body["own"] == own
    assert [p["amount"] for p in body["payments"]] == amounts


def test_the_server_holds_the_newest_photos_and_forgets_the_oldest(photo):
    client, _ = client_for(layout_detections())
    tokens = [client.post("/api/read", content=photo).json()["token"] for _ in range(MAX_SESSIONS + 1)]
    gone = client.post("/api/rescore", json={"token": tokens[0]})
    assert gone.status_code == 404 and "upload it again" in gone.json()["error"]
    assert all(client.post("/api/rescore", json={"token": t}).status_code == 200 for t in tokens[1:])


def test_flags_in_a_json_body_may_be_0_or_1(photo):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    body = client.post("/api/rescore", json={"token": token, "self_draw": 1, "dealer": 0, "as_read": 0}).json()
    assert body["own"] == 4 and [p["amount"] for p in body["payments"]] == [4, 4, 4]


@pytest.mark.parametrize(("payload", "message"), [
    pytest.param({"payers": [{"fa": 1}, {}]}, "a discard win has 1 payer (the discarder), got 2", id="two-discarders"),
    pytest.param({"events": ["kong_bloom"]}, "杠上开花 kong_bloom is won only by self-draw: set self-draw", id="bloom-on-a-discard"),
])
def test_a_context_that_does_not_fit_the_win_is_not_scored_and_is_no_false_win(photo, payload, message):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    body = client.post("/api/rescore", json={"token": token, **payload}).json()
    assert body["valid"] is False and message in body["error"] and "reason" not in body and "payments" not in body


def test_correcting_a_tile_rescores_without_detecting_again(photo):
    client, fake = client_for(layout_detections(misread_2s_as_3s=True))
    first = client.post("/api/read", content=photo).json()
    assert first["reading"]["tiles"][10]["alts"][0] == Tile.S2.index  # offered first on the page
    assert first["reading"]["legal"] is False
    change = {"index": 10, "old": "3s", "new": "2s", "drop": False}
    assert first["reading"]["suggestions"][0]["changes"] == [change]
    # scored as the likeliest legal hand, and said so; the reading itself stays as read
    assert first["valid"] is True and first["own"] == 3 and first["reading"]["repaired"]["changes"] == [change]
    assert first["reading"]["tiles"][10]["name"] == "3s"
    as_read = client.post("/api/rescore", json={"token": first["token"], "as_read": True}).json()
    assert as_read["valid"] is False and "repaired" not in as_read["reading"]
    # the user's own choice is never changed back by the repair
    other = client.post("/api/rescore", json={"token": first["token"], "corrections": {"10": Tile.S4.index}}).json()
    assert other["reading"]["tiles"][10]["name"] == "4s"
    assert all(c["index"] != 10 for c in other["reading"].get("repaired", {"changes": []})["changes"])
    fixed = client.post("/api/rescore", json={"token": first["token"], "corrections": {"10": Tile.S2.index},
                                              "as_read": True})
    assert fixed.status_code == 200
    assert fixed.json()["valid"] is True and fixed.json()["own"] == 3 and fixed.json()["reading"]["legal"] is True
    toggled = client.post("/api/rescore", json={"token": first["token"], "corrections": {"10": Tile.S2.index},
                                                "self_draw": True, "events": ["hai_di_lao_yue"]}).json()
    # 海底捞月 is an optional item, off by default: the event is kept but adds nothing; 自摸 adds 1
    assert toggled["own"] == 4 and toggled["situation"]["events"] == ["hai_di_lao_yue"]
    assert [i["key"] for i in toggled["items"]] == ["ping_hu", "self_draw", "concealed", "single_wait"]
    counted = client.post("/api/rescore", json={"token": first["token"], "corrections": {"10": Tile.S2.index},
                                                "self_draw": True, "events": ["hai_di_lao_yue"],
                                                "rules": {"optional": ["hai_di_lao_yue"]}}).json()
    assert counted["own"] == 8 and counted["items"][-1] == {**counted["items"][-1], "key": "hai_di_lao_yue", "pao": 5}
    assert fake.calls == 1


@pytest.mark.parametrize(
    "payload,status,message",
    [
        pytest.param(b"this is not a photo", 400, "not an image", id="not-an-image"),
        pytest.param(b"", 400, "empty", id="empty-body"),
        pytest.param(jpeg_bytes()[:1500], 400, "cannot be decoded", id="truncated-jpeg"),
        pytest.param(png_header(10_000, 10_000), 400, "100 megapixels", id="100-megapixel-png"),
        pytest.param(huge_jpeg_header(20_000, 15_000), 400, "300 megapixels", id="300-megapixel-jpeg"),
    ],
)
def test_bad_uploads_get_a_clear_message(payload, status, message):
    client, fake = client_for(layout_detections())
    r = client.post("/api/read", content=payload)
    assert r.status_code == status
    assert message in r.json()["error"]
    assert fake.calls == 0
    assert client.get("/healthz").json()["ok"] is True


def test_upload_over_the_size_limit_is_refused():
    client, fake = client_for(layout_detections(), max_upload=10_000)
    r = client.post("/api/read", content=jpeg_bytes(400, 300) + b"\0" * 20_000)
    assert r.status_code == 413
    assert "limit" in r.json()["error"]
    assert fake.calls == 0


def test_an_upload_of_the_limit_itself_is_read_and_a_byte_more_is_not():
    photo = jpeg_bytes()
    limit = 3 * 2 ** 19  # 1.5 MiB
    client, fake = client_for(layout_detections(), max_upload=limit)
    padded = photo + b"\0" * (limit - len(photo))  # bytes after a JPEG's end: decoders pass over them
    assert client.post("/api/read", content=padded).status_code == 200 and fake.calls == 1
    over = client.post("/api/read", content=padded + b"\0")
    assert over.status_code == 413 and "is over the 1.5 MiB limit" in over.json()["error"]


@pytest.mark.parametrize(
    "detections,expected",
    [
        pytest.param(Detections.empty(), "no tiles found", id="empty-table"),
        pytest.param(grid_detections(40), "40 tiles", id="forty-tiles"),
    ],
)
def test_tables_that_are_no_hand_say_so(photo, detections, expected):
    client, _ = client_for(detections)
    r = client.post("/api/read", content=photo)
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is False
    said = " ".join([body.get("error") or "", body.get("reason") or ""] + body["reading"]["problems"])
    assert expected in said


@pytest.mark.parametrize(
    "payload,status,message",
    [
        pytest.param({"token": "nope"}, 404, "upload it again", id="unknown-token"),
        pytest.param({"corrections": {"99": 3}}, 400, "there are 14 tiles", id="index-out-of-range"),
        pytest.param({"corrections": {"0": 31}}, 400, "class must be 0..30", id="class-out-of-range"),
        pytest.param({"corrections": {"0": "x"}}, 400, "corrections must map tile indices to class ids (whole "
                     "numbers), got {'0': 'x'}", id="class-not-a-number"),
        pytest.param({"corrections": {"0": 3.7}}, 400, "got {'0': 3.7}", id="class-not-whole"),
        pytest.param({"corrections": {"0": True}}, 400, "got {'0': True}", id="class-true"),
        pytest.param({"corrections": {"first": 3}}, 400, "a tile index is a whole number written plainly, such as "
                     "\"3\"; got 'first'", id="index-not-a-number"),
        pytest.param({"self_draw": 2}, 400, "self_draw must be true or false, got 2", id="self-draw-not-a-flag"),
        pytest.param({"dealer": "maybe"}, 400, "dealer must be true or false, got 'maybe'", id="dealer-not-a-flag"),
        pytest.param({"payers": [{"fa": "x"}]}, 400, "'fa' must be a whole number", id="payer-fa-not-a-number"),
        pytest.param({"payers": [{"melds": ["pung zz"]}]}, 400, "'zz' has no digits before it",
                     id="payer-meld-unreadable"),
        pytest.param({"payers": ["discarder"]}, 400, "payers must be a list of objects", id="payer-not-an-object"),
        pytest.param({"events": ["flying"]}, 400, "events must be a list of", id="unknown-event"),
        pytest.param({"corrections": [1]}, 400, "corrections must be an object", id="corrections-not-object"),
    ],
)
def test_bad_rescore_requests(photo, payload, status, message):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    r = client.post("/api/rescore", json={"token": token, **payload})
    assert r.status_code == status
    assert message in r.json()["error"]


def test_marking_the_winning_tile_rescores(photo):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read?self_draw=1", content=photo).json()["token"]
    body = client.post("/api/rescore", json={"token": token, "self_draw": True, "win": 0}).json()
    assert body["win_tile"] == "1m" and body["own"] == 3  # waits 1m/4m: no single-wait 炮
    assert body["reading"]["tiles"][0]["role"] == "win"
    bad = client.post("/api/rescore", json={"token": token, "win": 99})
    assert bad.status_code == 400 and "there are 14 tiles" in bad.json()["error"]
    bad = client.post("/api/rescore", json={"token": token, "win": "first"})
    assert bad.status_code == 400 and "win must be a tile index" in bad.json()["error"]


def test_a_winning_tile_in_the_row_comes_with_every_choice_and_its_total(photo):
    client, _ = client_for(layout_detections(win_apart=False))
    body = client.post("/api/read", content=photo).json()
    choices = body["reading"]["win_choices"]
    assert {c["own"] for c in choices} == {2, 3} and body["own"] == 3
    assert [c["tile"] for c in choices if c["chosen"]] == [body["win_tile"]]
    one_m = next(c for c in choices if c["tile"] == "1m")
    again = client.post("/api/rescore", json={"token": body["token"], "win": one_m["index"]}).json()
    assert again["win_tile"] == "1m" and again["own"] == one_m["own"] == 2
    assert [c["tile"] for c in again["reading"]["win_choices"] if c["chosen"]] == ["1m"]
    assert "win_choices" not in client_for(layout_detections())[0].post("/api/read", content=photo).json()["reading"]


def test_a_face_down_kong_comes_with_its_faces_and_naming_one_rescores(photo):
    client, _ = client_for(kong_down_detections())
    body = client.post("/api/read", content=photo).json()
    choices = body["reading"]["kong_choices"]
    assert body["own"] == 4 and {c["own"] for c in choices} == {4, 6}
    zhong = next(c for c in choices if c["tile"] == "中")
    named = client.post("/api/rescore", json={"token": body["token"],
                                              "corrections": {str(zhong["index"]): Tile.ZHONG.index}}).json()
    assert named["own"] == zhong["own"] == 6 and "kong_choices" not in named["reading"]


def test_the_kong_just_made_is_offered_on_kong_bloom_and_naming_it_rescores(photo):
    client, _ = client_for(two_kongs_detections())
    body = client.post("/api/read?self_draw=1&events=kong_bloom", content=photo).json()
    assert body["own"] == 13 and {(c["tile"], c["own"], c["chosen"]) for c in body["reading"]["bloom_choices"]} == {
        ("9p", 16, False), ("中", 13, True)}
    context = {"token": body["token"], "self_draw": True, "events": ["kong_bloom"]}
    named = client.post("/api/rescore", json={**context, "bloom": "9p"}).json()
    assert named["own"] == 16 and named["situation"]["melds"] == ["concealed_kong 中", "kong 9p"]
    assert [c["tile"] for c in named["reading"]["bloom_choices"] if c["chosen"]] == ["9p"]
    plain = client.post("/api/rescore", json={"token": body["token"], "self_draw": True, "bloom": "9p"}).json()
    assert plain["own"] == 8 and "bloom_choices" not in plain["reading"]  # no 杠上开花: which kong was last is moot
    for bad in ("x", 9, ["9p"]):
        r = client.post("/api/rescore", json={**context, "bloom": bad})
        assert r.status_code == 400 and "bloom (the kong 杠上开花 was drawn on) must be a face" in r.json()["error"]


def test_naming_a_face_down_tile_of_a_kong_showing_its_face_keeps_the_kong(photo):
    client, _ = client_for(two_kongs_detections())  # the 中 kong lies 中, back, back, 中
    body = client.post("/api/read?self_draw=1", content=photo).json()
    down = [t["index"] for t in body["reading"]["tiles"] if t["name"] == "back"]
    named = client.post("/api/rescore", json={"token": body["token"], "self_draw": True,
                                              "corrections": {str(down[0]): Tile.BAI.index}}).json()
    assert "concealed_kong 白" in named["situation"]["melds"] and named["own"] == body["own"]  # 白 暗杠 as 中's
    assert [t["name"] for t in named["reading"]["tiles"] if t["index"] in down] == ["back", "back"]


def test_setting_a_tile_aside_rescores_without_it(photo):
    client, _ = client_for(stray_fa_detections())
    body = client.post("/api/read", content=photo).json()
    assert body["own"] == 4 and body["reading"]["fa"] == 1
    aside = client.post("/api/rescore", json={"token": body["token"], "ignored": [14]}).json()
    assert aside["own"] == 3 and aside["reading"]["fa"] == 0 and aside["reading"]["tiles"][14]["role"] == "ignored"
    for bad, message in (([99], "ignored tile #99: there are 15 tiles"), ("14", "ignored must be a list"),
                         ([True], "ignored must be a list")):
        r = client.post("/api/rescore", json={"token": body["token"], "ignored": bad})
        assert r.status_code == 400 and message in r.json()["error"]


def test_a_tile_of_no_xingzi_face_is_left_out_until_the_user_names_it(photo):
    client, _ = client_for(foreign_fa_detections())
    body = client.post("/api/read", content=photo).json()
    assert body["own"] == 3 and body["reading"]["fa"] == 0 and body["reading"]["tiles"][14]["role"] == "foreign"
    assert "1 张不是星子麻将的牌（风牌或花牌？）未计" in body["reading"]["messages_zh"].values()
    named = client.post("/api/rescore", json={"token": body["token"], "corrections": {"14": Tile.FA.index}}).json()
    assert named["own"] == 4 and named["reading"]["fa"] == 1 and named["reading"]["tiles"][14]["role"] == "fa"


def test_claiming_and_releasing_a_meld_rescores(photo):
    client, _ = client_for(tray_detections())
    body = client.post("/api/read", content=photo).json()
    assert body["own"] == 17 and body["reading"]["melds"] == [] and body["reading"]["tiles"][11]["name"] == "8s"
    claimed = client.post("/api/rescore", json={"token": body["token"], "claimed": [11]}).json()
    assert claimed["own"] == 12 and claimed["reading"]["melds"] == ["pung 8s"]
    assert [t["role"] for t in claimed["reading"]["tiles"][11:]] == ["pung"] * 3
    back = client.post("/api/rescore", json={"token": body["token"], "claimed": [], "released": [12]}).json()
    assert back["own"] == 17
    for bad, message in (({"claimed": [3]}, "tile #3: 2 8m stand in the hand"), ({"claimed": "10"}, "claimed must be"),
                         ({"released": [None]}, "released must be a list")):
        r = client.post("/api/rescore", json={"token": body["token"], **bad})
        assert r.status_code == 400 and message in r.json()["error"]


def test_adding_a_tile_the_detector_missed_rescores_with_it(photo):
    det, box = missed_tile_detections()
    client, fake = client_for(det)
    body = client.post("/api/read?as_read=1", content=photo).json()
    assert body["valid"] is False and len(body["reading"]["tiles"]) == 13
    added = [{"cls": Tile.M5.index, "xyxy": box.tolist()}]
    again = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "added": added}).json()
    assert again["valid"] is True and again["own"] == 3 and again["reading"]["notation"] == "123456m55789p12s 3s"
    new = again["reading"]["tiles"][13]  # after the 13 found, which keep their indices
    assert new["name"] == "5m" and new["role"] == "concealed" and new["conf"] == 1.0
    assert [t["by_user"] for t in again["reading"]["tiles"]] == [False] * 13 + [True]  # the page marks it 改
    assert not any(t["by_user"] for t in body["reading"]["tiles"])
    assert [t["name"] for t in again["reading"]["tiles"][:13]] == [t["name"] for t in body["reading"]["tiles"]]
    assert fake.calls == 1  # no second detection
    fixed = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "added": added,
                                              "corrections": {"13": Tile.M4.index}}).json()
    assert fixed["valid"] is False and fixed["reading"]["tiles"][13]["name"] == "4m"  # the added tile corrected
    for bad, message in (
        ([{"cls": 31, "xyxy": box.tolist()}], "class must be an integer 0..30"),
        ([{"cls": True, "xyxy": box.tolist()}], "class must be an integer 0..30"),
        ([{"cls": 4, "xyxy": [10, 10, 5, 20]}], "expected x0 < x1 and y0 < y1"),
        ([{"cls": 4, "xyxy": [10, 10, 20]}], "expected a box [x0, y0, x1, y1]"),
        ([{"cls": 4, "xyxy": ["100", "100", "150", "150"]}], "expected a box [x0, y0, x1, y1] of 4 numbers"),
        ([{"cls": 4, "xyxy": [True, True, 150, 150]}], "expected a box [x0, y0, x1, y1] of 4 numbers"),
        ([{"cls": 4, "xyxy": [5000, 10, 5050, 80]}], "lies outside the 1280x960 photo"),
        ([{"cls": 4}], "added must be a list of {cls, xyxy} or {cls, beside} objects"),
        ([{"cls": 4, "xyxy": box.tolist(), "beside": 0}], "added must be a list of {cls, xyxy} or {cls, beside}"),
        ([{"cls": 4, "beside": True}], "beside must be the index of a tile of the row or meld, got True"),
        ([{"cls": 4, "beside": "3"}], "beside must be the index of a tile of the row or meld, got '3'"),
        ([{"cls": 4, "xyxy": box.tolist(), "placed": 1}], "placed must be true or false, got 1"),
        ([{"cls": 4, "xyxy": box.tolist(), "placed": "true"}], "placed must be true or false, got 'true'"),
        (0, "added must be a list of {cls, xyxy} or {cls, beside} objects, got 0"),
        ([{"cls": 4, "beside": 13}], "added tile 0: tile to add beside #13: there are 13 tiles (0..12)"),
        ([{"cls": 31, "beside": 0}], "added tile 0: class must be an integer 0..30, got 31"),
        ({"cls": 4, "xyxy": box.tolist()}, "added must be a list"),
        ([{"cls": 4, "xyxy": box.tolist()}] * 21, "at most 20 tiles can be added"),
    ):
        r = client.post("/api/rescore", json={"token": body["token"], "added": bad})
        assert r.status_code == 400 and message in r.json()["error"], (bad, r.json())
    still = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "added": added}).json()
    assert still["own"] == 3  # bad requests lost nothing: the photo is still held


def test_a_missed_tile_named_beside_a_tile_of_the_row_is_placed_in_its_gap(photo):
    """The page's "+" after the row (by keyboard or screen reader): the face and a tile of the row, no place; the
    server puts it where the row has room (here the gap the 5m left) and sends the box back for the page to keep."""
    det, box = missed_tile_detections()
    client, fake = client_for(det)
    body = client.post("/api/read?as_read=1", content=photo).json()
    added = [{"cls": Tile.M5.index, "beside": 0}]
    again = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "added": added}).json()
    assert again["valid"] is True and again["own"] == 3 and again["reading"]["notation"] == "123456m55789p12s 3s"
    assert again["reading"]["tiles"][13]["role"] == "concealed" and again["reading"]["tiles"][13]["by_user"]
    (placed,) = again["added"]
    assert placed["cls"] == Tile.M5.index
    centre = np.add(placed["xyxy"][:2], placed["xyxy"][2:]) / 2
    assert np.abs(centre - (box[:2] + box[2:]) / 2).max() < 0.2 * (box[2] - box[0])  # where the 5m lay
    kept = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "added": [placed]}).json()
    assert kept["reading"]["notation"] == again["reading"]["notation"] and kept["added"] == [placed]  # as sent back
    aside = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "ignored": [0],
                                              "added": [{"cls": Tile.M5.index, "beside": 12}]}).json()
    assert aside["reading"]["tiles"][13]["role"] == "concealed"  # beside the winning tile: the same row
    assert fake.calls == 1
    assert "added" not in body  # nothing added: nothing to keep
    assert placed["placed"] is True  # a place chosen by the server: no training label


def test_a_tile_added_beside_one_the_same_request_corrects_is_placed_by_its_corrected_face(photo):
    """(The page sends every mark with each rescore: a tile named 发 a moment ago has the 发 beside it.)"""
    client, _ = client_for(foreign_fa_detections())  # #14 read as no Xingzi face until named 发
    token = client.post("/api/read", content=photo).json()["token"]
    named = {"token": token, "as_read": True, "corrections": {"14": Tile.FA.index}}
    assert client.post("/api/rescore", json=named).json()["own"] == 4
    both = client.post("/api/rescore", json={**named, "added": [{"cls": Tile.FA.index, "beside": 14}]}).json()
    assert both["own"] == 5 and both["reading"]["fa"] == 2 and both["reading"]["tiles"][15]["role"] == "fa"


def test_a_tile_placed_by_the_server_is_no_training_label_until_the_user_places_it(photo):
    det, box = missed_tile_detections()
    client, _ = client_for(det)
    token = client.post("/api/read", content=photo).json()["token"]
    placed = client.post("/api/rescore", json={"token": token, "added": [{"cls": Tile.M5.index, "beside": 0}]}).json()
    for added in ([{"cls": Tile.M5.index, "beside": 0}], placed["added"]):  # as asked, or sent back as placed
        r = client.post("/api/labels", json={"token": token, "added": added, "name": "hand"})
        assert r.status_code == 400 and 'tile #13 was added with "+": its place is where it reads best' in r.json()[
            "error"] and "不是牌" in r.json()["error_zh"]
    tapped = [{"cls": Tile.M5.index, "xyxy": box.tolist()}]  # "not a tile" on the guess, then a tap where it lies
    r = client.post("/api/labels", json={"token": token, "name": "hand", "added": placed["added"] + tapped,
                                         "removed": [13]})
    assert r.status_code == 200
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        rows = z.read("labels/hand.txt").decode().splitlines()
    assert len(rows) == 14  # the 13 found and the tile placed by hand; the guess left out


def test_a_photo_forgotten_is_no_longer_held_and_a_bad_request_to_forget_loses_nothing(photo):
    client, _ = client_for(layout_detections())
    mine, other = (client.post("/api/read", content=photo).json()["token"] for _ in range(2))
    for bad, status, message in (
        (b"[1]", 400, "expected a JSON object"),
        (b"{}", 400, "token must be the text the photo was read under, got None"),
        (b'{"token": 5}', 400, "token must be the text the photo was read under, got 5"),
        (b"{not json", 400, "expected a JSON body"),
    ):
        r = client.post("/api/forget", content=bad)
        assert r.status_code == status and message in r.json()["error"] and r.json()["error_zh"], (bad, r.json())
    assert client.post("/api/rescore", json={"token": mine}).status_code == 200  # still held after those
    assert client.post("/api/forget", json={"token": mine}).json() == {"forgotten": True}
    assert client.post("/api/rescore", json={"token": mine}).status_code == 404
    assert client.post("/api/forget", json={"token": mine}).json() == {"forgotten": False}  # once is enough
    assert client.post("/api/rescore", json={"token": other}).json()["own"] == 3  # another photo untouched
    assert client.get("/healthz").json()["sessions"] == 1


@pytest.mark.parametrize(("flag", "own"), [
    pytest.param(True, 4, id="true"), pytest.param(1, 4, id="one"), pytest.param(0, 3, id="zero"),
    pytest.param(None, 3, id="null-as-not-given"), pytest.param("on", 4, id="on-as-a-form-says"),
])
def test_a_yes_or_no_in_a_json_body_is_taken_as_json_and_forms_write_it(photo, flag, own):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    assert client.post("/api/rescore", json={"token": token, "self_draw": flag}).json()["own"] == own


def test_rescore_needs_json():
    client, _ = client_for(layout_detections())
    r = client.post("/api/rescore", content=b"{not json")
    assert r.status_code == 400 and "JSON" in r.json()["error"]


def test_a_failing_detector_is_an_error_response_not_a_dead_server(photo):
    class Broken:
        def predict(self, image):
            raise RuntimeError("model exploded")

    client = TestClient(create_app(Broken()), raise_server_exceptions=False)
    r = client.post("/api/read", content=photo)
    assert r.status_code == 500 and "model exploded" in r.json()["error"]
    assert r.headers["connection"] == "close"  # the client starts afresh rather than sending into a broken exchange
    assert client.get("/healthz").status_code == 200


def test_nothing_is_written_to_disk(photo, tmp_path, monkeypatch):
    spool = tmp_path / "tmp"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    monkeypatch.chdir(tmp_path)
    client, _ = client_for(layout_detections())
    big = jpeg_bytes(3000, 2000)
    answers = [client.post("/api/read", content=payload) for payload in
               (photo, big, b"junk", png_header(10_000, 10_000))]
    assert [a.status_code for a in answers] == [200, 200, 400, 400]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["tmp"]


def test_page_and_faces_are_served():
    client, _ = client_for(layout_detections())
    page = client.get("/")
    assert page.status_code == 200 and "拍照" in page.text and "Take a photo" in page.text and "Choose a photo" in page.text
    meta = client.get("/api/faces").json()
    faces = meta["faces"]
    assert len(faces) == 31 and faces[27]["zh"] == "红中"
    events = {e["key"]: (e["zh"], e["en"]) for e in meta["events"]}
    assert events["kong_bloom"] == ("杠上开花", "win on a kong replacement")  # the page's toggles, in both tongues
    assert meta["max_side"] == 1600  # the page shrinks photos to the size the server reads
    # the tally's numbers from the ruleset (§8): dealer doubling, 跟庄 1 炮 (2 on 中/白) doubled as the dealer pays
    assert meta["follow_dealer"] == {"plain": 2, "dragon": 4}
    assert meta["follow_dealer_pao"] == {"plain": 1, "dragon": 2}  # before the dealer's doubling, said on the page
    page = client.get("/").text
    scripts = re.findall(r'<script src="(/static/[\w.]+\.js)"></script>', page)
    assert {s.rsplit("/", 1)[1] for s in scripts} == {p.name for p in STATIC.glob("*.js")}  # every one loaded
    for script in scripts:
        served = client.get(script)
        assert served.status_code == 200 and "use strict" in served.text


def test_the_tables_rules_are_listed_and_the_page_may_change_its_options(photo):
    client, _ = client_for(layout_detections())
    rules = client.get("/api/faces").json()["rules"]
    assert rules["name"] == "default (003 text)"
    four_fa = next(o for o in rules["options"] if o["key"] == "four_fa")
    assert four_fa["value"] == "in_all" and [c["value"] for c in four_fa["choices"]] == ["in_all", "on_top"]
    assert {i["key"]: i["on"] for i in rules["optional"]}["hai_di_pao"] is False
    assert {i["key"]: (i["zh"], i["en"]) for i in rules["optional"]}["hai_di_pao"] == ("海底放炮", "last tile discarded")
    # 海底放炮 is an optional addition: not counted until the table says so, from the query or a rescore
    plain = client.post("/api/read", params={"events": "hai_di_pao"}, content=photo).json()
    assert plain["own"] == 3
    counted = client.post("/api/read", params={"events": "hai_di_pao", "rules": '{"optional": ["hai_di_pao"]}'},
                          content=photo).json()
    assert counted["own"] == 8 and "hai_di_pao" in [i["key"] for i in counted["items"]]
    again = client.post("/api/rescore", json={"token": plain["token"], "events": ["hai_di_pao"],
                                              "rules": {"optional": ["hai_di_pao"], "hai_di_pao": "start_at_10"}})
    assert again.json()["own"] == 12


@pytest.mark.parametrize(("rules", "reason", "zh"), [
    pytest.param({"optional": ["shang_xin"]}, "needs a two-sided wait (两面) on exactly the two kinds either side of "
                 "the run the winning tile closes, the other side not all held by the winner: 3s completed the hand as "
                 "边张 edge, and it waited on 3s", "要两面听牌（胡的牌所成顺子两边的两种牌，另一边不全在自己手里）："
                 "三条胡成边张，听三条", id="the-wrong-wait"),
    pytest.param({}, "optional, off under these rules", "可选项，现用规则没有开", id="optional-off"),
])
def test_an_event_switched_on_that_is_not_counted_is_said_with_why_in_both_tongues(photo, rules, reason, zh):
    """伤心痛苦 needs a two-sided wait; the photo's hand won on an edge (12s + 3s): the score is the same without it,
    and the page is told why, in English and Chinese (engine events_not_counted)."""
    client, _ = client_for(layout_detections())
    body = client.post("/api/read", params={"events": "shang_xin", "rules": json.dumps(rules)}, content=photo).json()
    assert body["own"] == 3 and "shang_xin" not in [i["key"] for i in body["items"]]
    assert body["events_not_counted"] == [{"event": "shang_xin", "name": "伤心痛苦", "reason": reason}]
    assert body["reading"]["messages_zh"][reason] == zh


@pytest.mark.parametrize(("rules", "message"), [
    pytest.param({"optional": ["nope"]}, "'optional' must list items among", id="unknown-optional"),
    pytest.param({"four_fa": "twice"}, "'four_fa' must be one of ['in_all', 'on_top']", id="bad-value"),
    pytest.param({"qing_yi_se": 99}, "the page may set only flower_additions", id="a-number-of-pao"),
    pytest.param({"four_fa": 500}, "'four_fa' must be one of ['in_all', 'on_top'], got 500", id="four-fa-pao"),
    pytest.param({"hai_di_pao": 999}, "'hai_di_pao' must be one of ['addition', 'start_at_10'], got 999",
                 id="hai-di-pao-pao"),
    pytest.param({"specials_lift_threshold": 1}, "must be true or false, got 1", id="one-is-not-true"),
    pytest.param(["four_fa"], "rules must be an object of options", id="not-an-object"),
])
def test_bad_rules_from_the_page_are_refused_and_the_photo_kept(photo, rules, message):
    client, _ = client_for(layout_detections())
    read = client.post("/api/read", content=photo).json()
    bad = client.post("/api/rescore", json={"token": read["token"], "rules": rules})
    assert bad.status_code == 400 and message in bad.json()["error"]
    assert client.post("/api/rescore", json={"token": read["token"]}).json()["own"] == 3  # still held
    query = client.post("/api/read", params={"rules": "{oops"}, content=photo)
    assert query.status_code == 400 and "rules in the query must be JSON" in query.json()["error"]


def test_a_server_started_with_other_rules_scores_by_them(photo):
    from xingzi.web.rules import TableRules

    client, _ = client_for(layout_detections(), rules=TableRules("text000", {"optional": ["hai_di_pao"]}))
    meta = client.get("/api/faces").json()["rules"]
    assert meta["name"].startswith("text000") and {i["key"]: i["on"] for i in meta["optional"]}["hai_di_pao"]
    body = client.post("/api/read", params={"events": "hai_di_pao"}, content=photo).json()
    assert body["own"] == 12 and body["ruleset"].startswith("text000")  # the 000 text counts such a hand from 10
    # the page's own change goes on top of the server's: 海底放炮 left out again
    off = client.post("/api/rescore", json={"token": body["token"], "events": ["hai_di_pao"], "rules": {"optional": []}})
    assert off.json()["own"] == 3


def test_the_tallys_seats_get_the_score_settled_between_them(photo):
    client, _ = client_for(layout_detections(misread_2s_as_3s=True))
    table = {"winner": 3, "discarder": 1, "dealer": 2}
    body = client.post("/api/read", params={"table": json.dumps(table)}, content=photo).json()
    assert body["own"] == 3 and body["table"]["deltas"] == [0, -3, 0, 3] and body["table"]["dealer"] == 2
    assert [p["seat"] for p in body["table"]["payments"]] == [1] and body["table"]["next_dealer"] == 3
    # 一炮多响: seat 0 won on the same discard before; the first winner after the discarder (seat 1) deals next
    second = client.post("/api/rescore", json={"token": body["token"], "table": {**table, "winner": 3, "before": [0]}})
    assert second.json()["table"]["next_dealer"] == 3 and second.json()["table"]["before"] == [0]
    other = client.post("/api/rescore", json={"token": body["token"], "table": {**table, "winner": 0, "before": [3]}})
    assert other.json()["table"]["next_dealer"] == 3
    # read exactly as read it is no hand: a false claim pays each other seat, the dealer (not the discarder) double
    false = client.post("/api/rescore", json={"token": body["token"], "as_read": True, "table": table}).json()
    assert false["valid"] is False and false["table"]["deltas"] == [20, 20, 40, -80]
    assert false["table"]["next_dealer"] == 2  # a false claim keeps the deal
    drawn = client.post("/api/rescore", json={"token": body["token"], "self_draw": True,
                                              "table": {**table, "discarder": None}}).json()
    assert drawn["table"]["discarder"] is None and sum(drawn["table"]["deltas"]) == 0
    assert [p["seat"] for p in drawn["table"]["payments"]] == [0, 1, 2]  # from the winner's 下家 on
    two = client.post("/api/rescore", json={"token": body["token"], "self_draw": True,
                                            "table": {**table, "discarder": None, "before": [0]}})
    assert two.status_code == 400 and "a self-drawn win has one winner" in two.json()["error"]
    assert "table" not in client.post("/api/rescore", json={"token": body["token"]}).json()  # tally closed


@pytest.mark.parametrize(("flags", "table", "amounts"), [
    pytest.param({"payers": [{"dealer": True}]}, {"winner": 2, "discarder": 1, "dealer": 3}, [3],
                 id="payer-ticked-dealer-but-seat-3-deals"),
    pytest.param({"dealer": False}, {"winner": 2, "discarder": 1, "dealer": 2}, [6], id="winner-deals-unticked"),
    pytest.param({"self_draw": True}, {"winner": 2, "discarder": None, "dealer": 0}, [4, 8, 4],
                 id="self-draw-no-payers-sent"),
])
def test_the_tallys_seats_say_who_deals_in_the_score_too(photo, flags, table, amounts):
    """One response, one settlement: the score's payments double the payer the seats name as dealer, as the table's
    do, whatever the request's dealer ticks said."""
    client, _ = client_for(layout_detections(misread_2s_as_3s=True))
    read = client.post("/api/read", content=photo).json()
    body = client.post("/api/rescore", json={"token": read["token"], **flags, "table": table}).json()
    assert [p["amount"] for p in body["payments"]] == amounts == [p["amount"] for p in body["table"]["payments"]]


@pytest.mark.parametrize(("table", "message"), [
    pytest.param({"winner": 4, "discarder": 1, "dealer": 0}, "table must be", id="no-such-seat"),
    pytest.param({"winner": 1, "discarder": 1, "dealer": 0},
                 "a discarder other than the winner: seat 1 (South) is sent as both", id="own-discard"),
    pytest.param({"winner": 1, "discarder": None, "dealer": 0},
                 "a discarder other than the winner: none was sent", id="no-discarder"),
    pytest.param({"winner": True, "discarder": 2, "dealer": 0}, "table must be", id="not-a-number"),
    pytest.param([1, 2, 0], "table must be", id="not-an-object"),
    pytest.param({"winner": 3, "discarder": 1, "dealer": 0, "before": [1]}, "other seats than the discarder",
                 id="discarder-won-before"),
    pytest.param({"winner": 3, "discarder": 1, "dealer": 0, "before": [2, 2]}, "each once", id="twice-before"),
    pytest.param({"winner": 3, "discarder": 1, "dealer": 0, "before": "0"}, "table must be", id="before-not-a-list"),
])
def test_bad_tally_seats_are_refused(photo, table, message):
    client, _ = client_for(layout_detections())
    read = client.post("/api/read", content=photo).json()
    bad = client.post("/api/rescore", json={"token": read["token"], "table": table})
    assert bad.status_code == 400 and message in bad.json()["error"]
    if "discarder other than the winner" in message:  # said in words, as the page shows it (not a dict of seats)
        assert "{" not in bad.json()["error"] and "{" not in bad.json()["error_zh"]
    else:
        assert f"got {table!r}"[:40] in bad.json()["error"]  # which value was refused
    query = client.post("/api/read", params={"table": "{nope"}, content=photo)
    assert query.status_code == 400 and "table in the query must be JSON" in query.json()["error"]


def test_the_pao_table_under_the_pages_rules():
    client, _ = client_for(layout_detections())
    plain = {r["key"]: r for r in client.get("/api/rules").json()["items"]}
    assert plain["qing_yi_se"]["pao"] == "15" and plain["qing_yi_se"]["flower"] and plain["tong_ku"]["on"] is False
    assert (plain["qing_yi_se"]["zh"], plain["qing_yi_se"]["en"]) == ("清一色", "one suit")
    assert plain["xiaosa"]["pao"] == "5 per run step" and plain["hai_di_pao"]["pao"] == "5"
    assert plain["haohua"]["pao"] == "5 each, at most 3" and plain["bloom_kong"]["pao"] == "that kong's value"
    assert plain["self_draw"]["pao"] == "平胡 1 / 花炮 5"
    from_ten = client.get("/api/rules", params={"rules": '{"hai_di_pao": "start_at_10"}'}).json()
    assert {r["key"]: r for r in from_ten["items"]}["hai_di_pao"]["pao"] == "counts from 10"
    text000 = client.get("/api/rules", params={"rules": '{"flower_additions": "000"}'}).json()  # §9: the 000 text
    assert {r["key"]: r for r in text000["items"]}["self_draw"]["pao"] == "平胡 1 / 花炮 5（混一色 1，碰碰胡 5）"
    changed = client.get("/api/rules", params={"rules": '{"four_fa": "on_top", "optional": ["tong_ku"]}'}).json()
    rows = {r["key"]: r for r in changed["items"]}
    assert rows["fa"]["pao"] == "1 each, four = 4+10" and rows["tong_ku"]["on"] is True
    bad = client.get("/api/rules", params={"rules": '{"pao": {"fa": 3}}'})
    assert bad.status_code == 400 and "the page may set only" in bad.json()["error"]


@pytest.mark.parametrize(("overrides", "said"), [
    pytest.param({}, {"min_own": ("两炮起胡", "至少 2 炮", "at least 2 pao"),
                      "false_win_penalty": ("诈胡", "付其他三家各 20 炮", "pays each other player 20"),
                      "dealer_factor": ("庄家", "输赢 ×2", "pays and is paid ×2"),
                      "follow_dealer": ("跟庄", "庄家付每家 1（中/白 2）×2", "the dealer pays each 1 (2 on zhong/bai) ×2")},
                 id="the-default"),
    pytest.param({"threshold": {"min_own": 3}, "settlement": {"dealer_factor": 3, "false_win_penalty": 30,
                                                              "follow_dealer": 2, "follow_dealer_dragon": 5,
                                                              "follow_dealer_doubled": False}},
                 {"min_own": ("三炮起胡", "至少 3 炮", "at least 3 pao"),
                  "false_win_penalty": ("诈胡", "付其他三家各 30 炮", "pays each other player 30"),
                  "dealer_factor": ("庄家", "输赢 ×3", "pays and is paid ×3"),
                  "follow_dealer": ("跟庄", "庄家付每家 2（中/白 5）", "the dealer pays each 2 (5 on zhong/bai)")},
                 id="a-house"),
])
def test_the_pao_table_says_the_least_win_and_what_is_paid(overrides, said):
    """A club's house numbers for the least win and the payments were shown nowhere on the page."""
    from xingzi.web.rules import TableRules

    client, _ = client_for(layout_detections(), rules=TableRules(None, overrides))
    rows = {r["key"]: (r["zh"], r["text_zh"], r["text_en"]) for r in client.get("/api/rules").json()["settlement"]}
    assert rows == said


def test_json_bodies_are_capped_and_forms_are_told_to_send_bytes(photo):
    client, fake = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    padded = json.dumps({"token": token, "pad": "a" * (2 * 1024 * 1024)})
    for path in ("/api/rescore", "/api/labels"):
        big = client.post(path, content=padded, headers={"content-type": "application/json"})
        assert big.status_code == 413 and big.json()["error"].startswith("request of 2.0 MiB is over the 1 MiB limit")
        assert big.json()["error_zh"] == "请求内容太大（2.0 兆，上限 1 兆）"  # not 照片太大: no photo was sent
    form = client.post("/api/read", files={"file": ("hand.jpg", photo, "image/jpeg")})
    assert form.status_code == 415 and "--data-binary" in form.json()["error"]
    assert client.post("/api/rescore", json={"token": token}).json()["own"] == 3  # the photo is still held
    assert fake.calls == 1


DEEP = "[" * 100_000


@pytest.mark.parametrize(("method", "path", "kwargs"), [
    pytest.param("post", "/api/rescore", {"content": DEEP}, id="rescore-body"),
    pytest.param("post", "/api/labels", {"content": DEEP}, id="labels-body"),
    pytest.param("get", "/api/rules", {"params": {"rules": "[" * 5000}}, id="rules-query"),
    pytest.param("post", "/api/read", {"params": {"payers": "[" * 5000}}, id="read-payers-query"),
    pytest.param("post", "/api/read", {"params": {"table": "[" * 5000}}, id="read-table-query"),
])
def test_json_nested_past_any_depth_is_a_bad_request_not_an_internal_error(photo, method, path, kwargs):
    client, fake = client_for(layout_detections())
    if path == "/api/read":
        kwargs = {**kwargs, "content": photo}
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == 400 and "JSON" in r.json()["error"], r.text[:200]
    assert fake.calls == 0 and client.get("/healthz").json()["ok"] is True


def test_an_added_tile_with_a_number_past_any_float_is_refused(photo):
    client, _ = client_for(layout_detections())
    token = client.post("/api/read", content=photo).json()["token"]
    huge = {"token": token, "added": [{"cls": 0, "xyxy": [0, 0, 10 ** 400, 10]}]}
    r = client.post("/api/rescore", content=json.dumps(huge), headers={"content-type": "application/json"})
    assert r.status_code == 400 and "added tile 0: expected a box" in r.json()["error"]
    assert client.post("/api/rescore", json={"token": token}).json()["own"] == 3  # the photo is still held


def test_error_messages_that_echo_the_request_are_cut_short(photo):
    client, _ = client_for(layout_detections())
    r = client.post("/api/read", params={"events": ",".join(["flying"] * 1_000)}, content=photo)
    assert r.status_code == 400 and r.json()["error"].startswith("events must be a list of")
    assert len(r.json()["error"]) < 700 and "more characters)" in r.json()["error"]


def test_only_a_few_photos_are_decoded_at_once(photo, monkeypatch):
    from xingzi.web import app as web_app

    busy, most, guard = [0], [0], threading.Lock()

    def slow_decode(data, max_pixels):
        with guard:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        time.sleep(0.2)
        with guard:
            busy[0] -= 1
        raise ValueError("not an image: a stand-in decoder")

    monkeypatch.setattr(web_app, "decode_image", slow_decode)
    client, _ = client_for(layout_detections())
    codes: list[int] = []
    threads = [threading.Thread(target=lambda: codes.append(client.post("/api/read", content=photo).status_code))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes == [400] * 6
    assert most[0] == web_app.MAX_DECODING


class Upload:
    """Stands in for a request whose body comes in ``parts`` (bytes), or stalls at a ``None``, or whose client goes."""

    def __init__(self, *parts: bytes | None | type[Exception]) -> None:
        self.parts, self.headers = parts, {}

    async def stream(self):
        import asyncio

        for part in self.parts:
            if part is None:
                await asyncio.sleep(3600)
            elif isinstance(part, type):
                raise part()
            else:
                yield part


def test_a_stalled_or_abandoned_upload_is_given_up(monkeypatch):
    import asyncio

    from starlette.requests import ClientDisconnect

    from xingzi.web import guards

    monkeypatch.setattr(guards, "STALL_SECONDS", 0.05)
    assert asyncio.run(guards.read_body(Upload(b"ab", b"cd"), 10)) == b"abcd"
    for upload, status, message in ((Upload(b"ab", None), 408, "the upload stalled: nothing came for 0.05 s"),
                                    (Upload(b"ab", ClientDisconnect), 400, "cut off before its end"),
                                    (Upload(b"abcdef", b"ghijkl"), 413, "over the")):
        with pytest.raises(guards.BadRequest, match=message) as told:
            asyncio.run(guards.read_body(upload, 10))
        assert told.value.status == status


def test_a_house_servers_numbers_are_the_ones_its_page_shows():
    """The §9 choices and the 炮 table worded with the server's own numbers (2 per 发, 12 for four, +6 on the last
    discard, counted from 12), not the shipped ones the page's words were first written with."""
    from xingzi.web.rules import TableRules

    house = {"pao": {"fa": 2, "four_fa": 12, "hai_di_pao": 6, "hai_di_pao_start": 12}, "four_fa": "on_top"}
    client, _ = client_for(layout_detections(), rules=TableRules(None, house))
    options = {o["key"]: {c["value"]: c["en"] for c in o["choices"]} for o in client.get("/api/faces").json()["rules"]["options"]}
    assert options["four_fa"] == {"in_all": "12 in all", "on_top": "8+12 = 20"}
    assert options["hai_di_pao"] == {"addition": "+6", "start_at_10": "counts from 12"}
    assert options["eaten_hong_qi"] == {"in_all": "10 in all", "on_top": "its sets and 10 more"}
    rows = {r["key"]: r for r in client.get("/api/rules").json()["items"]}
    assert rows["fa"]["pao"] == "2 each, four = 8+12"
