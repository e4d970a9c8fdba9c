"""Showing other people's text safely: in a terminal, and in Markdown (claims tables, plan
reports, answers).

Claim ids, sources, claimed values, expressions, column and file names come from files that
anyone may have written. Printed raw, an ESC starts a terminal control sequence, a carriage
return overwrites the line, a right-to-left override reverses what follows, a newline in an
id starts a Markdown heading ("## ✅ All claims agree"), and `<img onerror=...>` or a stray
backtick changes the rendered page. Every renderer (checks, audits, plan reports) passes such text
through these helpers; JSON needs none (json.dumps escapes).

    >>> visible("ok\\x1b[31m red")
    'ok\\\\x1b[31m red'
    >>> visible("abc\\u202edef")
    'abc<U+202E>def'
    >>> md_text("<img src=x onerror=alert(1)>")
    '&lt;img src=x onerror=alert(1)&gt;'
    >>> md_code("a`b")
    '``a`b``'
    >>> md_inline("[x](javascript:alert(1)) n_gpus [GPU] <!--")
    '[x\\\\](javascript:alert(1)) n_gpus [GPU] &lt;!--'
"""

from __future__ import annotations

import re
import reprlib

from napkinmath.text.visible import quoted
from napkinmath.text.visible import visible as _visible

_NEWLINES = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
#: A visible stand-in for a line break inside one Markdown line (a table cell, a heading).
NEWLINE_MARK = "␤"
_MD_PUNCTUATION = re.compile(r"([\\*_\[\]|#!~])")


def visible(text: object) -> str:
    """`text` on one line with every control or invisible character shown as an escape:
    ESC as \\x1b, a newline as \\n, a right-to-left override as <U+202E> (the one rule of
    `napkinmath.text.expr.visible`, shared with parse errors)."""
    return _visible(str(text))


_CARET = re.compile(r"( *)\^")


def visible_lines(text: object) -> str:
    """Like `visible`, keeping line breaks; a caret line under a quoted line still points at
    the same character once the characters before it are shown as escapes."""
    raw = str(text).split("\n")
    shown = [visible(line) for line in raw]
    for i in range(1, len(raw)):
        caret = _CARET.fullmatch(raw[i])
        if caret and shown[i - 1] != raw[i - 1]:
            at = len(caret.group(1))
            shown[i] = " " * len(visible(raw[i - 1][:at])) + "^"
    return "\n".join(shown)


def error_text(exc: BaseException) -> str:
    """An error message with the user's text in it made visible; for a `ParseError` the
    quoted expression goes on one line (a newline in it shown as \\n) with the caret
    under the same character."""
    message = str(exc)
    text, position = getattr(exc, "text", None), getattr(exc, "position", None)
    if isinstance(text, str) and text and isinstance(position, int) and position >= 0:
        tail = f"\n  {text}\n  {' ' * position}^"
        if message.endswith(tail):
            head = visible_lines(message[: -len(tail)])
            return f"{head}\n  {visible(text)}\n  {' ' * len(visible(text[:position]))}^"
    return visible_lines(message)


def _one_line(text: object) -> str:
    return visible(_NEWLINES.sub(NEWLINE_MARK, str(text)))


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_text(text: object) -> str:
    """User text inside one line of Markdown (a table cell, a heading, bold): HTML
    characters as entities, Markdown punctuation and `|` escaped, backticks as &#96;,
    line breaks as ␤, controls as escapes."""
    escaped = _MD_PUNCTUATION.sub(r"\\\1", _one_line(text))
    return _html(escaped).replace("`", "&#96;")


def md_prose(text: object) -> str:
    """napkinmath's own sentences that quote user fragments: HTML characters as entities,
    line breaks as ␤, controls as escapes; Markdown formatting of the sentence is kept."""
    return _html(_one_line(text))


#: what ends a link's text and starts its target: `](url)`, `][ref]`, `]: url` (a definition)
_LINK_END = re.compile(r"\](?=[(\[:])")
_INLINE = str.maketrans(
    {"\\": "\\\\", "`": "\\`", "|": "\\|", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
)


def _inert(line: str) -> str:
    return _LINK_END.sub(r"\\]", _visible(line).translate(_INLINE))


def md_inline(text: object) -> str:
    """User text (a title, a note, a source, a value) inside one line of a Markdown report,
    inert but looking as written: no raw HTML or comment (`<`, `>`, `&` as entities), no link
    or image (the `]` of `](`, `][`, `]:` escaped), no code span (backticks escaped), `|`
    escaped for table cells, line breaks as ␤, controls as escapes. Underscores, asterisks
    and brackets that make no link stay, so `n_gpus [GPU]` reads the same in the file."""
    return _inert(_NEWLINES.sub(NEWLINE_MARK, str(text)))


#: a line that Markdown would read as a heading, a rule, a setext underline or a code fence
_BLOCK_START = re.compile(r"^( {0,3})([#=~]|[-*_+]\s*[-*_]\s*[-*_][-*_\s]*$)")


def md_block(text: object) -> str:
    """User text of several lines (a plan's notes) as Markdown paragraphs: each line as
    `md_inline`, and a line that would start a heading, a rule or a fence (`#`, `===`,
    `---`, `~~~`) escaped, so that notes cannot open a section or hide what follows. Lists
    and emphasis stay."""
    lines = _NEWLINES.split(str(text))
    return "\n".join(_BLOCK_START.sub(r"\1\\\2", _inert(line)) for line in lines)


def md_code(text: object, in_table: bool = False) -> str:
    """A Markdown code span that no backtick inside can close early: the fence is one
    backtick longer than the longest run inside. In a table cell `|` is escaped too."""
    body = _one_line(text)
    if in_table:
        body = body.replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    fence = "`" * (longest + 1)
    if body.startswith("`") or body.endswith("`") or not body.strip():
        body = f" {body} "
    return f"{fence}{body}{fence}"


#: How much of a value a message quotes.
SHOWN_WIDTH = 60

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother = 2, SHOWN_WIDTH, SHOWN_WIDTH
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4


def shown(value: object, width: int = SHOWN_WIDTH) -> str:
    """`value` for a message: its repr, depth- and length-capped, controls escaped (a
    string as `napkinmath.text.visible.quoted` quotes it, with its length when cut)."""
    if isinstance(value, str):
        return _visible(quoted(value, width))
    try:
        text = _REPR.repr(value)
    except (ValueError, RecursionError):  # an int beyond repr's 4,300 digits; deep nesting
        text = unprintable(value)
    return clip(_visible(text), width)


def shown_value(value: object, width: int = 60) -> str:
    """A value quoted in a message: its repr, visible and clipped (an integer too long for
    repr() is described by its length)."""
    try:
        text = repr(value)
    except ValueError:  # Python refuses to print integers beyond 4,300 digits
        text = unprintable(value)
    except RecursionError:  # a container nested thousands deep
        text = f"<a {type(value).__name__} nested too deep to print>"
    return visible(clip(text, width))


def unprintable(value: object) -> str:
    """What a message shows for a value that repr() and str() refuse: an integer beyond
    Python's 4,300 digits, described by its length, or a container holding one."""
    if isinstance(value, int):
        return f"<an integer of about {int.bit_length(value) * 0.30103:,.0f} digits>"
    return f"<a {type(value).__name__} that cannot be printed>"


def clip(text: str, width: int) -> str:
    """At most `width` characters, with an ellipsis when cut."""
    return text if len(text) <= width else text[: width - 1] + "…"
