"""Training memory: the state every parameter carries, ZeRO/FSDP sharding, LoRA, GPUs to hold it,
and the whole per-GPU total of a training layout.

    state_bytes_per_param = weight + gradient + (fp32 master + Adam m + Adam v)
                          = 2 + 2 + (4 + 4 + 4) = 16 B/param        (mixed-precision Adam)
    training_state_memory = params_total · state_bytes_per_param
    zero3_memory_per_gpu  = training_state_memory / (tp · pp · dp · cp)          (FSDP full shard)
    lora_params           = lora_rank · (lora_d_in + lora_d_out) · lora_target_matrices · n_layers
    lora_params           = lora_rank · lora_attention_dims · n_layers          (q, k, v, o adapted)
    lora_attention_dims   = 4·hidden_size + 2·n_heads·head_dim + 2·n_kv_heads·head_dim
    lora_memory           = weight_memory (frozen) + lora_params · lora_state_bytes_per_param

Under a layout (tp, pp, dp, cp, zero_stage, micro-batch, recomputation, micro-batches in
flight) one GPU of the first pipeline stage holds

    training_state_memory_per_gpu = (W / n_w + G / n_g + O / n_o) / (tp · pp)
        n_o = (dp·cp)^min(zero_stage, 1)   ZeRO-1 and up shard the optimizer state
        n_g = (dp·cp)^min(max(zero_stage − 1, 0), 1)   ZeRO-2 and up the gradients too
        n_w = (dp·cp)^max(zero_stage − 2, 0)           ZeRO-3 the weights too
    training_memory_per_gpu = (training_state_memory_per_gpu + stage_activation_memory)
                              · (1 + memory_fragmentation_fraction) + runtime_memory_per_gpu

with ``stage_activation_memory`` the first stage's activations (``activations``), and
``training_memory_fits_hbm`` (``feasibility``) checks it against one GPU's HBM.

Sources: Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) for the 16 bytes and the stages;
Hu et al. 2021 (LoRA, arXiv:2106.09685). Memory follows every parameter (``params_total``),
experts included. Activations are in ``activations``; the zero*_memory_per_gpu figures here
are the model state alone (activations, buffers and fragmentation come on top, as in
``training_memory_per_gpu``).
"""

from sympy import Max, Min

from napkinmath.library.declare import NON_NEGATIVE, Bounds, Eq, ceiling, formula, var

from .accelerator import gpus_per_node, hbm_capacity
from .activations import stage_activation_memory
from .inference import kv_cache_memory
from .model import (
    head_dim,
    hidden_size,
    n_heads,
    n_kv_heads,
    n_layers,
    params_total,
    weight_bytes_per_param,
    weight_memory,
)
from .parallelism import cp, dp, pp, tp
from .sources import DEFINITION, KORTHIKANTI_2022
from .training import n_gpus

SUBJECT = "memory"

ZERO_2020 = (
    "Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion Parameter "
    "Models, arXiv:1910.02054"
)
FSDP_2023 = "Zhao et al. 2023, PyTorch FSDP, arXiv:2304.11277"
DISTRIBUTED_OPTIMIZER = (
    "Megatron-Core distributed optimizer (shards fp32 master weights and Adam state over the "
    "data-parallel ranks, context-parallel ranks included)"
)
LORA_2021 = "Hu et al. 2021, LoRA: Low-Rank Adaptation of Large Language Models, arXiv:2106.09685"
GMLAKE_2024 = (
    "Guo et al. 2024, GMLake: Efficient and Transparent GPU Memory Defragmentation for "
    "Large-scale DNN Training with Virtual Memory Stitching, ASPLOS 2024, arXiv:2401.08156"
)

