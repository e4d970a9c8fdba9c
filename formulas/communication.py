"""Collective communication: bytes each rank sends, time on a link, and hiding it behind compute.

    allreduce_bytes_per_rank = 2(n − 1)/n · message_bytes                        (ring)
    allgather / reduce-scatter / all-to-all: (n − 1)/n · message_bytes
    allreduce_time           = allreduce_bytes_per_rank / link_bandwidth   (ONE direction)
    allreduce_busbw          = allreduce_algbw · 2(n − 1)/n,   allreduce_algbw = S / t
    allreduce_exposed_time   = max(allreduce_time, backward_time) − backward_time

``link_bandwidth`` is the per-direction bandwidth each rank sends at (its bottleneck link:
NVLink inside a node, the NIC port across nodes). A ring moves data one way on each link, so
a both-directions datasheet figure (NVLink 4's 900 GB/s) is twice too much: the H100 record
gives ``nvlink_bandwidth`` = 450 GB/s per direction, used when no link is given. The message
of a data-parallel gradient all-reduce is the gradient buffer, ``gradient_memory``, used when
no ``message_bytes`` is given. Sources: NCCL tests' PERFORMANCE.md; Patarasuk and Yuan 2009.
"""

from sympy import Max, Mul

from napkinmath.library.declare import NON_NEGATIVE, Eq, formula, var

from .accelerator import nvlink_bandwidth
from .memory import gradient_memory
from .parallelism import gpus_per_rank
from .sources import DEFINITION
from .step_time import backward_fraction, backward_time

SUBJECT = "communication"

NCCL_TESTS = "NVIDIA nccl-tests, doc/PERFORMANCE.md (algorithm and bus bandwidth)"
PATARASUK_2009 = (
    "Patarasuk and Yuan 2009, Bandwidth Optimal All-reduce Algorithms for Clusters of "
    "Workstations, J. Parallel Distrib. Comput. 69(2)"
)
THAKUR_2005 = (
    "Thakur, Rabenseifner and Gropp 2005, Optimization of Collective Communication Operations "
    "in MPICH, Int. J. High Perform. Comput. Appl. 19(1) (ring all-gather, reduce-scatter)"
)
OVERLAP = (
    "Li et al. 2020, PyTorch Distributed: Experiences on Accelerating Data Parallel Training, "
    "arXiv:2006.15704, §3.2 (gradient buckets all-reduced during the backward pass)"
)

