"""Turning what a user gives ("989 TFLOP/(s*GPU)", "3 weeks", "7B", 0.4) into checked Quantities.

Text goes through the safe parser of `expr`; the result is checked against the variable's
declared dimension and bounds, and every failure names the variable, what was expected and a fix.
"""

from __future__ import annotations

import numbers
import re
from functools import lru_cache

import pint

from napkinmath.errors import InputError, ParseError
from napkinmath.library.declare import Variable
from napkinmath.text.dimensions import COUNT_DIMENSIONS, dimension_text, unit_spelling
from napkinmath.text.evaluation import evaluate, has_ambiguous_suffix
from napkinmath.text.expr import parse
from napkinmath.units import Quantity, format_quantity, format_unit, ureg

#: "30-50%" or "2-3 days": a subtraction that was meant as a range
_DASHED_RANGE = re.compile(r"\s*([0-9.]+\s*%?)\s*[-–]\s*([0-9.]+\s*[%A-Za-z/ ]*)\s*")


@lru_cache(maxsize=4096)
def parse_quantity(text: str) -> pint.Quantity:
    """Parse text into a Quantity with the safe grammar (count suffixes read as counts)."""
    return evaluate(parse(text), text)


def _is_count(dim: pint.util.UnitsContainer) -> bool:
    return all(name in COUNT_DIMENSIONS for name in dim)


def to_quantity(value: object, variable: Variable) -> pint.Quantity:
    """A given value as a Quantity in `variable`'s dimension, or an InputError with a fix."""
    name = variable.name
    if isinstance(value, bool) or value is None:
        raise InputError(f"{name}={value!r}: expected a number or a quantity such as "
                         f"'{_example(variable)}'", name)
    if isinstance(value, str):
        quantity = _parse_for(value, variable)
        shown = value
    elif isinstance(value, pint.Quantity):
        quantity = _from_other_registry(value, variable)
        shown = format_quantity(quantity)
    elif isinstance(value, numbers.Real):
        quantity = Quantity(float(value))
        shown = repr(value)
    else:
        raise InputError(f"{name}: cannot use a {type(value).__name__} as a value; give a "
                         f"number or text such as '{_example(variable)}'", name)
    quantity = _promote_count(quantity, variable)
    _check_dimension(quantity, variable, shown)
    quantity = quantity.to(variable.unit) if variable.unit != ureg.dimensionless else quantity
    _check_bounds(quantity, variable, shown)
    return quantity


def _parse_for(text: str, variable: Variable) -> pint.Quantity:
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
            "Write the unit apart from the number, like '7 GB' or '7e9 B'.", variable.name)
    return as_count


def _from_other_registry(value: pint.Quantity, variable: Variable) -> pint.Quantity:
    if value._REGISTRY is ureg:
        return value
    try:
        unit = parse_quantity(format_unit(value.units, style="ascii") or "1")
    except ParseError:
        raise InputError(f"{variable.name}: the unit {value.units} is not one napkinmath knows; "
                         f"give text such as '{_example(variable)}'", variable.name) from None
    return float(value.magnitude) * unit


def _promote_count(quantity: pint.Quantity, variable: Variable) -> pint.Quantity:
    """A plain number for a count variable means that many of its unit (64 -> 64 GPU)."""
    if quantity.dimensionless and _is_count(variable.dimensionality):
        return Quantity(float(quantity.to("").magnitude), variable.unit)
    return quantity


def _check_dimension(quantity: pint.Quantity, variable: Variable, shown: str) -> None:
    if quantity.dimensionality == variable.dimensionality:
        return
    expected = format_unit(variable.unit) or "a plain number"
    message = (f"{shown} for {variable.name}: expected {expected} "
               f"[{dimension_text(variable.dimensionality)}], got "
               f"[{dimension_text(quantity.dimensionality)}]")
    fix = _suggest_fix(quantity, variable)
    if fix:
        message += f"; did you mean {fix}?"
    raise InputError(f"{message} ({variable.name}: {variable.description})", variable.name)


def _suggest_fix(quantity: pint.Quantity, variable: Variable) -> str:
    """Multiply by whatever dimensions are missing: 989 TFLOP/s -> 989 TFLOP/(s·GPU)."""
    if variable.unit == ureg.dimensionless:
        return ""
    if quantity.dimensionless:
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


def _check_bounds(quantity: pint.Quantity, variable: Variable, shown: str) -> None:
    magnitude = float(quantity.magnitude)
    if variable.bounds.contains(magnitude):
        return
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
        f"{' ' + unit if unit else ''} ({variable.description}){hint}", variable.name)


def _example(variable: Variable) -> str:
    unit = format_unit(variable.unit, style="ascii")
    return f"1 {unit}" if unit else "0.5"
