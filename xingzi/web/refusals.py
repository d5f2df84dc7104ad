"""Chinese for the web app's refusals, sent beside the English as ``{"error": ..., "error_zh": ...}`` so that the page
can say why in the language it is shown in. The English stays the message of record (logs, tests, other clients);
this adds a translation, as :mod:`xingzi.vision.messages` does for the reading's messages, whose table is asked
first (the engine's word on payers and events reaches the page as a refusal too). A refusal the tables do not know
still gets a Chinese line: what kind of refusal it is, by its HTTP status."""

from __future__ import annotations

import re
from collections.abc import Callable

from xingzi.vision.messages import chinese as reading_chinese
from xingzi.vision.messages import tile_chinese, translated
from xingzi.vision.names import item_name

from .guards import short

# a refusal of this status the tables do not know
BY_STATUS = {400: "服务器不接受这个请求", 404: "没有找到", 405: "不接受这种请求", 408: "上传中断了", 413: "上传的内容太大",
             415: "上传的格式不对", 500: "服务器出错", 507: "服务器存不下"}
ROLES = {"concealed": "手里的牌", "win": "胡的牌", "pung": "碰的牌", "kong": "明杠的牌", "concealed_kong": "暗杠的牌",
         "fa": "发", "loose": "不计的牌", "ignored": "已设为不属于这手的牌", "foreign": "非星子牌"}
WHAT = {"correction for tile": "改正", "tile to add beside": "添加在旁边", "removed tile": "不是牌", "winning tile": "胡的牌", "claimed meld": "碰/杠",
        "meld to release": "放回手里", "ignored tile": "不属于这手"}
FIELDS = {"self_draw": "自摸", "dealer": "庄家", "as_read": "照读计分", "store": "保存到训练集", "flag": "这一项",
          "fa": "发的张数", "ignored": "不属于这手的牌", "removed": "不是牌的框", "claimed": "碰/杠的牌",
          "released": "放回手里的牌", "placed": "由服务器放的位置", "rules": "规则", "payers": "吃炮", "table": "记分表",
          "events": "加炮事件"}
OS_ERRORS = {"already exists and is in the way (a file where a folder is needed?)": "挡在那里（该是文件夹的地方有个文件？）",
             "not found": "找不到", "a file stands where a folder is needed on this path": "路径上该是文件夹的地方是个文件",
             "not allowed here": "没有权限", "is a folder; expected a file": "是个文件夹，应为文件", "the disk is full": "磁盘满了"}


def _field(name: str) -> str:
    return FIELDS.get(name.strip("'\""), name)


def _mib(size: str) -> str:
    """``13.0 MiB`` → ``13.0 兆``"""
    return size.replace(" MiB", " 兆")


def _os_error(text: str) -> str:
    path, _, why = text.rpartition(": ")
    return f"{path}：{OS_ERRORS[why]}" if why in OS_ERRORS else text


