"""Planning: which formulas determine the targets from the knowns, and in what order.

Structural analysis of the bipartite formula-variable graph, as in Pyomo's incidence analysis:

1. A maximum matching (augmenting paths, in a fixed order: planning never depends on hash
   order) pairs formulas with the unknowns they solve for (a forward-only formula
   may only be paired with its output).
2. The Dulmage-Mendelsohn decomposition: unknowns reachable by alternating paths from an
   unmatched unknown are under-determined; the rest is determined, with unmatched formulas
   left over as checks (the over-determined part).
3. Matched edges, read as "formula f computes v from its other variables", give a directed
   graph; its strongly connected components are the blocks to solve, one variable or several
   coupled, and a topological order of them is the block-triangular order.
4. Where structure leaves a target under-determined, the unknowns in the way may still
   cancel: with `planner.make_plan(..., cancel=True)` (the solver's answers), `napkinmath.solving.
   cancel` plans with a suggested input taken as known and composes away the steps that
   read it (sympy); the refusal stands where none cancels.

The graph work runs on integers (`planning_graph`). What makes planning fast without
changing a plan: the invertible formulas' matching is shared by the re-analyses that drop
stuck rounding steps, and a formula-set search stops once the whole scope cannot determine
the targets by structure (no subset of it can). A refusal's "give one of ..." suggestions
are searched by `napkinmath.solving.suggest`.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from napkinmath import caches, deadline
from napkinmath.catalog.lookup import formulas, variables
from napkinmath.deadline import OutOfTimeError
from napkinmath.library.declare import Formula, Variable
from napkinmath.solving import planning_graph

if TYPE_CHECKING:
    import sympy

    from napkinmath.solving.invert import Compiled

#: Work done by the planner (analyses, singularity tests, propagations, confirmations),
#: counted since the last `work.clear()`: tests bound it per question. A count, not a cache.
work: Counter[str] = Counter()


@dataclass(frozen=True)
class Cancel:
    """How a block's formulas, combined, fix its unknown though some of their variables stay
    free: those variables cancel."""

    #: each formula, in the order composed, and the variable it is solved for (the block's
    #: unknown last)
    chain: tuple[tuple[Formula, str], ...]
    #: the inputs the chain was planned with whose values do not matter (the free inputs)
    free: tuple[str, ...]
    #: what cancels: the free inputs and the chain's other unknowns, sorted
    names: tuple[str, ...]
    #: 'mfu and peak_flops cancel: mfu · peak_flops = achieved_flops'
    note: str
    #: the combined expression of the block's unknown, over determined variables only
    root: Compiled = field(compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class Block:
    """Formulas solved together for as many unknowns (usually one of each)."""

    formulas: tuple[Formula, ...]
    unknowns: tuple[Variable, ...]
    #: for formulas that fix one unknown only combined, some of their variables cancelling
    #: (`napkinmath.solving.cancel`): how, and the combined expression; None for the rest
    cancel: Cancel | None = None


@dataclass(frozen=True)
class SolvePlan:
    """The blocks that compute the targets, in order, and the formulas left over as checks."""

    targets: tuple[str, ...]
    blocks: tuple[Block, ...]
    checks: tuple[Formula, ...]
    #: the known variables that the blocks and checks read
    used: frozenset[str]
    #: the known variables that the blocks read (checks aside)
    block_inputs: frozenset[str] = frozenset()
    #: the inputs that were planned as known and cancel (`napkinmath.solving.cancel`); empty
    #: for a plan by structure alone
    free: tuple[str, ...] = ()


@dataclass(frozen=True)
class Analysis:
    determined: frozenset[str]
    computed_by: dict[str, Formula]  # determined variable -> the formula that computes it
    reads: dict[str, tuple[str, ...]]  # v -> the determined variables v's formula reads
    leftover: tuple[Formula, ...]  # unmatched formulas whose unknowns are all determined
    coupled: frozenset[str] = frozenset()  # determined variables in coupled blocks

    def ancestors(self, names: Iterable[str]) -> set[str]:
        """`names` and every determined variable they are computed from."""
        found: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name not in found:
                found.add(name)
                stack.extend(self.reads.get(name, ()))
        return found


def _structurally_determined(knowns: frozenset[str], names: frozenset[str]) -> frozenset[str]:
    """The unknowns that the formulas `names` determine by structure alone (forward-only
    formulas only toward their output), before singular blocks and stuck rounding steps are
    taken out: what an analysis with any subset of `names` can determine lies within it.

    (Adding a formula never leaves a structurally determined unknown undetermined: it is
    covered by every maximum matching, and stays so with one more row.)"""
    work["analyses"] += 1  # a cheaper one, counted as one
    found = planning_graph.decompose(knowns, names, False)
    names_of = planning_graph.library_index().names
    return frozenset(names_of[v] for v in found.unknowns if v not in found.under)


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="a structural analysis (0.7 ms): a question's plan, its checks' closure and each "
    "candidate of a suggestion search ask the same ones (363 hits in "
    "tools/cache_value.py's workload); without it the 400 first-time questions of "
    "tests/test_properties.py's generator (seed 4242) took 9-27% more CPU (7.1-8.4 s "
    "against 6.5-6.6 s in three pairs), against README's aim of no first-time question "
    "over 200 ms (2026-12-07, 2 cores)",
)
def analyse_formulas(
    knowns: frozenset[str],
    names: frozenset[str],
    strict: bool = True,
    relaxed: bool = False,
    quick: bool = False,
) -> Analysis:
    """Structural analysis with the formulas `names`.

    `strict` also rejects singular blocks and cycles through rounding steps; `relaxed` lets
    rounding (forward-only) formulas be inverted, to explain what they block. A forward-only
    formula whose inputs turn out undetermined is dropped and the analysis repeated, so that
    it never holds an unknown that an invertible formula would determine.
    """
    work["analyses"] += 1
    index = planning_graph.library_index()
    ids, library = index.ids, index.formulas
    found = planning_graph.decompose(knowns, names, relaxed)
    known, members, matched = found.known, found.members, found.matched
    unknowns = planning_graph.known(knowns).unknowns  # by formula

    computed_by = planning_graph.computed(found)  # unknown -> formula
    inner: dict[int, list[int]] = {v: [] for v in computed_by}  # u -> the v that read it
    reads: dict[int, tuple[int, ...]] = {}
    bad: set[int] = set()  # computed variables downstream of an undetermined one
    for v in sorted(computed_by):
        reads[v] = tuple(filter(v.__ne__, unknowns[computed_by[v]]))
        for u in reads[v]:
            if u in inner:
                inner[u].append(v)
            else:  # u is not computed: v reads an undetermined variable
                bad.add(v)
    cycles = planning_graph.cycles(inner)  # a variable no formula computes lies on no cycle
    if strict and cycles:
        names_of = index.names
        bad |= {
            ids[n]
            for n in _singular_blocks(
                [{names_of[v] for v in c} for c in cycles],
                {names_of[v]: library[f] for v, f in computed_by.items()},
                set(),
                quick,
            )
        }
    stack = sorted(bad)  # everything downstream of an undetermined variable is undetermined
    while stack:
        for successor in inner[stack.pop()]:
            if successor not in bad:
                bad.add(successor)
                stack.append(successor)
    if not relaxed:
        stuck = sorted(
            library[computed_by[v]].name for v in bad if library[computed_by[v]].forward_only
        )
        if stuck:
            return analyse_formulas(knowns, names - set(stuck), strict, relaxed, quick)
    determined = computed_by.keys() - bad
    names_of = index.names
    leftover = tuple(
        library[i]
        for i in sorted(set(members).difference(matched))
        if all(v in known or v in determined for v in index.variables[i])
    )
    return Analysis(
        frozenset(names_of[v] for v in determined),
        {names_of[v]: library[f] for v, f in computed_by.items() if v in determined},
        {
            names_of[v]: tuple(names_of[u] for u in vs if u in determined)
            for v, vs in reads.items()
            if v in determined
        },
        leftover,
        frozenset(names_of[v] for c in cycles if c <= determined for v in c),
    )


def _singular_blocks(
    cycles: list[set[str]], computed_by: dict[str, Formula], bad: set[str], quick: bool = False
) -> set[str]:
    """Variables of coupled blocks that cannot fix their unknowns (see `is_singular`).

    Such blocks are square in structure but dependent in fact, e.g. a derived formula beside
    the formulas it combines, or a rounding step that sympy cannot solve jointly.
    """
    singular: set[str] = set()
    for component in sorted(cycles, key=min):
        if not component & bad:
            names = tuple(sorted(component))
            if is_singular(tuple(computed_by[n].name for n in names), names, quick):
                singular |= component
    return singular


def _numeric_rank(residuals: list[sympy.Expr], symbols: list[sympy.Symbol]) -> int:
    """The generic rank of the Jacobian: the largest rank at two fixed pseudo-random points.

    A structurally square block whose Jacobian is singular everywhere (the fleet equation
    beside GPU-hours) has rank below its size at every point; a regular one reaches full rank
    at almost every point. Floats and a fixed seed: fast and the same on every run.
    """
    import sympy

    from napkinmath.solving.singular import rank

    jacobian = sympy.Matrix(residuals).jacobian(symbols)
    free = sorted(jacobian.free_symbols, key=lambda s: s.name)
    rng = random.Random(20261130)
    best = 0
    for _ in range(2):
        point = {s: sympy.Float(rng.uniform(0.5, 2.0)) for s in free}
        try:
            rows = [
                [complex(jacobian[i, j].xreplace(point).evalf()) for j in range(jacobian.cols)]
                for i in range(jacobian.rows)
            ]
        except (TypeError, ValueError):
            return len(symbols)  # cannot evaluate: let the exact test decide
        best = max(best, rank(rows))
    return best


def is_singular(
    formula_names: tuple[str, ...], unknown_names: tuple[str, ...], quick: bool = False
) -> bool:
    """True when a coupled block cannot fix its unknowns (a rounding step in it included).

    Structure can mislead: the fleet equation and GPU-hours, with the compute, MFU and GPU-hours
    known, look square in n_gpus and train_time but only fix their product. A derived formula in
    the block, a Jacobian singular at generic points, or (unless `quick`) no sympy solution
    that fixes every unknown all mark the block as singular. (The answer is kept with the
    library's rearrangements: `invert.remembered`.)
    """
    all_formulas = formulas()
    if any(all_formulas[n].derived for n in formula_names):
        return True
    from napkinmath.solving.invert import remembered

    return remembered(
        "singular",
        f"{','.join(formula_names)}\t{','.join(unknown_names)}\t{quick:d}",
        lambda: _decide_singular(formula_names, unknown_names, quick),
    )


def _decide_singular(
    formula_names: tuple[str, ...], unknown_names: tuple[str, ...], quick: bool
) -> bool:
    """`is_singular` worked out (its answer is kept on disk with the library): from the
    formulas' trees (`napkinmath.solving.singular`, no sympy), else (no tree form, or a
    max() or min() in the block) with sympy; a full test (not `quick`) also asks for the
    block's joint roots (stored with the library's rearrangements)."""
    work["singularity tests"] += 1
    from napkinmath.library.tree import NoTreeError, calls
    from napkinmath.solving import singular

    all_formulas = formulas()
    chosen = [all_formulas[n] for n in formula_names]
    try:
        trees = [f.trees for f in chosen]
    except NoTreeError:
        return _decide_singular_sympy(formula_names, unknown_names, quick)
    if any(True for sides in trees for side in sides for _ in calls(side, ("Max", "Min"))):
        # which piece of a max() or min() each random point falls in decides the rank:
        # such blocks keep sympy's test, and the points it drew
        return _decide_singular_sympy(formula_names, unknown_names, quick)
    exponents = [
        None if f.forward_only else singular.log_linear(t, unknown_names)
        for f, t in zip(chosen, trees, strict=True)
    ]
    if all(row is not None for row in exponents):
        # products of powers are linear in logarithms: singular iff the exponents are
        return singular.exact_rank(exponents) < len(unknown_names)  # type: ignore[arg-type]
    rounding = any(f.forward_only for f in chosen)
    if not rounding and singular.jacobian_rank(trees, unknown_names) < len(unknown_names):
        return True
    if quick:  # for suggestions: the rank is enough; rounding in a cycle counts as singular
        return rounding
    # the same closed-form solutions the solver will use: none that fixes every unknown
    # means the block cannot be solved here
    from napkinmath.solving.invert import joint_roots

    wanted = set(unknown_names)
    try:
        solutions = joint_roots(tuple(chosen), tuple(unknown_names))
    except OutOfTimeError:
        # no closed form within the bound: the Jacobian has full rank, so the block fixes
        # its unknowns and the solver finds them numerically (the decision is not stored)
        return rounding
    return not any(all(not _reads(sol[n]) & wanted for n in unknown_names) for sol in solutions)


def _reads(root: Compiled) -> set[str]:
    """The variables a compiled root reads."""
    from napkinmath.library.tree import names

    if root.tree is not None:
        return set(names(root.tree))
    return {s.name for s in root.expr.free_symbols}


def _decide_singular_sympy(
    formula_names: tuple[str, ...], unknown_names: tuple[str, ...], quick: bool
) -> bool:
    """`_decide_singular` for formulas with no tree form, with sympy."""
    all_formulas, all_vars = formulas(), variables()
    residuals = [all_formulas[n].residual for n in formula_names]
    symbols = [all_vars[n].symbol for n in unknown_names]
    exponents = [_log_linear(all_formulas[n], symbols) for n in formula_names]
    if all(row is not None for row in exponents):
        import sympy

        return sympy.Matrix(exponents).rank() < len(symbols)
    rounding = any(all_formulas[n].forward_only for n in formula_names)
    try:
        with deadline.bounded(f"the rank of {', '.join(formula_names)}"):
            full_rank = _numeric_rank(residuals, symbols) == len(symbols)
    except OutOfTimeError:
        full_rank = True  # cannot tell in time: let the joint solution (or its fallback) decide
    if not rounding and not full_rank:
        return True
    if quick:
        return rounding
    from napkinmath.solving.invert import joint_roots

    wanted = set(unknown_names)
    try:
        solutions = joint_roots(tuple(all_formulas[n] for n in formula_names), unknown_names)
    except OutOfTimeError:
        return rounding  # as in `_decide_singular`: numerically, when the rank allows
    return not any(all(not _reads(sol[n]) & wanted for n in unknown_names) for sol in solutions)


def relevant_formulas(targets: tuple[str, ...], knowns: frozenset[str]) -> frozenset[str]:
    """The formulas that can bear on the targets: reachable from them through unknowns.

    Matching and the Dulmage-Mendelsohn decomposition split over connected components, so
    the component of the targets (plus formulas whose variables are all known, which can only
    be checks) gives the same answer as the whole library, faster.
    """
    index = planning_graph.library_index()
    ids, fvars, mentions = index.ids, index.variables, index.takers[True]
    known = planning_graph.known(knowns).ids
    relevant = {f for k in known for f in mentions[k] if known.issuperset(fvars[f])}
    stack = [ids[t] for t in targets if t not in knowns and t in ids]
    seen = set(stack)
    while stack:
        for f in mentions[stack.pop()]:
            if f in relevant:
                continue
            relevant.add(f)
            for v in fvars[f]:
                if v not in known and v not in seen:
                    seen.add(v)
                    stack.append(v)
    library = index.formulas
    return frozenset(library[f].name for f in relevant)


def _log_linear(f: Formula, symbols: list[sympy.Symbol]) -> list[sympy.Expr] | None:
    """The exponents of `symbols` in lhs/rhs when `f` is a product of powers, else None."""
    if f.forward_only:
        return None
    import sympy

    powers: dict[sympy.Expr, sympy.Expr] = {}
    for factor in sympy.Mul.make_args(f.equation.lhs / f.equation.rhs):
        base, exponent = factor.as_base_exp()
        if base in symbols and exponent.is_number:
            powers[base] = powers.get(base, 0) + exponent
        elif any(factor.has(s) for s in symbols):
            return None
    return [powers.get(s, sympy.Integer(0)) for s in symbols]


class _FormulaSets(NamedTuple):
    """The formula sets to plan with, in order of preference, and the derived formulas
    tried one at a time (the sets from the fourth on add one each, in this order).

    First the independent formulas alone; then all of them; then the independent ones with the
    derived formulas that only compute forward (never inverted, so never in a coupled block:
    two of them in a chain, a node's GPUs and then the ranks a group puts in it, are not one
    shortcut at a time); then those with one other derived formula (a shortcut such as MFU
    from GPU-hours) at a time, for when all together make a plan that restates itself (a
    derived formula beside every formula it combines); last, the independent ones with every
    stated assumption (`assumed`), for a question that needs two assumptions where a shortcut
    among all the formulas closes a loop (a node-local tier's read and write bandwidths, each
    per node, with "every node writes" and "writes as fast as it reads" beside them).
    """

    sets: tuple[frozenset[str], ...]
    derived: tuple[str, ...]
    assumed: frozenset[str]


@caches.memo(
    1,
    invalidated_by=caches.LIBRARY,
    reason="every analysis plans with these sets: without it, 150 first-time questions "
    "(tests/test_properties.py's generator, seed 99, a fresh cache) took 24-43% more CPU "
    "(3.5 s against 2.4 s, 4.0 s against 3.3 s in two runs), against README's aim of no "
    "first-time question over 200 ms (2026-12-06, 2 cores)",
)
def _formula_sets() -> _FormulaSets:
    """See `_FormulaSets`."""
    all_formulas = formulas()
    base = frozenset(n for n, f in all_formulas.items() if not f.derived)
    derived = [n for n, f in all_formulas.items() if f.derived]
    forward = frozenset(n for n in derived if all_formulas[n].forward_only)
    singles = tuple(base | forward | {d} for d in derived if d not in forward)
    assumptions = frozenset(n for n in derived if all_formulas[n].assumption)
    return _FormulaSets(
        (base, frozenset(all_formulas), base | forward, *singles),
        tuple(d for d in derived if d not in forward),
        base | forward | assumptions,
    )


def analysis_for(
    targets: tuple[str, ...], knowns: frozenset[str], quick: bool = False, shortcuts: bool = True
) -> tuple[Analysis, tuple[Block, ...], set[str]] | None:
    """The first formula set whose plan determines the targets without restating itself.

    `quick` (for suggestions) uses the numeric singularity test and builds no blocks (they
    come back empty); without `shortcuts`, derived formulas are only tried all together.
    """
    relevant = relevant_formulas(targets, knowns)
    sets = _formula_sets().sets
    # the shortcuts that can matter: derived formulas in scope, one at a time (one out of
    # scope adds nothing to the independent formulas, which were tried first)
    sets = (
        *sets[:3],
        *(
            s
            for s, d in zip(sets[3:], _formula_sets().derived, strict=True)
            if shortcuts and d in relevant
        ),
        *((_formula_sets().assumed,) if shortcuts else ()),
    )
    for tried, names in enumerate(sets):
        if tried == 1:  # the first set failed: can any? (every set lies within the scope)
            possible = _structurally_determined(knowns, relevant)
            if not all(t in possible or t in knowns for t in targets):
                return None
        analysis, _ = _laws_yield(knowns, names & relevant, quick)
        if all(t in analysis.determined or t in knowns for t in targets):
            needed = analysis.ancestors(t for t in targets if t in analysis.determined)
            if not _restates_itself(analysis, needed):
                if tried and not quick:  # (suggestions ask only whether a plan exists)
                    analysis, needed = _fewest_assumptions(
                        targets, knowns, names & relevant, analysis, needed
                    )
                return analysis, () if quick else blocks_of(analysis, needed), needed
    return None


def _laws_yield(
    knowns: frozenset[str], names: frozenset[str], quick: bool = False
) -> tuple[Analysis, frozenset[str]]:
    """The analysis with `names`, less each law that a stated assumption the analysis uses
    stands in for (named in its `derived_from`: "attention left out" for the FLOPs with
    attention): beside its fallback a law would only fix the term the fallback leaves out (to
    zero) and pass that on. Returns the analysis and the formula names it was made with."""
    analysis = analyse_formulas(knowns, names, quick=quick)
    while True:
        used = {f.name for f in analysis.computed_by.values()}
        replaced = frozenset(
            law
            for f in analysis.computed_by.values()
            if f.assumption
            for law in f.derived_from
            if law in used
        )
        if not replaced:
            return analysis, names
        names = names - replaced
        analysis = analyse_formulas(knowns, names, quick=quick)


def _fewest_assumptions(
    targets: tuple[str, ...],
    knowns: frozenset[str],
    names: frozenset[str],
    analysis: Analysis,
    needed: set[str],
) -> tuple[Analysis, set[str]]:
    """The plan without each assumption it does not need: an assumption (a stated fallback
    such as "attention left out") answers only where the other formulas cannot. Each one the
    plan uses is dropped in turn, by name, where the targets stay determined by a plan whose
    assumptions are a strict subset of the current plan's (never traded for another)."""

    def assumed(a: Analysis, wanted: set[str]) -> frozenset[str]:
        return frozenset(
            a.computed_by[n].name
            for n in wanted
            if n in a.computed_by and a.computed_by[n].assumption
        )

    current = assumed(analysis, needed)
    # the stated assumptions the plan does not use are left out of every trial, so that a
    # trial cannot trade one for others (a fallback beside its own law fixes the law's
    # other term: "attention left out" would set a prompt's length to zero)
    unused = frozenset(n for n in names if formulas()[n].assumption) - current
    names = names - unused
    for name in sorted(current):
        if name not in current:
            continue
        trial, _ = _laws_yield(knowns, names - {name})
        if not all(t in trial.determined or t in knowns for t in targets):
            continue
        trial_needed = trial.ancestors(t for t in targets if t in trial.determined)
        fewer = assumed(trial, trial_needed)
        if fewer < current and not _restates_itself(trial, trial_needed):
            names, analysis, needed, current = names - {name}, trial, trial_needed, fewer
    return analysis, needed


