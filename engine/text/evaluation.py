"""Evaluating parsed expressions: names resolved to units and record values, arithmetic with
dimension checks, and the messages that point at a fault and say how to fix it.

The tree comes from `napkinmath.expr.parse`; nothing here executes user text. Results beyond
the float range, exponents beyond ±64 and functions of quantities with units are refused; so
is any value, final or intermediate, that underflows (a non-zero product or conversion that
becomes 0 or a subnormal float), since it would read as a silent 0.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable

import pint

from napkinmath.errors import NapkinError, ParseError
from napkinmath.text.dimensions import describe_dimension, mismatch_message
from napkinmath.text.expr import (
    AMBIGUOUS_SUFFIXES,
    COUNT_SUFFIXES,
    MAX_EXPONENT,
    Node,
    parse_error,
    reading,
    registry_unit,
)
from napkinmath.units import format_unit, out_of_float_range, ureg

Resolver = Callable[[str, int], "pint.Quantity"]
#: Network spellings read as units: 400 Gbps = 400 Gb/s, 25 GBps = 25 GB/s.
_RATE_SPELLING = re.compile(r"(?P<prefix>[kKMGTPE]?i?)(?P<unit>[bB])ps")
#: Prefixes that make no sense on bits and bytes ("mb" is a millibit: surely MB or Mb).
_SMALL_PREFIXES = ("m", "µ", "μ", "u", "n", "p")
#: Spellings that are not units of the registry, with what to write instead.
_SPELLING_HINTS = {
    "KB": "kB (1000 B) or KiB (1024 B)",
    "Kb": "kb (1000 bit) or Kib (1024 bit)",
    "d": "day",
}


def resolve_unit(
    name: str, pos: int, text: str = "", notes: list[str] | None = None
) -> pint.Quantity:
    """The default reading of a NAME as a unit of napkinmath's registry.

    Plurals are units ("params", "GPUs", "days"); network spellings are read with a note in
    `notes` ("Gbps" as Gb/s); a sub-unit prefix on bits or bytes ("mb", a millibit) and any
    unknown name are refused with the closest spellings.
    """
    unit = registry_unit(name)
    if unit is not None:
        if notes is not None and name.upper().endswith("FLOPS"):
            notes.append(_flops_note(name))
        return ureg.Quantity(1.0, unit)
    rate = _RATE_SPELLING.fullmatch(name)
    if rate is not None:
        prefix = rate["prefix"].replace("K", "k") if "i" not in rate["prefix"] else rate["prefix"]
        spelled = f"{prefix}{rate['unit']}/s"
        unit = registry_unit(f"{prefix}{rate['unit']}")
        if unit is not None:
            if notes is not None:
                notes.append(f"'{name}' is read as {spelled}")
            return ureg.Quantity(1.0, unit / ureg.second)
    number = _NUMBER_BEFORE.search(text[:pos]) if pos > 0 else None
    raise parse_error(unknown_unit_message(name, number[1] if number else ""), text, pos)


#: the number just before a name, apart from it by spaces: "70" of "70 G"
_NUMBER_BEFORE = re.compile(r"([0-9][0-9._]*(?:[eE][+-]?[0-9]+)?)\s+$")


def _flops_note(name: str) -> str:
    stem = name[:-1]
    if name.endswith("FLOPs"):
        return (
            f"'{name}' is read as a count, {stem} (the plural of FLOP); write {stem}/s for a rate"
        )
    return f"'{name}' is read as a rate, {stem}/s; write {stem} for a count"


def unknown_unit_message(name: str, number: str = "") -> str:
    """'unknown unit 'KB': did you mean kB (1000 B) or KiB (1024 B)?' and the like; a count
    suffix written apart from its `number` ("70 G") is shown joined to it ("70G")."""
    if name in COUNT_SUFFIXES and name not in AMBIGUOUS_SUFFIXES:
        shown = number or "70"
        try:
            value = float(shown) * COUNT_SUFFIXES[name]
        except ValueError:
            value = 70 * COUNT_SUFFIXES[name]
        return (
            f"unknown unit {name!r}: a count shorthand touches its number, "
            f"{shown}{name} (= {value:,.0f}, a count); for a data size write "
            f"{shown} {name.replace('K', 'k') if name == 'K' else name}B"
        )
    if name in _SPELLING_HINTS:
        return f"unknown unit {name!r}: did you mean {_SPELLING_HINTS[name]}?"
    if len(name) >= 2 and name[0] in _SMALL_PREFIXES and name[1:] in ("b", "B", "bit", "byte"):
        big = name[0].upper() if name[0] == "m" else "M"
        return (
            f"{name!r} would be a {'milli' if name[0] == 'm' else 'sub-'}"
            f"{'bit' if name[1:] in ('b', 'bit') else 'byte'}, which is surely not meant: "
            f"write {big}B (megabyte) or {big}b (megabit)"
        )
    close = _close_units(name)
    hint = f": did you mean {' or '.join(close)}?" if close else ""
    return f"unknown unit {name!r}{hint} (units are case-sensitive: B is a byte, b a bit)"


def _common_spellings() -> tuple[str, ...]:
    bases = ["B", "b", "bit", "FLOP", "FLOPS", "W", "Wh", "J", "Hz", "s", "iB"]
    prefixes = ["", "k", "M", "G", "T", "P", "E"]
    names = {p + b for p in prefixes for b in bases if b != "iB"}
    names |= {p + "iB" for p in ("K", "M", "G", "T", "P", "E")}
    names |= {
        "ms",
        "µs",
        "ns",
        "min",
        "h",
        "day",
        "week",
        "month",
        "year",
        "param",
        "token",
        "GPU",
        "node",
        "request",
        "sequence",
        "USD",
        "m",
        "g",
    }
    return tuple(sorted(n for n in names if registry_unit(n) is not None))


def _close_units(name: str) -> list[str]:
    spellings = _common_spellings()
    same_letters = [s for s in spellings if s.lower() == name.lower() and s != name]
    if same_letters:
        return same_letters[:3]
    import difflib  # only for a name that is not found

    return difflib.get_close_matches(name, spellings, n=3, cutoff=0.7)


_LOCAL = threading.local()


def resolve_record_value(name: str, pos: int, text: str = "") -> pint.Quantity:
    """A value of a hardware or model record, written RECORD.key ("H100-SXM.peak_flops")."""
    from napkinmath.errors import UnknownNameError

    record_name, _, key = name.rpartition(".")
    if getattr(_LOCAL, "loading", False):
        raise parse_error(f"{name!r}: a record value cannot refer to another record", text, pos)
    _LOCAL.loading = True
    try:
        from napkinmath.text.references import record as get_record

        record = get_record(record_name)
        value = record.values.get(key)
        if value is None:
            import difflib

            keys = sorted(record.values)
            close = difflib.get_close_matches(key, keys, n=3, cutoff=0.5)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            raise parse_error(
                f"{record.id} has no value {key!r}: {hint}its values are {', '.join(keys)}",
                text,
                pos,
            )
        return value.quantity  # parsed on first use: a reference inside it is refused above
    except UnknownNameError as exc:
        raise parse_error(f"in {name!r}: {exc}", text, pos) from None
    finally:
        _LOCAL.loading = False


def resolve_name(
    name: str, pos: int, text: str = "", notes: list[str] | None = None
) -> pint.Quantity:
    """The default resolver: RECORD.key is a record value, any other NAME a unit."""
    if "." in name:
        return resolve_record_value(name, pos, text)
    return resolve_unit(name, pos, text, notes)


def has_ambiguous_suffix(node: Node) -> bool:
    """True when a number carries a suffix that also reads as a unit ("7B": bytes or 7e9)."""
    stack = [node]
    while stack:  # a loop, not recursion: no tree is too deep for it
        current = stack.pop()
        if current.kind == "num" and current.suffix in AMBIGUOUS_SUFFIXES:
            return True
        stack.extend(current.args)
    return False


def evaluate(
    node: Node, text: str = "", resolve: Resolver | None = None, suffix_as_unit: bool = False
) -> pint.Quantity:
    """Evaluate an expression tree to a pint Quantity.

    `resolve(name, pos)` turns a NAME into a Quantity (default: a unit of the registry, or a
    record value for RECORD.key). With `suffix_as_unit`, "7B" reads as 7 byte and "7b" as
    7 bit instead of 7e9.
    """
    result = _Evaluator(text, resolve, suffix_as_unit).eval(node)
    try:  # 1e300 TFLOP is finite, but not in FLOP; GB^40 has no float conversion factor
        in_base = float(result.to_base_units().magnitude)
    except (ArithmeticError, ValueError, TypeError, pint.PintError):
        in_base = math.inf
    if not math.isfinite(in_base):
        raise parse_error(
            "the result is too large to convert between units (beyond 1e308 in base units)",
            text,
            node.pos,
        )
    if out_of_float_range(in_base, was_nonzero=float(result.magnitude) != 0):  # 1e-300 ps
        raise parse_error(
            "the result is too small to convert between units (below 2.2e-308 "
            "in base units, where it underflows to 0)",
            text,
            node.pos,
        )
    return result


class _Evaluator:
    def __init__(self, text: str, resolve: Resolver | None, suffix_as_unit: bool) -> None:
        self.text = text
        self.resolve = resolve or (lambda name, pos: resolve_name(name, pos, text))
        self.suffix_as_unit = suffix_as_unit

    def error(self, message: str, node: Node) -> ParseError:
        return parse_error(message, self.text, node.pos)

    def eval(self, root: Node) -> pint.Quantity:
        """Evaluate the tree bottom-up with a stack of its own (no recursion, whatever the
        tree's depth), the arguments of each node left to right."""
        values: list[pint.Quantity] = []
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if node.args and not ready:
                stack.append((node, True))
                stack.extend((arg, False) for arg in reversed(node.args))
                continue
            count = len(node.args)
            args = values[len(values) - count :] if count else []
            del values[len(values) - count :]
            values.append(self.step(node, args))
        return values[0]

    def step(self, node: Node, args: list[pint.Quantity]) -> pint.Quantity:
        """One node, given the values of its arguments."""
        try:
            result = getattr(self, "_" + node.kind)(node, *args)
        except NapkinError:
            raise
        except pint.DimensionalityError as exc:
            raise self.error(f"units do not fit: {exc}", node) from None
        except OverflowError:
            raise self.error("the result is too large (not a finite number)", node) from None
        except (ArithmeticError, ValueError, TypeError) as exc:
            raise self.error(f"cannot evaluate: {exc}", node) from None
        except pint.PintError as exc:
            raise self.error(f"cannot evaluate: {exc}", node) from None
        self.check_range(result, node)
        return result

    def check_range(
        self, result: pint.Quantity, node: Node, was_nonzero: bool = False, what: str = ""
    ) -> None:
        """Refuse a value that overflowed, is NaN, or underflowed: a subnormal, or a 0 that
        `was_nonzero` (a product, quotient, power or conversion of non-zero values)."""
        magnitude = float(result.magnitude)
        problem = out_of_float_range(magnitude, was_nonzero=was_nonzero)
        if not problem:
            return
        if math.isnan(magnitude):
            raise self.error(f"{self.source(node)} is not a number (NaN)", node)
        if math.isinf(magnitude):
            raise self.error(
                f"{what or self.source(node)} overflows: the result is too large "
                "(not a finite number, beyond about 1.8e308)",
                node,
            )
        raise self.error(
            f"{what or self.source(node)} underflows: the value is {problem}. "
            "Check the exponents: napkinmath's numbers stay within about "
            "1e-308 to 1e308, in base units too",
            node,
        )

    def source(self, node: Node) -> str:
        if self.text and 0 <= node.start < node.end <= len(self.text):
            shown = self.text[node.start : node.end].strip()
            if shown.count("(") == shown.count(")"):
                return shown
        return reading(node)

    def _num(self, node: Node) -> pint.Quantity:
        if node.suffix and self.suffix_as_unit and node.suffix in AMBIGUOUS_SUFFIXES:
            number = ureg.Quantity(node.value, AMBIGUOUS_SUFFIXES[node.suffix])
        else:
            scale = COUNT_SUFFIXES[node.suffix] if node.suffix else 1.0
            number = ureg.Quantity(node.value * scale)
        digits = node.text.lower().partition("e")[0]  # "0.0…01e-300" is not 0, though it reads so
        self.check_range(number, node, any(c in "123456789" for c in digits))
        return number

    def _name(self, node: Node) -> pint.Quantity:
        return self.resolve(node.text, node.pos)

    def _neg(self, node: Node, operand: pint.Quantity) -> pint.Quantity:
        # pint's stubs type -operand as a PlainQuantity; it is ureg's Quantity
        return -operand  # type: ignore[return-value]

    def _binop(self, node: Node, left: pint.Quantity, right: pint.Quantity) -> pint.Quantity:
        if node.op == "*":
            product = left * right
            self.check_range(product, node, _nonzero(left) and _nonzero(right))
            return product
        if node.op == "/":
            if right.magnitude == 0:
                divisor = self.source(node.args[1])
                shown = "" if node.args[1].kind == "num" else f" ({divisor} is zero)"
                raise self.error(f"division by zero{shown}", node)
            quotient = left / right
            self.check_range(quotient, node, _nonzero(left))
            return quotient
        if left.dimensionality != right.dimensionality:
            verb = "add" if node.op == "+" else "subtract"
            raise self.error(
                mismatch_message(
                    f"cannot {verb} {self.source(node.args[0])} and {self.source(node.args[1])}",
                    left,
                    right,
                    f"both sides of {node.op} need the same dimension",
                ),
                node,
            )
        if right.units != left.units:  # the right side is converted to the left side's unit
            converted = right.to(left.units)
            self.check_range(
                converted,
                node.args[1],
                _nonzero(right),
                f"{self.source(node.args[1])} in {format_unit(left.units)}",
            )
            right = converted
        return left + right if node.op == "+" else left - right

    def _pow(self, node: Node, base: pint.Quantity, exponent: pint.Quantity) -> pint.Quantity:
        if not exponent.dimensionless:
            raise self.error(
                f"an exponent must be a plain number, not {describe_dimension(exponent)}",
                node.args[1],
            )
        power = float(exponent.to("").magnitude)
        if abs(power) > MAX_EXPONENT:
            raise self.error(f"exponent {power:g} is beyond ±{MAX_EXPONENT}", node.args[1])
        if not base.dimensionless and not float(power * 2).is_integer():
            raise self.error(
                "a quantity with units can only be raised to a whole or half power", node.args[1]
            )
        if base.dimensionless:
            value = float(base.to("").magnitude)
            if value < 0 and not power.is_integer():
                raise self.error("a negative number to a fractional power is not real", node)
            if value == 0 and power < 0:
                raise self.error("zero to a negative power is a division by zero", node)
            raised = ureg.Quantity(math.pow(value, power))
            self.check_range(raised, node, _nonzero(base))
            return raised
        if base.magnitude < 0 and not power.is_integer():
            raise self.error("a negative quantity to a half power is not real", node)
        if base.magnitude == 0 and power < 0:
            raise self.error("zero to a negative power is a division by zero", node)
        raised = base**power
        self.check_range(raised, node, _nonzero(base))
        return raised

    def _call(self, node: Node, *args: pint.Quantity) -> pint.Quantity:
        name = node.text
        if name in ("min", "max"):
            first = args[0]
            for arg_node, other in zip(node.args[1:], args[1:], strict=True):
                if other.dimensionality != first.dimensionality:
                    raise self.error(
                        mismatch_message(
                            f"{name}() cannot compare {self.source(node.args[0])} and "
                            f"{self.source(arg_node)}",
                            first,
                            other,
                            "its arguments need one dimension",
                        ),
                        node,
                    )
            return (min if name == "min" else max)(args, key=lambda q: q.to(first.units).magnitude)
        (arg,) = args
        if name == "sqrt":
            if arg.magnitude < 0:
                raise self.error("sqrt of a negative number", node)
            return arg**0.5
        if name == "abs":
            # pint's stubs type abs(arg) as a PlainQuantity; it is ureg's Quantity
            return abs(arg)  # type: ignore[arg-type]
        if name in ("ceil", "floor"):
            rounder = math.ceil if name == "ceil" else math.floor
            return ureg.Quantity(float(rounder(arg.magnitude)), arg.units)
        if not arg.dimensionless:
            raise self.error(f"{name}() needs a plain number, got {describe_dimension(arg)}", node)
        value = float(arg.to("").magnitude)
        if name == "exp":
            if value > 700:
                raise self.error("exp() of a number above 700 overflows", node)
            result = ureg.Quantity(math.exp(value))
            self.check_range(result, node, was_nonzero=True)  # exp is never 0
            return result
        if value <= 0:
            raise self.error(f"{name}() needs a positive number", node)
        function = {"log": math.log, "log2": math.log2, "log10": math.log10}[name]
        return ureg.Quantity(function(value))


def _nonzero(q: pint.Quantity) -> bool:
    return float(q.magnitude) != 0
