"""The planner's graph work made faster (`napkinmath.solving.planning_graph`) against plain
reference versions of it, on random knowns and formula sets: the same matching (pairs and
their order), the same under-determined unknowns (a formula set at a time, by bits, and
carried over to an analysis that drops forward-only formulas), the same trimmed graph."""

from __future__ import annotations

import random

import pytest

from napkinmath.solving import planning_graph as pg


def _reference_matching(edges: dict[int, tuple[int, ...]]) -> dict[int, int]:
    """Kuhn as first written: formulas in `edges` order, unknowns in their order."""
    owner: dict[int, int] = {}

    def augment(f: int, seen: set[int]) -> bool:
        for v in edges[f]:
            if v in seen:
                continue
            seen.add(v)
            if v not in owner or augment(owner[v], seen):
                owner[v] = f
                return True
        return False

    for f in edges:
        augment(f, set())
    return {f: v for v, f in owner.items()}


def _reference_under(unknowns: set[int], matched: dict[int, int], relaxed: bool) -> set[int]:
    """Alternating paths from unmatched unknowns, one edge at a time."""
    takers = pg.library_index().takers[relaxed]
    stack = [v for v in unknowns if v not in set(matched.values())]
    under: set[int] = set()
    while stack:
        v = stack.pop()
        if v in under:
            continue
        under.add(v)
        for f in takers[v]:
            other = matched.get(f)
            if other is not None and other not in under:
                stack.append(other)
    return under


def _reference_trimmed(successors: dict[int, list[int]]) -> dict[int, list[int]]:
    """Remove nodes with no edge in or no edge out until none is left to remove."""
    live = set(successors)
    while True:
        entered = {t for n in live for t in successors[n] if t in live}
        keep = {n for n in live if n in entered and any(t in live for t in successors[n])}
        if keep == live:
            break
        live = keep
    if live == set(successors):
        return successors
    return {n: [t for t in ts if t in live] for n, ts in successors.items() if n in live}


def _questions(seed: int, count: int) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Random knowns (few to many) and formula sets (most of the library to a part)."""
    rng = random.Random(seed)
    index = pg.library_index()
    variables = list(index.names)
    formulas = [f.name for f in index.formulas]
    found = []
    for _ in range(count):
        knowns = frozenset(rng.sample(variables, rng.choice((2, 8, 30, 90))))
        names = frozenset(rng.sample(formulas, int(len(formulas) * rng.uniform(0.4, 1.0))))
        found.append((knowns, names))
    return found


@pytest.mark.parametrize("relaxed", [False, True])
def test_decompose_matches_the_reference(relaxed):
    index = pg.library_index()
    for knowns, names in _questions(1, 150):
        pg._last = None
        found = pg.decompose(knowns, names, relaxed)
        rows = index.rows[relaxed]
        edges = pg.incidence(found.known, names, rows)
        if not relaxed:  # the invertible formulas first: the rows are in that order already
            assert list(edges) == found.members
        assert list(found.matched.items()) == list(_reference_matching(edges).items())
        present = {v for f in edges for v in index.variables[f]}
        assert found.unknowns == present - found.known
        assert found.under == _reference_under(found.unknowns, found.matched, relaxed)


def test_dropping_forward_only_formulas_gives_what_a_fresh_decomposition_gives(monkeypatch):
    # the under-determined unknowns carried over from the last decomposition (`_reuses`)
    rng = random.Random(2)
    forward = sorted(pg.forward_only())
    carried = []
    reuses = pg._reuses
    monkeypatch.setattr(pg, "_reuses", lambda *a: carried.append(reuses(*a)) or carried[-1])
    for knowns, names in _questions(3, 150):
        for _ in range(3):
            dropped = set(rng.sample(forward, rng.randint(1, 4))) & names
            if not dropped:
                continue
            pg._last = None
            pg.decompose(knowns, names, False)
            after = pg.decompose(knowns, names - dropped, False)
            pg._last = None
            fresh = pg.decompose(knowns, names - dropped, False)
            assert after == fresh
            names -= dropped
    assert sum(found is not None for found in carried) > 100


def test_matching_resumes_as_kuhn_would():
    for knowns, names in _questions(4, 60):
        edges = pg.incidence(pg.known_ids(knowns), names, pg.library_index().rows[False])
        split = len(edges) // 2
        first = dict(list(edges.items())[:split])
        owner = pg._kuhn(first, edges, {})  # the first half, then resumed (as `decompose`)
        pg._kuhn(list(edges)[split:], edges, owner)
        assert list(zip(owner.values(), owner, strict=True)) == list(
            _reference_matching(edges).items()
        )


def test_trimmed_matches_the_reference():
    rng = random.Random(5)
    for _ in range(400):
        n = rng.randint(0, 30)
        successors = {
            i: rng.sample(range(n), rng.randint(0, min(n, 3)) if rng.random() < 0.4 else 0)
            for i in range(n)
        }
        successors = {i: [t for t in ts if t != i] for i, ts in successors.items()}
        assert pg.trimmed(successors) == _reference_trimmed(successors)
        assert list(pg.trimmed(successors)) == list(_reference_trimmed(successors))
