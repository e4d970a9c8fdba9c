"""Steps solved numerically: where sympy finds no closed form (or none within its time,
`napkinmath.deadline`), the unknowns are found from the formulas' two sides as numbers.

One unknown: the residual lhs − rhs is evaluated on a grid over the variable's bounds (in
base units; `GRID_PER_DECADE` points a decade, logarithmic, on each side of zero that the
bounds allow, from 10⁻³⁰ to 10⁴⁰ where a bound is open), each sign change is narrowed to a
root by the Illinois method (its own, which never leaves the bracket: a formula may be undefined
just outside it), and a root is kept where the residual there is
zero to `RESIDUAL` of the sides' size (a sign change at a pole is not a root). The search is
complete for roots where the residual changes sign between grid points; a root where it only
touches zero, or two roots closer than the grid's step, can be missed, and a refusal says so.

Several unknowns (a coupled block): Newton's method in mpmath (`findroot`, multidimensional)
from `STARTS` fixed starting points, each unknown in logarithms where its bounds are
positive, a solution kept where every residual vanishes to `RESIDUAL` and every unknown is
inside its bounds. Deterministic: fixed grids and starts, no random state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from napkinmath.library.declare import Variable

#: grid points per decade of the bounds
GRID_PER_DECADE = 20
#: the smallest and largest magnitude searched where a bound is open or zero (base units)
SMALLEST, LARGEST = 1e-30, 1e40
#: a residual below this share of the sides' magnitude is zero
RESIDUAL = 1e-9
#: starting points tried for a coupled block
STARTS = 12

#: a note on a step solved this way ({why}: `CUT_OFF` or `NO_CLOSED_FORM`)
NOTE = "solved numerically ({why}): its two sides agree to 1 part in 10⁹ or better"
CUT_OFF = "no closed form within napkinmath's bounds on symbolic work"
NO_CLOSED_FORM = "sympy finds no closed form"


def admissible(x: float, var: Variable) -> bool:
    """Whether `x` (base units) is a finite value inside `var`'s bounds."""
    return math.isfinite(x) and var.bounds.contains(x / var.base_factor)


def _grid(var: Variable) -> list[float]:
    """Points over `var`'s bounds, in base units, in increasing order."""
    b, factor = var.bounds, var.base_factor
    lo, hi = b.lo * factor, b.hi * factor
    points: list[float] = []
    for sign in (-1.0, 1.0):
        # the magnitudes this side of zero: [inner, outer]
        near = 0.0 if (lo < 0 < hi) else (lo if sign > 0 else -hi)
        far = hi if sign > 0 else -lo
        if far <= 0:
            continue
        inner = max(near, SMALLEST) if near >= 0 else SMALLEST
        outer = min(far, LARGEST)
        if outer <= inner:
            continue
        decades = math.log10(outer / inner)
        count = max(int(decades * GRID_PER_DECADE), 8)
        side = [inner * (outer / inner) ** (i / count) for i in range(count + 1)]
        points.extend(sign * x for x in side)
    if lo <= 0 <= hi:
        points.append(0.0)
    return sorted(p for p in set(points) if var.bounds.contains(p / factor))


def roots_in_bounds(
    lhs: Callable[[dict[str, float]], float],
    rhs: Callable[[dict[str, float]], float],
    var: Variable,
    values: Mapping[str, float],
) -> list[float]:
    """Every root of lhs − rhs in `var` inside its bounds that the grid brackets, in
    increasing order (base units)."""
    point = dict(values)

    def sides(x: float) -> tuple[float, float] | None:
        point[var.name] = x
        try:
            left, right = lhs(point), rhs(point)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            return None
        if not (math.isfinite(left) and math.isfinite(right)):
            return None
        return left, right

    def residual(x: float) -> float:
        found = sides(float(x))
        if found is None:
            raise ValueError("outside the formula's domain")
        return found[0] - found[1]

    def vanishes(x: float) -> bool:
        found = sides(x)
        if found is None:
            return False
        scale = max(abs(found[0]), abs(found[1]))
        return abs(found[0] - found[1]) <= RESIDUAL * scale if scale else True

    found: list[float] = []
    previous: tuple[float, float] | None = None
    for x in _grid(var):
        s = sides(x)
        if s is None:
            previous = None
            continue
        r = s[0] - s[1]
        if r == 0:
            found.append(x)
        elif previous is not None and previous[1] != 0 and (previous[1] < 0) != (r < 0):
            root = _bracketed(residual, previous[0], previous[1], x, r)
            if previous[0] <= root <= x and vanishes(root):
                found.append(root)
        previous = (x, r)
    return [x for i, x in enumerate(found) if i == 0 or not math.isclose(x, found[i - 1])]


