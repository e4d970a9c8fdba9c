"""Inference metrics by their usual names: TTFT, TPOT, MBU; the interconnect a tensor-parallel
layer needs; the KV cache of multi-head attention from the hidden size alone.

    time_to_first_token    = time_in_queue + prefill_time                          (TTFT)
    time_per_output_token  = decode_step_time / tokens_per_step            (TPOT, at the roofline)
    mbu                    = (weight_memory + kv_cache_memory)
                             / (time_per_output_token · tokens_per_step · n_gpus · hbm_bandwidth)
    kv_bytes_per_token_mha = 2 · n_layers · hidden_size · kv_bytes_per_element     (MHA)
    tp_flop_per_comm_byte  = forward_flop_per_param_token · ffn_size / (tp · activation_bytes)
                           = F / Y for bf16                                 (scaling book)
    interconnect_ridge_point = peak_flops / nvlink_bandwidth_bidirectional   (C / W_ICI)

TPOT (also inter-token latency) is measured per sequence: the time between two tokens of one
stream. The roofline gives its floor (``decode_step_time``: weights and KV cache read once per
step); a measured TPOT above it shows in MBU, the model bandwidth utilization: the bytes a step
must read over the time it took, against the peak. Databricks' example: a 7B model in 16-bit
(14 GB) at 14 ms per token moves 1 TB/s, 50% of an A100-80GB's 2 TB/s. The roofline TPOT is
declared as a consequence (used only when no TPOT is given), so a measured TPOT is never
checked against it.

A tensor-parallel MLP of width F over Y ranks does 2·B·D·F/Y FLOPs per matmul pair for every
2·B·D bytes (bf16) it all-gathers and reduce-scatters: F/Y FLOPs per byte of interconnect, to
be compared with the chip's C/W_ICI (H100: 989.5 TFLOP/s over 900 GB/s both ways, 1,099;
TPU v5p: 2,550 per axis). Above it the layer is compute-bound; below it, communication-bound
(Llama 3 70B, F = 28,672: up to 26-way on H100). MHA caches K and V of every head: the KV
bytes per token follow from the hidden size alone, n_heads/n_kv_heads times what GQA caches
(Llama 3 70B: 2.62 MB against 327,680 B per token).
"""

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Eq, Typical, formula, var

from .accelerator import hbm_bandwidth, nvlink_bandwidth_bidirectional, peak_flops
from .architecture import ffn_size
from .collectives import activation_bytes_per_element
from .inference import (
    decode_step_time,
    forward_flop_per_param_token,
    kv_bytes_per_element,
    kv_cache_memory,
    prefill_time,
    tokens_per_step,
)
from .memory import params_per_entry
from .model import hidden_size, n_layers, weight_memory
from .parallelism import tp
from .serving import time_in_queue
from .training import n_gpus

SUBJECT = "inference"

DATABRICKS_2023 = (
    "Agarwal, Qureshi et al. 2023, LLM Inference Performance Engineering: Best Practices, "
    "Databricks blog (TTFT, TPOT, MBU = (model + KV cache bytes) / TPOT / peak bandwidth)"
)
POPE_2022 = "Pope et al. 2022, Efficiently Scaling Transformer Inference, arXiv:2211.05102, §2"
SCALING_BOOK_TP = (
    "Austin et al. 2025, How to Scale Your Model (the JAX scaling book), 'Training', tensor "
    "parallelism: T_math = 4·B·D·F/(Y·C), T_comms = 4·B·D/W_ICI, compute-bound while "
    "F > Y·C/W_ICI"
)
VASWANI_2017 = "Vaswani et al. 2017, Attention Is All You Need, arXiv:1706.03762, §3.2.2"

