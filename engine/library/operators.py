"""The operators of one transformer layer as plain arithmetic over named inputs.

Each `Operator` gives its FLOPs and HBM bytes per micro-batch on one GPU, forward, backward
and recompute together, as a function of a mapping from the names in `INPUTS` to values: the
library's sympy symbols, where `napkinmath.formulas.operators` declares `layer_memory_traffic`
as their sum, or base-unit floats, where `napkinmath.solving.layer_table` prints an answer's
per-layer table. One definition serves both, so the table cannot drift from the formula. The
counts, their sources and their assumptions are in `napkinmath.formulas.operators`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: the names an operator reads; `OPERATORS` evaluate over a mapping of them to the library's
#: symbols (the formulas below) or to base-unit floats (an answer's per-layer table)
INPUTS = (
    "activation_bytes_per_element",
    "attention_flop_per_pair",
    "batch_size",
    "cp",
    "forward_flop_per_param_token",
    "head_dim",
    "hidden_size",
    "mlp_active_width",
    "mlp_matrices",
    "n_heads",
    "n_kv_heads",
    "params_per_entry",
    "recomputed_layer_fraction",
    "residual_traffic_bytes",
    "score_traffic_backward",
    "score_traffic_forward",
    "selective_recompute",
    "seq_len",
    "sp",
    "tp",
    "weight_grad_accumulate_bytes",
)
Values = Mapping[str, Any]  # sympy symbols or floats, by name


@dataclass(frozen=True)
class Operator:
    """One operator of a layer: its FLOPs and HBM bytes per micro-batch on one GPU, forward,
    backward and recompute together, and the roof it runs on ("matmul" or "memory"); a
    matmul's bytes are what its epilogues write after the main loop."""

    name: str
    roof: str
    flops: Callable[[Values], Any]
    bytes: Callable[[Values], Any]
    note: str


def _tokens(x: Values) -> Any:
    """b·s/c tokens of a micro-batch on one GPU."""
    return x["batch_size"] * x["seq_len"] / x["cp"]


def _pairs(x: Values) -> Any:
    """b·s²/c query-key pairs per attention channel on one GPU."""
    return x["batch_size"] * x["seq_len"] ** 2 / x["cp"]


def _scores_recomputed(x: Values) -> Any:
    """Share of layers that recompute the attention scores: full, or selective."""
    f = x["recomputed_layer_fraction"]
    return f + x["selective_recompute"] * (1 - f)


def _weights(inputs: Any, outputs: Any, x: Values) -> Any:
    """FLOPs of a weight matmul from `inputs` to `outputs` features on one rank: forward,
    the two backward products (input and weight gradients), and a full recompute's forward;
    2 FLOP per weight and token."""
    per_token = x["forward_flop_per_param_token"] * x["params_per_entry"]
    return per_token * _tokens(x) * inputs * outputs * (3 + x["recomputed_layer_fraction"])


def _epilogue(inputs: Any, outputs: Any, x: Values) -> Any:
    """HBM bytes a weight matmul's epilogues write after their main loops: the forward's
    output (again in a full recompute), the input gradient, and the weight gradient
    accumulated in fp32 (read and written)."""
    again = 1 + x["recomputed_layer_fraction"]
    activations = _tokens(x) * x["activation_bytes_per_element"] * (outputs * again + inputs)
    return (
        activations + x["weight_grad_accumulate_bytes"] * x["params_per_entry"] * inputs * outputs
    )


def _qkv(x: Values) -> Any:
    """Query, key and value features per rank."""
    return (x["n_heads"] + 2 * x["n_kv_heads"]) * x["head_dim"] / x["tp"]


def _heads(x: Values) -> Any:
    """The attention's output features per rank."""
    return x["n_heads"] * x["head_dim"] / x["tp"]


def _up(x: Values) -> Any:
    """The MLP's up (and gate) features per rank."""
    return (x["mlp_matrices"] - 1) * x["mlp_active_width"] / x["tp"]


def _inner(x: Values) -> Any:
    """The MLP's inner width per rank."""
    return x["mlp_active_width"] / x["tp"]


def _none(x: Values) -> Any:
    return 0


OPERATORS = (
    Operator(
        "QKV projection",
        "matmul",
        lambda x: _weights(x["hidden_size"], _qkv(x), x),
        lambda x: _epilogue(x["hidden_size"], _qkv(x), x),
        "queries, keys and values from the normed input",
    ),
    Operator(
        "attention scores and weighted values",
        "matmul",
        lambda x: (
            x["attention_flop_per_pair"] * _heads(x) * _pairs(x) * (3 + _scores_recomputed(x))
        ),
        _none,
        "QKᵀ and the product with V, 2 FLOP per pair and channel each",
    ),
    Operator(
        "output projection",
        "matmul",
        lambda x: _weights(_heads(x), x["hidden_size"], x),
        lambda x: _epilogue(_heads(x), x["hidden_size"], x),
        "the heads back to the hidden width (partial sums, reduced across tp)",
    ),
    Operator(
        "MLP up",
        "matmul",
        lambda x: _weights(x["hidden_size"], _up(x), x),
        lambda x: _epilogue(x["hidden_size"], _up(x), x),
        "up (and gate) projection to the inner width",
    ),
    Operator(
        "MLP down",
        "matmul",
        lambda x: _weights(_inner(x), x["hidden_size"], x),
        lambda x: _epilogue(_inner(x), x["hidden_size"], x),
        "down projection back to the hidden width (partial sums, reduced across tp)",
    ),
    Operator(
        "norms, residual adds, dropout",
        "memory",
        _none,
        lambda x: (
            _tokens(x)
            * x["hidden_size"]
            * x["residual_traffic_bytes"]
            * (1 + x["recomputed_layer_fraction"] / 2)
            / x["sp"]
        ),
        "two layer norms and two bias-dropout-residual adds on the residual stream",
    ),
    Operator(
        "MLP activation",
        "memory",
        _none,
        lambda x: (
            _tokens(x)
            * _inner(x)
            * x["activation_bytes_per_element"]
            * (3 * x["mlp_matrices"] - 1 + x["recomputed_layer_fraction"] * x["mlp_matrices"])
        ),
        "bias-GeLU (or SwiGLU) on the MLP's inner width",
    ),
    Operator(
        "softmax, dropout, scores in HBM",
        "memory",
        _none,
        lambda x: (
            _pairs(x)
            * x["n_heads"]
            / x["tp"]
            * (
                x["score_traffic_forward"] * (1 + _scores_recomputed(x))
                + x["score_traffic_backward"]
            )
        ),
        "the score matrix written, normalised, dropped out and read (none with FlashAttention)",
    ),
)
