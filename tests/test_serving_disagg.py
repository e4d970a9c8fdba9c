"""Disaggregated serving (issue 46 §2): prefill and decode workers in pools of their own, the
KV cache moved between them, against a hand calculation of the same model.

Qwen3-32B on H200 (as tests/test_serving_step.py), 4,000-token prompts and 500 output tokens;
the layout aiconfigurator's measured search picks for it: four one-GPU prefill workers and one
four-GPU decode worker at batch 124 (docs/serving.md compares the two tools).
"""

from __future__ import annotations

import itertools

import pytest

import napkinmath as nm

P, B, LINK, ALPHA, NIC = 989.5e12, 4.8e12, 450e9, 8e-6, 50e9
N, LAYERS, HEADS, HEAD_DIM, KV_HEADS, HIDDEN, FFN = 32.8e9, 64, 64, 128, 8, 5120, 25600
KV = 2 * LAYERS * KV_HEADS * HEAD_DIM * 2
ISL, OSL = 4000, 500
#: the forecast's rates: H200's measured matmul and streaming read, the measured decode
#: weight read, NCCL's bus bandwidth
ETA_C, ETA_MEM, ETA_W, ETA_NVL = 797e12 / P, 4.32e12 / B, 0.65, 0.67
QUESTION = dict(model="qwen3-32b", gpu="H200", prompt_len=ISL, output_len=OSL)


def elementwise(tp: int) -> float:
    """Seconds per token of the element-wise kernels on one GPU of a tp group: two fused
    residual-add + RMS-norm kernels a layer (8 elements per hidden unit, every rank) and
    SwiGLU (3 per unit of the rank's MLP), bf16, at the streaming rate."""
    return LAYERS * 2 * (8 * HIDDEN + 3 * FFN / tp) / (B * ETA_MEM)


def hand(p_workers: int, p_tp: int, d_workers: int, d_tp: int, b: int, p_batch: int = 1) -> dict:
    """The disaggregated fleet by hand."""
    tokens = p_batch * ISL
    flops = (2 * N + 4 * LAYERS * HEADS * HEAD_DIM * ISL / 2) * tokens
    compute = flops / (p_tp * P * ETA_C)
    weights = 2 * N / (p_tp * B * ETA_MEM)
    comm = 0.0
    if p_tp > 1:
        ring = 2 * (p_tp - 1) / p_tp * tokens * HIDDEN * 2 / (LINK * ETA_NVL)
        comm = 2 * LAYERS * (ALPHA + ring)
    prefill = max(compute, weights) + tokens * elementwise(p_tp) + comm
    transfer = tokens * KV / (NIC * p_tp)
    context = ISL + OSL / 2
    decode_comm = 0.0
    if d_tp > 1:
        decode_comm = 2 * LAYERS * (ALPHA + 2 * (d_tp - 1) / d_tp * b * HIDDEN * 2 / LINK)
    step = (
        max(2 * N / (d_tp * B * ETA_W), 2 * N * b / (d_tp * P * ETA_C))
        + max(
            b * KV * context / (d_tp * B * ETA_MEM),
            4 * LAYERS * HEADS * HEAD_DIM * b * context / (d_tp * P * ETA_C),
        )
        + b * elementwise(d_tp)
        + decode_comm
    )
    prefill_rate = p_workers * p_batch / prefill
    decode_rate = d_workers * b / (OSL * step)
    gpus = p_workers * p_tp + d_workers * d_tp
    return {
        "prefill": prefill,
        "transfer": transfer,
        "ttft": prefill + transfer,
        "tpot": step,
        "prefill_rate": prefill_rate,
        "decode_rate": decode_rate,
        "per_gpu": min(prefill_rate, decode_rate) * OSL / gpus,
        "gpus": gpus,
    }


def fleet(p_workers: int, p_tp: int, d_workers: int, d_tp: int, b: int, **more) -> dict:
    return dict(
        prefill_workers=p_workers,
        prefill_worker_gpus=p_tp,
        decode_workers=d_workers,
        n_gpus=d_tp,
        batch_size=b,
        **QUESTION,
        **more,
    )


@pytest.mark.parametrize("layout", [(4, 1, 1, 4, 124), (2, 2, 1, 4, 68), (1, 4, 2, 2, 64)])
def test_a_disaggregated_fleet_by_hand(layout):
    targets = [
        "disagg_prefill_time",
        "disagg_kv_transfer_time",
        "disagg_ttft",
        "disagg_tpot",
        "prefill_pool_request_rate",
        "decode_pool_request_rate",
        "disagg_output_rate_per_gpu",
    ]
    r = nm.solve(targets, **fleet(*layout))
    want = hand(*layout)
    assert r["disagg_prefill_time"].m_as("s") == pytest.approx(want["prefill"])
    assert r["disagg_kv_transfer_time"].m_as("s") == pytest.approx(want["transfer"])
    assert r["disagg_ttft"].m_as("s") == pytest.approx(want["ttft"])
    assert r["disagg_tpot"].m_as("s*sequence/token") == pytest.approx(want["tpot"])
    assert r["prefill_pool_request_rate"].m_as("request/s") == pytest.approx(want["prefill_rate"])
    assert r["decode_pool_request_rate"].m_as("request/s") == pytest.approx(want["decode_rate"])
    assert r["disagg_output_rate_per_gpu"].m_as("token/(s*GPU)") == pytest.approx(want["per_gpu"])


