"""The roofline of a forward pass: a decode step and a prefill take the longer of their memory
time and their compute time, plus the tensor-parallel all-reduces between the layers.

    experts_touched_fraction = 1 − (1 − k_E/E)^(b·k)                  (uniform top-k routing)
    decode_weight_memory = M_w · (N + (N_total − N) · (E·f − k_E)/(E − k_E)) / N_total
    decode_memory_time   = (decode_weight_memory + kv_cache_memory) / (n_gpus · hbm_bandwidth)
    decode_compute_time  = b · k · C_tok,fwd / (n_gpus · peak_flops · compute_efficiency)
    decode_step_time     = max(decode_memory_time, decode_compute_time) + decode_tp_comm_time
    prompt_tokens        = prefill_sequences · prompt_len
    prefill_memory_time  = weight_memory / (n_gpus · hbm_bandwidth)
    prefill_compute_time = prompt_tokens · C_tok,pre / (n_gpus · peak_flops · compute_efficiency)
    prefill_time         = max(prefill_memory_time, prefill_compute_time) + prefill_tp_comm_time
    decode_compute_bound_batch = M_w / (k · C_tok,fwd / ridge_point − kv_bytes_per_token · s)
    decode_throughput_ceiling  = k / max(k · C_tok,fwd / (n_gpus · peak_flops · compute_efficiency),
                                         kv_bytes_per_token · s / (n_gpus · hbm_bandwidth))
    replica_ranks        = n_gpus / gpus_per_rank                               (r)
    forward_tp_allreduces = 2 · n_layers · min(1, r − 1)
    decode_tp_comm_time  = forward_tp_allreduces · (α + 2(r − 1)/r · b·k·h·b_act / B_link)
    prefill_tp_comm_time = forward_tp_allreduces · (α + 2(r − 1)/r · s_in·h·b_act / B_link)

C_tok,fwd is ``inference_flop_per_token_with_attention``: 2N for the weights plus 4·L·H·Q·s for
attention over a context of s (PaLM's Appendix B count, its forward third; the scaling book's
inference chapter counts the same); a prefill's C_tok,pre counts its prompt tokens' attention
over their prompt, l_in = ``prompt_len`` (one request's prompt unless ``prefill_sequences``
says more). Where the model's shape or the context is not known, the attention term is left
out, and the answer says so as an assumption.

A mixture of experts reads only the experts its tokens reach. Each of a step's b·k tokens
picks k_E of a layer's E routed experts; with the picks uniform and independent, a given
expert is missed by all of them with probability (1 − k_E/E)^(b·k), so the expected share
touched is f = 1 − (1 − k_E/E)^(b·k) (Qwen3-235B-A22B, 8 of 128: 6.25% at batch 1, 87% at
32). Of the N_total − N parameters a token does not use ((E − k_E) experts' worth), a step
reads the share (E·f − k_E)/(E − k_E) on top of the N it always reads: N at batch 1, N_total
as f → 1. Real routers are not uniform (popular experts take more tokens), which touches
fewer experts: the uniform share is the upper end. Where the model names no experts, every
weight is read, said as an assumption.

A step reads every weight and the whole KV cache once (the memory roof) and does b·k·C_tok,fwd
FLOPs (the compute roof); whichever takes longer sets the step (Williams, Waterman and
Patterson's roofline, as llm-analysis, LLM-Viewer and the scaling book compute it). Below the
ridge point a decode step is bandwidth-bound and throughput grows with the batch; above it
the step grows with the batch and throughput flattens at n_gpus · peak_flops / C_tok,fwd.

The replica's GPUs are taken as one tensor-parallel group (the memory roof divides the bytes
by all of them, which only tensor parallelism does for a single step). Megatron's tensor
parallelism all-reduces the layer's activations twice per layer in the forward pass; each
all-reduce costs a fixed latency α plus a ring's 2(r − 1)/r of the message over the link
(the α-β model). For a small decode batch the latency dominates: Llama-2-70B at tp 4 on H100,
160 all-reduces of 8 µs, about 1.3 ms of a 10 ms step.

The roofs are ``peak_flops`` and ``hbm_bandwidth``: the datasheet figures, which measured
kernels do not reach (about 80% and 90% on H100 and H200); ``compute_efficiency`` (stated
default 1) runs the matmuls at a share of the peak, and ``--achievable`` puts the record's
measured figures in their place (but not where the question reads an MFU, which is defined
against the datasheet peak). Where a question gives too little for a roof or for the
all-reduces (no shape, no batch), the step is the memory time alone and the prefill the
compute time alone, each said in the answer as an assumption.
"""

