"""Declaring variables and formulas: the vocabulary of `napkinmath.formulas`.

A variable is a sympy Symbol with a unit, a description, bounds and a display symbol; it is
declared once, by name, and shared by every formula that mentions it. A formula is a sympy
equation over variables, with a name, a title and a source::

    params = var("params", "param", "model parameters", symbol="N")
    formula("training_compute", "Training compute, 6ND rule",
            Eq(train_compute, flop_per_param_token * params * tokens), source=KAPLAN_2020)

Import `Eq`, `ceiling` and `floor` from this module, not from sympy: they do not evaluate,
which keeps importing the library fast. The classes here import neither sympy nor the formula
modules: a library read back from its snapshot (`napkinmath.catalog.snapshot`) builds them
from stored names, units and expression trees, and makes sympy objects only when asked.

Formulas that round (whole nodes, powers of two) are declared `forward_only`: their left side
is computed from the right, never the other way round.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from napkinmath import caches
from napkinmath.library.numeric import NUMERIC_FUNCTIONS  # noqa: F401 - re-exported

if TYPE_CHECKING:
    import pint
    import sympy

    from napkinmath.library.tree import Tree

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")

#: names this module serves from `napkinmath.library.functions` (which imports sympy)
_SYMPY_NAMES = ("Eq", "ceiling", "floor", "pow2_ceil", "normal_quantile", "ROUNDING_FUNCTIONS")


def __getattr__(name: str) -> Any:
    if name in _SYMPY_NAMES:
        from napkinmath.library import functions

        return getattr(functions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
class Typical:
    """The values published runs report for a variable (in its unit): `lo`..`hi` is usual,
    outside it unusual; beyond `hard_lo`..`hard_hi` implausible. `what` says whose values
    they are, with the sources."""

    lo: float
    hi: float
    hard_lo: float
    hard_hi: float
    what: str


@dataclass(frozen=True)
class Default:
    """A stated assumption used when the user gives no value: shown as such in every answer."""

    value: pint.Quantity
    note: str


class Variable:
    """A named quantity of the library. `symbol` is the sympy Symbol used in formulas.

    `unit` may be given as its text and `default` as (magnitude, note): both are then read
    with pint on first use; `symbol` None makes the Symbol (and imports sympy) on first use.
    """

    def __init__(
        self,
        name: str,
        unit: pint.Unit | str,
        description: str,
        symbol: sympy.Symbol | None = None,
        latex: str = "",
        bounds: Bounds = POSITIVE,
        default: Default | tuple | None = None,
        display_unit: str | None = None,
        rounding: tuple[str, ...] = (),
        whole: bool = False,
        typical: Typical | None = None,
        mistaken_for: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.description = description
        self.latex = latex
        self.bounds = bounds
        self.display_unit = display_unit
        #: name of a forward-only formula output to show next to this variable as a practical
        #: rounding, e.g. n_gpus -> n_nodes ("64 GPU as 8 whole nodes of 8").
        self.rounding = rounding
        #: a count of whole things (GPUs, layers, heads): a fractional value is implausible
        #: as a plan, and a column of whole values prints as integers
        self.whole = whole
        #: the range published runs report, where one is known (`Typical`)
        self.typical = typical
        #: library variables a user may give meaning this one (mfu for a prefill's
        #: compute_efficiency): given and unused where this variable's default was taken,
        #: they are refused with this variable named, never set aside
        self.mistaken_for = mistaken_for
        self.unit_text = unit if isinstance(unit, str) else None
        if not isinstance(unit, str):
            self.__dict__["unit"] = unit
        if symbol is not None:
            self.__dict__["symbol"] = symbol
        if isinstance(default, tuple):
            self._default_read = default
        else:
            self.__dict__["default"] = default

    @cached_property
    def unit(self) -> pint.Unit:
        from napkinmath.units import Unit, ureg

        return Unit(self.unit_text) if self.unit_text else ureg.dimensionless

    @cached_property
    def default(self) -> Default | None:
        from napkinmath.units import Quantity

        magnitude, note = self._default_read
        return Default(Quantity(magnitude, self.unit), note)

    @cached_property
    def symbol(self) -> sympy.Symbol:
        import sympy

        return sympy.Symbol(self.name, positive=self.bounds.lo >= 0, real=True)

    @cached_property
    def base_factor(self) -> float:
        """Multiply a magnitude in `unit` by this to get it in base units."""
        return _base_factor(self.unit)

    @cached_property
    def dimensionality(self) -> pint.util.UnitsContainer:
        return self.unit.dimensionality

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.unit!s})"


def _base_factor(unit: pint.Unit) -> float:
    from napkinmath.units import Quantity

    return float(Quantity(1.0, unit).to_base_units().magnitude)


def symbol_of(name: str) -> sympy.Symbol:
    return VARIABLES[name].symbol


class _Expressions:
    """Sympy expressions and their trees, each made from the other on first use."""

    @cached_property
    def trees(self) -> tuple[Tree, Tree]:
        """The two sides as trees (`napkinmath.library.tree`); NoTreeError for a side that has
        none."""
        from napkinmath.library.tree import from_sympy

        return tuple(from_sympy(side) for side in self._sympy_sides())  # type: ignore

    @cached_property
    def layouts(self) -> tuple[Any, Any]:  # (print layouts: print_layout.Layout)
        """The two sides laid out for printing: from their trees, without sympy
        (`napkinmath.library.tree_layout`), or for a side with no tree form by sympy
        (`napkinmath.library.print_layout.lower`, which gives the same layouts)."""
        from napkinmath.library.tree import NoTreeError

        try:
            trees = self.trees
        except NoTreeError:
            from napkinmath.library.print_layout import lower

            return tuple(lower(side) for side in self._sympy_sides())  # type: ignore
        from napkinmath.library.tree_layout import lower_tree

        return lower_tree(trees[0]), lower_tree(trees[1])

    def _sympy_sides(self) -> tuple[sympy.Expr, sympy.Expr]:
        raise NotImplementedError

    def _from_trees(self) -> tuple[sympy.Expr, sympy.Expr]:
        from napkinmath.library.tree import to_sympy

        lhs, rhs = self.trees
        return to_sympy(lhs, symbol_of), to_sympy(rhs, symbol_of)


class Formula(_Expressions):
    """An equation over library variables, with its provenance.

    `equation` None (a formula read from the snapshot) is made from its trees on first use.
    """

    def __init__(
        self,
        name: str,
        title: str,
        equation: sympy.Eq | None,
        source: str,
        subject: str,
        note: str = "",
        forward_only: bool = False,
        derived: bool = False,
        derived_from: tuple[str, ...] = (),
        variables: tuple[Variable, ...] = (),
        assumption: bool = False,
    ) -> None:
        self.name = name
        self.title = title
        self.source = source
        self.subject = subject
        self.note = note
        self.forward_only = forward_only
        #: a consequence of other formulas, declared so that questions they cannot reach
        #: structurally (MFU from GPU-hours without a GPU count) still plan; never run as a
        #: check.
        self.derived = derived
        #: the formulas it follows from; a plan may not use it together with all of them
        self.derived_from = derived_from
        self.variables = variables
        #: a stated assumption rather than a law (dense: total = active parameters): used only
        #: where the other formulas cannot answer, never as a check, and labelled in the answer
        self.assumption = assumption
        if equation is not None:
            self.__dict__["equation"] = equation

    @cached_property
    def equation(self) -> sympy.Eq:
        import sympy

        return sympy.Eq(*self._from_trees(), evaluate=False)

    def _sympy_sides(self) -> tuple[sympy.Expr, sympy.Expr]:
        return self.equation.lhs, self.equation.rhs

    @property
    def output(self) -> Variable | None:
        """The computed side of a forward-only formula."""
        if not self.forward_only:
            return None
        return VARIABLES[self.trees[0][1]]

    @property
    def residual(self) -> sympy.Expr:
        return self.equation.lhs - self.equation.rhs

    def __repr__(self) -> str:
        return f"Formula({self.name!r})"


class _BySymbol(dict):
    """Variables by sympy Symbol, found through the name (Symbols are made on demand)."""

    def __missing__(self, symbol: object) -> Variable:
        found = VARIABLES.get(getattr(symbol, "name", None))  # type: ignore[arg-type]
        if found is None or found.symbol != symbol:
            raise KeyError(symbol)
        return found

    def __contains__(self, symbol: object) -> bool:
        try:
            self[symbol]
        except (KeyError, TypeError):
            return False
        return True


@dataclass(frozen=True, eq=False)
class InForce:
    """The library with your formulas laid over it (`napkinmath.catalog.user.user_formulas`):
    every variable and formula in force, and where each of yours came from, by
    ("var" | "formula", name). One object per set of files as they stand: caches key by it."""

    variables: Entries[Variable]
    formulas: Entries[Formula]
    labels: dict[tuple[str, str], str]


#: your formulas in force in this thread or context (None: the library's alone)
IN_FORCE: ContextVar[InForce | None] = ContextVar("napkinmath_user_formulas", default=None)


#: your formulas in force here, for keying caches (None: the library's alone): the
#: ContextVar's own getter, as it is read on every question
in_force = IN_FORCE.get


def user_active() -> bool:
    """Whether your formulas are in force in this thread or context (then nothing is kept
    on disk)."""
    return IN_FORCE.get() is not None


class Entries(dict[str, T]):
    """A registry's entries as one context sees them (the library's own, or with your
    formulas laid over them): a dict for reading at dict speed, refusing every change.
    A name it lacks is napkinmath's UnknownKeyError (a KeyError); a variable of yours whose
    block has ended is found in `RETIRED`, so that its answer still prints."""

    def __init__(self, kind: str, entries: Mapping[str, T] | None = None) -> None:
        super().__init__(entries or {})
        self.kind = kind

    def __missing__(self, name: str) -> T:
        if self.kind == "variables" and isinstance(name, str) and name in RETIRED:
            return RETIRED[name]  # type: ignore[return-value]
        raise _unknown(self.kind, name)

    def _refuse(self, *args: object, **kwargs: object) -> Any:
        from napkinmath.errors import InputError

        raise InputError(
            f"the library's {self.kind} are read-only: declare yours in a formulas file "
            "(formulas=, `napkinmath.user_formulas`)",
            self.kind,
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    pop = popitem = clear = update = setdefault = _refuse


class _Registry(Mapping[str, T]):
    """The library's variables or formulas by name, as the calling context sees them: the
    library's own, or inside `user_formulas` those of its `InForce` (`in_context`, an
    `Entries`). Read-only: only the library's declarations add to it (`_put`), outside any
    such block; never one process-wide state that a thread's formulas change for another."""

    def __init__(self, kind: str) -> None:
        self._own: Entries[T] = Entries(kind)
        self._kind = kind

    def in_context(self) -> Entries[T]:
        """The entries in force in the calling thread or context."""
        layered = IN_FORCE.get()
        return self._own if layered is None else getattr(layered, self._kind)

    def __getitem__(self, name: str) -> T:
        return self.in_context()[name]

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self.in_context().get(name, default)
        except TypeError:  # unhashable: no name
            return default

    def __contains__(self, name: object) -> bool:
        try:
            return name in self.in_context()
        except TypeError:
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(self.in_context())

    def __len__(self) -> int:
        return len(self.in_context())

    def _put(self, name: str, value: T) -> None:
        """Declare `value` in the library itself."""
        dict.__setitem__(self._own, name, value)

    def __repr__(self) -> str:
        return f"<{len(self)} {self._kind} in force>"


