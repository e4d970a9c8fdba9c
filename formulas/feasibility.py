"""Feasibility: the conditions a plan must meet to fit, checked in every answer that touches them.

    weight_memory + kv_cache_memory  ≤ hbm_usable_fraction · hbm_capacity · n_gpus
                                                                     (a serving replica fits)
    batch_size                       ≤ max_concurrent_sequences      (the batch's KV fits)
    training_memory_per_gpu          ≤ hbm_capacity                  (a training layout fits)
    zero{0,1,2,3}_memory_per_gpu     ≤ hbm_capacity                  (training state per GPU)
    training_state_memory_per_gpu    ≤ hbm_capacity                  (the same, the stage given)
    microbatches_in_flight · activation_memory{,_flash,_recompute} / pp ≤ hbm_capacity
                                                 (the first pipeline stage's activations)
    utilization                      < 1                             (a queue that drains)
    checkpoint_write_time            < checkpoint_interval           (blocking checkpoints)
    checkpoint_snapshot_time         < checkpoint_interval           (asynchronous snapshots)
    allreduce_time                   ≤ backward_time                 (gradient sync hides)
    pipeline_bubble_fraction         ≤ 1/4                           (assumed threshold)
    torus_axes                       ≤ torus_dims                    (axes the torus has)
    pp                               ≤ n_layers                      (refused: a stage per layer)
    ⌈n_layers / (pp · v)⌉            ≤ n_layers / (pp · v)           (chunks of whole layers)

Memory constraints are per GPU: activation_memory is already per GPU (each tensor-parallel
rank's share of one micro-batch through all n_layers), and under 1F1B the first pipeline stage
holds microbatches_in_flight = pp micro-batches of n_layers/pp layers, the whole of it
(Korthikanti et al. 2022, §4.2.3), not a pp-th.

An answer shows each constraint its values touch as holds or violated, with the margin; a
violation is a warning (and exit status 1 with `napkin solve --strict`), but for a rule a
layout must meet to exist at all (pp ≤ n_layers), which refuses the question.
"""

from sympy import Min, Rational

from napkinmath.library.declare import ceiling, constraint

from .accelerator import hbm_capacity, hbm_usable_fraction
from .activations import activation_memory, activation_memory_flash, activation_memory_recompute
from .collectives import (
    SCALING_BOOK,
    torus_allgather_time,
    torus_allreduce_time,
    torus_axes,
    torus_dims,
)
from .communication import allreduce_exposed_time, allreduce_time
from .inference import kv_cache_memory, max_concurrent_sequences
from .memory import (
    training_memory_per_gpu,
    training_state_memory_per_gpu,
    zero0_memory_per_gpu,
    zero1_memory_per_gpu,
    zero2_memory_per_gpu,
    zero3_memory_per_gpu,
    zero_stage,
)
from .model import batch_size, n_layers, weight_memory
from .parallelism import (
    microbatches_in_flight,
    pipeline_bubble_fraction,
    pp,
    sp,
    tp,
    virtual_pipeline_stages,
)
from .serving import time_in_queue, utilization
from .step_time import backward_time
from .storage import (
    checkpoint_interval,
    checkpoint_overhead,
    checkpoint_overhead_async,
    checkpoint_snapshot_time,
    checkpoint_write_time,
)
from .training import n_gpus

POPE_2022 = "Pope et al. 2022, Efficiently Scaling Transformer Inference, arXiv:2211.05102, §2"
KWON_2023 = (
    "Kwon et al. 2023, Efficient Memory Management for LLM Serving with "
    "PagedAttention (vLLM), arXiv:2309.06180"
)
RAJBHANDARI_2020 = (
    "Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training "
    "Trillion Parameter Models, arXiv:1910.02054, §5"
)
KORTHIKANTI_2022 = (
    "Korthikanti et al. 2022, Reducing Activation Recomputation in Large "
    "Transformer Models, arXiv:2205.05198, §4.2.3 (the first 1F1B stage holds "
    "p micro-batches of L/p layers; interleaved: L(1 + (p−1)/(pm)) layers)"
)
VLLM_UTILIZATION = (
    "vLLM engine argument --gpu-memory-utilization (default 0.9 of each GPU's "
    "HBM for weights, activations and KV cache)"
)
KLEINROCK_1975 = "Kleinrock 1975, Queueing Systems, Vol. 1, §2.1 (stability of M/M/c: ρ < 1)"
YOUNG_1974 = (
    "Young 1974, A first order approximation to the optimum checkpoint interval, "
    "Communications of the ACM 17(9)"
)
LI_2020 = (
    "Li et al. 2020, PyTorch Distributed: Experiences on Accelerating Data Parallel "
    "Training, VLDB 13(12) (gradient all-reduce overlapped with the backward pass)"
)
NARAYANAN_2021 = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU "
    "Clusters Using Megatron-LM, arXiv:2104.04473, §2.2.1"
)

