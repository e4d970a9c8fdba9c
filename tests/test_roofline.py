"""Both roofs of the roofline (issue 20 §1, §2, §7): a decode step and a prefill take the longer
of their memory time and their compute time, plus the tensor-parallel all-reduces (α-β).

Hand calculations use the records' figures: H100 SXM 989.5 TFLOP/s dense BF16 and 3.35 TB/s
per GPU, NVLink 450 GB/s one way; H200 measured 797 TFLOP/s and 4.32 TB/s; Llama 3 8B
(8.03e9 params, 32 layers, 32 heads of 128, 8 KV heads, hidden 4,096) and 70B (70.6e9, 80
layers, 64 heads of 128, 8 KV heads, hidden 8,192), bf16 weights and KV cache. FLOPs per
token 2N + 4·L·H·Q·s (PaLM Appendix B, its forward third); an all-reduce costs 8 µs plus
2(r−1)/r of its bytes over the link, two per layer.
"""

from __future__ import annotations

import pytest

import napkinmath as nm

P, B, NVLINK = 989.5e12, 3.35e12, 450e9
ALPHA = 8e-6
MODELS = {
    # name: (params, layers, heads, head_dim, kv_heads, hidden, GPUs)
    "llama-3-8b": (8.03e9, 32, 32, 128, 8, 4096, 1),
    "llama-3-70b": (70.6e9, 80, 64, 128, 8, 8192, 4),
}
SEQ = 128


def hand_step(model: str, b: float, seq: int = SEQ) -> tuple[float, float, float]:
    """(memory time, compute time, all-reduce time) of one decode step, in seconds."""
    n, layers, heads, hd, kvh, hidden, gpus = MODELS[model]
    flop_per_token = 2 * n + 4 * layers * heads * hd * seq
    kv_per_sequence = 2 * layers * kvh * hd * 2 * seq
    memory = (2 * n + b * kv_per_sequence) / (gpus * B)
    compute = b * flop_per_token / (gpus * P)
    comm = 0.0
    if gpus > 1:
        comm = 2 * layers * (ALPHA + 2 * (gpus - 1) / gpus * b * hidden * 2 / NVLINK)
    return memory, compute, comm


def ridge(model: str) -> float:
    """The batch where the compute time reaches the memory time (KV reads included)."""
    n, layers, heads, hd, kvh, _, gpus = MODELS[model]
    flop_per_token = 2 * n + 4 * layers * heads * hd * SEQ
    kv_per_sequence = 2 * layers * kvh * hd * 2 * SEQ
    return (2 * n / (gpus * B)) / (flop_per_token / (gpus * P) - kv_per_sequence / (gpus * B))


@pytest.mark.parametrize("model", sorted(MODELS))
def test_a_batch_sweep_flattens_at_the_compute_roof(model):
    r = round(ridge(model))  # 8B: 422; 70B: 323
    batches = [1, r, 4 * r]
    table = nm.sweep(
        "decode_throughput",
        over={"batch_size": batches},
        model=model,
        gpu="H100",
        n_gpus=MODELS[model][6],
        seq_len=SEQ,
    )
    column = table.column("decode_throughput")
    assert column.unit == "token/s"
    got = list(column.values)
    hand = []
    for b in batches:
        memory, compute, comm = hand_step(model, b)
        hand.append(b / (max(memory, compute) + comm))
    assert got == pytest.approx(hand, rel=1e-9)
    # below the ridge the batch multiplies throughput; past it throughput barely moves
    assert got[1] / got[0] > 100
    assert got[2] / got[1] < 1.5
    n, layers, heads, hd = MODELS[model][:4]
    ceiling = MODELS[model][6] * P / (2 * n + 4 * layers * heads * hd * SEQ)
    assert got[2] <= ceiling * (1 + 1e-12)


@pytest.mark.parametrize(("batch", "roof"), [(1, "memory roof"), (2048, "compute roof")])
def test_the_derivation_names_the_binding_roof(batch, roof):
    r = nm.solve(
        "decode_step_time", model="llama-3-8b", gpu="H100", n_gpus=1, batch_size=batch, seq_len=SEQ
    )
    memory, compute, _ = hand_step("llama-3-8b", batch)
    assert r.value.to("s").magnitude == pytest.approx(max(memory, compute))
    text = r.to_text()
    assert f"{roof} binds: decode_{roof.split()[0]}_time" in text
    assert "Decode step at the roofline" in text


