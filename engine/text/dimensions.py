"""Dimensions in words: naming a dimensionality, spelling it in units, and saying how to fix
a mismatch ("multiply the right side by a time").
"""

from __future__ import annotations

import math
import re

import pint

from napkinmath.units import (
    Quantity,
    format_number,
    format_quantity,
    format_unit,
    humanize,
    powers,
    ureg,
)

#: Dimensions that are counts of things: a plain number for them means "that many".
COUNT_DIMENSIONS = frozenset(
    {
        "[compute]",
        "[parameter]",
        "[token]",
        "[accelerator]",
        "[node]",
        "[request]",
        "[sequence]",
        "[currency]",
    }
)

#: Base dimensions as a person names a quantity of them, and the unit that spells them.
_DIMENSION_WORDS = {
    "[time]": ("a time", "s"),
    "[information]": ("a data size", "B"),
    "[compute]": ("a FLOP count", "FLOP"),
    "[parameter]": ("a parameter count", "param"),
    "[token]": ("a token count", "token"),
    "[accelerator]": ("a GPU count", "GPU"),
    "[node]": ("a node count", "node"),
    "[request]": ("a request count", "request"),
    "[sequence]": ("a sequence count", "sequence"),
    "[currency]": ("an amount of money", "USD"),
    "[length]": ("a length", "m"),
    "[mass]": ("a mass", "g"),
}
#: Compound dimensions with a name of their own.
_COMPOUND_NAMES = {
    "B/s": "a data rate",
    "FLOP/s": "a FLOP rate",
    "FLOP/(s*GPU)": "a FLOP rate per GPU",
    "B/(s*GPU)": "a data rate per GPU",
    "B/GPU": "a data size per GPU",
    "1/s": "a frequency",
    "token/s": "a token rate",
    "request/s": "a request rate",
    "B/param": "bytes per parameter",
    "B/token": "bytes per token",
    "FLOP/B": "an arithmetic intensity",
    "FLOP/token": "FLOP per token",
    "FLOP/(param*token)": "FLOP per parameter per token",
    "USD/(GPU*s)": "a price per GPU-time",
    "GPU*s": "GPU-time",
    "USD/token": "a price per token",
    "GPU/node": "GPUs per node",
    "token/sequence": "tokens per sequence",
    "g*m^2/s^3": "a power",
    "g*m^2/s^2": "an energy",
}


def canonical_unit(dim: pint.util.UnitsContainer) -> str:
    """The dimensionality spelled in napkinmath's base spellings: B/(s*GPU), FLOP/s."""
    up: list[str] = []
    down: list[str] = []

    def order(item: tuple[str, float]) -> int:
        name, power = item
        if name == "[time]" and power > 0:
            return 100  # GPU·h, not h·GPU; but FLOP/(s·GPU) below the line
        return _ORDER.get(name, 99)

    for name, power in sorted(powers(dim).items(), key=order):
        spelled = _DIMENSION_WORDS.get(name, (name, name.strip("[]")))[1]
        term = spelled if abs(power) == 1 else f"{spelled}^{abs(power):g}"
        (up if power > 0 else down).append(term)
    text = "*".join(up) or "1"
    if down:
        text += "/" + (f"({'*'.join(down)})" if len(down) > 1 else down[0])
    return text


_ORDER = {
    "[currency]": 0,
    "[compute]": 1,
    "[information]": 2,
    "[mass]": 3,
    "[length]": 4,
    "[request]": 5,
    "[token]": 6,
    "[parameter]": 7,
    "[sequence]": 8,
    "[time]": 9,
    "[accelerator]": 10,
    "[node]": 11,
}


def dimension_name(dim: pint.util.UnitsContainer) -> str:
    """A dimensionality as a person names it: 'a data rate', 'a time', 'a plain number'."""
    if not dim:
        return "a plain number"
    if len(dim) == 1:
        ((name, power),) = dim.items()
        if power == 1 and name in _DIMENSION_WORDS:
            return _DIMENSION_WORDS[name][0]
    spelled = canonical_unit(dim)
    if spelled in _COMPOUND_NAMES:
        return _COMPOUND_NAMES[spelled]
    return f"something in {spelled.replace('*', '·')}"


def describe_dimension(q: pint.Quantity) -> str:
    """'141 GB, a data size [information]' style description used in error messages."""

    dim = q.dimensionality
    return f"{format_quantity(q)}, {dimension_name(dim)} [{dimension_text(dim)}]"


