"""Beyond the answer: every given checked, defaults that yield, and plans that fit.

1. Defaults and records yield. A formula whose variables are all given, one by the user and
   the rest by a record or a stated default, pins the user's value to theirs; when the two
   disagree, the record and default values of that formula are set aside (the user's value
   stands) and the answer says so: ``optimizer_bytes_per_param="8 B/param"`` sets aside the
   Adam defaults that sum to 12.
2. Every given is checked, whatever the target. Everything determinable from the givens is
   planned once (cached per set of names); each formula left over that a user's given stands
   behind is a check, evaluated with the answer: mfu, params and tokens that contradict
   train_time are caught even when the target is the cost.
3. Plans that fit. Each feasibility constraint (`napkinmath.formulas.feasibility`) that the
   answer's values touch, and whose variables are all determinable, is evaluated: holds or
   violated, with the margin. Determinable means from anything the answer has: its givens,
   the values its own steps computed (through a stated assumption such as params_total =
   params too), what the independent formulas determine from the givens, and, for what is
   still missing, a plan through every formula (derived and assumption ones included), so a
   constraint applies whichever spelling of a value reached it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from napkinmath import caches
from napkinmath.answer.data import CheckRecord, ConstraintRecord, Given
from napkinmath.catalog.lookup import constraints, formulas
from napkinmath.errors import NoRootError, UnderDeterminedError
from napkinmath.library.declare import Constraint, Formula
from napkinmath.solving.invert import sides
from napkinmath.solving.plan import (
    Analysis,
    Block,
    SolvePlan,
    blocks_of,
    independent_analysis,
)
from napkinmath.solving.planner import make_plan


@dataclass(frozen=True)
class SetAside:
    """A record or default value set aside because a user's value contradicts it."""

    given: Given
    reason: str


@caches.memo(
    512,
    invalidated_by=caches.LIBRARY,
    reason="the formulas that pin a user's value against records and defaults: hit on every "
    "warm solve; a miss costs 245 µs against the 250 µs warm guardrail (2026-12-07, 2 "
    "cores)",
)
def _pinning(names: frozenset[str], user: frozenset[str]) -> tuple[Formula, ...]:
    """Formulas that may pin a value (neither derived nor rounding) whose variables are all
    given: one by the user, the rest by records or defaults. (Where several user values meet
    a record, the user's values are checked against it instead: a contradiction among them
    is theirs to resolve.)"""
    found = []
    for f in formulas().values():
        if f.derived or f.forward_only:
            continue
        vs = frozenset(v.name for v in f.variables)
        if vs <= names and len(vs & user) == 1 and not vs <= user:
            found.append(f)
    return tuple(found)


def set_aside(
    bound: Mapping[str, Given],
    values: Mapping[str, float],
    tolerance: float,
    run_check,
    user: frozenset[str] | None = None,
    knowns: frozenset[str] | None = None,
) -> dict[str, SetAside]:
    """The record and default values that a user's value contradicts directly (see 1.);
    `user` and `knowns`, when given, are the user's names and all of `bound`'s."""
    if user is None:
        user = frozenset(n for n, g in bound.items() if g.origin == "given")
    aside: dict[str, SetAside] = {}
    for f in _pinning(frozenset(bound) if knowns is None else knowns, user):
        names = [v.name for v in f.variables]
        if any(n in aside for n in names):
            continue
        check = run_check(f, values)
        if check.relative_difference <= tolerance:
            continue
        mine = ", ".join(n for n in names if n in user)
        reason = (
            f"your {mine} disagrees with {f.title} ({check.describe()}, "
            f"{check.relative_difference:.1%} apart), so these are set aside"
        )
        for n in names:
            if n not in user:
                aside[n] = SetAside(bound[n], reason)
    return aside


@dataclass(frozen=True)
class Closure:
    """Everything determinable from a set of givens, and the checks it leaves over."""

    analysis: Analysis
    checks: tuple[Formula, ...]  # leftover formulas with a user's given behind them


def behind(
    analysis: Analysis | Mapping[str, list[str]], names: list[str], knowns: Collection[str]
) -> set[str]:
    """The givens that the variables `names` are computed from (themselves, if given):
    through an analysis, or a mapping of each computed name to the names it reads."""
    reads = (
        analysis
        if isinstance(analysis, Mapping)
        else {n: [v.name for v in f.variables] for n, f in analysis.computed_by.items()}
    )
    found: set[str] = set()
    stack, seen = list(names), set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in knowns:
            found.add(name)
        elif name in reads:
            stack.extend(reads[name])
    return found


def closure(user: frozenset[str], knowns: frozenset[str]) -> Closure:
    """Plan everything the givens determine with the independent formulas."""
    analysis = independent_analysis(knowns)
    checks = tuple(
        f
        for f in analysis.leftover
        if not f.derived
        and not f.forward_only
        and behind(analysis, [v.name for v in f.variables], knowns) & user
    )
    return Closure(analysis, checks)


