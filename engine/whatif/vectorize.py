"""A plan compiled to numpy: every step evaluated on whole arrays of inputs in one pass.

The scalar solver runs a plan one point at a time on floats; a sweep, a range search or a
Monte Carlo run needs the same chain at thousands of points. `VectorChain` compiles each step's
rearranged expressions to closures over numpy ufuncs (no code generation, as in
`napkinmath.solving.invert`) and picks, per element, the first root inside the variable's
bounds, exactly as the scalar solver does. numpy is imported here, so this module is only
loaded by what-if questions, never by a plain solve.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy

from napkinmath.errors import InconsistentError, NoRootError
from napkinmath.library.declare import Bounds, Formula, Variable, pow2_ceil
from napkinmath.library.lookup import variables
from napkinmath.solving.invert import _solutions, sides, solved_jointly
from napkinmath.solving.plan import Block
from napkinmath.units import Quantity, format_quantity

Array = np.ndarray
Evaluator = Callable[[Mapping[str, Array]], Array]

_UFUNCS: dict[type, Callable[..., Array]] = {
    sympy.ceiling: np.ceil, sympy.floor: np.floor, sympy.log: np.log, sympy.exp: np.exp,
    sympy.Abs: np.abs, sympy.sqrt: np.sqrt}


def _pow2_ceil(x: Array) -> Array:
    return 2.0 ** np.ceil(np.log2(x) - 1e-12)


def _power(base: Evaluator, exponent: sympy.Expr, index: Callable) -> Evaluator:
    """x**k with the cheap ufunc for the common constant exponents."""
    if exponent.is_Number:
        k = float(exponent)
        special = {1: None, -1: np.reciprocal, 2: np.square, 0.5: np.sqrt, 1 / 3: np.cbrt}
        if k in special:
            ufunc = special[k]
            return base if ufunc is None else lambda x: ufunc(base(x))
        if k == -0.5:
            return lambda x: 1.0 / np.sqrt(base(x))
        return lambda x: np.power(base(x), k)
    power = index(exponent)
    return lambda x: np.power(base(x), power(x))


def vector_closure(expr: sympy.Expr) -> Evaluator:
    """A function of {name: array} evaluating `expr` with numpy broadcasting."""
    if isinstance(expr, sympy.Symbol):
        name = expr.name
        return lambda x: x[name]
    if expr.is_Number or expr.is_NumberSymbol:
        value = float(expr)
        return lambda x: value
    if isinstance(expr, sympy.Pow):
        return _power(vector_closure(expr.args[0]), expr.args[1], vector_closure)
    if isinstance(expr, sympy.Mul):
        return _product(expr)
    parts = [vector_closure(arg) for arg in expr.args]
    if isinstance(expr, sympy.Add):
        first, *rest = parts

        def add(x: Mapping[str, Array]) -> Array:
            total = first(x)
            for p in rest:
                total = total + p(x)
            return total
        return add
    if isinstance(expr, (sympy.Max, sympy.Min)):
        ufunc = np.maximum if isinstance(expr, sympy.Max) else np.minimum

        def extreme(x: Mapping[str, Array]) -> Array:
            out = parts[0](x)
            for p in parts[1:]:
                out = ufunc(out, p(x))
            return out
        return extreme
    if isinstance(expr, pow2_ceil):
        (inner,) = parts
        return lambda x: _pow2_ceil(inner(x))
    ufunc = _UFUNCS.get(type(expr))
    if ufunc is None:
        raise NotImplementedError(f"no numpy form for {type(expr).__name__}")
    return lambda x: ufunc(*(p(x) for p in parts))


def _product(expr: sympy.Mul) -> Evaluator:
    """a·b/c: scalar factors folded into one number first, then one array operation per
    array factor (x/y rather than x·(1/y))."""
    above = [vector_closure(a) for a in expr.args
             if not (isinstance(a, sympy.Pow) and a.args[1] == -1)]
    below = [vector_closure(a.args[0]) for a in expr.args
             if isinstance(a, sympy.Pow) and a.args[1] == -1]

    def product(x: Mapping[str, Array]) -> Array:
        scalar, arrays, divisors = 1.0, [], []
        for part in above:
            v = part(x)
            if np.ndim(v) == 0:
                scalar = scalar * v
            else:
                arrays.append(v)
        for part in below:
            v = part(x)
            if np.ndim(v) == 0:
                scalar = scalar / v
            else:
                divisors.append(v)
        if arrays:
            out = arrays[0] * scalar
            for v in arrays[1:]:
                out = out * v
        elif divisors:
            out = scalar / divisors.pop(0)
        else:
            return scalar
        for v in divisors:
            out = out / v
        return out
    return product


@lru_cache(maxsize=2048)
def _compiled(expr: sympy.Expr) -> Evaluator:
    return vector_closure(expr)


def admissible(x: Array, var: Variable) -> Array:
    """True where `x` (base units) is finite and inside the variable's bounds."""
    b: Bounds = var.bounds
    lo, hi = b.lo * var.base_factor, b.hi * var.base_factor
    above = x >= lo if b.lo_inclusive else x > lo
    if math.isinf(hi):
        return above & (x < math.inf)  # NaN fails both comparisons
    return above & ((x <= hi) if b.hi_inclusive else (x < hi))


@dataclass(frozen=True)
class VectorStep:
    """One block: candidate solutions (each {unknown: expression}) in the scalar solver's order."""

    block: Block
    candidates: tuple[dict[str, sympy.Expr], ...]
    rounding: bool = False


