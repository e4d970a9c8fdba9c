"""Acceptance against production: how much of a run's lost MFU each layer can hold.

    network_efficiency           = allreduce_busbw / link_bandwidth           (acceptance test)
    step_share_hardware_matmul   = mfu · (1/matmul_efficiency − 1)
    step_share_memory_bound      = profiled_memory_bound_time / step_time
    step_share_hardware_memory   = step_share_memory_bound · (1 − hbm_efficiency)
    step_share_hardware          = step_share_hardware_matmul + step_share_hardware_memory
    step_share_communication     = profiled_comm_time / step_time
    step_share_network           = step_share_communication · (1 − network_efficiency)
    step_share_input             = profiled_input_wait / step_time
    step_share_framework         = 1 − mfu − step_share_hardware − step_share_communication
                                     − step_share_input                            (the rest)
    step_share_beyond_matmul     = 1 − mfu_achievable         (all but the matmul shortfall)
    mfu_shortfall                = 1 − mfu                                 (the MFU gap)
    mfu_gap_share_X              = step_share_X / mfu_shortfall   (X: hardware, communication,
                                                                input, framework; they sum to 1)

The decomposition is a time budget of one measured step, in shares of that step (points of
MFU): 1 = mfu + hardware + communication + input + framework. mfu is the step's useful model
FLOPs at the datasheet peak. The hardware layer holds what the acceptance tests say the chips
cannot do: the same matmuls at the measured matmul rate instead of the peak, mfu·(1/η_mm − 1),
and the memory-bound kernels (optimizer, norms, elementwise) at the measured HBM bandwidth,
their profiled share times (1 − η_HBM). Communication holds the exposed (not overlapped)
collective time a profile shows; of it, the fabric's own shortfall (the acceptance all-reduce
reaching network_efficiency of the link) is step_share_communication · (1 − η_net), the rest
is volume and overlap, the software's. Input holds the data-loader wait. Framework and
scheduling hold the rest: non-matmul kernel time at the achievable rate, launch gaps, host
overhead, stragglers, whatever no measured part explains; a negative rest means the measured
parts overlap (a collective counted while the loader also waited).

Additive rather than a product MFU = η_mm · η_comm · η_input · η_framework (whose log-shares
also sum to one) because the parts are measured as times, a time budget sums exactly whatever
order the layers are read in, and a share of the step reads directly as points of MFU. With
only the acceptance figures and the production MFU, the hardware's share is known and the
rest, step_share_beyond_matmul = 1 − MFU/η_mm, is the most the layers above it can hold
together: MFU 40% on chips whose matmuls reach 80% of peak leaves 10 points to the hardware
(a sixth of the 60-point gap) and 50 to memory, communication, input and the framework.
"""

from napkinmath.library.declare import NON_NEGATIVE, Bounds, Eq, formula, var

from .communication import NCCL_TESTS, allreduce_busbw, link_bandwidth
from .efficiency import BEKMAN_MAMF, hbm_efficiency, matmul_efficiency, mfu_achievable
from .sources import DEFINITION
from .step_time import step_time
from .training import mfu

SUBJECT = "efficiency"

BUDGET = f"{DEFINITION}: a time budget of one measured step, in shares of the step (points of MFU)"
#: a share of the step, zero included (a part the profile found empty)
SHARE = Bounds(0.0, 1.0, lo_inclusive=True)
#: the rest, which is negative when measured parts overlap
_ANY = Bounds(float("-inf"), 1.0)

