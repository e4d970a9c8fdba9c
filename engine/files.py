"""Reading a file named by the user, safely: only a regular file, at most a given size,
never blocking. A FIFO, a device (/dev/zero), a directory or a pseudo-file of /proc or /sys
(which would print the process environment) is refused before anything is read, and no
error quotes what a refused file holds.

    data = read_regular_file("ours.toml", noun="records file", limit=5_000_000,
                             rule="records are read only from regular files")
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

from napkinmath.errors import InputError
from napkinmath.text.visible import visible


def read_regular_file(
    path: str | Path, *, noun: str, rule: str, limit: int, shown: str | None = None
) -> bytes:
    """The bytes of the file `path`, or an InputError that names it (`shown`, else the path
    with its control characters escaped): "no such {noun}", "not a regular file (a FIFO, a
    named pipe); {rule}", "larger than {limit} bytes; a {noun} is limited to {limit}"."""
    shown = visible(str(path)) if shown is None else shown
    if "\x00" in os.fspath(path):
        raise InputError(f"{shown}: a file name cannot hold a NUL character (\\x00)")
    real = os.path.realpath(path)
    for top in ("/proc", "/sys"):  # "regular" files there have size 0 and secret contents
        if real == top or real.startswith(top + os.sep):
            raise InputError(f"{shown}: not a regular file (a pseudo-file of {top}); {rule}")
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_NOCTTY", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: opening a FIFO without a writer returns
    except FileNotFoundError:
        raise InputError(f"no such {noun}: {shown}") from None
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or type(exc).__name__}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{shown}: not a regular file ({file_kind(info.st_mode)}); {rule}")
        if info.st_size > limit:
            raise InputError(
                f"{shown}: larger than {limit:,} bytes ({info.st_size:,}); a "
                f"{noun} is limited to {limit:,}"
            )
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or type(exc).__name__}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputError(f"{shown}: larger than {limit:,} bytes; a {noun} is limited to {limit:,}")
    if info.st_size == 0 and size:  # a "regular" file of size 0 with contents: /proc-like
        raise InputError(
            f"{shown}: not a regular file (a pseudo-file: its size is 0 but it "
            f"has contents); {rule}"
        )
    return b"".join(chunks)


def file_kind(mode: int) -> str:
    """'a directory', 'a FIFO, a named pipe', ... for a file that is not a regular one."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO, a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "an unusual kind of file")


# --- structured documents: TOML and JSON, bounded in size and in depth ---------------------
#: The deepest nesting a document may have: tables and arrays inside each other, counting
#: the top-level table as 1 (a plan's `sections[0].givens.x = [low, high]` is 5). tomllib and
#: json recurse once per level, and tomllib's memory grows with the square of a dotted key's
#: parts (a key `a.a.a...` of 10,000 parts takes 400 MB), so the text is scanned for both
#: before it is parsed, and the parsed value checked again.
MAX_DEPTH = 32

_TOML_TOKENS = re.compile(
    r'(?P<skip>"""(?:[^"\\]|\\[\s\S]|"(?!""))*"{3,5}'  # strings and comments: skipped
    r"|'''(?:[^']|'(?!''))*'{3,5}"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*)"
    r"|(?P<open>[\[{])|(?P<close>[\]}])|(?P<dot>\.)|(?P<stop>[\"'])|(?P<end>[\n=,])"
)
_JSON_TOKENS = re.compile(
    r'(?P<skip>"(?:[^"\\]|\\.)*")|(?P<open>[\[{])|(?P<close>[\]}])|(?P<stop>")'
)


@dataclass(frozen=True)
class Document:
    """A parsed TOML or JSON document: its top-level table, the text it was read from (for
    finding a key's line) and which of the two it is."""

    data: dict
    text: str
    kind: str  # "toml" or "json"


def read_document(
    path: str | Path,
    *,
    noun: str,
    limit: int,
    rule: str | None = None,
    kind: str | None = None,
    shown: str | None = None,
    depth: int = MAX_DEPTH,
    private: bool = False,
) -> Document:
    """The file `path` read as `read_regular_file` reads it (at most `limit` bytes) and parsed
    by `parse_document`; `kind` is "toml" or "json" (None: .json is JSON, all else TOML).

        read_document("plan.toml", noun="plan file", limit=1_000_000)
    """
    shown = visible(str(path)) if shown is None else shown
    if kind is None:
        kind = "json" if str(path).lower().endswith(".json") else "toml"
    data = read_regular_file(
        path,
        noun=noun,
        limit=limit,
        shown=shown,
        rule=rule or f"a {noun} is read only from a regular file",
    )
    return parse_document(
        decode(data, shown), kind=kind, noun=noun, shown=shown, depth=depth, private=private
    )


