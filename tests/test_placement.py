"""Placement (napkinmath.formulas.placement): which ranks share a node, and the links each
collective runs on, checked against hand arithmetic with plain floats.

H100-SXM record: NVLink 450 GB/s per direction, one 400 Gb/s NIC (50 GB/s) per GPU, 8 GPUs
a node. A ring all-reduce over N nodes of g ranks is timed as the hierarchical all-reduce
(Mikami et al. 2018): 2(g − 1)/g · S / B_NVLink + 2(N − 1)/N · S / (g · B_NIC).
"""

import numpy as np
import pytest
from helpers import mag

import napkinmath as nm

NVLINK = 450.0  # GB/s per direction (H100-SXM, NVLink 4)
NIC = 50.0  # GB/s per direction (400 Gb/s ConnectX-7, one per GPU)
NODE = 8  # GPUs a node (HGX H100)
#: a step's collectives on NVLink run at NCCL's bus bandwidth: the stated default 0.67 of the
#: link (nvlink_collective_efficiency; the H100 record holds no measured figure)
STEP_NVLINK = NVLINK * 0.67


def hierarchical(size_gb, g, nodes, intra=NVLINK, inter=NIC):
    """Seconds of a hierarchical all-reduce of `size_gb` over `nodes` nodes of `g` ranks."""
    return 2 * (g - 1) / g * size_gb / intra + 2 * (nodes - 1) / nodes * size_gb / (g * inter)


def ring_bandwidth(g, nodes, intra=NVLINK, inter=NIC):
    """The per-direction bandwidth a flat ring's 2(n − 1)/n · S needs to take as long."""
    n = g * nodes
    return 2 * (n - 1) / n / hierarchical(1.0, g, nodes, intra, inter)


# --- The collective of the issue: 1,024 ranks on 128 nodes ---------------------------------
ISSUE = dict(message_bytes="141 GB", local_ranks=8, node_ranks=128, inter_node_bandwidth="400 Gb/s")


def test_a_ring_across_nodes_is_priced_on_the_nic_not_nvlink():
    r = nm.solve(
        ["step_time_overlap_limit", "hierarchical_allreduce_time", "allreduce_time"],
        gpu="H100",
        **ISSUE,
    )
    # by hand: 2·7/8·141/450 = 0.5483 s in the nodes, 2·127/128·141/400 = 0.6995 s across
    t_hier = 2 * 7 / 8 * 141 / 450 + 2 * 127 / 128 * 141 / (8 * 50)
    assert t_hier == pytest.approx(1.2478, abs=1e-4)
    assert mag(r["hierarchical_allreduce_time"], "s") == pytest.approx(t_hier, rel=1e-9)
    assert mag(r["allreduce_time"], "s") == pytest.approx(t_hier, rel=1e-9)
    # the backward pass (2/3 of the step) must outlast it: 1.872 s, not NVLink's 939 ms
    assert mag(r["step_time_overlap_limit"], "s") == pytest.approx(t_hier * 1.5, rel=1e-9)
    assert mag(r["step_time_overlap_limit"], "s") > 1.8


def test_the_cli_says_which_links_it_used(napkin):
    status, out, _ = napkin(
        "solve",
        "step_time_overlap_limit",
        "hierarchical_allreduce_time",
        "message_bytes=141 GB",
        "local_ranks=8",
        "node_ranks=128",
        "inter_node_bandwidth=400 Gb/s",
        "--gpu",
        "H100",
    )
    assert status == 0
    first, second = out.splitlines()[:2]
    assert first == "step_time_overlap_limit = 1.872 s"
    assert second == "hierarchical_allreduce_time = 1.248 s"
    assert "Collective across nodes: hierarchical links" in out
    assert "Collective inside an NVLink domain" not in out
    # 2(n − 1)/n · S over the blended link: 281.7 GB / 225.8 GB/s
    assert "link_bandwidth = 1 / ((node_ranks − 1) · (1 / inter_node_bandwidth" in out
    assert "= 225.8 GB/s" in out
    assert ring_bandwidth(8, 128) == pytest.approx(225.8, abs=0.05)


def test_without_a_nic_figure_the_record_s_nic_is_used():
    r = nm.solve(
        "allreduce_time", message_bytes="141 GB", local_ranks=8, node_ranks=128, gpu="H100"
    )
    assert mag(r.value, "s") == pytest.approx(hierarchical(141, 8, 128), rel=1e-9)
    assert "scale_out_bandwidth" in r.givens


