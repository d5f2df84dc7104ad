"""``xingzi bench engine``: hands per second of the scoring engine on a fixed, seeded set of
random legal situations, and of the ``mahjong`` package (riichi rules) on the same random
closed hands in the same run, with the ratio.

Both sides are timed on hands already converted to their own input form (our Hand/WinContext,
the package's 136-tile arrays), one core, best of ``--repeat`` passes, by the wall clock (hands/s,
ratio) and by this process's CPU time (a steadier figure on a busy machine). The first line says
which build of the engine ran (compiled by mypyc, or the Python source).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from .compiled import describe
from .hand import Hand, Payer, WinContext, make_context
from .melds import Meld, MeldKind
from .notation import format_tiles
from .ruleset import load_ruleset
from .scoring import score_hand
from .shapes import BAI, FA, ZHONG
from .situation import score_situation
from .tiles import TILES

_PLAYABLE = [i for i in range(30) if i != FA]


def random_win(rng: random.Random, closed: bool) -> tuple[list[int], list[tuple[str, int]], int]:
    """Random legal winning tiles: (concealed tile ids incl. the winning one, melds, winning id)."""
    while True:
        used = [0] * 30
        concealed: list[int] = []
        melds: list[tuple[str, int]] = []
        if closed and rng.random() < 0.1:  # seven pairs now and then
            for t in rng.sample([i for i in _PLAYABLE], 7):
                concealed += [t, t]
            return concealed, [], rng.choice(concealed)
        ok = True
        for _ in range(4):
            if rng.random() < 0.3:
                t = rng.choice(_PLAYABLE)
                if used[t] > 1:
                    ok = False
                    break
                used[t] += 3
                if not closed and rng.random() < 0.4:
                    kind = rng.choice(["pung", "pung", "kong", "concealed_kong"])
                    used[t] += kind != "pung"
                    if used[t] > 4:
                        ok = False
                        break
                    melds.append((kind, t))
                else:
                    concealed += [t, t, t]
            else:
                start = rng.choice([s * 9 + r for s in range(3) for r in range(7)])
                for t in (start, start + 1, start + 2):
                    used[t] += 1
                concealed += [start, start + 1, start + 2]
        pair = rng.choice(_PLAYABLE)
        used[pair] += 2
        concealed += [pair, pair]
        if ok and max(used) <= 4:
            return concealed, melds, rng.choice(concealed)


def situations(n: int, seed: int, closed: bool) -> list[tuple[Hand, WinContext]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        concealed, melds, win = random_win(rng, closed)
        counts = [0] * 30
        for t in concealed:
            counts[t] += 1
        meld_objs = tuple(Meld(MeldKind(k), TILES[t]) for k, t in melds)
        hand = Hand(tuple(counts), win, meld_objs, 0 if closed else rng.choice([0, 0, 0, 1, 2]))
        self_draw = rng.random() < 0.4
        payers = () if closed else (Payer(dealer=rng.random() < 0.25, fa=rng.choice([0, 1])),)
        out.append((hand, make_context(hand, self_draw, False, (), payers if not self_draw else ())))
    return out


def _to_136(concealed_counts: tuple[int, ...], win: int) -> tuple[list[int], int]:
    # our ids → riichi 34 ids (白 = haku 31, 中 = chun 33), then 136 copies
    to34 = {i: i for i in range(27)}
    to34[BAI], to34[ZHONG] = 31, 33
    tiles: list[int] = []
    win136 = -1
    for i, n in enumerate(concealed_counts):
        for copy in range(n):
            tiles.append(to34[i] * 4 + copy)
            if i == win:
                win136 = to34[i] * 4 + copy
    return tiles, win136


def _timed(fn: Callable[[], int]) -> tuple[float, float]:
    """Seconds per hand of one pass: (wall clock, CPU time of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    n = fn()
    return (time.perf_counter() - wall) / n, (time.process_time() - cpu) / n


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--hands", type=int, default=5000, help="random situations per set (default 5000)")
    p.add_argument("--seed", type=int, default=2024, help="random seed (default 2024)")
    p.add_argument("--repeat", type=int, default=3, help="timed passes, best is reported (default 3)")
    p.add_argument("--rules", help="ruleset file or preset (default: the shipped default)")


def run(args: argparse.Namespace) -> int:
    if args.hands < 1 or args.repeat < 1:
        raise ValueError(f"--hands and --repeat must be at least 1, got {args.hands} and {args.repeat}")
    rules = load_ruleset(args.rules)
    closed = situations(args.hands, args.seed, closed=True)
    mixed = situations(args.hands, args.seed + 1, closed=False)

    def ours(batch: list[tuple[Hand, WinContext]]) -> Callable[[], int]:
        def go() -> int:
            for hand, ctx in batch:
                score_hand(hand, ctx, rules)
            return len(batch)
        return go

    ours(closed)()  # warm the per-suit caches once, as a long-running scorer would have them
    theirs = _reference(closed)
    as_json = [{"hand": format_tiles(h.tiles), "win_tile": TILES[h.win_tile].symbol, "self_draw": c.self_draw}
               for h, c in closed]

    def whole_contract() -> int:
        for situation in as_json:
            score_situation(situation)
        return len(as_json)

    # passes alternate between the engines so that a busy machine slows both alike; best pass counts
    closed_t = mixed_t = their_t = (float("inf"), float("inf"))  # (wall, CPU) seconds per hand
    for _ in range(args.repeat):
        closed_t = _best(closed_t, _timed(ours(closed)))
        mixed_t = _best(mixed_t, _timed(ours(mixed)))
        if theirs is not None:
            their_t = _best(their_t, _timed(theirs))
    closed_rate, mixed_rate, json_rate = 1 / closed_t[0], 1 / mixed_t[0], 1 / _timed(whole_contract)[0]
    print(f"xingzi engine build: {describe()}")
    print(f"xingzi engine: {args.hands} random closed winning hands, seed {args.seed}: {closed_rate:,.0f} hands/s")
    print(f"xingzi engine: {args.hands} random situations with melds/发/payers:   {mixed_rate:,.0f} hands/s")
    print(f"xingzi engine: the same closed hands as §10 dicts (parse + score + result): {json_rate:,.0f} hands/s")
    if theirs is None:
        print("mahjong package not installed: no reference figure (pip install mahjong)")
        return 0
    print(f"mahjong {_version()} (riichi) on the same closed hands:          {1 / their_t[0]:,.0f} hands/s")
    print(f"ratio: {their_t[0] / closed_t[0]:.1f}x")
    print(f"CPU time per closed hand: xingzi {closed_t[1] * 1e6:.1f} µs, mahjong {their_t[1] * 1e6:.1f} µs, "
          f"ratio {their_t[1] / closed_t[1]:.1f}x")
    return 0


def _best(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return min(a[0], b[0]), min(a[1], b[1])


def _reference(closed: list[tuple[Hand, WinContext]]) -> Callable[[], int] | None:
    """The mahjong package scoring the same closed hands, or None when it is not installed."""
    try:
        from mahjong.hand_calculating.hand import HandCalculator
        from mahjong.hand_calculating.hand_config import HandConfig
    except ImportError:
        return None
    calc = HandCalculator()
    configs = {True: HandConfig(is_tsumo=True), False: HandConfig(is_tsumo=False)}
    converted = [(*_to_136(h.counts, h.win_tile), c.self_draw) for h, c in closed]

    def theirs() -> int:
        for tiles, win, tsumo in converted:
            calc.estimate_hand_value(tiles, win, config=configs[tsumo])
        return len(converted)
    return theirs


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("mahjong")
    except Exception:  # metadata missing in odd installs; the figure still stands
        return "?"
