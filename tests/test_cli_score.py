"""The `xingzi score`, `xingzi rules` and `xingzi bench engine` commands, through cli.main(argv)."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from xingzi.cli import main
from xingzi.commands import score_stream
from xingzi.commands.score import parse_payer
from xingzi.engine import score_situation

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "situation.json"


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def situation_file(folder: Path, situation: dict | None = None) -> Path:
    """A §10 situation written as a JSON file (by default a plain discard win of 3 炮)."""
    path = folder / "s.json"
    path.write_text(json.dumps(situation or {"hand": "12m456m789p22345s3m", "win_tile": "3m"}), encoding="utf-8")
    return path


def test_hand_mode_prints_reading_items_and_payments(capsys) -> None:
    code, out, _ = run(["score", "--hand", "12m456m789p22345s 3m", "--discard"], capsys)
    assert code == 0
    assert "12456m789p22345s + 3m" in out and "123m 456m 789p 345s 22s" in out
    assert "平胡" in out and "门前清" in out and "胡单张" in out
    assert "own       3 炮" in out and "放炮者 the discarder  pays 3\n" in out


@pytest.mark.parametrize("argv,lines", [
    pytest.param(["--discard", "--payer", "fa=2; pung 中"], ["放炮者 the discarder  pays 6  (含吃 3 炮 eaten)"],
                 id="discarder-eaten"),
    pytest.param(["--self-draw", "--payer", "dealer; fa=1", "--payer", "none", "--payer", " None "],
                 ["第1家 player 1        pays 10  (含吃 1 炮 eaten, 5 炮 ×2 庄家 dealer)",
                  "第2家 player 2        pays 4", "第3家 player 3        pays 4"], id="self-draw-dealer-payer"),
    pytest.param(["--self-draw", "--dealer"], [f"第{k}家 player {k}        pays 8  (4 炮 ×2 庄家 dealer)"
                                               for k in (1, 2, 3)], id="self-draw-by-dealer"),
])
def test_payments_say_who_pays_what_and_why(capsys, argv, lines) -> None:
    code, out, _ = run(["score", "--hand", "12m456m789p22345s 3m", *argv], capsys)
    assert code == 0
    assert [line for line in out.splitlines() if " pays " in line] == lines


@pytest.mark.parametrize("argv,lines", [
    pytest.param(["123m456m234s5s6s", "--win", "6s", "--meld", "pung 9p", "--self-draw", "--payer", "fa=1",
                  "--payer", "dealer"],
                 ["  pays 第1家 player 1        20", "  pays 第2家 player 2        40  (20 炮 ×2 庄家 dealer)",
                  "  pays 第3家 player 3        20"], id="false-self-draw-names-payers-as-a-valid-one-does"),
    pytest.param(["123m456m234s55s", "--win", "5s", "--meld", "pung 9p", "--payer", "dealer"],
                 ["  pays 放炮者 the discarder  40  (20 炮 ×2 庄家 dealer)", "  pays 另一家 another player 20",
                  "  pays 另一家 another player 20"], id="false-claim-on-a-discard-pays-the-discarder-first"),
])
def test_a_false_win_says_whom_it_pays_as_a_valid_win_names_its_payers(capsys, argv, lines) -> None:
    code, out, _ = run(["score", "--hand", *argv], capsys)
    assert code == 0 and "诈胡 false win" in out
    assert [line for line in out.splitlines() if " pays " in line] == lines


def test_hand_mode_json_with_melds_payers_and_events(capsys) -> None:
    argv = ["score", "--hand", "234m567p8s 8s", "--meld", "kong 9p", "--meld", "pung 3s",
            "--event", "kong_bloom", "--payer", "dealer; fa=1", "--json"]
    code, out, _ = run(argv, capsys)
    result = json.loads(out)
    assert code == 0 and result["valid"] and result["own"] == 12
    assert [(p["eaten"], p["amount"]) for p in result["payments"]] == [(1, 26), (0, 12), (0, 12)]


def test_self_draw_dealer_and_fa_flags(capsys) -> None:
    code, out, _ = run(["score", "--hand", "123456789m234p6s 6s", "--fa", "2", "--self-draw", "--dealer", "--json"], capsys)
    result = json.loads(out)
    # 一条龙 10 + 自摸 5 + 门清 1 + 单张 1 + 发 2
    assert result["own"] == 19 and [p["amount"] for p in result["payments"]] == [38, 38, 38]


def test_rules_option_and_set_override(capsys, tmp_path) -> None:
    hand = ["score", "--hand", "123m456m34s55p 2s", "--meld", "pung 7p", "--event", "robbing_kong", "--json"]
    assert json.loads(run(hand, capsys)[1])["valid"] is False
    assert json.loads(run(hand + ["--rules", "text000"], capsys)[1])["own"] == 11
    assert json.loads(run(hand + ["--set", "specials_lift_threshold=true"], capsys)[1])["own"] == 11
    house = tmp_path / "house.toml"
    house.write_text("[pao]\nrobbing_kong = 20\n[options]\nspecials_lift_threshold = true\n", encoding="utf-8")
    assert json.loads(run(hand + ["--rules", str(house)], capsys)[1])["own"] == 21


def test_hand_mode_lists_the_melds_laid_down(capsys) -> None:
    code, out, _ = run(["score", "--hand", "123m456m22p34s 2s", "--meld", "pung 中", "--discard"], capsys)
    assert code == 0 and "\nmelds     pung 中\n" in out
    assert "melds " not in run(["score", "--hand", "12m456m789p22345s 3m"], capsys)[1]  # none laid down: no line


def test_a_situation_file_and_a_hand_together_are_refused(capsys, tmp_path) -> None:
    path = situation_file(tmp_path)
    code, out, err = run(["score", "--json", str(path), "--hand", "12m456m789p22345s 3m"], capsys)
    assert code == 2 and "use either --hand (with a bare --json) or --json FILE, not both" in err and out == ""


def test_false_win_is_reported_not_an_error(capsys) -> None:
    code, out, _ = run(["score", "--hand", "123m456m234s5s 5s", "--meld", "pung 9p", "--dealer"], capsys)
    assert code == 0 and "诈胡" in out and "pays 放炮者 the discarder  40  (20 炮 ×2 庄家 dealer)" in out


@pytest.mark.parametrize(
    "hand, message",
    [
        pytest.param("12m456m789p22345s3m 4m", "got 15", id="15-tiles"),
        pytest.param("11111m456m789p22s 2s", "5 copies", id="fifth-copy"),
        pytest.param("12m456m789p2234s发 3m", "发 is a bonus tile", id="fa-in-hand"),
        pytest.param("12m456m789p22345q 3m", "unexpected 'q'", id="unknown-code"),
        pytest.param("12m456m789p22345s3m", "winning tile missing", id="no-winning-tile"),
    ],
)
def test_bad_hands_exit_non_zero_with_a_message(capsys, hand: str, message: str) -> None:
    code, out, err = run(["score", "--hand", hand], capsys)
    assert code == 2 and message in err and "Traceback" not in err and out == ""


def test_bad_meld_and_win_tile(capsys) -> None:
    code, out, err = run(["score", "--hand", "123m456m789s5p 5p", "--meld", "kong 99p"], capsys)
    assert code == 2 and "4 copies of one tile" in err and "Traceback" not in err and out == ""
    code, out, err = run(["score", "--hand", "12m456m789p22345s3m", "--win", "9s"], capsys)
    assert code == 2 and "not among the hand" in err and "Traceback" not in err and out == ""


def test_json_file_single_object(capsys) -> None:
    code, out, _ = run(["score", "--json", str(EXAMPLE)], capsys)
    result = json.loads(out)
    assert code == 0 and result["own"] == 3 and result["payments"][0]["amount"] == 16


def test_json_lines_from_stdin_keep_going_after_a_bad_line(capsys, monkeypatch) -> None:
    lines = [
        json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"}),
        "{not json",
        json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "9s"}),
        "",
        json.dumps({"hand": "11223344556677p", "win_tile": "7p", "fa": 1, "self_draw": True}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(["score", "--json", "-"], capsys)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(results) == 4
    assert results[0]["own"] == 3 and results[3]["own"] == 101
    assert results[1]["line"] == 2 and "not JSON" in results[1]["error"]
    assert results[2]["line"] == 3 and "not among the hand" in results[2]["error"]


@pytest.mark.parametrize(("bad", "message"), [
    pytest.param("[" * 100_000, "the input is nested too deeply to be a situation", id="nested-deep"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "fa": 1' + "0" * 5000 + "}",
                 "a number of thousands of digits: no situation holds one", id="huge-number"),
    # read as JSON, refused by the engine: each one line's error, the lines after it still answered
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "rules": {"optional": ' + "[" * 600 + "]" * 600
                 + "}}", "the situation is nested more than 32 deep: a situation's objects and lists are a few deep",
                 id="rules-nested-hundreds-deep"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "ruleset": "' + "a" * 300 + '"}',
                 f"ruleset file '{'a' * 120}… (300 characters)': File name too long (or use a preset: default, "
                 "text000)", id="a-ruleset-name-too-long-for-the-system"),
])
@pytest.mark.parametrize("first", [True, False], ids=["bad-line-first", "bad-line-second"])
def test_a_json_line_past_the_parsers_limits_is_one_bad_line(capsys, monkeypatch, bad, message, first) -> None:
    good = json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"})
    lines = [bad, good, good] if first else [good, bad, good]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, err = run(["score", "--json", "-"], capsys)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(results) == 3 and "Traceback" not in err
    bad_at = 0 if first else 1
    assert results[bad_at] == {"error": message, "line": bad_at + 1}
    assert [r["own"] for i, r in enumerate(results) if i != bad_at] == [3, 3]


def test_a_json_line_naming_a_ruleset_nested_thousands_deep_is_one_bad_line(capsys, monkeypatch, tmp_path) -> None:
    """The line is read, its ruleset file is not (the TOML reader recurses past Python's limit): that line's error,
    saying which file, not the stream's end, and the lines after it answered."""
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    good = json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"})
    bad = json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m", "ruleset": str(deep)})
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join([bad, good]) + "\n"))
    code, out, err = run(["score", "--json", "-"], capsys)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and "Traceback" not in err
    assert results == [{"error": f"ruleset {deep}: nested too deeply to be a ruleset (its tables are a few deep)",
                        "line": 1},
                       {**results[1], "own": 3}]


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("[\n1" + "0" * 5000 + "]\n", "a number of thousands of digits: no situation holds one",
                 id="huge-number"),
    pytest.param("[\n" + "[" * 100_000 + "]" * 100_001 + "\n", "the input is nested too deeply to be a situation",
                 id="nested-deep"),
])
def test_input_read_whole_past_the_parsers_limits_is_refused_saying_so(capsys, monkeypatch, text, message) -> None:
    """A first line that is no JSON object: the input is read whole, and the parser's limit met on a later line is
    said (for that line, or for the whole input), never a traceback."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert code in (1, 2) and "Traceback" not in err and message in out + err


@pytest.mark.parametrize(("value", "message"), [
    pytest.param("1" + "0" * 5000, "a number of thousands of digits: no situation holds one", id="huge-number"),
    pytest.param("[" * 100_000 + "]" * 100_000, "the input is nested too deeply to be a situation", id="nested-deep"),
])
def test_one_situation_written_over_lines_past_the_parsers_limits_is_refused_saying_why(capsys, monkeypatch, value,
                                                                                         message) -> None:
    """A pretty-printed situation is one value, not JSON Lines: its limit is said once, not 'not JSON' per line."""
    text = '{\n  "hand": "12m456m789p22345s3m",\n  "win_tile": "3m",\n  "fa": ' + value + "\n}\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert code == 2 and message in err and "not JSON" not in out + err and "Traceback" not in err


@pytest.mark.parametrize(("text", "where"), [
    pytest.param('{\n  "hand": "12m456m789p22345s3m",\n  "win_tile": "3m"\n  "fa": 0\n}\n', "at line 4, column 3",
                 id="comma-left-out"),
    pytest.param('[\n  {"hand": "12m456m789p22345s3m", "win_tile": "3m"},\n  {"hand": "12m"\n]\n', "at line 4, column 1",
                 id="list-of-situations-cut"),
    pytest.param('{"hand": "12m456m789p22345s3m",\n "win_tile": "3m",\n}\n', "at line 3, column 1", id="comma-after-last"),
])
def test_one_situation_written_over_lines_with_a_mistake_is_one_error_saying_where(capsys, monkeypatch, tmp_path, text,
                                                                                    where) -> None:
    """A pretty-printed file with one typo was taken for JSON Lines: a 'not JSON' record for each of its lines, none
    of them pointing at the typo. It is one value: one error, where the parser met the mistake, exit 2."""
    for source in ("-", tmp_path / "situation.json"):
        if source == "-":
            monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        else:
            source.write_text(text, encoding="utf-8")
        code, out, err = run(["score", "--json", str(source)], capsys)
        assert (code, out) == (2, "") and "Traceback" not in err
        assert err.count("\n") == 1 and "xingzi score: error: not JSON: " in err and where in err


def test_json_lines_whose_first_line_is_no_json_still_answer_each_line(capsys, monkeypatch) -> None:
    good = json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"})
    monkeypatch.setattr(sys, "stdin", io.StringIO("oops\n" + good + "\n"))
    code, out, err = run(["score", "--json", "-"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and records[0] == {"error": "not JSON: Expecting value: line 1 column 1 (char 0)", "line": 1}
    assert records[1]["valid"] is True and len(records) == 2


def test_a_key_given_twice_is_one_bad_line_and_one_bad_item(capsys, monkeypatch) -> None:
    good = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}
    twice = '{"hand": "12m456m789p22345s3m", "win_tile": "3m", "fa": 0, "fa": 1}'
    for text in ("\n".join([json.dumps(good), twice, json.dumps(good)]),  # JSON Lines
                 "[" + ", ".join([json.dumps(good), twice, json.dumps(good)]) + "]"):  # a JSON list of situations
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        code, out, _ = run(["score", "--json", "-"], capsys)
        results = [json.loads(line) for line in out.splitlines()]
        assert code == 1 and [r.get("own") for r in results] == [3, None, 3]
        assert results[1] == {"error": "key 'fa' is given twice in one object: give it once (which was meant is "
                                        "unclear; JSON readers keep the last)", "line": 2}


def test_an_empty_text_in_a_json_list_is_a_bad_item_not_a_blank_line(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO('["", {"hand": "12m456m789p22345s3m", "win_tile": "3m"}]'))
    code, out, _ = run(["score", "--json", "-"], capsys)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and results[0]["line"] == 1 and "got str" in results[0]["error"] and results[1]["own"] == 3


def test_a_table_given_twice_in_a_set_override_is_refused(capsys) -> None:
    code, out, err = run(["score", "--hand", "12m456m789p22345s 3m", "--set",
                          'flower_additions={"003": {}, "003": {"concealed": {"ping_hu": 1}}}'], capsys)
    assert code == 2 and "key '003' is given twice in one object" in err and out == ""


@pytest.mark.parametrize(("data", "message"), [
    pytest.param(b'{"hand": "12m456m789p22345s3m\xff", "win_tile": "3m"}',
                 "standard input is not UTF-8 text (expected JSON): byte 29 is b'\\xff'", id="not-utf8"),
    pytest.param(b'{\n  "hand": "12m456m789p22345s3m",\n  "win_tile": "\xfe"\n}\n',
                 "standard input is not UTF-8 text (expected JSON): byte 50 is b'\\xfe'", id="not-utf8-object-over-lines"),
])
def test_standard_input_that_is_not_utf8_is_refused_whole_as_a_file_is(data: bytes, message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "xingzi", "score", "--json", "-"], input=data,
                          capture_output=True, cwd=ROOT, timeout=60)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and message in err and "Traceback" not in err and proc.stdout == b""


def test_standard_input_with_a_byte_order_mark_is_read() -> None:
    data = "\ufeff".encode() + json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"}).encode()
    proc = subprocess.run([sys.executable, "-m", "xingzi", "score", "--json", "-"], input=data,
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["own"] == 3


ONE = {"hand": "12m456m789p22345s3m", "win_tile": "3m"}  # a plain discard win of 3 炮
ONE_LINE = json.dumps(ONE) + "\n"


def score_json(data: bytes, name: str, tmp_path: Path, capsys, monkeypatch) -> tuple[int, str, str]:
    """``xingzi score --json NAME`` on ``data``: standard input (``-``, bytes as from a pipe) or a file of that name."""
    if name == "-":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        return run(["score", "--json", "-"], capsys)
    (tmp_path / name).write_bytes(data)
    return run(["score", "--json", str(tmp_path / name)], capsys)


def read_line_within(stream, seconds: float = 30) -> bytes:
    """One line from ``stream``, failing rather than hanging when none comes within ``seconds``."""
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    assert got, f"no line within {seconds} s"
    return got[0]


def test_json_lines_on_standard_input_are_answered_as_they_come() -> None:
    with subprocess.Popen([sys.executable, "-m", "xingzi", "score", "--json", "-"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as proc:
        try:
            # one line alone may be the whole input (one object, answered pretty-printed): a second says JSON Lines
            proc.stdin.write(ONE_LINE.encode() * 2)
            proc.stdin.flush()
            assert [json.loads(read_line_within(proc.stdout))["own"] for _ in range(2)] == [3, 3]
            proc.stdin.write(b'{"hand": "11223344556677p", "win_tile": "7p", "fa": 1, "self_draw": true}\n')
            proc.stdin.flush()
            assert json.loads(read_line_within(proc.stdout))["own"] == 101  # answered, the input still open
            proc.stdin.close()
            assert proc.wait(timeout=30) == 0 and proc.stdout.read() == b"" and proc.stderr.read() == b""
        finally:
            if proc.poll() is None:
                proc.kill()


def test_with_lines_the_first_situation_on_standard_input_is_answered_before_another_is_written() -> None:
    with subprocess.Popen([sys.executable, "-m", "xingzi", "score", "--json", "-", "--lines"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as proc:
        try:
            proc.stdin.write(ONE_LINE.encode())  # one line, and the writer waits for its answer
            proc.stdin.flush()
            assert json.loads(read_line_within(proc.stdout))["own"] == 3
            proc.stdin.write(b'{"hand": "12m456m789p22345s3m"}\n')  # a bad one: its error record, and on
            proc.stdin.flush()
            assert json.loads(read_line_within(proc.stdout))["line"] == 2
            proc.stdin.close()
            assert proc.wait(timeout=30) == 1 and proc.stdout.read() == b""
        finally:
            if proc.poll() is None:
                proc.kill()


def test_with_lines_one_object_alone_is_one_json_line_and_its_error_a_record(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(ONE_LINE))
    code, out, _ = run(["score", "--json", "-", "--lines"], capsys)
    assert code == 0 and out.count("\n") == 1 and json.loads(out)["own"] == 3  # (without --lines: pretty-printed)
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"hand": "12m456m789p22345s3m", "win_tile": "5z"}'))
    code, out, err = run(["score", "--json", "-", "--lines"], capsys)
    assert code == 1 and json.loads(out)["line"] == 1 and "error" in json.loads(out) and err == ""


def open_pipe_for_writing(path: Path, seconds: float = 30) -> int:
    """A named pipe's writing end, once a reader has opened it (failing rather than hanging if none does)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:  # ENXIO: no reader yet
            if e.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_jsonl_file_that_is_a_pipe_is_answered_from_its_first_line(tmp_path) -> None:
    pipe = tmp_path / "live.jsonl"
    os.mkfifo(pipe)
    with subprocess.Popen([sys.executable, "-m", "xingzi", "score", "--json", str(pipe)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=ROOT) as proc:
        try:
            fd = open_pipe_for_writing(pipe)
            os.write(fd, ONE_LINE.encode())  # a .jsonl is JSON Lines even of one line: answered at once
            assert json.loads(read_line_within(proc.stdout))["own"] == 3
            os.write(fd, b"{not json\n")
            assert json.loads(read_line_within(proc.stdout))["line"] == 2
            os.close(fd)
            assert proc.wait(timeout=30) == 1
        finally:
            if proc.poll() is None:
                proc.kill()


@pytest.mark.parametrize("name", ["-", "s.json", "s.jsonl"])
@pytest.mark.parametrize("at", [0, 1], ids=["long-line-first", "long-line-second"])
def test_a_line_over_the_limit_is_one_bad_line(capsys, monkeypatch, tmp_path, name, at) -> None:
    long = json.dumps({**ONE, "note": "x" * score_stream.LINE_LIMIT})
    lines = [ONE_LINE, ONE_LINE]
    lines.insert(at, long + "\n")
    code, out, err = score_json("".join(lines).encode(), name, tmp_path, capsys, monkeypatch)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and "Traceback" not in err and len(results) == 3
    assert results[at] == {"error": f"line too long: {len(long):,} bytes, over the limit of 1,048,576 bytes (1 MiB) "
                                    "for one JSON line (a situation is well under a kilobyte)", "line": at + 1}
    assert [r["own"] for i, r in enumerate(results) if i != at] == [3, 3]


def test_a_blank_line_over_the_limit_is_a_blank_line(capsys, monkeypatch, tmp_path) -> None:
    data = (ONE_LINE + " " * (score_stream.LINE_LIMIT + 5) + "\n" + ONE_LINE).encode()
    code, out, _ = score_json(data, "-", tmp_path, capsys, monkeypatch)
    assert code == 0 and [json.loads(line)["own"] for line in out.splitlines()] == [3, 3]


@pytest.mark.parametrize("name", ["-", "s.json", "s.jsonl"])
def test_a_byte_that_is_no_utf8_stops_json_lines_on_its_line(capsys, monkeypatch, tmp_path, name) -> None:
    data = (ONE_LINE + json.dumps({**ONE, "win_tile": "9s"}) + "\n").encode() + b'{"hand": "\xfe"}\n' + ONE_LINE.encode()
    code, out, err = score_json(data, name, tmp_path, capsys, monkeypatch)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and [r.get("own") for r in results] == [3, None] and results[1]["line"] == 2
    where = "standard input" if name == "-" else f"situation file {str(tmp_path / name)!r}"
    offset = data.index(b"\xfe")
    assert f"{where} is not UTF-8 text (expected JSON): byte {offset}, on line 3, is b'\\xfe'" in err


@pytest.mark.parametrize("name", ["-", "s.json", "s.jsonl"])
@pytest.mark.parametrize("after", [pytest.param(b"", id="last"), pytest.param(ONE_LINE.encode(), id="before-another")])
def test_a_byte_that_is_no_utf8_on_the_line_after_one_situation_is_refused_not_read_past(capsys, monkeypatch,
                                                                                         tmp_path, name, after) -> None:
    """One situation, then a line that is not UTF-8: JSON Lines (the line is no white space), the situation answered
    and the bad byte refused on its line; not the one situation scored alone as if the rest were blank."""
    data = ONE_LINE.encode() + b'{"hand": "\xfe"}\n' + after
    code, out, err = score_json(data, name, tmp_path, capsys, monkeypatch)
    assert code == 2 and [json.loads(line)["own"] for line in out.splitlines()] == [3]
    where = "standard input" if name == "-" else f"situation file {str(tmp_path / name)!r}"
    offset = data.index(b"\xfe")
    assert f"{where} is not UTF-8 text (expected JSON): byte {offset}, on line 2, is b'\\xfe'" in err


@pytest.mark.parametrize("name", ["-", "s.json", "s.jsonl"])
def test_a_byte_that_is_no_utf8_before_anything_is_answered_is_said_of_the_whole_input(capsys, monkeypatch, tmp_path,
                                                                                      name) -> None:
    data = b"\xef\xbb\xbf\n" + b'{"hand": "\xfe"}\n' + ONE_LINE.encode()  # (a byte-order mark is no byte of the text)
    code, out, err = score_json(data, name, tmp_path, capsys, monkeypatch)
    assert code == 2 and out == "" and "on line" not in err
    assert ("standard input is not UTF-8 text (expected JSON): byte 11 is b'\\xfe'" if name == "-" else
            f"situation file {str(tmp_path / name)!r} is not UTF-8 text (expected JSON)") in err


@pytest.mark.parametrize(("text", "name", "lines"), [
    pytest.param(json.dumps(ONE), "-", None, id="one-object"),
    pytest.param("\n \n" + ONE_LINE + "\t\n\r\n", "-", None, id="one-object-among-blank-lines"),
    pytest.param(json.dumps(ONE, indent=4), "-", None, id="one-object-over-lines"),
    pytest.param(json.dumps(ONE, indent=4), "s.json", None, id="one-object-over-lines-in-a-file"),
    pytest.param("\ufeff" + ONE_LINE, "s.json", None, id="one-object-after-a-byte-order-mark"),
    pytest.param(ONE_LINE, "s.jsonl", 1, id="a-jsonl-file-of-one-line"),
    pytest.param(ONE_LINE + "\n" + ONE_LINE, "-", 2, id="json-lines"),
    pytest.param(json.dumps(ONE).join(["\r\n"] * 4), "s.json", 3, id="json-lines-ended-crlf"),
    pytest.param(json.dumps([ONE, ONE, ONE]), "-", 3, id="a-json-list"),
    pytest.param(json.dumps([ONE, ONE], indent=2), "s.json", 2, id="a-json-list-over-lines"),
])
def test_one_object_is_answered_pretty_printed_and_more_a_line_each(capsys, monkeypatch, tmp_path, text, name,
                                                                     lines) -> None:
    code, out, _ = score_json(text.encode(), name, tmp_path, capsys, monkeypatch)
    result = score_situation(ONE, None)
    want = (json.dumps(result, ensure_ascii=False, indent=2) + "\n" if lines is None
            else (json.dumps(result, ensure_ascii=False) + "\n") * lines)
    assert code == 0 and out == want


@pytest.mark.parametrize("name", ["-", "s.json", "s.jsonl"])
@pytest.mark.parametrize("sep", ["\r", "\u2028", "\x85", "\x0b"], ids=["cr", "u2028", "x85", "vt"])
def test_only_a_newline_ends_a_json_line(capsys, monkeypatch, tmp_path, name, sep) -> None:
    # JSON Lines are split at \n (a \r before it dropped), as the tools that write them do: a lone \r, \u2028 and
    # the like (str.splitlines() breaks lines there too) are part of the line, read by JSON as it reads them
    data = (json.dumps(ONE) + sep + json.dumps(ONE) + "\r\n" + ONE_LINE).encode()
    code, out, _ = score_json(data, name, tmp_path, capsys, monkeypatch)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(results) == 2 and results[1]["own"] == 3
    assert results[0]["line"] == 1 and results[0]["error"].startswith("not JSON: Extra data")


@pytest.mark.parametrize(("data", "name"), [
    pytest.param(b"", "-", id="nothing"),
    pytest.param(b"\n \n\t\r\n", "-", id="blank-lines"),
    pytest.param(b"\xef\xbb\xbf\n\n", "s.json", id="a-byte-order-mark-and-blank-lines"),
    pytest.param("\n\u3000\n".encode(), "s.jsonl", id="blank-lines-in-a-jsonl-file"),
])
def test_no_situation_at_all_is_refused(capsys, monkeypatch, tmp_path, data: bytes, name: str) -> None:
    code, out, err = score_json(data, name, tmp_path, capsys, monkeypatch)
    assert code == 2 and out == ""
    assert "error: no situation given: expected a §10 JSON object, or JSON Lines of them" in err


def test_what_is_not_json_lines_is_read_whole_only_up_to_a_limit(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(score_stream, "WHOLE_LIMIT", 4096)
    code, out, _ = score_json(json.dumps([ONE] * 10, indent=2).encode(), "-", tmp_path, capsys, monkeypatch)
    assert code == 0 and len(out.splitlines()) == 10
    code, out, err = score_json(json.dumps([ONE] * 100, indent=2).encode(), "-", tmp_path, capsys, monkeypatch)
    assert code == 2 and out == "" and "too much to read as one JSON value; give JSON Lines" in err
    code, out, _ = score_json(ONE_LINE.encode() * 100, "-", tmp_path, capsys, monkeypatch)  # not held: no limit
    assert code == 0 and len(out.splitlines()) == 100


def test_json_round_with_two_winners(capsys, tmp_path) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps({"dealer": 2, "discarder": 0, "wins": [
        {"seat": 3, "hand": "12m456m789p22345s3m", "win_tile": "3m"},
        {"seat": 1, "hand": "12m456m789p22345s3m", "win_tile": "3m"}]}), encoding="utf-8")
    out = json.loads(run(["score", "--json", str(path)], capsys)[1])
    assert out["next_dealer"] == 1 and [r["own"] for r in out["results"]] == [3, 3]


def test_the_example_round_is_settled_between_the_four_seats(capsys) -> None:
    """examples/round.json: seat 3 wins on seat 1's discard, seat 2 claims falsely on it, the dealer (seat 0) was
    followed on 中."""
    out = json.loads(run(["score", "--json", str(EXAMPLE.with_name("round.json"))], capsys)[1])
    win, false_claim = out["results"]
    assert win["deltas"] == [0, -4, 0, 4] and [p["seat"] for p in win["payments"]] == [1]
    assert false_claim["valid"] is False and false_claim["deltas"] == [40, 20, -80, 20]  # the dealer's penalty doubled
    assert [p["seat"] for p in out["follow_dealer"]] == [1, 2, 3]
    assert out["deltas"] == [28, 20, -76, 28] and out["next_dealer"] == 3


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("", "no situation given: expected a §10 JSON object", id="empty"),
    pytest.param("[]", "no situation given: the JSON list is empty", id="empty-list"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "events": [5]}', '"events" must be a list of '
                 'names, got [5]', id="event-not-a-name"),
    pytest.param("[" * 100_000 + "]" * 100_000, "nested too deeply", id="nested-deep"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "fa": 1' + "0" * 5000 + "}",
                 "a number of thousands of digits: no situation holds one", id="huge-number"),
    pytest.param('{"dealer": 0, "discarder": 1, "wins": [{"seat": 3, "hand": "12m456m789p22345s 3m"}, '
                 '{"seat": 3, "hand": "12m456m789p22345s 3m"}]}', "each seat wins (or claims) once in a round, got "
                 "seats [3, 3]", id="a-seat-wins-twice"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "self_draw": true, "self_draw": false}',
                 "key 'self_draw' is given twice in one object: give it once", id="a-key-twice"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "payers": [{"fa": 1, "fa": 2}]}',
                 "key 'fa' is given twice in one object", id="a-key-twice-in-a-payer"),
    pytest.param('{\n  "hand": "12m456m789p22345s3m",\n  "win_tile": "3m",\n  "win_tile": "9s"\n}',
                 "key 'win_tile' is given twice", id="a-key-twice-in-an-object-over-lines"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "payers": [{"fa": 1, "seat": NaN}]}',
                 "NaN is no JSON number: write a number, or leave the key out", id="nan-in-a-payer"),
    pytest.param('[{"hand": "12m456m789p22345s3m", "win_tile": "3m", "note": -Infinity}]',
                 "-Infinity is no JSON number", id="minus-infinity-beside-a-situation"),
    pytest.param('{"hand": "12m456m789p22345s3m", "win_tile": "3m", "fa": 1e400}', "1e400 is too large a number",
                 id="a-number-read-as-infinity"),
    pytest.param('{"discarder": 1, "wins": [{"seat": 3, "hand": "12m456m789p22345s 3m"}]}',
                 'a round needs "dealer": the seat 0..3 that deals this hand', id="a-round-without-dealer"),
    pytest.param('{"dealer": 0, "discarder": 1, "wins": [{"hand": "12m456m789p22345s 3m"}]}',
                 'each win in a round needs "seat": the winner\'s seat 0..3', id="a-win-without-seat"),
])
def test_bad_json_input_says_what_was_expected(capsys, monkeypatch, text: str, message: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert code == 2 and message in err and "Traceback" not in err and out == ""


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["--hand", "12m456m789p22345s 3m", "--win", "5m"], '"win_tile" 5m disagrees with the winning tile set '
                 'apart at the end of "hand", 3m', id="two-winning-tiles"),
    pytest.param(["--hand", "12m456m789p22345s 3m", "--out", "x.jpg"], "--out is for reading a photo", id="out-no-photo"),
    pytest.param(["--hand", "12m456m789p22345s 3m", "--fix", "3=2s"], "--fix is for reading a photo", id="fix-no-photo"),
    pytest.param(["--hand", "12m456m789p22345s 3m", "--bloom", "9p"], "--bloom is for reading a photo",
                 id="bloom-no-photo"),
    pytest.param(["photo.jpg", "--hand", "12m456m789p22345s 3m"], "give a photo or --hand, not both", id="photo-and-hand"),
    pytest.param(["photo.jpg", "--json", "house.json"], "give a photo or --json FILE, not both", id="photo-and-json"),
    pytest.param(["--hand", "12m456m789p22345s 3m", "--lines"], "--lines is for reading situations with --json FILE",
                 id="lines-with-hand"),
    pytest.param(["photo.jpg", "--lines"], "--lines is for reading situations with --json FILE", id="lines-with-photo"),
    pytest.param(["--lines"], "--lines is for reading situations with --json FILE", id="lines-alone"),
    # with a photo these were left unread, the photo's own melds and 发 scored (a QA pass, session 70)
    pytest.param(["photo.jpg", "--fa", "1"], "--fa describes a hand given by --hand; a photo's melds and 发 are read "
                 "from it", id="fa-with-a-photo"),
    pytest.param(["photo.jpg", "--fa", "0"], "--fa describes a hand given by --hand", id="fa-0-with-a-photo"),
    pytest.param(["photo.jpg", "--meld", "kong 9p"], "--meld describes a hand given by --hand", id="meld-with-a-photo"),
    # read as "not given": '' saved no labels, wrote no photo, ignored the winning tile
    pytest.param(["photo.jpg", "--labels", ""], "--labels is empty: expected a file or folder, got ''",
                 id="labels-empty"),
    pytest.param(["photo.jpg", "--out", ""], "--out is empty", id="out-empty"),
    pytest.param(["photo.jpg", "--win", ""], "--win is empty", id="win-empty"),
    pytest.param(["", "--self-draw"], "the photo's path is empty", id="photo-path-empty"),
    pytest.param(["--hand", ""], "--hand is empty", id="hand-empty"),
    # what needs no tiles, said before the photo is read, as with --hand (it exited 1 after the read)
    pytest.param(["photo.jpg", "--event", "kong_bloom", "--discard"], "杠上开花 kong_bloom is won only by self-draw",
                 id="bloom-on-a-discard-with-a-photo"),
    pytest.param(["photo.jpg", "--event", "hai_di_pao", "--self-draw"], "海底放炮 hai_di_pao is won only on a discard",
                 id="discard-event-self-drawn-with-a-photo"),
    pytest.param(["photo.jpg", "--dealer", "--payer", "dealer"], "only one player is the dealer, got 2",
                 id="two-dealers-with-a-photo"),
])
def test_flags_of_another_mode_are_refused(capsys, tmp_path, monkeypatch, argv: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["score", *argv], capsys)
    assert code == 2 and message in err and out == ""
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_misspelt_field_is_pointed_out_and_extra_fields_are_fine(capsys, monkeypatch) -> None:
    situation = {"hand": "12m456m789p22345s3m", "win_tile": "3m", "selfdraw": True, "note": "table 2"}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(situation)))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert code == 0 and json.loads(out)["own"] == 3  # scored as given: a discard win
    assert "key 'selfdraw' is not read (did you mean 'self_draw'?)" in err and err.count("is not read") == 1


