"""Constraints in every what-if (issue 20, §5): sweeps, comparisons, ranges, samples and plan
files say which rows fit, which constraint binds and by how much, in every format.

Hand arithmetic (records: `napkin hardware llama-3-70b`, `napkin hardware H100`): Llama-3-70B
holds 70.6e9 parameters (the record's rounding of 70,553,706,496), so its bf16 weights take
141.2 GB; its KV cache per token is 2 (K and V) × 128 (head_dim) × 2 B × 8 KV heads × 80
layers = 327,680 B, so one sequence of 8,192 tokens takes 2.684 GB. A replica of 4 H100
(80 GB each) holds 320 GB, of which the constraint counts hbm_usable_fraction (90% by default,
288 GB), so a batch b fits while 141.2e9 + b × 2.684e9 ≤ 288e9: b ≤ 54.7 (66.6 with all of
it). The limit itself is read back from the answer (`limit()`), so that the usable share moves
the boundary without breaking these tests; rows are asserted from that boundary, or where
they lie clearly inside (b ≤ 32) or outside (b ≥ 128) whatever the share.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re

import matplotlib
import numpy as np
import pytest

import napkinmath as nm
from napkinmath.catalog.lookup import constraints

matplotlib.use("Agg")

REPLICA = constraints()["replica_fits_hbm"].title  # "Weights and KV cache fit in the ..."
BUDGET = constraints()["batch_fits_kv_budget"].title

WEIGHTS = 70.6e9 * 2  # B
KV_PER_TOKEN = 2 * 128 * 2 * 8 * 80  # B/token
SEQ = 8192
PER_SEQUENCE = SEQ * KV_PER_TOKEN  # B of KV cache per sequence
SERVING = dict(model="llama-3-70b", n_gpus=4, seq_len=SEQ)


def limit(gpu: str = "H100", n_gpus: int = 4) -> float:
    """The replica's HBM limit in bytes, as the answer reports it: the weights and the KV
    cache of one batch by hand, over the share of the limit the answer says they use."""
    r = nm.solve("cost_per_million_tokens", gpu=gpu, batch_size=8, **{**SERVING, "n_gpus": n_gpus})
    replica = next(c for c in r.constraints if c.constraint.name == "replica_fits_hbm")
    return (WEIGHTS + 8 * PER_SEQUENCE) / replica.share


def boundary(gpu: str = "H100", n_gpus: int = 4) -> float:
    """The largest batch that fits: weights + b × KV per sequence = the limit."""
    return (limit(gpu, n_gpus) - WEIGHTS) / PER_SEQUENCE


def shares(b: np.ndarray, gpu: str = "H100") -> tuple[np.ndarray, np.ndarray]:
    """Both constraints' shares of their limits at batch sizes `b`, by hand."""
    total = limit(gpu)
    replica = (WEIGHTS + b * PER_SEQUENCE) / total
    budget = b / ((total - WEIGHTS) / PER_SEQUENCE)  # max_concurrent_sequences
    return replica, budget


def test_the_hand_arithmetic_matches_the_records():
    r = nm.solve(["weight_memory", "kv_bytes_per_token"], model="llama-3-70b")
    assert r["weight_memory"].to("B").magnitude == pytest.approx(WEIGHTS, rel=1e-12)
    assert r["kv_bytes_per_token"].to("B/token").magnitude == pytest.approx(KV_PER_TOKEN)
    point = nm.solve("cost_per_million_tokens", gpu="H100", batch_size=8, **SERVING)
    usable = (
        point.givens["hbm_usable_fraction"].quantity.to("").magnitude
        if "hbm_usable_fraction" in point.givens
        else 1.0
    )  # the stated default, if any
    assert limit() == pytest.approx(4 * 80e9 * usable)  # 4 × 80 GB, the usable share of it
    assert boundary() == pytest.approx((4 * 80e9 * usable - WEIGHTS) / PER_SEQUENCE)
    assert 32 < boundary() < 128  # so the sweep below has rows on both sides
    if usable == 0.9:
        assert boundary() == pytest.approx(54.687, abs=1e-3)


