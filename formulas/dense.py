"""Dense models: every parameter is active, so the total and the active count are one number.

    params_total = params      (an assumption, used only where nothing else answers)

Memory, checkpoint and serving formulas read params_total; compute reads params (active per
token). For a dense model they are the same, so `params=70B` answers a memory question. A
mixture-of-experts model differs (Mixtral 8x7B: 46.7B total, 12.9B active): give
params_total, or a model record, which then takes precedence.
"""

from napkinmath.library.declare import Eq, formula

from .model import params_total
from .training import params

formula(
    "dense_params_total",
    "Dense model: total parameters = active parameters",
    Eq(params_total, params),
    source="definition (dense transformer)",
    subject="model",
    assumption=True,
    note="a dense model, every parameter active per token; for a mixture of experts give "
    "params_total or a model record",
)
