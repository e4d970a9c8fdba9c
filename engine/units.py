"""The package's single pint registry and the formatting of numbers and units for people.

Everything that carries a unit in napkinmath is a `Quantity` of `ureg`. Units are defined in
`units.txt` (pint's own syntax); counts that people confuse (FLOP, param, token, GPU, USD, node,
request, sequence) are dimensions of their own.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

import pint
from pint.facets.plain import PlainQuantity, PlainUnit
from pint.util import UnitsContainer


def _registry() -> pint.UnitRegistry:
    """The registry of units.txt, built from the file in every process. (pint can keep its
    parsed definitions on disk, but as pickles, which run code when read: a cache that
    someone else could write would run their code. napkinmath loads nothing executable from
    a cache; building costs about 7 ms.)"""
    definitions = str(Path(__file__).with_name("units.txt"))
    return pint.UnitRegistry(definitions, on_redefinition="raise")


ureg = _registry()
Quantity = ureg.Quantity
Unit = ureg.Unit


def _direct(magnitude: float, unit: PlainUnit) -> pint.Quantity:
    """A Quantity of a float or int and a Unit of `ureg` made as pint's constructor makes it
    (a new object of the registry's class holding the magnitude and the unit's container),
    without the constructor's checks; anything else goes through the constructor."""
    if type(magnitude) not in (float, int) or type(unit) is not Unit:
        return Quantity(magnitude, unit)  # arrays, numpy scalars, text units: pint's checks
    q = object.__new__(Quantity)
    q._magnitude = magnitude
    q._units = unit._units
    return q


def _builds_as_pint(build: Callable[[float, PlainUnit], pint.Quantity]) -> bool:
    """Whether `build` makes the object pint's own constructor makes (the same class and
    the same attributes, of the same types), for a float and an int."""

    def state(q: pint.Quantity) -> tuple[type, dict[str, tuple[type, object]]]:
        return type(q), {k: (type(v), v) for k, v in vars(q).items()}

    unit = Unit("TFLOP/(s*GPU)")
    return all(state(build(x, unit)) == state(Quantity(x, unit)) for x in (989.5, 8))


#: `Quantity(magnitude, unit)`; for a Python float or int and a Unit of `ureg`, the same object
#: made without pint's checks of the arguments' types (0.3 µs against 5 µs; answers make one
#: per value). Built directly only where that gives what pint's constructor gives (checked
#: once, here: a pint that keeps more state falls back to the constructor).
new_quantity: Callable[[float, PlainUnit], pint.Quantity] = (
    _direct if _builds_as_pint(_direct) else Quantity
)

#: The smallest normal float (about 2.2e-308): a non-zero number below it has lost digits.
SMALLEST_NORMAL = sys.float_info.min


def out_of_float_range(value: float, was_nonzero: bool = False) -> str:
    """Why `value` is not a usable number ("not a number (NaN)", "infinite", "too small"), or
    "" when it is fine. A value that underflowed (0 from a non-zero start, or subnormal)
    counts as out of range: it would read as a silent 0."""
    if math.isnan(value):
        return "not a number (NaN)"
    if math.isinf(value):
        return "too large for a float (beyond about 1.8e308): it would read as infinity"
    if value != 0 and abs(value) < SMALLEST_NORMAL:
        return "too small for a float (below about 2.2e-308): it underflows to 0"
    if value == 0 and was_nonzero:
        return "too small for a float (below about 2.2e-308): it underflowed to 0"
    return ""


def base_units() -> dict[str, str]:
    """napkinmath's base dimensions and the root unit of each, from units.txt:
    {'[time]': 'second', '[length]': 'meter', '[mass]': 'gram', '[information]': 'bit', ...}."""
    found: dict[str, str] = {}
    for definition in ureg._units.values():
        reference = getattr(definition, "reference", None)
        if not getattr(definition, "is_base", False) or reference is None:
            continue
        items = dict(reference.items())
        if len(items) == 1 and next(iter(items.values())) == 1:
            found.setdefault(next(iter(items)), definition.name)
    return found


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_number(x: float, sig: int = 4, style: str = "text") -> str:
    """A number as a person writes it: 58.5, 6,193, 4.2×10²² (LaTeX: 4.2 \\times 10^{22})."""
    if x == 0 or not math.isfinite(x):
        return str(x)
    if 1e-3 <= abs(x) < 1e6:
        digits = max(sig - 1 - math.floor(math.log10(abs(x))), 0)
        text = f"{x:,.{digits}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text.replace(",", "{,}") if style == "latex" else text
    mantissa, exponent = f"{x:.{sig - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = int(exponent)
    if style == "latex":
        return f"{mantissa} \\times 10^{{{power}}}"
    if style == "ascii":
        return f"{mantissa}e{power}"
    return f"{mantissa}×10{str(power).translate(_SUPERSCRIPT)}"


