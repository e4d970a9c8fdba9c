"""FLOPs per token and per step with attention: PaLM's count, and Megatron's per-iteration count
with and without activation recomputation.

    attention_flop_per_token   = 3 · k_a · n_layers · n_heads · head_dim · seq_len    (12·L·H·Q·T)
    train_flop_per_token       = flop_per_param_token · params + attention_flop_per_token
                                                                         (PaLM: 6N + 12·L·H·Q·T)
    inference_attention_flop_per_token       = k_a · n_layers · n_heads · head_dim · seq_len
    inference_flop_per_token_with_attention  = inference_flop_per_token
                                             + inference_attention_flop_per_token  (2N + 4·L·H·Q·s)
    prefill_attention_flop_per_token         = k_a · n_layers · n_heads · head_dim · prompt_len
    prefill_flop_per_token                   = inference_flop_per_token
                                             + prefill_attention_flop_per_token  (2N + 4·L·H·Q·l_in)
    megatron_model_flops              = B·s · (6·(12·L·h² + V·h) + 12·L·h·s)
                                      = 72·B·s·L·h²·(1 + s/(6h) + V/(12·h·L))     (no recompute)
    megatron_hardware_flops_selective = 72·B·s·L·h²·(1 + s/(3h) + V/(12·h·L))   (selective)
    megatron_hardware_flops_full      = 96·B·s·L·h²·(1 + s/(6h) + V/(16·h·L))   (full recompute)

k_a = ``attention_flop_per_pair`` = 4: a query token and a key token meet in every attention
channel (n_heads · head_dim of them) twice in the forward pass, once in QKᵀ and once in the
attention-weighted sum over V, at 2 FLOP (multiply and add) each; the backward pass doubles
it again (×3 in all, as 6N is 3 × 2N). The constants are written as k_f = 2 FLOP per parameter
per token (``forward_flop_per_param_token``) and k_a = 4, so that 3·k_f·12 = 72: Megatron's
formula is PaLM's with N = 12·L·h² + V·h (a GPT layer with d_ff = 4h and the output layer)
and H·Q = h. B·s = ``global_batch_tokens``. The selective row is Korthikanti et al.'s eq. 8
as printed (its s/(3h) counts the attention scores' three passes once more; a single extra
forward pass of QKᵀ and AV would add s/(18h)); their Table 5 HFU follows from it (GPT-3 175B:
MFU 51.4%, HFU 52.8%). The full row is Narayanan et al.'s eq. 3: a second forward pass of
every layer, but not of the output layer.

The three per-iteration counts are evaluated forward only (solved for h they are cubics with
spurious roots): give the shapes, get the FLOPs. Use these where the attention term matters
(long sequences, narrow models): at s = 2048 it is 3% of GPT-3's FLOPs, at s = 131,072 on
Llama 3 8B four times the parameters' 6N.
"""

from napkinmath.library.declare import Eq, formula, var

from .inference import forward_flop_per_param_token, inference_flop_per_token, prompt_len
from .memory import params_per_entry
from .model import head_dim, hidden_size, n_heads, n_layers, seq_len, vocab_size
from .sources import KORTHIKANTI_2022
from .step_time import global_batch_tokens
from .training import flop_per_param_token, params

SUBJECT = "training"

PALM_B = (
    "Chowdhery et al. 2022, PaLM, arXiv:2204.02311, Appendix B (model FLOPs per token "
    "6N + 12·L·H·Q·T)"
)
NARAYANAN_EQ3 = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using "
    "Megatron-LM, arXiv:2104.04473, §5.1 eq. 3 and Appendix (96·B·s·l·h²·(1 + s/(6h) + "
    "V/(16·l·h)) with full activation recomputation)"
)
KORTHIKANTI_A = (
    f"{KORTHIKANTI_2022}, Appendix A eqs. 7-8 (model FLOPs 72·B·s·l·h²·(1 + s/(6h) + "
    "V/(12·h·l)); hardware FLOPs with selective recomputation 72·B·s·l·h²·(1 + s/(3h) + "
    "V/(12·h·l))) and Table 5"
)

