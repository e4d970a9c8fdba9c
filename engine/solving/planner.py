"""A question's plan, or the refusal that says what to add.

`make_plan` asks, in turn: the structural plan through the formula graph
(`napkinmath.solving.plan`); where structure leaves a target under-determined and the caller
asks for it, a plan through unknowns that cancel (`napkinmath.solving.cancel`); else the
inputs that would determine it, for the refusal (`napkinmath.solving.suggest`). Those three
import one another one way (suggest and cancel read the structural planner; this module reads
all three).
"""

from __future__ import annotations

from napkinmath.deadline import OutOfTimeError
from napkinmath.errors import UnderDeterminedError
from napkinmath.solving.cancel import cancelled_plan
from napkinmath.solving.plan import SolvePlan, structural_plan, under_determined_message
from napkinmath.solving.suggest import under_determined_error


def make_plan(
    targets: tuple[str, ...], knowns: frozenset[str], suggest: bool = True, cancel: bool = False
) -> SolvePlan:
    """Plan how to compute `targets` from `knowns`, or raise UnderDeterminedError.

    With `cancel`, targets that structure alone leaves under-determined may still be
    planned through unknowns that cancel (mfu and peak_flops, given achieved_flops):
    `napkinmath.solving.cancel` tries the inputs a refusal would suggest (`SolvePlan.free` names
    the one that cancelled); the solver asks for it for the answer's own plan. Without
    `suggest` the error names no inputs to add and is never a NotInvertibleError: for
    callers that try something else on failure (the search for suggestions, which `cancel`
    makes too, is the costly part of a failure)."""
    found = structural_plan(targets, knowns)
    if isinstance(found, SolvePlan):
        return found
    cut_off: OutOfTimeError | None = None
    if cancel:
        try:
            cancelled = cancelled_plan(targets, knowns)
        except OutOfTimeError as stopped:
            cut_off = stopped
        else:
            if cancelled is not None:  # determined after all: the unknowns in the way cancel
                return cancelled
    missing = list(found)
    if not suggest:
        error = UnderDeterminedError(
            under_determined_message(missing, sorted(knowns), []), list(targets), []
        )
        error.missing, error.explanation = missing, ""
        raise error
    error = under_determined_error(targets, missing, knowns)
    if cut_off is not None:
        error.args = (
            f"{error.args[0]}. (The search for variables that cancel, which might have "
            f"determined it, was cut off: {cut_off}; give one of the inputs named instead.)",
        )
    raise error
