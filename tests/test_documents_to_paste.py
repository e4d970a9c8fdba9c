"""Documents to paste (issue 49 §4): what a report leaves out is said, a formulas file given as a
plan is named for what it is, and every table-like answer becomes a DataFrame with whole
numbers where they are whole."""

from __future__ import annotations

from pathlib import Path

import pytest

import napkinmath as nm

ROOT = Path(__file__).resolve().parent.parent
STARTUP = str(ROOT / "examples" / "startup-7b.toml")


def test_markdown_on_standard_output_says_its_plots_are_left_out(napkin):
    status, out, err = napkin("plan", STARTUP, "-o", "-", "--format", "markdown")
    assert status == 0 and out.startswith("# Startup")
    assert "the plots are left out of markdown on standard output: write -o plan.md" in err
    status, _, err = napkin("plan", STARTUP)  # text never draws plots: nothing to say
    assert status == 0 and "left out" not in err


def test_a_formulas_file_given_as_a_plan_is_named_for_what_it_is(napkin):
    status, _, err = napkin("plan", str(ROOT / "examples" / "ours.toml"))
    assert status == 2
    assert "holds formulas and variables but no plan" in err
    assert "--formulas ours.toml" in err and 'formulas = ["ours.toml"]' in err


def test_a_comparisons_rank_is_a_whole_number_column():
    pytest.importorskip("pandas", reason="pandas not installed: pip install -e '.[dev]'")
    c = nm.compare("train_time", gpu=["H100-SXM", "H200"], n_gpus=64, params="7B", tokens="1T",
                   mfu=0.4)  # fmt: skip
    df = c.to_pandas()
    assert str(df["rank"].dtype) == "Int64" and list(df["rank"]) == [1, 2]


def test_to_frame_takes_tables_optimums_and_comparisons():
    pytest.importorskip("pandas", reason="pandas not installed: pip install -e '.[dev]'")
    sweep = nm.sweep("train_time", over={"n_gpus": [32, 64]}, params="7B", tokens="1T",
                     mfu=0.4, gpu="H100-SXM")  # fmt: skip
    assert nm.to_frame(sweep).equals(sweep.to_pandas())
    c = nm.compare("train_time", gpu=["H100-SXM", "H200"], n_gpus=64, params="7B", tokens="1T",
                   mfu=0.4)  # fmt: skip
    assert list(nm.to_frame(c)["rank"]) == [1, 2]
    o = nm.optimize("n_gpus", over={"n_gpus": [8, 16, 64, 128]}, params="7B", tokens="1T",
                    train_time="<= 3 weeks", mfu=0.4, gpu="H100-SXM")  # fmt: skip
    frame = nm.to_frame(o)
    assert len(frame) == 4 and "n_gpus [GPU]" in frame.columns
    with pytest.raises(nm.InputError, match=r"to_frame takes a Result, .* a Table, an Optimum"):
        nm.to_frame(object())
