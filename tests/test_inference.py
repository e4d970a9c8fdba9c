"""Worked examples W15, W16, W20 and quantized weights and KV cache.

Every expectation is hand arithmetic written beside the call. Hardware values are given
explicitly (H100 SXM: 80 GB, 3.35 TB/s, 989 TFLOP/s dense BF16; TPU v6e: 918 TFLOP/s,
1.64 TB/s), so the tests do not depend on hardware records.
"""

import pytest
from helpers import mag

import napkinmath as nm

# Llama-3-70B (arXiv:2407.21783, Table 3): 80 layers, 64 query heads, 8 KV heads, head dim 128.
LLAMA3_70B = dict(n_layers=80, n_kv_heads=8, head_dim=128)
H100 = dict(
    hbm_capacity="80 GB/GPU", hbm_bandwidth="3.35 TB/(s*GPU)", peak_flops="989 TFLOP/(s*GPU)"
)
KV_PER_TOKEN = 2 * 80 * 8 * 128 * 2  # 327,680 B/token


# --- W15: KV-cache sizing --------------------------------------------------------------------
def test_w15_gqa_bytes_per_token():
    r = nm.solve("kv_bytes_per_token", **LLAMA3_70B)
    assert KV_PER_TOKEN == 327_680  # 2 (K and V) * 80 layers * 8 heads * 128 dims * 2 B
    assert mag(r.value, "B/token") == KV_PER_TOKEN
    assert mag(r.value, "KiB/token") == 320  # 327,680 / 1024
    assert "kv_bytes_per_element" in r.assumptions  # bf16 is a stated assumption


def test_w15_batch_of_32_at_8192():
    r = nm.solve("kv_cache_memory", seq_len=8192, batch_size=32, **LLAMA3_70B)
    hand = 327_680 * 8192 * 32  # 85,899,345,920 B
    assert mag(r.value, "B") == pytest.approx(hand, rel=1e-12)
    assert mag(r.value, "GB") == pytest.approx(85.9, rel=0.001)
    assert mag(r.value, "GiB") == pytest.approx(80.0, rel=1e-12)  # 85.9e9 B is 80 GiB exactly


def test_w15_heads_instead_of_kv_heads_is_eight_times_too_much():
    # MHA formula applied with the 64 query heads: the classic mistake for a GQA model.
    r = nm.solve("kv_bytes_per_token", n_layers=80, n_kv_heads=64, head_dim=128)
    hand = 2 * 80 * 64 * 128 * 2  # 2,621,440 B/token = 2.62 MB
    assert mag(r.value, "B/token") == hand
    assert mag(r.value, "MB/token") == pytest.approx(2.62, rel=0.001)
    assert hand / KV_PER_TOKEN == 8


def test_w15_mqa_one_kv_head():
    r = nm.solve("kv_bytes_per_token", n_layers=80, n_kv_heads=1, head_dim=128)
    assert mag(r.value, "B/token") == 2 * 80 * 1 * 128 * 2  # 40,960


def test_w15_mla_deepseek_v3():
    r = nm.solve("kv_bytes_per_token", n_layers=61, kv_lora_rank=512, qk_rope_head_dim=64)
    assert mag(r.value, "B/token") == 61 * (512 + 64) * 2 == 70_272
    assert r.steps[0].formulas[0].name == "kv_cache_per_token_mla"


def test_w15_mla_inverse_latent_rank():
    r = nm.solve(
        "kv_lora_rank", kv_bytes_per_token="70272 B/token", n_layers=61, qk_rope_head_dim=64
    )
    assert r.value.magnitude == pytest.approx(70_272 / (61 * 2) - 64)  # 512


def test_w15_inverse_context_that_fits_a_budget():
    r = nm.solve("seq_len", kv_cache_memory="85.89934592 GB", batch_size=32, **LLAMA3_70B)
    assert mag(r.value, "token/sequence") == pytest.approx(85.89934592e9 / (32 * 327_680))
    assert mag(r.value, "token/sequence") == pytest.approx(8192, rel=1e-9)


def test_w15_inverse_batch_that_fits_a_budget():
    r = nm.solve("batch_size", kv_cache_memory="40 GB", seq_len=8192, **LLAMA3_70B)
    assert mag(r.value, "sequence") == pytest.approx(40e9 / (327_680 * 8192))  # 14.9


# --- Users a replica holds after its weights --------------------------------------------------
# A serving engine uses 90% of each GPU's HBM by default (vLLM gpu_memory_utilization = 0.9):
# 0.9 x 80 GB = 72 GB per GPU for weights and KV cache (hbm_usable_fraction).
REPLICA = dict(n_gpus=4, weight_memory="141 GB", seq_len=8192, **LLAMA3_70B, **H100)


