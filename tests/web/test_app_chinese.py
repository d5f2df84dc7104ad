"""The server's words in each language, for the page shown in one: a refusal carries its Chinese (``error_zh``) beside
the English of record (``error``, unchanged); a score the engine cannot make says why in Chinese; the rules box (the
ruleset's name, the options' choices, each item's 炮) comes in Chinese and in English, the English with no Chinese in
it, as the names of the scoring items and events."""

from __future__ import annotations

import re

import pytest
from photo_bytes import png_header
from web_helpers import client_for, jpeg_bytes, layout_detections, tray_detections, two_kongs_detections

from xingzi.engine.tiles import Tile
from xingzi.vision.names import ITEM_NAMES
from xingzi.web.app import create_app

HAN = re.compile(r"[\u3400-\u9fff]")
# what a Chinese refusal may hold in Latin letters: tile notation, and the names of what a client sends
NOT_ENGLISH = re.compile(r"(?:\d+[mpsz])+|JSON|/api/\w+|\b(?:GET|HEAD|POST|PUT|DELETE)\b|\{cls, xyxy\}")


def _chinese_only(text: str) -> bool:
    return bool(HAN.search(text)) and not re.search(r"[A-Za-z]", NOT_ENGLISH.sub(" ", text))


@pytest.fixture
def tray():
    """A client holding the tray photo (a claimed 8s pung read as standing; two 8m stand), and its token."""
    client, _ = client_for(tray_detections())
    return client, client.post("/api/read", content=jpeg_bytes()).json()["token"]


