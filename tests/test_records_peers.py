"""The cards other calculators carry (issue 25.4): V100 16/32 GB, A10, A10G, A40, L4, L40S,
RTX A6000, RTX 4090, MI250X, Gaudi 2, TPU v4.

Each loads through the public API and the CLI, binds in a solve (numbers checked by hand
below), answers to its common names, keeps its peak dense (the L4, A40 and RTX A6000 datasheets
lead with sparse or TF32 figures) and says whether its memory is decimal GB or binary GiB.
Published figures: NVIDIA datasheets (V100 125 TFLOP/s FP16 tensor, 900 GB/s, NVLink 2 300 GB/s
both ways; A10 125 dense BF16, 600 GB/s; A40 149.7 dense, 696 GB/s; L4 242 sparse = 121 dense,
300 GB/s; L40S 362.05 dense, 864 GB/s; RTX A6000 309.7 sparse = 154.8 dense, 768 GB/s), the
Ada whitepaper (RTX 4090 165.2 dense BF16 with FP32 accumulate, 1,008 GB/s), AMD (MI250X 383
BF16 and INT8, 3.2768 TB/s), Google (TPU v4 275 TFLOP/s bf16 or int8, 32 GiB, 1,200 GB/s).
"""

from __future__ import annotations

import pytest
from helpers import mag

import napkinmath as nm

#: record id -> (names it answers to, dense BF16/FP16 peak in TFLOP/s, memory, bandwidth in TB/s)
PEERS = {
    "V100-SXM2-32GB": (["V100", "Tesla V100", "V100-32GB", "v100 sxm2"], 125, "32 GB", 0.9),
    "V100-SXM2-16GB": (["V100-16GB", "Tesla V100 16GB"], 125, "16 GB", 0.9),
    "A10": (["NVIDIA A10", "a10"], 125, "24 GB", 0.6),
    "A10G": (["A10G", "AWS A10G", "nvidia a10g"], 70, "24 GB", 0.6),
    "A40": (["A40", "NVIDIA A40"], 149.7, "48 GB", 0.696),
    "L4": (["L4", "NVIDIA L4"], 121, "24 GB", 0.3),
    "L40S": (["L40S", "nvidia-l40s"], 362.05, "48 GB", 0.864),
    "RTX-A6000": (["RTX A6000", "A6000"], 154.8, "48 GB", 0.768),
    "RTX-4090": (["RTX 4090", "4090", "GeForce RTX 4090"], 165.2, "24 GB", 1.008),
    "MI250X": (["MI250X", "AMD MI250X", "Instinct MI250X"], 383, "128 GB", 3.2768),
    "Gaudi2": (["Gaudi2", "Gaudi 2", "Intel Gaudi 2", "HL-225H"], 432, "96 GB", 2.45),
    "TPU-v4": (["TPU v4", "v4", "tpuv4"], 275, "32 GiB", 1.2),
}


def value(record_id: str, key: str, unit: str) -> float:
    return float(nm.hardware.get(record_id).values[key].quantity.to(unit).magnitude)


# --- each record loads, through Python and the CLI ---------------------------------------------
@pytest.mark.parametrize("record_id", sorted(PEERS))
def test_record_loads_with_its_published_peak_memory_and_bandwidth(record_id):
    _names, peak, memory, bandwidth = PEERS[record_id]
    record = nm.hardware.get(record_id)
    assert record.kind == "accelerator" and record.id in nm.hardware.records()
    assert value(record_id, "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(peak)
    number, unit = memory.split()
    assert value(record_id, "hbm_capacity", f"{unit}/GPU") == pytest.approx(float(number))
    assert value(record_id, "hbm_bandwidth", "TB/(s*GPU)") == pytest.approx(bandwidth)
    for key in ("peak_flops", "hbm_capacity", "hbm_bandwidth", "price_per_gpu_hour"):
        v = record.values[key]
        assert v.source and v.date and v.qualifier, (record_id, key)


@pytest.mark.parametrize("record_id", sorted(PEERS))
def test_napkin_hardware_shows_each_record(napkin, record_id):
    status, out, err = napkin("hardware", PEERS[record_id][0][0])
    assert status == 0, err
    assert out.startswith(f"{record_id}: ") and "peak_flops = " in out
    assert "price_per_gpu_hour" in out and "assumption: " in out


# --- common names resolve ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "record_id"), [(n, rid) for rid, (names, *_) in PEERS.items() for n in names]
)
def test_common_names_resolve(name, record_id):
    assert nm.hardware.get(name).id == record_id


