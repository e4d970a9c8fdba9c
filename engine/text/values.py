"""Turning what a user gives ("989 TFLOP/(s*GPU)", "3 weeks", "7B", 0.4) into checked Quantities.

Text goes through the safe parser of `expr`; the result is checked against the variable's
declared dimension and bounds, and every failure names the variable, what was expected and a fix.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pint
from pint.facets.plain import PlainUnit

from napkinmath import caches
from napkinmath.errors import InputError, ParseError
from napkinmath.text import escape
from napkinmath.text.dimensions import (
    COUNT_DIMENSIONS,
    canonical_unit,
    dimension_text,
    unit_spelling,
)
from napkinmath.text.evaluation import evaluate, has_ambiguous_suffix
from napkinmath.text.expr import AMBIGUOUS_SUFFIXES, COUNT_SUFFIXES, Node, parse, suffix_at
from napkinmath.text.shell import eaten_dollar, maybe_eaten
from napkinmath.units import (
    Quantity,
    base_units,
    format_number,
    format_quantity,
    format_unit,
    new_quantity,
    out_of_float_range,
    ureg,
)

if TYPE_CHECKING:
    from napkinmath.text.variable import Variable

#: "30-50%" or "2-3 days": a subtraction that was meant as a range
_DASHED_RANGE = re.compile(r"\s*([0-9.]+\s*%?)\s*[-–]\s*([0-9.]+\s*[%A-Za-z/ ]*)\s*")


def parse_quantity(text: str) -> pint.Quantity:
    """Parse text into a Quantity with the safe grammar (count suffixes read as counts)."""
    return evaluate(parse(text), text)


def parse_unit(text: object, what: str) -> pint.Unit:
    """A unit a user chose to see an answer in ("GiB", "h", "kUSD"): `what` names the choice
    in the error ("--to GiB", "units['train_time']")."""
    if not isinstance(text, str):
        raise InputError(f"{what}={escape.shown(text)}: expected a unit such as 'hour' or 'GiB'")
    if text.strip() == "%":
        return ureg.percent
    try:
        quantity = parse_quantity(text)
    except ParseError as exc:
        raise InputError(f"{what}: {exc}") from None
    if quantity.units == ureg.dimensionless:
        raise InputError(
            f"{what} {escape.shown(text)}: expected a unit such as 'hour' or 'GiB', not a number"
        )
    if float(quantity.magnitude) != 1:
        raise InputError(
            f"{what} {escape.shown(text)}: give the unit alone "
            f"({format_unit(quantity.units)}), without a number"
        )
    # pint's stubs type .units as a PlainUnit; it is ureg's Unit
    return quantity.units  # type: ignore[return-value]


def _is_count(dim: pint.util.UnitsContainer) -> bool:
    return all(name in COUNT_DIMENSIONS for name in dim)


def to_quantity(value: object, variable: Variable) -> pint.Quantity:
    """A given value as a Quantity in `variable`'s dimension, or an InputError with a fix.
    Plain forms take the fast path (`_fast_reading`, `_fast_quantity`, `_fast_number`: the
    same Quantity)."""
    fast = None
    if isinstance(value, str):
        fast = _fast_reading(value, variable, per_count=False)
    elif isinstance(value, pint.Quantity):
        fast = _fast_quantity(value, variable)
    elif type(value) is float or type(value) is int:
        fast = _fast_number(value, variable)
    if fast is not None:
        return fast.quantity
    quantity, shown = _raw_quantity(value, variable)
    return _checked(_promote_count(quantity, variable), variable, shown)


@dataclass(frozen=True)
class Reading:
    """A given value as napkinmath read it, and how, when that was not as written: "989
    TFLOP/s, read as per GPU", "8k read as 8,000; write 8Ki for 8,192"."""

    quantity: pint.Quantity
    note: str = ""


def read_given(value: object, variable: Variable) -> Reading:
    """`to_quantity`, forgiving one slip and saying so: a per-count rate or size given without
    its count ("989 TFLOP/s" for FLOP/(s·GPU), "80 GB" for GB/GPU, "8192 token" for
    token/sequence) is read per that count. Any other mismatch stays an InputError. The note
    also tells how a count shorthand that people read in binary ("8k", "128k") was taken,
    and where a RECORD.key value came from."""
    if isinstance(value, str):
        fast = _fast_reading(value, variable)
        if fast is not None:
            return fast
    elif isinstance(value, pint.Quantity):
        fast = _fast_quantity(value, variable)
        if fast is not None:
            return fast
    return _full_reading(value, variable)


