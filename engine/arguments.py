"""Checking a public function's arguments at its edge: a wrong type or value is one
InputError that names the argument, says what was expected and gives an example, instead
of whatever it would raise deep inside (a TypeError of `in`, a KeyError, an AttributeError).

    name(value, "name", kind="variable", example="mfu", listing="napkin vars")
    whole(digits, "digits", low=1, high=15)     flag(math_only, "math_only")
    path(path, "path")                          indent(indent)
    key(label, "label", comparison.results, kind="row")

Each returns the value checked (a name as a plain str, a path as a Path). `shown` quotes any
value in a message safely: short, one line, nested containers and huge integers cut.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Collection
from pathlib import Path

from napkinmath.errors import InputError, UnknownKeyError
from napkinmath.text.escape import SHOWN_WIDTH as SHOWN_WIDTH
from napkinmath.text.escape import shown as shown

#: The longest name looked up: longer text is no name (and is not fuzzy-matched).
MAX_NAME = 200


def name(value: object, argument: str, *, kind: str, example: str, listing: str = "") -> str:
    """`value` as a name to look up: a str of at most MAX_NAME characters."""
    if not isinstance(value, str):
        also = f"; list them with `{listing}`" if listing else ""
        raise InputError(
            f"{argument}={shown(value)}: expected a {kind} name (a string) such "
            f"as {example!r}{also}",
            argument,
        )
    return str(value)


def key(value: object, argument: str, known: Collection[str], *, kind: str) -> str:
    """`value`, one of the names `known` (a table's columns, a comparison's rows), else an
    UnknownKeyError (also a KeyError) that lists them."""
    if isinstance(value, str) and value in known:
        return str(value)
    names = ", ".join(map(str, known)) or "(none)"
    raise UnknownKeyError(
        f"{argument}={shown(value)}: no {kind} of that name; the {kind}s here are: {names}",
        argument,
    )


def is_long(value: str) -> bool:
    """Whether a name is too long to be one (quote it cut, do not fuzzy-match it)."""
    return len(value) > MAX_NAME


def whole(
    value: object,
    argument: str,
    *,
    low: int | None = None,
    high: int | None = None,
    what: str = "a whole number",
) -> int:
    """`value` as an int (numpy integers too; not a bool, not a float) within low..high."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    number = int(value) if ok else 0  # type: ignore[call-overload]
    if not ok or (low is not None and number < low) or (high is not None and number > high):
        span = (
            f" from {low} to {high}"
            if low is not None and high is not None
            else f", {low} or more"
            if low is not None
            else f", at most {high}"
            if high is not None
            else ""
        )
        raise InputError(f"{argument}={shown(value)}: expected {what}{span}", argument)
    return number


def real(value: object, argument: str, *, what: str, example: str, positive: bool = False) -> float:
    """`value` as a finite float (not a bool), above 0 when `positive`."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    number = float(value) if ok else math.nan  # type: ignore[arg-type]
    if not math.isfinite(number) or (positive and number <= 0):
        raise InputError(f"{argument}={shown(value)}: expected {what} such as {example}", argument)
    return number


def flag(value: object, argument: str) -> bool:
    """`value` as a bool: True or False (numpy's too), nothing else."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise InputError(f"{argument}={shown(value)}: expected True or False", argument)


def choice(value: object, argument: str, choices: Collection[str]) -> str:
    """`value`, one of the strings `choices`."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(
            f"{argument}={shown(value)}: choose one of {', '.join(map(repr, choices))}", argument
        )
    return str(value)


def path(value: object, argument: str, *, what: str = "a file name such as 'out.csv'") -> Path:
    """`value` as a Path: a str or os.PathLike naming a file (not empty, no NUL byte, in
    characters the file system can store)."""
    text = os.fspath(value) if isinstance(value, os.PathLike) else value
    problem = ""
    if not isinstance(text, str):
        problem = "expected " + what
    elif not text:
        problem = "an empty path names no file; give " + what
    elif "\x00" in text:
        problem = "a path cannot hold a NUL byte (\\x00)"
    else:
        try:
            os.fsencode(text)
        except UnicodeError:
            problem = "the path has characters the file system cannot store"
    if problem:
        raise InputError(f"{argument}={shown(value)}: {problem}", argument)
    return Path(text)  # type: ignore[arg-type]


def indent(value: object) -> int | str | None:
    """A JSON `indent`: None (one line), a whole number of spaces 0..16, or whitespace."""
    if value is None:
        return None
    if isinstance(value, str) and len(value) <= 16 and not value.strip():
        return value
    return whole(value, "indent", low=0, high=16, what="None or a number of spaces")
