"""Declaring variables and formulas: the vocabulary of `napkinmath.formulas`.

A variable is a sympy Symbol with a unit, a description, bounds and a display symbol; it is
declared once, by name, and shared by every formula that mentions it. A formula is a sympy
equation over variables, with a name, a title and a source::

    params = var("params", "param", "model parameters", symbol="N")
    formula("training_compute", "Training compute, 6ND rule",
            Eq(train_compute, flop_per_param_token * params * tokens), source=KAPLAN_2020)

Import `Eq`, `ceiling` and `floor` from this module, not from sympy: they do not evaluate,
which keeps importing the library fast.

Formulas that round (whole nodes, powers of two) are declared `forward_only`: their left side
is computed from the right, never the other way round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import pint
import sympy

from napkinmath.units import Quantity, Unit, ureg


@dataclass(frozen=True)
class Bounds:
    """Admissible values of a variable in its unit: lo < x (or lo <= x), x <= hi."""

    lo: float = 0.0
    hi: float = math.inf
    lo_inclusive: bool = False
    hi_inclusive: bool = True

    def contains(self, x: float) -> bool:
        above = x >= self.lo if self.lo_inclusive else x > self.lo
        below = x <= self.hi if self.hi_inclusive else x < self.hi
        return above and below

    def __str__(self) -> str:
        left = "[" if self.lo_inclusive else "("
        right = "]" if self.hi_inclusive and math.isfinite(self.hi) else ")"
        hi = "∞" if math.isinf(self.hi) else f"{self.hi:g}"
        lo = "-∞" if math.isinf(self.lo) else f"{self.lo:g}"
        return f"{left}{lo}, {hi}{right}"


POSITIVE = Bounds()
NON_NEGATIVE = Bounds(lo_inclusive=True)
FRACTION = Bounds(0.0, 1.0)


@dataclass(frozen=True)
class Default:
    """A stated assumption used when the user gives no value: shown as such in every answer."""

    value: pint.Quantity
    note: str


@dataclass(eq=False)
class Variable:
    """A named quantity of the library. `symbol` is the sympy Symbol used in formulas."""

    name: str
    unit: pint.Unit
    description: str
    symbol: sympy.Symbol
    latex: str
    bounds: Bounds = POSITIVE
    default: Default | None = None
    display_unit: str | None = None
    #: name of a forward-only formula output to show next to this variable as a practical
    #: rounding, e.g. n_gpus -> n_nodes ("64 GPU as 8 whole nodes of 8").
    rounding: tuple[str, ...] = ()

    @cached_property
    def base_factor(self) -> float:
        """Multiply a magnitude in `unit` by this to get it in base units."""
        return _base_factor(self.unit)

    @cached_property
    def dimensionality(self) -> pint.util.UnitsContainer:
        return self.unit.dimensionality

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.unit!s})"


_BASE_FACTORS: dict[pint.Unit, float] = {}


def _base_factor(unit: pint.Unit) -> float:
    factor = _BASE_FACTORS.get(unit)
    if factor is None:
        factor = float(Quantity(1.0, unit).to_base_units().magnitude)
        _BASE_FACTORS[unit] = factor
    return factor


@dataclass(eq=False)
class Formula:
    """An equation over library variables, with its provenance."""

    name: str
    title: str
    equation: sympy.Eq
    source: str
    subject: str
    note: str = ""
    forward_only: bool = False
    #: a consequence of other formulas, declared so that questions they cannot reach
    #: structurally (MFU from GPU-hours without a GPU count) still plan; never run as a check.
    derived: bool = False
    #: the formulas it follows from; a plan may not use it together with all of them
    derived_from: tuple[str, ...] = ()
    variables: tuple[Variable, ...] = field(default=())
    #: a stated assumption rather than a law (dense: total = active parameters): used only
    #: where the other formulas cannot answer, never as a check, and labelled in the answer
    assumption: bool = False

    @property
    def output(self) -> Variable | None:
        """The computed side of a forward-only formula."""
        if not self.forward_only:
            return None
        return VARIABLES_BY_SYMBOL[self.equation.lhs]

    @property
    def residual(self) -> sympy.Expr:
        return self.equation.lhs - self.equation.rhs

    def __repr__(self) -> str:
        return f"Formula({self.name!r})"


VARIABLES: dict[str, Variable] = {}
VARIABLES_BY_SYMBOL: dict[sympy.Symbol, Variable] = {}
FORMULAS: dict[str, Formula] = {}


def var(name: str, unit: str, description: str, *, symbol: str | None = None,
        bounds: Bounds = POSITIVE, default: str | float | None = None, default_note: str = "",
        display_unit: str | None = None, rounding: tuple[str, ...] = ()) -> sympy.Symbol:
    """Declare a library variable and return its sympy Symbol.

    `unit` is a unit expression of the registry ("FLOP/(s*GPU)", "" for a plain number);
    `symbol` is the LaTeX symbol shown in typeset derivations; `default` (with `default_note`
    saying why) is an assumption used only when a question needs it and the user gave none.
    """
    if name in VARIABLES:
        raise ValueError(f"variable {name!r} is declared twice")
    if not name.isidentifier() or name != name.lower():
        raise ValueError(f"variable name {name!r} must be a snake_case identifier")
    parsed_unit = Unit(unit) if unit else ureg.dimensionless
    sym = sympy.Symbol(name, positive=bounds.lo >= 0, real=True)
    default_value = None
    if default is not None:
        if not default_note:
            raise ValueError(f"default of {name!r} needs a note saying where it comes from")
        quantity = Quantity(default) if isinstance(default, str) else Quantity(default, parsed_unit)
        default_value = Default(quantity.to(parsed_unit), default_note)
    variable = Variable(name, parsed_unit, description, sym, symbol or _latex_name(name),
                        bounds, default_value, display_unit, rounding)
    VARIABLES[name] = variable
    VARIABLES_BY_SYMBOL[sym] = variable
    return sym


def _latex_name(name: str) -> str:
    head, _, tail = name.partition("_")
    escaped_tail = tail.replace("_", "\\_")
    return f"\\mathrm{{{head}}}_{{\\mathrm{{{escaped_tail}}}}}" if tail else f"\\mathrm{{{head}}}"


def formula(name: str, title: str, equation: sympy.Eq, *, source: str, subject: str,
            note: str = "", forward_only: bool = False, derived: bool = False,
            derived_from: tuple[str, ...] = (), assumption: bool = False) -> Formula:
    """Declare a formula of the library.

    `equation` is a sympy `Eq` over declared variables; `source` cites where it comes from;
    `subject` groups it for listing (training, memory, ...). A `forward_only` formula computes
    its left-hand variable from the right-hand side and is never inverted. A `derived` formula
    follows from others (a shortcut; name them in `derived_from`); it solves only where the
    independent formulas cannot, and is never reported as a check. An `assumption` (with a
    `note` saying when it fails) plans like a derived formula and is labelled as an assumption
    in every answer that uses it.
    """
    if assumption and not note:
        raise ValueError(f"assumption {name!r} needs a note saying when it does not hold")
    if name in FORMULAS:
        raise ValueError(f"formula {name!r} is declared twice")
    symbols = sorted(equation.free_symbols, key=lambda s: s.name)
    unknown = [s.name for s in symbols if s not in VARIABLES_BY_SYMBOL]
    if unknown:
        raise ValueError(f"formula {name!r} uses undeclared variables: {', '.join(unknown)}")
    if forward_only and equation.lhs not in VARIABLES_BY_SYMBOL:
        raise ValueError(f"forward-only formula {name!r} must have one variable on the left")
    variables = tuple(VARIABLES_BY_SYMBOL[s] for s in symbols)
    declared = Formula(name, title, equation, source, subject, note, forward_only,
                       derived or assumption or bool(derived_from), tuple(derived_from),
                       variables, assumption)
    FORMULAS[name] = declared
    return declared


@dataclass(eq=False)
class Constraint:
    """A feasibility condition lhs ≤ rhs (or <) that an answer must meet to be a plan that fits:
    memory within HBM, a queue below saturation. Evaluated in every answer that touches it."""

    name: str
    title: str
    lhs: sympy.Expr
    rhs: sympy.Expr
    strict: bool
    source: str
    subject: str
    #: what a violation means and how to fix it
    message: str
    variables: tuple[Variable, ...] = field(default=())
    #: a unit the right side is multiplied by: per="GPU" compares bytes on one GPU with
    #: hbm_capacity in bytes per GPU
    per: str = ""
    #: the variables that make an answer about this constraint: it is evaluated when the
    #: answer computes, gives or asks for one of them
    touch: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Constraint({self.name!r})"


CONSTRAINTS: dict[str, Constraint] = {}


def constraint(name: str, title: str, lhs: sympy.Expr, rhs: sympy.Expr, *, source: str,
               subject: str, message: str, strict: bool = False, per: str = "",
               touch: tuple[sympy.Symbol, ...] = ()) -> Constraint:
    """Declare a feasibility constraint ``lhs <= rhs`` (``<`` when `strict`).

    `message` says what a violation means and what to change; `source` cites why it holds;
    `per` is a unit the right side is taken for (``per="GPU"``: one accelerator's worth);
    `touch` lists the variables whose presence in an answer makes the constraint relevant
    (default: those of the left side).
    """
    if name in CONSTRAINTS:
        raise ValueError(f"constraint {name!r} is declared twice")
    symbols = sorted((sympy.sympify(lhs) - sympy.sympify(rhs)).free_symbols, key=lambda s: s.name)
    unknown = [s.name for s in symbols if s not in VARIABLES_BY_SYMBOL]
    if unknown:
        raise ValueError(f"constraint {name!r} uses undeclared variables: {', '.join(unknown)}")
    touched = tuple(s.name for s in (touch or sorted(sympy.sympify(lhs).free_symbols,
                                                    key=lambda s: s.name)))
    declared = Constraint(name, title, sympy.sympify(lhs), sympy.sympify(rhs), strict, source,
                          subject, message, tuple(VARIABLES_BY_SYMBOL[s] for s in symbols), per,
                          touched)
    CONSTRAINTS[name] = declared
    return declared


def Eq(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Eq:  # noqa: N802 - mirrors sympy.Eq
    """sympy.Eq without evaluation: formulas are declarations, never decided at import time.

    (sympy's evaluating Eq and ceiling consult the assumptions system, ~50 ms per formula.)
    """
    return sympy.Eq(lhs, rhs, evaluate=False)


def ceiling(arg: sympy.Expr) -> sympy.Expr:
    """Round up, unevaluated at declaration time (see `Eq`)."""
    return sympy.ceiling(arg, evaluate=False)


def floor(arg: sympy.Expr) -> sympy.Expr:
    """Round down, unevaluated at declaration time (see `Eq`)."""
    return sympy.floor(arg, evaluate=False)


class pow2_ceil(sympy.Function):  # noqa: N801 - sympy functions are lower-case by convention
    """Round up to the next power of two, keeping the unit: pow2_ceil(6193 GPU) = 8192 GPU."""

    nargs = 1

    @classmethod
    def eval(cls, arg: sympy.Expr) -> sympy.Expr | None:
        if arg.is_Number and arg > 0:
            return sympy.Integer(2) ** sympy.ceiling(sympy.log(arg, 2))
        return None


#: Functions that round a quantity in its own unit; they keep its dimension.
ROUNDING_FUNCTIONS = (sympy.ceiling, sympy.floor, pow2_ceil)
NUMERIC_FUNCTIONS = {"pow2_ceil": lambda x: 2.0 ** math.ceil(math.log2(x) - 1e-12)}
