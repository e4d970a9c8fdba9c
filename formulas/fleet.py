"""Fleets sized for their peak: dedicated per-service fleets against one shared pool.

    dedicated_fleet_utilization = fleet_mean_load / fleet_peak_load_sum
    pooled_fleet_utilization    = fleet_mean_load / fleet_peak_load_pooled
    pooling_gpus_saved          = fleet_peak_load_sum − fleet_peak_load_pooled
    fleet_mean_load             = fleet_mean_request_rate / gpu_request_capacity
    fleet_peak_load_sum         = fleet_peak_request_rate_sum / gpu_request_capacity
    fleet_peak_load_pooled      = fleet_peak_request_rate_pooled / gpu_request_capacity

An inference fleet provisioned for its peak is busy, on average, its mean load over its peak:
a service whose traffic swings between 200 and 1,000 GPUs' worth over a day, averaging 500, runs
a 1,000-GPU fleet at 50%. Several services, each with its own peak-sized fleet, provision the
sum of their peaks; one shared pool provisions the peak of their sum, which is lower wherever
the peaks do not coincide (time zones, batch work that fills the troughs). The mean load is
the same either way, so the pool's utilization is higher by the ratio of the two peaks: two
services averaging 500 each with peaks of 1,000 at different hours need 2,000 GPUs dedicated
(50%) and, if their combined load peaks at 1,400, 1,400 pooled (71%), 600 saved. Borg's
analysis found the same for Google's clusters: splitting production and batch work into
separate cells would need 20-30% more machines. Loads are in GPUs' worth of work: traffic in
requests a second over what one GPU serves at the planned utilization (gpu_request_capacity,
the figure the floor-and-borrow formulas of ``reliability`` use), so the same questions can be
asked in request rates; provisioning exactly at the peak leaves no headroom for a failure or a
ramp (see ``reliability``'s shared pool).
"""

from napkinmath.library.declare import Bounds, Eq, formula, var

from .reliability import gpu_request_capacity
from .sources import DEFINITION

SUBJECT = "serving"

BORG_2015 = (
    "Verma et al. 2015, Large-scale cluster management at Google with Borg, EuroSys '15, §5.1 "
    "(cell sharing: segregating prod and non-prod work would need 20-30% more machines)"
)

# --- Variables -----------------------------------------------------------------------------
# Mean load of the services, in accelerators' worth of work.
fleet_mean_load = var(
    "fleet_mean_load",
    "GPU",
    "mean load of the services, in accelerators busy (summed over the services)",
    symbol="\\bar{L}",
)
# What dedicated fleets provision: each service's own peak, added up.
fleet_peak_load_sum = var(
    "fleet_peak_load_sum",
    "GPU",
    "sum of each service's own peak load: what peak-sized dedicated fleets provision",
    symbol="\\sum L_{peak}",
)
# What one shared pool provisions: the peak of the combined load.
fleet_peak_load_pooled = var(
    "fleet_peak_load_pooled",
    "GPU",
    "peak of the services' combined load: what one shared pool provisions",
    symbol="L_{peak,pool}",
)
# Utilization of the dedicated fleets.
dedicated_fleet_utilization = var(
    "dedicated_fleet_utilization",
    "",
    "mean utilization of peak-sized dedicated fleets",
    symbol="u_{ded}",
    bounds=Bounds(0.0, 1.0),
)
# Utilization of the shared pool.
pooled_fleet_utilization = var(
    "pooled_fleet_utilization",
    "",
    "mean utilization of one shared pool sized for the combined peak",
    symbol="u_{pool}",
    bounds=Bounds(0.0, 1.0),
)
# Accelerators the pool saves.
pooling_gpus_saved = var(
    "pooling_gpus_saved",
    "GPU",
    "accelerators a shared pool saves against peak-sized dedicated fleets",
    symbol="\\Delta n_{pool}",
    bounds=Bounds(0.0, float("inf"), lo_inclusive=True),
    whole=True,
)

# Mean traffic of the services, in requests a second.
fleet_mean_request_rate = var(
    "fleet_mean_request_rate",
    "request/s",
    "mean traffic of the services, summed over them",
    symbol="\\bar{\\lambda}",
)
# Each service's own peak traffic, added up.
fleet_peak_request_rate_sum = var(
    "fleet_peak_request_rate_sum",
    "request/s",
    "sum of each service's own peak traffic",
    symbol="\\sum \\lambda_{peak}",
)
# The peak of the services' combined traffic.
fleet_peak_request_rate_pooled = var(
    "fleet_peak_request_rate_pooled",
    "request/s",
    "peak of the services' combined traffic",
    symbol="\\lambda_{peak,pool}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "dedicated_fleet_utilization",
    "Utilization of peak-sized dedicated fleets",
    Eq(dedicated_fleet_utilization, fleet_mean_load / fleet_peak_load_sum),
    source=DEFINITION,
    subject=SUBJECT,
    note="each fleet sized for its own peak is busy its mean over its peak",
)

formula(
    "pooled_fleet_utilization",
    "Utilization of a shared pool",
    Eq(pooled_fleet_utilization, fleet_mean_load / fleet_peak_load_pooled),
    source=f"{DEFINITION}; {BORG_2015}",
    subject=SUBJECT,
    note="the same mean load over the peak of the sum, which is at most the sum of the peaks",
)

formula(
    "pooling_gpus_saved",
    "Accelerators a shared pool saves",
    Eq(pooling_gpus_saved, fleet_peak_load_sum - fleet_peak_load_pooled),
    source=f"{DEFINITION}; {BORG_2015}",
    subject=SUBJECT,
    note="zero when every service peaks at the same moment",
)

formula(
    "fleet_mean_load",
    "Mean load from the mean traffic",
    Eq(fleet_mean_load, fleet_mean_request_rate / gpu_request_capacity),
    source=DEFINITION,
    subject=SUBJECT,
    note="requests a second over what one accelerator serves at the planned utilization",
)

formula(
    "fleet_peak_load_sum",
    "Dedicated fleets' load from their peak traffic",
    Eq(fleet_peak_load_sum, fleet_peak_request_rate_sum / gpu_request_capacity),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "fleet_peak_load_pooled",
    "Shared pool's load from its peak traffic",
    Eq(fleet_peak_load_pooled, fleet_peak_request_rate_pooled / gpu_request_capacity),
    source=DEFINITION,
    subject=SUBJECT,
)
