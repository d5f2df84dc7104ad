"""Chinese for the reading's messages (problems and reasons), for players who read Chinese at the
table. The English stays the message of record (logs, JSON, tests); this only adds a translation."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from xingzi.engine.tiles import CLASS_NAMES_CN, Tile

from .handcheck import NUMBER_WORDS
from .names import item_name


def _count(word: str) -> str:
    return str(NUMBER_WORDS.index(word)) if word in NUMBER_WORDS else word


def tile_chinese(symbol: str) -> str:
    """A tile's notation (``8m``, ``中``) → its name as players say it (八万, 红中); as written when it is none."""
    try:
        return CLASS_NAMES_CN[Tile.parse(symbol).index]
    except ValueError:
        return symbol


# (pattern, Chinese from its groups); the first that matches the whole message is used.
PATTERNS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = tuple(
    (re.compile(p), f) for p, f in (
        (r"(\d+) box\(es\) left out as you said \(not part of the hand, or no tile\)",
         lambda m: f"{m[1]} 个框按你说的未计（不属于这手牌，或不是牌）"),
        (r"(\d+) tile\(s\) with no Xingzi face \(a wind or flower\?\) left out",
         lambda m: f"{m[1]} 张不是星子麻将的牌（风牌或花牌？）未计"),
        (r"(\d+) duplicate detection\(s\) ignored", lambda m: f"{m[1]} 个重复的框未计"),
        (r"(\w+) 发 \(only four exist\)", lambda m: f"发 有 {_count(m[1])} 张（只有四张）"),
        (r"only 发 bonus tiles found", lambda m: "只找到发（花牌）"),
        (r"no tiles found", lambda m: "没有找到牌"),
        (r"the photo is (\d+)x(\d+) px, too small to show tiles: send it as the camera took it",
         lambda m: f"照片只有 {m[1]}×{m[2]} 像素，太小，看不出牌：请发送相机拍的原图"),
        (r"the photo is (\d+)x(\d+) px, a narrow strip: take the hand with some table around it",
         lambda m: f"照片是 {m[1]}×{m[2]} 像素的窄条：请连同周围的桌面一起拍下整手牌"),
        (r"the tiles are (\d+) px across in this (\d+)x(\d+) px photo, too small to read: send the photo as the camera "
         r"took it, or take it closer",
         lambda m: f"这张 {m[2]}×{m[3]} 像素的照片里牌只有 {m[1]} 像素宽，太小，认不清：请发送相机拍的原图，或靠近些拍"),
        (r"the photo is very dark \(brightness (\d+) of 255\): take it again in more light",
         lambda m: f"照片太暗（亮度 {m[1]}/255）：请在更亮的地方重拍"),
        (r"(\d+) tile\(s\) lying away from the hand ignored", lambda m: f"{m[1]} 张离手牌较远的牌未计"),
        (r"(\d+) tile\(s\) off the hand's line ignored", lambda m: f"{m[1]} 张不在手牌那一行上的牌未计"),
        (r"(\d+) face-down tile\(s\) the hand does not need ignored", lambda m: f"{m[1]} 张手牌用不上的背面朝上的牌未计"),
        (r"(\d+) tiles \(a winning hand has 14, plus one per kong: (\d+) here\)",
         lambda m: f"{m[1]} 张牌（胡牌应有 14 张，每杠加一张：这里应为 {m[2]} 张）"),
        (r"(\w+) (\S+) \(only four of each tile exist\)",
         lambda m: f"{tile_chinese(m[2])} 有 {_count(m[1])} 张（每种牌只有四张）"),
        (r"winning tile not set apart: (\d+) tiles lie apart from the hand",
         lambda m: f"胡的牌没有单独放出：{m[1]} 张牌离开手牌"),
        (r"winning tile not set apart: guessed the end tile of the row standing furthest from its neighbour",
         lambda m: "胡的牌没有单独放出：猜为一行末端离邻牌最远的那张"),
        (r"winning tile not set apart: scored with (\S+), giving the total most of the hand's tiles give as the "
         r"winning tile; mark the real winning tile to change it",
         lambda m: f"胡的牌没有单独放出：按 {tile_chinese(m[1])} 计（多数牌作胡牌时的炮数）；点出真正胡的牌可改"),
        (r"(\d+) 发 lying away from the other 发 ignored", lambda m: f"{m[1]} 张离其他发较远的发未计"),
        (r"(\d+) 发 lying with tiles away from the hand ignored", lambda m: f"{m[1]} 张放在手牌以外的牌旁边的发未计"),
        (r"tile #(\d+) \(read (\S+)\) counted as 发: 发 is among its likeliest faces, and it lies with the bonus 发",
         lambda m: f"第 {m[1]} 张（读作{tile_chinese(m[2])}）按发计：它也很像发，又和发放在一起"),
        (r"tile #(\d+) \(read (\S+)\) counted as 发: 发 is its next likeliest face, and it lies alone beside the hand, "
         r"where a bonus 发 is laid", lambda m: f"第 {m[1]} 张（读作{tile_chinese(m[2])}）按发计：它其次最像发，又单独放在手牌旁，是放发的地方"),
        (r"tile #(\d+) \((\S+), seen at ([\d.]+), under the detector's threshold\) counted: without it the hand is "
         r"one tile short", lambda m: f"第 {m[1]} 张（{tile_chinese(m[2])}，把握仅 {m[3]}，低于识别门槛）已计入：少了它这手牌差一张"),
        (r"a concealed kong shows no face: cannot tell which tile it is", lambda m: "暗杠全部背面朝上：看不出是哪张牌"),
        (r"a concealed kong shows no face, and no face under it makes a winning hand of the other tiles: correct a "
         r"misread tile, or name the kong by a face-down tile of it",
         lambda m: "暗杠全部背面朝上，而且不论它是哪张牌，其余的牌都不成胡：请改正认错的牌，或点暗杠的一张背面牌说出它是哪张"),
        (r"(.+) does not split into sets and a pair( \(nor seven pairs\))?",
         lambda m: f"{m[1]} 拆不成四组加一对" + ("（也不是七对）" if m[2] else "")),
        (r"no winning tile", lambda m: "没有胡的牌"),
        (r"the hand reaches the photo's edge and is short of tiles: one may be cut off there \(take the photo "
         r"with the whole hand in it\)", lambda m: "手牌碰到照片边缘且少了牌：那里可能有牌被切掉（请把整手牌拍进照片）"),
        # the engine's word on a situation that does not fit the hand (nothing scored)
        (r"(.+) (?:is|are) won only by self-draw: set self-draw", lambda m: f"{_events(m[1])}只在自摸时才有：请勾选自摸"),
        (r"(.+) (?:is|are) won only on a discard: clear self-draw", lambda m: f"{_events(m[1])}只在点炮时才有：请取消自摸"),
        (r"robbing_kong: a concealed kong cannot be robbed .+", lambda m: "抢杠：暗杠不能抢"),
        (r"robbing_kong: the kong maker had a pung of (\S+) and added the fourth, so the winner holds no other (\S+), "
         r"got (\d+)", lambda m: f"抢杠：开杠的一家碰了 {tile_chinese(m[1])} 再加第四张，胡的一家不会再有别的 "
                             f"{tile_chinese(m[1])}，这里有 {m[3]} 张"),
        (r"kong_bloom needs the kong just made among the winner's melds \(e\.g\. 'kong 9p'\)",
         lambda m: "杠上开花要有刚开的杠（明杠或暗杠）"),
        (r"kong_tears needs the kong just made among the discarder's melds \(e\.g\. 'kong 9p'\), got .+",
         lambda m: "杠上流泪要有放炮者刚开的杠（明杠或暗杠）"),
        (r"robbing_kong and kong_tears cannot both happen on one tile", lambda m: "抢杠和杠上流泪不会同时发生"),
        (r"a self-drawn win has 3 payers, got (\d+)", lambda m: f"自摸由另外三家付，这里给了 {m[1]} 家"),
        (r"a discard win has 1 payer \(the discarder\), got (\d+)", lambda m: f"点炮只由放炮的一家付，这里给了 {m[1]} 家"),
        (r"only one player is the dealer, got (\d+) \(winner and payers together\)",
         lambda m: f"庄家只有一个，这里有 {m[1]} 个（胡牌的和付钱的合计）"),
        (r"more than four 发 in front of the players in all", lambda m: "所有人面前的发加起来超过四张"),
        (r"(\d+) copies of (\S+) in all players' hands and melds together: a set has only 4 of each tile",
         lambda m: f"连同别人的碰杠，{tile_chinese(m[2])} 共有 {m[1]} 张（每种牌只有四张）"),
        (r"(\d+) copies of (\S+) in the winner's hand and melds: a set has only 4 of each tile",
         lambda m: f"赢家的手牌和碰杠里，{tile_chinese(m[2])} 共有 {m[1]} 张（每种牌只有四张）"),
        (r"no winning tile found", lambda m: "没有找到胡的牌"),
        (r"winning tile missing: .+", lambda m: "没有胡的牌"),
        (r"winning tile (\S+) is not among the hand's tiles", lambda m: f"胡的牌 {tile_chinese(m[1])} 不在手牌里"),
        (r"at most 4 melds, got (\d+)", lambda m: f"最多 4 组碰杠，这里有 {m[1]} 组"),
        (r"发 is a bonus tile and never part of a hand: .+", lambda m: "发是花牌，不算手牌：单独放开，按张数计"),
        (r"a winning hand with (\d+) meld\(s\) has (\d+) tiles standing in the hand \(winning tile included\), "
         r"got (\d+)", lambda m: f"有 {m[1]} 组碰杠的胡牌，手里立着的牌应为 {m[2]} 张（含胡的牌），这里有 {m[3]} 张"),
        (r"payer (\d+) shows (\d+) melds: a player has at most 4",
         lambda m: f"第 {int(m[1]) + 1} 位付炮的人亮出 {m[2]} 组碰杠：每人最多 4 组"),
        (r"only one player is the dealer, got (\d+) \(winner and payers together\)",
         lambda m: f"只能有一个庄家，这里有 {m[1]} 个"),
        # the engine's reasons for a false win (诈胡)
        (r"not a winning hand: the tiles form neither 4 sets \+ a pair nor seven pairs",
         lambda m: "不成胡：既不是四组加一对，也不是七对"),
        (r"only (\d+) own 炮 counts? towards (\S+炮起胡) \(needs (\d+)\)(?:; not counted for it: (.+))?",
         lambda m: f"只有 {m[1]} 炮算入{m[2]}（需要 {m[3]} 炮）"
         + (f"；不算入的：{'、'.join(item_name(k.strip()) for k in m[4].split(','))}" if m[4] else "")),
        # why an event declared is not counted (the engine's events_not_counted)
        (r"optional, off under these rules", lambda m: "可选项，现用规则没有开"),
        (r"needs an edge or middle wait \(边张/夹心\) and no other tile kind waited on: (.+)",
         lambda m: f"要边张或夹心，且只听这一种牌：{_shape(m[1])}"),
        (r"needs a two-sided wait \(两面\) on exactly the two kinds either side of the run the winning tile closes, "
         r"the other side not all held by the winner: (.+)",
         lambda m: f"要两面听牌（胡的牌所成顺子两边的两种牌，另一边不全在自己手里）：{_shape(m[1])}"),
        (r"replaced by \S+ (\w+) \(the ruleset's \[replaces\]\)", lambda m: f"已由{item_name(m[1])}代替"),
        (r"worth 0 炮 under these rules", lambda m: "现用规则记 0 炮"),
        (r"the hand's base is (\d+) or more already \(hai_di_pao = \"start_at_10\"\)",
         lambda m: f"底分已有 {m[1]} 炮或以上"),
    ))


