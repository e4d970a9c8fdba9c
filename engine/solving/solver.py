"""Solving: bind the givens, plan through the formula graph, evaluate on floats, check.

    solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")

Givens come from the user, from a record (``gpu=``, ``model=``) or from a variable's stated
default assumption, in that order of precedence; record values and defaults are bound only
when the plan needs them. Values are converted to base units at the edge, the plan's compiled
steps run on plain floats, and the results become Quantities again in the variable's unit.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import pint

from napkinmath import arguments, caches, deadline
from napkinmath.answer.data import (
    CheckRecord,
    ConstraintRecord,
    Given,
    Root,
    StepRecord,
    display,
    from_base,
)
from napkinmath.answer.result import Result
from napkinmath.answer.roundoff import ROUNDOFF_NOTE, cancels
from napkinmath.catalog.lookup import constraints, formulas, variable, variables
from napkinmath.deadline import OutOfTimeError
from napkinmath.errors import (
    InconsistentError,
    InputError,
    NapkinError,
    NoRootError,
    NumericError,
    UnderDeterminedError,
)
from napkinmath.hardware import scope
from napkinmath.library import settings
from napkinmath.library.declare import Formula, Variable
from napkinmath.solving.consistency import (
    behind,
    beyond,
    closure,
    evaluate_constraint,
    set_aside,
)
from napkinmath.solving.invert import (
    Compiled,
    joint_roots,
    needs_substitution,
    number_root,
    rearranged,
    satisfies,
    sides,
)
from napkinmath.solving.numeric_root import (
    CUT_OFF,
    NO_CLOSED_FORM,
    STARTS,
    admissible,
    joint_solution,
    roots_in_bounds,
)
from napkinmath.solving.numeric_root import NOTE as NUMERIC_NOTE
from napkinmath.solving.plan import (
    Block,
    SolvePlan,
    under_determined_message,
)
from napkinmath.solving.planner import make_plan
from napkinmath.solving.precision import precision_givens, record_key_error, record_reference
from napkinmath.solving.records import bound_records, each_record, main_record
from napkinmath.solving.torn import torn_solution
from napkinmath.text.numbers import format_value
from napkinmath.text.values import (
    missing_count,
    parse_quantity,
    parse_unit,
    read_given,
    to_quantity,
)
from napkinmath.units import Quantity, format_quantity, format_unit

T = TypeVar("T")

CONSISTENCY_TOLERANCE = 0.01


@deadline.per_question
def solve(
    targets: str | Iterable[str],
    /,
    *,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    on_inconsistent: str = "error",
    units: Mapping[str, str] | None = None,
    precision: str | None = None,
    achievable: bool = False,
    records: object = None,
    digits: int | None = None,
    formulas: object = None,
    **givens: object,
) -> Result:
    """A point answer for `targets` from plain givens (`napkinmath.questions.solve`, which
    is `nm.solve`, documents every option; a range or a spread goes there, not here).
    Every answer is worked out afresh and is the caller's own: what a question reuses is
    its plan and its compiled steps, never another caller's answer."""
    if files_to_load(formulas, records, model):
        return with_files(
            solve,
            targets,
            formulas,
            records,
            {
                "gpu": gpu,
                "model": model,
                "tolerance": tolerance,
                "on_inconsistent": on_inconsistent,
                "units": units,
                "precision": precision,
                "achievable": achievable,
                "digits": digits,
            },
            givens,
        )
    if gpu is not None and type(gpu) is not str:
        gpu = bound_records(gpu, "gpu")
    result = _solve(
        targets,
        gpu=gpu,
        model=model,
        tolerance=tolerance,
        on_inconsistent=on_inconsistent,
        units=units,
        precision=precision,
        achievable=achievable,
        givens=givens,
    )
    return result if digits is None else result._with_digits(digits)


def with_files(
    ask: Callable[..., T],
    targets: str | Iterable[str],
    formulas: object,
    records: object,
    options: dict[str, Any],
    givens: dict[str, Any],
) -> T:
    """`ask` (a solve) with the user's formulas, records files or a config.json model in
    force; a config.json model's answer carries its warning."""
    if formulas is not None:
        from napkinmath.catalog.user import user_formulas

        with user_formulas(formulas):
            return ask(targets, records=records, **options, **givens)
    from napkinmath.hardware.config_json import is_config_path

    model = options["model"]
    config = is_config_path(model)
    if config and not config_in_force(model):
        from napkinmath.solving.records import config_model

        model, records = config_model(model, records)
    from napkinmath.solving.records import config_warning, user_records

    with user_records(records):
        answer = ask(targets, **{**options, "model": model}, **givens)
        warning = config_warning(model) if config else None
        notes = getattr(answer, "notes", None)
        if warning and isinstance(notes, list) and warning not in notes:
            notes.append(warning)
        return answer


def files_to_load(formulas: object, records: object, model: object) -> bool:
    """Whether a question names formulas, records or a config.json model not yet in force."""
    from napkinmath.hardware.config_json import is_config_path

    config = is_config_path(model) and not config_in_force(model)
    return formulas is not None or records is not None or config


def config_in_force(model: object) -> bool:
    """Whether the config.json record `model` is in force already (the solve inside)."""
    from napkinmath.hardware import find, scope

    return isinstance(model, str) and scope() is not None and find(model) is not None


