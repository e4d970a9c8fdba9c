"""Checking other people's math: an expression, or a claimed value for it.

    >>> import napkinmath as nm
    >>> nm.check("2*(8-1)/8 * 141 GB / (900 GB/s)").value           # 274.2 ms
    >>> r = nm.check("140 GB / (400 Gb/s)", expect="0.35 s")
    >>> r.status, r.candidates[0].label                    # ('disagree', 'bits vs bytes')

Tables of claims are in `napkinmath.checking.claims`.

An expression uses the safe grammar of `napkinmath.text.expr` (numbers with units, + - * / ^,
parentheses, sqrt/log/ceil/min/max...). A NAME in it is read in this order:

1. ``RECORD.key`` is a value of a hardware or model record ("H100-SXM.peak_flops").
2. A name given a value in the call (``check(..., params="70B")``) is that value, even if it
   is also a unit ("params" is the plural of the unit param).
3. An expression that is only a napkinmath variable ("kv_bytes_per_token") means the
   variable, which napkinmath computes.
4. A unit of the registry, plurals included ("params", "tokens", "GPUs", "days"), is the unit.
5. Any other napkinmath variable takes its value from the ``gpu=``/``model=`` records, or is
   solved by napkinmath from the given values (with its stated default assumptions).
6. Anything else is an error that suggests the closest units and variable names.

A claim (``expect=``) is compared with napkinmath's value to a relative `tolerance`. When they
disagree, the ratio claimed / computed is matched against known confusions
(`napkinmath.checking.confusions`); a candidate is *confirmed* when re-evaluating the
expression with the slip undone (Gb read as GB, GiB as GB, a record's two-way figure instead
of its one-way one) reproduces the claim.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence

import pint

from napkinmath import deadline
from napkinmath.checking.budget import CHECK_COST, DISAGREE_COST, Meter, current
from napkinmath.checking.confusions import Candidate, candidates
from napkinmath.checking.evidence import confirm, confusion_context, tree_size, unit_notes
from napkinmath.checking.names import Names, given_quantity
from napkinmath.checking.outcome import (
    CLAIM_TOLERANCE,
    CONTEXT_NAMES,
    CheckResult,
)
from napkinmath.errors import (
    InputError,
    NapkinError,
    ParseError,
)
from napkinmath.text.dimensions import (
    COUNT_DIMENSIONS,
    dimension_fix,
    dimension_name,
    dimension_text,
    human,
)
from napkinmath.text.escape import shown_value
from napkinmath.text.evaluation import (
    evaluate,
    has_ambiguous_suffix,
)
from napkinmath.text.expr import Node, parse_with_notes
from napkinmath.text.visible import visible
from napkinmath.units import Quantity, format_number, format_quantity


@deadline.per_question
def check(
    expr: str,
    expect: object = None,
    *,
    tolerance: float = CLAIM_TOLERANCE,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    records: object = None,
    to: str | None = None,
    beside: str = "",
    **values: object,
) -> CheckResult:
    """Evaluate `expr` safely, with units, and compare it with a claimed value `expect`.

    `values` give names of the expression a value ("params='70B'"), and feed napkinmath's
    own computation of library variables; `gpu`/`model` name records whose values fill in
    variables (and give context: heads for GQA, GPUs per node); `to` chooses the unit the
    value is shown in ("GiB"), of the expression's dimension, also written "EXPR -> GiB".
    `beside` is text written beside the claim (a comment, a source): the units it names count
    as context for the slips offered. Returns a `CheckResult`;
    bad input raises a `napkinmath.NapkinError` subclass that points at the fault.

    >>> check("70e9 param * 16 byte/param", expect="1.1 TB").status
    'agree'

    `records` (a path or a list of paths) loads the user's own records files over the shipped
    ones for this check (`napkinmath.hardware.user`).
    """
    if records is not None:
        from napkinmath.solving.records import user_records

        with user_records(records):
            return check(
                expr,
                expect,
                tolerance=tolerance,
                gpu=gpu,
                model=model,
                to=to,
                beside=beside,
                **values,
            )
    tolerance = _tolerance(tolerance)
    if not isinstance(expr, str):
        raise InputError(f"the expression must be text, got {type(expr).__name__}")
    expr, to = split_conversion(expr, to)
    meter = current() or Meter()  # a table's meter, shared by its rows, or this check's own
    meter.require("checking this expression")
    meter.charge(CHECK_COST)  # parsing, the search for known confusions, notes
    node, reading_notes = parse_with_notes(expr)
    meter.charge(2 * tree_size(node))  # the evaluation, and the notes that walk the tree
    given: dict[str, pint.Quantity] = {}
    readings: list[str] = []  # "peak_flops: 989 TFLOP/s, read as per GPU"
    for name, value in values.items():  # each given value is parsed and evaluated too
        meter.require("reading the given values")
        meter.charge(1 + (len(value) if isinstance(value, str) else 0))
        given[name] = given_quantity(name, value, readings)
    if isinstance(gpu, (list, tuple)):  # records of different kinds, bound together
        from napkinmath.solving.records import bound_records

        gpu = bound_records(gpu, "gpu")
    names = Names(expr, given, gpu, model, node.kind == "name" and "." not in node.text, tolerance)
    names.meter = meter
    names.beside = visible(str(beside))[:1000]
    names.records()  # a wrong gpu=/model= is an error even when no name needs it
    computed, suffix_note = _evaluate(node, expr, names, expect)
    result = CheckResult(expr, computed, tolerance=tolerance)
    if to is not None:
        result.unit = _chosen_unit(to, computed)
    result.reading = reading_notes[0].removeprefix("read as ") if reading_notes else ""
    notes: list[str] = list(readings)
    if suffix_note:
        notes.append(suffix_note)
    if expect is not None:
        _compare(result, node, names, expect, notes)
        if result.confirmation_stopped:
            notes.append(result.confirmation_stopped)
    notes.extend(unit_notes(node, names))
    notes.extend(names.notes)
    unused = sorted(set(given) - names.used - set(CONTEXT_NAMES))
    if unused:
        notes.append(f"given but not used: {', '.join(unused)}")
    result.unused_givens = unused
    result.notes = list(dict.fromkeys(notes))
    result.names = list({r.name: r for r in names.resolved.values()}.values())
    result.derivations = dict(names.derivations)
    return result


_ARROW = re.compile(r"\s*(?:->|→)\s*")


def split_conversion(expr: str, to: str | None = None) -> tuple[str, str | None]:
    """'EXPRESSION -> UNIT' (as Numbat and rink write it) as the expression and the unit."""
    parts = _ARROW.split(expr)
    if len(parts) == 1:
        return expr, to
    if len(parts) > 2 or not parts[0].strip() or not parts[1].strip():
        raise InputError(
            f"{expr!r}: write one conversion, 'EXPRESSION -> UNIT', like "
            "'140 GB / (400 Gb/s) -> ms'"
        )
    if to is not None:
        raise InputError("give the unit once: either 'EXPRESSION -> UNIT' or to= (--to)")
    return parts[0], parts[1]


def _chosen_unit(to: object, computed: pint.Quantity) -> pint.Unit:
    """The unit of `to=`, refused unless it has the value's dimension."""
    from napkinmath.text.dimensions import dimension_name, dimension_text, human
    from napkinmath.text.values import parse_unit
    from napkinmath.units import format_unit

    unit = parse_unit(to, "to")
    if Quantity(1.0, unit).dimensionality != computed.dimensionality:
        dim, other = computed.dimensionality, Quantity(1.0, unit).dimensionality
        example = format_unit(human(computed).units) or "a plain number"
        raise InputError(
            f"cannot show the value in {to}: the expression is "
            f"{dimension_name(dim)} [{dimension_text(dim)}], but {to} is "
            f"{dimension_name(other)} [{dimension_text(other)}]; choose a unit "
            f"of the expression's dimension, such as {example}",
            "to",
        )
    return unit


