"""Activation memory of a transformer layer (Korthikanti et al. 2022, arXiv:2205.05198, §4-5).

    per layer, on each GPU, stored for the backward pass (16-bit activations, 1-byte masks):
      s·b·h·(10/sp + 24/t + 5·a·s/(h·t)) / c   everything stored                    (Table 2)
      s·b·h·(10/sp + 24/t) / c                 FlashAttention or selective recomputation
      2·s·b·h / (sp · c)                       full recomputation: only the layer's input
    over the layers: n_layers × per layer (one micro-batch, on each GPU)
    first pipeline stage: microbatches_in_flight · (n_layers / pp) · per layer        (§4.2.3)

s = seq_len (token/sequence) and b = batch_size (the micro-batch, sequences), so s·b is the
micro-batch's tokens. The coefficients carry the bytes: 34 B per token per hidden unit for the
linear, norm and dropout parts, and 5 B per attention score (QKᵀ 2, softmax 2, dropout mask 1),
of which each sequence has a·s² per layer.

Every figure here is per GPU (per tensor-parallel rank), not per replica. t = tp splits the
attention and MLP internals (24 of the 34 bytes, and the scores). The other 10 (the two
layer-norm inputs, the inputs of the QKV and first MLP linears, the two dropout masks) and,
under full recomputation, the stored layer input stay whole on every tensor-parallel rank
unless Megatron's sequence parallelism splits them too: sp = t with it, sp = 1 without (the
default, and Table 2's rows without "sequence parallel"). With sp = t the rows become Table
2's 34·s·b·h/t (+ 5·a·s²·b/t) and 2·s·b·h/t; without it full recomputation keeps 2·s·b·h on
each rank whatever t is. c = cp (context parallelism) splits every sequence's tokens, and with
them every stored activation, over c ranks (Megatron-Core context parallelism).

``activation_memory`` (all n_layers of one micro-batch) is also what the first pipeline stage
holds under 1F1B: pp micro-batches in flight of n_layers/pp layers each (§4.2.3), whatever
pp is; ``stage_activation_memory`` is that first stage in general (``microbatches_in_flight``,
interleaving included, in ``parallelism``), with a share of its layers fully recomputed. Full
recomputation re-runs the forward pass in the backward: 8ND instead of 6ND
(``flop_per_param_token = 8``).
"""

from napkinmath.library.declare import NON_NEGATIVE, Bounds, Eq, formula, var

from .model import batch_size, hidden_size, n_heads, n_layers, seq_len
from .parallelism import cp, microbatches_in_flight, pp, sp, tp
from .sources import KORTHIKANTI_2022

MEGATRON_CP = (
    "Megatron-Core context parallelism (NVIDIA Megatron-Core docs, context_parallel): each of "
    "the cp ranks keeps the activations of seq_len/cp tokens of every sequence"
)

SUBJECT = "memory"

