"""Disaggregated serving: prefill workers and decode workers in pools of their own.

    t_P  = disagg_prefill_time    = max(W / (n_p·B·η_mem), F_P / (n_p·P·η))
                                    + x_P · L · a · (c_rn · h + n_mlp · d / r_p) / (B·η_mem·g_r)
                                    + n_AR,p · (α + 2(r_p − 1)/r_p · x_P·h·a / (B_link·η_NVL))
    F_P  = (k_f·N + k_a·L·H·Q · prompt_len/2) · x_P,     x_P = b_pre · prompt_len
    t_X  = disagg_kv_transfer_time = x_P · kv / B_KV
    disagg_ttft                   = t_P + t_X
    disagg_tpot                   = serving_decode_step_time / k
    λ_P  = prefill_pool_request_rate = w_p · b_pre / (n_seq · t_P)
    λ_D  = decode_pool_request_rate  = w_d · b·k / (n_seq · output_len · serving_decode_step_time)
    disagg_request_rate           = min(λ_P, λ_D)
    disagg_output_rate_per_gpu    = disagg_request_rate · n_seq · output_len / (w_p·n_p + w_d·n)

A prefill worker of n_p GPUs (``prefill_worker_gpus``, one tensor-parallel group of r_p ranks)
prefills b_pre = ``prefill_sequences`` prompts at a time, then sends their KV cache to a
decode worker over the link between them (B_KV = ``kv_transfer_bandwidth``); a decode worker
of n = ``n_gpus`` GPUs decodes its batch b = ``batch_size`` in steps that only decode
(``serving_decode_step_time``, the aggregated replica's decode-only step), so its TPOT carries
no prefill work. w_p and w_d workers serve the same stream of requests: the fleet completes
as many a second as its slower pool (Zhong et al. 2024, DistServe; Patel et al. 2024,
Splitwise), and the figure both tools rank by is that rate's output tokens over every GPU of
both pools. W is the weights (every expert: a prefill's thousands of tokens reach them all),
N the active parameters; the other symbols as in `serving_step`. The first token is
returned once the decode worker holds the prompt's cache (NVIDIA Dynamo's flow), so TTFT is
the prefill and the transfer, before any wait for a free prefill worker
(``time_in_queue_quantile``, M/M/c).

Left out: the transfer's overlap with the prefill (layer by layer in some engines: the
transfer is then hidden where it is shorter than the prefill), the prompts' KV writes (fused
into attention, as in `serving_step`), expert parallelism. The element-wise kernels are
`serving_step`'s: two fused residual-add and norm kernels and the MLP activation.
"""

from sympy import Max, Min, Mul

from napkinmath.library.declare import NON_NEGATIVE, Eq, constraint, formula, var

from .accelerator import hbm_bandwidth, hbm_capacity, hbm_usable_fraction, peak_flops
from .collectives import MEGATRON_TP, THAKUR_2005, activation_bytes_per_element
from .communication import link_bandwidth
from .flops import PALM_B, attention_flop_per_pair
from .inference import (
    KWON_2023,
    inference_flop_per_token,
    kv_bytes_per_token,
    output_len,
    prefill_sequences,
    prompt_len,
    tokens_per_step,
)
from .model import batch_size, head_dim, hidden_size, n_heads, n_layers, weight_memory
from .operators import memory_efficiency
from .parallelism import gpus_per_rank
from .placement import nvlink_collective_efficiency, scale_out_bandwidth
from .roofline import allreduce_message_latency
from .serving_step import (
    AICONFIGURATOR,
    FUSED_ADD_NORM,
    ORCA_2022,
    elementwise_bytes_per_token,
    sequences_per_request,
    serving_decode_step_time,
)
from .sources import DEFINITION
from .step_parts import compute_efficiency
from .training import n_gpus

SUBJECT = "serving"

DISTSERVE_2024 = (
    "Zhong et al. 2024, DistServe: Disaggregating Prefill and Decoding for Goodput-optimized "
    "Large Language Model Serving, OSDI '24, arXiv:2401.09670 (prefill and decode instances "
    "with their own parallelism; the KV cache moved between them)"
)
SPLITWISE_2024 = (
    "Patel et al. 2024, Splitwise: Efficient Generative LLM Inference Using Phase Splitting, "
    "ISCA '24, arXiv:2311.18677 (prompt and token pools sized to the request mix)"
)
DYNAMO = (
    "NVIDIA Dynamo, disaggregated serving (github.com/ai-dynamo/dynamo, docs/architecture): "
    "the decode worker asks a prefill worker for the prompt and receives its KV cache over "
    "NIXL (RDMA) before it streams the first token"
)

