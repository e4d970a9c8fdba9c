"""The formula graph on integers, for the planner (`napkinmath.solving.plan`): the library
indexed once, the incidence of formulas with unknowns, a deterministic maximum matching
(Kuhn), the Dulmage-Mendelsohn under-determined part, strongly connected components, and an
incremental structural test for candidate inputs.

What makes an analysis fast without changing it: the incidence is computed once per set of
knowns and the formulas in matching order once per formula set; the under-determined part
is reached with formula sets as integers, and carried over to the analysis that follows
without some forward-only formulas (it is the same for every maximum matching).

A variable's id is its rank by name, so sorting ids sorts names: what the planner derives
from these is ordered as it was when it worked on names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import reduce
from itertools import chain, compress, filterfalse
from operator import getitem, or_
from typing import NamedTuple

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


@caches.memo(1, invalidated_by=caches.LIBRARY, fixed=True)
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


@caches.memo(256, invalidated_by=caches.LIBRARY)
def known_ids(knowns: frozenset[str]) -> frozenset[int]:
    """The ids of the knowns that formulas mention."""
    ids = library_index().ids
    return frozenset(ids[n] for n in knowns if n in ids)


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


def _kuhn(
    order: Iterable[int], edges: Edges, owner: dict[int, int], moved: set[int] | None = None
) -> dict[int, int]:
    """`matching` as unknown -> formula, the formulas `order` tried in turn: `owner`, extended
    in place. `edges[f]` are formula f's unknowns (a dict, or by id: see `library_incidence`).
    `moved`, if given, gets (at least) every unknown given a formula, a first or another.
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
            if moved is not None:
                moved.add(vs[0])
            if dead:
                dead = set()
        elif _augment(edges, owner, f, dead):
            if moved is not None:
                moved |= dead  # the path is among what the search visited
            dead = set()
    return owner


@caches.memo(256, invalidated_by=caches.LIBRARY)
def unknown_variables(knowns: frozenset[str]) -> tuple[tuple[int, ...], ...]:
    """Each formula's variables that are not known, as declared, by formula id (only the
    formulas that mention a known differ from `Index.variables`)."""
    index = library_index()
    known = known_ids(knowns)
    found = list(index.variables)
    for f in set().union(*map(index.takers[True].__getitem__, known)):  # those with a known
        found[f] = tuple(filterfalse(known.__contains__, found[f]))
    return tuple(found)


@caches.memo(256, invalidated_by=caches.LIBRARY)
def library_incidence(knowns: frozenset[str]) -> tuple[tuple[int, ...], ...]:
    """Each formula's unknowns that it may be matched to (see `incidence`, strict), by
    formula id: analyses with the same knowns and other formulas look them up."""
    index = library_index()
    known = known_ids(knowns)
    edges = list(unknown_variables(knowns))
    for f, _, _, output in index.rows[False][index.invertible :]:  # forward-only: the output
        assert output is not None  # a forward-only formula has one (`Formula.output`)
        edges[f] = () if output in known else (output,)
    return tuple(edges)


@dataclass(frozen=True, eq=False)
class Part:
    """Formulas in matching order and the variables they mention (ids, see `Index`)."""

    names: frozenset[str]
    formulas: tuple[int, ...]
    present: frozenset[int]


@caches.memo(512, invalidated_by=caches.LIBRARY)
def invertible_part(names: frozenset[str]) -> Part:
    """The formulas `names`, all invertible: `Part.names` is the key's own object, so that the
    caches keyed by it (`invertible_matching`) hash it once and compare it by identity."""
    index = library_index()
    found = tuple(i for i, name, _, _ in index.rows[False][: index.invertible] if name in names)
    return Part(names, found, frozenset().union(*map(index.variables.__getitem__, found)))


@caches.memo(1024, invalidated_by=caches.LIBRARY)
def invertible_and_forward(names: frozenset[str]) -> tuple[Part, Part]:
    """The invertible formulas of `names` and the forward-only ones (strict matching order),
    each with the variables it mentions: analyses with `names` share them whatever the
    knowns, and those without some forward-only formulas share the first."""
    index = library_index()
    forward = tuple(i for i, name, _, _ in index.rows[False][index.invertible :] if name in names)
    present = frozenset().union(*map(index.variables.__getitem__, forward))
    return invertible_part(names - forward_only()), Part(names, forward, present)