# --- sweeps -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table():
    return nm.sweep(
        "cost_per_million_tokens", over={"batch_size": "1..256:log:9"}, gpu="H100", **SERVING
    )


def test_a_sweep_says_per_row_whether_it_fits_and_what_binds(table):
    b = np.array(table["batch_size"])
    np.testing.assert_allclose(b, 2.0 ** np.arange(9), rtol=1e-12)
    assert table.fits == [bool(x <= boundary()) for x in b]
    assert table.fits[:6] == [True] * 6 and table.fits[7:] == [False] * 2  # 1 … 32; 128, 256
    replica, budget = shares(b)
    np.testing.assert_allclose(
        table["share of limit"], 100 * np.maximum(replica, budget), rtol=1e-9
    )
    # below the boundary the replica's memory is nearer its limit; above, the batch is
    # further past the KV budget (both reach 1 at the same batch)
    assert list(table["binding constraint"]) == [
        "replica_fits_hbm" if x <= boundary() else "batch_fits_kv_budget" for x in b
    ]
    assert table.column("share of limit").unit == "%"
    assert table.column("feasible").role == "info"


def test_a_sweep_notes_and_warns_each_violated_constraint_with_its_rows(table):
    text = "\n".join(table.notes)
    assert (
        "feasible: every constraint evaluated at that row holds (replica_fits_hbm, "
        "batch_fits_kv_budget)" in text
    )
    assert len(table.warnings) == 2
    replica, budget = table.warnings
    failing = [f"batch_size = {x:g} sequence" for x in table["batch_size"] if x > boundary()]
    assert len(failing) in (2, 3)  # 128 and 256, and 64 when 90% of HBM is usable
    assert replica.startswith(
        f"{REPLICA} is violated in {len(failing)} of 9 rows "
        f"({'; '.join(failing)}); worst 828.4 GB > "
    )
    assert (
        f"({(WEIGHTS + 256 * PER_SEQUENCE) / limit():.3g}× the limit) at batch_size = 256"
        in replica
    )
    assert budget.startswith(f"{BUDGET} is violated in {len(failing)} of 9")
    assert all(f"does not fit: {w}" in table.notes for w in table.warnings)


def test_every_format_marks_the_rows_that_do_not_fit(table):
    text = str(table).splitlines()
    rows = {line.split()[0]: line for line in text if line[:21].strip().isdigit()}
    assert "NO" in rows["128"].split() and "NO" in rows["256"].split()
    assert "yes" in rows["32"].split() and "NO" not in rows["32"].split()
    bad = sum(f is False for f in table.fits)
    markdown = table.to_markdown()
    assert "| feasible | binding constraint | share of limit [%] |" in markdown
    cost = f"{table['cost_per_million_tokens'][-1]:.4g}"
    assert (
        f"| 256 | {cost} | NO | batch_fits_kv_budget | {100 * 256 / boundary():.4g} |" in markdown
    )
    html = table._repr_html_()
    assert html.count('class="infeasible"') == bad
    assert html.count("<tr><td style") == 9 - bad  # the rows that fit, untinted
    found = list(csv.DictReader(io.StringIO(table.to_csv())))
    assert [r["feasible"] for r in found] == [str(f).lower() for f in table.fits]
    assert found[-1]["binding constraint"] == "batch_fits_kv_budget"
    assert float(found[-1]["share of limit [%]"]) == pytest.approx(100 * 256 / boundary(), rel=1e-9)
    data = json.loads(table.to_json())
    columns = {c["name"]: c for c in data["columns"]}
    assert columns["feasible"]["values"] == table.fits
    assert data["warnings"] == table.warnings


def test_the_dataframe_has_a_boolean_feasible_column(table):
    pytest.importorskip("pandas")
    df = table.to_pandas()
    assert str(df["feasible"].dtype) == "boolean"
    fitting = df[df["feasible"]]
    assert list(fitting["batch_size [sequence]"]) == [
        x for x in table["batch_size"] if x <= boundary()
    ]
    assert df.attrs["warnings"] == table.warnings
    assert df.attrs["units"]["share of limit"] == "%"


