"""Quantities of other pint registries, and numbers beyond the float range (issue 8).

A Quantity of another registry is converted by dimension through one path shared by
`solve` and `check`; a unit that means something else in napkinmath (pint's default "b" is
the barn, napkinmath's the bit) is refused. Values that overflow, underflow or are NaN, given
or computed by `check`, are errors that name what went out of range, never a silent 0 or inf.
"""

import json
import math
from pathlib import Path

import pint
import pytest

import napkinmath as nm
from napkinmath.units import base_units

DEFAULT = pint.UnitRegistry()  # pint's own default registry, not napkinmath's
ALLREDUCE = {"message_bytes": "10 GB", "n_ranks": 8}


def _solve_error(**givens) -> nm.InputError:
    with pytest.raises(nm.InputError) as err:
        nm.solve("allreduce_time", **ALLREDUCE, **givens)
    return err.value


def _check_error(expr: str, **values) -> nm.InputError:
    with pytest.raises(nm.InputError) as err:
        nm.check(expr, **values)
    return err.value


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"JSON holds {constant}")

    return json.loads(text, parse_constant=refuse)


# --- what pint's default registry has ------------------------------------------------------
def test_pint_default_registry_reads_b_as_barn_and_has_bytes_and_bits():
    assert str(DEFAULT.Unit("b")) == "barn"
    assert DEFAULT.Quantity(1, "b").dimensionality == DEFAULT.Quantity(1, "m**2").dimensionality
    assert str(DEFAULT.Unit("B")) == "byte" and str(DEFAULT.Unit("bit")) == "bit"
    assert DEFAULT.Quantity(1, "B").to("bit").magnitude == 8
    assert str(DEFAULT.Unit("Gb")) == "gilbert"  # not the gigabit either
    assert {
        "[time]": "second",
        "[length]": "meter",
        "[mass]": "gram",
        "[information]": "bit",
    }.items() <= base_units().items()


# --- clashing units are refused, the same way by solve and check ----------------------------
def test_barn_is_refused_by_check_not_read_as_a_bit():
    error = _check_error("8 * y", y=DEFAULT.Quantity(1, "b"))
    message = str(error)
    assert error.variable == "y"
    assert "y:" in message and "'b'" in message and "barn" in message and "bit" in message
    assert "napkinmath.ureg" in message and "'1 b'" in message


def test_barn_rate_is_refused_by_solve_and_by_check_with_one_message():
    foreign = DEFAULT.Quantity(400, "b/s")
    from_solve = _solve_error(link_bandwidth=foreign)
    from_check = _check_error("link_bandwidth", link_bandwidth=foreign)
    assert from_solve.variable == from_check.variable == "link_bandwidth"
    assert str(from_solve) == str(from_check)
    assert "barn" in str(from_solve) and "'400 b/s'" in str(from_solve)
    # a name that is not a library variable goes through the same conversion
    assert str(_check_error("y", y=foreign)) == str(from_solve).replace("link_bandwidth", "y")


@pytest.mark.parametrize(
    "unit, there",
    [("Gb/s", "gilbert"), ("mb", "millibarn"), ("kb", "kilobarn"), ("Tb/s", "terabarn")],
)
def test_other_clashing_spellings_are_refused(unit, there):
    message = str(_check_error("y", y=DEFAULT.Quantity(2, unit)))
    assert there in message and "in napkinmath" in message


def test_units_without_a_counterpart_are_refused():
    for unit in ("ampere", "radian", "degC"):
        message = str(_check_error("y", y=DEFAULT.Quantity(2, unit)))
        assert "no counterpart in napkinmath" in message, unit
    # pint's count is napkinmath's count (a plain number): 2 count of GPUs is 2 GPU
    assert nm.check("y", y=DEFAULT.Quantity(2, "count")).value.magnitude == 2
    custom = pint.UnitRegistry(None)
    custom.define("widget = [widget]")
    message = str(_solve_error(link_bandwidth=custom.Quantity(3, "widget")))
    assert "link_bandwidth" in message and "widget" in message and "no counterpart" in message


