"""DataFrames hold numbers a program can use (issue 27): counts as integers where they are
whole, ranges and samples as frames (low and high; percentiles), a sensitivity's values as
numbers with their units beside them. Each figure is checked against a hand calculation."""

from __future__ import annotations

import numpy as np
import pytest

import napkinmath as nm

pd = pytest.importorskip("pandas", reason="pandas is optional: pip install 'napkinmath[frames]'")

W12 = dict(params="7B", tokens="1T", train_time="3 weeks", gpu="H100-SXM")
#: 6·N·D / (mfu · peak · time): 4.2e22 FLOP over 989.5 TFLOP/(s·GPU) for 21 days
PEAK = 989.5e12
SECONDS = 21 * 86400


def gpus(mfu: float) -> float:
    return 6 * 7e9 * 1e12 / (mfu * PEAK * SECONDS)


def test_whole_counts_are_integers_and_measures_stay_floats():
    t = nm.sweep(
        "train_time",
        over={"n_gpus": [8, 16, 64]},
        params="7B",
        tokens="1T",
        mfu=0.4,
        gpu="H100-SXM",
    )
    df = t.to_pandas()
    assert str(df["n_gpus [GPU]"].dtype) == "Int64"
    assert df["n_gpus [GPU]"].tolist() == [8, 16, 64]
    assert str(df["train_time [day]"].dtype) == "float64"
    days = 6 * 7e9 * 1e12 / (64 * 0.4 * PEAK) / 86400
    assert df["train_time [day]"].iloc[2] == pytest.approx(days, rel=1e-12)


def test_a_count_that_is_not_whole_stays_a_float():
    df = nm.sweep("n_gpus", over={"mfu": [0.3, 0.4]}, **W12).to_pandas()
    assert str(df["n_gpus [GPU]"].dtype) == "float64"
    assert str(df["mfu"].dtype) == "float64"  # a fraction is never a count
    assert df["n_gpus [GPU]"].tolist() == pytest.approx([gpus(0.3), gpus(0.4)], rel=1e-12)


def test_one_answer_frame_has_integer_counts():
    r = nm.solve("train_time", n_gpus=64, params="7B", tokens="1T", mfu=0.4, gpu="H100-SXM")
    df = nm.to_frame(r)
    assert df["n_gpus [GPU]"].dtype == "Int64" and df["n_gpus [GPU]"].iloc[0] == 64
    assert df["tokens [token]"].iloc[0] == 10**12 and df["params [param]"].iloc[0] == 7 * 10**9
    assert str(df["mfu"].dtype) == "float64"


def test_a_range_is_a_frame_of_its_ends():
    r = nm.solve(["n_gpus", "n_nodes"], mfu=(0.3, 0.5), **W12)
    assert isinstance(r, nm.RangeResult)
    df = r.to_frame()
    assert list(df.columns) == ["target", "unit", "low", "high"]
    assert df["target"].tolist() == ["n_gpus", "n_nodes"]
    assert df["unit"].tolist() == ["GPU", "node"]
    assert df["low"].tolist() == pytest.approx([gpus(0.5), 6], rel=1e-12)
    assert df["high"].tolist() == pytest.approx([gpus(0.3), 10], rel=1e-12)
    assert all(str(df[c].dtype) == "float64" for c in ("low", "high"))
    assert nm.to_frame(r).equals(df)


def test_samples_are_a_frame_of_percentiles_and_the_mean():
    s = nm.solve("n_gpus", mfu="0.3 to 0.5", samples=2000, seed=1, **W12)
    df = nm.to_frame(s)
    assert list(df.columns) == ["target", "unit", "p5", "p50", "p95", "mean"]
    draws = s.samples["n_gpus"]  # base units: GPU
    expected = [*np.percentile(draws, [5, 50, 95]), draws.mean()]
    assert df.iloc[0, 2:].tolist() == pytest.approx(expected, rel=1e-12)
    assert df["p50"].iloc[0] == pytest.approx(s.value.m_as("GPU"), rel=1e-12)
    assert df["unit"].iloc[0] == "GPU"


def test_sensitivity_values_are_numbers_with_units():
    r = nm.solve("n_gpus", mfu=(0.3, 0.5), **W12)
    df = r.sensitivity().to_pandas()
    rows = df.set_index("input")
    for column in ("value", "input at low", "input at high", "elasticity"):
        assert str(df[column].dtype) == "float64", column
    assert rows.loc["mfu", "value"] == pytest.approx(0.4)  # the centre of the range
    assert rows.loc["mfu", ["input at low", "input at high"]].tolist() == pytest.approx([0.3, 0.5])
    assert rows.loc["mfu", "unit"] == ""
    assert rows.loc["train_time", "unit"] == "day"
    assert rows.loc["train_time", ["input at low", "input at high"]].tolist() == pytest.approx(
        [21 * 0.9, 21 * 1.1]
    )
    assert rows.loc["params", "value"] == pytest.approx(7e9)
    assert rows.loc["mfu", "elasticity"] == pytest.approx(-1.0)
    assert rows.loc["mfu", "n_gpus at low [GPU]"] == pytest.approx(gpus(0.3), rel=1e-9)
    # the printed table keeps the words a person reads
    assert "±10%" in str(r.sensitivity()) and "30% … 50%" in str(r.sensitivity())


def test_to_frame_refuses_other_objects_still():
    with pytest.raises(nm.InputError, match="to_frame takes"):
        nm.to_frame(3)