def _tolerance(value: object) -> float:
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise InputError(
                f"tolerance {shown_value(value)}: give a fraction like 0.02 or 2%", "tolerance"
            ) from None
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            number = float(value)
        except (OverflowError, ValueError, TypeError):  # a 400-digit integer
            number = math.inf
    else:
        raise InputError(f"tolerance {shown_value(value)}: give a fraction like 0.02", "tolerance")
    if not (math.isfinite(number) and 0 <= number < 1):
        raise InputError(
            f"tolerance {shown_value(value)}: give a fraction in [0, 1), like 0.02 for 2%",
            "tolerance",
        )
    return number


def _evaluate(node: Node, text: str, names: Names, expect: object) -> tuple[pint.Quantity, str]:
    """Evaluate; with a '7B'-style suffix, pick the reading whose dimension fits the claim."""
    as_count = evaluate(node, text, names)
    if not has_ambiguous_suffix(node):
        return as_count, ""
    names.meter.charge(tree_size(node))
    try:
        as_unit = evaluate(node, text, names, suffix_as_unit=True)
    except ParseError:
        as_unit = None
    note = (
        f"a number ending in B or b (like '7B') is read as a count ({format_quantity(as_count)}"
        "); write '7 B' with a space for bytes"
    )
    if as_unit is not None and isinstance(expect, str):
        try:
            claimed = _claim_quantity(expect, names)
        except NapkinError:
            return as_count, note
        if (
            claimed.dimensionality == as_unit.dimensionality
            and claimed.dimensionality != as_count.dimensionality
        ):
            return as_unit, (
                f"the B/b after a number is read as a unit here (bytes/bits: "
                f"{format_quantity(as_unit)}), the only reading with the claim's "
                "dimension"
            )
    return as_count, note


