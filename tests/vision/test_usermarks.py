"""What the user says about the tiles: claimed melds the photo cannot show, melds that are not claimed."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from xingzi.engine.melds import Meld, MeldKind
from xingzi.engine.tiles import CLASS_NAMES, Tile
from xingzi.vision.grouping import group, is_legal_reading
from xingzi.vision.layouts import hand_layout, with_tiles
from xingzi.vision.pipeline import Context, analyse, reading_json
from xingzi.vision.usermarks import (
    COUNT_WORDS,
    MAX_ADDED,
    add_tiles,
    apply_claims,
    apply_corrections,
    claim_meld,
    release_meld,
)

IMG = np.full((960, 1280, 3), 60, np.uint8)
# A tray: the claimed pung of 8s lies against the row, no gap, no tile turned: it reads as standing.
TRAY = dict(hand="22288m66s中中中", win="6s", melds=["pung 8s"], gap=0.0, sideways_at=-1)


def tray(**kw):
    args = {**TRAY, **kw}
    return hand_layout(args.pop("hand"), args.pop("win"), args.pop("melds"), **args).detections


def faces(det, tile: str) -> list[int]:
    return [i for i, c in enumerate(det.cls) if int(c) == Tile(tile).index]


@pytest.mark.parametrize("win_apart", [True, False])
def test_claiming_three_like_tiles_makes_the_pung_the_photo_hides(win_apart):
    det = tray(win_apart=win_apart)
    plain = analyse(IMG, det, Context())
    assert plain.reading.melds == () and plain.result["own"] == 17  # read as a concealed triplet
    res = analyse(IMG, det, Context(), claimed=[faces(det, "8s")[0]])
    assert [(m.kind, m.tile) for m in res.reading.melds] == [(MeldKind.PUNG, Tile("8s"))]
    assert [res.reading.roles[i] for i in faces(det, "8s")] == ["pung"] * 3
    assert res.result["valid"] and res.result["own"] == 12 and is_legal_reading(res.reading)
    assert res.repair is None  # the user's grouping is scored as it stands


def test_a_guessed_winning_tile_may_be_claimed_and_another_is_guessed():
    reading = group(tray(win_apart=False))
    win = reading.roles.index("win")
    assert int(reading.detections.cls[win]) == Tile("8s").index and not reading.win_set_apart
    claimed = claim_meld(reading, win)
    assert claimed.roles[win] == "pung" and claimed.win_tile is not None and not claimed.win_set_apart
    assert claimed.roles.count("win") == 1 and claimed.win_tile in claimed.tiles


def test_four_like_tiles_in_a_row_one_too_long_make_a_kong():
    det = tray(hand="22288m66s中中中", melds=["kong 8s"])
    res = analyse(IMG, det, Context(), claimed=[faces(det, "8s")[1]])
    assert [(m.kind, m.tile) for m in res.reading.melds] == [(MeldKind.KONG, Tile("8s"))]
    assert res.result["valid"]


def test_releasing_a_meld_stands_its_tiles_back_in_the_hand():
    det = hand_layout("22288m66s中中中", "6s", ["pung 8s"]).detections  # the pung apart, a tile turned
    read = group(det)
    assert read.melds and read.roles.count("pung") == 3
    i = read.roles.index("pung")
    back = release_meld(read, i)
    assert back.melds == () and back.roles.count("pung") == 0 and len(back.tiles) == 14
    assert sorted(back.tiles) == sorted((*read.tiles, Tile("8s"), Tile("8s"), Tile("8s")))
    assert apply_claims(read, claimed=[i], released=[i]).melds == read.melds  # stood back, then taken again


@pytest.mark.parametrize("released,left", [
    pytest.param(Tile.ZHONG, Tile("8s"), id="the-first-released-the-second-renumbered-0"),
    pytest.param(Tile("8s"), Tile.ZHONG, id="the-last-released-the-first-kept-0"),
])
def test_releasing_one_of_two_melds_renumbers_the_other_and_stands_its_tiles_at_minus_one(released, left):
    det = hand_layout("123m55p12s", "3s", ["pung 中", "pung 8s"]).detections
    read = group(det)
    assert [m.tile for m in read.melds] == [Tile.ZHONG, Tile("8s")]
    gone = [m.tile for m in read.melds].index(released)
    back = release_meld(read, read.meld_of.index(gone))
    assert [m.tile for m in back.melds] == [left]
    expected = tuple(0 if read.meld_of[i] >= 0 and read.melds[read.meld_of[i]].tile is left else -1
                     for i in range(len(det)))
    assert back.meld_of == expected  # the index into melds, or -1 (grouping.HandReading)
    assert [t["meld"] for t in reading_json(back)["tiles"]] == list(expected)  # the page groups tiles by it
    assert [back.roles[i] for i, m in enumerate(read.meld_of) if m == gone] == ["concealed"] * 3


@pytest.mark.parametrize("call,message", [
    pytest.param(lambda r: claim_meld(r, 99), r"claimed meld #99: there are 14 tiles \(0..13\)", id="index"),
    pytest.param(lambda r: claim_meld(r, faces(r.detections, "2m")[0]), None, id="three-2m-fine"),
    pytest.param(lambda r: claim_meld(r, faces(r.detections, "8m")[0]), "tile #3: 2 8m stand in the hand",
                 id="too-few-8m"),
    pytest.param(lambda r: release_meld(r, 0), "only a claimed pung or kong can be stood back", id="not-a-meld"),
    pytest.param(lambda r: apply_claims(r, released=[-1]), r"meld to release #-1: there are 14 tiles", id="negative"),
])
def test_bad_claims_say_why(call, message):
    reading = group(tray(win_apart=True))
    if message is None:
        assert call(reading).melds[-1].tile is Tile("2m")
    else:
        with pytest.raises(ValueError, match=message):
            call(reading)


def test_a_set_apart_winning_tile_is_never_claimed():
    det = hand_layout("222m88m666s中中中88s", "8s").detections  # 8s won, set apart; two 8s stand
    reading = group(det)
    assert reading.win_set_apart and reading.win_tile is Tile("8s")
    with pytest.raises(ValueError, match=r"2 8s stand in the hand \(a winning tile set apart not counted\)"):
        claim_meld(reading, faces(det, "8s")[0])


def test_added_tiles_come_after_the_found_ones_read_surely_and_clipped_to_the_photo():
    det = hand_layout("123m456m789p12s55p", "3s", probs=True).detections
    det = replace(det, foreign=np.full(len(det), 0.1, np.float32))
    out = add_tiles(det, [(Tile("5m").index, (-10.0, 5.0, 40.0, 70.0)), (30, [1200, 900, 1300, 990])], IMG.shape)
    assert len(out) == len(det) + 2
    assert np.array_equal(out.xyxy[:len(det)], det.xyxy) and np.array_equal(out.cls[:len(det)], det.cls)
    assert out.xyxy[len(det):].tolist() == [[0, 5, 40, 70], [1200, 900, 1280, 960]]
    assert out.cls[len(det):].tolist() == [Tile("5m").index, 30] and out.conf[len(det):].tolist() == [1, 1]
    assert out.probs[len(det)].argmax() == Tile("5m").index and out.probs[len(det)].sum() == 1
    assert out.foreign[len(det):].tolist() == [0, 0]
    assert add_tiles(det, [], IMG.shape) is det


@pytest.mark.parametrize("added,message", [
    pytest.param([(31, (0, 0, 10, 10))], "class must be an integer 0..30", id="class-too-big"),
    pytest.param([(-1, (0, 0, 10, 10))], "class must be an integer 0..30", id="class-negative"),
    pytest.param([("5m", (0, 0, 10, 10))], "class must be an integer 0..30", id="class-a-name"),
    pytest.param([(4, (0, 0, 10))], "expected a box [x0, y0, x1, y1] of 4 numbers", id="three-numbers"),
    pytest.param([(4, (0, 0, "a", 10))], "expected a box [x0, y0, x1, y1] of 4 numbers", id="not-a-number"),
    pytest.param([(4, (0, 0, float("nan"), 10))], "expected x0 < x1 and y0 < y1", id="nan"),
    pytest.param([(4, (20, 0, 10, 10))], "expected x0 < x1 and y0 < y1", id="flipped"),
    pytest.param([(4, (-50, -50, -10, -10))], "lies outside the 1280x960 photo", id="outside"),
    pytest.param([(4, (0, 0, 10, 10))] * 21, "at most 20 tiles", id="too-many"),
])
def test_bad_added_tiles_are_refused_saying_what_was_expected(added, message):
    det = hand_layout("123m456m789p12s55p", "3s").detections
    with pytest.raises(ValueError, match=re.escape(message)):
        add_tiles(det, added, IMG.shape)


def test_a_missed_tile_added_where_it_lies_joins_its_row():
    full = hand_layout("123m456m789p12s55p", "3s", probs=True).detections
    gone = 4  # the 5m, in the middle of the row
    det = full.subset(np.arange(len(full)) != gone)
    as_read = analyse(IMG, det, Context(), as_read=True)
    assert as_read.result is None or not as_read.result["valid"]
    res = analyse(IMG, add_tiles(det, [(Tile("5m").index, full.xyxy[gone])], IMG.shape), Context(), as_read=True)
    assert res.result["valid"] and res.result["own"] == 3
    assert res.reading.roles[len(det)] == "concealed" and res.reading.notation == "123456m55789p12s 3s"


def _released_kong_of_8m(hand: str, melds: list[str]):
    """A reading with four 8m standing: grouping takes them as a kong where the count asks for one, so the
    kong is stood back first (as the page's tap does)."""
    det = hand_layout(hand, "6s", melds).detections
    reading = group(det)
    kong = [i for i in faces(det, "8m") if reading.roles[i] == "kong"]
    return (release_meld(reading, kong[0]) if kong else reading), faces(det, "8m")


@pytest.mark.parametrize("hand,melds,kind", [
    pytest.param("222788889m6s中中中", [], MeldKind.PUNG, id="14-tiles-four-alike-a-pung"),
    pytest.param("2228888m345p6s中中中", [], MeldKind.KONG, id="15-tiles-one-too-many-a-kong"),
    pytest.param("222788889m6s", ["kong 中"], MeldKind.PUNG, id="15-tiles-with-a-kong-already-a-pung"),
    pytest.param("2228888m345p6s", ["kong 中"], MeldKind.KONG, id="16-tiles-with-a-kong-already-a-kong"),
])
def test_four_like_tiles_claimed_make_a_kong_only_when_the_count_has_room(hand, melds, kind):
    reading, eights = _released_kong_of_8m(hand, melds)
    assert [reading.roles[i] for i in eights] == ["concealed"] * 4
    claimed = claim_meld(reading, eights[0])
    assert claimed.melds[-1] == Meld(kind, Tile("8m"))
    assert sum(claimed.roles[i] == kind.value for i in eights) == kind.size
    assert not any(w in p for p in claimed.problems for w in COUNT_WORDS)  # the count now adds up


def test_three_like_tiles_claimed_are_a_pung_even_when_the_hand_holds_one_too_many():
    det = hand_layout("1222m345p678s9s中中中", "9s").detections  # 15 tiles, no kong among them
    claimed = claim_meld(group(det), faces(det, "2m")[0])
    assert claimed.melds == (Meld(MeldKind.PUNG, Tile("2m")),)
    assert any(p.startswith("15 tiles") for p in claimed.problems)  # still one too many: the count says so


def test_a_claim_beside_a_concealed_kong_showing_its_face_counts_the_kong_once():
    # FDDF: the kong is a meld (meld_of 0), not one of the hidden kongs counted apart.
    det = hand_layout("222m6s中中中888m", "6s", ["concealed_kong 5p"], gap=0.0, sideways_at=-1).detections
    reading = group(det)
    assert reading.melds == (Meld(MeldKind.CONCEALED_KONG, Tile("5p")),)
    claimed = claim_meld(reading, faces(det, "8m")[0])
    assert claimed.melds[-1] == Meld(MeldKind.PUNG, Tile("8m")) and claimed.problems == reading.problems


@pytest.mark.parametrize("tap,left", [pytest.param(0, 3, id="first-tapped-last-left"),
                                      pytest.param(3, 0, id="last-tapped-first-left")])
def test_a_pung_claimed_from_four_takes_the_three_nearest_the_tapped_tile(tap, left):
    reading, eights = _released_kong_of_8m("222788889m6s中中中", [])
    claimed = claim_meld(reading, eights[tap])
    assert [claimed.roles[i] for i in eights] == ["concealed" if k == left else "pung" for k in range(4)]


def test_claiming_the_guessed_winning_tile_guesses_the_standing_tile_nearest_it():
    reading = group(tray(win_apart=False))
    old = reading.roles.index("win")
    claimed = claim_meld(reading, old)
    centers = reading.detections.centers.astype(float)
    standing = [i for i, r in enumerate(claimed.roles) if r in ("concealed", "win")]
    nearest = min(standing, key=lambda i: float(np.hypot(*(centers[i] - centers[old]))))
    assert claimed.roles[nearest] == "win" and claimed.win_tile == Tile.from_index(int(reading.detections.cls[nearest]))


@pytest.mark.parametrize("win_apart", [pytest.param(True, id="set_apart"), pytest.param(False, id="guessed")])
def test_a_claim_away_from_the_winning_tile_leaves_it_as_it_was(win_apart):
    det = hand_layout("222m888s6s中中中456p", "6s", win_apart=win_apart).detections
    reading = group(det)
    assert reading.win_tile == Tile("6s") and reading.win_set_apart == win_apart
    claimed = claim_meld(reading, faces(det, "8s")[0])
    assert [(m.kind, m.tile) for m in claimed.melds] == [(MeldKind.PUNG, Tile("8s"))]
    assert claimed.win_tile == Tile("6s") and claimed.win_set_apart == win_apart
    assert claimed.roles.count("win") == 1


def test_a_claim_beside_a_face_down_kong_counts_the_kong_and_keeps_the_other_problems():
    det = hand_layout("222m6s中中中888m", "6s", ["concealed_kong 5p"], kong_shown="DDDD", gap=0.0,
                      sideways_at=-1).detections
    reading = group(det)
    assert reading.roles.count("concealed_kong") == 4 and reading.melds == ()  # no face shown: no meld read
    others = [p for p in reading.problems if not any(w in p for w in COUNT_WORDS)]
    assert others and len(others) == len(reading.problems)
    claimed = claim_meld(reading, faces(det, "8m")[0])
    assert claimed.melds == (Meld(MeldKind.PUNG, Tile("8m")),)
    assert claimed.problems == reading.problems  # 11 faces and a hidden kong still make a hand; the rest kept
    assert release_meld(claimed, faces(det, "8m")[0]).problems == reading.problems


def test_apply_claims_stands_back_only_claimed_melds_and_checks_every_index():
    det = hand_layout("22288m66s中中中", "6s", ["pung 8s"]).detections  # the pung apart, a tile turned
    read = group(det)
    pung, standing = read.roles.index("pung"), read.roles.index("concealed")
    back = apply_claims(read, released=[pung])
    assert back.melds == () and back.roles.count("pung") == 0
    assert apply_claims(read, released=[standing]) == read  # not a meld: nothing to stand back
    assert apply_claims(read, claimed=[pung]) == read  # already claimed: left as it is
    assert len(det) == 14
    for call, what in ((lambda: apply_claims(read, claimed=[14]), "claimed meld"),
                       (lambda: apply_claims(read, released=[14]), "meld to release"),
                       (lambda: release_meld(read, 14), "meld to release")):
        with pytest.raises(ValueError, match=rf"{what} #14: there are 14 tiles \(0..13\)"):
            call()


@pytest.mark.parametrize("box,kept", [
    pytest.param((10, 10, 10, 20), "expected x0 < x1", id="no-width"),
    pytest.param((10, 10, 20, 10), "expected x0 < x1", id="no-height"),
    pytest.param((-10, -10, 0, 20), None, id="right-edge-on-the-left-border"),
    pytest.param((-10, -10, 20, 0), None, id="bottom-edge-on-the-top-border"),
    pytest.param((1280, 10, 1300, 20), None, id="left-edge-on-the-right-border"),
    pytest.param((10, 960, 20, 990), None, id="top-edge-on-the-bottom-border"),
    pytest.param((-10, -10, 0.5, 0.5), [0, 0, 0.5, 0.5], id="half-a-pixel-inside"),
    pytest.param((1279.5, 959.5, 1300, 990), [1279.5, 959.5, 1280, 960], id="half-a-pixel-inside-far-corner"),
])
def test_an_added_tile_must_reach_into_the_photo(box, kept):
    det = hand_layout("123m456m789p12s55p", "3s").detections
    assert det.probs is None and det.foreign is None
    if kept is None or isinstance(kept, str):
        with pytest.raises(ValueError, match=kept or "lies outside the 1280x960 photo"):
            add_tiles(det, [(4, box)], IMG.shape)
    else:
        out = add_tiles(det, [(4, box)], IMG.shape)
        assert out.xyxy[-1].tolist() == kept and out.probs is None and out.foreign is None


def test_as_many_tiles_as_allowed_may_be_added_of_any_class():
    det = hand_layout("123m456m789p12s55p", "3s").detections
    assert len(add_tiles(det, [(4, (10, 10, 40, 50))] * MAX_ADDED, IMG.shape)) == len(det) + MAX_ADDED
    assert add_tiles(det, [(0, (10, 10, 40, 50)), (30, (50, 10, 80, 50))], IMG.shape).cls[-2:].tolist() == [0, 30]


@pytest.mark.parametrize("face", [pytest.param(0, id="first-class-1m"), pytest.param(30, id="last-class-back")])
def test_a_corrected_face_is_a_tile_of_the_game_whatever_the_classifier_thought(face):
    det = hand_layout("123m456m789p12s55p", "3s").detections
    det = replace(det, foreign=np.full(len(det), 0.9, np.float32),
                  probs=np.full((len(det), len(CLASS_NAMES)), 1 / len(CLASS_NAMES), np.float32))
    out = apply_corrections(det, {2: face})
    assert out.cls[2] == face and out.foreign[2] == 0.0
    # the named face is certain: conf 1 and all of the tile's probability on it (what the repair's costs read)
    assert out.conf[2] == 1.0 and out.probs[2].tolist() == np.eye(len(CLASS_NAMES))[face].tolist()
    assert np.array_equal(np.delete(out.probs, 2, axis=0), np.delete(det.probs, 2, axis=0))
    assert np.array_equal(np.delete(out.foreign, 2), np.delete(det.foreign, 2)) and det.foreign[2] == pytest.approx(0.9)
    assert apply_corrections(det, {}) is det and apply_corrections(det, None) is det
    with pytest.raises(ValueError, match="class must be 0..30, got 31"):
        apply_corrections(det, {2: 31})


def test_a_box_the_user_names_counts_though_read_with_doubt_across_a_joint():
    # A 中 box at 0.3 across the joint of a kong's two faces is no tile (grouping), but named by the user it is
    # one: read surely from then on (confidence 1), it is kept, and counted in a 中 meld (D中中中 with a back turned
    # down at one end is a concealed kong, the other back lies apart).
    layout = hand_layout("123m456m789p5p", "5p", ["concealed_kong 中"], kong_shown="DFFD", size=60, center=(640, 300))
    kong = sorted((i for i, r in enumerate(layout.roles) if r == "concealed_kong"),
                  key=lambda i: layout.detections.xyxy[i, 0])
    joint = (layout.detections.xyxy[kong[1]] + layout.detections.xyxy[kong[2]]) / 2
    det = with_tiles(layout.detections, [joint], [Tile.ZHONG.index])
    det.conf[-1] = 0.3
    assert analyse(IMG, det, Context()).reading.roles[-1] == "loose"
    named = apply_corrections(det, {len(det) - 1: Tile.ZHONG.index})
    assert named.conf[-1] == 1.0 and np.array_equal(named.conf[:-1], det.conf[:-1]) and det.conf[-1] == pytest.approx(0.3)
    res = analyse(IMG, named, Context(), fixed=[len(det) - 1])
    meld = res.reading.meld_of[-1]
    assert meld >= 0 and res.reading.melds[meld].tile is Tile.ZHONG, (res.reading.roles, res.reading.melds)