@caches.memo(256, invalidated_by=caches.LIBRARY)
def invertible_matching(
    knowns: frozenset[str], names: frozenset[str]
) -> tuple[dict[int, int], frozenset[int]]:
    """The matching (unknown -> formula) and the unknowns of the invertible formulas of
    `names`, which come first in the matching order: analyses that differ only in
    forward-only formulas (those dropped as stuck) resume from it. Not to be modified."""
    part = invertible_part(names)
    return (
        _kuhn(part.formulas, library_incidence(knowns), {}),
        part.present.difference(known_ids(knowns)),
    )


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
    the invertible formulas' matching is shared (`invertible_matching`); when the last strict
    decomposition had the same knowns and invertible formulas and more forward-only ones (an
    analysis that drops stuck rounding steps), its under-determined unknowns are carried over
    and only the alternating paths that this matching changes are followed (see `_reuses`)."""
    global _last
    index = library_index()
    known = known_ids(knowns)
    if relaxed:
        return _relaxed(known, names, index)
    # the invertible formulas first (shared), then the forward-only ones
    invertible, forward = invertible_and_forward(names)
    shared, invertible_unknowns = invertible_matching(knowns, invertible.names)
    edges = library_incidence(knowns)
    owner = dict(shared)
    moved: set[int] = set()  # the unknowns the forward-only formulas' matching moved
    _kuhn(forward.formulas, edges, owner, moved)
    matched = dict(zip(owner.values(), owner, strict=False))  # formula -> unknown
    unknowns = set(invertible_unknowns)
    unknowns.update(forward.present.difference(known))
    last = _last
    under: set[int] | None = None
    if last is not None and last.knowns == knowns and last.invertible is invertible:
        under = _reuses(last, forward, owner, matched, moved, unknowns, edges)
    if under is None:
        under = unknowns.difference(owner)  # unmatched, or no formula may take them
        under = _spread(under, under, matched, index.taker_masks[False], index.bytes)
    found = Decomposition(
        known, [*invertible.formulas, *forward.formulas], matched, unknowns, under
    )
    if caches.ENABLED:
        _last = _Last(knowns, invertible, forward, found, owner, moved)
    return found


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


class _Last(NamedTuple):
    """The last strict decomposition, its formulas, matching (unknown -> formula) and the
    unknowns its forward-only formulas moved (see `_kuhn`)."""

    knowns: frozenset[str]
    invertible: Part
    forward: Part
    found: Decomposition
    owner: dict[int, int]
    moved: set[int]


_last: _Last | None = None


def _forget_last() -> None:
    global _last
    _last = None


caches.state(
    f"{__name__}._last",
    key="the last strict decomposition's knowns and formulas (the same `Part` objects)",
    invalidated_by=caches.LIBRARY,
    clear=_forget_last,
    size=lambda: int(_last is not None),
)


def _reuses(
    before: _Last,
    forward: Part,
    owner: dict[int, int],
    matched: dict[int, int],
    moved: set[int],
    unknowns: set[int],
    edges: Edges,
) -> set[int] | None:
    """The under-determined unknowns of a decomposition with the same knowns and invertible
    formulas as `before`, and fewer forward-only ones (`forward`), from those of `before`;
    None unless it has fewer. `owner` and `matched` are its matching (unknown -> formula and
    formula -> unknown), `moved` the
    unknowns its forward-only formulas moved, `edges` its incidence.

    Alternating paths from unmatched unknowns reach the same unknowns from every maximum
    matching (those that some maximum matching leaves unmatched). With fewer formulas, each
    unknown under-determined before still is, where present: a maximum matching that leaves
    it unmatched, less the formulas dropped, is one, or one with as many pairs avoids them
    and leaves it unmatched too. And they are closed under the alternating steps through
    the formulas that kept their unknown (the matchings differ only where the forward-only
    formulas of either moved one). So the paths to follow start from the unknowns now
    unmatched and those held anew by a formula that an under-determined one may take.
    Held equal to a fresh decomposition by tests/test_planning_graph_fast.py::
    test_dropping_forward_only_formulas_gives_what_a_fresh_decomposition_gives."""
    if not set(forward.formulas) < set(before.forward.formulas):
        return None
    under = set(before.found.under)
    # less those no formula mentions now: only the dropped ones did
    under.difference_update(before.forward.present.difference(forward.present, unknowns))
    had = before.owner
    start = []
    for v in moved | before.moved:
        f = owner.get(v)
        if (
            f != had.get(v)
            and v not in under
            and v in unknowns
            and (f is None or any(u in under for u in edges[f]))
        ):
            start.append(v)
    under.update(start)
    # then the few the new starts reach, one at a time
    takers = library_index().takers[False]
    while start:
        for f in takers[start.pop()]:
            w = matched.get(f)
            if w is not None and w not in under:
                under.add(w)
                start.append(w)
    return under


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


@caches.memo(16, invalidated_by=caches.LIBRARY)
def library_matching(knowns: frozenset[str]) -> tuple[dict[int, tuple[int, ...]], dict[int, int]]:
    """The incidence of every formula with the unknowns (see `incidence`) and a maximum
    matching of it, unknown -> formula: the start of `possible` (do not modify them)."""
    unknowns = library_incidence(knowns)
    edges = {i: unknowns[i] for i, _, _, _ in library_index().rows[False]}
    return edges, _kuhn(edges, edges, {})


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


@caches.memo(64, invalidated_by=caches.LIBRARY)
def under_parts(knowns: frozenset[str]) -> dict[int, int]:
    """The unknowns the whole library leaves structurally under-determined with `knowns`
    (`_inessential`), each with the smallest id of its connected part: unknowns joined
    through a formula that may take both.

    What `possible` needs of it: making a variable outside a target's part known leaves that
    target under-determined (the matching changes only inside the new known's part, and no
    unknown becomes under-determined that was not), so extra knowns can only determine the
    targets when they meet the part of each under-determined target (`may_meet`)."""
    edges, owner = library_matching(knowns)
    takers = library_index().takers[False]
    under = _inessential(edges, owner)
    part: dict[int, int] = {}
    for start in sorted(under):
        if start in part:
            continue
        part[start] = start
        stack = [start]
        while stack:  # through each formula that may take an under-determined unknown
            for f in takers[stack.pop()]:
                for w in edges[f]:
                    if w in under and w not in part:
                        part[w] = start
                        stack.append(w)
    return part


def may_meet(targets: tuple[str, ...], knowns: frozenset[str], extra: tuple[str, ...]) -> bool:
    """False when `possible(targets, knowns, extra)` is surely False: some target is
    structurally under-determined and no name of `extra` lies in its part (`under_parts`)."""
    part = under_parts(knowns)
    ids = library_index().ids
    met = {part[i] for i in (ids.get(n) for n in extra if n not in knowns) if i in part}
    for t in targets:
        label = part.get(ids.get(t, -1)) if t not in extra else None
        if label is not None and label not in met:
            return False
    return True


def possible_singles(targets: tuple[str, ...], knowns: frozenset[str]) -> frozenset[str] | None:
    """The names x (neither a known nor a target) for which `possible(targets, knowns, (x,))`
    holds, all at once; None when no target is under-determined (then ask `possible`).

    By matching numbers (nu, the size of a maximum matching of the incidence): a target t is
    under-determined when some maximum matching leaves it unmatched (removing it keeps nu).
    Knowing an under-determined x keeps nu too, and t becomes determined exactly when then
    removing t loses a pair: when every maximum matching of the incidence without t matches
    x, that is x is not in `_inessential` without t. Knowing a determined x leaves t
    under-determined (with x gone, removing t loses nothing more), and a target already
    determined stays so when an under-determined x is known. So: the under-determined
    unknowns outside the `_inessential` set of each under-determined target removed."""
    edges, owner = library_matching(knowns)
    index = library_index()
    under = set(under_parts(knowns))
    asked = [t for t in targets if t not in knowns]
    wanted = [index.ids[t] for t in asked if t in index.ids]
    if len(wanted) < len(asked):
        return frozenset()  # a target no formula mentions is never determined
    open_targets = [t for t in wanted if t in under]
    if not open_targets:
        return None
    found = under.difference(wanted)
    for t in open_targets:
        found.difference_update(_inessential(edges, owner, t))
    return frozenset(index.names[i] for i in found)
