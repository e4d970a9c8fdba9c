"""Ranges and distributions as givens: W2's swing, W3 backward with a range, exact ranges over
the whole chain (checked against brute-force grids of ordinary solves), an interior extreme,
Monte Carlo with seeds, and the errors a user meets.

Expectations are hand arithmetic written beside each call (1 day = 86,400 s; H100-SXM record
peak 989.5 TFLOP/s dense BF16, half of the datasheet's 1,979 sparse).
"""

import itertools
import json
import math

import numpy as np
import pytest
from helpers import mag

import napkinmath as nm

DAY = 86_400.0
H100 = 989.5e12  # the H100-SXM record, FLOP/(s*GPU)
C_LLAMA = 6.35e24  # W2/W3 training compute, FLOP


# --- W2: the swing in one command -------------------------------------------------------------
def w2_days(mfu):
    return C_LLAMA / (16_384 * H100 * mfu) / DAY


def test_w2_swing_is_one_range_answer():
    r = nm.solve(
        "train_time", train_compute="6.35e24 FLOP", n_gpus=16384, mfu=(0.3, 0.5), gpu="H100-SXM"
    )
    assert isinstance(r, nm.RangeResult)
    assert mag(r.value.low, "day") == pytest.approx(w2_days(0.5), rel=1e-9)  # 9.07 days
    assert mag(r.value.high, "day") == pytest.approx(w2_days(0.3), rel=1e-9)  # 15.1 days
    assert round(mag(r.value.low, "day"), 2) == 9.07 and round(mag(r.value.high, "day"), 1) == 15.1
    assert r.extremes["train_time"].low_at == {"mfu": 0.5}
    assert r.extremes["train_time"].high_at == {"mfu": 0.3}
    assert r.method == "corners"  # monotone, proved symbolically


def test_w2_swing_from_the_shell(napkin):
    status, out, _ = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.3..0.5",
        "--gpu",
        "H100-SXM",
    )
    assert status == 0
    head = out.splitlines()[0]
    assert head.startswith("train_time = 9.067 … 15.11 day")
    assert "low at mfu = 50%; high at mfu = 30%" in head
    assert "proved symbolically" in out


@pytest.mark.parametrize("text", ["0.3..0.5", "30%..50%", " 0.3 .. 0.5 "])
def test_range_spellings(text):
    r = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu=text,
        gpu="H100-SXM",
        ranges=True,
    )
    assert mag(r.value.high, "day") == pytest.approx(w2_days(0.3), rel=1e-9)


def test_units_on_both_ends_or_borrowed_from_the_other_end():
    both = nm.solve(
        "n_gpus",
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        train_time="20 days..40 days",
        gpu="H100-SXM",
        ranges=True,
    )
    borrowed = nm.solve(
        "n_gpus",
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        train_time="20..40 days",
        gpu="H100-SXM",
        ranges=True,
    )
    expected_high = C_LLAMA / (0.4 * H100 * 20 * DAY)  # fewest days need the most GPUs
    assert mag(both.value.high, "GPU") == pytest.approx(expected_high, rel=1e-9)
    assert mag(borrowed.value.high, "GPU") == pytest.approx(expected_high, rel=1e-9)


# --- W3 backward: the GPU count for a deadline when MFU is a range ---------------------------
def test_w3_backward_range_names_the_end_that_guarantees_the_deadline():
    r = nm.solve(
        "n_gpus",
        train_compute="6.35e24 FLOP",
        train_time="30 days",
        mfu="35%..45%",
        gpu="H100",
        ranges=True,
    )
    low = C_LLAMA / (0.45 * H100 * 30 * DAY)  # 5,501.9 GPU
    high = C_LLAMA / (0.35 * H100 * 30 * DAY)  # 7,073.8 GPU
    assert mag(r.value.low, "GPU") == pytest.approx(low, rel=1e-9)
    assert mag(r.value.high, "GPU") == pytest.approx(high, rel=1e-9)
    assert round(low) == 5502 and round(high) == 7074
    guarantee = r.guarantees["n_gpus"]
    assert "to be sure of train_time = 30 day" in guarantee
    assert "the high end, 7,074 GPU (at mfu = 35%)" in guarantee
    # whole 8-GPU nodes at the guaranteeing end: ceil(7073.8 / 8) = 885 nodes = 7,080 GPUs
    assert "n_gpus_whole_nodes = 7,080 GPU" in guarantee and "n_nodes = 885 node" in guarantee
    whole = r.extremes["n_nodes"]
    assert (whole.low, whole.high) == (math.ceil(low / 8), math.ceil(high / 8))


