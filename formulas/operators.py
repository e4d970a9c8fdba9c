"""A layer's operators: the matmuls' FLOPs, and the HBM bytes of everything memory-bound.

Per layer, per micro-batch, on one GPU (t = tp, s_p = sp, c = cp, b = batch_size, s = seq_len,
h = hidden_size, d = mlp_active_width (d_ff, or k experts' widths), a = n_heads, n_mlp =
mlp_matrices, f = full recompute share, f_s = selective recompute share, b_act =
activation_bytes_per_element, T = b·s/c tokens):

    layer_memory_traffic = T · (h · c_res · (1 + f/2) / s_p + d/t · b_act · (3·n_mlp − 1 + f·n_mlp))
                           + b·(a/t)·s²/c · (c_sc,f · (1 + f + f_s·(1 − f)) + c_sc,b)
                           + Σ over the weight matmuls (i → o features per rank):
                               T · b_act · (o·(1 + f) + i) + c_wg · i · o
    memory_bound_time    = (L/p) · m · layer_memory_traffic / (B_HBM · η_mem · g_r)

Each operator is one definition in `napkinmath.library.operators` (FLOPs and bytes as plain
arithmetic over named inputs); `layer_memory_traffic` is their bytes added, and an answer's
per-layer table shows them one by one. The operators, forward and backward, each reading and
writing HBM once (a kernel per operator, as Megatron-LM runs them; bytes at b_act = 2):

* Weight matmuls (QKV, output projection, MLP up and down): 2 FLOP per weight and token
  forward, 4 backward (input and weight gradients), on the matmul roof (compute_time counts
  them with PaLM's formula). Each epilogue then writes its output and the input gradient in
  bf16 and reads and writes the weight gradient in fp32 (c_wg = 8 B per weight and
  micro-batch: Megatron's gradient-accumulation fusion into main_grad), in series after the
  main loop: an Ampere GEMM runs a tile's main loop, then its epilogue (CUTLASS's
  efficient_gemm notes; Hopper's warp-specialised kernels can overlap them, so the count
  is an upper bound there). Their inputs stream during the main loop and are not counted.
* Residual stream (width h, split t ways only with sequence parallelism): two layer norms,
  each reading and writing the stream (forward 2 × 4 B; backward 2 × 6 B, the input and the
  output gradient read, the input gradient written); two fused bias-dropout-residual adds
  (forward 2 × 7 B: the branch and the residual read, the sum written, a 1-byte mask;
  backward 2 × 5 B). c_res = 22 + 22 = 44 B per token per hidden unit; a full recompute
  repeats the forward half.
* MLP activation (width d/t): the fused bias-GeLU reads and writes it (forward 2 elements,
  backward 3); a gated unit (SwiGLU) reads two inputs (forward 3, backward 5): (3·n_mlp − 1)
  elements in all, n_mlp of them forward.
* Attention scores (b·a/t·s² per GPU) where the kernel writes them to HBM (Megatron's core
  attention before FlashAttention: QKᵀ by baddbmm, a fused scale-mask-softmax, dropout, then
  the product with V): forward c_sc,f = 13 B per score (QKᵀ writes 2, softmax reads and
  writes 4, dropout reads and writes 4 and a 1-byte mask, the V product reads 2); backward
  c_sc,b = 19 B (the probability gradient written 2, dropout 5, softmax 6, the score gradient
  read by the two products 4, the probabilities read for V's gradient 2). FlashAttention
  keeps the scores on chip: give both 0. Selective recompute repeats the forward 13.

Sources: the operator list and its bytes follow Korthikanti et al. 2022 §4.1 (the same
tensors whose stored bytes give sbh(34 + 5as/h)) and Megatron-LM's kernels (fused layer norm,
bias-GeLU, bias-dropout-add, FusedScaleMaskSoftmax, the fused weight-gradient GEMM); a
memory-bound kernel runs at the achievable HBM bandwidth (Williams, Waterman and Patterson
2009, the roofline). Not modelled: the embedding and the loss over the vocabulary (under 1% of
a GPT-3-sized step), kernel launch gaps, the experts' weight gradients no token of a
micro-batch reached.
"""

