"""A training step from its parts (napkinmath.formulas.step_parts), by independent hand arithmetic.

Two layouts: a dense Llama 3 70B at tp 8, pp 4, dp 32 on 1,024 H100s (16Mi tokens per step,
micro-batch 1: 64 micro-batches, a 3/64 bubble, the gradient reduction longer than the last
micro-batch's backward), and Mixtral 8x7B at tp 2, ep 8 on 256 H100s (the all-to-alls of its
32 MoE layers). Sources of each term are in the module's docstring; here every number is
worked from the shapes with plain floats.
"""

import pytest
from helpers import mag

import napkinmath as nm
from napkinmath.errors import InputError

H100_PEAK = 989.5e12  # FLOP/s, dense BF16 (H100-SXM record)
H100_HBM = 3.35e12  # B/s
NVLINK = 450e9  # B/s per direction (NVLink 4)
NIC = 50e9  # B/s per direction: one 400 Gb/s ConnectX-7 per GPU (DGX H100)

DENSE = dict(
    model="llama-3-70b",
    gpu="H100",
    n_gpus=1024,
    tp=8,
    pp=4,
    dp=32,
    seq_len=8192,
    global_batch_tokens="16Mi",
    batch_size=1,
    recompute="selective",
)


H100_MATMUL = 794.5 / 989.5  # H100-SXM's measured matmul rate (MAMF) over its peak
MEMORY_EFFICIENCY = 0.9  # the stated default: the H100 record holds no measured HBM read
TP_BUSBW = 450e9 * 0.67  # the stated default efficiency of NVLink collectives


def dense_by_hand(compute_efficiency=H100_MATMUL):
    n, t, p, d = 1024, 8, 4, 32
    layers, h, s, n_params = 80, 8192, 8192, 70.6e9
    heads, kv, head, ffn, vocab = 64, 8, 128, 28672, 128256  # the llama-3-70b record
    tokens = 16 * 2**20  # 2,048 sequences of 8,192
    m = tokens / s / (1 * d)  # micro-batches per replica: 64
    attention_train = 12 * layers * h * s  # PaLM: 12·L·H·Q·T per token (H·Q = h)
    attention_forward = 4 * layers * h * s
    model = (6 * n_params + attention_train) * tokens
    recompute = attention_forward * tokens  # selective: the scores' forward once more
    compute = (model + recompute) / (n * H100_PEAK * compute_efficiency)
    # memory-bound operators of one layer and micro-batch on one GPU: the residual stream's
    # 44 B per token and hidden unit (no sequence parallelism: whole on every rank), SwiGLU's
    # 8 elements per token and inner unit (d_ff/t), the scores' 13 + 13 + 19 B per pair,
    # and each weight matmul's epilogues (bf16 output and input gradient, fp32 weight gradient)
    traffic = s * h * 44 + s * ffn / t * 2 * 8 + heads / t * s**2 * (13 * 2 + 19)
    qkv = (heads + 2 * kv) * head / t
    for inputs, outputs in ((h, qkv), (heads * head / t, h), (h, 2 * ffn / t), (ffn / t, h)):
        traffic += s * 2 * (outputs + inputs) + 8 * inputs * outputs
    memory = (layers / p) * m * traffic / (H100_HBM * MEMORY_EFFICIENCY)
    last = (p - 1) * 6 * vocab * h * tokens / (n * H100_PEAK * compute_efficiency)
    activations = 1 * s * h * 2  # b·s·h in bf16: 134 MB
    tp_time = 4 * (layers / p) * m * (2 * (t - 1) / t * activations / TP_BUSBW + 2 * 10e-6)
    bubble = (p - 1) / m * (compute + memory + last + tp_time)
    pp_sends = 2 * 1 * m * activations * (1 / (t * NIC) + (t - 1) / t / TP_BUSBW)
    gradients = n_params / (t * p) * 2  # bf16 gradients of the rank's shard
    dp_time = 2 * (d - 1) / d * gradients / NIC
    window = 2 / 3 * (compute + tp_time) / m  # the last micro-batch's backward
    dp_exposed = max(dp_time, window) - window
    optimizer = n_params / (t * p) * 46 / (H100_HBM * MEMORY_EFFICIENCY)
    parts = dict(
        compute_time=compute,
        memory_bound_time=memory,
        last_stage_extra_time=last,
        tp_comm_time=tp_time,
        pipeline_bubble_time=bubble,
        pp_send_time=pp_sends,
        dp_comm_time=dp_time,
        dp_comm_exposed_time=dp_exposed,
        optimizer_time=optimizer,
    )
    step = compute + memory + last + tp_time + bubble + pp_sends + dp_exposed + optimizer
    return parts, step, model / (step * n * H100_PEAK)


