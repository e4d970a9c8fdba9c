"""Parallelism: how a job's accelerators divide into tensor, pipeline, context and data groups.

    n_gpus                   = tp · pp · cp · dp · gpus_per_rank      (Megatron-LM world size)
    global_batch             = batch_size · dp · n_microbatches       (Narayanan et al. 2021, §3.1)
    pipeline_bubble_fraction = (pp − 1) / (virtual_pipeline_stages · n_microbatches)   (§2.2)
    microbatches_in_flight   = pipeline_fill · (pp + (pp − 1) · min(v − 1, 1) / v)   (first stage)

Under 1F1B the first pipeline stage holds the most activations: pp micro-batches of its
n_layers/pp layers (Korthikanti et al. 2022, §4.2.3). Megatron's interleaved schedule (v ≥ 2
model chunks per stage) holds n_layers · (1 + (pp − 1)/(pp · v)) layers' worth (the same
section), i.e. pp + (pp − 1)/v micro-batches of n_layers/pp layers; min(v − 1, 1) is 0 for
plain 1F1B (v = 1) and 1 for an interleaved schedule. ``pipeline_fill`` (1 by default: at
least pp micro-batches per step) scales that for a pipeline that is not kept full (plain 1F1B
with n_microbatches < pp holds n_microbatches: pipeline_fill = n_microbatches/pp) or GPipe.

The degrees are plain numbers (ranks); ``gpus_per_rank`` (1 GPU, one process per accelerator)
turns the rank count into accelerators. Expert parallelism is not a factor of the GPU count:
Megatron-Core lays the expert groups over the same ranks (tp·pp·cp·dp = etp·ep·pp·edp), so
``ep`` only divides the experts (``experts_per_rank`` in ``moe``).
"""

from sympy import Min

from napkinmath.library.declare import NON_NEGATIVE, Eq, formula, var

from .model import batch_size
from .sources import KORTHIKANTI_2022
from .training import n_gpus

SUBJECT = "parallelism"

MEGATRON_CORE = (
    "Megatron-Core parallel_state.initialize_model_parallel (NVIDIA/Megatron-LM): "
    "world_size = tp · pp · cp · dp; expert groups etp · ep · pp · edp on the same ranks"
)
MEGATRON_LM_2021 = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters "
    "Using Megatron-LM, arXiv:2104.04473"
)
NARAYANAN_2021_PIPELINE = (
    f"{MEGATRON_LM_2021}, §2.2 (bubble fraction (p−1)/m; interleaved schedule (p−1)/(v·m))"
)

