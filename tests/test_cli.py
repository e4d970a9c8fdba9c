"""The `napkin` command as a user runs it: help, listings, formats, exit codes, no tracebacks."""

import json
import subprocess
import sys

import pytest
from helpers import W12


def test_console_script_runs_a_real_solve():
    done = subprocess.run(
        [sys.executable, "-m", "napkinmath.cli", *W12], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("n_gpus = 58.48 GPU")  # 4.2e22 / (0.4 x 989.5e12 x 21 days)


def test_help_has_examples(napkin):
    with pytest.raises(SystemExit) as exit_info:
        napkin("--help")
    assert exit_info.value.code == 0


def test_no_command_prints_help(napkin):
    status, out, _ = napkin()
    assert status == 2 and "solve" in out


@pytest.mark.parametrize("fmt", ["markdown", "latex", "json"])
def test_formats(napkin, fmt):
    status, out, err = napkin(*W12, "--format", fmt)
    assert status == 0, err
    if fmt == "json":
        data = json.loads(out)
        assert data["targets"]["n_gpus"]["value"] == pytest.approx(58.484, rel=1e-4)
        assert data["steps"][1]["formulas"] == ["fleet_equation"]
    elif fmt == "markdown":
        assert "**n_gpus = 58.48 GPU" in out and "| `peak_flops` |" in out
    else:
        assert r"\begin{align*}" in out and r"\times 10^{22}" in out


def test_several_targets_comma_or_space(napkin):
    status, out, _ = napkin(
        "solve",
        "train_time,train_cost",
        "params=7B",
        "tokens=1T",
        "n_gpus=64",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
    )
    assert status == 0
    # 4.2e22 / (64 x 989.5e12 x 0.4) = 19.19 days = 29,476 GPU-h x 2.5 USD = 73,690 USD
    assert "train_time = 19.19 day" in out and "train_cost = 73,690 USD" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "n_gpus", "params=7B", "tokens=1T", "mfu=0.4", "--gpu", "H100"], "train_time"),
        (
            [
                "solve",
                "n_gpus",
                "params=7B",
                "peak_flops=989 TFLOP",
                "tokens=1T",
                "train_time=3 weeks",
                "mfu=0.4",
            ],
            "did you mean 989 TFLOP/(s·GPU)?",
        ),
        (["solve", "mfu", "mfu=0.5"], "both a target and a given"),
        (["solve", "params=7B"], "name a variable to solve for"),
        (["solve", "n_gpus", "params=7B", "tokens"], "cannot determine n_gpus, tokens"),
        (["solve", "n_gpus", "mfu=1.5"], "mfu=1.5 is out of range"),
        (["solve", "n_gpus", "--gpu", "Z100"], "unknown hardware 'Z100'"),
        (
            ["solve", "train_time", "train_compute=__import__('os').system('echo hi')"],
            "'__import__': a name cannot start with '_'",
        ),
    ],
)
def test_bad_input_exits_2_with_a_sentence_and_no_traceback(napkin, args, needle):
    status, out, err = napkin(*args)
    assert status == 2
    assert needle in err
    assert "Traceback" not in err and out == ""


def test_formulas_lists_by_subject_with_sources(napkin):
    status, out, _ = napkin("formulas")
    assert status == 0
    assert "== training" in out and "fleet_equation: Fleet equation" in out
    assert "source: Kaplan et al. 2020" in out
    status, out, _ = napkin("formulas", "gpu_hours")
    assert "mfu_from_gpu_hours" in out and "(derived)" in out
    status, _, err = napkin("formulas", "no-such-thing")
    assert status == 2 and "no formula mentions" in err


def test_vars_shows_units_bounds_and_defaults(napkin):
    status, out, _ = napkin("vars", "flop_per_param_token")
    assert status == 0
    assert "FLOP/(param·token)" in out and "default 6 FLOP/(param·token)" in out
    status, out, _ = napkin("vars", "mfu")
    assert "range (0, 1]" in out


def test_hardware_lists_and_shows_sources(napkin):
    status, out, _ = napkin("hardware")
    assert status == 0 and "H100-SXM" in out
    status, out, _ = napkin("hardware", "h100")
    assert "peak_flops = 989.5 TFLOP/(s·GPU)" in out and "half of the datasheet's 1,979" in out
    assert "2:4 sparsity" in out and "NVIDIA H100 Tensor Core GPU datasheet" in out
    assert "nvlink_bandwidth = 450 GB/(s·GPU)" in out and "per direction" in out


def test_givens_may_follow_the_options(napkin):
    status, out, err = napkin(
        "solve", "train_time", "--gpu", "H100", "train_compute=4.2e22 FLOP", "n_gpus=64", "mfu=0.4"
    )
    assert status == 0, err
    assert out.startswith("train_time = 19.19 day")  # 4.2e22 / (64 x 989.5e12 x 0.4)


@pytest.mark.parametrize(
    "terms",
    [
        ("solve", "train_time", "tolerance=0.1"),
        ("sweep", "train_time", "n_gpus=1k..2k", "points=3"),
        ("compare", "train_time", "--gpu", "H100-SXM,A100-SXM", "best=lower"),
    ],
)
def test_a_given_named_like_an_option_is_refused(napkin, terms):
    """tolerance=0.1 beside --tolerance (its default) was two values for one keyword, an
    internal error."""
    status, _, err = napkin(*terms)
    name = terms[-1].partition("=")[0]
    assert status == 2
    assert f"{name} is an option of napkin {terms[0]}, not a variable" in err
    assert "internal error" not in err
