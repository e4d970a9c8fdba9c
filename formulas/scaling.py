"""Compute-optimal sizing: Chinchilla's tokens per parameter, and its fitted power laws.

    tokens_opt     = chinchilla_tokens_per_param · params_opt                 (D ≈ 20·N)
    train_compute  = flop_per_param_token · params_opt · tokens_opt           (C = 6·N·D)
    params_opt_fit = G · (C/6)^a                                               (Hoffmann eq. 4)
    tokens_opt_fit = G⁻¹ · (C/6)^b
    tokens_per_param = tokens / params                                         (a run's ratio)

The rule of thumb and the fitted laws answer the same question differently. Hoffmann et al.
(2022) estimated the compute-optimal split three ways (Table 2): Approach 1 (minimum over
training curves) a = 0.50, b = 0.50; Approach 2 (IsoFLOP profiles) a = 0.49, b = 0.51;
Approach 3 (a fitted loss L(N, D) = E + A/N^α + B/D^β) a = 0.46, b = 0.54. Only Approach 3
gives G, through its fit: G = (αA/(βB))^(1/(α+β)), a = β/(α+β), b = α/(α+β). The defaults
here are Approach 3's, computed from the fit as Besiroglu et al. (2024) transcribe it (A =
406.4, B = 410.7, α = 0.3392, β = 0.2849): a = 0.4565, b = 0.5435, G = 1.3004. For Gopher's
budget (5.76e23 FLOP) they give 40.3e9 parameters on 2.38e12 tokens, the paper's "40B" for
Approach 3; the 20-tokens rule gives 69.3e9 on 1.39e12 (Chinchilla itself: 70e9 on 1.4e12).
The exponent multiplies ln(C/6) ≈ 53, so a rounding of a by 0.005 moves N_opt by 30%: the
rounded α = 0.34, β = 0.28 give 32e9. For Approach 1 or 2 give a, b and a G of your own; for
a = b = 0.5, G = 1/√r reproduces the rule with r tokens per parameter.

The fit counts N in parameters and D in tokens: ``fit_param_unit`` and ``fit_token_unit`` (1
param, 1 token) make C/6 a plain number, as in the paper's equation.
"""

from napkinmath.library.declare import FRACTION, Eq, formula, var

from .training import flop_per_param_token, params, tokens, train_compute

SUBJECT = "scaling"

HOFFMANN = (
    "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models (Chinchilla), "
    "arXiv:2203.15556"
)
BESIROGLU_2024 = (
    "Besiroglu et al. 2024, Chinchilla Scaling: A replication attempt, arXiv:2404.10102, "
    "Table 1 (Hoffmann et al.'s Approach 3 estimates A = 406.4, B = 410.7, α = 0.3392, "
    "β = 0.2849)"
)