# --- Variables -----------------------------------------------------------------------------
# Bytes a layer stores per token per hidden unit outside the attention scores.
activation_bytes_per_token_hidden = var(
    "activation_bytes_per_token_hidden",
    "B/token",
    "bytes one layer stores per token per hidden unit, attention scores aside (34)",
    symbol="c_{act}",
    default=34,
    default_note=(
        "34 B per token per hidden unit: 16-bit activations and 1-byte dropout masks of the "
        "attention (11), MLP (19) and two layer norms (4) (Korthikanti et al. 2022, §4.1)"
    ),
)
# The part of those bytes tensor parallelism alone leaves whole on every rank.
activation_bytes_outside_tp = var(
    "activation_bytes_outside_tp",
    "B/token",
    "of those bytes, the ones tensor parallelism leaves whole on every rank (10; sequence "
    "parallelism splits them)",
    symbol="c_{act,sp}",
    default=10,
    default_note=(
        "10 of the 34 B per token per hidden unit are outside the tensor-parallel regions: "
        "two layer-norm inputs (4), the inputs of the QKV and first MLP linears (2 + 2), two "
        "dropout masks (1 + 1) (Korthikanti et al. 2022, §4.2.1: sbh(10 + 24/t))"
    ),
)
# Bytes stored per attention score: QKᵀ (2) + softmax (2) + dropout mask (1).
attention_score_bytes = var(
    "attention_score_bytes",
    "B*sequence/token**2",
    "bytes stored per attention score, for each (query, key) token pair of a sequence (5)",
    symbol="c_{att}",
    bounds=NON_NEGATIVE,
    default=5,
    default_note=(
        "5 B per attention score: QKᵀ 2 + softmax 2 + dropout mask 1 (Korthikanti et al. "
        "2022, §4.1); FlashAttention and selective recomputation store none: give 0"
    ),
)
# Bytes kept per token per hidden unit under full recomputation: the layer input in 16 bits.
recompute_bytes_per_token_hidden = var(
    "recompute_bytes_per_token_hidden",
    "B/token",
    "bytes kept per token per hidden unit with full recomputation (the layer input, 2)",
    symbol="c_{ckpt}",
    default=2,
    default_note=(
        "2 B per token per hidden unit: each layer's input in 16 bits (Korthikanti et al. 2022, §5)"
    ),
)
# One layer, everything stored (no FlashAttention, no recomputation).
activation_memory_per_layer = var(
    "activation_memory_per_layer",
    "GB",
    "activation memory of one layer of one micro-batch on each GPU (tensor-parallel rank), "
    "everything stored",
    symbol="M_{act,L}",
)
# One layer with FlashAttention or selective recomputation: no attention scores kept.
activation_memory_per_layer_flash = var(
    "activation_memory_per_layer_flash",
    "GB",
    "activation memory of one layer of one micro-batch on each GPU, FlashAttention or "
    "selective recomputation",
    symbol="M_{act,L}^{flash}",
)
# One layer with full recomputation: its input only.
activation_memory_per_layer_recompute = var(
    "activation_memory_per_layer_recompute",
    "GB",
    "activation memory of one layer of one micro-batch on each GPU, full recomputation (its "
    "input only)",
    symbol="M_{act,L}^{ckpt}",
)
# Every layer, everything stored.
activation_memory = var(
    "activation_memory",
    "GB",
    "activation memory of all layers of one micro-batch on each GPU "
    "(tensor-parallel rank); also the first stage's under 1F1B",
    symbol="M_{act}",
)
# Every layer with FlashAttention or selective recomputation.
activation_memory_flash = var(
    "activation_memory_flash",
    "GB",
    "activation memory of all layers of one micro-batch on each GPU, FlashAttention or "
    "selective recomputation",
    symbol="M_{act}^{flash}",
)
# Every layer with full recomputation.
activation_memory_recompute = var(
    "activation_memory_recompute",
    "GB",
    "activation memory of all layers of one micro-batch on each GPU, full recomputation",
    symbol="M_{act}^{ckpt}",
)
# Share of the layers whose activations are fully recomputed (Megatron --recompute-num-layers).
recomputed_layer_fraction = var(
    "recomputed_layer_fraction",
    "",
    "share of each stage's layers under full activation recomputation (0 none, 1 all)",
    symbol="f_{ckpt}",
    bounds=Bounds(0.0, 1.0, lo_inclusive=True),
    default=0,
    default_note=(
        "no full recomputation: every layer keeps its activations (give 1 for full "
        "recomputation of every layer, n/(n_layers/pp) for Megatron's --recompute-num-layers "
        "n; selective recomputation or FlashAttention: attention_score_bytes = 0)"
    ),
)
# Activations the first (busiest) pipeline stage holds on each of its GPUs at its peak.
stage_activation_memory = var(
    "stage_activation_memory",
    "GB",
    "activations the first (busiest) pipeline stage holds on each of its GPUs: micro-batches "
    "in flight × layers per stage × per-layer activations",
    symbol="M_{act,stage}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "activation_memory_per_layer",
    "Activation memory per layer, per GPU",
    Eq(
        activation_memory_per_layer,
        seq_len
        * batch_size
        * hidden_size
        * (
            activation_bytes_outside_tp / sp
            + (activation_bytes_per_token_hidden - activation_bytes_outside_tp) / tp
            + attention_score_bytes * n_heads * seq_len / (hidden_size * tp)
        )
        / cp,
    ),
    source=(
        f"{KORTHIKANTI_2022}, §4.1 eq. 1, §4.2.1-4.2.2 and Table 2 (sbh(34 + 5as/h); "
        "with tensor parallelism sbh(10 + 24/t + 5as/(ht)), with sequence "
        f"parallelism as well sbh(34/t + 5as/(ht))); {MEGATRON_CP}"
    ),
    subject=SUBJECT,
    note=(
        "the attention scores grow with s²: at s = 8192, h = 8192, a = 64 they are 320 of "
        "354 bytes per token per hidden unit; sp = tp for Megatron's sequence "
        "parallelism"
    ),
)

