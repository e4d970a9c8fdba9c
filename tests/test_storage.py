"""Worked examples W8 (checkpoint write and its overhead) and W10 (token stream vs checkpoint
burst), storage capacity and asynchronous checkpoints.

Decimal units: 1 TB = 1e12 B, 1 GB/s = 1e9 B/s. H100 record: 989.5 TFLOP/s dense BF16.
"""

import math

import pytest
from helpers import mag

import napkinmath as nm

H100_PEAK = 989.5e12  # FLOP/s per GPU, dense BF16 (the H100-SXM record)
CHECKPOINT_405B = 405e9 * 16  # 6.48e12 B: the whole mixed-precision Adam state


# --- W8: checkpoint write ----------------------------------------------------------------------
W8 = dict(params_total="405e9", storage_bandwidth="100 GB/s", checkpoint_interval="30 min")


def test_w8_size_write_time_and_blocking_overhead():
    r = nm.solve(["checkpoint_size", "checkpoint_write_time", "checkpoint_overhead"], **W8)
    assert mag(r["checkpoint_size"], "TB") == pytest.approx(6.48)  # 405e9 x 16 B
    assert mag(r["checkpoint_write_time"], "s") == pytest.approx(6.48e12 / 100e9)  # 64.8
    assert r["checkpoint_overhead"].magnitude == pytest.approx(64.8 / 1800)  # 3.6%
    assert "checkpoint_bytes_per_param" in r.assumptions


def test_w8_write_bandwidth_falls_back_to_the_tier_bandwidth_and_says_so():
    text = str(nm.solve("checkpoint_write_time", **W8))
    assert "storage_write_bandwidth = storage_bandwidth" in text


def test_w8_inverse_bandwidth_for_a_two_percent_budget():
    r = nm.solve(
        "storage_write_bandwidth",
        params_total="405e9",
        checkpoint_overhead="2%",
        checkpoint_interval="30 min",
    )
    # 2% of 1,800 s = 36 s per write: 6.48e12 B / 36 s = 180 GB/s
    assert mag(r.value, "GB/s") == pytest.approx(CHECKPOINT_405B / 36 / 1e9)


def test_w8_inverse_interval_for_a_budget():
    r = nm.solve(
        "checkpoint_interval",
        checkpoint_overhead=0.01,
        **{k: v for k, v in W8.items() if k != "checkpoint_interval"},
    )
    assert mag(r.value, "s") == pytest.approx(64.8 / 0.01)  # 6,480 s = 108 min


def test_w8_without_gradients_a_checkpoint_is_14_bytes_per_param():
    r = nm.solve("checkpoint_size", params_total="405e9", checkpoint_bytes_per_param="14 B/param")
    assert mag(r.value, "TB") == pytest.approx(405e9 * 14 / 1e12)  # 5.67 TB


def test_w8_restore_and_write_from_a_record_with_two_figures():
    r = nm.solve(
        ["checkpoint_write_time", "checkpoint_restore_time"],
        params_total="405e9",
        gpu="NVMe-Gen5-drive",
    )
    assert mag(r["checkpoint_write_time"], "s") == pytest.approx(6.48e12 / 6.6e9)  # writes
    assert mag(r["checkpoint_restore_time"], "s") == pytest.approx(6.48e12 / 13e9)  # reads


def test_w8_record_with_one_figure():
    r = nm.solve("checkpoint_write_time", params_total="405e9", gpu="Parallel-FS-100GBs")
    assert mag(r.value, "s") == pytest.approx(64.8)


def test_w8_overhead_above_one_is_refused():
    with pytest.raises(nm.NoRootError) as err:
        nm.solve(
            "checkpoint_overhead",
            params_total="405e9",
            storage_bandwidth="1 GB/s",
            checkpoint_interval="30 minutes",
        )  # 6,480 s of writing per 1,800 s
    assert err.value.variable == "checkpoint_overhead"


def test_asynchronous_checkpoint_blocks_only_for_the_snapshot():
    r = nm.solve(
        ["checkpoint_snapshot_time", "checkpoint_overhead_async"],
        params_total="405e9",
        n_gpus=16384,
        snapshot_bandwidth="25 GB/(s*GPU)",
        checkpoint_interval="30 min",
    )
    snapshot = 6.48e12 / (16384 * 25e9)  # 15.8 ms: each GPU copies its 396 MB shard
    assert mag(r["checkpoint_snapshot_time"], "s") == pytest.approx(snapshot)
    assert r["checkpoint_overhead_async"].magnitude == pytest.approx(snapshot / 1800)


