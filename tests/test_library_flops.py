"""FLOPs with attention and utilization from measurements (formulas/flops.py,
formulas/utilization.py), against the papers' own numbers.

- PaLM (Chowdhery et al. 2022, App. B): 540B (540.35e9 params), L = 118, H = 48, Q = 256,
  T = 2,048; 238.3k tokens/s on 6,144 TPU v4 chips at 275 TFLOP/s: MFU 46.2%.
- Korthikanti et al. 2022, Table 3 and Table 5 (A100 at 312 TFLOP/s, s = 2,048, V = 51,200):
  22B (h 6,144, L 48, 8 GPUs, batch 4) 1.10 s, MFU 41.5%, HFU 43.7%; 175B (h 12,288, L 96, 64
  GPUs, batch 64) 13.75 s, 51.4% / 52.8%, 18.13 s with full recomputation; 530B (h 20,480,
  L 105, 280 GPUs, batch 280) 37.83 s, 56.0% / 57.0%; 1T (h 25,600, L 128, 512 GPUs, batch
  512) 71.49 s, 56.3% / 57.0%.
- Llama 3 (arXiv:2407.21783) with the Llama 3.1 model card: 405e9 params, 15.6e12 tokens,
  3.8e25 FLOP, 30.84e6 H100-hours: MFU 0.346 over all the GPU-hours.
"""

import pytest
from helpers import mag

import napkinmath as nm

H100 = 989.5e12  # FLOP/s per GPU, dense BF16 (the H100-SXM record)
A100 = 312e12


# --- PaLM: 6N + 12·L·H·Q·T --------------------------------------------------------------------
PALM = dict(params="540.35B", n_layers=118, n_heads=48, head_dim=256, seq_len=2048)
PALM_ATTN = 12 * 118 * 48 * 256 * 2048  # 3.5635e10 FLOP per token
PALM_FLOP_PER_TOKEN = 6 * 540.35e9 + PALM_ATTN  # 3.2421e12 + 3.56e10 = 3.2777e12


def test_palm_training_flops_per_token_with_attention():
    r = nm.solve(["attention_flop_per_token", "train_flop_per_token"], **PALM)
    assert mag(r["attention_flop_per_token"], "FLOP/token") == PALM_ATTN
    assert mag(r["train_flop_per_token"], "FLOP/token") == pytest.approx(PALM_FLOP_PER_TOKEN)


def test_palm_540b_mfu_is_46_percent():
    # 238.3e3 tokens/s / 6,144 chips = 38.79 tokens/(s·chip); x 3.2777e12 / 275e12 = 0.4623
    r = nm.solve(
        "mfu_with_attention",
        train_throughput_per_gpu=f"{238.3e3 / 6144} token/(s*chip)",
        peak_flops="275 TFLOP/(s*chip)",
        **PALM,
    )
    hand = 238.3e3 / 6144 * PALM_FLOP_PER_TOKEN / 275e12
    assert mag(r.value) == pytest.approx(hand, rel=1e-9)
    assert mag(r.value) == pytest.approx(0.462, abs=0.0005)  # PaLM Table 3 and App. B: 46.2%
    # the 6N count alone: 38.79 x 3.2421e12 / 275e12 = 0.457
    six_n = nm.solve(
        "mfu",
        train_throughput_per_gpu=f"{238.3e3 / 6144} token/(s*chip)",
        peak_flops="275 TFLOP/(s*chip)",
        params="540.35B",
    )
    assert mag(six_n.value) == pytest.approx(0.457, abs=0.001)


def test_inference_flops_add_the_attention_over_the_context():
    # Llama 3 70B at a 32,768-token context: 2N = 1.41e11; attention 4 x 80 x 64 x 128 x 32,768
    # = 8.59e10 FLOP per generated token, 61% more on top of the weights
    r = nm.solve(
        ["inference_attention_flop_per_token", "inference_flop_per_token_with_attention"],
        model="llama-3-70b",
        seq_len=32768,
    )
    attn = 4 * 80 * 64 * 128 * 32768
    assert mag(r["inference_attention_flop_per_token"], "FLOP/token") == attn
    assert mag(r["inference_flop_per_token_with_attention"], "FLOP/token") == pytest.approx(
        2 * 70.6e9 + attn
    )


