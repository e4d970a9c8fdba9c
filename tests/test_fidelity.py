"""Trustworthy answers (issue 8): record keys that bind, zero where zero means something,
formulas as their sources print them, and record values as the vendors print them.

Every expectation is hand arithmetic written beside the call. W-numbers refer to
the worked examples (W13 activation memory, W19 checkpoint interval, W12 fleet size).
"""

import math
import re

import pytest
import sympy
from helpers import mag

import napkinmath as nm
from napkinmath.catalog.lookup import formulas
from napkinmath.hardware import METADATA_KEYS, check_keys, get, load_toml, records


# --- A. every record key binds a variable, or is declared reference-only ----------------------
def test_every_record_key_is_a_variable_or_declared_metadata():
    variables = nm.variables()
    for record in records().values():
        for key in record.values:
            assert key in variables or key in METADATA_KEYS, (
                f"{record.id}.{key} binds nothing: rename it to a variable or declare it in "
                "napkinmath.hardware.METADATA_KEYS"
            )


def test_metadata_keys_are_no_variables_and_say_why():
    variables = nm.variables()
    used = {key for record in records().values() for key in record.values}
    for key, reason in METADATA_KEYS.items():
        assert key not in variables, f"{key} is a variable now: drop it from METADATA_KEYS"
        assert key in used, f"{key} is in METADATA_KEYS but no record has it"
        assert reason.strip()


@pytest.mark.parametrize(
    ("record_id", "k"), [("mixtral-8x7b", 2), ("qwen3-235b-a22b", 8), ("deepseek-v3", 8)]
)
def test_moe_records_store_the_key_the_formulas_read(record_id, k):
    values = get(record_id).values
    assert "n_experts_per_token" not in values
    assert values["experts_per_token"].quantity.magnitude == k


def test_model_record_answers_the_moe_split_from_its_own_values():
    # Mixtral: 46.7e9 = shared + 8 E, 12.9e9 = shared + 2 E  =>  E = 33.8e9 / 6 = 5.633e9,
    # shared = 12.9e9 - 2 E = 1.633e9. experts_per_token = 2 now comes from the record.
    r = nm.solve(["expert_params", "shared_params"], model="mixtral-8x7b")
    expert = (46.7e9 - 12.9e9) / (8 - 2)
    assert mag(r["expert_params"], "param") == pytest.approx(expert, rel=1e-12)
    assert mag(r["shared_params"], "param") == pytest.approx(12.9e9 - 2 * expert, rel=1e-12)
    assert r.givens["experts_per_token"].origin == "record"


def test_a_misspelt_key_is_refused_with_the_record_and_the_closest_variable():
    with pytest.raises(ValueError) as err:
        check_keys("my-moe", {"n_layers": None, "n_experts_per_token": None})
    message = str(err.value)
    assert "'my-moe'" in message and "'n_experts_per_token'" in message
    assert "did you mean experts_per_token?" in message
    with pytest.raises(ValueError, match="did you mean peak_flops"):
        check_keys("my-gpu", ["peak_flop"])
    check_keys("my-gpu", ["peak_flops", "gpus_per_nvlink_domain"])  # a variable; metadata


TOML = """
[my-moe]
name = "An MoE model"
kind = "model"
source = "a test"
date = "2026-01"

[my-moe.n_experts]
value = "8"

[my-moe.{key}]
value = "2"
"""


def test_the_loader_refuses_a_toml_record_with_a_misspelt_key():
    with pytest.raises(ValueError) as err:
        load_toml(TOML.format(key="n_experts_per_token"))
    assert "my-moe" in str(err.value) and "experts_per_token?" in str(err.value)
    loaded = load_toml(TOML.format(key="experts_per_token"))
    assert loaded["my-moe"].values["experts_per_token"].quantity.magnitude == 2


# --- B. zero is admitted where it means something ---------------------------------------------
def test_training_state_without_fp32_master_weights():
    # W4's 16 B/param less the fp32 master copy: bf16 weights 2 + bf16 grads 2 + Adam m 4 + v 4
    r = nm.solve("training_state_memory", params_total="70B", master_bytes_per_param="0 B/param")
    assert mag(r.value, "GB") == pytest.approx(70e9 * (2 + 2 + 0 + 4 + 4) / 1e9)  # 840 GB


def test_plain_sgd_keeps_no_optimizer_state():
    r = nm.solve(
        ["optimizer_memory", "training_state_memory"],
        params_total="70B",
        master_bytes_per_param="0 B/param",
        adam_m_bytes_per_param="0 B/param",
        adam_v_bytes_per_param="0 B/param",
    )
    assert mag(r["optimizer_memory"], "GB") == 0
    assert mag(r["training_state_memory"], "GB") == pytest.approx(70e9 * 4 / 1e9)  # 280 GB


