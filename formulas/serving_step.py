"""Aggregated serving: a replica that decodes a batch and prefills new prompts in its steps.

    c̄ = serving_context          = prompt_len + output_len / 2
    p = serving_prefill_tokens   = b · k · prompt_len / output_len
    x = serving_chunk_tokens     = min(prefill_chunk_tokens, b_pre · prompt_len)
    φ = serving_mixed_step_share = p / x
    t_W  = decode_weight_memory / (n·B·η_W)          t_KV = b · kv · c̄ / (n·B·η_mem)
    t_gd = k_f·N · b·k / (n·P·η)                     t_ad = k_a·L·H·Q · b·k · c̄ / (n·P·η)
    t_gx = k_f·N · x / (n·P·η)                       t_ax = k_a·L·H·Q · x · prompt_len / (2·n·P·η)
    e    = serving_elementwise_bytes = L · a · (c_rn · h + n_mlp · d / r)
    t_ed = b·k · e / (B·η_mem·g_r)                   t_ex = x · e / (B·η_mem·g_r)
    serving_decode_step_time = max(t_W, t_gd) + max(t_KV, t_ad) + t_ed + decode_tp_comm_time
    serving_mixed_step_time  = max(t_W, t_gd + t_gx) + max(t_KV, t_ad + t_ax) + t_ed + t_ex
                               + n_AR · (α + 2(r − 1)/r · (b·k + x)·h·a / (B_link·η_NVL))
    serving_step_time        = φ · serving_mixed_step_time + (1 − φ) · serving_decode_step_time
    serving_tpot             = serving_step_time / k
    serving_ttft             = b_pre · prompt_len / x · serving_mixed_step_time
    replica_request_rate     = b·k / (sequences_per_request · output_len · serving_step_time)
    serving_output_rate_per_gpu = replica_request_rate · sequences_per_request · output_len / n

b = ``batch_size``, the sequences a replica decodes at once; k = ``tokens_per_step``; N the
active parameters, k_f = 2 FLOP per parameter and token; k_a·L·H·Q the attention FLOPs per
token and context position (PaLM's forward count; a prompt token attends over the prompt
before it, half the prompt on average, as causal kernels compute it); kv =
``kv_bytes_per_token``; n the
replica's GPUs (one tensor-parallel group), B and P their datasheet HBM bandwidth and peak;
η = ``compute_efficiency``, η_mem = ``memory_efficiency`` and η_W =
``decode_weight_read_efficiency`` the shares of them the step's kernels reach (measured
figures: the step is a forecast by default, as the training step is; 1 for the speed of
light); r the replica's ranks (n/g_r, g_r GPUs a rank, 1); h the hidden size, a the bytes of
an activation element; d the MLP width a token
passes through (k experts' widths in an MoE), n_mlp its weight matrices (3 gated, 2 plain);
b_pre = ``prefill_sequences`` (1: the prompt of one request).

In-flight (continuous) batching keeps a replica's b slots full (Yu et al. 2022, Orca: a
finished sequence's slot is refilled at the next step). In the steady state a sequence
finishes every output_len/(k·b) steps and a new one takes its slot, so the replica prefills
p = b·k·prompt_len/output_len prompt tokens a step on average. A step carries at most
``prefill_chunk_tokens`` of them beside its decodes (the engine's token budget; Agrawal et
al. 2024, Sarathi-Serve), and a prompt shorter than that goes in whole: so the prefills come
in chunks of x tokens, in the share φ = p/x of the steps, and the other steps only decode
(as aiconfigurator's aggregated model has it). φ above 1 means the prefills cannot keep pace.
A decoding sequence's context grows from prompt_len to prompt_len + output_len, so a step
reads and attends over prompt_len + output_len/2 on average (as aiconfigurator counts it).

Each step is three groups of kernels, each at its own roof, one after the other: the weight
matmuls (the weights the step reaches read once; FLOPs for every token), attention (each
sequence's KV cache read once; FLOPs for every token over its context) and the element-wise
kernels. A GPU runs one kernel at a time, so the groups add, as aiconfigurator's
speed-of-light mode adds every operator's max(compute, memory). The element-wise kernels are
memory-bound: in every layer two fused residual-add and RMS-norm kernels, each reading the
residual stream and the block's output and writing the sum and the next block's normalised
input (c_rn = 4 + 4 = 8 elements per hidden unit, on every rank: the stream is replicated
under tensor parallelism), and the gated activation reading the gate and up projections and
writing their product (n_mlp elements per unit of the rank's d/r; 2 for a plain GeLU). They
are about 1% of a decode step and 7% of a long prefill at the speed of light. Left out: the
rotary embedding, the QK norms and the prompts' KV writes (fused into the attention kernels
of TensorRT-LLM and vLLM), and the extra experts a MoE prompt reaches
(``decode_weight_memory`` counts the decode tokens'). TPOT is the mean step time per token
(a mixed step is a longer gap); TTFT on a busy replica is the mixed steps its prompt takes,
before any wait for a free slot (``time_in_queue_quantile``, M/M/c).
"""

