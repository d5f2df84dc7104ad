"""Detections → a hand: rows, melds, 发 bonus tiles and the winning tile, at any rotation.

Pure numpy. The photo only shows where tiles lie; the grouping follows how players lay a
revealed hand out: the concealed tiles in a row, each claimed pung/kong apart from it (one
tile turned sideways), concealed kongs with tiles face down, 发 set aside and, often, the
winning tile pushed a little away from the row. Where the tiles lie (rows, gaps, sideways
tiles) is measured in ``rowgeom``; this module reads the hand from it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import format_meld, format_tiles
from xingzi.engine.tiles import Tile

from . import meldfind, rowgeom
from .bonusfa import bonus_fa, fa_with_other_tiles, with_misread_fa
from .detections import Detections, check_tile_index
from .handcheck import count_problems, count_word, fifth_copy, is_legal
from .lone import LONE_CONF
from .meldfind import FACELESS_KONG, _main_segment, _take_melds, faceless_places, order_melds, row_kongs

# Thresholds and helpers that moved to rowgeom stay importable from here.
from .rowgeom import DUPLICATE_IOU, LINE_TOL, OFF_LINE_OVER, SIDEWAYS_RATIO, row_direction  # noqa: F401
from .singles import WIN_GUESSED, choose_win, legal_singles

FA_CLASS = Tile.FA.index
# ignored: the user said so; foreign: the classifier sees a wind/flower/season, no tile of this game
ROLES = ("concealed", "win", "pung", "kong", "concealed_kong", "fa", "loose", "ignored", "foreign")
FOREIGN_P = 0.5  # a box the classifier finds likelier a foreign tile than any face is left out
SET_ASIDE = ("ignored", "foreign")  # roles of boxes that take no part in grouping, duplicates or repairs

# Thresholds, in units of the tiles' own size, so they hold at any scale.
GAP_SPLIT = 1.35  # centre distance / typical neighbour distance that counts as a gap
OFF_LINE = 0.4  # across-row offset (in tile heights) from its neighbours' line that puts a tile apart
NEAT_ROW = 5  # a hand row this long: the table is laid out in rows, not strewn about
# On a table laid out in rows, a lone tile off the hand's row and further than this (centre to the
# nearest tile of the hand, in the hand row's tile sizes) is not taken to fill a short hand: the
# winning tile is laid on the row's line or just in front of it (synthetic photos: at most 1.8 off),
# while a tile of the heap or of a neighbour's hand lies further off. Measured in docs/pipeline.md ("Far tiles").
REACH = 2.5


@dataclass(frozen=True, eq=False)
class HandReading:
    """What the photo says about the hand. Per-detection tuples follow ``detections`` order.

    ``tiles`` are the tiles standing in the hand, winning tile included (the §10 ``hand``);
    ``win_set_apart`` says whether the winning tile was seen apart or only guessed.
    ``roles[i]`` is one of ROLES; ``meld_of[i]`` the index into ``melds`` or -1.
    """

    tiles: tuple[Tile, ...]
    win_tile: Tile | None
    win_set_apart: bool
    melds: tuple[Meld, ...]
    fa: int
    roles: tuple[str, ...]
    meld_of: tuple[int, ...]
    sideways: tuple[bool, ...]
    problems: tuple[str, ...]
    direction: tuple[float, float]
    detections: Detections = field(repr=False)
    # per concealed kong shown all face down, in reading order: how many melds lie before it (where it is made),
    # and its first tile
    faceless_at: tuple[int, ...] = ()
    faceless_first: tuple[int, ...] = ()

    @property
    def tile_count(self) -> int:
        """Tiles of the hand proper: standing tiles plus meld tiles (发 not counted)."""
        return len(self.tiles) + sum(m.kind.size for m in self.melds)

    @property
    def notation(self) -> str:
        """``123m456m789p12s55p 3s | pung 中 | fa 2``."""
        standing = list(self.tiles)
        if self.win_tile is not None and self.win_tile in standing:
            standing.remove(self.win_tile)
        text = format_tiles(standing)
        if self.win_tile is not None:
            text += f" {self.win_tile.symbol}"
        parts = [text] + [format_meld(m) for m in self.melds]
        if self.fa:
            parts.append(f"fa {self.fa}")
        return " | ".join(parts)

    def situation(self) -> dict:
        """The tile part of a §10 situation (hand, win_tile, melds, fa)."""
        return {
            "hand": format_tiles(list(self.tiles)),
            "win_tile": None if self.win_tile is None else self.win_tile.symbol,
            "melds": [format_meld(m) for m in self.melds],
            "fa": self.fa,
        }


@dataclass(frozen=True)
class Knobs:
    """The grouping's thresholds; ``group`` tries a few settings when the first makes no legal hand."""

    gap_split: float = GAP_SPLIT
    off_line: float = OFF_LINE
    line_tol: float = LINE_TOL
    sideways_in_row: bool = True
    join_beside: bool = True  # a full row still takes a lone tile right beside it as the winning tile
    any_hand_row: bool = False  # the hand row may look like melds only (a hand of concealed sets)
    row_kongs: bool = False  # a row too long by k tiles may hold k kongs laid on against it
    trays: bool = False  # every run of tiles on another row is part of the hand, however many it makes
    far_singles: bool = False  # lone tiles beyond REACH of a hand laid out in rows may fill it too