def test_sequences_that_fit_in_a_replica():
    r = nm.solve(["kv_memory_budget", "max_concurrent_sequences"], **REPLICA)
    budget = 0.9 * 4 * 80e9 - 141e9  # 288 GB usable - 141 GB of weights = 147 GB
    per_sequence = 327_680 * 8192  # 2.684 GB of KV per 8k-token sequence
    assert mag(r["kv_memory_budget"], "GB") == pytest.approx(budget / 1e9)
    assert mag(r["max_concurrent_sequences"], "sequence") == pytest.approx(budget / per_sequence)
    assert budget / per_sequence == pytest.approx(54.77, rel=0.001)
    assert "hbm_usable_fraction" in r.assumptions  # the 90% is a stated assumption


def test_sequences_with_all_of_hbm_usable():
    # the user's own fraction is used, not the default: 4 x 80 GB - 141 GB = 179 GB
    r = nm.solve("max_concurrent_sequences", hbm_usable_fraction=1, **REPLICA)
    assert mag(r.value, "sequence") == pytest.approx((4 * 80e9 - 141e9) / (327_680 * 8192))


def test_whole_sequences_round_down():
    r = nm.solve("max_concurrent_sequences_whole", **REPLICA)
    assert mag(r.value, "sequence") == 54  # floor(147e9 / 2.684e9) = floor(54.77)
    headline = nm.solve("max_concurrent_sequences", **REPLICA).headline()[0]
    assert "54 sequence" in headline


def test_inverse_context_length_for_a_user_count():
    r = nm.solve(
        "seq_len",
        max_concurrent_sequences=32,
        n_gpus=4,
        weight_memory="141 GB",
        **LLAMA3_70B,
        **H100,
    )
    hand = (0.9 * 4 * 80e9 - 141e9) / (32 * 327_680)  # 147 GB / 10.49 MB: 14,019 token
    assert mag(r.value, "token/sequence") == pytest.approx(hand)


def test_inverse_gpus_for_weights_and_users():
    r = nm.solve(
        "n_gpus",
        max_concurrent_sequences=32,
        seq_len=8192,
        weight_memory="141 GB",
        **LLAMA3_70B,
        **H100,
    )
    hand = (141e9 + 32 * 8192 * 327_680) / (0.9 * 80e9)  # (141 + 85.9) GB / 72 GB = 3.15 GPU
    assert mag(r.value, "GPU") == pytest.approx(hand)


def test_weights_that_do_not_fit_name_the_budget():
    with pytest.raises(nm.NoRootError) as err:
        nm.solve(
            "max_concurrent_sequences",
            n_gpus=1,
            weight_memory="141 GB",
            seq_len=8192,
            **LLAMA3_70B,
            **H100,
        )
    assert "kv_memory_budget" in str(err.value)  # 0.9 x 80 GB - 141 GB < 0


# --- W16: bandwidth-bound decode -----------------------------------------------------------
W16 = dict(weight_memory="141 GB", n_gpus=4, hbm_bandwidth="3.35 TB/(s*GPU)")


def test_w16_single_stream_upper_bound():
    r = nm.solve(["decode_step_time", "decode_speed"], kv_cache_memory="0 GB", **W16)
    step = 141e9 / (4 * 3.35e12)  # 10.52 ms to read every weight once
    assert mag(r["decode_step_time"], "s") == pytest.approx(step)
    assert mag(r["decode_speed"], "token/(s*sequence)") == pytest.approx(1 / step)
    assert 1 / step == pytest.approx(95, rel=0.01)  # 95.04 token/s


def test_w16_from_parameters_and_preset():
    r = nm.solve("decode_speed", params_total="70.6B", kv_cache_memory="0 GB", n_gpus=4, gpu="H100")
    hand = 4 * 3.35e12 / (70.6e9 * 2)  # 141.2 GB of bf16 weights: 94.9 token/s
    assert mag(r.value, "token/(s*sequence)") == pytest.approx(hand)


def test_w16_inverse_gpus_for_a_speed():
    r = nm.solve(
        "n_gpus",
        decode_speed="95.04 token/(s*sequence)",
        kv_cache_memory="0 GB",
        weight_memory="141 GB",
        hbm_bandwidth="3.35 TB/(s*GPU)",
    )
    assert mag(r.value, "GPU") == pytest.approx(95.04 * 141e9 / 3.35e12)  # 4.0


def test_w16_batch_reads_the_kv_cache_too():
    r = nm.solve(
        ["decode_speed", "decode_throughput"], batch_size=32, seq_len=8192, **LLAMA3_70B, **W16
    )
    step = (141e9 + 32 * 8192 * 327_680) / (4 * 3.35e12)  # 226.9 GB per step: 16.93 ms
    assert mag(r["decode_speed"], "token/(s*sequence)") == pytest.approx(1 / step)  # 59.1
    assert mag(r["decode_throughput"], "token/s") == pytest.approx(32 / step)  # 1,890


