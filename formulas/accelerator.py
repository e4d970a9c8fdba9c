"""Accelerator specifications shared by every subject: compute, memory, links, price.

Hardware records (``napkinmath.hardware``) bind these by name when a solve names a ``gpu=``.
"""

from napkinmath.library.declare import FRACTION, Eq, formula, var

from .sources import DEFINITION

SUBJECT = "accelerator"

# Peak dense throughput of one accelerator at the training precision (BF16 unless stated).
peak_flops = var(
    "peak_flops",
    "TFLOP/(s*GPU)",
    "peak dense throughput per accelerator at the working precision (BF16)",
    symbol="P_{\\mathrm{peak}}",
)
# Peak dense FP8 throughput of one accelerator.
peak_flops_fp8 = var(
    "peak_flops_fp8",
    "TFLOP/(s*GPU)",
    "peak dense FP8 throughput per accelerator",
    symbol="P_{\\mathrm{fp8}}",
)
# Peak dense INT8 throughput of one accelerator (integer operations counted as FLOP), the
# peak precision="int8" selects (napkinmath.solving.precision).
peak_flops_int8 = var(
    "peak_flops_int8",
    "TFLOP/(s*GPU)",
    "peak dense INT8 throughput per accelerator (TOPS counted as TFLOP/s)",
    symbol="P_{\\mathrm{int8}}",
)
# High-bandwidth memory on one accelerator (decimal GB).
hbm_capacity = var(
    "hbm_capacity", "GB/GPU", "HBM capacity per accelerator", symbol="M_{\\mathrm{HBM}}"
)
# Share of each accelerator's HBM a serving engine lets weights and KV cache use.
hbm_usable_fraction = var(
    "hbm_usable_fraction",
    "",
    "share of each accelerator's HBM a serving engine uses for weights and KV cache",
    symbol="u_{\\mathrm{HBM}}",
    bounds=FRACTION,
    default=0.9,
    default_note=(
        "90% of HBM usable, vLLM's default gpu_memory_utilization = 0.9 (vLLM engine "
        "arguments); the rest is left for activations, CUDA graphs and the runtime"
    ),
)
# HBM bandwidth of one accelerator.
hbm_bandwidth = var(
    "hbm_bandwidth", "TB/(s*GPU)", "HBM bandwidth per accelerator", symbol="B_{\\mathrm{HBM}}"
)
# Scale-up link (NVLink) bandwidth of one accelerator, ONE direction.
nvlink_bandwidth = var(
    "nvlink_bandwidth",
    "GB/(s*GPU)",
    "scale-up (NVLink) bandwidth per accelerator, one direction",
    symbol="B_{\\mathrm{NVL}}",
)
# The same link counted in both directions, as datasheets quote it.
nvlink_bandwidth_bidirectional = var(
    "nvlink_bandwidth_bidirectional",
    "GB/(s*GPU)",
    "scale-up (NVLink) bandwidth per accelerator, both directions added (datasheet figure)",
    symbol="B_{\\mathrm{NVL,2}}",
)
# Accelerators in one server.
gpus_per_node = var(
    "gpus_per_node",
    "GPU/node",
    "accelerators per server (node)",
    symbol="g",
    default=8,
    default_note=("8 GPUs per node, as in NVIDIA HGX/DGX baseboards"),
    whole=True,
)
# Rental price of one accelerator for one hour (an assumption: prices move).
price_per_gpu_hour = var(
    "price_per_gpu_hour", "USD/(GPU*hour)", "rental price of one accelerator-hour", symbol="p"
)
# Board power of one accelerator.
tdp = var("tdp", "W/GPU", "thermal design power per accelerator", symbol="P_{\\mathrm{TDP}}")

formula(
    "nvlink_both_directions",
    "Link bandwidth counted both ways",
    Eq(nvlink_bandwidth_bidirectional, 2 * nvlink_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    note="datasheets add both directions; a ring or a copy moves data one way per link",
)