def test_dense_70b_parts_by_hand():
    names = [
        "compute_time",
        "memory_bound_time",
        "last_stage_extra_time",
        "tp_comm_time",
        "pipeline_bubble_time",
        "pp_send_time",
        "dp_comm_time",
        "dp_comm_exposed_time",
        "optimizer_time",
        "step_time_predicted",
        "mfu_predicted",
    ]
    r = nm.solve(names, **DENSE)
    parts, step, mfu = dense_by_hand()
    for name, hand in parts.items():
        assert mag(r[name], "s") == pytest.approx(hand, rel=1e-6), name
    assert mag(r["step_time_predicted"], "s") == pytest.approx(step, rel=1e-6)
    assert mag(r["mfu_predicted"]) == pytest.approx(mfu, rel=1e-6)
    # the numbers a reader can check: 64 micro-batches, 3/64 bubble, 4.09 s of TP all-reduces
    assert parts["tp_comm_time"] == pytest.approx(4.091, rel=1e-3)
    assert parts["dp_comm_time"] > parts["dp_comm_exposed_time"] > 0  # partly hidden
    # the scores in HBM at 8,192 tokens (the stated default, Megatron's unfused attention):
    # 24 GB per layer and micro-batch; FlashAttention (score traffic 0) would save most of it
    assert 0.25 < mfu < 0.32


def test_dense_70b_step_names_every_part_and_assumption():
    text = str(nm.solve("step_time_predicted", **DENSE))
    for part in ("compute_time", "tp_comm_time", "pipeline_bubble_time", "pp_send_time"):
        assert part in text
    assert "recompute=selective" in text
    assert "ASSUMPTION: a dense model" in text
    # placement: Megatron's order puts tp = 8 in the node, the replicas and stages across
    assert "ASSUMPTION: Megatron-LM's order (tp, cp, dp, pp)" in text
    assert "DGX reference design" in text  # the NIC figure's provenance


def test_the_step_is_a_forecast_with_or_without_achievable():
    """The record's measured matmul rate is the step's by default; --achievable changes
    nothing here; the datasheet peak stays the MFU's denominator."""
    plain = nm.solve(["step_time_predicted", "mfu_predicted"], **DENSE)
    flagged = nm.solve(["step_time_predicted", "mfu_predicted"], achievable=True, **DENSE)
    _, step, mfu = dense_by_hand()
    for r in (plain, flagged):
        assert mag(r["step_time_predicted"], "s") == pytest.approx(step, rel=1e-6)
        assert mag(r["mfu_predicted"]) == pytest.approx(mfu, rel=1e-6)
        assert mag(r.givens["peak_flops"].quantity, "TFLOP/(s*GPU)") == pytest.approx(989.5)
        assert r.givens["compute_efficiency"].origin == "record"
        assert any(note.startswith("a forecast: the step runs at") for note in r.notes)
    assert mag(plain["mfu_predicted"]) < H100_MATMUL  # attainable: below the measured ceiling


def test_a_user_compute_efficiency_wins_over_the_record():
    for achievable in (False, True):
        r = nm.solve("step_time_predicted", achievable=achievable, compute_efficiency=0.5, **DENSE)
        _, step, _ = dense_by_hand(0.5)
        assert mag(r.value, "s") == pytest.approx(step, rel=1e-6)
        assert r.givens["compute_efficiency"].origin == "given"


