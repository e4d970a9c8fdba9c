"""Seed topics (issue 23 §5): peak-sized dedicated fleets against a shared pool
(formulas/fleet.py), the replication lag of a checkpoint and a warm second site
(formulas/reliability.py), a node-local storage tier (formulas/storage.py), and the TPU
records' per-axis ICI bandwidth and torus shape (hardware/google.toml, formulas/collectives.py).
Hand arithmetic beside every expectation.

- JAX scaling book, 'How to Think About TPUs' (ICI table as of 2025-02-08): 4.5e10 B/s one-way
  per link on v5e (9e10 per axis, both links), 9e10 on v5p and v6e (1.8e11 per axis); v5e and
  v6e are 2D tori, v5p a 3D torus. 'Sharded Matrices', pop quiz 2: all-gathering 34 MB over one
  v5e axis takes 34e6 / 9e10 = 378 µs.
"""

import pytest
from helpers import mag

import napkinmath as nm
from napkinmath.hardware import get

CKPT_405B = 405e9 * 16  # B: 6.48 TB of mixed-precision Adam state


# --- a dedicated fleet against a shared pool ----------------------------------------------------
def test_pooling_two_services_whose_peaks_do_not_coincide():
    # two services averaging 500 GPUs' worth each, each peaking at 1,000, together at 1,400:
    # dedicated 1,000 / 2,000 = 50%; pooled 1,000 / 1,400 = 71.43%; 600 GPUs saved
    r = nm.solve(
        ["dedicated_fleet_utilization", "pooled_fleet_utilization", "pooling_gpus_saved"],
        fleet_mean_load="1000 GPU",
        fleet_peak_load_sum="2000 GPU",
        fleet_peak_load_pooled="1400 GPU",
    )
    assert mag(r.values["dedicated_fleet_utilization"]) == pytest.approx(0.5)
    assert mag(r.values["pooled_fleet_utilization"]) == pytest.approx(1000 / 1400)
    assert mag(r.values["pooling_gpus_saved"], "GPU") == pytest.approx(600)


def test_pooling_asked_in_request_rates(napkin):
    # the same two services in traffic: 5,000 request/s on average, peaks of 5,000 each at
    # different hours (10,000 summed), 7,000 together; one GPU serves 5 request/s at the
    # planned utilization (gpu_request_capacity, as the floor-and-borrow formulas take it):
    # 1,000, 2,000 and 1,400 GPUs' worth, 71.43% pooled and 600 saved
    status, out, err = napkin(
        "solve",
        "pooled_fleet_utilization",
        "pooling_gpus_saved",
        "fleet_mean_request_rate=5000 request/s",
        "fleet_peak_request_rate_sum=10000 request/s",
        "fleet_peak_request_rate_pooled=7000 request/s",
        "gpu_request_capacity=5 request/(s*GPU)",
    )
    assert status == 0, err
    assert "pooled_fleet_utilization = 71.43%" in out and "pooling_gpus_saved = 600 GPU" in out
    assert "fleet_peak_load_pooled = fleet_peak_request_rate_pooled / gpu_request_capacity" in out
    # the inverse: the per-GPU capacity that fits a 1,400-GPU pool to its 7,000 request/s peak
    r = nm.solve(
        "gpu_request_capacity",
        fleet_peak_request_rate_pooled="7000 request/s",
        fleet_peak_load_pooled="1400 GPU",
    )
    assert mag(r.value, "request/(s*GPU)") == pytest.approx(7000 / 1400)


def test_the_pooled_peak_a_target_utilization_allows():
    # at 80% utilization a mean load of 1,000 GPUs allows a pooled peak of 1,000 / 0.8 = 1,250
    r = nm.solve("fleet_peak_load_pooled", fleet_mean_load="1000 GPU", pooled_fleet_utilization=0.8)
    assert mag(r.value, "GPU") == pytest.approx(1250)


