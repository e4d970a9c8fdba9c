"""Training memory: the state every parameter carries, ZeRO/FSDP sharding, LoRA, GPUs to hold it.

    state_bytes_per_param = weight + gradient + (fp32 master + Adam m + Adam v)
                          = 2 + 2 + (4 + 4 + 4) = 16 B/param        (mixed-precision Adam)
    training_state_memory = params_total · state_bytes_per_param
    zero3_memory_per_gpu  = training_state_memory / (tp · pp · dp · cp)          (FSDP full shard)
    lora_params           = lora_rank · (lora_d_in + lora_d_out) · lora_target_matrices · n_layers
    lora_memory           = weight_memory (frozen) + lora_params · lora_state_bytes_per_param

Sources: Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) for the 16 bytes and the stages;
Hu et al. 2021 (LoRA, arXiv:2106.09685). Memory follows every parameter (``params_total``),
experts included. Activations are in ``activations``; per-GPU figures here are the model
state alone (activations, buffers and fragmentation come on top).
"""

from napkinmath.library.declare import NON_NEGATIVE, Eq, ceiling, formula, var

from .accelerator import gpus_per_node, hbm_capacity
from .model import n_layers, params_total, weight_bytes_per_param, weight_memory
from .parallelism import cp, dp, pp, tp
from .sources import DEFINITION

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

# --- Variables -----------------------------------------------------------------------------
# Bytes of one gradient: 2 in bf16, 4 when gradients are accumulated in fp32, 0 when frozen.
grad_bytes_per_param = var(
    "grad_bytes_per_param", "B/param", "bytes per gradient (bf16 2, fp32 4, 0 if frozen)",
    symbol="b_g", bounds=NON_NEGATIVE,
    default=2, default_note="gradients in bf16, 2 bytes per parameter (ZeRO §3.1: 2Ψ)")
# Bytes of the fp32 master copy of each weight kept by mixed-precision training.
master_bytes_per_param = var(
    "master_bytes_per_param", "B/param", "bytes per fp32 master weight (0 without one)",
    symbol="b_{master}", bounds=NON_NEGATIVE, default=4,
    default_note="fp32 master weights, 4 bytes per parameter (ZeRO §3.1)")
# Bytes of Adam's first moment (momentum) per parameter; 0 for plain SGD.
adam_m_bytes_per_param = var(
    "adam_m_bytes_per_param", "B/param",
    "bytes per Adam first moment m (momentum; 0 for plain SGD)",
    symbol="b_m", bounds=NON_NEGATIVE, default=4,
    default_note="Adam momentum in fp32, 4 bytes (ZeRO §3.1)")
# Bytes of Adam's second moment (variance) per parameter; 0 for SGD with or without momentum.
adam_v_bytes_per_param = var(
    "adam_v_bytes_per_param", "B/param",
    "bytes per Adam second moment v (variance; 0 for SGD)",
    symbol="b_v", bounds=NON_NEGATIVE, default=4,
    default_note="Adam variance in fp32, 4 bytes (ZeRO §3.1)")
# Optimizer state per parameter: master weights and both moments (ZeRO's K = 12).
optimizer_bytes_per_param = var(
    "optimizer_bytes_per_param", "B/param",
    "optimizer-state bytes per parameter: fp32 master + Adam m + v (ZeRO's K; 0 for plain "
    "SGD on bf16 weights)", symbol="K", bounds=NON_NEGATIVE)
# Everything one trained parameter carries: weight, gradient, optimizer state.
state_bytes_per_param = var(
    "state_bytes_per_param", "B/param",
    "training-state bytes per parameter: weight + gradient + optimizer (16 for bf16 Adam)",
    symbol="b_{state}")
# Memory of the gradients (also the data-parallel all-reduce message).
gradient_memory = var("gradient_memory", "GB", "memory of the gradients (0 if frozen)",
                      symbol="M_g", bounds=NON_NEGATIVE)
# Memory of the optimizer state.
optimizer_memory = var("optimizer_memory", "GB",
                       "memory of the optimizer state (fp32 master weights, Adam m and v)",
                       symbol="M_{opt}", bounds=NON_NEGATIVE)
# Whole training state: weights, gradients, optimizer state (activations not included).
training_state_memory = var("training_state_memory", "GB",
                            "training state: weights + gradients + optimizer state",
                            symbol="M_{state}")