# --- Variables -----------------------------------------------------------------------------
# Ranks taking part in the collective (the ring's length).
n_ranks = var("n_ranks", "", "ranks in the collective (ring length)", symbol="n", whole=True)
# Buffer size S of the collective (for an all-reduce, each rank's whole buffer).
message_bytes = var(
    "message_bytes",
    "GB",
    "collective buffer size S (all-reduce: each rank's whole buffer; 0 when nothing is trained)",
    symbol="S",
    bounds=NON_NEGATIVE,
)
# Per-direction bandwidth each rank sends at: its bottleneck link.
link_bandwidth = var(
    "link_bandwidth",
    "GB/s",
    "per-direction bandwidth each rank sends at (its bottleneck link)",
    symbol="B_{link}",
)
# The same link with both directions added, as NVLink and PCIe datasheets quote it.
link_bandwidth_bidirectional = var(
    "link_bandwidth_bidirectional",
    "GB/s",
    "link bandwidth with both directions added (datasheet figure for NVLink, PCIe)",
    symbol="B_{link,2}",
)
# Bytes each rank sends in a ring all-reduce.
allreduce_bytes_per_rank = var(
    "allreduce_bytes_per_rank",
    "GB",
    "bytes each rank sends in a ring all-reduce",
    symbol="V_{AR}",
    bounds=NON_NEGATIVE,
)
# Bytes each rank sends in a ring all-gather.
allgather_bytes_per_rank = var(
    "allgather_bytes_per_rank",
    "GB",
    "bytes each rank sends in an all-gather (S = gathered output)",
    symbol="V_{AG}",
    bounds=NON_NEGATIVE,
)
# Bytes each rank sends in a ring reduce-scatter.
reduce_scatter_bytes_per_rank = var(
    "reduce_scatter_bytes_per_rank",
    "GB",
    "bytes each rank sends in a reduce-scatter (S = whole input)",
    symbol="V_{RS}",
    bounds=NON_NEGATIVE,
)
# Bytes each rank sends in an all-to-all.
alltoall_bytes_per_rank = var(
    "alltoall_bytes_per_rank",
    "GB",
    "bytes each rank sends in an all-to-all (S = its send buffer)",
    symbol="V_{A2A}",
    bounds=NON_NEGATIVE,
)
# Time of the all-reduce at the link bandwidth (bandwidth term; latency left out).
allreduce_time = var(
    "allreduce_time",
    "s",
    "all-reduce time at the link bandwidth",
    symbol="t_{AR}",
    bounds=NON_NEGATIVE,
)
# Time of the all-gather.
allgather_time = var(
    "allgather_time",
    "s",
    "all-gather time at the link bandwidth",
    symbol="t_{AG}",
    bounds=NON_NEGATIVE,
)
# Time of the reduce-scatter.
reduce_scatter_time = var(
    "reduce_scatter_time",
    "s",
    "reduce-scatter time at the link bandwidth",
    symbol="t_{RS}",
    bounds=NON_NEGATIVE,
)
# Time of the all-to-all.
alltoall_time = var(
    "alltoall_time",
    "s",
    "all-to-all time at the link bandwidth",
    symbol="t_{A2A}",
    bounds=NON_NEGATIVE,
)
# NCCL's algorithm bandwidth of an all-reduce: buffer size over time.
allreduce_algbw = var(
    "allreduce_algbw", "GB/s", "all-reduce algorithm bandwidth S/t (NCCL algbw)", symbol="B_{alg}"
)
# NCCL's bus bandwidth of an all-reduce: comparable with the link's per-direction bandwidth.
allreduce_busbw = var(
    "allreduce_busbw",
    "GB/s",
    "all-reduce bus bandwidth, comparable with the link (NCCL busbw)",
    symbol="B_{bus}",
)
# All-reduce time left over once the backward pass ends (0 when it hides).
allreduce_exposed_time = var(
    "allreduce_exposed_time",
    "s",
    "all-reduce time not hidden behind the backward pass (0 when it hides)",
    symbol="t_{exposed}",
    bounds=NON_NEGATIVE,
)
# Shortest predicted step time whose backward pass still hides the all-reduce.
step_time_overlap_limit = var(
    "step_time_overlap_limit",
    "s",
    "shortest predicted step time whose backward pass still hides the all-reduce",
    symbol="t_{step,min}",
)

# --- Formulas ------------------------------------------------------------------------------
# 2(n − 1)/n, kept in that shape (sympy would expand it to (2n − 2)/n).
RING_FACTOR = Mul(2, n_ranks - 1, evaluate=False) / n_ranks

formula(
    "allreduce_bytes_per_rank",
    "Ring all-reduce: bytes each rank sends",
    Eq(allreduce_bytes_per_rank, RING_FACTOR * message_bytes),
    source=f"{PATARASUK_2009}; {NCCL_TESTS}",
    subject=SUBJECT,
    note=(
        "a reduce-scatter then an all-gather, each (n−1)/n of the buffer; approaches "
        "2 × the buffer for large n"
    ),
)

formula(
    "allgather_bytes_per_rank",
    "All-gather: bytes each rank sends",
    Eq(allgather_bytes_per_rank, (n_ranks - 1) / n_ranks * message_bytes),
    source=f"{THAKUR_2005}; {NCCL_TESTS}",
    subject=SUBJECT,
    note="S is the gathered output; each rank contributes S/n",
)