def test_aiconfigurators_layout_in_figures():
    # one prompt on one H200: 2.79e14 FLOP at 797 TFLOP/s, 350.3 ms, and its element-wise
    # kernels, 4,000 tokens × 13.5 MB at 4.32 TB/s, 14.0 ms: 364.2 ms; its 1.05 GB of KV cache
    # over a 50 GB/s NIC, 21.0 ms; four workers prefill 10.98 requests a second, the decode
    # worker (15.04 ms a step at batch 124) completes 16.49: the prefill pool binds, 686.4
    # tokens/s per GPU (aiconfigurator's measured kernels: 540.7, docs/serving.md)
    want = hand(4, 1, 1, 4, 124)
    assert want["prefill"] == pytest.approx(364.2e-3, rel=1e-3)
    assert want["transfer"] == pytest.approx(20.97e-3, rel=1e-3)
    assert want["tpot"] == pytest.approx(15.04e-3, rel=1e-3)
    assert want["prefill_rate"] == pytest.approx(10.98, rel=1e-3)
    assert want["decode_rate"] == pytest.approx(16.49, rel=1e-3)
    assert want["per_gpu"] == pytest.approx(686.4, rel=1e-3)
    r = nm.solve("disagg_output_rate_per_gpu", **fleet(4, 1, 1, 4, 124))
    assert "prefill_pool_request_rate binds" in str(r)  # said in the derivation


def test_the_link_between_the_pools_is_an_assumption_the_user_can_replace():
    nic = nm.solve("disagg_kv_transfer_time", **fleet(4, 1, 1, 4, 124))
    assert nic.givens["scale_out_bandwidth"].origin != "given"
    assert "ASSUMPTION: each prefill GPU sends its shard of the cache over its own NIC" in str(nic)
    nvlink = nm.solve(
        "disagg_kv_transfer_time", kv_transfer_bandwidth="450 GB/s", **fleet(4, 1, 1, 4, 124)
    )
    assert nvlink.value.m_as("s") == pytest.approx(ISL * KV / 450e9)


def test_a_prefill_worker_too_small_for_the_weights_is_flagged():
    r = nm.solve(
        "disagg_prefill_time",
        prefill_worker_gpus=1,
        model="qwen3-235b-a22b",
        gpu="H200",
        prompt_len=ISL,
        output_len=OSL,
    )
    (fit,) = [c for c in r.constraints if c.constraint.name == "prefill_worker_fits_hbm"]
    assert not fit.holds
    assert "prefill_worker_gpus" in fit.constraint.message


def test_the_prefill_workers_for_a_request_rate_invert():
    r = nm.solve(
        "prefill_workers",
        prefill_pool_request_rate="20 request/s",
        prefill_worker_gpus=1,
        **QUESTION,
    )
    assert r.value.m_as("") == pytest.approx(20 * hand(1, 1, 1, 4, 124)["prefill"])


def test_the_decode_batch_for_a_tpot_limit_inverts():
    r = nm.solve("batch_size", disagg_tpot="20 ms*sequence/token", n_gpus=4, **QUESTION)
    assert hand(1, 1, 1, 4, r.value.m_as("sequence"))["tpot"] == pytest.approx(20e-3, rel=1e-6)


def test_the_optimiser_finds_the_brute_force_best():
    domains = {
        "prefill_workers": [1, 2, 3, 4],
        "prefill_worker_gpus": [1, 2],
        "decode_workers": [1, 2],
        "n_gpus": [2, 4],
        "batch_size": [32, 64, 96, 128],
    }
    o = nm.optimize(
        "disagg_output_rate_per_gpu",
        maximize=True,
        over=domains,
        require=[
            "disagg_tpot <= 30 ms*sequence/token",
            "disagg_ttft <= 2 s",
            "disagg_gpus <= 8 GPU",
        ],
        **QUESTION,
    )
    usable = 0.9 * 141e9
    fits = []
    for pw, pt, dw, dt, b in itertools.product(*domains.values()):
        want = hand(pw, pt, dw, dt, b)
        if (
            want["tpot"] <= 30e-3
            and want["ttft"] <= 2
            and want["gpus"] <= 8
            and 2 * N + b * KV * (ISL + OSL) <= usable * dt
        ):
            fits.append((round(want["per_gpu"], 9), -want["gpus"], (pw, pt, dw, dt, b)))
    rate, _, layout = max(fits)
    assert o.best is not None
    assert o.best.value.m_as("token/(s*GPU)") == pytest.approx(rate)
    point = o.best_candidate.point
    got = tuple(int(point[k]) for k in domains)
    assert hand(*got)["per_gpu"] == pytest.approx(rate)
    # three one-GPU prefill workers feed one two-GPU decode worker at batch 128: 856.4
    assert got == (3, 1, 1, 2, 128) == layout
    assert rate == pytest.approx(823.6, rel=1e-3)