def test_the_plot_hatches_the_rows_that_do_not_fit(table, tmp_path):
    import matplotlib.pyplot as plt

    ax = table.plot()
    try:
        bands = [p for p in ax.patches if p.get_hatch() == "//"]
        bad = [i for i, f in enumerate(table.fits) if f is False]
        assert len(bands) == len(bad)  # one band per x that does not fit
        (crosses,) = [c for c in ax.collections if len(c.get_offsets())]
        xy = np.asarray(crosses.get_offsets(), dtype=float)
        np.testing.assert_allclose(
            xy, [[table["batch_size"][i], table["cost_per_million_tokens"][i]] for i in bad]
        )
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["does not fit (binding: batch_fits_kv_budget)", "point that does not fit"]
    finally:
        plt.close(ax.figure)
    out = table.plot(tmp_path / "sweep.png")
    assert out.stat().st_size > 10_000


def test_a_sweep_evaluates_the_constraints_vectorised_as_each_point_solves(monkeypatch):
    from napkinmath.whatif import sweep as sweep_module

    calls = []
    real = sweep_module.solve_bound
    monkeypatch.setattr(
        sweep_module, "solve_bound", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    t = nm.sweep(
        "cost_per_million_tokens",
        over={"batch_size": [16, 48, 96, 200]},
        gpu=["H100", "MI300X"],
        **SERVING,
    )
    assert len(calls) == 2  # planned once per record; the rows are evaluated in one pass
    monkeypatch.undo()
    for i in range(len(t)):
        point = nm.solve(
            "cost_per_million_tokens",
            gpu=t["gpu"][i],
            batch_size=float(t["batch_size"][i]),
            **SERVING,
        )
        assert t.fits[i] == point.fits
        tight = max(point.constraints, key=lambda c: c.share)
        assert t["binding constraint"][i] == tight.constraint.name
        assert t["share of limit"][i] == pytest.approx(100 * tight.share, rel=1e-12)


def test_a_sweep_without_a_constraint_has_no_feasibility_columns():
    t = nm.sweep(
        "train_time",
        over={"n_gpus": [1024, 2048]},
        train_compute="6.35e24 FLOP",
        mfu=0.4,
        gpu="H100",
    )
    assert t.fits is None and not t.warnings
    assert [c.name for c in t.columns] == ["n_gpus", "train_time"]


def test_a_sweep_whose_every_row_fits_names_the_tightest():
    t = nm.sweep("cost_per_million_tokens", over={"batch_size": [8, 32]}, gpu="H100", **SERVING)
    assert t.fits == [True, True] and not t.warnings
    replica, _ = shares(np.array([32.0]))
    assert (
        f"every row fits; the tightest is replica_fits_hbm at {replica[0]:.0%} of the "
        "limit (batch_size = 32 sequence)"
    ) in t.notes


def test_the_sweep_command_marks_rows_in_each_format_and_fails_strict(napkin, tmp_path):
    args = [
        "sweep",
        "cost_per_million_tokens",
        "batch_size=1..256:log:9",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "n_gpus=4",
        "seq_len=8192",
    ]
    status, out, err = napkin(*args)
    assert status == 0 and "NO" in out and f"does not fit: {REPLICA}" in out
    status, out, err = napkin(
        *args,
        "--strict",
        "--csv",
        str(tmp_path / "s.csv"),
        "--plot",
        str(tmp_path / "s.png"),
        "--json",
        str(tmp_path / "s.json"),
    )
    assert status == 1
    assert f"napkin: --strict: 2 warning(s): {REPLICA} is violated in " in err
    assert (tmp_path / "s.csv").read_text().splitlines()[-1].split(",")[2] == "false"
    assert json.loads((tmp_path / "s.json").read_text())["warnings"]
    assert (tmp_path / "s.png").stat().st_size > 10_000
    status, out, _ = napkin(*args, "--format", "json")
    data = json.loads(out)
    assert data["schema"] == "napkinmath-table/1"
    assert next(c for c in data["columns"] if c["name"] == "feasible")["values"][-2:] == [
        False,
        False,
    ]
    status, out, _ = napkin(*args, "--format", "markdown")
    assert "| NO | batch_fits_kv_budget |" in out
    status, out, _ = napkin(*args, "--format", "csv")
    assert out.splitlines()[0].endswith("feasible,binding constraint,share of limit [%]")
    status, _, _ = napkin(
        "sweep",
        "cost_per_million_tokens",
        "batch_size=1,16",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "n_gpus=4",
        "seq_len=8192",
        "--strict",
    )
    assert status == 0


# --- comparisons ------------------------------------------------------------------------------
#: at a batch of 32: the 40 GB A100 costs less than the TPU v5p but does not fit
GPUS = ["H100-SXM", "A100-SXM-40GB", "TPU-v5p", "MI300X"]


def test_a_comparison_ranks_the_rows_that_fit_first_and_says_why_the_others_fail():
    c = nm.compare("cost_per_million_tokens", gpu=GPUS, batch_size=32, **SERVING)
    need = WEIGHTS + 32 * PER_SEQUENCE  # 227.1 GB for the weights and the batch
    fits = {}
    for label, r in c.results.items():
        hbm = r.givens["hbm_capacity"].quantity.to("B/GPU").magnitude
        fits[label] = need <= 4 * hbm * limit() / 320e9  # the reserve as H100's, if any
        assert r.fits == fits[label]
    assert fits == {
        "H100-SXM + llama-3-70b": True,
        "A100-SXM-40GB + llama-3-70b": False,
        "TPU-v5p + llama-3-70b": True,
        "MI300X + llama-3-70b": True,
    }
    cost = {
        k: r["cost_per_million_tokens"].to("USD/Mtoken").magnitude for k, r in c.results.items()
    }
    assert c.ranking == sorted(cost, key=lambda k: (not fits[k], cost[k]))
    assert c.ranking == [
        "MI300X + llama-3-70b",
        "H100-SXM + llama-3-70b",
        "TPU-v5p + llama-3-70b",
        "A100-SXM-40GB + llama-3-70b",
    ]
    assert cost["A100-SXM-40GB + llama-3-70b"] < cost["TPU-v5p + llama-3-70b"]  # yet last
    assert c.best == "MI300X + llama-3-70b"
    text = str(c)
    assert "(lower is better, rows that fit first)" in text
    (last,) = [line for line in text.splitlines() if line.startswith("4. ")]
    assert last.startswith("4. A100-SXM-40GB + llama-3-70b") and last.endswith(
        "the best)   ✗ DOES NOT FIT"
    )
    a100 = 4 * 40e9 * limit() / 320e9  # its four GPUs' usable HBM
    assert (
        f"✗ does not fit: {REPLICA}: 227.1 GB > {a100 / 1e9:.4g} GB ({need / a100:.3g}× "
        "the limit)" in text
    )
    t = c.to_table()
    assert t.fits == [True, True, True, False]
    assert list(t["gpu"]) == ["MI300X", "H100-SXM", "TPU-v5p", "A100-SXM-40GB"]
    assert any(
        n.startswith(f"A100-SXM-40GB + llama-3-70b: does not fit: {REPLICA}") for n in t.notes
    )
    assert len(c.warnings) == 2 and c.warnings[0].startswith("A100-SXM-40GB + llama-3-70b: ")
    assert t.warnings == c.warnings
    assert c.to_markdown().count("| NO |") == 1
    assert c._repr_html_().count('class="infeasible"') == 1


def test_a_comparison_whose_rows_all_fit_ranks_by_value_alone():
    c = nm.compare(
        "cost_per_million_tokens", gpu=["H100-SXM", "TPU-v5p", "MI300X"], batch_size=32, **SERVING
    )
    assert all(r.fits for r in c.results.values()) and not c.warnings
    assert "rows that fit first" not in str(c)
    costs = [c.results[k]["cost_per_million_tokens"].to("USD/Mtoken").magnitude for k in c.ranking]
    assert costs == sorted(costs)


def test_the_comparison_plot_hatches_the_bars_that_do_not_fit(tmp_path):
    import matplotlib.pyplot as plt

    c = nm.compare("cost_per_million_tokens", gpu=GPUS, batch_size=32, **SERVING)
    ax = c.plot()
    try:
        hatched = [p.get_hatch() for p in ax.patches]
        assert hatched == [None, None, None, "//"]  # ranked: the three that fit first
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert "does not fit (binding: batch_fits_kv_budget)" in labels
    finally:
        plt.close(ax.figure)


def test_the_compare_command_fails_strict_on_a_row_that_does_not_fit(napkin):
    args = [
        "compare",
        "cost_per_million_tokens",
        "--gpu",
        "H100-SXM,MI300X",
        "--model",
        "llama-3-70b",
        "n_gpus=4",
        "batch_size=128",
        "seq_len=8192",
    ]
    status, out, _ = napkin(*args)
    assert status == 0 and out.index("MI300X") < out.index("H100-SXM + llama")
    status, _, err = napkin(*args, "--strict")
    assert status == 1 and f"H100-SXM + llama-3-70b: {REPLICA}" in err
    status, out, _ = napkin(*args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["gpu"], r["feasible"]) for r in rows] == [("MI300X", "true"), ("H100-SXM", "false")]


