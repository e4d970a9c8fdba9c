"""Every formula of the library is dimensionally consistent, and a bad one is reported by name."""

import pytest
import sympy

from napkinmath.catalog.lookup import (
    check_constraint_dimensions,
    check_dimensions,
    constraints,
    formulas,
    variables,
)
from napkinmath.library.declare import Formula

ALL = sorted(formulas())


@pytest.mark.parametrize("name", ALL)
def test_formula_is_dimensionally_consistent(name):
    problem = check_dimensions(formulas()[name])
    assert problem is None, problem


def test_every_formula_has_a_source_title_and_subject():
    for f in formulas().values():
        assert f.source and f.title and f.subject, f.name


def test_every_variable_is_used_or_is_a_record_key():
    # a variable only a feasibility constraint reads (torus_dims) is used too
    used = {v.name for f in [*formulas().values(), *constraints().values()] for v in f.variables}
    # achievable_nvlink_bandwidth: read from the record into nvlink_collective_efficiency
    # (napkinmath.solving.achievable.STEP_RATES), as achievable_flops into compute_efficiency
    record_only = {
        "peak_flops_fp8",
        "peak_flops_int8",
        "tdp",
        "vocab_size",
        "hidden_size",
        "achievable_nvlink_bandwidth",
    }
    unused = set(variables()) - used - record_only
    assert not unused, f"declared but in no formula: {sorted(unused)}"


def test_a_bad_formula_is_reported_by_name_with_both_dimensions():
    v = variables()
    bad = Formula(
        "bad_fleet",
        "Fleet equation with a slip",
        sympy.Eq(
            v["train_time"].symbol,
            v["train_compute"].symbol / (v["n_gpus"].symbol * v["mfu"].symbol),
        ),
        source="test",
        subject="test",
    )
    message = check_dimensions(bad)
    assert "bad_fleet" in message
    assert "[time]" in message or "time" in message
    assert "compute/accelerator" in message


def test_adding_a_time_to_bytes_is_reported():
    v = variables()
    bad = Formula(
        "bad_sum",
        "Sum",
        sympy.Eq(v["weight_memory"].symbol, v["train_time"].symbol + v["params_total"].symbol),
        source="test",
        subject="test",
    )
    message = check_dimensions(bad)
    assert "bad_sum" in message and "cannot add" in message


@pytest.mark.parametrize("name", sorted(constraints()))
def test_every_constraint_compares_like_with_like(name):
    assert check_constraint_dimensions(constraints()[name]) is None


def test_a_constraint_of_mismatched_sides_is_reported_by_name():
    from napkinmath.library.declare import Constraint

    v = variables()
    bad = Constraint(
        "bad_fit",
        "Bad fit",
        v["weight_memory"].symbol,
        v["hbm_capacity"].symbol,
        False,
        "none",
        "memory",
        "never",
        (v["weight_memory"], v["hbm_capacity"]),
    )
    message = check_constraint_dimensions(bad)
    assert message == (
        "constraint 'bad_fit': left side weight_memory is [information] but "
        "right side hbm_capacity is [information/accelerator]"
    )
