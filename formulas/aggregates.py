"""Aggregates and peaks: per-node and per-pod totals, and the peak from the clock, so that a
datasheet's rows can be checked against each other.

    node_peak_flops      = gpus_per_node · peak_flops                  (per node)
    node_hbm_capacity    = gpus_per_node · hbm_capacity
    node_hbm_bandwidth   = gpus_per_node · hbm_bandwidth
    node_gpu_power       = gpus_per_node · tdp
    pod_peak_flops       = gpus_per_pod · peak_flops                   (one pod or NVLink domain)
    pod_hbm_capacity     = gpus_per_pod · hbm_capacity
    peak_flops_from_clock = compute_units · flop_per_cycle_per_unit · clock_rate

Vendors print totals for a node, a rack or a pod next to per-chip figures, often with 2:4
sparsity folded in: DGX H100's "32 PFLOPS FP8" is 8 × 3,958 TFLOP/s sparse, twice the dense
8 × 1,979; its "640 GB" is 8 × 80 GB. A TPU v5e pod of 256 chips has 256 × 197 TFLOP/s = 50.4
PFLOP/s and 4.1 TB of HBM; a v5p pod of 8,960 chips 4.1 EFLOP/s. The peak from the clock checks
a per-chip figure: an H100 SXM's 132 SMs × 4,096 dense BF16 FLOP per clock each × 1.83 GHz =
989.4 TFLOP/s, the datasheet's 989.5; an A100's 108 × 2,048 × 1.41 GHz = 311.9, its 312.
"""

from napkinmath.library.declare import Eq, formula, var

from .accelerator import gpus_per_node, hbm_bandwidth, hbm_capacity, peak_flops, tdp

SUBJECT = "accelerator"

DEFINITION_TOTALS = "definition (n × the per-accelerator value)"
NVIDIA_WHITEPAPERS = (
    "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020), Table 3, and NVIDIA H100 Tensor "
    "Core GPU Architecture whitepaper (2022), Table 3: peak = SMs × FLOP per clock per SM × "
    "boost clock"
)
SCALING_BOOK_TPUS = (
    "Austin et al. 2025, How to Scale Your Model (the JAX scaling book), 'How to Think About "
    "TPUs', worked question on pod totals (v5e: 16×16 chips, 5.1e16 FLOP/s, 4 TB)"
)

# --- Variables -----------------------------------------------------------------------------
# Peak dense FLOP/s of one node.
node_peak_flops = var(
    "node_peak_flops", "PFLOP/(s*node)", "peak dense FLOP/s of one node", symbol="P_{node}"
)
# HBM of one node.
node_hbm_capacity = var(
    "node_hbm_capacity", "GB/node", "HBM capacity of one node", symbol="M_{node}"
)
# HBM bandwidth of one node, all accelerators together.
node_hbm_bandwidth = var(
    "node_hbm_bandwidth",
    "TB/(s*node)",
    "HBM bandwidth of one node, all its accelerators together",
    symbol="B_{node}",
)
# Accelerator power of one node (TDPs added; the server draws more).
node_gpu_power = var(
    "node_gpu_power",
    "kW/node",
    "accelerator power of one node, TDPs added (the server draws more)",
    symbol="P_{gpus,node}",
)
# Accelerators in one pod (TPU pod, NVL72 rack): one scale-up domain.
gpus_per_pod = var(
    "gpus_per_pod",
    "GPU",
    "accelerators in one pod or scale-up domain (TPU v5e 256, v5p 8,960)",
    symbol="n_{pod}",
    whole=True,
)
# Peak dense FLOP/s of one pod.
pod_peak_flops = var("pod_peak_flops", "PFLOP/s", "peak dense FLOP/s of one pod", symbol="P_{pod}")
# HBM of one pod.
pod_hbm_capacity = var("pod_hbm_capacity", "TB", "HBM capacity of one pod", symbol="M_{pod}")
# Compute units of one accelerator: SMs, CUs, TensorCores.
compute_units = var(
    "compute_units",
    "1/GPU",
    "compute units per accelerator (SMs, CUs, TensorCores)",
    symbol="n_{SM}",
)
# FLOPs one compute unit completes per clock at the working precision (dense).
flop_per_cycle_per_unit = var(
    "flop_per_cycle_per_unit",
    "FLOP",
    "dense FLOPs one compute unit completes per clock cycle at the working precision",
    symbol="f_{clk}",
)
# Clock the peak is quoted at (boost clock).
clock_rate = var("clock_rate", "GHz", "clock the peak is quoted at (boost clock)", symbol="f")
# The peak the clock implies.
peak_flops_from_clock = var(
    "peak_flops_from_clock",
    "TFLOP/(s*GPU)",
    "peak FLOP/s per accelerator from units × FLOP per clock × clock",
    symbol="P_{clk}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "node_peak_flops",
    "Peak FLOP/s of a node",
    Eq(node_peak_flops, gpus_per_node * peak_flops),
    source=DEFINITION_TOTALS,
    subject=SUBJECT,
    note="dense; vendors' node figures are often 2:4 sparse (twice this)",
)

formula(
    "node_hbm_capacity",
    "HBM of a node",
    Eq(node_hbm_capacity, gpus_per_node * hbm_capacity),
    source=DEFINITION_TOTALS,
    subject=SUBJECT,
    note="DGX H100: 8 × 80 GB = 640 GB",
)

formula(
    "node_hbm_bandwidth",
    "HBM bandwidth of a node",
    Eq(node_hbm_bandwidth, gpus_per_node * hbm_bandwidth),
    source=DEFINITION_TOTALS,
    subject=SUBJECT,
    note="HGX B200: 8 × 8 TB/s = 64 TB/s",
)

formula(
    "node_gpu_power",
    "Accelerator power of a node",
    Eq(node_gpu_power, gpus_per_node * tdp),
    source=DEFINITION_TOTALS,
    subject=SUBJECT,
    note="the GPUs' TDPs only; CPUs, memory, NICs and fans add more (node_overhead)",
)

formula(
    "pod_peak_flops",
    "Peak FLOP/s of a pod",
    Eq(pod_peak_flops, gpus_per_pod * peak_flops),
    source=f"{DEFINITION_TOTALS}; {SCALING_BOOK_TPUS}",
    subject=SUBJECT,
    note="TPU v5p: 8,960 × 459 TFLOP/s = 4.1 EFLOP/s",
)

formula(
    "pod_hbm_capacity",
    "HBM of a pod",
    Eq(pod_hbm_capacity, gpus_per_pod * hbm_capacity),
    source=f"{DEFINITION_TOTALS}; {SCALING_BOOK_TPUS}",
    subject=SUBJECT,
    note="TPU v5e: 256 × 16 GB = 4.1 TB",
)

formula(
    "peak_flops_from_clock",
    "Peak FLOP/s from the clock",
    Eq(peak_flops_from_clock, compute_units * flop_per_cycle_per_unit * clock_rate),
    source=NVIDIA_WHITEPAPERS,
    subject=SUBJECT,
    note=(
        "checks a datasheet's peak: H100 SXM 132 SMs × 4,096 dense BF16 FLOP per clock "
        "× 1.83 GHz = 989.4 TFLOP/s; compare with peak_flops"
    ),
)
