"""Work bounded before it starts: a whole plan's budget, and each sweep's, sample count's and
comparison's caps, through `napkin plan`/`sweep`/`compare`/`solve` and `nm.plan`/`nm.sweep`/
`nm.compare`/`nm.solve`.

Counts by hand (napkinmath.scenario.budget): a section of one question is 70 + 2 = 72 units,
so 100,000 of them are 7,200,000 units and 834 are 60,048, over the 60,000 a plan may count;
200 sweeps are 200 · 400 = 80,000 units before their points. A sweep over a 1,000 × 1,000 grid
of one target has 1,000,000 points and 2 + 1 + 3 = 6 columns (6,000,000 cells, within the
8,000,000 a sweep may hold); 10,000 × 1,000 is 10,000,000 points, over the 1,000,000 cap.
"""

from __future__ import annotations

import json

import pytest

import napkinmath as nm
from napkinmath.errors import InputError
from napkinmath.whatif.budget import MAX_RECORDS

HEAD = {
    "title": "Budget",
    "records": {"gpu": "H100-SXM"},
    "givens": {"params": "7B", "tokens": "1T", "mfu": 0.4},
}
TOML_HEAD = """\
title = "Budget"
[records]
gpu = "H100-SXM"
[givens]
params = "7B"
tokens = "1T"
mfu = 0.4

[[sections]]
title = "Compute"
ask = ["train_compute"]
"""


def sections(n: int) -> dict:
    return {**HEAD, "sections": [{"title": f"S{i}", "ask": ["train_compute"]} for i in range(n)]}


def sweeps_toml(n: int, over: str = 'n_gpus = "16..4096:log"') -> str:
    return TOML_HEAD + "".join(
        f'\n[[sweeps]]\ntitle = "W{i}"\ntarget = "train_time"\nover = {{ {over} }}\n'
        for i in range(n)
    )


# --- a whole plan ---------------------------------------------------------------------------


def test_100000_sections_refused_with_the_count_api():
    with pytest.raises(InputError) as err:
        nm.plan(sections(100_000))
    text = str(err.value)
    assert "100,000 sections" in text and "7,200,000 work units" in text
    assert "at most 60,000" in text and "split the plan" in text


def test_a_file_of_20000_sections_refused_with_the_count_cli(napkin, tmp_path):
    """A file of 100,000 sections is over the plan file's 1,000,000 bytes (refused for its
    size); the most that fit, about 20,000, are refused for their count: 1,440,000 units."""
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(sections(20_000), separators=(",", ":")), encoding="utf-8")
    assert path.stat().st_size < 1_000_000
    status, out, err = napkin("plan", str(path))
    assert status == 2 and out == ""
    assert "huge.json" in err and "20,000 sections" in err and "60,000" in err
    assert "split the plan" in err and "Traceback" not in err


def test_the_first_section_over_the_budget_is_refused():
    with pytest.raises(InputError, match=r"at least 60,048 work units \(834 sections"):
        nm.plan(sections(834))


def test_200_sweeps_refused_with_the_count(napkin, tmp_path):
    path = tmp_path / "sweeps.toml"
    path.write_text(sweeps_toml(200), encoding="utf-8")
    status, out, err = napkin("plan", str(path), "-o", str(tmp_path / "report.html"))
    assert status == 2 and out == ""
    assert "200 sweeps: 80,000 units" in err and "at most 60,000" in err
    assert not (tmp_path / "report.html").exists()  # refused before any report is written
    with pytest.raises(InputError, match="200 sweeps: 80,000 units"):
        nm.plan(path)


def test_a_plan_whose_tables_would_be_huge_is_refused_before_it_runs(napkin, tmp_path):
    # 20 sweeps of 10,000 points × 5 columns: 1,000,000 cells of report
    path = tmp_path / "wide.toml"
    path.write_text(sweeps_toml(20, 'n_gpus = "16..4096:log:10000"'), encoding="utf-8")
    status, _, err = napkin("plan", str(path), "-o", str(tmp_path / "report.html"))
    assert status == 2 and not (tmp_path / "report.html").exists()
    assert "1,000,000 table cells" in err and "at most 500,000" in err
    assert "sweep fewer points" in err


def test_ranged_sections_and_sensitivity_count_more():
    ranged = {
        **HEAD,
        "givens": {**HEAD["givens"], "mfu": "0.3..0.5"},
        "sections": [
            {
                "title": f"S{i}",
                "ask": ["n_gpus"],
                "sensitivity": True,
                "givens": {"train_time": "3 weeks"},
            }
            for i in range(50)
        ],
    }
    with pytest.raises(InputError) as err:
        nm.plan(ranged)
    assert "50 sections: 73,600 units" in str(err.value)  # 50 · (72 + 1,000 + 400)


def test_a_comparison_over_too_many_records_is_refused():
    plan = {
        **HEAD,
        "sections": [{"title": "C", "ask": ["train_compute"]}],
        "comparisons": [
            {"target": "train_time", "gpu": ["H100-SXM", "H200"] * 101, "givens": {"n_gpus": 64}}
        ],
    }
    with pytest.raises(InputError, match=r"202 records .* at most 200"):
        nm.plan(plan)


def test_a_plan_at_the_edge_of_its_report_budget_runs():
    # 1,000 × 83 points × 6 columns = 498,000 cells, under the 500,000 a report may hold
    plan = {
        **HEAD,
        "sections": [{"title": "C", "ask": ["train_compute"]}],
        "sweeps": [
            {"target": "train_time", "over": {"n_gpus": "16..16k:log:1000", "mfu": "0.3..0.5:83"}}
        ],
    }
    answered = nm.plan(plan)
    assert len(answered.sweeps[0][1]) == 83_000
    plan["sweeps"][0]["over"]["mfu"] = "0.3..0.5:84"  # 504,000 cells
    with pytest.raises(InputError, match="504,000 table cells"):
        nm.plan(plan)


