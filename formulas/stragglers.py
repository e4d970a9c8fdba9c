"""Stragglers: a synchronous step waits for the slowest of its ranks.

    normal_expected_max        = Φ⁻¹((N − 3/8) / (N + 1/4))        (e_N, Blom 1958; forward only)
    straggler_excess_time      = rank_step_time_std · normal_expected_max               (σ·e_N)
    straggler_expected_max_step_time = rank_step_time_mean + straggler_excess_time    (μ + σ·e_N)
    sync_ranks                 = n_gpus / gpus_per_rank       (assumed: every rank waits each step)
    straggler_gpu_time_lost    = n_gpus · straggler_delay          (per step: all wait Δ)
    straggler_step_share       = straggler_delay / step_time
    straggler_idle_gpus        = n_gpus · straggler_step_share     (the GPUs' worth that waits)
    straggler_flag_z           = Φ⁻¹(1 − straggler_false_alarm / N)   (Bonferroni; forward only)
    straggler_flag_threshold   = rank_step_time_mean + rank_step_time_std · straggler_flag_z

A data-parallel step ends at its all-reduce, so every rank waits for the slowest (the tail at
scale: a fan-out takes as long as its slowest leaf). With per-rank step times independent and
normal, N(μ, σ²), the step takes on average μ + σ·e_N, where e_N is the expected maximum of N
standard normals. e_N has no closed form (e_2 = 1/√π = 0.5642 exactly; e_8 = 1.4236,
e_1000 = 3.2414, e_16384 = 3.9714 by integrating x·N·φ(x)·Φ(x)^(N−1)); Blom's approximation
Φ⁻¹((N − 3/8)/(N + 1/4)) gives 0.5895, 1.4342, 3.2273 and 3.9558: 4.5% high at N = 2, 0.7% at
8, within 0.5% for every N from 10 to 10⁶ (−0.44% at 1,000, −0.39% at 16,384). The familiar
μ + σ·√(2 ln N) is only the large-N limit: it overstates e_N by 43% at N = 8, 15% at 1,000 and
11% at 16,384, and is not used here.

One slow rank, Δ behind the rest, makes all n_gpus wait Δ: the job loses n_gpus·Δ GPU-time
per step, straggler_step_share = Δ/step_time of every GPU's time, or n_gpus·Δ/step_time
GPUs' worth (one rank 5% slow on 1,024 GPUs idles 49). A per-rank alarm that flags a healthy
job's ranks by chance with probability α at most, among N ranks, sets each rank's threshold at
its upper α/N quantile (Bonferroni): μ + σ·Φ⁻¹(1 − α/N); α = 1% and N = 1,000 give μ + 4.26σ.
The normal model is an assumption: measured step times have a heavier right tail (a GC pause,
a throttled GPU), which makes the real maximum larger; give the measured spread.
"""

from sympy import Rational

from napkinmath.library.declare import (
    NON_NEGATIVE,
    Bounds,
    Eq,
    formula,
    normal_quantile,
    var,
)

from .parallelism import gpus_per_rank
from .sources import DEFINITION
from .step_time import step_time
from .training import n_gpus

SUBJECT = "training"

BLOM_1958 = (
    "Blom 1958, Statistical Estimates and Transformed Beta-Variables, Wiley "
    "(E[X_(i:N)] ≈ Φ⁻¹((i − α)/(N − 2α + 1)), α = 3/8 for the normal); exact values: Harter "
    "1961, Expected Values of Normal Order Statistics, Biometrika 48(1/2):151-165"
)
TAIL_AT_SCALE = (
    "Dean and Barroso 2013, The Tail at Scale, Communications of the ACM 56(2):74-80 (a "
    "fan-out waits for its slowest part)"
)
BONFERRONI = (
    "Dunn 1961, Multiple Comparisons Among Means, J. Am. Stat. Assoc. 56(293):52-64 "
    "(Bonferroni: N tests at α/N each keep the chance of any false alarm at or below α)"
)

