"""A training step from its parts: compute, memory-bound operators, communication, bubble,
optimizer, input, for a layout.

Layout: t = tp, p = pp, d = dp, c = cp, e = ep, b = batch_size (the micro-batch, sequences),
m = n_microbatches per replica per step, v = virtual_pipeline_stages, z = zero_stage,
f = recomputed_layer_fraction (full recomputation), f_s = selective_recompute. Every time is
the critical path of one GPU for one optimizer step; a prediction is a forecast: the rates
are the GPU record's measured ones where it has them (compute_efficiency, memory_efficiency,
nvlink_collective_efficiency; `napkinmath.solving.achievable`), and step_time_ideal keeps the
speed-of-light figure.

    step_model_flops      = train_flop_per_token · global_batch_tokens     (PaLM: 6N + 12·L·H·Q·T)
    step_recompute_flops  = global_batch_tokens · (f · (k_f·N + F_att) + f_s · (1 − f) · F_att)
    compute_time          = (step_model_flops + step_recompute_flops)
                            / (n_gpus · peak_flops · compute_efficiency)
    memory_bound_time     = (L/p) · m · layer_memory_traffic / (B_HBM · η_mem · g_r)
                                                             (`napkinmath.formulas.operators`)
    last_stage_extra_time = (p − 1) · 6 · V · h · global_batch_tokens
                            / (n_gpus · peak_flops · compute_efficiency)
    tp_comm_time          = (n_AR + 2f + min(sp − 1, 1)) · (L/p) · m
                            · (2(t − 1)/t · S_tp / (c·B_tp) + 2·min(t − 1, 1)·α)
    pipeline_bubble_time  = (p − 1)/(v·m) · (compute + memory + last stage + tp, cp, ep)
    pp_send_time          = 2 · v · m · min(p − 1, 1) · S_tp / c · (1/(t·B_pp) + (t − 1)/(t·B_tp))
    dp_comm_time          = (1 + max(z − 2, 0)/2) · 2(n − 1)/n · G / B_dp,  n = d·c
    dp_comm_exposed_time  = max(dp_comm_time, W) − W,  W = η_ov · f_bwd · (compute + tp)/m
    cp_comm_time          = 3 · (L/p) · m · (c − 1) · 2·(b·s/c)·n_kv·d_head·a / (t · B_cp)
    ep_comm_time          = 2 · (L_MoE/p) · m · V_EP / (c · sp · B_ep)
    optimizer_time        = N_rank · b_opt / ((d·c)^min(z, 1) · B_HBM · η_mem · g_r)
    step_time_predicted   = compute + memory + last stage + tp + bubble + pp sends
                            + exposed dp + cp + ep + optimizer + dataloader_wait
    mfu_predicted         = step_model_flops / (step_time_predicted · n_gpus · peak_flops)
    step_time_ideal       = step_model_flops / (n_gpus · peak_flops)       (peak, nothing else)

F_att = ``inference_attention_flop_per_token`` (the forward QKᵀ and AV), k_f·N the forward
FLOPs of the weights, a = ``activation_bytes_per_element`` (bf16: 2 B), n_AR =
``tp_allreduces_per_layer`` (4), S_tp = b·s·h·a, α = ``collective_latency``, V_EP =
``moe_alltoall_bytes_per_rank`` (a micro-batch's dispatch and combine, (e − 1)/e of them off
the rank), G = the gradient bytes of one rank (``dp_gradient_bytes``), N_rank the parameters
one rank holds, b_opt the bytes the optimizer step reads and writes per parameter. The links
B_tp, B_dp, B_pp, B_cp, B_ep are where the layout puts each group's ranks
(`napkinmath.formulas.placement`: NVLink at its measured bus bandwidth inside a node, the NIC
across, hierarchical where a group spans both).

Sources, term by term. Compute: PaLM's model FLOPs (Chowdhery et al. 2022, App. B); full
recomputation repeats each recomputed layer's forward pass (Narayanan et al. 2021, eq. 3:
8ND in place of 6ND), selective recomputation the attention scores' forward (Korthikanti et
al. 2022, §5). The memory-bound operators and the matmuls' epilogues: `formulas/operators.py`.
The output layer: the pipeline runs at its slowest stage's pace, and the last stage does the
whole V·h matmul that compute_time spreads over the stages (Narayanan et al. 2021, §2.2).
Tensor parallelism: two all-reduces per layer forward and two backward, two more in a
recomputed forward (Shoeybi et al. 2019, §3; Korthikanti et al. 2022, §4.2.2: with sequence
parallelism an all-gather and a reduce-scatter of the same volume, and the backward
all-gathers each block's input again for its weight gradients, as Megatron-LM's
LinearWithGradAccumulationAndAsyncCommunication does: one all-reduce's volume more). The bubble
is (p − 1)/(v·m) of the ideal pipeline time (Narayanan et al. 2021, §2.2), and a stage sends
one activation forward and one gradient backward per micro-batch and model chunk, 1/t of it
per tensor-parallel rank with the scatter/gather optimisation, all-gathered across the
tensor-parallel group on arrival (§4.1). The data-parallel gradient reduction is a ring
all-reduce (reduce-scatter + all-gather under ZeRO-1/2, the same volume; ZeRO-3 adds a
second all-gather of the weights: 1.5× (Rajbhandari et al. 2020, §7)) over dp·cp ranks,
which overlaps the last micro-batch's backward (Li et al. 2020, §3.2; Megatron's
--overlap-grad-reduce). Context parallelism passes each rank's key/value chunk around a ring,
c − 1 hops forward and twice that backward (Liu et al. 2023, Ring Attention). Expert
parallelism: a dispatch and a combine all-to-all per MoE layer forward, two more backward
(Lepikhin et al. 2020, GShard §2.2). The optimizer step is memory-bound: Megatron's
mixed-precision step, 46 bytes per parameter it updates, at the memory roof.

Assumptions, each stated where it is used: no overlap of tensor-parallel, pipeline, context or
expert communication with compute (an upper bound on those terms; Megatron overlaps some of
each); full overlap of the gradient reduction with the last micro-batch's backward
(``dp_overlap_fraction`` = 1); kernel launch gaps left out. Balanced stages: each GPU does
1/n_gpus of the FLOPs, but for the output layer on the last stage.
"""