constraint(
    "replica_fits_hbm",
    "Weights and KV cache fit in the replica's usable HBM",
    weight_memory + kv_cache_memory,
    hbm_usable_fraction * hbm_capacity * n_gpus,
    source=f"{POPE_2022}; {KWON_2023}; {VLLM_UTILIZATION}",
    subject="inference",
    touch=(kv_cache_memory,),
    message="the weights and the batch's KV cache exceed the usable share of the "
    "replica's HBM (hbm_usable_fraction): use more GPUs per replica, a smaller "
    "batch or context, or a smaller KV cache (fp8 KV, fewer KV heads)",
)
constraint(
    "batch_fits_kv_budget",
    "The batch's sequences fit in the KV budget",
    batch_size,
    max_concurrent_sequences,
    source=f"{POPE_2022}; {KWON_2023}",
    subject="inference",
    touch=(kv_cache_memory, max_concurrent_sequences),
    message="more sequences than the HBM left after the weights can hold at this "
    "context: lower batch_size or seq_len, or add GPUs to the replica",
)
for _stage, _memory in enumerate(
    (zero0_memory_per_gpu, zero1_memory_per_gpu, zero2_memory_per_gpu, zero3_memory_per_gpu)
):
    constraint(
        f"zero{_stage}_fits_hbm",
        f"Training state per GPU fits in HBM{f' (ZeRO-{_stage})' if _stage else ''}",
        _memory,
        hbm_capacity,
        per="GPU",
        source=RAJBHANDARI_2020,
        subject="memory",
        message="the training state on each GPU exceeds its HBM (before activations): "
        "shard further (a higher ZeRO stage, more data-parallel ranks, tensor or "
        "pipeline parallelism) or use GPUs with more memory",
    )
constraint(
    "training_state_fits_hbm",
    "Training state per GPU fits in HBM under the layout",
    training_state_memory_per_gpu,
    hbm_capacity,
    per="GPU",
    source=RAJBHANDARI_2020,
    subject="memory",
    # a stated zero_stage brings the check, whatever the question asks
    touch=(training_state_memory_per_gpu, zero_stage),
    message="the training state on each GPU (training_state_memory_per_gpu: weights, "
    "gradients and optimizer state under the layout's tp, pp and ZeRO stage, before "
    "activations) exceeds its HBM (hbm_capacity): shard "
    "further (a higher zero_stage, more data-parallel ranks for it to shard over, more tp "
    "or pp) or use GPUs with more memory",
)
constraint(
    "training_memory_fits_hbm",
    "Training memory per GPU fits in HBM",
    training_memory_per_gpu,
    hbm_capacity,
    per="GPU",
    source=f"{RAJBHANDARI_2020}; {KORTHIKANTI_2022}",
    subject="memory",
    message="a GPU of the first pipeline stage needs more than its HBM for the sharded "
    "training state, its activations and the allowances: shard further (a "
    "higher zero_stage, more tp or pp), recompute activations "
    "(recomputed_layer_fraction, attention_score_bytes = 0 with FlashAttention), "
    "use sequence parallelism (sp = tp), or shorten the micro-batch",
)
for _memory, _kind in (
    (activation_memory, ""),
    (activation_memory_flash, ", no stored scores"),
    (activation_memory_recompute, ", full recomputation"),
):
    # microbatches_in_flight micro-batches × n_layers/pp layers × (activation_memory/n_layers)
    constraint(
        f"{_memory.name}_fits_hbm",
        f"Activations of the first pipeline stage fit in HBM{_kind}",
        microbatches_in_flight * _memory / pp,
        hbm_capacity,
        per="GPU",
        source=KORTHIKANTI_2022,
        subject="memory",
        touch=(_memory,),
        message="the first pipeline stage's activations alone (its micro-batches in "
        "flight through its n_layers/pp layers) exceed a GPU's HBM: recompute "
        "activations, shorten the micro-batch or sequence, or add tensor, "
        "sequence or context parallelism (more pipeline stages do not help "
        "under 1F1B)",
    )
