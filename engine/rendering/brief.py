"""The brief form of an answer, for a design doc: three lines.

    4.2×10²² FLOP / (40% × 64 GPU × 989.5 TFLOP/(s·GPU)) = 19.19 day
    train_time = 19.19 day
    It hangs most on mfu = 40% (your value; n_gpus and peak_flops swing it as much): ±10% of
    it gives train_time 17.45 … 21.32 day.

The first line is the last step of the derivation with the numbers put in (the chain that
ends at the answer); the third names the input whose swing moves the answer most, from the
answer's sensitivity (`Result.sensitivity()`: elasticities and ±10% swings). An input that a
record states (a datasheet figure) is named only when no stated assumption or value of yours
swings the answer as much.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from napkinmath.errors import NapkinError

if TYPE_CHECKING:
    from napkinmath.answer.result import Result

#: which of the inputs that swing the answer equally a sentence names first
_FIRST = {"assumption": 0, "you": 1}
_ORIGIN = {"you": "your value", "assumption": "an assumption"}


def brief(r: Result) -> str:
    """The chain on one line, the answer, and the sentence naming what it hangs on."""
    target = r.targets[0]
    lines = [line for line in (_chain(r, target), r.headline()[0], _hangs_on(r, target)) if line]
    return "\n".join(dict.fromkeys(lines))  # a given target: its line once


def _chain(r: Result, target: str) -> str:
    """'6.3×10²⁴ FLOP / (8,960 GPU × 459 TFLOP/(s·GPU) × 40%) = 44.3 day' for the step that
    gives `target`; "" when no step does (a given or a record's value)."""
    for step in reversed(r.steps):
        for var in step.unknowns:
            if var.name == target:
                shown = r._value_lines(step, var)
                return " = ".join(shown) if len(shown) > 1 else ""
    return ""


def _hangs_on(r: Result, target: str) -> str:
    """One sentence: the input whose ±10% (or range) swings `target` most."""
    try:
        report = r.sensitivity(target)
    except (NapkinError, ImportError, ArithmeticError, ValueError):
        return ""  # no numpy, or no chain to differentiate: the brief has two lines
    rows = [row for row in report.rows if row.high != row.low and row.name != target]
    if not rows:
        return ""
    widest = abs(rows[0].high - rows[0].low)
    tied = [row for row in rows if abs(abs(row.high - row.low) - widest) <= 1e-9 * widest]
    tied.sort(key=lambda row: _FIRST.get(row.origin, 2))  # stable: the report's order within
    first, others = tied[0], [row.name for row in tied[1:]]
    also = ""
    if others:
        names = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else others[0]
        also = f"; {names} {'swing' if len(others) > 1 else 'swings'} it as much"
    low, high = sorted((report._show(first.low), report._show(first.high)))
    from napkinmath.units import format_number, format_unit

    unit = format_unit(report._unit())
    ends = f"{format_number(low)} … {format_number(high)}" + (f" {unit}" if unit else "")
    swing = f"its {first.swing}" if first.swing.startswith("range") else f"{first.swing} of it"
    origin = _ORIGIN.get(first.origin, first.origin)
    return (
        f"It hangs most on {first.name} = {first.value} ({origin}{also}): {swing} gives "
        f"{target} {ends}."
    )
