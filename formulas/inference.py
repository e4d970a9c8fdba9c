"""Inference: KV-cache size, what fits in HBM, bandwidth-bound decode, prefill, the roofline.

    kv_bytes_per_token = 2 · n_layers · n_kv_heads · head_dim · kv_bytes_per_element   (MHA/GQA/MQA)
    kv_bytes_per_token = n_layers · (kv_lora_rank + qk_rope_head_dim) · kv_bytes_per_element  (MLA)
    kv_cache_memory    = kv_bytes_per_token · seq_len · batch_size
    decode_speed       = tokens_per_step / decode_step_time
    ridge_point        = peak_flops / hbm_bandwidth                                    (roofline)

Sources: Pope et al. 2022 (arXiv:2211.05102) for the inference cost model; Ainslie et al. 2023
(arXiv:2305.13245) for GQA; Shazeer 2019 (arXiv:1911.02150) for MQA; DeepSeek-V2
(arXiv:2405.04434) for MLA; Williams, Waterman and Patterson 2009 for the roofline.

``n_gpus`` here is the accelerators that hold one model replica (tensor/pipeline parallel).
A decode step's and a prefill's time come from the roofline (`napkinmath.formulas.roofline`):
the longer of the memory and the compute time, plus the tensor-parallel all-reduces.
Quantization enters through ``weight_bytes_per_param`` (bf16 2, fp8/int8 1, int4 0.5 B/param)
and ``kv_bytes_per_element`` (bf16 2, fp8/int8 1 B/token per cached element).
"""

from napkinmath.library.declare import NON_NEGATIVE, Eq, floor, formula, var

from .accelerator import hbm_bandwidth, hbm_capacity, hbm_usable_fraction, peak_flops
from .model import (
    batch_size,
    head_dim,
    n_kv_heads,
    n_layers,
    seq_len,
    weight_memory,
)
from .sources import DEFINITION, KAPLAN_2020
from .training import n_gpus, params

SUBJECT = "inference"

POPE_2022 = "Pope et al. 2022, Efficiently Scaling Transformer Inference, arXiv:2211.05102"
AINSLIE_2023 = (
    "Ainslie et al. 2023, GQA: Training Generalized Multi-Query Transformer Models from "
    "Multi-Head Checkpoints, arXiv:2305.13245; MQA: Shazeer 2019, arXiv:1911.02150"
)
DEEPSEEK_V2 = (
    "DeepSeek-AI 2024, DeepSeek-V2, arXiv:2405.04434, §2.1 and Table 1 (MLA caches "
    "(d_c + d_h^R)·l elements per token); DeepSeek-V3 config, arXiv:2412.19437"
)
KWON_2023 = (
    "Kwon et al. 2023, Efficient Memory Management for LLM Serving with PagedAttention (vLLM), "
    "arXiv:2309.06180"
)
ROOFLINE_2009 = (
    "Williams, Waterman, Patterson 2009, Roofline: An Insightful Visual Performance Model "
    "for Multicore Architectures, Communications of the ACM 52(4)"
)
LEVIATHAN_2023 = (
    "Leviathan et al. 2023, Fast Inference from Transformers via Speculative Decoding, "
    "arXiv:2211.17192"
)