def test_w16_speculative_decoding_tokens_per_step():
    r = nm.solve(
        "decode_speed", tokens_per_step="1.8 token/sequence", kv_cache_memory="0 GB", **W16
    )
    assert mag(r.value, "token/(s*sequence)") == pytest.approx(1.8 * 4 * 3.35e12 / 141e9)


def test_w16_generation_time():
    r = nm.solve("generation_time", output_len="500 token/sequence", kv_cache_memory="0 GB", **W16)
    assert mag(r.value, "s") == pytest.approx(500 * 141e9 / (4 * 3.35e12))  # 5.26 s


def test_w16_ridge_point_and_compute_bound_batch():
    r = nm.solve(
        ["ridge_point", "decode_compute_bound_batch"], params="70B", params_total="70B", **H100
    )
    ridge = 989e12 / 3.35e12  # 295.2 FLOP/B
    # b* = ridge * weight bytes / (2 FLOP/param/token * params) = ridge * 2/2 for bf16
    assert mag(r["ridge_point"], "FLOP/B") == pytest.approx(ridge)
    assert mag(r["decode_compute_bound_batch"], "sequence") == pytest.approx(ridge)
    assert ridge == pytest.approx(295, rel=0.01)


def test_w16_arithmetic_intensity_of_decode():
    r = nm.solve(
        "decode_arithmetic_intensity",
        batch_size=64,
        params="70B",
        params_total="70B",
        kv_cache_memory="0 GB",
    )
    assert mag(r.value, "FLOP/B") == pytest.approx(64 * 2 * 70e9 / (2 * 70e9))  # 64 FLOP/B


def test_moe_compute_bound_batch_follows_total_over_active():
    # 235B total, 22B active, bf16: reads 470 GB, computes 2 * 22e9 FLOP per token.
    r = nm.solve("decode_compute_bound_batch", params="22B", params_total="235B", **H100)
    hand = 989e12 / 3.35e12 * 235e9 * 2 / (2 * 22e9)  # 295.2 * 10.7 = 3,153 sequences
    assert mag(r.value, "sequence") == pytest.approx(hand)


# --- Prefill and FLOP per token ---------------------------------------------------------------
def test_inference_flop_per_token_dense_and_moe():
    dense = nm.solve("inference_flop_per_token", params="70B")
    moe = nm.solve("inference_flop_per_token", params="22B")
    assert mag(dense.value, "FLOP/token") == pytest.approx(2 * 70e9)  # 1.4e11 (W7)
    assert mag(moe.value, "FLOP/token") == pytest.approx(2 * 22e9)  # 4.4e10 (W7)


def test_prefill_time_at_the_compute_roof_without_a_shape():
    # No shape, no bandwidth, one GPU count: the compute roof alone, the rest stated.
    r = nm.solve(
        "prefill_time",
        params="70B",
        prompt_tokens="8192 token",
        n_gpus=4,
        peak_flops="989 TFLOP/(s*GPU)",
    )
    hand = 2 * 70e9 * 8192 / (4 * 989e12)  # 1.147e15 FLOP / 3.956e15 FLOP/s = 0.29 s
    assert mag(r.value, "s") == pytest.approx(hand)
    text = r.to_text()
    assert "ASSUMPTION: attention over the prompt left out" in text
    assert "ASSUMPTION: the time to read the weights left out" in text


def test_prefill_mfu_from_a_measured_time():
    r = nm.solve(
        "prefill_mfu",
        params="70B",
        prompt_tokens="8192 token",
        n_gpus=4,
        prefill_time_measured="0.8 s",
        peak_flops="989 TFLOP/(s*GPU)",
    )
    assert r.value.magnitude == pytest.approx(2 * 70e9 * 8192 / (4 * 989e12 * 0.8))  # 0.362


# --- W20: roofline across accelerators ------------------------------------------------------
def test_w20_tpu_v6e_and_h100_ridge_points():
    tpu = nm.solve("ridge_point", peak_flops="918 TFLOP/(s*chip)", hbm_bandwidth="1.64 TB/(s*chip)")
    h100 = nm.solve("ridge_point", peak_flops="989 TFLOP/(s*GPU)", hbm_bandwidth="3.35 TB/(s*GPU)")
    assert mag(tpu.value, "FLOP/B") == pytest.approx(918 / 1.64)  # 559.8
    assert mag(tpu.value, "FLOP/B") == pytest.approx(560, rel=0.01)
    assert mag(h100.value, "FLOP/B") == pytest.approx(295, rel=0.01)  # 989 / 3.35 = 295.2
    # TPU v6e needs about 1.9x the batch to leave the bandwidth-bound regime.
    assert mag(tpu.value, "FLOP/B") / mag(h100.value, "FLOP/B") == pytest.approx(1.896, rel=1e-3)