def _full_reading(value: object, variable: Variable) -> Reading:
    """`read_given` through the full parser (every form, every error)."""
    quantity, shown = _raw_quantity(value, variable)
    quantity = _promote_count(quantity, variable)
    notes = []
    count = _missing_count(quantity, variable)
    if count is not None:
        quantity = quantity / ureg.Unit(count)
        notes.append(per_note(_shown_text(shown), count))
    if isinstance(value, str):
        notes += _text_notes(value, variable)
    return Reading(_checked(quantity, variable, shown), "; ".join(notes))


# --- the fast path for plain forms: "7B", "0.4", "3 weeks", "989 TFLOP/(s*GPU)" ----------------
#: a number as the tokenizer reads it (`expr._TOKEN`), after spaces
_LEADING_NUMBER = re.compile(r"[ ]*((?:[0-9]+(?:_[0-9]+)*\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
#: what may follow it: unit names joined by spaces, '*', '/', '^' and parentheses
_UNIT_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9_ */^()]*")


def _fast_reading(text: str, variable: Variable, per_count: bool = True) -> Reading | None:
    """`read_given` of a plain form, a number (with a count suffix or '%') and units, without
    the full parser; None for anything else, and for anything the full path would refuse or
    read differently (it then decides); with `per_count` False (`to_quantity`, which forgives
    nothing) None too for a rate or size that lacks its count ("989 TFLOP/s"). The answer is
    the same Quantity and note as the full path's: a number leftmost in a product of units
    with magnitude 1 multiplies the product exactly, and a range check keeps every
    intermediate value far from the float limits. Held equal to the full path by
    tests/test_speed_values.py::test_the_fast_path_reads_every_text_as_the_full_parser."""
    parts = _plain_parts(text)
    if parts is None:
        return None
    magnitude, suffix, value, unit_text = parts
    if suffix in AMBIGUOUS_SUFFIXES and "[information]" in variable.dimensionality:
        return None  # "7B" for a size: the full path explains the ambiguity
    recipe = _recipe(unit_text, variable)
    if recipe is None or (recipe.count and not per_count):
        return None
    if recipe.plain and not (recipe.promote or magnitude == 0):
        return None  # a plain number for a quantity with units: the full path's error
    converted = magnitude * recipe.factor
    if out_of_float_range(converted, was_nonzero=magnitude != 0) or not variable.bounds.contains(
        converted
    ):
        return None
    notes = [per_note(text, recipe.count)] if recipe.count else []
    if suffix in _BINARY and recipe.binary_minded:
        notes += _binary_note(value, suffix)
    return Reading(new_quantity(converted, recipe.unit), "; ".join(notes))


def _fast_number(value: float, variable: Variable) -> Reading | None:
    """`to_quantity` of a plain int or float where the full path takes it as it is: for a
    plain variable, a count (64 -> 64 GPU) or zero, inside the bounds and the float range,
    as a float in the variable's unit; None for anything else (the full path then decides,
    with its errors). Held equal to the full path by tests/test_speed_values.py::
    test_to_quantity_reads_every_number_as_the_full_path."""
    try:
        number = float(value)
    except OverflowError:
        return None
    if out_of_float_range(number) or not variable.bounds.contains(number):
        return None
    if number != 0 and not _is_count(variable.dimensionality):
        return None  # a bare number for a quantity with units: the full path's error
    return Reading(new_quantity(number, variable.unit))


def _fast_quantity(value: pint.Quantity, variable: Variable) -> Reading | None:
    """`read_given` of a Quantity of napkinmath's registry with one int or float, already of
    the variable's dimension (or plain, for a plain variable), without the full path; None
    for anything else (the full path then decides, with its notes and errors). The number is
    the one pint's conversion gives: the magnitude times pint's factor between the units.
    Held equal to the full path by tests/test_speed_values.py::
    test_the_quantity_fast_path_reads_as_the_full_path."""
    if value._REGISTRY is not ureg:
        return None
    magnitude = value.magnitude
    if type(magnitude) is not float and type(magnitude) is not int:
        return None
    factor = _quantity_factor(value.units, variable)
    if factor is None:
        return None
    try:
        number = float(magnitude)
    except OverflowError:
        return None
    if number != 0 and not 1e-150 < abs(number) < 1e150:
        return None
    converted = number * factor
    if out_of_float_range(converted, was_nonzero=number != 0) or not variable.bounds.contains(
        converted
    ):
        return None
    return Reading(new_quantity(converted, variable.unit))


