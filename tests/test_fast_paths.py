"""Fast paths held equal to their plain twins, for the two that had no test of their own.

Each fast path's docstring names the test that holds it equal to the plain path:

- given values (`text.values._fast_reading`, `_fast_number`, `_fast_quantity`; plain:
  `_full_reading`):
  tests/test_speed_values.py;
- the planner's graph work (`planning_graph._kuhn` resumed, `trimmed`; plain: the reference
  versions there) and the suggestion search's structural test (`possible_singles`, all
  single inputs at once; plain: `possible`, one input at a time):
  tests/test_planning_graph_fast.py;
- a suggestion's blocks found from what changed (`suggest._new_block`; plain: `_block`) and
  the direct inversions of products of powers and of linear formulas (`invert.
  _invert_monomial`, `_invert_linear`; plain: `sympy.solve`): here.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import sympy

from napkinmath.catalog.lookup import formulas
from napkinmath.solving import invert, suggest


def test_the_incremental_block_search_finds_the_blocks_of_the_full_search(monkeypatch):
    # every block search of the refusals' suggestion screens in test_plan_stored.json, made
    # both ways on the same state
    cases = json.loads((Path(__file__).parent / "test_plan_stored.json").read_text())
    incremental, compared = suggest._new_block, []

    def both(index, known, fresh, left, base):
        found = incremental(index, known, fresh, left, base)
        assert found == suggest._block(index, known, set(fresh), list(left))
        compared.append(bool(found))
        return found

    monkeypatch.setattr(suggest, "_new_block", both)
    for case in cases:
        if "error" not in case:
            continue
        missing, knowns = tuple(case["targets"]), frozenset(case["knowns"])
        base = suggest._propagated(knowns)
        for name in sorted(suggest._distances(missing)):
            if name not in knowns and name not in missing:
                suggest._propagates(missing, base, (name,))
    assert len(compared) >= 100 and any(compared)


def test_the_direct_inversions_give_sympys_roots():
    # every formula and unknown that `invert._solutions` inverts directly: the root is one
    # of sympy.solve's, compared at a random point
    rng = random.Random(22)
    checked = {"monomial": 0, "linear": 0}
    for f in formulas().values():
        if f.forward_only or f.residual.atoms(sympy.Max, sympy.Min):
            continue  # forward-only: never inverted; max/min: solved piece by piece
        for v in f.variables:
            unknown = v.symbol
            direct = invert._invert_monomial(f.equation, unknown)
            kind = "monomial"
            if direct is None:
                direct, kind = invert._invert_linear(f.residual, unknown), "linear"
            if direct is None:
                continue
            point = {s: sympy.Float(rng.uniform(0.5, 2.0)) for s in f.residual.free_symbols}
            value = complex(direct.xreplace(point).evalf())
            # sympy's roots over the reals (the symbol's positivity would drop a root of 0,
            # which a non-negative variable admits: ep_comm_time = 0)
            real = sympy.Symbol("unknown", real=True)
            residual = f.residual.xreplace({unknown: real})
            roots = [complex(r.xreplace(point).evalf()) for r in sympy.solve(residual, real)]
            assert any(abs(value - r) <= 1e-9 * max(1.0, abs(r)) for r in roots), (f.name, v.name)
            checked[kind] += 1
    assert checked["monomial"] >= 100 and checked["linear"] >= 5, checked