# --- ranges -----------------------------------------------------------------------------------
def test_a_range_says_where_it_stops_fitting():
    r = nm.solve(
        "cost_per_million_tokens", batch_size="16..256", gpu="H100", **SERVING, ranges=True
    )
    assert not r.fits
    by_name = {c.constraint.name: c for c in r.constraints}
    assert list(by_name) == ["replica_fits_hbm", "batch_fits_kv_budget"]
    for c in by_name.values():
        assert c.somewhere and not c.everywhere
        (x,) = c.crossings
        assert x.name == "batch_size" and x.violated == "above"
        assert x.value == pytest.approx(boundary(), rel=1e-9)
        assert c.worst_at == {"batch_size": pytest.approx(256)}
        assert c.best_at == {"batch_size": pytest.approx(16)}
    replica = by_name["replica_fits_hbm"]
    assert replica.worst.share == pytest.approx((WEIGHTS + 256 * PER_SEQUENCE) / limit())
    assert replica.best.share == pytest.approx((WEIGHTS + 16 * PER_SEQUENCE) / limit())
    shown = f"{boundary():.4g}"
    text = str(r)
    assert (
        f"WARNING: {REPLICA} is violated in part of the range: holds for batch_size ≤ "
        f"{shown} sequence, violated above it"
    ) in text
    assert "Constraints (does the plan fit over the whole range?):" in text
    assert (
        f"✗ VIOLATED in part of the range: {REPLICA}: holds for batch_size ≤ {shown} "
        "sequence, violated above it (worst 828.4 GB > " in text
    )
    data = r.to_dict()
    assert data["fits"] is False
    assert data["constraints"][0]["crossings"][0]["value"] == pytest.approx(boundary())
    assert data["constraints"][0]["holds_somewhere"] is True
    assert len(r.warnings) == 2


