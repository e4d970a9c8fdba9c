"""Reading values as users type them: units, count shorthands, checks, and the errors."""

import pytest

import napkinmath as nm
from napkinmath.catalog.lookup import variable
from napkinmath.text.values import to_quantity


def q(name, value):
    return to_quantity(value, variable(name))


def test_strings_quantities_and_plain_numbers():
    assert q("peak_flops", "989 TFLOP/(s*GPU)").to("FLOP/(s*GPU)").magnitude == 989e12
    assert q("train_time", "3 weeks").to("s").magnitude == 3 * 7 * 86_400
    assert q("mfu", 0.4).magnitude == 0.4
    assert q("n_gpus", 64).to("GPU").magnitude == 64  # a plain number counts GPUs
    assert q("peak_flops", nm.Quantity(989, "TFLOP/s/GPU")).magnitude == 989


def test_count_shorthands():
    assert q("params", "7B").to("param").magnitude == 7e9
    assert q("tokens", "15T").to("token").magnitude == 15e12
    assert q("n_gpus", "16k").to("GPU").magnitude == 16_000
    assert q("params", "2.5M params").to("param").magnitude == 2.5e6
    assert q("margin", "15%").magnitude == pytest.approx(0.15)


def test_decimal_and_binary_prefixes_are_distinct():
    assert q("weight_memory", "80 GB").to("B").magnitude == 80e9
    assert q("weight_memory", "80 GiB").to("B").magnitude == 80 * 2**30
    assert q("hbm_bandwidth", "400 Gb/(s*GPU)").to("GB/(s*GPU)").magnitude == pytest.approx(50)


def test_a_shorthand_that_is_also_a_unit_shows_both_readings():
    with pytest.raises(nm.InputError) as err:
        q("weight_memory", "7B")
    message = str(err.value)
    assert "weight_memory" in message and "ambiguous" in message
    assert "7 B" in message and "7×10⁹" in message
    assert "7 GB" in message  # the fix


def test_wrong_dimension_names_the_variable_the_expected_unit_and_a_fix():
    with pytest.raises(nm.InputError) as err:
        q("peak_flops", "989 TFLOP/s")
    message = str(err.value)
    assert message.startswith("989 TFLOP/s for peak_flops: expected TFLOP/(s·GPU)")
    assert "did you mean 989 TFLOP/(s·GPU)?" in message
    assert err.value.variable == "peak_flops"


def test_flops_is_a_rate_and_flops_plural_a_count():
    with pytest.raises(nm.InputError) as err:
        q("peak_flops", "989 TFLOPS")  # vendors' rate: per second, but not per GPU
    assert "did you mean 989 TFLOP/(s·GPU)?" in str(err.value)
    with pytest.raises(nm.InputError) as err:
        q("peak_flops", "989 TFLOPs")  # plural of FLOP: a count, not a rate
    assert "got [compute]" in str(err.value) and "did you mean 989 TFLOP/(s·GPU)?" in str(err.value)
    assert q("peak_flops", "989 TFLOPS/GPU").magnitude == pytest.approx(989)


def test_bytes_where_parameters_belong_is_an_error():
    with pytest.raises(nm.InputError) as err:
        q("params", "140 GB")
    assert "params" in str(err.value) and "param" in str(err.value)


def test_a_number_without_a_unit_for_a_time():
    with pytest.raises(nm.InputError) as err:
        q("train_time", 21)
    assert "train_time" in str(err.value) and "did you mean '21 day'?" in str(err.value)


def test_bounds_are_checked_with_a_hint():
    with pytest.raises(nm.InputError) as err:
        q("mfu", 40)
    message = str(err.value)
    assert "mfu=40 is out of range" in message and "(0, 1]" in message and "0.4 for 40%" in message
    with pytest.raises(nm.InputError, match="n_gpus"):
        q("n_gpus", -8)


def test_unknown_units_and_garbage_are_refused_with_a_position():
    with pytest.raises(nm.InputError) as err:
        q("train_time", "3 fortnights")
    assert "unknown unit 'fortnights'" in str(err.value) and "^" in str(err.value)
    with pytest.raises(nm.InputError, match="a name cannot start with '_'"):
        q("train_time", "__import__('os')")
    with pytest.raises(nm.InputError, match="unexpected character"):
        q("train_time", "3 days; import os")


@pytest.mark.parametrize(
    "hostile",
    [
        "6^800000",
        "2**2**2**2**2",
        "(" * 500 + "1" + ")" * 500,
        "9" * 5000,
        "1e999999 s",
        "1" + "*1" * 2000,
    ],
)
def test_hostile_values_are_refused_quickly(hostile):
    with pytest.raises(nm.InputError):
        q("train_time", hostile)


def test_solve_rejects_unknown_names_with_suggestions():
    with pytest.raises(nm.UnknownNameError) as err:
        nm.solve("n_gpu", params="7B")
    assert "did you mean n_gpus" in str(err.value)
    with pytest.raises(nm.UnknownNameError) as err:
        nm.solve("n_gpus", param="7B", tokens="1T")
    assert "param" in str(err.value) and "params" in str(err.value)
    with pytest.raises(nm.UnknownNameError) as err:
        nm.solve("n_gpus", gpu="H100-SXN")
    assert "H100-SXM" in str(err.value)


def test_a_target_cannot_also_be_given():
    with pytest.raises(nm.InputError, match="both a target and a given"):
        nm.solve("mfu", mfu=0.4)


def test_a_quantity_from_another_pint_registry_is_accepted():
    import pint

    other = pint.UnitRegistry()
    value = q("train_time", other.Quantity(3, "week"))
    assert value.to("day").magnitude == pytest.approx(21)
    r = nm.solve("train_compute", params="7B", tokens=other.Quantity(1e12, "dimensionless"))
    assert r.value.to("FLOP").magnitude == pytest.approx(4.2e22)
