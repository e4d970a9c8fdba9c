"""Training compute, time, GPU count and cost: the 6ND rule and the fleet equation.

train_compute = flop_per_param_token · params · tokens          (6ND)
train_time    = train_compute / (n_gpus · peak_flops · mfu)      (fleet equation)
"""

from napkinmath.library.declare import (
    FRACTION,
    NON_NEGATIVE,
    Eq,
    Typical,
    ceiling,
    formula,
    pow2_ceil,
    var,
)

from .accelerator import gpus_per_node, peak_flops, price_per_gpu_hour
from .sources import CHOWDHERY_2022, DEFINITION, KAPLAN_2020, NARAYANAN_2021

SUBJECT = "training"

# --- Variables -----------------------------------------------------------------------------
# Model size: trainable parameters (for an MoE model, the parameters active per token).
params = var("params", "param", "model parameters (for MoE: active per token)", symbol="N")
# Training data: tokens seen over the whole run.
tokens = var("tokens", "token", "training tokens", symbol="D")
# 2 FLOP forward + 4 backward per parameter per token; 8 with full activation recomputation.
flop_per_param_token = var(
    "flop_per_param_token",
    "FLOP/(param*token)",
    "training FLOP per parameter per token (6; 8 with full recomputation)",
    symbol="k",
    default=6,
    default_note=(
        "6 FLOP per parameter per token: 2 forward + 4 backward (Kaplan et al. 2020); "
        "use 8 with full activation recomputation"
    ),
)
# Total training compute.
train_compute = var("train_compute", "FLOP", "total training compute", symbol="C")
# Accelerators working on the run.
n_gpus = var(
    "n_gpus",
    "GPU",
    "accelerators (GPUs or chips) in the job",
    symbol="n",
    rounding=("n_gpus_whole_nodes", "n_nodes"),
    whole=True,
)
# Model FLOPs utilization: achieved model FLOP/s over peak (PaLM's MFU).
mfu = var(
    "mfu",
    "",
    "model FLOPs utilization, achieved / peak",
    symbol="\\mathrm{MFU}",
    bounds=FRACTION,
    typical=Typical(
        0.2,
        0.5,
        0.05,
        0.65,
        "the 30–50% that large dense training runs report (Llama 3 405B 38–43%, Llama Team "
        "2024, Table 4; PaLM 46.2%, Chowdhery et al. 2022; MegaScale's 55.2% on 12,288 GPUs, "
        "Jiang et al. 2024, is the highest widely cited)",
    ),
)
# Wall-clock time of the run.
train_time = var("train_time", "day", "wall-clock training time", symbol="T")
# Accelerator time consumed.
gpu_hours = var("gpu_hours", "GPU*hour", "accelerator-hours consumed", symbol="H")
# Cost of the run.
train_cost = var("train_cost", "USD", "cost of the training run", symbol="\\$")
# Cost of one training token.
cost_per_token = var("cost_per_token", "USD/token", "training cost per token", symbol="c_{D}")
# Servers needed, rounded up to whole nodes.
n_nodes = var("n_nodes", "node", "servers (nodes), whole", symbol="n_{\\mathrm{nodes}}", whole=True)
# GPUs provisioned as whole nodes.
n_gpus_whole_nodes = var(
    "n_gpus_whole_nodes",
    "GPU",
    "accelerators provisioned as whole nodes",
    symbol="n_{\\mathrm{whole}}",
    whole=True,
)
# Extra capacity on top of the computed need, as a fraction (0.15 = 15%).
margin = var(
    "margin",
    "",
    "safety margin as a fraction of the need (0.15 = 15%)",
    symbol="m",
    bounds=NON_NEGATIVE,
)
# GPUs with the margin added, rounded up to whole GPUs.
n_gpus_with_margin = var(
    "n_gpus_with_margin",
    "GPU",
    "accelerators including the margin",
    symbol="n_{\\mathrm{margin}}",
    whole=True,
)
# The training bill with the margin added (a money buffer for restarts, reruns, idle time).
train_cost_with_margin = var(
    "train_cost_with_margin",
    "USD",
    "cost of the training run including the margin",
    symbol="\\$_{\\mathrm{margin}}",
)
# GPUs rounded up to a power of two.
n_gpus_pow2 = var(
    "n_gpus_pow2", "GPU", "accelerators rounded up to a power of two", symbol="n_{2^k}", whole=True
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "training_compute",
    "Training compute, 6ND rule",
    Eq(train_compute, flop_per_param_token * params * tokens),
    source=KAPLAN_2020,
    subject=SUBJECT,
    note="forward 2ND + backward 4ND; 8ND with full activation recomputation",
)

formula(
    "fleet_equation",
    "Fleet equation",
    Eq(train_time, train_compute / (n_gpus * peak_flops * mfu)),
    source=f"{NARAYANAN_2021}; MFU as in {CHOWDHERY_2022}",
    subject=SUBJECT,
)

formula(
    "gpu_hours", "GPU-hours", Eq(gpu_hours, n_gpus * train_time), source=DEFINITION, subject=SUBJECT
)

formula(
    "training_cost",
    "Training cost",
    Eq(train_cost, gpu_hours * price_per_gpu_hour),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "cost_per_token",
    "Price of a training token",
    Eq(cost_per_token, flop_per_param_token * params * price_per_gpu_hour / (peak_flops * mfu)),
    source=f"6ND rule and fleet equation combined ({KAPLAN_2020})",
    subject=SUBJECT,
    note="independent of the GPU count: more GPUs finish sooner at the same cost",
)

formula(
    "mfu_from_gpu_hours",
    "MFU from GPU-hours",
    Eq(mfu, train_compute / (gpu_hours * peak_flops)),
    source=f"fleet equation with GPU-hours = n_gpus · train_time ({CHOWDHERY_2022})",
    subject=SUBJECT,
    derived_from=("fleet_equation", "gpu_hours"),
)

formula(
    "whole_nodes",
    "Whole nodes",
    Eq(n_nodes, ceiling(n_gpus / gpus_per_node)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds up: every n_gpus in (g·(k-1), g·k] needs k nodes",
)

formula(
    "whole_node_gpus",
    "GPUs in whole nodes",
    Eq(n_gpus_whole_nodes, gpus_per_node * ceiling(n_gpus / gpus_per_node)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds up to a multiple of the GPUs per node",
)

formula(
    "cost_margin",
    "Training cost with a margin",
    Eq(train_cost_with_margin, train_cost * (1 + margin)),
    source=DEFINITION,
    subject=SUBJECT,
    note="the bill plus the margin, as a budget line carries it",
)

formula(
    "gpu_margin",
    "GPUs with a margin",
    Eq(n_gpus_with_margin, ceiling(n_gpus * (1 + margin))),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="adds the margin and rounds up to whole GPUs",
)

formula(
    "power_of_two_gpus",
    "GPUs rounded up to a power of two",
    Eq(n_gpus_pow2, pow2_ceil(n_gpus)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds up to the next power of two",
)