def _solve(
    targets: str | Iterable[str],
    *,
    gpu: Any,  # a record's name, a tuple of them (`bound_records`) or None
    model: Any,  # as gpu, or a config.json path in force
    tolerance: float,
    on_inconsistent: str,
    units: Mapping[str, object] | None,
    precision: str | None,
    achievable: bool,
    givens: dict[str, Any],
) -> Result:
    """`solve` once its files are in force: its arguments as `solve` took them, checked here."""
    names = question_names(
        targets,
        tolerance=tolerance,
        on_inconsistent=on_inconsistent,
        gpu=gpu,
        model=model,
        givens=givens,
    )
    check_achievable(achievable)
    chosen = chosen_units(units, names)
    bound = bind(names, givens, gpu=gpu, model=model, precision=precision, achievable=achievable)
    read = _record_targets(names, gpu, model, bound)
    try:  # by structure first: a record's value comes before unknowns that cancel
        derived = solve_bound(names, bound, tolerance, on_inconsistent, suggest=False, cancel=False)
    except UnderDeterminedError:
        derived = None
    except NoRootError:  # a record's stated value needs no root of its other values
        if not read:
            raise
        derived = None
    # A target a record states is the record's value, asked alone or with anything else,
    # as it is wherever the record's value is an input: never set aside for what the
    # record's other values (a shape, the 6ND rule, a dense-model assumption) give. A user's
    # value comes first: where the derived answer reads one that the record's value would
    # leave unused (hidden_size=8192 with a model), or contradicts it, the derived one stands.
    result = derived
    if read:
        stated = solve_bound(names, {**bound, **read}, tolerance, on_inconsistent)
        mine = {n for n, g in derived.givens.items() if g.origin == "given"} if derived else ()
        if derived is None or not (
            any(name in stated.set_aside for name in read)
            or any(name in stated.unused for name in mine)
        ):
            result = stated
            result.notes[:0] = _read_notes(read, derived)
    if result is None:  # raises, with suggestions, unless unknowns in the way cancel
        result = solve_bound(names, bound, tolerance, on_inconsistent)
    if achievable:
        from napkinmath.solving.achievable import mark_steps

        mark_steps(result, main_record(gpu), precision)
    if "flop_per_param_token" in result.givens:
        from napkinmath.solving.meanings import mark_flop_counts

        mark_flop_counts(result)
    if any(n in _STEP_PARTS for n in names):
        from napkinmath.solving.achievable import note_step_rates
        from napkinmath.solving.layer_table import layer_table

        note_step_rates(result)
        result.layer_table = layer_table(result)
    result.units = chosen
    return result


def question_names(
    targets: str | Iterable[str],
    *,
    tolerance: object,
    on_inconsistent: object,
    gpu: object,
    model: object,
    givens: Mapping[str, object],
) -> tuple[str, ...]:
    """The targets' names, once the options every question checks first are checked (the
    tolerance, `on_inconsistent`, one value per name): a point question (`solve`) and one
    over ranges (`napkinmath.questions`) alike."""
    names = target_names(targets)
    check_tolerance(tolerance)
    arguments.choice(on_inconsistent, "on_inconsistent", ("error", "warn"))
    refuse_lists(gpu=gpu, model=model, **givens)
    return names


def check_achievable(achievable: object) -> None:
    """`achievable` is True or False (numpy's bool too is refused: it is no Python bool)."""
    if not isinstance(achievable, bool):
        raise InputError(
            f"achievable={arguments.shown(achievable)}: expected True or False", "achievable"
        )


def chosen_units(units: object, targets: tuple[str, ...]) -> dict[str, pint.Unit]:
    """`units={"train_time": "hour"}` checked: each a target, each unit of its dimension."""
    if units is None:
        return {}
    if not isinstance(units, Mapping):
        raise InputError(
            f"units={arguments.shown(units)}: expected a mapping such as {{'train_time': 'hour'}}",
            "units",
        )
    chosen = {}
    for name, text in units.items():
        if name not in targets:
            raise InputError(
                f"units: {arguments.shown(name)} is not a target of this question "
                f"({', '.join(targets)})",
                "units",
            )
        if not isinstance(text, str):
            raise InputError(
                f"units[{arguments.shown(name)}]={arguments.shown(text)}: expected "
                "a unit such as 'hour'",
                name,
            )
        var = variable(name)
        unit = parse_unit(text, f"units[{arguments.shown(name)}]")
        count = missing_count(Quantity(1.0, unit), var)  # "ms" for TPOT: ms per token
        if count is not None:
            unit = unit / parse_unit(count, "count")
        if Quantity(1.0, unit).dimensionality != var.dimensionality:
            raise InputError(
                f"units[{arguments.shown(name)}]={arguments.shown(text)}: {name} "
                f"is in {format_unit(var.unit) or 'plain numbers'}, not "
                f"{format_unit(unit) or 'a plain number'}",
                name,
            )
        chosen[name] = unit
    return chosen


def _record_targets(
    targets: tuple[str, ...], gpu: str | None, model: str | None, bound: Mapping[str, Given]
) -> dict[str, Given]:
    """Targets that a record states (`napkin solve peak_flops --gpu H100`), as givens."""
    found: dict[str, Given] = {}
    for option, name in (("model", model), *(("gpu", g) for g in each_record(gpu))):
        if name is not None:
            record = _record_givens(name, option, (), frozenset(bound), scope())
            found.update({t: record[t] for t in targets if t in record and t not in found})
    return found


def _read_notes(read: Mapping[str, Given], derived: Result | None) -> list[str]:
    """What the answer says of each target read from a record: that it is the record's
    stated value and, where the record's other values give another, that one and how."""
    notes = []
    for name, g in read.items():
        other = None if derived is None else derived.values.get(name)
        if other is None:
            notes.append(
                f"{name} is read from the {g.record} record: the givens do not determine it"
            )
            continue
        stated = float(g.quantity.to(other.units).magnitude)
        computed = float(other.magnitude)
        if math.isclose(stated, computed, rel_tol=1e-9):
            notes.append(f"{name} is read from the {g.record} record; its other values agree")
            continue
        assert derived is not None
        by = "; ".join(
            dict.fromkeys(
                f.title
                for step in derived.steps
                if any(v.name == name for v in step.unknowns)
                for f in step.formulas
            )
        )
        notes.append(
            f"{name} is read from the {g.record} record, as wherever {name} is an input: "
            f"its stated value; the record's other values give "
            f"{format_value(other, variables()[name])} "
            f"({(computed - stated) / stated:+.2%}){f' by {by}' if by else ''}"
        )
    return notes


def check_tolerance(tolerance: object) -> None:
    """A relative tolerance is a fraction in [0, 1): 0.01 is 1%."""
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, (int, float))
        or not 0 <= tolerance < 1
    ):
        raise InputError(
            f"tolerance={arguments.shown(tolerance, 40)}: expected a fraction such as 0.01 (1%)",
            "tolerance",
        )