# Tried in this order; the first that reads a legal hand wins (a photo is of a winning hand).
VARIANTS = (
    Knobs(),
    Knobs(sideways_in_row=False),  # a tile seen as sideways inside the hand row may be noise
    Knobs(gap_split=1.2),  # groups laid closer together than usual
    Knobs(gap_split=1.7),  # tiles of one group laid loosely
    Knobs(off_line=0.6),  # a crooked row
    Knobs(line_tol=1.5 * LINE_TOL),  # a row drawn out of line by perspective
    Knobs(gap_split=1.2, sideways_in_row=False),
    Knobs(any_hand_row=True),  # the longest row is the hand even if it looks like melds only
    Knobs(join_beside=False),  # the tile beside a full row is a stray (the winner stands in the row)
    Knobs(row_kongs=True),  # last: gaps, where they can be seen, say more than a count
)


def group(detections: Detections, ignored: Iterable[int] = ()) -> HandReading:
    """Group detections into a hand. Never raises for odd layouts: oddities go to ``problems``.

    The thresholds that split rows and gaps cannot suit every table, so when the first reading
    is not a legal hand, a few other settings are tried: the first legal reading is taken, else
    the first with the right tile count, else the first. Runs of tiles on other rows than the hand's
    join it only while it is short of tiles, unless that reads no legal hand (a tray's lines with a
    stray among them); then they all do. On a table laid out in rows, lone tiles far off the hand's row
    fill a short hand only when nothing else reads a legal hand (REACH). ``ignored``: detections the user says are
    not part of the hand (role ``ignored``; a stray 发, a box on something else). Boxes whose
    ``foreign`` score is over FOREIGN_P (winds, flowers: no Xingzi tile) take no part either (role
    ``foreign``); a face the user sets clears that score (``usermarks.apply_corrections``). A tile left out
    beside the bonus 发 whose next likeliest face is 发 is read as 发 (``bonusfa.misread_fa``).
    """
    mask = np.zeros(len(detections), bool)
    for i in ignored:
        check_tile_index(i, len(detections), "ignored tile")
        mask[int(i)] = True
    foreign = np.zeros(len(detections), bool) if detections.foreign is None else detections.foreign > FOREIGN_P
    legal = partial(_first_legal, mask=mask, foreign=foreign & ~mask)
    return with_misread_fa(legal(detections), legal)  # a 发 misread beside the bonus 发 is counted as 发