# Accelerators whose HBM the training state alone fills.
n_gpus_for_state = var("n_gpus_for_state", "GPU",
                       "accelerators whose HBM holds the training state alone (rounded up)",
                       symbol="n_{state}", rounding=("n_gpus_for_state_whole_nodes",))
# The same, as whole nodes.
n_gpus_for_state_whole_nodes = var(
    "n_gpus_for_state_whole_nodes", "GPU",
    "accelerators to hold the training state, in whole nodes", symbol="n_{state,node}")
# Training state on each GPU, nothing sharded (plain data parallelism, ZeRO stage 0).
zero0_memory_per_gpu = var(
    "zero0_memory_per_gpu", "GB",
    "training state on each GPU without sharding (DDP, ZeRO stage 0)", symbol="M_{gpu,0}")
# ZeRO stage 1: optimizer state sharded.
zero1_memory_per_gpu = var(
    "zero1_memory_per_gpu", "GB",
    "training state on each GPU, optimizer state sharded (ZeRO-1)", symbol="M_{gpu,1}")
# ZeRO stage 2: gradients and optimizer state sharded.
zero2_memory_per_gpu = var(
    "zero2_memory_per_gpu", "GB",
    "training state on each GPU, gradients and optimizer sharded (ZeRO-2)", symbol="M_{gpu,2}")
# ZeRO stage 3 / FSDP full shard: everything sharded.
zero3_memory_per_gpu = var(
    "zero3_memory_per_gpu", "GB",
    "training state on each GPU, all of it sharded (ZeRO-3, FSDP full shard)",
    symbol="M_{gpu,3}")
# One trainable matrix entry is one parameter: turns a matrix shape into a parameter count.
params_per_entry = var(
    "params_per_entry", "param", "parameters per trainable matrix entry (1)", symbol="u_p",
    default=1, default_note="each entry of a trained matrix is one parameter")
# LoRA rank r.
lora_rank = var("lora_rank", "", "LoRA rank r", symbol="r")
# Input dimension of an adapted matrix (average over the adapted matrices).
lora_d_in = var("lora_d_in", "", "input dimension of an adapted matrix (average)",
                symbol="d_{in}")
# Output dimension of an adapted matrix (average over the adapted matrices).
lora_d_out = var("lora_d_out", "", "output dimension of an adapted matrix (average)",
                 symbol="d_{out}")
# Matrices adapted in each layer (q, k, v, o: 4).
lora_target_matrices = var("lora_target_matrices", "",
                           "matrices adapted per layer (q, k, v, o: 4; all linear: 7)",
                           symbol="n_{tgt}")
# Trainable adapter parameters.
lora_params = var("lora_params", "param", "trainable LoRA adapter parameters",
                  symbol="N_{LoRA}")
# Training-state bytes per adapter parameter (the adapter trains in bf16 with Adam).
lora_state_bytes_per_param = var(
    "lora_state_bytes_per_param", "B/param",
    "training-state bytes per adapter parameter (bf16 + Adam: 16)", symbol="b_{LoRA}",
    default=16, default_note=(
        "16 B per adapter parameter: bf16 weight and gradient, fp32 master, Adam m and v "
        "(ZeRO §3.1), whatever precision the frozen weights use (QLoRA: 4-bit base)"))
# Training state of the adapter: its weights, gradients, optimizer state.
lora_adapter_memory = var("lora_adapter_memory", "GB",
                          "adapter training state (weights, gradients, optimizer)",
                          symbol="M_{adapter}")
# Frozen base weights plus the adapter's training state.
lora_memory = var("lora_memory", "GB",
                  "LoRA fine-tuning state: frozen weights + adapter training state",
                  symbol="M_{LoRA}")

# --- Formulas ------------------------------------------------------------------------------
formula("optimizer_bytes_per_param", "Optimizer state per parameter",
        Eq(optimizer_bytes_per_param,
           master_bytes_per_param + adam_m_bytes_per_param + adam_v_bytes_per_param),
        source=f"{ZERO_2020}, §3.1 (K = 12 for mixed-precision Adam)", subject=SUBJECT,
        note="fp32 master weights + Adam m + Adam v = 4 + 4 + 4")