PATTERNS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = tuple(
    (re.compile(p, re.S), f) for p, f in (
        # the photo
        (r"(.+) \(it came without a line break, as curl -d sends a file: send the photo with --data-binary \S+\)",
         lambda m: f"{chinese(m[1]) or BY_STATUS[400]}（照片传来时丢了换行符，curl -d 就会这样：请用 --data-binary 发送）"),
        (r"the upload is empty: expected .+", lambda m: "上传的文件是空的：请发一张照片"),
        (r"not an image: expected .+", lambda m: "读不了这个文件（不是照片，或已损坏）"),
        (r"the image cannot be decoded \(truncated or corrupt\): .*", lambda m: "读不了这个文件（照片不完整或已损坏）"),
        (r"image refused: a JPEG of more than (\d+) scans, .+",
         lambda m: f"照片被拒收：这张图有 {m[1]} 层以上的扫描（相机最多写十几层），可能是恶意文件"),
        (r"image refused: its header claims far more than the (\d+) megapixels accepted .+",
         lambda m: f"照片被拒收：文件头声称的像素远超 {m[1]} 百万像素的上限（可能是恶意文件）"),
        (r"image is (\d+)x(\d+) = (\d+) megapixels; at most (\d+) are accepted(?: in an? [^:]+)?(: .+)?",
         lambda m: f"照片有 {m[1]}×{m[2]} = {m[3]} 百万像素，太大：最多 {m[4]} 百万像素"
                   + ("（请用较低的分辨率拍照，或把照片缩小到长边 1600 像素以内）" if m[5] else "")),
        (r"tile #(\d+) is read as (\w+): only a tile standing in the hand can be the winning tile",
         lambda m: f"第 {m[1]} 张牌是{ROLES.get(m[2], m[2])}：只有手里立着的牌才能是胡的牌"),
        (r"upload of (.+) is over the (.+) limit", lambda m: f"照片太大（{_mib(m[1])}，上限 {_mib(m[2])}）"),
        (r"upload is over the (.+) limit", lambda m: f"照片太大（上限 {_mib(m[1])}）"),
        (r"request of (.+) is over the (.+) limit", lambda m: f"请求内容太大（{_mib(m[1])}，上限 {_mib(m[2])}）"),
        (r"request is over the (.+) limit", lambda m: f"请求内容太大（上限 {_mib(m[1])}）"),
        (r"the upload was cut off before its end", lambda m: "上传中断了：照片没有传完"),
        (r"the request was cut off before its end", lambda m: "请求中断了：内容没有传完"),
        (r"the upload stalled: nothing came for (\S+) s", lambda m: f"上传卡住了：{m[1]} 秒没有收到数据"),
        (r"send the photo's bytes as the request body .+, not as a form",
         lambda m: "请把照片本身作为请求内容发送（curl --data-binary @photo.jpg），不要用表单"),
        (r"this photo is no longer held by the server: upload it again", lambda m: "服务器上已没有这张照片，请再上传一次"),
        (r"this server keeps no dataset: .+", lambda m: "这台服务器不收集训练集：请用 xingzi serve --collect 启动，或把标注存为 zip"),
        (r"存不进训练集 the photo could not be saved in the server's dataset folder (.+?): (.+)",
         lambda m: f"存不进训练集：服务器的训练集文件夹 {m[1]} 存不进这张照片（{_os_error(m[2])}）"),
        (r"internal error: .*", lambda m: "服务器出错"),
        # the request's form
        (r"expected a JSON object", lambda m: "请求内容应为一个 JSON 对象"),
        (r"token must be the text the photo was read under, got .+", lambda m: "token 应为读这张照片时得到的那串字"),
        (r"expected a JSON body .+", lambda m: "请求内容不是有效的 JSON"),
        (r"key (.+) is given twice in one object: .+", lambda m: f"同一个对象里 {m[1]} 给了两次：请只给一次"),
        (r"(\S+) is no JSON number: .+", lambda m: f"{m[1]} 不是 JSON 里的数：请写一个数，或去掉这一项"),
        (r"(\S+) is too large a number: .+", lambda m: "数太大：请写小一点的数，或去掉这一项"),
        (r"(\w+) in the query: (.+)", lambda m: f"查询参数 {m[1]}：{chinese(m[2]) or m[2]}"),
        (r"(\w+) in the query must be JSON, got .+", lambda m: f"查询参数 {m[1]} 应为 JSON"),
        (r"(\w+) is given (\d+) times in the query .+", lambda m: f"查询参数 {m[1]} 给了 {m[2]} 次：请只给一次"),
        (r"(/\S*) takes (.+), not (\S+)", lambda m: f"{m[1]} 不接受 {m[3]} 请求（只接受 {m[2].replace(', ', '、')}）"),
        (r"no such address: (\S+).*", lambda m: f"没有这个地址：{m[1]}（网页在 /）"),
        # the user's word on the tiles
        (r"corrections must be an object .+", lambda m: "改正应为 {牌号: 牌面编号} 的对象"),
        (r"corrections must map tile indices to class ids .+", lambda m: "改正的牌面编号应为整数"),
        (r"corrections: a tile index is a whole number written plainly, .+",
         lambda m: "改正的牌号应为普通写法的整数，如“3”"),
        (r"bad added tile: (.+)", lambda m: f"添加的牌有误：{chinese(m[1]) or m[1]}"),
        (r"bad correction: (.+)", lambda m: f"改正有误：{chinese(m[1]) or m[1]}"),
        (r"win must be a tile index or null, got .+", lambda m: "胡的牌应为一个牌号，或不填"),
        (r"(\w+) must be a list of tile indices, got .+", lambda m: f"{_field(m[1])}应为牌号的列表"),
        # what is said of one added tile, after its place in the list
        (r"added tile (\d+): (.+)", lambda m: f"添加的第 {int(m[1]) + 1} 张：{chinese(m[2]) or m[2]}"),
        (r"(.+) #(-?\d+): there are (\d+) tiles \(0\.\.(\d+)\)",
         lambda m: f"没有第 {m[2]} 张牌（{WHAT.get(m[1], m[1])}）：照片上只有 {m[3]} 张（0–{m[4]}）"),
        (r"correction for tile #(-?\d+): class must be 0\.\.(\d+), got .+",
         lambda m: f"第 {m[1]} 张的改正：牌面编号应为 0–{m[2]}"),
        (r"at most (\d+) tiles can be added to a photo, got (\d+)",
         lambda m: f"一张照片最多添加 {m[1]} 张牌，这里有 {m[2]} 张"),
        (r"class must be an integer 0\.\.(\d+), got .+", lambda m: f"牌面编号应为 0–{m[1]} 的整数"),
        (r"expected a box .+ of 4 numbers, got .+", lambda m: "位置应为 4 个数（左、上、右、下）"),
        (r"expected x0 < x1 and y0 < y1, got .+", lambda m: "位置的右边应大于左边，下边应大于上边"),
        (r"box .+ lies outside the (\d+)x(\d+) photo", lambda m: f"位置在照片（{m[1]}×{m[2]}）之外"),
        (r"added must be a list of \{cls, xyxy\} or \{cls, beside\} objects, got .+",
         lambda m: "添加的牌应为 {cls, xyxy} 或 {cls, beside} 对象的列表"),
        (r"beside must be the index of a tile of the row or meld, got .+", lambda m: "beside 应为手牌或碰杠里一张牌的牌号"),
        (r"tile #(-?\d+) was added with \"\+\": its place is where it reads best, .+",
         lambda m: f"第 {m[1]} 张是用“+”添加的，位置是按读法选的，不是它实际所在：要存训练标注，请在它上面点“不是牌”，再点照片上它所在的地方"),
        (r"tile #(-?\d+) is read as (\w+): a missed tile is added beside .+",
         lambda m: f"第 {m[1]} 张是{ROLES.get(m[2], m[2])}，不能在它旁边添加：请选手牌、碰杠、发或扣着的牌里的牌"),
        (r"no place beside tile #(-?\d+)'s group reads the (\S+) in the hand: .+",
         lambda m: f"第 {m[1]} 张那一组旁边没有地方能让{tile_chinese(m[2])}算进这手牌：请点照片上它所在的地方"),
        (r"tile #(-?\d+)'s group holds (\d+) tiles already .+",
         lambda m: f"第 {m[1]} 张那一组已有 {m[2]} 张（杠或四个发），不缺牌"),
        (r"at most (\d+) tiles can be placed beside a group at once, on a photo of at most (\d+) tiles found .+",
         lambda m: f"一次最多在组旁添加 {m[1]} 张，照片上找到的牌最多 {m[2]} 张：请点照片上漏读的牌所在的地方"),
        (r"tile #(-?\d+) is read as (\w+): only tiles standing in the hand can be taken as a claimed meld",
         lambda m: f"第 {m[1]} 张是{ROLES.get(m[2], m[2])}：只有手里立着的牌才能算成碰/杠"),
        (r"tile #(-?\d+): (\d+) (\S+) stand in the hand \(a winning tile set apart not counted\); "
         r"a claimed pung takes three",
         lambda m: f"第 {m[1]} 张：手里立着的{tile_chinese(m[3])}只有 {m[2]} 张（单独放出的胡牌不算），碰要三张"),
        (r"tile #(-?\d+) is read as (\w+): only a claimed pung or kong can be stood back in the hand",
         lambda m: f"第 {m[1]} 张是{ROLES.get(m[2], m[2])}：只有碰或明杠的牌才能放回手里"),
        # the context: flags, events, payers, rules, the tally's seats
        (r"'?(\w+)'? must be true or false, got .+", lambda m: f"{_field(m[1])}应为是或否"),
        (r"'?(\w+)'? must be a whole number, got .+", lambda m: f"{_field(m[1])}应为整数"),
        (r"events must be a list of: .+", lambda m: f"加炮事件只能从这些里选：{_events()}"),
        (r"unknown event .+; expected any of .+", lambda m: f"没有这个加炮事件：只能从这些里选：{_events()}"),
        (r"\"events\" must be a list of names, got .+", lambda m: "加炮事件应为名称的列表"),
        (r"\"?payers\"? must be a list of objects like .+", lambda m: "吃炮应为对象的列表，每位付炮的人一个"),
        (r"payer (\d+): fa must be 0\.\.4, got (-?\d+)",
         lambda m: f"第 {int(m[1]) + 1} 位付炮的人：发应为 0–4 张，这里是 {m[2]} 张"),
        (r"payer (\d+)'s melds must be a list like .+", lambda m: f"第 {int(m[1]) + 1} 位付炮的人的碰杠应为列表"),
        (r"payer (\d+)'s meld objects need .+", lambda m: f"第 {int(m[1]) + 1} 位付炮的人的碰杠要写明种类和牌"),
        (r"meld (.+): a (\w+) is (\d) copies of one tile; write the tile once, got .+",
         lambda m: f"碰杠 {m[1]}：同一种牌 {m[3]} 张，牌只写一次"),
        (r"meld (.+?): .+", lambda m: f"碰杠 {m[1]} 的写法不对：应写成“pung 中”“kong 9p”“concealed_kong 白”这样"),
        (r"rules must be an object of options, .+", lambda m: "规则应为选项的对象"),
        (r"rules: the page may set only .+", lambda m: "规则：网页只能改这一桌的打法和另算的加炮"),
        (r"rules: option '(\w+)' must be .+", lambda m: f"规则：“{_option(m[1])}”的选项不对"),
        (r"ruleset option '(\w+)' must .+", lambda m: f"规则：“{_option(m[1])}”的选项不对"),
        (r"bloom \(the kong 杠上开花 was drawn on\) must be a face .+",
         lambda m: "杠上开花的杠应为一种牌，如 9p，或不填"),
        (r"table must be .+", lambda m: "记分表的座位不对：赢家、庄家应为 0–3，放炮者为 0–3 或不填"),
        (r"a self-drawn win has one winner: .+", lambda m: "自摸只有一个赢家：前面不能有别的赢家"),
        (r"a discard win needs a discarder other than the winner: none was sent .+",
         lambda m: "点炮要有赢家以外的放炮者：没有放炮者（自摸请勾选自摸）"),
        (r"a discard win needs a discarder other than the winner: seat (\d) \(\w+\) is sent as both",
         lambda m: f"点炮要有赢家以外的放炮者：{'东南西北'[int(m[1])]}既是赢家又是放炮者"),
        (r"the winners before on this discard are other seats .+",
         lambda m: "同一张放炮的前几个赢家，应是放炮者和赢家以外的座位，每人一次"),
        # a tile written wrong (a payer's meld, the bloom's kong)
        (r".* in '.*': .*|suit letter .+|unexpected .+ at position .+|digits .+ have no suit letter .*",
         lambda m: "牌的写法看不懂：应写成 3m、9p、5s、中 这样"),
    ))


def _events() -> str:
    from xingzi.vision.names import EVENTS

    return "、".join(item_name(k) for k in EVENTS)


def _option(key: str) -> str:
    from .rules import OPTION_TEXT

    if key == "optional":  # the list of optional additions, as the page names them
        return "另算的加炮"
    return OPTION_TEXT[key][0] if key in OPTION_TEXT else key


def chinese(message: str) -> str | None:
    """The Chinese of a refusal's message, or None for one the tables do not know."""
    said = reading_chinese(message)
    return said if said is not None else translated(message, PATTERNS)


def refusal(message: str, status: int) -> dict[str, str]:
    """A refusal's body: the English of record (``error``, as every client reads it) and its Chinese (``error_zh``):
    the message's own, else what kind of refusal it is."""
    zh = chinese(message) or BY_STATUS.get(status) or BY_STATUS[400 if status < 500 else 500]
    return {"error": short(message), "error_zh": short(zh)}
