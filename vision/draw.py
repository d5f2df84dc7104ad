"""Draw a reading back onto the photo: each tile boxed and named in Chinese with its confidence,
melds outlined, the winning tile marked, and the score as a caption.

``draw(image, reading_or_detections, result=None)`` gives back the type it got: a numpy array
(BGR, as OpenCV and the detector use) comes back as a BGR array, a PIL image as a PIL image.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from xingzi.engine.tiles import CLASS_NAMES_CN

from .detections import Detections
from .grouping import SET_ASIDE, HandReading
from .messages import chinese
from .names import FOREIGN_LABEL, NO_SCORE, item_name
from .rowgeom import frame

FONT_PATH = Path(__file__).with_name("fonts") / "wqy-microhei-xingzi.ttf"

# RGB per role: standing tiles green, winning tile red, claimed melds blue, concealed kongs purple.
COLORS = {
    "concealed": (40, 170, 70),
    "win": (230, 30, 30),
    "pung": (30, 110, 230),
    "kong": (30, 110, 230),
    "concealed_kong": (150, 60, 200),
    "fa": (220, 160, 0),
    "loose": (140, 140, 140),
    "ignored": (90, 90, 90),
    "foreign": (90, 90, 90),
}
LABEL_SHARE = 0.035  # a label's font at most this share of the picture's long side
MARK_COLOR = (230, 0, 180)  # a tile scored as another face than read (magenta: no role uses it)
TURNED_OUTLINE = 0.05  # a row turned less than this (sine of its angle) from level or upright: melds outlined upright
USER_MARK = "改"  # under a face the user set: changed by hand, not read with a confidence


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The vendored CJK font (WenQuanYi Micro Hei subset, Apache-2.0) at a pixel size."""
    return ImageFont.truetype(str(FONT_PATH), max(8, int(size)))


def draw(image, what: HandReading | Detections, result: dict | None = None,
         marks: Mapping[int, int | None] | None = None, user: Collection[int] = (), numbered: bool = False,
         tag_boxes: dict[int, Rect] | None = None):
    """Annotate ``image`` with a reading (roles, melds, winning tile) or bare detections.

    ``marks``: detections scored as another face (index → class) or left out (index → None); their
    labels show the face as read and the one scored, in their own colour. ``user``: detections whose
    face the user set (corrected or added): ``USER_MARK`` in place of a confidence the model never
    gave that face. ``numbered``: each label ends with the tile's number (its index, as ``xingzi score --tiles``
    lists it and ``--fix`` takes it). ``result["note"]`` is written above the score. ``tag_boxes``: filled with
    where each detection's label was drawn (index → x0, y0, x1, y1), so a tap on a label can mean its tile.
    """
    if isinstance(image, Image.Image):
        return _annotate(image.convert("RGB"), what, result, marks or {}, frozenset(user), numbered, tag_boxes)
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3):
        raise ValueError(f"draw expects a PIL image or an HxW(x3) numpy array, got {type(image).__name__}")
    image = image.astype(np.uint8, copy=False)
    rgb = cv2.cvtColor(image, cv2.COLOR_BGR2RGB if image.ndim == 3 else cv2.COLOR_GRAY2RGB)
    out = _annotate(Image.fromarray(rgb), what, result, marks or {}, frozenset(user), numbered, tag_boxes)
    return cv2.cvtColor(np.asarray(out), cv2.COLOR_RGB2BGR)


def caption_lines(result: dict | None) -> list[str]:
    """The score in words: total and items, then payments; or why the claim is false. Said in Chinese, as the tiles'
    labels are (players at the table read it there; the page and the command line say it in English too): a message
    without a Chinese is kept in English. ``result["note_zh"]``, where given, is the note's Chinese."""
    if not result:
        return []
    note = [str(result.get("note_zh") or result["note"])] if result.get("note") else []
    if not result.get("valid", False):
        if result.get("reason"):  # the engine's verdict on a claim: a false win
            zh = chinese(str(result["reason"]))
            return [*note, f"诈胡：{zh}" if zh else f"诈胡 invalid: {result['reason']}"]
        why = result.get("error") or "no legal hand read"  # nothing claimed
        zh = chinese(str(why))
        return [*note, f"{NO_SCORE}：{zh}" if zh else f"{NO_SCORE} no score: {why}"]
    items = " ".join(f"{item_name(i['key'])}{i['pao']}" for i in result.get("items", []))
    lines = [*note, f"共 {result.get('own', 0)} 炮  {items}"]
    pays = result.get("payments", [])
    if pays:
        lines.append("  ".join(f"付 {p.get('amount', p.get('pao', 0))}" for p in pays))
    return lines


