"""Sweeps, sensitivity and comparisons as a user runs them, checked against hand arithmetic.

H100 SXM: 989.5 TFLOP/s dense BF16 (half of 1,979 sparse), 3.35 TB/s HBM; MI300X 5.3 TB/s;
Trainium2 2.9 TB/s (the records' values); Llama-3-70B: 70.6e9 parameters (the record rounds
70,553,706,496), 80 layers, 8 KV heads of 128.
"""

import csv
import json
import math

import matplotlib
import numpy as np
import pytest
from hand import llama70b_decode_step
from helpers import png_size

import napkinmath as nm

matplotlib.use("Agg")

DAY = 86_400.0
H100 = 989.5e12  # the H100-SXM record, FLOP/(s*GPU)
C_LLAMA = 6.35e24


# --- sweeps -----------------------------------------------------------------------------------
def test_sweep_over_a_log_range_matches_hand_arithmetic():
    t = nm.sweep(
        "train_time",
        over={"n_gpus": "1k..16k:log:9"},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    gpus = 1000 * 16 ** (np.arange(9) / 8)  # evenly spaced in log from 1,000 to 16,000
    np.testing.assert_allclose(t["n_gpus"], gpus, rtol=1e-12)
    assert t.column("train_time").unit == "day"
    np.testing.assert_allclose(t["train_time"], C_LLAMA / (gpus * H100 * 0.4) / DAY, rtol=1e-12)
    assert t.column("n_gpus").scale == "log"


def test_sweep_values_equal_ordinary_solves():
    t = nm.sweep(
        ["n_gpus", "train_cost"],
        over={"mfu": [0.3, 0.4, 0.5]},
        params="7B",
        tokens="1T",
        train_time="3 weeks",
        gpu="H100-SXM",
    )
    for i, mfu in enumerate((0.3, 0.4, 0.5)):
        r = nm.solve(
            ["n_gpus", "train_cost"],
            params="7B",
            tokens="1T",
            train_time="3 weeks",
            mfu=mfu,
            gpu="H100-SXM",
        )
        assert t["n_gpus"][i] == pytest.approx(r["n_gpus"].to("GPU").magnitude, rel=1e-12)
        unit = t.column("train_cost").unit.replace("USD", "USD")
        assert t["train_cost"][i] == pytest.approx(r["train_cost"].to(unit).magnitude, rel=1e-12)


def test_a_target_that_no_axis_reaches_fills_its_whole_column():
    # train_compute = 6 N D reads no mfu: one number, shown at every point of the sweep
    t = nm.sweep(
        ["n_gpus", "train_compute"],
        over={"mfu": np.linspace(0.2, 0.6, 5)},
        params="7B",
        tokens="1T",
        train_time="3 weeks",
        gpu="H100-SXM",
    )
    assert len(t) == 5
    compute = 6 * 7e9 * 1e12  # FLOP
    assert t.column("train_compute").unit == "FLOP"
    np.testing.assert_allclose(t["train_compute"], [compute] * 5, rtol=1e-12)
    gpus = compute / (np.linspace(0.2, 0.6, 5) * H100 * 21 * DAY)
    np.testing.assert_allclose(t["n_gpus"], gpus, rtol=1e-12)


def test_two_input_grid_is_the_cartesian_product():
    t = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048], "mfu": "0.3..0.5:3"},
        train_compute="6.35e24 FLOP",
        gpu="H100-SXM",
    )
    assert len(t) == 6
    assert list(t["n_gpus"]) == [1024, 1024, 1024, 2048, 2048, 2048]
    np.testing.assert_allclose(t["mfu"], [0.3, 0.4, 0.5] * 2)
    expected = C_LLAMA / (t["n_gpus"] * H100 * t["mfu"]) / DAY
    np.testing.assert_allclose(t["train_time"], expected, rtol=1e-12)