# --- Variables -----------------------------------------------------------------------------
# Bytes of one gradient: 2 in bf16, 4 when gradients are accumulated in fp32, 0 when frozen.
grad_bytes_per_param = var(
    "grad_bytes_per_param",
    "B/param",
    "bytes per gradient (bf16 2, fp32 4, 0 if frozen)",
    symbol="b_g",
    bounds=NON_NEGATIVE,
    default=2,
    default_note="gradients in bf16, 2 bytes per parameter (ZeRO §3.1: 2Ψ)",
)
# Bytes of the fp32 master copy of each weight kept by mixed-precision training.
master_bytes_per_param = var(
    "master_bytes_per_param",
    "B/param",
    "bytes per fp32 master weight (0 without one)",
    symbol="b_{master}",
    bounds=NON_NEGATIVE,
    default=4,
    default_note="fp32 master weights, 4 bytes per parameter (ZeRO §3.1)",
)
# Bytes of Adam's first moment (momentum) per parameter; 0 for plain SGD.
adam_m_bytes_per_param = var(
    "adam_m_bytes_per_param",
    "B/param",
    "bytes per Adam first moment m (momentum; 0 for plain SGD)",
    symbol="b_m",
    bounds=NON_NEGATIVE,
    default=4,
    default_note="Adam momentum in fp32, 4 bytes (ZeRO §3.1)",
)
# Bytes of Adam's second moment (variance) per parameter; 0 for SGD with or without momentum.
adam_v_bytes_per_param = var(
    "adam_v_bytes_per_param",
    "B/param",
    "bytes per Adam second moment v (variance; 0 for SGD)",
    symbol="b_v",
    bounds=NON_NEGATIVE,
    default=4,
    default_note="Adam variance in fp32, 4 bytes (ZeRO §3.1)",
)
# Optimizer state per parameter: master weights and both moments (ZeRO's K = 12).
optimizer_bytes_per_param = var(
    "optimizer_bytes_per_param",
    "B/param",
    "optimizer-state bytes per parameter: fp32 master + Adam m + v (ZeRO's K; 0 for plain "
    "SGD on bf16 weights)",
    symbol="K",
    bounds=NON_NEGATIVE,
)
# Everything one trained parameter carries: weight, gradient, optimizer state.
state_bytes_per_param = var(
    "state_bytes_per_param",
    "B/param",
    "training-state bytes per parameter: weight + gradient + optimizer (16 for bf16 Adam)",
    symbol="b_{state}",
)
# Memory of the gradients (also the data-parallel all-reduce message).
gradient_memory = var(
    "gradient_memory",
    "GB",
    "memory of the gradients (0 if frozen)",
    symbol="M_g",
    bounds=NON_NEGATIVE,
)
# Memory of the optimizer state.
optimizer_memory = var(
    "optimizer_memory",
    "GB",
    "memory of the optimizer state (fp32 master weights, Adam m and v)",
    symbol="M_{opt}",
    bounds=NON_NEGATIVE,
)
# Whole training state: weights, gradients, optimizer state (activations not included).
training_state_memory = var(
    "training_state_memory",
    "GB",
    "training state: weights + gradients + optimizer state",
    symbol="M_{state}",
)
# Accelerators whose HBM the training state alone fills.
n_gpus_for_state = var(
    "n_gpus_for_state",
    "GPU",
    "accelerators whose HBM holds the training state alone (rounded up)",
    symbol="n_{state}",
    rounding=("n_gpus_for_state_whole_nodes",),
    whole=True,
)
# The same, as whole nodes.
n_gpus_for_state_whole_nodes = var(
    "n_gpus_for_state_whole_nodes",
    "GPU",
    "accelerators to hold the training state, in whole nodes",
    symbol="n_{state,node}",
    whole=True,
)
# Training state on each GPU, nothing sharded (plain data parallelism, ZeRO stage 0).
zero0_memory_per_gpu = var(
    "zero0_memory_per_gpu",
    "GB",
    "training state on each GPU without sharding (DDP, ZeRO stage 0)",
    symbol="M_{gpu,0}",
)
# ZeRO stage 1: optimizer state sharded.
zero1_memory_per_gpu = var(
    "zero1_memory_per_gpu",
    "GB",
    "training state on each GPU, optimizer state sharded (ZeRO-1)",
    symbol="M_{gpu,1}",
)
# ZeRO stage 2: gradients and optimizer state sharded.
zero2_memory_per_gpu = var(
    "zero2_memory_per_gpu",
    "GB",
    "training state on each GPU, gradients and optimizer sharded (ZeRO-2)",
    symbol="M_{gpu,2}",
)
# ZeRO stage 3 / FSDP full shard: everything sharded.
zero3_memory_per_gpu = var(
    "zero3_memory_per_gpu",
    "GB",
    "training state on each GPU, all of it sharded (ZeRO-3, FSDP full shard)",
    symbol="M_{gpu,3}",
)
# ZeRO stage of the layout: which parts of the training state are sharded over the dp ranks.
zero_stage = var(
    "zero_stage",
    "",
    "ZeRO stage: 0 nothing sharded, 1 optimizer state, 2 also gradients, 3 also weights "
    "(FSDP full shard)",
    symbol="z",
    bounds=Bounds(0.0, 3.0, lo_inclusive=True),
    default=0,
    default_note=(
        "ZeRO stage 0: nothing sharded over the data-parallel ranks (plain DDP) unless given; "
        "Megatron's --use-distributed-optimizer is stage 1, FSDP full shard stage 3"
    ),
)
# Ranks each part of the training state is split over by ZeRO (1: kept whole on every rank).
optimizer_shards = var(
    "optimizer_shards",
    "",
    "data-parallel ranks the optimizer state is split over (ZeRO ≥ 1)",
    symbol="n_{o}",
    whole=True,
)
gradient_shards = var(
    "gradient_shards",
    "",
    "data-parallel ranks the gradients are split over (ZeRO ≥ 2)",
    symbol="n_{g}",
    whole=True,
)
weight_shards = var(
    "weight_shards",
    "",
    "data-parallel ranks the weights are split over (ZeRO-3)",
    symbol="n_{w}",
    whole=True,
)
# Training state on one GPU under the layout's tp, pp and ZeRO stage.
training_state_memory_per_gpu = var(
    "training_state_memory_per_gpu",
    "GB",
    "training state on each GPU under the layout: weights, gradients and optimizer state "
    "split by tp · pp and by the ZeRO stage",
    symbol="M_{state,gpu}",
)
# Allocator fragmentation and other slack, as a share of what the tensors need.
memory_fragmentation_fraction = var(
    "memory_fragmentation_fraction",
    "",
    "memory the caching allocator reserves beyond the tensors, as a share of them",
    symbol="f_{frag}",
    bounds=NON_NEGATIVE,
    default=0.1,
    default_note=(
        "10% allocator fragmentation and slack on top of the tensors: PyTorch's caching "
        "allocator commonly reserves 5-15% more than it allocates in LLM training; GMLake "
        "(Guo et al. 2024, ASPLOS) measured 15% on average (up to 33%) with recomputation, "
        "ZeRO and LoRA on A100-80GB; measure torch.cuda.memory_reserved() / "
        "memory_allocated() for your stack"
    ),
)
# Memory outside PyTorch's tensors on each GPU: CUDA context, NCCL buffers, workspaces.
runtime_memory_per_gpu = var(
    "runtime_memory_per_gpu",
    "GB",
    "memory outside the tensors on each GPU: CUDA context, kernels, NCCL buffers, workspaces",
    symbol="M_{rt}",
    bounds=NON_NEGATIVE,
    default="2 GB",
    default_note=(
        "2 GB per GPU outside the tensors: the CUDA context with PyTorch's kernels (about "
        "0.5-1 GB) and NCCL communicator buffers and cuBLAS workspaces (about 1 GB), as "
        "remembered; nvidia-smi's used memory minus torch.cuda.memory_reserved() measures it"
    ),
)
# Everything one GPU of the first pipeline stage holds during a training step.
training_memory_per_gpu = var(
    "training_memory_per_gpu",
    "GB",
    "memory of each GPU of the first pipeline stage in training: sharded training state, "
    "the stage's activations, fragmentation and runtime allowance",
    symbol="M_{train,gpu}",
)
# Weights and KV cache on each GPU of a serving replica.
serving_memory_per_gpu = var(
    "serving_memory_per_gpu",
    "GB/GPU",
    "weights and KV cache on each GPU of a serving replica (split evenly over its GPUs)",
    symbol="M_{serve,gpu}",
)
# One trainable matrix entry is one parameter: turns a matrix shape into a parameter count.
params_per_entry = var(
    "params_per_entry",
    "param",
    "parameters per trainable matrix entry (1)",
    symbol="u_p",
    default=1,
    default_note="each entry of a trained matrix is one parameter",
)
# LoRA rank r.
lora_rank = var("lora_rank", "", "LoRA rank r", symbol="r", whole=True)
# Input dimension of an adapted matrix (average over the adapted matrices).
lora_d_in = var("lora_d_in", "", "input dimension of an adapted matrix (average)", symbol="d_{in}")
# Output dimension of an adapted matrix (average over the adapted matrices).
lora_d_out = var(
    "lora_d_out", "", "output dimension of an adapted matrix (average)", symbol="d_{out}"
)
# Matrices adapted in each layer (q, k, v, o: 4).
lora_target_matrices = var(
    "lora_target_matrices",
    "",
    "matrices adapted per layer (q, k, v, o: 4; all linear: 7)",
    symbol="n_{tgt}",
    whole=True,
)
# d_in + d_out summed over the four attention projections of one layer (LoRA's usual targets).
lora_attention_dims = var(
    "lora_attention_dims",
    "",
    "d_in + d_out summed over the q, k, v and o projections of one layer (for LoRA on them)",
    symbol="d_{qkvo}",
)
# Trainable adapter parameters.
lora_params = var("lora_params", "param", "trainable LoRA adapter parameters", symbol="N_{LoRA}")
# Training-state bytes per adapter parameter (the adapter trains in bf16 with Adam).
lora_state_bytes_per_param = var(
    "lora_state_bytes_per_param",
    "B/param",
    "training-state bytes per adapter parameter (bf16 + Adam: 16)",
    symbol="b_{LoRA}",
    default=16,
    default_note=(
        "16 B per adapter parameter: bf16 weight and gradient, fp32 master, Adam m and v "
        "(ZeRO §3.1), whatever precision the frozen weights use (QLoRA: 4-bit base)"
    ),
)
# Training state of the adapter: its weights, gradients, optimizer state.
lora_adapter_memory = var(
    "lora_adapter_memory",
    "GB",
    "adapter training state (weights, gradients, optimizer)",
    symbol="M_{adapter}",
)
# Frozen base weights plus the adapter's training state.
lora_memory = var(
    "lora_memory",
    "GB",
    "LoRA fine-tuning state: frozen weights + adapter training state",
    symbol="M_{LoRA}",
)

