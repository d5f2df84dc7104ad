"""Chinese and English names of the scoring items, for captions, the command line and the web page."""

from __future__ import annotations

# key → (中文, English). Keys are the §10 result item keys. The English has no Chinese in it (the page in English
# alone shows no Han): the dragons by their names, zhong, fa, bai.
ITEM_NAMES: dict[str, tuple[str, str]] = {
    "ping_hu": ("平胡", "plain win"),
    "fa": ("发", "fa bonus tiles"),
    "kong": ("明杠", "exposed kong"),
    "concealed_kong": ("暗杠", "concealed kong"),
    "dragon_pung": ("碰中白", "pung of zhong/bai"),
    "dragon_concealed_pung": ("中白暗刻", "concealed zhong/bai triplet"),
    "dragon_kong": ("中白明杠", "exposed zhong/bai kong"),
    "dragon_concealed_kong": ("中白暗杠", "concealed zhong/bai kong"),
    "self_draw": ("自摸", "self-draw"),
    "concealed": ("门前清", "concealed hand"),
    "single_wait": ("胡单张", "single wait"),
    "kong_bloom": ("杠上开花", "win on a kong replacement"),
    "bloom_kong": ("开花的杠", "the kong whose replacement tile won"),
    "kong_tears": ("杠上流泪", "win on the discard after a kong"),
    "robbing_kong": ("抢杠", "robbing the kong"),
    "xiaosa": ("潇洒", "run of pairs/triplets"),
    "haohua": ("豪华", "four of a kind in seven pairs"),
    "wenrou": ("温柔碰碰胡", "concealed all-triplets"),
    "quan_qiu_ren": ("全求人", "all melds claimed"),
    "shuang_bian": ("双边双夹", "double edge/middle wait"),
    "hai_di_lao_yue": ("海底捞月", "last tile self-drawn"),
    "hai_di_pao": ("海底放炮", "last tile discarded"),
    "tong_ku": ("痛苦", "last of a visible wait"),
    "shang_xin": ("伤心痛苦", "last of a two-sided wait"),
    "hui_tou": ("回头一笑", "own discard back"),
    "tao_sheng": ("涛声依旧", "same tile as last hand"),
    "wang_en": ("忘恩负义", "discarder's last winning tile"),
    "qing_yi_se": ("清一色", "one suit"),
    "hun_yi_se": ("混一色", "one suit and dragons"),
    "peng_peng_hu": ("碰碰胡", "all triplets"),
    "qi_dui": ("七对", "seven pairs"),
    "yi_tiao_long": ("一条龙", "straight 1-9"),
    "hong_qi": ("红旗飘飘", "zhong and bai sets"),
    "qi_xian_nv": ("七仙女", "seven consecutive pairs"),
}
EVENTS = ("kong_bloom", "kong_tears", "robbing_kong", "hai_di_lao_yue", "hai_di_pao",
          "tong_ku", "shang_xin", "hui_tou", "tao_sheng", "wang_en")
# Words the annotated picture and the page print, besides the names above.
UI_WORDS = "炮共计诈胡无效自摸点庄家闲付赢读出张牌背面和发财红中白板万筒条一二三四五六七八九碰杠暗明刻" \
    "拍照上传选择改正确认取消请稍候错误图片太大空桌没有找到放炮者每人付缺多" \
    "非星子未分改"
NO_SCORE = "未计分"  # the caption of a photo whose tiles make no hand to score (nothing claimed: no 诈胡)
FOREIGN_LABEL = "非星子牌"  # drawn on a box holding no Xingzi tile (a wind, a flower)
# `xingzi eval --draw-misses`: 真 the labelled face, 读 as read, 偏 box off its tile, 漏 not found, 多 on no tile
MISS_MARKS = {"true": "真", "read": "读", "off": "偏", "missed": "漏", "extra": "多"}


def item_name(key: str, chinese: bool = True) -> str:
    zh, en = ITEM_NAMES.get(key, (key, key))
    return zh if chinese else en


def font_text() -> str:
    """Every character the vendored font subset must hold."""
    from xingzi.engine.tiles import CLASS_NAMES_CN

    chars = set(UI_WORDS) | set("".join(CLASS_NAMES_CN)) | set("".join(MISS_MARKS.values())) | {c for zh, _ in ITEM_NAMES.values() for c in zh}
    chars |= {chr(c) for c in range(0x20, 0x7F)} | set("×·—–→←…：，。（）！？、％；")
    chars |= caption_chinese()
    return "".join(sorted(chars))


def caption_chinese() -> set[str]:
    """The Chinese characters the photo's caption may say: the reading's messages in Chinese (their tables are
    functions of the message, so the characters are read from the module's own text) and a repair's note."""
    import inspect

    from xingzi.vision import messages, pipeline

    text = inspect.getsource(messages) + inspect.getsource(pipeline.repair_note_zh)
    return {c for c in text if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"}
