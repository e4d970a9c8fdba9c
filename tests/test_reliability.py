"""Worked example W19 (cluster MTBF, Young/Daly interval, goodput), the recovery cost of a long
run, and a training/inference pool that lends accelerators to traffic peaks.

Every expectation is hand arithmetic written beside the call (1 day = 86,400 s).
W19 data: Llama 3 (arXiv:2407.21783, §3.3.4), 419 unexpected interruptions in 54 days on
16,384 H100.
"""

import math

import pytest
from helpers import mag

import napkinmath as nm

W19 = dict(interruptions=419, observation_period="54 days")
MTBF_S = 54 * 86_400 / 419  # 11,135.1 s = 3.093 h


# --- W19: cluster MTBF and the Young/Daly interval ---------------------------------------------
def test_w19_cluster_mtbf_from_interruptions():
    r = nm.solve("mtbf", **W19)
    assert mag(r.value, "s") == pytest.approx(MTBF_S)
    assert mag(r.value, "h") == pytest.approx(3.09, rel=0.01)  # 54 * 24 / 419 = 3.093 h


def test_w19_per_gpu_mtbf_of_the_llama3_fleet():
    r = nm.solve("mtbf_per_gpu", n_gpus=16_384, **W19)
    assert mag(r.value, "GPU*h") == pytest.approx(MTBF_S / 3600 * 16_384)  # 50,677 GPU-hours


def test_cluster_mtbf_from_per_gpu_mtbf():
    r = nm.solve("mtbf", mtbf_per_gpu="50000 GPU*h", n_gpus=8000)
    assert mag(r.value, "h") == pytest.approx(50_000 / 8000)  # 6.25 h


def test_w19_young_daly_interval():
    r = nm.solve("checkpoint_interval", checkpoint_write_time="65 s", **W19)
    hand = math.sqrt(2 * 65 * MTBF_S)  # sqrt(1,447,560) = 1,203 s
    assert mag(r.value, "s") == pytest.approx(hand)
    assert mag(r.value, "min") == pytest.approx(20, rel=0.01)  # 20.05 min
    assert [f.name for s in r.steps for f in s.formulas][-1] == "young_interval"


def test_w19_inverse_mtbf_a_target_interval_implies():
    r = nm.solve("mtbf", checkpoint_interval="20 minute", checkpoint_write_time="65 s")
    hand = 1200**2 / (2 * 65)  # tau^2 / (2 delta) = 11,077 s
    assert mag(r.value, "s") == pytest.approx(hand)
    assert mag(r.value, "h") == pytest.approx(3.077, rel=1e-3)


def test_w19_inverse_write_time_a_target_interval_needs():
    r = nm.solve("checkpoint_write_time", checkpoint_interval="10 minute", **W19)
    assert mag(r.value, "s") == pytest.approx(600**2 / (2 * MTBF_S))  # 16.2 s


def test_w19_expected_fraction_of_time_lost():
    r = nm.solve(
        ["checkpoint_interval", "goodput"],
        checkpoint_write_time="65 s",
        restart_time="10 minute",
        **W19,
    )
    tau = math.sqrt(2 * 65 * MTBF_S)  # 1,203 s
    lost = 65 / tau + (tau / 2 + 600) / MTBF_S  # 5.40% checkpoints + 5.40% redo + 5.39% restart
    assert r["goodput"].magnitude == pytest.approx(1 - lost)  # 0.838
    assert 1 - lost == pytest.approx(0.838, rel=0.001)


def test_w19_a_given_interval_overrides_the_optimum():
    r = nm.solve(
        "goodput",
        checkpoint_interval="60 minute",
        checkpoint_write_time="65 s",
        restart_time="10 minute",
        **W19,
    )
    hand = 1 - 65 / 3600 - (1800 + 600) / MTBF_S  # 1 - 1.8% - 21.6% = 0.766
    assert r.value.magnitude == pytest.approx(hand)
    optimum = nm.solve("goodput", checkpoint_write_time="65 s", restart_time="10 minute", **W19)
    assert optimum.value.magnitude > r.value.magnitude


def test_w19_from_the_checkpoint_size_and_storage():
    # W8: 405e9 param * 16 B = 6.48 TB at 100 GB/s = 64.8 s per blocking write.
    r = nm.solve(
        "checkpoint_interval", params_total="405B", storage_write_bandwidth="100 GB/s", **W19
    )
    assert mag(r.value, "s") == pytest.approx(math.sqrt(2 * 64.8 * MTBF_S))  # 1,201 s


# --- Goodput: a hand case ----------------------------------------------------------------------
def test_goodput_hand_case():
    r = nm.solve(
        ["checkpoint_overhead", "lost_time_per_failure", "goodput"],
        checkpoint_write_time="60 s",
        checkpoint_interval="30 minute",
        mtbf="4 h",
        restart_time="10 minute",
    )
    # delta/tau = 60/1800 = 3.33%; lost per failure = 15 + 10 = 25 min; 25/240 = 10.42%
    assert r["checkpoint_overhead"].magnitude == pytest.approx(60 / 1800)
    assert mag(r["lost_time_per_failure"], "min") == pytest.approx(25)
    assert r["goodput"].magnitude == pytest.approx(1 - 60 / 1800 - 25 / 240)  # 0.8625


