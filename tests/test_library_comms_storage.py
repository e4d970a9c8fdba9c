"""Collectives as engineers size them (formulas/collectives.py) and moving data, recovery
point and time, and the price of kept checkpoints (formulas/storage.py, reliability.py).
Hand arithmetic beside every expectation.

- The JAX scaling book, 'Sharded Matrices', pop quiz 2: all-gathering 34 MB over one TPU v5e
  axis at 9e10 B/s bidirectional takes 377 µs.
- Narayanan et al. 2021, §3.2: tensor parallelism sends 8·b·s·h·(t−1)/t elements per layer
  per device (two all-reduces forward, two backward).
- DeepSeek-V3 (arXiv:2412.19437): h = 7,168, 8 routed experts per token, dispatch in FP8 and
  combine in BF16, at most 4 nodes per token.
"""

import math

import pytest
from helpers import mag

import napkinmath as nm

NVLINK4 = 450e9  # B/s per direction (H100 record)
NDR = 50e9  # 400 Gb/s


# --- α-β: ring and tree -----------------------------------------------------------------------
def test_ring_allreduce_adds_two_n_minus_one_latencies():
    # 1 MB over 128 ranks, 50 GB/s, 5 µs per step: 2 x 127 x 5 µs = 1.27 ms of latency
    # + 2 x 127/128 x 1e6 / 50e9 = 39.7 µs of bandwidth
    r = nm.solve(
        "allreduce_time_ring",
        message_bytes="1 MB",
        n_ranks=128,
        link_bandwidth="400 Gb/s",
        link_latency="5 us",
    )
    assert mag(r.value, "s") == pytest.approx(2 * 127 * 5e-6 + 2 * 127 / 128 * 1e6 / NDR)


def test_tree_allreduce_wins_for_small_messages_on_many_ranks():
    # tree: 2 x log2(128) x 5 µs = 70 µs + 2 x 1e6 / 50e9 = 40 µs: 110 µs against the ring's
    # 1.31 ms; for 14 GB the bandwidth terms dominate and the two agree within 1%
    small = dict(message_bytes="1 MB", n_ranks=128, link_bandwidth="400 Gb/s", link_latency="5 us")
    tree = nm.solve("allreduce_time_tree", **small)
    ring = nm.solve("allreduce_time_ring", **small)
    assert mag(tree.value, "s") == pytest.approx(2 * 7 * 5e-6 + 2 * 1e6 / NDR)
    assert mag(tree.value, "s") < mag(ring.value, "s") / 10
    big = {**small, "message_bytes": "14 GB"}
    assert mag(nm.solve("allreduce_time_tree", **big).value, "s") == pytest.approx(
        mag(nm.solve("allreduce_time_ring", **big).value, "s"), rel=0.01
    )


def test_hierarchical_allreduce_keeps_the_bulk_on_nvlink():
    # 14 GB of bf16 gradients (7B), 16 nodes x 8 H100, one 400 Gb/s NIC per GPU:
    # in the node 2 x 7/8 x 14e9 / 450e9 = 54.4 ms; across 2 x 15/16 x (14e9 / 8) / 50e9 =
    # 65.6 ms; 120.1 ms in all, against a flat 128-rank ring over the NICs' 2 x 127/128 x
    # 14e9 / 50e9 = 555.6 ms
    r = nm.solve(
        "hierarchical_allreduce_time",
        message_bytes="14 GB",
        local_ranks=8,
        node_ranks=16,
        inter_node_bandwidth="400 Gb/s",
        gpu="H100",
    )
    hand = 2 * 7 / 8 * 14e9 / NVLINK4 + 2 * 15 / 16 * 14e9 / 8 / NDR
    assert mag(r.value, "s") == pytest.approx(hand)
    flat = nm.solve("allreduce_time", message_bytes="14 GB", n_ranks=128, link_bandwidth="400 Gb/s")
    assert mag(flat.value, "s") / mag(r.value, "s") == pytest.approx(4.63, abs=0.01)


