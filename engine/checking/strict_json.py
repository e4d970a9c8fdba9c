"""JSON for a CI gate: a key given twice in one object is an error, not the last value.

`json.loads` keeps the last of two equal keys, so a row `{"claimed": "5 GB", "claimed":
"1 GB"}` would pass on its second value and a second `"claims"` array would drop the
first one's rows. `loads` finds such keys with `object_pairs_hook` (json's own decoding of
each key), then names the line of each from one pass over the text, which also gives the
line where each claim starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from napkinmath.errors import InputError
from napkinmath.text.escape import clip, visible

#: The tokens that shape a JSON document: strings (a key when a ':' follows), brackets and
#: line breaks. Numbers and literals carry no structure and are skipped.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"(\s*:)?|[{}\[\]\n]')
#: The names of the list of claims in a document ({"claims": [...]}).
CLAIMS_KEYS = ("claims", "claim")


@dataclass
class _Frame:
    """An open object or array while the text is walked."""

    array: bool
    keys: dict[str, int] = field(default_factory=dict)  # an object's keys, and their lines
    last_key: str | None = None  # the key whose value is being read
    claims: bool = False  # an array of claims
    claim: int | None = None  # the claim (1-based) this object is, or is inside


@dataclass
class Layout:
    """Where things are in a JSON claims document."""

    claim_lines: list[int] = field(default_factory=list)  # the line where each claim starts
    duplicate: tuple[str, int, int, int | None] | None = None  # key, line, first line, claim


def layout(text: str) -> Layout:
    """The line of each claim, and the first key given twice in one object, of valid JSON."""
    found = Layout()
    stack: list[_Frame] = []
    line = 1
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "{[":
            parent = stack[-1] if stack else None
            frame = _Frame(array=token == "[", claim=parent.claim if parent is not None else None)
            if frame.array:
                frame.claims = parent is None or (
                    len(stack) == 1 and not parent.array and parent.last_key in CLAIMS_KEYS
                )
            elif parent is not None and parent.claims:
                found.claim_lines.append(line)
                frame.claim = len(found.claim_lines)
            stack.append(frame)
        elif token in "}]":
            if stack:
                stack.pop()
        elif match.group(1) is not None and stack and not stack[-1].array:
            frame = stack[-1]
            text_of_key = token[: token.rindex('"') + 1]
            key = json.loads(text_of_key) if "\\" in text_of_key else text_of_key[1:-1]
            if key in frame.keys and found.duplicate is None:
                found.duplicate = (key, line, frame.keys[key], frame.claim)
            frame.keys.setdefault(key, line)
            frame.last_key = key
    return found


def loads(text: str, where: str, parse_int: Callable[[str], object]) -> tuple[object, Layout]:
    """A JSON document and its layout; a key given twice in one object, NaN or Infinity is
    an InputError naming the line."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        obj = dict(items)
        if len(obj) != len(items) and not twice:
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    twice.append(key)
                    break
                seen.add(key)
        return obj

    def constant(name: str) -> object:
        raise InputError(
            f"{where}: not valid JSON: {name} is not a JSON number; write the "
            'value as text, like "1 GB"'
        )

    try:
        document = json.loads(
            text, parse_int=parse_int, parse_constant=constant, object_pairs_hook=pairs
        )
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{where}: not valid JSON: {exc}") from None
    except InputError:
        raise
    except ValueError:
        raise InputError(f"{where}: not valid JSON") from None
    found = layout(text)
    if twice:
        key, line, first, claim = found.duplicate or (twice[0], None, None, None)
        name = repr(visible(clip(key, 40)))
        at = (f"line {line}" + (f" (claim {claim})" if claim else "")) if line else "a row"
        also = f", first at line {first}" if first and first != line else ""
        lost = (
            "a second list of claims would replace the first and drop its rows"
            if key in CLAIMS_KEYS and not claim
            else "which one counts would be a guess"
        )
        raise InputError(
            f"{where}: {at}: the key {name} is given twice in one object{also}: "
            f"{lost}; give it once"
        )
    return document, found