@pytest.mark.parametrize(("body", "status", "english", "chinese"), [
    pytest.param({"claimed": [3]}, 400, "tile #3: 2 8m stand in the hand",
                 "第 3 张：手里立着的八万只有 2 张（单独放出的胡牌不算），碰要三张", id="claim-two-of-a-tile"),
    pytest.param({"claimed": [99]}, 400, "claimed meld #99: there are 14 tiles (0..13)",
                 "没有第 99 张牌（碰/杠）：照片上只有 14 张（0–13）", id="claim-no-such-tile"),
    pytest.param({"win": 99}, 400, "winning tile #99: there are 14 tiles",
                 "没有第 99 张牌（胡的牌）：照片上只有 14 张（0–13）", id="winning-tile-out-of-range"),
    pytest.param({"removed": [20]}, 400, "removed tile #20: there are 14 tiles",
                 "没有第 20 张牌（不是牌）：照片上只有 14 张（0–13）", id="box-out-of-range"),
    pytest.param({"ignored": [15]}, 400, "ignored tile #15: there are 14 tiles",
                 "没有第 15 张牌（不属于这手）：照片上只有 14 张（0–13）", id="set-aside-out-of-range"),
    pytest.param({"corrections": {"99": 3}}, 400, "bad correction: correction for tile #99: there are 14 tiles",
                 "改正有误：没有第 99 张牌（改正）：照片上只有 14 张（0–13）", id="correction-out-of-range"),
    pytest.param({"corrections": {"0": 31}}, 400, "class must be 0..30",
                 "改正有误：第 0 张的改正：牌面编号应为 0–30", id="no-such-face"),
    pytest.param({"added": [{"cls": 4, "xyxy": [5000, 10, 5050, 80]}]}, 400, "lies outside the 1280x960 photo",
                 "添加的牌有误：添加的第 1 张：位置在照片（1280×960）之外", id="added-off-the-photo"),
    pytest.param({"added": [{"cls": 4, "xyxy": [10, 10, 50, 80]}] * 21}, 400, "at most 20 tiles can be added",
                 "添加的牌有误：一张照片最多添加 20 张牌，这里有 21 张", id="too-many-added"),
    pytest.param({"added": [{"cls": 4, "beside": 99}]}, 400, "added tile 0: tile to add beside #99: there are 14",
                 "添加的牌有误：添加的第 1 张：没有第 99 张牌（添加在旁边）：照片上只有 14 张（0–13）", id="added-beside-no-tile"),
    pytest.param({"added": [{"cls": 4, "beside": -1}]}, 400, "added tile 0: tile to add beside #-1: there are 14",
                 "添加的牌有误：添加的第 1 张：没有第 -1 张牌（添加在旁边）：照片上只有 14 张（0–13）", id="added-beside-a-negative"),
    pytest.param({"removed": [-1]}, 400, "removed tile #-1: there are 14 tiles",
                 "没有第 -1 张牌（不是牌）：照片上只有 14 张（0–13）", id="box-negative"),
    pytest.param({"added": [{"cls": 4, "beside": 8}, {"cls": 4, "beside": 8}, {"cls": 4, "beside": 8},
                            {"cls": 4, "beside": 8}, {"cls": 4, "beside": 8}]}, 400,
                 "at most 4 tiles can be placed beside a group at once",
                 "添加的牌有误：一次最多在组旁添加 4 张，照片上找到的牌最多 60 张：请点照片上漏读的牌所在的地方", id="five-beside"),
    pytest.param({"added": [{"cls": 4, "beside": "3"}]}, 400, "beside must be the index of a tile",
                 "添加的牌有误：beside 应为手牌或碰杠里一张牌的牌号", id="added-beside-not-an-index"),
    pytest.param({"added": [{"cls": 4}]}, 400, "added must be a list of {cls, xyxy} or {cls, beside} objects",
                 "添加的牌有误：添加的牌应为 {cls, xyxy} 或 {cls, beside} 对象的列表", id="added-nowhere"),
    pytest.param({"payers": [{"melds": ["kong 1p", "kong 2p", "kong 3p", "kong 4p", "concealed_kong 5p"]}]}, 400,
                 "payer 0 shows 5 melds: a player has at most 4", "第 1 位付炮的人亮出 5 组碰杠：每人最多 4 组",
                 id="a-payer-with-five-melds"),
    pytest.param({"payers": [{"fa": 5}]}, 400, "payer 0: fa must be 0..4, got 5",
                 "第 1 位付炮的人：发应为 0–4 张，这里是 5 张", id="a-payer-with-five-fa"),
    pytest.param({"payers": [{"melds": ["kong 888m"]}]}, 400, "meld 'kong 888m': a kong is 4 copies of one tile",
                 "碰杠 'kong 888m'：同一种牌 4 张，牌只写一次", id="a-meld-of-the-wrong-size"),
    pytest.param({"events": ["flying"]}, 400, "events must be a list of",
                 "加炮事件只能从这些里选：杠上开花、杠上流泪、抢杠、海底捞月、海底放炮、痛苦、伤心痛苦、回头一笑、涛声依旧、忘恩负义",
                 id="no-such-event"),
    pytest.param({"self_draw": 2}, 400, "self_draw must be true or false, got 2", "自摸应为是或否", id="not-a-flag"),
    pytest.param({"bloom": "x"}, 400, "bloom (the kong 杠上开花 was drawn on) must be a face",
                 "杠上开花的杠应为一种牌，如 9p，或不填", id="bloom-not-a-tile"),
    pytest.param({"rules": {"four_fa": "x"}}, 400, "rules: option 'four_fa' must be one of",
                 "规则：“四个发”的选项不对", id="no-such-rule-choice"),
    pytest.param({"rules": {"specials_lift_threshold": "yes"}}, 400,
                 "rules: option 'specials_lift_threshold' must be true or false", "规则：“杠上流泪/抢杠/海底放炮可起胡”的选项不对",
                 id="a-switch-as-a-word"),
    pytest.param({"rules": {"optional": ["flying"]}}, 400, "ruleset option 'optional' must list items among",
                 "规则：“另算的加炮”的选项不对", id="no-such-optional-item"),
    pytest.param({"table": {"winner": 0, "discarder": 0, "dealer": 0}}, 400,
                 "a discard win needs a discarder other than the winner: seat 0 (East) is sent as both",
                 "点炮要有赢家以外的放炮者：东既是赢家又是放炮者", id="winner-discarding"),
    pytest.param({"token": "gone"}, 404, "this photo is no longer held by the server: upload it again",
                 "服务器上已没有这张照片，请再上传一次", id="photo-no-longer-held"),
    pytest.param({"token": None}, 400, "token must be the text the photo was read under, got None",
                 "token 应为读这张照片时得到的那串字", id="no-token"),  # was "no longer held": upload it again
    pytest.param({"token": 5}, 400, "token must be the text the photo was read under, got 5",
                 "token 应为读这张照片时得到的那串字", id="a-number-for-a-token"),
])
def test_a_refused_rescore_says_why_in_chinese_beside_the_english(tray, body, status, english, chinese):
    client, token = tray
    r = client.post("/api/rescore", json={"token": token, **body})
    assert r.status_code == status
    assert english in r.json()["error"]  # the English of record, as before
    assert r.json()["error_zh"] == chinese


