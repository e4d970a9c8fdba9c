"""The example plans in examples/ against the worked examples,
checked by hand calculations here, through nm.plan and through `napkin plan`."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import mag

import napkinmath as nm

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PLANS = [
    "startup-7b.toml",
    "llama-405b-pretraining.toml",
    "llama-70b-serving.toml",
    "shared-pool.toml",
    "optimize-fleet.toml",
]
H100_PEAK = 989.5e12  # FLOP/s per GPU, dense BF16 (the record's figure)
DAY = 86_400.0


@pytest.fixture(scope="module")
def plans():
    return {name: nm.plan(EXAMPLES / name) for name in PLANS}


def test_startup_7b_w12(plans):
    p = plans["startup-7b.toml"]
    a = p.answers
    compute = 6 * 7e9 * 1e12  # 4.2e22 FLOP
    gpus = compute / (0.4 * H100_PEAK * 21 * DAY)  # 58.48
    assert mag(a["train_compute"], "FLOP") == pytest.approx(compute)
    assert mag(a["n_gpus"], "GPU") == pytest.approx(gpus)
    assert mag(a["n_gpus"], "GPU") == pytest.approx(58.5, rel=0.01)
    assert mag(a["n_gpus_whole_nodes"], "GPU") == 64  # 8 whole nodes
    assert mag(a["n_nodes"], "node") == 8
    # "Schedule and cost" runs on the whole-node fleet from "Compute", by name
    days = compute / (0.4 * 64 * H100_PEAK) / DAY
    assert mag(a["train_time"], "day") == pytest.approx(days)
    assert mag(a["train_time"], "day") == pytest.approx(19.2, rel=0.01)
    assert mag(a["gpu_hours"], "GPU*h") == pytest.approx(29_491, rel=0.01)
    assert mag(a["train_cost"], "USD") == pytest.approx(73_700, rel=0.01)
    assert mag(a["train_cost"], "USD") == pytest.approx(64 * days * 24 * 2.5)
    # memory: 7e9 x 16 B = 112 GB of state, 2 GPUs' worth: compute-sized, not memory-sized
    assert mag(a["training_state_memory"], "GB") == pytest.approx(112)
    assert mag(a["n_gpus_for_state"], "GPU") < mag(a["n_gpus_whole_nodes"], "GPU")
    schedule = p.sections[1]
    assert schedule.origins["n_gpus"] == "answer of Compute (n_gpus_whole_nodes)"
    assert mag(schedule.result.givens["n_gpus"].quantity, "GPU") == 64
    assert p.warnings == [] and p.ok


def test_405b_pretraining_w6_w8_w10(plans):
    a = plans["llama-405b-pretraining.toml"].answers
    compute = 6 * 405e9 * 15.6e12  # 3.79e25 FLOP
    assert mag(a["train_compute"], "FLOP") == pytest.approx(3.79e25, rel=0.005)
    assert a["mfu"].magnitude == pytest.approx(compute / (30.84e6 * 3600 * H100_PEAK))
    assert a["mfu"].magnitude == pytest.approx(0.345, rel=0.01)  # W6
    assert mag(a["train_time"], "day") == pytest.approx(30.84e6 / 16384 / 24)
    assert mag(a["checkpoint_size"], "TB") == pytest.approx(6.48)  # W8: 405e9 x 16 B
    assert mag(a["checkpoint_write_time"], "s") == pytest.approx(64.8)  # at 100 GB/s
    assert a["checkpoint_overhead"].magnitude == pytest.approx(64.8 / 1800)  # 3.6%
    tokens_per_s = 0.4 * 16384 * H100_PEAK / (6 * 405e9)  # W10 at MFU 0.40
    assert mag(a["train_throughput"], "token/s") == pytest.approx(tokens_per_s)
    assert mag(a["train_throughput"], "token/s") == pytest.approx(2.67e6, rel=0.01)
    assert mag(a["dataset_read_rate"], "MB/s") == pytest.approx(10.7, rel=0.01)
    assert mag(a["storage_write_bandwidth"], "GB/s") == pytest.approx(108)  # 6.48 TB in 60 s
    ratio = a["burst_to_stream_ratio"].magnitude
    assert ratio == pytest.approx(108e9 / (4 * tokens_per_s))  # about 10^4
    assert 0.9e4 < ratio < 1.1e4


def test_70b_serving_w15_w16_w17(plans):
    p = plans["llama-70b-serving.toml"]
    by_section = {s.title: s.answer.values for s in p.sections}
    memory = by_section["Memory"]
    assert mag(memory["kv_bytes_per_token"], "B/token") == 327_680  # 2*80*8*128*2
    assert mag(memory["kv_cache_memory"], "GB") == pytest.approx(32 * 8192 * 327_680 / 1e9)
    assert mag(memory["kv_cache_memory"], "GB") == pytest.approx(85.9, rel=0.001)
    weights = mag(memory["weight_memory"], "B")
    assert weights == pytest.approx(70.55e9 * 2, rel=0.001)  # 70.6B parameters in bf16
    decode = by_section["Decode speed"]
    # the memory roof binds at batch 32; 160 all-reduces of 8 µs + 1.5 × 524 kB / 450 GB/s
    step = (weights + 32 * 8192 * 327_680) / (4 * 3.35e12) + 160 * (
        8e-6 + 1.5 * 32 * 8192 * 2 / 450e9
    )
    assert mag(decode["decode_step_time"], "s") == pytest.approx(step)
    assert mag(decode["decode_throughput"], "token/s") == pytest.approx(32 / step)
    single = by_section["Single stream"]
    # W16's 95 token/s is the weight reads alone (10.54 ms); one sequence on a 4-GPU replica
    # also waits for 160 all-reduces of 8 µs + 1.5 × 16,384 B / 450 GB/s (1.29 ms): 84.5
    reads, comm = weights / (4 * 3.35e12), 160 * (8e-6 + 1.5 * 8192 * 2 / 450e9)
    assert 1 / reads == pytest.approx(95, rel=0.01)
    assert mag(single["decode_speed"], "token/(s*sequence)") == pytest.approx(1 / (reads + comm))
    assert mag(single["ridge_point"], "FLOP/B") == pytest.approx(989.5 / 3.35)  # 295
    assert mag(by_section["Little's law"]["requests_in_flight"], "request") == pytest.approx(50 * 2)
    saturation = by_section["Saturation"]
    assert mag(saturation["time_in_system"], "s") == pytest.approx(1 / (1 - 0.9))  # 10 S
    assert mag(saturation["time_in_queue"], "s") == pytest.approx(0.9 / (1 - 0.9))
    fits = [f for f in p.constraints if f.record.constraint.name == "replica_fits_hbm"]
    assert fits and all(f.ok for f in fits)  # 227 GB of 288 GB usable (0.9 x 320 GB)
    assert p.ok and not p.warnings
    ranking = p.comparisons[0][1].ranking
    assert len(ranking) == 3


def test_shared_pool(plans):
    a = plans["shared-pool.toml"].answers
    assert mag(a["floor_gpus"], "GPU") == pytest.approx((200 + 50) / 0.5)  # 500
    assert mag(a["borrowed_gpus"], "GPU") == pytest.approx(600 / 0.5 - 500)  # 700
    assert mag(a["checkpoint_size"], "TB") == pytest.approx(70e9 * 16 / 1e12)
    assert mag(a["checkpoint_write_time"], "s") == pytest.approx(1.12e12 / 20e9)  # 56 s
    assert mag(a["reclaim_time"], "s") == pytest.approx(56 + 60)
    assert mag(a["ramp_time_allowed"], "min") == pytest.approx(50 / 10)
    assert mag(a["reclaim_slack"], "s") == pytest.approx(300 - 116)


def test_optimize_fleet_w12_and_the_moe_replica(plans):
    p = plans["optimize-fleet.toml"]
    w12, replica = p.optimizations
    # W12: 6ND = 4.2e22 FLOP; 58.48 GPU for exactly 3 weeks at 40% MFU: 8 whole nodes
    gpus = 6 * 7e9 * 1e12 / (0.4 * H100_PEAK * 21 * DAY)
    assert w12.optimum.best_candidate.point == {"n_gpus": 64.0}
    assert float(w12.optimum.boundaries[0].value) == pytest.approx(gpus, rel=1e-6)
    # the replica: bf16 weights of 235.09e9 parameters plus the KV cache of 32 x 8,192 tokens
    # (2 x 128 x 2 B x 4 KV heads x 94 layers per token), over 90% of 80 GB per GPU: 7.23
    weights = 235.09e9 * 2
    kv = 32 * 8192 * 2 * 128 * 2 * 4 * 94
    assert replica.optimum.best_candidate.point == {"n_gpus": 8.0}
    boundary = float(replica.optimum.boundaries[0].value)
    assert boundary == pytest.approx((weights + kv) / (0.9 * 80e9), rel=1e-3)
    assert p.ok


def test_sweeps_match_hand_calculation(plans):
    _, table = plans["startup-7b.toml"].sweeps[0]
    gpus = list(table["n_gpus"])
    days = list(table["train_time"])
    assert gpus == [16, 32, 64, 128, 256]
    for n, d in zip(gpus, days, strict=True):
        assert d == pytest.approx(4.2e22 / (0.4 * n * H100_PEAK) / DAY, rel=1e-3)


@pytest.mark.parametrize("name", PLANS)
def test_every_example_checks_clean_from_the_cli(napkin, name):
    status, out, err = napkin("plan", str(EXAMPLES / name), "--check")
    assert status == 0, err
    assert out.startswith("OK:")


@pytest.mark.parametrize("name", PLANS)
def test_every_example_in_every_format_byte_identical(napkin, tmp_path, name):
    for suffix in (".md", ".html", ".tex", ".txt"):
        # the same name in two folders: a report names its figures' folder after itself
        first, second = tmp_path / "a" / f"r{suffix}", tmp_path / "b" / f"r{suffix}"
        first.parent.mkdir(exist_ok=True)
        second.parent.mkdir(exist_ok=True)
        for out in (first, second):
            status, _, err = napkin("plan", str(EXAMPLES / name), "-o", str(out))
            assert status == 0, err
        assert first.read_bytes() == second.read_bytes(), suffix
        assert first.stat().st_size > 1000


def test_readme_excerpt_is_real_output(plans):
    """docs/plans.md's Markdown excerpt of the startup plan is the report's own text (after a
    change to the report, paste `napkin plan examples/startup-7b.toml -o plan.md` again)."""
    readme = (EXAMPLES.parent / "docs" / "plans.md").read_text(encoding="utf-8")
    start = readme.index("An excerpt of `napkin plan examples/startup-7b.toml -o plan.md`")
    excerpt = readme[start:]
    report = plans["startup-7b.toml"].to_markdown()
    blocks = [b.strip() for b in excerpt.split("\n\n")[1:] if b.strip()]
    assert len(blocks) > 5
    for block in blocks:
        assert block.replace("### ", "## ") in report, block[:80]
    toml = (EXAMPLES / "startup-7b.toml").read_text(encoding="utf-8").strip()
    assert toml in readme