def test_a_range_inside_or_outside_the_limit():
    inside = nm.solve(
        "cost_per_million_tokens", batch_size="1..32", gpu="H100", **SERVING, ranges=True
    )
    assert inside.fits and not inside.warnings
    assert all(c.everywhere and not c.crossings for c in inside.constraints)
    assert f"✓ {REPLICA}: holds over the whole range (at most " in str(inside)
    outside = nm.solve(
        "cost_per_million_tokens", batch_size="128..256", gpu="H100", **SERVING, ranges=True
    )
    assert not outside.fits and not any(c.somewhere for c in outside.constraints)
    best = outside.constraints[0].best
    assert best.share == pytest.approx((WEIGHTS + 128 * PER_SEQUENCE) / limit())
    assert f"✗ VIOLATED over the whole range: {REPLICA}: at best 484.8 GB > " in str(outside)


def test_a_range_of_two_inputs_gives_each_crossing_with_the_other_at_its_centre():
    r = nm.solve(
        "cost_per_million_tokens",
        batch_size="16..256",
        n_gpus="4..8",
        model="llama-3-70b",
        gpu="H100",
        seq_len=SEQ,
        ranges=True,
    )
    replica = next(c for c in r.constraints if c.constraint.name == "replica_fits_hbm")
    per_gpu = limit() / 4
    along = {x.name: x for x in replica.crossings}
    # batch_size with 6 GPUs; n_gpus with a batch of 136
    assert along["batch_size"].value == pytest.approx((6 * per_gpu - WEIGHTS) / PER_SEQUENCE)
    assert along["batch_size"].violated == "above"
    assert along["n_gpus"].value == pytest.approx((WEIGHTS + 136 * PER_SEQUENCE) / per_gpu)
    assert along["n_gpus"].violated == "below"
    assert along["n_gpus"].others == {"batch_size": pytest.approx(136)}
    gpus = (WEIGHTS + 136 * PER_SEQUENCE) / per_gpu  # (141.2 + 136 × 2.684) GB / 72 GB: 7.03
    assert (
        f"holds for n_gpus ≥ {gpus:.4g} GPU, violated below it (at batch_size = 136 "
        "sequence)" in replica.line()
    )
    # the worst corner: the largest batch on the fewest GPUs
    assert replica.worst_at == {"batch_size": pytest.approx(256), "n_gpus": pytest.approx(4)}