from sympy import Expr, Max, Min, Mul

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Eq, formula, var

from .accelerator import hbm_bandwidth, peak_flops
from .collectives import MEGATRON_TP, THAKUR_2005, activation_bytes_per_element
from .communication import link_bandwidth
from .flops import PALM_B, inference_flop_per_token_with_attention, prefill_flop_per_token
from .inference import (
    POPE_2022,
    ROOFLINE_2009,
    decode_arithmetic_intensity,
    decode_compute_bound_batch,
    decode_step_time,
    inference_flop_per_token,
    kv_bytes_per_token,
    kv_cache_memory,
    prefill_sequences,
    prefill_time,
    prompt_len,
    prompt_tokens,
    ridge_point,
    tokens_per_step,
)
from .model import batch_size, hidden_size, n_layers, params_total, seq_len, weight_memory
from .moe import FEDUS_2022, experts_per_token, n_experts
from .parallelism import gpus_per_rank
from .sources import DEFINITION
from .step_parts import compute_efficiency
from .training import n_gpus, params

SUBJECT = "inference"

SCALING_BOOK_INFERENCE = (
    "Austin et al. 2025, How to Scale Your Model (the JAX scaling book), 'All About Transformer "
    "Inference': a step takes max(T_math, T_memory), decode turns compute-bound past the ridge"
)
LLM_ANALYSIS = (
    "Li 2023, llm-analysis (github.com/cli99/llm-analysis): per-layer latency max(compute, "
    "memory) plus two tensor-parallel all-reduces, 8 µs minimum message latency on H100 SXM"
)

