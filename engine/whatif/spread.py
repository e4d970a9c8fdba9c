"""Uncertain givens: ranges (``0.3..0.5``), distributions (``"0.3 to 0.5"``) and sweep axes.

    mfu=0.3..0.5            a range: the answer is the exact range over every range given
    mfu=35%..45%            percent and units on both ends ("100 GB/s..400 GB/s", "1k..16k")
    mfu="0.3 to 0.5"        a lognormal with 90% of its mass between the ends (Squiggle's and
                            Guesstimate's convention); "normal 0.3 to 0.5", "uniform 0.3 to 0.5"
    mfu="0.4 ± 0.05"        a normal of mean 0.4 and standard deviation 0.05 (also "+/-"): its
                            5th and 95th percentiles are mean ∓ 1.645·sd
    n_gpus=1k..16k:log:9    a sweep axis: 9 points, evenly spaced in log (":lin:5" linear)
    n_gpus=1024,2048,4096   a sweep axis of explicit values

In Python a 2-tuple is a range and `lognormal`, `normal`, `uniform` build distributions.
Each end goes through the same parser and checks (dimension, bounds) as any given.
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeGuard

import pint

from napkinmath import arguments
from napkinmath.errors import InputError, NapkinError
from napkinmath.library.declare import Variable
from napkinmath.text.values import to_quantity
from napkinmath.units import Quantity, format_number, format_quantity, format_unit, humanize
from napkinmath.whatif.budget import MAX_POINTS

if TYPE_CHECKING:
    import numpy as np

#: z of the 95th percentile: a 90% interval spans ±1.6449 standard deviations.
Z90 = 1.6448536269514722
KINDS = ("range", "lognormal", "normal", "uniform")
_KIND_WORD = re.compile(r"^\s*(lognormal|normal|uniform)\b\s*:?\s*(.*)$", re.S)
_AXIS = re.compile(r"^(?P<range>.+?\.\..+?)(?::(?P<scale>lin|linear|log))?(?::(?P<n>\d+))?$", re.S)
#: one axis may hold as many points as a whole grid (`budget.MAX_POINTS`)
MAX_AXIS_POINTS = MAX_POINTS


@dataclass(frozen=True)
class Interval:
    """low … high, both pint Quantities in one unit: an answer's range or a ranged given."""

    low: pint.Quantity[float]
    high: pint.Quantity[float]

    @property
    def mid(self) -> pint.Quantity[float]:
        return (self.low + self.high) / 2

    @property
    def width(self) -> pint.Quantity[float]:
        return self.high - self.low

    def to(self, unit: str | pint.Unit) -> Interval:
        """Both ends in `unit` ("day", "GiB", a pint Unit) of the interval's dimension."""
        target = _unit(unit)
        if not self.low.is_compatible_with(target):
            from napkinmath.text.dimensions import dimension_text

            raise InputError(
                f"unit={arguments.shown(unit)}: this interval is "
                f"[{dimension_text(self.low.dimensionality)}], which cannot be "
                f"shown in {format_unit(target) or 'plain numbers'}; give a unit "
                f"such as {format_unit(self.high.units) or '%'!r}",
                "unit",
            )
        return Interval(self.low.to(target), self.high.to(target))

    def __iter__(self) -> Iterator[pint.Quantity[float]]:
        return iter((self.low, self.high))

    def __contains__(self, q: object) -> bool:
        if not isinstance(q, pint.Quantity):
            q = Quantity(float(q), self.low.units)  # type: ignore[arg-type]
        return bool(self.low <= q <= self.high)

    def __str__(self) -> str:
        return format_interval(self.low, self.high)

    def __repr__(self) -> str:
        return f"Interval({self})"


def _unit(unit: object) -> pint.Unit:
    """A unit chosen to show an interval in: text ("day"; "" for plain numbers) or a Unit."""
    from napkinmath.text.values import parse_unit
    from napkinmath.units import ureg

    if isinstance(unit, pint.Unit):
        return unit if unit._REGISTRY is ureg else parse_unit(str(unit), "unit")
    if isinstance(unit, str) and not unit.strip():
        return ureg.dimensionless
    if not isinstance(unit, str):
        raise InputError(
            f"unit={arguments.shown(unit)}: expected a unit such as 'hour' or 'GiB'", "unit"
        )
    return parse_unit(unit, "unit")


