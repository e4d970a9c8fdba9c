"""The planner's singularity test from the formulas' trees (`napkinmath.solving.singular`,
no sympy) against the same test done with sympy (`plan._decide_singular_sympy`: sympy's
exponent matrix, its Jacobian at its own random points, its joint solutions), over blocks
the shipped rearrangements record, and by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from napkinmath import deadline
from napkinmath.catalog.lookup import formulas
from napkinmath.solving import plan, singular

ROOT = Path(__file__).resolve().parent.parent
FACTS = ROOT / "engine" / "library" / "rearrangements" / "facts.json"


def _blocks() -> list[tuple[tuple[str, ...], tuple[str, ...], bool]]:
    keys = sorted(json.loads(FACTS.read_text(encoding="utf-8"))["singular"])
    found = []
    for key in keys[::6]:  # every sixth: about 200 blocks, quick and full tests alike
        fs, us, quick = key.split("\t")
        found.append((tuple(fs.split(",")), tuple(us.split(",")), quick == "1"))
    return found


def test_the_tree_test_decides_as_sympy_over_recorded_blocks():
    """Both deciders given the time a build gives sympy (`deadline.generous`): a question's
    bound cuts some of these off, and then falls back (napkinmath.deadline)."""
    blocks = _blocks()
    assert len(blocks) >= 150
    with deadline.generous(30):
        differ = [b for b in blocks if plan._decide_singular(*b) != plan._decide_singular_sympy(*b)]
    assert differ == []


def test_a_block_of_products_of_powers_by_hand():
    # the fleet equation and GPU-hours, solved for n_gpus and train_time: both read only
    # their product (T = C / (MFU · n · P), H = n · T), so the exponents are dependent
    fleet, hours = formulas()["fleet_equation"], formulas()["gpu_hours"]
    unknowns = ("n_gpus", "train_time")
    rows = [singular.log_linear(f.trees, unknowns) for f in (fleet, hours)]
    assert all(row is not None for row in rows)
    assert [[abs(x) for x in row] for row in rows] == [[1, 1], [1, 1]]  # type: ignore[union-attr]
    assert singular.exact_rank(rows) == 1  # type: ignore[arg-type]
    assert plan._decide_singular(("fleet_equation", "gpu_hours"), unknowns, True)


def test_exact_rank_and_rank():
    third = Fraction(1, 3)
    assert singular.exact_rank([[Fraction(1), third], [Fraction(3), Fraction(1)]]) == 1
    assert singular.exact_rank([[Fraction(1), Fraction(0)], [Fraction(0), third]]) == 2
    assert singular.rank([[1.0, 2.0], [2.0, 4.0 + 1e-12]]) == 1
    assert singular.rank([[1.0, 2.0], [2.0, 5.0]]) == 2


def test_a_jacobian_rank_by_hand():
    # x·y = a and x + y = b: rank 2 where x ≠ y; x·y = a and 2·x·y = b: rank 1 everywhere
    xy = (("s", "a"), ("*", (("s", "x"), ("s", "y"))))
    total = (("s", "b"), ("+", (("s", "x"), ("s", "y"))))
    twice = (("s", "b"), ("*", (("i", 2), ("s", "x"), ("s", "y"))))
    assert singular.jacobian_rank([xy, total], ("x", "y")) == 2
    assert singular.jacobian_rank([xy, twice], ("x", "y")) == 1


def test_a_quick_singularity_test_needs_no_sympy(tmp_path):
    """A block of products of powers and a block that is not: decided in a fresh process
    that never imports sympy (its library read from the cache)."""
    probe = (
        "import sys, napkinmath as nm\n"
        "from napkinmath.solving import plan\n"
        "nm.variables()\n"
        "assert 'sympy' not in sys.modules\n"
        "print(plan._decide_singular(('fleet_equation', 'gpu_hours'), "
        "('n_gpus', 'train_time'), True))\n"
        "print('sympy' in sys.modules)\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run(
        [sys.executable, "-c", "import napkinmath as nm; nm.variables()"],
        check=True,
        env=env,
        capture_output=True,
    )
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


@pytest.mark.parametrize("name", ["dp_comm_time", "optimizer_time"])
def test_a_block_with_a_max_or_min_keeps_sympys_test(name):
    from napkinmath.library.tree import calls

    assert any(True for side in formulas()[name].trees for _ in calls(side, ("Max", "Min")))
    block = (("optimizer_time", "dp_comm_time"), ("dp", "zero_stage"), True)
    # the tree test defers to sympy's for a block with max() or min(): the same decision
    # (since the optimizer step reads memory_efficiency and the links their placement, sympy
    # finds this block fixes dp and zero_stage: not singular)
    assert plan._decide_singular(*block) is plan._decide_singular_sympy(*block) is False