def _symbol(name: str) -> str:
    try:
        return ureg.get_symbol(name)
    except (pint.UndefinedUnitError, AttributeError):
        return name


def powers(units: UnitsContainer) -> dict[str, float]:
    """The names in `units` (a unit's or a dimensionality's) with their powers:
    {'byte': 1, 'second': -1}. pint keeps each power as an int or a float (the registry's
    non-int type), though its types allow any scalar, complex included."""
    found: dict[str, float] = {}
    for name, power in units.items():
        if not isinstance(power, (int, float)):
            raise TypeError(f"the power of {name} is {power!r}, not a real number")
        found[name] = power
    return found


def format_unit(unit: PlainUnit | UnitsContainer, style: str = "text") -> str:
    """A unit in short symbols: FLOP/(s·GPU), GPU·h, GB/s (LaTeX: \\mathrm{FLOP/(s \\cdot GPU)})."""
    container = unit._units if isinstance(unit, PlainUnit) else unit
    # keyed by the names in their order: equal containers in another order print otherwise
    return _format_terms(tuple(powers(container).items()), style)


def _format_terms(terms: tuple[tuple[str, float], ...], style: str) -> str:
    up: list[tuple[str, float]] = []
    down: list[tuple[str, float]] = []
    for name, power in terms:
        (up if power > 0 else down).append((_symbol(name), abs(power)))
    dot = " \\cdot " if style == "latex" else "·" if style == "text" else "*"

    def term(sym: str, power: float) -> str:
        if power == 1:
            return sym
        p = int(power) if float(power).is_integer() else power
        if style == "latex":
            return f"{sym}^{{{p}}}"
        return f"{sym}{str(p).translate(_SUPERSCRIPT)}" if style == "text" else f"{sym}^{p}"

    top = dot.join(term(s, p) for s, p in up) or ("1" if down else "")
    bottom = dot.join(term(s, p) for s, p in down)
    text = top
    if down:
        text += "/" + (f"({bottom})" if len(down) > 1 else bottom)
    if style == "latex":
        return "\\mathrm{" + text + "}" if text else ""
    return text


def format_quantity(q: PlainQuantity, style: str = "text", sig: int = 4) -> str:
    """A quantity as '58.5 GPU' or '989 TFLOP/(s·GPU)'; a dimensionless one as a bare number."""
    number = format_number(float(q.magnitude), sig=sig, style=style)
    unit = format_unit(q.units, style=style)
    if not unit:
        return number
    return f"{number}\\,{unit}" if style == "latex" else f"{number} {unit}"


_TIME = ureg.Quantity(1, "s").dimensionality
_BYTES = ureg.Quantity(1, "B").dimensionality
_BYTE_RATE = ureg.Quantity(1, "B/s").dimensionality
_DECIMAL_PREFIXES = ["", "k", "M", "G", "T", "P", "E"]
#: times under a microsecond: the largest unit of at least 1 (ps below that)
_SHORT_TIMES = ((1e-9, "ns"), (1e-12, "ps"))


def picks_by_size(dimensionality: UnitsContainer) -> bool:
    """Whether `humanize` picks the unit of this dimension by the quantity's size (times,
    bytes, byte rates); any other goes to the declared unit whatever its size."""
    return dimensionality in (_TIME, _BYTES, _BYTE_RATE)


def humanize(q: pint.Quantity, unit: str | pint.Unit | None = None) -> pint.Quantity:
    """Express `q` in the unit a person would choose.

    Times pick ps, ns, µs, ms, seconds, minutes, hours or days by size; bytes and byte rates
    pick a decimal prefix (GB, TB/s); anything else goes to `unit` (the variable's declared
    unit) when given.
    """
    dim = q.dimensionality
    magnitude = abs(float(q.to_base_units().magnitude))
    if dim == _TIME:
        seconds = magnitude * (1 + 1e-9)  # 0.999999999 s reads as 1 s
        if seconds == 0:  # 0 s, not 0 µs
            return q.to("s")
        if seconds < 1e-6:  # 3.259 ps, not 3.259×10⁻⁶ µs
            return q.to(next(n for limit, n in _SHORT_TIMES if seconds >= limit or n == "ps"))
        for limit, name in ((1e-3, "µs"), (1, "ms"), (120, "s"), (7200, "min"), (3 * 86400, "h")):
            if seconds < limit:
                return q.to(name)
        return q.to("day")
    if dim in (_BYTES, _BYTE_RATE):
        base = "B" if dim == _BYTES else "B/s"
        value = q.to(base).magnitude
        index = 0
        while index < len(_DECIMAL_PREFIXES) - 1 and abs(value) >= 1000 ** (index + 1):
            index += 1
        return q.to(_DECIMAL_PREFIXES[index] + base)
    if unit is not None:
        return q.to(unit)
    return q