def _unknown(kind: str, name: object) -> KeyError:
    from napkinmath.errors import UnknownKeyError

    shown = repr(name)[:60]
    return UnknownKeyError(f"no {kind[:-1]} named {shown} (list them with `napkin {kind}`)")


#: your variables once their `user_formulas` block has ended, by name (the latest of a name)
RETIRED: dict[str, Variable] = {}
VARIABLES: _Registry[Variable] = _Registry("variables")
VARIABLES_BY_SYMBOL: dict[sympy.Symbol, Variable] = _BySymbol()
FORMULAS: _Registry[Formula] = _Registry("formulas")
caches.scope_by(caches.LIBRARY, IN_FORCE.get)  # the ContextVar's own getter: fast


def _declaring(declaration: Callable[P, R]) -> Callable[P, R]:
    """`declaration` run on the library's own registries, whatever formulas are in force
    where a formula module happens to be imported first."""

    @functools.wraps(declaration)
    def on_the_library(*args: P.args, **kwargs: P.kwargs) -> R:
        token = IN_FORCE.set(None)
        try:
            return declaration(*args, **kwargs)
        finally:
            IN_FORCE.reset(token)

    return on_the_library


#: names read from the snapshot and not yet declared again by importing their module: such a
#: declaration attaches its sympy objects to them instead of declaring a name twice
_FROM_SNAPSHOT: set[tuple[str, str]] = set()


