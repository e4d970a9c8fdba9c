"""Every wrong type or value given to the Python API is an InputError that names the argument
(issue 9, item 7): huge ints and Fractions, Quantities of arrays, complex or huge numbers,
non-finite values, non-name targets, non-text records, wrong option types. Ranges (tuples) and
lists stay valid where the what-if layer takes them.
"""

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pint
import pytest

import napkinmath as nm

W12 = dict(params="7B", tokens="1T", train_time="3 weeks", gpu="H100-SXM")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (10**400, "too large for a float"),
        (Fraction(10**400, 3), "too large for a float"),
        (Decimal("0.4"), "cannot use a Decimal"),
        (nm.Quantity(np.array([0.4, 0.5])), "one real number"),
        (nm.Quantity(0.4 + 1j), "one real number"),
        (nm.Quantity(10**400), "too large for a float"),
        (nm.Quantity(float("nan")), "NaN"),
        (float("inf"), "too large"),
        (0.4 + 0j, "cannot use a complex"),
        (b"0.4", "cannot use a bytes"),
        (np.array([0.4]), "cannot use a ndarray"),
        ({"a": 1}, "cannot use a dict"),
        ([0.4, 0.5], "nm.sweep"),
        (None, "expected a number"),
        (True, "expected a number"),
    ],
)
def test_a_bad_value_names_the_variable(value, words):
    with pytest.raises(nm.InputError) as info:
        nm.solve("n_gpus", mfu=value, **W12)
    assert words in str(info.value) and info.value.variable == "mfu"


def test_good_number_types_are_taken():
    expected = nm.solve("n_gpus", mfu=0.4, **W12).value.magnitude
    for value in (Fraction(2, 5), np.float64(0.4), nm.Quantity(0.4), "40%"):
        assert nm.solve("n_gpus", mfu=value, **W12).value.magnitude == pytest.approx(expected)


def test_a_quantity_of_another_registry_converts_by_dimension():
    other = pint.UnitRegistry()
    days = nm.solve(
        "n_gpus",
        params="7B",
        tokens="1T",
        train_time=other.Quantity(21, "day"),
        mfu=0.4,
        gpu="H100-SXM",
    )
    assert days.value.magnitude == pytest.approx(nm.solve("n_gpus", mfu=0.4, **W12).value.magnitude)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: nm.solve(1), "targets"),
        (lambda: nm.solve(None), "targets"),
        (lambda: nm.solve(["n_gpus", 3], mfu=0.4, **W12), None),
        (
            lambda: nm.solve(
                "n_gpus", mfu=0.4, params="7B", tokens="1T", train_time="3 weeks", gpu=5
            ),
            "gpu",
        ),
        (lambda: nm.solve("n_gpus", mfu=0.4, model=3.5, **W12), "model"),
        (
            lambda: nm.solve(
                "n_gpus",
                mfu=0.4,
                params="7B",
                tokens="1T",
                train_time="3 weeks",
                gpu=["H100", "MI300X"],
            ),
            "gpu",
        ),  # two accelerators: nm.compare ranks them
        (
            lambda: nm.solve(
                "n_gpus", mfu=0.4, params="7B", tokens="1T", train_time="3 weeks", gpu=["H100", 5]
            ),
            "gpu",
        ),
        (lambda: nm.solve("n_gpus", mfu=0.4, tolerance=10**400, **W12), "tolerance"),
        (lambda: nm.solve("n_gpus", mfu=0.4, tolerance=math.nan, **W12), "tolerance"),
        (lambda: nm.solve("n_gpus", mfu=0.4, on_inconsistent="ignore", **W12), "on_inconsistent"),
        (lambda: nm.solve("n_gpus", mfu=(0.3, 0.5), samples=10**30, **W12), "samples"),
        (lambda: nm.solve("n_gpus", mfu=(0.3, 0.5), samples=100, seed=-1, **W12), "seed"),
        (lambda: nm.solve("n_gpus", mfu=(Fraction(1, 3), 10**400), **W12), "mfu"),
        (lambda: nm.sweep("n_gpus", over=5, mfu=0.4, **W12), "over"),
        (lambda: nm.sweep("n_gpus", over={"mfu": [0.4]}, points="9", **W12), "points"),
        (lambda: nm.sweep("n_gpus", over={"mfu": [10**400]}, **W12), "mfu"),
        (
            lambda: nm.compare(
                "n_gpus", gpu=[5, None], params="7B", tokens="1T", train_time="3 weeks", mfu=0.4
            ),
            "gpu",
        ),
        (
            lambda: nm.compare(
                "n_gpus",
                gpu="H100-SXM,MI300X",
                best=3,
                params="7B",
                tokens="1T",
                train_time="3 weeks",
                mfu=0.4,
            ),
            "best",
        ),
        (
            lambda: nm.compare(
                "n_gpus",
                gpu="H100-SXM,MI300X",
                tolerance=-1,
                params="7B",
                tokens="1T",
                train_time="3 weeks",
                mfu=0.4,
            ),
            "tolerance",
        ),
    ],
)
def test_wrong_argument_types_are_input_errors_naming_the_argument(call, argument):
    with pytest.raises(nm.InputError) as info:
        call()
    if argument is not None:
        assert info.value.variable == argument, str(info.value)


def test_sensitivity_options_are_checked():
    r = nm.solve("n_gpus", mfu=0.4, **W12)
    with pytest.raises(nm.InputError):
        r.sensitivity(relative=2)
    with pytest.raises(nm.InputError):
        r.sensitivity(target="train_time")
