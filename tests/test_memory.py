"""Worked examples W4 (training state, LoRA), W13 (activation memory) and W7 (MoE), ZeRO stages,
and their inverses. Hand arithmetic beside every expectation.

Decimal units: 1 GB = 1e9 B, 1 TB = 1e12 B. H100: 80 GB of HBM, 8 GPUs per node.
"""

import math

import pytest
from helpers import mag

import napkinmath as nm


# --- W4: static training state -----------------------------------------------------------------
def test_w4_sixteen_bytes_per_param_by_part():
    r = nm.solve(["optimizer_bytes_per_param", "state_bytes_per_param"], params_total="70e9")
    assert mag(r["optimizer_bytes_per_param"], "B/param") == 4 + 4 + 4  # master, m, v
    assert mag(r["state_bytes_per_param"], "B/param") == 2 + 2 + 12  # 16
    assert {
        "grad_bytes_per_param",
        "master_bytes_per_param",
        "adam_m_bytes_per_param",
        "adam_v_bytes_per_param",
        "weight_bytes_per_param",
    } <= set(r.assumptions)


def test_w4_training_state_and_gpus_to_hold_it():
    r = nm.solve(
        ["training_state_memory", "n_gpus_for_state", "n_gpus_for_state_whole_nodes"],
        params_total="70e9",
        gpu="H100",
    )
    assert mag(r["training_state_memory"], "TB") == pytest.approx(70e9 * 16 / 1e12)  # 1.12
    assert mag(r["n_gpus_for_state"], "GPU") == math.ceil(1120 / 80)  # 14
    assert mag(r["n_gpus_for_state_whole_nodes"], "GPU") == 8 * math.ceil(14 / 8)  # 16
    assert f"{r['training_state_memory']:~P}" == "1.12 TB"


def test_w4_gpu_count_headline_shows_whole_nodes():
    r = nm.solve("n_gpus_for_state", params_total="70e9", gpu="H100")
    assert "n_gpus_for_state = 14 GPU" in r.headline()[0]
    assert "n_gpus_for_state_whole_nodes = 16 GPU" in r.headline()[0]


def test_w4_inverse_params_a_training_state_allows():
    r = nm.solve("params_total", training_state_memory="1.12 TB")
    assert mag(r.value, "param") == pytest.approx(1.12e12 / 16)  # 70e9


def test_w4_fp32_gradients_change_the_total():
    r = nm.solve("training_state_memory", params_total="70e9", grad_bytes_per_param="4 B/param")
    assert mag(r.value, "TB") == pytest.approx(70e9 * (2 + 4 + 12) / 1e12)  # 1.26 TB


def test_w4_gpus_for_state_cannot_be_inverted():
    with pytest.raises(nm.NotInvertibleError) as err:
        nm.solve("training_state_memory", n_gpus_for_state=14, gpu="H100")
    assert "rounds up" in str(err.value) and "n_gpus_for_state" in str(err.value)


# --- W4: LoRA ---------------------------------------------------------------------------------
W4_LORA = dict(
    params_total="70.6e9",
    lora_rank=16,
    lora_d_in=8192,
    lora_d_out=8192,
    lora_target_matrices=4,
    n_layers=80,
)
LORA_PARAMS = 16 * (8192 + 8192) * 4 * 80  # 83,886,080 adapter parameters


def test_w4_lora_frozen_weights_and_adapter_state():
    r = nm.solve(["weight_memory", "lora_params", "lora_adapter_memory", "lora_memory"], **W4_LORA)
    assert mag(r["weight_memory"], "GB") == pytest.approx(70.6e9 * 2 / 1e9)  # 141.2 GB
    assert mag(r["lora_params"], "param") == pytest.approx(LORA_PARAMS)  # tens of millions
    assert mag(r["lora_adapter_memory"], "GB") == pytest.approx(LORA_PARAMS * 16 / 1e9)
    assert mag(r["lora_memory"], "GB") == pytest.approx(141.2 + LORA_PARAMS * 16 / 1e9)


def test_w4_qlora_stores_frozen_weights_in_four_bits():
    r = nm.solve("lora_memory", weight_bytes_per_param="0.5 B/param", **W4_LORA)
    assert mag(r.value, "GB") == pytest.approx(70.6e9 * 0.5 / 1e9 + LORA_PARAMS * 16 / 1e9)


