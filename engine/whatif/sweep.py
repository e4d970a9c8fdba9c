"""Sweeps: the same question over one or two swept inputs, or over records, as one table.

    sweep("train_time", over={"n_gpus": "1k..16k:log:9"}, train_compute="6.35e24 FLOP",
          mfu=0.4, gpu="H100")

The question is planned once (per record) at the first point of the sweep, the plan is compiled
to numpy, and every point is evaluated in one pass; a grid of two inputs is their cartesian
product. Points where a step has no admissible answer are left empty and counted in a note.
The constraints the answer touches are evaluated at every point the same way: the table says
per row whether it fits, which constraint binds and its share of the limit, and a note per
violated constraint where it fails (`Table.warnings`; `napkin sweep --strict` exits 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import numpy as np

from napkinmath import arguments, deadline
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variable, variables
from napkinmath.errors import InputError, NapkinError
from napkinmath.library.settings import SETTINGS, expand
from napkinmath.solving.solver import (
    CONSISTENCY_TOLERANCE,
    bind,
    check_tolerance,
    readings,
    solve_bound,
    target_names,
)
from napkinmath.text.expr import visible
from napkinmath.text.numbers import is_fraction
from napkinmath.units import Quantity, format_unit, humanize, picks_by_size
from napkinmath.whatif import budget, feasible
from napkinmath.whatif.answers import quantity
from napkinmath.whatif.ranged import base_inputs
from napkinmath.whatif.spread import Axis, axis_length, is_spread, to_axis
from napkinmath.whatif.table import Column, Table
from napkinmath.whatif.vectorize import Feasibility, VectorChain

MAX_POINTS = budget.MAX_POINTS
MAX_AXES = 2


def record_list(value: object, option: str) -> list[str | None]:
    """'H100,MI300X' or ['H100', 'MI300X'] as a list of record names; None as [None]."""
    if value is None:
        return [None]
    if not isinstance(value, (str, list, tuple)):
        raise InputError(
            f"{option}={arguments.shown(value)}: expected a record name or a list of them", option
        )
    names = value.split(",") if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) for n in names):
        raise InputError(
            f"{option}={arguments.shown(value)}: every record is named by text, such as 'H100-SXM'",
            option,
        )
    stripped = [n.strip() for n in names if n.strip()]
    if not stripped:
        raise InputError(f"{option}=: name at least one record", option)
    from napkinmath.hardware import find

    named: dict[str, str] = {}  # record id -> the first name given for it
    for name in stripped:
        record_id = find(name)
        if record_id is None:
            continue  # a config.json path, or a name refused where it is bound
        if record_id in named:
            raise InputError(
                f"{option}={arguments.shown(value)}: {named[record_id]} and {name} are the same "
                f"record ({record_id}); name it once",
                option,
            )
        named[record_id] = name
    return [*stripped]


@deadline.per_question
def sweep(
    targets: str | Iterable[str],
    /,
    over: Mapping[str, object] | None = None,
    *,
    gpu: object = None,
    model: object = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    points: int = 11,
    achievable: bool = False,
    records: object = None,
    precision: str | None = None,
    **givens: object,
) -> Table:
    """Solve `targets` at every point of the swept inputs `over` (one or two; a list, an
    array, or text such as '1k..16k:log:9'), and for each record if `gpu` or `model` is a list.

    Returns a `Table` (columns named 'name [unit]') with to_pandas(), to_csv(), to_markdown()
    and plot(). `points` is the number of points of a range given without a count.
    `achievable`, `records` and `precision` are solve's (measured figures; the user's records
    files; the records' peak and bytes per value at that precision). A sweep takes at most
    1,000,000 points, 8,000,000 table cells and 200 records (`napkinmath.whatif.budget`),
    counted before any value is read.
    """
    if records is not None:
        from napkinmath.solving.records import user_records

        with user_records(records):
            return sweep(
                targets,
                over,
                gpu=gpu,
                model=model,
                tolerance=tolerance,
                points=points,
                achievable=achievable,
                precision=precision,
                **givens,
            )
    names = target_names(targets)
    over, gpus, models = _axes_asked(names, over, givens, gpu, model, tolerance, points)
    settings = _setting_axes(over)
    choices = [(s, c) for s, c in (("gpu", gpus), ("model", models), *settings)]
    budget.check_records(len(list(itertools.product(*(c for _, c in choices)))), "sweep")
    records = [(o, len(r)) for o, r in choices if len(r) > 1]
    counted = [(name, axis_length(value, points)) for name, value in over.items()]
    if all(n is not None for _, n in counted):  # refused before any value is read
        budget.check_sweep([*counted, *records], len(names))  # type: ignore[list-item]
    axes = [to_axis(value, variable(name), points) for name, value in over.items()]
    budget.check_sweep([*((a.name, len(a.values)) for a in axes), *records], len(names))
    combos = list(itertools.product(*(c for _, c in choices)))
    parts = [
        _sweep_records(
            names,
            axes,
            {**givens, **{n: v for (n, _), v in zip(settings, combo[2:], strict=True)}},
            combo[0],
            combo[1],
            tolerance,
            achievable,
            precision,
        )
        for combo in combos
    ]
    table = _table(names, axes, parts, choices, combos)
    if achievable:
        table.notes.append(
            "--achievable: peak_flops and hbm_bandwidth are each record's "
            "measured figures where it holds them (napkin hardware NAME shows "
            "them with their sources), else its datasheet peaks; peak_flops "
            "stays the datasheet's where the question reads an MFU"
        )
    table.notes.extend(readings(givens))  # "peak_flops: 989 TFLOP/s, read as per GPU"
    return table


def _axes_asked(
    names: tuple[str, ...],
    over: Mapping[str, object] | None,
    givens: dict[str, object],
    gpu: object,
    model: object,
    tolerance: float,
    points: object,
) -> tuple[dict[str, object], list, list]:
    """The swept inputs (a range or a list given is an axis too: moved out of `givens`) and
    the records of each kind, once the sweep's arguments are checked."""
    check_tolerance(tolerance)
    if isinstance(points, bool) or not isinstance(points, int):
        raise InputError(
            f"points={arguments.shown(points)}: expected a whole number such as 11", "points"
        )
    if over is not None and not isinstance(over, Mapping):
        raise InputError(
            f"over={arguments.shown(over)}: expected a mapping of swept inputs, "
            "such as over={'n_gpus': '1k..16k:log:9'}",
            "over",
        )
    over = dict(over or {})
    for name, value in list(givens.items()):
        if is_spread(value) or isinstance(value, list) or (isinstance(value, str) and "," in value):
            over[name] = givens.pop(name)  # a range or a list given is an axis
    gpus, models = record_list(gpu, "gpu"), record_list(model, "model")
    record_axes = (len(gpus) > 1) + (len(models) > 1)
    if not over and not record_axes:
        raise InputError(
            "nothing to sweep: give over={'n_gpus': '1k..16k:log:9'} (in the "
            "shell n_gpus=1k..16k:log:9) or several records, gpu=[...]"
        )
    if len(over) + record_axes > MAX_AXES:
        raise InputError(
            f"a sweep takes at most {MAX_AXES} axes (inputs or record lists); "
            f"got {', '.join(over)}{' and records' if record_axes else ''}"
        )
    for name in over:
        if name in givens:
            raise InputError(f"{name} is both swept and given: drop one", name)
        if name in names:
            raise InputError(f"{name} is both swept and a target: drop one", name)
    return over, gpus, models