def test_a_pooled_peak_above_the_sum_of_peaks_is_refused():
    # the peak of a sum is at most the sum of the peaks: 2,000 − 2,100 < 0 GPUs saved
    with pytest.raises(nm.NoRootError):
        nm.solve(
            "pooling_gpus_saved", fleet_peak_load_sum="2000 GPU", fleet_peak_load_pooled="2100 GPU"
        )


# --- a second site: replication lag and a warm standby ----------------------------------------
def test_replication_lag_of_a_405b_checkpoint():
    # write 6.48 TB at 100 GB/s: 64.8 s; copy over 100 Gb/s = 12.5 GB/s: 518.4 s;
    # lag 583.2 s = 9.72 min; with a 20 min interval the recovery point is 29.72 min
    r = nm.solve(
        ["checkpoint_copy_time", "replication_lag", "recovery_point"],
        params_total="405e9",
        storage_write_bandwidth="100 GB/s",
        inter_site_bandwidth="100 Gb/s",
        checkpoint_interval="20 min",
    )
    assert mag(r.values["checkpoint_copy_time"], "s") == pytest.approx(CKPT_405B / 12.5e9)
    assert mag(r.values["replication_lag"], "s") == pytest.approx(
        CKPT_405B / 100e9 + CKPT_405B / 12.5e9
    )
    assert mag(r.values["recovery_point"], "min") == pytest.approx(20 + 583.2 / 60)


def test_inter_site_bandwidth_a_replication_lag_target_needs():
    # a 10 min lag with a 64.8 s write leaves 535.2 s for the copy:
    # 6.48e12 B / 535.2 s = 12.108 GB/s = 96.86 Gb/s
    r = nm.solve(
        "inter_site_bandwidth",
        replication_lag="10 min",
        checkpoint_size="6.48 TB",
        checkpoint_write_time="64.8 s",
    )
    assert mag(r.value, "Gb/s") == pytest.approx(6.48e12 * 8 / 535.2 / 1e9)


def test_warm_standby_against_the_recovery_it_buys():
    # standby: 1,024 GPUs × 365 days × 24 h × 2 USD/(GPU·h) = 17,940,480 USD a year;
    # a site loss without it: 16,384 GPUs × 14 days × 24 h × 2 USD = 11,010,048 USD;
    # break-even at 17,940,480 / 11,010,048 = 1.629 site losses a year
    r = nm.solve(
        ["standby_cost", "site_loss_cost", "standby_break_even_site_losses"],
        standby_gpus="1024 GPU",
        standby_period="365 days",
        n_gpus=16384,
        site_recovery_time="14 days",
        price_per_gpu_hour="2 USD/(GPU*hour)",
    )
    assert mag(r.values["standby_cost"], "USD") == pytest.approx(1024 * 8760 * 2)
    assert mag(r.values["site_loss_cost"], "USD") == pytest.approx(16384 * 336 * 2)
    assert mag(r.values["standby_break_even_site_losses"]) == pytest.approx(
        1024 * 8760 / (16384 * 336)
    )


def test_cli_standby_break_even(napkin):
    status, out, err = napkin(
        "solve",
        "standby_break_even_site_losses",
        "standby_gpus=1024 GPU",
        "standby_period=365 days",
        "n_gpus=16384",
        "site_recovery_time=14 days",
        "--gpu",
        "H100",
    )
    assert status == 0, err
    # the price cancels: 1,024 × 8,760 / (16,384 × 336) = 1.629 whatever the H100 record's price
    assert out.startswith("standby_break_even_site_losses = 1.629")


# --- a node-local storage tier -----------------------------------------------------------------
def test_node_local_write_of_a_405b_checkpoint():
    # 2,048 nodes × 56 GB/s each = 114.7 TB/s; 6.48 TB / 114.7 TB/s = 56.5 ms
    r = nm.solve(
        ["storage_write_bandwidth", "checkpoint_write_time"],
        params_total="405e9",
        node_storage_write_bandwidth="56 GB/(s*node)",
        storage_nodes="2048 node",
    )
    assert mag(r.values["storage_write_bandwidth"], "GB/s") == pytest.approx(56 * 2048)
    assert mag(r.values["checkpoint_write_time"], "ms") == pytest.approx(
        CKPT_405B / (56e9 * 2048) * 1e3
    )