def refuse_lists(**options: object) -> None:
    if (
        type(options.get("gpu")) in _NAME
        and type(options.get("model")) in _NAME
        and all(type(v) in _ONE_VALUE for v in options.values())
    ):
        return  # the common case, decided in one pass
    for name, value in options.items():
        if isinstance(value, (list, set, frozenset)):
            what = "nm.compare(...)" if name in ("gpu", "model") else "nm.sweep(...)"
            raise InputError(
                f"{name}={arguments.shown(value)}: solve takes one value per name; "
                f"for several use {what}, or a range (low, high)",
                name,
            )
        if name == "gpu" and type(value) is tuple and all(type(v) is str for v in value):
            continue  # several records of different kinds (`bound_records`)
        if name in ("gpu", "model") and value is not None and not isinstance(value, str):
            raise InputError(
                f"{name}={arguments.shown(value)}: expected a record name such as "
                f"{'H100-SXM' if name == 'gpu' else 'llama-3-70b'} "
                f"(list them with `napkin hardware`)",
                name,
            )


#: value types that are one value; for gpu= and model=, a record name or none
_ONE_VALUE = (str, float, int, type(None))
_NAME = (str, type(None))


def target_names(targets: str | Iterable[str]) -> tuple[str, ...]:
    if not isinstance(targets, (str, list, tuple)):
        raise InputError(
            f"targets={arguments.shown(targets)}: name the variable to solve for, "
            "such as 'n_gpus', or a list of names",
            "targets",
        )
    names = (targets,) if isinstance(targets, str) else tuple(targets)
    if not names:
        raise InputError("nothing to solve for: name at least one target, such as n_gpus")
    for name in names:
        if not isinstance(name, str):
            raise InputError(f"a target must be a variable name, got {arguments.shown(name)}")
        variable(name)
    return tuple(dict.fromkeys(names))


def bind(
    targets: tuple[str, ...],
    givens: Mapping[str, object],
    *,
    gpu: str | None = None,
    model: str | None = None,
    precision: str | None = None,
    achievable: bool = False,
) -> dict[str, Given]:
    """Every value a solve may use, with its origin: user, record (gpu=, model=), assumption.

    A given may name a record key (``peak_flops="peak_flops_fp8"``); `precision` picks the
    record's peak at that precision and the bytes per value of weights and KV cache."""
    bound: dict[str, Given] = {}
    pending: dict[str, tuple[pint.Quantity, Variable, InputError]] = {}
    records = [*each_record(gpu), *([model] if model is not None else [])]
    givens, from_settings = settings.expand(givens)
    for name, value in givens.items():
        var = variable(name)
        if name in targets:
            raise InputError(f"{name} is both a target and a given: drop one of them", name)
        try:
            bound[name] = _user_given(var, value)
            if name in from_settings:
                bound[name] = replace(bound[name], reading=from_settings[name])
        except InputError as exc:
            reference = record_reference(name, value, records)
            if reference is not None:
                bound[name] = reference
                continue
            per = _per_variable(var, value)
            if per is None:
                raise record_key_error(name, value, records) or exc from None
            pending[name] = (per[0], per[1], exc)
    if precision is not None:
        bound.update(
            {
                n: g
                for n, g in precision_givens(precision, main_record(gpu), bound).items()
                if n not in targets
            }
        )
    if type(gpu) is tuple:
        _refuse_overlap(gpu, frozenset(bound), targets)
    for option, record in (("model", model), *(("gpu", g) for g in each_record(gpu))):
        if record is not None:
            bound.update(_record_givens(record, option, targets, frozenset(bound), scope()))
    if achievable:
        from napkinmath.solving.achievable import achievable_givens

        bound.update(achievable_givens(main_record(gpu), bound, precision, targets))
    if gpu is not None:
        from napkinmath.solving.achievable import step_rate_givens

        bound.update(step_rate_givens(main_record(gpu), bound, targets))
    bound.update(_defaults_wanted(frozenset(bound), targets))
    for name, (quantity, per_var, error) in pending.items():
        bound[name] = _converted(variable(name), quantity, per_var, bound, error)
    return bound


#: targets that read the step's per-layer operators: an answer to one carries their table
_STEP_PARTS = frozenset(
    {
        "step_time_predicted",
        "mfu_predicted",
        "compute_time",
        "memory_bound_time",
        "layer_memory_traffic",
        "tp_comm_time",
    }
)


def _refuse_overlap(gpu: tuple[str, ...], taken: frozenset[str], targets: tuple[str, ...]) -> None:
    """Records bound together must not both state a value the user left to them (which
    would silently keep the first); an InputError names the records and the key."""
    stated: dict[str, str] = {}
    for name in gpu:
        for key in _record_values(name, "gpu", scope()):
            if key in taken or key in targets:
                continue
            if key in stated:
                from napkinmath.hardware import get

                raise InputError(
                    f"{get(stated[key]).id} and {get(name).id} both state {key}: "
                    f"give {key}=... yourself to choose, or bind one of the two",
                    key,
                )
            stated[key] = name


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="the stated defaults a question takes: hit on every warm solve; a miss costs 3.2 ms "
    "against the 250 µs warm guardrail (2026-12-07, 2 cores)",
)
def _defaults_wanted(taken: frozenset[str], targets: tuple[str, ...]) -> dict[str, Given]:
    """The stated defaults of the names neither `taken` nor asked for, as Givens in the
    library's order (never a user's value: a default fills only what nothing else gave)."""
    return {
        v.name: Given(v, v.default.value, "assumption", v.default.note)
        for v in variables().values()
        if v.default is not None and v.name not in taken and v.name not in targets
    }


def _per_variable(var: Variable, value: object) -> tuple[pint.Quantity, Variable] | None:
    """For '1024 node' given as a GPU count: the parsed value and the variable that converts
    it (gpus_per_node, GPU/node), when one variable has exactly the missing dimensions."""
    if not isinstance(value, str):
        return None
    try:
        quantity = parse_quantity(value)
    except NapkinError:
        return None
    missing = var.dimensionality / quantity.dimensionality
    if quantity.dimensionless or not missing:
        return None
    matches = [c for c in variables().values() if c.dimensionality == missing]
    return (quantity, matches[0]) if len(matches) == 1 else None


