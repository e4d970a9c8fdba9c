"""Reliability: failures of a large job, checkpoint interval, goodput, the cost of a failure,
and a training/inference pool that lends accelerators to traffic peaks.

    mtbf                  = mtbf_per_gpu / n_gpus   or   observation_period / interruptions
    checkpoint_interval   = √(2 · checkpoint_write_time · mtbf)                (Young 1974)
    checkpoint_interval_daly = √(2δM)·[1 + ⅓·√(δ/2M) + ⅑·(δ/2M)] − δ,  δ < 2M    (Daly 2006)
    lost_time_per_failure = checkpoint_interval / 2 + restart_time
    restart_time          = reschedule_time + checkpoint_restore_time
    goodput               = 1 − checkpoint_overhead − lost_time_per_failure / mtbf
                            (checkpoint_overhead = checkpoint_write_time / checkpoint_interval)
    recovery_point        = checkpoint_interval + replication_lag           (worst case, RPO)
    recovery_time         = restart_time + warmup_time                      (RTO)
    checkpoint_copy_time  = checkpoint_size / inter_site_bandwidth
    replication_lag       = checkpoint_write_time + checkpoint_copy_time    (write, then copy)
    standby_cost          = standby_gpus · standby_period · price_per_gpu_hour
    site_loss_cost        = n_gpus · site_recovery_time · price_per_gpu_hour
    standby_break_even_site_losses = standby_cost / site_loss_cost

The first-order model of Young (1974): failures arrive at random (exponential, rate 1/mtbf);
every checkpoint blocks training for checkpoint_write_time; a failure loses on average half an
interval of work plus the restart. The optimum interval minimises the two losses δ/τ + τ/(2M):
Young's √(2δM). It is declared as a consequence of the goodput model below (which is the same
first-order model) and used when no interval is given. Daly (2006) solves a more complete cost
model (time lost to failures during checkpoints and restarts as well) and gives a higher-order
estimate, checkpoint_interval_daly, a little shorter than Young's (by about 2δ/3 when δ ≪ M)
and valid while δ < 2M (at or beyond, Daly checkpoints every M: a job that cannot finish a
checkpoint between failures makes almost no progress). For an asynchronous checkpoint, give
the time it blocks training (the snapshot to host memory) as checkpoint_write_time.

Recovery point and recovery time: the work at risk is at most one checkpoint_interval (on
average half); the recovery time is restart_time (detection, rescheduling, then reading the
last checkpoint back: checkpoint_restore_time, declared in ``storage``); recovery_time adds the
warm-up until the job runs at full speed again (NCCL and data-loader start-up, compilation,
the first slow steps), and recovery_point, the worst-case age of the newest checkpoint that
survives losing the primary tier, adds the replication lag (the write plus the copy to the
second tier) to the interval. Replicating
checkpoints to peer memory or a nearer tier shortens the restore, and a faster write lowers
checkpoint_write_time, hence a shorter optimum interval and less work lost per failure.

A second site: the replication lag is the write to the primary tier and then the copy of the
checkpoint over the inter-site link (6.48 TB over 100 Gb/s: 8.6 min, over 10 Gb/s 1.44 h), so
the checkpoint that survives a lost site is up to an interval plus that lag old. A warm second
cluster held idle for failover costs its accelerator-hours at their price over the period it
is held; what it buys is the recovery without it (finding capacity, provisioning, moving the
data: site_recovery_time) for every accelerator of the job, at the job's price. The standby
pays for itself once the site losses expected over the period reach
standby_break_even_site_losses (with it the job still loses its usual recovery_time; the cost
of that, and any work the standby runs meanwhile, are left out).

Shared pool: a preempted training job hands its accelerators back after it checkpoints and
drains (reclaim_time); traffic rising at ramp_rate uses up the inference floor's headroom in
traffic_headroom / ramp_rate; the reclaim must fit in that time. The floor covers the baseline
plus that headroom; the peak above the floor is borrowed from training.
"""

from sympy import sqrt

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Bounds, Eq, formula, var

from .accelerator import price_per_gpu_hour
from .sources import DEFINITION
from .storage import (
    checkpoint_interval,
    checkpoint_overhead,
    checkpoint_restore_time,
    checkpoint_size,
    checkpoint_write_time,
)
from .training import gpu_hours, n_gpus

SUBJECT = "reliability"

