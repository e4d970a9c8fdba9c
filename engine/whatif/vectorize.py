"""A plan compiled to numpy: every step evaluated on whole arrays of inputs in one pass.

The scalar solver runs a plan one point at a time on floats; a sweep, a range search or a
Monte Carlo run needs the same chain at thousands of points. `VectorChain` takes each step's
roots as the scalar solver has them (`invert.rearranged`, `invert.joint_roots`: trees, read
from the store without sympy), compiles each tree to closures over numpy ufuncs (no code
generation) and picks, per element, the first root inside the variable's bounds, exactly as
the scalar solver does; sympy is imported only for a root that has no tree form. The
feasibility constraints the answer touches are compiled the same way, with the blocks beyond
the plan that compute what they read, and evaluated at every point
(`VectorChain.feasibility`). numpy is imported here, so this module is only loaded by what-if
questions, never by a plain solve.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from napkinmath.catalog.lookup import variables
from napkinmath.deadline import OutOfTimeError
from napkinmath.errors import InconsistentError, NoRootError, NumericError
from napkinmath.library.declare import Bounds, Constraint, Formula, Variable
from napkinmath.library.tree import Tree, is_number, number
from napkinmath.solving.invert import (
    Compiled,
    joint_roots,
    needs_substitution,
    rearranged,
    sides,
)
from napkinmath.solving.plan import Block
from napkinmath.units import Quantity, format_quantity

if TYPE_CHECKING:
    import sympy

Array = np.ndarray
#: an array, or a plain number where every value it depends on is fixed (a constant, a
#: 0-d input): scalars stay scalars so that a step of fixed inputs costs one float op
Value: TypeAlias = Array | float
Evaluator = Callable[[Mapping[str, Value]], Value]

#: the ufunc of each function node of a tree (max, min, pow2_ceil and the normal quantile
#: are handled on their own)
_TREE_UFUNCS: dict[str, Callable[..., Array]] = {
    "ceiling": np.ceil,
    "floor": np.floor,
    "log": np.log,
    "exp": np.exp,
    "Abs": np.abs,
}


def _pow2_ceil(x: Value) -> Value:
    return 2.0 ** np.ceil(np.log2(x) - 1e-12)


def _normal_quantile(p: Array | float) -> Array | float:
    """Φ⁻¹ element by element (NaN outside 0 < p < 1, as numpy's log gives NaN below 0); a
    plain number stays one."""
    from statistics import NormalDist

    inverse = NormalDist().inv_cdf
    flat = np.asarray(p, dtype=float)
    out = np.full(flat.shape, np.nan)
    inside = (flat > 0) & (flat < 1)
    out[inside] = [inverse(float(x)) for x in flat[inside]]
    return out if out.ndim else float(out[()])


def _power(base: Evaluator, k: float | None, power: Evaluator) -> Evaluator:
    """x**k with the cheap ufunc for the common constant exponents (`k`, None when the
    exponent is not a number: then `power(x)`)."""
    if k is not None:
        special = {1: None, -1: np.reciprocal, 2: np.square, 0.5: np.sqrt, 1 / 3: np.cbrt}
        if k in special:
            ufunc = special[k]
            return base if ufunc is None else lambda x: ufunc(base(x))
        if k == -0.5:
            return lambda x: 1.0 / np.sqrt(base(x))
        return lambda x: np.power(base(x), k)
    return lambda x: np.power(base(x), power(x))


def _add(parts: list[Evaluator]) -> Evaluator:
    first, *rest = parts

    def add(x: Mapping[str, Value]) -> Value:
        total = first(x)
        for p in rest:
            total = total + p(x)
        return total

    return add


def _extreme(parts: list[Evaluator], ufunc: Callable[..., Array]) -> Evaluator:
    def extreme(x: Mapping[str, Value]) -> Value:
        out = parts[0](x)
        for p in parts[1:]:
            out = ufunc(out, p(x))
        return out

    return extreme


def tree_closure(tree: Tree) -> Evaluator:
    """A function of {name: array} evaluating a formula's tree (`napkinmath.library.tree`)
    with numpy broadcasting: no sympy."""
    kind = tree[0]
    if kind == "s":
        name = tree[1]
        return lambda x: x[name]
    if is_number(tree):
        value = number(tree)
        return lambda x: value
    if kind == "^":
        base, exponent = tree[1], tree[2]
        k = number(exponent) if exponent[0] in ("i", "r", "f") else None
        return _power(tree_closure(base), k, tree_closure(exponent))
    if kind == "*":
        divided = [_reciprocal_base(a) for a in tree[1]]
        return _product(
            [tree_closure(a) for a, d in zip(tree[1], divided, strict=True) if d is None],
            [tree_closure(d) for d in divided if d is not None],
        )
    parts = [tree_closure(a) for a in tree[-1]]
    if kind == "+":
        return _add(parts)
    name = tree[1]
    if name in ("Max", "Min"):
        return _extreme(parts, np.maximum if name == "Max" else np.minimum)
    if name == "pow2_ceil":
        (inner,) = parts
        return lambda x: _pow2_ceil(inner(x))
    if name == "normal_quantile":
        (argument,) = parts
        return lambda x: _normal_quantile(argument(x))
    function = _TREE_UFUNCS[name]
    return lambda x: function(*(p(x) for p in parts))


def _reciprocal_base(tree: Tree) -> Tree | None:
    """The base of a factor x**-1, None for any other factor."""
    if tree[0] == "^" and tree[2][0] in ("i", "r", "f") and number(tree[2]) == -1:
        return tree[1]
    return None


def vector_closure(expr: sympy.Expr) -> Evaluator:
    """A function of {name: array} evaluating a sympy `expr` with numpy broadcasting (for a
    root with no tree form, and derivatives: Heaviside)."""
    import sympy

    from napkinmath.library.functions import normal_quantile, pow2_ceil

    if isinstance(expr, sympy.Symbol):
        name = expr.name
        return lambda x: x[name]
    if expr.is_Number or expr.is_NumberSymbol:
        value = float(expr)
        return lambda x: value
    if isinstance(expr, sympy.Pow):
        exponent = expr.args[1]
        return _power(
            vector_closure(expr.args[0]),
            float(exponent) if exponent.is_Number else None,
            vector_closure(exponent),
        )
    if isinstance(expr, sympy.Mul):
        inverse = [isinstance(a, sympy.Pow) and a.args[1] == -1 for a in expr.args]
        return _product(
            [vector_closure(a) for a, inv in zip(expr.args, inverse, strict=True) if not inv],
            [vector_closure(a.args[0]) for a, inv in zip(expr.args, inverse, strict=True) if inv],
        )
    parts = [vector_closure(arg) for arg in expr.args]
    if isinstance(expr, sympy.Add):
        return _add(parts)
    if isinstance(expr, (sympy.Max, sympy.Min)):
        return _extreme(parts, np.maximum if isinstance(expr, sympy.Max) else np.minimum)
    if isinstance(expr, pow2_ceil):
        (inner,) = parts
        return lambda x: _pow2_ceil(inner(x))
    if isinstance(expr, normal_quantile):
        (argument,) = parts
        return lambda x: _normal_quantile(argument(x))
    if isinstance(expr, sympy.Heaviside):  # the derivative of a max() or min()
        step, half = parts[0], (parts[1] if len(parts) > 1 else (lambda x: 0.5))
        return lambda x: np.heaviside(step(x), half(x))
    function = _TREE_UFUNCS.get(type(expr).__name__)
    if function is None:
        raise NotImplementedError(f"no numpy form for {type(expr).__name__}")
    return lambda x: function(*(p(x) for p in parts))


def _product(above: list[Evaluator], below: list[Evaluator]) -> Evaluator:
    """a·b/c (`above` the factors, `below` the divisors): scalar factors folded into one
    number first, then one array operation per array factor (x/y rather than x·(1/y))."""

    def product(x: Mapping[str, Value]) -> Value:
        scalar: Value = 1.0
        arrays: list[Value] = []
        divisors: list[Value] = []
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


def _compiled(expr: sympy.Expr) -> Evaluator:
    return vector_closure(expr)


def _tree_compiled(tree: Tree) -> Evaluator:
    return tree_closure(tree)


def evaluator(root: Compiled) -> Evaluator:
    """The numpy function of a compiled root: from its tree, or (no tree form) from sympy."""
    if root.tree is not None:
        return _tree_compiled(root.tree)
    return _compiled(root.expr)


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
    candidates: tuple[dict[str, Compiled], ...]
    rounding: bool = False
    #: formulas whose candidates came from the pieces of a max() or min(): substituted back
    pieces: tuple[Formula, ...] = ()


def _candidates(block: Block) -> tuple[dict[str, Compiled], ...]:
    """The block's roots in the scalar solver's order (`invert.rearranged`, `joint_roots`).
    A block with no closed form (none sympy finds, or none in time: one the scalar solver
    solved numerically) cannot be evaluated over arrays: refused, naming it."""
    if block.cancel is not None:  # formulas combined (napkinmath.solving.cancel)
        return ({block.unknowns[0].name: block.cancel.root},)
    stopped: OutOfTimeError | None = None
    try:
        if len(block.unknowns) == 1:
            (f,), (var,) = block.formulas, block.unknowns
            found = tuple({var.name: root} for root in rearranged(f, var.name))
        else:
            found = joint_roots(block.formulas, tuple(v.name for v in block.unknowns))
    except OutOfTimeError as cut:
        found, stopped = (), cut
    if found:
        return found
    names = ", ".join(v.name for v in block.unknowns)
    raise NumericError(
        f"{names} has no closed form from {', '.join(f.name for f in block.formulas)}"
        f"{f' ({stopped})' if stopped else ''}, so it cannot be computed over a range or "
        f"sweep at once; solve single points, or give {names} as an input",
        block.unknowns[0].name,
    )


@dataclass(frozen=True)
class Feasibility:
    """Every constraint of an answer at every point of a what-if: both sides (base units,
    the right one per `per` unit), where it could be evaluated, and where it holds."""

    constraints: tuple[Constraint, ...]
    lhs: dict[str, Array]
    rhs: dict[str, Array]
    #: True where both sides are finite and every value they read was admissible
    known: dict[str, Array]
    holds: dict[str, Array]

    @property
    def size(self) -> int:
        return len(next(iter(self.known.values()))) if self.known else 0

    def share(self, name: str) -> Array:
        """The left side as a fraction of the limit (above 1: violated); NaN where unknown.
        At a zero limit there is no fraction: 0 where the constraint holds (0 ≤ 0 is within
        it), infinity where it is broken."""
        with np.errstate(all="ignore"):
            ratio = self.lhs[name] / self.rhs[name]
        zero = np.where(self.holds[name], 0.0, np.inf)
        out = np.where(self.rhs[name] != 0, ratio, zero)
        return np.where(self.known[name], out, np.nan)

    def violated(self, name: str) -> Array:
        return self.known[name] & ~self.holds[name]

    @property
    def evaluated(self) -> Array:
        """True where at least one constraint could be evaluated."""
        out = np.zeros(self.size, dtype=bool)
        for known in self.known.values():
            out |= known
        return out

    @property
    def fits(self) -> Array:
        """True where every constraint evaluated there holds."""
        out = np.ones(self.size, dtype=bool)
        for name in self.known:
            out &= ~self.violated(name)
        return out

    def binding(self) -> tuple[list[str], Array]:
        """Per point, the constraint nearest its limit or furthest past it (the largest
        share; the first in library order on a tie) and that share; '' and NaN where none
        was evaluated."""
        names = [c.name for c in self.constraints]
        if not names:
            return [""] * self.size, np.full(self.size, np.nan)
        shares = np.vstack([self.share(n) for n in names])
        filled = np.where(np.isnan(shares), -np.inf, shares)
        index = np.argmax(filled, axis=0)
        top = filled[index, np.arange(self.size)]
        known = np.isfinite(top) | (top == np.inf)
        return (
            [names[i] if k else "" for i, k in zip(index.tolist(), known.tolist(), strict=True)],
            np.where(known, top, np.nan),
        )

    def taken(self, mask: Array) -> Feasibility:
        """The points where `mask` is True."""
        return Feasibility(
            self.constraints,
            {n: v[mask] for n, v in self.lhs.items()},
            {n: v[mask] for n, v in self.rhs.items()},
            {n: v[mask] for n, v in self.known.items()},
            {n: v[mask] for n, v in self.holds.items()},
        )

    @classmethod
    def joined(cls, parts: list[Feasibility]) -> Feasibility:
        """The points of every part in turn (a sweep over records: one part per record); a
        constraint a part lacks is unknown at its points. Constraints in library order."""
        from napkinmath.catalog.lookup import constraints

        order = {name: i for i, name in enumerate(constraints())}
        found = {c.name: c for p in parts for c in p.constraints}
        chosen = tuple(sorted(found.values(), key=lambda c: order.get(c.name, len(order))))

        def column(kind: str, name: str, p: Feasibility, empty) -> Array:
            own = getattr(p, kind)
            return own[name] if name in own else np.full(p.size, empty)

        def each(kind: str, empty) -> dict[str, Array]:
            return {
                c.name: np.concatenate([column(kind, c.name, p, empty) for p in parts])
                if parts
                else np.zeros(0)
                for c in chosen
            }

        return cls(
            chosen,
            each("lhs", np.nan),
            each("rhs", np.nan),
            each("known", False),
            each("holds", False),
        )


def _step(block: Block, rounding: bool = False) -> VectorStep:
    if block.cancel is not None:  # its one candidate holds no piece of a max() or min()
        return VectorStep(block, _candidates(block), rounding)
    return VectorStep(
        block,
        _candidates(block),
        rounding,
        needs_substitution(block.formulas, tuple(v.name for v in block.unknowns)),
    )


class VectorChain:
    """The steps of a solved question, evaluated on arrays of base-unit values.

    Built from a scalar `Result`, so that the vectorised chain is the very plan (rounding
    steps and checks included) whose derivation the user reads, and its constraints the
    ones the answer shows (with the blocks beyond the plan that compute what they read).
    """

    def __init__(
        self,
        steps: list[tuple[Block, bool]],
        checks: tuple[Formula, ...],
        constraints: tuple[Constraint, ...] = (),
        beyond: tuple[Block, ...] = (),
    ) -> None:
        self.steps = [_step(b, rounding) for b, rounding in steps]
        self.checks = checks
        #: the step that computes each variable
        self.computed = {v.name: s for s in self.steps for v in s.block.unknowns}
        self.constraints = constraints
        self.beyond = [_step(b) for b in beyond]

    @classmethod
    def from_result(cls, result) -> VectorChain:
        steps = [(Block(s.formulas, s.unknowns, s.cancel), s.rounding) for s in result.steps]
        wanted, beyond = getattr(result, "feasibility", ((), ()))
        return cls(
            steps,
            tuple(c.formula for c in result.checks if not c.beyond),
            tuple(wanted),
            tuple(beyond),
        )

    def feasibility(self, values: Mapping[str, Array], ok: Array) -> Feasibility:
        """The constraints at every point of `values` (what `evaluate` returned, `ok` its
        mask): the blocks beyond the plan first, then both sides of each constraint."""
        from napkinmath.solving.consistency import per_scale

        shape = ok.shape
        scratch: dict[str, Array] = dict(values)
        valid: dict[str, Array] = {n: ok for n in self.computed}
        lhs, rhs, known, holds = {}, {}, {}, {}
        with np.errstate(all="ignore"):
            for step in self.beyond:
                reads = {v.name for f in step.block.formulas for v in f.variables}
                if any(
                    n not in scratch and n not in (u.name for u in step.block.unknowns)
                    for n in reads
                ):
                    continue  # an input the answer did not bind: left unknown
                good = ok.copy()
                for name in reads:
                    if name in valid:
                        good &= valid[name]
                good &= self._run(step, scratch, shape)
                for v in step.block.unknowns:
                    valid[v.name] = good
            for c in self.constraints:
                names = [v.name for v in c.variables]
                if any(n not in scratch for n in names):
                    continue
                left, right = sides(c)
                scale = per_scale(c.per) if c.per else 1.0
                a = np.broadcast_to(np.asarray(evaluator(left)(scratch), dtype=float), shape)
                b = np.broadcast_to(
                    np.asarray(evaluator(right)(scratch), dtype=float) * scale, shape
                )
                good = ok & np.isfinite(a) & np.isfinite(b)
                for name in names:
                    if name in valid:
                        good = good & valid[name]
                lhs[c.name], rhs[c.name], known[c.name] = a, b, good
                holds[c.name] = good & ((a < b) if c.strict else (a <= b))
        chosen = tuple(c for c in self.constraints if c.name in known)
        return Feasibility(chosen, lhs, rhs, known, holds)

    @property
    def single_rooted(self) -> bool:
        """True when every step has one candidate solution (closed-form composition is exact)."""
        return all(len(s.candidates) == 1 for s in self.steps)

    def evaluate(
        self,
        inputs: Mapping[str, Array | float],
        shape: tuple[int, ...],
        tolerance: float | None = None,
        broadcast: Collection[str] | None = None,
    ) -> tuple[dict[str, Array], Array]:
        """Every computed variable over the arrays `inputs` (base units).

        Returns the values and a mask of the points where every step found an admissible
        root (values elsewhere are meaningless); with `tolerance`, points where a check
        disagrees raise InconsistentError. Each value is broadcast to `shape`, or with
        `broadcast` only those names: any other that no array input reaches stays a 0-d
        array (for callers that show only some of them at every point).
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
        return {
            n: v
            if v.shape == shape or (broadcast is not None and n not in broadcast)
            else np.broadcast_to(v, shape)
            for n, v in values.items()
        }, ok

    def _run(self, step: VectorStep, values: dict[str, Array], shape: tuple[int, ...]) -> Array:
        unknowns = step.block.unknowns
        if len(step.candidates) == 1 and not step.pieces:  # the common case: nothing to choose
            good = None
            for v in unknowns:
                x = np.asarray(evaluator(step.candidates[0][v.name])(values), dtype=float)
                values[v.name] = x
                mask = admissible(x, v)
                good = mask if good is None else good & mask
            assert good is not None  # a block has at least one unknown
            return good
        chosen = {v.name: np.full(shape, np.nan) for v in unknowns}
        found = np.zeros(shape, dtype=bool)
        for candidate in step.candidates:
            xs = {
                v.name: np.broadcast_to(
                    np.asarray(evaluator(candidate[v.name])(values), dtype=float), shape
                )
                for v in unknowns
            }
            good = ~found
            for v in unknowns:
                good &= admissible(xs[v.name], v)
            for f in step.pieces:
                good &= _satisfied(
                    f, {**values, **xs}, unknowns[0].name if len(unknowns) == 1 else None
                )
            for v in unknowns:
                chosen[v.name] = np.where(good, xs[v.name], chosen[v.name])
            found |= good
            if found.all():
                break
        values.update(chosen)
        return found

    def _check(self, f: Formula, values: Mapping[str, Array], ok: Array, tolerance: float) -> None:
        left, right = sides(f)
        lhs, rhs = evaluator(left)(values), evaluator(right)(values)
        scale = np.maximum(np.abs(lhs), np.abs(rhs))
        difference = np.where(scale > 0, np.abs(lhs - rhs) / np.where(scale > 0, scale, 1), 0)
        difference = np.where(ok, difference, 0.0)
        worst = float(np.max(difference)) if difference.size else 0.0
        if worst > tolerance:
            raise InconsistentError(
                f"the givens disagree with each other somewhere in the ranges: {f.title} "
                f"({f.name}) is {worst:.1%} apart at its worst point, tolerance "
                f"{tolerance:.1%}. Narrow the ranges, drop a given, or pass a larger tolerance.",
                [],
            )


def _satisfied(f: Formula, values: Mapping[str, Array], unknown: str | None) -> Array:
    """True where both sides of `f` agree (a root of the piece of a max() that holds there)
    and, with `unknown`, part when it moves by a millionth (as `invert.satisfies`)."""
    left, right = sides(f)
    lhs, rhs = evaluator(left)(values), evaluator(right)(values)
    good = np.isclose(lhs, rhs, rtol=1e-9, atol=1e-300)
    if unknown is not None:
        moved = {**values, unknown: values[unknown] * (1 - 1e-6)}
        lhs, rhs = evaluator(left)(moved), evaluator(right)(moved)
        good &= ~np.isclose(lhs, rhs, rtol=1e-8, atol=1e-300)
    return good


def no_root_error(chain: VectorChain, ok: Array, inputs: Mapping[str, Value]) -> NoRootError:
    """Name the first step that fails and an input point where it does."""
    bad = np.argwhere(~ok)
    where = tuple(bad[0]) if bad.size else ()
    known = variables()
    shown = []
    for name, value in inputs.items():
        arr = np.broadcast_to(np.asarray(value, dtype=float), ok.shape)
        if arr.size > 1 and not np.all(arr == arr.flat[0]):
            var = known[name]
            at = Quantity(float(arr[where]) / var.base_factor, var.unit)
            shown.append(f"{name} = {format_quantity(at)}")
    point = f" at {', '.join(shown)}" if shown else ""
    return NoRootError(
        f"no admissible answer{point}: some part of the ranges asks for "
        "something impossible (a value outside its variable's bounds); narrow "
        "the ranges",
        None,
    )
