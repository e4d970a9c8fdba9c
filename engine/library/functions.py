"""The sympy side of declaring formulas: an unevaluated `Eq`, rounding functions, pow2_ceil,
the standard normal quantile.

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


class normal_quantile(sympy.Function):  # noqa: N801 - sympy functions are lower-case
    """The standard normal quantile Φ⁻¹(p) (the probit), for 0 < p < 1: Φ⁻¹(0.975) = 1.96.

    Declared for the statistics of many ranks (the expected slowest of N, a per-rank alarm
    threshold); its float twin is `napkinmath.library.numeric`'s. Formulas that use it are
    declared forward-only: sympy cannot solve through it.
    """

    nargs = 1

    @classmethod
    def eval(cls, arg: sympy.Expr) -> sympy.Expr | None:
        if arg == sympy.Rational(1, 2):
            return sympy.Integer(0)
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        """dΦ⁻¹/dp = 1/φ(Φ⁻¹(p)) = √(2π)·exp(Φ⁻¹(p)²/2): positive everywhere."""
        return sympy.sqrt(2 * sympy.pi) * sympy.exp(self**2 / 2)

    def _eval_is_real(self) -> bool | None:
        return self.args[0].is_real

    def _eval_evalf(self, prec: int) -> sympy.Expr | None:
        if self.args[0].is_Number:
            return (sympy.sqrt(2) * sympy.erfinv(2 * self.args[0] - 1)).evalf(prec)
        return None


#: Functions that round a quantity in its own unit; they keep its dimension.
ROUNDING_FUNCTIONS = (sympy.ceiling, sympy.floor, pow2_ceil)