def independent_analysis(knowns: frozenset[str]) -> Analysis:
    """Everything the independent formulas determine from `knowns`: the consistency checks'
    closure."""
    return analyse_formulas(knowns, _formula_sets().sets[0])


def blocks_of(analysis: Analysis, needed: set[str]) -> tuple[Block, ...]:
    """The blocks that compute the `needed` variables (closed under `analysis.ancestors`), in
    block-triangular (topological) order: the strongly connected components of "v's formula
    reads u", each after the blocks it reads, the one with the smallest name first where
    several are ready (Kahn's algorithm with a heap: the lexicographic topological order of
    the condensation, one order whatever the components' numbering).

    A component of several variables lies on a cycle, so it is within `analysis.coupled`:
    only those variables need a reachability test, the rest are blocks of one."""
    block_of = {n: n for n in needed}  # each variable's block, by its smallest name
    members: dict[str, list[str]] = {n: [n] for n in needed}
    for v in sorted(analysis.coupled & needed):
        if block_of[v] != v:
            continue  # already in the block of a smaller name
        upstream = analysis.ancestors([v])
        cycle = sorted(
            w for w in upstream & analysis.coupled if w == v or v in analysis.ancestors([w])
        )
        for w in cycle:
            block_of[w] = cycle[0]
            members.pop(w, None)
        members[cycle[0]] = cycle
    waiting: dict[str, set[str]] = {b: set() for b in members}  # the blocks each one reads
    readers: dict[str, list[str]] = {b: [] for b in members}
    for v in needed:
        for u in analysis.reads.get(v, ()):
            first, then = block_of[u], block_of[v]
            if first != then and first not in waiting[then]:
                waiting[then].add(first)
                readers[first].append(then)
    ready = sorted(b for b, before in waiting.items() if not before)
    blocks = []
    all_variables = variables()
    while ready:
        b = heapq.heappop(ready)
        names = members[b]
        fs = tuple(dict.fromkeys(analysis.computed_by[n] for n in names))
        blocks.append(Block(fs, tuple(all_variables[n] for n in names)))
        for then in readers[b]:
            waiting[then].discard(b)
            if not waiting[then]:
                heapq.heappush(ready, then)
    return tuple(blocks)


