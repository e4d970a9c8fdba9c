"""Utilization from measurements: MFU from achieved FLOP/s or tokens per second, HFU beside it,
and the MFU and HFU of PaLM's and Megatron's papers.

    mfu                      = achieved_flops / peak_flops                          (PaLM App. B)
    achieved_flops           = flop_per_param_token · params · train_throughput_per_gpu   (6N)
    train_throughput_per_gpu = train_throughput / n_gpus
    hfu                      = mfu · hardware_flop_per_param_token / flop_per_param_token
    mfu_with_attention       = train_throughput_per_gpu · train_flop_per_token / peak_flops
    megatron_mfu             = megatron_model_flops / (step_time · n_gpus · peak_flops)
    megatron_hfu_selective   = megatron_hardware_flops_selective / (step_time · n_gpus · peak_flops)
    megatron_hfu_full        = megatron_hardware_flops_full / (step_time · n_gpus · peak_flops)

MFU counts the FLOPs the model needs (6N per token, or 6N plus attention); HFU counts the FLOPs
the hardware ran, recomputation included: full activation recomputation re-runs the forward
pass, 2N more per token, so HFU = 8/6 · MFU. The library's ``mfu`` is the 6N one (the fleet
equation's); ``mfu_with_attention`` is PaLM's (PaLM 540B: 46.2% from 238.3k tokens/s on 6,144
TPU v4 chips), ``megatron_mfu`` and the two HFUs Korthikanti et al.'s Table 5 (GPT-3 175B on
64 A100s: 13.75 s per iteration, MFU 51.4%, HFU 52.8%).
"""

from napkinmath.library.declare import FRACTION, Eq, formula, var

from .accelerator import peak_flops
from .flops import (
    megatron_hardware_flops_full,
    megatron_hardware_flops_selective,
    megatron_model_flops,
    train_flop_per_token,
)
from .sources import DEFINITION, KAPLAN_2020, KORTHIKANTI_2022
from .step_time import step_time
from .storage import train_throughput
from .training import flop_per_param_token, mfu, n_gpus, params

SUBJECT = "training"

PALM_B = (
    "Chowdhery et al. 2022, PaLM, arXiv:2204.02311, Appendix B (MFU: observed tokens per second "
    "× model FLOPs per token over peak; HFU counts rematerialization)"
)
KORTHIKANTI_6 = f"{KORTHIKANTI_2022}, §6.3 and Table 5 (model and hardware FLOPs utilization)"

# --- Variables -----------------------------------------------------------------------------
# Model FLOP/s one accelerator achieves (measured, or reported as "TFLOP/s per GPU").
achieved_flops = var(
    "achieved_flops",
    "TFLOP/(s*GPU)",
    "achieved model FLOP/s per accelerator (6N per token)",
    symbol="P_{\\mathrm{ach}}",
)
# Training tokens each accelerator processes per second.
train_throughput_per_gpu = var(
    "train_throughput_per_gpu",
    "token/(s*GPU)",
    "training tokens per second per accelerator",
    symbol="X_{gpu}",
)
# FLOPs the hardware runs per parameter per token: 6, or 8 with full recomputation.
hardware_flop_per_param_token = var(
    "hardware_flop_per_param_token",
    "FLOP/(param*token)",
    "FLOPs the hardware runs per parameter per token, recomputation included (8 with full "
    "recomputation, 6 without)",
    symbol="k_{hw}",
    default=8,
    default_note=(
        "8 FLOP per parameter per token: full activation recomputation runs the forward pass "
        "(2N) a second time (Korthikanti et al. 2022, §5); 6 without recomputation, where HFU "
        "= MFU"
    ),
)
# Hardware FLOPs utilization.
hfu = var(
    "hfu",
    "",
    "hardware FLOPs utilization: FLOPs run, recomputation included, over peak",
    symbol="\\mathrm{HFU}",
    bounds=FRACTION,
)
# PaLM's MFU: attention FLOPs counted.
mfu_with_attention = var(
    "mfu_with_attention",
    "",
    "MFU counting attention FLOPs (PaLM's 6N + 12·L·H·Q·T)",
    symbol="\\mathrm{MFU}_{attn}",
    bounds=FRACTION,
)
# Megatron's MFU from a measured iteration time.
megatron_mfu = var(
    "megatron_mfu",
    "",
    "MFU from an iteration time, Megatron's FLOP count",
    symbol="\\mathrm{MFU}_{Meg}",
    bounds=FRACTION,
)
# Megatron's HFU with selective recomputation.
megatron_hfu_selective = var(
    "megatron_hfu_selective",
    "",
    "HFU from an iteration time with selective recomputation",
    symbol="\\mathrm{HFU}_{sel}",
    bounds=FRACTION,
)
# Megatron's HFU with full recomputation.
megatron_hfu_full = var(
    "megatron_hfu_full",
    "",
    "HFU from an iteration time with full recomputation",
    symbol="\\mathrm{HFU}_{full}",
    bounds=FRACTION,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "mfu_from_achieved_flops",
    "MFU from achieved FLOP/s",
    Eq(mfu, achieved_flops / peak_flops),
    source=PALM_B,
    subject=SUBJECT,
    note="a reported 'TFLOP/s per GPU' over the peak at the same precision",
)

