"""Efficiency: measured (achievable) figures beside the datasheet's, and predictions against
measurements.

    matmul_efficiency       = achievable_flops / peak_flops                  (MAMF / peak)
    matmul_efficiency_fp8   = achievable_flops_fp8 / peak_flops_fp8
    hbm_efficiency          = achievable_hbm_bandwidth / hbm_bandwidth
    mbu                     = (weight_memory + kv_cache_memory)
                              / (decode_step_time_measured · n_gpus · hbm_bandwidth)
    mbu_achievable          = mbu / hbm_efficiency          (MBU against the measured bandwidth)
    mfu_achievable          = mfu / matmul_efficiency       (MFU against the measured matmul)
    bandwidth_gap_explained = (1/hbm_efficiency − 1) / (1/mbu − 1)
    prefill_mfu             = prompt_tokens · C_tok,pre
                              / (prefill_time_measured · n_gpus · peak_flops)

A datasheet peak is a clock times the units on the die; a matmul or a memory read measured on
the device reaches less: the maximum achievable matmul FLOP/s (MAMF) of the best shape, or a
large streaming read. Records hold those measurements beside the datasheet figures, with
their provenance (device, software, date, method), and ``--achievable`` predicts from them.
One H200 measured for this project (hardware/measurements/h200-2026-11-30.json): 797 of 989.5
TFLOP/s BF16 (0.81), 4.32 of 4.8 TB/s (0.90), and a decode step over Llama-3-8B's weight
shapes at batch 1 in 4.84 ms against 3.13 ms from the datasheet bandwidth: MBU 0.65 of the
datasheet, 0.72 of the achievable bandwidth; the achievable figure explains 20% of the gap
(3.13 → 3.47 of 4.84 ms), the rest is the step's own overhead (kernel launches, small
matrices).
"""

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Eq, formula, var

from .accelerator import hbm_bandwidth, peak_flops, peak_flops_fp8
from .flops import PALM_B, prefill_flop_per_token
from .inference import kv_cache_memory, prompt_tokens
from .inference_metrics import DATABRICKS_2023, mbu
from .model import weight_memory
from .sources import DEFINITION
from .training import mfu, n_gpus

SUBJECT = "efficiency"

BEKMAN_MAMF = (
    "Bekman, Machine Learning Engineering Open Book, compute/accelerator: Maximum Achievable "
    "Matmul FLOPS (MAMF) comparison table, efficiency = MAMF / theory"
)

# --- Variables -----------------------------------------------------------------------------
# Measured dense matmul FLOP/s of one accelerator at the peak_flops precision (BF16).
achievable_flops = var(
    "achievable_flops",
    "TFLOP/(s*GPU)",
    "measured maximum achievable dense matmul FLOP/s per accelerator, BF16 (MAMF)",
    symbol="P_{\\mathrm{ach}}",
)
# Measured dense FP8 matmul FLOP/s of one accelerator.
achievable_flops_fp8 = var(
    "achievable_flops_fp8",
    "TFLOP/(s*GPU)",
    "measured maximum achievable dense FP8 matmul FLOP/s per accelerator (MAMF)",
    symbol="P_{\\mathrm{ach,fp8}}",
)
# Measured HBM bandwidth of one accelerator (a large streaming read).
achievable_hbm_bandwidth = var(
    "achievable_hbm_bandwidth",
    "TB/(s*GPU)",
    "measured HBM read bandwidth per accelerator (a large streaming read)",
    symbol="B_{\\mathrm{HBM,ach}}",
)
# Measured bus bandwidth of an all-reduce over one node's NVLink (nccl-tests busbw).
achievable_nvlink_bandwidth = var(
    "achievable_nvlink_bandwidth",
    "GB/(s*GPU)",
    "measured all-reduce bus bandwidth over one node's NVLink per accelerator (nccl-tests busbw)",
    symbol="B_{\\mathrm{NVL,ach}}",
)
# Measured matmul FLOP/s over the datasheet peak.
matmul_efficiency = var(
    "matmul_efficiency",
    "",
    "measured achievable matmul FLOP/s over the datasheet peak (BF16)",
    symbol="\\eta_{\\mathrm{mm}}",
    bounds=FRACTION,
)
# Measured FP8 matmul FLOP/s over the datasheet FP8 peak.
matmul_efficiency_fp8 = var(
    "matmul_efficiency_fp8",
    "",
    "measured achievable FP8 matmul FLOP/s over the datasheet FP8 peak",
    symbol="\\eta_{\\mathrm{mm,fp8}}",
    bounds=FRACTION,
)
# Measured HBM bandwidth over the datasheet bandwidth.
hbm_efficiency = var(
    "hbm_efficiency",
    "",
    "measured HBM bandwidth over the datasheet bandwidth",
    symbol="\\eta_{\\mathrm{HBM}}",
    bounds=FRACTION,
)
# A decode step's time as measured (the roofline's is decode_step_time).
decode_step_time_measured = var(
    "decode_step_time_measured",
    "ms",
    "measured time of one decode step (every sequence gains its tokens)",
    symbol="t_{\\mathrm{dec,meas}}",
)
# A prefill's time as measured (the roofline's is prefill_time).
prefill_time_measured = var(
    "prefill_time_measured",
    "s",
    "measured time of one prefill (the prompt tokens of the batch)",
    symbol="t_{\\mathrm{pre,meas}}",
)
# MFU of a measured prefill.
prefill_mfu = var(
    "prefill_mfu",
    "",
    "model FLOPs utilization of a measured prefill, against the datasheet peak",
    symbol="\\mathrm{MFU}_{\\mathrm{pre}}",
    bounds=FRACTION,
)
# MBU against the measured bandwidth instead of the datasheet's.
mbu_achievable = var(
    "mbu_achievable",
    "",
    "model bandwidth utilization against the measured (achievable) HBM bandwidth, as a fraction",
    symbol="\\mathrm{MBU}_{\\mathrm{ach}}",
)
# MFU against the measured matmul FLOP/s instead of the datasheet's.
mfu_achievable = var(
    "mfu_achievable",
    "",
    "model FLOPs utilization against the measured (achievable) matmul FLOP/s, as a fraction",
    symbol="\\mathrm{MFU}_{\\mathrm{ach}}",
)
# Share of the predicted-to-measured decode time gap that the measured bandwidth explains.
bandwidth_gap_explained = var(
    "bandwidth_gap_explained",
    "",
    "share of the gap between the datasheet-bandwidth prediction and the measured decode "
    "time that the measured (achievable) bandwidth explains, as a fraction",
    symbol="g_{\\mathrm{HBM}}",
    bounds=NON_NEGATIVE,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "matmul_efficiency",
    "Matmul efficiency",
    Eq(matmul_efficiency, achievable_flops / peak_flops),
    source=BEKMAN_MAMF,
    subject=SUBJECT,
    note="H100 SXM BF16: 794.5 of 989 TFLOP/s, 80.3% (Bekman's table); H200 measured "
    "for napkinmath: 797 of 989.5, 0.81",
)

