"""The suggestion screen skips candidates that the library cannot determine the targets with
by structure (`planning_graph.possible`) before propagating them. That changes nothing only
if whatever propagation learns is structurally determined: single formulas with one unknown
left are, and so are the small blocks it accepts, because their Jacobian has full numeric
rank, hence a perfect matching. The rank is only taken on trust when a Jacobian entry cannot
be evaluated; these tests keep that from happening, and check the screen against the
unfiltered one."""

from __future__ import annotations

import json
import random
from pathlib import Path

import sympy

from napkinmath.solving import planning_graph, suggest


def test_every_block_formula_has_derivatives_that_evaluate():
    rng = random.Random(20261130)
    failed = []
    for f in suggest._index().formulas:
        if f.forward_only:
            continue
        for v in f.variables:
            derivative = sympy.diff(f.residual, v.symbol)
            point = {s: sympy.Float(rng.uniform(0.5, 2.0)) for s in derivative.free_symbols}
            try:
                complex(derivative.xreplace(point).evalf())
            except (TypeError, ValueError):
                failed.append((f.name, v.name))
    assert not failed


def test_propagation_never_passes_what_structure_rules_out():
    # the refusals stored in test_plan_stored.json, with every candidate their search screens
    cases = json.loads((Path(__file__).parent / "test_plan_stored.json").read_text())
    checked = 0
    for case in cases:
        if "error" not in case:
            continue
        missing, knowns = tuple(case["targets"]), frozenset(case["knowns"])
        start = planning_graph.library_matching(knowns)
        for name in sorted(suggest._distances(missing)):
            if name in knowns or name in missing:
                continue
            for shortcuts in (False, True):
                base = suggest._propagated(knowns, shortcuts)
                if suggest._propagates(missing, base, (name,), shortcuts):
                    assert planning_graph.possible(start, missing, (name,)), (missing, name)
                    checked += 1
    assert checked >= 20
