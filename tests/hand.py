"""Hand arithmetic shared by tests: a decode step of Llama 3 70B at the roofline.

Llama 3 70B: 70.6e9 parameters (bf16 weights 141.2 GB), 80 layers, 64 heads of 128, 8 KV
heads (327,680 B of bf16 KV cache per token), hidden 8,192. A step is the longer of reading
the weights and the batch's KV cache and doing b · (2N + 4·L·H·Q·s) FLOPs, plus two
all-reduces per layer on a multi-GPU replica, each 8 µs + 2(r−1)/r · b·h·2 B over the link.
"""

from __future__ import annotations

N, LAYERS, HEADS, HEAD_DIM, HIDDEN = 70.6e9, 80, 64, 128, 8192
KV_PER_TOKEN = 327_680


def llama70b_decode_step(
    peak: float,
    bandwidth: float,
    link: float,
    batch: float,
    seq: int = 8192,
    gpus: int = 4,
    bytes_per_value: int = 2,
) -> float:
    """Seconds per decode step (peak in FLOP/s, bandwidth and link in B/s, per GPU)."""
    memory = (N * bytes_per_value + batch * seq * KV_PER_TOKEN * bytes_per_value / 2) / (
        gpus * bandwidth
    )
    compute = batch * (2 * N + 4 * LAYERS * HEADS * HEAD_DIM * seq) / (gpus * peak)
    comm = 0.0
    if gpus > 1:
        comm = 2 * LAYERS * (8e-6 + 2 * (gpus - 1) / gpus * batch * HIDDEN * 2 / link)
    return max(memory, compute) + comm