def test_one_rank_a_node_runs_at_the_nic():
    r = nm.solve(
        ["allreduce_time", "link_bandwidth"],
        message_bytes="10 GB",
        local_ranks=1,
        node_ranks=16,
        gpu="H100",
    )
    assert mag(r["link_bandwidth"], "GB/s") == pytest.approx(NIC, rel=1e-12)
    assert mag(r["allreduce_time"], "s") == pytest.approx(2 * 15 / 16 * 10 / NIC, rel=1e-12)


def test_without_its_nodes_a_collective_stays_on_nvlink_as_before():
    r = nm.solve("allreduce_time", message_bytes="10 GB", n_ranks=8, gpu="H100")
    assert mag(r.value, "s") == pytest.approx(2 * 7 / 8 * 10 / NVLINK, rel=1e-12)
    assert "Collective inside an NVLink domain" in str(r)
    assert "Collective across nodes" not in str(r)
    # a link the user gives wins over both
    given = nm.solve(
        "allreduce_time",
        message_bytes="10 GB",
        local_ranks=8,
        node_ranks=2,
        link_bandwidth="100 GB/s",
        gpu="H100",
    )
    assert mag(given.value, "s") == pytest.approx(2 * 15 / 16 * 10 / 100, rel=1e-12)
    # the same when the node is named: N = 1 leaves NVLink alone
    one = nm.solve("allreduce_time", message_bytes="10 GB", local_ranks=8, node_ranks=1, gpu="H100")
    assert mag(one.value, "s") == pytest.approx(2 * 7 / 8 * 10 / NVLINK, rel=1e-12)


# --- A layout's groups, placed in Megatron's order ------------------------------------------
LINKS = ["tp_link_bandwidth", "dp_link_bandwidth", "pp_link_bandwidth"]
LOCAL = ["tp_local_ranks", "dp_local_ranks", "pp_local_ranks"]


def links(**layout):
    r = nm.solve(LINKS + [n for n in LOCAL if n not in layout], gpu="H100", **layout)
    return (
        tuple(layout.get(name) or mag(r[name]) for name in LOCAL),
        tuple(mag(r[name], "GB/s") for name in LINKS),
        r,
    )


def test_tp2_dp4_puts_the_replicas_on_nvlink_and_the_stages_across():
    local, bandwidth, _ = links(tp=2, dp=4, pp=2)
    assert local == (2, 4, 1)  # 2 × 4 fill the node; the second stage is the next node
    assert bandwidth == pytest.approx((STEP_NVLINK, STEP_NVLINK, NIC), rel=1e-12)


def test_tp8_puts_dp_and_pp_across_nodes():
    local, bandwidth, _ = links(tp=8, dp=4, pp=2)
    assert local == (8, 1, 1)
    assert bandwidth == pytest.approx((STEP_NVLINK, NIC, NIC), rel=1e-12)


def test_tp_larger_than_a_node_is_not_nvlink():
    local, bandwidth, _ = links(tp=16, dp=1, pp=1)
    assert local[0] == 8
    # 16 ranks, 8 a node, 2 nodes: 2·15/16 over (2·7/8/301.5 + 2·1/2/(8·50)) per GB
    by_hand = 2 * 15 / 16 / (2 * 7 / 8 / STEP_NVLINK + 2 * 1 / 2 / (8 * 50))
    assert by_hand == pytest.approx(225.79, abs=0.01)
    assert bandwidth[0] == pytest.approx(by_hand, rel=1e-12)
    assert bandwidth[0] < NVLINK


def test_pp_first_puts_the_stages_in_the_node_and_splits_the_replicas():
    local, bandwidth, r = links(tp=2, dp=4, pp=2, pp_fills_node_first=1)
    assert local == (2, 2, 2)
    # 4 replicas, 2 a node on 2 nodes: 2·3/4 over (2·1/2/301.5 + 2·1/2/(2·50)) per GB
    by_hand = 2 * 3 / 4 / (1 / STEP_NVLINK + 1 / 100)
    assert by_hand == pytest.approx(112.64, abs=0.01)
    assert bandwidth == pytest.approx((STEP_NVLINK, by_hand, STEP_NVLINK), rel=1e-12)
    assert "pp_fills_node_first" in r.givens


def test_a_placement_named_rank_by_rank():
    # dp across nodes, pp in the node, tp = 2: every replica on its own node
    local, bandwidth, _ = links(tp=2, dp=4, pp=2, dp_local_ranks=1, pp_local_ranks=2)
    assert local == (2, 1, 2)
    assert bandwidth == pytest.approx((STEP_NVLINK, NIC, STEP_NVLINK), rel=1e-12)