def _claim_quantity(expect: object, names: Names) -> pint.Quantity:
    if isinstance(expect, str):
        try:
            node, _ = parse_with_notes(expect)
        except ParseError as exc:
            raise ParseError(f"the claimed value: {exc}") from None
        claim_names = Names(expect, names.given, names.gpu, names.model, False, names.tolerance)
        claim_names.meter = names.meter
        names.meter.charge(tree_size(node))
        try:
            return evaluate(node, expect, claim_names)
        except ParseError as exc:
            raise ParseError(f"the claimed value: {exc}") from None
    return given_quantity("claimed", expect)


def _compare(
    result: CheckResult, node: Node, names: Names, expect: object, notes: list[str]
) -> None:
    claimed = _claim_quantity(expect, names)
    result.claimed_text = expect if isinstance(expect, str) else format_quantity(claimed)
    claimed, align, note = _align(claimed, result.computed)
    if note:
        notes.append(note)
    result.claimed = claimed
    aligned = result.computed * align
    if claimed.dimensionality != aligned.dimensionality:
        result.status = "disagree"
        result.mismatch = _mismatch(claimed, result.computed)
        result.candidates = _dimension_candidates(claimed, result.computed, names)
        return
    base_computed = float(aligned.to_base_units().magnitude)
    base_claimed = float(claimed.to_base_units().magnitude)
    if base_computed == 0:
        result.ratio = 1.0 if base_claimed == 0 else None
        result.status = "agree" if base_claimed == 0 else "disagree"
        return
    ratio = base_claimed / base_computed
    if not math.isfinite(ratio) or (ratio == 0 and base_claimed != 0):
        result.status = "disagree"  # apart by more than a float can say: no factor explains it
        return
    result.ratio = ratio
    if abs(result.ratio - 1.0) <= result.tolerance:
        result.status = "agree"
        return
    result.status = "disagree"
    names.meter.charge(DISAGREE_COST)
    context = confusion_context(node, names, aligned, claimed, result.expression)
    # claims are rounded: match factors to at least 1% even when agreement must be exact
    found = candidates(result.ratio, context, max(result.tolerance, 0.01))
    confirm(found, node, names, claimed, result, align)
    for candidate in found:
        _correct(candidate, claimed)
    result.candidates = found
    if not found:  # no known slip: what each input would have to be
        from napkinmath.checking.requires import requirements

        result.requirements = requirements(node, names, claimed, align)


def _correct(candidate: Candidate, claimed: pint.Quantity) -> None:
    """The claim with the slip undone: 0.35 s × 8 = 2.8 s."""
    if candidate.direction not in ("high", "low") or candidate.factor <= 0:
        return
    high = candidate.direction == "high"
    corrected = claimed / candidate.factor if high else claimed * candidate.factor
    try:
        shown = format_quantity(human(corrected))
    except (pint.PintError, ArithmeticError, ValueError):
        return
    candidate.correction = (
        f"{format_quantity(claimed)} {'÷' if high else '×'} "
        f"{format_number(candidate.factor)} = {shown}"
    )


def _is_count(q: pint.Quantity) -> bool:
    return bool(q.dimensionality) and all(d in COUNT_DIMENSIONS for d in q.dimensionality)