formula("state_bytes_per_param", "Training state per parameter",
        Eq(state_bytes_per_param,
           weight_bytes_per_param + grad_bytes_per_param + optimizer_bytes_per_param),
        source=f"{ZERO_2020}, §3.1 (2Ψ + 2Ψ + KΨ = 16Ψ)", subject=SUBJECT,
        note="bf16 weights + bf16 gradients + optimizer state = 2 + 2 + 12 = 16")

formula("gradient_memory", "Gradient memory",
        Eq(gradient_memory, params_total * grad_bytes_per_param), source=DEFINITION,
        subject=SUBJECT, note="every parameter has a gradient, experts included")

formula("optimizer_memory", "Optimizer-state memory",
        Eq(optimizer_memory, params_total * optimizer_bytes_per_param),
        source=DEFINITION, subject=SUBJECT)

formula("training_state_memory", "Training state",
        Eq(training_state_memory, params_total * state_bytes_per_param),
        source=f"{ZERO_2020}, §3.1", subject=SUBJECT,
        note="weights, gradients and optimizer state; activations come on top")

formula("gpus_for_state", "GPUs to hold the training state",
        Eq(n_gpus_for_state, ceiling(training_state_memory / hbm_capacity)),
        source=DEFINITION, subject=SUBJECT, forward_only=True,
        note=("rounds up; a lower bound: activations, buffers and fragmentation need more, "
              "and the state must be sharded (ZeRO-3/FSDP, or tensor/pipeline parallel)"))

formula("gpus_for_state_whole_nodes", "GPUs to hold the training state, whole nodes",
        Eq(n_gpus_for_state_whole_nodes,
           gpus_per_node * ceiling(training_state_memory / (hbm_capacity * gpus_per_node))),
        source=DEFINITION, subject=SUBJECT, forward_only=True,
        note="rounds up to a multiple of the GPUs per node")

formula("zero0_memory_per_gpu", "Training state per GPU, no sharding",
        Eq(zero0_memory_per_gpu, training_state_memory / (tp * pp)),
        source=f"{ZERO_2020}, Fig. 1 (baseline)", subject=SUBJECT,
        note="every data-parallel replica holds the whole state of its tensor/pipeline shard")

formula("zero1_memory_per_gpu", "Training state per GPU, ZeRO-1",
        Eq(zero1_memory_per_gpu,
           (weight_memory + gradient_memory + optimizer_memory / (dp * cp)) / (tp * pp)),
        source=f"{ZERO_2020}, Fig. 1 (P_os); {DISTRIBUTED_OPTIMIZER}", subject=SUBJECT,
        note="optimizer state sharded over the data-parallel ranks")

formula("zero2_memory_per_gpu", "Training state per GPU, ZeRO-2",
        Eq(zero2_memory_per_gpu,
           (weight_memory + (gradient_memory + optimizer_memory) / (dp * cp)) / (tp * pp)),
        source=f"{ZERO_2020}, Fig. 1 (P_os+g)", subject=SUBJECT,
        note="gradients and optimizer state sharded over the data-parallel ranks")

formula("zero3_memory_per_gpu", "Training state per GPU, ZeRO-3 / FSDP",
        Eq(zero3_memory_per_gpu, training_state_memory / (tp * pp * dp * cp)),
        source=f"{ZERO_2020}, Fig. 1 (P_os+g+p); {FSDP_2023}", subject=SUBJECT,
        note=("everything sharded; gathered layers in flight add a few layers' weights on "
              "top"))

formula("lora_params", "LoRA adapter parameters",
        Eq(lora_params,
           lora_rank * (lora_d_in + lora_d_out) * lora_target_matrices * n_layers
           * params_per_entry),
        source=f"{LORA_2021}, §4.1 (A is r × d_in, B is d_out × r)", subject=SUBJECT,
        note="two low-rank factors per adapted matrix, in every layer")

formula("lora_adapter_memory", "LoRA adapter training state",
        Eq(lora_adapter_memory, lora_params * lora_state_bytes_per_param),
        source=f"{LORA_2021}; {ZERO_2020}, §3.1", subject=SUBJECT,
        note="the adapter trains like any model: weights, gradients, Adam state")

formula("lora_memory", "LoRA fine-tuning state",
        Eq(lora_memory, weight_memory + lora_adapter_memory),
        source=LORA_2021, subject=SUBJECT,
        note=("frozen weights keep no gradients or optimizer state; QLoRA stores them in 4 bits "
              "(weight_bytes_per_param = 0.5)"))