NO_DISCARDER = "the round names no \"discarder\": read as a self-draw (自摸)"


@pytest.mark.parametrize(("round_", "noted"), [
    pytest.param({"dealer": 0, "wins": [{"seat": 3, "hand": "12m456m789p22345s3m", "win_tile": "3m"}]}, True,
                 id="discarder-left-out"),
    pytest.param({"dealer": 0, "wins": [{"seat": 3, "hand": "12m456m789p22345s3m", "win_tile": "3m",
                                         "self_draw": True}]}, False, id="the-win-says-self-draw"),
    pytest.param({"dealer": 0, "discarder": None, "wins": [{"seat": 3, "hand": "12m456m789p22345s3m",
                                                            "win_tile": "3m"}]}, False, id="discarder-null"),
    pytest.param({"dealer": 0, "discarder": 1, "wins": [{"seat": 3, "hand": "12m456m789p22345s3m",
                                                         "win_tile": "3m"}]}, False, id="on-a-discard"),
])
def test_a_round_without_its_discarder_is_said_to_be_read_as_a_self_draw(capsys, monkeypatch, round_, noted) -> None:
    """(session 75) the shorthand for 自摸 stays, but a discarder forgotten would have three pay instead of one
    without a word: the command says how it read the round, the result unchanged."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(round_)))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert code == 0 and len(json.loads(out)["results"][0]["payments"]) == (3 if "discarder" not in round_ or
                                                                              round_["discarder"] is None else 1)
    assert (NO_DISCARDER in err) is noted


def test_a_situation_file_that_is_not_text(capsys, tmp_path) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(b"\xff\xfe{}")
    code, out, err = run(["score", "--json", str(path)], capsys)
    assert code == 2 and f"situation file {str(path)!r} is not UTF-8 text" in err and out == ""


def test_missing_json_file(capsys) -> None:
    code, _, err = run(["score", "--json", "/nonexistent/s.json"], capsys)
    assert code == 2 and "cannot read" in err


def test_parse_payer() -> None:
    assert parse_payer("dealer; fa=2; pung 中, concealed_kong 4s") == {
        "dealer": True, "fa": 2, "melds": ["pung 中", "concealed_kong 4s"]}
    with pytest.raises(ValueError, match="fa=N"):
        parse_payer("fa=two")


def test_rules_command_lists_items_and_options(capsys) -> None:
    code, out, _ = run(["rules", "--rules", "text000"], capsys)
    assert code == 0 and "text000" in out
    assert any(line.startswith("tong_ku") and " on " in line for line in out.splitlines())
    lines = out.splitlines()
    assert "  flower_additions          000" in lines and "  four_fa                   on_top" in lines
    default = run(["rules"], capsys)[1]
    assert any(line.startswith("tong_ku") and " off " in line for line in default.splitlines())
    lines = default.splitlines()  # the chosen ruleset's options, not the default's every time
    assert "  flower_additions          003" in lines and "  four_fa                   in_all" in lines


@pytest.mark.parametrize(("setting", "own"), [
    pytest.param("four_fa=12", 12 + 3, id="four_fa_pao"),  # a whole number sets the 炮 of four 发
    pytest.param("four_fa=on_top", 4 + 10 + 3, id="four_fa_option"),
    pytest.param("four_fa=in_all", 10 + 3, id="four_fa_in_all"),
])
def test_a_name_that_is_both_option_and_pao(capsys, setting: str, own: int) -> None:
    code, out, _ = run(["score", "--hand", "12m456m789p22345s 3m", "--fa", "4", "--set", setting, "--json"], capsys)
    assert code == 0 and json.loads(out)["own"] == own


def test_a_situation_file_saved_with_a_byte_order_mark_is_read(capsys, tmp_path) -> None:
    path = tmp_path / "bom.json"
    path.write_text(json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"}), encoding="utf-8-sig")
    code, out, _ = run(["score", "--json", str(path)], capsys)
    assert code == 0 and json.loads(out)["own"] == 3


def test_a_jsonl_file_of_one_line_gets_one_line_back(capsys, tmp_path) -> None:
    good, bad = tmp_path / "one.jsonl", tmp_path / "bad.jsonl"
    good.write_text(json.dumps({"hand": "12m456m789p22345s3m", "win_tile": "3m"}) + "\n", encoding="utf-8")
    bad.write_text(json.dumps({"hand": "12m456m789p2234s3m", "win_tile": "3m"}) + "\n", encoding="utf-8")
    code, out, _ = run(["score", "--json", str(good)], capsys)
    assert code == 0 and len(out.splitlines()) == 1 and json.loads(out)["own"] == 3
    code, out, _ = run(["score", "--json", str(bad)], capsys)
    assert code == 1 and len(out.splitlines()) == 1
    error = json.loads(out)
    assert error["line"] == 1 and "14 tiles" in error["error"]


@pytest.mark.parametrize("argv", [["--hands", "0"], ["--hands", "-5"], ["--repeat", "0"]])
def test_bench_engine_refuses_nothing_to_time(capsys, argv: list[str]) -> None:
    code, _, err = run(["bench", "engine", *argv], capsys)
    assert code == 2 and "--hands and --repeat must be at least 1" in err


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["--data", "nosuch.yaml", "--epochs", "1"],
                 "--data: expected a data.yaml file or a folder holding one, got nosuch.yaml (not there)", id="data"),
    pytest.param(["--data", "DATA", "--model", "nosuch.pt"], "--model: start weights not found: nosuch.pt", id="model"),
    pytest.param(["--data", "DATA", "--bf16", "--device", "0"], "--bf16 is for training on the CPU", id="bf16-gpu"),
])
def test_train_says_what_is_missing_before_any_work(capsys, tmp_path, monkeypatch, argv, message) -> None:
    (tmp_path / "data.yaml").write_text("names: []\n")
    monkeypatch.chdir(tmp_path)
    argv = [str(tmp_path / "data.yaml") if a == "DATA" else a for a in argv]
    code, _, err = run(["train", *argv], capsys)
    assert code == 2 and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.yaml"]


def test_bench_engine_prints_rates_and_ratio(capsys) -> None:
    code, out, _ = run(["bench", "engine", "--hands", "40", "--repeat", "1"], capsys)
    assert code == 0 and "hands/s" in out and "ratio:" in out


def test_installed_command_runs_without_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "xingzi", "score", "--hand", "12m456m789p22345s 3m", "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["own"] == 3


def test_situation_from_args_builds_the_contract() -> None:
    import argparse

    from xingzi.commands.score import add_arguments, situation_from_args

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--hand", "234m567p8s 8s", "--meld", "kong 9p", "--meld", "pung 3s", "--fa", "1",
                              "--event", "kong_bloom", "--dealer", "--rules", "text000", "--set", "qi_dui=12",
                              "--payer", "fa=1"])
    assert situation_from_args(args) == {
        "hand": "234m567p8s 8s", "melds": ["kong 9p", "pung 3s"], "fa": 1, "self_draw": True, "dealer": True,
        "events": ["kong_bloom"], "payers": [{"dealer": False, "fa": 1, "melds": []}],
        "ruleset": "text000", "rules": {"qi_dui": 12},
    }
    with pytest.raises(ValueError, match="KEY=VALUE"):
        situation_from_args(parser.parse_args(["--hand", "1m", "--set", "nonsense"]))


def test_no_command_prints_the_commands_and_succeeds(capsys) -> None:
    code, out, err = run([], capsys)
    assert code == 0 and out.startswith("usage: xingzi") and err == ""
    assert all(name in out for name in ("score", "rules", "eval", "serve", "synth", "bench"))


def test_a_situation_file_is_scored_under_the_ruleset_named(capsys, tmp_path) -> None:
    # Robbing a kong with 7 炮 of its own: not enough to win under the default ruleset, 11 炮 under text000
    # (RULES.md §9), the same as with --hand (test_rules_option_and_set_override).
    situation = {"hand": "123m456m34s55p2s", "win_tile": "2s", "melds": ["pung 7p"], "events": ["robbing_kong"]}
    path = situation_file(tmp_path, situation)
    assert json.loads(run(["score", "--json", str(path)], capsys)[1])["valid"] is False
    named = json.loads(run(["score", "--json", str(path), "--rules", "text000"], capsys)[1])
    assert named["valid"] is True and named["own"] == 11 and named["ruleset"].startswith("text000")


def test_json_output_keeps_chinese_names_readable(capsys, tmp_path) -> None:
    out = run(["score", "--json", str(situation_file(tmp_path))], capsys)[1]
    assert '"name": "平胡"' in out and "\\u" not in out


def test_a_key_only_a_little_like_a_field_is_not_taken_for_a_misspelling(capsys, monkeypatch) -> None:
    # "pay" is two thirds like "payers": an extra field of the user's own (RULES.md §10), said nothing of.
    situation = {"hand": "12m456m789p22345s3m", "win_tile": "3m", "pay": 3}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(situation)))
    code, out, err = run(["score", "--json", "-"], capsys)
    assert code == 0 and json.loads(out)["own"] == 3 and err == ""


@pytest.mark.parametrize(("ruleset", "on_at"), [
    pytest.param("default", 68, id="default"),
    pytest.param("text000", 73, id="text000-wider-values"),  # 自摸 lists its 花炮 additions: the column grows
])
def test_rules_command_marks_the_flower_items_and_keeps_its_columns(capsys, ruleset, on_at) -> None:
    import unicodedata

    from xingzi.engine import load_ruleset
    from xingzi.ruletable import item_rows

    def cells(text: str) -> int:  # as a terminal shows it: a Chinese character takes two cells
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    lines = run(["rules", "--rules", ruleset], capsys)[1].splitlines()
    rows = item_rows(load_ruleset(ruleset))
    assert cells(lines[2][:lines[2].index("on/off")]) == on_at
    assert {r["key"] for r in rows if r["flower"]} >= {"qing_yi_se", "hong_qi", "qi_dui"}
    for row in rows:
        start = row["key"] + (" (花炮)" if row["flower"] else "") + " "
        (line,) = [line for line in lines if line.startswith(start)]
        zh = line.index(row["zh"], len(start))
        pao = line.index(row["pao"], zh + len(row["zh"]))
        on = line.index("on" if row["on"] else "off", pao + len(row["pao"]))
        assert (cells(line[:zh]), cells(line[:pao]), cells(line[:on])) == (24, 34, on_at), line


@pytest.mark.parametrize("key", ["yi_tiao_long", "peng_peng_hu", "hong_qi"])
def test_a_pattern_a_house_sets_to_nothing_is_shown_off(capsys, key) -> None:
    """It is not counted at all (not a pattern worth nothing): the table says off, as the page's 炮 table does."""
    from xingzi.engine import load_ruleset
    from xingzi.ruletable import item_rows

    (row,) = [r for r in item_rows(load_ruleset().with_overrides({key: 0})) if r["key"] == key]
    assert row["pao"].split()[0] == "0" and row["on"] is False
    (line,) = [line for line in run(["rules", "--set", f"{key}=0"], capsys)[1].splitlines()
               if line.startswith(f"{key} (花炮)")]
    assert " off " in line + " " and " on " not in line + " "


