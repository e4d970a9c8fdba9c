"""Precision as a choice, and record values named by their key.

    solve(..., gpu="H100", precision="fp8")      # the record's FP8 peak, 1-byte weights and KV
    solve(..., gpu="H100", peak_flops="peak_flops_fp8")   # one record value by its key

A precision picks the record key that holds the peak at that precision and the bytes per
value of weights and of the KV cache; a value the user gives always wins. Training state
(gradients, optimizer, master weights) keeps its own defaults: mixed-precision training keeps
fp32 state whatever the matmul precision.
"""

from __future__ import annotations

import re

from napkinmath.answer.data import Given
from napkinmath.catalog.lookup import variables
from napkinmath.errors import InputError
from napkinmath.text.values import to_quantity
from napkinmath.text.visible import quoted
from napkinmath.units import Quantity

#: precision -> (the record key of its dense peak, bytes per value)
PRECISIONS: dict[str, tuple[str, float]] = {
    "bf16": ("peak_flops", 2.0),
    "fp16": ("peak_flops", 2.0),
    "fp8": ("peak_flops_fp8", 1.0),
    "int8": ("peak_flops_int8", 1.0),
    "fp4": ("peak_flops_fp4", 0.5),
}
#: the byte sizes a precision sets
BYTES_PER_VALUE = ("weight_bytes_per_param", "kv_bytes_per_element")
_KEY = re.compile(r"[a-z][a-z0-9_]*")


def precision_givens(
    precision: object, gpu: str | None, bound: dict[str, Given]
) -> dict[str, Given]:
    """The peak and byte sizes `precision` implies, for names the user did not give."""
    if not isinstance(precision, str) or precision.lower() not in PRECISIONS:
        raise InputError(
            f"precision={quoted(precision)}: expected one of {', '.join(PRECISIONS)}", "precision"
        )
    precision = precision.lower()
    key, size = PRECISIONS[precision]
    known = variables()
    out: dict[str, Given] = {}
    for name in BYTES_PER_VALUE:
        if bound.get(name) is None or bound[name].origin != "given":
            var = known[name]
            out[name] = Given(
                var,
                Quantity(size, var.unit),
                "assumption",
                f"{precision}: {size:g} byte per value (--precision)",
            )
    if gpu is not None and (
        bound.get("peak_flops") is None or bound["peak_flops"].origin != "given"
    ):
        from napkinmath.hardware import get

        record = get(gpu)
        if key not in record.values:
            raise InputError(
                f"precision={precision}: the {record.id} record has no {key} (its "
                f"dense {precision} peak); give peak_flops yourself",
                "precision",
            )
        value = record.values[key]
        var = known["peak_flops"]
        origin = "assumption" if value.assumption else "record"
        out["peak_flops"] = Given(
            var,
            to_quantity(value.quantity, var),
            origin,
            f"{record.id}: {key}, {value.provenance()} (--precision {precision})",
            record=record.id,
        )
    return out


def record_reference(name: str, value: object, records: list[str]) -> Given | None:
    """`peak_flops="peak_flops_fp8"`: the value of that key in a record given (gpu, model)."""
    if not isinstance(value, str) or not _KEY.fullmatch(value.strip()):
        return None
    from napkinmath.hardware import get

    key = value.strip()
    for record_name in records:
        record = get(record_name)
        if key in record.values and key != name:
            var = variables()[name]
            entry = record.values[key]
            try:
                quantity = to_quantity(entry.quantity, var)
            except InputError as exc:
                raise InputError(
                    f"{name}={key}: the {record.id} record's {key} does not fit {name}: {exc}", name
                ) from None
            return Given(
                var,
                quantity,
                "given",
                f"the {record.id} record's {key}, {entry.provenance()}",
                record=record.id,
            )
    return None


def record_key_error(name: str, value: object, records: list[str]) -> InputError | None:
    """For a given that names a record key the records at hand lack ("peak_flops_fp8" with no
    --gpu, or a misspelt key): which records have it, or the closest keys; None when `value`
    names no key of any record."""
    if not isinstance(value, str) or not _KEY.fullmatch(value.strip()):
        return None
    import difflib

    from napkinmath.hardware import get
    from napkinmath.hardware import records as all_records

    key = value.strip()
    having = [r.id for r in all_records().values() if key in r.values]
    if not records:
        if not having:
            return None
        shown = ", ".join(having[:4]) + (", ..." if len(having) > 4 else "")
        return InputError(
            f"{name}={key}: {key} is a value of hardware records ({shown}); name "
            f"the record with --gpu/--model (gpu=), or write "
            f"{having[0]}.{key}",
            name,
        )
    record = get(records[-1])
    keys = sorted(record.values)
    close = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
    if not close and not having:
        return None
    hint = (
        f": did you mean {' or '.join(close)}?"
        if close
        else (f"; {', '.join(having[:4])} {'has' if len(having) == 1 else 'have'} it")
    )
    return InputError(f"{name}={key}: the {record.id} record has no value {key!r}{hint}", name)