def _first_legal(detections: Detections, mask: np.ndarray, foreign: np.ndarray) -> HandReading:
    # Runs of tiles on other rows join the hand while it is short of tiles; only when that reads no
    # legal hand is every such run taken in (a tray's lines), and the repair that follows may leave
    # tiles out but cannot bring strays back, so then those readings are handed on.
    readings: dict[bool, list[HandReading]] = {False: [], True: []}
    runs_left_out: list[int] = []
    far_left_out: list[int] = []
    for trays in (False, True):
        if trays and not runs_left_out:  # nothing was left out: the same readings again
            break
        for knobs in VARIANTS:
            reading = _group(detections, replace(knobs, trays=trays), mask, foreign, runs_left_out,
                             far_left_out)
            if is_legal_reading(reading):
                return reading
            if knobs.join_beside:  # the tile beside the row is left out only when that makes a hand:
                readings[trays].append(reading)  # else it is the winning tile, a row tile misread
    # Last: a tile lying far off may still be the winner. Not with trays=True too: that reading differs
    # only where a run was left out, and taking it in leaves the hand no tile short, so no far tile
    # joins: it is Knobs(trays=True), already tried.
    if far_left_out:
        reading = _group(detections, Knobs(far_singles=True), mask, foreign)
        if is_legal_reading(reading):
            return reading
    fallback = readings[True] or readings[False]
    counted = [r for r in fallback if not any(" tiles (a winning hand" in p for p in r.problems)]
    return (counted or fallback)[0]


def is_legal_reading(reading: HandReading) -> bool:
    """Legal tiles with a winning tile, no more than four 发, and every concealed kong's face seen."""
    return (reading.win_tile is not None and reading.fa <= 4 and is_legal(reading.tiles, reading.melds)
            and not any("concealed kong" in p for p in reading.problems))