# --- Variables -----------------------------------------------------------------------------
prefill_worker_gpus = var(
    "prefill_worker_gpus",
    "GPU",
    "GPUs of one prefill worker (one tensor-parallel group)",
    symbol="n_p",
    whole=True,
)
prefill_worker_ranks = var(
    "prefill_worker_ranks",
    "",
    "ranks (processes) of one prefill worker, taken as one tensor-parallel group",
    symbol="r_p",
    whole=True,
)
prefill_worker_allreduces = var(
    "prefill_worker_allreduces",
    "",
    "tensor-parallel all-reduces in one forward pass of a prefill worker (none on one GPU)",
    symbol="n_{AR,p}",
    bounds=NON_NEGATIVE,
    whole=True,
)
prefill_workers = var(
    "prefill_workers",
    "",
    "prefill workers of a disaggregated fleet",
    symbol="w_p",
    whole=True,
)
decode_workers = var(
    "decode_workers",
    "",
    "decode workers of a disaggregated fleet (each n_gpus GPUs at batch_size)",
    symbol="w_d",
    whole=True,
)
disagg_prefill_tokens = var(
    "disagg_prefill_tokens",
    "token",
    "prompt tokens one prefill worker's batch holds",
    symbol="x_P",
)
disagg_prefill_compute_time = var(
    "disagg_prefill_compute_time",
    "ms",
    "a prefill worker's batch: its matmul and attention FLOPs at the compute roof",
    symbol="t_{P,c}",
)
disagg_prefill_weights_time = var(
    "disagg_prefill_weights_time",
    "ms",
    "a prefill worker's batch: every weight read once, at the memory roof",
    symbol="t_{P,W}",
)
disagg_prefill_elementwise_time = var(
    "disagg_prefill_elementwise_time",
    "ms",
    "a prefill worker's batch: the element-wise kernels (residual adds, norms, the MLP "
    "activation) at the memory roof",
    symbol="t_{P,e}",
    bounds=NON_NEGATIVE,
)
disagg_prefill_comm_time = var(
    "disagg_prefill_comm_time",
    "ms",
    "a prefill worker's batch: its tensor-parallel all-reduces (α-β)",
    symbol="t_{P,TP}",
    bounds=NON_NEGATIVE,
)
disagg_prefill_time = var(
    "disagg_prefill_time",
    "ms",
    "time a prefill worker takes for one batch of prompts",
    symbol="t_P",
)
kv_transfer_bandwidth = var(
    "kv_transfer_bandwidth",
    "GB/s",
    "bandwidth a prefill worker sends its KV cache to a decode worker at",
    symbol="B_{KV}",
)
disagg_kv_transfer_time = var(
    "disagg_kv_transfer_time",
    "ms",
    "time to move one prefill batch's KV cache to a decode worker",
    symbol="t_X",
    bounds=NON_NEGATIVE,
)
disagg_ttft = var(
    "disagg_ttft",
    "ms",
    "time to first token of a disaggregated fleet once a prefill worker is free: the "
    "prefill and the KV cache's transfer",
    symbol="\\mathrm{TTFT}_{dis}",
)
disagg_tpot = var(
    "disagg_tpot",
    "ms*sequence/token",
    "time per output token on a busy decode worker (its steps only decode)",
    symbol="\\mathrm{TPOT}_{dis}",
)
prefill_pool_request_rate = var(
    "prefill_pool_request_rate",
    "request/s",
    "requests the prefill workers prefill per second, all of them busy",
    symbol="\\lambda_P",
)
decode_pool_request_rate = var(
    "decode_pool_request_rate",
    "request/s",
    "requests the decode workers complete per second, every batch full",
    symbol="\\lambda_D",
)
disagg_request_rate = var(
    "disagg_request_rate",
    "request/s",
    "requests a disaggregated fleet completes per second: its slower pool's rate",
    symbol="\\lambda_{dis}",
)
disagg_gpus = var(
    "disagg_gpus",
    "GPU",
    "GPUs of a disaggregated fleet: both pools",
    symbol="n_{dis}",
    whole=True,
)
disagg_output_rate_per_gpu = var(
    "disagg_output_rate_per_gpu",
    "token/(s*GPU)",
    "output tokens per second per accelerator of a disaggregated fleet, both pools counted",
    symbol="X_{GPU,dis}",
)