def test_w3_backward_from_the_shell(napkin):
    status, out, _ = napkin(
        "solve",
        "n_gpus",
        "train_compute=6.35e24FLOP",
        "train_time=30 days",
        "mfu=35%..45%",
        "--gpu",
        "H100",
    )
    assert status == 0
    assert out.startswith("n_gpus = 5,502 … 7,074 GPU")
    assert "the high end" in out and "7,080 GPU" in out


def test_forward_question_has_no_guarantee_sentence():
    r = nm.solve(
        "train_time", train_compute="6.35e24 FLOP", n_gpus=16384, mfu=(0.3, 0.5), gpu="H100-SXM"
    )
    assert r.guarantees == {}


# --- every range answer against a brute-force grid of ordinary solves -------------------------
RANGE_CASES = [
    # W2 forward, W3 backward
    (
        "train_time",
        dict(train_compute="6.35e24 FLOP", n_gpus=16384, gpu="H100-SXM"),
        {"mfu": (0.3, 0.5)},
    ),
    (
        "n_gpus",
        dict(train_compute="6.35e24 FLOP", train_time="30 days", gpu="H100"),
        {"mfu": (0.35, 0.45)},
    ),
    # W6 back-solved MFU with uncertain GPU-hours and tokens
    (
        "mfu",
        dict(params="405B", gpu="H100"),
        {"gpu_hours": ("28e6 GPU*h", "34e6 GPU*h"), "tokens": ("14T", "16T")},
    ),
    # W11 dollars for 15T tokens with MFU and price ranges
    (
        "train_cost",
        dict(params="70B", tokens="15T", gpu="H100-SXM"),
        {"mfu": (0.3, 0.5), "price_per_gpu_hour": ("2 USD/(GPU*h)", "3 USD/(GPU*h)")},
    ),
    # W12 with three ranges: two inputs used by two steps (the node rounding reads n_gpus)
    (
        "n_gpus",
        dict(tokens="1T", gpu="H100-SXM"),
        {"mfu": (0.3, 0.5), "train_time": ("14 days", "28 days"), "params": ("6B", "8B")},
    ),
    # W16 decode with a batch range (weights and KV both in the step)
    (
        "decode_throughput",
        dict(
            weight_memory="141 GB",
            n_gpus=4,
            seq_len=8192,
            n_layers=80,
            n_kv_heads=8,
            head_dim=128,
            gpu="H100-SXM",
        ),
        {"batch_size": (1, 64)},
    ),
    # W19 goodput across the Young/Daly optimum (not monotone)
    (
        "goodput",
        dict(checkpoint_write_time="65 s", mtbf="3.09 h", restart_time="10 min"),
        {"checkpoint_interval": ("5 min", "2 h")},
    ),
]


def _grid_values(target, givens, ranges, n=9):
    from napkinmath.catalog.lookup import variable
    from napkinmath.text.values import to_quantity

    axes = []
    for name, (lo, hi) in ranges.items():
        var = variable(name)
        a, b = (to_quantity(v, var).magnitude for v in (lo, hi))
        axes.append([(name, nm.Quantity(x, var.unit)) for x in np.linspace(a, b, n)])
    found = []
    for point in itertools.product(*axes):
        r = nm.solve(target, **givens, **dict(point))
        found.append(r.value.to_base_units().magnitude)
    return np.array(found)