def _converted(
    var: Variable,
    quantity: pint.Quantity,
    per: Variable,
    bound: Mapping[str, Given],
    error: InputError,
) -> Given:
    if per.name not in bound:
        raise InputError(
            f"{error} To give {var.name} in {format_unit(quantity.units)}, give "
            f"{per.name} too (or a --gpu record that has it)",
            var.name,
        ) from None
    factor = bound[per.name]
    value = to_quantity(quantity * factor.quantity, var)
    where = "you" if factor.origin == "given" else f"{factor.record} record"
    if factor.origin == "assumption":
        where = "assumption"
    note = f"{format_quantity(quantity)} × {per.name} {format_quantity(factor.quantity)} ({where})"
    return Given(var, value, "given", note)


def _user_given(var: Variable, value: object) -> Given:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return _cached_given(var.name, value)
    read = read_given(value, var)
    return Given(var, read.quantity, "given", "given", read.note)


def readings(givens: Mapping[str, object]) -> list[str]:
    """'peak_flops: 989 TFLOP/s, read as per GPU' for each given not read as written (for
    answers that show no Given lines: sweeps, comparisons)."""
    found = []
    for name, value in givens.items():
        try:
            reading = _user_given(variable(name), value).reading
        except NapkinError:  # a range, a list, a node count: read elsewhere
            continue
        if reading:
            found.append(f"{name}: {reading}")
    return found


@caches.memo(
    4096,
    invalidated_by=caches.RECORDS,
    reason="a given's value read from its text: three of W12's four givens hit it on each solve "
    "with new values; without it a warm solve took 163-218 µs against 77-121 µs with it, "
    "near the 250 µs guardrail (2026-12-07, 2 cores)",
)
def _cached_given(name: str, value: str | float) -> Given:
    read = read_given(value, variable(name))
    return Given(variable(name), read.quantity, "given", "given", read.note)


def _record_givens(
    name: str, option: str, targets: tuple[str, ...], taken: frozenset[str], records: object = None
) -> dict[str, Given]:
    """A record's values as givens, but those `taken` or asked for; `records` (the user
    records in force, `scope()`) keys `_record_values`' cache."""
    bound = {}
    for key, given in _record_values(name, option, records).items():
        if key not in taken and key not in targets:
            bound[key] = given if given is not None else _record_given(name, key)  # raises
    return bound


@caches.memo(
    64,
    invalidated_by="the records in force: keyed by them (`records`)",
    reason="a record's values converted once per process (4-9 ms a record): without it each new "
    "question shape re-reads its records, 2.2 s of tools/cache_value.py's workload "
    "(2026-12-07, 2 cores)",
)
def _record_values(name: str, option: str, records: object = None) -> dict[str, Given | None]:
    """Each value of a record that names a library variable, in the record's order, as a
    Given; None where reading it fails (`_record_givens` raises that error where it is used)."""
    from napkinmath.hardware import get

    record = get(name)
    if (record.kind == "model") != (option == "model"):
        wanted = "a model record" if option == "model" else "an accelerator record"
        raise InputError(
            f"{option}={name!r} names {record.id}, a {record.kind} record; {option}= "
            f"takes {wanted} (list them with `napkin hardware --kind "
            f"{'model' if option == 'model' else 'accelerator'}`)",
            option,
        )
    found: dict[str, Given | None] = {}
    for key in record.values:
        if key in variables():
            try:
                found[key] = _record_given(name, key)
            except Exception:  # raised again, as it was, where the value is used
                found[key] = None
    return found


def _record_given(name: str, key: str) -> Given:
    """The value `key` of the record `name` as a Given."""
    from napkinmath.hardware import get

    record = get(name)
    value = record.values[key]
    var = variables()[key]
    origin = "assumption" if value.assumption else "record"
    return Given(
        var,
        to_quantity(value.quantity, var),
        origin,
        f"{record.id}: {value.provenance()}",
        record=record.id,
    )


@caches.memo(
    256,
    invalidated_by=caches.LIBRARY,
    reason="the plan of the practical roundings after an answer (n_gpus to whole nodes): hit on "
    "every warm W12 solve; a miss costs 2.7 ms against the 250 µs warm guardrail "
    "(2026-12-07, 2 cores)",
)
def _rounding_after(
    wanted: tuple[str, ...], plan: SolvePlan, knowns: frozenset[str]
) -> tuple[SolvePlan, tuple[str, ...]] | None:
    """The plan of the roundings `wanted` after `plan` has run on `knowns` (its values:
    what it read and what its blocks computed), with the context values it adds, in name
    order; None when the values do not determine the roundings."""
    computed = plan.used | {v.name for block in plan.blocks for v in block.unknowns}
    context = knowns - computed
    rounding = _rounding_plan(wanted, computed, context)
    if rounding is None:
        return None
    return rounding, tuple(sorted(rounding.used & context))


def _rounding_plan(
    wanted: tuple[str, ...], computed: frozenset[str], context: frozenset[str]
) -> SolvePlan | None:
    """The plan of the roundings `wanted`, or None when the values do not determine them
    (cached: plans depend on names only)."""
    try:
        return plan_for(wanted, computed, context, suggest=False, cancel=False)
    except UnderDeterminedError:
        return None


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="a question shape's plan: hit on every warm solve; a miss costs 16 ms (planning, "
    "context values kept) against the 250 µs warm guardrail (2026-12-07, 2 cores)",
)
def plan_for(
    targets: tuple[str, ...],
    user: frozenset[str],
    context: frozenset[str],
    suggest: bool = True,
    cancel: bool = True,
) -> SolvePlan:
    """Plan with the user's givens and only those context values (hardware, defaults) it uses.

    Context values are kept where a step reads them, or where a check compares them with
    something the user gave; hardware specs and defaults are never checked only against each
    other. Without `suggest`, a failure names no inputs to add; with `cancel`, unknowns in
    the way may cancel (see `make_plan`).
    """
    plan = make_plan(targets, user | context, suggest, cancel)
    keep = plan.block_inputs & context
    for check in plan.checks:
        names = {v.name for v in check.variables}
        if names - context:
            keep |= names & context
    if keep != context and plan.free:  # the same inputs cancel with fewer context values
        from napkinmath.solving.cancel import attempt

        plan = attempt(targets, user | keep, plan.free) or plan
    elif keep != context:
        plan = make_plan(targets, user | keep)
    return plan


