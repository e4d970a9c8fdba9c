"""Worked examples W5 (gradient all-reduce vs the backward pass, a method) and W9 (ring all-reduce
inside an NVLink node, both readings of 900 GB/s), plus NCCL's algbw/busbw and the other
collectives (worked examples W5, W9; NVIDIA nccl-tests doc/PERFORMANCE.md).

A ring all-reduce sends 2(n-1)/n of the buffer from every rank, one direction per link.
H100 SXM: NVLink 4 at 450 GB/s per direction (the datasheet's 900 GB/s adds both directions).
"""

import pytest
from helpers import mag

import napkinmath as nm

H100_PEAK = 989.5e12  # FLOP/s per GPU, dense BF16 (the H100-SXM record)


def ring_allreduce_bytes(n, message):
    return 2 * (n - 1) / n * message


# --- W9: ring all-reduce of 141 GB of bf16 gradients over 8 NVLink GPUs --------------------------
W9_BYTES = ring_allreduce_bytes(8, 141e9)  # 2 x 7/8 x 141 GB = 246.75 GB per rank


def test_w9_with_the_h100_record_uses_nvlink_per_direction():
    r = nm.solve("allreduce_time", message_bytes="141 GB", n_ranks=8, gpu="H100")
    hand = W9_BYTES / 450e9  # 0.548 s
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(0.548, rel=0.01)


def test_w9_derivation_names_the_bandwidth_it_used():
    text = str(nm.solve("allreduce_time", message_bytes="141 GB", n_ranks=8, gpu="H100"))
    assert "nvlink_bandwidth" in text and "450 GB/(s·GPU)" in text
    assert "per direction" in text  # the record's qualifier, quoted in the givens
    assert "link_bandwidth = gpus_per_rank · nvlink_bandwidth" in text


def test_w9_as_typed_by_the_user_900_gb_s():
    r = nm.solve("allreduce_time", message_bytes="141 GB", n_ranks=8, link_bandwidth="900 GB/s")
    hand = W9_BYTES / 900e9  # 0.274 s: 900 GB/s is both directions added
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)
    assert hand == pytest.approx(0.274, rel=0.01)
    assert "link_bandwidth" in str(r) and "nvlink_bandwidth" not in str(r)


def test_w9_a_typed_link_bandwidth_wins_over_the_record():
    r = nm.solve(
        "allreduce_time", message_bytes="141 GB", n_ranks=8, link_bandwidth="900 GB/s", gpu="H100"
    )
    assert mag(r.value, "s") == pytest.approx(W9_BYTES / 900e9, rel=1e-9)


def test_w9_the_datasheet_figure_as_a_bidirectional_bandwidth():
    r = nm.solve(
        "allreduce_time", message_bytes="141 GB", n_ranks=8, link_bandwidth_bidirectional="900 GB/s"
    )
    assert mag(r.value, "s") == pytest.approx(W9_BYTES / 450e9, rel=1e-9)  # 900 / 2


def test_w9_link_record():
    r = nm.solve("allreduce_time", message_bytes="141 GB", n_ranks=8, gpu="NVLink-4")
    assert mag(r.value, "s") == pytest.approx(W9_BYTES / 450e9, rel=1e-9)


def test_w9_message_from_the_gradients():
    r = nm.solve("allreduce_time", params_total="70.5e9", n_ranks=8, gpu="H100")
    hand = ring_allreduce_bytes(8, 70.5e9 * 2) / 450e9  # 141 GB of bf16 gradients
    assert mag(r.value, "s") == pytest.approx(hand, rel=1e-9)
    assert "gradient_memory" in str(r)


def test_w9_inverse_link_bandwidth_from_a_measured_time():
    r = nm.solve("link_bandwidth", message_bytes="141 GB", n_ranks=8, allreduce_time="0.6 s")
    assert mag(r.value, "GB/s") == pytest.approx(W9_BYTES / 0.6 / 1e9)  # 411 GB/s


def test_inverse_ring_length_from_bytes_per_rank():
    r = nm.solve("n_ranks", message_bytes="141 GB", allreduce_bytes_per_rank="246.75 GB")
    assert r.value.magnitude == pytest.approx(8)  # 2(n-1)/n = 1.75


# --- NCCL's algorithm and bus bandwidth ---------------------------------------------------------
def test_busbw_of_an_ideal_ring_equals_the_link():
    r = nm.solve(
        ["allreduce_algbw", "allreduce_busbw"], message_bytes="141 GB", n_ranks=8, gpu="H100"
    )
    algbw = 141e9 / (W9_BYTES / 450e9)  # S / t = 257 GB/s
    assert mag(r["allreduce_algbw"], "GB/s") == pytest.approx(algbw / 1e9)
    assert mag(r["allreduce_busbw"], "GB/s") == pytest.approx(algbw * 2 * 7 / 8 / 1e9)
    assert mag(r["allreduce_busbw"], "GB/s") == pytest.approx(450)


def test_time_from_a_measured_busbw():
    r = nm.solve("allreduce_time", message_bytes="141 GB", n_ranks=8, allreduce_busbw="360 GB/s")
    algbw = 360e9 * 8 / (2 * 7)  # 205.7 GB/s
    assert mag(r.value, "s") == pytest.approx(141e9 / algbw)  # 0.685 s