from typing import Any

import sympy

from napkinmath.library.declare import NON_NEGATIVE, Bounds, Eq, formula, var
from napkinmath.library.operators import INPUTS, OPERATORS

from .accelerator import hbm_bandwidth
from .activations import recomputed_layer_fraction
from .architecture import ffn_size, mlp_matrices, moe_ffn_size
from .collectives import activation_bytes_per_element
from .flops import attention_flop_per_pair
from .inference import forward_flop_per_param_token
from .memory import params_per_entry
from .model import batch_size, head_dim, hidden_size, n_heads, n_kv_heads, n_layers, seq_len
from .moe import experts_per_token
from .parallelism import cp, gpus_per_rank, n_microbatches, pp, sp, tp
from .sources import DEFINITION, KORTHIKANTI_2022

SUBJECT = "step"

MEGATRON_KERNELS = (
    "Megatron-LM (NVIDIA), megatron/model/transformer.py and fused_kernels/: fused layer norm, "
    "bias-GeLU, bias-dropout-add and FusedScaleMaskSoftmax, one kernel per operator"
)
GSHARD_ROUTING = "Lepikhin et al. 2020, GShard, arXiv:2006.16668, §2.2 (top-k routing)"
ROOFLINE = (
    "Williams, Waterman and Patterson 2009, Roofline: An Insightful Visual Performance Model "
    "for Multicore Architectures, CACM 52(4) (a memory-bound kernel: bytes / bandwidth)"
)

# --- Variables -----------------------------------------------------------------------------
residual_traffic_bytes = var(
    "residual_traffic_bytes",
    "B/token",
    "HBM bytes the residual stream's element-wise operators move per token per hidden unit, "
    "forward and backward (layer norms, bias-dropout-residual adds)",
    symbol="c_{res}",
    bounds=NON_NEGATIVE,
    default=44,
    default_note=(
        "44 B per token per hidden unit: two layer norms (forward 4 B, backward 6 B each) and "
        "two fused bias-dropout-residual adds (forward 7 B with a 1-byte mask, backward 5 B "
        "each), bf16 (Korthikanti et al. 2022 §4.1; Megatron-LM's fused kernels)"
    ),
)
score_traffic_forward = var(
    "score_traffic_forward",
    "B*sequence/token**2",
    "HBM bytes the forward pass moves per attention score (query-key pair) where the scores "
    "are written to HBM",
    symbol="c_{sc,f}",
    bounds=NON_NEGATIVE,
    default=13,
    default_note=(
        "13 B per attention score in the forward: QKᵀ written 2, softmax read and written 4, "
        "dropout read and written 4 with a 1-byte mask, read by the product with V 2 "
        "(Megatron's unfused core attention, as attention_score_bytes assumes); "
        "FlashAttention, the default of today's Megatron-Core and PyTorch, keeps the scores "
        "on chip: give 0"
    ),
)
score_traffic_backward = var(
    "score_traffic_backward",
    "B*sequence/token**2",
    "HBM bytes the backward pass moves per attention score where the scores are in HBM",
    symbol="c_{sc,b}",
    bounds=NON_NEGATIVE,
    default=19,
    default_note=(
        "19 B per attention score in the backward: probability gradient written 2, dropout 5, "
        "softmax 6, score gradient read by two products 4, probabilities read for V's "
        "gradient 2 (Megatron's unfused core attention); FlashAttention: give 0"
    ),
)
weight_grad_accumulate_bytes = var(
    "weight_grad_accumulate_bytes",
    "B/param",
    "HBM bytes a weight-gradient matmul's epilogue moves per weight, per micro-batch",
    symbol="c_{wg}",
    bounds=NON_NEGATIVE,
    default=8,
    default_note=(
        "8 B per weight and micro-batch: the weight gradient accumulated into an fp32 buffer, "
        "read and written by the matmul's epilogue (Megatron-LM's gradient-accumulation "
        "fusion, main_grad)"
    ),
)
memory_efficiency = var(
    "memory_efficiency",
    "",
    "fraction of the datasheet HBM bandwidth the step's memory-bound kernels reach",
    symbol="\\eta_{mem}",
    bounds=Bounds(0.0, 1.0, lo_inclusive=False),
    default=0.9,
    default_note=(
        "90% of the datasheet HBM bandwidth, as streaming reads measure on the records that "
        "hold one (H200 4.32 of 4.8 TB/s, this project's measurement; A100 80GB 1.80 of "
        "2.039 TB/s, 88%); a record's own achievable_hbm_bandwidth is used where it has one"
    ),
)
# Share of layers under selective recomputation (the attention scores recomputed).
selective_recompute = var(
    "selective_recompute",
    "",
    "share of the layers with selective recomputation of the attention scores (0 or 1)",
    symbol="f_{sel}",
    bounds=Bounds(0.0, 1.0, lo_inclusive=True),
    default=0,
    default_note="no selective recomputation (give 1 for Megatron's --recompute-activations)",
)
mlp_active_width = var(
    "mlp_active_width",
    "",
    "inner width of the MLP a token passes through: d_ff, or k experts' widths in an MoE layer",
    symbol="d_{ff,act}",
)
layer_memory_traffic = var(
    "layer_memory_traffic",
    "GB",
    "HBM bytes one layer's memory-bound operators move per micro-batch on one GPU, forward, "
    "backward and recompute",
    symbol="D_{layer}",
    bounds=NON_NEGATIVE,
)
memory_bound_time = var(
    "memory_bound_time",
    "s",
    "time per step of the memory-bound operators (norms, softmax, dropout, activations, "
    "residual adds) on each GPU",
    symbol="t_{mem}",
    bounds=NON_NEGATIVE,
)