def solve_bound(
    targets: tuple[str, ...],
    bound: dict[str, Given],
    tolerance: float = CONSISTENCY_TOLERANCE,
    on_inconsistent: str = "error",
    suggest: bool = True,
    cancel: bool = True,
) -> Result:
    """Solve from already bound givens (see `bind`).

    Record and default values that a user's value contradicts are set aside; every check of
    the givens (in the answer's plan or anywhere in the graph) that disagrees raises
    InconsistentError, or with ``on_inconsistent="warn"`` is shown as a warning. Without
    `suggest`, an UnderDeterminedError names no inputs to add (for callers that retry);
    without `cancel`, no plan through unknowns that cancel is looked for (see `make_plan`).
    """
    user = frozenset(n for n, g in bound.items() if g.origin == "given")
    knowns = frozenset(bound)
    aside = set_aside(bound, _BaseValues(bound), tolerance, _run_check, user, knowns)
    if aside:
        bound = {name: g for name, g in bound.items() if name not in aside}
        user = frozenset(n for n, g in bound.items() if g.origin == "given")
        knowns = frozenset(bound)
    try:
        plan = plan_for(targets, user, knowns - user, suggest, cancel)
    except UnderDeterminedError as exc:
        shown = sorted(user) + sorted(
            {f"{g.record} record" for g in bound.values() if g.origin == "record"}
        )
        if any(g.origin == "assumption" for g in bound.values()):
            shown.append("default assumptions")
        exc.args = (
            under_determined_message(
                getattr(exc, "missing", list(targets)),
                shown,
                exc.suggestions,
                getattr(exc, "explanation", ""),
            ),
        )
        raise
    order = {"given": 0, "record": 1, "assumption": 2}
    inputs = {
        name: bound[name] for name in sorted(plan.used, key=lambda n: (order[bound[n].origin], n))
    }
    values = {name: g.base for name, g in inputs.items()}
    _refuse_layouts(values)
    steps = [_run_block(block, values) for block in plan.blocks]
    checks = [_run_check(f, values) for f in plan.checks]
    extra_steps, extra_inputs = _rounding(targets, values, bound, knowns, plan)
    steps.extend(extra_steps)
    inputs.update(extra_inputs)
    more = beyond(plan, values, bound, lambda g: g.base, _run_block, _run_check, user, knowns)
    checks += more.checks
    refused = [c for c in more.constraints if c.constraint.refuse and not c.holds]
    if refused:  # a layout that cannot exist, before any disagreement it causes
        raise _refusal(refused[0], {**values, **{n: g.base for n, g in more.inputs.items()}})
    for check in checks:
        check.tolerance = tolerance
    failed = [c for c in checks if not c.agrees]
    if failed and on_inconsistent == "error":
        everything = {**inputs, **more.inputs}
        raise _inconsistent(
            failed, everything, plan, tolerance, user, knowns, bound=bound, targets=targets
        )
    inputs.update(
        {
            n: more.inputs[n]
            for n in sorted(more.inputs, key=lambda n: (order[more.inputs[n].origin], n))
            if n not in inputs
        }
    )
    results = {name: from_base(values[name], variables()[name]) for name in targets}
    result = Result(targets, results, inputs, steps, checks, tolerance)
    result.unused = {name: bound[name] for name in sorted(user - plan.used - set(more.inputs))}
    _refuse_unread(result)
    result.set_aside = {name: (a.given, a.reason) for name, a in aside.items()}
    result.constraints = more.constraints
    result.feasibility = (more.wanted, tuple(more.blocks))
    result.notes = more.notes
    return result


def _refuse_unread(result: Result) -> None:
    """A value the user states is used or refused, never set aside for a default path: a
    given the answer does not read is refused where the answer took the default of what it
    is mistaken for, or a stated assumption in place of a law that reads it."""
    if result.unused:
        _refuse_mistaken(result)
        _refuse_set_aside_by_assumption(result)


def _refuse_mistaken(result: Result) -> None:
    """Refuse a given the answer does not read where it took the stated default of the
    variable the user likely meant by it (declared: `Variable.mistaken_for`), naming it:
    `mfu` given to a prefill whose matmuls run at compute_efficiency's default."""
    for name, given in result.givens.items():
        if given.origin != "assumption" or given.record is not None:
            continue
        for other in given.variable.mistaken_for:
            if other not in result.unused:
                continue
            unused = result.unused[other]
            stated = format_value(display(given.base, given.variable), given.variable)
            raise InputError(
                f"{other} = {result._fmt(unused.quantity, unused.variable)} is not read by "
                f"this answer ({other}: {unused.variable.description}); it takes {name} "
                f"at its stated default, {stated} ({name}: {given.variable.description}). "
                f"Give {name} for the rate you mean, or leave {other} out",
                other,
            )


def _refuse_set_aside_by_assumption(result: Result) -> None:
    """Refuse a given the answer does not read where a stated assumption took the place of
    the law it stands in for (its `derived_from`) and that law reads the given: `n_experts`
    beside "every weight read each decode step". The given is named with the assumption and
    what the law would also need; any other unread given stays "given but not needed"."""
    used = {f.name for step in result.steps for f in step.formulas}
    known = set(result.givens) | {n for step in result.steps for n in step.values}
    for step in result.steps:
        (fallback,) = step.formulas if len(step.formulas) == 1 else (None,)
        if fallback is None or not fallback.assumption:
            continue
        laws = [formulas()[name] for name in fallback.derived_from]
        for unknown in step.unknowns:
            for law in laws:
                if law.name in used or unknown not in law.variables:
                    continue
                read = [v.name for v in law.variables if v.name in result.unused]
                if not read:
                    continue
                missing = [
                    v.name
                    for v in law.variables
                    if v is not unknown and v.name not in known and v.name not in read
                ]
                given = result.unused[read[0]]
                shown = result._fmt(given.quantity, given.variable)
                raise InputError(
                    f"{read[0]} = {shown} is not read by this answer: it takes {unknown.name} "
                    f"from a stated assumption ({fallback.note}), where {law.title} "
                    f"({law.name}) would read it"
                    + (f" with {', '.join(missing)}" if missing else "")
                    + f". Give {' and '.join(missing) or 'what it needs'} to use it, or leave "
                    f"{read[0]} out",
                    read[0],
                )