def test_frozen_parameters_have_no_gradients():
    r = nm.solve(
        ["gradient_memory", "training_state_memory"],
        params_total="7B",
        grad_bytes_per_param="0 B/param",
    )
    assert mag(r["gradient_memory"], "GB") == 0
    assert mag(r["training_state_memory"], "GB") == pytest.approx(7e9 * 14 / 1e9)  # 98 GB


def test_weights_that_fill_the_hbm_leave_no_kv_budget():
    # 90% usable (vLLM's default) x 2 x 80 GB = 144 GB - 72e9 x 2 B = 0: not an error, no
    # sequence fits
    r = nm.solve(
        ["kv_memory_budget", "max_concurrent_sequences_whole"],
        params_total="72B",
        n_gpus=2,
        hbm_capacity="80 GB/GPU",
        kv_bytes_per_token="327680 B/token",
        seq_len=8192,
    )
    assert mag(r["kv_memory_budget"], "GB") == 0
    assert mag(r["max_concurrent_sequences_whole"], "sequence") == 0


def test_a_checkpoint_larger_than_the_tier_fits_zero_times():
    r = nm.solve("checkpoints_fit", params_total="405B", storage_capacity="5 TB")
    assert r.value.magnitude == math.floor(5e12 / (405e9 * 16)) == 0  # 6.48 TB > 5 TB


def test_keeping_no_checkpoints_needs_the_dataset_only():
    r = nm.solve("storage_needed", tokens="15.6T", params_total="405B", checkpoints_kept=0)
    assert mag(r.value, "TB") == pytest.approx(15.6e12 * 4 / 1e12)  # 62.4 TB


def test_a_prefill_only_request_generates_nothing():
    r = nm.solve(
        "service_time",
        prefill_time="0.5 s",
        output_len="0 token/sequence",
        decode_speed="20 token/(s*sequence)",
    )
    assert mag(r.value, "s") == pytest.approx(0.5)


def test_no_headroom_leaves_the_whole_reclaim_exposed():
    r = nm.solve(
        "reclaim_slack",
        traffic_headroom="0 request/s",
        checkpoint_write_time="65 s",
        drain_time="55 s",
        ramp_rate="5 request/s/minute",
    )
    assert mag(r.value, "min") == pytest.approx(-(65 + 55) / 60)  # -2 min


def test_negative_values_are_still_refused():
    with pytest.raises(nm.InputError, match="out of range"):
        nm.solve("training_state_memory", params_total="70B", master_bytes_per_param="-1 B/param")


#: Variables admitting 0 that may still divide: both were [0, ∞) before this audit.
DIVIDES_AT_ZERO = {
    # algbw = S / t: a zero-time all-reduce has no algorithm bandwidth (refused as not finite)
    "allreduce_time",
    # 0 is a prefill-only request (generation_time = 0); a busy serving replica's prefills a
    # step and requests a second are per output token (formulas/serving_step.py), and a
    # replica that never decodes has neither (refused as not finite)
    "output_len",
}


def _zero_divides(f, var) -> bool:
    values = {v.symbol: sympy.Integer(1) for v in f.variables}
    values[var.symbol] = sympy.Integer(0)
    for side in (f.equation.lhs, f.equation.rhs):
        if not side.has(var.symbol):
            continue
        value = side.subs(values)
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return True
    return False


def test_no_variable_that_admits_zero_divides_a_formula():
    for f in formulas().values():
        for var in f.variables:
            if var.bounds.contains(0) and var.name not in DIVIDES_AT_ZERO:
                assert not _zero_divides(f, var), f"{var.name} = 0 divides by zero in {f.name}"


@pytest.mark.parametrize(
    "name",
    [
        "n_gpus",
        "mfu",
        "peak_flops",
        "hbm_bandwidth",
        "link_bandwidth",
        "tp",
        "sp",
        "pp",
        "dp",
        "n_microbatches",
        "checkpoint_interval",
        "checkpoint_write_time",
        "mtbf",
    ],
)
def test_divisors_stay_strictly_positive(name):
    assert not nm.variables()[name].bounds.contains(0)


# --- C1. full recomputation keeps 2·s·b·h per layer on every tensor-parallel rank ---------------
W13 = dict(seq_len=8192, batch_size=1, hidden_size=8192, n_heads=64, n_layers=80)
SBH = 8192 * 1 * 8192  # 67,108,864 token x hidden


