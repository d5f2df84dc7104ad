"""`xingzi score --json -` given JSON Lines whose first line is a whole JSON value but no situation (a number, a
list, a text): each line is still answered, the first as a bad line, not the whole input refused as one value."""

from __future__ import annotations

import io
import json
import sys

import pytest

from xingzi.cli import main

GOOD = json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"})


@pytest.mark.parametrize(("first", "got"), [
    pytest.param("5", "got int", id="a-number"),
    pytest.param("[1]", "got list", id="a-list"),
    pytest.param('"x"', "got str", id="a-text"),
    pytest.param("null", "got NoneType", id="null"),
])
def test_json_lines_whose_first_line_is_a_value_but_no_situation_answer_each_line(capsys, monkeypatch, first, got):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{first}\n{GOOD}\n{GOOD}\n"))
    code = main(["score", "--json", "-"])
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert code == 1 and captured.err == "", captured.err
    assert records[0]["line"] == 1 and got in records[0]["error"]
    assert [r.get("own") for r in records] == [None, 3, 3]
