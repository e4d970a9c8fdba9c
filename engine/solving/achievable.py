"""Achievable figures in place of datasheet peaks (``achievable=True``, ``--achievable``).

    solve("decode_step_time", weight_memory="15.009 GB", kv_cache_memory="0 GB", n_gpus=1,
          gpu="H200", achievable=True)        # 3.47 ms from the measured 4.32 TB/s, not 3.13

A record may hold measured figures beside its datasheet ones (``achievable_flops``,
``achievable_flops_fp8``, ``achievable_hbm_bandwidth``; see `napkinmath.formulas.efficiency`).
With `achievable`, `peak_flops` (at the chosen precision) and `hbm_bandwidth` are bound to them;
the datasheet values stay in the record. Every given so bound names the measured figure and
its source, and every step that reads one says so. A value the user gives always wins; a
figure the record does not hold keeps the datasheet value, with a note.
"""

from __future__ import annotations

from napkinmath.answer.data import Given
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variables
from napkinmath.errors import InputError
from napkinmath.text.values import to_quantity
from napkinmath.units import format_quantity

#: precision -> the record key of the measured matmul FLOP/s that stands for peak_flops
MATMUL_KEYS = {
    None: "achievable_flops",
    "bf16": "achievable_flops",
    "fp16": "achievable_flops",
    "fp8": "achievable_flops_fp8",
}
BANDWIDTH_KEY = "achievable_hbm_bandwidth"
ALL_KEYS = (
    "achievable_flops",
    "achievable_flops_fp8",
    BANDWIDTH_KEY,
    "achievable_nvlink_bandwidth",
)
#: marks a given bound from a measured figure (found again by `mark_steps`)
TAG = "(measured)"


#: variables defined against the datasheet peak FLOP/s: where a question gives or asks for
#: one, `peak_flops` stays the datasheet's (PaLM's MFU; mfu_achievable is the other figure)
_PEAK_RELATIVE = ("mfu", "hfu", "prefill_mfu", "matmul_efficiency", "mfu_achievable")
_SERVING_STEP = (
    "serving_weights_read_time",
    "serving_kv_read_time",
    "serving_decode_gemm_time",
    "serving_decode_attention_time",
    "serving_chunk_gemm_time",
    "serving_chunk_attention_time",
    "serving_decode_step_time",
    "serving_mixed_step_time",
    "serving_step_time",
    "serving_tpot",
    "serving_ttft",
    "replica_request_rate",
    "serving_output_rate_per_gpu",
    "decode_weight_read_efficiency",
    # disaggregated (`napkinmath.formulas.serving_disagg`)
    "disagg_prefill_compute_time",
    "disagg_prefill_weights_time",
    "disagg_prefill_comm_time",
    "disagg_prefill_time",
    "disagg_ttft",
    "disagg_tpot",
    "prefill_pool_request_rate",
    "decode_pool_request_rate",
    "disagg_request_rate",
    "disagg_output_rate_per_gpu",
)
#: the step from its parts (`napkinmath.formulas.step_parts`): its MFU and ideal step are
#: against the datasheet peak, so the measured figure enters as `compute_efficiency` instead
_STEP_MODEL = (
    "step_time_predicted",
    "mfu_predicted",
    "compute_time",
    "memory_bound_time",
    "tp_comm_time",
    "pipeline_bubble_time",
    "step_time_ideal",
    "compute_efficiency",
    # the serving step (`napkinmath.formulas.serving_step`): a busy replica's kernels at the
    # rates they reach, its speed of light with each efficiency at 1
    *_SERVING_STEP,
)
#: the step's rates, each a measured figure over its datasheet one where the record holds it:
#: (efficiency, record key of the measured figure, the datasheet variable); bound for every
#: question that reads the step, so that its prediction is a forecast by default
STEP_RATES = (
    ("compute_efficiency", "achievable_flops", "peak_flops"),
    ("memory_efficiency", BANDWIDTH_KEY, "hbm_bandwidth"),
    ("nvlink_collective_efficiency", "achievable_nvlink_bandwidth", "nvlink_bandwidth"),
)


def achievable_givens(
    gpu: str | None, bound: dict[str, Given], precision: str | None, targets: tuple[str, ...] = ()
) -> dict[str, Given]:
    """`peak_flops` and `hbm_bandwidth` from `gpu`'s measured figures, where the user gave
    neither; the datasheet values they replace are quoted in each note. `peak_flops` stays
    the datasheet's where the question gives or asks for an MFU (defined against it)."""
    if gpu is None:
        raise InputError(
            "achievable=True needs a gpu= record whose measured figures to use "
            f"(records that hold some: {', '.join(holders())}); or give "
            "peak_flops and hbm_bandwidth yourself",
            "achievable",
        )
    from napkinmath.hardware import get

    record = get(gpu)
    if not any(key in record.values for key in ALL_KEYS):
        raise InputError(
            f"achievable=True: the {record.id} record holds no measured figure "
            f"({', '.join(ALL_KEYS)}); records that do: {', '.join(holders())}. "
            "Measure yours with tools/measure_gpu.py and load the file with "
            "--records (records=)",
            "achievable",
        )
    known = variables()
    out: dict[str, Given] = {}
    wanted = {
        "peak_flops": MATMUL_KEYS.get(precision.lower() if precision else None),
        "hbm_bandwidth": BANDWIDTH_KEY,
    }
    for name, key in wanted.items():
        current = bound.get(name)
        if key is None or key not in record.values or current is None or current.origin == "given":
            continue
        if _reads_the_step(targets, bound):
            continue  # the step keeps the datasheet figures; step_rate_givens binds its rates
        if name == "peak_flops" and _reads_an_mfu(targets, bound):
            continue
        value = record.values[key]
        var = known[name]
        note = (
            f"{record.id}: {key}, in place of the datasheet "
            f"{format_quantity(current.quantity)} {TAG}; {value.provenance()}"
        )
        out[name] = Given(
            var,
            to_quantity(value.quantity, var),
            "assumption" if value.assumption else "record",
            note,
            record=record.id,
        )
    return out