# --- Variables -----------------------------------------------------------------------------
# Bytes of one cached K or V element, for each token: 2 for bf16/fp16, 1 for fp8/int8.
kv_bytes_per_element = var(
    "kv_bytes_per_element",
    "B/(token*element)",
    "bytes of one cached key/value element, for each token (bf16 2, fp8/int8 1)",
    symbol="b_{kv}",
    default=2,
    default_note=("KV cache in bf16, 2 bytes per element (per token); fp8/int8 KV caches use 1"),
)
# KV-cache bytes one token adds, summed over layers, K and V.
kv_bytes_per_token = var(
    "kv_bytes_per_token", "B/token", "KV-cache bytes per token", symbol="m_{kv}"
)
# MLA: rank of the compressed joint key-value latent (DeepSeek-V2/V3: 512).
kv_lora_rank = var(
    "kv_lora_rank",
    "",
    "MLA compressed KV latent dimension (DeepSeek-V3: 512)",
    symbol="d_c",
    whole=True,
)
# MLA: decoupled RoPE key dimension cached beside the latent (DeepSeek-V2/V3: 64).
qk_rope_head_dim = var(
    "qk_rope_head_dim",
    "",
    "MLA decoupled RoPE key dimension, cached per token (DeepSeek-V3: 64)",
    symbol="d_h^R",
    whole=True,
)
# KV cache held for a batch of sequences at a context length.
kv_cache_memory = var(
    "kv_cache_memory",
    "GB",
    "KV-cache memory of a batch at a context length",
    symbol="M_{kv}",
    bounds=NON_NEGATIVE,
)
# HBM of a replica left for the KV cache once the weights are loaded.
kv_memory_budget = var(
    "kv_memory_budget",
    "GB",
    "HBM of one replica left for the KV cache after the weights (0: the weights fill it)",
    symbol="M_{free}",
    bounds=NON_NEGATIVE,
)
# Sequences (users) whose full-context KV cache fits in that budget.
max_concurrent_sequences = var(
    "max_concurrent_sequences",
    "sequence",
    "sequences (users) whose KV cache at seq_len fits in the replica's free HBM",
    symbol="b_{max}",
    bounds=NON_NEGATIVE,
    rounding=("max_concurrent_sequences_whole",),
)
# The same, rounded down to whole sequences.
max_concurrent_sequences_whole = var(
    "max_concurrent_sequences_whole",
    "sequence",
    "whole sequences that fit (rounded down)",
    symbol="\\lfloor b_{max} \\rfloor",
    bounds=NON_NEGATIVE,
)
# Tokens each sequence gains per decode step: 1, more with speculative decoding.
tokens_per_step = var(
    "tokens_per_step",
    "token/sequence",
    "tokens each sequence gains per decode step",
    symbol="k",
    default=1,
    default_note=(
        "one token per sequence per decode step (plain autoregressive decoding); speculative "
        "decoding or multi-token prediction accepts more"
    ),
)
# Time of one decode step of the whole batch.
decode_step_time = var(
    "decode_step_time",
    "ms",
    "time of one decode step (every sequence of the batch advances)",
    symbol="t_{step}",
)
# Generation speed one sequence (user) sees.
decode_speed = var(
    "decode_speed",
    "token/(s*sequence)",
    "output tokens per second seen by one sequence (user)",
    symbol="v_{tok}",
)
# Output tokens per second of the whole batch.
decode_throughput = var(
    "decode_throughput",
    "token/s",
    "output tokens per second of one replica, whole batch",
    symbol="X_{tok}",
)
# Tokens generated per sequence (request).
output_len = var(
    "output_len",
    "token/sequence",
    "tokens generated per sequence (request; 0 for prefill-only scoring)",
    symbol="s_{out}",
    bounds=NON_NEGATIVE,
)
# Time to generate them at the decode speed.
generation_time = var(
    "generation_time",
    "s",
    "time to generate output_len tokens of one sequence",
    symbol="t_{gen}",
    bounds=NON_NEGATIVE,
)
# Forward pass: one multiply and one add per parameter per token.
forward_flop_per_param_token = var(
    "forward_flop_per_param_token",
    "FLOP/(param*token)",
    "forward-pass FLOP per parameter per token (2)",
    symbol="k_f",
    default=2,
    default_note=(
        "2 FLOP per parameter per token for the forward pass (Kaplan et al. 2020, "
        "C_forward ≈ 2N); attention over the context is counted on its own where the model's "
        "shape is known"
    ),
)
# Forward FLOP per token: what one generated or prefilled token costs.
inference_flop_per_token = var(
    "inference_flop_per_token",
    "FLOP/token",
    "forward FLOP per token (2 · active parameters)",
    symbol="C_{tok}",
)
# Prompt tokens processed by a prefill (whole batch).
prompt_tokens = var(
    "prompt_tokens", "token", "prompt (input) tokens processed in a prefill", symbol="s_{in}"
)
# Prompt tokens of one sequence (request): the context a prefill attends over.
prompt_len = var(
    "prompt_len",
    "token/sequence",
    "prompt (input) tokens of one sequence (request): the context its prefill attends over",
    symbol="l_{in}",
)
# Sequences whose prompts one prefill runs together.
prefill_sequences = var(
    "prefill_sequences",
    "sequence",
    "sequences (requests) whose prompts one prefill runs together",
    symbol="b_{pre}",
    default=1,
    default_note=(
        "one request's prompt per prefill, so prompt_tokens is one sequence's prompt; give "
        "prefill_sequences (or prompt_len) for a batch of prompts"
    ),
    whole=True,
)
# Time of that prefill when compute-bound (time to first token, no queueing).
prefill_time = var(
    "prefill_time",
    "s",
    "compute-bound prefill time (time to first token; 0 to leave it out)",
    symbol="t_{pre}",
    bounds=NON_NEGATIVE,
)
# Roofline ridge point: the arithmetic intensity where compute and bandwidth balance.
ridge_point = var(
    "ridge_point",
    "FLOP/B",
    "roofline ridge point: FLOP per HBM byte where compute and bandwidth balance",
    symbol="I^{*}",
)
# Arithmetic intensity of a decode step: FLOP per HBM byte read.
decode_arithmetic_intensity = var(
    "decode_arithmetic_intensity", "FLOP/B", "FLOP per HBM byte of a decode step", symbol="I_{dec}"
)
# Batch at which decode FLOPs take as long as reading the weights.
decode_compute_bound_batch = var(
    "decode_compute_bound_batch",
    "sequence",
    "batch size at which a decode step's compute time reaches its memory time (weights and "
    "KV cache read)",
    symbol="b^{*}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "kv_cache_per_token",
    "KV cache per token (MHA, GQA, MQA)",
    Eq(kv_bytes_per_token, 2 * n_layers * n_kv_heads * head_dim * kv_bytes_per_element),
    source=f"{POPE_2022}, §2; {AINSLIE_2023}",
    subject=SUBJECT,
    note=(
        "K and V for every layer and KV head; MHA: n_kv_heads = n_heads, MQA: "
        "n_kv_heads = 1, GQA in between (Llama-3-70B: 8 of 64)"
    ),
)

