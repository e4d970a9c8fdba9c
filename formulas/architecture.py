"""Parameters from the architecture: a decoder's count from its config, and MoE totals and
actives from the expert shapes.

    embedding_params           = embedding_matrices · vocab_size · hidden_size   (2 untied, 1 tied)
    attention_params_per_layer = 2 · hidden_size · n_heads · head_dim            (q and o)
                               + 2 · hidden_size · n_kv_heads · head_dim         (k and v, GQA)
    mlp_params_per_layer       = mlp_matrices · hidden_size · ffn_size          (SwiGLU 3, plain 2)
    norm_params                = (2 · n_layers + 1) · hidden_size               (RMSNorm weights)
    params_total               = embedding_params
                               + n_layers · (attention_params_per_layer + mlp_params_per_layer)
                               + norm_params                                 (dense decoder)
    params_12lh2               = 12 · n_layers · hidden_size²                (Kaplan et al. 2020)
    expert_params_config       = n_moe_layers · mlp_matrices · hidden_size · moe_ffn_size
    router_params              = n_moe_layers · n_experts · hidden_size
    shared_params_config       = embedding_params + n_layers · attention_params_per_layer
                               + norm_params + router_params                  (routed-only MoE)
    params_total               = shared_params_config + n_experts · expert_params_config
    params                     = shared_params_config + experts_per_token · expert_params_config

Every count is in parameters: a matrix of d_in × d_out entries holds d_in · d_out params
(``params_per_entry`` = 1 param turns the shape into a count). An MoE's total and active
counts from its config are ``moe``'s two sums again, over the expert and shared parts counted
from the shapes (``expert_params_config``, ``shared_params_config``); ``expert_params`` and
``shared_params`` stay what the published total and active counts imply, so a record answers
both ways (Mixtral: 5.637e9 per expert from the shapes, 5.633e9 from the rounded 46.7B and
12.9B). Biases are left out (Llama, Mistral and Qwen3 have none), as are Qwen3's per-head
q/k norms (2 · head_dim per layer, 24k parameters in 235B) and GPT-style learned position
embeddings (seq_len · hidden_size). Reproduced from config.json alone: Llama 3 8B 8,030,261,248;
70B 70,553,706,496; 405B 405,853,388,800; Mixtral 8x7B 46,702,792,704 total and 12,879,925,248
active; Qwen3-235B-A22B 235.09e9 total and 22.19e9 active. The sums are evaluated forward
only: a published total is rounded (70.6e9), and solved back for a small part (the norms,
1.3e6) it would give nonsense.
"""

from napkinmath.library.declare import Eq, formula, var

from .memory import params_per_entry
from .model import head_dim, hidden_size, n_heads, n_kv_heads, n_layers, params_total, vocab_size
from .moe import FEDUS_2022, SHAZEER_2017, experts_per_token, n_experts
from .training import params

SUBJECT = "model"

KAPLAN_2020 = (
    "Kaplan et al. 2020, Scaling Laws for Neural Language Models, arXiv:2001.08361, §2.1 and "
    "Table 1 (N ≈ 2·d_model·n_layer·(2·d_attn + d_ff) = 12·n_layer·d_model², embeddings "
    "excluded)"
)
VASWANI_2017 = "Vaswani et al. 2017, Attention Is All You Need, arXiv:1706.03762, §3.2-3.3"
AINSLIE_2023 = (
    "Ainslie et al. 2023, GQA, arXiv:2305.13245, §2 (key and value projections for "
    "n_kv_heads heads only)"
)
SHAZEER_2020 = (
    "Shazeer 2020, GLU Variants Improve Transformer, arXiv:2002.05202, §2 (FFN_SwiGLU has three "
    "weight matrices W, V, W2)"
)
HF_LLAMA = (
    "Hugging Face transformers LlamaForCausalLM (modeling_llama.py): embed_tokens V×h, per layer "
    "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj and two RMSNorm weights, a "
    "final norm, lm_head h×V unless tie_word_embeddings"
)
HF_MOE = (
    "Hugging Face transformers MixtralForCausalLM and Qwen3MoeForCausalLM (modeling_mixtral.py, "
    "modeling_qwen3_moe.py): per MoE layer a router (gate) h×E and E experts of gate, up and "
    "down projections h×moe_intermediate_size"
)