from sympy import Max, Min

from napkinmath.library.declare import FRACTION, NON_NEGATIVE, Bounds, Eq, formula, var

from .accelerator import hbm_bandwidth, peak_flops
from .activations import recomputed_layer_fraction
from .architecture import n_moe_layers
from .collectives import (
    activation_bytes_per_element,
    moe_alltoall_bytes_per_rank,
    tp_allreduces_per_layer,
    tp_message_bytes,
)
from .flops import inference_attention_flop_per_token, train_flop_per_token
from .inference import forward_flop_per_param_token
from .memory import grad_bytes_per_param, params_per_entry, zero_stage
from .model import (
    batch_size,
    head_dim,
    hidden_size,
    n_kv_heads,
    n_layers,
    params_total,
    seq_len,
    vocab_size,
)
from .moe import expert_params, n_experts, shared_params
from .operators import memory_bound_time, memory_efficiency, selective_recompute
from .parallelism import (
    cp,
    dp,
    ep,
    gpus_per_rank,
    n_microbatches,
    pipeline_bubble_fraction,
    pp,
    sp,
    tp,
    virtual_pipeline_stages,
)
from .placement import (
    cp_link_bandwidth,
    dp_link_bandwidth,
    ep_link_bandwidth,
    pp_link_bandwidth,
    tp_link_bandwidth,
)
from .sources import CHOWDHERY_2022, DEFINITION, KORTHIKANTI_2022
from .step_time import backward_fraction, global_batch_tokens, step_time_predicted
from .training import flop_per_param_token, n_gpus, params

SUBJECT = "step"

NARAYANAN_2021 = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters "
    "Using Megatron-LM, arXiv:2104.04473"
)
SHOEYBI_2019 = (
    "Shoeybi et al. 2019, Megatron-LM: Training Multi-Billion Parameter Language Models Using "
    "Model Parallelism, arXiv:1909.08053, §3 (two all-reduces per layer forward, two backward)"
)
ZERO_2020 = (
    "Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion Parameter "
    "Models, arXiv:1910.02054, §7 (communication volume: 2Ψ for stages 1-2, 3Ψ for stage 3)"
)
LI_2020 = (
    "Li et al. 2020, PyTorch Distributed: Experiences on Accelerating Data Parallel Training, "
    "arXiv:2006.15704, §3.2 (gradient buckets all-reduced during the backward pass)"
)
RING_ATTENTION = (
    "Liu, Zaharia and Abbeel 2023, Ring Attention with Blockwise Transformers for "
    "Near-Infinite Context, arXiv:2310.01889 (key/value blocks passed around a ring)"
)
GSHARD = "Lepikhin et al. 2020, GShard, arXiv:2006.16668, §2.2 (dispatch and combine all-to-all)"