def test_w4_inverse_lora_rank_for_an_adapter_budget():
    without_rank = {k: v for k, v in W4_LORA.items() if k != "lora_rank"}
    r = nm.solve("lora_rank", lora_adapter_memory="2 GB", **without_rank)
    hand = 2e9 / 16 / ((8192 + 8192) * 4 * 80)  # 23.8
    assert r.value.magnitude == pytest.approx(hand, rel=1e-9)


# --- ZeRO / FSDP sharding over data-parallel ranks --------------------------------------------
def test_zero_stages_per_gpu():
    r = nm.solve(
        [
            "zero0_memory_per_gpu",
            "zero1_memory_per_gpu",
            "zero2_memory_per_gpu",
            "zero3_memory_per_gpu",
        ],
        params_total="70e9",
        dp=8,
    )
    # W = G = 140 GB, O = 840 GB (ZeRO paper, Fig. 1 with Psi = 70e9, K = 12, N_d = 8)
    assert mag(r["zero0_memory_per_gpu"], "GB") == pytest.approx(140 + 140 + 840)  # 1,120
    assert mag(r["zero1_memory_per_gpu"], "GB") == pytest.approx(140 + 140 + 840 / 8)  # 385
    assert mag(r["zero2_memory_per_gpu"], "GB") == pytest.approx(140 + 980 / 8)  # 262.5
    assert mag(r["zero3_memory_per_gpu"], "GB") == pytest.approx(1120 / 8)  # 140


def test_zero3_with_tensor_and_pipeline_parallelism():
    r = nm.solve("zero3_memory_per_gpu", params_total="405e9", tp=8, pp=16, dp=128)
    assert mag(r.value, "GB") == pytest.approx(405e9 * 16 / (8 * 16 * 128) / 1e9)  # 0.4 GB


def test_zero3_from_the_fleet_size():
    r = nm.solve("zero3_memory_per_gpu", params_total="70e9", n_gpus=64)
    assert mag(r.value, "GB") == pytest.approx(1120 / 64)  # 17.5 GB; dp = 64 GPUs / 1


def test_inverse_params_a_per_gpu_budget_allows():
    r = nm.solve("params_total", zero3_memory_per_gpu="80 GB", dp=8)
    assert mag(r.value, "param") == pytest.approx(80e9 * 8 / 16)  # 40e9
    r = nm.solve("params_total", zero1_memory_per_gpu="80 GB", dp=8)
    assert mag(r.value, "param") == pytest.approx(80e9 / (2 + 2 + 12 / 8))  # 14.5e9


def test_inverse_data_parallel_ranks_zero1_needs():
    r = nm.solve("dp", params_total="7e9", zero1_memory_per_gpu="40 GB")
    # 7e9 x (2 + 2) = 28 GB unsharded; 84 GB of optimizer state over dp fits 12 GB: dp = 7
    assert r.value.magnitude == pytest.approx(84 / (40 - 28))


# --- W13: activation memory (Korthikanti et al. 2022) -------------------------------------------
W13 = dict(seq_len=8192, batch_size=1, hidden_size=8192, n_heads=64, n_layers=80)
SBH = 8192 * 1 * 8192  # 67,108,864 token x hidden


def test_w13_per_layer_without_flash_attention():
    r = nm.solve("activation_memory_per_layer", **W13)
    hand = SBH * (34 + 5 * 64 * 8192 / 8192)  # s b h (34 + 5 a s / h) = 2.376e10 B
    assert mag(r.value, "B") == pytest.approx(hand, rel=1e-12)
    assert hand / 1e9 == pytest.approx(23.8, rel=0.01)


def test_w13_flash_attention_per_layer_and_total():
    r = nm.solve(["activation_memory_per_layer_flash", "activation_memory_flash"], **W13)
    per_layer = 34 * SBH / 1e9  # 2.28 GB
    total = 80 * per_layer  # 182.5 GB
    assert mag(r["activation_memory_per_layer_flash"], "GB") == pytest.approx(per_layer)
    assert per_layer == pytest.approx(2.28, rel=0.01)
    assert mag(r["activation_memory_flash"], "GB") == pytest.approx(total)
    assert total == pytest.approx(182.5, rel=0.01)