def decode(data: bytes, shown: str) -> str:
    """UTF-8 bytes (a leading byte-order mark dropped) as text, or an InputError."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{shown}: not UTF-8 text (a byte that is not UTF-8 at position "
            f"{exc.start:,}); save it as UTF-8"
        ) from None


def parse_document(
    text: str, *, kind: str, noun: str, shown: str, depth: int = MAX_DEPTH, private: bool = False
) -> Document:
    """`text` parsed as TOML or JSON (`kind`) into its top-level table, or an InputError that
    names `shown`: not valid TOML/JSON (with the parser's reason and line), nested deeper
    than `depth`, a JSON key twice in one object, a top level that is no table. With
    `private`, no message quotes the text (the parser's reasons name keys): for a file that
    another file names, whose content the reader may not be meant to see."""
    if kind not in ("toml", "json"):
        raise ValueError(f"kind must be 'toml' or 'json', not {kind!r}")
    name = kind.upper()
    too_deep = (
        f"{shown}: nested more than {depth} deep (tables and arrays inside each other"
        + (", or a dotted key of that many parts" if kind == "toml" else "")
        + f"); a {noun} is limited to {depth} levels"
    )
    if not shallow(text, kind, depth):
        raise InputError(too_deep)
    try:
        if kind == "json":
            data = json.loads(text, object_pairs_hook=_unique_keys)
        else:
            data = tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{shown}, line {exc.lineno}: not valid JSON: {exc.msg}") from None
    except tomllib.TOMLDecodeError as exc:
        reason = _position(str(exc)) if private else str(exc)
        raise InputError(f"{shown}: not valid TOML: {reason}") from None
    except _DuplicateKeyError as exc:
        twice = "a key" if private else f"the key {visible(exc.key[:80])!r}"
        raise InputError(
            f"{shown}: not valid JSON: {twice} appears twice in one object; give each key once"
        ) from None
    except RecursionError:
        raise InputError(too_deep) from None
    except ValueError:  # an integer beyond Python's digit limit
        raise InputError(f"{shown}: not valid {name} (a number too long to read)") from None
    if not isinstance(data, dict):
        raise InputError(
            f"{shown}: the top level is {_kind_of(data)}, not a table (a JSON "
            f"object); a {noun} is a table of named entries"
        )
    if _depth(data, depth) > depth:
        raise InputError(too_deep)
    return Document(data, text, kind)


class _DuplicateKeyError(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


def shallow(text: str, kind: str, depth: int) -> bool:
    """Whether no bracket of `text` (outside strings and comments) sits deeper than `depth`
    and, in TOML, no dotted key has more than `depth` parts: one pass, before the parser
    (which would recurse, or square a long key's memory). The scan stops at a string that
    does not end: the parser stops there too."""
    if text.count("[") + text.count("{") <= depth and (kind == "json" or text.count(".") < depth):
        return True
    level = dots = 0
    for token in (_JSON_TOKENS if kind == "json" else _TOML_TOKENS).finditer(text):
        group = token.lastgroup
        if group == "skip":
            continue
        if group == "dot":
            dots += 1
            if dots >= depth:
                return False
            continue
        dots = 0
        if group == "open":
            level += 1
            if level > depth:
                return False
        elif group == "close":
            level = max(level - 1, 0)
        elif group == "stop":
            return True
    return True


def _depth(value: object, most: int) -> int:
    """The nesting depth of a parsed value (a scalar 0, a table of scalars 1), counted up to
    `most` + 1, level by level, without recursion."""
    level, current = 0, [value] if isinstance(value, (dict, list)) else []
    while current and level <= most:
        level += 1
        current = [
            child
            for item in current
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, (dict, list))
        ]
    return level


def _position(message: str) -> str:
    """Only the position of a tomllib message ('at line 2, column 3'): its reasons can quote
    the document's keys."""
    found = re.search(r"\(at ([^)]*)\)\s*$", message)
    return f"at {found.group(1)}" if found else "see the file"


def _kind_of(value: object) -> str:
    kinds = (
        (bool, "true or false"),
        (int, "a number"),
        (float, "a number"),
        (str, "text"),
        (list, "an array (a list)"),
        (dict, "a table"),
    )
    return next((name for kind, name in kinds if isinstance(value, kind)), "a value")
