"""The sympy side of declaring formulas: an unevaluated `Eq`, rounding functions, pow2_ceil.

Formula modules import these through `napkinmath.library.declare`; only declaring the library
(or a reader that wants sympy) imports this module, and with it sympy.
"""

from __future__ import annotations

import sympy


def Eq(lhs: sympy.Expr, rhs: sympy.Expr) -> sympy.Eq:  # noqa: N802 - mirrors sympy.Eq
    """sympy.Eq without evaluation: formulas are declarations, never decided at import time.

    (sympy's evaluating Eq and ceiling consult the assumptions system, ~50 ms per formula.)
    """
    return sympy.Eq(lhs, rhs, evaluate=False)


def ceiling(arg: sympy.Expr) -> sympy.Expr:
    """Round up, unevaluated at declaration time (see `Eq`)."""
    return sympy.ceiling(arg, evaluate=False)


def floor(arg: sympy.Expr) -> sympy.Expr:
    """Round down, unevaluated at declaration time (see `Eq`)."""
    return sympy.floor(arg, evaluate=False)


class pow2_ceil(sympy.Function):  # noqa: N801 - sympy functions are lower-case by convention
    """Round up to the next power of two, keeping the unit: pow2_ceil(6193 GPU) = 8192 GPU."""

    nargs = 1

    @classmethod
    def eval(cls, arg: sympy.Expr) -> sympy.Expr | None:
        if arg.is_Number and arg > 0:
            return sympy.Integer(2) ** sympy.ceiling(sympy.log(arg, 2))
        return None


#: Functions that round a quantity in its own unit; they keep its dimension.
ROUNDING_FUNCTIONS = (sympy.ceiling, sympy.floor, pow2_ceil)
