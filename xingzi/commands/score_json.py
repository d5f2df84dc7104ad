"""The JSON side of ``xingzi score``: §10 situations and rounds read strictly (a key given twice, nesting thousands
deep and numbers of thousands of digits refused as such), a field spelt like one the engine reads pointed out, and
one object, a JSON list or JSON Lines answered one result (or error record) each."""

from __future__ import annotations

import difflib
import json
import sys
from typing import Any

from xingzi.engine import score_round, score_situation
from xingzi.engine.situation import ROUND_FIELDS, SITUATION_FIELDS
from xingzi.jsontext import repeated_key, strict_loads, twice_message

from .score_stream import EMPTY, check_line


def loads(text: str) -> Any:
    """JSON text → value; what no situation holds (nesting thousands deep, a number of thousands of digits) is
    refused as such rather than with the parser's words. An object with a key given twice comes back marked
    (``_Twice``) for ``check_once`` to refuse where it is used."""
    try:
        return strict_loads(text, _object)
    except RecursionError:
        raise ValueError("the input is nested too deeply to be a situation") from None
    except ValueError as e:
        if "digits" in str(e) and not isinstance(e, json.JSONDecodeError):  # Python's 4,300-digit limit
            raise ValueError("a number of thousands of digits: no situation holds one") from None
        raise


class _Twice(dict):
    """A JSON object that gave one key twice (JSON parsers keep the last without a word)."""

    key: str = ""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Twice(obj)
    marked.key = repeated_key(pairs) or ""
    return marked


def check_once(value: Any) -> None:
    """Refuse a value holding an object with a key given twice: which of the two was meant cannot be known."""
    stack = [value]
    while stack:  # (a loop, not recursion: the value may be nested as deep as the parser allowed)
        v = stack.pop()
        if isinstance(v, _Twice):
            raise ValueError(twice_message(v.key))
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _note_misspelt(obj: Any, known: tuple[str, ...], where: str) -> None:
    """Extra fields are fine (RULES.md §10), but one spelt like a field the engine reads is most likely that field
    mistyped: say so on stderr, the result unchanged."""
    if not isinstance(obj, dict):
        return
    for key in obj:
        near = difflib.get_close_matches(str(key), known, n=1, cutoff=0.75) if key not in known else []
        if near:
            print(f"xingzi score: note: {where}key {key!r} is not read (did you mean {near[0]!r}?)", file=sys.stderr)


def _score_object(obj: Any, ruleset) -> dict[str, Any]:
    check_once(obj)
    if isinstance(obj, dict) and "wins" in obj:
        _note_misspelt(obj, ROUND_FIELDS, "round ")
        wins = obj["wins"] if isinstance(obj["wins"], list) else []
        for w in wins:
            _note_misspelt(w, (*SITUATION_FIELDS, "seat"), "win ")
        if "discarder" not in obj and any(isinstance(w, dict) and "self_draw" not in w for w in wins):
            # the shorthand for 自摸; a discarder forgotten would have three pay instead of one: say how it was read
            print("xingzi score: note: the round names no \"discarder\": read as a self-draw (自摸), the three others "
                  "paying; write \"discarder\": SEAT for a win on a discard", file=sys.stderr)
        return score_round(obj, ruleset)
    _note_misspelt(obj, SITUATION_FIELDS, "")
    return score_situation(obj, ruleset)


def answer(item: Any, n: int, ruleset, parse: bool = True) -> tuple[dict[str, Any], bool]:
    """One JSON line's (``parse``) or JSON list item's result, or its error record: ``(record, scored)``."""
    try:
        return _score_object(loads(check_line(item)) if parse else item, ruleset), True
    except json.JSONDecodeError as e:
        return {"error": f"not JSON: {e}", "line": n}, False
    except ValueError as e:
        return {"error": str(e), "line": n}, False
    except RecursionError:  # a ruleset file nested thousands deep (the engine checks the line's own nesting first)
        return {"error": "the input is nested too deeply to be a situation or a ruleset", "line": n}, False


def _first_line_kind(text: str) -> str:
    """What the first line that is not blank is: "whole", a JSON value of its own (JSON Lines; a line past the
    parser's limits counts as one of the lines); "begun", the start of one value written over several lines (the
    parser ran out of the line: ``{``, ``[{``, a key left open); "broken", something no JSON holds."""
    first = next(line for line in text.split("\n") if line.strip()).rstrip()
    try:
        loads(first)
    except json.JSONDecodeError as e:
        return "begun" if e.pos >= len(first) else "broken"
    except ValueError:
        return "whole"
    return "whole"


def score_whole(text: str, ruleset, out=None) -> int:
    """One JSON object → one result; otherwise JSON Lines (split at \\n) → one result (or error) per line. (The
    input read whole: what ``score_input`` falls back on when its first line is no whole JSON object.)"""
    out = out or sys.stdout
    if not text.strip():
        raise ValueError(EMPTY)
    try:
        whole = loads(text)
    except json.JSONDecodeError as e:  # not one JSON value: JSON Lines, each line told apart …
        # … unless its first line only begins one (pretty-printed) and a mistake lies further on
        if _first_line_kind(text) == "begun":
            raise ValueError(f"not JSON: {e.msg} at line {e.lineno}, column {e.colno} (one situation written over "
                             "several lines; JSON Lines give one situation per line)") from None
        whole = None
    except ValueError:  # too deep or too long a number: said for the whole input, or for its one bad line
        if sum(1 for line in text.split("\n") if line.strip()) <= 1 or _first_line_kind(text) != "whole":
            raise  # one value, if written over several lines (pretty-printed): its lines are no JSON Lines
        whole = None
    if isinstance(whole, dict):
        out.write(json.dumps(_score_object(whole, ruleset), ensure_ascii=False, indent=2) + "\n")
        return 0
    if whole == []:
        raise ValueError("no situation given: the JSON list is empty")
    lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]
    items: list[Any] = whole if isinstance(whole, list) else lines if whole is None else [whole]  # (5, true: one)
    failed = 0
    for n, item in enumerate(items, 1):
        if whole is None and not item.strip():  # (a blank line; a "" in a JSON list is a bad situation)
            continue
        result, scored = answer(item, n, ruleset, parse=whole is None)
        failed += not scored
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 1 if failed else 0
