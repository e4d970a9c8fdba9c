"""Inference metrics by their usual names (formulas/inference_metrics.py), per-node and per-pod
totals and the peak from the clock (formulas/aggregates.py), and the new records.

- Databricks, LLM Inference Performance Engineering (2023): a 7B model in 16-bit (14 GB) at
  14 ms per output token moves 1 TB/s, MBU 50% on an A100-80GB (2 TB/s).
- The JAX scaling book: tensor parallelism stays compute-bound while F > Y·C/W_ICI (TPU v5p
  C/W_ICI = 2,550; Llama 3 70B, F ≈ 30,000: up to about 11-way per axis); TPU v5e pod 256 chips,
  5.1e16 FLOP/s, 4 TB; TPU v5p pod 8,960 chips, 4e18 FLOP/s.
- NVIDIA whitepapers: H100 SXM 132 SMs, A100 108 SMs; dense FP16/BF16 Tensor Core FLOP per
  clock per SM 4,096 (H100) and 2,048 (A100, 256 FMA per Tensor Core x 4 x 2); boost 1.83 and
  1.41 GHz; DGX H100 640 GB of GPU memory.
"""

import pytest
from helpers import mag

import napkinmath as nm
from napkinmath.hardware import get


def value(record_id, key, unit):
    return get(record_id).values[key].quantity.to(unit).magnitude


# --- TTFT, TPOT, MBU --------------------------------------------------------------------------
def test_mbu_of_databricks_example():
    # 14 GB read per token in 14 ms = 1 TB/s, over 2 TB/s: 0.5
    r = nm.solve(
        "mbu",
        weight_memory="14 GB",
        kv_cache_memory="0 GB",
        time_per_output_token="14 ms*sequence/token",
        n_gpus=1,
        hbm_bandwidth="2 TB/(s*GPU)",
    )
    assert mag(r.value) == pytest.approx(0.5)


def test_tpot_at_the_roofline_is_the_decode_step():
    # Llama 3 70B on 4 H100, one 8,192-token sequence: (141.2 GB + 2.68 GB) / (4 x 3.35 TB/s)
    # = 10.74 ms of reads (W16's 95 tokens/s upper bound, with the KV cache read too), plus
    # 160 tensor-parallel all-reduces of 8 µs + 1.5 x 16,384 B / 450 GB/s, 1.29 ms
    r = nm.solve(
        "time_per_output_token",
        model="llama-3-70b",
        gpu="H100",
        n_gpus=4,
        batch_size=1,
        seq_len=8192,
    )
    weights, kv = 70.6e9 * 2, 327_680 * 8192
    comm = 160 * (8e-6 + 1.5 * 8192 * 2 / 450e9)
    assert mag(r.value, "ms*sequence/token") == pytest.approx(
        ((weights + kv) / (4 * 3.35e12) + comm) * 1e3
    )
    assert "used only when no TPOT is given" in str(r) or "roofline" in str(r)


def test_a_measured_tpot_gives_mbu_and_is_not_checked_against_the_roofline():
    # measured 15 ms against the 10.74 ms floor: MBU = 10.74 / 15 = 0.716
    r = nm.solve(
        "mbu",
        model="llama-3-70b",
        gpu="H100",
        n_gpus=4,
        batch_size=1,
        seq_len=8192,
        time_per_output_token="15 ms*sequence/token",
    )
    floor = (70.6e9 * 2 + 327_680 * 8192) / (4 * 3.35e12)
    assert mag(r.value) == pytest.approx(floor / 15e-3)


def test_time_to_first_token_is_queue_plus_prefill():
    # 8,192-token prompt on Llama 3 70B, 4 H100 (the prompt is its own context): the compute
    # roof (2 x 70.6e9 + 4 x 80 x 64 x 128 x 8,192) x 8,192 / (4 x 989.5e12) = 0.337 s binds
    # over reading the 141 GB of weights (10.5 ms); 160 all-reduces of 8,192 x 8,192 x 2 B
    # each add 8 µs + 1.5 x 134.2 MB / 450 GB/s = 455 µs; plus 0.2 s in the queue
    r = nm.solve(
        "time_to_first_token",
        time_in_queue="0.2 s",
        model="llama-3-70b",
        gpu="H100",
        n_gpus=4,
        prompt_tokens=8192,
    )
    flop = 2 * 70.6e9 + 4 * 80 * 64 * 128 * 8192  # the record's active params, 70.6B
    compute = flop * 8192 / (4 * 989.5e12)
    memory = 70_553_706_496 * 2 / (4 * 3.35e12)
    comm = 160 * (8e-6 + 2 * 3 / 4 * 8192 * 8192 * 2 / 450e9)
    prefill = max(compute, memory) + comm
    assert mag(r.value, "s") == pytest.approx(0.2 + prefill)