_ATTENTION_PER_POSITION = attention_flop_per_pair * n_layers * n_heads * head_dim

# --- Formulas ------------------------------------------------------------------------------
formula(
    "prefill_worker_ranks",
    "Ranks of a prefill worker",
    Eq(prefill_worker_ranks, prefill_worker_gpus / gpus_per_rank),
    source=DEFINITION,
    subject=SUBJECT,
    note="the worker's GPUs split every layer tensor-parallel",
)

formula(
    "prefill_worker_allreduces",
    "Tensor-parallel all-reduces of a prefill worker's forward pass",
    Eq(
        prefill_worker_allreduces,
        2 * n_layers * Min(1, prefill_worker_ranks - 1, evaluate=False),
    ),
    source=MEGATRON_TP,
    subject=SUBJECT,
    forward_only=True,
    note="after attention and after the MLP in every layer; none on one GPU",
)

formula(
    "disagg_prefill_tokens",
    "Prompt tokens of a prefill worker's batch",
    Eq(disagg_prefill_tokens, prefill_sequences * prompt_len),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "disagg_prefill_compute_time",
    "Prefill worker's batch at the compute roof",
    Eq(
        disagg_prefill_compute_time,
        (inference_flop_per_token + _ATTENTION_PER_POSITION * prompt_len / 2)
        * disagg_prefill_tokens
        / (prefill_worker_gpus * peak_flops * compute_efficiency),
    ),
    source=f"{PALM_B} (its forward third); {DISTSERVE_2024}",
    subject=SUBJECT,
    note="2N per token for the matmuls; each token attends over half its prompt (causal)",
)

formula(
    "disagg_prefill_weights_time",
    "Prefill worker's weights read once",
    Eq(
        disagg_prefill_weights_time,
        weight_memory / (prefill_worker_gpus * hbm_bandwidth * memory_efficiency),
    ),
    source=f"{DISTSERVE_2024}; {DEFINITION}",
    subject=SUBJECT,
    note="every weight (a prompt's thousands of tokens reach every expert) read once",
)

formula(
    "disagg_prefill_elementwise_time",
    "Prefill worker's element-wise kernels",
    Eq(
        disagg_prefill_elementwise_time,
        disagg_prefill_tokens
        * elementwise_bytes_per_token(prefill_worker_ranks)
        / (hbm_bandwidth * memory_efficiency * gpus_per_rank),
    ),
    source=f"{FUSED_ADD_NORM}; {DEFINITION}",
    subject=SUBJECT,
    note=(
        "as a replica's serving_elementwise_bytes per token, the MLP activation split over "
        "the worker's ranks"
    ),
)

formula(
    "disagg_prefill_comm_time",
    "Prefill worker's tensor-parallel all-reduces",
    Eq(
        disagg_prefill_comm_time,
        prefill_worker_allreduces
        * (
            allreduce_message_latency
            + Mul(2, prefill_worker_ranks - 1, evaluate=False)
            / prefill_worker_ranks
            * disagg_prefill_tokens
            * hidden_size
            * activation_bytes_per_element
            / (link_bandwidth * nvlink_collective_efficiency)
        ),
    ),
    source=f"{THAKUR_2005}; {MEGATRON_TP}",
    subject=SUBJECT,
    note="α per all-reduce plus a ring's 2(r−1)/r of the batch's hidden states",
)

formula(
    "disagg_prefill_time",
    "Prefill worker's batch",
    Eq(
        disagg_prefill_time,
        Max(disagg_prefill_weights_time, disagg_prefill_compute_time, evaluate=False)
        + disagg_prefill_elementwise_time
        + disagg_prefill_comm_time,
    ),
    source=f"{DISTSERVE_2024}; {AICONFIGURATOR}",
    subject=SUBJECT,
    note=(
        "the matmuls and attention at the roof that binds, the element-wise kernels, then "
        "the all-reduces"
    ),
)

