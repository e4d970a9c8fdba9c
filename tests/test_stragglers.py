"""Stragglers (formulas/stragglers.py): the expected slowest of N ranks against a seeded
simulation, Blom's approximation against the exact expected maxima, the cost of one slow rank
and the per-rank alarm threshold. Hand arithmetic beside every expectation.

Exact expected maxima of N standard normals (∫ x·N·φ(x)·Φ(x)^(N−1) dx; Harter 1961):
e_2 = 1/√π = 0.5642, e_8 = 1.4236, e_1000 = 3.2414, e_16384 = 3.9714.
Blom: e_N ≈ Φ⁻¹((N − 3/8)/(N + 1/4)): Φ⁻¹(0.72222) = 0.58946, Φ⁻¹(0.924242) = 1.43420,
Φ⁻¹(0.99937516) = 3.22729, Φ⁻¹(0.99996185) = 3.95576.
"""

import math

import numpy as np
import pytest
from helpers import mag

import napkinmath as nm

BLOM = {2: 0.58946, 8: 1.43420, 1000: 3.22729, 16384: 3.95576}
EXACT = {2: 1 / math.sqrt(math.pi), 8: 1.4236, 1000: 3.2414, 16384: 3.9714}
RANK = dict(rank_step_time_mean="1 s", rank_step_time_std="50 ms")


def _simulated_excess(n: int, trials: int, rng: np.random.Generator) -> float:
    """Mean over `trials` steps of the slowest of `n` ranks' N(0, 1) times (100 steps a
    batch, so that 16,384 ranks stay within 13 MB)."""
    maxima = [
        rng.standard_normal((min(100, trials - start), n)).max(axis=1)
        for start in range(0, trials, 100)
    ]
    return float(np.concatenate(maxima).mean())


@pytest.mark.parametrize(("n", "trials"), [(8, 20_000), (1000, 2000), (16_384, 2000)])
def test_expected_slowest_rank_matches_a_seeded_simulation(n, trials):
    # simulated excess of the slowest rank over the mean, in σ (seed 23): 1.4124 (N = 8),
    # 3.2408 (1,000), 3.9656 (16,384), each with a standard error under 0.008 σ
    simulated = _simulated_excess(n, trials, np.random.default_rng(23))
    r = nm.solve("straggler_excess_time", sync_ranks=n, **RANK)
    predicted = mag(r.value, "s") / 0.050  # σ·e_N over σ
    assert predicted == pytest.approx(BLOM[n], rel=1e-5)
    assert predicted == pytest.approx(simulated, rel=0.03)


@pytest.mark.parametrize(("n", "within"), [(2, 0.05), (8, 0.01), (1000, 0.005), (16_384, 0.005)])
def test_blom_against_the_exact_expected_maximum(n, within):
    # Blom is 4.5% high at N = 2 (0.5895 / 0.5642), 0.7% at 8, -0.44% at 1,000, -0.39% at 16,384
    e = nm.solve("normal_expected_max", sync_ranks=n).value.magnitude
    assert e == pytest.approx(BLOM[n], rel=1e-5)
    assert e == pytest.approx(EXACT[n], rel=within)


def test_the_large_n_limit_overstates_what_blom_gets_right():
    # √(2 ln 1000) = 3.7169 is 14.7% above the exact 3.2414; Blom's 3.2273 is 0.44% below
    e = nm.solve("normal_expected_max", sync_ranks=1000).value.magnitude
    limit = math.sqrt(2 * math.log(1000))
    assert limit == pytest.approx(3.7169, rel=1e-4)
    assert abs(e - EXACT[1000]) < abs(limit - EXACT[1000]) / 30


def test_one_rank_waits_for_nobody():
    # N = 1: Φ⁻¹((1 − 3/8)/(1 + 1/4)) = Φ⁻¹(1/2) = 0, so the step is the rank's own mean
    r = nm.solve("straggler_expected_max_step_time", sync_ranks=1, **RANK)
    assert mag(r.value, "s") == pytest.approx(1.0)


def test_expected_step_of_a_thousand_ranks():
    # μ + σ·e_1000 = 1 s + 0.05 s × 3.22729 = 1.16136 s
    r = nm.solve("straggler_expected_max_step_time", sync_ranks=1000, **RANK)
    assert mag(r.value, "s") == pytest.approx(1 + 0.05 * 3.22729, rel=1e-6)
    names = [f.name for s in r.steps for f in s.formulas]
    assert names == [
        "normal_expected_max",
        "straggler_excess_time",
        "straggler_expected_max_step_time",
    ]


def test_the_spread_a_measured_excess_implies():
    # σ = excess / e_N = 0.16 s / 3.22729 = 49.58 ms
    r = nm.solve("rank_step_time_std", straggler_excess_time="0.16 s", sync_ranks=1000)
    assert mag(r.value, "ms") == pytest.approx(160 / 3.22729, rel=1e-6)


