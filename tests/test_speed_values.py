"""The fast path for plain given values (issue 12) reads every text exactly as the full
parser does: the same Quantity (number, units, their order), the same note ("8k read as
8,000", "read as per GPU"), and it steps aside for anything the full path refuses."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import napkinmath as nm
from napkinmath.errors import InputError
from napkinmath.text import values
from napkinmath.text.expr import COUNT_SUFFIXES

#: variables of many dimensions: counts, sizes, rates per GPU, times, fractions, money
NAMES = (
    "params",
    "tokens",
    "train_time",
    "mfu",
    "peak_flops",
    "n_gpus",
    "hbm_bandwidth",
    "hbm_capacity",
    "seq_len",
    "global_batch",
    "price_per_gpu_hour",
    "hidden_size",
    "kv_bytes_per_token",
    "training_state_memory",
    "n_nodes",
    "tp",
)
UNITS = (
    "",
    "B",
    "GB",
    "GiB",
    "TB",
    "b",
    "Gb",
    "param",
    "params",
    "token",
    "tokens",
    "GPU",
    "GPUs",
    "node",
    "s",
    "h",
    "day",
    "days",
    "week",
    "weeks",
    "min",
    "ms",
    "year",
    "FLOP",
    "TFLOP",
    "PFLOP",
    "USD",
    "percent",
    "sequence",
    "W",
    "kW",
    "x",
    "max",
    "KB",
    "mb",
    "Gbps",
    "FLOPS",
    "TFLOPS",
    "foo",
    "degC",
    "GPU_hours",
)
NUMBERS = st.one_of(
    st.integers(0, 10**6).map(str),
    st.floats(0, 1e4, allow_nan=False).map(lambda x: f"{x:.4g}"),
    st.sampled_from(
        [
            "0",
            "0.0",
            "00",
            "0e5",
            "1e-400",
            "1e400",
            "1e300",
            "1e-200",
            ".5",
            "1.",
            "1_000",
            "1__0",
            "7.001",
            "989",
            "0.4",
            "8",
            "128",
            "2.5e3",
            "1" * 45,
            "0" * 35,
            "1e",
            "1.5.3",
        ]
    ),
)


@st.composite
def unit_texts(draw) -> str:
    """Unit names joined as people write them ("TFLOP/(s*GPU)", "GB / s", "m^2"), or not."""
    parts = [draw(st.sampled_from(UNITS))]
    for _ in range(draw(st.integers(0, 3))):
        op = draw(
            st.sampled_from(
                [
                    "/",
                    "*",
                    " ",
                    " / ",
                    "/(",
                    "^2",
                    "^-1",
                    "^40",
                    " x ",
                    "·",
                    "(",
                    ")",
                    " 2 ",
                    "-",
                    "+",
                    ".",
                ]
            )
        )
        parts += [op, draw(st.sampled_from(UNITS))]
    text = "".join(parts)
    if text.count("(") > text.count(")") and draw(st.booleans()):
        text += ")"
    return text


@st.composite
def value_texts(draw) -> str:
    number = draw(NUMBERS)
    suffix = draw(st.sampled_from(["", "", "", *COUNT_SUFFIXES]))
    percent = draw(st.sampled_from(["", "", "%", " %"]))
    space = draw(st.sampled_from(["", " ", " ", "  ", "\t"]))
    lead = draw(st.sampled_from(["", "", " ", "-", "$", "\r"]))
    tail = draw(st.sampled_from(["", "", " ", "\n"]))
    units = draw(unit_texts()) if draw(st.booleans()) else ""
    return f"{lead}{number}{suffix}{percent}{space}{units}{tail}"


def _full(text: str, var):
    try:
        return values._full_reading(text, var)
    except InputError as exc:
        return exc


def _same(fast: values.Reading, full: values.Reading) -> bool:
    q, r = fast.quantity, full.quantity
    return (
        type(q.magnitude) is type(r.magnitude)
        and q.magnitude == r.magnitude
        and list(q.units._units.items()) == list(r.units._units.items())
        and str(q) == str(r)
        and fast.note == full.note
    )


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=value_texts(), name=st.sampled_from(NAMES))
def test_the_fast_path_reads_every_text_as_the_full_parser(text, name):
    var = nm.variables()[name]
    fast = values._fast_reading(text, var)
    full = _full(text, var)
    if fast is not None:
        assert not isinstance(full, InputError), (text, name, fast, full)
        assert _same(fast, full), (text, name, fast, full)
    read = _full(text, var) if fast is None else fast
    try:
        assert values.read_given(text, var) == read or _same(values.read_given(text, var), read)
    except InputError as exc:
        assert isinstance(full, InputError) and str(exc) == str(full)


def _reads_as_the_full_path(value, name: str) -> None:
    """`to_quantity(value)` gives the Quantity the full path gives, or the same error."""
    var = nm.variables()[name]
    full = _strict(value, var)
    try:
        got = values.to_quantity(value, var)
    except InputError as exc:
        assert isinstance(full, InputError) and str(exc) == str(full), (value, name)
        return
    assert not isinstance(full, InputError), (value, name, got, full)
    assert _same(values.Reading(got), values.Reading(full)), (value, name, got, full)


def _strict(value, var):
    """`to_quantity` through the full parser only (it forgives no missing count)."""
    try:
        quantity, shown = values._raw_quantity(value, var)
        return values._checked(values._promote_count(quantity, var), var, shown)
    except InputError as exc:
        return exc


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=value_texts(), name=st.sampled_from(NAMES))
def test_to_quantity_reads_every_text_as_the_full_parser(text, name):
    """Range ends and swept values (`to_quantity`) take the fast path: the same Quantity, or
    the same error, as the full parser; a rate without its count is still refused."""
    _reads_as_the_full_path(text, name)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    number=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(10**400), max_value=10**400),
        st.sampled_from([0, 0.0, -0.0, 1, 8, 0.4, 1e-320, 5e-324, 1.7e308, 2**53 + 1]),
    ),
    name=st.sampled_from(NAMES),
)
def test_to_quantity_reads_every_number_as_the_full_path(number, name):
    """Swept values and plain numbers (`to_quantity`) take the fast path: the same Quantity
    (a float in the variable's unit) or the same error as the full path."""
    _reads_as_the_full_path(number, name)


def test_to_quantity_refuses_a_rate_without_its_count():
    with pytest.raises(InputError):
        values.to_quantity("989 TFLOP/s", nm.variables()["peak_flops"])
    assert values.to_quantity("989 TFLOP/(s*GPU)", nm.variables()["peak_flops"]).magnitude == 989


@pytest.mark.parametrize(
    ("text", "name", "note"),
    [
        ("7B", "params", ""),
        ("7.001B", "params", ""),
        ("1T", "tokens", ""),
        ("0.4", "mfu", ""),
        ("40%", "mfu", ""),
        ("3 weeks", "train_time", ""),
        ("989 TFLOP/(s*GPU)", "peak_flops", ""),
        ("989 TFLOP/s", "peak_flops", "989 TFLOP/s, read as per GPU"),
        ("80 GB", "hbm_capacity", "80 GB, read as per GPU"),
        ("8k", "seq_len", "8k read as 8,000; write 8Ki for 8,192"),
        ("16k", "n_gpus", "16k read as 16,000; write 16Ki for 16,384"),
        ("8Ki", "seq_len", ""),
        ("64", "n_gpus", ""),
        ("0", "master_bytes_per_param", ""),
        ("2.5 USD/(GPU*h)", "price_per_gpu_hour", ""),
        ("3.35 TB/s", "hbm_bandwidth", "3.35 TB/s, read as per GPU"),
        ("8192 token", "seq_len", "8192 token, read as per sequence"),
    ],
)
def test_the_common_forms_take_the_fast_path_with_the_same_reading(text, name, note):
    var = nm.variables()[name]
    fast = values._fast_reading(text, var)
    assert fast is not None, "a common form should not need the full parser"
    assert _same(fast, values._full_reading(text, var))
    assert fast.note == note


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("7B", "message_bytes"),
        ("70G", "hbm_capacity"),
        ("1.5", "hbm_capacity"),
        ("1.5 h", "params"),
        ("1e400", "params"),
        ("0e999", "params"),
        ("150%", "mfu"),
        ("3 weeks + 2 days", "train_time"),
        ("H100-SXM.peak_flops", "peak_flops"),
        ("-1 GB", "hbm_capacity"),
        ("5 KB", "hbm_capacity"),
        ("2 (GB)", "hbm_capacity"),
        ("40 percent", "mfu"),
        ("1e300 TB", "hbm_capacity"),
    ],
)
def test_the_fast_path_steps_aside_for_other_forms_and_errors(text, name):
    """Errors, ambiguities and forms with more than a number and units go the full way."""
    if name not in nm.variables():
        pytest.skip(f"no variable {name} in this library")
    assert values._fast_reading(text, nm.variables()[name]) is None