def _shape(said: str) -> str:
    """``5s completed the hand as 单钓 pair, and it waited on 2s 5s`` → 五条胡成单钓，听二条、五条"""
    m = re.fullmatch(r"(\S+) completed the hand as (.+), and it waited on (.+)", said)
    if m is None:
        return said
    shapes = "或".join(s.split()[0] for s in m[2].split(" or "))
    waited = "、".join(tile_chinese(t) for t in m[3].split()) if m[3] != "-" else "无"
    return f"{tile_chinese(m[1])}胡成{shapes}，听{waited}"


def _events(listed: str) -> str:
    """``杠上开花 kong_bloom and 海底捞月 hai_di_lao_yue`` → 杠上开花、海底捞月"""
    return "、".join(item_name(named.split()[-1]) for named in listed.split(" and "))


def translated(message: str, patterns: Iterable[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]) -> str | None:
    """The Chinese that the first of ``patterns`` matching the whole message makes of it, or None."""
    for pattern, make in patterns:
        m = pattern.fullmatch(message)
        if m:
            return make(m)
    return None


def chinese(message: str) -> str | None:
    """The Chinese of one of the reading's messages, or None for a message not in the table. Messages joined by
    "; " (a score's error when no tiles were found gives the problems together) are said part by part."""
    whole = translated(message, PATTERNS)
    if whole is not None or "; " not in message:
        return whole
    parts = [translated(part, PATTERNS) for part in message.split("; ")]
    return "；".join(p for p in parts if p is not None) if all(p is not None for p in parts) else None


def chinese_of(messages: Iterable[str]) -> dict[str, str]:
    """English message → Chinese, for the messages the table knows."""
    out = {}
    for text in messages:
        zh = chinese(text)
        if zh is not None:
            out[text] = zh
    return out
