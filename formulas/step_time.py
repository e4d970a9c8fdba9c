"""One training step: its tokens and FLOPs, MFU from a measured step time, the gap to a plan.

    global_batch_tokens = global_batch · seq_len
    step_compute        = flop_per_param_token · params · global_batch_tokens        (6ND per step)
    mfu                 = step_compute / (step_time · n_gpus · peak_flops)           (PaLM's MFU)
    step_time_predicted = step_compute / (n_gpus · peak_flops · mfu_target)
    step_time_gap       = step_time − step_time_predicted                     (the time budget)
    backward_time       = backward_fraction · step_time_predicted                (about 2/3)

A measured step time against the predicted one: the gap is the time per step spent on
anything but model FLOPs at the planned efficiency (exposed communication, pipeline bubbles,
data loading, stragglers). Solving the MFU formula for ``step_time`` gives the step time an MFU
predicts.
"""

import math

from napkinmath.library.declare import FRACTION, Bounds, Eq, formula, var

from .accelerator import peak_flops
from .model import seq_len
from .parallelism import global_batch
from .sources import CHOWDHERY_2022, DEFINITION, KAPLAN_2020
from .training import flop_per_param_token, mfu, n_gpus, params, tokens

SUBJECT = "training"

# --- Variables -----------------------------------------------------------------------------
# Tokens in one optimizer step (the global batch counted in tokens).
global_batch_tokens = var(
    "global_batch_tokens",
    "token",
    "tokens per optimizer step (global batch in tokens)",
    symbol="B_{tok}",
)
# Model FLOPs of one optimizer step.
step_compute = var("step_compute", "FLOP", "model FLOPs of one optimizer step", symbol="C_{step}")
# Measured wall-clock time of one optimizer step.
step_time = var(
    "step_time", "s", "measured wall-clock time of one optimizer step", symbol="t_{step}"
)
# The MFU a plan assumes, to predict a step time (the measured one is `mfu`).
mfu_target = var(
    "mfu_target",
    "",
    "MFU the plan assumes, for the predicted step time",
    symbol="\\mathrm{MFU}_{plan}",
    bounds=FRACTION,
)
# Step time the plan predicts: the step's model FLOPs at the target MFU.
step_time_predicted = var(
    "step_time_predicted",
    "s",
    "predicted step time: the sum of its parts for a layout, or the model FLOPs at mfu_target",
    symbol="\\hat{t}_{step}",
)
# Measured minus predicted step time (negative when the run beats the plan).
step_time_gap = var(
    "step_time_gap",
    "s",
    "measured minus predicted step time: the time budget spent off the plan",
    symbol="\\Delta t_{step}",
    bounds=Bounds(-math.inf),
)
# Optimizer steps in the whole run.
train_steps = var("train_steps", "", "optimizer steps in the run", symbol="S", whole=True)
# Each accelerator's share of a step's tokens.
tokens_per_gpu_per_step = var(
    "tokens_per_gpu_per_step",
    "token/GPU",
    "tokens per accelerator per optimizer step",
    symbol="B_{gpu}",
)
# Share of a step's compute spent in the backward pass.
backward_fraction = var(
    "backward_fraction",
    "",
    "share of a step's compute in the backward pass",
    symbol="f_{bwd}",
    bounds=FRACTION,
    default=2 / 3,
    default_note=(
        "backward = 4ND of the 6ND per step, 2/3 (Kaplan et al. 2020: backward ≈ 2 × forward); "
        "with full recomputation 6ND of 8ND, 3/4"
    ),
)
# Time of the backward pass of one step, at the target MFU.
backward_time = var(
    "backward_time", "s", "backward-pass time of one step at mfu_target", symbol="t_{bwd}"
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "global_batch_tokens",
    "Tokens per step",
    Eq(global_batch_tokens, global_batch * seq_len),
    source=DEFINITION,
    subject=SUBJECT,
    note="global batch in sequences times tokens per sequence",
)

formula(
    "step_compute",
    "Model FLOPs per step",
    Eq(step_compute, flop_per_param_token * params * global_batch_tokens),
    source=KAPLAN_2020,
    subject=SUBJECT,
    note="the 6ND rule applied to one step's tokens",
)

formula(
    "mfu_from_step_time",
    "MFU from a measured step time",
    Eq(mfu, step_compute / (step_time * n_gpus * peak_flops)),
    source=CHOWDHERY_2022,
    subject=SUBJECT,
    note=(
        "achieved model FLOP/s over peak; solved for step_time it gives the step time "
        "an MFU predicts"
    ),
)

formula(
    "step_time_predicted",
    "Predicted step time",
    Eq(step_time_predicted, step_compute / (n_gpus * peak_flops * mfu_target)),
    source=CHOWDHERY_2022,
    subject=SUBJECT,
    note="the step's model FLOPs at the planned MFU: compute only, nothing exposed",
)

formula(
    "step_time_gap",
    "Step-time gap to the plan",
    Eq(step_time_gap, step_time - step_time_predicted),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "time per step the plan does not explain: exposed communication, pipeline "
        "bubbles, data loading, stragglers"
    ),
)

formula(
    "train_steps",
    "Optimizer steps in a run",
    Eq(train_steps, tokens / global_batch_tokens),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "tokens_per_gpu_per_step",
    "Tokens per GPU per step",
    Eq(tokens_per_gpu_per_step, global_batch_tokens / n_gpus),
    source=DEFINITION,
    subject=SUBJECT,
    note=(
        "with pure data parallelism each rank's share of the batch; with tensor or "
        "pipeline parallelism the tokens are shared but the FLOPs per GPU are the same"
    ),
)

formula(
    "backward_time",
    "Backward-pass time per step",
    Eq(backward_time, backward_fraction * step_time_predicted),
    source=KAPLAN_2020,
    subject=SUBJECT,
    note="the window a data-parallel gradient all-reduce can hide in",
)
