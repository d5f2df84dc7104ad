"""What a photo cannot show, guessed for scoring: the face of a concealed kong shown all face
down, and the winning tile when it was not set apart. Both guesses let the tiles vote for a 炮
total; the reading keeps saying what is unknown, and the page lets the user set it. For the winning
tile and a face-down kong's face every choice is offered with the total it gives (:func:`win_choices`,
:func:`kong_choices`), so one tap settles it; so is, for 杠上开花, which of several kongs was the one
just made (:func:`bloom_choices`): the photo shows the melds, not the order they were made in."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from xingzi.engine import score_situation
from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.notation import format_meld, parse_meld, parse_tiles
from xingzi.engine.tiles import TILES, Tile

from .grouping import HandReading
from .missed import face_down_end

GUESS_VOTES = 1.5  # extra votes for the guessed end tile of the row when the winning tile is not set apart


def faceless_kongs(reading: HandReading) -> int:
    """Concealed kongs shown all face down (found by grouping, with no face to name them) that the
    hand needs to make its count; four face-down tiles the hand does not need are strays."""
    n = sum(1 for r, m in zip(reading.roles, reading.meld_of, strict=True) if r == "concealed_kong" and m < 0) // 4
    kongs = sum(1 for m in reading.melds if m.kind is not MeldKind.PUNG)
    return n if reading.tile_count + 3 * n == 14 + kongs else 0


def _suit_of(tile: Tile) -> str:
    """The suit a tile belongs to; 中 and 白 (honours) count as one more."""
    return tile.suit or "z"


def guess_kong_face(situation: dict, reading: HandReading, still: int = 0) -> dict:
    """A concealed kong shown all face down: any face of which no copy is in view may be under it
    (a kong holds all four). Each such face votes for the 炮 total it would give, with one vote more
    for every tile in view of its suit (honours as one suit): a player keeps the suits the hand is
    built of, so a hand showing only 筒 and dragons more likely hides 筒 or a dragon than 萬. The
    total with most votes is taken, ties to the fewer 炮, and shown with the face of that total most
    votes came from (a second kong all face down is then guessed beside a face of the hand's suit).
    ``still`` more face-down kongs are to be guessed after this one: while trying a face they hold
    other unseen faces, so the hand is complete. The kong is placed among the melds where it lies in the photo
    (``HandReading.faceless_at``), as it is once named: 杠上开花 takes the last kong made."""
    k = faceless_kongs(reading) - still - 1  # the kongs guessed before this one are in the situation already
    at = reading.faceless_at[k] + k if 0 <= k < len(reading.faceless_at) else len(situation["melds"])
    seen = Counter(reading.tiles)
    for text in situation["melds"]:  # the melds read, and faces already guessed for other kongs
        seen.update(parse_meld(text).tiles)
    in_view = Counter(_suit_of(t) for t in seen.elements() if t is not Tile.FA)
    unseen = [t for t in TILES if t is not Tile.FA and not seen[t]]
    options: dict[int, tuple[float, dict]] = {}
    votes: dict[int, float] = {}
    for tile in unseen:
        melds = situation["melds"]
        trial = dict(situation, melds=[*melds[:at], format_meld(Meld(MeldKind.CONCEALED_KONG, tile)), *melds[at:]])
        fillers = [format_meld(Meld(MeldKind.CONCEALED_KONG, t)) for t in unseen if t is not tile][:still]
        probe = dict(trial, melds=trial["melds"] + fillers, win_tile=(reading.win_tile or tile).symbol)
        try:
            result = score_situation(probe)
        except ValueError:  # the tile count does not make a hand with this many kongs: no vote
            continue
        if result["valid"]:
            own, weight = int(result["own"]), 1.0 + in_view[_suit_of(tile)]
            votes[own] = votes.get(own, 0.0) + weight
            if own not in options or weight > options[own][0]:
                options[own] = (weight, trial)
    if not votes:
        return situation
    return options[max(votes, key=lambda o: (votes[o], -o))][1]


def best_win_tile(situation: dict, reading: HandReading) -> tuple[dict, dict, None]:
    """The photo does not show which tile won: any tile standing in the hand may be the one drawn.

    Each tile votes for the 炮 total it would give as the winning tile (invalid wins do not
    vote); the guess (the end tile of the row standing furthest from its neighbour: players put
    the drawn tile at an end) has ``GUESS_VOTES`` extra votes. The total with most votes wins,
    ties to the fewer 炮 (claim no more than is likely); the user can mark the real winning tile.
    """
    counts = Counter(reading.tiles)
    options = {tile: _as_winning_tile(situation, tile) for tile in counts}
    votes: dict[int, float] = {}
    for tile, (_, result) in options.items():
        if result["valid"]:
            own_pao = int(result["own"])
            votes[own_pao] = votes.get(own_pao, 0.0) + counts[tile] + (GUESS_VOTES if tile == reading.win_tile else 0)
    if not votes:  # no tile makes a valid win: keep the guess, the engine says why
        tile = reading.win_tile if reading.win_tile in options else next(iter(options))
        return options[tile][0], options[tile][1], None
    own = max(votes, key=lambda o: (votes[o], -o))
    # Among the tiles giving that total, the guess if it is one, else the first in the row.
    tiles = [t for t, (_, r) in options.items() if r["valid"] and int(r["own"]) == own]
    tile = reading.win_tile if reading.win_tile in tiles else tiles[0]
    return options[tile][0], options[tile][1], None


def scored_as_read(situation: dict, reading: HandReading) -> tuple[dict, dict]:
    """(situation, result) as the photo's reading scores it: with its winning tile where it was set apart (or marked),
    else with the one guessed (:func:`best_win_tile`). Choices are priced by it, so each gives what it promises."""
    if reading.win_set_apart:
        return situation, score_situation(situation)
    return best_win_tile(situation, reading)[:2]


def _as_winning_tile(situation: dict, tile: Tile) -> tuple[dict, dict]:
    trial = dict(situation, win_tile=tile.symbol)
    return trial, score_situation(trial)


@dataclass(frozen=True)
class Choice:
    """A face for what the photo does not show (which tile won, what a face-down kong holds) and
    the 炮 it gives the winner."""

    tile: Tile
    index: int | None  # the detection to mark as the winning tile or to name with the face (None: none)
    own: int | None  # None: no valid win with it
    chosen: bool  # the one scored

    def to_json(self) -> dict:
        return {"tile": self.tile.symbol, "index": self.index, "own": self.own, "chosen": self.chosen}


def win_choices(situation: dict, reading: HandReading, changed: frozenset[int] = frozenset()) -> tuple[Choice, ...]:
    """Every face standing in the scored hand as the winning tile, with the total it gives, for a
    photo that did not show which tile won: the user sees what each choice is worth and picks one.
    ``reading`` (the reading drawn) gives each face a tile to mark, never one of the ``changed`` detections (a face
    the likeliest legal reading changed: marked as the winning tile it is kept as read, and another reading is
    scored, not the total promised); a face standing only there has no tile to mark (index None)."""
    det = reading.detections
    first: dict[int, int] = {}
    for i, role in enumerate(reading.roles):
        if role in ("concealed", "win") and i not in changed:
            first.setdefault(int(det.cls[i]), i)
    out = []
    for tile in sorted(set(parse_tiles(situation["hand"]))):
        result = _as_winning_tile(situation, tile)[1]
        own = int(result["own"]) if result["valid"] else None
        out.append(Choice(tile, first.get(tile.index), own, tile.symbol == situation["win_tile"]))
    return tuple(out)


def _guessed_at(situation: dict, reading: HandReading) -> list[int]:
    """Where in the situation's melds the kongs guessed for face-down tiles stand: those the reading did not read."""
    left = Counter(format_meld(m) for m in reading.melds)
    at = []
    for k, text in enumerate(situation["melds"]):
        if left[text]:
            left[text] -= 1
        else:
            at.append(k)
    return at


def kong_choices(situation: dict, reading: HandReading, found: int | None = None) -> tuple[Choice, ...]:
    """The first concealed kong shown all face down: every face it may hold (no copy in view), with
    the total it gives, the others guessed as scored; naming one of its tiles settles it (each choice
    points at a tile at its end). ``found``: the photo's tiles are those before this index (a repaired
    reading adds one after them)."""
    hidden = faceless_kongs(reading)
    melds = list(situation["melds"])
    guessed_at = _guessed_at(situation, reading)
    if not hidden or len(guessed_at) != hidden:  # nothing guessed (no face made a hand)
        return ()
    at = guessed_at[0]
    guessed = parse_meld(melds[at]).tile
    seen = Counter(parse_tiles(situation["hand"]))
    for k, text in enumerate(melds):
        if k != at:
            seen.update(parse_meld(text).tiles)
    index = _faceless_index(reading, found)
    out = []
    for tile in TILES:
        if tile is Tile.FA or seen[tile]:
            continue
        kong = format_meld(Meld(MeldKind.CONCEALED_KONG, tile))
        trial = dict(situation, melds=[*melds[:at], kong, *melds[at + 1:]])
        try:  # scored as the named kong will be: a winning tile not set apart is guessed again with it
            result = scored_as_read(trial, reading)[1]
        except ValueError:
            continue
        out.append(Choice(tile, index, int(result["own"]) if result["valid"] else None, tile is guessed))
    return tuple(out)


def _faceless_index(reading: HandReading, found: int | None = None) -> int:
    """A tile of the first kong shown all face down to name it by: at its end, or (a face-down tile added by the
    repair, at index ``found`` or after) the photo's tile beside the added one, where the repair adds it again."""
    faceless = [i for i, (r, m) in enumerate(zip(reading.roles, reading.meld_of, strict=True))
                if r == "concealed_kong" and m < 0]
    seen = [i for i in faceless if found is None or i < found]
    added = [i for i in faceless if found is not None and i >= found]
    if not added:  # the kong guessed first: the first along the row
        first = next((i for i in reading.faceless_first if i in seen), seen[0])
        return face_down_end(reading.detections, reading, first)
    centres = (reading.detections.xyxy[:, :2] + reading.detections.xyxy[:, 2:]) / 2
    return min(seen, key=lambda i: float(np.hypot(*(centres[i] - centres[added[0]]))))


def _kongs(melds: list[str]) -> list[int]:
    return [k for k, text in enumerate(melds) if not text.startswith("pung ")]


def kong_at(melds: list[str], tile: Tile) -> int | None:
    """Where among ``melds`` (their text) the kong of ``tile`` stands, exposed or concealed; None: no such kong."""
    return next((k for k in _kongs(melds) if parse_meld(melds[k]).tile is tile), None)


def bloom_last(situation: dict, tile: Tile | None) -> dict:
    """The situation with the kong of ``tile`` (the user's word) made last, the one 杠上开花 was drawn on: the
    engine takes the last kong made. Unchanged without 杠上开花 or when no kong of that face is among the melds."""
    if tile is None or "kong_bloom" not in situation["events"]:
        return situation
    melds = list(situation["melds"])
    at = kong_at(melds, tile)
    if at is None:
        return situation
    return dict(situation, melds=[*melds[:at], *melds[at + 1:], melds[at]])


def bloom_choices(situation: dict, reading: HandReading) -> tuple[Choice, ...]:
    """With 杠上开花 and two kongs or more, each kong as the one just made, with the total it gives: 杠上开花's
    10 炮 include that kong's own, so which kong it was changes the total (a 中 暗杠 swallowed instead of a
    明杠 of 9p: 3 炮 less). The kong scored as just made is, until the user says, the last one laid along
    the row (a kong shown all face down where it lies, as once named)."""
    melds = list(situation["melds"])
    kongs = _kongs(melds)
    if "kong_bloom" not in situation["events"] or len(kongs) < 2:
        return ()
    read = {format_meld(m): k for k, m in enumerate(reading.melds)}
    out = []
    for k in kongs:
        tile = parse_meld(melds[k]).tile
        trial = bloom_last(situation, tile)
        try:  # scored as the kong named will be: a winning tile not set apart is guessed again with it
            result = scored_as_read(trial, reading)[1]
        except ValueError:
            continue
        index = (reading.meld_of.index(read[melds[k]]) if melds[k] in read and read[melds[k]] in reading.meld_of
                 else _faceless_index(reading) if faceless_kongs(reading) else None)
        out.append(Choice(tile, index, int(result["own"]) if result["valid"] else None, k == kongs[-1]))
    return tuple(out)


def choices_differ(choices: tuple[Choice, ...]) -> bool:
    """Whether it matters which of them is true (more than one outcome)."""
    return len({c.own for c in choices}) > 1


def choices_text(choices: tuple[Choice, ...], verb: str = "won") -> str:
    """'2 炮 if 1m 4m won · 3 炮 if 2m 3s won (scored: 3s)', the faces grouped by the total they give."""
    by_total: dict[int | None, list[str]] = {}
    for c in choices:
        by_total.setdefault(c.own, []).append(c.tile.symbol)
    parts = [f"{'false win (诈胡)' if own is None else f'{own} 炮'} if {' '.join(tiles)}{' ' + verb if verb else ''}"
             for own, tiles in sorted(by_total.items(), key=lambda kv: -1 if kv[0] is None else kv[0])]
    chosen = next((c.tile.symbol for c in choices if c.chosen), None)
    return " · ".join(parts) + (f" (scored: {chosen})" if chosen else "")


def standing_index(reading: HandReading, tile: Tile, what: str = "winning tile", prefer: str = "win") -> int:
    """A detection of ``tile`` standing in the hand: one with role ``prefer`` if any, else the first."""
    found = [i for i, role in enumerate(reading.roles)
             if role in ("concealed", "win") and int(reading.detections.cls[i]) == tile.index]
    if not found:
        raise ValueError(f"{what} {tile.symbol}: no {tile.symbol} stands in the hand read from the photo "
                         f"({reading.notation or 'no tiles'})")
    return next((i for i in found if reading.roles[i] == prefer), found[0])
