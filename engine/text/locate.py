"""Where a key sits in a TOML or JSON file (a plan, records, formulas): its line, for errors.

`tomllib` and `json` keep no positions, so the text is scanned once: TOML table headers
(``[givens]``, ``[[sections]]``, ``[sections.givens]``) and ``key = value`` lines (dotted
keys such as ``givens.params`` too, and the keys of an inline table on the same line;
multi-line strings skipped) are mapped to their path, arrays of tables counted by index;
JSON keys and array elements likewise. A path not found falls back to its nearest found
parent.
"""

from __future__ import annotations

import re

Path = tuple[str | int, ...]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
#: one part of a key: bare, "basic" or 'literal'
_PART = r'(?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_\-]+)'
#: a key, dotted or not (`givens.params`, `site."us-east".pue`), before its `=`
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_KEY = re.compile(rf"^\s*({_DOTTED})\s*=")
_INLINE_KEY = re.compile(rf"[{{,]\s*({_DOTTED})\s*=")
_PARTS = re.compile(_PART)


def _key(text: str) -> str:
    return text.strip().strip("\"'")


def _parts(key: str) -> tuple[str, ...]:
    """The parts of a dotted key, unquoted: `site."us-east".pue` -> (site, us-east, pue)."""
    return tuple(_key(p) for p in _PARTS.findall(key))


def toml_lines(text: str) -> dict[Path, int]:
    """Every header and key of a TOML text, by dotted path, to its 1-based line."""
    found: dict[Path, int] = {}
    counts: dict[tuple, int] = {}
    table: Path = ()
    depth = 0  # brackets open in a multi-line array value
    quote = ""  # the delimiter of a multi-line string being read (""" or ''')
    for number, line in enumerate(text.splitlines(), 1):
        if quote:
            if line.count(quote) % 2 == 1:
                quote = ""
            continue
        if depth > 0:
            depth += line.count("[") - line.count("]")
            continue
        header = _HEADER.match(line)
        if header and not _KEY.match(line):
            parts = tuple(_key(p) for p in header.group(2).split("."))
            if header.group(1) == "[[":
                parent = _indexed(parts[:-1], found, counts)
                index = counts.get((*parent, parts[-1]), -1) + 1
                counts[(*parent, parts[-1])] = index
                table = (*parent, parts[-1], index)
            else:
                table = _indexed(parts, found, counts)
            found.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if not key:
            continue
        parts = _parts(key.group(1))
        for end in range(1, len(parts) + 1):  # a dotted key makes its tables on this line
            found.setdefault((*table, *parts[:end]), number)
        path = (*table, *parts)
        rest = line[key.end() :]
        for delimiter in ('"""', "'''"):
            if rest.count(delimiter) % 2 == 1:  # a multi-line string starts here
                quote = delimiter
                break
        if quote:
            continue
        for inline in _INLINE_KEY.finditer(rest):
            inner = _parts(inline.group(1))
            for end in range(1, len(inner) + 1):
                found.setdefault((*path, *inner[:end]), number)
        value = rest.split("#", 1)[0] if '"' not in rest and "'" not in rest else rest
        depth = max(0, value.count("[") - value.count("]"))
    return found


def _indexed(parts: tuple[str, ...], found: dict[Path, int], counts: dict[tuple, int]) -> Path:
    """A dotted header's path, with the current index after each array of tables in it."""
    path: Path = ()
    for part in parts:
        path = (*path, part)
        if path in counts:
            path = (*path, counts[path])
    return path


def json_lines(text: str) -> dict[Path, int]:
    """Every key and array element of a JSON text, by path, to its 1-based line (a small
    scanner: strings with escapes, objects and arrays; the text is known to parse)."""
    found: dict[Path, int] = {}
    stack: list[list] = []  # [kind, path, key or index, expecting a key]
    line, i, n = 1, 0, len(text)
    last_string = ""
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == '"':
            j, start_line = i + 1, line
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            last_string = text[i + 1 : j]
            line += last_string.count("\n")
            i = j
            if stack and stack[-1][0] == "object" and stack[-1][3]:
                stack[-1][2] = json_unescape(last_string)
                found.setdefault((*stack[-1][1], stack[-1][2]), start_line)
                stack[-1][3] = False
        elif c in "{[":
            path: Path = _json_path(stack)
            stack.append(
                ["object" if c == "{" else "array", path, None if c == "{" else 0, c == "{"]
            )
            if c == "[":
                _json_element(stack, text, i + 1, line, found)
        elif c in "}]":
            stack.pop()
        elif c == "," and stack:
            if stack[-1][0] == "object":
                stack[-1][3] = True
            else:
                stack[-1][2] += 1
                _json_element(stack, text, i + 1, line, found)
        i += 1
    return found


def _json_path(stack: list[list]) -> Path:
    if not stack:
        return ()
    _, path, key, _ = stack[-1]
    return (*path, key)


def _json_element(stack: list[list], text: str, i: int, line: int, found: dict) -> None:
    """Record the line of the array element that starts after position `i`."""
    while i < len(text) and text[i] in " \t\r\n":
        line += text[i] == "\n"
        i += 1
    if i < len(text) and text[i] != "]":
        found.setdefault((*stack[-1][1], stack[-1][2]), line)


def json_unescape(text: str) -> str:
    import json

    try:
        return json.loads(f'"{text}"')
    except ValueError:
        return text


def line_of(lines: dict[Path, int], path: Path) -> int | None:
    """The line of `path`, or of its nearest parent that was found."""
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