@_declaring
def var(
    name: str,
    unit: str,
    description: str,
    *,
    symbol: str | None = None,
    bounds: Bounds = POSITIVE,
    default: str | float | None = None,
    default_note: str = "",
    display_unit: str | None = None,
    rounding: tuple[str, ...] = (),
    whole: bool = False,
    typical: Typical | None = None,
    mistaken_for: tuple[str, ...] = (),
) -> sympy.Symbol:
    """Declare a library variable and return its sympy Symbol.

    `unit` is a unit expression of the registry ("FLOP/(s*GPU)", "" for a plain number);
    `symbol` is the LaTeX symbol shown in typeset derivations; `default` (with `default_note`
    saying why) is an assumption used only when a question needs it and the user gave none.
    Domain facts are declared here, not guessed from names: `whole` (a count of whole
    things), `typical` (the range published runs report) and `mistaken_for` (variables a
    user may give meaning this one).
    """
    import sympy

    from napkinmath.units import Quantity, Unit, ureg

    if ("var", name) in _FROM_SNAPSHOT:
        _FROM_SNAPSHOT.discard(("var", name))
        return VARIABLES[name].symbol
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
    variable = Variable(
        name,
        parsed_unit,
        description,
        sym,
        symbol or _latex_name(name),
        bounds,
        default_value,
        display_unit,
        rounding,
        whole,
        typical,
        mistaken_for,
    )
    variable.unit_text = unit
    VARIABLES._put(name, variable)
    return sym


