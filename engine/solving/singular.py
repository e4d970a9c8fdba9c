"""Whether a coupled block can fix its unknowns, from the formulas' trees (no sympy).

Two tests of `napkinmath.solving.plan._is_singular`, on the trees the library stores:

- a block of products of powers is linear in logarithms, ln lhs − ln rhs = Σ aⱼ ln xⱼ + c;
  it fixes its unknowns iff the exponent matrix (a per formula and unknown) has full rank,
  found exactly in rationals (`log_linear`, `exact_rank`);
- any other block: the generic rank of the Jacobian of lhs − rhs by the unknowns, the larger
  rank at two fixed pseudo-random points in [0.5, 2], each entry differentiated forward
  through the tree (`jacobian_rank`). A structurally square block whose Jacobian is
  singular everywhere (the fleet equation beside GPU-hours) stays below full rank at every
  point; a regular one reaches it at almost every point.

Both give what the sympy forms of the same tests gave (held equal over the decisions the
shipped rearrangements record by tests/test_singular.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction

from napkinmath.library.numeric import NUMERIC_FUNCTIONS
from napkinmath.library.tree import Tree, is_number, names, number

#: the seed of the points the Jacobian is evaluated at (fixed: the same answer every run)
SEED = 20261130


def log_linear(sides: tuple[Tree, Tree], unknowns: Sequence[str]) -> list[Fraction] | None:
    """The exponent of each unknown in lhs / rhs when both sides are products of powers of
    variables with number exponents (and number factors), else None."""
    powers = dict.fromkeys(unknowns, Fraction(0))
    for side, sign in ((sides[0], 1), (sides[1], -1)):
        factors = side[1] if side[0] == "*" else (side,)
        for factor in factors:
            if is_number(factor):
                continue
            base, exponent = (factor[1], factor[2]) if factor[0] == "^" else (factor, ("i", 1))
            if base[0] == "s" and exponent[0] in ("i", "r", "f"):
                if base[1] in powers:
                    powers[base[1]] += sign * _fraction(exponent)
            elif names(factor) & powers.keys():
                return None  # a sum, a function or a power of an unknown with a variable exponent
    return [powers[n] for n in unknowns]


def _fraction(tree: Tree) -> Fraction:
    if tree[0] == "i":
        return Fraction(tree[1])
    if tree[0] == "r":
        return Fraction(tree[1], tree[2])
    return Fraction(tree[1])  # a float exponent, exactly


def exact_rank(rows: list[list[Fraction]]) -> int:
    """The rank of a matrix of rationals, by exact Gaussian elimination."""
    rows = [list(r) for r in rows]
    rank, ncols = 0, len(rows[0]) if rows else 0
    for col in range(ncols):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][col] != 0:
                factor = rows[i][col] / rows[rank][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[rank], strict=True)]
        rank += 1
    return rank


def jacobian_rank(blocks: Sequence[tuple[Tree, Tree]], unknowns: Sequence[str]) -> int:
    """The generic rank of d(lhs − rhs)/d unknowns over the formulas `blocks` (their two
    sides): the larger rank at two fixed points; full rank where it cannot be evaluated
    (a value outside a function's domain), so that the exact test decides."""
    free = sorted(set().union(*(names(t) for sides in blocks for t in sides)))
    rng = random.Random(SEED)
    wrt = {n: i for i, n in enumerate(unknowns)}
    best = 0
    for _ in range(2):
        point = {n: rng.uniform(0.5, 2.0) for n in free}
        try:
            rows = [_residual_gradient(sides, point, wrt) for sides in blocks]
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            return len(unknowns)
        if not all(math.isfinite(x) for row in rows for x in row):
            return len(unknowns)
        best = max(best, float_rank(rows))
    return best


def float_rank(rows: list[list[complex]], tolerance: float = 1e-9) -> int:
    """Rank by Gaussian elimination with partial pivoting, relative to the largest entry
    (complex entries too: sympy's Jacobian may hold them)."""
    rows = [list(r) for r in rows]
    scale = max((abs(x) for r in rows for x in r), default=0.0) or 1.0
    rank, col, ncols = 0, 0, len(rows[0]) if rows else 0
    while rank < len(rows) and col < ncols:
        pivot = max(range(rank, len(rows)), key=lambda i: abs(rows[i][col]))
        if abs(rows[pivot][col]) <= tolerance * scale:
            col += 1
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(rank + 1, len(rows)):
            factor = rows[i][col] / rows[rank][col]
            rows[i] = [a - factor * b for a, b in zip(rows[i], rows[rank], strict=True)]
        rank += 1
        col += 1
    return rank


# --- forward-mode differentiation of a tree on floats -------------------------------------
#: a value and its gradient by the unknowns (a list, one entry per unknown)
Dual = tuple[float, list[float]]


def _residual_gradient(sides: tuple[Tree, Tree], point: dict[str, float], wrt: dict[str, int]):
    (_, left), (_, right) = (_dual(side, point, wrt) for side in sides)
    return [a - b for a, b in zip(left, right, strict=True)]


def _dual(tree: Tree, point: dict[str, float], wrt: dict[str, int]) -> Dual:
    size = len(wrt)
    kind = tree[0]
    if kind == "s":
        grad = [0.0] * size
        if tree[1] in wrt:
            grad[wrt[tree[1]]] = 1.0
        return point[tree[1]], grad
    if is_number(tree):
        return number(tree), [0.0] * size
    if kind == "^":
        b, gb = _dual(tree[1], point, wrt)
        if is_number(tree[2]):
            k = number(tree[2])
            v = b**k
            d = k * b ** (k - 1) if k != 0 else 0.0
            return _real(v), [d * g for g in gb]
        e, ge = _dual(tree[2], point, wrt)
        v = _real(b**e)
        return v, [v * (x * math.log(b) + e * y / b) for x, y in zip(ge, gb, strict=True)]
    parts = [_dual(a, point, wrt) for a in tree[-1]]
    if kind == "+":
        grads = [g for _, g in parts]
        return math.fsum(v for v, _ in parts), [math.fsum(c) for c in zip(*grads, strict=True)]
    if kind == "*":
        values = [v for v, _ in parts]
        grad = [0.0] * size
        for i, (_, g) in enumerate(parts):
            others = math.prod(v for j, v in enumerate(values) if j != i)
            grad = [a + others * b for a, b in zip(grad, g, strict=True)]
        return math.prod(values), grad
    return _function(tree[1], parts, size)


def _real(x: object) -> float:
    if not isinstance(x, float):  # a negative base to a fractional power: complex
        raise ValueError("not a real number")
    return x


def _function(name: str, parts: list[Dual], size: int) -> Dual:
    values = [v for v, _ in parts]
    if name in ("Max", "Min"):  # the derivative of the argument taken; a tie averages them
        best = max(values) if name == "Max" else min(values)
        tied = [g for v, g in parts if v == best]
        return best, [math.fsum(col) / len(tied) for col in zip(*tied, strict=True)]
    (a, ga) = parts[0]
    if name in ("ceiling", "floor", "pow2_ceil"):  # a step: zero slope between its jumps
        steps = {"ceiling": math.ceil, "floor": math.floor, **NUMERIC_FUNCTIONS}
        return float(steps[name](a)), [0.0] * size
    if name == "log":
        return math.log(a), [g / a for g in ga]
    if name == "exp":
        e = math.exp(a)
        return e, [e * g for g in ga]
    if name == "Abs":
        s = math.copysign(1.0, a) if a else 0.0
        return abs(a), [s * g for g in ga]
    if name == "normal_quantile":
        q = NUMERIC_FUNCTIONS["normal_quantile"](a)
        density = math.exp(-q * q / 2) / math.sqrt(2 * math.pi)
        return q, [g / density for g in ga]
    raise ValueError(f"no derivative of {name}")