def _sweep_records(
    targets: tuple[str, ...],
    axes: list[Axis],
    givens: Mapping[str, object],
    gpu: str | None,
    model: str | None,
    tolerance: float,
    achievable: bool = False,
    precision: str | None = None,
) -> tuple[list[np.ndarray], dict[str, np.ndarray], int, Feasibility]:
    center, chain = _shape(targets, axes, givens, gpu, model, tolerance, achievable, precision)
    if len(axes) > 1:
        grids = [g.ravel() for g in np.meshgrid(*[a.values for a in axes], indexing="ij")]
    else:
        grids = [a.values for a in axes]
    count = len(grids[0]) if grids else 1
    inputs = base_inputs(center, frozenset(a.name for a in axes))
    inputs.update({a.name: g for a, g in zip(axes, grids, strict=True)})
    # values no axis reaches stay scalars: only the targets are shown at every point
    values, ok = chain.evaluate(inputs, (count,), tolerance, broadcast=targets)
    everywhere = bool(ok.all())
    outputs = {t: values[t] if everywhere else np.where(ok, values[t], np.nan) for t in targets}
    return grids, outputs, int((~ok).sum()), chain.feasibility(values, ok)


def _shape(
    targets: tuple[str, ...],
    axes: list[Axis],
    givens: Mapping[str, object],
    gpu: str | None,
    model: str | None,
    tolerance: float,
    achievable: bool,
    precision: str | None,
) -> tuple[Result, VectorChain]:
    """The answer at the sweep's first point and its plan as a vector chain: what every
    point of the sweep is computed with."""
    first = dict(givens)
    first.update({a.name: quantity(float(a.values[0]), a.variable) for a in axes})
    try:
        center = solve_bound(
            targets,
            bind(targets, first, gpu=gpu, model=model, precision=precision, achievable=achievable),
            tolerance,
        )
    except NapkinError as exc:
        if not (gpu or model):
            raise
        where = ", ".join(f"{k}={visible(v)}" for k, v in (("gpu", gpu), ("model", model)) if v)
        raise InputError(f"with {where}: {exc}") from None
    unused = [a.name for a in axes if a.name not in center.givens]
    if unused:
        raise InputError(
            f"{', '.join(unused)} does not change {', '.join(targets)} here "
            "(another route through the formulas is used); sweep an input it "
            "reads, or drop a given",
            unused[0],
        )
    return center, VectorChain.from_result(center)


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _unit(var, base_values: np.ndarray):
    if not picks_by_size(var.dimensionality):  # the declared unit, whatever the values
        return _declared_unit(var.unit, var.display_unit)
    sample = base_values[:: max(1, len(base_values) // 1000)]  # a typical value suffices
    finite = np.abs(sample[np.isfinite(sample)])
    typical = _median(finite) if finite.size else 1.0
    return humanize(quantity(typical, var), var.display_unit).units


def _median(values: np.ndarray) -> float:
    """`np.median` of finite values, the same float, without the masked-array module that
    np.median imports (a cold `napkin plan` pays 7 ms for it)."""
    ordered = np.sort(values)
    half = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[half])
    return float((ordered[half - 1] + ordered[half]) / 2)


def _declared_unit(own_unit, display_unit):
    """The unit `humanize` gives a quantity whose unit it does not pick by size."""
    return humanize(Quantity(1.0, own_unit), display_unit).units


def _shown_factor(own_unit, base_factor: float, unit) -> float:
    """The factor from a variable's base units to `unit` (what a column shows), as
    `quantity(1.0, var).to(unit)` gives it."""
    return float(Quantity(1.0 / base_factor, own_unit).to(unit).magnitude)


def _column(name: str, base_values: np.ndarray, role: str, scale: str = "linear") -> Column:
    var = variables()[name]
    unit = _unit(var, base_values)
    factor = _shown_factor(var.unit, var.base_factor, unit)
    shown = base_values if factor == 1.0 else base_values * factor  # x · 1.0 is x
    percent = is_fraction(var) and not format_unit(unit)
    return Column(name, format_unit(unit), shown, role=role, scale=scale, percent=percent)


def _setting_axes(over: dict[str, object]) -> list[tuple[str, list[str]]]:
    """The settings swept (recompute=none,full: `napkinmath.library.settings`), taken out of
    `over` as label axes, each with its choices in the order given."""
    found: list[tuple[str, list[str]]] = []
    for name in [n for n in over if n in SETTINGS]:
        value = over.pop(name)
        listed = value.split(",") if isinstance(value, str) else value
        if not isinstance(listed, (list, tuple)) or not all(isinstance(v, str) for v in listed):
            raise InputError(
                f"{name}={arguments.shown(value)}: list its choices, such as "
                f"{name}={','.join(SETTINGS[name].choices)}",
                name,
            )
        picked = [v.strip() for v in listed if v.strip()]
        for choice in picked:
            expand({name: choice})  # an unknown choice: the setting's own message
        found.append((name, list(dict.fromkeys(picked))))
    return found


def _table(
    targets: tuple[str, ...],
    axes: list[Axis],
    parts: list,
    choices: list[tuple[str, list]],
    combos: list[tuple],
) -> Table:
    """The sweep's table: a label column for each record list or setting with more than one
    choice, then the swept inputs, the targets and the feasibility columns."""
    columns = []
    count = len(parts[0][1][targets[0]])
    for i, (option, chosen) in enumerate(choices):
        if len(chosen) > 1:
            labels = [combo[i] for combo in combos]
            columns.append(
                Column(option, "", [str(x) for x in labels for _ in range(count)], role="input")
            )
    for i, axis in enumerate(axes):
        base = _joined([p[0][i] for p in parts])
        scale = "log" if axis.scale == "log" else "linear"
        columns.append(_column(axis.name, base, "input", scale))
    for t in targets:
        columns.append(_column(t, _joined([p[1][t] for p in parts]), "output"))
    missing = sum(p[2] for p in parts)
    notes = (
        [
            f"{missing:,} points had no admissible answer (a step left its variable's "
            "bounds); they are empty"
        ]
        if missing
        else []
    )
    feasibility = Feasibility.joined([p[3] for p in parts])
    warnings: list[str] = []
    if feasibility.constraints:
        columns += feasible.columns(*feasible.rows(feasibility))
        more, warnings = feasible.sweep_notes(feasibility, _places(columns))
        notes += more
    gpus = choices[0][1]
    given = ", ".join(f"{g}" for g in gpus if g) or ""
    labels = [option for option, chosen in choices[2:] if len(chosen) > 1]
    title = (
        f"{', '.join(targets)} over {', '.join([*labels, *(a.name for a in axes)]) or 'records'}"
    )
    if given and len(gpus) == 1:
        title += f" ({given})"
    return Table(columns, title=title, notes=notes, warnings=warnings)


def _at(column: Column, i: int) -> str | float:
    return column.values[i] if column.is_labels else float(column.values[i])


def _places(columns: list[Column]) -> list[str]:
    """Each row named by its inputs, as its cells show them: 'batch_size = 128 sequence'."""
    from napkinmath.whatif.table import format_cell, percent_text

    inputs = [c for c in columns if c.role == "input"]
    count = len(columns[0].values) if columns else 0
    return [
        ", ".join(
            f"{c.name} = {(percent_text if c.percent else format_cell)(_at(c, i))}"
            + (f" {c.unit}" if c.unit else "")
            for c in inputs
        )
        for i in range(count)
    ]