# Accelerators whose HBM a LoRA fine-tune's state fills.
n_gpus_for_lora = var(
    "n_gpus_for_lora",
    "GPU",
    "accelerators whose HBM holds a LoRA fine-tune's state, frozen weights and adapter "
    "(rounded up)",
    symbol="n_{LoRA}",
    whole=True,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "optimizer_bytes_per_param",
    "Optimizer state per parameter",
    Eq(
        optimizer_bytes_per_param,
        master_bytes_per_param + adam_m_bytes_per_param + adam_v_bytes_per_param,
    ),
    source=f"{ZERO_2020}, §3.1 (K = 12 for mixed-precision Adam)",
    subject=SUBJECT,
    note="fp32 master weights + Adam m + Adam v = 4 + 4 + 4",
)

formula(
    "state_bytes_per_param",
    "Training state per parameter",
    Eq(
        state_bytes_per_param,
        weight_bytes_per_param + grad_bytes_per_param + optimizer_bytes_per_param,
    ),
    source=f"{ZERO_2020}, §3.1 (2Ψ + 2Ψ + KΨ = 16Ψ)",
    subject=SUBJECT,
    note="bf16 weights + bf16 gradients + optimizer state = 2 + 2 + 12 = 16",
)

formula(
    "gradient_memory",
    "Gradient memory",
    Eq(gradient_memory, params_total * grad_bytes_per_param),
    source=DEFINITION,
    subject=SUBJECT,
    note="every parameter has a gradient, experts included",
)