formula(
    "kv_transfer_bandwidth_nic",
    "KV transfer over the prefill worker's NICs",
    Eq(kv_transfer_bandwidth, scale_out_bandwidth * prefill_worker_gpus),
    source=DYNAMO,
    subject=SUBJECT,
    assumption=True,
    note=(
        "each prefill GPU sends its shard of the cache over its own NIC (RDMA); workers in "
        "one NVLink node move it faster: give kv_transfer_bandwidth"
    ),
)

formula(
    "disagg_kv_transfer_time",
    "KV cache moved from prefill to decode",
    Eq(
        disagg_kv_transfer_time,
        disagg_prefill_tokens * kv_bytes_per_token / kv_transfer_bandwidth,
    ),
    source=f"{DISTSERVE_2024}, §4; {DYNAMO}",
    subject=SUBJECT,
    note="the batch's keys and values for every layer, sent once the prefill is done",
)

formula(
    "disagg_ttft",
    "Time to first token, disaggregated",
    Eq(disagg_ttft, disagg_prefill_time + disagg_kv_transfer_time),
    source=f"{DISTSERVE_2024}; {DYNAMO}",
    subject=SUBJECT,
    note="the prompt's prefill, then its cache on the decode worker; queueing comes on top",
)

formula(
    "disagg_tpot",
    "Time per output token, disaggregated",
    Eq(disagg_tpot, serving_decode_step_time / tokens_per_step),
    source=DISTSERVE_2024,
    subject=SUBJECT,
    note="a decode worker's steps carry no prefill, so TPOT is its decode-only step",
)

formula(
    "prefill_pool_request_rate",
    "Requests the prefill pool serves",
    Eq(
        prefill_pool_request_rate,
        prefill_workers * prefill_sequences / (sequences_per_request * disagg_prefill_time),
    ),
    source=f"{SPLITWISE_2024}; {DEFINITION}",
    subject=SUBJECT,
    note="each worker prefills b_pre prompts per batch, one batch after another",
)

formula(
    "decode_pool_request_rate",
    "Requests the decode pool serves",
    Eq(
        decode_pool_request_rate,
        decode_workers
        * batch_size
        * tokens_per_step
        / (sequences_per_request * output_len * serving_decode_step_time),
    ),
    source=f"{ORCA_2022}; {SPLITWISE_2024}",
    subject=SUBJECT,
    note="b sequences a worker, each done after output_len/k steps (Little's law on the slots)",
)

formula(
    "disagg_request_rate",
    "Requests a disaggregated fleet serves",
    Eq(
        disagg_request_rate,
        Min(prefill_pool_request_rate, decode_pool_request_rate, evaluate=False),
    ),
    source=f"{SPLITWISE_2024}; {DISTSERVE_2024}",
    subject=SUBJECT,
    forward_only=True,
    note="every request passes through both pools: the slower one sets the rate",
)

formula(
    "disagg_gpus",
    "GPUs of a disaggregated fleet",
    Eq(disagg_gpus, prefill_workers * prefill_worker_gpus + decode_workers * n_gpus),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "disagg_output_rate_per_gpu",
    "Output tokens per accelerator, disaggregated",
    Eq(
        disagg_output_rate_per_gpu,
        disagg_request_rate * sequences_per_request * output_len / disagg_gpus,
    ),
    source=DEFINITION,
    subject=SUBJECT,
    note="the figure aiconfigurator ranks disaggregated configurations by (tokens/s/gpu)",
)

constraint(
    "prefill_worker_fits_hbm",
    "A prefill worker's weights and its batch's KV cache fit in its usable HBM",
    weight_memory + disagg_prefill_tokens * kv_bytes_per_token,
    hbm_usable_fraction * hbm_capacity * prefill_worker_gpus,
    source=f"{DISTSERVE_2024}; {KWON_2023}",
    subject=SUBJECT,
    touch=(disagg_prefill_time,),
    message="a prefill worker holds every weight and its prompts' KV cache until it is sent: "
    "give it more GPUs (prefill_worker_gpus), prefill fewer prompts at once "
    "(prefill_sequences), or store the KV cache in fp8 (kv_bytes_per_element = 1)",
)