# --- Variables -----------------------------------------------------------------------------
# Tensor-parallel degree: ranks that split every layer's matrices.
tp = var(
    "tp",
    "",
    "tensor-parallel degree: ranks that split each layer's matrices",
    symbol="t",
    default=1,
    default_note="no tensor parallelism (tp = 1) unless given",
    whole=True,
)
# Sequence-parallel degree (Megatron's sequence parallelism, Korthikanti et al. 2022 §4.2.2):
# the ranks that split along the sequence what tensor parallelism leaves whole (layer norms,
# dropouts, each layer's input). tp when it is on, 1 when it is off; it reuses the tensor-
# parallel ranks, so it is no factor of the GPU count.
sp = var(
    "sp",
    "",
    "sequence-parallel degree: tp with Megatron's sequence parallelism, 1 without",
    symbol="t_{sp}",
    default=1,
    default_note=(
        "no sequence parallelism (sp = 1): layer norms, dropouts and each layer's input "
        "are kept whole on every tensor-parallel rank (Korthikanti et al. 2022, Table 2); "
        "give sp = tp when Megatron's --sequence-parallel is on"
    ),
    whole=True,
)
# Pipeline-parallel degree: stages the layers are cut into.
pp = var(
    "pp",
    "",
    "pipeline-parallel degree: stages the layers are split into",
    symbol="p",
    default=1,
    default_note="no pipeline parallelism (pp = 1) unless given",
    whole=True,
)
# Context-parallel degree: ranks that split each sequence along its length.
cp = var(
    "cp",
    "",
    "context-parallel degree: ranks that split each sequence's tokens",
    symbol="c",
    default=1,
    default_note="no context parallelism (cp = 1) unless given",
    whole=True,
)
# Data-parallel degree: model replicas, each on its own share of the batch.
dp = var(
    "dp",
    "",
    "data-parallel degree: model replicas (ranks that shard ZeRO/FSDP state)",
    symbol="d",
    whole=True,
)
# Expert-parallel degree: ranks the experts of an MoE layer are spread over.
ep = var(
    "ep",
    "",
    "expert-parallel degree: ranks that split an MoE layer's experts",
    symbol="e",
    default=1,
    default_note=(
        "no expert parallelism (ep = 1) unless given; ep reuses the data-parallel ranks "
        "(Megatron-Core), so it does not multiply the GPU count"
    ),
    whole=True,
)
# Accelerators driven by one rank (process): 1 in torchrun, Megatron-LM, DeepSpeed and NCCL.
gpus_per_rank = var(
    "gpus_per_rank",
    "GPU",
    "accelerators driven by one rank (process)",
    symbol="g_{r}",
    default=1,
    default_note=(
        "one accelerator per rank (process), as torchrun, Megatron-LM, "
        "DeepSpeed and NCCL collectives run"
    ),
    whole=True,
)
# Sequences in one optimizer step, over every data-parallel replica.
global_batch = var(
    "global_batch",
    "sequence",
    "global batch: sequences per optimizer step, all replicas together",
    symbol="B",
)
# Micro-batches each pipeline runs per step (gradient-accumulation steps without pipelining).
n_microbatches = var(
    "n_microbatches",
    "",
    "micro-batches per replica per step (gradient-accumulation steps)",
    symbol="m",
    whole=True,
)
# Model chunks per pipeline stage in Megatron's interleaved schedule (1 = plain 1F1B).
virtual_pipeline_stages = var(
    "virtual_pipeline_stages",
    "",
    "model chunks per pipeline stage (interleaved 1F1B; 1 = plain)",
    symbol="v",
    default=1,
    default_note="plain 1F1B pipeline schedule, one chunk per stage",
    whole=True,
)
# Micro-batches whose activations the first (busiest) pipeline stage holds at its peak.
microbatches_in_flight = var(
    "microbatches_in_flight",
    "",
    "micro-batches of n_layers/pp layers whose activations the first pipeline stage holds at "
    "once (1F1B: pp; interleaved: pp + (pp − 1)/v)",
    symbol="m_{fl}",
    whole=True,
)
# How full the pipeline runs: the first stage's micro-batches in flight over a full 1F1B's.
pipeline_fill = var(
    "pipeline_fill",
    "",
    "micro-batches the first pipeline stage holds, as a share of what a full 1F1B or "
    "interleaved pipeline holds (1: at least pp micro-batches per step)",
    symbol="f_{fill}",
    default=1,
    default_note=(
        "the pipeline kept full: at least pp micro-batches per step, as 1F1B needs for a small "
        "bubble (Narayanan et al. 2021, §2.2); give n_microbatches/pp for 1F1B with fewer "
        "micro-batches than stages, or for GPipe, which holds every micro-batch of the step"
    ),
)
# Idle pipeline time over ideal compute time in one step.
pipeline_bubble_fraction = var(
    "pipeline_bubble_fraction",
    "",
    "pipeline bubble: idle time over ideal compute time per step",
    symbol="f_{bubble}",
    bounds=NON_NEGATIVE,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "world_size",
    "GPUs of a parallel layout",
    Eq(n_gpus, tp * pp * cp * dp * gpus_per_rank),
    source=f"{MEGATRON_LM_2021}, §3.1 (p · t · d = n); {MEGATRON_CORE}",
    subject=SUBJECT,
    note=(
        "every rank belongs to one tensor, pipeline, context and data-parallel group; "
        "expert parallelism reuses these ranks and is not a factor"
    ),
)

formula(
    "global_batch",
    "Global batch from micro-batches",
    Eq(global_batch, batch_size * dp * n_microbatches),
    source=f"{MEGATRON_LM_2021}, §3.1 (m = B / (b · d))",
    subject=SUBJECT,
    note=(
        "batch_size is the micro-batch; context parallelism splits sequences, not the "
        "batch, so it is no factor"
    ),
)

formula(
    "pipeline_bubble",
    "Pipeline bubble fraction",
    Eq(pipeline_bubble_fraction, (pp - 1) / (virtual_pipeline_stages * n_microbatches)),
    source=NARAYANAN_2021_PIPELINE,
    subject=SUBJECT,
    note=(
        "idle time over ideal compute time (GPipe and 1F1B alike); more micro-batches or "
        "an interleaved schedule shrink it"
    ),
)

formula(
    "microbatches_in_flight",
    "Micro-batches the first pipeline stage holds",
    Eq(
        microbatches_in_flight,
        pipeline_fill
        * (
            pp
            + (pp - 1)
            * Min(virtual_pipeline_stages - 1, 1, evaluate=False)
            / virtual_pipeline_stages
        ),
    ),
    source=(
        f"{KORTHIKANTI_2022}, §4.2.3 (1F1B: the first stage stores p micro-batches of "
        "L/p layers, L layers' worth; interleaved: L(1 + (p−1)/(pm)) layers, m "
        "chunks per stage); schedules: " + NARAYANAN_2021_PIPELINE
    ),
    subject=SUBJECT,
    forward_only=True,
    note=(
        "a full pipeline: plain 1F1B (v = 1) holds pp, Megatron's interleaved schedule "
        "pp + (pp − 1)/v; min(v − 1, 1) is 0 for plain 1F1B and 1 when interleaved; "
        "pipeline_fill scales it for fewer micro-batches or another schedule"
    ),
)