# --- Variables -----------------------------------------------------------------------------
# Training tokens per parameter at the compute optimum.
chinchilla_tokens_per_param = var(
    "chinchilla_tokens_per_param",
    "token/param",
    "compute-optimal training tokens per parameter (Chinchilla: about 20)",
    symbol="r",
    default=20,
    default_note=(
        "20 tokens per parameter at the compute optimum (Hoffmann et al. 2022, Table 3: 67e9 "
        "parameters on 1.5e12 tokens, Chinchilla 70e9 on 1.4e12); Approach 3 of the same paper "
        "gives more tokens per parameter, and modern runs train far past it (Llama 3 8B: 1,900)"
    ),
)
# Compute-optimal model size by the tokens-per-parameter rule.
params_opt = var(
    "params_opt",
    "param",
    "compute-optimal parameters for train_compute (tokens-per-parameter rule)",
    symbol="N_{opt}",
)
# Compute-optimal training tokens by the tokens-per-parameter rule.
tokens_opt = var(
    "tokens_opt",
    "token",
    "compute-optimal training tokens for train_compute (tokens-per-parameter rule)",
    symbol="D_{opt}",
)
# Exponent of N_opt in the compute budget.
chinchilla_a = var(
    "chinchilla_a",
    "",
    "exponent a of N_opt = G·(C/6)^a",
    symbol="a",
    bounds=FRACTION,
    default=0.4565,
    default_note=(
        "a = β/(α+β) = 0.4565 from Hoffmann et al.'s Approach 3 fit (α = 0.3392, β = 0.2849 as "
        "Besiroglu et al. 2024 transcribe it; Table 2 rounds it to 0.46); Approach 1 gives "
        "0.50, Approach 2 0.49"
    ),
)
# Exponent of D_opt in the compute budget.
chinchilla_b = var(
    "chinchilla_b",
    "",
    "exponent b of D_opt = G⁻¹·(C/6)^b",
    symbol="b",
    bounds=FRACTION,
    default=0.5435,
    default_note=(
        "b = α/(α+β) = 0.5435 from Hoffmann et al.'s Approach 3 fit (Table 2 rounds it to "
        "0.54); Approach 1 gives 0.50, Approach 2 0.51"
    ),
)
# Coefficient of the fitted laws.
chinchilla_g = var(
    "chinchilla_g",
    "",
    "coefficient G of N_opt = G·(C/6)^a",
    symbol="G",
    default=1.3004,
    default_note=(
        "G = (αA/(βB))^(1/(α+β)) = 1.3004 from Hoffmann et al.'s Approach 3 fit (A = 406.4, "
        "B = 410.7, α = 0.3392, β = 0.2849, eq. 4); Approaches 1 and 2 publish no G"
    ),
)
# One parameter: the fit's N is a plain count.
fit_param_unit = var(
    "fit_param_unit",
    "param",
    "the unit the fitted law counts parameters in (1 param)",
    symbol="u_N",
    default=1,
    default_note=("Hoffmann et al. fit N as a plain count of parameters"),
)
# One token: the fit's D is a plain count.
fit_token_unit = var(
    "fit_token_unit",
    "token",
    "the unit the fitted law counts tokens in (1 token)",
    symbol="u_D",
    default=1,
    default_note=("Hoffmann et al. fit D as a plain count of tokens"),
)
# Compute-optimal model size by the fitted law.
params_opt_fit = var(
    "params_opt_fit",
    "param",
    "compute-optimal parameters for train_compute by the fitted law G·(C/6)^a",
    symbol="N_{opt,fit}",
)
# Compute-optimal training tokens by the fitted law.
tokens_opt_fit = var(
    "tokens_opt_fit",
    "token",
    "compute-optimal tokens for train_compute by the fitted law G⁻¹·(C/6)^b",
    symbol="D_{opt,fit}",
)
# Tokens per parameter of a run.
tokens_per_param = var(
    "tokens_per_param",
    "token/param",
    "training tokens per parameter of a run (20 is Chinchilla-optimal)",
    symbol="D/N",
)

# --- Formulas ------------------------------------------------------------------------------
formula(
    "chinchilla_tokens",
    "Compute-optimal tokens per parameter",
    Eq(tokens_opt, chinchilla_tokens_per_param * params_opt),
    source=f"{HOFFMANN}, §3 and Table 3",
    subject=SUBJECT,
    note="about 20 tokens per parameter at the optimum",
)

formula(
    "chinchilla_compute",
    "Compute of a compute-optimal run",
    Eq(train_compute, flop_per_param_token * params_opt * tokens_opt),
    source=f"{HOFFMANN}, §3 (C ≈ 6ND)",
    subject=SUBJECT,
    note="with D = 20N: N_opt = √(C/120), D_opt = √(20·C/6)",
)

formula(
    "chinchilla_params_fit",
    "Compute-optimal parameters, fitted law",
    Eq(
        params_opt_fit,
        chinchilla_g
        * (train_compute / (flop_per_param_token * fit_param_unit * fit_token_unit)) ** chinchilla_a
        * fit_param_unit,
    ),
    source=f"{HOFFMANN}, §3.3 eq. 4 and Table 2; fit: {BESIROGLU_2024}",
    subject=SUBJECT,
    note="Approach 3 by default; Approaches 1 and 2 differ (Table 2)",
)

formula(
    "chinchilla_tokens_fit",
    "Compute-optimal tokens, fitted law",
    Eq(
        tokens_opt_fit,
        (train_compute / (flop_per_param_token * fit_param_unit * fit_token_unit)) ** chinchilla_b
        / chinchilla_g
        * fit_token_unit,
    ),
    source=f"{HOFFMANN}, §3.3 eq. 4 and Table 2; fit: {BESIROGLU_2024}",
    subject=SUBJECT,
    note="with a + b = 1, N_opt · D_opt = C/6 exactly",
)

formula(
    "tokens_per_param",
    "Tokens per parameter of a run",
    Eq(tokens_per_param, tokens / params),
    source="definition",
    subject=SUBJECT,
    note="against Chinchilla's 20: how far a run trains past the compute optimum",
)