def test_w20_inverse_bandwidth_for_a_ridge():
    r = nm.solve("hbm_bandwidth", ridge_point="560 FLOP/B", peak_flops="918 TFLOP/(s*chip)")
    assert mag(r.value, "TB/(s*GPU)") == pytest.approx(918 / 560)  # 1.64 TB/s


# --- Quantized weights and KV cache -----------------------------------------------------------
def test_fp8_kv_cache_halves_the_bytes():
    r = nm.solve(
        "kv_cache_memory",
        kv_bytes_per_element="1 B/token",
        seq_len=8192,
        batch_size=32,
        **LLAMA3_70B,
    )
    assert mag(r.value, "B") == 2 * 80 * 8 * 128 * 1 * 8192 * 32  # 42.9 GB
    assert "kv_bytes_per_element" not in r.assumptions


def test_kv_bytes_per_element_without_per_token_is_read_per_token_visibly():
    per_token = nm.solve("kv_bytes_per_token", kv_bytes_per_element="1 B/token", **LLAMA3_70B)
    r = nm.solve("kv_bytes_per_token", kv_bytes_per_element="1 B", **LLAMA3_70B)
    assert r.value == per_token.value
    assert r.givens["kv_bytes_per_element"].reading == "1 B, read as per token"
    with pytest.raises(nm.InputError) as err:  # bytes per second is no slip of a missing count
        nm.solve("kv_bytes_per_token", kv_bytes_per_element="1 B/s", **LLAMA3_70B)
    assert "kv_bytes_per_element" in str(err.value) and "B/(token·element)" in str(err.value)
    # bytes per element, as people write it: read per token, shown in the variable's unit
    written = nm.solve("kv_bytes_per_token", kv_bytes_per_element="1 B/element", **LLAMA3_70B)
    assert written.value == per_token.value
    assert written.givens["kv_bytes_per_element"].reading == "1 B/element, read as per token"
    assert "kv_bytes_per_element = 1 B/(token·element)" in str(written)


@pytest.mark.parametrize(("bytes_per_param", "speedup"), [("1 B/param", 2), ("0.5 B/param", 4)])
def test_quantized_weights_decode_faster(bytes_per_param, speedup):
    bf16 = nm.solve(
        "decode_speed",
        params_total="70B",
        kv_cache_memory="0 GB",
        n_gpus=1,
        hbm_bandwidth="3.35 TB/(s*GPU)",
    )
    quant = nm.solve(
        ["weight_memory", "decode_speed"],
        params_total="70B",
        weight_bytes_per_param=bytes_per_param,
        kv_cache_memory="0 GB",
        n_gpus=1,
        hbm_bandwidth="3.35 TB/(s*GPU)",
    )
    assert mag(quant["weight_memory"], "GB") == pytest.approx(140 / speedup)  # 70 or 35 GB
    assert mag(quant["decode_speed"], "token/(s*sequence)") == pytest.approx(
        speedup * mag(bf16.value, "token/(s*sequence)")
    )
    assert mag(bf16.value, "token/(s*sequence)") == pytest.approx(3.35e12 / 140e9)  # 23.9


def test_fp8_weights_on_fp8_peak_keep_the_same_crossover():
    # W8A8: half the bytes and twice the peak; b* = (1979/3.35) * 1/2 = 295.4 sequences.
    r = nm.solve(
        "decode_compute_bound_batch",
        params="70B",
        params_total="70B",
        weight_bytes_per_param="1 B/param",
        peak_flops="1979 TFLOP/(s*GPU)",
        hbm_bandwidth="3.35 TB/(s*GPU)",
    )
    assert mag(r.value, "sequence") == pytest.approx(1979 / 3.35 * 1 / 2)


def test_int4_weights_on_bf16_compute_turn_compute_bound_sooner():
    # W4A16: a quarter of the bytes at the bf16 peak; b* = 295.2 * 0.5 / 2 = 73.8 sequences.
    r = nm.solve(
        "decode_compute_bound_batch",
        params="70B",
        params_total="70B",
        weight_bytes_per_param="0.5 B/param",
        **H100,
    )
    assert mag(r.value, "sequence") == pytest.approx(989 / 3.35 * 0.5 / 2)


# --- CLI --------------------------------------------------------------------------------------
def test_cli_kv_cache(napkin):
    status, out, err = napkin(
        "solve",
        "kv_cache_memory",
        "n_layers=80",
        "n_kv_heads=8",
        "head_dim=128",
        "seq_len=8192",
        "batch_size=32",
    )
    assert status == 0, err
    assert out.startswith("kv_cache_memory = 85.9 GB")
    assert "KV cache per token (MHA, GQA, MQA)" in out