def test_kv_bytes_per_token_of_multi_head_attention_from_the_hidden_size():
    # W15: 2 x 80 x 8,192 x 2 B = 2,621,440 B/token, 8x the 327,680 GQA caches (64/8 heads)
    r = nm.solve("kv_bytes_per_token_mha", model="llama-3-70b")
    assert mag(r.value, "B/token") == 2 * 80 * 8192 * 2
    gqa = nm.solve("kv_bytes_per_token", model="llama-3-70b")
    assert mag(r.value, "B/token") / mag(gqa.value, "B/token") == 8


# --- the interconnect a tensor-parallel layer needs -------------------------------------------
def test_tensor_parallel_flops_per_interconnect_byte():
    # Llama 3 70B, F = 28,672, 8-way, bf16: F / Y = 3,584 FLOP/B; H100: 989.5e12 / 900e9
    # = 1,099 FLOP/B, so 8-way is compute-bound and the limit is F / 1,099 = 26-way
    r = nm.solve(
        ["tp_flop_per_comm_byte", "interconnect_ridge_point"], model="llama-3-70b", gpu="H100", tp=8
    )
    assert mag(r["tp_flop_per_comm_byte"], "FLOP/B") == 28672 / 8
    assert mag(r["interconnect_ridge_point"], "FLOP/B") == pytest.approx(989.5e12 / 900e9)
    limit = 28672 / mag(r["interconnect_ridge_point"], "FLOP/B")
    assert limit == pytest.approx(26.1, abs=0.1)


def test_scaling_book_tensor_parallel_limit_on_tpu_v5p():
    # C/W_ICI = 2,550 on one v5p axis: F = 30,000 stays compute-bound below 30,000 / 2,550
    # = 11.8-way; at Y = 16 it does 1,875 FLOP per byte, below 2,550
    r = nm.solve("tp_flop_per_comm_byte", ffn_size=30000, tp=16)
    assert mag(r.value, "FLOP/B") == 30000 / 16
    assert mag(r.value, "FLOP/B") < 2550 < 30000 / 11


# --- node and pod totals, the peak from the clock ----------------------------------------------
def test_dgx_h100_totals_and_the_sparse_headline():
    # 8 x 80 GB = 640 GB; 8 x 989.5 = 7.916 PFLOP/s dense BF16 (NVIDIA's 32 PFLOPS is FP8 with
    # 2:4 sparsity: 8 x 3,958); 8 x 700 W = 5.6 kW of GPUs
    r = nm.solve(
        ["node_hbm_capacity", "node_peak_flops", "node_gpu_power", "node_hbm_bandwidth"], gpu="H100"
    )
    assert mag(r["node_hbm_capacity"], "GB/node") == 640
    assert mag(r["node_peak_flops"], "PFLOP/(s*node)") == pytest.approx(8 * 989.5e-3)
    assert mag(r["node_gpu_power"], "kW/node") == pytest.approx(5.6)
    assert mag(r["node_hbm_bandwidth"], "TB/(s*node)") == pytest.approx(8 * 3.35)
    assert 8 * value("H100", "peak_flops_fp8", "TFLOP/(s*GPU)") * 2 == pytest.approx(31_664)


def test_tpu_pod_totals_against_the_scaling_book():
    # v5e: 256 x 197 TFLOP/s = 50.4 PFLOP/s (the book: 5.1e16 with 2e14 per chip);
    # 256 x 16 GB = 4.1 TB (the book: 4 TB)
    v5e = nm.solve(["pod_peak_flops", "pod_hbm_capacity"], gpu="TPU-v5e")
    assert mag(v5e["pod_peak_flops"], "PFLOP/s") == pytest.approx(256 * 0.197)
    assert mag(v5e["pod_hbm_capacity"], "TB") == pytest.approx(4.096)
    # v5p: 8,960 x 459 TFLOP/s = 4.11 EFLOP/s (the book: 4e18); HBM 8,960 x 95 GiB = 914 TB
    # (the book multiplies 96 GB: 860 TB)
    v5p = nm.solve(["pod_peak_flops", "pod_hbm_capacity"], gpu="TPU-v5p")
    assert mag(v5p["pod_peak_flops"], "PFLOP/s") == pytest.approx(8960 * 0.459)
    assert mag(v5p["pod_peak_flops"], "FLOP/s") == pytest.approx(4e18, rel=0.03)
    assert mag(v5p["pod_hbm_capacity"], "TB") == pytest.approx(8960 * 95 * 2**30 / 1e12)