# --- Quantities of napkinmath's registry (the Python API's givens) -------------------------
QUANTITY_UNITS = (
    "B",
    "GB",
    "GiB",
    "TB",
    "Gb",
    "param",
    "token",
    "GPU",
    "s",
    "h",
    "day",
    "week",
    "ms",
    "FLOP",
    "TFLOP",
    "USD",
    "percent",
    "sequence",
    "W",
    "kW",
    "TFLOP/(s*GPU)",
    "TFLOP/s",
    "GB/s",
    "TB/(s*GPU)",
    "GB/GPU",
    "B/param",
    "token/sequence",
    "USD/(GPU*h)",
    "dimensionless",
    "GPU/node",
    "node",
    "B/token",
    "1/s",
)
MAGNITUDES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e6, 1e6),
    st.integers(-(10**400), 10**400),
    st.integers(0, 10**9),
    st.sampled_from([0, 0.0, -0.0, 1, 7e9, 1e-160, 1e160, 1e300, 5e-324, 2**1100]),
)


def _full_quantity(quantity, var):
    try:
        return values._full_reading(quantity, var)
    except InputError as exc:
        return exc


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(magnitude=MAGNITUDES, unit=st.sampled_from(QUANTITY_UNITS), name=st.sampled_from(NAMES))
def test_the_quantity_fast_path_reads_as_the_full_path(magnitude, unit, name):
    """The same Quantity (number, units, their order) and note, or it steps aside: errors,
    notes and other registries are the full path's."""
    var = nm.variables()[name]
    quantity = nm.Quantity(magnitude, unit)
    fast = values._fast_quantity(quantity, var)
    full = _full_quantity(quantity, var)
    if fast is not None:
        assert not isinstance(full, InputError), (quantity, name, fast, full)
        assert _same(fast, full), (quantity, name, fast, full)
    try:
        read = values.read_given(quantity, var)
    except InputError as exc:
        assert isinstance(full, InputError) and str(exc) == str(full)
    else:
        assert _same(read, full)