formula(
    "optimizer_memory",
    "Optimizer-state memory",
    Eq(optimizer_memory, params_total * optimizer_bytes_per_param),
    source=DEFINITION,
    subject=SUBJECT,
)

formula(
    "training_state_memory",
    "Training state",
    Eq(training_state_memory, params_total * state_bytes_per_param),
    source=f"{ZERO_2020}, §3.1",
    subject=SUBJECT,
    note="weights, gradients and optimizer state; activations come on top",
)

formula(
    "gpus_for_state",
    "GPUs to hold the training state",
    Eq(n_gpus_for_state, ceiling(training_state_memory / hbm_capacity)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "rounds up; a lower bound: activations, buffers and fragmentation need more, "
        "and the state must be sharded (ZeRO-3/FSDP, or tensor/pipeline parallel)"
    ),
)

formula(
    "gpus_for_state_whole_nodes",
    "GPUs to hold the training state, whole nodes",
    Eq(
        n_gpus_for_state_whole_nodes,
        gpus_per_node * ceiling(training_state_memory / (hbm_capacity * gpus_per_node)),
    ),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note="rounds up to a multiple of the GPUs per node",
)

formula(
    "zero0_memory_per_gpu",
    "Training state per GPU, no sharding",
    Eq(zero0_memory_per_gpu, training_state_memory / (tp * pp)),
    source=f"{ZERO_2020}, Fig. 1 (baseline)",
    subject=SUBJECT,
    note="every data-parallel replica holds the whole state of its tensor/pipeline shard",
)