def test_the_derivation_carries_the_per_layer_table():
    r = nm.solve("step_time_predicted", **DENSE)
    table = r.layer_table
    assert table is not None and table.layers == 20 and table.microbatches == 64
    rows = {row.name: row for row in table.rows}
    h, s, t = 8192, 8192, 8
    # the MLP down projection: 2 FLOP per weight and token, forward, and two backward products
    assert rows["MLP down"].flops == pytest.approx(2 * s * (28672 / t) * h * 3, rel=1e-9)
    assert rows["MLP down"].roof == "matmul"
    assert rows["norms, residual adds, dropout"].bytes == pytest.approx(s * h * 44, rel=1e-9)
    # the table's operators add up to the step's per-layer compute, memory and TP time
    parts, _, _ = dense_by_hand()
    matmul = sum(row.flops for row in table.rows) / (H100_PEAK * H100_MATMUL)
    per_layer = table.layers * table.microbatches
    # compute_time is PaLM's 6N: it also counts the output layer and the input embedding
    # (2 × 1.05B of Llama 3 70B's 70.6B parameters, untied): 3% more than the layers' operators
    assert matmul * per_layer / parts["compute_time"] == pytest.approx(0.975, abs=0.005)
    traffic = sum(row.bytes for row in table.rows)  # the matmuls' epilogues included
    memory = traffic * per_layer / (H100_HBM * MEMORY_EFFICIENCY)
    assert memory == pytest.approx(parts["memory_bound_time"], rel=1e-9)
    tp = next(row for row in table.rows if row.roof == "link")
    assert tp.seconds * per_layer == pytest.approx(parts["tp_comm_time"], rel=1e-9)
    text = str(r)
    assert "Per layer and micro-batch on one GPU" in text
    assert "× 20 layers × 64 micro-batches" in text


MOE = dict(
    model="mixtral-8x7b",
    gpu="H100",
    n_gpus=256,
    tp=2,
    pp=1,
    dp=128,
    ep=8,
    seq_len=4096,
    global_batch_tokens="4Mi",
    batch_size=1,
)


def test_moe_expert_parallel_parts_by_hand():
    r = nm.solve(
        [
            "ep_comm_time",
            "memory_bound_time",
            "params_per_rank",
            "dp_comm_exposed_time",
            "optimizer_time",
            "step_time_predicted",
        ],
        **MOE,
    )
    n, t, d, e = 256, 2, 128, 8
    layers, moe_layers, h, s, k = 32, 32, 4096, 4096, 2
    shared, expert, experts = 1.633e9, 5.633e9, 8  # the record's shapes, as the library derives
    tokens = 4 * 2**20
    m = tokens / s / d  # 8 micro-batches
    active = 12.9e9  # mixtral-8x7b's params (active per token)
    # each micro-batch's b·s tokens go to k experts and come back (bf16): of each rank's
    # buffer, 1/e stays, (g-1)/e goes over NVLink and (e-g)/e over the NIC, one after the
    # other (placement, Megatron's order: tp = 2 leaves room for g = 4 expert ranks a node)
    buffer, g = s * (k * h * 2 + k * h * 2), 8 // t
    alltoall = buffer * ((g - 1) / e / TP_BUSBW + (e - g) / e / NIC)
    ep_time = 2 * moe_layers * m * alltoall  # forward and backward
    per_rank = (shared + experts * expert / e) / t
    assert mag(r["params_per_rank"], "param") == pytest.approx(per_rank, rel=2e-3)
    assert mag(r["ep_comm_time"], "s") == pytest.approx(ep_time, rel=1e-6)
    compute = ((6 * active + 12 * layers * h * s) * tokens) / (n * H100_PEAK * H100_MATMUL)
    tp_time = 4 * layers * m * (2 * (t - 1) / t * (s * h * 2) / TP_BUSBW + 2 * 10e-6)
    # the gradient ring of d = 128 replicas, 4 a node (32 nodes): hierarchical (Mikami 2018)
    gradients, nodes = per_rank * 2, d // g
    dp_time = 2 * (g - 1) / g * gradients / TP_BUSBW + 2 * (nodes - 1) / nodes * gradients / (
        g * NIC
    )
    window = 2 / 3 * (compute + tp_time) / m
    optimizer = per_rank * 46 / (H100_HBM * MEMORY_EFFICIENCY)
    # memory-bound operators: each token through its k = 2 experts' SwiGLU (2 × 14,336 wide)
    heads, kv, head, active_ffn = 32, 8, 128, 2 * 14336
    traffic = s * h * 44 + s * active_ffn / t * 2 * 8 + heads / t * s**2 * (13 + 19)
    qkv = (heads + 2 * kv) * head / t
    for inputs, outputs in ((h, qkv), (heads * head / t, h), (h, 2 * active_ffn / t)):
        traffic += s * 2 * (outputs + inputs) + 8 * inputs * outputs
    traffic += s * 2 * (h + active_ffn / t) + 8 * active_ffn / t * h  # the down projection
    memory = layers * m * traffic / (H100_HBM * MEMORY_EFFICIENCY)
    assert mag(r["memory_bound_time"], "s") == pytest.approx(memory, rel=1e-9)
    assert mag(r["dp_comm_exposed_time"], "s") == pytest.approx(
        max(dp_time, window) - window, rel=2e-3
    )
    assert mag(r["optimizer_time"], "s") == pytest.approx(optimizer, rel=2e-3)
    step = compute + memory + tp_time + ep_time + (max(dp_time, window) - window) + optimizer
    assert mag(r["step_time_predicted"], "s") == pytest.approx(step, rel=2e-3)