# --- Variables -----------------------------------------------------------------------------
# Tokens one top-k routing draw places (the unit that makes b·k a count of draws).
tokens_per_route = var(
    "tokens_per_route",
    "token",
    "tokens each top-k routing draw places (1: every token is routed on its own)",
    symbol="u_r",
    default=1,
    default_note="every token is routed on its own: one top-k draw per token",
)
# Expected share of a MoE layer's routed experts one decode step touches.
experts_touched_fraction = var(
    "experts_touched_fraction",
    "",
    "expected share of a MoE layer's routed experts that one decode step's tokens reach",
    symbol="f_E",
    bounds=FRACTION,
)
# Weight bytes one decode step reads.
decode_weight_memory = var(
    "decode_weight_memory",
    "GB",
    "weights one decode step reads: a dense model's all; a MoE's shared weights and the "
    "experts its tokens reach",
    symbol="M_{w,dec}",
)
# The decode throughput a replica approaches as its batch grows.
decode_throughput_ceiling = var(
    "decode_throughput_ceiling",
    "token/s",
    "decode throughput a replica approaches as the batch grows: each sequence's compute or "
    "its KV read, whichever is longer, with the weights' read shared by the batch",
    symbol="X_{tok,max}",
)
# A decode step at the memory roof.
decode_memory_time = var(
    "decode_memory_time",
    "ms",
    "memory roof: a decode step's time to read the weights and the KV cache once",
    symbol="t_{dec,mem}",
    bounds=NON_NEGATIVE,
)
# A decode step at the compute roof.
decode_compute_time = var(
    "decode_compute_time",
    "ms",
    "compute roof: a decode step's FLOPs at the compute roof",
    symbol="t_{dec,math}",
    bounds=NON_NEGATIVE,
)
# A prefill at the memory roof.
prefill_memory_time = var(
    "prefill_memory_time",
    "s",
    "memory roof: a prefill's time to read the weights once",
    symbol="t_{pre,mem}",
    bounds=NON_NEGATIVE,
)
# A prefill at the compute roof.
prefill_compute_time = var(
    "prefill_compute_time",
    "s",
    "compute roof: a prefill's FLOPs at the compute roof",
    symbol="t_{pre,math}",
    bounds=NON_NEGATIVE,
)
# Ranks of one replica, one tensor-parallel group.
replica_ranks = var(
    "replica_ranks",
    "",
    "ranks (processes) of one serving replica, taken as one tensor-parallel group",
    symbol="r",
    whole=True,
)
# Fixed cost of one small all-reduce inside an NVLink domain.
allreduce_message_latency = var(
    "allreduce_message_latency",
    "us",
    "fixed latency of one tensor-parallel all-reduce inside an NVLink domain (α per message)",
    symbol="\\alpha_{AR}",
    bounds=NON_NEGATIVE,
    default=8,
    default_note=(
        "8 µs per all-reduce inside an NVLink node, the minimum message latency llm-analysis "
        "uses for H100 SXM; small all-reduces in nccl-tests on 8 NVLink GPUs take this order"
    ),
)
# All-reduces of one forward pass of the replica.
forward_tp_allreduces = var(
    "forward_tp_allreduces",
    "",
    "tensor-parallel all-reduces in one forward pass of the replica (2 per layer; none on one GPU)",
    symbol="n_{AR,fwd}",
    bounds=NON_NEGATIVE,
    whole=True,
)
# One decode step's all-reduce buffer.
decode_tp_message_bytes = var(
    "decode_tp_message_bytes",
    "kB",
    "buffer of one tensor-parallel all-reduce in a decode step: b·k·h activations",
    symbol="S_{AR,dec}",
)
# One prefill's all-reduce buffer.
prefill_tp_message_bytes = var(
    "prefill_tp_message_bytes",
    "MB",
    "buffer of one tensor-parallel all-reduce in a prefill: s_in·h activations",
    symbol="S_{AR,pre}",
)
# Tensor-parallel all-reduce time of one decode step.
decode_tp_comm_time = var(
    "decode_tp_comm_time",
    "ms",
    "tensor-parallel all-reduce time of one decode step (α-β)",
    symbol="t_{dec,TP}",
    bounds=NON_NEGATIVE,
)
# Tensor-parallel all-reduce time of one prefill.
prefill_tp_comm_time = var(
    "prefill_tp_comm_time",
    "s",
    "tensor-parallel all-reduce time of one prefill (α-β)",
    symbol="t_{pre,TP}",
    bounds=NON_NEGATIVE,
)


def _tp_allreduces(message: Expr) -> Expr:
    """The forward pass's all-reduces of `message` bytes each: α plus a ring's 2(r−1)/r of
    the message over the link, per all-reduce (Thakur et al.'s α-β model)."""
    ring = Mul(2, replica_ranks - 1, evaluate=False) / replica_ranks
    return forward_tp_allreduces * (allreduce_message_latency + ring * message / link_bandwidth)


# --- Formulas ------------------------------------------------------------------------------
formula(
    "prefill_attention_left_out",
    "Forward FLOPs per prompt token without attention",
    Eq(prefill_flop_per_token, inference_flop_per_token),
    source=PALM_B,
    subject=SUBJECT,
    assumption=True,
    derived_from=("prefill_flop_per_token",),
    note=(
        "attention over the prompt left out (2N only): give the model's shape (n_layers, "
        "n_heads, head_dim, or --model) to count its 4·L·H·Q·l_in"
    ),
)

formula(
    "attention_left_out",
    "Forward FLOPs per token without attention",
    Eq(inference_flop_per_token_with_attention, inference_flop_per_token),
    source=PALM_B,
    subject=SUBJECT,
    assumption=True,
    derived_from=("inference_flop_per_token_with_attention",),
    note=(
        "attention over the context left out (2N only): give the model's shape "
        "(n_layers, n_heads, head_dim, or --model) and seq_len to count its 4·L·H·Q·s"
    ),
)