# --- Variables -----------------------------------------------------------------------------
# Vocabulary-by-hidden matrices: the input embedding, and the output head unless it is tied.
embedding_matrices = var(
    "embedding_matrices",
    "",
    "vocab × hidden matrices: 2 (input embedding and output head), "
    "1 when tied (tie_word_embeddings)",
    symbol="n_{emb}",
    default=2,
    default_note=(
        "input embedding and output head are separate matrices (tie_word_embeddings = false, "
        "as in Llama 3 8B/70B/405B, Mixtral and Qwen3-235B); 1 for tied models (GPT-2, Llama "
        "3.2 1B/3B, Gemma)"
    ),
    whole=True,
)
# Weight matrices of the MLP: 3 for a gated MLP (SwiGLU: gate, up, down), 2 for a plain one.
mlp_matrices = var(
    "mlp_matrices",
    "",
    "weight matrices of an MLP block: 3 gated (SwiGLU: gate, up, down), 2 plain (up, down)",
    symbol="n_{mlp}",
    default=3,
    default_note=(
        "a gated (SwiGLU) MLP with three matrices, as in Llama, Mistral, Mixtral and Qwen "
        "(Shazeer 2020); GPT-2/GPT-3 use a plain two-matrix MLP"
    ),
    whole=True,
)
# Inner width of a dense MLP block (config.json intermediate_size).
ffn_size = var(
    "ffn_size",
    "",
    "inner width of a dense MLP block (intermediate_size, d_ff)",
    symbol="d_{ff}",
    whole=True,
)
# Inner width of one routed expert (config.json moe_intermediate_size; Mixtral intermediate_size).
moe_ffn_size = var(
    "moe_ffn_size",
    "",
    "inner width of one routed expert's MLP (moe_intermediate_size)",
    symbol="d_{ff,E}",
    whole=True,
)
# Layers whose MLP is a mixture of experts.
n_moe_layers = var(
    "n_moe_layers", "", "layers whose MLP is a mixture of experts", symbol="L_{MoE}", whole=True
)
# Parameters of the vocabulary matrices (input embedding, and output head unless tied).
embedding_params = var(
    "embedding_params",
    "param",
    "parameters of the input embedding and the output head",
    symbol="N_{emb}",
)
# Parameters of one attention block: q and o over every query head, k and v over the KV heads.
attention_params_per_layer = var(
    "attention_params_per_layer",
    "param",
    "parameters of one attention block (q, k, v, o projections)",
    symbol="N_{attn}",
)
# Parameters of one dense MLP block.
mlp_params_per_layer = var(
    "mlp_params_per_layer", "param", "parameters of one dense MLP block", symbol="N_{mlp}"
)
# Normalisation weights: two per layer and a final one, each a vector of hidden_size.
norm_params = var(
    "norm_params",
    "param",
    "normalisation weights: two per layer and the final norm",
    symbol="N_{norm}",
)
# One routed expert's parameters, counted from its shapes over every MoE layer.
expert_params_config = var(
    "expert_params_config",
    "param",
    "parameters of one routed expert over the MoE layers, from the config",
    symbol="N_{E,cfg}",
)
# Parameters every token uses, counted from the config (routed-only MoE).
shared_params_config = var(
    "shared_params_config",
    "param",
    "parameters every token uses, from the config: embeddings, attention, norms, router",
    symbol="N_{shared,cfg}",
)
# The MoE router (gate) of every MoE layer.
router_params = var(
    "router_params", "param", "router (gate) weights of the MoE layers", symbol="N_{router}"
)
# Kaplan's estimate of the non-embedding parameters: 12 · n_layers · hidden_size².
params_12lh2 = var(
    "params_12lh2",
    "param",
    "Kaplan's 12·n_layers·hidden_size² estimate of the non-embedding parameters (MHA, d_ff = 4h)",
    symbol="N_{12Lh^2}",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "embedding_params",
    "Embedding and output-head parameters",
    Eq(embedding_params, embedding_matrices * vocab_size * hidden_size * params_per_entry),
    source=f"{VASWANI_2017}, §3.4; {HF_LLAMA}",
    subject=SUBJECT,
    note="tied embeddings share one V×h matrix between the input and the output head",
)

