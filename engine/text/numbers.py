"""Numbers a person reads at a glance: percent for fractions, 11.06M USD, 15T token, 0 for
round-off.

Display only: a Result keeps its exact values (`r.value`, `to_dict`); these functions decide
how they are written.

- A variable declared as a fraction (dimensionless, bounds (0, 1), not an exponent; or one
  whose description says it is a fraction, or an efficiency) shows as a percent:
  ``mfu = 34.5%``, ``network_efficiency = 112%``.
- A count (param, token, GPU, node, request, sequence, USD) of a million or more takes the
  suffix practitioners write and napkinmath reads back: ``7B param``, ``15T token``,
  ``11.06M USD``, ``30.84M GPU·h``; below a million it keeps thousands separators
  (``16,384 GPU``, ``73,690 USD``).
- Everything else is `napkinmath.units.format_quantity` at `digits` significant figures.
"""

from __future__ import annotations

import math

import pint

from napkinmath.units import format_number, format_quantity, format_unit, powers

#: count units whose large values take a k/M/B/T-style suffix (not FLOP or bytes: they have
#: SI prefixes of their own)
COUNT_UNITS = frozenset({"param", "token", "GPU", "node", "request", "sequence", "USD"})
#: (threshold, suffix): the words practitioners use, read back by napkinmath's parser
_SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"))
DEFAULT_DIGITS = 4


def is_fraction(var: object) -> bool:
    """True for a variable declared as a share of a whole: shown as a percent."""
    unit = getattr(var, "unit", None)
    if (
        unit is None
        or not getattr(unit, "dimensionless", False)
        or str(unit) not in ("dimensionless", "")
    ):
        return False
    description = getattr(var, "description", "")
    if "exponent" in description:
        return False
    bounds = getattr(var, "bounds", None)
    if bounds is not None and bounds.lo == 0 and bounds.hi == 1:
        return True
    # an efficiency is a share of a rate even where it can pass 1 (a network efficiency with
    # in-network reduction): 112%, as the other efficiencies print
    name = getattr(var, "name", "")
    return "as a fraction" in description or name.endswith(("_fraction", "_efficiency"))


def format_percent(x: float, digits: int = DEFAULT_DIGITS, style: str = "text") -> str:
    """0.345 -> '34.5%' (LaTeX '34.5\\%')."""
    text = "0" if x == 0 else format_number(100 * x, sig=digits, style=style)
    return text + ("\\%" if style == "latex" else "%")


def _count_unit(q: pint.Quantity) -> bool:
    """True when the quantity's first numerator unit is a plain count (token, USD, ...)."""
    for name, power in powers(q.units._units).items():
        if power > 0:
            return name in COUNT_UNITS
    return False


def _scaled(x: float, digits: int, style: str) -> str | None:
    """11_060_000 -> '11.06M'; None outside a million .. a thousand trillion."""
    size = abs(x)
    if size < _SCALES[-1][0]:
        return None
    for threshold, suffix in reversed(_SCALES):  # M, B, T: the largest that keeps x >= 1
        rounded = float(f"{x / threshold:.{digits - 1}e}")
        if abs(rounded) < 1000:
            text = format_number(rounded, sig=digits, style=style)
            return f"{text}{suffix}" if style != "latex" else f"{text}\\,\\mathrm{{{suffix}}}"
    return None


def format_value(
    q: pint.Quantity, var: object = None, digits: int = DEFAULT_DIGITS, style: str = "text"
) -> str:
    """A quantity as a person writes it (see the module docstring); `var` is the library
    variable it is a value of (for percents), `style` 'text', 'latex' or 'ascii'."""
    magnitude = float(q.magnitude)
    if var is not None and is_fraction(var) and q.dimensionless and math.isfinite(magnitude):
        return format_percent(float(q.to("").magnitude), digits, style)
    if magnitude == 0:
        unit = format_unit(q.units, style=style)
        if not unit:
            return "0"
        return f"0\\,{unit}" if style == "latex" else f"0 {unit}"
    if math.isfinite(magnitude) and _count_unit(q):
        scaled = _scaled(magnitude, digits, style)
        if scaled is not None:
            unit = format_unit(q.units, style=style)
            return f"{scaled}\\,{unit}" if style == "latex" else f"{scaled} {unit}"
    return format_quantity(q, style=style, sig=digits)