def test_the_issue_command_is_capped_by_the_compute_roof(napkin):
    status, out, _ = napkin(
        "solve",
        "decode_throughput",
        "--model",
        "llama-3-8b",
        "--gpu",
        "H100",
        "n_gpus=1",
        "batch_size=2048",
        "seq_len=128",
    )
    assert status == 0
    # 2048 × (2 × 8.03e9 + 4·32·32·128·128) / 989.5e12 = 33.38 ms: 61,356 token/s, under the
    # 61,613 the issue computes from 2N alone (136,074 from the bandwidth alone before)
    flop = 2 * 8.03e9 + 4 * 32 * 32 * 128 * 128
    assert out.startswith(f"decode_throughput = {P / flop:,.0f} token/s")
    assert "compute roof binds" in out


def test_a_tensor_parallel_decode_step_adds_its_all_reduces():
    # Llama 2 70B on 4 H100 (tp 4), batch 1 at 512 context: 160 all-reduces of 8 µs plus
    # 1.5 × 16,384 B / 450 GB/s each, 1.289 ms (llm-analysis: 1.28 ms) of an 11.6 ms step
    shape = dict(
        params="68.98B",
        params_total="68.98B",
        n_layers=80,
        n_heads=64,
        head_dim=128,
        n_kv_heads=8,
        hidden_size=8192,
    )
    r = nm.solve(
        ["decode_step_time", "decode_tp_comm_time"],
        gpu="H100",
        n_gpus=4,
        batch_size=1,
        seq_len=512,
        **shape,
    )
    comm = 160 * (ALPHA + 2 * 3 / 4 * 8192 * 2 / NVLINK)
    memory = (68.98e9 * 2 + 512 * 2 * 80 * 8 * 128 * 2) / (4 * B)
    assert r["decode_tp_comm_time"].to("ms").magnitude == pytest.approx(comm * 1e3)
    assert comm == pytest.approx(1.289e-3, rel=1e-3)
    assert r["decode_step_time"].to("s").magnitude == pytest.approx(memory + comm)


def test_prefill_counts_attention_and_its_all_reduces():
    # Llama 3 70B on 4 H100, one 4,096-token prompt (its own context: no seq_len needed):
    # 2N + 4·80·64·128·4096 = 1.519e11 FLOP per token (attention 7% of it); compute 157.2 ms
    # binds over 10.5 ms of weight reads; 160 all-reduces of 8 µs + 1.5 × 67.1 MB / 450 GB/s
    # add 37.1 ms
    r = nm.solve(
        "prefill_time",
        model="llama-3-70b",
        gpu="H100",
        n_gpus=4,
        prompt_tokens="4096 token",
    )
    flop = 2 * 70.6e9 + 4 * 80 * 64 * 128 * 4096
    compute = 4096 * flop / (4 * P)
    memory = 70.6e9 * 2 / (4 * B)
    comm = 160 * (ALPHA + 2 * 3 / 4 * 4096 * 8192 * 2 / NVLINK)
    assert r.value.to("s").magnitude == pytest.approx(max(compute, memory) + comm)
    text = r.to_text()
    assert "Forward attention FLOPs per prompt token" in text and "compute roof binds" in text
    assert "(given but not needed" not in text  # the prompt is the context: no seq_len asked


def test_the_batch_for_a_throughput_inverts_through_the_roofline():
    r = nm.solve(
        "batch_size",
        decode_throughput="20000 token/s",
        model="llama-3-8b",
        gpu="H100",
        n_gpus=1,
        seq_len=SEQ,
    )
    b = r.value.to("sequence").magnitude
    memory, compute, _ = hand_step("llama-3-8b", b)
    assert b / max(memory, compute) == pytest.approx(20000, rel=1e-6)
    assert memory > compute  # 20k token/s is reached below the ridge (b ≈ 110)