def _align(
    claimed: pint.Quantity, computed: pint.Quantity
) -> tuple[pint.Quantity, pint.Quantity, str]:
    """Make a claim comparable: (claimed, factor for the computed value, note).

    A bare number against a count is that many of the count's unit (6193 vs 6193 GPU). A
    value that keeps a GPU unit the claim lacks, as per-GPU record values leave behind
    ("... / H100-SXM.nvlink_bandwidth" is in s·GPU), is compared for one GPU.
    """
    one = Quantity(1.0)
    if claimed.dimensionless and _is_count(computed):
        promoted = Quantity(float(claimed.to("").magnitude), human(computed).units)
        return promoted, one, f"the claim has no unit: read as {format_quantity(promoted)}"
    if computed.dimensionless and _is_count(claimed):
        align = Quantity(1.0, claimed.units)
        return (
            claimed,
            align,
            (f"the expression has no unit: compared as {format_quantity(computed * align)}"),
        )
    extra = computed.dimensionality / claimed.dimensionality
    if dict(extra.items()) in ({"[accelerator]": 1}, {"[accelerator]": -1}):
        power = extra["[accelerator]"]
        align = Quantity(1.0, "GPU") ** -power
        per_gpu = human(computed * align)
        which = "a GPU unit" if power > 0 else "a per-GPU unit"
        return (
            claimed,
            align,
            (
                f"napkinmath's value {format_quantity(human(computed))} keeps "
                f"{which} that the claim does not have (per-GPU record values "
                f"carry /GPU): compared for one GPU, {format_quantity(per_gpu)}"
            ),
        )
    return claimed, one, ""


def _mismatch(claimed: pint.Quantity, computed: pint.Quantity) -> str:
    return (
        f"the claim {format_quantity(claimed)} is {dimension_name(claimed.dimensionality)} "
        f"[{dimension_text(claimed.dimensionality)}] but napkinmath's value "
        f"{format_quantity(human(computed))} is {dimension_name(computed.dimensionality)} "
        f"[{dimension_text(computed.dimensionality)}]. To compare them, "
        f"{dimension_fix(claimed, computed).replace('right side', 'expression')}".replace(
            "left side", "claim"
        )
    )


#: Dimension ratios (claimed / computed) that name a confusion of kind, not of size.
_KIND_SLIPS = {
    ("[time]", -1): (
        "count_vs_rate",
        "a total vs a rate (FLOP vs FLOP/s)",
        "the claim is a rate (per second) but the expression gives an amount, or "
        "a total was divided by a time twice",
    ),
    ("[time]", 1): (
        "rate_vs_count",
        "a rate vs a total (FLOP/s vs FLOP)",
        "the claim is an amount but the expression gives a rate (per second)",
    ),
    ("[accelerator]", -1): (
        "per_gpu",
        "per GPU vs in total",
        "the claim is per GPU but the expression gives a total (or forgot a "
        "/GPU on a per-GPU figure)",
    ),
    ("[accelerator]", 1): (
        "total_vs_per_gpu",
        "in total vs per GPU",
        "the claim is a total over GPUs but the expression is per GPU",
    ),
    ("[node]", -1): (
        "per_node_dim",
        "per node vs in total",
        "the claim is per node but the expression gives a total",
    ),
    ("[token]", -1): (
        "per_token",
        "per token vs in total",
        "the claim is per token but the expression gives a total",
    ),
    ("[parameter]", -1): (
        "per_param",
        "per parameter vs in total",
        "the claim is per parameter but the expression gives a total",
    ),
}


def _dimension_candidates(
    claimed: pint.Quantity, computed: pint.Quantity, names: Names
) -> list[Candidate]:
    """Kinds of slip that explain a claim of another dimension, with a conversion if known."""
    ratio = claimed.dimensionality / computed.dimensionality
    found: list[Candidate] = []
    if len(ratio) == 1:
        ((dim, power),) = ratio.items()
        slip = _KIND_SLIPS.get((dim, power))
        if slip is not None:
            key, label, hint = slip
            found.append(Candidate(key, label, 1.0, "kind", hint, 0.0, 1.0, "dimension"))
    node_gpu = {"[accelerator]": 1, "[node]": -1}
    if dict(ratio.items()) in (node_gpu, {k: -v for k, v in node_gpu.items()}):
        per_node = names.given.get("gpus_per_node")
        if per_node is None:
            record = names._record_value("gpus_per_node")
            per_node = record[1].quantity if record else Quantity(8, "GPU/node")
        converted = (
            computed * per_node if ratio.get("[accelerator]", 0) > 0 else computed / per_node
        )
        try:
            close = abs(float((claimed / converted).to("").magnitude) - 1) <= names.tolerance
        except (pint.PintError, ArithmeticError):
            close = False
        evidence = [
            f"at {format_quantity(per_node)}, napkinmath's value is "
            f"{format_quantity(human(converted))}"
            + (", which agrees with the claim" if close else "")
        ]
        found.append(
            Candidate(
                "per_gpu_vs_per_node",
                "per GPU vs per node",
                1.0,
                "kind",
                "per-GPU and per-node figures mixed up",
                0.0,
                2.0 if close else 0.5,
                "dimension",
                evidence=evidence if close else [],
            )
        )
    return found
