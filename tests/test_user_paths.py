"""The end-to-end check on the users' paths (tools/user_paths.py): what the command's flags and the page's query
say is what the bench scores with, and on real synthetic photos all three score the same photos right."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from tools.user_paths import command_flags, main, page_query, page_rescore, payer_spec, shows_something
from xingzi.cli import build_parser
from xingzi.vision.bench_truth import context_of
from xingzi.vision.photo_command import context_from_args
from xingzi.web.asking import situation_of as _context
from xingzi.web.rules import TableRules

NONE = {"dealer": False, "fa": 0, "melds": []}
SITUATIONS = [
    pytest.param({"self_draw": False, "dealer": False, "events": [], "payers": [NONE], "rules": {}}, id="discard"),
    pytest.param({"self_draw": True, "dealer": True, "events": ["kong_bloom"],
                  "payers": [{"dealer": False, "fa": 2, "melds": ["pung 中", "concealed_kong 4s"]}, NONE,
                             {"dealer": False, "fa": 1, "melds": []}], "rules": {"four_fa": "on_top"}},
                 id="self-draw-dealer-event-payers-rules"),
    pytest.param({"self_draw": False, "dealer": False, "events": ["robbing_kong"],
                  "payers": [{"dealer": True, "fa": 0, "melds": ["kong 9p"]}], "rules": {}}, id="robbing-a-dealer"),
]


@pytest.mark.parametrize("situation", SITUATIONS)
def test_the_flags_and_the_query_say_what_the_bench_scores_with(situation):
    argv = ["score", "photo.jpg", *command_flags(situation)]
    by_command = context_from_args(build_parser(argv).parse_args(argv))
    assert by_command == context_of(situation)
    read = _context(page_query(situation), TableRules())  # the page sends the payers with a rescore
    assert read == replace(context_of(situation), payers=())
    if shows_something(situation["payers"]):
        assert _context(page_rescore("token", situation), TableRules()) == context_of(situation)


def test_a_payer_is_written_as_the_flag_takes_it():
    assert payer_spec({"dealer": True, "fa": 2, "melds": ["pung 中"]}) == "dealer; fa=2; pung 中"
    assert payer_spec(NONE) == "none"  # ('' is refused as a flag left unfilled)


def test_the_three_paths_score_the_same_photos_right(tmp_path, capsys):
    data = tmp_path / "set"
    run = [sys.executable, "-m", "xingzi"]
    subprocess.run([*run, "synth", "--n", "3", "--seed", "5", "--imgsz", "640", "--out", str(data)], check=True,
                   capture_output=True)
    subprocess.run([*run, "bench", "pipeline", "--data", str(data), "--json-out", str(tmp_path / "bench.json")],
                   check=True, capture_output=True)
    bench = json.loads((tmp_path / "bench.json").read_text())
    assert bench["pao_samples"]  # the set holds photos the bench scored
    assert main(["--data", str(data), "--bench", str(tmp_path / "bench.json")]) == 0
    out = capsys.readouterr().out
    n = len(bench["pao_samples"])
    right = n - len(bench["pao_wrong"])
    assert f"xingzi score --json    炮 total right {right}/{n}" in out
    assert f"page POST /api/read    炮 total right {right}/{n}" in out
    assert "the same photos wrong on every path" in out
    # a bench run that read fewer photos (--limit): counted and compared on the photos it read, and said
    fewer = {**bench, "pao_samples": bench["pao_samples"][1:], "pao_wrong": [w for w in bench["pao_wrong"]
                                                                             if w != bench["pao_samples"][0]]}
    (tmp_path / "fewer.json").write_text(json.dumps(fewer))
    assert main(["--data", str(data), "--bench", str(tmp_path / "fewer.json")]) == 0
    out = capsys.readouterr().out
    right_read = n - 1 - len(fewer["pao_wrong"])
    assert f"xingzi bench pipeline  炮 total right {right_read}/{n - 1} (it did not read 1 of these photos: " \
           f"{bench['pao_samples'][0]};" in out and "the same photos wrong on every path" in out
