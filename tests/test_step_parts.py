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


def dense_by_hand(compute_efficiency=1.0):
    n, t, p, d = 1024, 8, 4, 32
    layers, h, s, n_params = 80, 8192, 8192, 70.6e9
    tokens = 16 * 2**20  # 2,048 sequences of 8,192
    m = tokens / s / (1 * d)  # micro-batches per replica: 64
    attention_train = 12 * layers * h * s  # PaLM: 12·L·H·Q·T per token (H·Q = h)
    attention_forward = 4 * layers * h * s
    model = (6 * n_params + attention_train) * tokens
    recompute = attention_forward * tokens  # selective: the scores' forward once more
    compute = (model + recompute) / (n * H100_PEAK * compute_efficiency)
    activations = 1 * s * h * 2  # b·s·h in bf16: 134 MB
    tp_time = 4 * (layers / p) * m * 2 * (t - 1) / t * activations / NVLINK
    bubble = (p - 1) / m * (compute + tp_time)
    pp_sends = 2 * 1 * m * activations / (t * NIC)
    gradients = n_params / (t * p) * 2  # bf16 gradients of the rank's shard
    dp_time = 2 * (d - 1) / d * gradients / NIC
    window = 2 / 3 * (compute + tp_time) / m  # the last micro-batch's backward
    dp_exposed = max(dp_time, window) - window
    optimizer = n_params / (t * p) * 28 / H100_HBM
    parts = dict(
        compute_time=compute,
        tp_comm_time=tp_time,
        pipeline_bubble_time=bubble,
        pp_send_time=pp_sends,
        dp_comm_time=dp_time,
        dp_comm_exposed_time=dp_exposed,
        optimizer_time=optimizer,
    )
    step = compute + tp_time + bubble + pp_sends + dp_exposed + optimizer
    return parts, step, model / (step * n * H100_PEAK)


def test_dense_70b_parts_by_hand():
    names = [
        "compute_time",
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
    # the numbers a reader can check: 64 micro-batches, 3/64 bubble, 2.67 s of TP all-reduces
    assert parts["tp_comm_time"] == pytest.approx(2.672, rel=1e-3)
    assert parts["dp_comm_time"] > parts["dp_comm_exposed_time"] > 0  # partly hidden
    assert 0.6 < mfu < 0.75


def test_dense_70b_step_names_every_part_and_assumption():
    text = str(nm.solve("step_time_predicted", **DENSE))
    for part in ("compute_time", "tp_comm_time", "pipeline_bubble_time", "pp_send_time"):
        assert part in text
    assert "recompute=selective" in text
    assert "ASSUMPTION: a dense model" in text
    # placement: Megatron's order puts tp = 8 in the node, the replicas and stages across
    assert "ASSUMPTION: Megatron-LM's order (tp, cp, dp, pp)" in text
    assert "DGX reference design" in text  # the NIC figure's provenance


def test_achievable_binds_the_measured_matmul_fraction_not_the_peak():
    r = nm.solve(["step_time_predicted", "mfu_predicted"], achievable=True, **DENSE)
    efficiency = 794.5 / 989.5  # H100-SXM's achievable_flops record over its peak
    _, step, mfu = dense_by_hand(efficiency)
    assert mag(r["step_time_predicted"], "s") == pytest.approx(step, rel=1e-6)
    assert mag(r["mfu_predicted"]) == pytest.approx(mfu, rel=1e-6)
    assert mag(r.givens["peak_flops"].quantity, "TFLOP/(s*GPU)") == pytest.approx(989.5)
    assert "compute_efficiency" in r.givens
    assert any("peak_flops stays the datasheet figure" in note for note in r.notes)


def test_a_user_compute_efficiency_wins_over_achievable():
    r = nm.solve("step_time_predicted", achievable=True, compute_efficiency=0.5, **DENSE)
    _, step, _ = dense_by_hand(0.5)
    assert mag(r.value, "s") == pytest.approx(step, rel=1e-6)


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
    alltoall = buffer * ((g - 1) / e / NVLINK + (e - g) / e / NIC)
    ep_time = 2 * moe_layers * m * alltoall  # forward and backward
    per_rank = (shared + experts * expert / e) / t
    assert mag(r["params_per_rank"], "param") == pytest.approx(per_rank, rel=2e-3)
    assert mag(r["ep_comm_time"], "s") == pytest.approx(ep_time, rel=1e-6)
    compute = ((6 * active + 12 * layers * h * s) * tokens) / (n * H100_PEAK)
    tp_time = 4 * layers * m * 2 * (t - 1) / t * (s * h * 2) / NVLINK
    # the gradient ring of d = 128 replicas, 4 a node (32 nodes): hierarchical (Mikami 2018)
    gradients, nodes = per_rank * 2, d // g
    dp_time = 2 * (g - 1) / g * gradients / NVLINK + 2 * (nodes - 1) / nodes * gradients / (g * NIC)
    window = 2 / 3 * (compute + tp_time) / m
    optimizer = per_rank * 28 / H100_HBM
    assert mag(r["dp_comm_exposed_time"], "s") == pytest.approx(
        max(dp_time, window) - window, rel=2e-3
    )
    assert mag(r["optimizer_time"], "s") == pytest.approx(optimizer, rel=2e-3)
    step = compute + tp_time + ep_time + (max(dp_time, window) - window) + optimizer
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
    tp_full = 6 * (layers / 4) * m * 2 * (t - 1) / t * (s * h * 2) / NVLINK
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
