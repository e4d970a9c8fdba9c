"""Where each record of a records file is, found without parsing the file.

A solve with ``gpu="H100-SXM"`` needs one record of 58. `scan` reads a file's table headers and
``aliases`` lines (a regular expression, no TOML parser) for the records' names and the span of
each record's text (its header to the next record's), so that only that text is parsed. A file
the scan cannot read with certainty (a header other than ``[record]`` or ``[record.key]``, a
record's value tables away from it, aliases other than one line of plain strings, a header-like
line opening or closing a multi-line string) is parsed whole instead; a record whose parse
disagrees with the scan is an error (the tests scan and parse every shipped file).
"""

from __future__ import annotations

import re

#: {record id: (aliases, start, end)}: the record's aliases and the span of its text
Layout = dict[str, tuple[tuple[str, ...], int, int]]

_QUOTES = ('"""', "'''")  # the marks of TOML's multi-line strings
#: what the scan reads: table headers, `aliases = [...]` lines and multi-line string quotes
_SCAN = re.compile("|".join([*_QUOTES, r"^[ \t]*\[.*", r"^[ \t]*aliases\b.*"]), re.M)
#: a record's table header, [H100-SXM], or one of its values', [H100-SXM.peak_flops]
_HEADER = re.compile(r"\[([A-Za-z0-9_-]+)(\.[A-Za-z0-9_-]+)?\][ \t]*(#.*)?")
_ALIASES = re.compile(
    r'aliases[ \t]*=[ \t]*\[((?:[ \t]*"[^"\\]*"[ \t]*,)*'
    r'(?:[ \t]*"[^"\\]*"[ \t]*)?)\][ \t]*(#.*)?'
)


def scan(text: str) -> Layout | None:
    """{record id: (aliases, start, end)} of the records file `text`: each record's aliases and
    the span of its text (its header to the next record's header); None where the scan is
    unsure (see the module's docstring), and the text must be parsed whole."""
    layout: Layout = {}
    current: str | None = None
    quote: str | None = None  # the quotes of the multi-line string the scan is in
    for match in _SCAN.finditer(text):
        line = match.group()
        if line in _QUOTES:
            quote = line if quote is None else (None if quote == line else quote)
            continue
        if any(mark in line for mark in _QUOTES):
            return None  # a header or an aliases line that opens or closes a string
        if quote is not None:
            continue
        line = line.strip()
        header = _HEADER.fullmatch(line)
        if header is not None:
            record_id = header.group(1)
            if header.group(2):  # [record.key]: one of the current record's values
                if record_id != current:
                    return None  # a value table away from its record
                continue
            if record_id in layout:
                return None  # a record defined twice
            if current is not None:
                aliases, start, _ = layout[current]
                layout[current] = (aliases, start, match.start())
            current = record_id
            layout[record_id] = ((), match.start(), len(text))
            continue
        listed = _ALIASES.fullmatch(line)
        if line.startswith("[") or listed is None or current is None or layout[current][0]:
            return None
        _, start, end = layout[current]
        layout[current] = (tuple(re.findall(r'"([^"]*)"', listed.group(1))), start, end)
    return layout if quote is None else None
