"""Float versions of the library's own functions (no sympy): what compiled formulas call."""

from __future__ import annotations

import math


def _pow2_ceil(x: float) -> float:
    """The next power of two at or above `x` (pow2_ceil in formulas)."""
    return 2.0 ** math.ceil(math.log2(x) - 1e-12)


NUMERIC_FUNCTIONS = {"pow2_ceil": _pow2_ceil}
