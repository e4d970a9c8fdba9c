"""How plausible a value of a library variable is: bounds, the records' range, whole counts,
and the ranges published runs report (the last two declared with the variables in
`napkinmath.formulas`: `whole`, `typical`).

`judge(name, base)` returns findings, each a weight (1 = nothing against it) and a reason;
`napkinmath.checking.reconcile` and `napkinmath.checking.requires` multiply the weights to
rank the single-input changes that would resolve a disagreement. Sources of what a value
means:

- Bytes per weight: 2 (BF16), 1 (FP8/INT8), 0.5 (4-bit); values between are mixed or
  k-bit quantisations (GPTQ/AWQ/llama.cpp k-quants).
- Tokens per decode step above 1: speculative decoding or multi-token prediction
  (Leviathan et al. 2023; DeepSeek-V3 MTP, 2024).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from napkinmath.catalog.lookup import variables


@dataclass(frozen=True)
class Finding:
    """One thing for or against a value: its weight (1 neutral, < 1 against) and why."""

    weight: float
    reason: str
    verdict: str = ""  # "impossible" / "implausible" / "unusual" / "possible"


_RECORD_KINDS_SKIP = ("model",)


def record_range(name: str) -> tuple[float, str, float, str] | None:
    """(lowest base value, its record, highest, its record) of key `name` over the hardware
    records in force (model records left out), or None when no record states it."""
    from napkinmath.hardware import records
    from napkinmath.text.values import to_quantity

    var = variables().get(name)
    if var is None:
        return None
    lo: tuple[float, str] | None = None
    hi: tuple[float, str] | None = None
    for record in records().values():
        if record.kind in _RECORD_KINDS_SKIP or name not in record.values:
            continue
        try:
            base = float(to_quantity(record.values[name].quantity, var).to_base_units().magnitude)
        except Exception:  # a record value of another reading: not comparable, left out
            continue
        if not math.isfinite(base):
            continue
        if lo is None or base < lo[0]:
            lo = (base, record.id)
        if hi is None or base > hi[0]:
            hi = (base, record.id)
    if lo is None or hi is None:
        return None
    return lo[0], lo[1], hi[0], hi[1]


def shown(name: str, base: float) -> str:
    """A base value of `name` as a person writes it."""
    from napkinmath.answer.data import display
    from napkinmath.text.numbers import format_value

    var = variables()[name]
    return format_value(display(base, var), var)


def judge(name: str, base: float, gpus_per_node: float = 8.0) -> list[Finding]:
    """What speaks for or against `name` = `base` (base units); empty: nothing known."""
    var = variables().get(name)
    if var is None or not math.isfinite(base):
        return []
    found: list[Finding] = []
    value = base / var.base_factor
    if not var.bounds.contains(value):
        found.append(Finding(0.01, f"outside the bounds of {name} ({var.bounds})", "impossible"))
    span = record_range(name)
    if span is not None:
        lo, lo_id, hi, hi_id = span
        if base > hi * 1.001:
            found.append(
                Finding(
                    0.03,
                    f"above every record's {name} (the highest: {shown(name, hi)}, {hi_id})",
                    "impossible",
                )
            )
        elif base < lo * 0.999:
            found.append(
                Finding(
                    0.2,
                    f"below every record's {name} (the lowest: {shown(name, lo)}, {lo_id})",
                    "implausible",
                )
            )
    if var.whole and value >= 1:
        if abs(value - round(value)) > 1e-3 * max(1.0, value):
            found.append(Finding(0.2, f"not a whole number ({shown(name, base)})", "implausible"))
        elif name == "n_gpus" and value > gpus_per_node and round(value) % round(gpus_per_node):
            found.append(
                Finding(
                    0.4,
                    f"{round(value):,} GPUs are not whole nodes of {gpus_per_node:g}",
                    "unusual",
                )
            )
    typical = var.typical
    if typical is not None:
        side = "above" if value > typical.hi else "below"
        text = f"{name} = {shown(name, base)}, {side} {typical.what}"
        if value > typical.hard_hi or value < typical.hard_lo:
            found.append(Finding(0.15, text, "implausible"))
        elif value > typical.hi or value < typical.lo:
            found.append(Finding(0.6, text, "unusual"))
    found.extend(_meaning(name, value))
    return found


def _meaning(name: str, value: float) -> list[Finding]:
    """What a value would mean, for variables where a value names a technique."""
    if name == "tokens_per_step" and value > 1.0001:
        return [
            Finding(
                0.7,
                f"{value:.3g} tokens per decode step means speculative decoding or "
                "multi-token prediction",
                "possible",
            )
        ]
    if name == "weight_bytes_per_param":
        bits = value * 8
        for b, kind in ((4, "4-bit"), (8, "FP8/INT8"), (16, "BF16/FP16"), (32, "FP32")):
            if math.isclose(bits, b, rel_tol=0.02):
                return [Finding(1.0, f"{value:.3g} B/param is {kind} weights", "plausible")]
        if 2 <= bits <= 16:
            return [
                Finding(
                    0.6,
                    f"{value:.3g} B/param is about {bits:.2g}-bit quantisation "
                    "(a k-bit or mixed-precision format)",
                    "possible",
                )
            ]
        return [
            Finding(
                0.1, f"{value:.3g} B/param ({bits:.3g} bits) is no weight format", "implausible"
            )
        ]
    return []


def weight(findings: list[Finding]) -> float:
    return math.prod(f.weight for f in findings) if findings else 1.0


def verdict(findings: list[Finding]) -> str:
    """The worst verdict of the findings ("plausible" when none speaks against)."""
    order = ("impossible", "implausible", "unusual", "possible")
    for word in order:
        if any(f.verdict == word for f in findings):
            return word
    return "plausible"