def _candidates(block: Block) -> tuple[dict[str, sympy.Expr], ...]:
    if block.cancel is not None:  # formulas combined (napkinmath.solving.cancel)
        return ({block.unknowns[0].name: block.cancel.root.expr},)
    if len(block.unknowns) == 1:
        (f,), (var,) = block.formulas, block.unknowns
        return tuple({var.name: expr} for expr in _solutions(f, var.symbol))
    symbols = tuple(v.symbol for v in block.unknowns)
    return tuple({v.name: sol[v.symbol].expr for v in block.unknowns}
                 for sol in solved_jointly(block.formulas, symbols))


class VectorChain:
    """The steps of a solved question, evaluated on arrays of base-unit values.

    Built from a scalar `Result`, so that the vectorised chain is the very plan (rounding
    steps and checks included) whose derivation the user reads.
    """

    def __init__(self, steps: list[tuple[Block, bool]], checks: tuple[Formula, ...]) -> None:
        self.steps = [VectorStep(b, _candidates(b), rounding) for b, rounding in steps]
        self.checks = checks
        #: the step that computes each variable
        self.computed = {v.name: s for s in self.steps for v in s.block.unknowns}

    @classmethod
    def from_result(cls, result) -> VectorChain:
        steps = [(Block(s.formulas, s.unknowns, s.cancel), s.rounding) for s in result.steps]
        return cls(steps, tuple(c.formula for c in result.checks if not c.beyond))

    @property
    def single_rooted(self) -> bool:
        """True when every step has one candidate solution (closed-form composition is exact)."""
        return all(len(s.candidates) == 1 for s in self.steps)

    def evaluate(self, inputs: Mapping[str, Array | float], shape: tuple[int, ...],
                 tolerance: float | None = None) -> tuple[dict[str, Array], Array]:
        """Every computed variable over the arrays `inputs` (base units).

        Returns the values and a mask of the points where every step found an admissible
        root (values elsewhere are meaningless); with `tolerance`, points where a check
        disagrees raise InconsistentError.
        """
        # scalars stay scalars inside, so that a step of fixed inputs costs one float op
        values: dict[str, Array] = {n: np.asarray(v, dtype=float) for n, v in inputs.items()}
        ok = np.ones(shape, dtype=bool)
        with np.errstate(all="ignore"):
            for step in self.steps:
                ok &= self._run(step, values, shape)
            if tolerance is not None:
                for f in self.checks:
                    self._check(f, values, ok, tolerance)
        return {n: np.broadcast_to(v, shape) for n, v in values.items()}, ok

    def _run(self, step: VectorStep, values: dict[str, Array], shape: tuple[int, ...]) -> Array:
        unknowns = step.block.unknowns
        if len(step.candidates) == 1:  # the common case: no root to choose, no copies
            good = None
            for v in unknowns:
                x = np.asarray(_compiled(step.candidates[0][v.name])(values), dtype=float)
                values[v.name] = x
                mask = admissible(x, v)
                good = mask if good is None else good & mask
            return good
        chosen = {v.name: np.full(shape, np.nan) for v in unknowns}
        found = np.zeros(shape, dtype=bool)
        for candidate in step.candidates:
            xs = {v.name: np.broadcast_to(np.asarray(_compiled(candidate[v.name])(values),
                                                     dtype=float), shape)
                  for v in unknowns}
            good = ~found
            for v in unknowns:
                good &= admissible(xs[v.name], v)
            for v in unknowns:
                chosen[v.name] = np.where(good, xs[v.name], chosen[v.name])
            found |= good
            if found.all():
                break
        values.update(chosen)
        return found

    def _check(self, f: Formula, values: Mapping[str, Array], ok: Array,
               tolerance: float) -> None:
        left, right = sides(f)
        lhs, rhs = _compiled(left.expr)(values), _compiled(right.expr)(values)
        scale = np.maximum(np.abs(lhs), np.abs(rhs))
        difference = np.where(scale > 0, np.abs(lhs - rhs) / np.where(scale > 0, scale, 1), 0)
        difference = np.where(ok, difference, 0.0)
        worst = float(np.max(difference)) if difference.size else 0.0
        if worst > tolerance:
            raise InconsistentError(
                f"the givens disagree with each other somewhere in the ranges: {f.title} "
                f"({f.name}) is {worst:.1%} apart at its worst point, tolerance "
                f"{tolerance:.1%}. Narrow the ranges, drop a given, or pass a larger tolerance.",
                [])


def no_root_error(chain: VectorChain, ok: Array, inputs: Mapping[str, Array]) -> NoRootError:
    """Name the first step that fails and an input point where it does."""
    bad = np.argwhere(~ok)
    where = tuple(bad[0]) if bad.size else ()
    known = variables()
    shown = []
    for name, value in inputs.items():
        arr = np.broadcast_to(np.asarray(value, dtype=float), ok.shape)
        if arr.size > 1 and not np.all(arr == arr.flat[0]):
            var = known[name]
            value = Quantity(float(arr[where]) / var.base_factor, var.unit)
            shown.append(f"{name} = {format_quantity(value)}")
    point = f" at {', '.join(shown)}" if shown else ""
    return NoRootError(f"no admissible answer{point}: some part of the ranges asks for "
                       "something impossible (a value outside its variable's bounds); narrow "
                       "the ranges", None)