# --- Variables -----------------------------------------------------------------------------
# The acceptance test's all-reduce bus bandwidth over the link's.
network_efficiency = var(
    "network_efficiency",
    "",
    "acceptance-test all-reduce bus bandwidth over the link's per-direction bandwidth "
    "(above 1 with in-network reduction: NVLink SHARP, InfiniBand SHARP)",
    symbol="\\eta_{net}",
)
# Exposed collective time of one production step, from a profile.
profiled_comm_time = var(
    "profiled_comm_time",
    "s",
    "collective time of one production step not hidden behind compute, from a profile",
    symbol="t_{comm,prof}",
    bounds=NON_NEGATIVE,
)
# Time one production step waits on its input pipeline, from a profile.
profiled_input_wait = var(
    "profiled_input_wait",
    "s",
    "time one production step waits on the input pipeline (data loader), from a profile",
    symbol="t_{input,prof}",
    bounds=NON_NEGATIVE,
)
# Time one production step spends in memory-bound kernels, from a profile.
profiled_memory_bound_time = var(
    "profiled_memory_bound_time",
    "s",
    "time one production step spends in memory-bound kernels (optimizer, norms, "
    "elementwise), from a profile",
    symbol="t_{mem,prof}",
    bounds=NON_NEGATIVE,
)
# Share of the step in memory-bound kernels.
step_share_memory_bound = var(
    "step_share_memory_bound",
    "",
    "share of a step spent in memory-bound kernels (optimizer, norms, elementwise)",
    symbol="s_{mem}",
    bounds=SHARE,
)
# Points of MFU the matmuls lose to the measured matmul rate.
step_share_hardware_matmul = var(
    "step_share_hardware_matmul",
    "",
    "share of a step the hardware's matmul shortfall holds: the model's matmuls at the "
    "measured rate rather than the peak",
    symbol="s_{hw,mm}",
    bounds=SHARE,
)
# Points of MFU memory-bound kernels lose to the measured HBM bandwidth.
step_share_hardware_memory = var(
    "step_share_hardware_memory",
    "",
    "share of a step the hardware's memory shortfall holds: memory-bound kernels at the "
    "measured rather than the datasheet HBM bandwidth",
    symbol="s_{hw,mem}",
    bounds=SHARE,
)
# The hardware layer's share of the step.
step_share_hardware = var(
    "step_share_hardware",
    "",
    "share of a step the hardware layer holds (what the acceptance tests say the chips cannot do)",
    symbol="s_{hw}",
    bounds=SHARE,
)
# The communication layer's share of the step.
step_share_communication = var(
    "step_share_communication",
    "",
    "share of a step spent in exposed collectives (the communication layer)",
    symbol="s_{comm}",
    bounds=SHARE,
)
# The fabric's own part of the communication share.
step_share_network = var(
    "step_share_network",
    "",
    "part of the communication share the fabric's shortfall below link speed holds, as a "
    "fraction of the step (negative with in-network reduction)",
    symbol="s_{net}",
    bounds=_ANY,
)
# The input pipeline's share of the step.
step_share_input = var(
    "step_share_input",
    "",
    "share of a step spent waiting on the input pipeline",
    symbol="s_{input}",
    bounds=SHARE,
)
# Framework and scheduling: what is left.
step_share_framework = var(
    "step_share_framework",
    "",
    "share of a step the framework and scheduling hold, as a fraction: what the other "
    "layers leave (negative when measured parts overlap)",
    symbol="s_{fw}",
    bounds=_ANY,
)
# What the layers above the matmul hardware hold together.
step_share_beyond_matmul = var(
    "step_share_beyond_matmul",
    "",
    "share of a step the matmul acceptance figure leaves unexplained: the most "
    "memory, communication, input and framework can hold together",
    symbol="s_{>mm}",
    bounds=SHARE,
)
# The MFU gap: the share of the step not spent on useful FLOPs at the peak.
mfu_shortfall = var(
    "mfu_shortfall",
    "",
    "share of a step not spent on the model's FLOPs at the datasheet peak, 1 − MFU (the gap "
    "the layers share)",
    symbol="\\Delta_{\\mathrm{MFU}}",
    bounds=Bounds(0.0, 1.0),
)
# Each layer's share of the MFU gap (1 − MFU).
mfu_gap_share_hardware = var(
    "mfu_gap_share_hardware",
    "",
    "share of the MFU gap (1 − MFU) the hardware layer holds",
    symbol="g_{hw}",
    bounds=SHARE,
)
mfu_gap_share_communication = var(
    "mfu_gap_share_communication",
    "",
    "share of the MFU gap (1 − MFU) exposed communication holds",
    symbol="g_{comm}",
    bounds=SHARE,
)
mfu_gap_share_input = var(
    "mfu_gap_share_input",
    "",
    "share of the MFU gap (1 − MFU) the input pipeline holds",
    symbol="g_{input}",
    bounds=SHARE,
)
mfu_gap_share_framework = var(
    "mfu_gap_share_framework",
    "",
    "share of the MFU gap (1 − MFU) the framework and scheduling hold, as a fraction (the rest)",
    symbol="g_{fw}",
    bounds=_ANY,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "network_efficiency",
    "Network efficiency of an acceptance all-reduce",
    Eq(network_efficiency, allreduce_busbw / link_bandwidth),
    source=f"{NCCL_TESTS}: busbw is the figure to compare with the hardware's peak",
    subject=SUBJECT,
    note="an 8×H100 node over NVLink 4 at 360 of 450 GB/s per direction: 0.80",
)