formula(
    "activation_memory_per_layer_flash",
    "Activation memory per layer, per GPU, no stored scores",
    Eq(
        activation_memory_per_layer_flash,
        seq_len
        * batch_size
        * hidden_size
        * (
            activation_bytes_outside_tp / sp
            + (activation_bytes_per_token_hidden - activation_bytes_outside_tp) / tp
        )
        / cp,
    ),
    source=(
        f"{KORTHIKANTI_2022}, §5 and Table 2 (selective recomputation: sbh(10 + 24/t), "
        f"with sequence parallelism 34sbh/t); {MEGATRON_CP}"
    ),
    subject=SUBJECT,
    note=(
        "FlashAttention recomputes the scores in its backward, like selective "
        "recomputation; sp = tp for Megatron's sequence parallelism"
    ),
)

formula(
    "activation_memory_per_layer_recompute",
    "Activation memory per layer, per GPU, full recomputation",
    Eq(
        activation_memory_per_layer_recompute,
        seq_len * batch_size * hidden_size * recompute_bytes_per_token_hidden / (sp * cp),
    ),
    source=(
        f"{KORTHIKANTI_2022}, §5 and Table 2 (full activation recomputation: 2sbh; "
        f"tensor parallelism alone does not split it); {MEGATRON_CP}"
    ),
    subject=SUBJECT,
    note=(
        "each tensor-parallel rank keeps the whole layer input unless sequence "
        "parallelism splits it (sp = tp: 2sbh/t); costs a second forward pass: 8ND "
        "instead of 6ND (flop_per_param_token = 8)"
    ),
)

formula(
    "activation_memory",
    "Activation memory, all layers, per GPU",
    Eq(activation_memory, n_layers * activation_memory_per_layer),
    source=f"{KORTHIKANTI_2022}, §4.2.3 eq. 5",
    subject=SUBJECT,
    note=(
        "one micro-batch through every layer, on each tensor-parallel rank; under 1F1B "
        "also the first pipeline stage's whole load (pp micro-batches × n_layers/pp "
        "layers), not a pp-th of it"
    ),
)

formula(
    "activation_memory_flash",
    "Activation memory, all layers, per GPU, no stored scores",
    Eq(activation_memory_flash, n_layers * activation_memory_per_layer_flash),
    source=f"{KORTHIKANTI_2022}, §5 eq. 6",
    subject=SUBJECT,
    note="one micro-batch through every layer, on each tensor-parallel rank",
)

formula(
    "activation_memory_recompute",
    "Activation memory, all layers, per GPU, full recomputation",
    Eq(activation_memory_recompute, n_layers * activation_memory_per_layer_recompute),
    source=f"{KORTHIKANTI_2022}, §5",
    subject=SUBJECT,
    note="one micro-batch through every layer, on each tensor-parallel rank",
)

formula(
    "stage_activation_memory",
    "Activations of the first pipeline stage, per GPU",
    Eq(
        stage_activation_memory,
        microbatches_in_flight
        * (n_layers / pp)
        * (
            (1 - recomputed_layer_fraction) * activation_memory_per_layer
            + recomputed_layer_fraction * activation_memory_per_layer_recompute
        ),
    ),
    source=(
        f"{KORTHIKANTI_2022}, §4.2.3 (the first stage holds p micro-batches of L/p "
        "layers) and §5 (checkpointing only some of the layers; Megatron's "
        "--recompute-num-layers)"
    ),
    subject=SUBJECT,
    note=(
        "the busiest stage: its micro-batches in flight, each through its n_layers/pp "
        "layers; layers under full recomputation keep only their input; with "
        "FlashAttention or selective recomputation give attention_score_bytes = 0"
    ),
)