def _refuse_layouts(values: Mapping[str, float]) -> None:
    """Refuse a question whose inputs break a layout rule (a refusing constraint, every
    variable of it given) before any step runs: a step of an impossible layout would fail on
    its own, with a message that does not name the rule (7 experts a token of 4)."""
    for c in constraints().values():
        if c.refuse and all(v.name in values for v in c.variables):
            record = evaluate_constraint(c, values)
            if not record.holds:
                raise _refusal(record, values)


def _refusal(c: ConstraintRecord, values: Mapping[str, float]) -> InputError:
    """The InputError of a broken layout rule (`Constraint.refuse`): each side that is one
    variable named with its value, then what the rule expects and the fix."""
    constraint = c.constraint

    def named(var: Variable, base: float) -> str:
        return f"{var.name} = {format_value(display(values.get(var.name, base), var), var)}"

    simple = all(tree[0] == "s" and tree[1] in variables() for tree in constraint.trees)
    if simple:  # each side one variable: 'pp = 128 > n_layers = 96'
        sides = [
            named(variables()[tree[1]], base)
            for tree, base in zip(constraint.trees, (c.lhs, c.rhs), strict=True)
        ]
        broken = f"{sides[0]} {'≥' if constraint.strict else '>'} {sides[1]}"
    else:  # a rule over an expression: its variables with their values ('sp = 4, tp = 8')
        broken = ", ".join(
            named(var, values[var.name]) for var in constraint.variables if var.name in values
        )
    first = constraint.trees[0][1] if constraint.trees[0][0] == "s" else constraint.name
    return InputError(
        f"refused: {broken} breaks the rule '{constraint.title}': {constraint.message}",
        str(first),
    )


class _BaseValues(dict):
    """Base-unit values of bound givens, each converted on first use."""

    def __init__(self, bound: Mapping[str, Given]) -> None:
        super().__init__()
        self.bound = bound

    def __missing__(self, name: str) -> float:
        value = self[name] = self.bound[name].base
        return value


def _run_block(block: Block, values: dict[str, float]) -> StepRecord:
    if block.cancel is not None:
        return _run_cancelled(block, values)
    if len(block.unknowns) == 1:
        (f,), (var,) = block.formulas, block.unknowns
        tried, admitted = [], []
        residue = False
        try:
            pieces, roots, reads, extremes = _single_facts(block)
            stopped = None
        except OutOfTimeError as cut:  # no closed form in time: solved numerically below
            roots, stopped = (), cut
            pieces = bool(needs_substitution(block.formulas, (var.name,)))
            reads, extremes = tuple(sorted(_names_of(block))), bool(_extremes(f))
        for root in roots:
            try:
                x = root.at(values)
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue
            if pieces and not satisfies(f, {**values, var.name: x}, var.name):
                continue  # a root of another piece of a max() or min()
            tried.append(x)
            if not (x != 0 and abs(x) >= _SMALLEST):  # 0, subnormal or NaN: underflowed?
                _check_underflow(x, root, values, f, var)
            if admissible(x, var):
                admitted.append((x, root))
            elif x != 0 and admissible(0.0, var) and cancels(root, {**values, var.name: x}):
                residue = True  # -5.6×10⁻¹⁷ s from 0.3 s − (0.1 s + 0.2 s): zero, not refused
                admitted.append((0.0, root))
        numeric = ""
        if not roots:  # no closed form (none in time, or none sympy finds): search the bounds
            lhs, rhs = sides(f)
            admitted = [(x, number_root(x)) for x in roots_in_bounds(lhs.at, rhs.at, var, values)]
            why = CUT_OFF if stopped else NO_CLOSED_FORM
            numeric = NUMERIC_NOTE.format(why=why) if admitted else ""
        if not admitted:
            if tried and not any(math.isfinite(x) for x in tried):
                raise NumericError(
                    f"{f.title} ({f.name}) gives {var.name} = "
                    f"{' or '.join(map(str, tried))}: the givens overflow the "
                    "float range (about 1.8×10³⁰⁸); check their magnitudes",
                    var.name,
                )
            raise _no_root(f, var, tried, searched=not roots, stopped=stopped, values=values)
        (x, root), others = admitted[0], admitted[1:]
        values[var.name] = x
        note = _binding(f, values) if extremes else ""
        if numeric:
            note = (f"{note}; " if note else "") + numeric
        if residue and x == 0:
            note = (f"{note}; " if note else "") + ROUNDOFF_NOTE
        if others:
            shown = ", ".join(format_quantity(display(y, var)) for y, _ in others)
            note = (f"{note}; " if note else "") + (
                f"{var.name} has another admissible root: {shown}; the first is shown, give a "
                "value to choose"
            )
        return StepRecord((f,), (var,), {var.name: root}, _snapshot(values, reads), note=note)
    return _run_joint(block, values)


@caches.memo(
    4096,
    invalidated_by=caches.LIBRARY,
    reason="the roots and reads of a one-formula step: four hits on every warm W12 solve; a "
    "miss costs 354 µs against the 250 µs warm guardrail (2026-12-07, 2 cores)",
)
def _single_facts(
    block: Block,
) -> tuple[bool, tuple[Compiled, ...], tuple[str, ...], bool]:
    """What running a block of one formula and one unknown reads, looked up once per block:
    whether its roots must be substituted back (a max() or min() piece), its roots, the
    variables its formula reads (in name order), and whether it has a max() or min() of
    variables whose binding argument a step notes (`_binding`)."""
    (f,), (var,) = block.formulas, block.unknowns
    return (
        bool(needs_substitution(block.formulas, (var.name,))),
        rearranged(f, var.name),
        tuple(sorted(_names_of(block))),
        bool(_extremes(f)),
    )