formula(
    "step_share_hardware_matmul",
    "Hardware's share of a step: matmuls at the measured rate",
    Eq(step_share_hardware_matmul, mfu * (1 / matmul_efficiency - 1)),
    source=f"{BEKMAN_MAMF}; {BUDGET}",
    subject=SUBJECT,
    note="the useful FLOPs took mfu of the step at peak, mfu/η_mm at the measured rate: "
    "MFU 0.40 at η_mm 0.80 leaves 0.10",
)

formula(
    "step_share_memory_bound",
    "Share of a step in memory-bound kernels",
    Eq(step_share_memory_bound, profiled_memory_bound_time / step_time),
    source=BUDGET,
    subject=SUBJECT,
)

formula(
    "step_share_hardware_memory",
    "Hardware's share of a step: memory-bound kernels at the measured bandwidth",
    Eq(step_share_hardware_memory, step_share_memory_bound * (1 - hbm_efficiency)),
    source=BUDGET,
    subject=SUBJECT,
    note="a kernel at the measured bandwidth would take η_HBM of its time at the datasheet's",
)

formula(
    "step_share_hardware",
    "Hardware layer's share of a step",
    Eq(step_share_hardware, step_share_hardware_matmul + step_share_hardware_memory),
    source=BUDGET,
    subject=SUBJECT,
)

formula(
    "step_share_communication",
    "Communication layer's share of a step",
    Eq(step_share_communication, profiled_comm_time / step_time),
    source=BUDGET,
    subject=SUBJECT,
    note="exposed time only: a collective hidden behind compute costs the step nothing",
)

formula(
    "step_share_network",
    "The fabric's part of the communication share",
    Eq(step_share_network, step_share_communication * (1 - network_efficiency)),
    source=f"{NCCL_TESTS}; {BUDGET}",
    subject=SUBJECT,
    note="bandwidth-bound collectives at the acceptance bus bandwidth: at link speed they "
    "would take η_net of their time; the rest of the share is volume and overlap",
)

formula(
    "step_share_input",
    "Input pipeline's share of a step",
    Eq(step_share_input, profiled_input_wait / step_time),
    source=BUDGET,
    subject=SUBJECT,
)

formula(
    "step_share_framework",
    "Framework and scheduling share of a step (the rest)",
    Eq(
        step_share_framework,
        1 - mfu - step_share_hardware - step_share_communication - step_share_input,
    ),
    source=BUDGET,
    subject=SUBJECT,
    note="non-matmul kernels, launch gaps, host overhead, stragglers: what no measured part "
    "explains",
)

formula(
    "step_share_beyond_matmul",
    "Share of a step beyond the matmul shortfall",
    Eq(step_share_beyond_matmul, 1 - mfu_achievable),
    source=f"{BEKMAN_MAMF}; {BUDGET}",
    subject=SUBJECT,
    note="1 − MFU/η_mm: MFU 0.40 at η_mm 0.80 leaves 0.50 to memory, communication, input "
    "and the framework together",
)

formula(
    "mfu_shortfall",
    "The MFU gap",
    Eq(mfu_shortfall, 1 - mfu),
    source=BUDGET,
    subject=SUBJECT,
    note="MFU 40%: 60 points for the layers to hold",
)

for _layer, _share, _name in (
    ("hardware", step_share_hardware, mfu_gap_share_hardware),
    ("communication", step_share_communication, mfu_gap_share_communication),
    ("input", step_share_input, mfu_gap_share_input),
    ("framework", step_share_framework, mfu_gap_share_framework),
):
    formula(
        f"mfu_gap_share_{_layer}",
        f"Share of the MFU gap the {_layer} layer holds",
        Eq(_name, _share / mfu_shortfall),
        source=BUDGET,
        subject=SUBJECT,
        note="the four layers' shares of the gap sum to 1",
    )