def test_the_solve_command_fails_strict_on_a_range_that_does_not_fit_throughout(napkin):
    base = [
        "solve",
        "cost_per_million_tokens",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "n_gpus=4",
        "seq_len=8192",
        "--strict",
    ]
    status, out, err = napkin(*base, "batch_size=16..256")
    assert status == 1 and "violated in part of the range" in err
    status, out, _ = napkin(*base, "batch_size=16..256", "--format", "json")
    data = json.loads(out)
    assert data["schema"] == "napkinmath-range/1" and data["fits"] is False
    status, _, _ = napkin(*base, "batch_size=1..32")
    assert status == 0
    status, out, _ = napkin(*base, "batch_size=16..256", "--format", "markdown")
    assert "VIOLATED in part of the range" in out


# --- samples ----------------------------------------------------------------------------------
def test_samples_report_the_share_that_fits():
    r = nm.solve(
        "cost_per_million_tokens",
        batch_size="16 to 128",
        samples=4000,
        seed=3,
        gpu="H100",
        **SERVING,
    )
    drawn = np.asarray(r.samples["batch_size"])  # sequences, the draws that were kept
    fits = drawn <= boundary()
    assert r.fit_share == pytest.approx(fits.mean(), abs=0.5 / len(drawn))
    # a lognormal with 5% and 95% at 16 and 128: P(b ≤ 66.6) = Φ(ln(66.6/45.25) / 0.632)
    sigma = math.log(8) / (2 * 1.6448536269514722)
    expected = 0.5 * (
        1 + math.erf(math.log(boundary() / math.sqrt(16 * 128)) / sigma / math.sqrt(2))
    )
    assert r.fit_share == pytest.approx(expected, abs=0.03)
    replica = next(c for c in r.constraints if c.constraint.name == "replica_fits_hbm")
    assert replica.violated == int((~fits).sum()) and replica.known == len(drawn)
    assert replica.worst.share == pytest.approx((WEIGHTS + drawn.max() * PER_SEQUENCE) / limit())
    text = str(r)
    assert (
        f"Constraints (over the samples): the plan fits in {r.fit_share:.1%} of the 4,000 "
        "samples" in text
    )
    assert f"✗ VIOLATED in {1 - r.fit_share:.1%} of the samples: {REPLICA}" in text
    data = r.to_dict()
    assert data["fit_share"] == r.fit_share and data["fits"] is False
    assert not r.fits and len(r.warnings) == 2


