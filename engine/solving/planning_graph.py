"""The formula graph on integers, for the planner (`napkinmath.solving.plan`): the library
indexed once, the incidence of formulas with unknowns, a deterministic maximum matching
(Kuhn), the Dulmage-Mendelsohn under-determined part, strongly connected components, and an
incremental structural test for candidate inputs.

A variable's id is its rank by name, so sorting ids sorts names: what the planner derives
from these is ordered as it was when it worked on names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import filterfalse, islice

from napkinmath.library.declare import Formula
from napkinmath.library.lookup import formulas, variables

Row = tuple[int, str, tuple[int, ...], int | None]


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


@lru_cache(maxsize=1)
def library_index() -> Index:
    library = tuple(formulas().values())
    names = tuple(sorted(set(variables()) | {v.name for f in library for v in f.variables}))
    ids = {n: i for i, n in enumerate(names)}
    # the matching order: invertible formulas first, then forward-only ones (which may only
    # compute their output, unless relaxed), each group by name
    orders = [sorted(range(len(library)), key=lambda i: (library[i].forward_only
                                                         and not relaxed, library[i].name))
              for relaxed in (False, True)]
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
    rows = tuple(tuple((i, library[i].name, of[i], None if relaxed else output[i])
                       for i in order) for relaxed, order in enumerate(orders))
    return Index(names, ids, library, of, output, (takers[0], takers[1]), (rows[0], rows[1]),
                  sum(not f.forward_only for f in library))


@lru_cache(maxsize=256)
def known_ids(knowns: frozenset[str]) -> frozenset[int]:
    """The ids of the knowns that formulas mention."""
    ids = library_index().ids
    return frozenset(ids[n] for n in knowns if n in ids)


def incidence(known: frozenset[int], names: frozenset[str] | None, rows: Iterable[Row]
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


def _augment(edges: dict[int, tuple[int, ...]], owner: dict[int, int], f: int, seen: set[int],
             blocked: set[int]) -> bool:
    """An augmenting path from formula `f` (Kuhn): unknowns in `edges` order, none of `seen`
    or `blocked`; `owner` (unknown -> formula) is updated along the path found."""
    for v in edges[f]:
        if v in seen or v in blocked:
            continue
        seen.add(v)
        if v not in owner or _augment(edges, owner, owner[v], seen, blocked):
            owner[v] = f
            return True
    return False


def matching(edges: dict[int, tuple[int, ...]], owner: dict[int, int] | None = None,
              start: int = 0) -> dict[int, int]:
    """A maximum matching formula -> unknown by augmenting paths (Kuhn), deterministic by
    construction: formulas are tried in the order of `edges`, unknowns in name order. An
    augmenting path re-routes earlier formulas but never unmatches them, so an invertible
    formula keeps an unknown rather than yielding it to a forward-only one.

    To resume a matching, `owner` (unknown -> formula, in the order they were first
    matched) holds it for the first `start` formulas of `edges`; it is updated in place."""
    if owner is None:
        owner = {}
    # Unknowns a failed search visited: no augmenting path leaves them until the matching
    # changes, so later searches skip them (the same matching, found faster).
    dead: set[int] = set()
    for f, vs in islice(edges.items(), start, None):
        if not vs:
            continue
        if vs[0] not in owner:
            owner[vs[0]] = f  # what augment would choose, without the search
            dead.clear()
            continue
        seen: set[int] = set()
        if _augment(edges, owner, f, seen, dead):
            dead.clear()
        else:
            dead |= seen
    return {f: v for v, f in owner.items()}


@lru_cache(maxsize=256)
def invertible_matching(knowns: frozenset[str], names: frozenset[str]
                         ) -> tuple[dict[int, tuple[int, ...]], dict[int, int]]:
    """The incidence and matching (unknown -> formula) of the invertible formulas of
    `names`, which come first in the matching order: analyses that differ only in
    forward-only formulas (those dropped as stuck) resume from it. Not to be modified."""
    index = library_index()
    known = known_ids(knowns)
    edges = incidence(known, names, index.rows[False][:index.invertible])
    return edges, {v: f for f, v in matching(edges).items()}


@lru_cache(maxsize=1)
def forward_only() -> frozenset[str]:
    return frozenset(n for n, f in formulas().items() if f.forward_only)


def cycles(successors: dict[str, list[str]]) -> list[set[str]]:
    """The strongly connected components with more than one member (Tarjan, iterative),
    after trimming the nodes that no edge enters or none leaves (they lie on no cycle)."""
    successors = trimmed(successors)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
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


def trimmed(successors: dict[str, list[str]]) -> dict[str, list[str]]:
    """The graph without the nodes that lie on no cycle (repeatedly: no edge in or out)."""
    inward: dict[str, int] = dict.fromkeys(successors, 0)
    for targets in successors.values():
        for t in targets:
            inward[t] += 1
    outward = {n: len(ts) for n, ts in successors.items()}
    predecessors: dict[str, list[str]] = {}
    for n, ts in successors.items():
        for t in ts:
            predecessors.setdefault(t, []).append(n)
    gone: set[str] = set()
    stack = [n for n in successors if not inward[n] or not outward[n]]
    while stack:
        n = stack.pop()
        if n in gone:
            continue
        gone.add(n)
        for t in successors[n]:
            inward[t] -= 1
            if not inward[t] and t not in gone:
                stack.append(t)
        for p in predecessors.get(n, ()):
            outward[p] -= 1
            if not outward[p] and p not in gone:
                stack.append(p)
    if not gone:
        return successors
    return {n: [t for t in ts if t not in gone] for n, ts in successors.items() if n not in gone}


@dataclass(frozen=True)
class Decomposition:
    """A maximum matching and the under-determined part it shows (ids, see `Index`)."""

    known: frozenset[int]
    members: list[int]  # the formulas, in matching order
    matched: dict[int, int]  # formula -> unknown
    unknowns: list[int]  # by name
    under: set[int]


def decompose(knowns: frozenset[str], names: frozenset[str], relaxed: bool) -> Decomposition:
    """Match the formulas `names` with the unknowns; Dulmage-Mendelsohn: alternating paths
    from unmatched unknowns reach the under-determined ones."""
    index = library_index()
    fvars = index.variables
    known = known_ids(knowns)
    if relaxed:
        edges = incidence(known, names, index.rows[True])
        matched = matching(edges)  # formula -> unknown
    else:  # the invertible formulas first (shared), then the forward-only ones
        first, owner = invertible_matching(knowns, names - forward_only())
        edges = {**first, **incidence(known, names, index.rows[False][index.invertible:])}
        matched = matching(edges, dict(owner), len(first))
    members = list(edges)
    present: set[int] = set()
    for i in members:
        present.update(fvars[i])
    unknowns = present - known
    # an unknown's formulas (those of the library that may take it; only members are matched)
    takers = index.takers[relaxed]
    taken = set(matched.values())
    under: set[int] = set()
    stack = [v for v in unknowns if v not in taken]  # unmatched, or no formula may take it
    while stack:
        v = stack.pop()
        if v in under:
            continue
        under.add(v)
        for f in takers[v]:
            other = matched.get(f)
            if other is not None and other not in under:
                stack.append(other)
    return Decomposition(known, members, matched, unknowns, under)


@lru_cache(maxsize=16)
def library_matching(knowns: frozenset[str]) -> tuple[dict[int, tuple[int, ...]],
                                                       dict[int, int]]:
    """The incidence of every formula with the unknowns (see `incidence`) and a maximum
    matching of it, unknown -> formula: the start of `possible` (do not modify them)."""
    index = library_index()
    known = known_ids(knowns)
    edges = incidence(known, None, index.rows[False])
    return edges, {v: f for f, v in matching(edges).items()}


def possible(targets: tuple[str, ...], knowns: frozenset[str], extra: tuple[str, ...]) -> bool:
    """Whether `knowns` and `extra` may determine the targets: whether the whole library
    determines them by structure (see `plan._structurally_determined`), which every plan
    needs.

    Incremental: the maximum matching with `knowns` loses the edges of each extra known, and
    one augmenting path from the formula that held it restores a maximum; a target is then
    structurally determined unless an alternating path from an unmatched unknown reaches it.
    """
    edges, owner = library_matching(knowns)
    ids = library_index().ids
    gone = {ids[n] for n in extra if n in ids and n not in knowns}
    owner = dict(owner)
    for v in sorted(gone):
        f = owner.pop(v, None)
        if f is not None:
            _augment(edges, owner, f, set(), gone)
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