@caches.memo(
    1024,
    invalidated_by=caches.UNITS,
    reason="pint's factor from a Quantity given's units to its variable's: the optimiser binds "
    "its Quantity givens for every group of candidates (9,300 reads in five searches of "
    "tests/benchmark_optimize.py); without it and the Quantity fast path it serves, the 405B "
    "layout search ran 25-35% slower, 0.75-1.10M candidates a second against issue 45's "
    "guardrail of 1M (2026-12-07, 2 cores)",
)
def _quantity_factor(units: pint.Unit, variable: Variable) -> float | None:
    """pint's factor from `units` to the variable's unit, when a Quantity in `units` is read
    by that factor alone: the same dimension, a plain scale well inside the float range (see
    `_recipe`), or a plain number for a plain variable; else None ("40 percent", a count)."""
    if variable.unit == ureg.dimensionless:
        return 1.0 if units == ureg.dimensionless else None
    if units.dimensionality != variable.dimensionality:
        return None
    return _plain_scale(units, variable.unit)


def _plain_scale(units: PlainUnit, unit: pint.Unit) -> float | None:
    """pint's factor from `units` to `unit` (of the same dimension), when a number in `units`
    is that many times the factor in `unit`: a plain scale (not an offset unit such as degC),
    the factor and the base-unit factor well inside the float range; else None."""
    factor = float(Quantity(1.0, units).to(unit).magnitude)
    if not 1e-100 < abs(factor) < 1e100 or not 1e-100 < abs(_base_factor(units)[0]) < 1e100:
        return None
    probe = float(Quantity(3.0, units).to(unit).magnitude)
    if probe != 3.0 * factor or float(Quantity(0.0, units).to(unit).magnitude):
        return None
    return factor


def _plain_parts(text: str) -> tuple[float, str, float, str] | None:
    """(the number's magnitude, its count suffix, its value before the suffix, the unit text
    after it) for "7B", "0.4", "40%", "3 weeks"; None for other forms or numbers whose
    magnitude is not well inside the float range."""
    if len(text) > 80:
        return None
    match = _LEADING_NUMBER.match(text)
    if match is None:
        return None
    number, end = match[1], match.end()
    if len(number) > 30:
        return None  # the tokenizer's limits on digits and exponents stay its own
    suffix = suffix_at(text, end)
    end += len(suffix)
    value = float(number)
    if text.startswith("%", end):
        value, end = value / 100, end + 1
        if text[end:].strip(" "):
            return None
    unit_text = text[end:].strip(" ")
    if unit_text and (len(unit_text) > 40 or not _UNIT_TEXT.fullmatch(unit_text)):
        return None  # short: the number's link cannot take the tree past MAX_DEPTH
    magnitude = value * (COUNT_SUFFIXES[suffix] if suffix else 1.0)
    if magnitude == 0:
        if number.strip("0."):
            return None  # "1e-400" is refused by the tokenizer, not 0
    elif not 1e-150 < abs(magnitude) < 1e150:
        return None
    return magnitude, suffix, value, unit_text


@dataclass(frozen=True)
class _Recipe:
    """How a plain form with these units is read for one variable."""

    plain: bool  # no units: a plain number
    promote: bool  # a plain number means that many of the variable's unit
    count: str | None  # the count it lacks ("GPU" for "989 TFLOP/s" as a per-GPU rate)
    unit: pint.Unit  # the variable's unit
    factor: float  # from the units as written to the variable's unit
    binary_minded: bool


@caches.memo(
    1024,
    invalidated_by=caches.UNITS,
    reason="how a given's unit text reads for a variable: hit on every warm W12 solve with "
    "new values (7.000001B reuses the recipe of B for params); a miss costs 359 µs against "
    "issue 45's warm guardrail of 250 µs a solve (2026-12-07, 2 cores)",
)
def _recipe(unit_text: str, variable: Variable) -> _Recipe | None:
    """The reading of `unit_text` for `variable`, or None when the fast path does not apply
    (units with a number or a function in them, of another dimension, or none at all for a
    quantity with units)."""
    binary_minded = variable.dimensionality in _binary_minded()
    if not unit_text:
        promote = _is_count(variable.dimensionality)
        return _Recipe(True, promote, None, variable.unit, 1.0, binary_minded)
    try:
        tree = parse(unit_text)
        if not _units_only(tree):
            return None
        units = evaluate(tree, unit_text)
    except ParseError:
        return None
    if units.magnitude != 1.0 or units.dimensionless or variable.unit == ureg.dimensionless:
        return None
    count = _missing_count(units, variable)
    if count is not None:
        units = units / ureg.Unit(count)
    if units.dimensionality != variable.dimensionality:
        return None
    factor = _plain_scale(units.units, variable.unit)  # units.magnitude is 1.0
    if factor is None:
        return None
    return _Recipe(False, False, count, variable.unit, factor, binary_minded)