def test_samples_that_all_fit(napkin):
    r = nm.solve(
        "cost_per_million_tokens", batch_size="4 to 16", samples=500, gpu="H100", **SERVING
    )
    assert r.fit_share == 1.0 and r.fits and not r.warnings
    assert f"✓ {REPLICA}: holds in every sample" in str(r)
    args = [
        "solve",
        "cost_per_million_tokens",
        "--model",
        "llama-3-70b",
        "--gpu",
        "H100",
        "n_gpus=4",
        "seq_len=8192",
        "--samples",
        "500",
        "--strict",
    ]
    assert napkin(*args, "batch_size=4 to 16")[0] == 0
    status, _, err = napkin(*args, "batch_size=16 to 128")
    assert status == 1 and "of the samples" in err


# --- plan files -------------------------------------------------------------------------------
PLAN = """\
title = "Serving with batches that may not fit"
[records]
gpu = "H100-SXM"
model = "llama-3-70b"

[givens]
n_gpus = 4
seq_len = 8192

[[sections]]
title = "Cost over a range of batches"
ask = ["cost_per_million_tokens"]
givens = { batch_size = "16..256" }

[[sweeps]]
title = "Cost by batch"
target = "cost_per_million_tokens"
over = { batch_size = [16, 32, 256] }

[[comparisons]]
title = "Across accelerators"
target = "cost_per_million_tokens"
gpu = ["H100-SXM", "MI300X"]
givens = { batch_size = 128 }
"""


@pytest.fixture(scope="module")
def plan_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("plan") / "serving.toml"
    path.write_text(PLAN, encoding="utf-8")
    return path


def test_a_plan_warns_of_every_what_if_that_does_not_fit(plan_file):
    p = nm.plan(plan_file)
    assert not p.ok
    warnings = "\n".join(p.warnings)
    assert (
        "is violated in part of the range: holds for batch_size ≤ "
        f"{boundary():.4g} sequence, violated above it (in Cost over a range of batches, "
        "over its range)" in warnings
    )
    assert "is violated in 1 of 3 rows (batch_size = 256 sequence)" in warnings
    assert "(in sweep Cost by batch)" in warnings
    assert f"H100-SXM + llama-3-70b: {REPLICA} is violated" in warnings
    assert "(in comparison Across accelerators)" in warnings


def test_every_report_format_carries_the_marks(plan_file):
    p = nm.plan(plan_file)
    text = p.to_text()
    assert "Constraints (does the plan fit over the whole range?):" in text
    assert f"✗ VIOLATED in part of the range: {REPLICA}" in text
    assert "feasible  binding constraint" in text and "  NO  " in text
    markdown = p.to_markdown()
    assert re.search(r"\| 256 \| [0-9.]+ \| NO \| batch_fits_kv_budget \| [0-9.,]+ \|", markdown)
    assert "- ✗ VIOLATED in part of the range:" in markdown
    assert "> **Warning:**" in markdown
    html = p.to_html()
    assert html.count('<tr class="infeasible">') == 1 + 1  # the sweep's row, the comparison's
    assert '<li class="bad">✗ VIOLATED in part of the range' in html
    latex = p.to_latex()
    assert r"\textbf{NO}" in latex
    assert r"\subsection*{Constraints (does the plan fit over the whole range?)}" in latex


def test_plan_check_and_strict_fail_on_a_what_if_that_does_not_fit(napkin, plan_file, tmp_path):
    status, out, _ = napkin("plan", str(plan_file), "--check")
    assert status == 1 and out.startswith("FAIL:")
    assert "(in sweep Cost by batch)" in out
    strict = tmp_path / "strict.toml"
    strict.write_text("strict = true\n" + PLAN, encoding="utf-8")
    status, _, err = napkin("plan", str(strict))
    assert status == 1 and "is strict" in err
    fits = tmp_path / "fits.toml"
    fits.write_text(
        PLAN.replace('"16..256"', '"16..32"')
        .replace("[16, 32, 256]", "[16, 32]")
        .replace("batch_size = 128 }", "batch_size = 32 }"),
        encoding="utf-8",
    )
    status, out, _ = napkin("plan", str(fits), "--check")
    assert status == 0, out
