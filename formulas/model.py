"""Model architecture variables shared by memory, activation and inference formulas.

Model records (``model="llama-3-70b"``) bind these by name. ``params`` (declared in
``training``) is the parameter count active per token, which compute follows; ``params_total``
is every parameter, which memory follows. For a dense model both are the same number.
"""

from napkinmath.library.declare import Eq, formula, var

from .sources import DEFINITION
from .training import params  # noqa: F401  (re-exported: compute follows active parameters)

SUBJECT = "model"

# Every parameter of the model, experts included (memory follows this).
params_total = var(
    "params_total",
    "param",
    "all model parameters, every expert included",
    symbol="N_{\\mathrm{total}}",
)
# Transformer layers.
n_layers = var("n_layers", "", "transformer layers", symbol="L", whole=True)
# Model (hidden) dimension.
hidden_size = var("hidden_size", "", "hidden (model) dimension", symbol="h", whole=True)
# Attention (query) heads.
n_heads = var("n_heads", "", "attention (query) heads", symbol="a", whole=True)
# Key/value heads (= n_heads for MHA, fewer for GQA, 1 for MQA).
n_kv_heads = var(
    "n_kv_heads",
    "",
    "key/value heads (GQA; 1 for MQA, n_heads for MHA)",
    symbol="a_{\\mathrm{kv}}",
    whole=True,
)
# Dimension of one attention head.
head_dim = var(
    "head_dim", "", "dimension of one attention head", symbol="d_{\\mathrm{head}}", whole=True
)
# Vocabulary size.
vocab_size = var("vocab_size", "", "vocabulary size", symbol="V", whole=True)
# Tokens in one sequence (context length).
seq_len = var("seq_len", "token/sequence", "tokens per sequence (context length)", symbol="s")
# Sequences processed together.
batch_size = var(
    "batch_size", "sequence", "sequences in a batch (micro-batch or serving batch)", symbol="b"
)
# Bytes of one stored weight: 2 for bf16/fp16, 1 for fp8/int8, 0.5 for int4.
weight_bytes_per_param = var(
    "weight_bytes_per_param",
    "B/param",
    "bytes per stored weight (bf16 2, fp8 1, int4 0.5)",
    symbol="b_w",
    default=2,
    default_note="weights in bf16, 2 bytes per parameter",
)
# Memory taken by the weights alone.
weight_memory = var("weight_memory", "GB", "memory of the model weights", symbol="M_w")

formula(
    "weight_memory",
    "Weight memory",
    Eq(weight_memory, params_total * weight_bytes_per_param),
    source=DEFINITION,
    subject=SUBJECT,
    note="memory follows every parameter, experts included",
)