def _restates_itself(analysis: Analysis, needed: set[str]) -> bool:
    """True when a derived formula is used beside every formula it follows from, in the plan
    that computes `needed`.

    Such a plan counts one relation twice and leaves a dependent block behind it (MFU from
    GPU-hours, with the fleet equation and GPU-hours, does not fix n_gpus and train_time).
    A derived formula that names no sources is not trusted inside a coupled block (outside
    one it only computes an input of the blocks, which stand or fall by their own formulas).
    """
    chosen = {analysis.computed_by[n] for n in needed}
    used = {f.name for f in chosen}
    in_blocks = {analysis.computed_by[n] for n in analysis.coupled & needed}
    return any(
        f.derived and (set(f.derived_from) <= used if f.derived_from else f in in_blocks)
        for f in chosen
    )


def structural_plan(
    targets: tuple[str, ...], knowns: frozenset[str]
) -> SolvePlan | tuple[str, ...]:
    """The plan, or the targets it cannot determine."""
    found = analysis_for(targets, knowns)
    if found is None:
        full = analyse_formulas(knowns, relevant_formulas(targets, knowns))
        missing = [t for t in targets if t not in full.determined and t not in knowns]
        return tuple(missing or targets)
    analysis, blocks, needed = found
    available = knowns | needed
    checks = tuple(
        f
        for f in analysis.leftover
        if not f.derived and all(v.name in available for v in f.variables)
    )
    block_inputs = {v.name for b in blocks for f in b.formulas for v in f.variables}
    block_inputs |= {t for t in targets if t in knowns}
    used = block_inputs | {v.name for f in checks for v in f.variables}
    return SolvePlan(
        targets, blocks, checks, frozenset(used & knowns), frozenset(block_inputs & knowns)
    )


def under_determined_message(
    missing: list[str], shown_knowns: list[str], suggestions: list[str], explanation: str = ""
) -> str:
    """'cannot determine n_gpus from params, tokens, mfu: give one of train_time'."""
    message = f"cannot determine {', '.join(missing)} from {', '.join(shown_knowns) or 'nothing'}"
    if suggestions:
        message += ": give one of " + ", ".join(suggestions)
    else:
        message += (
            ": no one or two more inputs determine it; `napkin formulas "
            f"{missing[0]}` lists the formulas that mention it"
        )
    return message + (". " + explanation if explanation else "")