# --- Megatron: 72·B·s·L·h²·(1 + s/(6h) + V/(12hL)) -------------------------------------------
def megatron(h, layers, gpus, batch, seconds):
    return dict(
        hidden_size=h,
        n_layers=layers,
        n_gpus=gpus,
        global_batch=batch,
        seq_len=2048,
        vocab_size=51200,
        step_time=f"{seconds} s",
        peak_flops="312 TFLOP/(s*GPU)",
    )


def model_flops(h, layers, batch, s=2048, v=51200):
    return 72 * batch * s * layers * h**2 * (1 + s / (6 * h) + v / (12 * h * layers))


def selective_flops(h, layers, batch, s=2048, v=51200):
    return 72 * batch * s * layers * h**2 * (1 + s / (3 * h) + v / (12 * h * layers))


def full_flops(h, layers, batch, s=2048, v=51200):
    return 96 * batch * s * layers * h**2 * (1 + s / (6 * h) + v / (16 * h * layers))


def test_megatron_counts_are_the_papers_formulas():
    g = megatron(12288, 96, 64, 64, 13.75)
    r = nm.solve(
        [
            "megatron_model_flops",
            "megatron_hardware_flops_selective",
            "megatron_hardware_flops_full",
        ],
        **g,
    )
    assert mag(r["megatron_model_flops"], "FLOP") == pytest.approx(model_flops(12288, 96, 64))
    assert mag(r["megatron_hardware_flops_selective"], "FLOP") == pytest.approx(
        selective_flops(12288, 96, 64)
    )
    assert mag(r["megatron_hardware_flops_full"], "FLOP") == pytest.approx(
        full_flops(12288, 96, 64)
    )
    # 175B: 1.3680e17 x 1.03140 = 1.4109e17 FLOP per iteration of 64 x 2,048 tokens
    assert mag(r["megatron_model_flops"], "FLOP") == pytest.approx(1.4109e17, rel=1e-4)


@pytest.mark.parametrize(
    ("h", "layers", "gpus", "batch", "seconds", "mfu", "hfu"),
    [
        (6144, 48, 8, 4, 1.10, 0.415, 0.437),
        (12288, 96, 64, 64, 13.75, 0.514, 0.528),
        (20480, 105, 280, 280, 37.83, 0.560, 0.570),
        (25600, 128, 512, 512, 71.49, 0.563, 0.570),
    ],
)
def test_korthikanti_table_5_mfu_and_hfu(h, layers, gpus, batch, seconds, mfu, hfu):
    r = nm.solve(
        ["megatron_mfu", "megatron_hfu_selective"], **megatron(h, layers, gpus, batch, seconds)
    )
    hand_mfu = model_flops(h, layers, batch) / (seconds * gpus * A100)
    hand_hfu = selective_flops(h, layers, batch) / (seconds * gpus * A100)
    assert mag(r["megatron_mfu"]) == pytest.approx(hand_mfu, rel=1e-9)
    assert mag(r["megatron_hfu_selective"]) == pytest.approx(hand_hfu, rel=1e-9)
    # Table 5 prints one decimal of a percent; the iteration times are rounded too
    assert mag(r["megatron_mfu"]) == pytest.approx(mfu, abs=0.0025)
    assert mag(r["megatron_hfu_selective"]) == pytest.approx(hfu, abs=0.0035)


def test_full_recomputation_runs_a_third_more_and_is_31_percent_slower():
    # 175B with full recomputation: 18.13 s; the same model FLOPs give MFU 1.4109e17 /
    # (18.13 x 64 x 312e12) = 0.390; the hardware ran 1.8796e17: HFU 0.519
    r = nm.solve(["megatron_mfu", "megatron_hfu_full"], **megatron(12288, 96, 64, 64, 18.13))
    assert mag(r["megatron_mfu"]) == pytest.approx(
        model_flops(12288, 96, 64) / (18.13 * 64 * A100), rel=1e-9
    )
    assert mag(r["megatron_hfu_full"]) == pytest.approx(
        full_flops(12288, 96, 64) / (18.13 * 64 * A100), rel=1e-9
    )
    speedup = 18.13 / 13.75 - 1  # Table 5: +31.8% throughput
    assert speedup == pytest.approx(0.318, abs=0.001)


# --- MFU from measurements ------------------------------------------------------------------
def test_mfu_from_achieved_tflops_per_gpu():
    # Llama 3 paper, Table 4 (as recalled): 430 TFLOP/s per GPU is 43% BF16 MFU, 380 is 38%
    for achieved, reported in ((430, 0.43), (380, 0.38)):
        r = nm.solve("mfu", achieved_flops=f"{achieved} TFLOP/(s*GPU)", gpu="H100")
        assert mag(r.value) == pytest.approx(achieved * 1e12 / H100)
        assert mag(r.value) == pytest.approx(reported, abs=0.005)


