"""The names practitioners type for library variables (TTFT, TPOT, QPS, RPO, ...).

An unknown name that is one of these (in any case) is answered with the variables it means,
first the closest; `lookup.variable` puts them in its "did you mean" message. The table is
kept by hand: each entry is the abbreviation or everyday word as used in serving, training
and operations writing (the variables' own descriptions quote most of them, e.g. "time to
first token (TTFT)"), and a test checks that every variable named here exists.
"""

from __future__ import annotations

from collections.abc import Container

#: a practitioner's word, as written -> the library variables it names, the usual one first
ALIASES: dict[str, tuple[str, ...]] = {
    # serving latency and throughput
    "TTFT": ("time_to_first_token",),
    "TPOT": ("time_per_output_token",),
    "ITL": ("time_per_output_token",),
    "inter_token_latency": ("time_per_output_token",),
    "E2E_latency": ("time_in_system", "generation_time"),
    "latency": ("time_in_system", "time_to_first_token", "time_per_output_token"),
    "TPS": ("decode_throughput", "decode_speed", "train_throughput"),
    "tokens_per_second": ("decode_throughput", "decode_speed", "train_throughput"),
    "throughput": ("decode_throughput", "train_throughput"),
    "QPS": ("arrival_rate", "peak_request_rate", "gpu_request_capacity"),
    "RPS": ("arrival_rate", "peak_request_rate", "gpu_request_capacity"),
    "lambda": ("arrival_rate",),
    "WQ": ("time_in_queue",),
    "KV": ("kv_cache_memory", "kv_bytes_per_token"),
    "kv_cache": ("kv_cache_memory", "kv_bytes_per_token"),
    "kvcache": ("kv_cache_memory", "kv_bytes_per_token"),
    "weights": ("weight_memory",),
    # utilisation
    "MBU": ("mbu",),
    "HFU": ("hfu",),
    "MFU": ("mfu",),
    "MAMF": ("achievable_flops",),
    # training
    "FLOPS": ("train_compute", "peak_flops", "achieved_flops"),
    "TFLOPS": ("peak_flops", "achieved_flops"),
    "compute": ("train_compute",),
    "gpus": ("n_gpus",),
    "num_gpus": ("n_gpus",),
    "world_size": ("n_gpus",),
    "layers": ("n_layers",),
    "heads": ("n_heads",),
    "kv_heads": ("n_kv_heads",),
    "hidden": ("hidden_size",),
    "d_model": ("hidden_size",),
    "d_ff": ("ffn_size",),
    "vocab": ("vocab_size",),
    "context": ("seq_len",),
    "context_length": ("seq_len",),
    "ctx": ("seq_len",),
    "batch": ("batch_size", "global_batch"),
    "GBS": ("global_batch",),
    "MBS": ("batch_size",),
    "training_time": ("train_time",),
    "wall_clock": ("train_time",),
    # hardware
    "HBM": ("hbm_capacity", "hbm_bandwidth"),
    "VRAM": ("hbm_capacity",),
    "gpu_memory": ("hbm_capacity",),
    "bandwidth": ("hbm_bandwidth", "link_bandwidth"),
    "BW": ("hbm_bandwidth", "link_bandwidth"),
    # operations and cost
    "PUE": ("pue",),
    "RPO": ("recovery_point",),
    "RTO": ("recovery_time",),
    "MTTF": ("mtbf",),
    "MTBF": ("mtbf",),
    "TCO": ("train_cost", "energy_cost"),
    "cost": ("train_cost", "cost_per_million_tokens"),
    "price": ("price_per_gpu_hour",),
    "gpu_hour_price": ("price_per_gpu_hour",),
}


_BY_LOWER = {word.lower(): word for word in ALIASES}


def meant(name: str, known: Container[str]) -> tuple[str, list[str]]:
    """The word `name` is (as practitioners write it) and the variables it names, those in
    `known` only; ("", []) when it is none of them."""
    word = _BY_LOWER.get(name.lower().replace("-", "_"), "")
    return word, [v for v in ALIASES.get(word, ()) if v in known]