# --- Variables -----------------------------------------------------------------------------
# Fraction of the datasheet peak the step's matmuls run at.
compute_efficiency = var(
    "compute_efficiency",
    "",
    "fraction of the datasheet peak FLOP/s the step's matmuls run at",
    symbol="\\eta_{c}",
    bounds=FRACTION,
    default=1,
    default_note=(
        "every matmul at the datasheet peak (an ideal bound); --achievable uses the record's "
        "measured matmul rate, or give compute_efficiency"
    ),
    mistaken_for=("mfu", "hfu", "prefill_mfu"),
)
step_model_flops = var(
    "step_model_flops",
    "FLOP",
    "model FLOPs of one step with attention (PaLM's count, no recomputation)",
    symbol="C_{model}",
)
step_recompute_flops = var(
    "step_recompute_flops",
    "FLOP",
    "FLOPs of one step spent recomputing activations",
    symbol="C_{re}",
    bounds=NON_NEGATIVE,
)
compute_time = var(
    "compute_time",
    "s",
    "matmul time of one step on each GPU: model and recompute FLOPs at compute_efficiency",
    symbol="t_{comp}",
)
step_time_ideal = var(
    "step_time_ideal",
    "s",
    "ideal step time: the model FLOPs at the datasheet peak, nothing else",
    symbol="t_{ideal}",
)
collective_latency = var(
    "collective_latency",
    "us",
    "fixed time of one collective (launch and synchronisation), whatever its size",
    symbol="\\alpha_{coll}",
    bounds=NON_NEGATIVE,
    default=10,
    default_note=(
        "10 µs per collective: the time of a small all-reduce on one NVLink node in "
        "nccl-tests (a few µs of launch and a hop per rank)"
    ),
)
last_stage_extra_time = var(
    "last_stage_extra_time",
    "s",
    "time per step the last pipeline stage spends on the output layer beyond its balanced share",
    symbol="t_{out}",
    bounds=NON_NEGATIVE,
)
tp_comm_time = var(
    "tp_comm_time",
    "s",
    "tensor-parallel all-reduce time per step (not overlapped)",
    symbol="t_{tp}",
    bounds=NON_NEGATIVE,
)
pipeline_bubble_time = var(
    "pipeline_bubble_time",
    "s",
    "pipeline fill and drain time per step (the 1F1B bubble)",
    symbol="t_{bubble}",
    bounds=NON_NEGATIVE,
)
pp_send_time = var(
    "pp_send_time",
    "s",
    "stage-to-stage activation and gradient sends per step (not overlapped)",
    symbol="t_{pp}",
    bounds=NON_NEGATIVE,
)
params_per_rank = var(
    "params_per_rank",
    "param",
    "parameters one rank holds: its share of its pipeline stage",
    symbol="N_{rank}",
)
dp_gradient_bytes = var(
    "dp_gradient_bytes",
    "GB",
    "gradient bytes one rank reduces over the data-parallel group per step",
    symbol="G",
    bounds=NON_NEGATIVE,
)
dp_comm_time = var(
    "dp_comm_time",
    "s",
    "data-parallel gradient reduction time per step",
    symbol="t_{dp}",
    bounds=NON_NEGATIVE,
)
dp_overlap_fraction = var(
    "dp_overlap_fraction",
    "",
    "share of the last micro-batch's backward the gradient reduction can hide behind",
    symbol="\\eta_{ov}",
    bounds=Bounds(0.0, 1.0, lo_inclusive=True),
    default=1,
    default_note=(
        "full overlap with the last micro-batch's backward (PyTorch DDP buckets, Megatron "
        "--overlap-grad-reduce); the bucket of the first layers cannot hide: give less from "
        "a profile"
    ),
)
dp_overlap_window = var(
    "dp_overlap_window",
    "s",
    "backward time the gradient reduction can hide behind",
    symbol="W_{dp}",
    bounds=NON_NEGATIVE,
)
dp_comm_exposed_time = var(
    "dp_comm_exposed_time",
    "s",
    "data-parallel reduction time not hidden behind the backward pass",
    symbol="t_{dp}^{exp}",
    bounds=NON_NEGATIVE,
)
cp_comm_time = var(
    "cp_comm_time",
    "s",
    "context-parallel key/value ring exchange time per step (not overlapped)",
    symbol="t_{cp}",
    bounds=NON_NEGATIVE,
)
ep_comm_time = var(
    "ep_comm_time",
    "s",
    "expert-parallel all-to-all time per step (dispatch and combine, not overlapped)",
    symbol="t_{ep}",
    bounds=NON_NEGATIVE,
)
optimizer_step_bytes_per_param = var(
    "optimizer_step_bytes_per_param",
    "B/param",
    "HBM bytes the optimizer step reads and writes per parameter it updates",
    symbol="b_{opt}",
    default=46,
    default_note=(
        "Megatron-LM's mixed-precision optimizer step, each pass over fp32 state: the "
        "gradients' unscale and inf check (read 4 B) and norm for clipping (read 4 B), fused "
        "Adam (read weight, gradient, m, v: 16 B; write weight, m, v: 12 B), the fp32 weight "
        "copied to bf16 (read 4, write 2 B) and the gradient buffer zeroed (write 4 B)"
    ),
)
optimizer_time = var(
    "optimizer_time",
    "s",
    "optimizer step time per step (memory-bound: its state bytes over HBM bandwidth)",
    symbol="t_{opt}",
    bounds=NON_NEGATIVE,
)
dataloader_wait = var(
    "dataloader_wait",
    "s",
    "time per step the GPUs wait for the input pipeline",
    symbol="t_{data}",
    bounds=NON_NEGATIVE,
    default=0,
    default_note="no data-loader wait: the input pipeline keeps up (give a profiled figure)",
)
mfu_predicted = var(
    "mfu_predicted",
    "",
    "MFU the step's parts predict: model FLOPs over the predicted step at the datasheet peak",
    symbol="\\widehat{\\mathrm{MFU}}",
    bounds=FRACTION,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "step_model_flops",
    "Model FLOPs per step, with attention",
    Eq(step_model_flops, train_flop_per_token * global_batch_tokens),
    source=CHOWDHERY_2022,
    subject=SUBJECT,
    note="PaLM's count (6N + 12·L·H·Q·T per token), the numerator of its MFU",
)