formula(
    "attention_params_per_layer",
    "Attention parameters per layer (MHA, GQA, MQA)",
    Eq(
        attention_params_per_layer,
        2 * hidden_size * head_dim * (n_heads + n_kv_heads) * params_per_entry,
    ),
    source=f"{VASWANI_2017}; {AINSLIE_2023}; {HF_LLAMA}",
    subject=SUBJECT,
    note=(
        "q and o are h × n_heads·head_dim each; k and v are h × n_kv_heads·head_dim each; "
        "MHA (n_kv_heads = n_heads, head_dim = h/n_heads) gives Kaplan's 4h²"
    ),
)

formula(
    "mlp_params_per_layer",
    "Dense MLP parameters per layer",
    Eq(mlp_params_per_layer, mlp_matrices * hidden_size * ffn_size * params_per_entry),
    source=f"{SHAZEER_2020}; {VASWANI_2017}, §3.3",
    subject=SUBJECT,
    note="SwiGLU: gate and up h × d_ff, down d_ff × h; plain MLP (d_ff = 4h): Kaplan's 8h²",
)

formula(
    "norm_params",
    "Normalisation parameters",
    Eq(norm_params, (2 * n_layers + 1) * hidden_size * params_per_entry),
    source=HF_LLAMA,
    subject=SUBJECT,
    note="RMSNorm weights; LayerNorm adds a bias of the same size (GPT-3: twice this)",
)

formula(
    "dense_params_from_config",
    "Dense decoder parameters from its config",
    Eq(
        params_total,
        embedding_params
        + n_layers * (attention_params_per_layer + mlp_params_per_layer)
        + norm_params,
    ),
    source=f"{HF_LLAMA}; reproduces Meta's 8.03B, 70.6B and 405.9B from config.json",
    subject=SUBJECT,
    forward_only=True,
    note=(
        "dense decoders only (every layer has the dense MLP); a mixture of experts "
        "counts its MLPs through expert_params and shared_params instead"
    ),
)

formula(
    "params_12lh2",
    "Kaplan's 12·L·h² parameter estimate",
    Eq(params_12lh2, 12 * n_layers * hidden_size**2 * params_per_entry),
    source=KAPLAN_2020,
    subject=SUBJECT,
    note=(
        "4h² attention + 8h² MLP per layer for MHA with d_ff = 4h, no embeddings; GQA and "
        "SwiGLU with d_ff ≈ 3.5h move it (Llama 3 70B: 64.4e9 against 70.6e9)"
    ),
)

formula(
    "expert_params_config",
    "Parameters of one routed expert from its shapes",
    Eq(
        expert_params_config,
        n_moe_layers * mlp_matrices * hidden_size * moe_ffn_size * params_per_entry,
    ),
    source=HF_MOE,
    subject=SUBJECT,
    note="a gated expert: gate, up and down projections of moe_ffn_size in every MoE layer",
)

formula(
    "router_params",
    "MoE router parameters",
    Eq(router_params, n_moe_layers * n_experts * hidden_size * params_per_entry),
    source=HF_MOE,
    subject=SUBJECT,
    note="one h × E gate per MoE layer",
)

formula(
    "shared_params_config",
    "Parameters every token uses, from the config",
    Eq(
        shared_params_config,
        embedding_params + n_layers * attention_params_per_layer + norm_params + router_params,
    ),
    source=HF_MOE,
    subject=SUBJECT,
    forward_only=True,
    note=(
        "every layer MoE and no shared expert (Mixtral, Qwen3); DeepSeek-V3's dense "
        "first layers, shared expert and MLA attention are not counted here"
    ),
)

formula(
    "moe_total_from_config",
    "MoE parameters, all experts, from the config",
    Eq(params_total, shared_params_config + n_experts * expert_params_config),
    source=f"{SHAZEER_2017}; {HF_MOE}; reproduces Mixtral 8x7B's 46.7B and Qwen3-235B-A22B's 235B",
    subject=SUBJECT,
    forward_only=True,
    note="memory follows this count",
)

formula(
    "moe_active_from_config",
    "MoE parameters active per token, from the config",
    Eq(params, shared_params_config + experts_per_token * expert_params_config),
    source=f"{FEDUS_2022}; {HF_MOE}; reproduces Mixtral 8x7B's 12.9B and Qwen3-235B-A22B's 22B",
    subject=SUBJECT,
    forward_only=True,
    note="compute follows this count",
)