def test_records_as_an_axis():
    t = nm.sweep(
        "cost_per_million_tokens",
        over={"batch_size": [1, 32]},
        gpu=["H100-SXM", "MI300X"],
        model="llama-3-70b",
        n_gpus=4,
        seq_len=8192,
    )
    assert t["gpu"] == ["H100-SXM", "H100-SXM", "MI300X", "MI300X"]
    figures = [(989.5e12, 3.35e12, 450e9, 2.5), (1307.4e12, 5.3e12, 448e9, 2.0)]
    for i in range(4):
        peak, bandwidth, link, price = figures[i // 2]
        batch = (1, 32)[i % 2]
        step = llama70b_decode_step(peak, bandwidth, link, batch)
        cost = price * 4 / 3600 * step / batch * 1e6  # USD per million tokens
        assert t["cost_per_million_tokens"][i] == pytest.approx(cost, rel=1e-9)


def test_sweep_to_pandas_csv_json_markdown(tmp_path):
    t = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048, 4096]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    df = t.to_pandas()
    assert list(df.columns) == ["n_gpus [GPU]", "train_time [day]"]
    assert df.attrs["units"] == {"n_gpus": "GPU", "train_time": "day"}
    assert df["train_time [day]"].iloc[0] == pytest.approx(C_LLAMA / (1024 * H100 * 0.4) / DAY)
    path = tmp_path / "out.csv"
    t.to_csv(path)
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["n_gpus [GPU]", "train_time [day]"]
    assert float(rows[3][1]) == pytest.approx(C_LLAMA / (4096 * H100 * 0.4) / DAY, rel=1e-9)
    data = json.loads(t.to_json())
    assert [c["name"] for c in data["columns"]] == ["n_gpus", "train_time"]
    assert "| n_gpus [GPU] | train_time [day] |" in t.to_markdown()
    assert "<table" in t._repr_html_()


def test_sweep_from_the_shell_writes_csv_and_png(napkin, tmp_path):
    csv_path, png_path = tmp_path / "out.csv", tmp_path / "out.png"
    status, out, err = napkin(
        "sweep",
        "train_time",
        "n_gpus=1k..16k:log:9",
        "train_compute=6.35e24FLOP",
        "mfu=0.4",
        "--gpu",
        "H100",
        "--csv",
        str(csv_path),
        "--plot",
        str(png_path),
    )
    assert status == 0, err
    assert "n_gpus [GPU]" in out and "185.7" in out  # 6.35e24 / (1000 * 989.5e12 * 0.4) s
    assert len(list(csv.reader(csv_path.open()))) == 10
    width, height = png_size(png_path)
    assert width > 300 and height > 200