def format_interval(
    low: pint.Quantity, high: pint.Quantity, style: str = "text", variable: Variable | None = None
) -> str:
    """'9.07 … 15.1 day': both ends in the unit a person would choose for the larger one;
    a `variable` declared as a fraction shows in percent, '30% … 50%'."""
    from napkinmath.text.numbers import format_percent, is_fraction

    dots = r" \ldots " if style == "latex" else " … "
    if variable is not None and is_fraction(variable) and low.dimensionless and high.dimensionless:
        return dots.join(
            format_percent(float(q.to("").magnitude), style=style) for q in (low, high)
        )
    unit = high.units
    ends = [float(q.to(unit).magnitude) for q in (low, high)]
    sig = 4
    number = [format_number(x, style=style) for x in ends]
    while number[0] == number[1] and ends[0] != ends[1] and sig < 8:  # 1.5612 … 1.5634×10²³
        sig += 1
        number = [format_number(x, sig=sig, style=style) for x in ends]
    text = format_unit(unit, style=style)
    joined = number[0] + dots + number[1]
    if number[0] == number[1]:  # equal ends, or equal to 8 digits: one number
        single = format_quantity(Quantity(ends[1], unit), style=style)
        return single + (r"\text{ (both ends)}" if style == "latex" else " (both ends)")
    if not text:
        return joined
    return f"{joined}\\,{text}" if style == "latex" else f"{joined} {text}"


@dataclass(frozen=True)
class Spread:
    """An uncertain value as the user wrote it, before it is checked against a variable."""

    kind: str  # one of KINDS
    low: object
    high: object
    written: str = ""  # "0.4 ± 0.05" when the ends were worked out from mean ± sd

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InputError(f"unknown kind of spread {self.kind!r}: use one of {', '.join(KINDS)}")


def lognormal(p5: object, p95: object) -> Spread:
    """A lognormal with 90% of its mass between `p5` and `p95` (``"a to b"`` in text)."""
    return Spread("lognormal", _end_given(p5, "p5"), _end_given(p95, "p95"))


def normal(p5: object, p95: object) -> Spread:
    """A normal with 90% of its mass between `p5` and `p95`."""
    return Spread("normal", _end_given(p5, "p5"), _end_given(p95, "p95"))


def uniform(low: object, high: object) -> Spread:
    """Every value between `low` and `high` equally likely."""
    return Spread("uniform", _end_given(low, "low"), _end_given(high, "high"))


def _end_given(value: object, argument: str) -> object:
    """An end of a distribution as given: a number, a text such as '2 h', or a Quantity;
    checked against its variable when the spread is bound."""
    if isinstance(value, (str, pint.Quantity)) or (
        isinstance(value, numbers.Real) and not isinstance(value, bool)
    ):
        return value
    raise InputError(
        f"{argument}={arguments.shown(value)}: expected a number or a quantity "
        "such as 0.3 or '2 h'",
        argument,
    )


@dataclass(frozen=True)
class Bound:
    """A spread checked against its variable: both ends as Quantities and in base units."""

    variable: Variable
    kind: str
    low: pint.Quantity
    high: pint.Quantity
    written: str = ""  # "0.4 ± 0.05": how the user wrote it, when not as the two ends

    @property
    def name(self) -> str:
        return self.variable.name

    @property
    def low_base(self) -> float:
        return float(self.low.m_as(self.variable.unit)) * self.variable.base_factor

    @property
    def high_base(self) -> float:
        return float(self.high.m_as(self.variable.unit)) * self.variable.base_factor

    @property
    def interval(self) -> Interval:
        unit = humanize(self.high, self.variable.display_unit).units
        return Interval(self.low.to(unit), self.high.to(unit))

    def describe(self) -> str:
        """'0.3 … 0.5 (range)', '5 min … 2 h (range)', '0.3 … 0.5 (lognormal, 90% ...)'."""
        what = {
            "range": "range",
            "uniform": "uniform",
            "lognormal": "lognormal, 90% of it between the ends",
            "normal": "normal, 90% of it between the ends",
        }[self.kind]
        low, high = (humanize(q, self.variable.display_unit) for q in (self.low, self.high))
        shown = (
            format_interval(low, high, variable=self.variable)
            if low.units == high.units
            else f"{format_quantity(low)} … {format_quantity(high)}"
        )
        if self.written:  # said as read: the ends were worked out from mean ± sd
            what += f"; read from {self.written} as mean ± standard deviation"
        return f"{shown} ({what})"

    def sample(self, rng, n: int):
        """`n` draws in base units (numpy Generator `rng`)."""
        lo, hi = self.low_base, self.high_base
        if self.kind in ("range", "uniform"):
            return rng.uniform(lo, hi, n)
        if self.kind == "normal":
            return rng.normal((lo + hi) / 2, (hi - lo) / (2 * Z90), n)
        mu = (math.log(lo) + math.log(hi)) / 2
        return rng.lognormal(mu, (math.log(hi) - math.log(lo)) / (2 * Z90), n)