def _latex_name(name: str) -> str:
    head, _, tail = name.partition("_")
    escaped_tail = tail.replace("_", "\\_")
    return f"\\mathrm{{{head}}}_{{\\mathrm{{{escaped_tail}}}}}" if tail else f"\\mathrm{{{head}}}"


@_declaring
def formula(
    name: str,
    title: str,
    equation: sympy.Eq,
    *,
    source: str,
    subject: str,
    note: str = "",
    forward_only: bool = False,
    derived: bool = False,
    derived_from: tuple[str, ...] = (),
    assumption: bool = False,
) -> Formula:
    """Declare a formula of the library.

    `equation` is a sympy `Eq` over declared variables; `source` cites where it comes from;
    `subject` groups it for listing (training, memory, ...). A `forward_only` formula computes
    its left-hand variable from the right-hand side and is never inverted. A `derived` formula
    follows from others (a shortcut; name them in `derived_from`); it solves only where the
    independent formulas cannot, and is never reported as a check. An `assumption` (with a
    `note` saying when it fails) plans like a derived formula and is labelled as an assumption
    in every answer that uses it.
    """
    if ("formula", name) in _FROM_SNAPSHOT:
        _FROM_SNAPSHOT.discard(("formula", name))
        FORMULAS[name].__dict__["equation"] = equation
        return FORMULAS[name]
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
    declared = Formula(
        name,
        title,
        equation,
        source,
        subject,
        note,
        forward_only,
        derived or assumption or bool(derived_from),
        tuple(derived_from),
        variables,
        assumption,
    )
    FORMULAS._put(name, declared)
    return declared


