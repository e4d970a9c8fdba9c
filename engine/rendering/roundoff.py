"""Round-off of zero: a result left over when the terms it comes from cancel.

`0.8 s − 800 ms` computes as 1.1×10⁻¹⁶ s in floating point; shown as is it reads as a tiny but
real wait. `cancels` finds the sums of an expression whose value is below `RELATIVE` of their
largest term and says whether the result is zero once they are taken as zero.
"""

from __future__ import annotations

import math

import sympy

#: a sum smaller than this share of its largest term is round-off (a float carries ~1e-16)
RELATIVE = 1e-12
ROUNDOFF_NOTE = "round-off: the terms cancel"


def _number(expr: sympy.Expr, values: dict[sympy.Symbol, sympy.Float]) -> float | None:
    try:
        value = float(expr.xreplace(values))
    except (TypeError, ValueError, ArithmeticError):
        return None
    return value if math.isfinite(value) else None


def cancels(expr: sympy.Expr, base_values: dict[str, float]) -> bool:
    """True when `expr` (over library symbols, `base_values` by name) is zero but for
    round-off: each sum in it that nearly cancels, taken as 0, makes the whole 0."""
    values = {s: sympy.Float(base_values[s.name]) for s in expr.free_symbols
              if s.name in base_values}
    if len(values) != len(expr.free_symbols):
        return False
    cancelled = {}
    for add in expr.atoms(sympy.Add):
        terms = [_number(t, values) for t in add.args]
        if any(t is None for t in terms):
            continue
        largest = max(abs(t) for t in terms)
        if largest > 0 and abs(math.fsum(terms)) <= RELATIVE * largest:
            cancelled[add] = sympy.Integer(0)
    if not cancelled:
        return False
    return _number(expr.xreplace(cancelled), values) == 0