def test_ranks_of_a_multi_node_collective():
    r = nm.solve("n_ranks", local_ranks=8, node_ranks=16)
    assert mag(r.value) == 128


# --- torus rings (TPU ICI) --------------------------------------------------------------------
def test_scaling_book_all_gather_on_a_v5e_axis():
    # 2,048 x 8,192 bf16 = 33.6 MB (the book rounds to 34 MB) at 9e10 B/s: 373 µs (377 with 34)
    r = nm.solve("torus_allgather_time", message_bytes="34 MB", ici_axis_bandwidth="90 GB/s")
    assert mag(r.value, "us") == pytest.approx(34e6 / 9e10 * 1e6)
    assert mag(r.value, "us") == pytest.approx(377, abs=1)


def test_torus_allreduce_is_two_all_gathers_and_shares_the_axes():
    # 1 GB all-reduce over two axes at 9e10 B/s each: 2 x 1e9 / (9e10 x 2) = 11.1 ms
    r = nm.solve(
        "torus_allreduce_time", message_bytes="1 GB", ici_axis_bandwidth="90 GB/s", torus_axes=2
    )
    assert mag(r.value, "s") == pytest.approx(2 * 1e9 / (9e10 * 2))


# --- tensor parallelism -----------------------------------------------------------------------
def test_tensor_parallel_bytes_per_layer_are_narayanans_8bsh():
    # b = 1, s = 8,192, h = 8,192, bf16, t = 8: message 1 x 8,192 x 8,192 x 2 B = 134.2 MB;
    # 4 all-reduces x 2 x 7/8 x 134.2 MB = 469.8 MB = 8 x b x s x h x (t-1)/t elements x 2 B
    r = nm.solve(
        ["tp_message_bytes", "tp_comm_bytes_per_layer", "tp_comm_time_per_layer"],
        batch_size=1,
        seq_len=8192,
        hidden_size=8192,
        tp=8,
        gpu="H100",
    )
    message = 8192 * 8192 * 2
    assert mag(r["tp_message_bytes"], "B") == pytest.approx(message)
    assert mag(r["tp_comm_bytes_per_layer"], "B") == pytest.approx(8 * 8192 * 8192 * 7 / 8 * 2)
    # over NVLink 4 at 450 GB/s per direction: 469.8e6 / 450e9 = 1.04 ms per layer
    assert mag(r["tp_comm_time_per_layer"], "ms") == pytest.approx(
        8 * 8192 * 8192 * 7 / 8 * 2 / NVLINK4 * 1e3
    )


def test_inference_tensor_parallelism_has_half_the_all_reduces():
    r = nm.solve(
        "tp_comm_bytes_per_layer",
        batch_size=1,
        seq_len=1,
        hidden_size=8192,
        tp=8,
        tp_allreduces_per_layer=2,
    )
    assert mag(r.value, "B") == pytest.approx(2 * 2 * 7 / 8 * 8192 * 2)  # 28,672 B per token


# --- MoE dispatch and combine -----------------------------------------------------------------
def test_deepseek_v3_dispatch_and_combine_bytes_per_token():
    # dispatch FP8: 8 x 7,168 x 1 B = 57,344 B; combine BF16: 8 x 7,168 x 2 B = 114,688 B;
    # across nodes, one copy per node for at most 4 nodes: 4 x 7,168 x 1 B = 28,672 B
    r = nm.solve(
        [
            "moe_dispatch_bytes_per_token",
            "moe_combine_bytes_per_token",
            "moe_internode_dispatch_bytes_per_token",
        ],
        model="deepseek-v3",
        dispatch_bytes_per_element="1 B/token",
        moe_nodes_per_token=4,
    )
    assert mag(r["moe_dispatch_bytes_per_token"], "B/token") == 8 * 7168
    assert mag(r["moe_combine_bytes_per_token"], "B/token") == 8 * 7168 * 2
    assert mag(r["moe_internode_dispatch_bytes_per_token"], "B/token") == 4 * 7168