def test_w13_full_recomputation_without_sequence_parallelism():
    # Korthikanti et al. 2022, Table 2: 2sbh per layer, whatever t: 134,217,728 B; x 80 = 10.7 GB
    for tp in (1, 8):
        r = nm.solve(
            ["activation_memory_per_layer_recompute", "activation_memory_recompute"], tp=tp, **W13
        )
        assert 2 * SBH == 134_217_728
        assert mag(r["activation_memory_per_layer_recompute"], "B") == pytest.approx(2 * SBH)
        assert mag(r["activation_memory_recompute"], "B") == pytest.approx(80 * 2 * SBH)
        assert mag(r["activation_memory_recompute"], "GB") == pytest.approx(10.7, rel=0.01)
    assert "sp" in r.assumptions  # no sequence parallelism is a stated assumption


def test_w13_full_recomputation_with_sequence_parallelism():
    # the layer input split along the sequence over the 8 ranks: 2sbh/8 = 16,777,216 B per layer
    r = nm.solve(
        ["activation_memory_per_layer_recompute", "activation_memory_recompute"], tp=8, sp=8, **W13
    )
    assert mag(r["activation_memory_per_layer_recompute"], "B") == pytest.approx(2 * SBH / 8)
    assert mag(r["activation_memory_recompute"], "GB") == pytest.approx(80 * 2 * SBH / 8 / 1e9)


def test_w13_tensor_parallelism_alone_leaves_ten_bytes_whole():
    # Table 2: sbh(10 + 24/t) with selective recomputation (or FlashAttention), sbh(34/t) with SP
    r = nm.solve("activation_memory_per_layer_flash", tp=8, **W13)
    assert mag(r.value, "B") == pytest.approx(SBH * (10 + 24 / 8))  # 13 sbh = 872 MB
    r = nm.solve("activation_memory_per_layer_flash", tp=8, sp=8, **W13)
    assert mag(r.value, "B") == pytest.approx(SBH * 34 / 8)  # 4.25 sbh = 285 MB
    # everything stored: sbh(10 + 24/t + 5as/(ht)) = sbh(10 + 3 + 40) = 53 sbh = 3.557 GB
    r = nm.solve("activation_memory_per_layer", tp=8, **W13)
    assert mag(r.value, "B") == pytest.approx(SBH * (10 + 24 / 8 + 5 * 64 * 8192 / (8192 * 8)))


def test_w13_recomputation_from_the_shell(napkin):
    args = [
        "solve",
        "activation_memory_recompute",
        "seq_len=8192",
        "batch_size=1",
        "hidden_size=8192",
        "n_layers=80",
        "tp=8",
    ]
    status, out, err = napkin(*args)
    assert status == 0, err
    assert out.startswith("activation_memory_recompute = 10.74 GB")  # 2 x 8192² x 80 B
    assert "no sequence parallelism" in out and "Table 2" in out
    status, out, err = napkin(*args, "sp=8")
    assert status == 0, err
    assert out.startswith("activation_memory_recompute = 1.342 GB")  # 10.74 GB / 8


# --- C2. Young's interval, and Daly's higher-order one beside it ------------------------------
W19_M = 54 * 86_400 / 419  # 11,135.1 s = 3.093 h (419 interruptions in 54 days)


def daly(delta, m):
    """Daly 2006: √(2δM)·[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ, for δ < 2M."""
    return (
        math.sqrt(2 * delta * m) * (1 + math.sqrt(delta / (2 * m)) / 3 + delta / (2 * m) / 9)
        - delta
    )


def test_w19_daly_interval():
    r = nm.solve(
        ["checkpoint_interval", "checkpoint_interval_daly"],
        checkpoint_write_time="65 s",
        interruptions=419,
        observation_period="54 days",
    )
    young = math.sqrt(2 * 65 * W19_M)  # 1,203.2 s = 20.05 min
    hand = daly(65, W19_M)  # 1,203.2 x 1.01833 - 65 = 1,160.2 s = 19.34 min
    assert mag(r["checkpoint_interval"], "s") == pytest.approx(young)
    assert mag(r["checkpoint_interval_daly"], "s") == pytest.approx(hand, rel=1e-12)
    assert mag(r["checkpoint_interval_daly"], "min") == pytest.approx(19.34, abs=0.005)
    # Young - Daly = 2δ/3 - (δ/9)·√(δ/2M) exactly: 43.3 s - 0.39 s
    gap = 2 * 65 / 3 - 65 / 9 * math.sqrt(65 / (2 * W19_M))
    assert young - mag(r["checkpoint_interval_daly"], "s") == pytest.approx(gap, rel=1e-9)


