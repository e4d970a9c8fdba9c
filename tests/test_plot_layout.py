"""Plots and report tables laid out to paste (issue 49 §4): the PDF's comparison fits a page,
doubling values get a log axis, two objectives draw their Pareto front, an optimisation's
axis and limit read in the answer's unit, fractions in percent, and a bar chart's legend
covers no bar. Each is checked on the matplotlib objects (or the LaTeX) the public API makes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import napkinmath as nm
from napkinmath.scenario import report_latex

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SERVING = ROOT / "examples" / "llama-70b-serving.toml"
DOUBLING = [1024, 2048, 4096, 8192, 16384]
#: a serving question whose comparison has a row that does not fit (H100's 80 GB)
TPOT = dict(model="llama-3-70b", n_gpus=1, batch_size=8, seq_len=4096)
#: the smallest fleet for 7B on 1T tokens in three weeks (docs/plans.md, W12)
FLEET = dict(params="7B", tokens="1T", train_time="<= 3 weeks", mfu=0.4, gpu="H100-SXM")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _comparison_latex() -> str:
    """The LaTeX of the example plan's comparison section, up to the next section."""
    latex = nm.plan(SERVING).to_latex()
    start = latex.index(r"\section*{Comparison:")
    return latex[start : latex.index(r"\section*{", start + 1)].rsplit("\n", 1)[0]


# --- 1. the PDF report's comparison table ------------------------------------------------------
def test_the_pdf_comparison_lists_its_sentences_under_a_grid_that_fits_the_line():
    part = _comparison_latex()
    spec = re.search(r"\\begin\{longtable\}\{(.*)\}$", part, flags=re.M).group(1)
    shares = [float(s) for s in re.findall(r"\\dimexpr ([0-9.]+)\\linewidth", spec)]
    assert len(shares) == 8  # rank, gpu, model, the target, × best and the three fit columns
    assert sum(shares) <= 1.0
    grid, listed = part.split(r"\end{longtable}", 1)
    assert "values used" not in grid and "sources" not in grid
    assert listed.count(r"\item ") == 3  # one per row, in rank order
    first = listed[listed.index(r"\item ") :]
    assert first.startswith(r"\item \textbf{MI300X, llama-3-70b}")
    assert "AMD Instinct MI300X accelerator data sheet (2023-12)" in listed
    # the text forms keep every column
    assert "sources" in nm.plan(SERVING).comparisons[0][1].to_table().to_csv().splitlines()[0]


def test_the_pdf_comparison_compiles_onto_one_page(tmp_path):
    """Heading, grid, list and notes on one page: with its sentences as columns, each row
    was a page of its own."""
    if not shutil.which("pdflatex"):
        pytest.skip(
            "pdflatex not installed here (Debian: apt-get install texlive-latex-recommended)"
        )
    latex = nm.plan(SERVING).to_latex()
    preamble = latex[: latex.index(r"\begin{document}")]
    (tmp_path / "plan.tex").write_text(
        f"{preamble}\\begin{{document}}\n{_comparison_latex()}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pdflatex", *report_latex.PDFLATEX_OPTIONS, "plan.tex"],
        cwd=tmp_path,
        env=report_latex.pdflatex_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "plan.log").read_text(errors="replace")
    assert "Output written on plan.pdf (1 page" in log
    assert "Overfull \\hbox" not in log


# --- 2. doubling values on a log axis ----------------------------------------------------------
def test_a_list_of_doubling_values_is_drawn_on_a_log_axis():
    t = nm.sweep("kv_cache_memory", over={"seq_len": DOUBLING}, model="llama-3-8b", batch_size=8)
    ax = t.plot()
    assert ax.get_xscale() == "log"
    ax.figure.canvas.draw()
    # a span under 20x: labelled at the swept values, as the table prints them
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "1,024",
        "2,048",
        "4,096",
        "8,192",
        "16,384",
    ]