formula(
    "step_recompute_flops",
    "Recomputation FLOPs per step",
    Eq(
        step_recompute_flops,
        global_batch_tokens
        * (
            recomputed_layer_fraction
            * (forward_flop_per_param_token * params + inference_attention_flop_per_token)
            + selective_recompute
            * (1 - recomputed_layer_fraction)
            * inference_attention_flop_per_token
        ),
    ),
    source=f"{NARAYANAN_2021}, eq. 3 (full: a second forward pass); {KORTHIKANTI_2022}, §5",
    subject=SUBJECT,
    note=(
        "full recomputation repeats the forward pass of its layers (the output layer's "
        "share of 2N is counted too: a slight over-count); selective, the attention scores'"
    ),
)

formula(
    "compute_time",
    "Matmul time per step",
    Eq(
        compute_time,
        (step_model_flops + step_recompute_flops) / (n_gpus * peak_flops * compute_efficiency),
    ),
    source=f"{CHOWDHERY_2022}; {NARAYANAN_2021}, §5.1 (time = FLOPs / achieved FLOP/s)",
    subject=SUBJECT,
    note="balanced stages: every GPU does 1/n_gpus of the step's FLOPs",
)

formula(
    "step_time_ideal",
    "Ideal step time",
    Eq(step_time_ideal, step_model_flops / (n_gpus * peak_flops)),
    source=CHOWDHERY_2022,
    subject=SUBJECT,
    note="MFU = 1: the floor a gap budget starts from",
)