def test_a_root_unit_that_napkinmath_spells_differently_is_refused():
    # a registry whose root of mass is the kilogram: converting by dimension alone would read
    # 1 kg as 1 g, so a root whose name napkinmath knows must mean the same
    custom = pint.UnitRegistry(None)
    custom.define("kilogram = [mass] = kg")
    custom.define("pound = 0.45359237 kilogram = lb")
    message = str(_check_error("y", y=custom.Quantity(1, "lb")))
    assert "kilogram" in message and "in napkinmath" in message


# --- foreign quantities that do fit convert by dimension -----------------------------------
def test_a_foreign_rate_converts_the_same_through_solve_and_check():
    native = nm.solve("allreduce_time", **ALLREDUCE, link_bandwidth="10 GB/s")
    foreign = nm.solve("allreduce_time", **ALLREDUCE, link_bandwidth=DEFAULT.Quantity(10, "GB/s"))
    assert foreign.value.to("s").magnitude == pytest.approx(native.value.to("s").magnitude)
    assert foreign.value.to("s").magnitude == pytest.approx(1.75)
    given = foreign.givens["link_bandwidth"].quantity
    assert given.to("GB/s").magnitude == pytest.approx(10)
    as_variable = nm.check("link_bandwidth", link_bandwidth=DEFAULT.Quantity(10, "GB/s"))
    as_name = nm.check("y", y=DEFAULT.Quantity(10, "GB/s"))
    for result in (as_variable, as_name):
        assert result.computed.to("GB/s").magnitude == pytest.approx(10)
    bits = nm.check("y", y=DEFAULT.Quantity(400, "gigabit/s"))  # pint's bit is the bit
    assert bits.computed.to("GB/s").magnitude == pytest.approx(50)


def test_foreign_times_and_lengths_convert():
    assert nm.check("y / (1 h)", y=DEFAULT.Quantity(3, "hour")).value.magnitude == pytest.approx(3)
    weeks = nm.solve(
        "n_gpus",
        params="7B",
        tokens="1T",
        train_time=DEFAULT.Quantity(3, "week"),
        mfu=0.4,
        gpu="H100-SXM",
    )
    text = nm.solve(
        "n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM"
    )
    assert weeks.value.magnitude == pytest.approx(text.value.magnitude)
    inch = nm.check("y", y=DEFAULT.Quantity(1, "inch")).computed  # no napkinmath name: by size
    assert inch.to("m").magnitude == pytest.approx(0.0254)
    assert nm.check("y", y=DEFAULT.Quantity(2, "kWh")).computed.to("Wh").magnitude == 2000


def test_a_second_registry_from_napkinmaths_own_units_file_converts():
    import napkinmath.units

    twin = pint.UnitRegistry(str(Path(napkinmath.units.__file__).with_name("units.txt")))
    value = nm.check("y", y=twin.Quantity(989, "TFLOP/(s*GPU)")).computed
    assert value.to("FLOP/(s*GPU)").magnitude == pytest.approx(989e12)


def test_quantities_of_napkinmaths_registry_are_unchanged():
    value = nm.Quantity(400, "Gb/s")
    assert nm.check("y", y=value).computed is value
    r = nm.solve("allreduce_time", **ALLREDUCE, link_bandwidth=value)
    assert r.givens["link_bandwidth"].quantity.to("GB/s").magnitude == pytest.approx(50)


# --- numbers beyond the float range in check's evaluation -----------------------------------
def test_an_underflowing_product_is_an_error_not_zero():
    with pytest.raises(nm.ParseError) as err:
        nm.check("1e-300 s * 1e-300")
    assert isinstance(err.value, nm.NapkinError)
    assert "1e-300 s * 1e-300 underflows" in str(err.value)


@pytest.mark.parametrize(
    "text, named",
    [
        ("1e-300 s / 1e300", "1e-300 s / 1e300 underflows"),
        ("(1e-200 s)^2", "(1e-200 s)^2 underflows"),
        ("1e-200^2", "1e-200^2 underflows"),
        ("exp(-800)", "exp(-800) underflows"),
        ("exp(-720)", "exp(-720) underflows"),  # subnormal, not yet 0
        ("1 s + 1e-300 ps", "1e-300 ps in s underflows"),
        ("0.0000000000000000000000000000000000001e-300 s", "underflows"),
        ("1e-300 ps", "too small to convert between units"),
        ("1e300 * 1e300", "1e300 * 1e300 overflows"),
        ("1e300 TFLOP", "too large"),
    ],
)
def test_values_beyond_the_float_range_are_named(text, named):
    with pytest.raises(nm.ParseError) as err:
        nm.check(text)
    assert named in str(err.value)