YOUNG_1974 = (
    "Young 1974, A first order approximation to the optimum checkpoint interval, "
    "Communications of the ACM 17(9):530-531"
)
DALY_2006 = (
    "Daly 2006, A higher order estimate of the optimum checkpoint interval for restart dumps, "
    "Future Generation Computer Systems 22(3):303-312, doi:10.1016/j.future.2004.11.016"
)
AWS_DR = (
    "AWS whitepaper, Disaster Recovery of Workloads on AWS: Recovery in the Cloud (2021), "
    "'Disaster recovery options in the cloud' (backup and restore, pilot light, warm standby, "
    "multi-site: the shorter the recovery time, the more idle capacity is paid for)"
)
LLAMA3_2024 = (
    "Llama Team 2024, The Llama 3 Herd of Models, arXiv:2407.21783, §3.3.4 (419 unexpected "
    "interruptions in 54 days on 16,384 H100)"
)

# --- Variables -----------------------------------------------------------------------------
# Accelerator-hours between interruptions that one accelerator (and its share of host,
# network and software) causes: the per-GPU MTBF.
mtbf_per_gpu = var(
    "mtbf_per_gpu",
    "GPU*hour",
    "accelerator-hours between job interruptions, per accelerator (per-GPU MTBF)",
    symbol="M_{gpu}",
)
# Mean time between interruptions of the whole job.
mtbf = var("mtbf", "hour", "mean time between interruptions of the job (cluster MTBF)", symbol="M")
# Interruptions counted (or expected) over a period.
interruptions = var(
    "interruptions", "", "job interruptions counted (or expected) over the period", symbol="n_f"
)
# The period over which interruptions are counted, or the length of a run.
observation_period = var(
    "observation_period",
    "day",
    "period over which interruptions are counted (or the run length)",
    symbol="T_{obs}",
)
# Checkpoint write time over the job MTBF: Daly's nondimensional dump time ξ = δ/M.
checkpoint_write_mtbf_ratio = var(
    "checkpoint_write_mtbf_ratio",
    "",
    "checkpoint write time over the job MTBF, δ/M (Daly's ξ); Daly's higher-order interval "
    "holds below 2 (at or above it Daly checkpoints every M)",
    symbol="\\xi",
    bounds=Bounds(0.0, 2.0, hi_inclusive=False),
)
# Daly's higher-order estimate of the optimum checkpoint interval.
checkpoint_interval_daly = var(
    "checkpoint_interval_daly",
    "min",
    "optimum checkpoint interval, Daly's higher-order estimate (checkpoint_interval is Young's)",
    symbol="\\tau_{D}",
)
# Time from a failure until the job starts reading its checkpoint back.
reschedule_time = var(
    "reschedule_time",
    "min",
    "time from a failure until the relaunched job starts its restore: "
    "detection, excluding or replacing the node, relaunch",
    symbol="t_{resched}",
    bounds=NON_NEGATIVE,
)
# Time from a failure until training runs again (the recovery time).
restart_time = var(
    "restart_time",
    "min",
    "time from a failure until training resumes (recovery time): reschedule + restore",
    symbol="R",
    bounds=NON_NEGATIVE,
)
# Expected wall time a failure costs the job.
lost_time_per_failure = var(
    "lost_time_per_failure",
    "min",
    "expected wall time lost per failure: half an interval plus restart",
    symbol="t_{lost}",
)
# Productive training time over wall time.
goodput = var(
    "goodput", "", "productive training time over wall-clock time", symbol="G", bounds=FRACTION
)
# Accelerator-hours one failure wastes.
lost_gpu_hours_per_failure = var(
    "lost_gpu_hours_per_failure",
    "GPU*hour",
    "accelerator-hours one failure wastes (expected)",
    symbol="H_{lost}",
)
# Money one failure wastes.
cost_per_failure = var(
    "cost_per_failure", "USD", "rental cost one failure wastes (expected)", symbol="\\$_{fail}"
)
# Accelerator-hours of a run lost to checkpoints and failures.
wasted_gpu_hours = var(
    "wasted_gpu_hours",
    "GPU*hour",
    "accelerator-hours lost to checkpoints and failures over a run",
    symbol="H_{waste}",
    bounds=NON_NEGATIVE,
)
# Time from a checkpoint's start until its replica on a second tier is durable.
replication_lag = var(
    "replication_lag",
    "min",
    "time from a checkpoint's start until its copy on a second tier is durable (write + copy)",
    symbol="t_{repl}",
    bounds=NON_NEGATIVE,
)
# Worst-case work lost when the primary tier is lost too: the recovery point.
recovery_point = var(
    "recovery_point",
    "min",
    "worst-case age of the newest surviving checkpoint (recovery point, RPO)",
    symbol="\\mathrm{RPO}",
)
# Time after the restart until the job runs at full speed.
warmup_time = var(
    "warmup_time",
    "min",
    "time after training resumes until it runs at full speed (NCCL set-up, "
    "compilation, data loader, first slow steps)",
    symbol="t_{warm}",
    bounds=NON_NEGATIVE,
)
# Time from a failure until the job runs at full speed again: the recovery time.
recovery_time = var(
    "recovery_time",
    "min",
    "time from a failure until training runs at full speed again (recovery "
    "time, RTO): reschedule + restore + warm-up",
    symbol="\\mathrm{RTO}",
)
# End-to-end rate of a checkpoint copy from one site to another.
inter_site_bandwidth = var(
    "inter_site_bandwidth",
    "Gb/s",
    "end-to-end rate of a checkpoint copy between sites (the inter-site link's share the "
    "copy gets, or the slower storage end)",
    symbol="B_{site}",
)
# Time to copy one checkpoint to the second site.
checkpoint_copy_time = var(
    "checkpoint_copy_time",
    "min",
    "time to copy one checkpoint to a second site over the inter-site link",
    symbol="t_{copy}",
    bounds=NON_NEGATIVE,
)
# Accelerators of a warm second cluster held idle for failover.
standby_gpus = var(
    "standby_gpus",
    "GPU",
    "accelerators of a warm second cluster held idle for failover",
    symbol="n_{standby}",
    bounds=NON_NEGATIVE,
    whole=True,
)
# How long the standby is held.
standby_period = var(
    "standby_period",
    "day",
    "period the warm standby is held (the run, a year)",
    symbol="T_{standby}",
)
# Time to resume after losing the site, without a standby.
site_recovery_time = var(
    "site_recovery_time",
    "day",
    "time to resume the job after losing its site, without a warm standby (find and "
    "provision capacity elsewhere, move the data)",
    symbol="R_{site}",
)
# What the standby costs over the period.
standby_cost = var(
    "standby_cost",
    "USD",
    "rental cost of the warm standby over the period it is held",
    symbol="\\$_{standby}",
    bounds=NON_NEGATIVE,
)
# What one site loss costs without a standby.
site_loss_cost = var(
    "site_loss_cost",
    "USD",
    "cost of one site loss without a standby: the job's accelerators idle for the recovery",
    symbol="\\$_{site}",
)
# Site losses over the period at which the standby pays for itself.
standby_break_even_site_losses = var(
    "standby_break_even_site_losses",
    "",
    "site losses over the period at which the warm standby pays for itself",
    symbol="n_{site}^{*}",
    bounds=NON_NEGATIVE,
)
# Time for a preempted job to stop and hand over its accelerators once checkpointed.
drain_time = var(
    "drain_time",
    "s",
    "time a preempted job takes to stop and release its accelerators after its "
    "checkpoint (kill, clean-up, scheduler)",
    symbol="t_{drain}",
    bounds=NON_NEGATIVE,
)
# Time from the preemption decision until the accelerators are free.
reclaim_time = var(
    "reclaim_time",
    "min",
    "time to take accelerators back from a training job: checkpoint + drain",
    symbol="t_{reclaim}",
)
# How fast traffic rises during a ramp.
ramp_rate = var(
    "ramp_rate", "request/(s*min)", "rise of the request rate per unit time", symbol="\\dot\\lambda"
)
# Spare serving capacity above the current traffic.
traffic_headroom = var(
    "traffic_headroom",
    "request/s",
    "spare serving capacity of the inference floor above current traffic",
    symbol="\\Delta\\lambda",
    bounds=NON_NEGATIVE,
)
# Time until a ramp uses up the headroom.
ramp_time_allowed = var(
    "ramp_time_allowed",
    "min",
    "time until a traffic ramp uses up the headroom",
    symbol="t_{ramp}",
    bounds=NON_NEGATIVE,
)
# Ramp time left after the reclaim; negative means the reclaim is too slow.
reclaim_slack = var(
    "reclaim_slack",
    "min",
    "ramp time left once the reclaim is done (negative: too slow)",
    symbol="t_{slack}",
    bounds=Bounds(float("-inf"), float("inf")),
)
# Traffic the dedicated inference floor must always carry.
baseline_request_rate = var(
    "baseline_request_rate",
    "request/s",
    "baseline traffic the dedicated floor always serves",
    symbol="\\lambda_{base}",
)
# Traffic at the peak.
peak_request_rate = var("peak_request_rate", "request/s", "peak traffic", symbol="\\lambda_{peak}")
# Requests per second one accelerator serves at the planned utilization.
gpu_request_capacity = var(
    "gpu_request_capacity",
    "request/(s*GPU)",
    "requests per second one accelerator serves at planned utilization",
    symbol="\\mu_{gpu}",
)
# Accelerators dedicated to inference.
floor_gpus = var(
    "floor_gpus",
    "GPU",
    "accelerators dedicated to inference (the floor)",
    symbol="n_{floor}",
    whole=True,
)
# Accelerators borrowed from training at the peak.
borrowed_gpus = var(
    "borrowed_gpus",
    "GPU",
    "accelerators borrowed from training at the peak",
    symbol="n_{borrow}",
    bounds=NON_NEGATIVE,
    whole=True,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "cluster_mtbf",
    "Job MTBF from the per-accelerator MTBF",
    Eq(mtbf, mtbf_per_gpu / n_gpus),
    source=f"{DEFINITION}: independent failure rates add",
    subject=SUBJECT,
    note="a job fails when any of its accelerators does",
)