def test_a_placement_that_overfills_a_node_is_flagged():
    r = nm.solve(
        "dp_link_bandwidth", tp=2, dp=4, pp=2, dp_local_ranks=4, pp_local_ranks=2, gpu="H100"
    )
    held = {c.constraint.name: c for c in r.constraints}
    assert not held["placement_fits_node"].holds and not r.fits
    assert r.fits is not None
    fine = nm.solve("dp_link_bandwidth", tp=2, dp=4, pp=2, gpu="H100")
    assert all(c.holds for c in fine.constraints)


def test_the_gradient_reduction_is_priced_on_the_replicas_links():
    # dp_comm_time = 2(n − 1)/n · G / B_dp, n = dp = 4, G = 16 GB of gradients per rank
    inside = nm.solve("dp_comm_time", dp_gradient_bytes="16 GB", tp=2, dp=4, pp=1, gpu="H100")
    across = nm.solve("dp_comm_time", dp_gradient_bytes="16 GB", tp=8, dp=4, pp=1, gpu="H100")
    assert mag(inside.value, "s") == pytest.approx(2 * 3 / 4 * 16 / STEP_NVLINK, rel=1e-12)
    assert mag(across.value, "s") == pytest.approx(2 * 3 / 4 * 16 / NIC, rel=1e-12)
    # tp = 2, dp = 16: 4 replicas a node on 4 nodes, hierarchical
    mixed = nm.solve("dp_comm_time", dp_gradient_bytes="16 GB", tp=2, dp=16, pp=1, gpu="H100")
    assert mag(mixed.value, "s") == pytest.approx(
        hierarchical(16, 4, 4, intra=STEP_NVLINK), rel=1e-12
    )


def test_an_nvl72_rack_keeps_the_replicas_on_nvlink():
    # GB200 NVL72: 72 GPUs in one NVLink domain; tp = 8 leaves room for 9 replicas
    # (the record states no NIC: one is given, though no replica uses it)
    r = nm.solve(
        ["dp_local_ranks", "dp_link_bandwidth"],
        tp=8,
        dp=9,
        pp=1,
        gpu="GB200",
        scale_out_bandwidth="50 GB/(s*GPU)",
    )
    assert mag(r["dp_local_ranks"]) == 9
    nvlink = mag(nm.solve("intra_node_bandwidth", gpu="GB200").value, "GB/s")
    assert mag(r["dp_link_bandwidth"], "GB/s") == pytest.approx(nvlink * 0.67, rel=1e-12)


def test_expert_all_to_all_splits_its_bytes_between_the_links():
    # ep = 8 over tp = 2: 4 expert ranks a node; per GB of a rank's buffer 3/8 on NVLink and
    # 4/8 across, one after the other, against (e − 1)/e = 7/8 of it in the formula
    r = nm.solve(["ep_local_ranks", "ep_link_bandwidth"], tp=2, dp=8, pp=1, ep=8, gpu="H100")
    assert mag(r["ep_local_ranks"]) == 4
    by_hand = (7 / 8) / (3 / 8 / STEP_NVLINK + 4 / 8 / NIC)
    assert mag(r["ep_link_bandwidth"], "GB/s") == pytest.approx(by_hand, rel=1e-12)


def test_without_a_nic_figure_tp_is_assumed_inside_a_node_and_says_so():
    # the GB200 record states no NIC: tp = 4 is priced on NVLink, labelled an assumption
    r = nm.solve("tp_link_bandwidth", tp=4, gpu="GB200")
    nvlink = mag(nm.solve("intra_node_bandwidth", gpu="GB200").value, "GB/s")
    assert mag(r.value, "GB/s") == pytest.approx(nvlink * 0.67, rel=1e-12)
    assert "ASSUMPTION" in str(r) and "Tensor parallelism inside a node" in str(r)
    # with the H100's NIC on record the placement prices it, no assumption about the link
    placed = str(nm.solve("tp_link_bandwidth", tp=4, gpu="H100"))
    assert "Tensor parallelism inside a node" not in placed
    assert "Tensor-parallel all-reduce links" in placed


# --- The optimiser searches placements ------------------------------------------------------
SEARCH = dict(
    model="llama-3-8b",
    gpu="H100",
    n_gpus=16,
    seq_len=4096,
    global_batch_tokens="4Mi",
    batch_size=1,
    zero_stage=1,
)
OVER = {"tp": "1,2,4,8", "pp": "1,2,4", "dp": None, "pp_fills_node_first": None}