def test_w19_daly_interval_from_the_rounded_mtbf():
    r = nm.solve("checkpoint_interval_daly", checkpoint_write_time="65 s", mtbf="3.09 h")
    assert mag(r.value, "s") == pytest.approx(daly(65, 3.09 * 3600), rel=1e-12)  # 1,159.6 s


@pytest.mark.parametrize(("m_minutes", "printed"), [(24 * 60, 117), (6 * 60, 57), (15, 9.1)])
def test_daly_reproduces_his_figures(m_minutes, printed):
    # Daly 2006, Figs. 3-5: δ = 5 min; M = 24 h, 6 h, 15 min; τ_opt = 117, 57, 9.1 min
    r = nm.solve("checkpoint_interval_daly", checkpoint_write_time="5 min", mtbf=f"{m_minutes} min")
    assert mag(r.value, "min") == pytest.approx(daly(5, m_minutes), rel=1e-12)
    assert round(mag(r.value, "min"), 1 if printed < 10 else 0) == printed


def test_daly_refuses_a_checkpoint_longer_than_two_mtbf():
    # δ = 10 min, M = 4 min: δ/M = 2.5 ≥ 2, where Daly checkpoints every M instead
    with pytest.raises(nm.NoRootError) as err:
        nm.solve("checkpoint_interval_daly", checkpoint_write_time="10 min", mtbf="4 min")
    assert "checkpoint_write_mtbf_ratio" in str(err.value) and "(0, 2)" in str(err.value)


def test_daly_is_forward_only_and_young_answers_the_inverse():
    with pytest.raises(nm.NotInvertibleError, match="only works forward"):
        nm.solve("mtbf", checkpoint_interval_daly="20 min", checkpoint_write_time="65 s")
    r = nm.solve("mtbf", checkpoint_interval="20 min", checkpoint_write_time="65 s")
    assert mag(r.value, "s") == pytest.approx(1200**2 / (2 * 65))  # τ²/(2δ)


def test_young_is_named_and_cited_as_young():
    library = formulas()
    young = library["young_interval"]
    assert "Young" in young.title and "Daly" not in young.source
    assert "young_daly_interval" not in library
    daly_formula = library["daly_interval"]
    assert "Daly 2006" in daly_formula.source and "22(3):303-312" in daly_formula.source


# --- C3. record values as the vendor prints them ----------------------------------------------
HALF = re.compile(r"half of (?:the datasheet's |NVIDIA's )?([\d,]+(?:\.\d+)?) TFLOP/s")


@pytest.mark.parametrize(
    ("record_id", "key", "sparse"),
    [
        ("H100-SXM", "peak_flops", 1979),
        ("H100-PCIe", "peak_flops", 1513),
        ("H100-NVL", "peak_flops", 1671),
        ("H100-NVL", "peak_flops_fp8", 3341),
        ("H200-SXM", "peak_flops", 1979),
    ],
)
def test_dense_peak_is_half_the_printed_sparse_figure(record_id, key, sparse):
    v = get(record_id).values[key]
    assert v.quantity.to("TFLOP/(s*GPU)").magnitude == sparse / 2  # 989.5, 756.5, 835.5, ...
    assert "half of" in v.qualifier and f"{sparse:,}" in v.qualifier


def test_every_halved_qualifier_is_exactly_half():
    for record in records().values():
        for key, v in record.values.items():
            found = HALF.search(v.qualifier)
            if found:
                sparse = float(found.group(1).replace(",", ""))
                assert v.quantity.to("TFLOP/(s*GPU)").magnitude == sparse / 2, (record.id, key)


def test_b200_hbm_bandwidth_cites_the_hgx_and_dgx_b200():
    v = get("B200").values["hbm_bandwidth"]
    assert v.quantity.to("TB/(s*GPU)").magnitude * 8 == 64  # 64 TB/s per 8-GPU HGX/DGX B200
    assert "HGX B200" in v.source and "DGX B200" in v.source and v.date == "2025-03"
    assert v.url.startswith("https://www.nvidia.com/")


def test_w12_with_the_printed_h100_peak():
    # 6 x 7e9 x 1e12 / (21 x 86,400 x 989.5e12 x 0.4) = 58.48 GPU (W12: 58.5, with 989)
    r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
    hand = 6 * 7e9 * 1e12 / (21 * 86_400 * 989.5e12 * 0.4)
    assert mag(r.value, "GPU") == pytest.approx(hand, rel=1e-12)
    assert hand == pytest.approx(58.5, rel=0.01)