formula(
    "experts_touched",
    "Share of the experts a decode step reaches",
    Eq(
        experts_touched_fraction,
        1
        - (1 - experts_per_token / n_experts) ** (batch_size * tokens_per_step / tokens_per_route),
    ),
    source=f"{FEDUS_2022} (top-k routing); {DEFINITION} (uniform, independent routing)",
    subject=SUBJECT,
    note=(
        "each of the step's b·k tokens picks k_E of E experts; an expert none of them picks "
        "is not read. Uniform routing is the upper end: a skewed router reaches fewer"
    ),
)

formula(
    "decode_weight_memory",
    "Weights a decode step reads (MoE)",
    Eq(
        decode_weight_memory,
        weight_memory
        * (
            params
            + (params_total - params)
            * (n_experts * experts_touched_fraction - experts_per_token)
            / (n_experts - experts_per_token)
        )
        / params_total,
    ),
    source=f"{FEDUS_2022}; {POPE_2022}, §2",
    subject=SUBJECT,
    note=(
        "the active parameters N always, and of the N_total − N a token leaves unused the "
        "share its step's other tokens reach: N at batch 1, every weight once every expert is "
        "touched; a dense model (N = N_total) reads every weight"
    ),
)

formula(
    "decode_reads_every_weight",
    "Every weight read each decode step",
    Eq(decode_weight_memory, weight_memory),
    source=f"{POPE_2022}, §2",
    subject=SUBJECT,
    assumption=True,
    derived_from=("decode_weight_memory",),
    note=(
        "every weight read each step: right for a dense model; a mixture of experts at a "
        "small batch reads fewer (give n_experts and experts_per_token, or --model, to "
        "count the experts a step reaches)"
    ),
)

formula(
    "decode_memory_time",
    "Decode step at the memory roof",
    Eq(decode_memory_time, (decode_weight_memory + kv_cache_memory) / (n_gpus * hbm_bandwidth)),
    source=f"{POPE_2022}, §2; {ROOFLINE_2009}",
    subject=SUBJECT,
    note="each step reads the weights its tokens use once, and the whole KV cache",
)

formula(
    "decode_compute_time",
    "Decode step at the compute roof",
    Eq(
        decode_compute_time,
        batch_size
        * tokens_per_step
        * inference_flop_per_token_with_attention
        / (n_gpus * peak_flops * compute_efficiency),
    ),
    source=f"{POPE_2022}, §2; {ROOFLINE_2009}",
    subject=SUBJECT,
    note="every sequence of the batch advances tokens_per_step tokens",
)

formula(
    "replica_ranks",
    "Ranks of a replica",
    Eq(replica_ranks, n_gpus / gpus_per_rank),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "the replica's GPUs split every layer tensor-parallel, as dividing its bytes by "
        "n_gpus for one step assumes"
    ),
)

formula(
    "forward_tp_allreduces",
    "Tensor-parallel all-reduces in a forward pass",
    Eq(forward_tp_allreduces, 2 * n_layers * Min(1, replica_ranks - 1, evaluate=False)),
    source=MEGATRON_TP,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "after attention and after the MLP in every layer; min(1, r − 1) is 0 on one "
        "GPU and 1 on a tensor-parallel replica of r ranks"
    ),
)

formula(
    "decode_tp_message_bytes",
    "Decode all-reduce buffer",
    Eq(
        decode_tp_message_bytes,
        batch_size * tokens_per_step * hidden_size * activation_bytes_per_element,
    ),
    source=MEGATRON_TP,
    subject=SUBJECT,
    note="the b·k new tokens' hidden states, whole on every tensor-parallel rank",
)

