"""Solving with ranged or distributed givens: plan once at the centre, then the whole box.

    solve("train_time", train_compute="6.35e24 FLOP", n_gpus=16384, mfu=(0.3, 0.5), gpu="H100")
    -> train_time = 9.073 … 15.12 day   (low at mfu = 0.5; high at mfu = 0.3)

The question is first answered at the centre of every spread by the ordinary solver (plan,
checks, sources); that plan is then compiled to numpy and evaluated over the box of ranges
(`napkinmath.whatif.box`) or over seeded Monte Carlo draws, one draw per input shared by every
step that reads it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variable, variables
from napkinmath.errors import InputError
from napkinmath.solving.solver import bind, solve_bound
from napkinmath.units import format_quantity, humanize
from napkinmath.whatif import feasible
from napkinmath.whatif.answers import RangeResult, SampleResult, point_text, quantity
from napkinmath.whatif.box import extremes
from napkinmath.whatif.budget import MAX_SAMPLES, check_samples
from napkinmath.whatif.preference import better, is_requirement
from napkinmath.whatif.spread import Bound, bind_spread, is_spread, to_spread
from napkinmath.whatif.vectorize import Value, VectorChain, admissible

DEFAULT_SEED = 0


def split_givens(givens: Mapping[str, object]) -> tuple[dict[str, object], list[Bound]]:
    """Plain givens, and the ranged or distributed ones checked against their variables."""
    plain: dict[str, object] = {}
    spreads: list[Bound] = []
    for name, value in givens.items():
        var = variable(name)
        if is_spread(value):
            spreads.append(bind_spread(to_spread(value, name), var))
        else:
            plain[name] = value
    return plain, spreads


def _centre(b: Bound):
    if b.kind == "lognormal":
        return (b.low * b.high) ** 0.5
    return (b.low + b.high) / 2


def solve_centre(
    targets: tuple[str, ...],
    plain: Mapping[str, object],
    spreads: list[Bound],
    gpu: str | None,
    model: str | None,
    tolerance: float,
) -> Result:
    """The ordinary answer with every spread at its centre (plans, checks, sources)."""
    givens = dict(plain)
    givens.update({b.name: _centre(b) for b in spreads})
    return solve_bound(targets, bind(targets, givens, gpu=gpu, model=model), tolerance)


def base_inputs(result: Result, skip: frozenset[str] = frozenset()) -> dict[str, float]:
    """Every input of a solved chain in base units (the fixed part of a what-if)."""
    return {n: g.base for n, g in result.givens.items() if n not in skip}


def solve_spread(
    targets: tuple[str, ...],
    givens: Mapping[str, object],
    *,
    gpu: str | None,
    model: str | None,
    tolerance: float,
    samples: int | None = None,
    seed: int | None = None,
) -> RangeResult | SampleResult:
    """Solve with ranges (exact ranges) or, with `samples`, by Monte Carlo."""
    if samples is not None:
        check_samples(samples)  # before any work
    plain, spreads = split_givens(givens)
    if not spreads:
        raise InputError(
            "samples= needs a given with a spread, such as mfu='0.3 to 0.5' or mfu=0.3..0.5",
            "samples",
        )
    center = solve_centre(targets, plain, spreads, gpu, model, tolerance)
    used = [b for b in spreads if b.name in center.givens]
    notes = [
        f"{b.name} is given as a spread but this answer does not use it"
        for b in spreads
        if b.name not in center.givens
    ]
    chain = VectorChain.from_result(center)
    fixed = base_inputs(center, frozenset(b.name for b in used))
    if samples is not None:
        return _sampled(targets, center, used, chain, fixed, samples, seed, notes)
    if any(b.kind != "range" for b in used):
        notes.append(
            "a distribution ('a to b') is taken here as the range between its 5th "
            "and 95th percentiles; pass samples=N (--samples N) to propagate it"
        )
    found = extremes(chain, fixed, used, tolerance)

    def guarantees() -> dict[str, str]:
        return {
            t: text for t in targets if (text := _guarantee(t, center, chain, fixed, used, found))
        }

    return RangeResult(
        targets, center, used, found, guarantees, notes, feasible.over_box(chain, fixed, used)
    )


def _guarantee(
    target: str,
    center: Result,
    chain: VectorChain,
    fixed: dict[str, float],
    used: list[Bound],
    found: dict,
) -> str:
    """For a backward question, the end of the target that meets the user's requirement
    whatever the ranged inputs do, with its practical rounding (whole nodes)."""
    known = variables()
    if is_requirement(known[target]):
        return ""  # a forward question: the range is the answer
    centre = dict(fixed)
    centre.update({b.name: (b.low_base + b.high_base) / 2 for b in used})
    for name, given in center.givens.items():
        direction = better(given.variable)
        if given.origin != "given" or not is_requirement(given.variable) or name not in fixed:
            continue
        nudged = dict(centre)
        nudged[name] = centre[name] * (1 + 1e-6)
        both = {n: np.array([centre[n], nudged[n]]) for n in centre}
        values, ok = chain.evaluate(both, (2,))
        if not ok.all():
            continue
        slope = values[target][1] - values[target][0]
        if slope == 0 or not math.isfinite(slope):
            continue
        end = "high" if (slope < 0) == (direction == "lower") else "low"
        extreme = found[target]
        at = extreme.high_at if end == "high" else extreme.low_at
        value = extreme.high if end == "high" else extreme.low
        var = known[target]
        shown = format_quantity(humanize(quantity(value, var), var.display_unit))
        text = (
            f"to be sure of {name} = {format_quantity(given.quantity)} across the "
            f"ranges: the {end} end, {shown} (at {point_text(at)})"
        )
        rounded = _rounded_at(target, chain, fixed, at)
        return text + (f" → {rounded}" if rounded else "")
    return ""


def _rounded_at(
    target: str, chain: VectorChain, fixed: dict[str, float], at: dict[str, float]
) -> str:
    known = variables()
    names = [r for r in known[target].rounding if r in chain.computed]
    if not names:
        return ""
    point = dict(fixed)
    point.update(at)
    values, ok = chain.evaluate(point, (1,))
    if not ok.all():
        return ""
    return ", ".join(
        f"{n} = {format_quantity(quantity(float(values[n][0]), known[n]))}" for n in names
    )


def _sampled(
    targets: tuple[str, ...],
    center: Result,
    used: list[Bound],
    chain: VectorChain,
    fixed: dict[str, float],
    samples: object,
    seed: object,
    notes: list[str],
) -> SampleResult:
    samples = check_samples(samples)
    if seed is None:
        seed = DEFAULT_SEED
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed={seed!r}: expected a whole number ≥ 0", "seed")
    rng = np.random.default_rng(seed)
    inputs: dict[str, Value] = dict(fixed)
    keep = np.ones(samples, dtype=bool)
    for b in used:  # one draw per input: every step that reads it sees the same draw
        draws = b.sample(rng, samples)
        keep &= admissible(draws, b.variable)
        inputs[b.name] = draws
    values, ok = chain.evaluate(inputs, (samples,))
    keep &= ok
    kept = int(keep.sum())
    if kept == 0:
        raise InputError(
            "no sample gave an admissible answer: the spreads reach outside "
            "the variables' bounds everywhere; narrow them"
        )
    if kept < samples:
        notes.append(
            f"{samples - kept:,} of {samples:,} samples fell outside a variable's "
            "bounds (an MFU above 1, a negative time, ...) and were dropped"
        )
    if center.checks:
        notes.append("over-determined givens are checked at the centre only")
    kinds = sorted({b.kind for b in used})
    if "lognormal" in kinds:
        notes.append(
            "'a to b' is read as a lognormal with 90% of its mass between a and b "
            "(the convention of Squiggle and Guesstimate)"
        )
    if "range" in kinds:
        notes.append("a range a..b is sampled uniformly")
    drawn = {n: v[keep] for n, v in values.items()}
    drawn.update({b.name: np.asarray(inputs[b.name])[keep] for b in used})
    limits, fit_share = feasible.over_samples(chain.feasibility(values, ok).taken(keep))
    return SampleResult(targets, center, used, drawn, samples, kept, seed, notes, limits, fit_share)


__all__ = ["MAX_SAMPLES", "point_text", "solve_spread"]