def test_a_ruleset_nested_thousands_deep_is_a_clear_error(capsys, tmp_path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    code, out, err = run(["rules", "--rules", str(deep)], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert f"xingzi rules: error: ruleset {deep}: nested too deeply to be a ruleset (its tables are a few deep)" in err


def _wait_reading_stdin(parent: int, limit: float = 90.0) -> None:
    """Until a child of ``parent`` sits in read(0, ...) (/proc/PID/syscall: number 0, first argument 0): a fixed wait
    was too short under load (the signal came while Python was still starting, and the loop went on). Where /proc
    does not say, a fixed wait."""
    import time

    end = time.monotonic() + limit
    while time.monotonic() < end:
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != parent:
                    continue
                if (stat.parent / "syscall").read_text().split()[:2] == ["0", "0x0"]:
                    time.sleep(0.5)  # in the read itself, not on the way to it
                    return
            except (OSError, ValueError, IndexError):
                continue
        time.sleep(0.2)
    time.sleep(8)


def test_after_ctrl_c_the_program_dies_by_the_signal_so_a_shell_loop_stops_too(tmp_path) -> None:
    """An exit with 130 tells bash the command handled Ctrl-C itself: `for f in *.jpg; do xingzi score "$f"; done`
    went on to the next photo after each Ctrl-C (session 70). Killed by SIGINT, the loop stops there."""
    import signal
    import subprocess

    script = tmp_path / "loop.sh"
    script.write_text(f"for k in 1 2 3; do {sys.executable} -m xingzi score --json -; echo \"after $k\"; done\n")
    def as_at_a_terminal() -> None:  # Ctrl-C live in the loop: a suite started in the background (`make test &`)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # inherits SIGINT ignored, across exec, and the loop went on
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    proc = subprocess.Popen(["bash", str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=as_at_a_terminal)
    _wait_reading_stdin(proc.pid)  # the first command reading its (open, empty) standard input
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole foreground group
    out, err = proc.communicate(timeout=60)
    worker = [line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith(("SigBlk", "SigIgn"))]
    assert proc.returncode in (-signal.SIGINT, 128 + signal.SIGINT) and b"after" not in out, (out, err, worker,
                                                                                              signal.getsignal(signal.SIGINT))


def test_ctrl_c_ends_a_command_with_the_shells_code(capsys, monkeypatch) -> None:
    import xingzi.commands.rules as rules

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(rules, "run", interrupted)
    assert main(["rules"]) == 130  # 128 + SIGINT, as a shell reports it


def test_a_name_as_wide_as_its_column_keeps_a_space_after_it() -> None:
    from xingzi.commands.rules import pad

    assert pad("dragon_concealed_kong_x", 24) == "dragon_concealed_kong_x "  # 23 cells + 1
    assert pad("x" * 30, 24) == "x" * 30 + " " and pad("中/白暗杠", 10) == "中/白暗杠 "  # 9 cells, Chinese as two


@pytest.mark.parametrize("how,said", [("--self-draw", "(自摸 self-draw)"), ("--discard", "(on a discard)")])
def test_the_report_says_how_the_hand_was_won(capsys, how, said) -> None:
    out = run(["score", "--hand", "12m456m789p22345s 3m", how], capsys)[1]
    assert out.startswith(f"hand      12456m789p22345s + 3m {said}\n")


@pytest.mark.parametrize("argv, says", [
    pytest.param(["label", "--import-labelstudio", "{tmp}/none.json", "--out", "{tmp}/ds"], "{tmp}/none.json: not found",
                 id="not-found"),
    pytest.param(["eval", "--data", "{tmp}/set", "--preds", "{tmp}/preds", "--out", "{tmp}/afile"],
                 "--out {tmp}/afile: expected a folder, got a file", id="a-file-in-the-way"),  # said before any work
])
def test_a_file_system_refusal_names_the_path_in_words(tmp_path, capsys, argv, says):
    from yolo_folder import write_yolo_folder

    write_yolo_folder(tmp_path / "set", ["1m"], {"a": [(0, 0.5, 0.5, 0.1, 0.2)]})
    (tmp_path / "preds").mkdir()
    (tmp_path / "preds" / "a.txt").write_text("0 0.5 0.5 0.1 0.2 0.9\n")
    (tmp_path / "afile").write_text("")
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert says.format(tmp=tmp_path) in err and "Errno" not in err


@pytest.mark.parametrize("end", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("name", ["-", "s.jsonl"])
def test_a_line_of_exactly_the_limit_is_scored_and_one_byte_more_is_not(capsys, monkeypatch, tmp_path, name,
                                                                          end) -> None:
    monkeypatch.setattr(score_stream, "LINE_LIMIT", 2048)
    bare = json.dumps({**ONE, "note": ""})
    at_limit = json.dumps({**ONE, "note": "x" * (2048 - len(bare))})
    over = json.dumps({**ONE, "note": "x" * (2049 - len(bare))})
    far_over = json.dumps({**ONE, "note": "x" * (70000 - len(bare))})  # read through a block at a time
    assert (len(at_limit), len(over)) == (2048, 2049)  # bytes, the line's end not counted
    data = (at_limit + end + over + end + far_over + end + ONE_LINE).encode()
    code, out, _ = score_json(data, name, tmp_path, capsys, monkeypatch)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [r.get("own") for r in results] == [3, None, None, 3]
    assert results[1]["line"] == 2 and results[1]["error"].startswith("line too long: 2,049 bytes")
    assert results[2]["line"] == 3 and results[2]["error"].startswith("line too long: 70,000 bytes")


def test_a_first_line_of_white_space_json_does_not_read_is_skipped_as_blank(capsys, monkeypatch, tmp_path) -> None:
    # (U+3000, an ideographic space: str.strip() takes it, JSON does not, so the input is no one JSON value)
    code, out, _ = score_json(("\u3000\n" + ONE_LINE).encode(), "-", tmp_path, capsys, monkeypatch)
    assert code == 0 and [json.loads(line)["own"] for line in out.splitlines()] == [3]


def test_a_long_first_line_counts_towards_what_is_read_whole(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(score_stream, "WHOLE_LIMIT", 4096)
    item = json.dumps(ONE)
    first = "[" + ", ".join([item] * 60) + ","  # no whole JSON value alone: the input is read whole
    rest = "\n".join([item + ","] * 30) + "\n" + item + "]"
    assert len(first) < 4096 < len(first) + len(rest) < 2 * 4096
    code, out, err = score_json((first + "\n" + rest).encode(), "-", tmp_path, capsys, monkeypatch)
    assert code == 2 and out == "" and "too much to read as one JSON value" in err


def test_standard_input_closed_is_said_not_a_traceback() -> None:
    proc = subprocess.run(["sh", "-c", f"{sys.executable} -m xingzi score --json - <&-"], capture_output=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert b"there is no standard input to read (it is closed)" in proc.stderr


def test_a_reader_that_stops_early_ends_the_stream_quietly(tmp_path) -> None:
    (tmp_path / "many.jsonl").write_text(ONE_LINE * 3000)
    proc = subprocess.run(["sh", "-c", f"{sys.executable} -m xingzi score --json many.jsonl | head -1"],
                          capture_output=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert json.loads(proc.stdout)["own"] == 3 and proc.stderr == b""  # no "Broken pipe" said to the terminal


@pytest.mark.parametrize(("text", "kind"), [
    pytest.param("5", "int", id="a-number"), pytest.param("true", "bool", id="a-flag"),
    pytest.param('"12m"', "str", id="a-string"), pytest.param("1.5", "float", id="a-fraction"),
])
def test_a_json_value_that_is_no_object_is_named_by_what_it_is(capsys, monkeypatch, tmp_path, text, kind) -> None:
    code, out, _ = score_json(text.encode(), "-", tmp_path, capsys, monkeypatch)
    (result,) = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and result["line"] == 1 and result["error"].endswith(f"got {kind}")


def test_rules_command_shows_the_table_under_set(capsys, tmp_path) -> None:
    """The table `score --set` and `serve --set` would score by; four 发 on top worded with the 炮 per 发."""
    code, out, _ = run(["rules", "--set", "four_fa=on_top", "--set", "fa=2", "--set", 'settlement={"dealer_factor": 3}'],
                       capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0] == 'ruleset: default (003 text), with --set four_fa=on_top fa=2 settlement={"dealer_factor": 3}'
    assert "  four_fa                   on_top" in lines and any(line.startswith("settlement: dealer ×3") for line in lines)
    assert any(line.startswith("fa ") and "2 each, four = 8+10" in line for line in lines)
    items = json.loads(run(["score", "--hand", "123m456m789p12s55p 3s", "--fa", "4", "--set", "four_fa=on_top", "--set",
                            "fa=2", "--json"], capsys)[1])["items"]
    assert {"key": "fa", "name": "发财", "pao": 18} in items
    code, _, err = run(["rules", "--set", "four_fa=sideways"], capsys)
    assert code == 2 and "four_fa" in err


@pytest.mark.parametrize("command", [["rules"], ["score", "--hand", "123m456m789p12s55p 3s"]])
def test_a_set_override_without_its_table_is_told_its_path(capsys, command) -> None:
    code, out, err = run([*command, "--set", "min_own=3"], capsys)
    assert code == 2 and out == "" and "'min_own' belongs under [threshold]: name it by its path, threshold.min_own" in err
    assert run([*command, "--set", "threshold.min_own=3"], capsys)[0] == 0


@pytest.mark.parametrize("least, said", [
    pytest.param(2, "两炮起胡 (the least a win may be): own 炮 ≥ 2;", id="the-rule-as-named"),
    pytest.param(3, "三炮起胡 (the least a win may be): own 炮 ≥ 3;", id="a-house-three"),
    pytest.param(12, "12炮起胡 (the least a win may be): own 炮 ≥ 12;", id="past-ten"),
])
def test_rules_command_names_the_least_win_by_its_number(capsys, least, said) -> None:
    out = run(["rules", "--set", f"threshold={{\"min_own\": {least}}}"], capsys)[1]
    assert any(line.startswith(said) for line in out.splitlines()), out


@pytest.mark.parametrize("argv", [
    pytest.param(["dataset", "merge", "a", "--out", ""], id="merge"),
    pytest.param(["dataset", "split", "a", "--out="], id="split-equals"),
    pytest.param(["label", "a", "--out", ""], id="label"),
    pytest.param(["eval", "--data", "", "--out", "x"], id="eval-data"),
])
def test_an_empty_path_is_refused_not_taken_for_the_current_folder(capsys, tmp_path, monkeypatch, argv) -> None:
    """argparse makes Path('') the current folder: merge, split, label and eval wrote their outputs there
    (session 70)."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 2 and "is empty: expected a file or folder, got ''" in err and list(tmp_path.iterdir()) == []
