"""Worked examples W1, W2, W3, W6, W11, W12, in every direction.

Expectations are the worked examples' numbers; the hand arithmetic is written beside each.
H100 SXM record: 989.5 TFLOP/s dense BF16 (half of NVIDIA's 1,979 sparse; the worked examples
round it to 989, 0.05% apart, well inside their 1% tolerances); 1 day = 86,400 s.
"""

import pytest
from helpers import mag

import napkinmath as nm

H100_PEAK = 989.5e12  # FLOP/s per GPU, dense BF16 (the H100-SXM record)
DAY = 86_400.0


# --- W1: 6ND training compute ----------------------------------------------------------------
def test_w1_training_compute_forward():
    r = nm.solve("train_compute", params="70e9", tokens="15e12")
    assert mag(r.value, "FLOP") == pytest.approx(6 * 70e9 * 15e12, rel=0.005)  # 6.3e24


def test_w1_inverse_tokens_from_compute():
    r = nm.solve("tokens", params="70B", train_compute="6.3e24 FLOP")
    assert mag(r.value, "token") == pytest.approx(6.3e24 / (6 * 70e9), rel=0.005)  # 15e12


def test_w1_full_recomputation_uses_eight():
    r = nm.solve("train_compute", params="70B", tokens="15T", flop_per_param_token=8)
    assert mag(r.value, "FLOP") == pytest.approx(8 * 70e9 * 15e12, rel=1e-9)


def test_w1_default_six_is_labelled_an_assumption():
    r = nm.solve("train_compute", params="70B", tokens="15T")
    assert "flop_per_param_token" in r.assumptions
    assert "ASSUMPTION" in str(r)


# --- W2: fleet equation forward, with the MFU swing --------------------------------------------
@pytest.mark.parametrize(("mfu", "days"), [(0.40, 11.3), (0.50, 9.07), (0.30, 15.1)])
def test_w2_fleet_equation_forward(mfu, days):
    r = nm.solve("train_time", train_compute="6.35e24 FLOP", n_gpus="16384", mfu=mfu, gpu="H100")
    hand = 6.35e24 / (16_384 * H100_PEAK * mfu) / DAY
    assert hand == pytest.approx(days, rel=0.01)
    assert mag(r.value, "day") == pytest.approx(hand, rel=1e-9)
    assert r.value.units == nm.ureg.day  # a training run reads in days


def test_w2_inverse_mfu_from_observed_days():
    r = nm.solve(
        "mfu", train_compute="6.35e24 FLOP", n_gpus="16k", train_time="11.34 days", gpu="H100"
    )
    # 16k = 16,000 GPUs: MFU = 6.35e24 / (16,000 * 989.5e12 * 11.34 * 86,400) = 0.4094
    hand = 6.35e24 / (16_000 * H100_PEAK * 11.34 * DAY)
    assert r.value.magnitude == pytest.approx(hand, rel=1e-6)


# --- W3: fleet equation solved for the GPU count, with roundings -------------------------------
W3 = dict(train_compute="6.35e24 FLOP", train_time="30 days", mfu=0.4, gpu="H100-SXM")
W3_GPUS = 6.35e24 / (30 * DAY * H100_PEAK * 0.4)  # 6,189.6 (W3: 6,193 with 989 TFLOP/s)


def test_w3_gpu_count():
    r = nm.solve("n_gpus", **W3)
    assert mag(r.value, "GPU") == pytest.approx(6193, rel=0.01)
    assert mag(r.value, "GPU") == pytest.approx(W3_GPUS, rel=1e-9)


def test_w3_margin_power_of_two_and_whole_nodes():
    r = nm.solve(["n_gpus_with_margin", "n_gpus_pow2", "n_nodes"], margin="15%", **W3)
    assert mag(r["n_gpus_with_margin"], "GPU") == 7119  # ceil(6189.6 * 1.15 = 7118.05)
    assert mag(r["n_gpus_pow2"], "GPU") == 8192  # 2^13 >= 6190
    assert mag(r["n_nodes"], "node") == 774  # ceil(6189.6 / 8 = 773.7)
    # W3 (with 989 TFLOP/s): 7,122 with the margin, 775 nodes; within its 1% tolerance
    assert mag(r["n_gpus_with_margin"], "GPU") == pytest.approx(7122, rel=0.01)
    assert mag(r["n_nodes"], "node") == pytest.approx(775, rel=0.01)


