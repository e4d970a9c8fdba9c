"""Aggregated serving (issue 46 §2, §3): a busy replica's mixed and decode-only steps, TPOT,
TTFT, requests and tokens per GPU, against a hand calculation of the same model.

Qwen3-32B (32.8e9 parameters, 64 layers, 64 heads of 128, 8 KV heads, hidden 5,120; bf16:
262,144 KV bytes a token) on H200 (989.5 TFLOP/s dense BF16, 4.8 TB/s, NVLink 450 GB/s one
way), 4,000-token prompts and 500 output tokens: the question aiconfigurator's README example
asks (docs/serving.md compares the two tools). By default a forecast, each kernel group at
the rate it reaches: H200's measured matmul rate (797 of 989.5 TFLOP/s) and streaming read
(4.32 of 4.8 TB/s, for the KV cache), the measured decode weight read (65% of 4.8 TB/s), and
NCCL's bus bandwidth (67% of NVLink); with every efficiency at 1, the speed of light.
"""

from __future__ import annotations

import json
import math
import sys

import pytest

import napkinmath as nm

P, B, LINK, ALPHA = 989.5e12, 4.8e12, 450e9, 8e-6
N, LAYERS, HEADS, HEAD_DIM, KV_HEADS, HIDDEN, FFN = 32.8e9, 64, 64, 128, 8, 5120, 25600
KV = 2 * LAYERS * KV_HEADS * HEAD_DIM * 2
ISL, OSL = 4000, 500
QUESTION = dict(model="qwen3-32b", gpu="H200", prompt_len=ISL, output_len=OSL)
#: (compute, KV read, weight read, NCCL) shares of the datasheet rates: the forecast's
FORECAST = (797e12 / P, 4.32e12 / B, 0.65, 0.67)
LIGHT = (1.0, 1.0, 1.0, 1.0)


