"""TPU v6e and TPU7x against an H100 (issue 47 §1): the records' ICI and DCN figures, collectives
priced on ICI inside a slice and on the data-centre network across slices, the scaling book's
sharding arithmetic (formulas/sharding.py), and a 70B training step that now answers.

Hand figures, each from the records' sources:

- TPU v6e: 918 TFLOP/s BF16, 1,638 GB/s HBM, ICI 1.8e11 B/s per torus axis (the scaling book's
  9e10 one-way per link, both links of the axis), DCN 100 Gb/s = 12.5 GB/s per chip, a pod of
  256 chips (16 x 16). TPU7x: 2,307 TFLOP/s BF16, 7,380 GB/s, ICI 1.8e11 per axis, 3D torus.
  H100 SXM: 989.5 TFLOP/s dense BF16, 3.35 TB/s.
- Austin et al. 2025, 'How to Parallelize a Transformer for Training': B/X > C/W_ici (v5p
  4.59e14 / 1.8e11 = 2,550 per chip; 850 over three axes); Y < n_axes · F / (C/W_ici);
  mixed FSDP + TP: B/N > 4α²/(M_X·M_Y·F) (≈ 400 for F = 32,768, M_X·M_Y = 2);
  X_opt = sqrt(B/F · M_X/M_Y · N) (13.9 for N = 64, B = 48,000, F = 32,768).
"""

import math

import pytest
from helpers import mag

import napkinmath as nm

LLAMA_70B = 70.6e9  # params and params_total as the llama-3-70b record writes them
LAYOUT = dict(
    model="llama-3-70b",
    n_gpus=256,
    tp=8,
    pp=1,
    dp=32,
    seq_len=8192,
    global_batch_tokens="4Mi",
    batch_size=1,
)
STEP_ARGS = (
    "--model",
    "llama-3-70b",
    "n_gpus=256",
    "tp=8",
    "pp=1",
    "dp=32",
    "seq_len=8192",
    "global_batch_tokens=4Mi",
    "batch_size=1",
)


# --- the records ---------------------------------------------------------------------------------
def test_ironwood_all_reduce_per_axis_answers(napkin):
    # the first command: 2 × 14 GB / 180 GB/s = 155.6 ms over one axis of a 3D torus
    status, out, err = napkin(
        "solve", "torus_allreduce_time", "message_bytes=14 GB", "--gpu", "tpu-v7"
    )
    assert status == 0, err
    assert out.startswith("torus_allreduce_time = 155.6 ms")
    assert "✓ A torus collective uses at most the torus's axes: 1 ≤ 3" in out


@pytest.mark.parametrize(
    ("record", "dcn_gbit"), [("TPU-v5e", 25), ("TPU-v5p", 50), ("TPU-v6e", 100), ("TPU7x", 100)]
)
def test_tpu_records_hold_the_data_centre_network(record, dcn_gbit):
    value = nm.hardware.get(record).values["scale_out_bandwidth"]
    # Google's 'DCN bandwidth per chip (Gbps)'; v5e: 6.4 Tbps per 256-chip pod = 25 Gbps
    assert mag(value.quantity, "Gb/(s*GPU)") == pytest.approx(dcn_gbit)
    assert value.source and value.date and "DCN" in value.qualifier


def test_the_ironwood_record_is_whole():
    values = nm.hardware.get("tpu-v7").values
    assert mag(values["peak_flops_fp8"].quantity, "TFLOP/(s*GPU)") == pytest.approx(4614)
    assert mag(values["hbm_capacity"].quantity, "GiB/GPU") == pytest.approx(192)
    assert mag(values["hbm_bandwidth"].quantity, "GB/(s*GPU)") == pytest.approx(7380)
    assert mag(values["nvlink_bandwidth_bidirectional"].quantity, "GB/(s*GPU)") == 1200
    assert mag(values["gpus_per_pod"].quantity, "GPU") == 9216
    assert mag(values["ici_axis_bandwidth"].quantity, "GB/s") == pytest.approx(180)
    assert mag(values["torus_dims"].quantity) == 3
    assert values["torus_dims"].assumption  # read from the slice shapes, not a table row


# --- ridge points: HBM and ICI ----------------------------------------------------------------
def test_ridge_points_of_a_v6e_and_an_h100(napkin):
    # v6e 918e12 / 1,638e9 = 560.4 FLOP/B; H100 989.5e12 / 3.35e12 = 295.4 FLOP/B
    v6e = nm.solve("ridge_point", gpu="tpu-v6e")
    h100 = nm.solve("ridge_point", gpu="H100")
    assert mag(v6e.value, "FLOP/B") == pytest.approx(918e12 / 1638e9)
    assert mag(h100.value, "FLOP/B") == pytest.approx(989.5e12 / 3.35e12)
    status, out, err = napkin("solve", "ridge_point", "--gpu", "tpu-v6e")
    assert status == 0, err
    assert out.startswith("ridge_point = 560.4 FLOP/B")


