"""Mixture of experts: memory follows every parameter, compute follows the active ones.

    params_total          = shared_params + n_experts · expert_params
    params                = shared_params + experts_per_token · expert_params    (active)
    active_param_fraction = params / params_total
    experts_per_rank      = n_experts / ep

The rest of the library already splits the two counts: ``weight_memory``,
``training_state_memory`` and ``checkpoint_size`` follow ``params_total``; the 6ND rule, the
fleet equation and ``inference_flop_per_token`` (2 · params) follow ``params``. A 235B-total,
22B-active model serves 470 GB of bf16 weights but costs 2 × 22e9 FLOP per generated token.
"""

from napkinmath.library.declare import FRACTION, Eq, constraint, formula, var

from .model import params_total
from .parallelism import ep
from .sources import DEFINITION
from .training import params

SUBJECT = "moe"

SHAZEER_2017 = (
    "Shazeer et al. 2017, Outrageously Large Neural Networks: The Sparsely-Gated "
    "Mixture-of-Experts Layer, arXiv:1701.06538"
)
FEDUS_2022 = "Fedus, Zoph, Shazeer 2022, Switch Transformers, arXiv:2101.03961, §2"
LEPIKHIN_2020 = (
    "Lepikhin et al. 2020, GShard, arXiv:2006.16668, §2.2 (experts sharded over devices)"
)

# --- Variables -----------------------------------------------------------------------------
# Routed experts in each MoE layer.
n_experts = var("n_experts", "", "routed experts per MoE layer", symbol="E", whole=True)
# Experts each token is routed to (top-k).
experts_per_token = var(
    "experts_per_token", "", "routed experts each token uses (top-k)", symbol="k_{E}", whole=True
)
# Parameters of one routed expert, summed over the MoE layers.
expert_params = var(
    "expert_params",
    "param",
    "parameters of one routed expert, summed over the layers",
    symbol="N_E",
)
# Parameters every token uses: attention, embeddings, dense and shared-expert layers.
shared_params = var(
    "shared_params",
    "param",
    "parameters every token uses (attention, embeddings, shared experts)",
    symbol="N_{shared}",
)
# Share of the parameters a token uses.
active_param_fraction = var(
    "active_param_fraction",
    "",
    "active parameters over all parameters",
    symbol="\\rho",
    bounds=FRACTION,
)
# Routed experts each expert-parallel rank holds.
experts_per_rank = var(
    "experts_per_rank",
    "",
    "routed experts held by each expert-parallel rank",
    symbol="E_{rank}",
    whole=True,
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "moe_total_params",
    "MoE parameters, all experts",
    Eq(params_total, shared_params + n_experts * expert_params),
    source=SHAZEER_2017,
    subject=SUBJECT,
    note="memory (weights, training state, checkpoints) follows this count",
)

formula(
    "moe_active_params",
    "MoE parameters active per token",
    Eq(params, shared_params + experts_per_token * expert_params),
    source=FEDUS_2022,
    subject=SUBJECT,
    note="compute (6ND, 2N per generated token) follows this count",
)

formula(
    "active_param_fraction",
    "Active share of the parameters",
    Eq(active_param_fraction, params / params_total),
    source=DEFINITION,
    subject=SUBJECT,
    note="1 for a dense model",
)

formula(
    "experts_per_rank",
    "Experts per expert-parallel rank",
    Eq(experts_per_rank, n_experts / ep),
    source=LEPIKHIN_2020,
    subject=SUBJECT,
    note="ep should divide n_experts; each rank keeps its experts' weights and state",
)

constraint(
    "experts_per_token_within_experts",
    "A token is routed to at most the experts a layer has",
    experts_per_token,
    n_experts,
    source=SHAZEER_2017,
    subject=SUBJECT,
    touch=(experts_per_token,),
    refuse=True,
    message="experts_per_token, the experts each token is routed to (top-k), must be at most "
    "n_experts, the routed experts of a layer: check the two (Mixtral 8x7B: 2 of 8; "
    "Qwen3-235B-A22B: 8 of 128)",
)