def _units_only(tree: Node) -> bool:
    """The tree is a product of unit names: names, '*', '/' and powers by plain numbers."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.kind == "name":
            if "." in node.text:
                return False
        elif node.kind == "binop":
            if node.op not in "*/":
                return False
            stack.extend(node.args)
        elif node.kind == "pow":
            base, exponent = node.args
            if exponent.kind != "num" or exponent.suffix:
                return False
            stack.append(base)
        else:
            return False
    return True


class _Later:
    """A Quantity as a given is shown in messages, written out only when one needs it."""

    def __init__(self, quantity: pint.Quantity) -> None:
        self.quantity = quantity

    def __str__(self) -> str:
        return format_quantity(self.quantity)


#: how a given is shown in messages: its text, or a Quantity written out when needed
Shown = str | _Later


def _shown_text(shown: Shown) -> str:
    return shown if isinstance(shown, str) else str(shown)


def _raw_quantity(value: object, variable: Variable) -> tuple[pint.Quantity, Shown]:
    """The value parsed (text) or taken over (a number, a Quantity), not yet checked."""
    name = variable.name
    if isinstance(value, bool) or value is None:
        raise InputError(
            f"{name}={escape.shown(value)}: expected a number or a quantity "
            f"such as '{_example(variable)}'",
            name,
        )
    if isinstance(value, str):
        return _parse_for(value, variable), value  # the text grammar bounds its own numbers
    if isinstance(value, pint.Quantity):
        value = _scalar(value, name, variable)
        quantity = (
            value if value._REGISTRY is ureg else foreign_quantity(value, name, _example(variable))
        )
        shown = _Later(quantity)  # written out only for a message or a note
        check_finite(quantity, name, shown)
        return quantity, shown
    if isinstance(value, numbers.Real):
        return Quantity(plain_number(value, name)), repr(value)
    raise InputError(
        f"{name}: cannot use a {type(value).__name__} as a value; give a "
        f"number or text such as '{_example(variable)}'",
        name,
    )


def _checked(quantity: pint.Quantity, variable: Variable, shown: Shown) -> pint.Quantity:
    _check_dimension(quantity, variable, shown)
    if variable.unit != ureg.dimensionless:
        quantity = _converted(quantity, variable, shown)
    elif quantity.units != ureg.dimensionless:  # "40 percent" is 0.4
        quantity = Quantity(float(quantity.to("").magnitude))
    _check_bounds(quantity, variable, shown)
    return quantity


#: counts that a rate or size is often given without ("989 TFLOP/s" meaning per GPU)
_PER_COUNTS = ("[accelerator]", "[node]", "[sequence]", "[token]", "[parameter]", "[request]")


#: what a time per output token (ms·sequence/token) lacks as practitioners quote it: "50 ms"
#: and "50 ms/token" are per token of one sequence (TPOT, inter-token latency)
_PER_TOKEN_OF_ONE_SEQUENCE = (
    ({"[sequence]": 1, "[token]": -1}, "token/sequence"),
    ({"[sequence]": 1}, "1/sequence"),
)

#: how a note says what a missing count was read as ("per GPU")
_READ_AS = {"token/sequence": "per token of one sequence", "1/sequence": "for one sequence"}


def per_note(shown: str, count: str) -> str:
    """'989 TFLOP/s, read as per GPU' for a value read with the count it lacked."""
    return f"{' '.join(shown.split())}, read as {_READ_AS.get(count, f'per {count}')}"


def _missing_count(quantity: pint.Quantity, variable: Variable) -> str | None:
    """The count unit ("GPU") that `quantity` lacks in its denominator to be `variable`'s
    dimension, when that is the only difference; else None."""
    if quantity.dimensionless or quantity.dimensionality == variable.dimensionality:
        return None
    missing = dict((variable.dimensionality / quantity.dimensionality).items())
    own = variable.dimensionality
    if own.get("[sequence]") == 1 and own.get("[token]") == -1:  # ms·sequence/token
        for lacking, count in _PER_TOKEN_OF_ONE_SEQUENCE:
            if missing == lacking:
                return count
    if len(missing) != 1:
        return None
    ((dimension, power),) = missing.items()
    if power != -1 or dimension not in _PER_COUNTS or dimension in quantity.dimensionality:
        return None  # "0.4 GPU" for a fraction has a count too many, not one missing
    return unit_spelling(dimension)


def missing_count(quantity: pint.Quantity, variable: Variable) -> str | None:
    """The count unit `quantity` lacks to be `variable`'s dimension ("GPU", "token/sequence"),
    when that is the only difference; else None (see `read_given`)."""
    return _missing_count(quantity, variable)


#: counts that people write in binary thousands ("8k" tokens of context, "16k" GPUs)
_BINARY_MINDED = ("GPU", "sequence", "token", "token/sequence")
_BINARY = {"k": ("Ki", 1024, 1000), "K": ("Ki", 1024, 1000), "M": ("Mi", 1024**2, 1000**2)}


def _binary_minded() -> tuple[pint.util.UnitsContainer, ...]:
    return tuple(ureg.Quantity(1, unit).dimensionality for unit in _BINARY_MINDED)


def _text_notes(text: str, variable: Variable) -> list[str]:
    """Notes on how count shorthands and record values in `text` were read."""
    try:
        tree = parse(text)
    except ParseError:
        return []
    notes = []
    binary_minded = variable.dimensionality in _binary_minded()
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(reversed(node.args))
        if node.kind == "name" and "." in node.text:
            notes.append(_record_note(node.text))
        if node.kind == "num" and node.suffix in _BINARY and binary_minded:
            notes += _binary_note(node.value, node.suffix)
    return notes


def _binary_note(mantissa: float, suffix: str) -> list[str]:
    """'8k read as 8,000; write 8Ki for 8,192' for a power of two (2 or more) before k or M."""
    whole = int(mantissa)
    if mantissa < 2 or whole != mantissa or whole & (whole - 1):
        return []
    binary, size, decimal = _BINARY[suffix]
    return [
        f"{whole}{suffix} read as {whole * decimal:,}; write {whole}{binary} for {whole * size:,}"
    ]


def _record_note(reference: str) -> str:
    from napkinmath.text.references import record as get_record

    record_name, _, key = reference.rpartition(".")
    record = get_record(record_name)
    return f"the {record.id} record's {key}, {record.values[key].provenance()}"


def _scalar(value: pint.Quantity, name: str, variable: Variable) -> pint.Quantity:
    """A Quantity of one real number (an array, a complex or a huge int is refused)."""
    magnitude = value.magnitude
    if isinstance(magnitude, bool) or not isinstance(magnitude, numbers.Real):
        raise InputError(
            f"{name}: expected a Quantity of one real number, got one of "
            f"{type(magnitude).__name__}; give one value such as "
            f"'{_example(variable)}' (several: nm.sweep)",
            name,
        )
    return value.__class__(plain_number(magnitude, name), value.units)


def _converted(quantity: pint.Quantity, variable: Variable, shown: Shown) -> pint.Quantity:
    """`quantity` in the variable's unit, refused when that overflows or underflows."""
    converted = quantity.to(variable.unit)
    problem = out_of_float_range(
        float(converted.magnitude), was_nonzero=float(quantity.magnitude) != 0
    )
    if problem:
        raise InputError(
            f"{variable.name}={_shown_text(shown)}: in {format_unit(variable.unit)}, "
            f"the unit of {variable.name}, the number is {problem}; {_WITHIN}",
            variable.name,
        )
    return converted


