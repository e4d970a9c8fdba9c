"""The suggestion search: which one or two more inputs would determine what a plan cannot.

When `napkinmath.solving.planner.make_plan` refuses ("cannot determine n_gpus from params,
tokens, mfu"), the refusal names inputs to add ("give one of train_time, gpu_hours") and,
where a rounding (forward-only) step stands in the way, says so (`NotInvertibleError`).

Candidates are the undetermined variables nearest the targets in the formula graph. What
makes the search fast without changing what it finds: each candidate is first tested
incrementally against the library's matching with the knowns (`planning_graph.possible`);
a screen propagates the knowns through formulas with one unknown left and small blocks
(`_propagated` once per screen, then `_propagates` per candidate, its blocks found by
`_new_block` from what changed, the same blocks `_block` finds from scratch); only what the
screen passes is confirmed by planning (`determines`), at most `MAX_CONFIRMATIONS` times.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple, TypeVar

from napkinmath import caches
from napkinmath.catalog.lookup import formulas
from napkinmath.library.declare import Formula
from napkinmath.solving import planning_graph
from napkinmath.solving.plan import (
    analyse_formulas,
    analysis_for,
    is_singular,
    relevant_formulas,
    work,
)

#: The most plans a suggestion search confirms (a bound on its work).
MAX_CONFIRMATIONS = 48

#: a candidate: the names it adds to the knowns (one, or a pair)
Candidate = TypeVar("Candidate", bound=tuple[str, ...])


def determines(targets: tuple[str, ...], knowns: frozenset[str], shortcuts: bool = True) -> bool:
    """True when `knowns` determine every target (a quick test, for suggestions; without
    `shortcuts`, derived formulas are only tried all together)."""
    work["confirmations"] += 1
    return analysis_for(targets, knowns, quick=True, shortcuts=shortcuts) is not None


def suggestions_for(
    missing: tuple[str, ...], knowns: frozenset[str]
) -> tuple[tuple[str, ...], str]:
    """The suggestions and the forward-only explanation of a failure (its refusal is kept:
    `napkinmath.solving.planner`)."""
    return tuple(suggest_inputs(missing, knowns)), _forward_only_blockers(list(missing), knowns)


def suggest_inputs(missing: tuple[str, ...], knowns: frozenset[str], limit: int = 8) -> list[str]:
    """Inputs that, added to the knowns, determine `missing`: single names, else pairs.

    Candidates are the undetermined variables nearest the targets (distance in the formula
    graph). A fast screen propagates knowns through formulas with one unknown left; what it
    finds is confirmed by planning. Where the screen finds nothing (a coupled block decides),
    the nearest candidates are planned directly. A pair reads "tokens and train_time".
    At most MAX_CONFIRMATIONS candidates are planned for singles, and as many for pairs.
    """
    full = analyse_formulas(knowns, relevant_formulas(missing, knowns), quick=True)
    distance = _distances(missing)
    shared = _shared_formulas(missing)
    ranked = [
        n
        for n in sorted(distance, key=lambda n: (distance[n], -shared.get(n, 0), n))
        if n not in knowns and n not in missing and n not in full.determined
    ]
    possible = _Possible(missing, knowns)
    found = _confirmed([(n,) for n in ranked], missing, knowns, limit, possible)
    if found:
        return found
    nearest = ranked[:12]
    pairs = [(a, b) for i, a in enumerate(nearest) for b in nearest[i + 1 :]]
    return [
        " and ".join(pair) for pair in _confirmed_pairs(pairs, missing, knowns, limit, possible)
    ]


class _Possible:
    """`planning_graph.possible` for one search's targets and knowns, each candidate asked
    once (the screen's two passes and the confirmation ask again), single names answered
    all at once (`planning_graph.possible_singles`). Lives for one search only, so it is no
    cache of the library's."""

    def __init__(self, missing: tuple[str, ...], knowns: frozenset[str]) -> None:
        self.missing = missing
        self.start = planning_graph.library_matching(knowns)
        self.seen: dict[tuple[str, ...], bool] = {}
        self.singles = planning_graph.possible_singles(self.start, missing)

    def __call__(self, extra: tuple[str, ...]) -> bool:
        if len(extra) == 1 and self.singles is not None:
            return extra[0] in self.singles
        found = self.seen.get(extra)
        if found is None:
            found = self.seen[extra] = planning_graph.possible(self.start, self.missing, extra)
        return found


def _confirmed(
    candidates: list[tuple[str]],
    missing: tuple[str, ...],
    knowns: frozenset[str],
    limit: int,
    possible: _Possible,
) -> list[str]:
    screened = _screen(candidates, missing, knowns, possible)
    shortcuts = bool(screened)  # a blind fallback plans only the nearest few, without them
    found = []
    for (name,) in (screened or candidates[:12])[:MAX_CONFIRMATIONS]:
        if possible((name,)) and determines(missing, knowns | {name}, shortcuts):
            found.append(name)
            if len(found) == limit:
                break
    return found


def _confirmed_pairs(
    pairs: list[tuple[str, str]],
    missing: tuple[str, ...],
    knowns: frozenset[str],
    limit: int,
    possible: _Possible,
) -> list[tuple[str, str]]:
    screened = _screen(pairs, missing, knowns, possible)
    shortcuts = bool(screened)
    found = []
    for pair in (screened or pairs[:10])[:MAX_CONFIRMATIONS]:
        if possible(pair) and determines(missing, knowns | set(pair), shortcuts):
            found.append(pair)
            if len(found) == limit:
                break
    return found


def _screen(
    candidates: list[Candidate],
    missing: tuple[str, ...],
    knowns: frozenset[str],
    possible: _Possible,
) -> list[Candidate]:
    """The candidates that propagation says may determine the targets: with the independent
    formulas and small blocks, or with shortcuts (derived formulas) one at a time. Empty
    when the screen cannot tell (the knowns alone already pass it)."""
    kept: set[Candidate] = set()
    told = False
    for shortcuts in (False, True):
        base = _propagated(knowns, shortcuts)
        if all(t in base.known for t in missing):
            continue  # this screen cannot tell
        told = True
        # (what propagation learns, the library determines by structure: `possible` first)
        kept.update(
            c
            for c in candidates
            if c not in kept and possible(c) and _propagates(missing, base, c, shortcuts)
        )
    return [c for c in candidates if c in kept] if told else []


class _Index(NamedTuple):
    """The library as the suggestion search reads it: the independent formulas, or all of
    them with `shortcuts` (then without blocks: a derived formula beside its sources would
    fake one)."""

    #: the formulas read (the independent ones, or all with `shortcuts`)
    formulas: tuple[Formula, ...]
    #: each formula as (its variables, its output if it is forward-only), for propagation
    incidence: tuple[tuple[tuple[str, ...], str | None], ...]
    #: each variable's formulas, by position in `incidence`
    by_name: dict[str, tuple[int, ...]]
    #: each formula's count of variables, before any is known
    sizes: tuple[int, ...]
    #: the formulas that may take part in a block: not forward-only
    blocks: tuple[int, ...]
    #: each variable's neighbours (the variables it shares a formula with), by library id
    neighbours: tuple[tuple[int, ...], ...]


@caches.memo(
    2,
    invalidated_by=caches.LIBRARY,
    fixed=True,
    reason="the suggestion search's view of the library, made once (7 ms); 28,030 reads in "
    "tools/cache_value.py's workload (2026-12-07, 2 cores)",
)
def _index(shortcuts: bool = False) -> _Index:
    """The suggestion search's view of the library (see `_Index`), made once per variant."""
    chosen = tuple(formulas().values() if shortcuts else _independent(formulas()))
    incidence = tuple(
        (tuple(v.name for v in f.variables), f.output.name if f.output else None) for f in chosen
    )
    by_name: dict[str, list[int]] = {}
    for i, (names, _) in enumerate(incidence):
        for n in names:
            by_name.setdefault(n, []).append(i)
    library = planning_graph.library_index()
    neighbours: list[set[int]] = [set() for _ in library.names]
    for vs in library.variables:
        for v in vs:
            neighbours[v].update(vs)
    return _Index(
        chosen,
        incidence,
        {n: tuple(ix) for n, ix in by_name.items()},
        tuple(len(names) for names, _ in incidence),
        tuple(i for i, (_, output) in enumerate(incidence) if output is None),
        tuple(tuple(sorted(s - {v})) for v, s in enumerate(neighbours)),
    )


def _independent(library: Mapping[str, Formula]) -> tuple[Formula, ...]:
    return tuple(f for f in library.values() if not f.derived)


def _propagates(
    missing: tuple[str, ...], base: _Propagated, extra: tuple[str, ...], shortcuts: bool = False
) -> bool:
    """Whether the targets follow from `base` (already propagated, see `_propagated`) and the
    `extra` knowns by single formulas (a forward-only one only toward its output) and,
    without `shortcuts`, blocks of two or three formulas with as many unknowns left.

    Incremental: only the formulas that mention what is new are looked at again."""
    work["propagations"] += 1
    known = set(base.known)
    left = list(base.left)
    queue: list[int] = []
    by_name = _index(shortcuts).by_name
    for name in extra:
        if name not in known:
            known.add(name)
            for i in by_name.get(name, ()):
                left[i] -= 1
                if left[i] == 1:
                    queue.append(i)
    if all(t in known for t in missing):
        return True
    return _extend(known, missing, set(extra), shortcuts, left, queue, base)


@dataclass(frozen=True)
class _Propagated:
    """What a set of knowns gives by propagation, as a start for each candidate."""

    known: frozenset[str]
    left: tuple[int, ...]  # each formula's count of unknown variables left
    #: the formulas that may form a block (two or three unknowns left), by those unknowns,
    #: each list in index order; and the two-unknown sets by the names in them
    members: dict[frozenset[str], tuple[int, ...]]
    pairs: dict[str, tuple[frozenset[str], ...]]


def _propagated(knowns: frozenset[str], shortcuts: bool = False) -> _Propagated:
    """Everything the knowns give by propagation (see `_propagates`): the candidates of one
    suggestion search all start from it."""
    known = set(knowns)
    view = _index(shortcuts)
    index, left, by_name = view.incidence, list(view.sizes), view.by_name
    for name in known:
        for i in by_name.get(name, ()):
            left[i] -= 1
    queue = [i for i, count in enumerate(left) if count == 1]
    _extend(known, (), None, shortcuts, left, queue)
    members: dict[frozenset[str], list[int]] = {}
    if not shortcuts:
        for i in _index().blocks:
            if left[i] in (2, 3):
                members.setdefault(frozenset(n for n in index[i][0] if n not in known), []).append(
                    i
                )
    pairs: dict[str, list[frozenset[str]]] = {}
    for sub in members:
        if len(sub) == 2:
            for name in sub:
                pairs.setdefault(name, []).append(sub)
    return _Propagated(
        frozenset(known),
        tuple(left),
        {sub: tuple(ix) for sub, ix in members.items()},
        {name: tuple(subs) for name, subs in pairs.items()},
    )


def _extend(
    known: set[str],
    missing: tuple[str, ...],
    fresh: set[str] | None,
    shortcuts: bool,
    left: list[int],
    queue: list[int],
    base: _Propagated | None = None,
) -> bool:
    """Grow `known` by propagation; True once every name of `missing` (if any) is known.

    `left` counts each formula's unknown variables and is kept up to date; `queue` holds the
    formulas to look at first (those down to one unknown). `fresh` holds what was added to an
    already propagated set: a new block must then contain a formula that mentions one of them
    (None: look everywhere); `base`, the propagated set it grows, lets blocks be found from
    what changed since."""
    index, by_name = _index(shortcuts).incidence, _index(shortcuts).by_name

    def learn(name: str) -> None:
        known.add(name)
        if fresh is not None:
            fresh.add(name)
        for i in by_name.get(name, ()):
            left[i] -= 1
            if left[i] == 1:
                queue.append(i)

    while True:
        while queue:
            names, output = index[queue.pop()]
            open_names = [n for n in names if n not in known]
            if len(open_names) != 1 or (output is not None and open_names[0] != output):
                continue
            learn(open_names[0])
            if missing and all(t in known for t in missing):
                return True
        if shortcuts:
            learned: frozenset[str] = frozenset()
        elif base is not None and fresh is not None:
            learned = _new_block(index, known, fresh, left, base)
        else:
            learned = _block(index, known, fresh, left)
        if not learned:
            return bool(missing) and all(t in known for t in missing)
        for name in sorted(learned):
            learn(name)


def _block(
    index: tuple[tuple[tuple[str, ...], str | None], ...],
    known: set[str],
    fresh: set[str] | None,
    left: list[int],
) -> frozenset[str]:
    """Learn one small coupled block: two formulas in the same two unknowns, or three whose
    unknowns lie in the same three, that really fix them (not a derived formula beside its
    sources, not products of powers that only fix a product). Forward-only and derived
    formulas never take part. Returns what it learned, not yet added to `known` (empty:
    nothing)."""
    all_formulas = _index().formulas
    members: dict[frozenset[str], list[str]] = {}
    changed: list[frozenset[str]] = []
    for i in _index().blocks:
        if left[i] not in (2, 3):
            continue
        names = index[i][0]
        left_names = frozenset(n for n in names if n not in known)
        members.setdefault(left_names, []).append(all_formulas[i].name)
        if fresh is None or not fresh.isdisjoint(names):
            changed.append(left_names)
    by_name: dict[str, list[frozenset[str]]] = {}
    for block in members:
        if len(block) == 2:
            for name in block:
                by_name.setdefault(name, []).append(block)
    unions: set[frozenset[str]] = set()
    for block in changed:
        if len(block) == 2 and len(members[block]) >= 2 and _fixes(members[block][:2], block):
            return block
        if len(block) == 3:
            unions.add(block)
        else:
            for name in block:
                unions.update(block | other for other in by_name[name] if other != block)
    order = {sub: k for k, sub in enumerate(members)}  # the members' subsets, as first seen
    for union in sorted(unions, key=sorted):
        ordered = sorted(union)
        subs = [
            sub
            for size in range(1, len(ordered) + 1)
            for sub in map(frozenset, combinations(ordered, size))
            if sub in order
        ]
        inside = [f for sub in sorted(subs, key=order.__getitem__) for f in members[sub]]
        if len(inside) >= 3 and _fixes(inside[:3], union):
            return union
    return frozenset()


def _new_block(
    index: tuple[tuple[tuple[str, ...], str | None], ...],
    known: set[str],
    fresh: set[str],
    left: list[int],
    base: _Propagated,
) -> frozenset[str]:
    """`_block` for a propagated `base` grown by `fresh`: the same block, found from the
    formulas that mention a fresh name (the others are as in `base`). Held equal to `_block`
    by tests/test_fast_paths.py::
    test_the_incremental_block_search_finds_the_blocks_of_the_full_search."""
    view = _index()
    all_formulas, by_name, candidate = view.formulas, view.by_name, frozenset(view.blocks)
    touched = sorted({i for n in fresh for i in by_name.get(n, ()) if i in candidate})
    gone = set(touched)
    new: dict[frozenset[str], list[int]] = {}
    changed: list[frozenset[str]] = []
    for i in touched:
        if left[i] in (2, 3):
            sub = frozenset(n for n in index[i][0] if n not in known)
            new.setdefault(sub, []).append(i)
            changed.append(sub)

    def members(sub: frozenset[str]) -> list[int]:
        found = [i for i in base.members.get(sub, ()) if i not in gone]
        found += new.get(sub, ())
        found.sort()
        return found

    def names(ixs: list[int]) -> list[str]:
        return [all_formulas[i].name for i in ixs]

    unions: set[frozenset[str]] = set()
    for block in changed:
        if len(block) == 3:
            unions.add(block)
            continue
        found = members(block)
        if len(found) >= 2 and _fixes(names(found[:2]), block):
            return block
        for name in block:
            others = [s for s in base.pairs.get(name, ()) if s not in new and members(s)]
            others += [s for s in new if len(s) == 2 and name in s]
            unions.update(block | other for other in others if other != block)
    for union in sorted(unions, key=sorted):
        subs = [union, *(union - {n} for n in sorted(union))]
        present = sorted((found[0], found) for found in map(members, subs) if found)
        inside = [i for _, found in present for i in found]
        if len(inside) >= 3 and _fixes(names(inside[:3]), union):
            return union
    return frozenset()


def _fixes(formula_names: list[str], unknowns: frozenset[str]) -> bool:
    """Whether these formulas fix these unknowns (the quick numeric rank; the decision is
    kept with the library's facts: `invert.remembered`)."""
    return not is_singular(tuple(sorted(formula_names)), tuple(sorted(unknowns)), True)


def _shared_formulas(missing: tuple[str, ...]) -> dict[str, int]:
    """How many independent formulas each variable shares with the targets."""
    counts: dict[str, int] = {}
    for f in _index().formulas:
        names = {v.name for v in f.variables}
        if names & set(missing):
            for n in names:
                counts[n] = counts.get(n, 0) + 1
    return counts


def _distances(missing: tuple[str, ...]) -> dict[str, int]:
    """Each variable's distance from the nearest target in the formula-variable graph
    (breadth first; a distance does not depend on the order of the search)."""
    neighbours, ids = _index().neighbours, planning_graph.library_index().ids
    names = planning_graph.library_index().names
    mentioned = planning_graph.library_index().takers[True]  # the formulas of each
    distance = {ids[t]: 0 for t in missing if t in ids and mentioned[ids[t]]}
    frontier = list(distance)
    step = 0
    while frontier:
        step += 1
        reached = []
        for n in frontier:
            for m in neighbours[n]:
                if m not in distance:
                    distance[m] = step
                    reached.append(m)
        frontier = reached
    return {names[i]: d for i, d in distance.items()}


def _forward_only_blockers(missing: list[str], knowns: frozenset[str]) -> str:
    """Explain targets that only a rounding (forward-only) step would connect to the knowns.

    If letting rounding steps run backward would determine the targets, those steps are what
    stands in the way: each has many inputs for one output. The derived forward-only steps
    (which link a layout's groups run on: NVLink, the NIC, a TPU's ICI) are left out of that
    trial: run backward, one of them would "determine" a link's hardware figure from another
    link's, which explains nothing about the question asked.
    """
    everything = formulas()
    scope = relevant_formulas(tuple(missing), knowns)
    scope = frozenset(
        n for n in scope if not (everything[n].derived and everything[n].forward_only)
    )
    relaxed = analyse_formulas(knowns, scope, strict=False, relaxed=True)
    if not all(name in relaxed.determined for name in missing):
        return ""
    from napkinmath.library.print_layout import Printer

    shown = Printer(lambda leaf: leaf.name)  # as `napkin formulas` prints it, no sympy
    upstream = relaxed.ancestors(missing)
    reasons = []
    for name in sorted(upstream):
        f = relaxed.computed_by.get(name)
        if f is None or f.output is None or f.output.name == name:
            continue
        reasons.append(
            f"{f.title} ({f.output.name} = {shown(f.layouts[1])}) only works forward: "
            f"{f.note or 'it rounds'}, so {f.output.name} does not pin down a "
            f"single {name}"
        )
    return "; ".join(dict.fromkeys(reasons))
