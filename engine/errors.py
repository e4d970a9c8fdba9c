"""The package's error types. Every message is a sentence a person can act on."""

from __future__ import annotations

import re

#: How much of a user's name or value an error message quotes.
QUOTE_WIDTH = 60
#: A run of more characters than this without a space in an error message is user text (no
#: name, unit, path or word of napkinmath's is as long, and an expression quoted under its
#: caret is at most 1,000, the grammar's limit): `capped` cuts it to QUOTE_WIDTH.
_LONG_RUN = 1_000
_RUN = re.compile(rf"\S{{{_LONG_RUN + 1},}}")
_TRAILING = re.compile(r"[^\w\s]{1,3}$")  # the punctuation after a quoted name: ': or ';
#: No message is longer: past it the middle is left out, keeping the start and the fix.
_LONGEST, _HEAD, _TAIL = 10_000, 6_000, 2_000


def _cut(run: str) -> str:
    tail = _TRAILING.search(run)
    end = tail.group() if tail else ""
    return f"{run[:QUOTE_WIDTH]}… ({len(run) - len(end):,} characters){end}"


def capped(message: str) -> str:
    """An error message with every run of over 1,000 characters without a space (a pasted
    name, a key path of a hostile file) cut to its first 60 and its length, and no longer
    than 10,000 characters in all, so that no error echoes a megabyte of the user's text."""
    if len(message) <= _LONG_RUN:
        return message
    message = _RUN.sub(lambda m: _cut(m.group()), message)
    if len(message) > _LONGEST:
        left_out = len(message) - _HEAD - _TAIL
        message = f"{message[:_HEAD]}… ({left_out:,} characters left out) …{message[-_TAIL:]}"
    return message


class NapkinError(Exception):
    """Base class of every error napkinmath raises on purpose. A message never quotes more
    than the first 60 characters of a long run of the user's text (`capped`)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(capped(a) if isinstance(a, str) else a for a in args))

    def _render_traceback_(self) -> list[str]:
        """What IPython and Jupyter show instead of a traceback: the message, which says
        what was wrong and the fix (the stack is napkinmath's, not the user's)."""
        return [f"{type(self).__name__}: {self}"]


class InputError(NapkinError, ValueError):
    """A given value is malformed, has the wrong dimension, or is out of bounds."""

    def __init__(self, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


class ParseError(InputError):
    """User text that the expression grammar does not accept."""

    def __init__(self, message: str, text: str = "", position: int | None = None) -> None:
        super().__init__(message)
        if position is not None and text:  # the text in full (bounded by the input limit),
            self.args = (f"{self.args[0]}\n  {text}\n  {' ' * position}^",)  # caret under it
        self.text = text
        self.position = position


class UnknownNameError(InputError):
    """A variable, formula or hardware name that napkinmath does not know."""


class UnknownKeyError(UnknownNameError, KeyError):
    """A name looked up where a mapping is (a table's column, a comparison's row): also a
    KeyError, as `table["x"]` is."""

    __str__ = Exception.__str__  # the message as written (KeyError would quote it)


class UnderDeterminedError(NapkinError):
    """The givens do not determine a target; `suggestions` lists inputs that would."""

    #: set by the planner on the errors it raises (`napkinmath.solving.planner.make_plan`): the
    #: targets it could not determine, and why a forward-only step blocks them ("" if none)
    missing: list[str]
    explanation: str

    def __init__(self, message: str, targets: list[str], suggestions: list[str]) -> None:
        super().__init__(message)
        self.targets = targets
        self.suggestions = suggestions


class NotInvertibleError(UnderDeterminedError):
    """A target sits on the input side of a forward-only step (rounding, margin)."""


class InconsistentError(NapkinError):
    """Over-determined givens that disagree beyond the tolerance."""

    def __init__(self, message: str, checks: list) -> None:
        super().__init__(message)
        self.checks = checks
        #: the givens behind each disagreeing check, by name
        self.groups: list[list[str]] = []
        #: every value the solve had bound, its targets and its tolerance (for
        #: `napkinmath.checking.reconcile`, which names the likely odd one out)
        self.bound: dict = {}
        self.targets: tuple[str, ...] = ()
        self.tolerance = 0.0


class NoRootError(NapkinError):
    """No solution of a step lies inside the variables' bounds."""

    def __init__(self, message: str, variable: str | None) -> None:
        super().__init__(message)
        self.variable = variable


class NumericError(NapkinError):
    """A step or a check produced a number beyond the float range (inf, NaN, or an underflow
    to zero), which would otherwise print as a plausible answer."""

    def __init__(self, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable
