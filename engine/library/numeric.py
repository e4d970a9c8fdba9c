"""Float versions of the library's own functions (no sympy): what compiled formulas call."""

from __future__ import annotations

import math


def _pow2_ceil(x: float) -> float:
    """The next power of two at or above `x` (pow2_ceil in formulas)."""
    return 2.0 ** math.ceil(math.log2(x) - 1e-12)


def _normal_quantile(p: float) -> float:
    """The standard normal quantile Φ⁻¹(p), 0 < p < 1 (normal_quantile in formulas): the
    standard library's (Wichura's AS 241, full double precision). ValueError outside (0, 1)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


NUMERIC_FUNCTIONS = {"pow2_ceil": _pow2_ceil, "normal_quantile": _normal_quantile}