@pytest.mark.parametrize(
    ("magnitude", "unit", "name"),
    [
        (7e9, "param", "params"),
        (3, "week", "train_time"),
        (989.5, "TFLOP/(s*GPU)", "peak_flops"),
        (2.5, "USD/(GPU*h)", "price_per_gpu_hour"),
        (80, "GiB/GPU", "hbm_capacity"),
        (0.4, "dimensionless", "mfu"),
        (4, "dimensionless", "tp"),
    ],
)
def test_api_quantities_of_the_right_dimension_take_the_fast_path(magnitude, unit, name):
    var = nm.variables()[name]
    fast = values._fast_quantity(nm.Quantity(magnitude, unit), var)
    assert fast is not None, "a Quantity of the variable's dimension needs no full reading"
    assert _same(fast, values._full_reading(nm.Quantity(magnitude, unit), var))


@pytest.mark.parametrize(
    ("magnitude", "unit", "name"),
    [
        (989, "TFLOP/s", "peak_flops"),  # read as per GPU: the full path writes the note
        (40, "percent", "mfu"),
        (0.4, "GPU", "tp"),  # "40 percent" is 0.4; a plain tp has no GPU
        (-1, "GB/GPU", "hbm_capacity"),  # out of range: the full path's error
        (1e300, "TB/GPU", "hbm_capacity"),  # overflows in the variable's unit
        (float("nan"), "GPU", "n_gpus"),
        (10**400, "GPU", "n_gpus"),
    ],
)
def test_the_quantity_fast_path_steps_aside(magnitude, unit, name):
    var = nm.variables()[name]
    assert values._fast_quantity(nm.Quantity(magnitude, unit), var) is None


def test_a_quantity_of_another_registry_takes_the_full_path():
    import pint

    other = pint.UnitRegistry()
    var = nm.variables()["train_time"]
    assert values._fast_quantity(other.Quantity(3, "week"), var) is None
    assert values.read_given(other.Quantity(3, "week"), var).quantity == nm.Quantity(21, "day")


@settings(max_examples=500, deadline=None)
@given(
    magnitude=st.one_of(st.floats(allow_nan=False), st.integers(-(10**20), 10**20)),
    name=st.sampled_from(sorted(nm.variables())),
)
def test_new_quantity_builds_what_pints_constructor_builds(magnitude, name):
    """`units.new_quantity` (the answers' constructor, without pint's type checks) gives the
    object `Quantity(magnitude, unit)` gives: class, magnitude (its type too), units, text
    and conversions alike."""
    from napkinmath.units import Quantity, new_quantity

    unit = nm.variables()[name].unit
    built, constructed = new_quantity(magnitude, unit), Quantity(magnitude, unit)
    assert type(built) is type(constructed)
    assert vars(built) == vars(constructed)
    assert type(built.magnitude) is type(constructed.magnitude)
    assert str(built) == str(constructed)
    if math.isfinite(magnitude):
        assert built.to_base_units().magnitude == constructed.to_base_units().magnitude


def test_new_quantity_takes_the_direct_path_here_and_pints_for_anything_else():
    """On the pint installed the direct build is in use (where it would differ from pint's
    own, the module falls back to the constructor: correct, only slower, and said here as a
    skip); arrays, numpy numbers, bools (which pint refuses) and text units always go
    through pint's constructor."""
    import numpy as np
    import pint

    from napkinmath import units

    if units.new_quantity is not units._direct:
        pytest.skip(
            f"pint {pint.__version__} builds a Quantity with other state: new_quantity uses "
            "pint's constructor (the same answers, without the speed-up)"
        )
    gpu = units.Unit("GPU")
    for magnitude in (np.array([1.0, 2.0]), np.float64(3.0)):
        built, constructed = units.new_quantity(magnitude, gpu), units.Quantity(magnitude, gpu)
        assert type(built.magnitude) is type(constructed.magnitude)
        assert np.all(built.magnitude == constructed.magnitude) and built.units == gpu
    with pytest.raises(TypeError, match="Invalid magnitude"):
        units.new_quantity(True, gpu)
    text = units.new_quantity(2.0, "GPU/node")  # type: ignore[arg-type]
    assert text == units.Quantity(2.0, "GPU/node")