def test_the_command_line_sweep_plots_doubling_values_on_a_log_axis(napkin, tmp_path, monkeypatch):
    from napkinmath.whatif import table

    scales = []
    finish = table.finish_plot

    def seen(plt, fig, ax, target, owned):
        scales.append(ax.get_xscale())
        return finish(plt, fig, ax, target, owned)

    monkeypatch.setattr(table, "finish_plot", seen)
    values = ",".join(map(str, DOUBLING))
    status, _, err = napkin(
        "sweep", "kv_cache_memory", f"seq_len={values}", "--model", "llama-3-8b",
        "batch_size=8", "--plot", str(tmp_path / "kv.png"),
    )  # fmt: skip
    assert status == 0, err
    assert scales == ["log"] and (tmp_path / "kv.png").stat().st_size > 10_000


@pytest.mark.parametrize(
    ("values", "scale"),
    [
        ([1000, 2000, 3000, 4000], "linear"),  # even steps
        ([1, 3, 9, 27], "log"),  # a constant ratio of 3
        ([1, 2, 10, 50, 100], "log"),  # uneven, spanning 100x
        ([8, 16, 24, 32], "linear"),  # whole nodes: even steps
        ([1024, 4096, 8192], "linear"),  # uneven ratios within 20x
    ],
)
def test_which_lists_get_a_log_axis(values, scale):
    t = nm.sweep("kv_cache_memory", over={"seq_len": values}, model="llama-3-8b", batch_size=8)
    assert t.plot().get_xscale() == scale


# --- 3. two objectives: the Pareto front --------------------------------------------------------
def _two_objectives():
    return nm.optimize(
        ["cost_per_million_tokens", "time_per_output_token"],
        over={"batch_size": "powers of two:1..256"},
        model="llama-3-8b",
        gpu="H100-SXM",
        n_gpus=1,
        seq_len=4096,
    )


def test_two_objectives_plot_their_pareto_front_one_against_the_other():
    o = _two_objectives()
    ax = o.plot()
    title = ax.get_title()
    assert title.startswith("Pareto front: ")
    assert "cost_per_million_tokens" in title and "time_per_output_token" in title
    assert ax.get_xlabel() == "cost_per_million_tokens [USD/Mtoken]"
    assert ax.get_ylabel() == "time_per_output_token [ms·sequence/token]"
    (front,) = [line for line in ax.get_lines() if line.get_label().startswith("Pareto front")]
    assert front.get_marker() == "o"
    # the front's points, as the JSON form gives them in the axes' units
    points = [c["objectives"] for c in o.to_dict()["pareto"]]
    assert len(points) >= 3
    for name, label, drawn in (
        ("cost_per_million_tokens", ax.get_xlabel(), front.get_xdata()),
        ("time_per_output_token", ax.get_ylabel(), front.get_ydata()),
    ):
        assert {f"{name} [{p[name]['unit']}]" for p in points} == {label}
        np.testing.assert_allclose(drawn, [p[name]["value"] for p in points], rtol=1e-9)
    # the best is on the front, starred
    (star,) = [line for line in ax.get_lines() if line.get_label() == "best"]
    assert (star.get_xdata()[0], star.get_ydata()[0]) in zip(
        front.get_xdata(), front.get_ydata(), strict=True
    )


def test_one_objective_names_only_itself():
    ax = nm.optimize("n_gpus", over={"n_gpus": "whole nodes"}, **FLEET).plot()
    assert ax.get_title() == "minimise n_gpus"


# --- 4. the unit a person would choose -----------------------------------------------------------
def test_an_optimisation_shows_a_three_week_limit_in_days():
    o = nm.optimize("n_gpus", over={"n_gpus": "whole nodes"}, **FLEET)
    ax = o.plot()
    assert ax.get_ylabel() == "train_time [day]"
    (limit,) = [line for line in ax.get_lines() if line.get_label() == "the limit"]
    assert limit.get_ydata()[0] == pytest.approx(21.0)
    # the best as the answer prints it: 64 GPU train in 19.19 day
    (star,) = [line for line in ax.get_lines() if line.get_label() == "best"]
    assert "train_time ≤ 3 weeks: 19.19 day" in str(o)
    assert f"{star.get_ydata()[0]:.2f}" == "19.19"