def test_ici_ridge_point_reproduces_the_scaling_book():
    # the book's C/W_ici: v5p 4.59e14 / 1.8e11 = 2,550; v6e 9.18e14 / 1.8e11 = 5,100
    assert mag(nm.solve("ici_ridge_point", gpu="TPU-v5p").value, "FLOP/B") == pytest.approx(2550)
    assert mag(nm.solve("ici_ridge_point", gpu="TPU-v6e").value, "FLOP/B") == pytest.approx(5100)
    # TPU7x: 2.307e15 / 1.8e11 = 12,817
    assert mag(nm.solve("ici_ridge_point", gpu="tpu-v7").value, "FLOP/B") == pytest.approx(
        2307e12 / 180e9
    )


# --- the smallest batch per chip and the layouts a slice allows --------------------------------
def test_smallest_batch_per_chip_for_data_parallelism():
    # 'our batch size per chip must be at least 2,550'; over three v5p axes 2,550 / 3 = 850
    one = nm.solve("dp_min_batch_per_chip", gpu="TPU-v5p")
    three = nm.solve("dp_min_batch_per_chip", gpu="TPU-v5p", torus_axes=3)
    assert mag(one.value, "token") == pytest.approx(2550)
    assert mag(three.value, "token") == pytest.approx(850)
    # v6e: 5,100 tokens per chip over one axis
    assert mag(nm.solve("dp_min_batch_per_chip", gpu="tpu-v6e").value, "token") == pytest.approx(
        5100
    )


def test_the_batch_a_shard_count_needs_inverts():
    # both ways: 256 shards of a v6e need 256 × 5,100 = 1,305,600 tokens a step
    r = nm.solve("global_batch_tokens", dp_max_shards=256, gpu="tpu-v6e")
    assert mag(r.value, "token") == pytest.approx(256 * 5100)
    # and the ICI bandwidth a 2,550 FLOP/B ridge implies on a v6e: 918e12 / 2,550 = 360 GB/s
    w = nm.solve(
        "ici_axis_bandwidth", ici_ridge_point="2550 FLOP/B", peak_flops="918 TFLOP/(s*GPU)"
    )
    assert mag(w.value, "GB/s") == pytest.approx(918e3 / 2550)


def test_tensor_parallel_limit_and_mixed_fsdp():
    # Llama 3 70B, F = 28,672: v5p one axis 28,672 / 2,550 = 11.24 ways; v6e 28,672 / 5,100 = 5.62
    v5p = nm.solve(
        ["tp_max_over_ici", "fsdp_tp_min_batch_per_chip"], gpu="TPU-v5p", model="llama-3-70b"
    )
    assert mag(v5p["tp_max_over_ici"]) == pytest.approx(28672 / 2550)
    # mixed FSDP + TP, M_X = M_Y = 1: 4 × 2,550² / 28,672 = 907.2 tokens per chip
    assert mag(v5p["fsdp_tp_min_batch_per_chip"], "token") == pytest.approx(4 * 2550**2 / 28672)
    # the book's example: F = 32,768 on a 3D mesh (M_X·M_Y = 2): 4 × 2,550² / 65,536 ≈ 397
    book = nm.solve(
        "fsdp_tp_min_batch_per_chip", gpu="TPU-v5p", ffn_size=32768, torus_axes=2, tp_torus_axes=1
    )
    assert mag(book.value, "token") == pytest.approx(4 * 2550**2 / (2 * 32768))


def test_optimal_fsdp_degree_reproduces_the_book():
    # N = 64 (4x4x4), B = 48,000, F = 32,768, M_X = M_Y = 1: sqrt(48,000 / 32,768 × 64) = 9.68;
    # the book's 13.9 takes M_X/M_Y = 2: sqrt(48,000 / 32,768 × 2 × 64) = 13.69
    r = nm.solve(
        "fsdp_optimal_shards",
        global_batch_tokens=48000,
        ffn_size=32768,
        slice_chips=64,
        torus_axes=2,
        gpu="TPU-v5p",
    )
    assert mag(r.value) == pytest.approx(math.sqrt(48000 / 32768 * 2 * 64))


def test_cli_sharding_limits_on_a_v6e(napkin):
    status, out, err = napkin(
        "solve",
        "ici_ridge_point",
        "dp_min_batch_per_chip",
        "tp_max_over_ici",
        "--gpu",
        "tpu-v6e",
        "--model",
        "llama-3-70b",
    )
    assert status == 0, err
    assert out.splitlines()[:3] == [
        "ici_ridge_point = 5,100 FLOP/B",
        "dp_min_batch_per_chip = 5,100 token",
        "tp_max_over_ici = 5.622",
    ]


