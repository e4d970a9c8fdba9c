"""Rearranging formulas for an unknown, symbolically, and compiling the result to float code.

Products of powers (most formulas here) are inverted directly; anything else goes to
`sympy.solve`. Both the rearranged expressions and the compiled functions are cached, so a
repeated question costs a few float operations per step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import sympy

from .declare import NUMERIC_FUNCTIONS, Formula


@dataclass(frozen=True)
class Compiled:
    """An expression and a float function of its arguments (in base units)."""

    expr: sympy.Expr
    args: tuple[str, ...]
    fn: Callable[..., float]


def compile_expr(expr: sympy.Expr) -> Compiled:
    """Compile `expr` to a float function of its free symbols, by name."""
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    fn = sympy.lambdify(symbols, expr, modules=[NUMERIC_FUNCTIONS, "math"])
    return Compiled(expr, tuple(s.name for s in symbols), fn)


def _invert_monomial(equation: sympy.Eq, unknown: sympy.Symbol) -> sympy.Expr | None:
    """Solve lhs = rhs for `unknown` when lhs/rhs is a product of powers, else None."""
    ratio = equation.lhs / equation.rhs
    exponent = sympy.Integer(0)
    rest = []
    for factor in sympy.Mul.make_args(ratio):
        base, power = factor.as_base_exp()
        if base == unknown and power.is_number:
            exponent += power
        elif factor.has(unknown):
            return None
        else:
            rest.append(factor)
    if exponent == 0:
        return None
    return sympy.Mul(*rest) ** (-1 / exponent)


@lru_cache(maxsize=1024)
def _solutions(f: Formula, unknown: sympy.Symbol) -> tuple[sympy.Expr, ...]:
    if f.forward_only:
        return (f.equation.rhs,)
    if f.equation.lhs == unknown and not f.equation.rhs.has(unknown):
        return (f.equation.rhs,)
    direct = _invert_monomial(f.equation, unknown)
    if direct is not None:
        return (direct,)
    linear = _invert_linear(f.residual, unknown)
    if linear is not None:
        return (linear,)
    return tuple(sympy.solve(f.residual, unknown))


def _invert_linear(residual: sympy.Expr, unknown: sympy.Symbol) -> sympy.Expr | None:
    """Solve a*x + b = 0 for x when the slope a does not involve x, else None."""
    slope = sympy.diff(residual, unknown)
    if slope == 0 or slope.has(unknown):
        return None
    return sympy.together(-residual.subs(unknown, 0) / slope)


@lru_cache(maxsize=1024)
def rearranged(f: Formula, unknown: sympy.Symbol) -> tuple[Compiled, ...]:
    """Every root of `f` solved for `unknown`, compiled; empty when sympy finds none."""
    return tuple(compile_expr(expr) for expr in _solutions(f, unknown))


@lru_cache(maxsize=256)
def solved_jointly(fs: tuple[Formula, ...], unknowns: tuple[sympy.Symbol, ...]
                   ) -> tuple[dict[sympy.Symbol, Compiled], ...]:
    """Every solution of a coupled block, each a compiled expression per unknown."""
    try:
        solutions = sympy.solve([f.residual for f in fs], list(unknowns), dict=True)
    except NotImplementedError:
        return ()
    return tuple({s: compile_expr(sympy.simplify(sol[s])) for s in unknowns} for sol in solutions
                 if all(s in sol for s in unknowns))


@lru_cache(maxsize=1024)
def sides(f: Formula) -> tuple[Compiled, Compiled]:
    """Both sides of `f`, compiled, for checking an over-determined formula."""
    return compile_expr(f.equation.lhs), compile_expr(f.equation.rhs)