from sympy import Expr, Max, Min, Mul, Symbol

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Eq, constraint, formula, var

from .accelerator import hbm_bandwidth, hbm_capacity, hbm_usable_fraction, peak_flops
from .architecture import mlp_matrices
from .collectives import MEGATRON_TP, THAKUR_2005, activation_bytes_per_element
from .communication import link_bandwidth
from .flops import PALM_B, attention_flop_per_pair
from .inference import (
    KWON_2023,
    POPE_2022,
    ROOFLINE_2009,
    inference_flop_per_token,
    kv_bytes_per_token,
    output_len,
    prefill_sequences,
    prompt_len,
    tokens_per_step,
)
from .model import batch_size, head_dim, hidden_size, n_heads, n_layers, weight_memory
from .operators import memory_efficiency, mlp_active_width
from .parallelism import gpus_per_rank
from .placement import nvlink_collective_efficiency
from .roofline import (
    SCALING_BOOK_INFERENCE,
    allreduce_message_latency,
    decode_tp_comm_time,
    decode_weight_memory,
    forward_tp_allreduces,
    replica_ranks,
)
from .sources import DEFINITION
from .step_parts import compute_efficiency
from .training import n_gpus

SUBJECT = "serving"

SARATHI_2024 = (
    "Agrawal et al. 2024, Taming Throughput-Latency Tradeoff in LLM Inference with "
    "Sarathi-Serve, OSDI '24, arXiv:2403.02310 (chunked prefills share each step's token "
    "budget with the ongoing decodes)"
)
ORCA_2022 = (
    "Yu et al. 2022, Orca: A Distributed Serving System for Transformer-Based Generative "
    "Models, OSDI '22 (iteration-level scheduling: a finished sequence's slot is refilled at "
    "the next step)"
)
FLASH_ATTENTION_2 = (
    "Dao 2023, FlashAttention-2, arXiv:2307.08691, §3.1 (causal masking: the blocks above "
    "the diagonal are skipped, about half the work)"
)
H200_DECODE_2026 = (
    "napkinmath's measurement on one NVIDIA H200, 2026-11-30 (hardware/measurements/"
    "h200-2026-11-30.json, tools/measure_gpu.py, PyTorch 2.11, CUDA events): Llama-3-8B's "
    "weight matmuls at batch 1, 15.01 GB in 4.84 ms, 3.10 TB/s of the datasheet 4.8 (flat "
    "to batch 128: 4.9 to 5.2 ms); a streaming read of 8 GiB reaches 4.32"
)
FUSED_ADD_NORM = (
    "TensorRT-LLM and vLLM fused kernels: one residual-add and RMS-norm kernel before "
    "attention and one before the MLP (vLLM's fused_add_rms_norm, TensorRT-LLM's fused "
    "AllReduce-residual-RMSNorm), and the gated activation's silu_and_mul; aiconfigurator "
    "0.12 counts the same operators (add_norm: 2h elements in and 2h out; act_gate: 2d/t "
    "in, d/t out)"
)
AICONFIGURATOR = (
    "NVIDIA aiconfigurator 0.12 (github.com/ai-dynamo/aiconfigurator), aggregated mode: "
    "mixed and decode-only steps, each operator at max(compute, memory), contexts at "
    "isl + osl/2"
)