def test_w13_full_recomputation_total():
    r = nm.solve("activation_memory_recompute", **W13)
    total = 80 * 2 * SBH / 1e9  # 10.7 GB: each layer's input only
    assert mag(r.value, "GB") == pytest.approx(total)
    assert total == pytest.approx(10.7, rel=0.01)


def test_w13_full_recomputation_costs_8nd():
    six = nm.solve("train_compute", params="70e9", tokens="15e12")
    eight = nm.solve("train_compute", params="70e9", tokens="15e12", flop_per_param_token=8)
    assert mag(eight.value, "FLOP") == pytest.approx(8 * 70e9 * 15e12)
    assert mag(eight.value, "FLOP") / mag(six.value, "FLOP") == pytest.approx(4 / 3)


def test_w13_sequence_parallel_divides_by_tp():
    # with Megatron's sequence parallelism (sp = tp) all 34 bytes are split over the 8 ranks
    r = nm.solve("activation_memory_flash", tp=8, sp=8, **W13)
    assert mag(r.value, "GB") == pytest.approx(182.536 / 8, rel=1e-5)  # 22.8 GB per GPU


def test_w13_inverse_context_length_a_budget_allows():
    without_s = {k: v for k, v in W13.items() if k != "seq_len"}
    r = nm.solve("seq_len", activation_memory_flash="40 GB", **without_s)
    hand = 40e9 / (80 * 34 * 1 * 8192)  # 1,795 tokens per sequence
    assert mag(r.value, "token/sequence") == pytest.approx(hand, rel=1e-9)


def test_w13_inverse_of_the_quadratic_form():
    without_s = {k: v for k, v in W13.items() if k != "seq_len"}
    r = nm.solve("seq_len", activation_memory_per_layer="23.756537856 GB", **without_s)
    assert mag(r.value, "token/sequence") == pytest.approx(8192, rel=1e-9)


# --- W7: MoE, memory follows total, compute follows active ----------------------------------------
def test_w7_memory_follows_total_params():
    moe = nm.solve(["weight_memory", "training_state_memory"], params_total="235e9")
    dense = nm.solve(["weight_memory", "training_state_memory"], params_total="70e9")
    assert mag(moe["weight_memory"], "GB") == pytest.approx(235e9 * 2 / 1e9)  # 470 GB
    assert mag(dense["weight_memory"], "GB") == pytest.approx(70e9 * 2 / 1e9)  # 140 GB
    assert mag(moe["training_state_memory"], "TB") == pytest.approx(235e9 * 16 / 1e12)  # 3.76
    assert mag(dense["training_state_memory"], "TB") == pytest.approx(1.12)


def test_w7_compute_follows_active_params():
    moe = nm.solve("inference_flop_per_token", params="22e9")
    dense = nm.solve("inference_flop_per_token", params="70e9")
    assert mag(moe.value, "FLOP/token") == pytest.approx(2 * 22e9)  # 4.4e10
    assert mag(dense.value, "FLOP/token") == pytest.approx(2 * 70e9)  # 1.4e11
    train = nm.solve("train_compute", params="22e9", tokens="1T")
    assert mag(train.value, "FLOP") == pytest.approx(6 * 22e9 * 1e12)  # active, not total


def test_w7_both_counts_in_one_solve():
    r = nm.solve(
        ["weight_memory", "inference_flop_per_token", "active_param_fraction"],
        params_total="235e9",
        params="22e9",
    )
    assert mag(r["weight_memory"], "GB") == pytest.approx(470)
    assert mag(r["inference_flop_per_token"], "FLOP/token") == pytest.approx(4.4e10)
    assert r["active_param_fraction"].magnitude == pytest.approx(22 / 235)  # 9.4%


def test_w7_inverse_total_params_from_serving_memory():
    r = nm.solve("params_total", weight_memory="470 GB")
    assert mag(r.value, "param") == pytest.approx(235e9)