def _group(detections: Detections, knobs: Knobs = Knobs(), ignored: np.ndarray | None = None,
           foreign: np.ndarray | None = None, runs_left_out: list[int] | None = None,
           far_left_out: list[int] | None = None) -> HandReading:
    """One grouping with one set of thresholds; the sizes of runs of tiles on other rows left out
    of the hand are appended to ``runs_left_out``, lone tiles too far off to fill it to ``far_left_out``."""
    n = len(detections)
    if n == 0:
        return _empty(detections, ("no tiles found",))
    cls = np.asarray(detections.cls, dtype=np.int64)
    ignored = np.zeros(n, bool) if ignored is None else ignored
    foreign = np.zeros(n, bool) if foreign is None else foreign
    roles = ["ignored" if ignored[i] else "foreign" if foreign[i] else "loose" for i in range(n)]
    meld_of = [-1] * n
    problems: list[str] = []
    if ignored.any():
        problems.append(f"{int(ignored.sum())} box(es) left out as you said (not part of the hand, or no tile)")
    if foreign.any():
        problems.append(f"{int(foreign.sum())} tile(s) with no Xingzi face (a wind or flower?) left out")
    ignored = ignored | foreign

    keep = np.zeros(n, bool)  # the user's set-aside boxes hide no other box as a duplicate
    counted = np.flatnonzero(~ignored)
    if counted.size:
        keep[counted] = rowgeom.distinct_boxes(detections.subset(counted))
    fa_mask = (cls == FA_CLASS) & keep
    body = np.flatnonzero(keep & ~fa_mask)
    centers = detections.centers.astype(np.float64)
    wh = (detections.xyxy[:, 2:] - detections.xyxy[:, :2]).astype(np.float64)
    if len(body):  # a box across the joint of two tiles is no tile (rowgeom.joint_boxes)
        joints = rowgeom.joint_boxes(rowgeom.find_rows(centers, wh, body, knobs.line_tol, detections.up),
                                     detections.conf, cls)
        keep[joints] = False
        body = np.flatnonzero(keep & ~fa_mask)
    if (~keep & ~ignored).sum():
        problems.append(f"{int((~keep & ~ignored).sum())} duplicate detection(s) ignored")
    if fa_mask.sum() > 4:  # said before the extra ones are set aside: the user should know
        problems.append(f"{count_word(int(fa_mask.sum()))} 发 (only four exist)")
    if len(body) == 0:
        fa = bonus_fa(np.flatnonzero(fa_mask), detections, False, roles, problems)
        problems.append("only 发 bonus tiles found" if fa else "no tiles found")
        return _result(detections, (), None, False, (), fa, roles, meld_of, np.zeros(n, bool), problems, (1.0, 0.0))

    geo = rowgeom.find_rows(centers, wh, body, knobs.line_tol, detections.up)
    rows, sideways, pitch = geo.rows, geo.sideways, geo.pitch
    segments = rowgeom.bridged_by_fa(rowgeom.row_segments(geo, knobs.gap_split, knobs.off_line), geo, centers,
                                     np.flatnonzero(fa_mask))

    melds: list[Meld] = []
    pieces: list[list[int]] = []  # what is left of each segment once melds are taken out
    main = _main_segment(segments, cls, knobs.any_hand_row)
    # Bonus 发 lie together before the hand; one apart from them and from the hand is a stray, where it is laid in rows.
    fa = bonus_fa(np.flatnonzero(fa_mask), detections, len(segments[main]) >= NEAT_ROW, roles, problems, segments[main])
    for k, seg in enumerate(segments):
        cue = sideways if knobs.sideways_in_row or k != main else np.zeros(n, bool)
        rest = _take_melds(seg, cls, cue, k == main, melds, roles, meld_of, problems)
        pieces.extend(rest)

    row_of = {int(i): k for k, r in enumerate(rows) for i in r}
    main_seg = segments[main]
    main_row = row_of[main_seg[0]]
    singles = [p[0] for p in pieces if len(p) == 1 and p[0] not in main_seg]
    # Tiles lying alone join the hand only while it is short of tiles: first those on the hand's
    # row (a winning tile pushed aside), then the nearest; the rest are strays on the table.
    singles.sort(key=lambda i: (row_of[i] != main_row, rowgeom.distance(i, main_seg, centers)))
    # So do runs of tiles on another row (a tray's next line, or the wall and discards behind the
    # hand): nearest first, each only while it fits what the hand still lacks; on a table laid out in
    # rows, never a run out of REACH none of whose tiles is read surely (LONE_CONF: a pair of the heap).
    apart = [p for p in pieces if len(p) > 1 and row_of[p[0]] != main_row]
    in_apart = {i for p in apart for i in p}
    concealed = [i for p in pieces for i in p if i not in singles and i not in in_apart]
    need = 14 + sum(1 for m in melds if m.kind is not MeldKind.PUNG) - sum(m.kind.size for m in melds)
    # A concealed kong shown all face down stands for a set the hand needs when its row is short
    # even with a set less; beside a row that is complete without it, its four tiles are strays.
    faceless = meldfind.faceless_kongs(segments, roles, meld_of)
    kept, spare = meldfind.kongs_needed(faceless, (need - len(concealed)) // 3,
                                        lambda i: rowgeom.distance(i, main_seg, centers))
    hidden_kongs = len(kept)
    strays = 0
    if spare:  # strays, with no face to ask the user for
        for i in spare:
            roles[i] = "loose"
        if not kept:
            problems[:] = [q for q in problems if q != FACELESS_KONG]
        problems.append(f"{len(spare)} face-down tile(s) the hand does not need ignored")
    need -= 3 * hidden_kongs
    neat = len(main_seg) >= NEAT_ROW
    reach = REACH * float(np.median(np.sqrt(wh[main_seg, 0] * wh[main_seg, 1])))
    meld_tiles = [j for j, m in enumerate(meld_of) if m >= 0]
    for p in sorted(apart, key=lambda p: min(rowgeom.distance(i, main_seg, centers) for i in p)):
        kongs = sum(1 for c in Counter(cls[concealed + p].tolist()).values() if c == 4)  # a tile more each
        if (neat and (float(detections.conf[p].max()) < LONE_CONF or fifth_copy(cls[concealed + p + meld_tiles]))
                and min(rowgeom.distance(i, main_seg + concealed + meld_tiles, centers) for i in p) > reach):
            strays += len(p)  # none of it read surely, or a face a fifth time, out of the hand's reach: the heap
        elif knobs.trays or len(p) - kongs <= need - len(concealed):
            concealed += p
        else:
            strays += len(p)
            if runs_left_out is not None:
                runs_left_out.append(len(p))
    short = need - len(concealed)
    if short > 0:  # on a table laid out in rows, not from off the hand's row and out of its reach
        far = {i for i in singles if neat and row_of[i] != main_row
               and rowgeom.distance(i, main_seg + concealed + meld_tiles, centers) > reach}
        if far_left_out is not None:
            far_left_out.extend(i for i in singles if i in far)
        near = singles if knobs.far_singles else [i for i in singles if i not in far]
        joined = legal_singles(near, short, concealed, melds, cls, far)
    else:  # a full row already: still take one tile lying right beside it (the winning tile)
        near = singles[:1] if knobs.join_beside else []
        joined = [i for i in near
                  if row_of[i] == main_row and rowgeom.distance(i, main_seg, centers) < 3.5 * pitch]
    for j in singles:
        if j not in joined:
            roles[j] = "loose"
    strays += len(singles) - len(joined)
    if strays:
        problems.append(f"{strays} tile(s) lying away from the hand ignored")
    concealed += joined
    in_hand = set(concealed) | set(main_seg) | {j for j, m in enumerate(meld_of) if m >= 0}
    fa -= fa_with_other_tiles(detections, roles, list(in_hand), [int(j) for j in body if j not in in_hand], problems)
    over = len(concealed) - need
    if knobs.row_kongs and over > 0 and not hidden_kongs:  # before any tile is dropped as a stray
        for run in row_kongs(concealed, cls, over, lambda rest, extra: is_legal(_faces(rest, cls), melds + extra)):
            melds.append(Meld(MeldKind.KONG, Tile.from_index(int(cls[run[0]]))))
            for i in run:
                roles[i], meld_of[i] = MeldKind.KONG.value, len(melds) - 1
            concealed = [i for i in concealed if i not in run]
            main_seg = [i for i in main_seg if i not in run]
            over -= 1
    order = [i for seg in segments for i in seg]
    order_melds(melds, meld_of, order)
    if over > 0:  # too many tiles: drop those furthest off the hand row's line (strays in front/behind)
        drop = rowgeom.furthest_off_line(main_seg, geo.across, geo.b_ext, over)
        concealed = [i for i in concealed if i not in drop]
        main_seg = [i for i in main_seg if i not in drop]
        if drop:
            problems.append(f"{len(drop)} tile(s) off the hand's line ignored")
    win, apart = choose_win(joined, concealed, main_seg, centers, geo.along, cls, problems, geo.scale)
    for j in concealed:
        roles[j] = "concealed"
    if win is not None:
        roles[win] = "win"
    tiles = tuple(Tile.from_index(int(cls[i])) for i in concealed if roles[i] in ("concealed", "win"))
    win_tile = None if win is None else Tile.from_index(int(cls[win]))
    problems.extend(count_problems(tiles, melds, fa, hidden_kongs))
    reading = _result(detections, tiles, win_tile, apart, tuple(melds), fa, roles, meld_of, sideways, problems,
                      (float(geo.direction[0]), float(geo.direction[1])))
    places, firsts = faceless_places(order, roles, meld_of)
    return replace(reading, faceless_at=places, faceless_first=firsts)


