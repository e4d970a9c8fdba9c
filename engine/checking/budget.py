"""Deterministic work budgets for checks and tables of claims.

A disagreeing claim is confirmed by re-evaluating the expression with one slip undone at a
time, and a name of the expression may make napkinmath solve for a variable: without a
bound, one long expression costs seconds and a table of them hours. Work is counted, not
timed, so that the same input always stops at the same place:

- one **work unit** is one node of an expression tree evaluated once (about 30 µs);
- each check costs `CHECK_COST` units for its fixed work (parsing, notes) plus its
  evaluations, and `DISAGREE_COST` more when the claim disagrees (the search for known
  confusions); each given value (name=value) costs 1 unit per character of its text;
- each solve napkinmath runs for a name costs `SOLVE_COST` units, or `FAILED_SOLVE_COST`
  when it fails (an under-determined solve searches for the inputs that would determine it);
  within a table, a solve for the same name and givens is answered once;
- confirming candidates may spend `MAX_CONFIRM_NODES` units per check, after which the
  result says that confirmation stopped early;
- a table may spend `MAX_TABLE_WORK` units in all; the claims after that are reported as
  not checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from napkinmath.errors import NapkinError

#: Re-evaluation work one check may spend confirming candidate confusions (evaluated nodes).
MAX_CONFIRM_NODES = 8_000
#: Work a whole table of claims may spend, in work units (about one evaluated node each).
MAX_TABLE_WORK = 1_000_000
#: Fixed work of one check (parsing, notes), and more for a disagreement (the search for
#: known confusions, corrections).
CHECK_COST = 40
DISAGREE_COST = 100
#: A solve napkinmath runs for a name; a failed one (it searches for missing inputs) costs more.
SOLVE_COST = 400
FAILED_SOLVE_COST = 4_000
#: The reason given for the claims of a table left unchecked when its budget is spent.
TABLE_BUDGET_SPENT = "not checked: the table's work budget is spent"


class BudgetSpentError(NapkinError):
    """The table's work budget was spent before this claim could be checked."""


@dataclass
class Meter:
    """Work spent so far against an optional limit, and answers worth reusing."""

    limit: int | None = None
    spent: int = 0
    solves: dict = field(default_factory=dict)

    def charge(self, units: int) -> None:
        self.spent += max(0, int(units))

    @property
    def left(self) -> float:
        """Units left; infinite without a limit."""
        return float("inf") if self.limit is None else max(0, self.limit - self.spent)

    @property
    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit

    def require(self, what: str) -> None:
        """Refuse to start `what` when the budget is already spent."""
        if self.exhausted:
            raise BudgetSpentError(
                f"{TABLE_BUDGET_SPENT} ({self.limit:,} work units) before {what}"
            )


_CURRENT: ContextVar[Meter | None] = ContextVar("napkinmath_check_meter", default=None)


def current() -> Meter | None:
    """The table's meter while a table is being checked, else None."""
    return _CURRENT.get()


@contextmanager
def metered(meter: Meter) -> Iterator[Meter]:
    """Charge the checks run inside this block to `meter`."""
    token = _CURRENT.set(meter)
    try:
        yield meter
    finally:
        _CURRENT.reset(token)