# --- Variables -----------------------------------------------------------------------------
# Ranks that wait for each other at every step (the slowest sets the pace).
sync_ranks = var(
    "sync_ranks",
    "",
    "ranks that wait for each other every step (N: the slowest of them sets the pace)",
    symbol="N",
    bounds=Bounds(1.0, float("inf"), lo_inclusive=True),
    whole=True,
)
# Mean step time of one rank on its own (before it waits for the others).
rank_step_time_mean = var(
    "rank_step_time_mean",
    "s",
    "mean time one rank takes for its share of a step, before waiting for the others (μ)",
    symbol="\\mu_{rank}",
)
# Standard deviation of the per-rank step times (across ranks and steps).
rank_step_time_std = var(
    "rank_step_time_std",
    "s",
    "standard deviation of the per-rank step times (σ, across ranks and steps)",
    symbol="\\sigma_{rank}",
    bounds=NON_NEGATIVE,
)
# Expected maximum of N standard normals.
normal_expected_max = var(
    "normal_expected_max",
    "",
    "expected maximum of N independent standard normals (e_N), Blom's approximation",
    symbol="e_N",
    bounds=NON_NEGATIVE,
)
# Time the step loses to the slowest rank, on average.
straggler_excess_time = var(
    "straggler_excess_time",
    "s",
    "expected time the slowest of N ranks takes beyond the mean rank (σ·e_N)",
    symbol="t_{strag}",
    bounds=NON_NEGATIVE,
)
# Expected time of the slowest rank: the synchronous step's compute part.
straggler_expected_max_step_time = var(
    "straggler_expected_max_step_time",
    "s",
    "expected step time of the slowest of N ranks, which the synchronous step waits for",
    symbol="t_{max}",
)
# How far one slow rank lags the others per step.
straggler_delay = var(
    "straggler_delay",
    "s",
    "how much longer one slow rank takes per step than the others (Δ)",
    symbol="\\Delta",
    bounds=NON_NEGATIVE,
)
# Accelerator-time the whole job waits for that rank, per step.
straggler_gpu_time_lost = var(
    "straggler_gpu_time_lost",
    "GPU*s",
    "accelerator-time the whole job spends waiting for one slow rank, per step",
    symbol="H_{strag}",
    bounds=NON_NEGATIVE,
)
# Share of every GPU's step spent waiting for that rank.
straggler_step_share = var(
    "straggler_step_share",
    "",
    "share of each step every rank spends waiting for the slow one",
    symbol="f_{strag}",
    bounds=Bounds(0.0, 1.0, lo_inclusive=True),
)
# The same loss as whole accelerators standing idle.
straggler_idle_gpus = var(
    "straggler_idle_gpus",
    "GPU",
    "accelerators' worth of the job idled by one slow rank",
    symbol="n_{idle}",
    bounds=NON_NEGATIVE,
)
# Chance that an alarm flags at least one healthy rank of the job.
straggler_false_alarm = var(
    "straggler_false_alarm",
    "",
    "chance that a straggler alarm flags at least one healthy rank of the job per check (α)",
    symbol="\\alpha",
    bounds=Bounds(0.0, 1.0, hi_inclusive=False),
    default=0.01,
    default_note=(
        "α = 1%: one false alarm per hundred checks of the whole job, whatever its size "
        "(a convention, not a measurement: choose it for how often you can afford to be wrong)"
    ),
)
# The threshold in standard deviations.
straggler_flag_z = var(
    "straggler_flag_z",
    "",
    "per-rank alarm threshold in standard deviations above the mean, Φ⁻¹(1 − α/N)",
    symbol="z_{flag}",
    bounds=NON_NEGATIVE,
)
# The threshold as a step time.
straggler_flag_threshold = var(
    "straggler_flag_threshold",
    "s",
    "per-rank step time above which a rank is flagged as a straggler",
    symbol="t_{flag}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "normal_expected_max",
    "Expected maximum of N standard normals (Blom)",
    Eq(
        normal_expected_max,
        normal_quantile((sync_ranks - Rational(3, 8)) / (sync_ranks + Rational(1, 4))),
    ),
    source=BLOM_1958,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "Blom's plotting position for the largest of N: 4.5% high at N = 2 (0.5895 against "
        "1/√π = 0.5642), 0.7% at 8, within 0.5% from 10 to 10⁶ (3.2273 against 3.2414 at "
        "1,000); √(2 ln N) is only the large-N limit (15% high at 1,000)"
    ),
)

formula(
    "straggler_excess_time",
    "Time the slowest rank adds to a step",
    Eq(straggler_excess_time, rank_step_time_std * normal_expected_max),
    source=BLOM_1958,
    subject=SUBJECT,
    note="independent, normal per-rank times; a heavier right tail makes it longer",
)

formula(
    "straggler_expected_max_step_time",
    "Expected step time of the slowest rank",
    Eq(straggler_expected_max_step_time, rank_step_time_mean + straggler_excess_time),
    source=TAIL_AT_SCALE,
    subject=SUBJECT,
    note="a synchronous step ends when its slowest rank does: μ + σ·e_N",
)

formula(
    "sync_ranks_are_all_ranks",
    "Every rank of the job waits each step",
    Eq(sync_ranks, n_gpus / gpus_per_rank),
    source=DEFINITION,
    subject=SUBJECT,
    assumption=True,
    note=(
        "a synchronous step couples every rank: data-parallel replicas at the gradient "
        "all-reduce, tensor and pipeline ranks within a replica; a group that waits only "
        "for itself (one pipeline stage's ranks, asynchronous training) is smaller: give "
        "sync_ranks"
    ),
)

formula(
    "straggler_gpu_time_lost",
    "Accelerator-time one slow rank costs a step",
    Eq(straggler_gpu_time_lost, n_gpus * straggler_delay),
    source=f"{DEFINITION}; {TAIL_AT_SCALE}",
    subject=SUBJECT,
    note="every accelerator of the job waits Δ for the one that is Δ behind",
)

formula(
    "straggler_step_share",
    "Share of a step spent waiting for one slow rank",
    Eq(straggler_step_share, straggler_delay / step_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="step_time is the measured step, the wait included",
)

formula(
    "straggler_idle_gpus",
    "Accelerators' worth a slow rank idles",
    Eq(straggler_idle_gpus, n_gpus * straggler_step_share),
    source=DEFINITION,
    subject=SUBJECT,
    note="one rank 5% slow (Δ/step_time = 0.05/1.05) on 1,024 GPUs idles 48.8 of them",
)

formula(
    "straggler_flag_z",
    "Per-rank alarm threshold in standard deviations (Bonferroni)",
    Eq(straggler_flag_z, normal_quantile(1 - straggler_false_alarm / sync_ranks)),
    source=BONFERRONI,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "each of N healthy ranks crosses it with probability α/N, so the job's chance of any "
        "false alarm is at most α: N = 1,000, α = 1% gives 4.26σ; Šidák's exact "
        "1 − (1 − α)^(1/N) differs in the fourth figure"
    ),
)

formula(
    "straggler_flag_threshold",
    "Per-rank step time that flags a straggler",
    Eq(straggler_flag_threshold, rank_step_time_mean + rank_step_time_std * straggler_flag_z),
    source=BONFERRONI,
    subject=SUBJECT,
    note="normal per-rank times; with a heavier tail, set it from the measured quantile",
)
