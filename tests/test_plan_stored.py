"""Stored plans: 50 questions of the random property sweep (tests/test_properties.py) with
the plans and refusals the planner gave before it was made faster (blocks, checks, the
knowns used; or the error, its message and suggestions). A faster planner must give the
same, byte for byte. `tools/compare_plans.py` makes the same comparison over thousands of
questions; these are the coupled blocks, checks, pairs and refusals among them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath.errors import UnderDeterminedError
from napkinmath.solving import planner

CASES = json.loads((Path(__file__).parent / "test_plan_stored.json").read_text())


def _found(targets: tuple[str, ...], knowns: frozenset[str]) -> dict:
    try:
        found = planner.make_plan(targets, knowns)
    except UnderDeterminedError as exc:
        return {
            "error": {
                "error": type(exc).__name__,
                "message": str(exc),
                "suggestions": list(exc.suggestions),
            }
        }
    return {
        "plan": {
            "blocks": [
                [[f.name for f in b.formulas], [v.name for v in b.unknowns]] for b in found.blocks
            ],
            "checks": [f.name for f in found.checks],
            "used": sorted(found.used),
            "block_inputs": sorted(found.block_inputs),
        }
    }


def test_the_stored_cases_cover_what_they_should():
    plans = [c for c in CASES if "plan" in c]
    errors = [c["error"] for c in CASES if "error" in c]
    assert any(len(b[1]) > 1 for c in plans for b in c["plan"]["blocks"])  # coupled blocks
    assert any(c["plan"]["checks"] for c in plans)
    assert any(" and " in s for e in errors for s in e["suggestions"])  # pairs
    assert any(not e["suggestions"] for e in errors)
    assert any(e["error"] == "NotInvertibleError" for e in errors)


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c["targets"]))
def test_plans_and_refusals_are_as_stored(case):
    expected = {k: v for k, v in case.items() if k in ("plan", "error")}
    assert _found(tuple(case["targets"]), frozenset(case["knowns"])) == expected


def test_a_cold_planner_gives_the_same():
    # every cache emptied: the answers do not depend on what was asked before
    nm.clear_caches()
    for case in reversed(CASES):
        expected = {k: v for k, v in case.items() if k in ("plan", "error")}
        assert _found(tuple(case["targets"]), frozenset(case["knowns"])) == expected