def test_moe_all_to_all_bytes_per_rank_per_layer():
    # 4,096 tokens per rank, bf16 both ways, k = 8, h = 7,168, ep = 64: (8 x 7,168 x 2) x 2
    # = 229,376 B per token, x 4,096 tokens x 63/64 = 924.8 MB per MoE layer per rank
    r = nm.solve(
        "moe_alltoall_bytes_per_rank", batch_size=1, seq_len=4096, model="deepseek-v3", ep=64
    )
    assert mag(r.value, "B") == pytest.approx(4096 * 8 * 7168 * 2 * 2 * 63 / 64)


# --- moving data ------------------------------------------------------------------------------
def test_checkpoint_copy_between_regions():
    # 6.48 TB (405e9 x 16 B) over 10 Gb/s = 1.25 GB/s: 5,184 s = 1.44 h; over 100 Gb/s 8.6 min
    r = nm.solve("transfer_time", transfer_size="6.48 TB", transfer_bandwidth="10 Gb/s")
    assert mag(r.value, "h") == pytest.approx(6.48e12 / 1.25e9 / 3600)
    fast = nm.solve("transfer_time", transfer_size="6.48 TB", transfer_bandwidth="100 Gb/s")
    assert mag(fast.value, "min") == pytest.approx(8.64)


def test_dataset_download_time():
    # 15.6e12 tokens x 4 B = 62.4 TB at 2 GB/s: 31,200 s = 8.7 h
    r = nm.solve("transfer_time", transfer_size="62.4 TB", transfer_bandwidth="2 GB/s")
    assert mag(r.value, "s") == pytest.approx(62.4e12 / 2e9)


# --- recovery point and time ------------------------------------------------------------------
def test_recovery_point_adds_the_replication_lag():
    # checkpoint every 20 min, replica durable 15 min after the checkpoint starts: 35 min
    r = nm.solve("recovery_point", checkpoint_interval="20 min", replication_lag="15 min")
    assert mag(r.value, "min") == 35


def test_recovery_time_is_restore_restart_and_warm_up():
    # 6.48 TB restored at 100 GB/s = 64.8 s; 5 min to reschedule, 10 min of warm-up:
    # 5 + 1.08 + 10 = 16.08 min
    r = nm.solve(
        "recovery_time",
        params_total="405B",
        storage_bandwidth="100 GB/s",
        reschedule_time="5 min",
        warmup_time="10 min",
    )
    assert mag(r.value, "min") == pytest.approx(5 + 64.8 / 60 + 10)


# --- keeping K checkpoints, burst tier against archive ----------------------------------------
def test_checkpoint_storage_cost_on_two_tiers():
    # 10 checkpoints of 6.48 TB = 64.8 TB: S3 Standard at 23 USD/(TB·month) = 1,490 USD/month;
    # Glacier Deep Archive at 0.99 = 64.2 USD/month (retrieval of 12 h or more aside)
    hot = nm.solve(
        "checkpoint_storage_cost", checkpoints_kept=10, params_total="405B", gpu="S3-prefix"
    )
    cold = nm.solve(
        "checkpoint_storage_cost",
        checkpoints_kept=10,
        params_total="405B",
        gpu="S3-Glacier-Deep-Archive",
    )
    assert mag(hot.value, "USD/month") == pytest.approx(64.8 * 23)
    assert mag(cold.value, "USD/month") == pytest.approx(64.8 * 0.99)
    assert "assumption" in str(hot).lower()
    # keeping 2 hot and 48 cold costs 2 x 6.48 x 23 + 48 x 6.48 x 0.99 = 606 USD/month
    tiered = 2 * 6.48 * 23 + 48 * 6.48 * 0.99
    assert tiered == pytest.approx(606, abs=1)
    assert math.isclose(
        mag(hot.value, "USD/month") / 10 * 2 + mag(cold.value, "USD/month") / 10 * 48, tiered
    )