formula(
    "tp_comm_time",
    "Tensor-parallel all-reduces per step",
    Eq(
        tp_comm_time,
        (tp_allreduces_per_layer + 2 * recomputed_layer_fraction + Min(sp - 1, 1))
        * (n_layers / pp)
        * n_microbatches
        * (
            2 * (tp - 1) / tp * tp_message_bytes / (cp * tp_link_bandwidth)
            + 2 * Min(tp - 1, 1) * collective_latency
        ),
    ),
    source=f"{SHOEYBI_2019}; {KORTHIKANTI_2022}, §4.2.2",
    subject=SUBJECT,
    note=(
        "a ring all-reduce per attention and MLP block, forward and backward, and again in a "
        "recomputed forward; with sequence parallelism (sp = tp) an all-gather and a "
        "reduce-scatter of the same volume, and in the backward the all-gather of each "
        "block's input once more for the weight gradients (one all-reduce's volume per "
        "layer). Each at the bus bandwidth the collectives reach, with a fixed latency per "
        "collective (an all-reduce is a reduce-scatter and an all-gather: two). Not "
        "overlapped with compute: an upper bound"
    ),
)

formula(
    "last_stage_extra_time",
    "Output layer on the last stage",
    Eq(
        last_stage_extra_time,
        (pp - 1)
        * flop_per_param_token
        * vocab_size
        * hidden_size
        * params_per_entry
        * global_batch_tokens
        / (n_gpus * peak_flops * compute_efficiency),
    ),
    source=f"{NARAYANAN_2021}, §2.2 (the pipeline runs at its slowest stage's pace)",
    subject=SUBJECT,
    note=(
        "compute_time spreads the output layer's V·h matmul over every stage; the last stage "
        "does it all, and every micro-batch waits for it: p − 1 more shares. None without "
        "pipelining"
    ),
)

formula(
    "pipeline_bubble_time",
    "Pipeline bubble per step",
    Eq(
        pipeline_bubble_time,
        pipeline_bubble_fraction
        * (
            compute_time
            + memory_bound_time
            + last_stage_extra_time
            + tp_comm_time
            + cp_comm_time
            + ep_comm_time
        ),
    ),
    source=f"{NARAYANAN_2021}, §2.2",
    subject=SUBJECT,
    note="(p − 1)/(v·m) of the time the stage's micro-batches take without a bubble",
)

formula(
    "pp_send_time",
    "Stage-to-stage sends per step",
    Eq(
        pp_send_time,
        2
        * virtual_pipeline_stages
        * n_microbatches
        * Min(pp - 1, 1)
        * tp_message_bytes
        / cp
        * (1 / (tp * pp_link_bandwidth) + (tp - 1) / tp / tp_link_bandwidth),
    ),
    source=(
        f"{NARAYANAN_2021}, §4.1 (scatter/gather: each tensor-parallel rank sends 1/t, and the "
        "receiving stage all-gathers the tensor over NVLink)"
    ),
    subject=SUBJECT,
    note=(
        "one activation forward and one gradient backward per micro-batch and model chunk, "
        "each 1/t per rank over the link between stages and all-gathered across the "
        "tensor-parallel group on arrival; none without pipelining. Not overlapped: an "
        "upper bound"
    ),
)

formula(
    "params_per_rank",
    "Parameters per rank (dense)",
    Eq(params_per_rank, params_total / (tp * pp)),
    source=SHOEYBI_2019,
    subject=SUBJECT,
    assumption=True,
    note=(
        "a dense model: every rank holds 1/(t·p) of the weights (a mixture of experts also "
        "splits its experts by ep: give its shapes)"
    ),
)

formula(
    "params_per_rank_moe",
    "Parameters per rank (mixture of experts)",
    Eq(params_per_rank, (shared_params + n_experts * expert_params / ep) / (tp * pp)),
    source=GSHARD,
    subject=SUBJECT,
    note="the shared weights split by t·p, the routed experts by e as well",
)

formula(
    "dp_gradient_bytes",
    "Gradient bytes a rank reduces",
    Eq(dp_gradient_bytes, params_per_rank * grad_bytes_per_param),
    source=LI_2020,
    subject=SUBJECT,
    note="every gradient of the rank's shard, once per step",
)