formula(
    "decode_tp_comm_time",
    "Tensor-parallel all-reduces of a decode step",
    Eq(decode_tp_comm_time, _tp_allreduces(decode_tp_message_bytes)),
    source=f"{THAKUR_2005}; {MEGATRON_TP}; {LLM_ANALYSIS}",
    subject=SUBJECT,
    note=(
        "α per all-reduce plus a ring's 2(r−1)/r of the buffer over the link; the "
        "replica's GPUs are one tensor-parallel group; not overlapped with compute"
    ),
)

formula(
    "decode_step_time",
    "Decode step at the roofline",
    Eq(
        decode_step_time,
        Max(decode_memory_time, decode_compute_time, evaluate=False) + decode_tp_comm_time,
    ),
    source=f"{ROOFLINE_2009}; {POPE_2022}, §2; {SCALING_BOOK_INFERENCE}",
    subject=SUBJECT,
    note=(
        "the longer of the two roofs binds; at the datasheet peaks a lower bound on the "
        "step time (an upper bound on speed); as the batch grows, throughput approaches "
        "decode_throughput_ceiling and never passes it"
    ),
)

formula(
    "decode_throughput_ceiling",
    "Decode throughput as the batch grows",
    Eq(
        decode_throughput_ceiling,
        tokens_per_step
        / Max(
            tokens_per_step
            * inference_flop_per_token_with_attention
            / (n_gpus * peak_flops * compute_efficiency),
            kv_bytes_per_token * seq_len / (n_gpus * hbm_bandwidth),
            evaluate=False,
        ),
    ),
    source=f"{ROOFLINE_2009}; {POPE_2022}, §2; {SCALING_BOOK_INFERENCE}",
    subject=SUBJECT,
    note=(
        "a step of b sequences takes max(M_w + b·kv·s, …)/(n·B) against b·k·C/(n·P·η); as b "
        "grows the weights' share vanishes and each sequence costs the longer of its compute "
        "and its KV read: the compute roof n·P·η/C for short contexts, the KV reads' "
        "n·B/(kv·s) for long ones; no batch reaches it (the all-reduces are left out)"
    ),
)

formula(
    "prefill_memory_time",
    "Prefill at the memory roof",
    Eq(prefill_memory_time, weight_memory / (n_gpus * hbm_bandwidth)),
    source=f"{POPE_2022}, §3; {ROOFLINE_2009}",
    subject=SUBJECT,
    note="the weights are read once for the whole prompt; the KV cache written is left out",
)

formula(
    "prefill_prompt_tokens",
    "Prompt tokens of a prefill",
    Eq(prompt_tokens, prefill_sequences * prompt_len),
    source=DEFINITION,
    subject=SUBJECT,
    note="the prompts of the sequences one prefill runs together",
)

formula(
    "prefill_compute_time",
    "Prefill at the compute roof",
    Eq(
        prefill_compute_time,
        prompt_tokens * prefill_flop_per_token / (n_gpus * peak_flops * compute_efficiency),
    ),
    source=f"{POPE_2022}, §3; {PALM_B}",
    subject=SUBJECT,
    note="the prompt's tokens run in parallel; attention counted over each prompt",
)

formula(
    "prefill_tp_message_bytes",
    "Prefill all-reduce buffer",
    Eq(prefill_tp_message_bytes, prompt_tokens * hidden_size * activation_bytes_per_element),
    source=MEGATRON_TP,
    subject=SUBJECT,
    note="the prompt's hidden states, whole on every tensor-parallel rank",
)

formula(
    "prefill_tp_comm_time",
    "Tensor-parallel all-reduces of a prefill",
    Eq(prefill_tp_comm_time, _tp_allreduces(prefill_tp_message_bytes)),
    source=f"{THAKUR_2005}; {MEGATRON_TP}; {LLM_ANALYSIS}",
    subject=SUBJECT,
    note="as in a decode step, with the whole prompt's activations in each all-reduce",
)

