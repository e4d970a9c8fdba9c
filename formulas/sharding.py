"""Sharding arithmetic on a TPU slice: the smallest batch per chip that keeps data parallelism
(or FSDP) compute-bound over ICI, the most tensor-parallel ranks ICI carries, and the layouts
(mesh axis sizes) a slice allows. Austin et al. 2025, How to Scale Your Model (the JAX scaling
book), 'How to Parallelize a Transformer for Training'.

    ici_ridge_point           = C / W_ICI                 (α, the book's ICI operational intensity)
    dp_min_batch_per_chip     = α / M_X · b_grad / k_fwd  (§Data Parallelism: B/X > C/W_ICI;
                                                          §FSDP: the same; M_X axes: W × M_X)
    dp_batch_per_chip         = global_batch_tokens / (d · c)         (the layout's B/X)
    dp_max_shards             = global_batch_tokens / dp_min_batch_per_chip   (the most X)
    tp_max_over_ici           = M_Y · F / α · k_fwd · p_e / b_act     (§Tensor Parallelism:
                                                          Y < n_axes · F / (C/W_ICI))
    fsdp_tp_min_batch_per_chip = 4 α² / (M_X · M_Y · F) · b_w · b_act / (k_fwd² · p_e)
                                                         (§Mixed FSDP and Tensor Parallelism:
                                                          B/N > 4α²/(M_X·M_Y·F))
    fsdp_optimal_shards       = √(B/F · M_X/M_Y · N) · √(b_act / (b_w · p_e))   (X_opt, N = XY)

C is the chip's peak FLOP/s (``peak_flops``), W_ICI the bidirectional bandwidth of one torus
axis (``ici_axis_bandwidth``: TPU v5p, v6e and TPU7x 1.8e11 B/s, v5e 9e10), X the data-parallel
(FSDP) shards (d·c here: the book treats context parallelism as data parallelism), Y the
tensor-parallel ranks, N = X·Y the chips of the slice, M_X = ``torus_axes`` and M_Y =
``tp_torus_axes`` the torus axes each mesh axis spans, F the MLP width (``ffn_size``).

The book counts in bf16 and leaves the units out: its B/X > C/W_ICI compares tokens with
FLOP per byte. The factors b_grad/k_fwd (2 B per gradient over 2 forward FLOP per parameter
per token: the backward's 4 FLOP per parameter per token against the all-reduce's 2 × 2 B)
and k_fwd·p_e/b_act (2 FLOP per weight entry per token over 2 B per activation element) are 1
token·B/FLOP and 1 B/FLOP at bf16, which makes the book's numbers come out unchanged: TPU v5p
C/W = 4.59e14 / 1.8e11 = 2,550 tokens per chip ('our batch size per chip must be at least
2,550'), 850 over three axes; TPU v6e 9.18e14 / 1.8e11 = 5,100. Model parallelism on one v5p
axis: F/2,550 ways (Llama 3 70B, F = 28,672: 11). Mixed FSDP and model parallelism on a 3D
mesh (M_X·M_Y = 2): 4 · 2,550² / (2 · 32,768) ≈ 400.

Each assumes the book's overlap of communication with compute, a bidirectional ring with
wraparound on each axis, and a Transformer as a stack of MLP blocks (attention left out).
"""

from sympy import sqrt

from napkinmath.library.declare import Eq, constraint, formula, var

from .accelerator import peak_flops
from .architecture import ffn_size
from .collectives import activation_bytes_per_element, ici_axis_bandwidth, torus_axes
from .inference import forward_flop_per_param_token
from .memory import grad_bytes_per_param, params_per_entry
from .model import weight_bytes_per_param
from .parallelism import cp, dp, gpus_per_rank, tp
from .placement import slice_chips
from .step_time import global_batch_tokens

SUBJECT = "sharding"