formula(
    "dp_comm_time",
    "Data-parallel gradient reduction per step",
    Eq(
        dp_comm_time,
        (1 + Max(zero_stage - 2, 0) / 2)
        * 2
        * (dp * cp - 1)
        / (dp * cp)
        * dp_gradient_bytes
        / dp_link_bandwidth,
    ),
    source=f"{LI_2020}; {ZERO_2020}",
    subject=SUBJECT,
    note=(
        "a ring all-reduce over the dp·cp ranks (reduce-scatter + all-gather under ZeRO-1/2: "
        "the same bytes); ZeRO-3 gathers the weights twice: 1.5×"
    ),
)

formula(
    "dp_overlap_window",
    "Backward time the reduction hides behind",
    Eq(
        dp_overlap_window,
        dp_overlap_fraction * backward_fraction * (compute_time + tp_comm_time) / n_microbatches,
    ),
    source=f"{LI_2020}; Megatron-LM --overlap-grad-reduce",
    subject=SUBJECT,
    note="gradients are final only in the last micro-batch's backward",
)

formula(
    "dp_comm_exposed_time",
    "Exposed data-parallel reduction",
    Eq(
        dp_comm_exposed_time,
        Max(dp_comm_time, dp_overlap_window, evaluate=False) - dp_overlap_window,
    ),
    source=LI_2020,
    subject=SUBJECT,
    note="what the backward pass cannot hide",
)

formula(
    "cp_comm_time",
    "Context-parallel ring exchange per step",
    Eq(
        cp_comm_time,
        3
        * (n_layers / pp)
        * n_microbatches
        * (cp - 1)
        * 2
        * batch_size
        * seq_len
        / cp
        * n_kv_heads
        * head_dim
        * activation_bytes_per_element
        / (tp * cp_link_bandwidth),
    ),
    source=RING_ATTENTION,
    subject=SUBJECT,
    note=(
        "each rank's keys and values (its b·s/c tokens, the KV heads split by t) make c − 1 "
        "hops forward; the backward passes them and their gradients. Not overlapped with "
        "attention: an upper bound"
    ),
)

formula(
    "ep_comm_time",
    "Expert-parallel all-to-alls per step",
    Eq(
        ep_comm_time,
        2
        * (n_moe_layers / pp)
        * n_microbatches
        * moe_alltoall_bytes_per_rank
        / (cp * sp * ep_link_bandwidth),
    ),
    source=GSHARD,
    subject=SUBJECT,
    note=(
        "each token's hidden state goes to its k experts and back, forward and backward; "
        "(e − 1)/e of them leave the rank. Not overlapped: an upper bound"
    ),
)

formula(
    "ep_comm_time_dense",
    "No expert-parallel exchange",
    Eq(ep_comm_time, 0),
    source=DEFINITION,
    subject=SUBJECT,
    assumption=True,
    note=(
        "a dense model (or no MoE shapes known): no all-to-all; for a mixture of experts "
        "give a model record with n_moe_layers and experts_per_token"
    ),
)

formula(
    "optimizer_time",
    "Optimizer step time",
    Eq(
        optimizer_time,
        params_per_rank
        * optimizer_step_bytes_per_param
        / ((dp * cp) ** Min(zero_stage, 1) * hbm_bandwidth * memory_efficiency * gpus_per_rank),
    ),
    source=f"{DEFINITION} (memory-bound); {ZERO_2020} (ZeRO-1 and up shard the state)",
    subject=SUBJECT,
    note="the optimizer reads and writes its state once per step at the HBM bandwidth",
)

formula(
    "step_time_from_parts",
    "Predicted step time from its parts",
    Eq(
        step_time_predicted,
        compute_time
        + memory_bound_time
        + last_stage_extra_time
        + tp_comm_time
        + pipeline_bubble_time
        + pp_send_time
        + dp_comm_exposed_time
        + cp_comm_time
        + ep_comm_time
        + optimizer_time
        + dataloader_wait,
    ),
    source=f"{NARAYANAN_2021}, §5; the parts above",
    subject=SUBJECT,
    note="the parts in series on the first stage's critical path",
)

formula(
    "mfu_predicted",
    "Predicted MFU",
    Eq(mfu_predicted, step_model_flops / (step_time_predicted * n_gpus * peak_flops)),
    source=CHOWDHERY_2022,
    subject=SUBJECT,
    note="PaLM's MFU of the predicted step, against the datasheet peak",
)
