"""Worked example W14 (MFU from a measured step time), the step-time gap, data and pipeline
parallelism. Hand arithmetic beside every expectation.

H100 SXM record: 989.5 TFLOP/s dense BF16 per GPU (half of the datasheet's 1,979 sparse).
"""

import pytest
from helpers import mag

import napkinmath as nm

H100_PEAK = 989.5e12  # FLOP/s per GPU, dense BF16 (the H100-SXM record)


# --- W14: MFU from a measured step time -------------------------------------------------------
W14 = dict(params="8e9", global_batch=1024, seq_len=8192, n_gpus=256, gpu="H100")
W14_STEP_FLOP = 6 * 8e9 * 1024 * 8192  # 4.027e17 FLOP per step


def test_w14_mfu_from_step_time():
    r = nm.solve("mfu", step_time="4.0 s", **W14)
    hand = W14_STEP_FLOP / (4.0 * 256 * H100_PEAK)  # 4.027e17 / 1.0132e18 = 0.3974
    assert r.value.magnitude == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(0.398, rel=0.01)


def test_w14_tokens_and_flop_per_step():
    r = nm.solve(["global_batch_tokens", "step_compute"], **W14)
    assert mag(r["global_batch_tokens"], "token") == 1024 * 8192  # 8,388,608 tokens
    assert mag(r["step_compute"], "FLOP") == pytest.approx(W14_STEP_FLOP, rel=1e-12)


def test_w14_inverse_step_time_that_mfu_predicts():
    r = nm.solve("step_time", mfu=0.40, **W14)
    hand = W14_STEP_FLOP / (256 * H100_PEAK * 0.40)  # 3.974 s
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(3.98, rel=0.01)


def test_w14_inverse_gpus_for_a_step_time():
    without_gpus = {k: v for k, v in W14.items() if k != "n_gpus"}
    r = nm.solve("n_gpus", step_time="4 s", mfu=0.40, **without_gpus)
    hand = W14_STEP_FLOP / (4 * H100_PEAK * 0.40)  # 254.3 GPUs
    assert mag(r.value, "GPU") == pytest.approx(hand, rel=1e-9)


def test_w14_impossible_step_time_names_mfu():
    with pytest.raises(nm.NoRootError) as err:
        nm.solve("mfu", step_time="1 s", **W14)  # would be MFU 1.59
    assert err.value.variable == "mfu"
    assert "1.59" in str(err.value)


# --- A measured step time against the predicted one: the gap as a time budget ---------------
def test_step_time_gap_against_a_planned_mfu():
    r = nm.solve(
        ["step_time_predicted", "step_time_gap"], step_time="4.0 s", mfu_target=0.45, **W14
    )
    predicted = W14_STEP_FLOP / (256 * H100_PEAK * 0.45)  # 3.532 s
    assert mag(r["step_time_predicted"], "s") == pytest.approx(predicted, rel=1e-9)
    assert mag(r["step_time_gap"], "s") == pytest.approx(4.0 - predicted, rel=1e-9)  # 0.468


def test_step_time_gap_is_negative_when_the_run_beats_the_plan():
    r = nm.solve("step_time_gap", step_time="3.0 s", mfu_target=0.40, **W14)
    hand = 3.0 - W14_STEP_FLOP / (256 * H100_PEAK * 0.40)  # 3.0 - 3.974 = -0.974 s
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)


def test_inverse_the_mfu_a_gap_budget_assumes():
    r = nm.solve("mfu_target", step_time="4.0 s", step_time_gap="0.5 s", **W14)
    hand = W14_STEP_FLOP / (256 * H100_PEAK * 3.5)  # the plan's 3.5 s: MFU 0.4542
    assert r.value.magnitude == pytest.approx(hand, rel=1e-9)


# --- Data parallelism: tokens per GPU per step, compute time per step --------------------------
def test_tokens_per_gpu_per_step_and_steps_in_a_run():
    r = nm.solve(["tokens_per_gpu_per_step", "train_steps"], tokens="1T", **W14)
    assert mag(r["tokens_per_gpu_per_step"], "token/GPU") == 8_388_608 / 256  # 32,768
    assert r["train_steps"].magnitude == pytest.approx(1e12 / 8_388_608, rel=1e-12)  # 119,209