def test_real_zeros_stay_zero():
    assert nm.check("1e-300 s - 1e-300 s").computed.magnitude == 0
    assert nm.check("0 * 5 s").computed.magnitude == 0
    assert nm.check("1e-300 s * 1e-5").computed.to("s").magnitude == pytest.approx(1e-305)


def test_underflow_in_a_claim_is_an_error():
    with pytest.raises(nm.ParseError, match=r"claimed value.*underflows"):
        nm.check("1 s", expect="1e-300 s * 1e-300")


def test_cli_reports_an_underflow(napkin):
    status, out, err = napkin("check", "1e-300 s * 1e-300")
    assert status == 2 and out == ""
    assert "underflows" in err and "0.0" not in err


# --- given numbers and Quantities go through the same limits -------------------------------
def test_a_quantity_that_overflows_in_base_units_is_refused_by_solve():
    error = _solve_error(link_bandwidth=nm.Quantity(1e300, "EB/s"))
    assert error.variable == "link_bandwidth"
    assert "link_bandwidth" in str(error) and "too large" in str(error)
    foreign = _solve_error(link_bandwidth=DEFAULT.Quantity(1e300, "EB/s"))
    assert str(foreign) == str(error)


def test_a_quantity_that_underflows_in_the_variables_unit_is_refused():
    # 1e-300 b/s is a normal float in base units but 1.25e-310 (subnormal) in GB/s
    error = _solve_error(link_bandwidth=nm.Quantity(1e-300, "b/s"))
    assert error.variable == "link_bandwidth" and "in GB/s" in str(error)
    assert "too small" in str(error)


@pytest.mark.parametrize(
    "value",
    [
        math.inf,
        -math.inf,
        math.nan,
        1e-320,
        10**400,
        nm.Quantity(math.inf, "GB/s"),
        nm.Quantity(math.nan, "GB/s"),
        nm.Quantity(5e-324, "GB/s"),
        DEFAULT.Quantity(math.nan, "GB/s"),
    ],
)
def test_non_finite_givens_are_refused_by_solve_and_check(value):
    for error in (
        _solve_error(link_bandwidth=value),
        _check_error("link_bandwidth", link_bandwidth=value),
    ):
        assert error.variable == "link_bandwidth" and "link_bandwidth=" in str(error)
    error = _check_error("y * 2", y=value)
    assert error.variable == "y" and "y=" in str(error)


def test_a_non_finite_claim_is_refused():
    with pytest.raises(nm.InputError, match="claimed"):
        nm.check("1 s", expect=math.inf)


# --- JSON never holds NaN or Infinity ------------------------------------------------------
def test_check_json_has_no_non_finite_numbers():
    result = nm.check("2 GB / (900 GB/s)", expect="1 s")
    result.ratio = math.inf  # whatever a future path leaves behind
    data = _strict_json(result.to_json())
    assert data["ratio"] is None and data["relative_difference"] is None
    json.dumps(data, allow_nan=False)
    far = nm.check("1e-300 s", expect="1e300 s")  # a ratio beyond the float range
    assert _strict_json(far.to_json())["status"] == "disagree"


def test_claims_report_json_has_no_non_finite_numbers():
    report = nm.check_claims(
        [
            {"expression": "1e-300 s", "claimed": "1e300 s"},
            {"expression": "1e-300 s * 1e-300", "claimed": "0 s"},
            {"expression": "2 GB / (900 GB/s)", "claimed": "2.2 ms"},
        ]
    )
    assert [row.status for row in report.rows] == ["disagree", "unchecked", "agree"]
    assert "underflows" in report.rows[1].reason
    report.rows[2].result.ratio = math.nan
    data = _strict_json(report.to_json())
    assert data["rows"][2]["check"]["ratio"] is None


def test_cli_json_is_strict(napkin):
    status, out, _ = napkin("check", "1e-300 s", "--expect", "1e300 s", "--format", "json")
    assert status == 1
    assert _strict_json(out)["status"] == "disagree"