# --- Variables -----------------------------------------------------------------------------
# Forward FLOP per query-key pair per attention channel: QKᵀ 2 + attention over V 2.
attention_flop_per_pair = var(
    "attention_flop_per_pair",
    "FLOP*sequence/token**2",
    "forward FLOP per query-key pair per attention channel (QKᵀ 2 + AV 2 = 4)",
    symbol="k_a",
    default=4,
    default_note=(
        "4 FLOP per query-key pair per attention channel in the forward pass: 2 in QKᵀ and 2 in "
        "the sum over V (PaLM Appendix B's 12·L·H·Q·T is 3 × this, forward and backward); "
        "the full T×T score matrix is counted, as PaLM and Megatron count it"
    ),
)
# Training attention FLOPs per token (forward and backward).
attention_flop_per_token = var(
    "attention_flop_per_token",
    "FLOP/token",
    "training attention FLOPs per token, forward and backward (PaLM's 12·L·H·Q·T)",
    symbol="C_{attn}",
)
# Training FLOPs per token with attention.
train_flop_per_token = var(
    "train_flop_per_token",
    "FLOP/token",
    "training FLOPs per token with attention (PaLM's 6N + 12·L·H·Q·T)",
    symbol="C_{tok,train}",
)
# Forward attention FLOPs of one token against its context.
inference_attention_flop_per_token = var(
    "inference_attention_flop_per_token",
    "FLOP/token",
    "forward attention FLOPs of one token over a context of seq_len (4·L·H·Q·s)",
    symbol="C_{attn,fwd}",
)
# Forward FLOPs per token with attention.
inference_flop_per_token_with_attention = var(
    "inference_flop_per_token_with_attention",
    "FLOP/token",
    "forward FLOPs per token with attention over the context (2N + 4·L·H·Q·s)",
    symbol="C_{tok,fwd}",
)
# Forward attention FLOPs of one prompt token against its prompt.
prefill_attention_flop_per_token = var(
    "prefill_attention_flop_per_token",
    "FLOP/token",
    "forward attention FLOPs of one prompt token over its prompt of prompt_len (4·L·H·Q·l_in)",
    symbol="C_{attn,pre}",
)
# Forward FLOPs per prompt token with attention.
prefill_flop_per_token = var(
    "prefill_flop_per_token",
    "FLOP/token",
    "forward FLOPs per prompt token with attention over the prompt (2N + 4·L·H·Q·l_in)",
    symbol="C_{tok,pre}",
)
# Megatron's model FLOPs of one iteration.
megatron_model_flops = var(
    "megatron_model_flops",
    "FLOP",
    "model FLOPs of one iteration, Megatron's count (72·B·s·L·h²·(1 + s/(6h) + V/(12hL)))",
    symbol="F_{model}",
)
# Megatron's hardware FLOPs of one iteration with selective recomputation.
megatron_hardware_flops_selective = var(
    "megatron_hardware_flops_selective",
    "FLOP",
    "hardware FLOPs of one iteration with selective recomputation (Korthikanti eq. 8)",
    symbol="F_{hw,sel}",
)
# Megatron's hardware FLOPs of one iteration with full recomputation.
megatron_hardware_flops_full = var(
    "megatron_hardware_flops_full",
    "FLOP",
    "hardware FLOPs of one iteration with full recomputation (Narayanan eq. 3)",
    symbol="F_{hw,full}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "attention_flop_per_token",
    "Training attention FLOPs per token",
    Eq(
        attention_flop_per_token,
        3 * attention_flop_per_pair * n_layers * n_heads * head_dim * seq_len,
    ),
    source=PALM_B,
    subject=SUBJECT,
    note="QKᵀ and AV over the full sequence, forward and backward: 12·L·H·Q·T",
)