@pytest.mark.parametrize(
    ("target", "givens", "ranges"),
    RANGE_CASES,
    ids=[c[0] + "-" + "-".join(c[2]) for c in RANGE_CASES],
)
def test_range_is_exact_against_a_brute_force_grid(target, givens, ranges):
    r = nm.solve(target, **givens, **ranges)
    low = r.value.low.to_base_units().magnitude
    high = r.value.high.to_base_units().magnitude
    grid = _grid_values(target, givens, ranges)
    # the range contains every grid point, and the grid comes close to both ends
    assert low <= grid.min() * (1 + 1e-9) and grid.max() <= high * (1 + 1e-9)
    span = high - low
    assert grid.min() - low <= 0.02 * span and high - grid.max() <= 0.02 * span
    # each end is a real answer: an ordinary solve at the reported point gives it
    known = nm.variables()
    for end, at in ((low, r.extremes[target].low_at), (high, r.extremes[target].high_at)):
        point = {n: nm.Quantity(x / known[n].base_factor, known[n].unit) for n, x in at.items()}
        again = nm.solve(target, **givens, **point).value.to_base_units().magnitude
        assert again == pytest.approx(end, rel=1e-9)


def test_a_given_used_by_two_steps_is_not_counted_twice():
    # goodput = 1 - δ/τ - (τ/2 + R)/M reads τ in two steps. Step-by-step interval arithmetic
    # would pair the smallest overhead (τ = 2 h) with the smallest loss (τ = 5 min):
    # 1 - 65/7200 - (150 + 600)/11124 = 0.924, a goodput no interval achieves.
    r = nm.solve(
        "goodput",
        checkpoint_interval=("5 min", "2 h"),
        checkpoint_write_time="65 s",
        mtbf="3.09 h",
        restart_time="10 min",
    )
    naive_high = 1 - 65 / 7200 - (150 + 600) / (3.09 * 3600)
    assert mag(r.value.high, "") < naive_high - 0.05


def test_non_monotone_chain_finds_the_interior_optimum():
    m, delta, restart = 3.09 * 3600, 65.0, 600.0
    r = nm.solve(
        "goodput",
        checkpoint_interval=("5 min", "2 h"),
        checkpoint_write_time="65 s",
        mtbf="3.09 h",
        restart_time="10 min",
    )

    def goodput(tau):
        return 1 - delta / tau - (tau / 2 + restart) / m

    optimum = math.sqrt(2 * delta * m)  # Young/Daly: 1,202.5 s = 20.04 min
    extreme = r.extremes["goodput"]
    assert not extreme.monotone and r.method == "numeric"
    assert extreme.high == pytest.approx(goodput(optimum), rel=1e-9)
    assert extreme.high_at["checkpoint_interval"] == pytest.approx(optimum, rel=1e-3)
    assert extreme.low == pytest.approx(min(goodput(300), goodput(7200)), rel=1e-12)
    text = str(r)
    assert "found numerically" in text and "20.04 min" in text


def test_derivation_shows_each_step_over_the_range():
    r = nm.solve(
        "n_gpus",
        params="7B",
        tokens="1T",
        train_time=("14 days", "28 days"),
        mfu=0.4,
        gpu="H100-SXM",
    )
    text = str(r)
    assert "Training compute, 6ND rule" in text
    # a step that no range reaches shows one value
    assert "= 4.2×10²² FLOP   (the same at every point of the ranges)" in text
    # n_gpus: 4.2e22 / (0.4 * 989.5e12 * 28 days) = 43.86, and 87.73 GPU at 14 days
    low, high = 4.2e22 / (0.4 * H100 * 28 * DAY), 4.2e22 / (0.4 * H100 * 14 * DAY)
    assert (round(low, 2), round(high, 2)) == (43.86, 87.73)
    assert "n_gpus = 43.86 … 87.73 GPU" in text
    assert "= 6 … 11 node   (low at train_time = 28 day" in text  # ceil(43.86 / 8) = 6
    data = json.loads(r.to_json())
    assert data["targets"]["n_gpus"]["high_at"] == {"train_time": 14 * DAY}
    assert data["method"] == "corners"
    assert "**n_gpus = 43.86 … 87.73 GPU" in r.to_markdown()