formula(
    "reduce_scatter_bytes_per_rank",
    "Reduce-scatter: bytes each rank sends",
    Eq(reduce_scatter_bytes_per_rank, (n_ranks - 1) / n_ranks * message_bytes),
    source=f"{THAKUR_2005}; {NCCL_TESTS}",
    subject=SUBJECT,
    note="S is the whole input; each rank ends with its reduced S/n",
)

formula(
    "alltoall_bytes_per_rank",
    "All-to-all: bytes each rank sends",
    Eq(alltoall_bytes_per_rank, (n_ranks - 1) / n_ranks * message_bytes),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note="each rank keeps 1/n of its send buffer and sends the rest (MoE token dispatch)",
)

formula(
    "allreduce_time",
    "All-reduce time",
    Eq(allreduce_time, allreduce_bytes_per_rank / link_bandwidth),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note=(
        "bandwidth term only (large messages); the per-direction bandwidth, since every "
        "rank sends and receives at once"
    ),
)

formula(
    "allgather_time",
    "All-gather time",
    Eq(allgather_time, allgather_bytes_per_rank / link_bandwidth),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note="bandwidth term only (large messages)",
)

formula(
    "reduce_scatter_time",
    "Reduce-scatter time",
    Eq(reduce_scatter_time, reduce_scatter_bytes_per_rank / link_bandwidth),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note="bandwidth term only (large messages)",
)

formula(
    "alltoall_time",
    "All-to-all time",
    Eq(alltoall_time, alltoall_bytes_per_rank / link_bandwidth),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note="bandwidth term only; across nodes the NIC, not NVLink, is the bottleneck",
)

formula(
    "allreduce_algbw",
    "All-reduce algorithm bandwidth",
    Eq(allreduce_algbw, message_bytes / allreduce_time),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note="what nccl-tests prints as algbw",
)

formula(
    "allreduce_busbw",
    "All-reduce bus bandwidth",
    Eq(allreduce_busbw, allreduce_algbw * RING_FACTOR),
    source=NCCL_TESTS,
    subject=SUBJECT,
    note=(
        "what nccl-tests prints as busbw: compare it with the link's per-direction "
        "bandwidth; give a measured busbw to time an all-reduce"
    ),
)

formula(
    "link_both_directions",
    "Link bandwidth counted both ways",
    Eq(link_bandwidth_bidirectional, 2 * link_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    note="datasheets add both directions; a ring moves data one way per link",
)

formula(
    "link_is_nvlink",
    "Collective inside an NVLink domain",
    Eq(link_bandwidth, nvlink_bandwidth * gpus_per_rank),
    source=DEFINITION,
    subject=SUBJECT,
    derived=True,
    forward_only=True,
    note=(
        "used only when no link_bandwidth is given and the collective's nodes are not: its "
        "ranks share one node and run over NVLink at its per-direction figure; across nodes "
        "give node_ranks (hierarchical links) or the NIC's link_bandwidth"
    ),
)

formula(
    "allreduce_message_is_gradients",
    "Data-parallel all-reduce of the gradients",
    Eq(message_bytes, gradient_memory),
    source=f"{OVERLAP}; {PATARASUK_2009}",
    subject=SUBJECT,
    derived=True,
    note=(
        "used only when no message_bytes is given: data parallelism all-reduces every "
        "gradient once per step"
    ),
)

formula(
    "allreduce_exposed_time",
    "All-reduce time not hidden",
    Eq(allreduce_exposed_time, Max(allreduce_time, backward_time, evaluate=False) - backward_time),
    source=OVERLAP,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "gradient buckets are all-reduced while the backward pass runs; only what "
        "outlasts it adds to the step (0 when it hides)"
    ),
)

formula(
    "step_time_overlap_limit",
    "Shortest step that hides the all-reduce",
    Eq(step_time_overlap_limit, allreduce_time / backward_fraction),
    source=OVERLAP,
    subject=SUBJECT,
    note=(
        "below this predicted step time the backward pass (about 2/3 of the step) is "
        "shorter than the all-reduce, which stops hiding"
    ),
)