@pytest.mark.parametrize(("payload", "status", "english", "chinese"), [
    pytest.param(b"not a photo", 400, "not an image", "读不了这个文件（不是照片，或已损坏）", id="no-photo"),
    pytest.param(b"", 400, "the upload is empty", "上传的文件是空的：请发一张照片", id="empty"),
    pytest.param(jpeg_bytes()[:1500], 400, "cannot be decoded", "读不了这个文件（照片不完整或已损坏）", id="cut-short"),
    pytest.param(jpeg_bytes() + bytes(20_000), 413, "is over the", "照片太大（", id="too-big"),
    # the refusal's advice after the limit (session 74) had it said only by its kind, "服务器不接受这个请求"
    pytest.param(png_header(8000, 6000), 400, "48 megapixels; at most 40 are accepted in a PNG",
                 "照片有 8000×6000 = 48 百万像素，太大：最多 40 百万像素（请用较低的分辨率拍照", id="too-many-pixels"),
])
def test_a_refused_photo_says_why_in_chinese(payload, status, english, chinese):
    client, _ = client_for(layout_detections(), max_upload=len(jpeg_bytes()) + 10_000)
    r = client.post("/api/read", content=payload)
    assert r.status_code == status and english in r.json()["error"]
    assert r.json()["error_zh"].startswith(chinese) and _chinese_only(r.json()["error_zh"])


@pytest.mark.parametrize(("method", "path", "content", "status"), [
    pytest.param("GET", "/api/read", None, 405, id="a-method-not-taken"),
    pytest.param("GET", "/api/nope", None, 404, id="no-such-address"),
    pytest.param("POST", "/api/read?self_draw=1&self_draw=0", jpeg_bytes(), 400, id="a-parameter-twice"),
    pytest.param("POST", "/api/rescore", b'{"token": "a", "token": "b"}', 400, id="a-key-twice"),
    pytest.param("POST", "/api/rescore", b"{not json", 400, id="no-json"),
    pytest.param("POST", "/api/read?payers=%5B1", jpeg_bytes(), 400, id="a-query-not-json"),
    pytest.param("POST", "/api/read", b"--x\r\n", 415, id="a-form"),
    pytest.param("POST", "/api/labels", b'{"token": "a", "store": true}', 404, id="labels-of-no-photo"),
    pytest.param("POST", "/api/forget", b'{"token": 7}', 400, id="forget-a-token-that-is-no-text"),
])
def test_every_refusal_has_its_own_chinese_not_only_its_kind(method, path, content, status):
    """(The Chinese of a refusal only another client meets names what it sent as sent: a key, a parameter.)"""
    from xingzi.web.refusals import BY_STATUS  # what a refusal its table does not know is said as

    client, _ = client_for(layout_detections())
    headers = {"content-type": "multipart/form-data; boundary=x"} if status == 415 else {}
    r = client.request(method, path, content=content, headers=headers)
    assert r.status_code == status
    assert set(r.json()) == {"error", "error_zh"}
    assert r.json()["error_zh"] not in BY_STATUS.values() and HAN.search(r.json()["error_zh"]), r.json()


def test_an_internal_error_is_said_in_chinese_too(photo):
    class Broken:
        def predict(self, image):
            raise RuntimeError("model exploded")

    from fastapi.testclient import TestClient

    r = TestClient(create_app(Broken()), raise_server_exceptions=False).post("/api/read", content=photo)
    assert r.status_code == 500 and "model exploded" in r.json()["error"] and r.json()["error_zh"] == "服务器出错"


def test_a_fifth_copy_of_a_tile_in_the_winners_hand_is_said_in_chinese(tray):
    client, token = tray
    fives = {str(i): Tile.M2.index for i in (3, 4)}  # both 8m read as 2m: five 2m
    body = client.post("/api/rescore", json={"token": token, "corrections": fives}).json()
    assert body["valid"] is False and body["error"] == ("5 copies of 2m in the winner's hand and melds: a set has "
                                                        "only 4 of each tile")
    assert body["reading"]["messages_zh"][body["error"]] == "赢家的手牌和碰杠里，二万 共有 5 张（每种牌只有四张）"


