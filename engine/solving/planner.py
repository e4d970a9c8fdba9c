"""A question's plan, or the refusal that says what to add.

`make_plan` asks, in turn: the structural plan through the formula graph
(`napkinmath.solving.plan`); where structure leaves a target under-determined, the inputs
that would determine it (`napkinmath.solving.suggest`), for the refusal; and, where the
caller asks for it, a plan through unknowns that cancel, tried with those inputs
(`napkinmath.solving.cancel`). Those three import one another one way (suggest and cancel
read the structural planner; this module reads all three).

The answer for a set of knowns is kept (`planned`): a plan, or a `Refusal` that searches for
its suggestions and for unknowns that cancel the first time they are asked for and keeps
what it found, so a question asked again, or by another route, is never searched again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from napkinmath import caches
from napkinmath.errors import NotInvertibleError, UnderDeterminedError
from napkinmath.solving.cancel import cancelled_plan
from napkinmath.solving.plan import SolvePlan, structural_plan, under_determined_message
from napkinmath.solving.suggest import suggestions_for

T = TypeVar("T")


class Refusal:
    """Targets that `knowns` leave under-determined by structure, and what to say about it.

    What it searches is kept with it, unless a bound on symbolic work ran out meanwhile
    (`caches.fallbacks`): then a question with its whole allowance searches again."""

    def __init__(
        self, targets: tuple[str, ...], knowns: frozenset[str], missing: tuple[str, ...]
    ) -> None:
        self.targets, self.knowns, self.missing = targets, knowns, missing
        self._found: dict[str, object] = {}

    def _kept(self, name: str, search: Callable[[], T]) -> T:
        if name in self._found:
            return self._found[name]  # type: ignore[return-value]
        seen = caches.fallbacks()
        found = search()
        if caches.fallbacks() == seen:
            self._found[name] = found
        return found

    @property
    def suggestions(self) -> tuple[tuple[str, ...], str]:
        """The inputs that would determine the missing targets, and why a forward-only step
        blocks them ("" if none): `suggest.suggestions_for`."""
        return self._kept("suggestions", lambda: suggestions_for(self.missing, self.knowns))

    @property
    def cancelled(self) -> SolvePlan | None:
        """A plan through unknowns that cancel, or None (`cancel.cancelled_plan`); a search
        cut off raises OutOfTimeError and keeps nothing."""
        return self._kept(
            "cancelled",
            lambda: cancelled_plan(self.targets, self.knowns, self.suggestions[0]),
        )

    def error(self, suggest: bool) -> UnderDeterminedError:
        """A fresh error to raise; with `suggest`, naming the inputs to add (and a
        NotInvertibleError where a forward-only step blocks the targets)."""
        suggestions, blocked = self.suggestions if suggest else ((), "")
        missing = list(self.missing)
        message = under_determined_message(missing, sorted(self.knowns), list(suggestions), blocked)
        kind = NotInvertibleError if blocked else UnderDeterminedError
        error = kind(message, list(self.targets), list(suggestions))
        error.missing, error.explanation = missing, blocked
        return error


def make_plan(
    targets: tuple[str, ...], knowns: frozenset[str], suggest: bool = True, cancel: bool = False
) -> SolvePlan:
    """Plan how to compute `targets` from `knowns`, or raise UnderDeterminedError.

    With `cancel`, targets that structure alone leaves under-determined may still be
    planned through unknowns that cancel (mfu and peak_flops, given achieved_flops):
    `napkinmath.solving.cancel` tries the inputs a refusal would suggest (`SolvePlan.free`
    names the one that cancelled); the solver asks for it for the answer's own plan. Without
    `suggest` the error names no inputs to add and is never a NotInvertibleError: for
    callers that try something else on failure (the search for suggestions, which `cancel`
    makes too, is the costly part of a failure)."""
    from napkinmath.deadline import OutOfTimeError

    found = planned(targets, knowns)
    if isinstance(found, SolvePlan):
        return found
    if cancel:
        try:
            cancelled = found.cancelled
        except OutOfTimeError as cut_off:
            error = found.error(suggest)
            if suggest:
                error.args = (
                    f"{error.args[0]}. (The search for variables that cancel, which might "
                    f"have determined it, was cut off: {cut_off}; give one of the inputs "
                    "named instead.)",
                )
            raise error from None
        if cancelled is not None:  # determined after all: the unknowns in the way cancel
            return cancelled
    raise found.error(suggest)


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="a question's plan or refusal: a refusal is asked first without suggestions, then "
    "with them and through unknowns that cancel (a search of 20-50 ms); a repeated "
    "refusal does no search (tests/test_speed_questions.py) (2026-12-07, 2 cores)",
)
def planned(targets: tuple[str, ...], knowns: frozenset[str]) -> SolvePlan | Refusal:
    """`make_plan`'s plan, or its refusal (which keeps what it searches)."""
    found = structural_plan(targets, knowns)
    return found if isinstance(found, SolvePlan) else Refusal(targets, knowns, found)