def test_nvl72_rack_from_the_per_gpu_record():
    # 72 x 2,500 TFLOP/s = 180 PFLOP/s dense BF16: NVIDIA's 360 PFLOP/s rack figure is sparse
    r = nm.solve("pod_peak_flops", gpu="GB200")
    assert mag(r.value, "PFLOP/s") == pytest.approx(180)


@pytest.mark.parametrize(
    ("gpu", "sms", "per_clock", "ghz"),
    [
        ("H100", 132, 4096, 1.83),  # 989.43 against 989.5
        ("A100", 108, 2048, 1.41),  # 311.87 against 312
    ],
)
def test_datasheet_peak_from_the_clock(gpu, sms, per_clock, ghz):
    r = nm.solve(
        "peak_flops_from_clock",
        compute_units=f"{sms}/GPU",
        flop_per_cycle_per_unit=f"{per_clock} FLOP",
        clock_rate=f"{ghz} GHz",
    )
    assert mag(r.value, "TFLOP/(s*GPU)") == pytest.approx(sms * per_clock * ghz * 1e9 / 1e12)
    assert mag(r.value, "TFLOP/(s*GPU)") == pytest.approx(
        value(gpu, "peak_flops", "TFLOP/(s*GPU)"), rel=0.001
    )


# --- the new accelerator records --------------------------------------------------------------
def test_h800_is_an_h100_with_a_narrower_nvlink():
    assert value("H800", "peak_flops", "TFLOP/(s*GPU)") == value(
        "H100", "peak_flops", "TFLOP/(s*GPU)"
    )
    assert value("H800", "nvlink_bandwidth_bidirectional", "GB/(s*GPU)") == 400
    assert value("H800", "nvlink_bandwidth", "GB/(s*GPU)") == 200
    # the 2 USD per GPU-hour DeepSeek assumed: 2.788e6 GPU-hours -> 5.576e6 USD (Table 1)
    assert value("H800", "price_per_gpu_hour", "USD/(GPU*hour)") * 2.788e6 == pytest.approx(5.576e6)


def test_a100_40gb_and_h200_nvl_records():
    assert value("A100-40GB", "hbm_capacity", "GB/GPU") == 40
    assert value("A100-40GB", "hbm_bandwidth", "TB/(s*GPU)") == pytest.approx(1.555)
    assert value("H200 NVL", "hbm_capacity", "GB/GPU") == 141
    assert value("H200 NVL", "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(1671 / 2)
    assert value("H200 NVL", "tdp", "W/GPU") == 600


def test_training_run_records_cite_what_they_print():
    run = get("llama-3.1-405b-pretraining")
    assert run.kind == "model" and run.id == "llama-3-405b-pretraining"
    assert value(run.id, "tokens", "token") == 15.6e12
    assert value(run.id, "gpu_hours", "GPU*hour") == 30.84e6
    assert value(run.id, "n_gpus", "GPU") == 16384
    assert "model card" in run.values["gpu_hours"].source
    ds = get("deepseek-v3-pretraining")
    assert value(ds.id, "gpu_hours", "GPU*hour") == 2.664e6
    assert value(ds.id, "tokens", "token") == 14.8e12
    # 180K GPU-hours per trillion tokens (DeepSeek-V3 report): 14.8 x 180e3 = 2.664e6
    per_trillion = 14.8 * 180e3
    assert per_trillion == pytest.approx(value(ds.id, "gpu_hours", "GPU*hour"))


def test_the_architecture_record_never_brings_a_training_fleet():
    # a serving question about llama-3-405b must not pick up the 16,384 GPUs of its run
    assert "n_gpus" not in get("llama-3-405b").values
    assert "gpu_hours" not in get("llama-3-405b").values