def test_every_node_writes_unless_told_otherwise():
    # 16,384 H100 at 8 per node: 2,048 nodes (the assumption says so), 56.5 ms again;
    # a restore from the same drives at 28 GB/s per node reads back in twice that
    r = nm.solve(
        ["checkpoint_write_time", "checkpoint_restore_time"],
        params_total="405e9",
        node_storage_write_bandwidth="56 GB/(s*node)",
        node_storage_bandwidth="28 GB/(s*node)",
        n_gpus=16384,
        gpu="H100",
    )
    assert mag(r.values["checkpoint_write_time"], "s") == pytest.approx(CKPT_405B / (56e9 * 2048))
    assert mag(r.values["checkpoint_restore_time"], "s") == pytest.approx(CKPT_405B / (28e9 * 2048))
    assert any(f.name == "storage_nodes_are_all_nodes" for s in r.steps for f in s.formulas)


def test_cli_node_local_write(napkin):
    status, out, err = napkin(
        "solve",
        "checkpoint_write_time",
        "params_total=405B",
        "node_storage_write_bandwidth=56 GB/s/node",
        "storage_nodes=2048 node",
    )
    assert status == 0, err
    assert out.startswith("checkpoint_write_time = 56.5 ms")  # 6.48e12 / 1.147e14 = 0.0565 s


# --- TPU records: per-axis ICI bandwidth and the torus --------------------------------------
@pytest.mark.parametrize(
    ("record", "axis_bandwidth", "dims"),
    [("TPU-v5e", 90e9, 2), ("TPU-v5p", 180e9, 3), ("TPU-v6e", 180e9, 2)],
)
def test_tpu_records_hold_the_axis_bandwidth_and_the_torus(record, axis_bandwidth, dims):
    values = get(record).values
    assert mag(values["ici_axis_bandwidth"].quantity, "B/s") == pytest.approx(axis_bandwidth)
    assert mag(values["torus_dims"].quantity) == dims
    qualifier = values["ici_axis_bandwidth"].qualifier
    assert "per torus AXIS" in qualifier and "NOT per direction" in qualifier
    assert values["ici_axis_bandwidth"].date == "2025-02"


def test_cli_torus_allreduce_on_a_v6e(napkin):
    # 2 × 1 GB / 180 GB/s = 11.11 ms over one axis
    status, out, err = napkin(
        "solve", "torus_allreduce_time", "message_bytes=1 GB", "--gpu", "TPU-v6e"
    )
    assert status == 0, err
    assert out.startswith("torus_allreduce_time = 11.11 ms")
    assert "✓ A torus collective uses at most the torus's axes: 1 ≤ 2" in out


def test_scaling_book_pop_quiz_from_the_v5e_record():
    # 34 MB over one v5e axis at 9e10 B/s: 34e6 / 9e10 = 377.8 µs
    r = nm.solve("torus_allgather_time", message_bytes="34 MB", gpu="TPU-v5e")
    assert mag(r.value, "us") == pytest.approx(34e6 / 9e10 * 1e6)


def test_a_v5p_all_reduce_over_its_three_axes():
    # 2 × 1 GB / (180 GB/s × 3) = 3.704 ms
    r = nm.solve("torus_allreduce_time", message_bytes="1 GB", torus_axes=3, gpu="TPU-v5p")
    assert mag(r.value, "ms") == pytest.approx(2e9 / (180e9 * 3) * 1e3)
    assert all(c.holds for c in r.constraints)


def test_three_axes_on_a_2d_torus_is_flagged(napkin):
    status, out, err = napkin(
        "solve",
        "torus_allreduce_time",
        "message_bytes=1 GB",
        "torus_axes=3",
        "--gpu",
        "TPU-v6e",
        "--strict",
    )
    assert status == 1
    assert "VIOLATED: A torus collective uses at most the torus's axes: 3 > 2" in out + err