@dataclass
class Beyond:
    """What the answer adds beyond its own plan: checks, constraints, the values they read."""

    checks: list[CheckRecord] = field(default_factory=list)
    constraints: list[ConstraintRecord] = field(default_factory=list)
    inputs: dict[str, Given] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: the constraints the answer touches (evaluated or not: a value without a root leaves
    #: one out here, not at every point of a what-if)
    wanted: tuple[Constraint, ...] = ()
    #: the blocks beyond the answer's plan that compute what the checks and constraints
    #: read, in order, run or not (what-ifs evaluate them at every point)
    blocks: list[Block] = field(default_factory=list)


def beyond(
    plan: SolvePlan,
    steps_values: dict[str, float],
    bound: Mapping[str, Given],
    to_base,
    run_block,
    run_check,
    user: frozenset[str] | None = None,
    knowns: frozenset[str] | None = None,
) -> Beyond:
    """Checks of every given the answer did not need, and the constraints it touches;
    `user` and `knowns` as for `set_aside`."""
    if user is None:
        user = frozenset(n for n, g in bound.items() if g.origin == "given")
    if knowns is None:
        knowns = frozenset(bound)
    analysis, extra, wanted_constraints, needed, routes = _selection(
        plan, user, knowns, frozenset(steps_values)
    )
    out = Beyond(wanted=tuple(wanted_constraints))
    values = dict(steps_values)
    for name in needed:
        if name in knowns and name not in values:
            values[name] = to_base(bound[name])
            out.inputs[name] = bound[name]
    unknown = tuple(n for n in needed if n not in values and n in analysis.determined)
    failed: set[str] = set()
    if unknown:
        _run_blocks(
            blocks_of(analysis, analysis.ancestors(unknown)),
            values,
            bound,
            knowns,
            to_base,
            run_block,
            out,
            failed,
        )
    for route in routes:  # what the independent formulas leave: through derived ones too
        _run_blocks(route.blocks, values, bound, knowns, to_base, run_block, out, failed)
    for f in extra:
        if all(v.name in values for v in f.variables):
            record = run_check(f, values)
            record.beyond = True
            out.checks.append(record)
    for c in wanted_constraints:
        if all(v.name in values for v in c.variables):
            out.constraints.append(evaluate_constraint(c, values))
    return out


def _run_blocks(
    blocks,
    values: dict[str, float],
    bound: Mapping[str, Given],
    knowns: frozenset[str],
    to_base,
    run_block,
    out: Beyond,
    failed: set[str],
) -> None:
    """Run the blocks not yet computed, reading the givens they need from `bound`; a block
    without a root (or reading one that failed) is noted and its unknowns left out."""
    for block in blocks:
        if all(v.name in values for v in block.unknowns):
            continue
        out.blocks.append(block)
        reads = {v.name for f in block.formulas for v in f.variables}
        for name in sorted(reads & knowns - set(values)):
            values[name] = to_base(bound[name])
            out.inputs[name] = bound[name]
        if reads & failed:
            failed |= {v.name for v in block.unknowns}
            continue
        try:
            run_block(block, values)
        except NoRootError as exc:
            failed |= {v.name for v in block.unknowns}
            out.notes.append(f"not checked beyond this answer: {exc}")
            continue
        out.notes += [
            f"checked beyond this answer through an assumption: {f.title} (ASSUMPTION: {f.note})"
            for f in block.formulas
            if f.assumption
        ]


@caches.memo(
    512,
    invalidated_by=caches.LIBRARY,
    reason="the checks and constraints beyond the answer's plan: hit on every warm solve; a "
    "miss costs 2.4 ms against the 250 µs warm guardrail (2026-12-07, 2 cores)",
)
def _selection(
    plan: SolvePlan, user: frozenset[str], knowns: frozenset[str], touched: frozenset[str]
) -> tuple[Analysis, list[Formula], list[Constraint], list[str], tuple[SolvePlan, ...]]:
    """What the independent formulas determine from the givens (`closure`), the extra
    checks, the constraints the answer touches, the names they need, and the plans (through
    derived and assumption formulas too) of the constraints' variables that neither the
    answer's values (`touched`) nor the independent formulas determine."""
    found = closure(user, knowns)
    extra = [f for f in found.checks if f not in plan.checks]
    available = knowns | found.analysis.determined | touched
    asked = touched | set(plan.targets) | user  # a value given brings its constraints
    wanted: list[Constraint] = []
    routes: dict[SolvePlan, None] = {}
    for c in constraints().values():
        if not set(c.touch) & asked:
            continue
        missing = tuple(sorted({v.name for v in c.variables} - available))
        if missing:
            route = _route(missing, knowns | touched)
            if route is None:
                continue
            routes[route] = None
        wanted.append(c)
    needed = sorted(
        {v.name for f in extra for v in f.variables}
        | {v.name for c in wanted for v in c.variables} & available
    )
    return found.analysis, extra, wanted, needed, tuple(routes)


def _route(missing: tuple[str, ...], known: frozenset[str]) -> SolvePlan | None:
    """The plan of `missing` from `known` with every formula (the planner's own order: the
    independent ones first, then derived and assumption ones), or None when they do not
    determine it."""
    try:
        return make_plan(missing, known, suggest=False)
    except UnderDeterminedError:
        return None


def evaluate_constraint(c: Constraint, values: Mapping[str, float]) -> ConstraintRecord:
    """Both sides in base units, whether it holds, and the margin."""
    scale = per_scale(c.per) if c.per else 1.0
    left, right = sides(c)
    lhs = left.at(values)
    rhs = right.at(values) * scale
    holds = lhs < rhs if c.strict else lhs <= rhs
    return ConstraintRecord(c, lhs, rhs, holds)


def per_scale(per: str) -> float:
    """One `per` unit (a constraint's right side is per GPU, say) in base units."""
    from napkinmath.units import ureg

    return float(ureg.Quantity(1.0, per).to_base_units().magnitude)