def test_every_gpu_of_the_job_waits_unless_told_otherwise():
    # n_gpus = 16,384, one GPU per rank: N = 16,384, e_N = 3.95576 (assumed coupling, labelled)
    r = nm.solve("straggler_excess_time", n_gpus=16_384, **RANK)
    assert mag(r.value, "s") == pytest.approx(0.05 * 3.95576, rel=1e-6)
    assert any(f.name == "sync_ranks_are_all_ranks" for s in r.steps for f in s.formulas)
    assert "ASSUMPTION" in str(r)


def test_cost_of_one_slow_rank_to_the_whole_job():
    # one rank 50 ms behind on 1,024 GPUs, measured step 1.05 s:
    # 1,024 × 0.05 s = 51.2 GPU·s per step; 0.05 / 1.05 = 4.762% of every step;
    # 1,024 × 0.047619 = 48.76 GPUs' worth idle
    givens = dict(n_gpus=1024, straggler_delay="50 ms", step_time="1.05 s")
    r = nm.solve(
        ["straggler_gpu_time_lost", "straggler_step_share", "straggler_idle_gpus"], **givens
    )
    lost, share, idle = (r.values[n] for n in r.targets)
    assert mag(lost, "GPU*s") == pytest.approx(1024 * 0.05)
    assert mag(share) == pytest.approx(0.05 / 1.05)
    assert mag(idle, "GPU") == pytest.approx(1024 * 0.05 / 1.05)
    assert mag(idle, "GPU") == pytest.approx(48.76, abs=0.01)


def test_flag_threshold_one_false_alarm_in_a_hundred_among_a_thousand():
    # Bonferroni: each rank at α/N = 0.01 / 1,000 = 1e-5; Φ⁻¹(1 − 1e-5) = 4.26489;
    # μ + 4.26489 σ = 1 s + 4.26489 × 20 ms = 1.08530 s; α = 1% is the stated default
    r = nm.solve(
        ["straggler_flag_z", "straggler_flag_threshold"],
        rank_step_time_mean="1 s",
        rank_step_time_std="20 ms",
        sync_ranks=1000,
    )
    z, threshold = r.values["straggler_flag_z"], r.values["straggler_flag_threshold"]
    assert mag(z) == pytest.approx(4.26489, rel=1e-6)
    assert mag(threshold, "s") == pytest.approx(1 + 0.020 * 4.26489, rel=1e-6)
    assert r.givens["straggler_false_alarm"].origin == "assumption"


def test_flag_threshold_for_a_larger_job_and_another_alarm_rate():
    # α = 5% over 8 ranks: Φ⁻¹(1 − 0.05/8) = Φ⁻¹(0.99375) = 2.49771;
    # α = 1% over 16,384 ranks: Φ⁻¹(1 − 6.1035e-7) = 4.85225
    small = nm.solve("straggler_flag_z", sync_ranks=8, straggler_false_alarm=0.05)
    large = nm.solve("straggler_flag_z", sync_ranks=16_384)
    assert mag(small.value) == pytest.approx(2.49771, rel=1e-5)
    assert mag(large.value) == pytest.approx(4.85225, rel=1e-5)


def test_cli_prints_blom_and_the_threshold(napkin):
    status, out, err = napkin(
        "solve",
        "straggler_flag_threshold",
        "rank_step_time_mean=1 s",
        "rank_step_time_std=20 ms",
        "sync_ranks=1000",
    )
    assert status == 0, err
    assert out.startswith("straggler_flag_threshold = 1.085 s")  # 1.08530 s
    assert "Φ⁻¹(1 − straggler_false_alarm / sync_ranks)" in out
    assert "Bonferroni" in out


def test_latex_writes_the_quantile_as_phi_inverse():
    r = nm.solve("normal_expected_max", sync_ranks=8)
    assert "\\Phi^{-1}\\left(" in r.to_latex()


def test_a_sweep_over_the_rank_count_runs_on_arrays():
    # the vectorised Φ⁻¹ gives Blom's values point by point
    t = nm.sweep("normal_expected_max", over={"sync_ranks": [8, 1000, 16_384]})
    np.testing.assert_allclose(t["normal_expected_max"], [BLOM[8], BLOM[1000], BLOM[16_384]], 1e-5)


@pytest.mark.parametrize(
    ("givens", "words"),
    [
        (dict(sync_ranks=0.5), "sync_ranks=0.5 is out of range"),
        (dict(sync_ranks=1000, straggler_false_alarm=1), "straggler_false_alarm=1 is out of range"),
        (dict(sync_ranks=1000, straggler_false_alarm=0), "straggler_false_alarm=0 is out of range"),
    ],
)
def test_ranks_and_alarm_rates_outside_their_range_are_refused(givens, words):
    with pytest.raises(nm.InputError) as err:
        nm.solve("straggler_flag_z", **givens)
    assert words in str(err.value)