def _reads_an_mfu(targets: tuple[str, ...], givens: dict[str, Given]) -> bool:
    """True when the question asks for an MFU-like share, or the user gives one (the step
    model's variables count: its MFU and ideal step are against the datasheet peak)."""
    return _reads_the_step(targets, givens) or any(
        n in targets or (n in givens and givens[n].origin == "given") for n in _PEAK_RELATIVE
    )


def _reads_the_step(targets: tuple[str, ...], givens: dict[str, Given]) -> bool:
    """True when the question asks for the step from its parts, or the user gives one."""
    return any(n in targets or (n in givens and givens[n].origin == "given") for n in _STEP_MODEL)


def step_rate_givens(
    gpu: str | None, bound: dict[str, Given], targets: tuple[str, ...]
) -> dict[str, Given]:
    """The step's efficiencies (`STEP_RATES`) from `gpu`'s measured figures over its datasheet
    ones, for a question that reads the step from its parts, with or without `achievable`:
    a prediction is a forecast by default. A value the user gave wins; a figure the record
    lacks leaves the efficiency's stated default."""
    if gpu is None or not _reads_the_step(targets, bound):
        return {}
    from napkinmath.hardware import get

    record = get(gpu)
    known = variables()
    out: dict[str, Given] = {}
    for name, key, datasheet in STEP_RATES:
        given, peak = bound.get(name), bound.get(datasheet)
        if name in targets or (given is not None and given.origin == "given"):
            continue
        if key not in record.values or peak is None:
            continue
        measured = record.values[key]
        ratio = (measured.quantity / peak.quantity).to("").magnitude
        note = (
            f"{record.id}: {key} over the datasheet {datasheet}, "
            f"{format_quantity(measured.quantity)} / {format_quantity(peak.quantity)} {TAG}; "
            f"{measured.provenance()}"
        )
        origin = "assumption" if measured.assumption else "record"
        var = known[name]
        out[name] = Given(var, to_quantity(ratio, var), origin, note, record=record.id)
    return out


def note_step_rates(result: Result) -> None:
    """Say, for an answer that reads the step, which of its rates are measured figures and
    that the prediction is a forecast (step_time_ideal is the speed-of-light figure)."""
    if not _reads_the_step(result.targets, result.givens):
        return
    measured = [
        name for name, _, _ in STEP_RATES if TAG in getattr(result.givens.get(name), "note", "")
    ]
    if not measured:
        return
    serving = any(n in result.targets or n in result.givens for n in _SERVING_STEP)
    ideal = (
        "the speed of light is each efficiency at 1 (compute_efficiency=1 memory_efficiency=1 "
        "decode_weight_read_efficiency=1)"
        if serving
        else "step_time_ideal is the model FLOPs at the datasheet peak"
    )
    result.notes.append(
        "a forecast: the step runs at the record's measured rates ("
        + ", ".join(measured)
        + f"), with or without --achievable; {ideal}"
    )


def holders() -> list[str]:
    """The records that hold at least one measured figure, by id."""
    from napkinmath.hardware import records

    return [r.id for r in records().values() if any(k in r.values for k in ALL_KEYS)]


def _measured(given: Given) -> str:
    key = given.note.partition(": ")[2].replace(",", " ").split(" ")[0]
    return f"{given.record}'s measured {format_quantity(given.quantity)} ({key}, {TAG[1:-1]})"


def mark_steps(result: Result, gpu: str | None, precision: str | None) -> None:
    """Say in every step that reads a measured figure that it is one, and note a datasheet
    peak used because the record holds no measured figure for it."""
    measured = {name: g for name, g in result.givens.items() if TAG in g.note}
    for step in result.steps:
        reads = [name for name in sorted(measured) if name in step.values]
        if reads:
            said = "; ".join(
                f"{name} here is {_measured(measured[name])}, not the datasheet figure"
                for name in reads
            )
            step.note = f"{step.note}; {said}" if step.note else said
    mfu_question = _reads_an_mfu(result.targets, result.givens)
    if _reads_the_step(result.targets, result.givens):
        return  # the step's rates are the measured ones with or without --achievable
    elif mfu_question:
        result.notes.append(
            "--achievable: peak_flops stays the datasheet figure, because MFU "
            "is defined against it (PaLM); the fraction of the measured matmul "
            "FLOP/s is mfu_achievable = mfu / matmul_efficiency"
        )
    if gpu is None:
        return
    wanted = {
        "peak_flops": MATMUL_KEYS.get(precision.lower() if precision else None),
        "hbm_bandwidth": BANDWIDTH_KEY,
    }
    for name, key in wanted.items():
        given = result.givens.get(name)
        if name == "peak_flops" and mfu_question:
            continue  # kept at the datasheet figure on purpose, said above
        if given is not None and given.origin != "given" and TAG not in given.note:
            what = key or f"measured {precision} matmul figure"
            result.notes.append(
                f"--achievable: the {given.record} record holds no "
                f"{what}; {name} is the datasheet figure"
            )