# --- Variables -----------------------------------------------------------------------------
# Time from a request's arrival to its first output token.
time_to_first_token = var(
    "time_to_first_token",
    "s",
    "time to first token (TTFT): queueing plus prefill",
    symbol="\\mathrm{TTFT}",
    bounds=NON_NEGATIVE,
)
# Time between two output tokens of one sequence.
time_per_output_token = var(
    "time_per_output_token",
    "ms*sequence/token",
    "time per output token of one sequence (TPOT, inter-token latency)",
    symbol="\\mathrm{TPOT}",
)
# Model bandwidth utilization.
mbu = var(
    "mbu",
    "",
    "model bandwidth utilization: bytes a decode step reads over its time, "
    "against the peak HBM bandwidth",
    symbol="\\mathrm{MBU}",
    bounds=FRACTION,
    typical=Typical(
        0.3, 0.9, 0.05, 0.95, "the 30–90% of HBM bandwidth that decode reaches in practice"
    ),
)
# KV-cache bytes per token if every attention head kept its own K and V.
kv_bytes_per_token_mha = var(
    "kv_bytes_per_token_mha",
    "B/token",
    "KV-cache bytes per token with multi-head attention (every head cached), from hidden_size",
    symbol="m_{kv,MHA}",
)
# FLOPs a tensor-parallel MLP does per byte it moves over the interconnect.
tp_flop_per_comm_byte = var(
    "tp_flop_per_comm_byte",
    "FLOP/B",
    "FLOPs a tensor-parallel MLP does per byte of interconnect traffic (F/Y in bf16)",
    symbol="I_{TP}",
)
# The chip's FLOP/s over its interconnect bandwidth (both directions).
interconnect_ridge_point = var(
    "interconnect_ridge_point",
    "FLOP/B",
    "peak FLOP/s over the scale-up link's bandwidth, both directions (C/W_ICI)",
    symbol="I^{*}_{ICI}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "time_to_first_token",
    "Time to first token",
    Eq(time_to_first_token, time_in_queue + prefill_time),
    source=f"{DATABRICKS_2023}; {POPE_2022}",
    subject=SUBJECT,
    note="waiting for a batch slot, then the prefill that produces the first token; give "
    "time_in_queue = 0 for an idle server",
)

formula(
    "tpot_at_roofline",
    "Time per output token at the roofline",
    Eq(time_per_output_token, decode_step_time / tokens_per_step),
    source=f"{POPE_2022}; {DATABRICKS_2023}",
    subject=SUBJECT,
    derived=True,
    note=(
        "the bandwidth-bound floor, used only when no TPOT is given: a measured TPOT is "
        "longer, and MBU says by how much"
    ),
)

formula(
    "mbu",
    "Model bandwidth utilization",
    Eq(
        mbu,
        (weight_memory + kv_cache_memory)
        / (time_per_output_token * tokens_per_step * n_gpus * hbm_bandwidth),
    ),
    source=DATABRICKS_2023,
    subject=SUBJECT,
    note="7B in 16-bit at 14 ms per token on an A100-80GB (2 TB/s): 50%",
)

formula(
    "kv_bytes_per_token_mha",
    "KV cache per token, multi-head attention",
    Eq(kv_bytes_per_token_mha, 2 * n_layers * hidden_size * kv_bytes_per_element),
    source=f"{VASWANI_2017}; {POPE_2022}",
    subject=SUBJECT,
    note="K and V of width h in every layer; GQA keeps n_kv_heads/n_heads of it",
)

formula(
    "tp_flop_per_comm_byte",
    "FLOPs per interconnect byte of a tensor-parallel MLP",
    Eq(
        tp_flop_per_comm_byte,
        forward_flop_per_param_token
        * params_per_entry
        * ffn_size
        / (tp * activation_bytes_per_element),
    ),
    source=SCALING_BOOK_TP,
    subject=SUBJECT,
    note=(
        "independent of the batch: compute and traffic both grow with it; compare with "
        "interconnect_ridge_point"
    ),
)

formula(
    "interconnect_ridge_point",
    "Interconnect ridge point",
    Eq(interconnect_ridge_point, peak_flops / nvlink_bandwidth_bidirectional),
    source=SCALING_BOOK_TP,
    subject=SUBJECT,
    note=(
        "a tensor-parallel layer stays compute-bound while it does more FLOPs per byte "
        "than this (H100: 1,099); TPU records give ICI per chip over every axis, the "
        "scaling book one axis's (TPU v5p: 2,550 per axis): give the figure that fits"
    ),
)
