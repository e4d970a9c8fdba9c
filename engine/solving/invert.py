"""Rearranging formulas for an unknown, symbolically, and compiling the result to float code.

Products of powers (most formulas here) are inverted directly, linear formulas by their slope;
anything else goes to `sympy.solve`. Both the rearranged expressions and the compiled functions
are cached, so a repeated question costs a few float operations per step.

Compiling builds nested Python closures over the sympy tree (arithmetic and a fixed table of
math functions); no source code is generated or evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import sympy

from napkinmath.library.declare import NUMERIC_FUNCTIONS, Formula


@dataclass(frozen=True)
class Compiled:
    """An expression and a float function of its arguments (in base units)."""

    expr: sympy.Expr
    args: tuple[str, ...]
    fn: Callable[..., float]


_FUNCTIONS: dict[type, Callable[..., float]] = {
    sympy.ceiling: math.ceil, sympy.floor: math.floor, sympy.log: math.log, sympy.exp: math.exp,
    sympy.Max: max, sympy.Min: min, sympy.Abs: abs}

Evaluator = Callable[[tuple[float, ...]], float]


def _closure(expr: sympy.Expr, index: dict[sympy.Symbol, int]) -> Evaluator:
    """A float function of the argument tuple, built from closures (no code generation)."""
    if isinstance(expr, sympy.Symbol):
        i = index[expr]
        return lambda x: x[i]
    if expr.is_Number or expr.is_NumberSymbol:
        value = float(expr)
        return lambda x: value
    parts = [_closure(arg, index) for arg in expr.args]
    if isinstance(expr, sympy.Add):
        return lambda x: math.fsum([p(x) for p in parts])
    if isinstance(expr, sympy.Mul):
        return _product(parts)
    if isinstance(expr, sympy.Pow):
        base, exponent = parts
        if expr.exp.is_Number:  # the same power of a constant float, without a call
            power = float(expr.exp)
            return lambda x: base(x) ** power
        return lambda x: base(x) ** exponent(x)
    function = _FUNCTIONS.get(type(expr)) or NUMERIC_FUNCTIONS.get(type(expr).__name__)
    if function is None:
        raise NotImplementedError(type(expr).__name__)
    return lambda x: function(*(p(x) for p in parts))


def _product(parts: list[Evaluator]) -> Evaluator:
    """The product of `parts` left to right, as `math.prod` takes it (1 * a * b ...: the
    same floats), with no generator for two or three factors."""
    if len(parts) == 2:
        a, b = parts
        return lambda x: a(x) * b(x)
    if len(parts) == 3:
        a, b, c = parts
        return lambda x: a(x) * b(x) * c(x)
    return lambda x: math.prod([p(x) for p in parts])


def compile_expr(expr: sympy.Expr) -> Compiled:
    """Compile `expr` to a float function of its free symbols (sorted by name)."""
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    try:
        evaluate = _closure(expr, {s: i for i, s in enumerate(symbols)})
        fn = lambda *args: evaluate(args)  # noqa: E731
    except NotImplementedError:
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