#: the library's symbol of each name in `INPUTS`
_SYMBOLS: dict[str, Any] = {
    v.name: v
    for v in (
        activation_bytes_per_element,
        attention_flop_per_pair,
        batch_size,
        cp,
        forward_flop_per_param_token,
        head_dim,
        hidden_size,
        mlp_active_width,
        mlp_matrices,
        n_heads,
        n_kv_heads,
        params_per_entry,
        recomputed_layer_fraction,
        residual_traffic_bytes,
        score_traffic_backward,
        score_traffic_forward,
        selective_recompute,
        seq_len,
        sp,
        tp,
        weight_grad_accumulate_bytes,
    )
}
assert set(_SYMBOLS) == set(INPUTS), "every operator input has its symbol"

# --- Formulas ------------------------------------------------------------------------------
formula(
    "mlp_active_width_dense",
    "MLP width a token passes through (dense)",
    Eq(mlp_active_width, ffn_size),
    source=DEFINITION,
    subject=SUBJECT,
    assumption=True,
    note="a dense MLP in every layer (a mixture of experts: give its expert shapes)",
)

formula(
    "mlp_active_width_moe",
    "MLP width a token passes through (mixture of experts)",
    Eq(mlp_active_width, experts_per_token * moe_ffn_size),
    source=GSHARD_ROUTING,
    subject=SUBJECT,
    note=(
        "each token passes through its k routed experts; a shared expert and dense layers "
        "are left out, and so is the weight-gradient traffic of the experts no token of the "
        "micro-batch reached"
    ),
)

formula(
    "layer_memory_traffic",
    "Memory-bound operators' traffic per layer",
    Eq(layer_memory_traffic, sum((op.bytes(_SYMBOLS) for op in OPERATORS), sympy.Integer(0))),
    source=f"{KORTHIKANTI_2022}, §4.1; {MEGATRON_KERNELS}",
    subject=SUBJECT,
    note=(
        "the residual stream's operators split t ways only with sequence parallelism (sp); "
        "the MLP activation and the scores always split by t; a recompute repeats the "
        "forward share"
    ),
)

formula(
    "memory_bound_time",
    "Memory-bound operators' time per step",
    Eq(
        memory_bound_time,
        (n_layers / pp)
        * n_microbatches
        * layer_memory_traffic
        / (hbm_bandwidth * memory_efficiency * gpus_per_rank),
    ),
    source=f"{ROOFLINE}; {MEGATRON_KERNELS}",
    subject=SUBJECT,
    note="each operator reads and writes HBM once, at the bandwidth memory-bound kernels reach",
)
