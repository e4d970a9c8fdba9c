"""Notebook and DataFrame conventions (issue 11): chosen units, to_frame, HTML and LaTeX
representations, the library as objects, tab completion."""

import pytest
from hand import llama70b_decode_step

import napkinmath as nm
from napkinmath.hardware import get

W12 = dict(params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")


def test_chosen_unit_for_a_target():
    r = nm.solve(
        "train_time",
        params="7B",
        tokens="1T",
        n_gpus=64,
        mfu=0.4,
        gpu="H100",
        units={"train_time": "hour"},
    )
    peak = get("H100-SXM").values["peak_flops"].quantity.to("FLOP/(s*GPU)").magnitude
    hours = 4.2e22 / (64 * peak * 0.4) / 3600
    assert str(r.value.units) == "hour" and r.value.magnitude == pytest.approx(hours)
    assert r.headline()[0] == f"train_time = {hours:.1f} h"
    assert f"= {hours:.1f} h" in str(r)


@pytest.mark.parametrize(
    ("units", "words"),
    [
        ({"train_time": "GB"}, "train_time is in day"),
        ({"n_gpus": "GPU"}, "not a target"),
        ({"train_time": 3}, "expected a unit"),
        ("hour", "expected a mapping"),
        ({"train_time": "furlongs"}, "unknown unit"),
    ],
)
def test_bad_chosen_units_are_explained(units, words):
    with pytest.raises(nm.InputError, match=words):
        nm.solve(
            "train_time", params="7B", tokens="1T", n_gpus=64, mfu=0.4, gpu="H100", units=units
        )


def test_to_frame_of_answers_has_one_unit_per_column():
    a = nm.solve("n_gpus", **W12)
    b = nm.solve("n_gpus", **{**W12, "tokens": "2T"})
    df = nm.to_frame([a, b])
    assert "n_gpus [GPU]" in df.columns and "tokens [token]" in df.columns
    assert df["n_gpus [GPU]"].iloc[1] == pytest.approx(2 * df["n_gpus [GPU]"].iloc[0])
    assert list(a.to_frame().columns) == list(df.columns)


def test_to_frame_of_the_library():
    variables = nm.to_frame(nm.variables())
    assert {"name", "unit", "bounds", "default", "description"} <= set(variables.columns)
    assert len(variables) == len(nm.variables())
    formulas = nm.to_frame(nm.formulas)
    assert "fleet_equation" in set(formulas["name"])
    records = nm.to_frame(nm.hardware)
    row = records[(records["record"] == "H100-SXM") & (records["key"] == "peak_flops")]
    assert row["source"].iloc[0].startswith("NVIDIA")
    with pytest.raises(nm.InputError, match="to_frame takes"):
        nm.to_frame(42)


def test_notebook_representations():
    r = nm.solve("n_gpus", **W12)
    html = r._repr_html_()
    assert '<p class="answer"><strong>n_gpus = ' in html and "<table>" in html
    assert "<math>" in html and "$" not in html  # MathML, typeset without MathJax
    latex = r._repr_latex_()
    assert latex.startswith("$$\\begin{aligned}") and latex.endswith("\\end{aligned}$$")
    assert "P_{\\mathrm{peak}}" in latex


def test_library_objects_and_completion():
    f = nm.formula("fleet_equation")
    assert {v.name for v in f.variables} >= {"train_time", "n_gpus", "mfu", "peak_flops"}
    g = nm.graph()
    assert g.has_edge(("formula", "fleet_equation"), ("variable", "mfu"))
    with pytest.raises(nm.UnknownNameError, match="did you mean fleet_equation"):
        nm.formula("fleet_equatoin")
    assert {"solve", "check", "sweep", "compare", "to_frame"} <= set(dir(nm))


def _record(name, key, unit):
    return get(name).values[key].quantity.to(unit).magnitude


def test_precision_picks_the_record_peak_and_the_bytes_per_value():
    base = dict(model="llama-3-70b", gpu="H100-SXM", n_gpus=4, batch_size=32, seq_len=8192)
    bf16 = nm.solve("decode_throughput", **base)
    fp8 = nm.solve("decode_throughput", precision="fp8", **base)
    # every byte read per decode step halves (weights and KV), the FP8 peak is the compute
    # roof; the all-reduces stay bf16 activations (hand arithmetic in tests/hand.py)
    fp8_peak = _record("H100-SXM", "peak_flops_fp8", "FLOP/(s*GPU)")
    assert bf16.value.magnitude == pytest.approx(
        32 / llama70b_decode_step(989.5e12, 3.35e12, 450e9, 32)
    )
    assert fp8.value.magnitude == pytest.approx(
        32 / llama70b_decode_step(fp8_peak, 3.35e12, 450e9, 32, bytes_per_value=1)
    )
    assert "fp8: 1 byte per value (--precision)" in str(fp8)
    r = nm.solve(
        "train_time",
        train_compute="6.35e24 FLOP",
        n_gpus=16384,
        mfu=0.4,
        gpu="H100",
        precision="fp8",
    )
    fp8_peak = _record("H100-SXM", "peak_flops_fp8", "FLOP/(s*GPU)")
    assert r.value.to("s").magnitude == pytest.approx(6.35e24 / (16384 * fp8_peak * 0.4))
    mine = nm.solve(
        "decode_throughput", precision="fp8", weight_bytes_per_param="2 B/param", **base
    )  # the user's value wins over the precision's
    assert mine.givens["weight_bytes_per_param"].origin == "given"
    with pytest.raises(nm.InputError, match="no peak_flops_fp4"):
        nm.solve(
            "train_time",
            train_compute="6.35e24 FLOP",
            n_gpus=16384,
            mfu=0.4,
            gpu="H100",
            precision="fp4",
        )
    with pytest.raises(nm.InputError, match="expected one of"):
        nm.solve(
            "train_time",
            train_compute="6.35e24 FLOP",
            n_gpus=16384,
            mfu=0.4,
            gpu="H100",
            precision="fp3",
        )


def test_a_given_may_name_a_record_key(napkin):
    status, out, _ = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.4",
        "peak_flops=peak_flops_fp8",
        "--gpu",
        "H100",
    )
    assert status == 0 and "the H100-SXM record's peak_flops_fp8" in out
    status, _, err = napkin(
        "solve",
        "train_time",
        "train_compute=6.35e24FLOP",
        "n_gpus=16384",
        "mfu=0.4",
        "peak_flops=hbm_bandwidth",
        "--gpu",
        "H100",
    )
    assert status == 2 and "does not fit peak_flops" in err
    status, out, _ = napkin(
        "solve",
        "decode_throughput",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100-SXM",
        "n_gpus=4",
        "batch_size=32",
        "seq_len=8192",
        "--precision",
        "fp8",
    )
    assert status == 0 and "(--precision)" in out
