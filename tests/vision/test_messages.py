"""The reading's messages in Chinese for the page: every message the grouping and the diagnosis can
say has a translation, with its numbers and tiles carried over."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from xingzi.engine.tiles import BACK_CLASS, Tile
from xingzi.vision.grouping import group
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.messages import chinese, chinese_of
from xingzi.vision.pipeline import Context, analyse

HAND, WIN = "123m456m789p12s55p", "3s"


@pytest.mark.parametrize("english,zh", [
    pytest.param("13 tiles (a winning hand has 14, plus one per kong: 15 here)",
                 "13 张牌（胡牌应有 14 张，每杠加一张：这里应为 15 张）", id="count"),
    pytest.param("five 3p (only four of each tile exist)", "三筒 有 5 张（每种牌只有四张）", id="five-of-a-tile"),
    pytest.param("five 9z (only four of each tile exist)", "9z 有 5 张（每种牌只有四张）", id="no-tile-named-as-written"),
    pytest.param("six 发 (only four exist)", "发 有 6 张（只有四张）", id="six-fa"),
    pytest.param("winning tile not set apart: scored with 7s, giving the total most of the hand's tiles give as "
                 "the winning tile; mark the real winning tile to change it",
                 "胡的牌没有单独放出：按 七条 计（多数牌作胡牌时的炮数）；点出真正胡的牌可改", id="win-scored-with"),
    pytest.param("123m456m789p13s55p 3s does not split into sets and a pair (nor seven pairs)",
                 "123m456m789p13s55p 3s 拆不成四组加一对（也不是七对）", id="no-shape"),
    pytest.param("2 box(es) left out as you said (not part of the hand, or no tile)",
                 "2 个框按你说的未计（不属于这手牌，或不是牌）", id="set-aside"),
    pytest.param("1 tile(s) with no Xingzi face (a wind or flower?) left out", "1 张不是星子麻将的牌（风牌或花牌？）未计",
                 id="foreign"),
    pytest.param("4 face-down tile(s) the hand does not need ignored", "4 张手牌用不上的背面朝上的牌未计",
                 id="face-down-strays"),
    pytest.param("not a winning hand: the tiles form neither 4 sets + a pair nor seven pairs",
                 "不成胡：既不是四组加一对，也不是七对", id="engine-no-shape"),
    pytest.param("only 1 own 炮 counts towards 两炮起胡 (needs 2)", "只有 1 炮算入两炮起胡（需要 2 炮）", id="engine-too-few"),
    pytest.param("only 0 own 炮 count towards 两炮起胡 (needs 2)", "只有 0 炮算入两炮起胡（需要 2 炮）", id="engine-none"),
    pytest.param("only 2 own 炮 count towards 三炮起胡 (needs 3)", "只有 2 炮算入三炮起胡（需要 3 炮）",
                 id="engine-a-house-minimum"),
    pytest.param("only 1 own 炮 counts towards 两炮起胡 (needs 2); not counted for it: fa",
                 "只有 1 炮算入两炮起胡（需要 2 炮）；不算入的：发", id="engine-too-few-with-fa"),
    pytest.param("kong_tears needs the kong just made among the discarder's melds (e.g. 'kong 9p'), got the "
                 "discarder's pung 中", "杠上流泪要有放炮者刚开的杠（明杠或暗杠）", id="tears-without-a-kong"),
    pytest.param("needs an edge or middle wait (边张/夹心) and no other tile kind waited on: 5s completed the hand as "
                 "单钓 pair, and it waited on 2s 5s", "要边张或夹心，且只听这一种牌：五条胡成单钓，听二条、五条",
                 id="not-counted-tong-ku"),
    pytest.param("replaced by 七仙女 qi_xian_nv (the ruleset's [replaces])", "已由七仙女代替", id="not-counted-replaced"),
    pytest.param("worth 0 炮 under these rules", "现用规则记 0 炮", id="not-counted-worth-nothing"),
    pytest.param('the hand\'s base is 10 or more already (hai_di_pao = "start_at_10")', "底分已有 10 炮或以上",
                 id="not-counted-base-10"),
    pytest.param("杠上开花 kong_bloom is won only by self-draw: set self-draw", "杠上开花只在自摸时才有：请勾选自摸",
                 id="bloom-on-a-discard"),
    pytest.param("杠上流泪 kong_tears and 抢杠 robbing_kong are won only on a discard: clear self-draw",
                 "杠上流泪、抢杠只在点炮时才有：请取消自摸", id="discard-events-on-a-self-draw"),
    pytest.param("robbing_kong: a concealed kong cannot be robbed (only a pung made a kong by the tile added), got the "
                 "kong maker's concealed_kong 3s", "抢杠：暗杠不能抢", id="robbing-a-concealed-kong"),
    pytest.param("robbing_kong: the kong maker had a pung of 中 and added the fourth, so the winner holds no other 中, "
                 "got 2", "抢杠：开杠的一家碰了 红中 再加第四张，胡的一家不会再有别的 红中，这里有 2 张",
                 id="robbing-a-tile-the-winner-holds"),
    pytest.param("more than four 发 in front of the players in all", "所有人面前的发加起来超过四张", id="fa-in-all"),
    pytest.param("a discard win has 1 payer (the discarder), got 2", "点炮只由放炮的一家付，这里给了 2 家",
                 id="payers-of-a-discard"),
    pytest.param("a self-drawn win has 3 payers, got 4", "自摸由另外三家付，这里给了 4 家", id="payers-of-a-self-draw"),
    pytest.param("only one player is the dealer, got 2 (winner and payers together)",
                 "庄家只有一个，这里有 2 个（胡牌的和付钱的合计）", id="two-dealers"),
    pytest.param("7 copies of 中 in all players' hands and melds together: a set has only 4 of each tile",
                 "连同别人的碰杠，红中 共有 7 张（每种牌只有四张）", id="copies-with-the-payers"),
    pytest.param("a winning hand with 1 meld(s) has 11 tiles standing in the hand (winning tile included), got 30",
                 "有 1 组碰杠的胡牌，手里立着的牌应为 11 张（含胡的牌），这里有 30 张", id="standing-count"),
    pytest.param("payer 2 shows 9 melds: a player has at most 4", "第 3 位付炮的人亮出 9 组碰杠：每人最多 4 组",
                 id="payer-melds"),
    pytest.param("5 copies of 2m in the winner's hand and melds: a set has only 4 of each tile",
                 "赢家的手牌和碰杠里，二万 共有 5 张（每种牌只有四张）", id="copies-in-the-winners-hand"),
    pytest.param("no winning tile found", "没有找到胡的牌", id="no-winning-tile-found"),
    pytest.param("at most 4 melds, got 5", "最多 4 组碰杠，这里有 5 组", id="five-melds"),
    pytest.param("winning tile 中 is not among the hand's tiles", "胡的牌 红中 不在手牌里", id="winning-tile-not-in-hand"),
    pytest.param("tile #15 (read 1s) counted as 发: 发 is among its likeliest faces, and it lies with the bonus 发",
                 "第 15 张（读作一条）按发计：它也很像发，又和发放在一起", id="misread-fa"),
    pytest.param("tile #3 (read 1m) counted as 发: 发 is its next likeliest face, and it lies alone beside the hand, "
                 "where a bonus 发 is laid", "第 3 张（读作一万）按发计：它其次最像发，又单独放在手牌旁，是放发的地方",
                 id="lone-misread-fa"),
    pytest.param("tile #14 (5p, seen at 0.17, under the detector's threshold) counted: without it the hand is one "
                 "tile short", "第 14 张（五筒，把握仅 0.17，低于识别门槛）已计入：少了它这手牌差一张", id="faint-tile"),
    pytest.param("something new the table does not know", None, id="unknown-stays-english"),
    # a score's error when nothing was found joins the problems: said part by part (it stayed English on the page)
    pytest.param("no tiles found; the photo is 50x50 px, too small to show tiles: send it as the camera took it",
                 "没有找到牌；照片只有 50×50 像素，太小，看不出牌：请发送相机拍的原图", id="joined-problems"),
    pytest.param("no tiles found; something new", None, id="joined-with-one-unknown-stays-english"),
])
def test_messages_in_chinese(english, zh):
    assert chinese(english) == zh


def _readings():
    """Readings that between them say every kind of message the grouping and diagnosis produce."""
    img = np.full((960, 1280, 3), 60, np.uint8)
    full = hand_layout(HAND, WIN, size=60, center=(640, 300)).detections
    fa = Tile.FA.index
    yield analyse(img, hand_layout("123m456m789p1s55p", "3s").detections, Context(), as_read=True)  # 13 tiles
    yield analyse(img, hand_layout(HAND, WIN, win_apart=False).detections, Context())  # win guessed
    yield analyse(img, with_tiles(full, [[300 + 46 * k, 450, 345 + 46 * k, 510] for k in range(6)], [fa] * 6),
                  Context())  # six 发
    yield analyse(img, with_tiles(full, [[300, 450, 345, 510], [300, 80, 345, 140], [346, 80, 391, 140]],
                                  [fa] * 3), Context())  # a 发 apart from the others
    yield analyse(img, hand_layout("123m456s5p", "5p", ["concealed_kong 中", "pung 9p"], kong_shown="DDDD").detections,
                  Context())  # kong all face down
    yield analyse(img, with_tiles(full, [[700, 600, 745, 660]], [Tile.M9.index]), Context(), ignored=[14])
    yield analyse(img, with_tiles(full, [full.xyxy[3] + 1.0], [int(full.cls[3])]), Context())  # a duplicate
    wind = with_tiles(full, [[700, 600, 745, 660]], [Tile.S1.index])  # a wind the classifier knows is none of ours
    yield analyse(img, replace(wind, foreign=np.append(np.zeros(len(full)), 0.9).astype(np.float32)), Context())
    yield analyse(img, hand_layout("123m456m789p12s55p", "3s", ["pung 3p", "pung 3p"]).detections, Context(),
                  as_read=True)  # too many of a tile
    yield analyse(img, with_tiles(full, [[300 + 46 * k, 450, 345 + 46 * k, 510] for k in range(4)], [BACK_CLASS] * 4),
                  Context())  # four face-down tiles beside a complete hand
    doubt = with_tiles(full, [[300 + 46 * k, 450, 345 + 46 * k, 510] for k in range(3)], [fa, fa, Tile.S1.index])
    probs = np.zeros((len(doubt), 31), np.float32)
    probs[np.arange(len(doubt)), doubt.cls] = doubt.conf
    probs[-1, fa] = 0.5
    yield analyse(img, replace(doubt, probs=probs), Context())  # a 发 read as 1s beside the bonus 发


def test_every_message_said_has_chinese():
    said: set[str] = set()
    for res in _readings():
        whole = res.to_json()
        body = whole["reading"]
        # the engine's word when nothing was scored, or why a claim is false, is said in Chinese too
        messages = [*body["problems"], *body.get("reasons", []),
                    *(m for m in (whole.get("error"), whole.get("reason")) if m)]
        said |= set(messages)
        assert set(body["messages_zh"]) == set(messages), [m for m in messages if m not in body["messages_zh"]]
    kinds = {"tiles (a winning hand", "winning tile not set apart", "发 (only four exist)", "lying away from the other",
             "concealed kong shows no face", "left out as you said", "duplicate detection", "of each tile exist",
             "no Xingzi face", "face-down tile(s) the hand does not need", "counted as 发"}
    assert all(any(k in m for m in said) for k in kinds), sorted(said)


def test_chinese_of_keeps_only_what_it_knows():
    assert chinese_of(["no tiles found", "??"]) == {"no tiles found": "没有找到牌"}
    assert group(hand_layout(HAND, WIN).detections).problems == ()  # a clean reading says nothing to translate


def test_a_false_wins_reason_is_translated_in_the_json():
    img = np.full((960, 1280, 3), 60, np.uint8)
    res = analyse(img, hand_layout("123m456m789p13s55p", "3s").detections, Context(), as_read=True)
    body = res.to_json()
    assert body["valid"] is False and body["reason"]
    assert body["reading"]["messages_zh"][body["reason"]] == chinese(body["reason"])


@pytest.mark.parametrize(("context", "zh"), [
    pytest.param(Context(events=("kong_bloom",)), "杠上开花只在自摸时才有：请勾选自摸", id="bloom-on-a-discard"),
    pytest.param(Context(payers=({"fa": 3},)), None, id="fits"),
])
def test_why_a_hand_is_not_scored_is_translated_in_the_json(context, zh):
    img = np.full((960, 1280, 3), 60, np.uint8)
    body = analyse(img, hand_layout(HAND, WIN).detections, context).to_json()
    if zh is None:
        assert body["valid"] is True and "error" not in body
    else:
        assert body["valid"] is False and body["reading"]["messages_zh"][body["error"]] == zh


def test_every_scoring_item_has_a_name_for_players():
    from xingzi.engine.items import ITEMS
    from xingzi.vision.names import ITEM_NAMES

    assert [key for key, _name, _item, _needs in ITEMS if key not in ITEM_NAMES] == []
