"""Two readings of one labelled set compared photo by photo (``xingzi eval`` with two rows or more).

A reading chosen because it scores a few more photos exactly on one set of a few hundred may only have drawn
luckier photos: what counts is how many photos each reads exactly that the other does not, and how uneven that
split is. McNemar's exact test gives the chance of a split at least as uneven if each such photo were a coin toss.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


def mcnemar_p(gained: int, lost: int) -> float:
    """Two-sided exact McNemar p-value for ``gained`` photos right only in one reading and ``lost`` only in the other."""
    if gained < 0 or lost < 0:
        raise ValueError(f"expected counts of photos >= 0, got gained={gained}, lost={lost}")
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Paired:
    """``row`` against ``base``: the photos only ``row`` reads exactly (``gained``), those only ``base`` reads
    exactly (``lost``), and the same counted over hands (photos of at most ``hand_max`` tiles)."""

    base: str
    row: str
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    hand_gained: int
    hand_lost: int
    hand_max: int

    @property
    def p(self) -> float:
        return mcnemar_p(len(self.gained), len(self.lost))

    @property
    def hand_p(self) -> float:
        return mcnemar_p(self.hand_gained, self.hand_lost)

    def as_dict(self) -> dict[str, Any]:
        return {"base": self.base, "row": self.row, "gained": list(self.gained), "lost": list(self.lost),
                "p": self.p, "hand_gained": self.hand_gained, "hand_lost": self.hand_lost, "hand_p": self.hand_p,
                "hand_max_tiles": self.hand_max}


def compare(base: Mapping[str, Any], other: Mapping[str, Any], hand_max: int) -> Paired:
    """Compare two results of ``evaluate_row`` made with the images (their ``images``: the photos not read exactly,
    each with its number of labelled tiles) on the same set."""
    for result in (base, other):
        if "images" not in result or "summary" not in result:
            raise ValueError(f"row {result.get('row')!r}: expected a result scored with its images (an 'images' list)")
    if base["summary"]["images"] != other["summary"]["images"]:
        raise ValueError(f"rows {base['row']!r} and {other['row']!r} scored different sets: "
                         f"{base['summary']['images']} and {other['summary']['images']} images")
    base_miss = {r["image"]: r["tiles"] for r in base["images"]}
    other_miss = {r["image"]: r["tiles"] for r in other["images"]}
    gained = tuple(sorted(set(base_miss) - set(other_miss)))
    lost = tuple(sorted(set(other_miss) - set(base_miss)))
    return Paired(base["row"], other["row"], gained, lost, sum(base_miss[n] <= hand_max for n in gained),
                  sum(other_miss[n] <= hand_max for n in lost), hand_max)


def wrong_in_every_row(results: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The photos that no row reads exactly: what no choice among these readings could get right."""
    if not results:
        raise ValueError("expected at least one result row, got none")
    for r in results:
        compare(results[0], r, 0)  # the same checks: scored with their images, on one set
    missed = [{m["image"] for m in r["images"]} for r in results]
    return tuple(sorted(set.intersection(*missed)))


def format_every_row_wrong(wrong: Sequence[str], images: int, rows: int) -> str:
    right = 100 * (images - len(wrong)) / images if images else 0.0
    return (f"read exactly by none of the {rows} rows: {len(wrong)} of {images} photos "
            f"(at most {right:.1f} % image exact for any choice among them)")


def format_p(p: float) -> str:
    """A p-value in two decimals, or in two significant figures when under 0.01 (so a clear split is not shown as 0)."""
    return f"{p:.2f}" if p >= 0.01 else f"{p:.1e}"


def format_paired(pair: Paired) -> str:
    """Two lines: the row, then the photos it reads exactly that the first row does not and the other way round,
    with the p-values."""
    net = len(pair.gained) - len(pair.lost)
    return (f"{pair.row}\n    against {pair.base}: images exact +{len(pair.gained)} -{len(pair.lost)} (net {net:+d}, "
            f"McNemar exact p {format_p(pair.p)}); hands of <={pair.hand_max} tiles +{pair.hand_gained} -{pair.hand_lost} "
            f"(p {format_p(pair.hand_p)})")


def compare_runs(base: Mapping[str, Any], other: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Two ``xingzi bench pipeline --json-out`` files of one set: the samples whose 炮 total only ``other`` gets
    right (gained) and those only ``base`` gets right (lost)."""
    for run in (base, other):
        if "pao_samples" not in run or "pao_wrong" not in run:
            raise ValueError("expected a `xingzi bench pipeline --json-out` file of a synthetic set (with 'pao_samples' "
                             f"and 'pao_wrong'), got the keys {sorted(run)[:6]}")
    if sorted(base["pao_samples"]) != sorted(other["pao_samples"]):
        raise ValueError(f"the runs scored different samples ({len(base['pao_samples'])} and "
                         f"{len(other['pao_samples'])}): compare runs on one set, with one --limit")
    base_wrong, other_wrong = set(base["pao_wrong"]), set(other["pao_wrong"])
    return tuple(sorted(base_wrong - other_wrong)), tuple(sorted(other_wrong - base_wrong))


def format_runs(gained: tuple[str, ...], lost: tuple[str, ...], base: str) -> str:
    """One line: the samples scored right only by this run and only by ``base``, with McNemar's exact p."""
    return (f"against {base}: 炮 total right +{len(gained)} -{len(lost)} (net {len(gained) - len(lost):+d}, "
            f"McNemar exact p {format_p(mcnemar_p(len(gained), len(lost)))})")