def mark_win(reading: HandReading, index: int, set_apart: bool = True, note: str | None = None) -> HandReading:
    """The same reading with detection ``index`` (a tile standing in the hand) as the winning tile."""
    check_tile_index(index, len(reading.roles), "winning tile")
    if reading.roles[index] not in ("concealed", "win"):
        raise ValueError(f"tile #{index} is read as {reading.roles[index]}: only a tile standing in the hand "
                         "can be the winning tile")
    roles = ["concealed" if r == "win" else r for r in reading.roles]
    roles[index] = "win"
    problems = tuple(p for p in reading.problems if not p.startswith(WIN_GUESSED))
    if note:
        problems += (note,)
    tile = Tile.from_index(int(reading.detections.cls[index]))
    return replace(reading, roles=tuple(roles), win_tile=tile, win_set_apart=set_apart, problems=problems)


def _faces(idx: list[int], cls: np.ndarray) -> list[Tile]:
    return [Tile.from_index(int(cls[i])) for i in idx]


def _empty(det: Detections, problems: tuple[str, ...]) -> HandReading:
    return HandReading((), None, False, (), 0, (), (), (), problems, (1.0, 0.0), det)


def _result(det, tiles, win_tile, apart, melds, fa, roles, meld_of, sideways, problems, direction) -> HandReading:
    return HandReading(
        tiles=tuple(tiles), win_tile=win_tile, win_set_apart=apart, melds=tuple(melds), fa=fa,
        roles=tuple(roles), meld_of=tuple(meld_of), sideways=tuple(bool(s) for s in sideways),
        problems=tuple(dict.fromkeys(problems)), direction=direction, detections=det,
    )