# --- distributions and Monte Carlo ------------------------------------------------------------
def _w2_lognormal_samples(n, seed):
    mu = (math.log(0.3) + math.log(0.5)) / 2
    sigma = (math.log(0.5) - math.log(0.3)) / (2 * 1.6448536269514722)
    mfu = np.random.default_rng(seed).lognormal(mu, sigma, n)
    return C_LLAMA / (16_384 * H100 * mfu) / DAY


def test_samples_match_hand_numpy_with_the_same_seed():
    r = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu="0.3 to 0.5",
        gpu="H100-SXM",
        samples=10_000,
        seed=7,
    )
    hand = _w2_lognormal_samples(10_000, 7)
    for q in (5, 50, 95):
        assert mag(r.percentile("train_time", q), "day") == pytest.approx(
            np.percentile(hand, q), rel=1e-9
        )
    # a 90% interval of mfu gives (about) the same 90% interval of the answer
    assert mag(r.interval.low, "day") == pytest.approx(w2_days(0.5), rel=0.03)
    assert mag(r.interval.high, "day") == pytest.approx(w2_days(0.3), rel=0.03)
    assert "lognormal" in str(r) and "seed 7" in str(r)


def test_samples_are_reproducible_and_seeded():
    args = dict(
        train_compute="6.35e24 FLOP", n_gpus=16384, mfu="0.3 to 0.5", gpu="H100-SXM", samples=2_000
    )
    first, again = nm.solve("train_time", **args), nm.solve("train_time", **args)
    other = nm.solve("train_time", **args, seed=1)
    assert str(first) == str(again)
    assert first.value != other.value


def test_one_draw_per_input_shared_by_every_step():
    # goodput reads checkpoint_interval in two steps; each sample must use one draw for both
    r = nm.solve(
        "goodput",
        checkpoint_interval="10 min to 40 min",
        checkpoint_write_time="65 s",
        mtbf="3.09 h",
        restart_time="10 min",
        samples=5_000,
    )
    tau = r.samples["checkpoint_interval"]
    expected = 1 - 65 / tau - (tau / 2 + 600) / (3.09 * 3600)
    np.testing.assert_allclose(r.samples["goodput"], expected, rtol=1e-12)


def test_normal_samples_outside_the_bounds_are_dropped_and_counted():
    r = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu="normal 0.1 to 0.9",
        gpu="H100-SXM",
        samples=20_000,
    )
    assert r.kept < 20_000  # a normal this wide reaches below 0 and above 1
    assert "were dropped" in str(r)


def test_uniform_and_python_spreads():
    r = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu=nm.uniform(0.3, 0.5),
        gpu="H100-SXM",
        samples=20_000,
    )
    # uniform mfu: the median answer is at mfu = 0.4
    assert mag(r.value, "day") == pytest.approx(w2_days(0.4), rel=0.01)
    ranged = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu=nm.lognormal(0.3, 0.5),
        gpu="H100-SXM",
    )
    assert isinstance(ranged, nm.RangeResult)  # without samples: the 90% interval's ends
    assert "pass samples=N" in str(ranged)


def test_samples_from_the_shell(napkin):
    status, out, _ = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.3 to 0.5",
        "--gpu",
        "H100-SXM",
        "--samples",
        "10000",
        "--seed",
        "3",
    )
    assert status == 0
    assert "(median [5th, 95th percentile], 10,000 samples, seed 3)" in out.splitlines()[0]


