"""Where tools/mutants.py changes code: the mutants of a Python or TOML file, by position."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

COMPARE_FLIP = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "==",
                ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}
COMPARE_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
                ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not"}
ARITH_SWAP = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
              ast.FloorDiv: ("//", "*"), ast.Mod: ("%", "//")}


@dataclass(frozen=True)
class Mutant:
    """One change: bytes ``start:end`` of ``file`` (relative to the root) become ``new``."""

    id: str
    file: str
    line: int
    kind: str
    old: str
    new: str
    start: int
    end: int

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.new.encode() + source[self.end:]


class _Source:
    """Byte offsets of AST positions (``col_offset`` counts UTF-8 bytes)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode()

    def token(self, start: int, end: int, token: str) -> tuple[int, int] | None:
        """Where the operator ``token`` stands between two operands (bytes start:end)."""
        gap = self.text(start, end)
        if token[0].isalpha():
            pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, token.split())) + r"(?!\w)"
        else:
            pattern = r"(?<![<>=!*/%+\-])" + re.escape(token) + r"(?![<>=*/])"
        match = re.search(pattern, gap)
        if match is None:
            return None
        return start + len(gap[: match.start()].encode()), start + len(gap[: match.end()].encode())


def _untouched(tree: ast.AST) -> set[int]:
    """Nodes left alone: docstrings, annotations, decorators, raise statements and f-strings (messages)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        notes: list[ast.AST | None] = []
        if isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            notes += [node.returns, *(a.annotation for a in args.posonlyargs + args.args + args.kwonlyargs)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            notes += node.decorator_list
        if isinstance(node, (ast.Raise, ast.JoinedStr)):
            notes.append(node)
        for note in notes:
            if note is not None:
                skip |= {id(n) for n in ast.walk(note)}
    return skip


def _scaled(value: float) -> list[str]:
    return [repr(float(f"{value * f:.6g}")) for f in (0.8, 1.25)] if value else ["0.1"]


def _python_changes(src: _Source, tree: ast.AST) -> Iterator[tuple[ast.AST, str, int, int, str]]:
    skip = _untouched(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _return_changes(src, node, skip)
        elif isinstance(node, ast.Compare):
            for left, op, right in zip([node.left, *node.comparators], node.ops, node.comparators, strict=False):
                where = src.token(src.span(left)[1], src.span(right)[0], COMPARE_TEXT[type(op)])
                if where:
                    yield node, "compare", *where, COMPARE_FLIP[type(op)]
        elif isinstance(node, ast.BoolOp):
            old = "and" if isinstance(node.op, ast.And) else "or"
            for left, right in zip(node.values, node.values[1:], strict=False):
                where = src.token(src.span(left)[1], src.span(right)[0], old)
                if where:
                    yield node, "boolean", *where, "or" if old == "and" else "and"
        elif isinstance(node, ast.BinOp) and type(node.op) in ARITH_SWAP:
            old, new = ARITH_SWAP[type(node.op)]
            where = src.token(src.span(node.left)[1], src.span(node.right)[0], old)
            if where:
                yield node, "arithmetic", *where, new
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
            start, end = src.span(node.test)
            yield node, "negate", start, end, f"not ({src.text(start, end)})"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start, end = src.span(node)
            yield node, "drop_not", start, end, f"({src.text(*src.span(node.operand))})"
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            start, end = src.span(node)
            kind = "flag" if type(node.value) is bool else "number"
            if type(node.value) is bool:
                news = [str(not node.value)]
            elif type(node.value) is int:
                news = [str(node.value + 1), str(node.value - 1)]
            else:
                news = _scaled(float(node.value))  # type: ignore[arg-type]
            for new in news:
                yield node, kind, start, end, new
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and node.lineno == node.end_lineno:
            inside = any(isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)) for p in _parents(tree, node))
            if inside and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                yield node, "delete", *src.span(node), "pass"


def _return_changes(src: _Source, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                    skip: set[int]) -> Iterator[tuple[ast.AST, str, int, int, str]]:
    kind = ast.unparse(fn.returns) if fn.returns is not None else ""
    for node in _own_nodes(fn):
        if isinstance(node, ast.Return) and node.value is not None and id(node) not in skip:
            start, end = src.span(node.value)
            if kind == "bool":
                new = f"not ({src.text(start, end)})"
            else:
                new = {"int": "0", "float": "0.0", "str": "''"}.get(kind, "()" if kind.startswith("tuple") else "None")
            yield node, "return", start, end, new


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body, not those of functions defined inside it."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


_PARENTS: dict[int, dict[int, ast.AST]] = {}


def _parents(tree: ast.AST, node: ast.AST) -> Iterator[ast.AST]:
    table = _PARENTS.get(id(tree))
    if table is None:
        table = _PARENTS[id(tree)] = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    while id(node) in table:
        node = table[id(node)]
        yield node


def python_mutants(file: str, data: bytes) -> list[Mutant]:
    src, tree = _Source(data), ast.parse(data)
    out: list[Mutant] = []
    for node, kind, start, end, new in _python_changes(src, tree):
        old = src.text(start, end)
        if old == new:
            continue
        mutant = Mutant(f"{file}:{len(out)}", file, node.lineno, kind, old, new, start, end)  # type: ignore[attr-defined]
        try:
            ast.parse(mutant.apply(data))
        except SyntaxError:
            continue
        out.append(mutant)
    _PARENTS.pop(id(tree), None)
    return out


def toml_mutants(file: str, data: bytes, choices: list[list[str]] | None = None) -> list[Mutant]:
    """Numbers moved by one, booleans flipped, list elements dropped, and a ``key = "word"`` setting
    turned to each other word of its group in ``choices`` (the preset's ``choices``)."""
    other = {word: [w for w in group if w != word] for group in choices or [] for word in group}
    out: list[Mutant] = []
    offset = 0
    for number, raw in enumerate(data.split(b"\n"), 1):
        line = raw.decode()
        code = line.split("#", 1)[0]
        changes: list[tuple[str, int, int, str]] = []
        if "=" in code and not code.lstrip().startswith("["):
            bare = re.sub(r'"[^"]*"', lambda q: '"' + " " * (len(q[0]) - 2) + '"', code)  # no digits of a text
            for m in re.finditer(r"(?<![\w.\"])(\d+)(?![\w.\"])", bare):
                value = int(m.group(1))
                changes += [("number", m.start(), m.end(), str(value + 1))]
                changes += [("number", m.start(), m.end(), str(value - 1))] if value else []
            changes += [("flag", m.start(), m.end(), "false" if m.group() == "true" else "true")
                        for m in re.finditer(r"\b(true|false)\b", bare)]
            setting = re.fullmatch(r"\s*[\w-]+\s*=\s*\"([^\"]*)\"\s*", code)
            if setting:
                changes += [("choice", setting.start(1), setting.end(1), w) for w in other.get(setting[1], [])]
            for m in re.finditer(r"\"[^\"]*\"\s*,?\s*", code[code.index("=") + 1:]):
                at = code.index("=") + 1
                if "[" in code[:at + m.start()]:  # an element of a list
                    changes.append(("drop_element", at + m.start(), at + m.end(), ""))
        for kind, start, end, new in changes:
            b_start, b_end = offset + len(line[:start].encode()), offset + len(line[:end].encode())
            mutant = Mutant(f"{file}:{len(out)}", file, number, kind, line[start:end], new, b_start, b_end)
            try:
                tomllib.loads(mutant.apply(data).decode())
            except tomllib.TOMLDecodeError:
                continue
            out.append(mutant)
        offset += len(raw) + 1
    return out


def mutants_of(root: Path, files: list[str], choices: list[list[str]] | None = None) -> list[Mutant]:
    out: list[Mutant] = []
    for file in files:
        data = (root / file).read_bytes()
        out += toml_mutants(file, data, choices) if file.endswith(".toml") else python_mutants(file, data)
    return out