formula(
    "zero1_memory_per_gpu",
    "Training state per GPU, ZeRO-1",
    Eq(
        zero1_memory_per_gpu,
        (weight_memory + gradient_memory + optimizer_memory / (dp * cp)) / (tp * pp),
    ),
    source=f"{ZERO_2020}, Fig. 1 (P_os); {DISTRIBUTED_OPTIMIZER}",
    subject=SUBJECT,
    note="optimizer state sharded over the data-parallel ranks",
)

formula(
    "zero2_memory_per_gpu",
    "Training state per GPU, ZeRO-2",
    Eq(
        zero2_memory_per_gpu,
        (weight_memory + (gradient_memory + optimizer_memory) / (dp * cp)) / (tp * pp),
    ),
    source=f"{ZERO_2020}, Fig. 1 (P_os+g)",
    subject=SUBJECT,
    note="gradients and optimizer state sharded over the data-parallel ranks",
)

formula(
    "zero3_memory_per_gpu",
    "Training state per GPU, ZeRO-3 / FSDP",
    Eq(zero3_memory_per_gpu, training_state_memory / (tp * pp * dp * cp)),
    source=f"{ZERO_2020}, Fig. 1 (P_os+g+p); {FSDP_2023}",
    subject=SUBJECT,
    note=("everything sharded; gathered layers in flight add a few layers' weights on top"),
)

formula(
    "lora_params",
    "LoRA adapter parameters",
    Eq(
        lora_params,
        lora_rank * (lora_d_in + lora_d_out) * lora_target_matrices * n_layers * params_per_entry,
    ),
    source=f"{LORA_2021}, §4.1 (A is r × d_in, B is d_out × r)",
    subject=SUBJECT,
    note="two low-rank factors per adapted matrix, in every layer",
)

formula(
    "lora_attention_dims",
    "Shapes of the attention projections",
    Eq(
        lora_attention_dims,
        4 * hidden_size + 2 * n_heads * head_dim + 2 * n_kv_heads * head_dim,
    ),
    source=(
        f"{DEFINITION}: q is hidden × n_heads·head_dim, k and v hidden × n_kv_heads·head_dim "
        "(grouped-query attention), o n_heads·head_dim × hidden"
    ),
    subject=SUBJECT,
    note="with multi-head attention (n_kv_heads = n_heads, n_heads·head_dim = h) this is 8h",
)

formula(
    "lora_params_attention",
    "LoRA adapter parameters, q, k, v and o",
    Eq(lora_params, lora_rank * lora_attention_dims * n_layers * params_per_entry),
    source=(
        f"{LORA_2021}, §4.1 (A is r × d_in, B is d_out × r) and §7.1 (adapting W_q, W_k, W_v, W_o)"
    ),
    subject=SUBJECT,
    note=(
        "LoRA adapts the four attention projections (the paper's choice), their shapes "
        "from the model; for other targets (all linear layers: 7) give lora_d_in, lora_d_out "
        "and lora_target_matrices"
    ),
    assumption=True,
    derived_from=("lora_params",),
)

formula(
    "lora_adapter_memory",
    "LoRA adapter training state",
    Eq(lora_adapter_memory, lora_params * lora_state_bytes_per_param),
    source=f"{LORA_2021}; {ZERO_2020}, §3.1",
    subject=SUBJECT,
    note="the adapter trains like any model: weights, gradients, Adam state",
)

