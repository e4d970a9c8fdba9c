"""Which way is better for a variable: the ranking of comparisons and the end of a range that
guarantees a requirement ("to be sure of a 30-day deadline, take the high GPU count").

Durations and money are better lower, unless listed below; throughputs, utilizations and the
like are better higher. A variable with no natural direction (a parameter count) has none.
"""

from __future__ import annotations

from napkinmath.library.declare import Variable
from napkinmath.units import ureg

#: better higher, although some are durations (mtbf, slack)
HIGHER = frozenset(
    {
        "mfu",
        "goodput",
        "decode_speed",
        "decode_throughput",
        "train_throughput",
        "max_concurrent_sequences",
        "max_concurrent_sequences_whole",
        "checkpoints_fit",
        "mtbf",
        "mtbf_per_gpu",
        "reclaim_slack",
        "gpu_request_capacity",
        "tokens_per_step",
        "allreduce_algbw",
        "allreduce_busbw",
        "peak_flops",
        "peak_flops_fp8",
        "peak_flops_int8",
        "hbm_bandwidth",
        "hbm_capacity",
        "nvlink_bandwidth",
        "link_bandwidth",
        "storage_bandwidth",
        "storage_write_bandwidth",
        "snapshot_bandwidth",
        "active_param_fraction",
    }
)
#: better lower, beyond durations and money
LOWER = frozenset(
    {
        "utilization",
        "pipeline_bubble_fraction",
        "n_gpus",
        "n_nodes",
        "serving_gpus",
        "n_replicas",
        "checkpoint_overhead",
    }
)

_TIME = ureg.second.dimensionality
_MONEY = "[currency]"


#: what a plan chooses or a datasheet states: never a requirement to guarantee
CHOICES = LOWER | frozenset(
    {
        "mfu",
        "peak_flops",
        "peak_flops_fp8",
        "peak_flops_int8",
        "hbm_bandwidth",
        "hbm_capacity",
        "nvlink_bandwidth",
        "link_bandwidth",
        "storage_bandwidth",
        "storage_write_bandwidth",
        "snapshot_bandwidth",
        "active_param_fraction",
        "tokens_per_step",
        "mtbf_per_gpu",
    }
)


def is_requirement(var: Variable) -> bool:
    """An outcome a user may require (a deadline, a budget, a throughput), not a choice."""
    return better(var) is not None and var.name not in CHOICES


def better(var: Variable) -> str | None:
    """'lower', 'higher' or None (no natural direction)."""
    if var.name in HIGHER:
        return "higher"
    if var.name in LOWER:
        return "lower"
    dims = var.dimensionality
    if dims == _TIME or any(d == _MONEY for d in dims):
        return "lower"
    return None
