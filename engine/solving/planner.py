"""A question's plan, or the refusal that says what to add.

`make_plan` asks, in turn: the structural plan through the formula graph
(`napkinmath.solving.plan`); where structure leaves a target under-determined, the inputs
that would determine it (`napkinmath.solving.suggest`), for the refusal; and, where the
caller asks for it, a plan through unknowns that cancel, tried with those inputs
(`napkinmath.solving.cancel`). Those three import one another one way (suggest and cancel
read the structural planner; this module reads all three).

Its answer, a plan or a refusal, is kept (`planned`): a question asked again, or asked by
another route with the same knowns, is planned once, and a refusal is never searched again.
"""

from __future__ import annotations

from dataclasses import dataclass

from napkinmath import caches
from napkinmath.deadline import OutOfTimeError
from napkinmath.errors import NotInvertibleError, UnderDeterminedError
from napkinmath.solving.cancel import cancelled_plan
from napkinmath.solving.plan import SolvePlan, structural_plan, under_determined_message
from napkinmath.solving.suggest import suggestions_for


@dataclass(frozen=True)
class Refusal:
    """What an UnderDeterminedError says (`make_plan` raises a fresh one each time)."""

    message: str
    targets: tuple[str, ...]
    suggestions: tuple[str, ...]
    missing: tuple[str, ...]
    #: why a forward-only step blocks the targets ("" if none); not "": NotInvertibleError
    explanation: str

    def error(self) -> UnderDeterminedError:
        kind = NotInvertibleError if self.explanation else UnderDeterminedError
        error = kind(self.message, list(self.targets), list(self.suggestions))
        error.missing, error.explanation = list(self.missing), self.explanation
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
    found = planned(targets, knowns, suggest, cancel)
    if isinstance(found, Refusal):
        raise found.error()
    return found


@caches.memo(1024, invalidated_by=caches.LIBRARY)
def planned(
    targets: tuple[str, ...], knowns: frozenset[str], suggest: bool, cancel: bool
) -> SolvePlan | Refusal:
    """`make_plan`'s plan or refusal. A refusal made when the search for unknowns that
    cancel was cut off is raised, not kept: asked again, the search may finish."""
    found = structural_plan(targets, knowns)
    if isinstance(found, SolvePlan):
        return found
    missing = found
    if not (suggest or cancel):
        message = under_determined_message(list(missing), sorted(knowns), [])
        return Refusal(message, targets, (), missing, "")
    suggestions, blocked = suggestions_for(missing, knowns)
    cut_off: OutOfTimeError | None = None
    if cancel:
        try:
            cancelled = cancelled_plan(targets, knowns, suggestions)
        except OutOfTimeError as stopped:
            cut_off = stopped
        else:
            if cancelled is not None:  # determined after all: the unknowns in the way cancel
                return cancelled
    if not suggest:
        suggestions, blocked = (), ""
    refusal = Refusal(
        under_determined_message(list(missing), sorted(knowns), list(suggestions), blocked),
        targets,
        suggestions,
        missing,
        blocked,
    )
    if cut_off is not None:
        error = refusal.error()
        if not suggest:
            raise error
        error.args = (
            f"{error.args[0]}. (The search for variables that cancel, which might have "
            f"determined it, was cut off: {cut_off}; give one of the inputs named instead.)",
        )
        raise error
    return refusal