constraint(
    "queue_stable",
    "The queue drains (utilization below 1)",
    utilization,
    1,
    strict=True,
    source=KLEINROCK_1975,
    subject="serving",
    touch=(utilization, time_in_queue),
    message="requests arrive faster than the servers finish them: the queue and the "
    "wait grow without bound; add replicas or slots",
)
constraint(
    "checkpoint_write_within_interval",
    "A blocking checkpoint is written within its interval",
    checkpoint_write_time,
    checkpoint_interval,
    strict=True,
    source=YOUNG_1974,
    subject="storage",
    touch=(checkpoint_overhead, checkpoint_interval),
    message="writing a checkpoint takes longer than the interval between checkpoints: "
    "the job would do nothing but checkpoint; checkpoint less often or faster",
)
constraint(
    "snapshot_within_interval",
    "An asynchronous snapshot finishes within its interval",
    checkpoint_snapshot_time,
    checkpoint_interval,
    strict=True,
    source=YOUNG_1974,
    subject="storage",
    touch=(checkpoint_overhead_async, checkpoint_snapshot_time),
    message="the snapshot to host memory takes longer than the checkpoint interval",
)
constraint(
    "allreduce_hidden",
    "The gradient all-reduce hides behind the backward pass",
    allreduce_time,
    backward_time,
    source=LI_2020,
    subject="communication",
    touch=(allreduce_time, allreduce_exposed_time),
    message="the gradient all-reduce outlasts the backward pass, so part of it is "
    "exposed and lengthens every step (see allreduce_exposed_time)",
)
constraint(
    "pipeline_bubble_small",
    "Pipeline bubble at most a quarter of the compute (assumed threshold)",
    pipeline_bubble_fraction,
    Rational(1, 4),
    source=f"{NARAYANAN_2021} (bubble = (p−1)/m; napkinmath assumes 25% as the limit)",
    subject="parallelism",
    message="the pipeline idles for more than a quarter of the compute time: use more "
    "micro-batches per step or interleaved stages (virtual_pipeline_stages)",
)
MEGATRON_LAYERS = (
    "Megatron-LM, megatron/core/transformer/transformer_config.py and "
    "megatron/core/transformer/transformer_block.py (num_layers divisible by "
    "pipeline_model_parallel_size, and the layers of a stage by "
    "virtual_pipeline_model_parallel_size, unless --decoder-first-pipeline-num-layers / "
    "--decoder-last-pipeline-num-layers make the first and last stages uneven)"
)
constraint(
    "pipeline_stages_have_layers",
    "Every pipeline stage holds at least one layer",
    pp,
    n_layers,
    source=MEGATRON_LAYERS,
    subject="parallelism",
    touch=(pp, virtual_pipeline_stages),
    refuse=True,
    message="pp, the pipeline stages, must be at most n_layers, the transformer layers: a "
    "stage without a layer does not exist (refused, whatever the schedule); lower pp to a "
    "divisor of n_layers and give the GPUs to tp or dp",
)
constraint(
    "pipeline_chunks_whole",
    "Layers split evenly over the pipeline's model chunks",
    # ⌈L / (p·v)⌉ ≤ L / (p·v) exactly when p·v divides L
    ceiling(n_layers / (pp * virtual_pipeline_stages)),
    n_layers / (pp * virtual_pipeline_stages),
    source=MEGATRON_LAYERS,
    subject="parallelism",
    touch=(pp, virtual_pipeline_stages),
    message="the layers per model chunk, n_layers / (pp · virtual_pipeline_stages), are not "
    "whole (shown rounded up, then exact), so the stages (or their interleaved chunks) hold "
    "unequal layers: flagged, not refused, as Megatron-LM runs "
    "uneven first and last stages (--decoder-first-pipeline-num-layers, "
    "--decoder-last-pipeline-num-layers) though it refuses an uneven interleaved split; "
    "napkinmath prices n_layers / pp layers per stage, an average, so the busiest stage is "
    "slower and fuller than shown: pick pp · virtual_pipeline_stages dividing n_layers",
)
constraint(
    "interleaving_needs_stages",
    "Interleaved model chunks need pipeline stages",
    # (v − 1)·(2 − min(p, 2)): v − 1 when there is no pipeline, 0 with one
    (virtual_pipeline_stages - 1) * (2 - Min(pp, 2)),
    0,
    source=f"{NARAYANAN_2021}, §2.2.2 (the interleaved schedule splits each stage's layers)",
    subject="parallelism",
    touch=(virtual_pipeline_stages,),
    refuse=True,
    message="virtual_pipeline_stages > 1 interleaves model chunks across pipeline stages, and "
    "pp = 1 has none: give virtual_pipeline_stages = 1, or pp > 1",
)
constraint(
    "sequence_parallel_is_the_tp_group",
    "Sequence parallelism spans the tensor-parallel group",
    # zero exactly when sp is 1 (off) or tp
    (sp - 1) ** 2 * (sp - tp) ** 2,
    0,
    source=f"{KORTHIKANTI_2022}, §4.2.2 (the sequence split over the tensor-parallel ranks)",
    subject="parallelism",
    touch=(sp,),
    refuse=True,
    message="sp is 1 (no sequence parallelism) or tp: Megatron's sequence parallelism splits "
    "the norms and dropouts over the tensor-parallel group itself; give sp = 1 or sp = tp",
)
constraint(
    "torus_axes_exist",
    "A torus collective uses at most the torus's axes",
    torus_axes,
    torus_dims,
    source=SCALING_BOOK,
    subject="communication",
    touch=(torus_allgather_time, torus_allreduce_time),
    message="the collective is spread over more axes than the chips' torus has (TPU v5e "
    "and v6e 2, v5p 3): lower torus_axes",
)