def _run_joint(block: Block, values: dict[str, float]) -> StepRecord:
    """`_run_block` for a coupled block (several unknowns, solved together)."""
    admitted: list[tuple[dict[str, float], dict[str, Compiled]]] = []
    names = tuple(v.name for v in block.unknowns)
    pieces = needs_substitution(block.formulas, names)
    try:
        solutions = joint_roots(block.formulas, names)
        stopped = None
    except OutOfTimeError as cut:  # no closed form in time: solved numerically below
        solutions, stopped = (), cut
    numeric = ""
    if not solutions:
        found = torn_solution(block, values) or _numeric_joint(block, values)
        if found is not None:
            solutions = ({n: number_root(x) for n, x in found.items()},)
            numeric = NUMERIC_NOTE.format(why=CUT_OFF if stopped else NO_CLOSED_FORM)
    for solution in solutions:
        try:
            xs = {v.name: solution[v.name].at(values) for v in block.unknowns}
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        if pieces and not all(satisfies(f, {**values, **xs}) for f in pieces):
            continue  # a solution of another piece of a max() or min()
        if all(admissible(xs[v.name], v) for v in block.unknowns) and not any(
            _same(xs, other) for other, _ in admitted
        ):
            admitted.append((xs, solution))
    if admitted:
        (xs, solution), others = admitted[0], admitted[1:]
        values.update(xs)
        exprs: dict[str, Root] = {v.name: solution[v.name] for v in block.unknowns}
        note = numeric
        if others:
            shown = "; ".join(
                ", ".join(
                    f"{v.name} = {format_quantity(display(o[v.name], v))}" for v in block.unknowns
                )
                for o, _ in others
            )
            note = (f"{note}; " if note else "") + (
                f"the equations have another admissible solution: {shown}; the first is "
                "shown, give one of these values to choose"
            )
        return StepRecord(
            block.formulas, block.unknowns, exprs, _snapshot(values, _names_of(block)), note=note
        )
    listed = ", ".join(v.name for v in block.unknowns)
    hint = ""
    if pieces:
        hint = (
            f"; {', '.join(f.title for f in pieces)} takes the larger (or smaller) of two "
            "terms, and no piece gives a solution: the givens ask for more than the "
            "binding term allows"
        ) + "".join(f" ({f.title}: {f.note})" for f in pieces if f.note)
    if not solutions:
        hint += (
            f"; sympy found no closed form{f' ({stopped})' if stopped else ''}, and neither a "
            f"search along one unknown (the others following from it) nor Newton's method "
            f"from {STARTS} starting points found a solution (either can miss one): give one "
            f"of {listed} to check the others"
        )
    raise NoRootError(
        f"the formulas {', '.join(f.name for f in block.formulas)} have no "
        f"solution for {listed} inside their bounds{hint}",
        block.unknowns[0].name,
    )


def _numeric_joint(block: Block, values: Mapping[str, float]) -> dict[str, float] | None:
    """A solution of a coupled block found numerically (`numeric_root.joint_solution`)."""
    pairs = [sides(f) for f in block.formulas]

    def residual(lhs: Compiled, rhs: Compiled) -> Callable[[Mapping[str, float]], float]:
        return lambda p: lhs.at(p) - rhs.at(p)

    def scale(lhs: Compiled, rhs: Compiled) -> Callable[[Mapping[str, float]], float]:
        return lambda p: max(abs(lhs.at(p)), abs(rhs.at(p)))

    return joint_solution(
        [residual(*pair) for pair in pairs],
        [scale(*pair) for pair in pairs],
        block.unknowns,
        values,
    )


def _binding(f: Formula, values: Mapping[str, float]) -> str:
    """Which argument of a max() or min() of variables in `f` decides it, and by how much:
    "compute roof binds: decode_compute_time = 33.38 ms, 2.22× decode_memory_time = 15.05 ms"."""
    known = variables()

    def shown(a: str) -> str:
        return f"{a} = {format_quantity(display(values[a], known[a]))}"

    notes = []
    for name, args in _extremes(f):
        if not all(a in values for a in args):
            continue
        winner = (max if name == "Max" else min)(args, key=lambda a: values[a])
        description = known[winner].description
        label = description.partition(":")[0] if ":" in description else winner
        against = ", ".join(
            (f"{values[winner] / values[a]:.3g}× {shown(a)}" if values[a] else shown(a))
            for a in args
            if a != winner
        )
        notes.append(f"{label} binds: {shown(winner)}, {against}")
    return "; ".join(notes)


