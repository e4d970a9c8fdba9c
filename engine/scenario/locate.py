"""Where a key sits in a scenario file: its line, for error messages.

`tomllib` and `json` keep no positions, so the text is scanned once: TOML table headers
(``[givens]``, ``[[sections]]``, ``[sections.givens]``) and ``key = value`` lines (with the
keys of an inline table on the same line) are mapped to their dotted path, arrays of tables
counted by index. A path not found falls back to its nearest found parent.
"""

from __future__ import annotations

import re

Path = tuple[str | int, ...]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r'^\s*("[^"]*"|\'[^\']*\'|[A-Za-z0-9_\-]+)\s*=')
_INLINE_KEY = re.compile(r'[{,]\s*("[^"]*"|[A-Za-z0-9_\-]+)\s*=')


def _key(text: str) -> str:
    return text.strip().strip("\"'")


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
        path = (*table, _key(key.group(1)))
        found.setdefault(path, number)
        rest = line[key.end():]
        for delimiter in ('"""', "'''"):
            if rest.count(delimiter) % 2 == 1:  # a multi-line string starts here
                quote = delimiter
                break
        if quote:
            continue
        for inline in _INLINE_KEY.finditer(rest):
            found.setdefault((*path, _key(inline.group(1))), number)
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
    """JSON keys by name only (first occurrence after its parent), as a flat fallback."""
    found: dict[Path, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        for match in re.finditer(r'"((?:[^"\\]|\\.)*)"\s*:', line):
            found.setdefault((match.group(1),), number)
    return found


def line_of(lines: dict[Path, int], path: Path, json: bool = False) -> int | None:
    """The line of `path`, or of its nearest parent that was found."""
    if json:
        for part in reversed(path):
            if isinstance(part, str) and (part,) in lines:
                return lines[(part,)]
        return None
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None
