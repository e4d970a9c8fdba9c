"""The formula graph on integers, for the planner (`napkinmath.solving.plan`): the library
indexed once, the incidence of formulas with unknowns, a deterministic maximum matching
(Kuhn), the Dulmage-Mendelsohn under-determined part, strongly connected components, and an
incremental structural test for candidate inputs.

What makes an analysis fast without changing it: the incidence is computed once per set of
knowns (`known`), the formulas in matching order once per formula set, and the invertible
formulas' matching once for both; the under-determined part is reached with formula sets as
integers.

A variable's id is its rank by name, so sorting ids sorts names: what the planner derives
from these is ordered as it was when it worked on names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import reduce
from itertools import chain, compress, filterfalse
from operator import getitem, or_

from napkinmath import caches
from napkinmath.catalog.lookup import formulas, variables
from napkinmath.library.declare import Formula

Row = tuple[int, str, tuple[int, ...], int | None]
#: each formula's unknowns that it may be matched to, by formula id (a dict or a tuple)
Edges = dict[int, tuple[int, ...]] | tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Index:
    """The library as integers, for the analyses: a variable's id is its rank by name (so
    sorting ids sorts names), a formula's is its position in the library."""

    names: tuple[str, ...]  # variable names by id
    ids: dict[str, int]
    formulas: tuple[Formula, ...]  # library order
    variables: tuple[tuple[int, ...], ...]  # each formula's variables, as declared
    output: tuple[int | None, ...]  # a forward-only formula's output (None: invertible)
    #: each variable's formulas that may be matched to it while it is unknown (a
    #: forward-only formula only to its output), strict and relaxed
    takers: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]
    #: the formulas in matching order as (id, name, variables, the only unknown it may take
    #: or None), strict and relaxed; strictly the invertible ones come first, this many
    rows: tuple[tuple[Row, ...], tuple[Row, ...]]
    invertible: int
    #: `takers` as formula sets: bit i for formula i
    taker_masks: tuple[tuple[int, ...], tuple[int, ...]]
    #: for each byte of a formula set (`int.to_bytes`, little-endian), the formulas of each
    #: value of it, to list a set's members a byte at a time (see `members`)
    bytes: tuple[tuple[tuple[int, ...], ...], ...]
    #: the names of the forward-only formulas
    forward_only: frozenset[str]


