"""The pint-pandas form of answers, ranges, samples, sweeps and comparisons: columns named by
variable, number columns of `pint[unit]` dtypes in napkinmath's registry, checked against hand
calculations and against the plain frame."""

from __future__ import annotations

from pathlib import Path

import pytest

import napkinmath as nm
from napkinmath.errors import InputError

pd = pytest.importorskip("pandas")
pint_pandas = pytest.importorskip("pint_pandas", reason="pint-pandas is in the [dev] extra")

ROOT = Path(__file__).resolve().parent.parent
W12 = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")


def test_an_answer_has_a_unit_in_every_number_columns_dtype():
    df = nm.to_frame(nm.solve("n_gpus", **W12), pint=True)
    assert list(df.columns)[:5] == ["n_gpus", "mfu", "params", "tokens", "train_time"]
    assert str(df["n_gpus"].dtype) == "pint[GPU][Float64]"
    assert str(df["train_time"].dtype) == "pint[day][Float64]"
    assert str(df["mfu"].dtype) == "pint[dimensionless][Float64]"
    assert str(df["peak_flops"].dtype) == "pint[teraFLOP / GPU / second][Float64]"


def test_pint_columns_convert_and_multiply_as_a_hand_calculation_does():
    df = nm.solve("n_gpus", **W12).to_frame(pint=True)
    assert df["train_time"].pint.to("h")[0].magnitude == pytest.approx(21 * 24)
    # n_gpus by hand: 6 N D / (peak * mfu * t), with the record's peak as the frame holds it
    peak = df["peak_flops"].pint.to("FLOP/(s*GPU)")[0].magnitude
    by_hand = 6 * 7e9 * 1e12 / (peak * 0.4 * 21 * 86400)
    assert df["n_gpus"][0].magnitude == pytest.approx(by_hand, rel=1e-9)
    gpu_hours = (df["n_gpus"] * df["train_time"]).pint.to("GPU*h")[0]
    assert gpu_hours.magnitude == pytest.approx(by_hand * 21 * 24, rel=1e-9)


def test_the_pint_form_holds_the_plain_frames_numbers():
    r = nm.solve("n_gpus", **W12)
    plain, pint = r.to_frame(), r.to_frame(pint=True)
    for header in plain.columns:
        name = header.split(" [")[0]
        assert float(pint[name].pint.magnitude[0]) == pytest.approx(float(plain[header][0]))


def test_a_range_is_a_column_per_target_and_a_row_per_end():
    r = nm.solve("n_gpus", ranges=True, **{**W12, "mfu": "0.3..0.5"})
    df = nm.to_frame(r, pint=True)
    assert list(df.index) == ["low", "high"]
    assert str(df["n_gpus"].dtype) == "pint[GPU][Float64]"
    low, high = (q.magnitude for q in df["n_gpus"])
    point = nm.solve("n_gpus", **W12).value.magnitude
    assert low == pytest.approx(point * 0.4 / 0.5) and high == pytest.approx(point * 0.4 / 0.3)


def test_samples_are_a_row_per_statistic_matching_the_percentiles():
    r = nm.solve("n_gpus", **{**W12, "mfu": "0.4 +/- 0.05"}, samples=2000, seed=3)
    df = r.to_frame(pint=True)
    assert list(df.index) == ["p5", "p50", "p95", "mean"]
    p95 = r.percentile("n_gpus", 95)
    assert df["n_gpus"]["p95"].to(p95.units).magnitude == pytest.approx(p95.magnitude)


def test_a_sweep_and_a_comparison_keep_labels_and_give_units_to_numbers():
    t = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048, 4096]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    df = t.to_pandas(pint=True)
    days = [q.magnitude for q in df["train_time"]]
    assert days[0] == pytest.approx(2 * days[1]) == pytest.approx(4 * days[2])
    c = nm.compare(
        "n_gpus", gpu=["H100-SXM", "A100-SXM-80GB"], **{k: v for k, v in W12.items() if k != "gpu"}
    )
    frame = c.to_pandas(pint=True)
    assert list(frame["gpu"]) == list(c.to_pandas()["gpu"])
    assert str(frame["n_gpus"].dtype) == "pint[GPU][Float64]"
    assert frame["rank"].dtype == "float64"  # not a variable: a plain number


def test_pint_must_be_a_flag():
    with pytest.raises(InputError, match=r"pint='yes': expected True or False"):
        nm.to_frame(nm.solve("n_gpus", **W12), pint="yes")


def test_without_pint_pandas_the_error_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pint_pandas", None)  # import fails as if not installed
    with pytest.raises(InputError, match=r"pip install 'napkinmath\[pint\]'"):
        nm.to_frame(nm.solve("n_gpus", **W12), pint=True)
