"""The parts of an answer as data: the givens and where each came from, the solved steps, the
checks of over-determined givens and the feasibility constraints, evaluated.

Values are exact (base-unit floats, pint Quantities); how they read is the printers' business
(`napkinmath.rendering.result`), reached through `printers()` for the one-line texts the
records give (`describe`, `line`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from napkinmath.answer.printers import printers
from napkinmath.library.declare import Constraint, Formula, Variable
from napkinmath.units import humanize, new_quantity

if TYPE_CHECKING:
    import pint
    import sympy

    from napkinmath.library.tree import Tree


class Root(Protocol):
    """A step's rearranged expression of one unknown (`napkinmath.solving.invert.Compiled`):
    its tree, its print layout and its sympy form (both made on first use)."""

    tree: Tree | None
    #: the variables it reads (none: a number, as for a step solved numerically)
    args: tuple[str, ...]

    @property
    def layout(self) -> tuple: ...

    @property
    def expr(self) -> sympy.Expr: ...


class Cancelled(Protocol):
    """What cancels in a step of formulas combined (`napkinmath.solving.cancel.Cancel`)."""

    @property
    def names(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Given:
    """A value the solve started from, and where it came from."""

    variable: Variable
    quantity: pint.Quantity
    origin: str  # "given" (the user), "record" (gpu=/model=), "assumption" (a stated default)
    note: str
    #: how a user's value was read when not as written ("989 TFLOP/s, read as per GPU")
    reading: str = ""
    #: the id of the record the value was read from ("H100-SXM"; a record's assumption too,
    #: and a user's `peak_flops="peak_flops_fp8"`); None for a value the user wrote and for
    #: the library's stated defaults
    record: str | None = None

    @cached_property
    def base(self) -> float:
        """The value as a float in base units (computed once per Given)."""
        quantity, unit = self.quantity, self.variable.unit
        # already in the variable's unit: pint's conversion would return the magnitude as is
        same = quantity._units == unit._units
        magnitude = quantity.magnitude if same else quantity.m_as(unit)
        return float(magnitude) * self.variable.base_factor


@dataclass
class StepRecord:
    """One solved block: formulas, unknowns, the rearranged expressions, the numbers used."""

    formulas: tuple[Formula, ...]
    unknowns: tuple[Variable, ...]
    #: each unknown's rearranged expression, compiled (`.tree`, `.layout`, `.expr` in sympy)
    roots: dict[str, Root]
    values: dict[str, float]  # base-unit values of every variable of the formulas
    rounding: bool = False
    note: str = ""  # e.g. other roots the bounds also admit, or what cancels
    #: for formulas combined, variables of theirs cancelling (`napkinmath.solving.cancel`)
    cancel: Cancelled | None = None

    @property
    def solved(self) -> dict[str, sympy.Expr]:
        """Each unknown's rearranged expression in sympy (imports sympy)."""
        return {name: root.expr for name, root in self.roots.items()}


@dataclass
class CheckRecord:
    """An over-determined formula evaluated on both sides."""

    formula: Formula
    lhs: float
    rhs: float
    relative_difference: float
    lhs_variable: Variable | None
    values: dict[str, float] = field(default_factory=dict)
    #: a check of givens this answer did not need (found by planning the whole graph)
    beyond: bool = False

    @property
    def agrees(self) -> bool:
        return self.relative_difference <= self.tolerance

    tolerance: float = 0.01

    def describe(self) -> str:
        """'n_gpus = 58.48 GPU; total_flops / (...) = 58.5 GPU' (the two sides)."""
        return printers().describe_check(self)


@dataclass
class ConstraintRecord:
    """A feasibility constraint evaluated on an answer's values (base units)."""

    constraint: Constraint
    lhs: float
    rhs: float
    holds: bool

    @property
    def share(self) -> float:
        """The left side as a fraction of the limit (0.71: 71% of it used)."""
        return self.lhs / self.rhs if self.rhs else math.inf

    def describe(self) -> str:
        """'226.9 GB ≤ 320 GB (71% of the limit)' or '1,024 sequence > 186.3 sequence (5.5×)'."""
        return printers().describe_constraint(self)

    def line(self) -> str:
        """'✓ title: ...' or '✗ VIOLATED: title: .... Message.'"""
        return printers().constraint_line(self)


@dataclass(frozen=True)
class LayerRow:
    """One operator of a layer, per micro-batch on one GPU: FLOPs (FLOP), HBM bytes (B), the
    roof it runs on ("matmul", "memory" or "link") and its time (s)."""

    name: str
    roof: str
    flops: float
    bytes: float
    seconds: float


@dataclass(frozen=True)
class LayerTable:
    """The step's operators for one layer and micro-batch on one GPU (forward, backward and
    recompute), and how many of those the step's critical path runs: layers × micro-batches."""

    rows: tuple[LayerRow, ...]
    layers: float  # layers one GPU holds (n_layers / pp)
    microbatches: float  # micro-batches per step

    @property
    def seconds(self) -> float:
        """One layer and micro-batch: the operators in series."""
        return sum(row.seconds for row in self.rows)


def from_base(base_value: float, var: Variable) -> pint.Quantity:
    """A base-unit float of `var` as a Quantity in the variable's own unit."""
    return new_quantity(base_value / var.base_factor, var.unit)


def display(base_value: float, var: Variable) -> pint.Quantity:
    """A base-unit float of `var` as a Quantity in the unit a person would choose."""
    return humanize(from_base(base_value, var), var.display_unit)


def sentence(text: str) -> str:
    """A message as a sentence: its first letter capital, a full stop at the end."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
