"""The planner's graph work made faster (`napkinmath.solving.planning_graph`) against plain
reference versions of it, on random knowns and formula sets: the same matching (pairs and
their order), the same under-determined unknowns (a formula set at a time, by bits), the
same trimmed graph, and every single input found at once as one at a time."""

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
        found = pg.decompose(knowns, names, relaxed)
        rows = index.rows[relaxed]
        edges = pg.incidence(found.known, names, rows)
        if not relaxed:  # the invertible formulas first: the rows are in that order already
            assert list(edges) == found.members
        assert list(found.matched.items()) == list(_reference_matching(edges).items())
        present = {v for f in edges for v in index.variables[f]}
        assert found.unknowns == present - found.known
        assert found.under == _reference_under(found.unknowns, found.matched, relaxed)


def test_matching_resumes_as_kuhn_would():
    for knowns, names in _questions(4, 60):
        edges = pg.incidence(pg.known(knowns).ids, names, pg.library_index().rows[False])
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


def _search_cases(seed: int, count: int) -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """Targets (one or two) and knowns (few to many) as a suggestion search gets them."""
    rng = random.Random(seed)
    variables = list(pg.library_index().names)
    found = []
    for _ in range(count):
        knowns = frozenset(rng.sample(variables, rng.choice((1, 3, 8, 30, 90))))
        targets = tuple(rng.sample([v for v in variables if v not in knowns], rng.choice((1, 2))))
        found.append((targets, knowns))
    return found


def test_single_inputs_found_at_once_are_those_possible_finds_one_by_one():
    # `possible_singles` by matching numbers against `possible`'s augmenting path per name
    decided = 0
    for targets, knowns in _search_cases(6, 60):
        start = pg.library_matching(knowns)
        singles = pg.possible_singles(start, targets)
        if singles is None:
            continue
        decided += 1
        for name in pg.library_index().names:
            if name not in knowns and name not in targets:
                assert pg.possible(start, targets, (name,)) == (name in singles), (targets, name)
    assert decided > 30
