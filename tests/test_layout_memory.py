"""Memory per GPU as one total, under a layout (issue 20, §3).

A training layout's GPU holds its share of the training state (weights, gradients and optimizer
state split by tp · pp, and over the dp · cp ranks as far as the ZeRO stage shards them:
Rajbhandari et al. 2020, §5.1-5.3), the activations of the first pipeline stage (its
micro-batches in flight, each through its n_layers/pp layers: Korthikanti et al. 2022,
§4.2.3), and the stated allowances (10% fragmentation, 2 GB of runtime). A serving replica's
weights and KV cache must fit in the usable 90% of its HBM (vLLM's default
gpu_memory_utilization).

Every expectation is hand arithmetic written beside the call; `hand_total` below is an
independent sum of the parts (it imports nothing of the library's formulas), and a property
test compares it with `nm.solve` over random layouts.

Decimal units: 1 GB = 1e9 B. H100: 80 GB of HBM. Llama-3-70B (record): 70.6e9 parameters,
80 layers, hidden 8192, 64 heads. Llama-3-8B: 8.03e9 parameters, 32 layers, hidden 4096, 32
heads.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import napkinmath as nm

GB = 1e9
FRAGMENTATION = 0.10  # memory_fragmentation_fraction's default
RUNTIME = 2 * GB  # runtime_memory_per_gpu's default


def gb(q) -> float:
    return q.to("GB").magnitude


def hand_total(
    *,
    params,
    n_layers,
    hidden,
    heads,
    seq,
    batch,
    tp=1,
    pp=1,
    dp=1,
    cp=1,
    sp=1,
    zero=0,
    v=1,
    fill=1.0,
    recomputed=0.0,
    score_bytes=5.0,
    fragmentation=FRAGMENTATION,
    runtime=RUNTIME,
) -> dict[str, float]:
    """The per-GPU training memory of a layout, in bytes, summed part by part."""
    weights, grads, optimizer = 2 * params, 2 * params, 12 * params  # bf16, bf16, fp32 Adam
    ranks = dp * cp  # ZeRO shards over the data-parallel ranks (context-parallel ones too)
    state = (
        weights / (ranks if zero >= 3 else 1)
        + grads / (ranks if zero >= 2 else 1)
        + optimizer / (ranks if zero >= 1 else 1)
    ) / (tp * pp)
    sbh = seq * batch * hidden
    # Korthikanti et al. 2022 Table 2, per tensor-parallel rank, over cp context ranks
    stored = sbh * (10 / sp + 24 / tp + score_bytes * heads * seq / (hidden * tp)) / cp
    recompute = 2 * sbh / (sp * cp)  # full recomputation keeps each layer's input
    per_layer = (1 - recomputed) * stored + recomputed * recompute
    # the first stage: pp micro-batches (1F1B), pp + (pp - 1)/v when interleaved (v >= 2)
    in_flight = fill * (pp if v == 1 else pp + (pp - 1) / v)
    stage = in_flight * (n_layers / pp) * per_layer
    total = (state + stage) * (1 + fragmentation) + runtime
    return {"state": state, "stage": stage, "in_flight": in_flight, "total": total}


LLAMA_70B = dict(params=70.6e9, n_layers=80, hidden=8192, heads=64)
LLAMA_8B = dict(params=8.03e9, n_layers=32, hidden=4096, heads=32)
ISSUE = dict(model="llama-3-70b", gpu="H100", tp=8, pp=8, dp=16, batch_size=1, seq_len=8192)


# --- The issue's layout: Llama-3-70B on H100, tp = 8, pp = 8, dp = 16 ---------------------------
def test_issue_layout_total_by_hand():
    r = nm.solve(
        [
            "training_memory_per_gpu",
            "training_state_memory_per_gpu",
            "stage_activation_memory",
            "microbatches_in_flight",
        ],
        **ISSUE,
    )
    # state, ZeRO-0: (141.2 + 141.2 + 847.2) GB over tp * pp = 64 GPUs = 17.65 GB
    state = (70.6e9 * 2 + 70.6e9 * 2 + 70.6e9 * 12) / 64
    assert state / GB == pytest.approx(17.65)
    # one layer: s b h (10 + 24/8 + 5 * 64 * 8192 / (8192 * 8)) = 67,108,864 x 53 = 3.557 GB
    per_layer = 8192 * 1 * 8192 * (10 + 24 / 8 + 5 * 64 * 8192 / (8192 * 8))
    assert per_layer == 67_108_864 * 53
    # the first stage: 8 micro-batches in flight x 80/8 layers = 284.5 GB (all 80 layers' worth)
    stage = 8 * (80 / 8) * per_layer
    assert stage / GB == pytest.approx(284.54, abs=0.01)
    total = (state + stage) * 1.10 + 2e9  # (17.65 + 284.54) x 1.1 + 2 = 334.4 GB
    assert total / GB == pytest.approx(334.41, abs=0.01)
    assert gb(r["training_state_memory_per_gpu"]) == pytest.approx(state / GB)
    assert gb(r["stage_activation_memory"]) == pytest.approx(stage / GB)
    assert r["microbatches_in_flight"].magnitude == 8
    assert gb(r["training_memory_per_gpu"]) == pytest.approx(total / GB)
    assert hand_total(**LLAMA_70B, seq=8192, batch=1, tp=8, pp=8, dp=16)["total"] == pytest.approx(
        total
    )
    assert {
        "zero_stage",
        "memory_fragmentation_fraction",
        "runtime_memory_per_gpu",
        "pipeline_fill",
        "recomputed_layer_fraction",
    } <= set(r.assumptions)


def test_issue_layout_does_not_fit_and_says_so():
    r = nm.solve("training_memory_per_gpu", **ISSUE)
    held = {c.constraint.name: c for c in r.constraints}
    fits = held["training_memory_fits_hbm"]
    assert not fits.holds and not r.fits
    assert fits.share == pytest.approx(334.41 / 80, abs=0.001)  # 4.18x the 80 GB
    assert "✗ VIOLATED: Training memory per GPU fits in HBM: 334.4 GB > 80 GB" in str(r)


def test_issue_layout_with_sequence_parallelism_flash_attention_and_zero1_fits():
    r = nm.solve("training_memory_per_gpu", sp=8, attention_score_bytes=0, zero_stage=1, **ISSUE)
    # state: (141.2 + 141.2 + 847.2 / 16) GB / 64 = 335.35 / 64 = 5.240 GB
    state = (141.2e9 + 141.2e9 + 847.2e9 / 16) / 64
    # one layer, sequence parallel, no scores: s b h (10/8 + 24/8) = 67,108,864 x 4.25 B
    stage = 8 * 10 * 67_108_864 * 4.25  # 22.82 GB
    total = (state + stage) * 1.1 + 2e9  # (5.240 + 22.82) x 1.1 + 2 = 32.86 GB
    assert total / GB == pytest.approx(32.86, abs=0.01)
    assert gb(r.value) == pytest.approx(total / GB)
    assert r.fits
    assert [c.holds for c in r.constraints if c.constraint.name == "training_memory_fits_hbm"] == [
        True
    ]


def test_a_default_never_overrules_the_users_allowances():
    r = nm.solve(
        "training_memory_per_gpu",
        memory_fragmentation_fraction=0,
        runtime_memory_per_gpu="0 GB",
        **ISSUE,
    )
    assert gb(r.value) == pytest.approx((17.65e9 + 8 * 10 * 67_108_864 * 53) / GB)  # 302.2 GB
    r = nm.solve(
        "training_memory_per_gpu",
        memory_fragmentation_fraction=0.05,
        runtime_memory_per_gpu="4 GB",
        **ISSUE,
    )
    assert gb(r.value) == pytest.approx((17.65 + 284.5416) * 1.05 + 4, abs=1e-3)  # 321.3 GB


# --- ZeRO stages ------------------------------------------------------------------------------
def test_zero3_fsdp_llama_8b_on_64_gpus():
    r = nm.solve(
        ["training_memory_per_gpu", "training_state_memory_per_gpu", "dp"],
        model="llama-3-8b",
        gpu="H100",
        n_gpus=64,
        zero_stage=3,
        batch_size=1,
        seq_len=8192,
        attention_score_bytes=0,
    )
    assert r["dp"].magnitude == 64  # 64 GPUs / (tp 1 · pp 1 · cp 1)
    state = 8.03e9 * 16 / 64  # everything sharded: 128.5 GB / 64 = 2.008 GB
    stage = 1 * 32 * 8192 * 4096 * 34  # one micro-batch, 32 layers of 34 s b h: 36.51 GB
    total = (state + stage) * 1.1 + 2e9  # (2.008 + 36.51) x 1.1 + 2 = 44.37 GB
    assert total / GB == pytest.approx(44.37, abs=0.01)
    assert gb(r["training_state_memory_per_gpu"]) == pytest.approx(state / GB)
    assert gb(r["training_memory_per_gpu"]) == pytest.approx(total / GB)
    assert r.fits


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_each_zero_stage_matches_its_own_formula(stage):
    # the layout's state per GPU at zero_stage = k is the zero{k}_memory_per_gpu formula
    r = nm.solve(
        ["training_state_memory_per_gpu", f"zero{stage}_memory_per_gpu"],
        params_total="70e9",
        tp=2,
        pp=4,
        dp=8,
        cp=2,
        zero_stage=stage,
    )
    # W = G = 140 GB, O = 840 GB; dp · cp = 16 ranks; tp · pp = 8
    hand = {
        0: (140 + 140 + 840) / 8,
        1: (140 + 140 + 840 / 16) / 8,
        2: (140 + (140 + 840) / 16) / 8,
        3: 1120 / (8 * 16),
    }[stage]
    assert gb(r["training_state_memory_per_gpu"]) == pytest.approx(hand)
    assert gb(r[f"zero{stage}_memory_per_gpu"]) == pytest.approx(hand)


# --- The first pipeline stage -----------------------------------------------------------------
def test_interleaved_schedule_holds_more_than_plain_1f1b():
    r = nm.solve(
        ["microbatches_in_flight", "stage_activation_memory"], virtual_pipeline_stages=2, **ISSUE
    )
    # Korthikanti et al. 2022 §4.2.3: L (1 + (p - 1)/(p m)) layers' worth, m = 2 chunks
    layers = 80 * (1 + 7 / (8 * 2))  # 115 layers' worth
    assert r["microbatches_in_flight"].magnitude == pytest.approx(8 + 7 / 2)  # 11.5
    assert gb(r["stage_activation_memory"]) == pytest.approx(layers * 67_108_864 * 53 / GB)


def test_a_pipeline_not_kept_full_holds_fewer_microbatches():
    # 4 micro-batches per step on 8 stages: the first stage holds all 4 (pipeline_fill 4/8)
    r = nm.solve("stage_activation_memory", pipeline_fill=0.5, **ISSUE)
    assert gb(r.value) == pytest.approx(4 * 10 * 67_108_864 * 53 / GB)  # 142.3 GB


def test_recomputing_some_layers_and_the_share_that_fits():
    r = nm.solve(
        "stage_activation_memory",
        recomputed_layer_fraction=0.5,
        sp=8,
        attention_score_bytes=0,
        **ISSUE,
    )
    kept, recomputed = 67_108_864 * 4.25, 67_108_864 * 2 / 8  # per layer: 285.2 MB, 16.8 MB
    assert gb(r.value) == pytest.approx(80 * (kept + recomputed) / 2 / GB)  # 12.08 GB
    # the inverse: which share of layers to recompute for 80 GB per GPU, everything stored
    r = nm.solve("recomputed_layer_fraction", training_memory_per_gpu="80 GB", **ISSUE)
    stored, inputs = 80 * 67_108_864 * 53, 80 * 67_108_864 * 2  # 284.5 GB and 10.74 GB
    # (17.65 GB + stored - f (stored - inputs)) x 1.1 + 2 GB = 80 GB
    share = (17.65e9 + stored - (80e9 - 2e9) / 1.1) / (stored - inputs)
    assert r.value.magnitude == pytest.approx(share)
    assert share == pytest.approx(0.8447, abs=1e-4)  # (302.19 - 70.91) / 273.80


def test_context_parallelism_splits_the_activations():
    one = nm.solve("activation_memory_per_layer", **ISSUE)
    four = nm.solve("activation_memory_per_layer", cp=4, **ISSUE)
    assert gb(four.value) == pytest.approx(gb(one.value) / 4)  # each rank: seq_len/4 tokens


# --- The stage check of the issue ------------------------------------------------------------
def test_the_stage_check_counts_every_microbatch_in_flight(napkin):
    status, out, err = napkin(
        "solve",
        "activation_memory",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "tp=8",
        "pp=8",
        "dp=16",
        "batch_size=1",
        "seq_len=8192",
    )
    assert status == 0, err
    assert out.startswith("activation_memory = 284.5 GB")  # 80 layers x 3.557 GB, per GPU
    # 8 micro-batches in flight x 10 layers x 3.557 GB = 284.5 GB on one GPU (was 35.57 GB)
    assert "✗ VIOLATED: Activations of the first pipeline stage fit in HBM: 284.5 GB > 80 GB" in out
    assert "35.57 GB" not in out
    status, out, err = napkin(
        "solve",
        "activation_memory",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "tp=8",
        "pp=8",
        "dp=16",
        "batch_size=1",
        "seq_len=8192",
        "--strict",
    )
    assert status == 1


def test_the_stage_check_with_full_recomputation_fits():
    r = nm.solve("activation_memory_recompute", **ISSUE)
    held = {c.constraint.name: c for c in r.constraints}
    check = held["activation_memory_recompute_fits_hbm"]
    # 8 micro-batches x 10 layers x 2 s b h = 10.74 GB (without sequence parallelism)
    assert check.holds and check.lhs / 8 == pytest.approx(8 * 10 * 2 * 67_108_864)


# --- Serving: weights and KV cache per GPU, 90% of HBM usable -----------------------------------
SERVING = dict(model="llama-3-70b", gpu="H100", n_gpus=2, batch_size=2, seq_len=8192)


def test_serving_replica_leaves_ten_percent_of_hbm():
    r = nm.solve(["serving_memory_per_gpu", "kv_cache_memory"], **SERVING)
    weights, kv = 70.6e9 * 2, 2 * 8192 * 327_680  # 141.2 GB + 5.369 GB = 146.6 GB
    assert gb(r["kv_cache_memory"]) == pytest.approx(kv / GB)
    assert r["serving_memory_per_gpu"].to("GB/GPU").magnitude == pytest.approx(
        (weights + kv) / 2 / GB
    )  # 73.28 GB on each GPU
    held = {c.constraint.name: c for c in r.constraints}
    fits = held["replica_fits_hbm"]
    # 146.6 GB > 0.9 x 2 x 80 GB = 144 GB: fits in all of HBM, not in the usable 90%
    assert not fits.holds
    assert fits.rhs / 8 == pytest.approx(0.9 * 2 * 80e9)
    assert "hbm_usable_fraction" in r.assumptions
    r = nm.solve("serving_memory_per_gpu", hbm_usable_fraction=1, **SERVING)
    assert r.fits  # 146.6 GB <= 160 GB when the user says all of HBM is usable


# --- Property: the total against its parts, over random layouts --------------------------------
LAYOUTS = st.fixed_dictionaries(
    {
        "params": st.integers(1, 1000).map(lambda n: n * 1e9),
        "n_layers": st.integers(2, 128),
        "hidden": st.integers(1, 32).map(lambda n: n * 512),
        "heads": st.sampled_from([8, 16, 32, 64, 128]),
        "seq": st.sampled_from([512, 2048, 4096, 8192, 32768]),
        "batch": st.integers(1, 8),
        "tp": st.sampled_from([1, 2, 4, 8]),
        "pp": st.sampled_from([1, 2, 4, 8, 16]),
        "dp": st.integers(1, 256),
        "cp": st.sampled_from([1, 2, 4]),
        "sequence_parallel": st.booleans(),
        "zero": st.integers(0, 3),
        "v": st.integers(1, 4),
        "fill": st.sampled_from([1.0, 0.25, 0.5, 2.0]),
        "recomputed": st.sampled_from([0.0, 0.25, 0.5, 1.0]),
        "score_bytes": st.sampled_from([0.0, 5.0]),
    }
).filter(
    # a layout that exists: a layer per stage at least, interleaving only with pipeline stages
    lambda d: d["pp"] <= d["n_layers"] and (d["pp"] > 1 or d["v"] == 1)
)


@settings(
    max_examples=120,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(layout=LAYOUTS)
def test_the_total_is_the_sum_of_its_parts_over_random_layouts(layout):
    sp = layout["tp"] if layout["sequence_parallel"] else 1
    hand = hand_total(
        params=layout["params"],
        n_layers=layout["n_layers"],
        hidden=layout["hidden"],
        heads=layout["heads"],
        seq=layout["seq"],
        batch=layout["batch"],
        tp=layout["tp"],
        pp=layout["pp"],
        dp=layout["dp"],
        cp=layout["cp"],
        sp=sp,
        zero=layout["zero"],
        v=layout["v"],
        fill=layout["fill"],
        recomputed=layout["recomputed"],
        score_bytes=layout["score_bytes"],
    )
    r = nm.solve(
        [
            "training_memory_per_gpu",
            "training_state_memory_per_gpu",
            "stage_activation_memory",
            "microbatches_in_flight",
        ],
        params_total=layout["params"],
        n_layers=layout["n_layers"],
        hidden_size=layout["hidden"],
        n_heads=layout["heads"],
        seq_len=layout["seq"],
        batch_size=layout["batch"],
        tp=layout["tp"],
        pp=layout["pp"],
        dp=layout["dp"],
        cp=layout["cp"],
        sp=sp,
        zero_stage=layout["zero"],
        virtual_pipeline_stages=layout["v"],
        pipeline_fill=layout["fill"],
        recomputed_layer_fraction=layout["recomputed"],
        attention_score_bytes=f"{layout['score_bytes']} B*sequence/token**2",
        gpu="H100",
    )
    assert r["microbatches_in_flight"].magnitude == pytest.approx(hand["in_flight"], rel=1e-12)
    assert r["training_state_memory_per_gpu"].to("B").magnitude == pytest.approx(
        hand["state"], rel=1e-9
    )
    assert r["stage_activation_memory"].to("B").magnitude == pytest.approx(hand["stage"], rel=1e-9)
    assert r["training_memory_per_gpu"].to("B").magnitude == pytest.approx(hand["total"], rel=1e-9)
    fits = [c for c in r.constraints if c.constraint.name == "training_memory_fits_hbm"]
    assert len(fits) == 1 and fits[0].holds == (hand["total"] <= 80e9)