formula(
    "observed_mtbf",
    "Job MTBF from an interruption count",
    Eq(mtbf, observation_period / interruptions),
    source=f"{DEFINITION}; data: {LLAMA3_2024}",
    subject=SUBJECT,
    note="solved for interruptions: the failures to expect over a run",
)

formula(
    "young_interval",
    "Optimum checkpoint interval, Young's first-order form",
    Eq(checkpoint_interval, sqrt(2 * checkpoint_write_time * mtbf)),
    source=YOUNG_1974,
    subject=SUBJECT,
    derived=True,
    note=(
        "the interval that maximises goodput below (minimum of δ/τ + τ/2M); used when no "
        "interval is given. Daly's higher-order estimate is checkpoint_interval_daly"
    ),
)

formula(
    "checkpoint_write_mtbf_ratio",
    "Checkpoint write time over MTBF",
    Eq(checkpoint_write_mtbf_ratio, checkpoint_write_time / mtbf),
    source=f"{DEFINITION} (Daly's nondimensional dump time ξ = δ/M; {DALY_2006})",
    subject=SUBJECT,
    note="Daly's higher-order interval holds for ξ < 2",
)

formula(
    "daly_interval",
    "Optimum checkpoint interval, Daly's higher-order estimate",
    Eq(
        checkpoint_interval_daly,
        sqrt(2 * checkpoint_write_time * mtbf)
        * (1 + sqrt(checkpoint_write_mtbf_ratio / 2) / 3 + checkpoint_write_mtbf_ratio / 18)
        - checkpoint_write_time,
    ),
    source=(
        f"{DALY_2006}: the higher-order estimate τ_opt = √(2δM)·[1 + ⅓(δ/2M)^½ + "
        "⅑(δ/2M)] − δ for δ < 2M, τ_opt = M for δ ≥ 2M (here δ/2M = ξ/2)"
    ),
    subject=SUBJECT,
    forward_only=True,
    note=(
        "solved back for δ it is a cubic and for M a two-root quadratic, so it is "
        "evaluated forward only (for inverse questions use Young's checkpoint_interval); "
        "it reproduces Daly's Figs. 3-5 (δ = 5 min; "
        "M = 24 h, 6 h, 15 min: 117, 57, 9.1 min)"
    ),
)