# --- errors a user meets ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "words"),
    [
        ((0.5, 0.3), "must be below the high end"),
        ("0.5..0.3", "must be below the high end"),
        ((0.3, 1.5), "out of range"),
        ("0.3..0.5..0.7", "two ends"),
        ((0.1, 0.2, 0.3), "a pair"),
        ("0.3..", "mfu"),
        ("lognormal 0 to 0.5", "out of range"),
        ("0.3 .. 5 GB", "expected"),
    ],
)
def test_bad_ranges_name_the_variable(value, words):
    with pytest.raises(nm.InputError) as info:
        nm.solve(
            "train_time",
            train_compute="6.35e24 FLOP",
            n_gpus=16384,
            mfu=value,
            gpu="H100-SXM",
            ranges=True,
        )
    assert words in str(info.value) and info.value.variable == "mfu"


def test_a_range_in_text_is_asked_for_by_name():
    """A point question's answer types as a Result: a range in text, which its type does not
    show, is refused (naming the given and both fixes) unless asked for with ranges=True."""
    base = dict(train_compute="6.35e24 FLOP", n_gpus=16384, gpu="H100-SXM")
    with pytest.raises(nm.InputError, match=r"mfu='0.3..0.5' is a range: add ranges=True") as info:
        nm.solve("train_time", mfu="0.3..0.5", **base)
    assert info.value.variable == "mfu" and "samples=N" in str(info.value)
    with pytest.raises(nm.InputError, match="ranges=True: no given is a range") as info:
        nm.solve("train_time", mfu=0.4, ranges=True, **base)
    assert info.value.variable == "ranges"
    assert isinstance(nm.solve("train_time", mfu=(0.3, 0.5), **base), nm.RangeResult)
    assert isinstance(nm.solve("train_time", mfu="0.3 to 0.5", samples=50, **base), nm.SampleResult)


def test_other_misuse_is_explained():
    base = dict(train_compute="6.35e24 FLOP", n_gpus=16384, gpu="H100-SXM")
    with pytest.raises(nm.InputError, match="needs a given with a spread"):
        nm.solve("train_time", mfu=0.4, samples=100, **base)
    with pytest.raises(nm.InputError, match="whole number"):
        nm.solve("train_time", mfu="0.3 to 0.5", samples=0, **base)
    with pytest.raises(nm.InputError, match=r"nm\.sweep"):
        nm.solve("train_time", mfu=[0.3, 0.4], **base)
    with pytest.raises(nm.InputError, match=r"nm\.compare"):
        nm.solve(
            "train_time",
            train_compute="6.35e24 FLOP",
            n_gpus=16384,
            mfu=0.4,
            gpu=["H100-SXM", "MI300X"],
        )
    with pytest.raises(nm.InputError, match="seed= only applies"):
        nm.solve("train_time", mfu=0.4, seed=3, **base)


def test_a_dashed_range_is_explained():
    with pytest.raises(nm.InputError, match=r"for a range write 30%\.\.50%"):
        nm.solve(
            "train_time", train_compute="6.35e24 FLOP", n_gpus=16384, mfu="30-50%", gpu="H100-SXM"
        )


def test_shell_errors_exit_2_without_traceback(napkin):
    status, _, err = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.5..0.3",
        "--gpu",
        "H100-SXM",
    )
    assert status == 2 and "must be below" in err and "Traceback" not in err
    status, _, err = napkin("solve", "train_time", "mfu=0.4", "--gpu", "H100-SXM,MI300X")
    assert status == 2 and "napkin compare" in err


def test_a_plain_solve_needs_no_numpy():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "import napkinmath as nm\n"
        "r = nm.solve('n_gpus', params='7B', tokens='1T', train_time='3 weeks', mfu=0.4,"
        " gpu='H100-SXM')\n"
        "print(r.headline()[0])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("n_gpus = 58.48 GPU")  # W12 with the H100-SXM record