def test_a_throughput_above_the_compute_roof_is_refused_and_says_why(napkin):
    status, _, err = napkin(
        "solve",
        "batch_size",
        "decode_throughput=70000 token/s",
        "--model",
        "llama-3-8b",
        "--gpu",
        "H100",
        "n_gpus=1",
        f"seq_len={SEQ}",
    )
    assert status == 2
    assert "decode_throughput_ceiling" in err and "Traceback" not in err


def test_achievable_applies_the_measured_figures_to_both_roofs():
    # H200: measured 797 TFLOP/s and 4.32 TB/s in place of 989.5 and 4.8
    args = dict(model="llama-3-8b", gpu="H200", n_gpus=1, seq_len=SEQ)
    flop = 2 * 8.03e9 + 4 * 32 * 32 * 128 * SEQ
    big = nm.solve("decode_step_time", batch_size=2048, achievable=True, **args)
    assert big.value.to("s").magnitude == pytest.approx(2048 * flop / 797e12)
    small = nm.solve("decode_step_time", batch_size=1, achievable=True, **args)
    kv = 2 * 32 * 8 * 128 * 2 * SEQ
    assert small.value.to("s").magnitude == pytest.approx((2 * 8.03e9 + kv) / 4.32e12)


def test_achievable_leaves_mfu_against_the_datasheet_peak():
    args = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")
    plain = nm.solve("n_gpus", **args)
    measured = nm.solve("n_gpus", achievable=True, **args)
    assert measured.value.magnitude == pytest.approx(plain.value.magnitude)  # 58.48
    assert measured.givens["peak_flops"].quantity.to("TFLOP/(s*GPU)").magnitude == 989.5
    assert any("MFU is defined against it" in n for n in measured.notes)
    assert not any("holds no achievable_flops" in n for n in measured.notes)  # it does


def test_without_a_batch_or_a_shape_the_step_is_the_memory_time_said_as_an_assumption():
    r = nm.solve(
        "decode_step_time", weight_memory="141 GB", kv_cache_memory="0 GB", n_gpus=4, gpu="H100"
    )
    assert r.value.to("s").magnitude == pytest.approx(141e9 / (4 * B))
    assert "ASSUMPTION: the compute roof left out" in r.to_text()


# --- the replica size a prefill's all-reduce time implies (a forward-only min() solved jointly)
def test_replica_ranks_from_a_prefill_all_reduce_time():
    # 80 layers, 2 all-reduces each (r ≥ 2: min(1, r − 1) = 1), 8 µs + 2 × 1 GB × 7/8 / 450 GB/s
    # each at r = 8: 160 × (8e-6 + 3.8889e-3) = 0.62350 s; solved back, r = 8
    t = 160 * (ALPHA + 2 * 1e9 * 7 / 8 / NVLINK)
    r = nm.solve(
        "replica_ranks",
        n_layers=80,
        allreduce_message_latency="8 us",
        prefill_tp_message_bytes="1 GB",
        link_bandwidth="450 GB/s",
        prefill_tp_comm_time=f"{t} s",
    )
    assert r.value.magnitude == pytest.approx(8)


def test_a_prefill_all_reduce_time_no_replica_size_gives_is_refused():
    # 10.52 layers (73.21 / 6.96 GB), 9.12 s of all-reduces of 955.1 MB at 11.66 GB/s: with
    # r ≥ 2 there are 2 × 10.52 = 21.04 all-reduces, each at most 8 µs + 2 × 0.9551 / 11.66 =
    # 0.1638 s, 3.45 s in all, short of 9.12 s. The other piece of min(1, r − 1), r − 1, gave
    # r = 4.42 with 71.94 all-reduces, where min(1, 3.42) = 1 allows 21.04: it was shown as an
    # answer until forward-only formulas of a joint block were substituted back too.
    with pytest.raises(nm.NoRootError):
        nm.solve(
            "replica_ranks",
            activation_memory="73.21 GB",
            activation_memory_per_layer="6.96 GB",
            allreduce_message_latency="8 us",
            link_bandwidth="11.66 GB/s",
            prefill_tp_comm_time="9.12 s",
            prefill_tp_message_bytes="955.1 MB",
            gpu="H100-SXM",
        )


