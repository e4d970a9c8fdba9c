"""Reading other tools' files for `napkin audit`, without running anything they hold.

- JSON and TOML: parsed by `napkinmath.files.parse_document` (bounded depth, a key twice is
  an error); each number is a leaf with the line its key is on.
- Python: `ast.parse` of the text, never exec, eval or import. Module-level assignments of
  dicts, lists and numbers are read; a number is a literal or a BinOp of literals (+ - * /
  and ** with an exponent of at most 64 in size), evaluated here; anything else (a call, a
  name, an f-string) is a leaf that is "not a number" and is never run. Comments come from
  `tokenize`: a line's trailing comment is that value's unit hint (`# 200Gbps HDR`).
- Markdown and text: each line with arithmetic and a stated result
  (`6.3e24 / (8960 * 4.59e14 * 0.4) = 3.8e6 seconds`) becomes one claim with its line.
- CSV: a header and rows, the columns named by `--columns value=Value,unit=Unit,...`.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import re
import tokenize
from dataclasses import dataclass

from napkinmath.errors import InputError
from napkinmath.text.escape import clip

#: The most leaves (numbers) a file may give; the rest are refused with the file.
MAX_LEAVES = 10_000
#: The deepest a Python value or arithmetic expression is followed.
MAX_PY_DEPTH = 32
#: The longest line of a document read for arithmetic.
MAX_LINE = 500
_MAX_EXPONENT = 64


@dataclass
class Leaf:
    """One value of a file: its key path, line, number (None when it is not one) and what
    the names around it say."""

    path: tuple[str, ...]
    line: int | None
    number: float | None
    comment: str = ""
    why_not: str = ""  # why the value is not a number ("a function call, never run")
    devices: tuple[str, ...] = ()  # names the value's tables give a device, innermost first


@dataclass
class Opaque:
    """A Python value that is not a number literal; kept as what it is, never evaluated."""

    what: str
    line: int


def walk(data: object, line_of, comments: dict[int, str] | None = None) -> list[Leaf]:
    """Every leaf of a nested dict/list, in document order; `line_of(path, key, start)`
    gives a key's line for parsed JSON/TOML (Python values carry their own lines)."""
    out: list[Leaf] = []
    stack: list[tuple[object, tuple[str, ...], tuple[str, ...], int | None]] = [
        (data, (), (), None)
    ]
    while stack:
        node, path, devices, line = stack.pop()
        if len(out) > MAX_LEAVES:
            raise InputError(f"more than {MAX_LEAVES:,} values; an audited file is limited to that")
        if isinstance(node, dict):
            named = node.get("name")
            if isinstance(named, PyValue):  # a Python module's value, with its line
                named = named.value
            here: tuple[str, ...] = (named,) if isinstance(named, str) else ()
            here += (path[-1],) if path else ()
            children = [(k, v) for k, v in node.items() if k != "name"]
            for key, value in reversed(children):
                stack.append((value, (*path, str(key)), here + devices, None))
            continue
        if isinstance(node, list):
            for index in reversed(range(len(node))):
                stack.append((node[index], (*path, str(index)), devices, None))
            continue
        if isinstance(node, PyValue):
            line = node.line
            node = node.value
            if isinstance(node, (dict, list)):
                stack.append((node, path, devices, line))
                continue
        if line is None:
            line = line_of(path)
        comment = (comments or {}).get(line or 0, "")
        if isinstance(node, Opaque):
            out.append(Leaf(path, line, None, comment, f"not a number: {node.what}", devices))
        elif isinstance(node, str) and _NUMBER_TEXT.match(node):
            why = f"a number written as text ({clip(node, 40)!r}), not read as one"
            out.append(Leaf(path, line, None, comment, why, devices))
        elif isinstance(node, bool) or not isinstance(node, (int, float)):
            continue  # text, dates, true/false: not quantities
        else:
            number = _finite(node)
            why = "" if number is not None else "not finite"
            out.append(Leaf(path, line, number, comment, why, devices))
    return out


#: text that is a number ("3120", "1.5e12", "-2"): a value written as a string
_NUMBER_TEXT = re.compile(r"^\s*[-+]?(?:\d[\d_,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$")


def _finite(value: int | float) -> float | None:
    """A number as a finite float, or None (NaN, infinity, an integer beyond a float)."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


class LineFinder:
    """The line of each key of a JSON or TOML text, found in document order: a key's line is
    that of its first occurrence after the previous key's."""

    #: Keys not found (a JSON key written with escapes) after which no more are searched,
    #: so that a hostile file cannot make each of its keys scan the whole text.
    MAX_MISSES = 20

    def __init__(self, text: str) -> None:
        self.text = text
        self.cursor = 0
        self.misses = 0
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def __call__(self, path: tuple[str, ...]) -> int | None:
        key = next((p for p in reversed(path) if not p.isdigit()), None)
        if key is None or self.misses >= self.MAX_MISSES:
            return None
        pattern = re.compile(r'(?:"' + re.escape(key) + r'"|\b' + re.escape(key) + r"\b)\s*[:=]")
        found = pattern.search(self.text, self.cursor)
        if found is None:
            self.misses += 1
            return None
        self.cursor = found.end()
        import bisect

        return bisect.bisect_right(self.starts, found.start())