formula(
    "matmul_efficiency_fp8",
    "FP8 matmul efficiency",
    Eq(matmul_efficiency_fp8, achievable_flops_fp8 / peak_flops_fp8),
    source=BEKMAN_MAMF,
    subject=SUBJECT,
    note="H200 FP8: 1,453.4 of 1,979 TFLOP/s, 73.4% (Bekman's table); 1,455 measured "
    "for napkinmath",
)

formula(
    "hbm_efficiency",
    "HBM bandwidth efficiency",
    Eq(hbm_efficiency, achievable_hbm_bandwidth / hbm_bandwidth),
    source=DEFINITION,
    subject=SUBJECT,
    note="H200 measured for napkinmath: 4.32 of 4.8 TB/s, 0.90",
)

formula(
    "mbu_from_step_time",
    "MBU from a measured decode step time",
    Eq(
        mbu,
        (weight_memory + kv_cache_memory) / (decode_step_time_measured * n_gpus * hbm_bandwidth),
    ),
    source=DATABRICKS_2023,
    subject=SUBJECT,
    note="the bytes a step must read over the time it took, against the peak: H200, "
    "15.0 GB in 4.84 ms is 0.65 of 4.8 TB/s",
)

formula(
    "mbu_achievable",
    "MBU against the achievable bandwidth",
    Eq(mbu_achievable, mbu / hbm_efficiency),
    source=f"{DATABRICKS_2023}; {DEFINITION}",
    subject=SUBJECT,
    note="what is left once the memory system's own shortfall is taken out: H200 decode "
    "0.65 / 0.90 = 0.72",
)

formula(
    "mfu_achievable",
    "MFU against the achievable matmul FLOP/s",
    Eq(mfu_achievable, mfu / matmul_efficiency),
    source=f"{BEKMAN_MAMF}; {DEFINITION}",
    subject=SUBJECT,
    note="how close a run comes to what a matmul alone reaches on the device",
)

formula(
    "bandwidth_gap_explained",
    "Share of a decode-time gap the achievable bandwidth explains",
    Eq(bandwidth_gap_explained, (1 / hbm_efficiency - 1) / (1 / mbu - 1)),
    source=DEFINITION,
    subject=SUBJECT,
    note="(t_achievable − t_datasheet) / (t_measured − t_datasheet), with t ∝ 1/bandwidth: "
    "H200 decode (3.47 − 3.13) / (4.84 − 3.13) = 0.20",
)

formula(
    "prefill_mfu",
    "MFU of a measured prefill",
    Eq(
        prefill_mfu,
        prompt_tokens * prefill_flop_per_token / (prefill_time_measured * n_gpus * peak_flops),
    ),
    source=f"{PALM_B} (MFU against the datasheet peak)",
    subject=SUBJECT,
    note="the prefill's FLOPs over the time it took, against the peak",
)
