"""Acceptance against production (formulas/acceptance.py): the shares of a measured step that
the hardware, communication, input pipeline and framework hold, from acceptance-test figures
and a profile. Hand arithmetic beside every expectation.

The worked case: production MFU 40% on chips whose acceptance tests measured matmuls at 80%
of peak, HBM at 90%, and an all-reduce bus bandwidth of 360 of the link's 450 GB/s; a 10 s
step whose profile shows 1.5 s of exposed collectives, 0.3 s of data-loader wait and 1.0 s in
memory-bound kernels.
"""

import pytest
from helpers import mag

import napkinmath as nm

ACCEPTANCE = dict(matmul_efficiency=0.8, hbm_efficiency=0.9, mfu=0.4)
PROFILE = dict(
    step_time="10 s",
    profiled_comm_time="1.5 s",
    profiled_input_wait="0.3 s",
    profiled_memory_bound_time="1 s",
)
LAYERS = ("hardware", "communication", "input", "framework")


def test_each_layer_share_of_the_step_by_hand():
    r = nm.solve(
        [
            "step_share_hardware_matmul",
            "step_share_hardware_memory",
            "step_share_hardware",
            "step_share_communication",
            "step_share_input",
            "step_share_framework",
        ],
        **ACCEPTANCE,
        **PROFILE,
    )
    v = {name: mag(q) for name, q in r.values.items()}
    assert v["step_share_hardware_matmul"] == pytest.approx(0.4 * (1 / 0.8 - 1))  # 0.10
    assert v["step_share_hardware_memory"] == pytest.approx(1.0 / 10 * (1 - 0.9))  # 0.01
    assert v["step_share_hardware"] == pytest.approx(0.11)
    assert v["step_share_communication"] == pytest.approx(1.5 / 10)  # 0.15
    assert v["step_share_input"] == pytest.approx(0.3 / 10)  # 0.03
    assert v["step_share_framework"] == pytest.approx(1 - 0.4 - 0.11 - 0.15 - 0.03)  # 0.31


def test_the_layers_shares_of_the_mfu_gap_sum_to_one():
    # gap 1 − 0.4 = 0.6: hardware 0.11/0.6 = 18.33%, communication 0.15/0.6 = 25%,
    # input 0.03/0.6 = 5%, framework 0.31/0.6 = 51.67%
    names = [f"mfu_gap_share_{layer}" for layer in LAYERS]
    r = nm.solve(names, **ACCEPTANCE, **PROFILE)
    shares = [mag(r.values[n]) for n in names]
    assert shares == pytest.approx([0.11 / 0.6, 0.15 / 0.6, 0.03 / 0.6, 0.31 / 0.6])
    assert sum(shares) == pytest.approx(1, abs=1e-12)


def test_the_fabric_part_of_the_communication_share():
    # η_net = 360 / 450 = 0.8; the fabric holds 0.15 × (1 − 0.8) = 3 points of the 15
    r = nm.solve(
        ["network_efficiency", "step_share_network"],
        allreduce_busbw="360 GB/s",
        link_bandwidth="450 GB/s",
        step_time="10 s",
        profiled_comm_time="1.5 s",
    )
    assert mag(r.values["network_efficiency"]) == pytest.approx(0.8)
    assert mag(r.values["step_share_network"]) == pytest.approx(0.15 * 0.2)


def test_in_network_reduction_beats_the_link_and_its_fabric_share_goes_negative():
    # NVLink SHARP: bus bandwidth 480 GB/s over a 450 GB/s link, η_net = 1.0667;
    # 0.15 × (1 − 1.0667) = −1 point: the fabric does better than a ring at link speed
    r = nm.solve(
        "step_share_network",
        allreduce_busbw="480 GB/s",
        link_bandwidth="450 GB/s",
        step_share_communication=0.15,
    )
    assert mag(r.value) == pytest.approx(0.15 * (1 - 480 / 450))


def test_from_acceptance_figures_alone_the_hardware_share_and_the_rest():
    # only MFU and the matmul acceptance figure: hardware 0.4 × (1/0.8 − 1) = 0.10,
    # the rest 1 − 0.4/0.8 = 0.50 for every layer above the matmuls together
    r = nm.solve(
        ["step_share_hardware_matmul", "step_share_beyond_matmul"], mfu=0.4, matmul_efficiency=0.8
    )
    assert mag(r.values["step_share_hardware_matmul"]) == pytest.approx(0.10)
    assert mag(r.values["step_share_beyond_matmul"]) == pytest.approx(0.50)


def test_measured_parts_that_overlap_leave_a_negative_rest():
    # 5 s of collectives and 2 s of loader wait in a 10 s step at MFU 40%:
    # 1 − 0.4 − 0.11 − 0.5 − 0.2 = −0.21: the profile counted some time twice
    r = nm.solve(
        "step_share_framework",
        **ACCEPTANCE,
        **{**PROFILE, "profiled_comm_time": "5 s", "profiled_input_wait": "2 s"},
    )
    assert mag(r.value) == pytest.approx(-0.21)


def test_the_mfu_a_hardware_share_implies():
    # s_hw,mm = MFU·(1/η − 1) solved for MFU: 0.1 / (1/0.8 − 1) = 0.4
    r = nm.solve("mfu", step_share_hardware_matmul=0.1, matmul_efficiency=0.8)
    assert mag(r.value) == pytest.approx(0.4)


def test_an_mfu_above_the_matmul_acceptance_figure_is_refused():
    # MFU 0.9 on matmuls that reach 0.8 of peak: 1 − 0.9/0.8 = −0.125, not a share
    with pytest.raises(nm.NoRootError) as err:
        nm.solve("step_share_beyond_matmul", mfu=0.9, matmul_efficiency=0.8)
    assert "outside [0, 1]" in str(err.value)


def test_memory_bound_time_longer_than_the_step_is_refused():
    with pytest.raises(nm.NapkinError):
        nm.solve(
            "step_share_hardware_memory",
            hbm_efficiency=0.9,
            step_time="1 s",
            profiled_memory_bound_time="2 s",
        )


def test_cli_with_the_measured_h200_matmul_figure(napkin):
    # the H200 record's measured 797 of 989.5 TFLOP/s: 0.4 × (989.5/797 − 1) = 9.661%,
    # 1 − 0.4 × 989.5/797 = 50.34%
    status, out, err = napkin(
        "solve",
        "step_share_hardware_matmul",
        "step_share_beyond_matmul",
        "mfu=0.4",
        "--gpu",
        "H200",
    )
    assert status == 0, err
    assert f"step_share_hardware_matmul = {100 * 0.4 * (989.5 / 797 - 1):.3f}%" in out
    assert f"step_share_beyond_matmul = {100 * (1 - 0.4 * 989.5 / 797):.2f}%" in out
