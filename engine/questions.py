"""`nm.solve`: a question as the user asks it. Plain givens get a point answer from the
solver (`napkinmath.solving.solver.solve`), and a disagreement among them names the likely odd
one out (`napkinmath.checking.reconcile.explained`); a range or a spread among them (or
`samples`) gets the exact range or percentiles over them (`napkinmath.whatif.ranged`). This
module sits above all three, so that the solver needs neither a what-if nor a check.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, overload

from napkinmath import deadline
from napkinmath.checking.reconcile import explained
from napkinmath.errors import InconsistentError, InputError
from napkinmath.solving import solver
from napkinmath.solving.records import bound_records
from napkinmath.solving.solver import (
    CONSISTENCY_TOLERANCE,
    check_achievable,
    chosen_units,
    question_names,
)
from napkinmath.whatif.spread import is_spread, to_spread

if TYPE_CHECKING:
    import pint

    from napkinmath.answer.result import Result
    from napkinmath.whatif.answers import RangeResult, SampleResult


#: a given of a point question, as its type shows: text ("7B", "3 weeks"), a number or a
#: Quantity. A range given as a tuple or a distribution (`nm.uniform`, ...) shows in its type;
#: a range in text ("48 to 64") does not, so text ranges are asked with `ranges=True`.
PointGiven: TypeAlias = "str | float | pint.Quantity[Any]"


# How the answer's type follows from how the question is asked, so that a type checker knows
# it without narrowing: with `samples` a SampleResult (Monte Carlo); with `ranges=True` a
# RangeResult; with plain givens a Result; with a tuple or a distribution among the givens a
# Result or a RangeResult.
@overload
def solve(
    targets: str | Iterable[str],
    /,
    *,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    samples: int,
    ranges: bool = False,
    seed: int | None = None,
    on_inconsistent: str = "error",
    units: Mapping[str, str] | None = None,
    precision: str | None = None,
    achievable: bool = False,
    records: object = None,
    digits: int | None = None,
    formulas: object = None,
    **givens: object,
) -> SampleResult: ...


@overload
def solve(
    targets: str | Iterable[str],
    /,
    *,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    samples: None = None,
    ranges: Literal[True],
    seed: int | None = None,
    on_inconsistent: str = "error",
    units: Mapping[str, str] | None = None,
    precision: str | None = None,
    achievable: bool = False,
    records: object = None,
    digits: int | None = None,
    formulas: object = None,
    **givens: object,
) -> RangeResult: ...


@overload
def solve(
    targets: str | Iterable[str],
    /,
    *,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    samples: None = None,
    ranges: Literal[False] = False,
    seed: int | None = None,
    on_inconsistent: str = "error",
    units: Mapping[str, str] | None = None,
    precision: str | None = None,
    achievable: bool = False,
    records: object = None,
    digits: int | None = None,
    formulas: object = None,
    **givens: PointGiven,
) -> Result: ...


@overload
def solve(
    targets: str | Iterable[str],
    /,
    *,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    samples: int | None = None,
    ranges: bool = False,
    seed: int | None = None,
    on_inconsistent: str = "error",
    units: Mapping[str, str] | None = None,
    precision: str | None = None,
    achievable: bool = False,
    records: object = None,
    digits: int | None = None,
    formulas: object = None,
    **givens: object,
) -> Result | RangeResult | SampleResult: ...


@deadline.per_question
def solve(
    targets: str | Iterable[str],
    /,
    *,
    gpu: str | Sequence[str] | None = None,
    model: str | None = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    samples: int | None = None,
    ranges: bool = False,
    seed: int | None = None,
    on_inconsistent: str = "error",
    units: Mapping[str, str] | None = None,
    precision: str | None = None,
    achievable: bool = False,
    records: object = None,
    digits: int | None = None,
    formulas: object = None,
    **givens: object,
) -> Result | RangeResult | SampleResult:
    """Solve for `targets` (a name or a list of names) from keyword givens.

    Values are text ("989 TFLOP/(s*GPU)", "3 weeks", "7B"), pint Quantities, or plain numbers
    for dimensionless and count variables. `gpu` names a hardware record and `model` a model
    record (see `napkin hardware`) whose values are used where the user gave none; `gpu` may
    be a list of records of different kinds, bound together (``gpu=["H100",
    "Parallel-FS-100GBs"]``: an accelerator and a storage tier); two of the same kind are an
    InputError (rank those with `nm.compare`).
    Over-determined givens are checked against each other to a relative `tolerance`,
    wherever they meet in the graph: a disagreement raises InconsistentError, or with
    ``on_inconsistent="warn"`` is a warning in the answer. Record and default values that a
    user's value contradicts are set aside (`Result.set_aside`); the feasibility constraints
    an answer touches are evaluated (`Result.constraints`, `Result.fits`).

    A given may be a range (``mfu=(0.3, 0.5)``, or in text with ``ranges=True``:
    ``mfu="0.3..0.5"``): the answer is then a `RangeResult` whose value is the exact range over
    every ranged given. ``"0.3 to 0.5"`` is a lognormal 90% interval; with `samples` (and a
    `seed`) spreads are propagated by Monte Carlo into a `SampleResult` of percentiles. A range
    in text without either is refused, naming the given: its type does not show it, and the
    answer's type follows from how the question is asked (`Result` for plain givens).
    `units` chooses how targets are shown: ``units={"train_time": "hour"}``. `precision`
    ("bf16", "fp8", "fp4", "int8") picks the record's peak at that precision and the bytes per
    value of weights and KV cache.
    `achievable` uses the record's measured figures (`napkinmath.solving.achievable`) in place
    of its datasheet peaks; `records` (a path or a list of paths) loads the user's own records
    files over the shipped ones (`napkinmath.hardware.user`); `digits` sets the significant
    figures shown (the values stay exact). `formulas` (a path, a dict of the same tables, or a
    list of them) puts your own variables and formulas in force for the question
    (`napkinmath.catalog.user`): they join the library's, and each step that uses one cites
    it as "your formula FILE:LINE".

    Every answer is worked out afresh and is yours alone: a question asked again reuses its
    cached plan and compiled steps, never another caller's answer.
    """
    options: dict[str, Any] = dict(
        gpu=gpu,
        model=model,
        tolerance=tolerance,
        on_inconsistent=on_inconsistent,
        units=units,
        precision=precision,
        achievable=achievable,
        digits=digits,
    )
    spread = [name for name, value in givens.items() if is_spread(value)]
    if samples is None and not spread:
        if ranges:
            raise InputError(
                "ranges=True: no given is a range; give one as 'low..high', 'low to high' or "
                "(low, high), or leave ranges out for a point answer",
                "ranges",
            )
        if seed is not None:
            raise InputError("seed= only applies with samples=", "seed")
        try:
            asked: dict[str, Any] = {**options, **givens}
            return solver.solve(targets, records=records, formulas=formulas, **asked)
        except InconsistentError as error:  # the likely odd one out named, where one is
            raise explained(error) from error.__cause__
    if samples is None and not ranges:
        texts = [name for name in spread if isinstance(givens[name], str)]
        for name in texts:
            to_spread(givens[name], name)  # a range written wrong: that error first
        if texts:
            name = texts[0]
            raise InputError(
                f"{name}={givens[name]!r} is a range: add ranges=True for the answer over it "
                "(a RangeResult, low … high), samples=N for its percentiles, or give one value",
                name,
            )
    options.update(samples=samples, seed=seed, ranges=ranges)
    if solver.files_to_load(formulas, records, model):
        return solver.with_files(solve, targets, formulas, records, options, dict(givens))
    return _over_ranges(targets, options, dict(givens))


def _over_ranges(
    targets: str | Iterable[str], options: dict[str, Any], givens: dict[str, Any]
) -> RangeResult | SampleResult:
    """The range or the percentiles of `targets` over the ranged and spread givens, with the
    options that apply to single answers only refused by name."""
    from napkinmath.whatif.ranged import solve_spread

    gpu = options["gpu"]
    if gpu is not None and type(gpu) is not str:
        gpu = bound_records(gpu, "gpu")
    names = question_names(
        targets,
        tolerance=options["tolerance"],
        on_inconsistent=options["on_inconsistent"],
        gpu=gpu,
        model=options["model"],
        givens=givens,
    )
    if options["precision"] is not None:
        raise InputError(
            "precision= applies to single answers; give peak_flops and the byte "
            "sizes for ranges and samples",
            "precision",
        )
    check_achievable(options["achievable"])
    if options["achievable"]:
        raise InputError(
            "achievable= applies to single answers; give peak_flops or "
            "hbm_bandwidth as the measured figure for ranges and samples",
            "achievable",
        )
    if chosen_units(options["units"], names):
        raise InputError(
            "units= applies to single answers; ranges and samples show each target in its own unit",
            "units",
        )
    if options["digits"] is not None:
        raise InputError(
            "digits= (--digits) applies to single answers; ranges and "
            "samples show 4 significant figures",
            "digits",
        )
    return solve_spread(
        names,
        givens,
        gpu=gpu,
        model=options["model"],
        tolerance=options["tolerance"],
        samples=options["samples"],
        seed=options["seed"],
    )