@caches.memo(
    1,
    invalidated_by=caches.LIBRARY,
    fixed=True,
    reason="the library as integers, made once (8 ms); 21,440 reads in tools/cache_value.py's "
    "workload (2026-12-07, 2 cores)",
)
def library_index() -> Index:
    library = tuple(formulas().values())
    names = tuple(sorted(set(variables()) | {v.name for f in library for v in f.variables}))
    ids = {n: i for i, n in enumerate(names)}
    # the matching order: invertible formulas first, then forward-only ones (which may only
    # compute their output, unless relaxed); in each group laws before stated assumptions (a
    # fallback is matched only where no law can be: Kuhn's matching keeps the formulas it has
    # matched, so the earliest formulas that can be matched are), then by name
    orders = [
        sorted(
            range(len(library)),
            key=lambda i: (
                library[i].forward_only and not relaxed,
                library[i].assumption,
                library[i].name,
            ),
        )
        for relaxed in (False, True)
    ]
    of = tuple(tuple(dict.fromkeys(ids[v.name] for v in f.variables)) for f in library)
    output = tuple(None if f.output is None else ids[f.output.name] for f in library)
    takers: list[tuple[tuple[int, ...], ...]] = []
    for relaxed in (False, True):
        found: list[list[int]] = [[] for _ in names]
        for i, vs in enumerate(of):
            for v in vs:
                if relaxed or output[i] is None or output[i] == v:
                    found[v].append(i)
        takers.append(tuple(map(tuple, found)))
    rows = tuple(
        tuple((i, library[i].name, of[i], None if relaxed else output[i]) for i in order)
        for relaxed, order in enumerate(orders)
    )
    masks = tuple(tuple(sum(1 << i for i in fs) for fs in found) for found in takers)
    bits = [tuple(j for j in range(8) if value >> j & 1) for value in range(256)]
    return Index(
        names,
        ids,
        library,
        of,
        output,
        (takers[0], takers[1]),
        (rows[0], rows[1]),
        sum(not f.forward_only for f in library),
        (masks[0], masks[1]),
        tuple(  # byte k's value's formulas: its bits, offset by 8k
            tuple([tuple([8 * k + j for j in b]) for b in bits])
            for k in range((len(library) + 7) // 8)
        ),
        frozenset(f.name for f in library if f.forward_only),
    )


def members(mask: int, table: tuple[tuple[tuple[int, ...], ...], ...]) -> Iterator[int]:
    """The formulas of the set `mask` (bit i: formula i) in ascending order, looked up a byte
    at a time in `table` (`Index.bytes`)."""
    return chain.from_iterable(map(getitem, table, mask.to_bytes(len(table), "little")))


def incidence(
    known: frozenset[int], names: frozenset[str] | None, rows: Iterable[Row]
) -> dict[int, tuple[int, ...]]:
    """Each formula of `rows` (see `Index.rows`: in matching order, invertible formulas
    first, then forward-only ones, each group by name) that is in `names` (None: all), with
    the unknowns it may be matched to: a forward-only formula only its output, unless
    relaxed; unknowns as declared (by name)."""
    edges: dict[int, tuple[int, ...]] = {}
    for i, name, vs, output in rows:
        if names is not None and name not in names:
            continue
        if output is None:
            edges[i] = tuple(filterfalse(known.__contains__, vs))
        else:
            edges[i] = () if output in known else (output,)
    return edges


def _augment(edges: Edges, owner: dict[int, int], f: int, seen: set[int]) -> bool:
    """An augmenting path from formula `f` (Kuhn): unknowns in `edges` order, none of `seen`
    (those it visits are added: a caller blocks unknowns by putting them there first);
    `owner` (unknown -> formula) is updated along the path found."""
    for v in edges[f]:
        if v not in seen:
            seen.add(v)
            g = owner.get(v)
            if g is None or _augment(edges, owner, g, seen):
                owner[v] = f
                return True
    return False


def matching(edges: dict[int, tuple[int, ...]]) -> dict[int, int]:
    """A maximum matching formula -> unknown by augmenting paths (Kuhn), deterministic by
    construction: formulas are tried in the order of `edges`, unknowns in name order. An
    augmenting path re-routes earlier formulas but never unmatches them, so an invertible
    formula keeps an unknown rather than yielding it to a forward-only one (the strict
    analyses resume the invertible formulas' matching with `_kuhn`)."""
    owner = _kuhn(edges, edges, {})
    return dict(zip(owner.values(), owner, strict=False))


def _kuhn(order: Iterable[int], edges: Edges, owner: dict[int, int]) -> dict[int, int]:
    """`matching` as unknown -> formula, the formulas `order` tried in turn: `owner`, extended
    in place. `edges[f]` are formula f's unknowns (a dict, or by id: see `Known.incidence`).
    Held equal to plain Kuhn by tests/test_planning_graph_fast.py::
    test_matching_resumes_as_kuhn_would (and test_decompose_matches_the_reference)."""
    # Unknowns a failed search visited: no augmenting path leaves them until the matching
    # changes, so later searches skip them (the same matching, found faster). A search
    # starts from them and adds what it visits, which is what to skip after it fails.
    dead: set[int] = set()
    for f in order:
        vs = edges[f]
        if not vs:
            continue
        if vs[0] not in owner:
            owner[vs[0]] = f  # what augment would choose, without the search
            if dead:
                dead = set()
        elif _augment(edges, owner, f, dead):
            dead = set()
    return owner


@dataclass(frozen=True)
class Known:
    """The library seen with a set of knowns (ids, see `Index`)."""

    #: the ids of the knowns that formulas mention
    ids: frozenset[int]
    #: each formula's variables that are not known, as declared, by formula id
    unknowns: tuple[tuple[int, ...], ...]
    #: each formula's unknowns that it may be matched to (see `incidence`, strict)
    incidence: tuple[tuple[int, ...], ...]


@caches.memo(
    256,
    invalidated_by=caches.LIBRARY,
    reason="the library seen with a set of knowns (0.2 ms): every analysis of a question and of "
    "a suggestion search's candidates reads it (10,136 hits against 547 misses in "
    "tools/cache_value.py's workload, 1.8 s saved) (2026-12-07, 2 cores)",
)
def known(knowns: frozenset[str]) -> Known:
    """The library seen with `knowns` (see `Known`): the analyses of one question, and of
    the candidates a suggestion search tries, share it."""
    index = library_index()
    ids = frozenset(index.ids[n] for n in knowns if n in index.ids)
    unknowns = list(index.variables)
    for f in set().union(*map(index.takers[True].__getitem__, ids)):  # those with a known
        unknowns[f] = tuple(filterfalse(ids.__contains__, unknowns[f]))
    edges = list(unknowns)
    for f, _, _, output in index.rows[False][index.invertible :]:  # forward-only: the output
        assert output is not None  # a forward-only formula has one (`Formula.output`)
        edges[f] = () if output in ids else (output,)
    return Known(ids, tuple(unknowns), tuple(edges))


@dataclass(frozen=True, eq=False)
class Part:
    """Formulas in matching order and the variables they mention (ids, see `Index`)."""

    names: frozenset[str]
    formulas: tuple[int, ...]
    present: frozenset[int]


@caches.memo(
    1024,
    invalidated_by=caches.LIBRARY,
    reason="a formula set split for matching (0.1 ms): every analysis with the set reads it "
    "(4,079 hits in tools/cache_value.py's workload); without it the 400 first-time "
    "questions of tests/test_properties.py's generator took 10% more CPU under the "
    "profiler (2026-12-07, 2 cores)",
)
def invertible_and_forward(names: frozenset[str]) -> tuple[Part, Part]:
    """The invertible formulas of `names` and the forward-only ones (strict matching order),
    each with the variables it mentions: every analysis with `names` reads them, whatever
    its knowns."""
    index = library_index()
    rows = index.rows[False]
    parts = []
    for chosen in (rows[: index.invertible], rows[index.invertible :]):
        found = tuple(i for i, name, _, _ in chosen if name in names)
        present = frozenset().union(*map(index.variables.__getitem__, found))
        parts.append(Part(names, found, present))
    return parts[0], parts[1]


@caches.memo(
    256,
    invalidated_by=caches.LIBRARY,
    reason="the invertible formulas' matching (0.2 ms), resumed by every analysis that drops "
    "stuck rounding steps (2,882 hits in tools/cache_value.py's workload) (2026-12-07, 2 "
    "cores)",
)
def invertible_matching(knowns: frozenset[str], names: frozenset[str]) -> dict[int, int]:
    """The matching (unknown -> formula) of the invertible formulas `names`, which come first
    in the matching order: analyses that differ only in forward-only formulas (those dropped
    as stuck) resume from it. Not to be modified."""
    invertible = invertible_and_forward(names)[0]
    return _kuhn(invertible.formulas, known(knowns).incidence, {})


def forward_only() -> frozenset[str]:
    """The names of the library's forward-only formulas."""
    return library_index().forward_only


def cycles(successors: dict[int, list[int]]) -> list[set[int]]:
    """The strongly connected components with more than one member (Tarjan, iterative),
    after trimming the nodes that no edge enters or none leaves (they lie on no cycle)."""
    successors = trimmed(successors)
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    found: list[set[int]] = []
    for root in successors:
        if root in index:
            continue
        work = [(root, iter(successors.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors.get(child, ()))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def trimmed(successors: dict[int, list[int]]) -> dict[int, list[int]]:
    """The graph without the nodes that lie on no cycle (repeatedly: no edge in or out).
    Held equal to the plain repeated removal by tests/test_planning_graph_fast.py::
    test_trimmed_matches_the_reference."""
    # first those that no edge leaves or none enters (most, in a planner's graph), then the
    # rest by counting the edges among those left
    entered = set(chain.from_iterable(successors.values()))
    live = {n for n, ts in successors.items() if ts and n in entered}
    if live:
        inward = dict.fromkeys(live, 0)
        outward = dict.fromkeys(live, 0)
        predecessors: dict[int, list[int]] = {n: [] for n in live}
        for n in live:
            for t in successors[n]:
                if t in live:
                    inward[t] += 1
                    outward[n] += 1
                    predecessors[t].append(n)
        stack = [n for n in live if not inward[n] or not outward[n]]
        while stack:
            n = stack.pop()
            if n not in live:
                continue
            live.discard(n)
            for t in successors[n]:
                if t in live:
                    inward[t] -= 1
                    if not inward[t]:
                        stack.append(t)
            for p in predecessors[n]:
                if p in live:
                    outward[p] -= 1
                    if not outward[p]:
                        stack.append(p)
    if len(live) == len(successors):
        return successors
    return {n: [t for t in ts if t in live] for n, ts in successors.items() if n in live}


@dataclass(frozen=True)
class Decomposition:
    """A maximum matching and the under-determined part it shows (ids, see `Index`)."""

    known: frozenset[int]
    members: list[int]  # the formulas, in matching order
    matched: dict[int, int]  # formula -> unknown
    unknowns: set[int]
    under: set[int]


def computed(found: Decomposition) -> dict[int, int]:
    """The matched unknowns that are not under-determined, unknown -> formula, in the order
    of `found.matched`."""
    kept = found.unknowns - found.under
    matched = found.matched
    return {matched[f]: f for f in compress(matched, map(kept.__contains__, matched.values()))}


def decompose(knowns: frozenset[str], names: frozenset[str], relaxed: bool) -> Decomposition:
    """Match the formulas `names` with the unknowns; Dulmage-Mendelsohn: alternating paths
    from unmatched unknowns reach the under-determined ones.

    The incidence is looked up by knowns, the formulas by `names` (`invertible_and_forward`),
    and the invertible formulas' matching is shared (`invertible_matching`): analyses that
    drop stuck rounding steps differ only in forward-only formulas, which are matched last."""
    index = library_index()
    seen = known(knowns)
    if relaxed:
        return _relaxed(seen.ids, names, index)
    # the invertible formulas first (shared), then the forward-only ones
    invertible, forward = invertible_and_forward(names)
    shared = invertible_matching(knowns, names - forward_only())
    owner = _kuhn(forward.formulas, seen.incidence, dict(shared))
    matched = dict(zip(owner.values(), owner, strict=False))  # formula -> unknown
    unknowns = set((invertible.present | forward.present).difference(seen.ids))
    under = unknowns.difference(owner)  # unmatched, or no formula may take them
    under = _spread(under, under, matched, index.taker_masks[False], index.bytes)
    return Decomposition(
        seen.ids, [*invertible.formulas, *forward.formulas], matched, unknowns, under
    )


def _relaxed(known: frozenset[int], names: frozenset[str], index: Index) -> Decomposition:
    """`decompose` relaxed: every formula may be matched to any of its unknowns."""
    edges = incidence(known, names, index.rows[True])
    matched = matching(edges)  # formula -> unknown
    present = frozenset().union(*map(index.variables.__getitem__, edges))
    unknowns = set(present.difference(known))
    under = unknowns.difference(matched.values())  # unmatched, or no formula may take them
    return Decomposition(
        known,
        list(edges),
        matched,
        unknowns,
        _spread(under, under, matched, index.taker_masks[True], index.bytes),
    )


def _spread(
    under: set[int],
    level: set[int],
    matched: dict[int, int],
    takers: tuple[int, ...],
    table: tuple[tuple[tuple[int, ...], ...], ...],
) -> set[int]:
    """`under` and the unknowns that alternating paths reach from `level` (a part of it):
    from an under-determined unknown to each formula that may take it (`takers`: a formula
    set for each unknown, see `Index.taker_masks`; those not in `matched` end a path) and on
    to the unknown that formula is matched to (Dulmage-Mendelsohn). `under` is extended.

    Breadth first, a level at a time, the formulas reached as one integer: with few knowns
    most unknowns are under-determined, and each formula is passed once, not once for each
    of its under-determined unknowns; `table` (`Index.bytes`) lists the new ones."""
    passed = 0  # the formulas reached
    while level:
        reached = reduce(or_, map(takers.__getitem__, level), passed)
        level = set(
            map(matched.__getitem__, filter(matched.__contains__, members(reached ^ passed, table)))
        )
        level -= under
        under |= level
        passed = reached
    return under


@dataclass(frozen=True)
class LibraryMatching:
    """The incidence of every formula with the unknowns of `knowns` (see `incidence`) and a
    maximum matching of it, unknown -> formula, with the unknowns it leaves structurally
    under-determined: what a suggestion search asks of each candidate (`possible`,
    `possible_singles`). Made once per search (`library_matching`); not to be modified."""

    knowns: frozenset[str]
    edges: dict[int, tuple[int, ...]]
    owner: dict[int, int]
    under: frozenset[int]


def library_matching(knowns: frozenset[str]) -> LibraryMatching:
    """See `LibraryMatching`."""
    incidence = known(knowns).incidence
    edges = {i: incidence[i] for i, _, _, _ in library_index().rows[False]}
    owner = _kuhn(edges, edges, {})
    return LibraryMatching(knowns, edges, owner, frozenset(_inessential(edges, owner)))


def possible(start: LibraryMatching, targets: tuple[str, ...], extra: tuple[str, ...]) -> bool:
    """Whether `start.knowns` and `extra` may determine the targets: whether the whole
    library determines them by structure (see `plan._structurally_determined`), which every
    plan needs.

    Incremental: the maximum matching with the knowns loses the edges of each extra known,
    and one augmenting path from the formula that held it restores a maximum; a target is
    then structurally determined unless an alternating path from an unmatched unknown
    reaches it.
    """
    knowns, edges = start.knowns, start.edges
    ids = library_index().ids
    gone = {ids[n] for n in extra if n in ids and n not in knowns}
    owner = dict(start.owner)
    for v in sorted(gone):
        f = owner.pop(v, None)
        if f is not None:
            _augment(edges, owner, f, set(gone))
    for t in targets:
        if t in knowns or t in extra:
            continue
        if t not in ids:
            return False
        stack, seen = [ids[t]], {ids[t]}
        while stack:  # back along alternating paths: does one start at an unmatched unknown?
            v = stack.pop()
            f = owner.get(v)
            if f is None:
                return False
            for u in edges[f]:
                if u not in seen and u not in gone:
                    seen.add(u)
                    stack.append(u)
    return True


def _inessential(
    edges: dict[int, tuple[int, ...]], owner: dict[int, int], removed: int | None = None
) -> set[int]:
    """The unknowns some maximum matching of `edges` leaves unmatched (Dulmage-Mendelsohn's
    under-determined part): those an alternating path from an unmatched unknown reaches,
    `owner` (unknown -> formula) being a maximum matching; with `removed`, of the incidence
    without that unknown, `owner` re-matched here (one augmenting path restores a maximum)."""
    index = library_index()
    if removed is not None:
        owner = dict(owner)
        f = owner.pop(removed, None)
        if f is not None:
            _augment(edges, owner, f, {removed})
    matched = {f: v for v, f in owner.items()}
    free = {v for vs in edges.values() for v in vs}.difference(owner)
    free.discard(-1 if removed is None else removed)
    return _spread(set(free), set(free), matched, index.taker_masks[False], index.bytes)


def possible_singles(start: LibraryMatching, targets: tuple[str, ...]) -> frozenset[str] | None:
    """The names x (neither a known nor a target) for which `possible(start, targets, (x,))`
    holds, all at once; None when no target is under-determined (then ask `possible`).

    By matching numbers (nu, the size of a maximum matching of the incidence): a target t is
    under-determined when some maximum matching leaves it unmatched (removing it keeps nu).
    Knowing an under-determined x keeps nu too, and t becomes determined exactly when then
    removing t loses a pair: when every maximum matching of the incidence without t matches
    x, that is x is not in `_inessential` without t. Knowing a determined x leaves t
    under-determined (with x gone, removing t loses nothing more), and a target already
    determined stays so when an under-determined x is known. So: the under-determined
    unknowns outside the `_inessential` set of each under-determined target removed."""
    index = library_index()
    asked = [t for t in targets if t not in start.knowns]
    wanted = [index.ids[t] for t in asked if t in index.ids]
    if len(wanted) < len(asked):
        return frozenset()  # a target no formula mentions is never determined
    open_targets = [t for t in wanted if t in start.under]
    if not open_targets:
        return None
    found = start.under.difference(wanted)
    for t in open_targets:
        found = found.difference(_inessential(start.edges, start.owner, t))
    return frozenset(index.names[i] for i in found)