# --- 5. fractions in percent ---------------------------------------------------------------------
def test_a_fraction_axis_reads_in_percent_as_the_table_does():
    t = nm.sweep(
        "train_time", over={"mfu": [0.3, 0.4, 0.5]}, train_compute="6.35e24 FLOP",
        n_gpus=1024, gpu="H100",
    )  # fmt: skip
    assert "40%" in str(t)
    ax = t.plot()
    assert isinstance(ax.xaxis.get_major_formatter(), PercentFormatter)
    assert not isinstance(ax.yaxis.get_major_formatter(), PercentFormatter)  # days
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all(label.endswith("%") for label in labels)
    assert "40%" in labels or "40.0%" in labels


def test_a_fraction_target_and_an_example_plans_utilisation_read_in_percent():
    sweep = nm.plan(SERVING).sweeps[0][1]  # utilization 0.5 .. 0.98
    assert isinstance(sweep.plot().xaxis.get_major_formatter(), PercentFormatter)
    best = nm.optimize(
        "mfu_predicted", maximize=True, over={"tp": "powers of two:1..8"}, model="llama-3-8b",
        gpu="H100", n_gpus=64, seq_len=8192, global_batch_tokens="4Mi", batch_size=1,
        zero_stage=1,
    )  # fmt: skip
    ax = best.plot()
    assert ax.get_ylabel() == "mfu_predicted"
    assert isinstance(ax.yaxis.get_major_formatter(), PercentFormatter)
    assert ax.get_xlabel() == "tp"  # a count with no unit: no empty brackets


# --- 6. a bar chart's legend covers no bar -------------------------------------------------------
@pytest.mark.parametrize("size", [(7, 4.5), (4.2, 3.6)])  # plot()'s own, the HTML report's
def test_a_comparisons_legend_covers_no_bar_and_no_title(size):
    c = nm.compare("time_per_output_token", gpu="H100-SXM,MI300X,A100-SXM-80GB", **TPOT)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    c.plot(ax=ax)
    fig.canvas.draw()
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert any(t.startswith("does not fit") for t in texts)
    box = legend.get_window_extent()
    bars = [p.get_window_extent() for p in ax.patches]
    assert len(bars) == 3
    assert not [b for b in bars if box.overlaps(b)]
    assert not box.overlaps(ax.title.get_window_extent())


def test_in_a_report_the_legend_stays_between_a_folded_title_and_the_bars():
    """The HTML and Markdown reports draw on a narrow figure and fold a long title onto more
    lines afterwards; the title stays raised over the legend."""
    from napkinmath.scenario import svg

    c = nm.compare("time_per_output_token", gpu="H100-SXM,MI300X,A100-SXM-80GB", **TPOT)
    table = c.to_table()
    table.title = "Time per output token of llama-3-70b on one GPU of each accelerator"
    drawn = []

    def draw(ax):
        drawn.append(table.plot(ax=ax, x="gpu", y="time_per_output_token"))

    assert svg.render(draw).startswith("<svg")
    (ax,) = drawn
    assert "\n" in ax.get_title()  # folded
    box = ax.get_legend().get_window_extent()
    assert not box.overlaps(ax.title.get_window_extent())
    assert not [p for p in ax.patches if box.overlaps(p.get_window_extent())]


def test_a_tornado_draws_the_widest_swings_and_says_how_many_it_leaves_out():
    """25 inputs overlap their labels in a report's figure: the 10 widest swings are drawn,
    widest first, and the axis label says the table has the rest."""
    from napkinmath.whatif.table import TORNADO_ROWS, tornado

    rows = [(f"input_{i}", 100.0 - i, 100.0 + i, "±10%") for i in range(25)]
    ax = tornado(rows, "decode_throughput [token/s]", 100.0)
    labels = [t.get_text().split("\n")[0] for t in ax.get_yticklabels()]
    assert labels == [f"input_{i}" for i in range(24, 24 - TORNADO_ROWS, -1)]
    assert ax.get_xlabel().endswith("; 15 inputs with smaller swings in the table")
    few = tornado(rows[:3], "x", 100.0)
    assert len(few.get_yticklabels()) == 3 and few.get_xlabel() == "x"