formula(
    "achieved_flops_from_throughput",
    "Achieved FLOP/s from tokens per second",
    Eq(achieved_flops, flop_per_param_token * params * train_throughput_per_gpu),
    source=f"{PALM_B}; 6N per token: {KAPLAN_2020}",
    subject=SUBJECT,
    note="6N FLOPs for every token each accelerator processes",
)

formula(
    "throughput_per_gpu",
    "Tokens per second per accelerator",
    Eq(train_throughput_per_gpu, train_throughput / n_gpus),
    source=DEFINITION,
    subject=SUBJECT,
    derived_from=("train_throughput", "achieved_flops_from_throughput", "mfu_from_achieved_flops"),
    note="the fleet's tokens per second shared by its accelerators",
)

formula(
    "hfu",
    "Hardware FLOPs utilization",
    Eq(hfu, mfu * hardware_flop_per_param_token / flop_per_param_token),
    source=f"{PALM_B}; {KORTHIKANTI_2022}, §6.3",
    subject=SUBJECT,
    note="full recomputation: 8N/6N, HFU = 4/3 · MFU; HFU says how busy the chips are, MFU "
    "how much of it trained the model",
)

formula(
    "mfu_with_attention",
    "MFU with attention FLOPs (PaLM)",
    Eq(mfu_with_attention, train_throughput_per_gpu * train_flop_per_token / peak_flops),
    source=PALM_B,
    subject=SUBJECT,
    note="PaLM 540B: 238.3k tokens/s on 6,144 TPU v4 chips at 275 TFLOP/s is 46.2%",
)

formula(
    "megatron_mfu",
    "MFU from an iteration time (Megatron)",
    Eq(megatron_mfu, megatron_model_flops / (step_time * n_gpus * peak_flops)),
    source=KORTHIKANTI_6,
    subject=SUBJECT,
    note="GPT-3 175B, 64 A100s, 13.75 s per iteration of 64 × 2048 tokens: 51.4%",
)

formula(
    "megatron_hfu_selective",
    "HFU from an iteration time, selective recomputation",
    Eq(
        megatron_hfu_selective,
        megatron_hardware_flops_selective / (step_time * n_gpus * peak_flops),
    ),
    source=KORTHIKANTI_6,
    subject=SUBJECT,
    note="GPT-3 175B in Table 5: 52.8%",
)

formula(
    "megatron_hfu_full",
    "HFU from an iteration time, full recomputation",
    Eq(megatron_hfu_full, megatron_hardware_flops_full / (step_time * n_gpus * peak_flops)),
    source=f"{KORTHIKANTI_6}; Narayanan et al. 2021, arXiv:2104.04473, eq. 3",
    subject=SUBJECT,
    note="what Megatron-LM reported as 'TFLOP/s per GPU' before selective recomputation",
)