# --- Variables -----------------------------------------------------------------------------
# Sequences one request asks for: 1 unless it samples several completions.
sequences_per_request = var(
    "sequences_per_request",
    "sequence/request",
    "sequences one request generates (parallel sampling n; 1 for one completion)",
    symbol="n_{seq}",
    default=1,
    default_note="one completion per request (n = 1, the serving engines' default)",
)
# The engine's budget of prompt tokens in one step.
prefill_chunk_tokens = var(
    "prefill_chunk_tokens",
    "token",
    "prompt tokens one step may prefill beside its decodes (the engine's token budget)",
    symbol="x_{max}",
    default=8192,
    default_note=(
        "8,192 prompt tokens a step at most: TensorRT-LLM's default max_num_tokens; a prompt "
        "shorter than the budget is prefilled in one step"
    ),
)
# Share of the HBM bandwidth a decode step's weight matmuls reach.
decode_weight_read_efficiency = var(
    "decode_weight_read_efficiency",
    "",
    "fraction of the datasheet HBM bandwidth a decode step's weight matmuls reach "
    "(skinny matmuls, one per weight matrix, each streaming its weights once)",
    symbol="\\eta_{W}",
    bounds=FRACTION,
    default=0.65,
    default_note=(
        "65% of the datasheet HBM bandwidth: measured on an H200 (napkinmath, 2026-11-30), "
        "Llama-3-8B's weight matmuls at batch 1 to 128 read 15.0 GB in 4.8 to 5.2 ms, 3.10 "
        "of 4.8 TB/s, against 4.32 for a streaming read (per-kernel ramp and tail); assumed "
        "for other accelerators; 1 for the speed of light"
    ),
)
# Element-wise elements a layer moves per token per hidden unit (norms and residual adds).
residual_norm_elements = var(
    "residual_norm_elements",
    "",
    "activation elements a layer's fused residual-add and norm kernels move per token per "
    "hidden unit in inference (read and written)",
    symbol="c_{rn}",
    bounds=NON_NEGATIVE,
    default=8,
    default_note=(
        "8 elements per hidden unit: two fused residual-add + RMS-norm kernels a layer, each "
        "reading the residual and the block's output and writing the sum and the normalised "
        "input (vLLM's fused_add_rms_norm; aiconfigurator's add_norm, 2h in and 2h out)"
    ),
)
# HBM bytes of the element-wise kernels per token on one GPU of the replica.
serving_elementwise_bytes = var(
    "serving_elementwise_bytes",
    "B/token",
    "HBM bytes the element-wise kernels (residual adds, norms, the MLP activation) move per "
    "token on one GPU of a replica, all layers",
    symbol="e",
    bounds=NON_NEGATIVE,
)
# The decode tokens' element-wise kernels.
serving_decode_elementwise_time = var(
    "serving_decode_elementwise_time",
    "ms",
    "the decode tokens' element-wise kernels at the memory roof",
    symbol="t_{e,d}",
    bounds=NON_NEGATIVE,
)
# A prefill chunk's element-wise kernels.
serving_chunk_elementwise_time = var(
    "serving_chunk_elementwise_time",
    "ms",
    "a prefill chunk's element-wise kernels at the memory roof",
    symbol="t_{e,x}",
    bounds=NON_NEGATIVE,
)
# Mean context a decoding sequence reads and attends over.
serving_context = var(
    "serving_context",
    "token/sequence",
    "mean context of a decoding sequence: its prompt and half its output",
    symbol="\\bar{s}",
)
# Prompt tokens a busy replica prefills per step on average.
serving_prefill_tokens = var(
    "serving_prefill_tokens",
    "token",
    "prompt tokens a busy replica prefills per step on average, keeping pace with the "
    "sequences that finish",
    symbol="p",
)
# Prompt tokens one mixed step prefills.
serving_chunk_tokens = var(
    "serving_chunk_tokens",
    "token",
    "prompt tokens one mixed step prefills: a whole prompt, or the budget",
    symbol="x",
)
# Share of a busy replica's steps that carry a prefill chunk.
serving_mixed_step_share = var(
    "serving_mixed_step_share",
    "",
    "share of a busy replica's steps that carry a prefill chunk (above 1: the prefills "
    "cannot keep pace)",
    symbol="\\varphi",
    bounds=FRACTION,
)
# Reading the weights the step reaches.
serving_weights_read_time = var(
    "serving_weights_read_time",
    "ms",
    "time to read the weights a decode step reaches once, at the memory roof",
    symbol="t_W",
)
# Reading the batch's KV cache.
serving_kv_read_time = var(
    "serving_kv_read_time",
    "ms",
    "time to read the decoding sequences' KV cache once, at the memory roof",
    symbol="t_{KV}",
)
# Weight matmuls of the decode tokens at the compute roof.
serving_decode_gemm_time = var(
    "serving_decode_gemm_time",
    "ms",
    "the decode tokens' weight-matmul FLOPs at the compute roof",
    symbol="t_{g,d}",
)
# Attention of the decode tokens at the compute roof.
serving_decode_attention_time = var(
    "serving_decode_attention_time",
    "ms",
    "the decode tokens' attention FLOPs (over their contexts) at the compute roof",
    symbol="t_{a,d}",
)
# Weight matmuls of a prefill chunk at the compute roof.
serving_chunk_gemm_time = var(
    "serving_chunk_gemm_time",
    "ms",
    "a prefill chunk's weight-matmul FLOPs at the compute roof",
    symbol="t_{g,x}",
)
# Attention of a prefill chunk at the compute roof.
serving_chunk_attention_time = var(
    "serving_chunk_attention_time",
    "ms",
    "a prefill chunk's attention FLOPs (over its prompt) at the compute roof",
    symbol="t_{a,x}",
)
# All-reduces of a mixed step.
serving_mixed_comm_time = var(
    "serving_mixed_comm_time",
    "ms",
    "tensor-parallel all-reduce time of a mixed step (decode and chunk tokens, α-β)",
    symbol="t_{x,TP}",
    bounds=NON_NEGATIVE,
)
# A step that only decodes.
serving_decode_step_time = var(
    "serving_decode_step_time",
    "ms",
    "time of a busy replica's step that only decodes",
    symbol="t_{dec}",
)
# A step that decodes and prefills a chunk.
serving_mixed_step_time = var(
    "serving_mixed_step_time",
    "ms",
    "time of a busy replica's step that decodes and prefills a chunk",
    symbol="t_{mix}",
)
# Mean step of a busy replica.
serving_step_time = var(
    "serving_step_time",
    "ms",
    "mean step time of a busy replica: mixed and decode-only steps in their shares",
    symbol="\\bar{t}_{step}",
)
# Time between two tokens of one sequence on a busy replica.
serving_tpot = var(
    "serving_tpot",
    "ms*sequence/token",
    "mean time per output token of one sequence on a busy replica (TPOT, prefills mixed in)",
    symbol="\\mathrm{TPOT}_{agg}",
)
# Time to a new request's first token on a busy replica, before any wait for a slot.
serving_ttft = var(
    "serving_ttft",
    "ms",
    "time to first token on a busy replica once a slot is free: its prompt's mixed steps",
    symbol="\\mathrm{TTFT}_{agg}",
)
# Requests a busy replica completes per second.
replica_request_rate = var(
    "replica_request_rate",
    "request/s",
    "requests one busy replica completes per second, its batch full",
    symbol="\\lambda_{rep}",
)
# Output tokens per second per accelerator of a busy replica.
serving_output_rate_per_gpu = var(
    "serving_output_rate_per_gpu",
    "token/(s*GPU)",
    "output tokens per second per accelerator of a busy replica",
    symbol="X_{GPU}",
)