def test_mfu_from_tokens_per_second_per_gpu_matches_w14():
    # W14: 1,024 x 8,192 tokens per 4 s step on 256 GPUs = 8,192 tokens/(s·GPU);
    # 6 x 8e9 x 8,192 = 3.932e14 FLOP/s per GPU over 989.5e12 = 0.3974
    r = nm.solve(
        ["achieved_flops", "mfu"],
        params="8e9",
        train_throughput_per_gpu="8192 token/(s*GPU)",
        gpu="H100",
    )
    assert mag(r["achieved_flops"], "TFLOP/(s*GPU)") == pytest.approx(6 * 8e9 * 8192 / 1e12)
    assert mag(r["mfu"]) == pytest.approx(6 * 8e9 * 8192 / H100)
    w14 = nm.solve(
        "mfu",
        params="8e9",
        global_batch=1024,
        seq_len=8192,
        n_gpus=256,
        step_time="4 s",
        gpu="H100",
    )
    assert mag(r["mfu"]) == pytest.approx(mag(w14.value), rel=1e-12)


def test_fleet_tokens_per_second_share_out_per_gpu():
    # 2.67e6 tokens/s (W10) over 16,384 GPUs = 163 tokens/(s·GPU)
    r = nm.solve("train_throughput_per_gpu", train_throughput="2.67e6 token/s", n_gpus=16384)
    assert mag(r.value, "token/(s*GPU)") == pytest.approx(2.67e6 / 16384)


def test_hfu_with_full_recomputation_is_four_thirds_of_mfu():
    # 8N hardware FLOPs per token against 6N model FLOPs: 0.40 x 8/6 = 0.533
    r = nm.solve("hfu", mfu=0.40)
    assert mag(r.value) == pytest.approx(0.40 * 8 / 6)
    assert "ASSUMPTION" in str(r)  # the 8 FLOP per parameter per token is stated
    assert mag(nm.solve("hfu", mfu=0.40, hardware_flop_per_param_token=6).value) == 0.40


# --- back-solves from the training-run records --------------------------------------------
def test_llama_405b_mfu_back_solved_from_its_record():
    # 3.8e25 FLOP / (30.84e6 h x 3,600 s/h x 989.5e12 FLOP/s) = 0.3459 (W6: 0.345)
    r = nm.solve("mfu", model="llama-3.1-405b-pretraining", gpu="H100")
    assert mag(r.value) == pytest.approx(3.8e25 / (30.84e6 * 3600 * H100), rel=1e-9)
    assert mag(r.value) == pytest.approx(0.345, rel=0.01)


def test_deepseek_v3_mfu_back_solved_against_the_bf16_and_fp8_peaks():
    # 6 x 37e9 x 14.8e12 = 3.2856e24 FLOP over 2.664e6 H800-hours: 3.2856e24 / (2.664e6 x
    # 3,600 x 989.5e12) = 0.346 against dense BF16; FP8 (1,979 TFLOP/s) halves it: 0.173
    bf16 = nm.solve("mfu", model="deepseek-v3-pretraining", gpu="H800")
    assert mag(bf16.value) == pytest.approx(6 * 37e9 * 14.8e12 / (2.664e6 * 3600 * H100))
    fp8 = nm.solve(
        "mfu", model="deepseek-v3-pretraining", gpu="H800", peak_flops="1979 TFLOP/(s*GPU)"
    )
    assert mag(fp8.value) == pytest.approx(mag(bf16.value) / 2)


def test_training_run_records_give_the_wall_clock_their_gpu_hours_imply():
    # DeepSeek-V3: 2.664e6 GPU-hours / 2,048 GPUs = 1,300.8 h = 54.2 days of pre-training
    r = nm.solve("train_time", model="deepseek-v3-pretraining")
    assert mag(r.value, "day") == pytest.approx(2.664e6 / 2048 / 24)


def test_the_cli_back_solve_reads_the_run_record(napkin):
    status, out, _ = napkin(
        "solve", "mfu", "--model", "llama-3.1-405b-pretraining", "--gpu", "H100"
    )
    assert status == 0 and out.startswith("mfu = 34.59%")
    assert "llama-3-405b-pretraining" in out and "model card" in out