def test_the_rules_box_comes_in_each_language_alone():
    client, _ = client_for(two_kongs_detections())
    rules = client.get("/api/faces").json()["rules"]
    assert (rules["name"], rules["name_zh"]) == ("default (003 text)", "默认（按 003 文本）")
    for option in rules["options"]:
        assert _chinese_only(option["zh"]) and not HAN.search(option["en"]), option
        for choice in option["choices"]:
            assert choice["text"] and not re.search(r"[A-Za-z]", choice["zh"]) and not HAN.search(choice["en"]), choice
    assert [c["text"] for c in rules["options"][1]["choices"]] == ["否 no", "是 yes"]  # as before, for other clients
    table = client.get("/api/rules", params={"rules": '{"four_fa": "on_top", "hai_di_pao": "start_at_10"}'}).json()
    assert table["name_zh"] == "默认（按 003 文本）"
    rows = {row["key"]: row for row in table["items"]}
    assert (rows["fa"]["pao"], rows["fa"]["pao_zh"], rows["fa"]["pao_en"]) == (
        "1 each, four = 4+10", "每张 1，四张 = 4+10", "1 each, four = 4+10")
    assert (rows["hai_di_pao"]["pao_zh"], rows["hai_di_pao"]["pao_en"]) == ("从 10 起算", "counts from 10")
    for row in rows.values():
        assert not re.search(r"[A-Za-z]", row["pao_zh"]) and not HAN.search(row["pao_en"] + row["en"]), row


def test_the_scoring_items_and_events_are_named_in_english_without_chinese(photo):
    assert not [en for _, en in ITEM_NAMES.values() if HAN.search(en)]
    client, _ = client_for(two_kongs_detections())
    events = client.get("/api/faces").json()["events"]
    assert events and not [e for e in events if HAN.search(e["en"])]
    body = client.post("/api/read?self_draw=1&events=kong_bloom", content=photo).json()
    assert body["items"] and not [i for i in body["items"] if HAN.search(i["en"])]


@pytest.mark.parametrize(("status", "zh"), [
    pytest.param(400, "服务器不接受这个请求", id="400"),
    pytest.param(408, "上传中断了", id="408-stalled"),
    pytest.param(413, "上传的内容太大", id="413-too-big"),
    pytest.param(415, "上传的格式不对", id="415-a-form"),
    pytest.param(418, "服务器不接受这个请求", id="another-4xx-said-as-400"),
    pytest.param(500, "服务器出错", id="500"),
    pytest.param(503, "服务器出错", id="another-5xx-said-as-500"),
    pytest.param(507, "服务器存不下", id="507-no-room"),
])
def test_a_refusal_the_tables_do_not_know_is_said_by_its_kind(status, zh):
    from xingzi.web.refusals import refusal

    assert refusal("a message no table knows", status) == {"error": "a message no table knows", "error_zh": zh}


@pytest.mark.parametrize(("message", "zh"), [
    pytest.param("upload of 13.5 MiB is over the 12 MiB limit", "照片太大（13.5 兆，上限 12 兆）", id="declared"),
    pytest.param("upload is over the 12 MiB limit", "照片太大（上限 12 兆）", id="streamed"),
])
def test_an_upload_over_the_limit_is_said_in_megabytes_the_chinese_way(message, zh):
    from xingzi.web.refusals import refusal

    assert refusal(message, 413)["error_zh"] == zh


def test_a_message_up_to_the_limit_is_sent_whole_and_a_longer_one_cut_saying_how_much():
    from xingzi.web.guards import MAX_MESSAGE, short

    assert short("x" * MAX_MESSAGE) == "x" * MAX_MESSAGE
    assert short("x" * (MAX_MESSAGE + 7)) == "x" * MAX_MESSAGE + "… (7 more characters)"


@pytest.mark.parametrize(("index", "chinese"), [
    pytest.param(8, "第 8 张牌是明杠的牌：只有手里立着的牌才能是胡的牌", id="a-kong-tile"),
    pytest.param(12, "第 12 张牌是暗杠的牌：只有手里立着的牌才能是胡的牌", id="a-concealed-kong-tile"),
])
def test_a_tile_no_winning_tile_can_be_is_said_in_chinese_not_by_the_refusals_kind(index, chinese):
    client, _ = client_for(two_kongs_detections())
    token = client.post("/api/read", content=jpeg_bytes()).json()["token"]
    r = client.post("/api/rescore", json={"token": token, "win": index})
    assert r.status_code == 400 and "only a tile standing in the hand can be the winning tile" in r.json()["error"]
    assert r.json()["error_zh"] == chinese