# --- W10: token stream vs checkpoint burst -------------------------------------------------------
W10 = dict(n_gpus=16384, mfu=0.40, params="405e9", gpu="H100")
W10_TOKENS_PER_S = 16384 * H100_PEAK * 0.40 / (6 * 405e9)  # 2.669e6 token/s


def test_w10_token_stream():
    r = nm.solve(["train_throughput", "dataset_read_rate"], **W10)
    assert mag(r["train_throughput"], "token/s") == pytest.approx(W10_TOKENS_PER_S)
    assert pytest.approx(2.67e6, rel=0.01) == W10_TOKENS_PER_S
    read = W10_TOKENS_PER_S * 4  # 4 B per token on disk: 10.7 MB/s
    assert mag(r["dataset_read_rate"], "MB/s") == pytest.approx(read / 1e6)
    assert read / 1e6 == pytest.approx(10.7, rel=0.01)


def test_w10_checkpoint_burst_and_ratio():
    r = nm.solve(
        ["storage_write_bandwidth", "burst_to_stream_ratio"],
        params_total="405e9",
        checkpoint_write_time="60 s",
        **W10,
    )
    burst = 6.48e12 / 60  # 108 GB/s
    assert mag(r["storage_write_bandwidth"], "GB/s") == pytest.approx(burst / 1e9)
    ratio = burst / (W10_TOKENS_PER_S * 4)  # about 1e4
    assert r["burst_to_stream_ratio"].magnitude == pytest.approx(ratio)
    assert math.log10(ratio) == pytest.approx(4, abs=0.1)


def test_w10_read_rate_from_tokens_and_days():
    r = nm.solve("dataset_read_rate", tokens="1T", train_time="21 days")
    assert mag(r.value, "MB/s") == pytest.approx(1e12 / (21 * 86400) * 4 / 1e6)  # 2.2 MB/s


def test_w10_throughput_agrees_with_the_fleet_equation():
    r = nm.solve("train_time", tokens="15.6T", **W10)
    assert mag(r.value, "s") == pytest.approx(15.6e12 / W10_TOKENS_PER_S)  # 67.7 days


# --- Storage tiering: dataset, checkpoints kept, capacity ----------------------------------------
def test_dataset_and_checkpoints_kept():
    r = nm.solve(
        ["dataset_size", "checkpoint_storage", "storage_needed"],
        tokens="15.6T",
        params_total="405e9",
        checkpoints_kept=5,
    )
    assert mag(r["dataset_size"], "TB") == pytest.approx(15.6e12 * 4 / 1e12)  # 62.4 TB
    assert mag(r["checkpoint_storage"], "TB") == pytest.approx(5 * 6.48)  # 32.4 TB
    assert mag(r["storage_needed"], "TB") == pytest.approx(62.4 + 32.4)  # 94.8 TB


def test_checkpoints_that_fit_in_a_tier():
    r = nm.solve("checkpoints_fit", params_total="405e9", storage_capacity="100 TB")
    assert r.value.magnitude == math.floor(100 / 6.48)  # 15
    r = nm.solve("checkpoints_fit", params_total="405e9", gpu="NVMe-8-drive-node")
    assert r.value.magnitude == math.floor(30.72 / 6.48)  # 4 on one node's local NVMe


def test_inverse_checkpoints_a_capacity_holds():
    r = nm.solve("checkpoints_kept", params_total="405e9", checkpoint_storage="64.8 TB")
    assert r.value.magnitude == pytest.approx(10)


# --- CLI -----------------------------------------------------------------------------------------
def test_cli_w8(napkin):
    status, out, err = napkin(
        "solve",
        "checkpoint_overhead",
        "params_total=405e9",
        "storage_bandwidth=100 GB/s",
        "checkpoint_interval=30 min",
    )
    assert status == 0, err
    assert out.startswith("checkpoint_overhead = 3.6%")
    assert "6.48 TB" in out and "64.8 s" in out