def _annotate(img: Image.Image, what: HandReading | Detections, result: dict | None,
              marks: Mapping[int, int | None], user: frozenset[int], numbered: bool = False,
              tag_boxes: dict[int, Rect] | None = None) -> Image.Image:
    det = what.detections if isinstance(what, HandReading) else what
    roles = what.roles if isinstance(what, HandReading) else ("concealed",) * len(det)
    canvas = ImageDraw.Draw(img)
    scale = max(img.size) / 1000.0
    widths = np.minimum(det.xyxy[:, 2] - det.xyxy[:, 0], det.xyxy[:, 3] - det.xyxy[:, 1]) if len(det) else [40.0]
    # Two CJK characters fit across a tile: name on one line, confidence under it; in a close-up, no taller than
    # a share of the picture (tags as big as the tiles there hid half the hand)
    label_font = font(int(np.clip(np.median(widths) * 0.42, 10, max(10.0, min(60.0, LABEL_SHARE * max(img.size))))))
    line = max(2, int(round(2 * scale)))
    boxes = on_picture(det.xyxy, img.size)
    lines = caption_lines(result)
    if isinstance(what, HandReading) and what.problems and not lines:
        lines = list(what.problems[:2])
    caption_font = font(int(np.clip(28 * scale, 14, 72)))
    caption = _caption_band(img, canvas, lines, caption_font, boxes) if lines else None
    # tags drawn so far (and the caption's band): a new one goes where it covers none of them
    taken: list[Rect] = [caption[0]] if caption else []
    if isinstance(what, HandReading):
        _outline_melds(canvas, what, line, taken, img.size, boxes)
    tags = []
    for i in range(len(det)):
        x0, y0, x1, y1 = (float(v) for v in boxes[i])
        role = roles[i] if i < len(roles) else "concealed"
        color = COLORS.get(role, COLORS["loose"])
        width = line * 2 if role == "win" else line
        canvas.rectangle((x0, y0, x1, y1), outline=color, width=width)
        text = tag_text(int(det.cls[i]), float(det.conf[i]), role, marks.get(i, -1), i in user)
        if numbered:
            text += f" #{i}"
        if role in SET_ASIDE:  # set aside by the user, or no Xingzi tile: crossed out
            canvas.line((x0, y0, x1, y1), fill=color, width=line)
            canvas.line((x0, y1, x1, y0), fill=color, width=line)
        if i in marks:  # scored as another face, or left out
            color = MARK_COLOR
            canvas.rectangle((x0, y0, x1, y1), outline=color, width=width * 2)
        tags.append((role != "win" and i not in marks, x0, i, (x0, y0, x1, y1), text, color))
    # the winning tile and corrected tiles first (their tags stay next to their tiles), then left to right
    tags.sort(key=lambda t: (t[0], t[1]))
    rects = draw_tags(canvas, [(box, text, color) for *_, box, text, color in tags], label_font, taken, img.size,
                      boxes)
    if tag_boxes is not None:
        tag_boxes.update({i: rect for (_, _, i, *_), rect in zip(tags, rects, strict=True)})
    if caption:
        _caption(img, canvas, *caption, caption_font)
    return img