# --- Python, with ast only ----------------------------------------------------------------
@dataclass
class PyValue:
    value: object
    line: int


def _number(node: ast.AST, depth: int = 0) -> float | None:
    """A numeric constant expression's value, or None: literals, unary +/-, and + - * / **
    of such (an exponent at most 64 in size). Never a name, call or attribute."""
    if depth > MAX_PY_DEPTH:
        return None
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return _finite(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand, depth + 1)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp):
        left, right = _number(node.left, depth + 1), _number(node.right, depth + 1)
        if left is None or right is None:
            return None
        try:
            if isinstance(node.op, ast.Add):
                result = left + right
            elif isinstance(node.op, ast.Sub):
                result = left - right
            elif isinstance(node.op, ast.Mult):
                result = left * right
            elif isinstance(node.op, ast.Div):
                result = left / right
            elif isinstance(node.op, ast.Pow) and abs(right) <= _MAX_EXPONENT:
                result = left**right
            else:
                return None
        except (ZeroDivisionError, OverflowError):
            return None
        return result if isinstance(result, float) and math.isfinite(result) else None
    return None


def _describe(node: ast.AST) -> str:
    kinds = {
        ast.Call: "a function call, never run",
        ast.Name: "a name of another value",
        ast.Attribute: "an attribute",
        ast.Subscript: "a subscript",
        ast.JoinedStr: "an f-string",
        ast.Lambda: "a lambda, never run",
        ast.Compare: "a comparison",
    }
    for kind, what in kinds.items():
        if isinstance(node, kind):
            return what
    return f"an expression ({type(node).__name__}) that is not number arithmetic"


def _py_value(node: ast.AST, depth: int = 0) -> PyValue:
    line = getattr(node, "lineno", 0)
    if depth > MAX_PY_DEPTH:
        return PyValue(Opaque("nested too deep", line), line)
    if isinstance(node, ast.Dict):
        out: dict[str, object] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, (str, int)):
                out[str(key.value)] = _py_value(value, depth + 1)
        return PyValue(out, line)
    if isinstance(node, (ast.List, ast.Tuple)):
        return PyValue([_py_value(item, depth + 1) for item in node.elts], line)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return PyValue(node.value, line)
    number = _number(node)
    if number is not None:
        return PyValue(number, line)
    return PyValue(Opaque(_describe(node), line), line)


def read_python(text: str, shown: str) -> tuple[dict, dict[int, str]]:
    """The module-level assignments of a Python text, as {name: value}, and its comments by
    line; parsed by `ast`, never executed."""
    try:
        tree = ast.parse(text, filename="<audited>", mode="exec")
    except SyntaxError as exc:
        raise InputError(f"{shown}, line {exc.lineno}: not valid Python: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise InputError(
            f"{shown}: not valid Python (nested too deep, or a number too long, to read)"
        ) from None
    values: dict[str, object] = {}
    for statement in tree.body:
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        elif isinstance(statement, ast.AugAssign):  # x += 1: changed later, in a way not read
            line = statement.lineno
            what = f"changed later, at line {line} ({clip(ast.unparse(statement), 60)})"
            _assign(values, statement.target, PyValue(Opaque(what, line), line))
            continue
        for target in targets:
            _assign(values, target, _py_value(value))
    return values, _comments(text)


def _assign(values: dict[str, object], target: ast.expr, value: PyValue) -> None:
    """`target = value` at module level: a name, or a later `NAME["key"][...] = value` or
    `NAME.key = value` into a dict already read (the value then read is the last one given).
    A target of any other shape is kept as an unread value under its text, so that a value
    the audit cannot follow is listed, never dropped."""
    if isinstance(target, ast.Name):
        values[target.id] = value
        return
    keys: list[str] = []
    node = target
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Attribute):
            keys.append(node.attr)
        elif isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, (str, int)):
            keys.append(str(node.slice.value))
        else:
            keys = []
            break
        node = node.value
    line = getattr(target, "lineno", 0)
    if isinstance(node, ast.Name) and keys:
        keys.reverse()
        container = values.get(node.id)
        for key in keys[:-1]:
            inner = container.value if isinstance(container, PyValue) else None
            container = inner.get(key) if isinstance(inner, dict) else None
        inner = container.value if isinstance(container, PyValue) else None
        if isinstance(inner, dict):
            inner[keys[-1]] = value
            return
    shown = clip(ast.unparse(target), 60)
    what = f"an assignment to {shown} at line {line} that the audit cannot follow"
    values[shown] = PyValue(Opaque(what, line), line)