def test_the_throughput_ceiling_is_the_kv_reads_at_long_context():
    # Llama 3 8B on one H100 at 1,024 tokens of context: per sequence the KV read takes
    # 131,072 B/token x 1,024 / 3.35 TB/s = 40.1 us against 16.8 us of compute, so throughput
    # approaches 1 / 40.1 us = 24,959 token/s (not the compute roof's 59.6k) and decode never
    # turns compute-bound
    n, layers, heads, hd, kvh, _, _ = MODELS["llama-3-8b"]
    seq = 1024
    kv_read = 2 * layers * kvh * hd * 2 * seq / B
    compute = (2 * n + 4 * layers * heads * hd * seq) / P
    assert kv_read > compute
    args = dict(model="llama-3-8b", gpu="H100", n_gpus=1, seq_len=seq)
    ceiling = nm.solve("decode_throughput_ceiling", **args)
    assert ceiling.value.to("token/s").magnitude == pytest.approx(1 / kv_read)
    assert round(1 / kv_read) == 24959
    with pytest.raises(nm.NapkinError) as refused:
        nm.solve("decode_compute_bound_batch", model="llama-3-8b", gpu="H100", seq_len=seq)
    assert "decode never turns compute-bound" in str(refused.value)
    with pytest.raises(nm.NapkinError) as too_fast:
        nm.solve("batch_size", decode_throughput="30000 token/s", **args)
    assert "decode_throughput_ceiling" in str(too_fast.value)
    reachable = nm.solve("batch_size", decode_throughput="20000 token/s", **args)
    b = reachable.value.to("sequence").magnitude
    step = (2 * n + b * kv_read * B) / B
    assert b / step == pytest.approx(20000, rel=1e-6)


def test_the_compute_bound_batch_counts_the_kv_reads():
    # at 128 tokens of context the KV reads push b* from the ridge point (295) to 422
    r = nm.solve("decode_compute_bound_batch", model="llama-3-8b", gpu="H100", seq_len=SEQ)
    assert r.value.to("sequence").magnitude == pytest.approx(ridge("llama-3-8b"))
    assert "ASSUMPTION" not in "".join(s.note for s in r.steps)


# --- issue 46: the inference step's defects, each against a hand calculation ----------------
QWEN3_MOE = dict(total=235e9, active=22e9, layers=94, heads=64, hd=128, kvh=4, hidden=4096)


def qwen3_step(b: int, seq: int = 2048, gpus: int = 8) -> float:
    """One decode step of Qwen3-235B-A22B (8 of 128 experts per token) on H100s, seconds:
    the weights the batch's tokens reach, uniform routing."""
    m = QWEN3_MOE
    touched = 1 - (1 - 8 / 128) ** b
    params_read = m["active"] + (m["total"] - m["active"]) * (128 * touched - 8) / (128 - 8)
    kv = 2 * m["layers"] * m["kvh"] * m["hd"] * 2 * seq
    memory = (2 * params_read + b * kv) / (gpus * B)
    compute = b * (2 * m["active"] + 4 * m["layers"] * m["heads"] * m["hd"] * seq) / (gpus * P)
    comm = 2 * m["layers"] * (ALPHA + 2 * (gpus - 1) / gpus * b * m["hidden"] * 2 / NVLINK)
    return max(memory, compute) + comm


@pytest.mark.parametrize("batch", [1, 32])
def test_moe_decode_reads_the_experts_its_tokens_reach(batch):
    r = nm.solve(
        ["decode_speed", "experts_touched_fraction", "decode_weight_memory"],
        model="qwen3-235b-a22b",
        gpu="H100",
        n_gpus=8,
        batch_size=batch,
        seq_len=2048,
    )
    assert r["decode_speed"].to("token/(s*sequence)").magnitude == pytest.approx(
        1 / qwen3_step(batch)
    )
    touched = r["experts_touched_fraction"].to("").magnitude
    assert touched == pytest.approx(1 - (1 - 8 / 128) ** batch)  # 6.25%; 87.3% at 32
    read = r["decode_weight_memory"].to("GB").magnitude
    if batch == 1:
        assert read == pytest.approx(44)  # the 22B active parameters in bf16, not all 470 GB
        assert 1 / qwen3_step(1) > 6 * 52.46  # the issue's all-experts figure, about 6x slower
    else:
        assert 400 < read < 470


