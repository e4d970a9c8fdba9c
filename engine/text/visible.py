"""Showing user text safely on a terminal (no pint, no sympy: the CLI imports it first)."""

from __future__ import annotations

import unicodedata

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Characters shown as escapes: controls, format characters (bidi overrides, zero-width
#: joiners), surrogates (undecodable bytes of a command line), line and paragraph separators.
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def _visible_char(char: str, keep: str) -> str:
    if char in keep or unicodedata.category(char) not in _HIDDEN:
        return char
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return _ESCAPES.get(char) or f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str, keep: str = "") -> str:
    """`text` with control characters (C0, DEL, C1), bidi overrides and other invisible
    format characters shown as escapes (``\\x1b``, ``\\r``, ``<U+202E>``), so that echoing
    it cannot rewrite a terminal; the characters in `keep` (say a newline, for a message of
    several lines) stay as they are."""
    if text.isprintable():
        return text
    return "".join(_visible_char(c, keep) for c in text)