_BOOK = (
    "Austin et al. 2025, How to Scale Your Model (the JAX scaling book), 'How to Parallelize a "
    "Transformer for Training'"
)
BOOK_DP = (
    f"{_BOOK}, §Data Parallelism ('we become compute-bound when B/X > C/W_ici'; over n axes "
    "W_ici is n times: 'BS=850 per TPU' on three v5p axes) and §Fully-Sharded Data "
    "Parallelism (the same condition: 'compute bound when B/X > C/W_ici')"
)
BOOK_TP = (
    f"{_BOOK}, §Tensor Parallelism ('F > Y · C/W_ici'; with multiple ICI axes "
    "'Y < n_axes · F / 2550')"
)
BOOK_MIXED = (
    f"{_BOOK}, §Mixed FSDP and Tensor Parallelism ('X_opt = sqrt(B/F · M_X/M_Y · N)'; "
    "compute-bound when 'B/N > 4α²/(M_X·M_Y·F)', α = C/W_ici)"
)

# --- Variables -----------------------------------------------------------------------------
# The chip's FLOP/s over one torus axis's ICI bandwidth.
ici_ridge_point = var(
    "ici_ridge_point",
    "FLOP/B",
    "peak FLOP/s over one torus axis's bidirectional ICI bandwidth (the scaling book's "
    "α = C/W_ici; TPU v5p 2,550, v6e 5,100)",
    symbol="\\alpha_{ICI}",
)
# Torus axes the tensor-parallel (model) mesh axis spans.
tp_torus_axes = var(
    "tp_torus_axes",
    "",
    "torus axes the tensor-parallel (model) mesh axis spans (the scaling book's M_Y)",
    symbol="M_Y",
    default=1,
    default_note="the model axis along one torus axis (the scaling book's 1D model parallelism)",
    whole=True,
)
# The smallest batch per data-parallel shard that keeps the gradient traffic behind compute.
dp_min_batch_per_chip = var(
    "dp_min_batch_per_chip",
    "token",
    "smallest batch per chip (per data-parallel or FSDP shard, B/X) that stays compute-bound "
    "over ICI",
    symbol="(B/X)_{min}",
)
# The layout's batch per data-parallel shard.
dp_batch_per_chip = var(
    "dp_batch_per_chip",
    "token",
    "tokens per step each data-parallel (FSDP) shard processes, B/X (every chip of its "
    "tensor-parallel group sees them)",
    symbol="B/X",
)
# The most data-parallel shards a batch keeps compute-bound over ICI.
dp_max_shards = var(
    "dp_max_shards",
    "",
    "the most data-parallel (FSDP) shards a global batch keeps compute-bound over ICI",
    symbol="X_{max}",
)
# The most tensor-parallel ranks ICI keeps compute-bound.
tp_max_over_ici = var(
    "tp_max_over_ici",
    "",
    "the most tensor-parallel ranks that stay compute-bound over ICI (Y < M_Y·F/α)",
    symbol="Y_{max}",
)
# The smallest batch per chip mixed FSDP and tensor parallelism allows.
fsdp_tp_min_batch_per_chip = var(
    "fsdp_tp_min_batch_per_chip",
    "token",
    "smallest batch per chip (B/N) that mixed FSDP and tensor parallelism keep compute-bound "
    "over ICI",
    symbol="(B/N)_{min}",
)
# The FSDP degree that minimises the mixed layout's communication.
fsdp_optimal_shards = var(
    "fsdp_optimal_shards",
    "",
    "FSDP shards X that minimise mixed FSDP + tensor-parallel communication on a slice "
    "(X_opt; Y = N/X)",
    symbol="X_{opt}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "ici_ridge_point",
    "ICI operational intensity, C/W_ici",
    Eq(ici_ridge_point, peak_flops * gpus_per_rank / ici_axis_bandwidth),
    source=f"{_BOOK}, notation ('C: FLOPS/s per chip; W: network bandwidth (bidirectional)')",
    subject=SUBJECT,
    note="one torus axis, both directions: TPU v5p 4.59e14 / 1.8e11 = 2,550",
)

formula(
    "dp_min_batch_per_chip",
    "Smallest batch per chip for data parallelism (or FSDP) over ICI",
    Eq(
        dp_min_batch_per_chip,
        ici_ridge_point * grad_bytes_per_param / (forward_flop_per_param_token * torus_axes),
    ),
    source=BOOK_DP,
    subject=SUBJECT,
    note=(
        "B/X > C/(W_ici · M_X): the backward's 4 FLOP per parameter per token against the "
        "gradient all-reduce's 2 × 2 B per parameter; b_grad/k_fwd (1 token·B/FLOP at bf16) "
        "only carries the units. FSDP all-gathers bf16 weights forward for the same ratio"
    ),
)