def _parse_for(text: str, variable: Variable) -> pint.Quantity:
    eaten = eaten_dollar(text, variable)
    if eaten:
        raise InputError(eaten, variable.name)
    try:
        tree = parse(text)
        if not has_ambiguous_suffix(tree):
            return parse_quantity(text)
        as_count = evaluate(tree, text)
        as_unit = evaluate(tree, text, suffix_as_unit=True)
    except ParseError as exc:
        raise InputError(f"{variable.name}: {exc}", variable.name) from None
    if "[information]" in variable.dimensionality:
        raise InputError(
            f"{variable.name}={text!r} is ambiguous: the suffix reads as a unit "
            f"({format_quantity(as_unit)}) or as a count ({format_quantity(as_count)}). "
            "Write the unit apart from the number, like '7 GB' or '7e9 B'.",
            variable.name,
        )
    return as_count


# --- given numbers and Quantities: finite, and of napkinmath's registry -----------------------
_WITHIN = "give a value whose size stays within about 1e-308 to 1e308 (in base units too)"


def plain_number(value: numbers.Real, name: str | None) -> float:
    """A given int or float as a float: a number beyond the float range is an InputError."""
    label = name or "the value"
    shown = repr(value)
    if len(shown) > 40:
        shown = f"{shown[:12]}… ({len(shown)} characters)"
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    problem = out_of_float_range(number)
    if problem:
        raise InputError(f"{label}={shown}: the number is {problem}; {_WITHIN}", name)
    return number