formula(
    "train_flop_per_token",
    "Training FLOPs per token with attention",
    Eq(train_flop_per_token, flop_per_param_token * params + attention_flop_per_token),
    source=PALM_B,
    subject=SUBJECT,
    note="the count PaLM's MFU uses; the 6ND rule leaves the attention term out",
)

formula(
    "inference_attention_flop_per_token",
    "Forward attention FLOPs per token",
    Eq(
        inference_attention_flop_per_token,
        attention_flop_per_pair * n_layers * n_heads * head_dim * seq_len,
    ),
    source=f"{PALM_B} (its forward third)",
    subject="inference",
    note=(
        "a generated token attends to seq_len cached positions: 4·L·H·Q·s (a prompt's "
        "tokens attend over the prompt: prefill_attention_flop_per_token)"
    ),
)

formula(
    "inference_flop_per_token_with_attention",
    "Forward FLOPs per token with attention",
    Eq(
        inference_flop_per_token_with_attention,
        inference_flop_per_token + inference_attention_flop_per_token,
    ),
    source=f"{PALM_B} (its forward third)",
    subject="inference",
    note="2N for the weights plus the attention over the context",
)

formula(
    "prefill_attention_flop_per_token",
    "Forward attention FLOPs per prompt token",
    Eq(
        prefill_attention_flop_per_token,
        attention_flop_per_pair * n_layers * n_heads * head_dim * prompt_len,
    ),
    source=f"{PALM_B} (its forward third)",
    subject="inference",
    note=(
        "a prompt token meets every token of its prompt: 4·L·H·Q·l_in, the full square as "
        "PaLM counts it (causal kernels skip the masked half, so this is the larger figure)"
    ),
)

formula(
    "prefill_flop_per_token",
    "Forward FLOPs per prompt token with attention",
    Eq(prefill_flop_per_token, inference_flop_per_token + prefill_attention_flop_per_token),
    source=f"{PALM_B} (its forward third)",
    subject="inference",
    note="2N for the weights plus the attention over the prompt",
)

formula(
    "megatron_model_flops",
    "Model FLOPs per iteration (Megatron)",
    Eq(
        megatron_model_flops,
        global_batch_tokens
        * (
            3
            * forward_flop_per_param_token
            * params_per_entry
            * (12 * n_layers * hidden_size**2 + vocab_size * hidden_size)
            + 3 * attention_flop_per_pair * n_layers * hidden_size * seq_len
        ),
    ),
    source=KORTHIKANTI_A,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "a GPT layer (MHA, d_ff = 4h) and the output layer, forward and backward; with "
        "the defaults 72·B·s·L·h²·(1 + s/(6h) + V/(12·h·L))"
    ),
)

formula(
    "megatron_hardware_flops_selective",
    "Hardware FLOPs per iteration, selective recomputation",
    Eq(
        megatron_hardware_flops_selective,
        global_batch_tokens
        * (
            3
            * forward_flop_per_param_token
            * params_per_entry
            * (12 * n_layers * hidden_size**2 + vocab_size * hidden_size)
            + 6 * attention_flop_per_pair * n_layers * hidden_size * seq_len
        ),
    ),
    source=KORTHIKANTI_A,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "eq. 8 as printed: the s/(6h) attention term doubles to s/(3h); "
        "72·B·s·L·h²·(1 + s/(3h) + V/(12·h·L)) with the defaults"
    ),
)

formula(
    "megatron_hardware_flops_full",
    "Hardware FLOPs per iteration, full recomputation",
    Eq(
        megatron_hardware_flops_full,
        global_batch_tokens
        * (
            4 * forward_flop_per_param_token * params_per_entry * 12 * n_layers * hidden_size**2
            + 3 * forward_flop_per_param_token * params_per_entry * vocab_size * hidden_size
            + 4 * attention_flop_per_pair * n_layers * hidden_size * seq_len
        ),
    ),
    source=NARAYANAN_EQ3,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "every layer runs forward twice (4 passes in all), the output layer once: "
        "96·B·s·L·h²·(1 + s/(6h) + V/(16·h·L)) with the defaults"
    ),
)
