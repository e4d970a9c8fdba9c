"""Words keep their meaning (issue 20 §7): MFU against the datasheet peak, and a FLOP count
other than 6ND said for what it is."""

from __future__ import annotations

import pytest

import napkinmath as nm

W12 = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")


def test_eight_flop_per_param_token_makes_the_given_mfu_an_hfu(napkin):
    r = nm.solve("n_gpus", flop_per_param_token=8, **W12)
    # 8 × 7e9 × 1e12 / (0.4 × 989.5e12 × 21 × 86,400 s) = 77.98 GPUs
    assert r.value.magnitude == pytest.approx(8 * 7e9 * 1e12 / (0.4 * 989.5e12 * 21 * 86400))
    step = next(s for s in r.steps if s.formulas[0].name == "training_compute")
    assert "flop_per_param_token = 8 counts full activation recomputation" in step.note
    assert "not the 6ND model FLOPs" in step.note
    assert any("hardware FLOPs utilization (HFU)" in n and "30.0%" in n for n in r.notes)
    status, out, _ = napkin(
        "solve",
        "n_gpus",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "mfu=0.4",
        "--gpu",
        "H100",
        "flop_per_param_token=8",
    )
    assert status == 0 and "mfu × 6/8 = 30.0%" in out


def test_a_back_solved_mfu_at_8nd_is_named_hfu_with_its_mfu():
    r = nm.solve(
        "mfu",
        params="405B",
        tokens="15.6T",
        gpu_hours="30.84e6 GPU*h",
        gpu="H100",
        flop_per_param_token=8,
    )
    hfu = 8 * 405e9 * 15.6e12 / (30.84e6 * 3600 * 989.5e12)  # 46.0%
    assert r.value.magnitude == pytest.approx(hfu)
    assert any(f"{hfu * 6 / 8:.1%}" in n for n in r.notes)  # 34.5%, W6's MFU


def test_the_default_six_says_nothing_more():
    r = nm.solve("n_gpus", **W12)
    assert not any("HFU" in n for n in r.notes)
    assert all("not the 6ND" not in s.note for s in r.steps)