def check_finite(quantity: pint.Quantity, name: str | None, shown: Shown) -> None:
    """Refuse a given Quantity whose number is not finite, or that overflows or underflows
    in base units (the limits that `evaluate` puts on text)."""
    label = name or "the value"
    try:
        magnitude = float(quantity.magnitude)
    except OverflowError:
        magnitude = math.inf
    except (TypeError, ValueError):
        raise InputError(
            f"{label}: expected one number, got a Quantity of {type(quantity.magnitude).__name__}",
            name,
        ) from None
    problem = out_of_float_range(magnitude)
    if problem:
        raise InputError(f"{label}={_shown_text(shown)}: the number is {problem}; {_WITHIN}", name)
    try:
        factor, base = _base_factor(quantity.units)
        in_base = magnitude * factor
    except (ArithmeticError, ValueError, TypeError, pint.PintError):
        base, in_base = None, math.inf
    problem = out_of_float_range(in_base, was_nonzero=magnitude != 0)
    if problem:
        where = f" ({format_unit(base)})" if base is not None else ""
        raise InputError(
            f"{label}={_shown_text(shown)}: in base units{where} the number is "
            f"{problem}; {_WITHIN}",
            name,
        )


def _base_factor(units: PlainUnit) -> tuple[float, PlainUnit]:
    factor, base = ureg.get_base_units(units)
    # pint's stubs type the factor as any Number (complex included); a unit's is real
    return float(factor), base  # type: ignore[arg-type]


def foreign_quantity(
    value: pint.Quantity, name: str | None, example: str = "1 GB/s"
) -> pint.Quantity:
    """A Quantity of another pint registry as a Quantity of napkinmath's, by dimension.

    The one path for such values (solve's givens and check's names both come here). Each unit
    is taken apart into its registry's root units, which map to napkinmath's by dimension
    ([length] -> meter, [time] -> second, [mass] -> gram, ...; see `units.base_units`), never
    by name alone. A unit whose name or symbol napkinmath also knows must mean the same in
    both (pint's default registry reads "b" as the barn, an area; napkinmath as the bit) or
    it is refused, and so is a unit made of dimensions napkinmath does not have (ampere,
    kelvin, radian). A Quantity of napkinmath.ureg is returned as it is.
    """
    registry = value._REGISTRY
    if registry is ureg:
        return value
    label = name or "the value"
    magnitude = value.magnitude
    if isinstance(magnitude, bool) or not isinstance(magnitude, numbers.Real):
        raise InputError(
            f"{label}: expected one number, got a Quantity of {type(magnitude).__name__}", name
        )
    number = plain_number(magnitude, name)
    try:
        written = f"{format_number(number, style='ascii')} {value.units:~C}"
    except Exception:  # a unit without symbols in that registry
        written = ""
    result = Quantity(number)
    for unit, power in value._units.items():
        result = result * _translated(registry, unit, name, written, example) ** power
    return result


def to_registry(value: pint.Quantity, registry: pint.UnitRegistry) -> pint.Quantity:
    """A napkinmath Quantity (an answer, a given) as a Quantity of another pint registry,
    refused when that registry lacks its unit or spells it with another meaning.

        >>> other = pint.UnitRegistry()
        >>> to_registry(nm.solve("train_time", ...).value, other).to("week")
    """
    if not isinstance(value, pint.Quantity) or value._REGISTRY is not ureg:
        raise InputError(
            f"to_registry: expected a Quantity of napkinmath.ureg, got {type(value).__name__}"
        )
    if not isinstance(value.magnitude, numbers.Real) or isinstance(value.magnitude, bool):
        raise InputError(
            f"to_registry: expected one value, got a magnitude of type "
            f"{type(value.magnitude).__name__}; convert each element, or the array's unit"
        )
    if registry is ureg:
        return value
    unit = format(value.units, "D")  # long names: "gigabyte / second"
    try:
        converted = registry.Quantity(float(value.magnitude), unit)
        back = foreign_quantity(converted, None, format_quantity(value))
        same = back.dimensionality == value.dimensionality and math.isclose(
            float(back.to(value.units).magnitude), float(value.magnitude), rel_tol=1e-9
        )
    except (InputError, pint.PintError, AttributeError, ValueError, TypeError):
        same = False
    if not same:
        raise InputError(
            f"to_registry: the other registry has no unit {unit!r} of the same "
            f"meaning as napkinmath's ({format_quantity(value)}); convert the "
            "value to a unit both know first (value.to('hour')), or use "
            "pint.set_application_registry(napkinmath.ureg)"
        )
    return converted


def _advice(example: str) -> str:
    return (
        f"give it as napkinmath text such as '{example}', or as a Quantity of "
        "napkinmath.ureg (napkinmath.Quantity)"
    )


def _own_unit(spelling: str | None) -> pint.Unit | None:
    """napkinmath's unit spelled so (prefixes and plurals included), or None."""
    if not spelling or len(spelling) > 60:
        return None
    try:
        unit = ureg.Unit(spelling)
    except Exception:  # whatever pint makes of a name it does not know, it is not a unit
        return None
    return None if unit == ureg.dimensionless else unit