def test_bare_v100_is_the_32_gb_part_and_a10_is_not_a10g_or_a100():
    assert nm.hardware.get("V100").id == "V100-SXM2-32GB"
    assert nm.hardware.get("A10").id == "A10"
    assert nm.hardware.get("A100").id == "A100-SXM-80GB"
    assert nm.hardware.get("L40S").id == "L40S"
    assert nm.hardware.find("L40") is None  # the L40 (half the tensor rate) is another card


def test_an_unknown_v100_suggests_the_two_records(napkin):
    status, _out, err = napkin("hardware", "V100-64GB")
    assert status != 0 and "Traceback" not in err
    assert "V100-SXM2-16GB" in err and "V100-SXM2-32GB" in err


# --- dense peaks, decimal and binary memory -------------------------------------------------------
@pytest.mark.parametrize("record_id", sorted(PEERS))
def test_peak_is_dense_and_says_so(record_id):
    qualifier = nm.hardware.get(record_id).values["peak_flops"].qualifier
    assert "dense" in qualifier, record_id


def test_sparse_datasheet_figures_are_halved():
    # L4 242 sparse -> 121; L4 FP8 485 -> 242.5; RTX A6000 309.7 -> 154.8; A40 299.4 -> 149.7
    assert value("L4", "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(242 / 2)
    assert value("L4", "peak_flops_fp8", "TFLOP/(s*GPU)") == pytest.approx(485 / 2)
    assert value("RTX-A6000", "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(309.7 / 2, abs=0.06)
    assert value("A40", "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(299.4 / 2)
    # the L40S sheet's 362.05 is dense already (733 is its sparse figure); 181 is the L40's
    assert value("L40S", "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(733 / 2, rel=0.02)


def test_peaks_agree_with_sms_times_flop_per_clock_times_boost_clock():
    # GA102/AD10x: 1,024 dense FP16 FLOP per clock per SM (512 on GeForce, FP32 accumulate);
    # Volta: 8 tensor cores x 64 FMA x 2 = 1,024
    for record_id, sms, per_clock, ghz in [
        ("V100-SXM2-32GB", 80, 1024, 1.53),
        ("A10", 72, 1024, 1.695),
        ("A40", 84, 1024, 1.74),
        ("L4", 58, 1024, 2.04),
        ("RTX-A6000", 84, 1024, 1.80),
        ("RTX-4090", 128, 512, 2.52),
    ]:
        expected = sms * per_clock * ghz * 1e9 / 1e12
        assert value(record_id, "peak_flops", "TFLOP/(s*GPU)") == pytest.approx(
            expected, rel=0.005
        ), record_id


def test_v100_has_no_bf16_and_says_which_peak_it_carries():
    qualifier = nm.hardware.get("V100").values["peak_flops"].qualifier
    assert "FP16" in qualifier and "no BF16" in qualifier
    assert "peak_flops_fp8" not in nm.hardware.get("V100").values


def test_rtx_4090_peak_is_fp32_accumulate_not_the_fp16_accumulate_headline():
    qualifier = nm.hardware.get("RTX-4090").values["peak_flops"].qualifier
    assert "FP32 accumulate" in qualifier and "330.3" in qualifier


def test_decimal_and_binary_memory_as_the_vendors_write_it():
    # V100 "32 GB" read as decimal, 32e9 B; TPU v4 "32 GiB" kept binary, 34.36e9 B
    assert value("V100", "hbm_capacity", "B/GPU") == 32e9
    assert "decimal" in nm.hardware.get("V100").values["hbm_capacity"].qualifier
    assert value("TPU v4", "hbm_capacity", "B/GPU") == 32 * 2**30
    assert "GiB" in nm.hardware.get("TPU v4").values["hbm_capacity"].qualifier
    for record_id in ("A10", "A40", "L4", "L40S", "RTX-A6000", "RTX-4090"):
        assert "GDDR6" in nm.hardware.get(record_id).values["hbm_capacity"].qualifier


def test_v100_nvlink_is_150_per_direction_300_both_ways():
    assert value("V100", "nvlink_bandwidth", "GB/(s*GPU)") == 150
    assert value("V100", "nvlink_bandwidth_bidirectional", "GB/(s*GPU)") == 300


def test_guessed_figures_are_labelled_assumptions():
    # AWS publishes no A10G tensor peak; Gaudi 2's BF16 figure is secondary; the MI250X and
    # TPU v4 link directions and the PCIe-only cards' scale-up path are napkinmath's reading
    for record_id, key in [
        ("A10G", "peak_flops"),
        ("A10G", "hbm_bandwidth"),
        ("Gaudi2", "peak_flops"),
        ("MI250X", "nvlink_bandwidth"),
        ("TPU-v4", "nvlink_bandwidth"),
        ("L40S", "nvlink_bandwidth"),
        ("RTX-4090", "nvlink_bandwidth"),
    ]:
        v = nm.hardware.get(record_id).values[key]
        assert v.assumption and v.label().startswith("assumption: "), (record_id, key)


# --- INT8 and INT4 peaks --------------------------------------------------------------------------
def test_int8_is_a_library_variable_and_int4_a_reference_key():
    assert "peak_flops_int8" in nm.variables()
    assert "peak_flops_int4" not in nm.variables()
    assert "peak_flops_int4" in nm.hardware.METADATA_KEYS


def test_int8_peaks_are_dense_and_never_below_bf16():
    expected = {
        "A10": 250,
        "A40": 299.3,
        "L4": 242.5,
        "L40S": 733,
        "RTX-4090": 660.6,
        "MI250X": 383,
        "TPU-v4": 275,
    }
    for record in nm.hardware.records().values():
        if "peak_flops_int8" in record.values:
            int8 = value(record.id, "peak_flops_int8", "TFLOP/(s*GPU)")
            assert int8 >= value(record.id, "peak_flops", "TFLOP/(s*GPU)"), record.id
            assert int8 == pytest.approx(expected.pop(record.id)), record.id
    assert not expected, f"records without their INT8 peak: {sorted(expected)}"


def test_int4_peaks_where_the_datasheet_gives_them():
    for record_id, tops in [("A10", 500), ("A40", 598.7), ("RTX-4090", 1321.2), ("MI250X", 383)]:
        assert value(record_id, "peak_flops_int4", "TFLOP/(s*GPU)") == pytest.approx(tops)


# --- solves bind the records ----------------------------------------------------------------------
def test_decode_time_on_a_v100_32gb_is_weights_and_kv_over_900_gbs():
    # Llama 3 8B in bf16 on one V100: (8,030,261,248 x 2 B + 131,072 B/token x 8,192 token)
    # / 0.9 TB/s = (16.06 + 1.07) GB / 0.9 TB/s = 19.04 ms; one GPU, no all-reduce
    r = nm.solve(
        "time_per_output_token",
        model="llama-3-8b",
        gpu="V100-32GB",
        n_gpus=1,
        batch_size=1,
        seq_len=8192,
    )
    reads = 8_030_261_248 * 2 + 131_072 * 8192
    assert mag(r.value, "ms*sequence/token") == pytest.approx(reads / 0.9e12 * 1e3, rel=1e-3)
    assert "V100-SXM2-32GB" in str(r)


def test_fleet_size_on_tpu_v4_by_hand():
    # 1e23 FLOP in 30 days at 40% MFU of 275 TFLOP/s: 1e23 / (0.4 x 275e12 x 2.592e6) = 350.7
    # chips, 88 hosts of 4
    r = nm.solve("n_gpus", train_compute="1e23 FLOP", train_time="30 day", mfu=0.4, gpu="v4")
    assert mag(r.value, "GPU") == pytest.approx(1e23 / (0.4 * 275e12 * 30 * 86400))
    assert "TPU-v4" in str(r) and "88 node" in str(r)


def test_precision_int8_selects_the_int8_peak():
    # decode compute of Llama 3 8B at 8,192 tokens: 2 x 8.03e9 + 4 x 128 x 32 x 32 x 8,192
    # = 2.035e10 FLOP per token; on an L4's 242.5 TOP/s INT8: 83.9 µs
    flop = 2 * 8_030_261_248 + 4 * 128 * 32 * 32 * 8192
    r = nm.solve(
        "decode_compute_time",
        model="llama-3-8b",
        gpu="L4",
        n_gpus=1,
        batch_size=1,
        seq_len=8192,
        precision="int8",
    )
    assert mag(r.value, "us") == pytest.approx(flop / 242.5e12 * 1e6, rel=1e-3)
    assert "peak_flops_int8" in str(r)


def test_precision_int8_on_the_cli(napkin):
    status, out, err = napkin(
        "solve",
        "n_gpus",
        "train_compute=1e23 FLOP",
        "train_time=30 day",
        "mfu=0.4",
        "--gpu",
        "RTX 4090",
        "--precision",
        "int8",
    )
    assert status == 0, err
    # 1e23 / (0.4 x 660.6e12 x 2.592e6) = 146.0
    assert "n_gpus = 146 GPU" in out and "peak_flops_int8" in out


def test_precision_a_card_lacks_is_refused_by_name():
    with pytest.raises(nm.InputError, match="V100-SXM2-32GB record has no peak_flops_int8"):
        nm.solve(
            "n_gpus",
            train_compute="1e23 FLOP",
            train_time="30 day",
            mfu=0.4,
            gpu="V100",
            precision="int8",
        )


def test_precision_a_card_lacks_is_refused_on_the_cli(napkin):
    status, _out, err = napkin(
        "solve",
        "n_gpus",
        "train_compute=1e23 FLOP",
        "train_time=30 day",
        "mfu=0.4",
        "--gpu",
        "Gaudi2",
        "--precision",
        "fp8",
    )
    assert status != 0 and "Traceback" not in err
    assert "Gaudi2 record has no peak_flops_fp8" in err and "give peak_flops yourself" in err


def test_int4_peak_is_read_by_key_not_by_a_precision():
    # a reference key: no precision picks it, but a given may name it
    r = nm.solve(
        "n_gpus",
        train_compute="1e23 FLOP",
        train_time="30 day",
        mfu=0.4,
        gpu="A40",
        peak_flops="peak_flops_int4",
    )
    assert mag(r.value, "GPU") == pytest.approx(1e23 / (0.4 * 598.7e12 * 30 * 86400))
    with pytest.raises(nm.InputError, match="precision"):
        nm.solve(
            "n_gpus",
            train_compute="1e23 FLOP",
            train_time="30 day",
            mfu=0.4,
            gpu="A40",
            precision="int4",
        )


def test_check_names_the_int8_peak_a_claim_used_instead_of_bf16():
    # a claim that an RTX 4090 does 660.6 TFLOP/s: 4x its dense BF16 165.2, and exactly its INT8
    r = nm.check("RTX-4090.peak_flops", expect="660.6 TFLOP/(s*GPU)")
    peaks = [c for c in r.candidates if c.key == "precision_peak"]
    assert peaks and any("RTX-4090.peak_flops_int8" in e for c in peaks for e in c.evidence)
