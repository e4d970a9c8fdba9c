"""Whether a coupled block can fix its unknowns, from the formulas' trees (no sympy).

Two tests of `napkinmath.solving.plan.is_singular`, on the trees the library stores:

- a block of products of powers is linear in logarithms, ln lhs − ln rhs = Σ aⱼ ln xⱼ + c;
  it fixes its unknowns iff the exponent matrix (a per formula and unknown) has full rank,
  found exactly in rationals (`log_linear`, `exact_rank`);
- any other block: the generic rank of the Jacobian of lhs − rhs by the unknowns, the larger
  rank at two fixed pseudo-random points in [0.5, 2], each entry differentiated forward
  through the tree (`jacobian_rank`, `napkinmath.library.tree.dual`). A structurally square
  block whose Jacobian is singular everywhere (the fleet equation beside GPU-hours) stays
  below full rank at every point; a regular one reaches it at almost every point.

Both give what the sympy forms of the same tests gave (held equal over the decisions the
shipped rearrangements record by tests/test_singular.py).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from napkinmath.library.tree import Tree, dual, is_number, names

#: the seed of the points the Jacobian is evaluated at (fixed: the same answer every run)
SEED = 20261130
#: points drawn at most for `jacobian_rank`, to find two inside every function's domain
DRAWS = 12


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


def exact_rank(rows: Sequence[Sequence[Fraction]]) -> int:
    """The rank of a matrix of rationals: `rank` with no tolerance, in exact arithmetic."""
    return rank(rows, tolerance=0)


def jacobian_rank(blocks: Sequence[tuple[Tree, Tree]], unknowns: Sequence[str]) -> int:
    """The generic rank of d(lhs − rhs)/d unknowns over the formulas `blocks` (their two
    sides): the larger rank at two points where the gradients evaluate, of up to `DRAWS`
    drawn (a point can leave a function's domain: (1 − k/n)^x with k > n); full rank where
    none evaluates, so that the exact test decides."""
    free = sorted(set().union(*(names(t) for sides in blocks for t in sides)))
    rng = random.Random(SEED)
    wrt = {n: i for i, n in enumerate(unknowns)}
    ranks: list[int] = []
    for _ in range(DRAWS):
        point = {n: rng.uniform(0.5, 2.0) for n in free}
        try:
            rows = [_residual_gradient(sides, point, wrt) for sides in blocks]
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            continue
        if not all(isinstance(x, float) and math.isfinite(x) for row in rows for x in row):
            continue
        ranks.append(rank(rows))
        if len(ranks) == 2:
            break
    return max(ranks) if ranks else len(unknowns)


def rank(matrix: Sequence[Sequence[Any]], tolerance: float = 1e-9) -> int:
    """Rank by Gaussian elimination with partial pivoting, a pivot below `tolerance` times
    the largest entry counting as zero: floats, complex numbers (sympy's Jacobian may hold
    them) or, with no tolerance, Fractions exactly."""
    rows = [list(r) for r in matrix]
    scale = max((abs(x) for r in rows for x in r), default=0.0) or 1.0
    found, col, ncols = 0, 0, len(rows[0]) if rows else 0
    while found < len(rows) and col < ncols:
        pivot = max(range(found, len(rows)), key=lambda i: abs(rows[i][col]))
        if abs(rows[pivot][col]) <= tolerance * scale:
            col += 1
            continue
        rows[found], rows[pivot] = rows[pivot], rows[found]
        for i in range(found + 1, len(rows)):
            factor = rows[i][col] / rows[found][col]
            rows[i] = [a - factor * b for a, b in zip(rows[i], rows[found], strict=True)]
        found += 1
        col += 1
    return found


def _residual_gradient(
    sides: tuple[Tree, Tree], point: dict[str, float], wrt: dict[str, int]
) -> list[float]:
    """d(lhs − rhs) by each unknown at `point` (`tree.dual`)."""
    values = {n: (x, {wrt[n]: 1.0} if n in wrt else {}) for n, x in point.items()}
    (_, left), (_, right) = (dual(side, values) for side in sides)
    return [left.get(i, 0.0) - right.get(i, 0.0) for i in range(len(wrt))]