def test_a_dense_model_has_no_expert_exchange_and_says_so():
    r = nm.solve("ep_comm_time", **DENSE)
    assert mag(r.value, "s") == 0
    assert "ASSUMPTION: a dense model (or no MoE shapes known)" in str(r)


def test_zero3_gathers_the_weights_twice_more():
    base = nm.solve("dp_comm_time", **DENSE)
    zero3 = nm.solve("dp_comm_time", zero_stage=3, **DENSE)
    assert mag(zero3.value, "s") == pytest.approx(1.5 * mag(base.value, "s"), rel=1e-9)


def test_full_recomputation_repeats_the_forward_and_its_all_reduces():
    givens = {**DENSE, "recompute": "full"}
    r = nm.solve(["step_recompute_flops", "tp_comm_time", "dp_overlap_window"], **givens)
    tokens, n_params, layers, h, s = 16 * 2**20, 70.6e9, 80, 8192, 8192
    assert mag(r["step_recompute_flops"], "FLOP") == pytest.approx(
        tokens * (2 * n_params + 4 * layers * h * s), rel=1e-9
    )
    m, t = 64, 8
    tp_full = 6 * (layers / 4) * m * (2 * (t - 1) / t * (s * h * 2) / TP_BUSBW + 2 * 10e-6)
    assert mag(r["tp_comm_time"], "s") == pytest.approx(tp_full, rel=1e-9)
    assert r.givens["backward_fraction"].quantity.magnitude == 0.75


def test_context_parallel_ring_by_hand():
    givens = {**DENSE, "cp": 2, "dp": 16}
    r = nm.solve("cp_comm_time", **givens)
    layers, p, t, c, s, kv, hd = 80, 4, 8, 2, 8192, 8, 128
    m = 16 * 2**20 / s / 16  # 128 micro-batches per replica
    chunk = 2 * (s / c) * kv * hd * 2  # keys and values of the rank's s/c tokens, bf16
    hand = 3 * (layers / p) * m * (c - 1) * chunk / (t * NIC)
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)


def test_recompute_setting_errors_name_the_fix():
    with pytest.raises(InputError, match="choose one of 'none', 'selective', 'full'"):
        nm.solve("step_time_predicted", **{**DENSE, "recompute": "partial"})
    with pytest.raises(InputError, match="sets recomputed_layer_fraction, which is given too"):
        nm.solve("step_time_predicted", recomputed_layer_fraction=0.5, **DENSE)


#: the DENSE layout as `napkin solve` arguments
LAYOUT = [
    "solve",
    "step_time_predicted",
    "--model",
    "llama-3-70b",
    "--gpu",
    "H100",
    "n_gpus=1024",
    "tp=8",
    "pp=4",
    "dp=32",
    "seq_len=8192",
    "global_batch_tokens=16Mi",
    "batch_size=1",
    "recompute=selective",
]


def test_cli_step_from_parts(napkin):
    status, out, err = napkin(*LAYOUT, "mfu_predicted")
    _, step, mfu = dense_by_hand()
    assert status == 0, err
    assert f"step_time_predicted = {step:.4g} s" in out
    assert f"mfu_predicted = {100 * mfu:.4g}%" in out