formula(
    "prefill_time",
    "Prefill at the roofline",
    Eq(
        prefill_time,
        Max(prefill_memory_time, prefill_compute_time, evaluate=False) + prefill_tp_comm_time,
    ),
    source=f"{ROOFLINE_2009}; {POPE_2022}, §3; {SCALING_BOOK_INFERENCE}",
    subject=SUBJECT,
    note="compute-bound for all but the shortest prompts (time to first token, no queue)",
)

formula(
    "decode_arithmetic_intensity",
    "Arithmetic intensity of a decode step",
    Eq(
        decode_arithmetic_intensity,
        batch_size
        * tokens_per_step
        * inference_flop_per_token_with_attention
        / (decode_weight_memory + kv_cache_memory),
    ),
    source=f"{ROOFLINE_2009}; {POPE_2022}",
    subject=SUBJECT,
    note="compare with ridge_point: below it the step is bandwidth-bound",
)


formula(
    "decode_compute_bound_batch",
    "Batch where decode turns compute-bound",
    Eq(
        decode_compute_bound_batch,
        weight_memory
        / (
            tokens_per_step * inference_flop_per_token_with_attention / ridge_point
            - kv_bytes_per_token * seq_len
        ),
    ),
    source=f"{ROOFLINE_2009}; {POPE_2022}",
    subject=SUBJECT,
    note=(
        "each sequence adds k·C_tok FLOP (k·C_tok / ridge bytes' worth of time) and reads its "
        "s·kv bytes of cache; the step turns compute-bound where the batch's surplus of "
        "compute over its KV reads covers the weights: b* = M_w / (k·C_tok/ridge − kv·s). "
        "Where a sequence's KV read outlasts its compute (a long context) the denominator is "
        "not positive and decode never turns compute-bound. Every weight is counted: at the "
        "batches where a step nears the compute roof its tokens reach every expert of a MoE"
    ),
)


# --- Fallbacks: a part left out where the question cannot give it, said in the answer ---------
_NO_COMM = (
    "tensor-parallel all-reduces left out: give the model's shape (--model) and a GPU "
    "record or link_bandwidth to count two per layer on a multi-GPU replica"
)
_NO_COMPUTE = (
    "the compute roof left out, so the step is its memory time: right only well "
    "below the ridge point (batch ≪ peak_flops / hbm_bandwidth); give batch_size, "
    "params and peak_flops (or --model and --gpu) to count it"
)
_NO_MEMORY = (
    "the time to read the weights left out: right for all but the shortest prompts; "
    "give hbm_bandwidth (or --gpu) to count it"
)

formula(
    "decode_step_time_memory_only",
    "Bandwidth-bound decode step",
    Eq(decode_step_time, decode_memory_time),
    source=f"{POPE_2022}, §2",
    subject=SUBJECT,
    assumption=True,
    derived_from=("decode_step_time",),
    note=f"{_NO_COMPUTE}; {_NO_COMM}",
)

formula(
    "prefill_time_compute_only",
    "Compute-bound prefill",
    Eq(prefill_time, prefill_compute_time),
    source=f"{POPE_2022}, §3",
    subject=SUBJECT,
    assumption=True,
    derived_from=("prefill_time",),
    note=f"{_NO_MEMORY}; {_NO_COMM}",
)

formula(
    "decode_compute_bound_batch_weights_only",
    "Batch where decode turns compute-bound (weights only)",
    Eq(
        decode_compute_bound_batch,
        ridge_point * weight_memory / (tokens_per_step * inference_flop_per_token),
    ),
    source=f"{ROOFLINE_2009}; {POPE_2022}",
    subject=SUBJECT,
    assumption=True,
    derived_from=("decode_compute_bound_batch",),
    note=(
        "the KV reads and attention left out: a step's b·k·2·N FLOP against its weight bytes "
        "reach the ridge point at b* = ridge · M_w / (2 · k · N) (dense bf16: the ridge point "
        "in number, 295 on H100); right for short contexts only, since each sequence's KV read "
        "pushes b* up, past any batch at long context: give the model's shape and seq_len "
        "(or --model) to count them"
    ),
)