_ATTENTION_PER_POSITION = attention_flop_per_pair * n_layers * n_heads * head_dim


def elementwise_bytes_per_token(ranks: Symbol) -> Expr:
    """L · a · (c_rn · h + n_mlp · d / ranks): the element-wise kernels' HBM bytes per token on
    one GPU of a tensor-parallel group of `ranks` (the residual stream whole on every rank,
    the MLP activation split)."""
    return (
        n_layers
        * activation_bytes_per_element
        * (residual_norm_elements * hidden_size + mlp_matrices * mlp_active_width / ranks)
    )


_COMPUTE_ROOF = n_gpus * peak_flops * compute_efficiency

# --- Formulas ------------------------------------------------------------------------------
formula(
    "serving_context",
    "Mean context of a decoding sequence",
    Eq(serving_context, prompt_len + output_len / 2),
    source=f"{DEFINITION}; {AICONFIGURATOR}",
    subject=SUBJECT,
    note="a sequence's context grows from its prompt to prompt + output, one token a step",
)

formula(
    "serving_prefill_tokens",
    "Prompt tokens a busy replica prefills per step",
    Eq(serving_prefill_tokens, batch_size * tokens_per_step * prompt_len / output_len),
    source=f"{ORCA_2022}; {SARATHI_2024}",
    subject=SUBJECT,
    note=(
        "b slots each free up every output_len/k steps: b·k/output_len new sequences a "
        "step on average, each with its prompt to prefill"
    ),
)

formula(
    "serving_chunk_tokens",
    "Prompt tokens of a mixed step",
    Eq(
        serving_chunk_tokens,
        Min(prefill_chunk_tokens, prefill_sequences * prompt_len, evaluate=False),
    ),
    source=SARATHI_2024,
    subject=SUBJECT,
    forward_only=True,
    note="a prompt within the step's budget goes in whole; a longer one in budget-sized chunks",
)

