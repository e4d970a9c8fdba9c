"""DataFrames in one call (issue 11): a Result, a list of Results, the variables, the formulas
and the records, one unit per column (per row for records, whose keys differ in unit)."""

from __future__ import annotations

import math

import pytest

import napkinmath as nm

pytest.importorskip("pandas", reason="pandas not installed: pip install 'napkinmath[frames]'")

W12 = dict(params="7B", tokens="1T", n_gpus=64, mfu=0.4, gpu="H100")


def test_answers_one_row_each_one_unit_per_column():
    a = nm.solve("train_time", **W12)
    b = nm.solve("train_time", **{**W12, "n_gpus": 128}, units={"train_time": "hour"})
    df = nm.to_frame([a, b])
    # the column keeps the first answer's unit (day) even where the second chose hours:
    # 4.2e22 FLOP / (0.4 × 64 × 989.5e12 FLOP/s) = 1.65803e6 s = 19.190 day; 128 GPU: half
    assert df["train_time [day]"].tolist() == pytest.approx([19.1902, 9.5951], rel=1e-4)
    assert df["n_gpus [GPU]"].tolist() == [64.0, 128.0]
    assert df["mfu"].tolist() == [0.4, 0.4]  # fractions stay exact numbers, not percent text
    assert all(" [" in c or c == "mfu" for c in df.columns)


def test_answers_with_different_targets_leave_gaps():
    a = nm.solve("train_time", **W12)
    b = nm.solve("train_compute", params="7B", tokens="1T")
    df = nm.to_frame([a, b])
    assert math.isnan(df["train_time [day]"].iloc[1])
    assert df["train_compute [FLOP]"].iloc[1] == pytest.approx(4.2e22)


def test_library_objects_one_at_a_time_or_all():
    one = nm.to_frame(nm.formula("fleet_equation"))
    assert one["equation"].tolist() == ["train_time = train_compute / (mfu · n_gpus · peak_flops)"]
    assert nm.to_frame(nm.variable("mfu"))["name"].tolist() == ["mfu"]
    both = nm.to_frame([nm.variable("mfu"), nm.variable("n_gpus")])
    assert both["unit"].tolist() == ["", "GPU"]
    assert len(nm.to_frame(nm.formulas)) == len(nm.to_frame("formulas"))
    assert len(nm.to_frame(nm.variables())) == len(nm.variables())


def test_records_carry_number_and_unit():
    h100 = nm.to_frame(nm.hardware.get("H100-SXM"))
    row = h100[h100["key"] == "peak_flops"].iloc[0]
    assert row["magnitude"] == pytest.approx(989.5) and row["unit"] == "TFLOP/(s·GPU)"
    assert row["value"] == "989.5 TFLOP/(s·GPU)" and row["date"]
    everything = nm.to_frame(nm.hardware)
    assert set(h100["key"]) <= set(everything[everything["record"] == "H100-SXM"]["key"])
    assert everything["magnitude"].dtype.kind == "f"


def test_anything_else_is_refused_with_the_list_of_what_works():
    with pytest.raises(nm.InputError, match="one variable, formula or record"):
        nm.to_frame({1, 2})