formula(
    "kv_cache_per_token_mla",
    "KV cache per token (MLA)",
    Eq(kv_bytes_per_token, n_layers * (kv_lora_rank + qk_rope_head_dim) * kv_bytes_per_element),
    source=DEEPSEEK_V2,
    subject=SUBJECT,
    note="one compressed latent plus one shared RoPE key per layer, no per-head K and V",
)

formula(
    "kv_cache_memory",
    "KV cache of a batch",
    Eq(kv_cache_memory, kv_bytes_per_token * seq_len * batch_size),
    source=f"{POPE_2022}; {KWON_2023}",
    subject=SUBJECT,
    note="every sequence at its full context; solved for seq_len, the context that fits",
)

formula(
    "kv_memory_budget",
    "HBM left for the KV cache",
    Eq(kv_memory_budget, n_gpus * hbm_capacity * hbm_usable_fraction - weight_memory),
    source=(
        f"{KWON_2023}; vLLM engine argument --gpu-memory-utilization (default 0.9: "
        "weights, activations and KV cache share 90% of each GPU's HBM)"
    ),
    subject=SUBJECT,
    note=(
        "the usable share of the replica's HBM less the weights; vLLM also takes its "
        "profiled activation peak (a few GB) out of that share"
    ),
)

formula(
    "max_concurrent_sequences",
    "Sequences that fit in a replica",
    Eq(max_concurrent_sequences, kv_memory_budget / (kv_bytes_per_token * seq_len)),
    source=KWON_2023,
    subject=SUBJECT,
    note="solved for seq_len: the context length a memory budget allows",
)

formula(
    "whole_concurrent_sequences",
    "Whole sequences that fit",
    Eq(max_concurrent_sequences_whole, floor(max_concurrent_sequences)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds down: a sequence's KV cache fits whole or not at all",
)

formula(
    "decode_speed",
    "Decode speed per sequence",
    Eq(decode_speed, tokens_per_step / decode_step_time),
    source=f"{POPE_2022}; speculative decoding: {LEVIATHAN_2023}",
    subject=SUBJECT,
)

formula(
    "decode_throughput",
    "Decode throughput of the batch",
    Eq(decode_throughput, batch_size * decode_speed),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "generation_time",
    "Time to generate a response",
    Eq(generation_time, output_len / decode_speed),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "inference_flop_per_token",
    "Inference FLOP per token",
    Eq(inference_flop_per_token, forward_flop_per_param_token * params),
    source=KAPLAN_2020,
    subject=SUBJECT,
    note="active parameters (MoE: the experts a token uses); attention over the context "
    "adds 2·n_layers·seq_len·d_attn, left out",
)

formula(
    "ridge_point",
    "Roofline ridge point",
    Eq(ridge_point, peak_flops / hbm_bandwidth),
    source=ROOFLINE_2009,
    subject=SUBJECT,
    note="kernels below this many FLOP per HBM byte are bandwidth-bound",
)