formula(
    "serving_mixed_step_share",
    "Share of the steps that prefill",
    Eq(serving_mixed_step_share, serving_prefill_tokens / serving_chunk_tokens),
    source=f"{SARATHI_2024}; {AICONFIGURATOR}",
    subject=SUBJECT,
    note="p prompt tokens a step on average, in chunks of x: one step in x/p carries one",
)

formula(
    "serving_weights_read_time",
    "Weights read by a serving step",
    Eq(
        serving_weights_read_time,
        decode_weight_memory / (n_gpus * hbm_bandwidth * decode_weight_read_efficiency),
    ),
    source=f"{POPE_2022}, §2; {H200_DECODE_2026}",
    subject=SUBJECT,
    note="each weight matrix streamed once by its matmul, at the rate such matmuls reach",
)

formula(
    "serving_kv_read_time",
    "KV cache read by a serving step",
    Eq(
        serving_kv_read_time,
        batch_size
        * kv_bytes_per_token
        * serving_context
        / (n_gpus * hbm_bandwidth * memory_efficiency),
    ),
    source=f"{POPE_2022}, §2; {AICONFIGURATOR}",
    subject=SUBJECT,
    note="each sequence's keys and values read once, at the rate streaming reads reach",
)

formula(
    "serving_elementwise_bytes",
    "Element-wise kernels' bytes per token",
    Eq(
        serving_elementwise_bytes,
        elementwise_bytes_per_token(replica_ranks),
    ),
    source=f"{FUSED_ADD_NORM}; {ROOFLINE_2009}",
    subject=SUBJECT,
    note=(
        "the residual stream is whole on every rank; the MLP activation is split n ways "
        "(n_mlp elements of it per unit: gate and up read, product written; 2 for GeLU)"
    ),
)

formula(
    "serving_decode_elementwise_time",
    "Decode tokens' element-wise kernels",
    Eq(
        serving_decode_elementwise_time,
        batch_size
        * tokens_per_step
        * serving_elementwise_bytes
        / (hbm_bandwidth * memory_efficiency * gpus_per_rank),
    ),
    source=f"{FUSED_ADD_NORM}; {ROOFLINE_2009}",
    subject=SUBJECT,
    note="memory-bound: each kernel reads and writes HBM once, at the streaming rate",
)

formula(
    "serving_chunk_elementwise_time",
    "Prefill chunk's element-wise kernels",
    Eq(
        serving_chunk_elementwise_time,
        serving_chunk_tokens
        * serving_elementwise_bytes
        / (hbm_bandwidth * memory_efficiency * gpus_per_rank),
    ),
    source=f"{FUSED_ADD_NORM}; {ROOFLINE_2009}",
    subject=SUBJECT,
)

formula(
    "serving_decode_gemm_time",
    "Decode tokens' matmuls at the compute roof",
    Eq(
        serving_decode_gemm_time,
        inference_flop_per_token * batch_size * tokens_per_step / _COMPUTE_ROOF,
    ),
    source=PALM_B,
    subject=SUBJECT,
)

formula(
    "serving_decode_attention_time",
    "Decode tokens' attention at the compute roof",
    Eq(
        serving_decode_attention_time,
        _ATTENTION_PER_POSITION * batch_size * tokens_per_step * serving_context / _COMPUTE_ROOF,
    ),
    source=f"{PALM_B} (its forward third)",
    subject=SUBJECT,
)

formula(
    "serving_chunk_gemm_time",
    "Prefill chunk's matmuls at the compute roof",
    Eq(serving_chunk_gemm_time, inference_flop_per_token * serving_chunk_tokens / _COMPUTE_ROOF),
    source=PALM_B,
    subject=SUBJECT,
)

formula(
    "serving_chunk_attention_time",
    "Prefill chunk's attention at the compute roof",
    Eq(
        serving_chunk_attention_time,
        _ATTENTION_PER_POSITION * serving_chunk_tokens * prompt_len / (2 * _COMPUTE_ROOF),
    ),
    source=f"{PALM_B} (its forward third); {FLASH_ATTENTION_2}",
    subject=SUBJECT,
    note=(
        "each prompt token over the part of its prompt before it: half the square on "
        "average, the masked half skipped by causal attention kernels"
    ),
)