def is_spread_text(value: object) -> bool:
    """Whether a text given is a range or a distribution rather than one value."""
    return isinstance(value, str) and (
        ".." in value
        or " to " in value
        or _KIND_WORD.match(value) is not None
        or _PLUS_MINUS.search(value) is not None
    )


def is_spread(value: object) -> bool:
    return isinstance(value, (Spread, tuple)) or is_spread_text(value)


def to_spread(value: object, name: str) -> Spread:
    """A tuple, a Spread or a text such as '0.3..0.5' / '0.3 to 0.5', as a Spread."""
    if isinstance(value, Spread):
        return value
    if isinstance(value, tuple):
        if len(value) != 2:
            raise InputError(
                f"{name}={value!r}: a range is a pair (low, high), got {len(value)} values", name
            )
        return Spread("range", *value)
    text = str(value)
    if _PLUS_MINUS.search(text):
        return _mean_sd(text, name)
    kind = None
    word = _KIND_WORD.match(text)
    if word:
        kind, text = word.group(1), word.group(2)
    for separator, default in (("..", "range"), (" to ", "lognormal")):
        if separator in text:
            low, _, high = text.partition(separator)
            if separator in high:
                raise InputError(f"{name}={value!r}: a range has two ends, like 0.3..0.5", name)
            return Spread(kind or default, low.strip(), high.strip())
    raise InputError(
        f"{name}={value!r}: write a {kind or 'range'} with two ends, like "
        f"'{kind + ' ' if kind else ''}0.3 to 0.5' or 0.3..0.5",
        name,
    )


def _mean_sd(text: str, name: str) -> Spread:
    """'0.4 ± 0.05', '100 ms +/- 10 ms', '40% ± 5%': a normal with that mean and standard
    deviation, as its 5th and 95th percentiles mean ∓ Z90·sd (a bare number borrows the
    other part's unit: '100 ± 10 ms')."""
    from napkinmath.errors import ParseError
    from napkinmath.text.values import parse_quantity

    parts = _PLUS_MINUS.split(text)
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise InputError(
            f"{name}={text!r}: write a mean and a standard deviation, like '0.4 ± 0.05' or "
            "'0.4 +/- 0.05'",
            name,
        )
    mean_text, sd_text = (p.strip() for p in parts)
    try:
        mean, sd = parse_quantity(mean_text), parse_quantity(sd_text)
        if mean.dimensionless != sd.dimensionless:  # '100 ± 10 ms': one unit for both
            unit = _unit_part(sd_text) or _unit_part(mean_text)
            if unit and mean.dimensionless and not _unit_part(mean_text):
                mean = parse_quantity(f"{mean_text} {unit}")
            elif unit and sd.dimensionless and not _unit_part(sd_text):
                sd = parse_quantity(f"{sd_text} {unit}")
        if mean.dimensionality != sd.dimensionality:
            raise InputError(
                f"{name}={text!r}: the mean ({mean_text}) and the standard deviation "
                f"({sd_text}) need one unit, like '100 ms ± 10 ms'",
                name,
            )
        sd = sd.to(mean.units)
    except ParseError as exc:
        raise InputError(f"{name}: {exc}", name) from None
    if not float(sd.magnitude) > 0:
        raise InputError(
            f"{name}={text!r}: the standard deviation must be above 0; for one value write "
            f"{mean_text} alone",
            name,
        )
    shown = f"{' '.join(mean_text.split())} ± {' '.join(sd_text.split())}"
    return Spread("normal", mean - Z90 * sd, mean + Z90 * sd, written=shown)