def _compare_tool():
    """tools/compare_aiconfigurator.py, whose config.json files the comparison writes."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "tools" / "compare_aiconfigurator.py"
    spec = importlib.util.spec_from_file_location("compare_aiconfigurator", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


#: every efficiency at 1, as the comparison asks it beside aiconfigurator's SOL mode
SPEED_OF_LIGHT = _compare_tool().SPEED_OF_LIGHT


def hand(
    tp: int,
    b: int,
    isl: int = ISL,
    osl: int = OSL,
    budget: int = 8192,
    rates: tuple[float, float, float, float] = FORECAST,
) -> dict:
    """The busy replica by hand: its two steps, their shares, TPOT, TTFT and tokens/s/GPU."""
    eta_c, eta_kv, eta_w, eta_link = rates
    context = isl + osl / 2
    per_step = b * isl / osl  # prompt tokens a step, on average
    chunk = min(budget, isl)
    share = per_step / chunk
    attention = 4 * LAYERS * HEADS * HEAD_DIM  # FLOPs per token and context position

    def comm(tokens: float) -> float:
        if tp == 1:
            return 0.0
        return 2 * LAYERS * (ALPHA + 2 * (tp - 1) / tp * tokens * HIDDEN * 2 / link)

    def decode_comm() -> float:  # (the decode step's small messages: the library's own rate)
        if tp == 1:
            return 0.0
        return 2 * LAYERS * (ALPHA + 2 * (tp - 1) / tp * b * HIDDEN * 2 / LINK)

    link, flops = LINK * eta_link, P * eta_c
    # element-wise, per token on one GPU: two fused residual-add + RMS-norm kernels a layer
    # (read residual and branch, write sum and normed: 8 elements per hidden unit, on every
    # rank) and SwiGLU (read gate and up, write product: 3 per unit of the rank's MLP), bf16
    elementwise = LAYERS * 2 * (8 * HIDDEN + 3 * FFN / tp) / (B * eta_kv)
    weights, kv = 2 * N / (tp * B * eta_w), b * KV * context / (tp * B * eta_kv)
    gemm_d, attn_d = 2 * N * b / (tp * flops), attention * b * context / (tp * flops)
    gemm_x, attn_x = 2 * N * chunk / (tp * flops), attention * chunk * isl / 2 / (tp * flops)
    decode = max(weights, gemm_d) + max(kv, attn_d) + b * elementwise + decode_comm()
    mixed = (
        max(weights, gemm_d + gemm_x)
        + max(kv, attn_d + attn_x)
        + (b + chunk) * elementwise
        + comm(b + chunk)
    )
    step = share * mixed + (1 - share) * decode
    return {
        "decode": decode,
        "mixed": mixed,
        "share": share,
        "tpot": step,
        "ttft": isl / chunk * mixed,
        "per_gpu": b / (osl * step) * osl / tp,
    }


@pytest.mark.parametrize("light", [False, True], ids=["forecast", "speed of light"])
@pytest.mark.parametrize(("tp", "batch"), [(1, 24), (2, 56), (4, 64), (8, 176)])
def test_a_busy_replica_by_hand(tp, batch, light):
    targets = [
        "serving_decode_step_time",
        "serving_mixed_step_time",
        "serving_mixed_step_share",
        "serving_tpot",
        "serving_ttft",
        "serving_output_rate_per_gpu",
    ]
    rates = SPEED_OF_LIGHT if light else {}
    r = nm.solve(targets, n_gpus=tp, batch_size=batch, **QUESTION, **rates)
    want = hand(tp, batch, rates=LIGHT if light else FORECAST)
    assert r["serving_decode_step_time"].to("s").magnitude == pytest.approx(want["decode"])
    assert r["serving_mixed_step_time"].to("s").magnitude == pytest.approx(want["mixed"])
    assert r["serving_mixed_step_share"].to("").magnitude == pytest.approx(want["share"])
    assert r["serving_tpot"].to("s*sequence/token").magnitude == pytest.approx(want["tpot"])
    assert r["serving_ttft"].to("s").magnitude == pytest.approx(want["ttft"])
    assert r["serving_output_rate_per_gpu"].to("token/(s*GPU)").magnitude == pytest.approx(
        want["per_gpu"]
    )


def test_the_example_in_figures():
    # tp4, batch 64: a decode-only step of 8.54 ms (memory-bound: 3.42 ms of weights, 3.71 ms
    # of KV cache, 0.10 ms of element-wise kernels, 1.30 ms of all-reduces); one step in 7.8
    # carries a whole 4,000-token prompt and takes 97.0 ms (compute-bound, 6.52 ms of it the
    # element-wise kernels of 4,064 tokens at 7.70 MB each); TPOT 19.9 ms, 805.4 output
    # tokens/s per GPU at the speed of light
    e = LAYERS * 2 * (8 * HIDDEN + 3 * FFN / 4)
    assert e == 7_700_480  # bytes per token on one GPU of a tp4 replica
    want = hand(4, 64, rates=LIGHT)
    assert want["decode"] == pytest.approx(8.537e-3, rel=1e-3)
    assert want["mixed"] == pytest.approx(97.04e-3, rel=1e-3)
    assert want["share"] == 0.128
    assert want["tpot"] == pytest.approx(19.87e-3, rel=1e-3)
    assert want["per_gpu"] == pytest.approx(805.4, rel=1e-3)
    # the forecast: the weights at 65% of 4.8 TB/s (5.26 ms), the KV cache and the
    # element-wise kernels at 4.32 TB/s, the prompt's matmuls at 797 TFLOP/s and its
    # all-reduces at 67% of NVLink: a decode step of 10.80 ms, a mixed one of 123.8 ms, TPOT
    # 25.3 ms and 633.2 tokens/s per GPU (aiconfigurator's measured kernels: 27.2 ms and
    # 558.1, docs/serving.md)
    forecast = hand(4, 64)
    assert forecast["decode"] == pytest.approx(10.80e-3, rel=1e-3)
    assert forecast["mixed"] == pytest.approx(123.84e-3, rel=1e-3)
    assert forecast["tpot"] == pytest.approx(25.27e-3, rel=1e-3)
    assert forecast["per_gpu"] == pytest.approx(633.2, rel=1e-3)


def test_a_prompt_longer_than_the_budget_goes_in_chunks():
    r = nm.solve(
        ["serving_ttft", "serving_chunk_tokens"],
        n_gpus=4,
        batch_size=16,
        model="qwen3-32b",
        gpu="H200",
        prompt_len=20000,
        output_len=500,
    )
    want = hand(4, 16, isl=20000)
    assert r["serving_chunk_tokens"].to("token").magnitude == 8192
    assert r["serving_ttft"].to("s").magnitude == pytest.approx(want["ttft"])
    assert want["ttft"] == pytest.approx(20000 / 8192 * want["mixed"])


def test_prefills_that_cannot_keep_pace_are_refused_with_the_reason():
    # 512 sequences finishing every 100 steps bring 20,480 prompt tokens a step on average,
    # more than the 8,192 one step may prefill
    with pytest.raises(nm.NapkinError) as refused:
        nm.solve(
            "serving_tpot",
            n_gpus=8,
            batch_size=512,
            model="qwen3-32b",
            gpu="H200",
            prompt_len=4000,
            output_len=100,
        )
    text = str(refused.value)
    assert "serving_mixed_step_share" in text and "cannot keep pace" in text


def test_the_batch_for_a_tpot_limit_inverts_through_both_steps():
    r = nm.solve("batch_size", serving_tpot="30 ms*sequence/token", n_gpus=4, **QUESTION)
    b = r.value.to("sequence").magnitude
    assert hand(4, b)["tpot"] == pytest.approx(30e-3, rel=1e-6)
    assert 80 < b < 81  # 80.3 sequences at the forecast rates


def test_a_full_batch_beyond_hbm_is_flagged():
    r = nm.solve("serving_tpot", n_gpus=1, batch_size=256, **QUESTION)
    (fit,) = [c for c in r.constraints if c.constraint.name == "serving_batch_fits_hbm"]
    assert not fit.holds
    # 65.6 GB of weights and 256 sequences of 4,500 tokens at 262,144 B: 367.6 GB > 126.9 GB
    assert fit.lhs / 8 == pytest.approx(2 * N + 256 * KV * 4500)  # (base units: bits)


def test_the_optimiser_finds_the_brute_force_best():
    tps, batches = (1, 2, 4, 8), (8, 16, 24, 32, 48, 56, 64, 80, 96, 112, 128, 176, 192, 256)
    best = nm.optimize(
        "serving_output_rate_per_gpu",
        maximize=True,
        over={"n_gpus": list(tps), "batch_size": list(batches)},
        require=["serving_tpot <= 30 ms*sequence/token", "serving_ttft <= 2 s"],
        **QUESTION,
    )
    usable = 0.9 * 141e9  # H200's 141 GB, 90% of it usable
    fits = [
        (hand(tp, b)["per_gpu"], tp, b)
        for tp in tps
        for b in batches
        if hand(tp, b)["tpot"] <= 30e-3
        and hand(tp, b)["ttft"] <= 2
        and 2 * N + b * KV * (ISL + OSL) <= usable * tp
    ]
    rate, tp, b = max(fits)
    assert best.best is not None
    assert best.best_candidate.point == {"n_gpus": tp, "batch_size": b}
    assert best.best.value.to("token/(s*GPU)").magnitude == pytest.approx(rate)
    assert (tp, b) == (4, 80) and math.isclose(rate, 668.5, rel_tol=1e-3)


def test_the_wait_for_a_slot_at_a_percentile():
    # M/M/1 at 90% load: P(W > t) = 0.9·e^(−0.1·t/S), so the p99 wait is 10·ln 90 = 45.0 S
    r = nm.solve(
        "time_in_queue_quantile",
        service_time="1 s",
        n_servers=1,
        utilization=0.9,
        latency_percentile=0.99,
    )
    assert r.value.to("s").magnitude == pytest.approx(10 * math.log(90))
    # at p50 most requests do not wait at all: C = 0.9 > 0.5, ln(0.9/0.5)·10 = 5.88 s
    median = nm.solve(
        "time_in_queue_quantile",
        service_time="1 s",
        n_servers=1,
        utilization=0.9,
        latency_percentile=0.5,
    )
    assert median.value.to("s").magnitude == pytest.approx(10 * math.log(1.8))
    light = nm.solve(
        "time_in_queue_quantile",
        service_time="1 s",
        n_servers=1,
        utilization=0.3,
        latency_percentile=0.5,
    )
    assert light.value.to("s").magnitude == 0


def test_the_pareto_front_of_tokens_per_gpu_against_tpot():
    # aiconfigurator's curve: tokens/s/GPU against tokens/s/user (1/TPOT); the front holds
    # every candidate no other beats on both, as a brute force over the hand model finds it
    tps, batches = (1, 2, 4, 8), (8, 16, 32, 64, 128, 256)
    o = nm.optimize(
        ["serving_output_rate_per_gpu", "serving_tpot"],
        maximize=["serving_output_rate_per_gpu"],
        over={"n_gpus": list(tps), "batch_size": list(batches)},
        require=["serving_ttft <= 2 s"],
        **QUESTION,
    )
    usable = 0.9 * 141e9
    points = {
        (tp, b): hand(tp, b)
        for tp in tps
        for b in batches
        if hand(tp, b)["ttft"] <= 2 and 2 * N + b * KV * (ISL + OSL) <= usable * tp
    }
    front = {
        key
        for key, p in points.items()
        if not any(
            q["per_gpu"] >= p["per_gpu"] and q["tpot"] <= p["tpot"] and q != p
            for q in points.values()
        )
    }
    got = {(int(c.point["n_gpus"]), int(c.point["batch_size"])) for c in o.pareto}
    assert got == front
    assert (4, 64) in got and (2, 128) in got  # 660.0 tokens/s/GPU at 24.2 ms; 868.2 at 73.7 ms


def test_optimize_reads_a_config_json_as_solve_does(tmp_path, napkin):
    # the same model from its Hugging Face config.json: the same best layout
    config = _compare_tool().CONFIGS["qwen3-32b"]  # the file the comparison writes
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    args = dict(
        over={"n_gpus": [1, 2, 4, 8], "batch_size": [16, 32, 64, 112]},
        require=["serving_tpot <= 30 ms*sequence/token"],
        gpu="H200",
        prompt_len=ISL,
        output_len=OSL,
    )
    shipped = nm.optimize("serving_output_rate_per_gpu", maximize=True, model="qwen3-32b", **args)
    read = nm.optimize("serving_output_rate_per_gpu", maximize=True, model=str(path), **args)
    assert read.best_candidate.point == shipped.best_candidate.point
    # (the config's parameters are counted from its shapes: 32.76e9 against the card's 32.8e9)
    assert read.best.value.m_as("token/(s*GPU)") == pytest.approx(
        shipped.best.value.m_as("token/(s*GPU)"), rel=2e-3
    )
    status, out, err = napkin(
        "optimize",
        "--minimize",
        "n_gpus",
        "--over",
        "n_gpus=1,2,4,8",
        "--model",
        str(path),
        "--gpu",
        "H100",
        "seq_len=4096",
        "batch_size=8",
        "--no-derivation",
    )
    assert status == 0, err
    assert "Best: n_gpus = 2 GPU" in out