formula(
    "serving_mixed_comm_time",
    "Tensor-parallel all-reduces of a mixed step",
    Eq(
        serving_mixed_comm_time,
        forward_tp_allreduces
        * (
            allreduce_message_latency
            + Mul(2, replica_ranks - 1, evaluate=False)
            / replica_ranks
            * (batch_size * tokens_per_step + serving_chunk_tokens)
            * hidden_size
            * activation_bytes_per_element
            / (link_bandwidth * nvlink_collective_efficiency)
        ),
    ),
    source=f"{THAKUR_2005}; {MEGATRON_TP}",
    subject=SUBJECT,
    note=(
        "as a decode step's, over the decode and the chunk's tokens; the chunk's messages "
        "are large, so they move at the bus bandwidth NCCL reaches"
    ),
)

formula(
    "serving_decode_step_time",
    "Busy replica's decode-only step",
    Eq(
        serving_decode_step_time,
        Max(serving_weights_read_time, serving_decode_gemm_time, evaluate=False)
        + Max(serving_kv_read_time, serving_decode_attention_time, evaluate=False)
        + serving_decode_elementwise_time
        + decode_tp_comm_time,
    ),
    source=f"{SCALING_BOOK_INFERENCE}; {AICONFIGURATOR}",
    subject=SUBJECT,
    note=(
        "the matmuls and the attention, each at its own roof, the element-wise kernels, "
        "then the all-reduces"
    ),
)

formula(
    "serving_mixed_step_time",
    "Busy replica's mixed step",
    Eq(
        serving_mixed_step_time,
        Max(
            serving_weights_read_time,
            serving_decode_gemm_time + serving_chunk_gemm_time,
            evaluate=False,
        )
        + Max(
            serving_kv_read_time,
            serving_decode_attention_time + serving_chunk_attention_time,
            evaluate=False,
        )
        + serving_decode_elementwise_time
        + serving_chunk_elementwise_time
        + serving_mixed_comm_time,
    ),
    source=f"{SARATHI_2024}; {ROOFLINE_2009}; {AICONFIGURATOR}",
    subject=SUBJECT,
    note=(
        "the chunk's matmuls share the weights' one read with the decodes, which turns them "
        "compute-bound; its attention adds to the decodes'"
    ),
)

formula(
    "serving_step_time",
    "Busy replica's mean step",
    Eq(
        serving_step_time,
        serving_mixed_step_share * serving_mixed_step_time
        + (1 - serving_mixed_step_share) * serving_decode_step_time,
    ),
    source=f"{SARATHI_2024}; {AICONFIGURATOR}",
    subject=SUBJECT,
)

formula(
    "serving_tpot",
    "Time per output token on a busy replica",
    Eq(serving_tpot, serving_step_time / tokens_per_step),
    source=SARATHI_2024,
    subject=SUBJECT,
    note="each step gives every decoding sequence k tokens; the mixed steps lengthen the mean",
)

formula(
    "serving_ttft",
    "Time to first token on a busy replica",
    Eq(
        serving_ttft,
        prefill_sequences * prompt_len / serving_chunk_tokens * serving_mixed_step_time,
    ),
    source=SARATHI_2024,
    subject=SUBJECT,
    note=(
        "the prompt's chunks, each in one mixed step, first come first served; the wait for "
        "a free slot comes on top"
    ),
)

formula(
    "replica_request_rate",
    "Requests a busy replica completes",
    Eq(
        replica_request_rate,
        batch_size * tokens_per_step / (sequences_per_request * output_len * serving_step_time),
    ),
    source=f"{ORCA_2022}; {DEFINITION}",
    subject=SUBJECT,
    note="b sequences, each done after output_len/k steps (Little's law on the slots)",
)

formula(
    "serving_output_rate_per_gpu",
    "Output tokens per accelerator of a busy replica",
    Eq(
        serving_output_rate_per_gpu,
        replica_request_rate * sequences_per_request * output_len / n_gpus,
    ),
    source=DEFINITION,
    subject=SUBJECT,
    note="the figure aiconfigurator ranks configurations by (tokens/s/gpu)",
)

constraint(
    "serving_batch_fits_hbm",
    "The serving batch's weights and KV cache at full length fit in the replica's usable HBM",
    weight_memory + batch_size * kv_bytes_per_token * (prompt_len + output_len),
    hbm_usable_fraction * hbm_capacity * n_gpus,
    source=f"{POPE_2022}; {KWON_2023}; {AICONFIGURATOR} (a slot sized for isl + osl)",
    subject=SUBJECT,
    touch=(serving_kv_read_time,),
    message="the batch's sequences at their full length (prompt and output) do not fit beside "
    "the weights in the usable share of the replica's HBM: lower batch_size, add GPUs to the "
    "replica, or store the KV cache in fp8 (kv_bytes_per_element = 1)",
)