def _roots(q: pint.Quantity) -> tuple[float, pint.util.UnitsContainer]:
    root = q.to_root_units()
    return float(root.magnitude), root.units._units


def _same_meaning(unit: pint.Unit, meaning: pint.Quantity) -> bool:
    own_factor, own_root = _roots(ureg.Quantity(1.0, unit))
    factor, root = _roots(meaning)
    return own_root == root and math.isclose(own_factor, factor, rel_tol=1e-9)


def _translated(
    registry: pint.UnitRegistry, unit: str, name: str | None, written: str, example: str
) -> pint.Quantity:
    """One unit of another registry as a napkinmath Quantity of the same size."""
    label = name or "the value"
    try:
        factor, root = registry.get_root_units(unit)
        # pint's stubs type the factor as any scalar (complex included); a unit's is real
        meaning: pint.Quantity | None = Quantity(float(factor))  # type: ignore[arg-type]
        there = registry.Quantity(1.0, unit).to_root_units()
        described = (
            f"1 {unit} = {format_number(float(there.magnitude))} {there.units:~P}, "
            f"[{dimension_text(registry.get_dimensionality(unit))}]"
        )
    except Exception:  # an offset or broken unit of someone else's registry
        raise InputError(
            f"{label}: the unit {unit!r} of this Quantity's pint registry (not "
            f"napkinmath.ureg) cannot be converted; {_advice(example)}",
            name,
        ) from None
    missing = []
    for root_name, power in root._units.items():
        counterpart = _root_counterpart(registry, root_name)
        if counterpart is None:
            missing.append(root_name)
        elif meaning is not None:
            meaning = meaning * ureg.Quantity(1.0, counterpart) ** power
    if missing:
        meaning = None
    try:
        symbol = registry.get_symbol(unit)
    except Exception:  # no symbol in that registry
        symbol = None
    found = None
    for spelling in dict.fromkeys((unit, symbol, *missing)):
        own = _own_unit(spelling)
        if spelling is None or own is None:
            continue
        if meaning is None or not _same_meaning(own, meaning):
            if spelling in (unit, symbol):
                raise _clash(spelling, unit, described, own, name, written, example)
            dims = dimension_text(registry.get_dimensionality(spelling))
            raise _clash(
                spelling,
                spelling,
                f"a root unit of its own, [{dims}], of unknown size in napkinmath's terms",
                own,
                name,
                "",
                example,
            )
        found = found or own
    if meaning is None:
        made_of = "" if missing == [unit] else f" (made of {', '.join(map(repr, missing))})"
        raise InputError(
            f"{label}: the unit {unit!r}{made_of} of this Quantity's pint registry has no "
            f"counterpart in napkinmath, whose dimensions are "
            f"{', '.join(sorted(base_units()))}; {_advice(example)}",
            name,
        )
    return ureg.Quantity(1.0, found) if found is not None else meaning


def _root_counterpart(registry: pint.UnitRegistry, root: str) -> str | None:
    """napkinmath's root unit for a root unit of another registry, matched by dimension; None
    when napkinmath has no such dimension or its unit of that name means something else."""
    dims = dict(registry.get_dimensionality(root).items())
    own = _own_unit(root)
    counterpart = None
    if len(dims) == 1 and next(iter(dims.values())) == 1:
        counterpart = base_units().get(next(iter(dims)))
    elif not dims and own is not None:  # pint's default bit (and count) are dimensionless roots
        factor, own_root = ureg.get_root_units(own)
        if factor == 1 and own_root in (own, ureg.dimensionless):
            counterpart = root
    if counterpart is None:
        return None
    if own is not None and not _same_meaning(own, ureg.Quantity(1.0, counterpart)):
        return None  # a root called "kilogram" is not napkinmath's kilogram
    return counterpart


def _clash(
    spelling: str,
    unit: str,
    described: str,
    own: pint.Unit,
    name: str | None,
    written: str,
    example: str,
) -> InputError:
    """The error for a spelling that means one thing in the other registry and another in
    napkinmath; the fix shows the value `written` as napkinmath text when napkinmath reads it."""
    label = name or "the value"
    own_root = ureg.Quantity(1.0, own).to_root_units()
    own_size = format_quantity(own_root)
    same_root = own_root.units == own
    fix = _advice(example)
    if written:
        try:
            mine = parse_quantity(written)
        except ParseError:
            pass
        else:
            fix = (
                f"give it as napkinmath text such as '{written}' (read by napkinmath as "
                f"{format_quantity(mine)}, with {spelling!r} as the {own}), or as a "
                "Quantity of napkinmath.ureg (napkinmath.Quantity)"
            )
    return InputError(
        f"{label}: this Quantity comes from another pint registry, where {spelling!r} is "
        f"the {unit} ({described}); in napkinmath {spelling!r} is the {own} ("
        + ("" if same_root else f"1 {own} = {own_size}, ")
        + f"[{dimension_text(own.dimensionality)}]). napkinmath does not guess which was "
        f"meant: {fix}",
        name,
    )