def test_sweep_plot_has_log_axis_and_unit_labels():
    t = nm.sweep(
        "train_time",
        over={"n_gpus": "1k..16k:log:5"},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    ax = t.plot()
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "n_gpus [GPU]" and ax.get_ylabel() == "train_time [day]"


def test_sweep_errors():
    base = dict(train_compute="6.35e24 FLOP", mfu=0.4, gpu="H100")
    with pytest.raises(nm.InputError, match="nothing to sweep"):
        nm.sweep("train_time", n_gpus=1024, **base)
    with pytest.raises(nm.InputError, match="at most 2 axes"):
        nm.sweep(
            "train_time",
            over={
                "n_gpus": [1, 2],
                "peak_flops": ["1 PFLOP/(s*GPU)"],
                "train_compute": ["1e24 FLOP"],
            },
            mfu=0.4,
        )
    with pytest.raises(nm.InputError, match="out of range"):
        nm.sweep(
            "train_time",
            over={"n_gpus": [1024]},
            train_compute="6.35e24 FLOP",
            mfu="0..2:3",
            gpu="H100",
        )
    with pytest.raises(nm.InputError, match="log sweep"):
        nm.sweep(
            "goodput",
            over={"restart_time": "0 min..10 min:log:3"},
            checkpoint_write_time="65 s",
            mtbf="3 h",
        )
    with pytest.raises(nm.InputError, match="does not change"):
        nm.sweep(
            "train_time",
            over={"hbm_bandwidth": ["1 TB/(s*GPU)", "2 TB/(s*GPU)"]},
            n_gpus=1024,
            **base,
        )


# --- sensitivity ------------------------------------------------------------------------------
def test_w12_elasticities_are_the_exponents():
    r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
    s = r.sensitivity()
    e = s.elasticities
    # n_gpus = 6 N D / (T · peak · MFU): +1 for N, D and 6; -1 for T, peak, MFU
    for name in ("params", "tokens", "flop_per_param_token"):
        assert e[name] == pytest.approx(1, abs=1e-12)
    for name in ("train_time", "peak_flops", "mfu"):
        assert e[name] == pytest.approx(-1, abs=1e-12)
    assert e["gpus_per_node"] == 0  # read only by the rounding to whole nodes
    rows = {row.name: row for row in s.rows}
    assert rows["peak_flops"].origin == "record H100-SXM"
    assert rows["flop_per_param_token"].origin == "assumption"
    # ±10% of MFU: 58.48 / 0.9 and 58.48 / 1.1
    n = 4.2e22 / (21 * DAY * H100 * 0.4)
    assert rows["mfu"].low == pytest.approx(n / 0.9) and rows["mfu"].high == pytest.approx(n / 1.1)
    assert "differentiated exactly" in s.method


def test_sensitivity_of_a_square_root_and_a_sum():
    r = nm.solve(
        ["checkpoint_interval", "goodput"],
        checkpoint_write_time="65 s",
        mtbf="3.09 h",
        restart_time="10 min",
    )
    e = r.sensitivity("checkpoint_interval").elasticities
    assert e["checkpoint_write_time"] == pytest.approx(0.5) and e["mtbf"] == pytest.approx(0.5)
    g = r.sensitivity("goodput").elasticities
    # goodput G = 1 - δ/τ - (τ/2 + R)/M at τ = √(2δM): dG/dR · R / G = -(R/M) / G
    m, delta, restart = 3.09 * 3600, 65.0, 600.0
    tau = math.sqrt(2 * delta * m)
    goodput = 1 - delta / tau - (tau / 2 + restart) / m
    assert g["restart_time"] == pytest.approx(-(restart / m) / goodput, rel=1e-9)


def test_ranged_swing_table_sorted_by_width_and_tornado(tmp_path):
    r = nm.solve(
        "train_time", train_compute="6.35e24 FLOP", n_gpus=16384, mfu=(0.3, 0.5), gpu="H100-SXM"
    )
    s = r.sensitivity()
    assert s.rows[0].name == "mfu" and s.rows[0].swing.startswith("range")
    first = s.rows[0]
    assert first.low == pytest.approx(w := C_LLAMA / (16_384 * H100 * 0.3)) and first.high < w
    widths = [abs(row.high - row.low) for row in s.rows]
    assert widths == sorted(widths, reverse=True)
    path = s.plot(tmp_path / "tornado.png")
    assert png_size(path)[0] > 300
    df = s.to_pandas()
    assert "elasticity" in df.columns


def test_sensitivity_numeric_through_roundings():
    r = nm.solve("n_nodes", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100-SXM")
    s = r.sensitivity()
    assert "central differences" in s.method
    assert s.elasticities["mfu"] == 0  # 58.48 GPU stay 8 nodes for a tiny change of MFU


def test_sensitivity_from_the_shell(napkin):
    status, out, _ = napkin(
        "solve",
        "n_gpus",
        "params=7B",
        "tokens=1T",
        "train_time=3 weeks",
        "mfu=0.4",
        "--gpu",
        "H100-SXM",
        "--sensitivity",
    )
    assert status == 0
    assert "Sensitivity of n_gpus = 58.48 GPU" in out and "elasticity" in out


# --- comparisons ------------------------------------------------------------------------------
W18 = dict(model="llama-3-70b", n_gpus=4, batch_size=32, seq_len=8192)


def decode_cost(peak, bandwidth, link, price):
    """USD per million tokens: 4 GPUs stream 141.2 GB of weights + 85.9 GB of KV per step
    (the memory roof binds at batch 32) and all-reduce twice per layer."""
    step = llama70b_decode_step(peak, bandwidth, link, 32)
    return price * 4 / 3600 * step / 32 * 1e6


def test_w18_compare_ranks_decode_cost_with_sources():
    c = nm.compare("cost_per_million_tokens", gpu=["H100-SXM", "MI300X", "Trainium2"], **W18)
    assert c.direction == "lower"
    assert [label.split(" + ")[0] for label in c.ranking] == ["MI300X", "H100-SXM", "Trainium2"]
    costs = {
        "H100-SXM": decode_cost(989.5e12, 3.35e12, 450e9, 2.5),
        "MI300X": decode_cost(1307.4e12, 5.3e12, 448e9, 2.0),
        "Trainium2": decode_cost(667e12, 2.9e12, 640e9, 2.8),
    }
    for label, result in c.results.items():
        expected = costs[label.split(" + ")[0]]
        assert result.value.to("USD/Mtoken").magnitude == pytest.approx(expected, rel=1e-9)
    assert c.ratio(c.ranking[1]) == pytest.approx(costs["H100-SXM"] / costs["MI300X"])
    text = str(c)
    assert "NVIDIA H100 Tensor Core GPU datasheet" in text
    assert "AMD Instinct MI300X accelerator data sheet" in text
    assert "Trainium2 Architecture" in text
    table = c.to_table()
    assert table["gpu"] == ["MI300X", "H100-SXM", "Trainium2"]
    assert "hbm_bandwidth = 5.3 TB/(s·GPU)" in table["values used"][0]


def test_compare_from_the_shell_in_one_command(napkin, tmp_path):
    status, out, err = napkin(
        "compare",
        "cost_per_million_tokens",
        "--gpu",
        "H100-SXM,MI300X,Trainium2",
        "--model",
        "llama-3-70b",
        "n_gpus=4",
        "batch_size=32",
        "seq_len=8192",
    )
    assert status == 0, err
    lines = out.splitlines()
    assert lines[2].startswith("1. MI300X") and "(best)" in lines[2]
    assert "source: H100-SXM: NVIDIA H100 Tensor Core GPU datasheet (2023-06)" in out
    status, out, _ = napkin(
        "compare",
        "cost_per_million_tokens",
        "--gpu",
        "H100-SXM,MI300X",
        "--model",
        "llama-3-70b",
        "n_gpus=4",
        "batch_size=32",
        "seq_len=8192",
        "--format",
        "markdown",
    )
    assert status == 0 and "| rank |" in out
    status, out, _ = napkin(
        "compare",
        "train_time",
        "--gpu",
        "H100-SXM,B200",
        "train_compute=6.35e24FLOP",
        "n_gpus=8192",
        "mfu=0.4",
        "--derivations",
    )
    assert status == 0 and "=== B200" in out and out.count("Fleet equation") == 2


def test_compare_higher_is_better_and_failures_listed():
    c = nm.compare("decode_throughput", gpu=["H100-SXM", "MI300X"], **W18)
    assert c.direction == "higher" and c.ranking[0].startswith("MI300X")
    with pytest.raises(nm.InputError, match="at least two records"):
        nm.compare("decode_throughput", gpu="H100-SXM", **W18)


SENSITIVE = [
    "solve",
    "n_gpus",
    "params=7B",
    "tokens=1T",
    "train_time=3 weeks",
    "mfu=0.3..0.5",
    "--gpu",
    "H100-SXM",
    "--sensitivity",
]


def test_sensitivity_in_json_is_a_field_of_the_one_document(napkin):
    """Issue 20: the text table followed the JSON document (json.loads: "Extra data")."""
    status, out, err = napkin(*SENSITIVE, "--format", "json")
    assert status == 0, err
    data = json.loads(out)  # one document, nothing after it
    table = data["sensitivity"]["n_gpus"]
    # 4.2e22 / (0.4 x 989.5e12 x 1,814,400 s) = 58.48 GPU at the centre; at MFU 30%, 77.98
    assert table["value"]["value"] == pytest.approx(58.484, rel=1e-4)
    first = table["inputs"][0]
    assert first["name"] == "mfu" and first["origin"] == "you"
    assert first["elasticity"] == pytest.approx(-1)
    assert first["low"]["value"] == pytest.approx(58.484 * 0.4 / 0.3, rel=1e-4)
    assert first["low"]["unit"] == "GPU" and "Sensitivity" not in out


@pytest.mark.parametrize(
    ("fmt", "words"),
    [
        (
            "markdown",
            ["**Sensitivity of n_gpus = 58.48 GPU**", "| input | origin |", "| mfu | you |"],
        ),
        (
            "latex",
            [
                r"\paragraph{Sensitivity of n\_gpus = 58.48 GPU}",
                r"\begin{tabular}{lllrlrr}",
                r"peak\_flops & record H100-SXM",
                r"\end{tabular}",
            ],
        ),
        ("text", ["Sensitivity of n_gpus = 58.48 GPU", "elasticity"]),
    ],
)
def test_sensitivity_in_the_format_of_the_document(napkin, fmt, words):
    args = [a if a != "mfu=0.3..0.5" else "mfu=0.4" for a in SENSITIVE]  # LaTeX: one answer
    status, out, err = napkin(*args, "--format", fmt)
    assert status == 0, err
    for word in words:
        assert word in out, (word, out[-800:])
    if fmt != "text":
        assert "--------------------" not in out  # not the text table


W12_REST = {"tokens": "1T", "train_time": "3 weeks", "mfu": 0.4, "gpu": "H100-SXM"}
W12_REST_NO_MFU = {k: v for k, v in W12_REST.items() if k != "mfu"}


def test_an_array_axis_gives_the_same_bytes_as_a_list_axis():
    params = np.linspace(1e9, 7e10, 7)
    by_array = nm.sweep("n_gpus", over={"params": params}, **W12_REST)
    by_list = nm.sweep("n_gpus", over={"params": params.tolist()}, **W12_REST)
    assert str(by_array) == str(by_list)
    ints = nm.sweep(
        "n_gpus", over={"params": np.array([7_000_000_000, 70_000_000_000])}, **W12_REST
    )
    assert str(ints) == str(nm.sweep("n_gpus", over={"params": [7e9, 7e10]}, **W12_REST))


@pytest.mark.parametrize("bad", [np.array([7e9, -1.0]), np.array([7e9, np.nan])])
def test_an_array_axis_refuses_a_value_out_of_range_by_name(bad):
    with pytest.raises(nm.InputError, match="params"):
        nm.sweep("n_gpus", over={"params": bad}, **W12_REST)


def test_one_axis_may_hold_as_many_points_as_a_grid_and_no_more():
    from napkinmath.whatif.budget import MAX_POINTS
    from napkinmath.whatif.spread import MAX_AXIS_POINTS

    assert MAX_AXIS_POINTS == MAX_POINTS
    table = nm.sweep("n_gpus", over={"params": "1B..70B:lin:20000"}, **W12_REST)
    assert len(table.columns[0].values) == 20_000

    class Counted:
        """A sequence that says its length and counts the values read from it."""

        read = 0

        def __len__(self):
            return MAX_POINTS + 1

        def __iter__(self):
            for _ in range(len(self)):
                Counted.read += 1
                yield 7e9

    with pytest.raises(nm.InputError, match=r"params 1,000,001.*at most 1,000,000"):
        nm.sweep("n_gpus", over={"params": Counted()}, **W12_REST)
    assert Counted.read == 0  # refused by its length, before any value is read
    with pytest.raises(nm.InputError, match="at most 1,000,000"):
        nm.sweep("n_gpus", over={"params": np.full(MAX_POINTS + 1, 7e9)}, **W12_REST)
    endless = (7e9 for _ in iter(int, 1))  # no length: read at most one past the cap
    with pytest.raises(nm.InputError, match="at most 1,000,000"):
        nm.sweep("n_gpus", over={"params": endless}, **W12_REST)


def test_a_sweep_asked_again_answers_as_fresh():
    nm.clear_caches()
    first = np.array([0.3, 0.4, 0.5])
    again = np.array([0.3, 0.35, 0.6])  # the same first point, other values after it
    one = nm.sweep("n_gpus", over={"mfu": first}, params="7B", **W12_REST_NO_MFU)
    two = nm.sweep("n_gpus", over={"mfu": again}, params="7B", **W12_REST_NO_MFU)
    nm.clear_caches()
    assert str(two) == str(nm.sweep("n_gpus", over={"mfu": again}, params="7B", **W12_REST_NO_MFU))
    # by hand: 6 * 7e9 * 1e12 FLOP / (mfu * 989.5 TFLOP/s * 3 weeks)
    for table, mfus in ((one, first), (two, again)):
        gpus = [6 * 7e9 * 1e12 / (m * H100 * 21 * DAY) for m in mfus]
        assert list(table.columns[-1].values) == pytest.approx(gpus, rel=1e-12)


def test_a_sweep_with_values_that_are_not_plain_answers_by_hand():
    tokens = nm.Quantity(1e12, "token")
    table = nm.sweep(
        "n_gpus",
        over={"mfu": [0.3, 0.4]},
        gpu="H100-SXM",
        params="7B",
        tokens=tokens,
        train_time="3 weeks",
    )
    gpus = [6 * 7e9 * 1e12 / (m * H100 * 21 * DAY) for m in (0.3, 0.4)]
    assert list(table.columns[-1].values) == pytest.approx(gpus, rel=1e-12)


@pytest.mark.parametrize(
    "bad", [np.array([0.3, 0.4, np.inf]), np.array([0.3, 0.4, 1.5]), np.array([0.0, 0.4])]
)
def test_an_array_axis_refuses_a_bad_value_as_a_list_axis_does(bad):
    with pytest.raises(nm.InputError) as by_list:
        nm.sweep("n_gpus", over={"mfu": bad.tolist()}, params="7B", **W12_REST_NO_MFU)
    with pytest.raises(nm.InputError) as by_array:
        nm.sweep("n_gpus", over={"mfu": bad}, params="7B", **W12_REST_NO_MFU)
    assert str(by_array.value) == str(by_list.value) and "mfu" in str(by_array.value)


def test_a_columns_typical_value_is_numpys_median():
    # the unit of a column is chosen by its median, found without numpy's masked arrays
    from napkinmath.whatif.sweep import _median

    rng = np.random.default_rng(3)
    for n in [*range(1, 30), 999, 1000]:
        values = rng.lognormal(size=n) * 10 ** rng.uniform(-20, 20)
        assert _median(values) == float(np.median(values))


def test_a_setting_is_an_axis_of_a_sweep_as_of_an_optimisation():
    # issue 47 §4: recompute=none,full was 'unknown variable' in a sweep
    args = dict(
        model="llama-3-70b",
        gpu="H100",
        n_gpus=64,
        tp=8,
        pp=1,
        dp=8,
        seq_len=4096,
        global_batch_tokens="4Mi",
        batch_size=1,
    )
    table = nm.sweep("step_time_predicted", over={"recompute": "none,full"}, **args)
    assert table.column("recompute").values == ["none", "full"]
    each = [
        nm.solve("step_time_predicted", recompute=choice, **args).value.m_as("s")
        for choice in ("none", "full")
    ]
    assert list(table.column("step_time_predicted").values) == pytest.approx(each)
    assert each[1] > each[0]  # full recomputation runs every forward pass twice
    grid = nm.sweep(
        "step_time_predicted",
        over={"recompute": ["none", "full"], "global_batch_tokens": ["2Mi", "4Mi"]},
        **{k: v for k, v in args.items() if k != "global_batch_tokens"},
    )
    assert len(grid.column("recompute").values) == 4
    with pytest.raises(nm.InputError, match="choose one of"):
        nm.sweep("step_time_predicted", over={"recompute": "none,some"}, **args)
