"""Showing user text safely on a terminal (no pint, no sympy: the CLI imports it first)."""

from __future__ import annotations

import math
import unicodedata

from napkinmath.errors import QUOTE_WIDTH

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Characters shown as escapes: controls, format characters (bidi overrides, zero-width
#: joiners), surrogates (undecodable bytes of a command line), line and paragraph separators.
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x20 or 0x7F <= code < 0xA0:
        return _ESCAPES.get(char) or f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def _hidden(text: str, keep: str = "") -> set[str]:
    """The distinct characters of `text` shown as escapes (each looked up once)."""
    return {c for c in set(text) if c not in keep and unicodedata.category(c) in _HIDDEN}


def visible(text: str, keep: str = "") -> str:
    """`text` with control characters (C0, DEL, C1), bidi overrides and other invisible
    format characters shown as escapes (``\\x1b``, ``\\r``, ``<U+202E>``), so that echoing
    it cannot rewrite a terminal; the characters in `keep` (say a newline, for a message of
    several lines) stay as they are."""
    if text.isprintable():
        return text
    hidden = _hidden(text, keep)
    return text.translate({ord(c): _escape(c) for c in hidden}) if hidden else text


def json_visible(text: str) -> str:
    """JSON text (json.dumps with ensure_ascii=False) with every invisible character that
    json.dumps leaves raw (DEL, C1 controls, bidi overrides, zero-width and line separators,
    lone surrogates) written as a \\u escape: the same document, safe to print."""
    if text.isprintable():
        return text
    hidden = _hidden(text, "\n")
    return text.translate({ord(c): f"\\u{ord(c):04x}" for c in hidden}) if hidden else text


def finite_json(data: object) -> object:
    """`data` with every non-finite float replaced by None (JSON has no NaN or Infinity)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite_json(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite_json(v) for v in data]
    return data


def quoted(text: object, width: int = QUOTE_WIDTH) -> str:
    """`text` as an error message quotes it: its repr, the first `width` characters only of
    a longer one, with its length ('aaaa…'… (1,000,000 characters))."""
    text = str(text)
    if len(text) <= width:
        return repr(text)
    return f"{text[:width]!r}… ({len(text):,} characters)"