def test_moe_expert_structure_gives_both_counts():
    # Mixtral-like: 8 experts of 5.6e9, top-2, 1.6e9 shared
    r = nm.solve(
        ["params_total", "params", "experts_per_rank"],
        shared_params="1.6e9",
        expert_params="5.6e9",
        n_experts=8,
        experts_per_token=2,
        ep=4,
    )
    assert mag(r["params_total"], "param") == pytest.approx(1.6e9 + 8 * 5.6e9)  # 46.4e9
    assert mag(r["params"], "param") == pytest.approx(1.6e9 + 2 * 5.6e9)  # 12.8e9
    assert r["experts_per_rank"].magnitude == pytest.approx(8 / 4)


def test_moe_inverse_expert_size_from_both_counts():
    r = nm.solve(
        ["expert_params", "shared_params"],
        params_total="46.4e9",
        params="12.8e9",
        n_experts=8,
        experts_per_token=2,
    )
    # 46.4e9 - 12.8e9 = 6 experts' worth = 33.6e9: 5.6e9 each, 1.6e9 shared
    assert mag(r["expert_params"], "param") == pytest.approx(5.6e9)
    assert mag(r["shared_params"], "param") == pytest.approx(1.6e9)


# --- CLI ----------------------------------------------------------------------------------------
def test_cli_w4(napkin):
    status, out, err = napkin(
        "solve", "training_state_memory", "n_gpus_for_state", "params_total=70e9", "--gpu", "H100"
    )
    assert status == 0, err
    assert "training_state_memory = 1.12 TB" in out
    assert "n_gpus_for_state = 14 GPU" in out


def test_cli_w13(napkin):
    status, out, err = napkin(
        "solve",
        "activation_memory_flash",
        "seq_len=8192",
        "batch_size=1",
        "hidden_size=8192",
        "n_layers=80",
    )
    assert status == 0, err
    assert out.startswith("activation_memory_flash = 182.5 GB")
    assert "Korthikanti" in out


def test_cli_w7(napkin):
    status, out, err = napkin(
        "solve",
        "weight_memory",
        "inference_flop_per_token",
        "active_param_fraction",
        "params_total=235e9",
        "params=22e9",
    )
    assert status == 0, err
    assert "weight_memory = 470 GB" in out
    assert "inference_flop_per_token = 4.4×10¹⁰ FLOP/token" in out


def test_lora_target_matrices_is_used_or_refused_never_set_aside():
    """7 matrices (every linear layer) without their shapes is refused, naming what the law
    needs; with them it is used: Llama-3-8B, r = 16, q,k,v,o + gate, up, down."""
    with pytest.raises(nm.InputError, match=r"lora_target_matrices = 7 is not read") as info:
        nm.solve("lora_params", model="llama-3-8b", lora_rank=16, lora_target_matrices=7)
    assert info.value.variable == "lora_target_matrices"
    assert "Give lora_d_in and lora_d_out to use it" in str(info.value)
    # the same shapes for all seven, as a user states them (mean d_in, d_out of the seven)
    r = nm.solve("lora_params", model="llama-3-8b", lora_rank=16, lora_target_matrices=7,
                 lora_d_in=4096, lora_d_out=4096)  # fmt: skip
    assert mag(r.value, "param") == pytest.approx(16 * 8192 * 7 * 32)


def test_gpus_for_a_lora_fine_tune_in_one_question():
    """Llama-3-70B with a rank-16 q,k,v,o adapter: 141.2 GB frozen bf16 weights + 65.54M
    adapter parameters × 16 B = 142.2 GB, over 80 GB per H100: 2 GPUs (1.78 rounded up)."""
    r = nm.solve("n_gpus_for_lora", model="llama-3-70b", gpu="H100-SXM", lora_rank=16)
    adapter = 51_200 * 16 * 80 * 16 / 1e9  # lora_attention_dims · r · L · 16 B, GB
    assert (141.2 + adapter) / 80 == pytest.approx(1.778, rel=1e-3)
    assert mag(r.value, "GPU") == 2
    four_bit = nm.solve("n_gpus_for_lora", model="llama-3-70b", gpu="H100-SXM", lora_rank=16,
                        weight_bytes_per_param="0.5 B/param")  # fmt: skip
    assert mag(four_bit.value, "GPU") == 1  # QLoRA: 35.3 GB + 1.05 GB on one GPU