# --- The other collectives: (n-1)/n of the buffer -------------------------------------------------
def test_allgather_reduce_scatter_alltoall():
    r = nm.solve(
        ["allgather_time", "reduce_scatter_time", "alltoall_time"],
        message_bytes="140 GB",
        n_ranks=8,
        link_bandwidth="450 GB/s",
    )
    hand = 7 / 8 * 140e9 / 450e9  # 0.272 s each
    for name in ("allgather_time", "reduce_scatter_time", "alltoall_time"):
        assert mag(r[name], "s") == pytest.approx(hand), name


def test_fsdp_step_moves_one_and_a_half_times_an_allreduce():
    # ZeRO-3: all-gather forward + all-gather backward + reduce-scatter = 3 x (n-1)/n x bytes
    r = nm.solve(
        ["allgather_bytes_per_rank", "reduce_scatter_bytes_per_rank", "allreduce_bytes_per_rank"],
        message_bytes="14 GB",
        n_ranks=64,
    )
    fsdp = 2 * mag(r["allgather_bytes_per_rank"], "GB") + mag(
        r["reduce_scatter_bytes_per_rank"], "GB"
    )
    assert fsdp == pytest.approx(1.5 * mag(r["allreduce_bytes_per_rank"], "GB"))


# --- W5: does the gradient all-reduce hide behind the backward pass? -----------------------------
# 400 Gb/s InfiniBand NDR per GPU = 50 GB/s per direction; data-parallel ring over 64 ranks.
W5_IB = dict(n_ranks=64, link_bandwidth="400 Gb/s")


@pytest.mark.parametrize("params", [7e9, 70e9])
def test_w5_allreduce_time_and_the_step_it_hides_in(params):
    r = nm.solve(
        ["allreduce_bytes_per_rank", "allreduce_time", "step_time_overlap_limit"],
        params_total=params,
        **W5_IB,
    )
    wire = 2 * 63 / 64 * params * 2  # bf16 gradients: 27.6 GB (7B), 276 GB (70B)
    time = wire / 50e9  # 0.551 s (7B), 5.51 s (70B)
    assert mag(r["allreduce_bytes_per_rank"], "B") == pytest.approx(wire, rel=1e-9)
    assert mag(r["allreduce_time"], "s") == pytest.approx(time, rel=1e-9)
    # hides only while the backward pass (2/3 of the step's compute) lasts longer
    assert mag(r["step_time_overlap_limit"], "s") == pytest.approx(time * 3 / 2, rel=1e-9)


W5_STEP = dict(
    params="7e9", params_total="7e9", seq_len=4096, n_gpus=64, mfu_target=0.4, gpu="H100", **W5_IB
)


def test_w5_large_batch_hides_the_allreduce():
    r = nm.solve(
        ["backward_time", "allreduce_time", "allreduce_exposed_time"], global_batch=256, **W5_STEP
    )
    compute = 6 * 7e9 * 256 * 4096 / (64 * H100_PEAK * 0.4)  # 1.739 s per step
    assert mag(r["backward_time"], "s") == pytest.approx(compute * 2 / 3)  # 1.159 s
    assert mag(r["allreduce_time"], "s") == pytest.approx(0.55125)  # shorter: hides
    assert mag(r["allreduce_exposed_time"], "s") == 0


def test_w5_small_batch_exposes_the_allreduce():
    r = nm.solve("allreduce_exposed_time", global_batch=16, **W5_STEP)
    backward = 6 * 7e9 * 16 * 4096 / (64 * H100_PEAK * 0.4) * 2 / 3  # 0.0724 s
    assert mag(r.value, "s") == pytest.approx(0.55125 - backward)  # 0.479 s exposed


def test_w5_inverse_the_link_that_hides_behind_a_backward_pass():
    r = nm.solve("link_bandwidth", params_total="7e9", n_ranks=64, step_time_overlap_limit="1 s")
    # backward = 2/3 s must cover 2 x 63/64 x 14 GB: 27.5625 GB / 0.6667 s = 41.3 GB/s
    assert mag(r.value, "GB/s") == pytest.approx(27.5625 / (2 / 3))


def test_exposed_time_cannot_be_inverted():
    with pytest.raises(nm.NotInvertibleError) as err:
        nm.solve("allreduce_time", allreduce_exposed_time="0.1 s", backward_time="1 s")
    assert "allreduce_exposed_time" in str(err.value)


# --- Errors name the variable --------------------------------------------------------------------
def test_per_gpu_unit_for_a_link_is_refused_with_a_fix():
    with pytest.raises(nm.InputError) as err:
        nm.solve(
            "allreduce_time", message_bytes="141 GB", n_ranks=8, link_bandwidth="900 GB/(s*GPU)"
        )
    assert err.value.variable == "link_bandwidth" and "did you mean 900 GB/s" in str(err.value)


def test_missing_ring_length_is_suggested():
    with pytest.raises(nm.UnderDeterminedError) as err:
        nm.solve("allreduce_time", message_bytes="141 GB", gpu="H100")
    assert "n_ranks" in err.value.suggestions


# --- CLI -----------------------------------------------------------------------------------------
def test_cli_w9(napkin):
    status, out, err = napkin(
        "solve", "allreduce_time", "message_bytes=141 GB", "n_ranks=8", "--gpu", "H100"
    )
    assert status == 0, err
    assert out.startswith("allreduce_time = 548.3 ms")
    assert "nvlink_bandwidth" in out