class Constraint(_Expressions):
    """A feasibility condition lhs ≤ rhs (or <) that an answer must meet to be a plan that fits:
    memory within HBM, a queue below saturation. Evaluated in every answer that touches it.

    `lhs` and `rhs` None (a constraint read from the snapshot) are made from its trees."""

    def __init__(
        self,
        name: str,
        title: str,
        lhs: sympy.Expr | None,
        rhs: sympy.Expr | None,
        strict: bool,
        source: str,
        subject: str,
        message: str,
        variables: tuple[Variable, ...] = (),
        per: str = "",
        touch: tuple[str, ...] = (),
        refuse: bool = False,
    ) -> None:
        self.name = name
        self.title = title
        self.strict = strict
        #: a rule a layout must meet to exist at all (pp ≤ n_layers): a solve that breaks it
        #: is refused with an InputError, not answered with a warning
        self.refuse = refuse
        self.source = source
        self.subject = subject
        #: what a violation means and how to fix it
        self.message = message
        self.variables = variables
        #: a unit the right side is multiplied by: per="GPU" compares bytes on one GPU with
        #: hbm_capacity in bytes per GPU
        self.per = per
        #: the variables that make an answer about this constraint: it is evaluated when the
        #: answer computes, gives or asks for one of them
        self.touch = touch
        if lhs is not None and rhs is not None:
            self.__dict__["_sides"] = (lhs, rhs)

    @cached_property
    def _sides(self) -> tuple[sympy.Expr, sympy.Expr]:
        return self._from_trees()

    @property
    def lhs(self) -> sympy.Expr:
        return self._sides[0]

    @property
    def rhs(self) -> sympy.Expr:
        return self._sides[1]

    def _sympy_sides(self) -> tuple[sympy.Expr, sympy.Expr]:
        return self._sides

    def __repr__(self) -> str:
        return f"Constraint({self.name!r})"


CONSTRAINTS: dict[str, Constraint] = {}


@_declaring
def constraint(
    name: str,
    title: str,
    lhs: sympy.Expr,
    rhs: sympy.Expr,
    *,
    source: str,
    subject: str,
    message: str,
    strict: bool = False,
    per: str = "",
    touch: tuple[sympy.Symbol, ...] = (),
    refuse: bool = False,
) -> Constraint:
    """Declare a feasibility constraint ``lhs <= rhs`` (``<`` when `strict`).

    `message` says what a violation means and what to change; `source` cites why it holds;
    `per` is a unit the right side is taken for (``per="GPU"``: one accelerator's worth);
    `touch` lists the variables whose presence in an answer makes the constraint relevant
    (default: those of the left side); `refuse` makes it a rule whose violation refuses the
    question (a layout that cannot exist) rather than a warning.
    """
    import sympy

    if ("constraint", name) in _FROM_SNAPSHOT:
        _FROM_SNAPSHOT.discard(("constraint", name))
        CONSTRAINTS[name].__dict__["_sides"] = (sympy.sympify(lhs), sympy.sympify(rhs))
        return CONSTRAINTS[name]
    if name in CONSTRAINTS:
        raise ValueError(f"constraint {name!r} is declared twice")
    symbols = sorted((sympy.sympify(lhs) - sympy.sympify(rhs)).free_symbols, key=lambda s: s.name)
    unknown = [s.name for s in symbols if s not in VARIABLES_BY_SYMBOL]
    if unknown:
        raise ValueError(f"constraint {name!r} uses undeclared variables: {', '.join(unknown)}")
    touched = tuple(
        s.name for s in (touch or sorted(sympy.sympify(lhs).free_symbols, key=lambda s: s.name))
    )
    declared = Constraint(
        name,
        title,
        sympy.sympify(lhs),
        sympy.sympify(rhs),
        strict,
        source,
        subject,
        message,
        tuple(VARIABLES_BY_SYMBOL[s] for s in symbols),
        per,
        touched,
        refuse,
    )
    CONSTRAINTS[name] = declared
    return declared