# --- one sweep, samples, a comparison -------------------------------------------------------


def test_an_over_cap_sweep_is_refused_before_any_value_is_read():
    # 10,000 values that would each fail to convert: the count refuses first
    with pytest.raises(InputError) as err:
        nm.sweep(
            "train_time",
            over={"n_gpus": ["no such value"] * 10_000, "mfu": "0.3..0.5:1000"},
            params="7B",
            tokens="1T",
            gpu="H100-SXM",
        )
    text = str(err.value)
    assert "10,000,000 points (n_gpus 10,000 × mfu 1,000)" in text
    assert "at most 1,000,000" in text and "fewer points" in text


def test_an_over_cap_sweep_is_refused_on_the_command_line(napkin):
    status, out, err = napkin(
        "sweep",
        "train_time",
        "n_gpus=16..16k:log:10000",
        "mfu=0.3..0.5:1000",
        "params=7B",
        "tokens=1T",
        "--gpu",
        "H100-SXM",
    )
    assert status == 2 and out == ""
    assert "10,000,000 points" in err and "1,000,000" in err


def test_a_sweep_of_too_many_cells_is_refused():
    # 1,000,000 points × (2 inputs + 6 targets + 3) columns = 11,000,000 cells
    targets = ["train_time", "train_compute", "gpu_hours", "n_nodes", "cluster_power", "energy"]
    with pytest.raises(InputError, match=r"11,000,000 table cells.*at most 8,000,000"):
        nm.sweep(
            targets,
            over={"n_gpus": ["x"] * 1000, "mfu": ["y"] * 1000},
            params="7B",
            tokens="1T",
            gpu="H100-SXM",
        )


def test_a_sweep_at_the_cap_runs():
    table = nm.sweep(
        "train_time",
        over={"n_gpus": "16..16k:log:1000", "mfu": "0.3..0.5:1000"},
        params="7B",
        tokens="1T",
        gpu="H100-SXM",
    )
    assert len(table) == 1_000_000


def test_too_many_records_are_refused_before_any_is_read():
    names = [f"no-such-gpu-{i}" for i in range(201)]
    with pytest.raises(InputError, match=r"201 records .* at most 200"):
        nm.compare("train_time", gpu=names, params="7B", tokens="1T", n_gpus=64, mfu=0.4)
    with pytest.raises(InputError, match=r"201 records .* at most 200"):
        nm.sweep("train_time", gpu=names, params="7B", tokens="1T", n_gpus=64, mfu=0.4)


def test_too_many_samples_are_refused(napkin):
    with pytest.raises(InputError, match="from 1 to 1,000,000"):
        nm.solve(
            "n_gpus",
            params="7B",
            tokens="1T",
            train_time="3 weeks",
            mfu="0.3 to 0.5",
            gpu="H100-SXM",
            samples=1_000_001,
        )
    status, _, err = napkin(
        "solve",
        "n_gpus",
        "params=7B",
        "tokens=1T",
        "train_time=3weeks",
        "mfu=0.3 to 0.5",
        "--gpu",
        "H100-SXM",
        "--samples",
        "2000000",
    )
    assert status == 2 and "1,000,000" in err


def test_a_comparison_of_many_records_renders_in_linear_time():
    gpus = [name for name, r in nm.hardware.listed().items() if r.kind == "accelerator"]
    models = [name for name, r in nm.hardware.listed().items() if r.kind == "model"]
    # as many accelerators as a comparison takes (MAX_RECORDS gpu x model): more than 50 rows
    gpus = gpus[: MAX_RECORDS // len(models)]
    compared = nm.compare(
        "cost_per_million_tokens", gpu=gpus, model=models, n_gpus=8, batch_size=32, seq_len=8192
    )
    text = str(compared)
    assert len(compared.ranking) > 50 and compared.ranking[0] in text


# --- a plot's lines -------------------------------------------------------------------------

SWEEP_101_LINES = [
    "sweep",
    "train_time",
    "n_gpus=16..16k:log:20",
    "mfu=0.3..0.5:101",
    "params=7B",
    "tokens=1T",
    "--gpu",
    "H100-SXM",
]


def test_a_plot_of_more_than_100_lines_is_refused_before_the_table_prints(napkin, tmp_path):
    """One line per value of mfu: 101 of them (a 1,000-line plot took 102 s and its legend
    cannot be read). The sweep itself (2,020 points) is within every cap."""
    pytest.importorskip("matplotlib")
    target = tmp_path / "p.png"
    status, out, err = napkin(*SWEEP_101_LINES, "--plot", str(target))
    assert status == 2 and out == "" and not target.exists()
    assert "a plot of 101 lines (one per value of mfu)" in err and "at most 100" in err
    status, out, _ = napkin(
        *SWEEP_101_LINES[:3], "mfu=0.3..0.5:100", *SWEEP_101_LINES[4:], "--plot", str(target)
    )
    assert status == 0 and target.stat().st_size > 0


def test_a_plan_whose_sweep_has_too_many_lines_still_reports_without_that_plot(tmp_path):
    pytest.importorskip("matplotlib")
    plan = nm.plan(
        {
            **HEAD,
            "sections": [{"title": "Compute", "ask": ["train_compute"]}],
            "sweeps": [
                {
                    "title": "Many lines",
                    "target": "train_time",
                    "over": {"n_gpus": "16..16k:log:5", "mfu": "0.3..0.5:101"},
                }
            ],
        }
    )
    html = plan.to_html()
    assert "Plot left out: a plot of 101 lines" in html
    assert html.count("<figure>") == 0
