"""The package's error types. Every message is a sentence a person can act on."""

from __future__ import annotations

from napkinmath.text.visible import capped


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

    #: set by the planner on the errors it raises (`napkinmath.solving.plan.make_plan`): the
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
        #: every value the solve had bound (for `napkinmath.solving.reconcile`)
        self.bound: dict = {}


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