def test_compute_and_backward_time_per_step():
    r = nm.solve(["step_time_predicted", "backward_time"], mfu_target=0.40, **W14)
    compute = W14_STEP_FLOP / (256 * H100_PEAK * 0.40)  # 3.974 s of compute per step
    assert mag(r["step_time_predicted"], "s") == pytest.approx(compute, rel=1e-9)
    assert mag(r["backward_time"], "s") == pytest.approx(compute * 2 / 3, rel=1e-9)
    assert "backward_fraction" in r.assumptions


def test_backward_fraction_with_full_recomputation():
    r = nm.solve("backward_time", step_time_predicted="4 s", backward_fraction=0.75)
    assert mag(r.value, "s") == pytest.approx(3.0)  # 6ND of 8ND


# --- Parallel layout: n_gpus = tp x pp x cp x dp, micro-batches, pipeline bubble ------------------
def test_gpus_of_a_3d_layout():
    r = nm.solve("n_gpus", tp=8, pp=4, dp=32)
    assert mag(r.value, "GPU") == 8 * 4 * 32  # 1,024; cp = 1 by default
    assert {"cp", "gpus_per_rank"} <= set(r.assumptions)


def test_gpus_with_context_parallelism_and_whole_nodes():
    r = nm.solve(["n_gpus", "n_nodes"], tp=8, pp=2, cp=2, dp=16)
    assert mag(r["n_gpus"], "GPU") == 8 * 2 * 2 * 16  # 512
    assert mag(r["n_nodes"], "node") == 512 / 8  # 64 nodes of 8


def test_inverse_data_parallel_degree_from_the_fleet():
    r = nm.solve("dp", n_gpus=16384, tp=8, pp=16)
    assert r.value.magnitude == pytest.approx(16384 / (8 * 16))  # 128


def test_micro_batches_and_pipeline_bubble():
    r = nm.solve(
        ["n_microbatches", "pipeline_bubble_fraction"], global_batch=1024, batch_size=1, dp=32, pp=4
    )
    assert r["n_microbatches"].magnitude == pytest.approx(1024 / (1 * 32))  # 32
    assert r["pipeline_bubble_fraction"].magnitude == pytest.approx((4 - 1) / 32)  # 0.094


def test_interleaved_schedule_shrinks_the_bubble():
    r = nm.solve("pipeline_bubble_fraction", pp=8, n_microbatches=16, virtual_pipeline_stages=4)
    assert r.value.magnitude == pytest.approx((8 - 1) / (4 * 16))  # 0.109


def test_inverse_micro_batches_for_a_bubble_budget():
    r = nm.solve("n_microbatches", pp=8, pipeline_bubble_fraction=0.05)
    assert r.value.magnitude == pytest.approx(7 / 0.05)  # 140


def test_inconsistent_layout_is_reported():
    with pytest.raises(nm.InconsistentError) as err:
        nm.solve("mfu", step_time="4 s", tp=8, dp=8, **W14)  # 8 x 8 = 64, not 256 GPUs
    assert "n_gpus" in str(err.value) and "dp" in str(err.value)


# --- CLI ----------------------------------------------------------------------------------------
def test_cli_w14(napkin):
    status, out, err = napkin(
        "solve",
        "mfu",
        "params=8e9",
        "global_batch=1024",
        "seq_len=8192",
        "step_time=4 s",
        "n_gpus=256",
        "--gpu",
        "H100",
    )
    assert status == 0, err
    assert out.startswith("mfu = 39.74%")
    assert "MFU from a measured step time" in out


def test_cli_parallel_layout(napkin):
    status, out, err = napkin("solve", "n_gpus", "tp=8", "pp=4", "dp=32")
    assert status == 0, err
    assert out.startswith("n_gpus = 1,024 GPU")
    assert "ASSUMPTION" in out  # cp = 1 and one GPU per rank are stated