def test_an_h100_has_no_ici_axis_to_shard_over(napkin):
    # the error path: the H100 record has NVLink, not a TPU torus; exit status 2, naming the gap
    status, out, err = napkin("solve", "dp_min_batch_per_chip", "--gpu", "H100")
    assert out == ""
    assert status == 2
    assert "cannot determine dp_min_batch_per_chip" in err
    assert "ici_axis_bandwidth" in err


# --- the training step ------------------------------------------------------------------------
def test_the_v6e_step_answers_with_its_links(napkin):
    # the second command: exit 2 before (dp_link_bandwidth asked for), now an answer
    status, out, err = napkin("solve", "step_time_predicted", "--gpu", "tpu-v6e", *STEP_ARGS)
    assert status == 0, err
    assert out.startswith("step_time_predicted = ")
    assert "Data-parallel ring on TPU slices: ICI in a slice, the DCN across" in out
    assert "Tensor parallelism on a TPU slice: one ICI torus axis" in out
    assert "A TPU slice: the job's chips, up to a pod (assumed)" in out


def test_v6e_step_parts_by_hand():
    r = nm.solve(
        [
            "compute_time",
            "tp_comm_time",
            "dp_comm_time",
            "dp_link_bandwidth",
            "tp_link_bandwidth",
            "step_time_predicted",
        ],
        gpu="tpu-v6e",
        zero_stage=3,
        **LAYOUT,
    )
    tokens = 4 * 2**20
    # PaLM's 6N + 12·L·H·Q·T: 6 × 70.6e9 + 12 × 80 × 64 × 128 × 8,192 per token
    flops = (6 * LLAMA_70B + 12 * 80 * 64 * 128 * 8192) * tokens
    assert mag(r["compute_time"], "s") == pytest.approx(flops / (256 * 918e12))  # 8.71 s
    # one slice (256 ≤ 256 chips): the data-parallel ring on ICI alone, one axis, 180 GB/s
    assert mag(r["dp_link_bandwidth"], "GB/s") == pytest.approx(180)
    assert mag(r["tp_link_bandwidth"], "GB/s") == pytest.approx(180)
    # ZeRO-3: 1.5 × 2 × 31/32 × (70.6e9 / 8 × 2 B) / 180e9 = 285 ms
    grads = LLAMA_70B / 8 * 2
    assert mag(r["dp_comm_time"], "s") == pytest.approx(1.5 * 2 * 31 / 32 * grads / 180e9)
    # 4 all-reduces × 80 layers × 16 micro-batches × (2 × 7/8 × 134.2 MB / 180 GB/s + 2 × 10 µs)
    message = 8192 * 8192 * 2
    per = 2 * 7 / 8 * message / 180e9 + 2 * 10e-6
    assert mag(r["tp_comm_time"], "s") == pytest.approx(4 * 80 * 16 * per)  # 6.783 s
    assert any(
        not c.holds and c.constraint.name == "tp_compute_bound_over_ici" for c in r.constraints
    )  # 8 > 5.62 ways: v6e's C/W is twice v5p's


def test_across_slices_the_data_parallel_ring_meets_the_dcn():
    # 512 v6e chips = 2 pods of 256: dp = 64, 32 ranks a slice. Hierarchical all-reduce per GB of
    # gradients: 2 × 31/32 / 180 + 2 × 1/2 / (32 × 12.5) s; as a ring's 2 × 63/64 / B: B = 148.4
    r = nm.solve(
        ["slice_chips", "dp_link_bandwidth"],
        gpu="tpu-v6e",
        **{**LAYOUT, "n_gpus": 512, "dp": 64},
    )
    assert mag(r["slice_chips"], "GPU") == 256
    per_gb = 2 * 31 / 32 / 180 + 2 * (1 / 2) / (32 * 12.5)
    assert mag(r["dp_link_bandwidth"], "GB/s") == pytest.approx(2 * 63 / 64 / per_gb)


def test_the_h100_step_is_unchanged_by_the_tpu_links():
    # the same layout on H100s keeps NVLink and the NIC (docs/training.md's figures are the
    # GPU path's): no TPU formula in its derivation
    r = nm.solve("step_time_predicted", gpu="H100", zero_stage=3, **LAYOUT)
    names = {f.name for s in r.steps for f in s.formulas}
    assert "dp_link" in names and "tp_link" in names
    assert not names & {"dp_ici_link", "tp_ici_link", "slice_is_whole_pods"}
