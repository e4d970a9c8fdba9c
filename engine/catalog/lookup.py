"""The loaded formula library: lookup by name, and the dimensional check of every formula."""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from napkinmath import arguments
from napkinmath.errors import UnknownNameError
from napkinmath.library.declare import (
    CONSTRAINTS,
    FORMULAS,
    VARIABLES,
    Constraint,
    Formula,
    Variable,
)
from napkinmath.text.visible import quoted

if TYPE_CHECKING:
    import pint
    import sympy

_loaded = False
_loading = False
#: held while the library loads: another thread's first question waits for it, where it
#: would otherwise see the library half declared ("unknown variable 'n_gpus'"); re-entrant,
#: because the formula modules being imported ask for it in the loading thread
_load_lock = threading.RLock()


def _load() -> None:
    """The library, read from its snapshot when one matches the source, else declared by
    importing the formula modules (and stored for the next process)."""
    with _load_lock:
        _load_locked()


def _load_locked() -> None:
    global _loaded, _loading
    if _loaded or _loading:
        return
    from napkinmath.catalog import snapshot

    _loading = True
    try:
        if "napkinmath.formulas" in sys.modules:  # the formula modules declared it already
            snapshot.save_once()
        elif not snapshot.load():
            import napkinmath.formulas  # noqa: F401  (declares every formula on import)

            snapshot.save()
    finally:
        _loading = False
    _loaded = True


def variables() -> Mapping[str, Variable]:
    """Every library variable, by name (with your formulas' where they are in force)."""
    if not _loaded:
        _load()
    return VARIABLES.in_context()


def formulas() -> Mapping[str, Formula]:
    """Every library formula, by name (with yours where they are in force)."""
    if not _loaded:
        _load()
    return FORMULAS.in_context()


def constraints() -> dict[str, Constraint]:
    """Every feasibility constraint of the library, by name."""
    if not _loaded:
        _load()
    return CONSTRAINTS


def variable(name: str) -> Variable:
    """The variable called `name`, or an error that suggests the closest names."""
    name = arguments.name(name, "name", kind="variable", example="mfu", listing="napkin vars")
    known = variables()
    found = known.get(name)
    if found is None:
        raise UnknownNameError(
            unknown_message("variable", name, known) + " (list them with `napkin vars`)", name
        )
    return found


def unknown_message(kind: str, name: str, known: Mapping[str, object]) -> str:
    if arguments.is_long(name):  # no name is this long: quote it cut, match nothing
        return f"unknown {kind} {arguments.shown(name)} ({len(name):,} characters)"
    if kind == "variable":
        from napkinmath.library.aliases import meant

        word, names = meant(name, known)
        if names and word.lower() not in names:
            listed = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]
            return f"unknown {kind} {quoted(name)}: the library calls {word} {listed}"
    close = [name.lower()] if name.lower() in known else []
    if not close:
        import difflib  # only for a name that is not found

        close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    if not close:
        close = [k for k in known if name.lower() in k][:3]
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"unknown {kind} {quoted(name)}{hint}"


class DimensionMismatchError(Exception):
    """A formula whose sides (or terms) have different dimensions."""


def dimension_of(expr: sympy.Expr) -> pint.util.UnitsContainer:
    """The dimensionality of a sympy expression over library variables.

    Sums need terms of one dimension; functions other than rounding need dimensionless
    arguments; powers need plain-number exponents.
    """
    import sympy

    from napkinmath.library.functions import ROUNDING_FUNCTIONS
    from napkinmath.units import ureg

    if isinstance(expr, sympy.Symbol):
        return VARIABLES[expr.name].dimensionality
    if expr.is_Number or expr.is_NumberSymbol:
        return ureg.dimensionless.dimensionality
    if isinstance(expr, sympy.Add):
        dims = [dimension_of(arg) for arg in expr.args]
        for dim, arg in zip(dims[1:], expr.args[1:], strict=True):
            if dim != dims[0]:
                raise DimensionMismatchError(
                    f"cannot add {expr.args[0]} [{_dim_text(dims[0])}] and {arg} [{_dim_text(dim)}]"
                )
        return dims[0]
    if isinstance(expr, sympy.Mul):
        dim = ureg.dimensionless.dimensionality
        for arg in expr.args:
            dim = dim * dimension_of(arg)
        return dim
    if isinstance(expr, sympy.Pow):
        base, exponent = expr.args
        if exponent.free_symbols:
            if dimension_of(exponent) or dimension_of(base):
                raise DimensionMismatchError(f"{expr}: a variable exponent needs plain numbers")
            return ureg.dimensionless.dimensionality
        return dimension_of(base) ** float(exponent)
    if isinstance(expr, (ROUNDING_FUNCTIONS, sympy.Max, sympy.Min)):
        dims = [dimension_of(arg) for arg in expr.args]
        if any(dim != dims[0] for dim in dims):
            raise DimensionMismatchError(f"{expr}: arguments of different dimensions")
        return dims[0]
    if isinstance(expr, sympy.Function):
        for arg in expr.args:
            if dimension_of(arg):
                shown = _dim_text(dimension_of(arg))
                raise DimensionMismatchError(f"{expr}: {type(expr).__name__}() of [{shown}]")
        return ureg.dimensionless.dimensionality
    raise DimensionMismatchError(f"cannot work out the dimension of {expr}")


def _dim_text(dim: pint.util.UnitsContainer) -> str:
    from napkinmath.text.dimensions import dimension_text

    return dimension_text(dim)


def check_constraint_dimensions(c: Constraint) -> str | None:
    """None when both sides of constraint `c` have one dimension, else a message naming it."""
    try:
        left, right = dimension_of(c.lhs), dimension_of(c.rhs)
    except DimensionMismatchError as exc:
        return f"constraint {c.name!r}: {exc}"
    if c.per:
        from napkinmath.units import ureg

        right = right * ureg.Unit(c.per).dimensionality
    if left != right and c.rhs != 0:
        return (
            f"constraint {c.name!r}: left side {c.lhs} is [{_dim_text(left)}] but right side "
            f"{c.rhs} is [{_dim_text(right)}]"
        )
    return None


def check_dimensions(f: Formula) -> str | None:
    """None when `f` is dimensionally consistent, else a message naming it and both sides."""
    try:
        left = dimension_of(f.equation.lhs)
        right = dimension_of(f.equation.rhs)
    except DimensionMismatchError as exc:
        return f"formula {f.name!r}: {exc}"
    if left != right and not (f.equation.lhs.is_zero or f.equation.rhs.is_zero):  # 0 has any
        return (
            f"formula {f.name!r}: left side {f.equation.lhs} is [{_dim_text(left)}] but right "
            f"side {f.equation.rhs} is [{_dim_text(right)}]"
        )
    return None