#: the '±' of "mean ± sd" (also '+/-' and '+-', as typed without the symbol)
_PLUS_MINUS = re.compile(r"\s*(?:±|\+/-|\+-)\s*")


def bind_spread(spread: Spread, var: Variable) -> Bound:
    """Check both ends against the variable (dimension, bounds) and low < high."""
    name = var.name
    try:
        low, high = _end(spread.low, spread.high, var), _end(spread.high, spread.low, var)
    except InputError as exc:
        if not spread.written:
            raise
        raise InputError(
            f"{name}={spread.written!r} is read as a normal of that mean and standard deviation, "
            f"whose 5th and 95th percentiles are {_shown_end(spread.low)} and "
            f"{_shown_end(spread.high)}: {exc}",
            name,
        ) from None
    if spread.kind == "lognormal" and low.magnitude <= 0:
        raise InputError(
            f"{name}: a lognormal ('a to b') needs positive ends; for a range "
            "that includes 0 use uniform or a..b",
            name,
        )
    if not low < high:
        raise InputError(
            f"{name}: the low end {format_quantity(low)} must be below the high "
            f"end {format_quantity(high)} (write low..high)",
            name,
        )
    return Bound(var, spread.kind, low, high, spread.written)


def _shown_end(value: object) -> str:
    return format_quantity(value) if isinstance(value, pint.Quantity) else str(value)


def _end(value: object, other: object, var: Variable) -> pint.Quantity:
    """One end; a bare number borrows the other end's unit ('20..30 days')."""
    try:
        return to_quantity(_stripped(value), var)
    except InputError:
        if isinstance(value, str) and isinstance(other, str):
            unit = _unit_part(other)
            if unit:
                try:
                    return to_quantity(f"{value} {unit}", var)
                except NapkinError:
                    pass
        raise