def _promote_count(quantity: pint.Quantity, variable: Variable) -> pint.Quantity:
    """A plain number for a count variable means that many of its unit (64 -> 64 GPU); a
    plain 0 is zero in any unit (master_bytes_per_param=0: no fp32 master copy)."""
    if quantity.dimensionless and (
        _is_count(variable.dimensionality) or float(quantity.to("").magnitude) == 0
    ):
        return Quantity(float(quantity.to("").magnitude), variable.unit)
    return quantity


def _check_dimension(quantity: pint.Quantity, variable: Variable, shown: Shown) -> None:
    if quantity.dimensionality == variable.dimensionality:
        return
    shown = _shown_text(shown)
    expected = format_unit(variable.unit) or "a plain number"
    message = (
        f"{shown} for {variable.name}: expected {expected} "
        f"[{dimension_text(variable.dimensionality)}], got "
        f"[{dimension_text(quantity.dimensionality)}]"
    )
    fix = _suggest_fix(quantity, variable, shown)
    if fix:
        message += f"; did you mean {fix}?"
    if isinstance(shown, str) and "[currency]" not in quantity.dimensionality:
        message += maybe_eaten(shown, variable)
    raise InputError(f"{message} ({variable.name}: {variable.description})", variable.name)


#: "70G", "1.5T": a number with a decimal count suffix, which for a size means a prefix
_PREFIX_LIKE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*([kKMGT])\s*")


def _prefix_fix(shown: str, variable: Variable) -> str:
    """'70 GB' for "70G" given as a data size: the count suffix was meant as a prefix."""
    match = _PREFIX_LIKE.fullmatch(shown)
    if match is None:
        return ""
    number, prefix = match[1], match[2].replace("K", "k")
    unit = canonical_unit(variable.dimensionality)
    if not unit.startswith(("B", "FLOP", "W")):  # prefixes as people use them: GB, TFLOP/s
        return ""
    text = f"{number} {prefix}{unit}"
    try:
        fits = parse_quantity(text).dimensionality == variable.dimensionality
    except ParseError:
        return ""
    return (
        f"'{text}' ({prefix} as a prefix; {shown.strip()} alone is a plain count)" if fits else ""
    )


def _suggest_fix(quantity: pint.Quantity, variable: Variable, shown: str = "") -> str:
    """Multiply by whatever dimensions are missing: 989 TFLOP/s -> 989 TFLOP/(s·GPU)."""
    if variable.unit == ureg.dimensionless:
        return ""
    if quantity.dimensionless:
        prefixed = _prefix_fix(shown, variable)
        if prefixed:
            return prefixed
        return f"'{format_number_plain(quantity)} {format_unit(variable.unit, style='ascii')}'"
    missing = variable.dimensionality / quantity.dimensionality
    fixed = quantity
    for dim, power in missing.items():
        spelling = unit_spelling(dim)
        if spelling is None:
            return ""
        fixed = fixed * ureg.Unit(spelling) ** power
    return format_quantity(fixed.to(variable.unit))


def format_number_plain(quantity: pint.Quantity) -> str:
    return f"{float(quantity.to('').magnitude):g}"


def _check_bounds(quantity: pint.Quantity, variable: Variable, shown: Shown) -> None:
    magnitude = float(quantity.magnitude)
    if variable.bounds.contains(magnitude):
        return
    shown = _shown_text(shown)
    unit = format_unit(variable.unit)
    hint = ""
    if variable.bounds.hi == 1.0 and magnitude > 1 and magnitude <= 100:
        hint = f"; give a fraction, {magnitude / 100:g} for {magnitude:g}%"
    dash = _DASHED_RANGE.fullmatch(shown)
    if dash:  # "30-50%" reads as 30 - 0.5: the user meant a range
        low, high = dash.group(1).strip(), dash.group(2).strip()
        if "%" in high and "%" not in low:
            low += "%"
        hint = f" ('{shown}' is read as a subtraction); for a range write {low}..{high}"
    raise InputError(
        f"{variable.name}={shown} is out of range: expected a value in {variable.bounds}"
        f"{' ' + unit if unit else ''} ({variable.description}){hint}",
        variable.name,
    )


def _example(variable: Variable) -> str:
    unit = format_unit(variable.unit, style="ascii")
    return f"1 {unit}" if unit else "0.5"