def test_a_money_buffer_on_the_bill_and_its_inverse():
    """30.84M GPU-hours at 2 USD: 61.68M USD; with a 15% margin 70.93M USD. The inverse: an
    80M USD budget leaves a 29.7% margin on that bill."""
    bill = dict(gpu_hours="30.84M GPU*h", price_per_gpu_hour="2 USD/(GPU*h)")
    r = nm.solve("train_cost_with_margin", margin="15%", **bill)
    assert mag(r.value, "USD") == pytest.approx(30.84e6 * 2 * 1.15, rel=1e-12)
    back = nm.solve("margin", train_cost_with_margin="80M USD", **bill)
    assert mag(back.value) == pytest.approx(80e6 / (30.84e6 * 2) - 1, rel=1e-12)


def test_w3_headline_shows_whole_nodes():
    r = nm.solve("n_gpus", **W3)
    assert "n_nodes = 774 node" in r.headline()[0]  # ceil(6189.6 / 8)
    assert "n_gpus_whole_nodes = 6,192 GPU" in r.headline()[0]  # 774 x 8


def test_w3_inverse_days_for_the_padded_fleet():
    r = nm.solve("train_time", train_compute="6.35e24 FLOP", n_gpus=7122, mfu=0.4, gpu="H100")
    assert mag(r.value, "day") == pytest.approx(6.35e24 / (7122 * H100_PEAK * 0.4) / DAY)


def test_w3_rounding_cannot_be_inverted():
    with pytest.raises(nm.NotInvertibleError) as err:
        nm.solve("n_gpus", n_nodes=775, gpus_per_node=8)
    message = str(err.value)
    assert "n_gpus" in message and "only works forward" in message and "rounds up" in message


# --- W6: MFU back-solved from published GPU-hours (Llama 3 405B) --------------------------------
W6 = dict(params="405B", tokens="15.6T", gpu_hours="30.84e6 GPU*h", gpu="H100")


def test_w6_compute_and_mfu():
    r = nm.solve(["train_compute", "mfu"], **W6)
    compute = 6 * 405e9 * 15.6e12  # 3.79e25 FLOP
    assert mag(r["train_compute"], "FLOP") == pytest.approx(3.79e25, rel=0.01)
    assert r["mfu"].magnitude == pytest.approx(compute / (30.84e6 * 3600 * H100_PEAK), rel=1e-9)
    assert r["mfu"].magnitude == pytest.approx(0.345, rel=0.01)


def test_w6_inverse_gpu_hours_from_mfu():
    r = nm.solve("gpu_hours", params="405B", tokens="15.6T", mfu=0.345, gpu="H100")
    hand = 6 * 405e9 * 15.6e12 / (H100_PEAK * 0.345) / 3600  # GPU-hours
    assert mag(r.value, "GPU*hour") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(30.84e6, rel=0.01)


# --- W11: dollars per training token ----------------------------------------------------------
def test_w11_cost_per_token():
    r = nm.solve(
        "cost_per_token", params="70B", mfu=0.4, gpu="H100", price_per_gpu_hour="2.50 USD/(GPU*h)"
    )
    hand = 2.50 / 3600 * 6 * 70e9 / (H100_PEAK * 0.4)  # USD per token: 7.37e-7
    assert mag(r.value, "USD/token") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(7.37e-7, rel=0.01)


def test_w11_uses_the_record_price_as_a_labelled_assumption():
    r = nm.solve("cost_per_token", params="70B", mfu=0.4, gpu="H100")
    assert r.givens["price_per_gpu_hour"].origin == "assumption"
    assert "ASSUMPTION" in str(r) and "2.5 USD/(GPU·h)" in str(r)


def test_w11_fifteen_trillion_tokens_cost():
    r = nm.solve(
        "train_cost",
        params="70B",
        tokens="15T",
        mfu=0.4,
        gpu="H100",
        price_per_gpu_hour="2.50 USD/(GPU*h)",
    )
    hand = 6 * 70e9 * 15e12 / (H100_PEAK * 0.4) / 3600 * 2.50  # 11.1 million USD
    assert mag(r.value, "USD") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(11.1e6, rel=0.01)