def test_goodput_inverse_mtbf_for_a_target():
    r = nm.solve(
        "mtbf",
        goodput=0.9,
        checkpoint_write_time="60 s",
        checkpoint_interval="30 minute",
        restart_time="10 minute",
    )
    # 1 - 1/30 - 25 min / M = 0.9  =>  M = 25 / (0.1 - 1/30) min = 375 min
    assert mag(r.value, "min") == pytest.approx(25 / (0.1 - 1 / 30))


# --- Recovery point, recovery time and the cost of a failure on 8,000 GPUs ---------------------
RUN = dict(n_gpus=8000, checkpoint_interval="30 minute", price_per_gpu_hour="2.50 USD/(GPU*h)")


def test_recovery_cost_per_failure():
    r = nm.solve(
        ["restart_time", "lost_gpu_hours_per_failure", "cost_per_failure"],
        reschedule_time="10 minute",
        checkpoint_restore_time="64.8 s",
        **RUN,
    )
    restart = 10 + 64.8 / 60  # 11.08 min to recover (detect, relaunch, read 6.48 TB)
    lost_hours = 8000 * (30 / 2 + restart) / 60  # 3,477 GPU-hours
    assert mag(r["restart_time"], "min") == pytest.approx(restart)
    assert mag(r["lost_gpu_hours_per_failure"], "GPU*h") == pytest.approx(lost_hours)
    assert mag(r["cost_per_failure"], "USD") == pytest.approx(lost_hours * 2.50)  # 8,693 USD


def test_replicated_checkpoint_restores_faster_and_loses_less():
    remote = nm.solve(
        "cost_per_failure", reschedule_time="10 minute", checkpoint_restore_time="64.8 s", **RUN
    )
    peer = nm.solve(
        "cost_per_failure", reschedule_time="2 minute", checkpoint_restore_time="5 s", **RUN
    )
    # peer memory: 8000 * (15 + 2 + 5/60) / 60 * 2.50 = 5,694 USD vs 8,693 USD
    assert mag(peer.value, "USD") == pytest.approx(8000 * (15 + 2 + 5 / 60) / 60 * 2.50)
    assert mag(peer.value, "USD") < mag(remote.value, "USD")


def test_failures_expected_over_a_run_and_wasted_hours():
    r = nm.solve(
        "interruptions", mtbf_per_gpu="50000 GPU*h", n_gpus=8000, observation_period="30 days"
    )
    assert r.value.magnitude == pytest.approx(30 * 24 / (50_000 / 8000))  # 115.2 failures
    waste = nm.solve("wasted_gpu_hours", goodput=0.8625, n_gpus=8000, train_time="30 days")
    assert mag(waste.value, "GPU*h") == pytest.approx((1 - 0.8625) * 8000 * 30 * 24)  # 792,000


# --- Shared training/inference pool ----------------------------------------------------------
POOL = dict(checkpoint_write_time="65 s", drain_time="55 s", ramp_rate="5 request/s/minute")


def test_reclaim_too_slow_for_the_ramp():
    r = nm.solve(
        ["reclaim_time", "ramp_time_allowed", "reclaim_slack"],
        traffic_headroom="8 request/s",
        **POOL,
    )
    # reclaim 65 + 55 = 120 s = 2 min; the ramp eats 8 request/s of headroom in 8/5 = 1.6 min
    assert mag(r["reclaim_time"], "min") == pytest.approx(2)
    assert mag(r["ramp_time_allowed"], "min") == pytest.approx(1.6)
    assert mag(r["reclaim_slack"], "min") == pytest.approx(-0.4)  # negative: too slow


def test_floor_plus_borrow_split():
    r = nm.solve(
        ["traffic_headroom", "floor_gpus", "borrowed_gpus"],
        reclaim_slack="0 s",
        baseline_request_rate="40 request/s",
        peak_request_rate="90 request/s",
        gpu_request_capacity="0.5 request/(s*GPU)",
        **POOL,
    )
    # headroom that just covers a 2 min reclaim: 5 request/s per min * 2 min = 10 request/s
    assert mag(r["traffic_headroom"], "request/s") == pytest.approx(10)
    assert mag(r["floor_gpus"], "GPU") == pytest.approx((40 + 10) / 0.5)  # 100 GPU
    assert mag(r["borrowed_gpus"], "GPU") == pytest.approx(90 / 0.5 - 100)  # 80 GPU


def test_drain_time_the_ramp_allows():
    r = nm.solve(
        "drain_time",
        reclaim_slack="0 s",
        traffic_headroom="10 request/s",
        **{k: v for k, v in POOL.items() if k != "drain_time"},
    )
    assert mag(r.value, "s") == pytest.approx(10 / 5 * 60 - 65)  # 120 s - 65 s = 55 s


# --- CLI --------------------------------------------------------------------------------------
def test_cli_young_daly(napkin):
    status, out, err = napkin(
        "solve",
        "checkpoint_interval",
        "interruptions=419",
        "observation_period=54 days",
        "checkpoint_write_time=65 s",
    )
    assert status == 0, err
    assert out.startswith("checkpoint_interval = 20.05 min")
    assert "Young" in out