def test_a_dense_decode_reads_every_weight_said_as_an_assumption():
    r = nm.solve("decode_weight_memory", model="llama-3-70b", gpu="H100", batch_size=1, seq_len=SEQ)
    assert r.value.to("GB").magnitude == pytest.approx(2 * 70.6)
    assert "ASSUMPTION: every weight read each step: right for a dense model" in r.to_text()


def test_experts_given_beside_the_every_weight_fallback_are_refused_not_set_aside(napkin):
    # a value the user states is used or refused: n_experts alone cannot count the experts a
    # step reaches (experts_per_token is missing), and was shown "given but not needed"
    status, out, err = napkin(
        "solve",
        "decode_speed",
        "--model",
        "llama-3-8b",
        "--gpu",
        "H100",
        "n_gpus=1",
        "batch_size=1",
        "seq_len=2048",
        "n_experts=8",
    )
    assert status == 2 and out == "" and "Traceback" not in err
    assert "n_experts = 8 is not read by this answer" in err
    assert "Give experts_per_token and experts_touched_fraction to use it" in err
    # a given no law behind a fallback reads stays merely unneeded
    r = nm.solve("decode_weight_memory", model="llama-3-70b", batch_size=1, seq_len=SEQ)
    assert "batch_size" in r.unused


def test_prefill_and_decode_answer_together_on_a_tensor_parallel_replica(napkin):
    status, out, err = napkin(
        "solve",
        "prefill_time",
        "decode_step_time",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "n_gpus=4",
        "prompt_tokens=2048",
        "seq_len=2048",
        "batch_size=1",
    )
    assert status == 0, err
    _, layers, heads, hd, _, hidden, gpus = MODELS["llama-3-70b"]
    flop = 2 * 70.6e9 + 4 * layers * heads * hd * 2048
    comm = 2 * layers * (ALPHA + 2 * (gpus - 1) / gpus * 2048 * hidden * 2 / NVLINK)
    prefill = max(2048 * flop / (gpus * P), 2 * 70.6e9 / (gpus * B)) + comm
    assert out.startswith(f"prefill_time = {prefill * 1e3:.4g} ms")
    memory, compute, step_comm = hand_step("llama-3-70b", 1, seq=2048)
    assert f"decode_step_time = {(max(memory, compute) + step_comm) * 1e3:.4g} ms" in out


def test_an_efficiency_given_is_used_and_an_mfu_given_is_refused(napkin):
    args = dict(model="llama-3-70b", gpu="H100", n_gpus=4, prompt_tokens="2048 token")
    full = nm.solve("prefill_compute_time", **args)
    half = nm.solve("prefill_compute_time", compute_efficiency=0.5, **args)
    assert half.value.to("s").magnitude == pytest.approx(2 * full.value.to("s").magnitude)
    status, _, err = napkin(
        "solve",
        "prefill_time",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "n_gpus=4",
        "prompt_tokens=2048",
        "mfu=0.5",
    )
    assert status == 2 and "Traceback" not in err
    assert "mfu = 50% is not read by this answer" in err
    assert "compute_efficiency at its stated default, 100%" in err


def test_a_long_prompt_is_its_own_context():
    # Llama 3 70B on 4 H100, a 32,768-token prompt and no seq_len: 2N + 4·80·64·128·32,768 =
    # 2.271e11 FLOP per token (attention 38% of it), 1.880 s of compute and 0.288 s of
    # all-reduces
    r = nm.solve("prefill_time", model="llama-3-70b", gpu="H100-SXM", n_gpus=4, prompt_tokens=32768)
    _, layers, heads, hd, _, hidden, gpus = MODELS["llama-3-70b"]
    flop = 2 * 70.6e9 + 4 * layers * heads * hd * 32768
    comm = 2 * layers * (ALPHA + 2 * (gpus - 1) / gpus * 32768 * hidden * 2 / NVLINK)
    assert r.value.to("s").magnitude == pytest.approx(32768 * flop / (gpus * P) + comm)
    assert "attention over the prompt left out" not in r.to_text()