def _extremes(f: Formula) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The max() and min() nodes of `f` whose arguments are all variables, in tree order."""
    from napkinmath.library.tree import NoTreeError, calls

    try:
        return tuple(
            (node[1], tuple(a[1] for a in node[2]))
            for side in f.trees
            for node in calls(side, ("Max", "Min"))
            if all(a[0] == "s" for a in node[2])
        )
    except NoTreeError:
        return ()


def _run_cancelled(block: Block, values: dict[str, float]) -> StepRecord:
    """A block whose formulas fix its unknown combined, variables of theirs cancelling: the
    combined expression, evaluated (`napkinmath.solving.cancel`)."""
    cancel, (var,) = block.cancel, block.unknowns
    assert cancel is not None
    title = " + ".join(f.title for f in block.formulas) + " (combined)"
    inputs = ", ".join(cancel.root.args)
    try:
        x = cancel.root.at(values)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        raise _no_root(block.formulas[0], var, [], title, inputs) from None
    if not admissible(x, var):
        raise _no_root(block.formulas[0], var, [x], title, inputs)
    values[var.name] = x
    return StepRecord(
        block.formulas,
        block.unknowns,
        {var.name: cancel.root},
        _snapshot(values, _names_of(block)),
        note=cancel.note,
        cancel=cancel,
    )


def _same(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    return all(math.isclose(a[k], b[k], rel_tol=1e-12, abs_tol=1e-300) for k in a)


def _snapshot(values: Mapping[str, float], names: Iterable[str]) -> dict[str, float]:
    """The `values` of `names` that are known (a step's numbers)."""
    return {n: values[n] for n in names if n in values}


def _names_of(block: Block) -> frozenset[str]:
    """The variables a block's formulas read."""
    return frozenset(v.name for f in block.formulas for v in f.variables)


def _no_root(
    f: Formula,
    var: Variable,
    tried: list[float],
    title: str | None = None,
    inputs: str | None = None,
    searched: bool = False,
    stopped: OutOfTimeError | None = None,
    values: Mapping[str, float] | None = None,
) -> NoRootError:
    """`title` and `inputs` replace the formula's for formulas combined (`_run_cancelled`);
    `searched`: the bounds were searched numerically too, after sympy found no real root
    (or none in time: `stopped`); `values`, where given, are shown with the inputs, and the
    formula's note says what an impossible value means."""
    title = f.title if title is None else title
    if inputs is None:
        inputs = ", ".join(
            f"{v.name} = {format_quantity(from_base(values[v.name], v))}"
            if values is not None and v.name in values
            else v.name
            for v in f.variables
            if v is not var
        )
    if tried:
        shown = " or ".join(format_quantity(from_base(x, var)) for x in tried)
        why = f" ({f.title}: {f.note})" if values is not None and f.note else ""
        message = (
            f"no admissible value for {var.name}: {title} gives {var.name} = {shown}, "
            f"outside {var.bounds} ({var.description}). The givens for {inputs} ask for "
            f"something impossible; change one of them.{why}"
        )
    else:
        message = f"no real value of {var.name} satisfies {title} with these givens for {inputs}"
        if searched:
            closed = f"no closed form ({stopped})" if stopped else "no closed form"
            message += (
                f": sympy found {closed}, and a search of {var.name}'s bounds {var.bounds} "
                "found no point where the two sides meet (it can miss a root where they only "
                f"touch); check the givens, or give {var.name} to see how far apart the two "
                "sides are"
            )
    return NoRootError(message, var.name)


_SMALLEST = sys.float_info.min


def _check_underflow(
    x: float, root: Compiled, values: Mapping[str, float], f: Formula, var: Variable
) -> None:
    """A product of non-zero numbers that comes out 0 (or subnormal) has underflowed."""
    if x != 0 and abs(x) >= sys.float_info.min:
        return
    if root.tree is not None:  # a sum or a function inside (min(1, r − 1)) may well be 0
        product = root.tree[0] in ("*", "^") and not _may_vanish(root.tree)
    else:
        import sympy

        product = isinstance(root.expr, (sympy.Mul, sympy.Pow))
    if product and all(values[a] != 0 for a in root.args):
        raise NumericError(
            f"{f.title} ({f.name}) gives {var.name} = {x!r}: a product of "
            "non-zero givens underflowed below the float range (about "
            "2.2×10⁻³⁰⁸); check their magnitudes",
            var.name,
        )


def _may_vanish(tree: tuple) -> bool:
    """True when a sum or a function node of `tree` may be 0 for non-zero variables."""
    kind = tree[0]
    if kind in ("+", "fn"):
        return True
    if kind == "*":
        return any(_may_vanish(t) for t in tree[1])
    if kind == "^":
        return _may_vanish(tree[1])
    return False


def _run_check(f: Formula, values: Mapping[str, float]) -> CheckRecord:
    left, right = sides(f)
    try:
        lhs, rhs = left.at(values), right.at(values)
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise NumericError(f"checking {f.title} ({f.name}) failed: {exc}") from None
    if not (math.isfinite(lhs) and math.isfinite(rhs)):
        raise NumericError(
            f"checking {f.title} ({f.name}) gives {lhs!r} on one side and "
            f"{rhs!r} on the other: the givens overflow the float range (about "
            "1.8×10³⁰⁸); check their magnitudes"
        )
    scale = max(abs(lhs), abs(rhs))
    difference = abs(lhs - rhs) / scale if scale else 0.0
    output = f.trees[0]
    unit_var = variables()[output[1]] if output[0] == "s" else None
    return CheckRecord(
        f, lhs, rhs, difference, unit_var, {v.name: values[v.name] for v in f.variables}
    )


def _inconsistent(
    failed: list[CheckRecord],
    inputs: Mapping[str, Given],
    plan: SolvePlan,
    tolerance: float,
    user: frozenset[str],
    knowns: frozenset[str],
    bound: Mapping[str, Given] | None = None,
    targets: tuple[str, ...] = (),
) -> InconsistentError:
    """The error naming each disagreement and the givens behind it. It keeps what
    `napkinmath.checking.reconcile.explained` needs to name the likely odd one out (`nm.solve`
    adds that): the groups of givens, every value bound, the targets and the tolerance."""
    lines = []
    groups: list[list[str]] = []
    for check in failed:
        involved = _givens_behind(check, inputs, plan, user, knowns)
        groups.append([name.split(" (")[0] for name in involved])
        where = " (not needed for this answer, but your givens must agree)" if check.beyond else ""
        lines.append(
            f"{check.formula.title} ({check.formula.name}){where}: "
            f"{check.describe()}; {check.relative_difference:.1%} apart, tolerance "
            f"{tolerance:.1%}. The givens behind it: {', '.join(involved)}"
        )
    error = InconsistentError(
        "the givens disagree with each other: "
        + " | ".join(lines)
        + ". Correct or drop one of them (or pass a larger tolerance).",
        failed,
    )
    error.groups = groups
    error.bound = dict(bound) if bound is not None else dict(inputs)
    error.targets = targets
    error.tolerance = tolerance
    return error


def _givens_behind(
    check: CheckRecord,
    inputs: Mapping[str, Given],
    plan: SolvePlan,
    user: frozenset[str],
    knowns: frozenset[str],
) -> list[str]:
    names = [v.name for v in check.formula.variables]
    if check.beyond:
        found = behind(closure(user, knowns).analysis, names, knowns)
    else:
        reads = {
            v.name: [u.name for g in b.formulas for u in g.variables]
            for b in plan.blocks
            for v in b.unknowns
        }
        found = behind(reads, names, inputs)
    shown = []
    for name in sorted(found):
        origin = inputs[name].origin if name in inputs else "given"
        shown.append(name if origin == "given" else f"{name} ({origin})")
    return shown


def _rounding(
    targets: tuple[str, ...],
    values: dict[str, float],
    bound: Mapping[str, Given],
    knowns: frozenset[str],
    plan: SolvePlan,
) -> tuple[list[StepRecord], dict[str, Given]]:
    """Practical roundings a target declares (n_gpus -> whole nodes), when computable;
    `knowns` is the names of `bound`, and `plan` the plan whose steps made `values`."""
    wanted = tuple(name for t in targets for name in variables()[t].rounding if name not in values)
    if not wanted:
        return [], {}
    found = _rounding_after(wanted, plan, knowns)
    if found is None:
        return [], {}
    plan, extra_names = found
    extra = {name: bound[name] for name in extra_names}
    scratch = dict(values)
    scratch.update({name: g.base for name, g in extra.items()})
    try:
        steps = [_run_block(block, scratch) for block in plan.blocks]
    except NoRootError:
        return [], {}
    for step in steps:
        step.rounding = True
    values.update(scratch)
    return steps, extra
