"""The exact range of every step of a chain over a box of ranged inputs.

Step-by-step interval arithmetic overcounts a given that two steps share; here each computed
variable is treated as one function of all the ranged inputs. Where sympy proves the sign of
every partial derivative (through the whole chain, rounding taken as monotone), the variable
is monotone in each input and its extremes lie at corners of the box. Otherwise the extremes
are searched numerically: a grid over the box, then finer grids around the best point.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from napkinmath.errors import InputError
from napkinmath.whatif.spread import Bound
from napkinmath.whatif.vectorize import Value, VectorChain, no_root_error

if TYPE_CHECKING:
    import sympy

#: ranged inputs whose 2^k corners are enumerated; more is refused with a clear message
MAX_RANGED = 12
GRID_POINTS = 20_000
REFINEMENTS = 8


@dataclass
class Extreme:
    """The range of one variable over the box, and the inputs that produce each end."""

    low: float
    high: float
    low_at: dict[str, float]
    high_at: dict[str, float]
    monotone: bool  # proved: the ends are exact corners
    signs: dict[str, int] = field(default_factory=dict)  # +1/-1/0 per ranged input, if known


def composed(chain: VectorChain) -> dict[str, sympy.Expr] | None:
    """Every computed variable as one expression of the chain's inputs, or None when a step
    has several candidate roots (which one applies may change across the box)."""
    if not chain.single_rooted:
        return None
    exprs: dict[str, sympy.Expr] = {}
    for step in chain.steps:
        for name, root in step.candidates[0].items():
            expr = root.expr
            inner = {s: exprs[s.name] for s in expr.free_symbols if s.name in exprs}
            exprs[name] = expr.xreplace(inner) if inner else expr
    return exprs


def _unrounded(expr: sympy.Expr) -> sympy.Expr:
    """Rounding (ceiling, floor, power of two) is monotone: drop it for the derivative's sign."""
    from napkinmath.library.declare import ROUNDING_FUNCTIONS

    return expr.replace(lambda e: isinstance(e, ROUNDING_FUNCTIONS), lambda e: e.args[0])


def _sign(derivative: sympy.Expr) -> int | None:
    if derivative == 0:
        return 0
    if derivative.is_positive:
        return 1
    if derivative.is_negative:
        return -1
    return None


def _symbolic_signs(expr: sympy.Expr, names: tuple[str, ...]) -> tuple[int | None, ...]:
    """The sign of d expr / d x for each name, over all positive values of every variable."""
    import sympy

    smooth = _unrounded(expr)
    symbols = {s.name: s for s in smooth.free_symbols}
    return tuple(_sign(sympy.diff(smooth, symbols[n])) if n in symbols else 0 for n in names)


def signs(expr: sympy.Expr, bounds: list[Bound], fixed: dict[str, float]) -> dict[str, int | None]:
    """Per ranged input, the proven sign of the partial derivative (None when unproven).

    First with every variable free (positive where its bounds say so); then, for what is
    still open, with the fixed inputs put in as numbers.
    """
    import sympy

    names = tuple(b.name for b in bounds)
    found = dict(zip(names, _symbolic_signs(expr, names), strict=True))
    open_names = [n for n, s in found.items() if s is None]
    if open_names:
        numbers = {
            s: sympy.Float(fixed[s.name])
            for s in expr.free_symbols
            if s.name in fixed and s.name not in names
        }
        smooth = _unrounded(expr).xreplace(numbers)
        symbols = {s.name: s for s in smooth.free_symbols}
        for n in open_names:
            found[n] = _sign(sympy.diff(smooth, symbols[n])) if n in symbols else 0
    return found


def extremes(
    chain: VectorChain, fixed: dict[str, float], bounds: list[Bound], tolerance: float
) -> dict[str, Extreme]:
    """The range of every computed variable of `chain` over the box `bounds`.

    `fixed` holds the other inputs (base units). Corners are evaluated first (and the
    chain's checks with them); variables not proven monotone are then searched numerically.
    """
    if len(bounds) > MAX_RANGED:
        raise InputError(
            f"{len(bounds)} ranged inputs; a range answer takes at most "
            f"{MAX_RANGED} (use samples= for more)"
        )
    corners = np.array(list(itertools.product((0, 1), repeat=len(bounds))), dtype=float)
    ranged = {
        b.name: b.low_base + corners[:, i] * (b.high_base - b.low_base)
        for i, b in enumerate(bounds)
    }
    inputs: dict[str, Value] = {**fixed, **ranged}
    values, ok = chain.evaluate(inputs, (len(corners),), tolerance)
    if not ok.all():
        raise no_root_error(chain, ok, inputs)
    exprs = composed(chain) or {}
    found: dict[str, Extreme] = {}
    for name in chain.computed:
        column = values[name]
        lo, hi = int(np.argmin(column)), int(np.argmax(column))
        at = [{b.name: float(ranged[b.name][i]) for b in bounds} for i in (lo, hi)]
        proven = signs(exprs[name], bounds, fixed) if name in exprs else {}
        monotone = bool(proven) and all(s is not None for s in proven.values())
        extreme = Extreme(
            float(column[lo]),
            float(column[hi]),
            at[0],
            at[1],
            monotone,
            {k: v for k, v in proven.items() if v is not None},
        )
        if not monotone:
            _search(chain, fixed, bounds, name, extreme)
        found[name] = extreme
    return found


def _grid(bounds: list[tuple[float, float]], n: int) -> list[np.ndarray]:
    axes = [np.linspace(lo, hi, n) for lo, hi in bounds]
    return [g.ravel() for g in np.meshgrid(*axes, indexing="ij")]


def _search(
    chain: VectorChain, fixed: dict[str, float], bounds: list[Bound], name: str, extreme: Extreme
) -> None:
    """Refine `extreme` for `name` on grids over the box, zooming in on each end."""
    k = len(bounds)
    if not k:  # no ranged input reaches `name`: its corners are its only value
        return
    n = max(3, min(2001, int(GRID_POINTS ** (1 / k))))
    full = [(b.low_base, b.high_base) for b in bounds]
    for sense in ("low", "high"):
        box = list(full)
        for _ in range(REFINEMENTS):
            points = _grid(box, n)
            inputs: dict[str, Value] = dict(fixed)
            inputs.update({b.name: p for b, p in zip(bounds, points, strict=True)})
            values, ok = chain.evaluate(inputs, (len(points[0]),))
            if not ok.all():
                raise no_root_error(chain, ok, inputs)
            column = values[name]
            i = int(np.argmin(column) if sense == "low" else np.argmax(column))
            value = float(column[i])
            best = {b.name: float(p[i]) for b, p in zip(bounds, points, strict=True)}
            if sense == "low" and value < extreme.low:
                extreme.low, extreme.low_at = value, best
            if sense == "high" and value > extreme.high:
                extreme.high, extreme.high_at = value, best
            box = [
                (
                    max(lo, best[b.name] - (hi - lo) / (n - 1)),
                    min(hi, best[b.name] + (hi - lo) / (n - 1)),
                )
                for b, (lo, hi) in zip(bounds, box, strict=True)
            ]