formula(
    "restart_time",
    "Recovery time after a failure",
    Eq(restart_time, reschedule_time + checkpoint_restore_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="restoring from a replica in a nearer tier (peer memory, local NVMe) shortens it",
)

formula(
    "lost_time_per_failure",
    "Work lost per failure",
    Eq(lost_time_per_failure, checkpoint_interval / 2 + restart_time),
    source=YOUNG_1974,
    subject=SUBJECT,
    note="a failure strikes on average half-way through an interval; worst case a whole one",
)

formula(
    "goodput",
    "Goodput with checkpoints and failures",
    Eq(goodput, 1 - checkpoint_overhead - lost_time_per_failure / mtbf),
    source=f"first-order model of {YOUNG_1974}; {DALY_2006}",
    subject=SUBJECT,
    note="blocking checkpoints; first order in δ/τ and τ/M",
)

formula(
    "lost_gpu_hours_per_failure",
    "Accelerator-hours lost per failure",
    Eq(lost_gpu_hours_per_failure, n_gpus * lost_time_per_failure),
    source=DEFINITION,
    subject=SUBJECT,
    note="every accelerator of the job waits and redoes the lost work",
)

formula(
    "cost_per_failure",
    "Cost of a failure",
    Eq(cost_per_failure, lost_gpu_hours_per_failure * price_per_gpu_hour),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "wasted_gpu_hours",
    "Accelerator-hours lost over a run",
    Eq(wasted_gpu_hours, (1 - goodput) * gpu_hours),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "reclaim_time",
    "Reclaim time of a preempted training job",
    Eq(reclaim_time, checkpoint_write_time + drain_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="checkpointing first keeps the job's work; skipping it loses up to an interval",
)

formula(
    "ramp_time_allowed",
    "Time a traffic ramp allows",
    Eq(ramp_time_allowed, traffic_headroom / ramp_rate),
    source=DEFINITION,
    subject=SUBJECT,
    note="linear ramp from the current traffic",
)

formula(
    "reclaim_slack",
    "Slack between the ramp and the reclaim",
    Eq(reclaim_slack, ramp_time_allowed - reclaim_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="set it to zero and solve for the headroom the floor needs",
)

formula(
    "inference_floor",
    "Dedicated inference floor",
    Eq(floor_gpus, (baseline_request_rate + traffic_headroom) / gpu_request_capacity),
    source=DEFINITION,
    subject=SUBJECT,
    note="the baseline plus the headroom that covers a ramp while training hands GPUs back",
)

formula(
    "borrowed_gpus",
    "Accelerators borrowed at the peak",
    Eq(borrowed_gpus, peak_request_rate / gpu_request_capacity - floor_gpus),
    source=DEFINITION,
    subject=SUBJECT,
    note="the peak above the floor, lent by training",
)

formula(
    "recovery_point",
    "Recovery point of a run",
    Eq(recovery_point, checkpoint_interval + replication_lag),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "the worst case when the primary copy is lost with the job: the last replicated "
        "checkpoint is up to an interval plus the replication lag old; with the primary "
        "intact, the interval alone"
    ),
)

formula(
    "recovery_time",
    "Recovery time of a run",
    Eq(recovery_time, restart_time + warmup_time),
    source=DEFINITION,
    subject=SUBJECT,
    note="restart_time (reschedule + restore) plus the warm-up to full speed",
)

formula(
    "checkpoint_copy_time",
    "Checkpoint copy to a second site",
    Eq(checkpoint_copy_time, checkpoint_size / inter_site_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "bits vs bytes: 6.48 TB over 100 Gb/s is 8.6 min; a long path and few TCP streams "
        "reach far less than the link: give the rate measured"
    ),
)

formula(
    "replication_lag",
    "Replication lag of a checkpoint",
    Eq(replication_lag, checkpoint_write_time + checkpoint_copy_time),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "written to the primary tier, then copied from it; a copy that streams from host "
        "memory while the write runs takes the longer of the two instead"
    ),
)

formula(
    "standby_cost",
    "Cost of a warm standby held idle",
    Eq(standby_cost, standby_gpus * standby_period * price_per_gpu_hour),
    source=f"{DEFINITION}; {AWS_DR}",
    subject=SUBJECT,
    note="its accelerator-hours at their price; work it runs meanwhile would pay some back",
)

formula(
    "site_loss_cost",
    "Cost of a site loss without a standby",
    Eq(site_loss_cost, n_gpus * site_recovery_time * price_per_gpu_hour),
    source=f"{DEFINITION}; {AWS_DR}",
    subject=SUBJECT,
    note="every accelerator of the job idle (still paid for) until it runs elsewhere",
)

formula(
    "standby_break_even_site_losses",
    "Site losses at which a warm standby pays",
    Eq(standby_break_even_site_losses, standby_cost / site_loss_cost),
    source=f"{DEFINITION}; {AWS_DR}",
    subject=SUBJECT,
    note="below one expected site loss per period, the standby costs more than it saves",
)