def test_the_optimiser_searches_both_placements_and_prices_each_as_solve_does():
    o = nm.optimize("step_time_predicted", over=OVER, **SEARCH)
    assert o.count == 4 * 3 * 2  # tp · pp · the two placements
    placements = o.objective_values("pp_fills_node_first")
    assert sorted(set(placements)) == [0.0, 1.0]
    tp, pp = o.objective_values("tp"), o.objective_values("pp")
    step = o.objective_values("step_time_predicted")
    for first in (0, 1):
        # tp 2, pp 2, dp 4: first = 0 is dp on NVLink and pp across nodes, 1 the other way
        (i,) = np.flatnonzero((tp == 2) & (pp == 2) & (placements == first))
        solved = nm.solve(
            "step_time_predicted", tp=2, pp=2, dp=4, pp_fills_node_first=first, **SEARCH
        )
        assert step[i] == pytest.approx(mag(solved.value, "s"), rel=1e-9)
    best = o.best_candidate.point
    assert (best["tp"], best["pp"], best["dp"], best["pp_fills_node_first"]) == (2, 2, 4, 1)


def test_the_two_placements_by_hand():
    # tp 2, pp 2, dp 4 on 16 H100s; m = 4Mi / (4,096 · 1 · 4) = 256 micro-batches; each
    # stage sends b·s·h·2 B = 33.55 MB forward and back per micro-batch, 1/t per rank
    m, message = 4 * 2**20 / (4096 * 4), 4096 * 4096 * 2 / 1e9  # GB
    gradients = 8.03e9 / (2 * 2) * 2 / 1e9  # bf16 gradients of a rank's quarter (params), GB
    names = ["pp_send_time", "dp_comm_time"]
    dp_first = nm.solve(names, tp=2, pp=2, dp=4, **SEARCH)
    pp_first = nm.solve(names, tp=2, pp=2, dp=4, pp_fills_node_first=1, **SEARCH)
    # each send all-gathered over the tensor-parallel pair on arrival (in the node: NVLink)
    gather = 2 * m * message * (1 / 2) / STEP_NVLINK
    # Megatron's order: the 4 replicas fill the node (NVLink), the stages are across (NIC)
    assert mag(dp_first["pp_send_time"], "s") == pytest.approx(2 * m * message / (2 * NIC) + gather)
    assert mag(dp_first["dp_comm_time"], "s") == pytest.approx(2 * 3 / 4 * gradients / STEP_NVLINK)
    # pp first: the 2 stages in the node (NVLink), 2 replicas a node on 2 nodes
    assert mag(pp_first["pp_send_time"], "s") == pytest.approx(
        2 * m * message / (2 * STEP_NVLINK) + gather
    )
    assert mag(pp_first["dp_comm_time"], "s") == pytest.approx(
        hierarchical(gradients, 2, 2, intra=STEP_NVLINK)
    )


def test_the_cli_optimiser_names_the_placement(napkin):
    status, out, _ = napkin(
        "optimize",
        "--minimize",
        "step_time_predicted",
        "--over",
        "tp=1,2,4,8",
        "--over",
        "pp=1,2,4",
        "--over",
        "dp",
        "--over",
        "pp_fills_node_first",
        "--model",
        "llama-3-8b",
        "--gpu",
        "H100",
        "n_gpus=16",
        "seq_len=4096",
        "global_batch_tokens=4Mi",
        "batch_size=1",
        "zero_stage=1",
        "--no-derivation",
    )
    assert status == 0
    assert "24 candidates searched completely" in out
    assert "Best: tp = 2, pp = 2, pp_fills_node_first = 1, dp = 4" in out
    assert "tp = 2, pp = 2, pp_fills_node_first = 0, dp = 4: step_time_predicted" in out


def test_the_placement_order_is_zero_or_one():
    for order in (0, 1):
        nm.solve("dp_link_bandwidth", tp=2, dp=4, pp=2, gpu="H100", pp_fills_node_first=order)
    with pytest.raises(nm.InputError, match=r"placement order is 0 or 1.*give 0 or 1"):
        nm.solve("dp_link_bandwidth", tp=2, dp=4, pp=2, gpu="H100", pp_fills_node_first=0.5)
    with pytest.raises(nm.InputError, match=r"refused: pp_fills_node_first = 2 breaks"):
        nm.solve("dp_link_bandwidth", tp=2, dp=4, pp=2, gpu="H100", pp_fills_node_first=2)