def dimension_fix(left: pint.Quantity, right: pint.Quantity) -> str:
    """How to make `right` the dimension of `left`, as a sentence.

    >>> dimension_fix(ureg.Quantity(141, "GB"), ureg.Quantity(900, "GB/s"))
    'multiply the right side by a time (or divide the left side by one)'
    """
    if right.dimensionless and not left.dimensionless:
        number = format_number(float(right.to("").magnitude))
        return f"give the right side a unit: {number} {format_unit(left.units)}?"
    if left.dimensionless and not right.dimensionless:
        number = format_number(float(left.to("").magnitude))
        return f"give the left side a unit: {number} {format_unit(right.units)}?"
    missing = left.dimensionality / right.dimensionality
    inverse = 1 / missing
    exponents = powers(missing)
    up = {k: v for k, v in exponents.items() if v > 0}
    down = {k: -v for k, v in exponents.items() if v < 0}
    if up and not down:
        return (
            f"multiply the right side by {dimension_name(missing)} (or divide the left side by one)"
        )
    if down and not up:
        return (
            f"divide the right side by {dimension_name(inverse)} (or multiply the left side by one)"
        )
    return f"multiply the right side by {dimension_name(missing)}"


def mismatch_message(what: str, left: pint.Quantity, right: pint.Quantity, rule: str) -> str:
    """'cannot add A and B: left is ..., right is ...; both sides ...; fix'."""
    return (
        f"{what}: the left side is {describe_dimension(left)} and the right side is "
        f"{describe_dimension(right)}; {rule}. Fix: {dimension_fix(left, right)}"
    )


def dimension_text(dim: pint.util.UnitsContainer) -> str:
    """A dimensionality in readable words: 'information/time', 'dimensionless'."""
    if not dim:
        return "dimensionless"
    exponents = powers(dim)
    up = [f"{k.strip('[]')}" + (f"^{v:g}" if v != 1 else "") for k, v in exponents.items() if v > 0]
    down = [
        f"{k.strip('[]')}" + (f"^{-v:g}" if v != -1 else "") for k, v in exponents.items() if v < 0
    ]
    text = "·".join(up) or "1"
    if down:
        text += "/" + ("(" + "·".join(down) + ")" if len(down) > 1 else down[0])
    return text


def unit_spelling(dimension: str) -> str | None:
    """The unit that spells a base dimension: '[time]' -> 's', '[accelerator]' -> 'GPU'."""
    words = _DIMENSION_WORDS.get(dimension)
    return words[1] if words else None


# --- the unit a person would choose, for any dimension ------------------------------------
_TIME = ureg.Quantity(1, "s").dimensionality
_BYTES = ureg.Quantity(1, "B").dimensionality
_BYTE_RATE = ureg.Quantity(1, "B/s").dimensionality
_POWER = ureg.Quantity(1, "W").dimensionality
_ENERGY = ureg.Quantity(1, "J").dimensionality
_FREQUENCY = ureg.Quantity(1, "Hz").dimensionality
_DECIMAL = ("", "k", "M", "G", "T", "P", "E")


def human(q: pint.Quantity) -> pint.Quantity:
    """`q` in the unit a person would choose: 274.2 ms, 1.12 TB, 989 TFLOP/(s·GPU), 64 GPU."""
    try:
        shown = _human(q)
    except (pint.PintError, ValueError, ArithmeticError, TypeError):
        return q
    return shown if math.isfinite(float(shown.magnitude)) else q


def _human(q: pint.Quantity) -> pint.Quantity:
    dim = q.dimensionality
    if not dim:
        return Quantity(float(q.to("").magnitude))
    if dim in (_TIME, _BYTES, _BYTE_RATE):
        return humanize(q)
    if dim == _POWER:
        return _prefixed(q.to("W"), "W", 1e3)
    if dim == _ENERGY:
        return _prefixed(q.to("Wh"), "Wh", 1e3)
    if dim == _FREQUENCY:  # 2 GHz, not 2×10⁹ 1/s
        return _prefixed(q.to("Hz"), "Hz", 1e3)
    spelled = canonical_unit(dim)
    time_power = powers(dim).get("[time]", 0)
    q = q.to(spelled)
    hours = re.sub(r"\bs\b", "h", spelled)
    if time_power > 0 and len(dim) > 1 and abs(float(q.to(hours).magnitude)) >= 1:
        q, spelled = q.to(hours), hours  # GPU·h for accelerator time
    elif time_power < 0 and "[currency]" in dim:
        q, spelled = q.to(hours), hours  # USD/(GPU·h) for prices
    if spelled.startswith("B") and not spelled.startswith("B*"):
        return _prefixed(q, spelled, 1e6)
    if spelled.startswith(("FLOP/s", "FLOP/(s")):
        return _prefixed(q, spelled, 1e3)
    return q


def _prefixed(q: pint.Quantity, unit: str, threshold: float) -> pint.Quantity:
    value = abs(float(q.magnitude))
    if value < threshold:
        return q
    index = min(int(math.log10(value) // 3), len(_DECIMAL) - 1)
    return q.to(_DECIMAL[index] + unit)