formula(
    "dp_batch_per_chip",
    "Batch per data-parallel shard",
    Eq(dp_batch_per_chip, global_batch_tokens / (dp * cp)),
    source=f"{BOOK_DP} (B the batch in tokens, X the shards; context parallelism counts as data "
    "parallelism: 'tokens are tokens')",
    subject=SUBJECT,
    note="every chip of a tensor-parallel group works on the same B/X tokens",
)

formula(
    "dp_max_shards",
    "The most data-parallel shards a batch allows over ICI",
    Eq(dp_max_shards, global_batch_tokens / dp_min_batch_per_chip),
    source=BOOK_DP,
    subject=SUBJECT,
    note="X ≤ B / (C/W_ici): more shards leave each too few tokens to hide its all-reduce",
)

formula(
    "tp_max_over_ici",
    "The most tensor-parallel ranks over ICI",
    Eq(
        tp_max_over_ici,
        tp_torus_axes
        * ffn_size
        * forward_flop_per_param_token
        * params_per_entry
        / (activation_bytes_per_element * ici_ridge_point),
    ),
    source=BOOK_TP,
    subject=SUBJECT,
    note=(
        "Y < M_Y · F / (C/W_ici), whatever the batch: the MLP's 4·B·D·F/Y FLOPs against the "
        "4·B·D bytes it all-gathers and reduce-scatters; k_fwd·p_e/b_act (1 B/FLOP at bf16) "
        "only carries the units"
    ),
)

formula(
    "fsdp_tp_min_batch_per_chip",
    "Smallest batch per chip for mixed FSDP and tensor parallelism over ICI",
    Eq(
        fsdp_tp_min_batch_per_chip,
        4
        * ici_ridge_point**2
        * weight_bytes_per_param
        * activation_bytes_per_element
        / (
            torus_axes
            * tp_torus_axes
            * ffn_size
            * forward_flop_per_param_token**2
            * params_per_entry
        ),
    ),
    source=BOOK_MIXED,
    subject=SUBJECT,
    note=(
        "B/N > 4α²/(M_X·M_Y·F) at the optimal FSDP degree; on a 3D mesh M_X·M_Y = 2 (v5p, "
        "F = 32,768: about 400); the byte and FLOP factors (1 at bf16) only carry the units"
    ),
)

formula(
    "fsdp_optimal_shards",
    "FSDP degree that minimises mixed FSDP + tensor-parallel communication",
    Eq(
        fsdp_optimal_shards,
        sqrt(
            global_batch_tokens
            * activation_bytes_per_element
            * torus_axes
            * slice_chips
            / (ffn_size * weight_bytes_per_param * params_per_entry * tp_torus_axes * gpus_per_rank)
        ),
    ),
    source=BOOK_MIXED,
    subject=SUBJECT,
    note=(
        "X_opt = √(B/F · M_X/M_Y · N) with N = X·Y the slice's chips, the rest on the model "
        "axis (Y = N/X); the book: N = 64, B = 48,000, F = 32,768 gives 13.9 (choose 16 × 4)"
    ),
)

constraint(
    "dp_compute_bound_over_ici",
    "Data parallelism stays compute-bound over ICI (B/X > C/W_ici)",
    dp_min_batch_per_chip,
    dp_batch_per_chip,
    source=BOOK_DP,
    subject=SUBJECT,
    touch=(dp_batch_per_chip, dp_min_batch_per_chip, dp, global_batch_tokens),
    message="each data-parallel shard has too few tokens to hide its gradient all-reduce "
    "over ICI: raise the global batch, use fewer data-parallel shards (more tensor "
    "parallelism) or spread the data axis over more torus axes (torus_axes)",
)

constraint(
    "tp_compute_bound_over_ici",
    "Tensor parallelism stays compute-bound over ICI (Y < M_Y·F/(C/W_ici))",
    tp,
    tp_max_over_ici,
    source=BOOK_TP,
    subject=SUBJECT,
    touch=(tp, tp_max_over_ici),
    message="the tensor-parallel all-gathers and reduce-scatters outlast the MLP's matmuls "
    "over ICI: use fewer tensor-parallel ranks (more FSDP), or lay the model axis over "
    "more torus axes (tp_torus_axes)",
)
