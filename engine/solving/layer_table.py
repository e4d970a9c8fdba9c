"""The step's per-layer table: every operator of one layer with its FLOPs, HBM bytes, roof and
time, for an answer that computes the step from its parts.

    each operator:    time = FLOPs / (peak_flops · compute_efficiency · gpus_per_rank)
                           + bytes / (hbm_bandwidth · memory_efficiency · gpus_per_rank)
    collectives:      time = tp_comm_time / ((n_layers / pp) · n_microbatches)

The operators and their counts are `napkinmath.library.operators.OPERATORS` (a matmul's
bytes are what its epilogues write after the main loop, in series with it), the same
expressions whose sums are the library's formulas (`layer_memory_traffic`; `compute_time`
counts the same matmul FLOPs with PaLM's formula, plus the output layer), evaluated with the
answer's own numbers. An answer that lacks one of them gets no table.
"""

from __future__ import annotations

from napkinmath.answer.data import LayerRow, LayerTable
from napkinmath.answer.result import Result
from napkinmath.library.operators import INPUTS, OPERATORS

#: base-unit values of bytes are in bits (units.txt: byte = 8 * bit)
_BITS_PER_BYTE = 8
#: the variables whose presence says the answer reads the step's per-layer parts
_STEP = ("compute_time", "memory_bound_time")
#: how many layers and micro-batches the step runs, and its collectives' time
_COUNTS = ("n_layers", "pp", "n_microbatches", "tp_comm_time")
#: the rates each roof reads
_RATES = {
    "matmul": ("peak_flops", "compute_efficiency", "gpus_per_rank"),
    "memory": ("hbm_bandwidth", "memory_efficiency", "gpus_per_rank"),
}


def _base_values(result: Result, names: frozenset[str]) -> dict[str, float]:
    """The answer's numbers in base units: its steps' values, and its givens of `names`."""
    values: dict[str, float] = {}
    for step in result.steps:
        values.update(step.values)
    for name in names:
        given = result.givens.get(name)
        if name not in values and given is not None:
            var = given.variable
            values[name] = given.quantity.to(var.unit).magnitude * var.base_factor
    return values


def layer_table(result: Result) -> LayerTable | None:
    """The answer's operators of one layer and micro-batch on one GPU, or None where the
    answer does not compute the step's compute and memory-bound time, or lacks a number an
    operator needs."""
    matmul_rate, memory_rate = _RATES["matmul"], _RATES["memory"]
    needed = (*_STEP, *INPUTS, *matmul_rate, *memory_rate)
    values = _base_values(result, frozenset((*needed, *_COUNTS)))
    if not all(n in values for n in needed):
        return None
    matmul, memory = (values[a] * values[b] * values[c] for a, b, c in (matmul_rate, memory_rate))
    rows: list[LayerRow] = []
    for op in OPERATORS:
        flops, size = float(op.flops(values)), float(op.bytes(values))
        # in series: the main loop on the matmul roof, then its epilogue on the memory roof
        seconds = flops / matmul + size / memory
        rows.append(LayerRow(op.name, op.roof, flops, size / _BITS_PER_BYTE, seconds))
    layers = values["n_layers"] / values["pp"] if "n_layers" in values and "pp" in values else 0
    microbatches = values.get("n_microbatches", 0.0)
    if "tp_comm_time" in values and layers and microbatches:
        per = values["tp_comm_time"] / (layers * microbatches)
        rows.append(LayerRow("tensor-parallel collectives", "link", 0.0, 0.0, per))
    return LayerTable(tuple(rows), layers, microbatches)