def test_w11_inverse_mfu_from_a_price_per_token():
    r = nm.solve(
        "mfu",
        params="70B",
        cost_per_token="7.373e-7 USD/token",
        gpu="H100",
        price_per_gpu_hour="2.50 USD/(GPU*h)",
    )
    assert r.value.magnitude == pytest.approx(0.4, rel=0.001)


# --- W12: a startup's 7B model on 1T tokens in 3 weeks -----------------------------------------
W12 = dict(params="7B", tokens="1T", mfu=0.4, gpu="H100-SXM", price_per_gpu_hour="2.50 USD/(GPU*h)")


def test_w12_gpus_needed_and_whole_nodes():
    r = nm.solve("n_gpus", train_time="3 weeks", **W12)
    hand = 6 * 7e9 * 1e12 / (21 * DAY * H100_PEAK * 0.4)  # 58.5 GPUs
    assert mag(r.value, "GPU") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(58.5, rel=0.01)
    rounded = nm.solve("n_gpus_whole_nodes", train_time="21 days", **W12)
    assert mag(rounded.value, "GPU") == 64  # 8 whole nodes of 8


def test_w12_time_gpu_hours_and_cost_on_64_gpus():
    r = nm.solve(["train_compute", "train_time", "gpu_hours", "train_cost"], n_gpus=64, **W12)
    compute = 6 * 7e9 * 1e12  # 4.2e22 FLOP
    seconds = compute / (64 * H100_PEAK * 0.4)
    assert mag(r["train_compute"], "FLOP") == pytest.approx(4.2e22)
    assert mag(r["train_time"], "day") == pytest.approx(19.2, rel=0.01)
    assert mag(r["gpu_hours"], "GPU*hour") == pytest.approx(64 * seconds / 3600, rel=1e-9)
    assert mag(r["gpu_hours"], "GPU*hour") == pytest.approx(29_491, rel=0.01)
    assert mag(r["train_cost"], "USD") == pytest.approx(64 * seconds / 3600 * 2.5, rel=1e-9)
    assert mag(r["train_cost"], "USD") == pytest.approx(73_700, rel=0.01)


def test_w12_inverse_the_tokens_a_budget_buys():
    without_tokens = {k: v for k, v in W12.items() if k != "tokens"}
    r = nm.solve("tokens", train_cost="73728 USD", n_gpus=64, **without_tokens)
    # 73,728 USD / 2.5 USD/GPU-h = 29,491 GPU-h; x 3600 x 989.5e12 x 0.4 / (6 x 7e9) = 1.0005e12
    assert mag(r.value, "token") == pytest.approx(1e12, rel=0.001)


# --- the same examples through the CLI ----------------------------------------------------------
def test_cli_w12(napkin):
    status, out, err = napkin(
        "solve",
        "n_gpus",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
    )
    assert status == 0, err
    assert out.startswith("n_gpus = 58.48 GPU")  # 4.2e22 / (21 days x 989.5e12 x 0.4)
    assert "n_nodes = 8 node" in out and "n_gpus_whole_nodes = 64 GPU" in out
    assert "Fleet equation, solved for n_gpus" in out
    assert "= 4.2×10²² FLOP" in out
    assert "H100-SXM: dense BF16" in out  # where peak_flops came from


def test_cli_w2_and_w3(napkin):
    status, out, _ = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24 FLOP",
        "n_gpus=16384",
        "mfu=0.4",
        "--gpu",
        "H100",
    )
    assert status == 0 and out.startswith("train_time = 11.33 day")  # 11.3335
    status, out, _ = napkin(
        "solve",
        "n_gpus_pow2",
        "n_gpus_with_margin",
        "margin=0.15",
        "train_compute=6.35e24 FLOP",
        "train_time=30 days",
        "mfu=0.4",
        "--gpu",
        "H100",
    )
    assert status == 0 and "n_gpus_pow2 = 8,192 GPU" in out and "n_gpus_with_margin = 7,119" in out


def test_cli_w6_w11(napkin):
    status, out, _ = napkin(
        "solve", "mfu", "params=405B", "tokens=15.6T", "gpu_hours=30.84e6 GPU*h", "--gpu", "H100"
    )
    assert status == 0 and out.startswith("mfu = 34.51%")  # 3.79e25 / (30.84e6 h x 989.5e12)
    status, out, _ = napkin("solve", "cost_per_token", "params=70B", "mfu=0.4", "--gpu", "H100")
    assert status == 0 and out.startswith("cost_per_token = 7.369×10⁻⁷ USD/token")