def on_picture(xyxy: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Boxes cut to the picture and a strip around it wider than any outline (the outline of a box running
    off the picture stays off it): PIL draws an outline row by row and sizes a meld's tag by its boxes, so a
    box a billion pixels tall (boxes from a file) took seconds to draw, or made a font too big to exist."""
    spare = 16 + 0.01 * max(size)
    w, h = size
    return np.clip(np.asarray(xyxy, np.float64), -spare, [w + spare, h + spare, w + spare, h + spare])


def tag_text(cls: int, conf: float, role: str, scored_as: int | None = -1, by_user: bool = False) -> str:
    """A tile's label: its Chinese name over its confidence (``USER_MARK`` for a face the user set), 胡 before
    the winning tile's, × under a tile set aside; ``scored_as`` (-1: as read) the face it was scored as
    (None: left out) after an arrow."""
    name = CLASS_NAMES_CN[cls]
    if scored_as != -1:
        return f"{name}→{'×' if scored_as is None else CLASS_NAMES_CN[scored_as]}"
    if role in SET_ASIDE:
        return f"{name}\n×" if role == "ignored" else f"{FOREIGN_LABEL}\n×"
    text = f"{name}\n{USER_MARK if by_user else format(conf, '.2f')}"
    return "胡" + text if role == "win" else text


def _outline_melds(canvas: ImageDraw.ImageDraw, reading: HandReading, line: int, taken: list[Rect],
                   size: tuple[int, int], tiles: np.ndarray) -> None:
    det = reading.detections
    for k, meld in enumerate(reading.melds):
        members = [i for i, m in enumerate(reading.meld_of) if m == k]
        if not members:
            continue
        box = on_picture(det.xyxy[members], size)
        pad = float(np.median(box[:, 3] - box[:, 1])) * 0.12
        color = COLORS[meld.kind.value]
        x0, y0 = box[:, :2].min(axis=0) - pad
        x1, y1 = box[:, 2:].max(axis=0) + pad
        corners = meld_corners(box, reading.direction, pad)
        if corners is None:
            canvas.rounded_rectangle((float(x0), float(y0), float(x1), float(y1)), radius=pad,
                                     outline=color, width=line * 2)
        else:
            canvas.polygon([(float(x), float(y)) for x, y in corners], outline=color, width=line * 2)
        tag = f"{meld.kind.chinese} {CLASS_NAMES_CN[meld.tile.index]}"
        fnt = font(int(max(12.0, min(pad * 2.2, LABEL_SHARE * max(size)))))
        tx0, ty0, _, _ = plan_tag(canvas, (float(x0), float(y0), float(x1), float(y1)), tag, fnt, taken, size, tiles,
                                  below_first=True)
        _draw_tag(canvas, tx0, ty0, tag, color, fnt)


Rect = tuple[float, float, float, float]


def meld_corners(box: np.ndarray, direction: tuple[float, float], pad: float) -> np.ndarray | None:
    """The four corners of a meld's outline drawn along its turned row, around its tiles' (N, 4) boxes with ``pad``
    to spare; None for a row within TURNED_OUTLINE of upright or level, which an upright rectangle fits."""
    u = np.asarray(direction, np.float64)
    if min(abs(u[0]), abs(u[1])) < TURNED_OUTLINE:
        return None
    v = np.array([-u[1], u[0]])
    along, across, a, b, _ = frame((box[:, :2] + box[:, 2:]) / 2, box[:, 2:] - box[:, :2], u)
    p0, p1 = float((along - a / 2).min()) - pad, float((along + a / 2).max()) + pad
    q0, q1 = float((across - b / 2).min()) - pad, float((across + b / 2).max()) + pad
    return np.array([p * u + q * v for p, q in ((p0, q0), (p1, q0), (p1, q1), (p0, q1))])


def _tag_size(canvas: ImageDraw.ImageDraw, text: str, fnt) -> tuple[float, float, float, float]:
    left, top, right, bottom = canvas.multiline_textbbox((0, 0), text, font=fnt, spacing=1)
    return right - left + 4, bottom - top + 4, left, top


def _draw_tag(canvas: ImageDraw.ImageDraw, x: float, y: float, text: str, color, fnt) -> Rect:
    w, h, left, top = _tag_size(canvas, text, fnt)
    canvas.rectangle((x, y, x + w, y + h), fill=color)
    canvas.multiline_text((x + 2 - left, y + 2 - top), text, fill=(255, 255, 255), font=fnt, spacing=1)
    return (x, y, x + w, y + h)


def _overlaps(rects: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The area each of ``rects`` (n × 4) shares with each of ``others`` (m × 4): n × m."""
    w = np.minimum(rects[:, None, 2], others[None, :, 2]) - np.maximum(rects[:, None, 0], others[None, :, 0])
    h = np.minimum(rects[:, None, 3], others[None, :, 3]) - np.maximum(rects[:, None, 1], others[None, :, 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def _cover(rects: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Area of each of ``rects`` (n × 4) that ``others`` (m × 4) cover, summed over them."""
    return _overlaps(rects, others).sum(axis=1)


def label_cover(xyxy: np.ndarray, tag_boxes: Mapping[int, Rect]) -> np.ndarray:
    """The share of each box (n × 4) that the labels of the other boxes cover (``tag_boxes``: index → label
    rectangle, as :func:`draw` fills it): a label over a tile hides its face."""
    boxes = np.asarray(xyxy, np.float64).reshape(-1, 4)
    owners = np.array(list(tag_boxes), np.int64)
    shared = _overlaps(boxes, np.array(list(tag_boxes.values()), np.float64).reshape(-1, 4))
    shared[np.arange(len(boxes))[:, None] == owners[None, :]] = 0.0  # its own label lies beside it, not on it
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return np.divide(shared.sum(axis=1), area, out=np.zeros(len(boxes)), where=area > 0)


HIDDEN_UNDER_LABELS = 0.3  # a tile with this share of its box under other tiles' labels reads as hidden


def hidden_under_labels(reading: HandReading, tag_boxes: Mapping[int, Rect]) -> tuple[int, int]:
    """The annotated photo's tiles of the hand (not lying loose or set aside) and how many of them other tiles'
    labels hide (:data:`HIDDEN_UNDER_LABELS`): what ``xingzi bench pipeline`` counts of the drawing."""
    hand = [i for i, role in enumerate(reading.roles) if role not in ("loose", *SET_ASIDE)]
    return len(hand), int((label_cover(reading.detections.xyxy, tag_boxes)[hand] > HIDDEN_UNDER_LABELS).sum())


TIERS_ABOVE, TIERS_BELOW = 4, 2  # places tried for a tag, in tag heights from its box
TILE_COVER_STEP = 0.15  # shares of a tag's area over tiles told apart: a spot nearer its box wins within one step


def plan_tag(canvas: ImageDraw.ImageDraw, box: Rect, text: str, fnt, taken: list[Rect],
             size: tuple[int, int], tiles: np.ndarray | None = None, below_first: bool = False) -> Rect:
    """Where a box's tag goes: on no tag in ``taken``; not away from its box with the line that joins them across
    other ``tiles`` (boxes, n × 4); then on as little of the tiles as may be (a label on a tile hides its face),
    nearer its box within 15 % of a tag: touching it above or below (left-aligned with the box, centred on it or
    right-aligned), or beside it (a row running up the picture), else a tier or more away (up to three above, one
    below). Where every place is taken, the least covered one. Inside a picture of ``size``; the rectangle is added
    to ``taken`` and given back. ``below_first``: below the box before above it (a meld's tag, under its outline)."""
    x0, y0, x1, y1 = box
    w, h = _tag_size(canvas, text, fnt)[:2]
    above = [y0 - h - k * (h + 2) for k in range(TIERS_ABOVE)]
    below = [y1 + 2 + k * (h + 2) for k in range(TIERS_BELOW)]
    first, second = (below, above) if below_first else (above, below)
    ys = [(k, y) for k in range(max(TIERS_ABOVE, TIERS_BELOW)) for y in (first[k:k + 1] + second[k:k + 1])]
    xs = [x0, (x0 + x1 - w) / 2, x1 - w]
    sides = [(0, x, y) for x in (x0 - w - 2, x1 + 2) for y in (y0, (y0 + y1 - h) / 2, y1 - h)]
    places = sorted([*((k, x, y) for k, y in ys for x in xs), *sides], key=lambda p: p[0])  # (beside: after the edges)
    tiers = [k for k, _, _ in places]
    spots = np.array([(min(max(0.0, x), max(0.0, size[0] - w)), min(max(0.0, y), max(0.0, size[1] - h)))
                      for _, x, y in places])
    rects = np.concatenate([spots, spots + (w, h)], axis=1)
    tiles = np.zeros((0, 4)) if tiles is None else np.asarray(tiles, np.float64).reshape(-1, 4)
    on_tags = _cover(rects, np.array(taken, np.float64).reshape(-1, 4))
    steps = np.floor(_cover(rects, tiles) / (TILE_COVER_STEP * w * h))
    # a tag away from its box is joined to it by a line: one running across other tiles points at them instead (not
    # across the boxes its own box overlaps: a slanted row's neighbours, whose boxes lie over its tile's)
    mid = (x0 + x1) / 2
    lines = np.array([(mid - 1, r[3], mid + 1, y0) if r[3] <= y0 else (mid - 1, y1, mid + 1, r[1]) for r in rects])
    apart = tiles[_cover(tiles, np.array([box], np.float64)) < 0.1 * (x1 - x0) * (y1 - y0)]
    across = (np.array(tiers) > 0) & (_cover(lines, apart) > h)  # (2 px wide: longer than half a tag is high)
    best = min(range(len(spots)), key=lambda k: (on_tags[k] > 0.5, on_tags[k], across[k], tiers[k] + steps[k], k))
    x, y = (float(v) for v in spots[best])
    taken.append((x, y, x + w, y + h))
    return taken[-1]


def draw_tags(canvas: ImageDraw.ImageDraw, tags: list[tuple[Rect, str, tuple[int, int, int]]], fnt,
              taken: list[Rect], size: tuple[int, int], tiles: np.ndarray | None = None) -> list[Rect]:
    """Tag each (box, text, colour) in turn where it covers no earlier tag and as little of the ``tiles`` as may be
    (:func:`plan_tag`; by default the tagged boxes themselves); a tag that had to move away from its box is joined
    to it by a line, drawn under every tag."""
    if tiles is None:
        tiles = np.array([box for box, _, _ in tags], np.float64).reshape(-1, 4)
    rects = [plan_tag(canvas, box, text, fnt, taken, size, tiles) for box, text, _ in tags]
    for (box, _, color), (tx0, ty0, tx1, ty1) in zip(tags, rects, strict=True):
        x0, y0, x1, y1 = box
        mid = (x0 + x1) / 2
        if ty1 < y0 - 1 or ty0 > y1 + 3:  # not touching its box
            above = ty1 < y0
            canvas.line((min(max(mid, tx0), tx1), ty1 if above else ty0, mid, y0 if above else y1), fill=color,
                        width=2)
    for (_, text, color), (tx0, ty0, _, _) in zip(tags, rects, strict=True):
        _draw_tag(canvas, tx0, ty0, text, color, fnt)
    return rects


def wrap_caption(lines: list[str], fits, max_lines: int) -> list[str]:
    """Each caption line broken where it would run off the picture: at a space where one fits, else between two
    characters (Chinese needs no space); ``fits(text)`` says whether a piece fits the width. Past ``max_lines``
    the last kept line ends in '…' (a caption must not hide the tiles)."""
    out: list[str] = []
    for text in lines:
        rest = text
        while rest and not fits(rest):
            cut = 1
            while cut < len(rest) and fits(rest[:cut + 1]):
                cut += 1
            space = rest.rfind(" ", 0, cut + 1)
            if space > 0 and rest[space - 1] != " ":
                cut = space
            out.append(rest[:cut].rstrip())
            rest = rest[cut:].lstrip()
        if rest or not text:
            out.append(rest)
    if len(out) > max_lines:
        last = out[max_lines - 1]
        while last and not fits(last + "…"):
            last = last[:-1]
        out = [*out[:max_lines - 1], last.rstrip() + "…"]
    return out


CAPTION_PAD = 8


def _caption_band(img: Image.Image, canvas: ImageDraw.ImageDraw, lines: list[str], fnt,
                  tiles: np.ndarray) -> tuple[Rect, list[str]]:
    """The caption's band, as wide as the picture, at its top or, where it would darken less of the ``tiles``
    (boxes, n × 4: a hand photographed near the top edge), at its bottom; and its lines as wrapped to the picture."""
    pad = CAPTION_PAD
    line_height = canvas.textbbox((0, 0), "胡Ag", font=fnt)[3] + pad
    lines = wrap_caption(lines, lambda t: canvas.textlength(t, font=fnt) <= img.size[0] - 2 * pad,
                         max(2, int(img.size[1] * 0.3 // line_height)))
    total = sum(b[3] - b[1] + pad for b in (canvas.textbbox((0, 0), t, font=fnt) for t in lines)) + pad
    w, h = img.size
    tall = float(min(int(total), h))
    top, bottom = (0.0, 0.0, float(w), tall), (0.0, h - tall, float(w), float(h))
    on_top, on_bottom = _cover(np.array([top, bottom]), np.asarray(tiles, np.float64).reshape(-1, 4))
    return (bottom if on_bottom < on_top else top), lines


def _caption(img: Image.Image, canvas: ImageDraw.ImageDraw, band: Rect, lines: list[str], fnt) -> None:
    box = (0, int(band[1]), int(band[2]), int(band[3]))
    part = img.crop(box)
    img.paste(Image.blend(part, Image.new("RGB", part.size), 0.65), box)
    y: float = box[1] + CAPTION_PAD
    for text in lines:
        b = canvas.textbbox((0, 0), text, font=fnt)
        canvas.text((CAPTION_PAD - b[0], y - b[1]), text, fill=(255, 255, 255), font=fnt)
        y += b[3] - b[1] + CAPTION_PAD