def _comments(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                out[token.start[0]] = token.string.lstrip("#").strip()
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return out


# --- documents: arithmetic lines ----------------------------------------------------------
_RESULT = re.compile(
    r"^\s*(?:[~≈]\s*)?(?P<number>[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
    r"(?:\s*[×x*]\s*10\s*\^\s*[-+]?\d+)?)\s*(?P<unit>[A-Za-z%$][A-Za-z0-9/·*^%()_\-]*"
    r"(?:\s*/\s*[A-Za-z]+)?)?"
)
_ARITHMETIC = re.compile(r"\d\s*[*/×÷^+]|[*/×÷^]\s*[\d(]|\)\s*[*/×÷^]")
_MARKUP = re.compile(r"`|\*\*|^\s*(?:[-*+>]|\d+\.)\s+|^\s*#+\s*")


def arithmetic_lines(text: str) -> list[tuple[int, str, str, str]]:
    """(line, expression, claimed, label) for each line with arithmetic and a stated result,
    outside Markdown's fenced code blocks (a command and its output, a config: not the
    document's claims); the label is the line's text before its result."""
    out = []
    for number, raw in prose_lines(text):
        if len(raw) > MAX_LINE or "=" not in raw:
            continue
        line = _MARKUP.sub(" ", raw).replace("**", " ")
        for sep in re.finditer(r"(?<![=<>!])=(?!=)|≈", line):
            left, right = line[: sep.start()], line[sep.end() :]
            result = _RESULT.match(right)
            if result is None:
                continue
            expression = _expression_tail(left)
            if expression is None:
                continue
            claimed = result.group("number").replace(",", "")
            claimed = re.sub(r"\s*[×x*]\s*10\s*\^\s*", "e", claimed)
            unit = (result.group("unit") or "").rstrip(").,;:-")
            out.append((number, expression, f"{claimed} {unit}".strip(), left))
            break
    return out


#: a fence that opens or closes a Markdown code block: three or more backticks or tildes
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(number, line) of each line outside fenced code blocks (CommonMark: a block closes at
    a fence of the same character, at least as long; an unclosed one runs to the end)."""
    out, fence = [], ""
    for number, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        mark = opened.group(1) if opened else ""
        rest = line[opened.end() :] if opened else ""
        if fence:
            if mark[:1] == fence[0] and len(mark) >= len(fence) and not rest.strip():
                fence = ""
            continue
        if mark and not (mark[0] == "`" and "`" in rest):  # (``` in an info string: inline)
            fence = mark
            continue
        out.append((number, line))
    return out


def _expression_tail(left: str) -> str | None:
    """The arithmetic that ends `left` ('... takes 6.3e24 / (8960 * 4.59e14 * 0.4)' gives
    the part from the first number or bracket of its last clause), or None."""
    clause = re.split(r"[:;]|\s[—–]\s|\bis\b|\bgives\b|\btakes\b|\bso\b", left)[-1].strip()
    start = re.search(r"[\d(]", clause)
    if start is None:
        return None
    expression = clause[start.start() :].strip().rstrip(",")
    if not _ARITHMETIC.search(expression) or len(expression) > 200:
        return None
    return expression.replace("×", "*").replace("÷", "/")


# --- CSV with its own columns ---------------------------------------------------------------
_ROLES = ("id", "value", "unit", "expression", "quantity", "gpu", "model", "source")


def parse_columns(spec: str) -> dict[str, str]:
    """'value=Value,unit=Unit,expression=Formula' as {role: header}."""
    out: dict[str, str] = {}
    for part in spec.split(","):
        role, sep, header = part.partition("=")
        role = role.strip().lower()
        if not sep or role not in _ROLES or not header.strip():
            raise InputError(
                f"--columns {part.strip()!r}: write ROLE=HEADER with ROLE one of "
                f"{', '.join(_ROLES)} (e.g. value=Value,unit=Unit,expression=Formula)"
            )
        out[role] = header.strip()
    if "value" not in out or not ({"expression", "quantity"} & set(out)):
        raise InputError(
            "--columns needs value= and expression= (or quantity=): the claimed value and "
            "what it claims"
        )
    return out


def csv_rows(text: str, columns: dict[str, str], shown: str, limit: int) -> list[tuple[int, dict]]:
    """(line, {role: cell}) for each row of a CSV text, by the header names `columns` gives."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise InputError(f"{shown}: no header row")
    header = [h.strip() for h in header]
    missing = [h for h in columns.values() if h not in header]
    if missing:
        raise InputError(
            f"{shown}: no column {', '.join(map(repr, missing))} in the header "
            f"({', '.join(map(repr, header[:20]))})"
        )
    at = {role: header.index(name) for role, name in columns.items()}
    rows: list[tuple[int, dict]] = []
    for cells in reader:
        if len(rows) >= limit:
            raise InputError(f"{shown}: more than {limit:,} rows; split the file")
        if not any(c.strip() for c in cells):
            continue
        row = {role: cells[i].strip() if i < len(cells) else "" for role, i in at.items()}
        rows.append((reader.line_num, row))
    return rows
