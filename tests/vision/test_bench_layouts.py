"""The grouping benches on boxes laid out by hand: the fixed hands and the randomly dealt ones."""

from __future__ import annotations

import re

import numpy as np
import pytest

from xingzi.cli import main
from xingzi.engine.notation import parse_tiles
from xingzi.vision import bench_layouts, grouping
from xingzi.vision.bench_layouts import LAYOUT_HANDS, band, random_layout, run_layouts, run_random_layouts
from xingzi.vision.detections import Detections


def counts(out: str, what: str) -> tuple[int, int]:
    right, total = re.search(rf"{what}.*?: (\d+)/(\d+) read exactly", out).groups()
    return int(right), int(total)


def bands(out: str) -> dict[str, tuple[int, int]]:
    return {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"^  (perspective [^:]+): (\d+)/(\d+)$", out, re.M)}


@pytest.mark.parametrize("hand", LAYOUT_HANDS, ids=[h[0] for h in LAYOUT_HANDS])  # the xdist workers share them
def test_the_layout_bench_reads_every_layout(capsys, monkeypatch, hand):
    monkeypatch.setattr(bench_layouts, "LAYOUT_HANDS", (hand,))  # the bench on each hand in turn
    assert run_layouts() == 0
    out = capsys.readouterr().out
    assert counts(out, "hand-built layouts") == (1248, 1248)  # 52 turns x 3 perspectives x 2 x 2 x 2
    assert bands(out) == {f"perspective {p}": (416, 416) for p in ("0.0", "0.3", "0.6")}


def test_the_layout_bench_counts_the_layouts_read_wrong(capsys, monkeypatch):
    nothing = grouping.group(Detections.empty())
    monkeypatch.setattr(grouping, "group", lambda det: nothing)  # a grouping that reads no tile
    assert run_layouts() == 0
    out = capsys.readouterr().out
    assert "0/6240 read exactly" in out and "perspective 0.6: 0/2080" in out  # 5 hands, each laid out 1248 ways


def test_random_layouts_are_read_and_counted_by_perspective(capsys):
    assert run_random_layouts(150, seed=5) == 0
    out = capsys.readouterr().out
    right, total = counts(out, "random layouts")
    assert total == 150 and right >= 145  # 148 of these (session 53); 2,983 of 3,000 on seed 1
    by_band = bands(out)
    assert set(by_band) == {"perspective < 0.3", "perspective ≥ 0.3"}
    assert sum(t for _, t in by_band.values()) == 150 and sum(r for r, _ in by_band.values()) == right


def test_random_layouts_misses_are_counted_and_shown(capsys, monkeypatch):
    nothing = grouping.group(Detections.empty())
    monkeypatch.setattr(grouping, "group", lambda det: nothing)
    assert run_random_layouts(12, seed=1, show_misses=3) == 0
    out = capsys.readouterr().out
    assert counts(out, "random layouts") == (0, 12)
    misses = [line for line in out.splitlines() if line.startswith("  miss ")]
    assert len(misses) == 3 and all("| read " in m and "angle " in m for m in misses)


def test_a_random_layout_is_its_seeds_and_holds_the_hand_dealt():
    one = random_layout(np.random.default_rng(4), 0)
    again = random_layout(np.random.default_rng(4), 0)
    other = random_layout(np.random.default_rng(5), 0)
    assert one[0] == again[0] and one[2] == again[2]
    np.testing.assert_array_equal(one[1].detections.xyxy, again[1].detections.xyxy)
    assert (one[0], one[2]) != (other[0], other[2])
    truth, layout, drawn = one
    tiles, win, melds, fa = truth
    assert len(layout.detections) == len(parse_tiles(drawn["hand"])) + 1 + fa \
        + sum(4 if m.startswith(("kong", "concealed_kong")) else 3 for m in melds)
    assert 0.0 <= drawn["perspective"] < 0.6 and 0.0 <= drawn["jitter"] < 0.02 and drawn["kong_shown"] in ("FDDF", "DFFD")


@pytest.mark.parametrize("perspective,name", [(0.0, "perspective < 0.3"), (0.29, "perspective < 0.3"),
                                              (0.3, "perspective ≥ 0.3"), (0.59, "perspective ≥ 0.3")])
def test_perspective_bands(perspective, name):
    assert band(perspective) == name


def test_the_command_runs_random_layouts_and_refuses_none(capsys):
    assert main(["bench", "pipeline", "--random-layouts", "20", "--seed", "3"]) == 0
    assert counts(capsys.readouterr().out, "random layouts \\(seed 3\\)")[1] == 20
    assert main(["bench", "pipeline", "--random-layouts", "-2"]) == 2
    assert "--random-layouts must be 1 or more, got -2" in capsys.readouterr().err