def _stripped(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


def _unit_part(text: str) -> str:
    match = re.match(r"^\s*[-+0-9.eE]+\s*([A-Za-z%µ].*)$", text)
    return match.group(1).strip() if match else ""


# --- sweep axes ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Axis:
    """The values of one swept input (base units, a float64 array), and how they were
    spaced."""

    variable: Variable
    values: np.ndarray
    scale: str  # "linear", "log" or "list"

    @property
    def name(self) -> str:
        return self.variable.name


def _point_count(digits: str | None, default_points: int) -> int:
    """The N of 'low..high:N' (a number too long to be a count stays over every cap)."""
    if not digits:
        return default_points
    return int(digits) if len(digits) <= 12 else 10**12


def axis_length(value: object, default_points: int = 11) -> int | None:
    """How many points `to_axis` makes of `value`, counted without reading any value (None:
    an iterable without a length, counted only by reading it)."""
    if isinstance(value, str):
        text = value.strip().strip("[]")
        match = _AXIS.match(text)
        if match:
            return _point_count(match.group("n"), default_points)
        return sum(1 for part in text.split(",") if part.strip())
    if isinstance(value, (Spread, tuple)):
        return default_points
    try:
        return len(value)  # type: ignore[arg-type]
    except TypeError:
        return None if hasattr(value, "__iter__") else 1


def to_axis(value: object, var: Variable, default_points: int = 11) -> Axis:
    """'1k..16k:log:9', '1024,2048,4096', a list or an array, as an Axis of checked values."""
    name = var.name
    if isinstance(value, str):
        text = value.strip().strip("[]")
        match = _AXIS.match(text)
        if match:
            n = _point_count(match.group("n"), default_points)
            scale = "log" if match.group("scale") == "log" else "linear"
            return _spaced(to_spread(match.group("range"), name), var, n, scale)
        items: list[object] = [part.strip() for part in text.split(",") if part.strip()]
    elif isinstance(value, (Spread, tuple)):
        return _spaced(to_spread(value, name), var, default_points, "linear")
    else:
        _check_length(axis_length(value, default_points), name)  # before reading any value
        if _is_number_array(value):
            return Axis(var, _array_numbers(value, var), "list")
        try:  # an iterable without a length: read at most one value past the cap
            items = list(itertools.islice(value, MAX_AXIS_POINTS + 1))  # type: ignore[call-overload]
        except TypeError:
            items = [value]
    if not items:
        raise InputError(f"{name}: a sweep needs at least one value", name)
    _check_length(len(items), name)
    items = [item.item() if hasattr(item, "item") else item for item in items]
    if _all_numbers(items):
        return Axis(var, _numbers(items, var), "list")
    base = []
    for item in items:
        q = to_quantity(item, var)
        base.append(float(q.m_as(var.unit)) * var.base_factor)
    return Axis(var, _array(base), "list")


def _array(values: list[float]):
    import numpy as np

    return np.array(values, dtype=float)


def _check_length(count: int | None, name: str) -> None:
    """Refuse an axis of more than MAX_AXIS_POINTS values (None: not known yet)."""
    if count is not None and count > MAX_AXIS_POINTS:
        raise InputError(
            f"{name}: {count:,} values; a sweep axis takes at most {MAX_AXIS_POINTS:,}: "
            "give fewer values",
            name,
        )


def _is_number_array(value: object) -> bool:
    """A one-dimensional numpy array of real numbers (not bools), converted in one step."""
    if type(value).__module__ != "numpy" or not hasattr(value, "dtype"):
        return False
    kind = getattr(value.dtype, "kind", "")
    return kind in "iuf" and kind != "" and getattr(value, "ndim", 0) == 1 and len(value) > 0  # type: ignore[arg-type]


def _array_numbers(value: object, var: Variable) -> np.ndarray:
    """`_numbers` for a numpy array: the dimension checked once, the bounds on the whole
    array at once (its least and greatest values, when finite), the first value outside
    them refused as `to_quantity` refuses it."""
    import numpy as np

    x = np.asarray(value, dtype=float)
    first = np.asarray(value)
    to_quantity(first[0].item(), var)  # a dimensioned variable refuses a bare number, with a fix
    b = var.bounds
    low, high = float(x.min()), float(x.max())  # nan if any value is
    if (
        math.isfinite(low)
        and math.isfinite(high)
        and (low >= b.lo if b.lo_inclusive else low > b.lo)
        and (high <= b.hi if b.hi_inclusive else high < b.hi)
    ):  # every value finite and within the bounds: the two ends are
        return x * var.base_factor
    with np.errstate(invalid="ignore"):
        above = x >= b.lo if b.lo_inclusive else x > b.lo
        below = x <= b.hi if b.hi_inclusive else x < b.hi
        good = np.isfinite(x) & above & below
    if not good.all():
        to_quantity(first[int(np.argmin(good))].item(), var)  # raises the error with the range
    return x * var.base_factor


def _all_numbers(items: list[object]) -> TypeGuard[list[float]]:
    """True when every item is a plain number (an int or a float, not a bool)."""
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in items)


def _numbers(items: list[float], var: Variable) -> np.ndarray:
    """Plain numbers are in the variable's unit (64 -> 64 GPU): checked once for the
    dimension, then each against the bounds, without a Quantity per value."""
    to_quantity(items[0], var)  # a dimensioned variable refuses a bare number, with a fix
    for x in items:
        if not (math.isfinite(x) and var.bounds.contains(float(x))):
            to_quantity(x, var)  # raises the error that names the variable and its range
    factor = var.base_factor
    return _array([float(x) * factor for x in items])


def _spaced(spread: Spread, var: Variable, n: int, scale: str) -> Axis:
    if not 2 <= n <= MAX_AXIS_POINTS:
        raise InputError(
            f"{var.name}: a swept range takes 2 to {MAX_AXIS_POINTS:,} points, got {n}", var.name
        )
    bound = bind_spread(Spread("range", spread.low, spread.high), var)
    lo, hi = bound.low_base, bound.high_base
    import numpy as np

    if scale == "log":
        if lo <= 0:
            raise InputError(f"{var.name}: a log sweep needs a positive low end", var.name)
        # Python's pow, point by point: numpy's vectorised power differs from it in the last
        # bit at about one point in twenty, which a rounding step downstream could magnify
        values = _array([lo * (hi / lo) ** (i / (n - 1)) for i in range(n)])
    else:  # the same operations as lo + (hi - lo) * i / (n - 1), on the whole axis at once
        values = lo + (hi - lo) * np.arange(n, dtype=float) / (n - 1)
    values[0], values[-1] = lo, hi
    return Axis(var, values, scale)