#: steps of the bracketing search at most (Illinois converges superlinearly: far more than a
#: double needs)
STEPS = 200


def _bracketed(f: Callable[[float], float], a: float, fa: float, b: float, fb: float) -> float:
    """A root of `f` between `a` and `b` (fa, fb of opposite signs) by the Illinois method,
    never evaluating outside [a, b]; a point where `f` cannot be evaluated halves the bracket
    instead. NaN when it fails."""
    side = 0
    for _ in range(STEPS):
        c = (a * fb - b * fa) / (fb - fa) if fb != fa else (a + b) / 2
        if not (min(a, b) < c < max(a, b)):
            c = (a + b) / 2
        try:
            fc = f(c)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            fc = math.nan
        if math.isnan(fc):  # cannot be evaluated here: bisect toward the evaluable end
            c = (a + b) / 2
            try:
                fc = f(c)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                return math.nan
        if fc == 0 or abs(b - a) <= 4e-16 * max(abs(a), abs(b)):
            return c
        if (fc < 0) == (fb < 0):
            b, fb = c, fc
            if side == -1:
                fa /= 2
            side = -1
        else:
            a, fa = c, fc
            if side == 1:
                fb /= 2
            side = 1
    return (a + b) / 2


def joint_solution(
    residuals: Sequence[Callable[[dict[str, float]], float]],
    scales: Sequence[Callable[[dict[str, float]], float]],
    unknowns: Sequence[Variable],
    values: Mapping[str, float],
) -> dict[str, float] | None:
    """A solution of every residual (lhs − rhs) = 0 for `unknowns` inside their bounds by
    Newton's method from fixed starts, or None when none converges (base units)."""
    import mpmath

    logs = [v.bounds.lo >= 0 for v in unknowns]
    point = dict(values)

    def at(ys: Sequence[float]) -> dict[str, float]:
        for v, y, log in zip(unknowns, ys, logs, strict=True):
            point[v.name] = math.exp(float(y)) if log else float(y)
        return point

    def system(*ys: float) -> list[float]:
        p = at(ys)
        return [r(p) for r in residuals]

    for start in _starts(logs):
        try:
            ys = mpmath.findroot(system, start, maxsteps=50)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        ys = [float(y) for y in (ys if len(unknowns) > 1 else [ys])]
        try:
            p = at(ys)
            ok = all(
                abs(r(p)) <= RESIDUAL * max(s(p), 1e-300)
                for r, s in zip(residuals, scales, strict=True)
            )
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        xs = {v.name: p[v.name] for v in unknowns}
        if ok and all(admissible(xs[v.name], v) for v in unknowns):
            return xs
    return None


def _starts(logs: Sequence[bool]) -> list[list[float]]:
    """Fixed starting points: every unknown at 1 (its base unit), then apart by decades,
    alternately up and down (an unknown that may be negative: ±10^k)."""
    spreads = (0.0, 3.0, -3.0, 6.0, -6.0, 9.0, -9.0, 12.0, 1.5, -1.5, 4.5, -4.5)[:STARTS]
    starts = []
    for i, decades in enumerate(spreads):
        start = []
        for j, log in enumerate(logs):
            shift = decades if (i + j) % 2 == 0 else -decades
            start.append(shift * math.log(10) if log else 10.0**shift * (-1) ** (i + j))
        starts.append(start)
    return starts