formula(
    "lora_memory",
    "LoRA fine-tuning state",
    Eq(lora_memory, weight_memory + lora_adapter_memory),
    source=LORA_2021,
    subject=SUBJECT,
    note=(
        "frozen weights keep no gradients or optimizer state; QLoRA stores them in 4 bits "
        "(weight_bytes_per_param = 0.5)"
    ),
)

formula(
    "gpus_for_lora",
    "GPUs to hold a LoRA fine-tune's state",
    Eq(n_gpus_for_lora, ceiling(lora_memory / hbm_capacity)),
    source=DEFINITION,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "rounds up; a lower bound: activations and buffers need more, and on more than one "
        "GPU the frozen weights are sharded (FSDP, or tensor/pipeline parallel)"
    ),
)

formula(
    "optimizer_shards",
    "Optimizer-state shards under the ZeRO stage",
    Eq(optimizer_shards, (dp * cp) ** Min(zero_stage, 1, evaluate=False)),
    source=f"{ZERO_2020}, §5.1 (P_os); {DISTRIBUTED_OPTIMIZER}",
    subject=SUBJECT,
    forward_only=True,
    note=(
        "ZeRO-1 and up split the optimizer state over the dp · cp ranks; stage 0 keeps "
        "it whole: (dp · cp)⁰ = 1"
    ),
)

formula(
    "gradient_shards",
    "Gradient shards under the ZeRO stage",
    Eq(
        gradient_shards, (dp * cp) ** Min(Max(zero_stage - 1, 0, evaluate=False), 1, evaluate=False)
    ),
    source=f"{ZERO_2020}, §5.2 (P_g)",
    subject=SUBJECT,
    forward_only=True,
    note="ZeRO-2 and up split the gradients over the dp · cp ranks too",
)

formula(
    "weight_shards",
    "Weight shards under the ZeRO stage",
    Eq(weight_shards, (dp * cp) ** Max(zero_stage - 2, 0, evaluate=False)),
    source=f"{ZERO_2020}, §5.3 (P_p); {FSDP_2023}",
    subject=SUBJECT,
    forward_only=True,
    note="ZeRO-3 (FSDP full shard) splits the weights over the dp · cp ranks too",
)

formula(
    "training_state_memory_per_gpu",
    "Training state per GPU under the layout",
    Eq(
        training_state_memory_per_gpu,
        (
            weight_memory / weight_shards
            + gradient_memory / gradient_shards
            + optimizer_memory / optimizer_shards
        )
        / (tp * pp),
    ),
    source=f"{ZERO_2020}, §5 and Fig. 1 (Ψ(2 + 2 + K) over N_d by stage)",
    subject=SUBJECT,
    note=(
        "tensor and pipeline parallelism split every part; the ZeRO stage splits some "
        "over the data-parallel ranks; ZeRO-3 gathers a few layers' weights on top"
    ),
)

formula(
    "training_memory_per_gpu",
    "Memory per GPU of a training layout",
    Eq(
        training_memory_per_gpu,
        (training_state_memory_per_gpu + stage_activation_memory)
        * (1 + memory_fragmentation_fraction)
        + runtime_memory_per_gpu,
    ),
    source=(
        f"{ZERO_2020}, §5 (model states) and §6.2-6.3 (temporary buffers, memory "
        f"fragmentation); {KORTHIKANTI_2022}, §4.2.3 (the first stage's activations); "
        f"fragmentation measured: {GMLAKE_2024}"
    ),
    subject=SUBJECT,
    note=(
        "a GPU of the first pipeline stage, the busiest; embeddings, the output layer's "
        "logits and ZeRO-3's gathered layers are left out"
    ),
)

formula(
    "serving_memory_per_gpu",
    "Weights and KV cache per GPU of a replica",
    Eq(serving_memory_per_gpu, (weight_memory + kv_cache_memory) / n_gpus),
    source=(
        "Pope et al. 2022, Efficiently Scaling Transformer Inference, arXiv:2211.05102, "
        "§2 (weights and KV cache split over the replica's chips)"
    ),
    subject=SUBJECT,
    note=(
        "tensor and pipeline parallelism split the weights and the KV cache evenly "
        "(tp at most n_kv_heads: beyond it KV heads are replicated)"
    ),
)
