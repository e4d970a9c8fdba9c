"""A plan's [[optimizations]]: read and located like the other tables, answered by
nm.optimize with the plan's givens and records, reported in every format, gating --check."""

from __future__ import annotations

import json
import math
import shutil

import pytest
from helpers import write

import napkinmath as nm
from napkinmath.errors import InputError
from napkinmath.scenario import budget

H100_PEAK = 989.5e12  # FLOP/s per GPU, dense BF16 (the record's figure)
DAY = 86_400.0

PLAN = """\
title = "Fleet"
[records]
gpu = "H100-SXM"
[givens]
params = "7B"
tokens = "1T"
train_time = "3 weeks"
mfu = 0.4

[[sections]]
title = "Compute"
ask = ["train_compute"]
"""

W12 = (
    PLAN
    + """
[[optimizations]]
title = "Smallest fleet"
minimize = "n_gpus"
over = { n_gpus = "whole nodes" }
require = ["train_time <= 3 weeks"]
"""
)

NOTHING = (
    PLAN
    + """
[[optimizations]]
title = "Too small"
minimize = "n_gpus"
over = { n_gpus = "1..8" }
givens = { train_time = "<= 3 weeks" }
"""
)


def error(tmp_path, text: str, name: str = "plan.toml") -> str:
    with pytest.raises(InputError) as info:
        nm.plan(write(tmp_path, name, text))
    return str(info.value)


@pytest.fixture(scope="module")
def w12(tmp_path_factory):
    return nm.plan(write(tmp_path_factory.mktemp("w12"), "plan.toml", W12))


@pytest.fixture(scope="module")
def nothing(tmp_path_factory):
    return nm.plan(write(tmp_path_factory.mktemp("none"), "plan.toml", NOTHING))


# --- loading --------------------------------------------------------------------------------
def test_loaded_with_the_plans_givens_and_records(w12):
    (spec,) = w12.scenario.optimizations
    assert spec.objectives == ("n_gpus",) and spec.maximize == ()
    assert spec.over == {"n_gpus": "whole nodes"}
    assert spec.require == ("train_time <= 3 weeks",)
    (done,) = w12.optimizations
    opt = done.optimum
    assert opt.best_candidate.point == {"n_gpus": 64.0}
    # the plan's train_time = "3 weeks" is required, not given: its boundary is 58.48 GPU
    gpus = 6 * 7e9 * 1e12 / (0.4 * H100_PEAK * 21 * DAY)
    assert opt.boundaries[0].value == pytest.approx(gpus, rel=1e-6)
    assert done.origins["params"] == "plan file, line 5"
    assert done.derivation.origins["n_gpus"] == "the best candidate"
    assert w12.ok and w12.warnings == []


def test_given_with_a_comparison_is_a_requirement(nothing):
    (spec,) = nothing.scenario.optimizations
    assert spec.require == ("train_time <= 3 weeks",) and spec.givens == {}


def test_maximize_and_a_pareto_pair_and_list_over(tmp_path):
    text = (
        PLAN
        + """
[[optimizations]]
minimize = "n_gpus"
maximize = "train_time"
over = ["n_gpus"]
top = 2
"""
    )
    scenario = nm.scenario.load(write(tmp_path, "plan.toml", text))
    (spec,) = scenario.optimizations
    assert spec.objectives == ("n_gpus", "train_time") and spec.maximize == ("train_time",)
    assert spec.over == {"n_gpus": None} and spec.top == 2
    assert spec.title == "minimise n_gpus and maximise train_time over n_gpus"


@pytest.mark.parametrize(
    ("table", "where", "message"),
    [
        ('over = ["n_gpus"]', "key optimizations[0]", "needs minimize"),
        ('minimize = "n_gpus"\nfoo = 1', "key optimizations[0].foo", "unknown key 'foo'"),
        ('minimize = "n_gpsu"', "key optimizations[0].minimize", "n_gpsu"),
        (
            'minimize = ["n_gpus", "train_time"]\nmaximize = "mfu"',
            "key optimizations[0].maximize",
            "one name each",
        ),
        (
            'minimize = ["n_gpus", "train_time", "train_cost"]',
            "key optimizations[0].minimize",
            "3 objectives",
        ),
        (
            'minimize = "n_gpus"\nmaximize = "n_gpus"',
            "key optimizations[0].maximize",
            "both minimised and maximised",
        ),
        ('minimize = "train_time"', "key optimizations[0]", "what may change?"),
        ('minimize = "n_gpus"\nover = 3', "key optimizations[0].over", "expected a table"),
        (
            'minimize = "n_gpus"\nover = { n_gpus = true }',
            "key optimizations[0].over.n_gpus",
            "expected a domain",
        ),
        (
            'minimize = "n_gpus"\nrequire = ["train_time 3 weeks"]',
            "key optimizations[0].require[0]",
            "NAME OP VALUE",
        ),
        (
            'minimize = "n_gpus"\nrequire = { train_time = "3 weeks" }',
            "key optimizations[0].require.train_time",
            "starts with <=",
        ),
        (
            'minimize = "n_gpus"\nrequire = ["train_time <= 3 parsecs"]',
            "key optimizations[0].require[0]",
            "train_time",
        ),
        (
            'minimize = "n_gpus"\ngivens = { n_gpus = 8 }',
            "key optimizations[0].givens.n_gpus",
            "optimised",
        ),
        (
            'minimize = "train_cost"\nover = ["n_gpus"]\ngivens = { n_gpus = 8 }',
            "key optimizations[0].givens.n_gpus",
            "both a decision variable",
        ),
        ('minimize = "n_gpus"\ntop = 0', "key optimizations[0].top", "1..1000"),
        ('minimize = "n_gpus"\ngpu = "H999"', "key optimizations[0].gpu", "H999"),
    ],
)
def test_each_error_names_the_file_line_and_key(tmp_path, table, where, message):
    text = PLAN + "\n[[optimizations]]\n" + table + "\n"
    got = error(tmp_path, text)
    key = where.removeprefix("key optimizations[0]").lstrip(".").split(".")[0].split("[")[0]
    lines = text.splitlines()
    found = (i for i, t in enumerate(lines, 1) if i > 14 and key and t.startswith(f"{key} ="))
    line = next(found, 14)
    assert f"plan.toml, line {line}, {where}" in got, got
    assert message in got, got


def test_errors_at_answer_time_are_located(tmp_path):
    text = PLAN + '\n[[optimizations]]\nminimize = "n_gpus"\nover = { n_gpus = "nonsense" }\n'
    got = error(tmp_path, text)
    assert "plan.toml, line 16, key optimizations[0].over.n_gpus" in got, got
    assert "optimization 'minimise n_gpus over n_gpus'" in got


def test_not_a_list_of_tables(tmp_path):
    got = error(tmp_path, PLAN.replace('title = "Fleet"', 'title = "Fleet"\noptimizations = 3'))
    assert "key optimizations" in got and "[[optimizations]]" in got


def test_json_plans_take_optimizations(tmp_path):
    data = {
        "title": "J",
        "records": {"gpu": "H100-SXM"},
        "givens": {"params": "7B", "tokens": "1T", "mfu": 0.4},
        "sections": [{"title": "C", "ask": ["train_compute"]}],
        "optimizations": [{"minimize": "n_gpus", "require": {"train_time": "<= 3 weeks"}}],
    }
    p = nm.plan(write(tmp_path, "plan.json", json.dumps(data, indent=2)))
    assert p.optimizations[0].optimum.best_candidate.point == {"n_gpus": 64.0}
    data["optimizations"][0]["top"] = "five"
    got = error(tmp_path, json.dumps(data, indent=2), "plan.json")
    assert "key optimizations[0].top" in got and "plan.json, line " in got


# --- the report -----------------------------------------------------------------------------
def test_text_report(w12):
    text = w12.to_text()
    part = text[text.index("Optimization: Smallest fleet") :]
    assert "Goal: minimise n_gpus" in part
    assert "16,384 candidates searched completely; 16,377 meet every constraint." in part
    assert "Best: n_gpus = 64 GPU (8 nodes)" in part
    assert "binding: train_time ≤ 3 weeks" in part
    assert "exact boundary: train_time ≤ 3 weeks holds with equality at n_gpus = 58.48" in part
    assert "n_gpus = 56 GPU (7 nodes): ✗ train_time ≤ 3 weeks" in part
    assert "Runners-up:\n  2. n_gpus = 72 GPU (9 nodes)" in part
    assert "The best candidate's derivation:" in part
    assert "train_time = train_compute / (mfu · n_gpus · peak_flops)" in part
    assert "n_gpus               = 64 GPU   (the best candidate" in part
    assert "19.19 day" in part


def test_markdown_report(w12):
    md = w12.to_markdown()
    part = md[md.index("## Optimization: Smallest fleet") :]
    assert "**Best:** n_gpus = 64 GPU (8 nodes)" in part
    assert "| neighbour | verdict |" in part and "| n_gpus = 72 GPU (9 nodes) | fits;" in part
    assert "### The best candidate's derivation" in part
    assert "| `n_gpus` | 64 GPU |" in part


def test_html_report_has_the_best_point_and_a_plot(w12):
    page = w12.to_html()
    part = page[page.index('<section id="optimization-1">') :]
    assert "Best: n_gpus = 64 GPU (8 nodes)" in part
    assert "<svg" in part and "</svg>" in part
    assert "<h3>The best candidate's derivation</h3>" in part
    assert '<tr class="infeasible"><td>n_gpus = 56 GPU (7 nodes)</td>' in part
    assert len(page) < 400_000  # the 16,384 candidates' markers are spaced along the line


def test_latex_report(w12, tmp_path):
    latex = w12.to_latex()
    assert all(ord(c) < 128 for c in latex)
    part = latex[latex.index("\\section*{Optimization: Smallest fleet}") :]
    assert "Best: n\\_\\allowbreak{}gpus = 64 GPU (8 nodes)" in part
    assert "\\subsection*{The best candidate's derivation}" in part
    assert latex.count("\\begin{longtable}") == latex.count("\\end{longtable}")
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: apt-get install texlive-latex-recommended")
    pdf = w12.to_pdf(tmp_path / "plan.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")


def test_json_report(w12, tmp_path):
    data = json.loads(w12.to_json())
    (opt,) = data["optimizations"]
    assert opt["title"] == "Smallest fleet"
    assert opt["optimum"]["best"]["point"]["n_gpus"]["value"] == 64
    optimum = dict(opt["optimum"])
    assert optimum.pop("schema") == "napkinmath-optimum/1"  # as `napkin optimize` tags it
    assert optimum == json.loads(w12.optimizations[0].optimum.to_json())
    assert data["ok"] is True and data["warnings"] == []
    path = w12.write(tmp_path / "plan.json")
    assert json.loads(path.read_text(encoding="utf-8")) == data


def test_nothing_fits_in_every_format(nothing):
    (done,) = nothing.optimizations
    assert done.optimum.best is None and done.derivation is None
    assert nothing.warnings == [
        "no candidate of 8 meets every constraint (in optimization Too small)"
    ]
    assert not nothing.ok
    text = nothing.to_text()
    assert "Nothing fits: no candidate of 8 meets every constraint." in text
    assert "Ruled out (a candidate may fail several):" in text
    assert "           8  train_time ≤ 3 weeks" in text
    assert "Closest: n_gpus = 8 GPU (1 node)\n  ✗ train_time ≤ 3 weeks" in text
    assert "**Nothing fits: no candidate of 8 meets every constraint.**" in nothing.to_markdown()
    assert "| train_time ≤ 3 weeks | 8 |" in nothing.to_markdown()
    page = nothing.to_html()
    assert '<p class="warning">Nothing fits' in page and "Closest: n_gpus = 8 GPU" in page
    assert "Nothing fits" in nothing.to_latex()
    data = json.loads(nothing.to_json())
    assert data["optimizations"][0]["optimum"]["best"] is None
    assert data["optimizations"][0]["optimum"]["ruled_out"] == {"train_time ≤ 3 weeks": 8}


# --- the command line -----------------------------------------------------------------------
def test_check_fails_when_nothing_fits(napkin, tmp_path):
    path = write(tmp_path, "plan.toml", NOTHING)
    status, out, _ = napkin("plan", str(path), "--check")
    assert status == 1
    assert out.startswith("FAIL:") and "and 1 optimization(s)" in out
    assert "✗ no candidate of 8 meets every constraint (in optimization Too small)" in out
    status, out, _ = napkin("plan", str(write(tmp_path, "good.toml", W12)), "--check")
    assert status == 0 and out.startswith("OK:"), out


def test_every_format_byte_identical_on_two_runs(napkin, tmp_path):
    path = write(tmp_path, "plan.toml", W12)
    for suffix in (".md", ".html", ".tex", ".txt", ".json"):
        # the same name in two folders: a report names its figures' folder after itself
        first, second = tmp_path / "a" / f"r{suffix}", tmp_path / "b" / f"r{suffix}"
        first.parent.mkdir(exist_ok=True)
        second.parent.mkdir(exist_ok=True)
        for out in (first, second):
            status, _, err = napkin("plan", str(path), "-o", str(out))
            assert status == 0, err
        assert first.read_bytes() == second.read_bytes(), suffix


# --- the budget -----------------------------------------------------------------------------
def test_optimizations_count_against_the_plan_budget(tmp_path):
    many = PLAN + '\n[[optimizations]]\nminimize = "n_gpus"\n' * 41
    got = error(tmp_path, many)
    assert "41 optimizations: 61,500 units" in got and "60,000" in got


def test_the_plans_candidates_are_capped_together(tmp_path, monkeypatch):
    monkeypatch.setattr(budget, "MAX_CANDIDATES", 20_000)
    two = W12 + '\n[[optimizations]]\nminimize = "n_gpus"\nrequire = ["train_time <= 3 weeks"]\n'
    got = error(tmp_path, two)
    assert "key optimizations[1]" in got and "evaluates at most 3,616" in got
    assert "a plan's optimizations evaluate at most 20,000 candidates together" in got


def test_per_record_ranking_and_a_pareto_front(napkin, tmp_path):
    data = {
        "title": "M",
        "records": {"gpu": "H100-SXM"},
        "givens": {"params": "7B", "tokens": "1T", "mfu": 0.4},
        "sections": [{"title": "C", "ask": ["train_compute"]}],
        "optimizations": [
            {
                "title": "Per GPU",
                "minimize": "n_gpus",
                "gpu": ["H100-SXM", "A100-SXM-80GB"],
                "require": ["train_time <= 3 weeks"],
            },
            {
                "title": "Pareto",
                "minimize": ["n_gpus", "train_time"],
                "over": {"n_gpus": "whole nodes:1..16"},
            },
        ],
    }
    p = nm.plan(data)
    per_gpu, pareto = p.optimizations
    # A100: 312 TFLOP/s; 4.2e22 / (0.4 x 312e12 x 3 weeks) = 185.5 GPU, so 24 nodes
    assert [label for label, _ in per_gpu.optimum.per_record] == ["H100-SXM", "A100-SXM-80GB"]
    a100 = 6 * 7e9 * 1e12 / (0.4 * 312e12 * 21 * DAY)
    assert math.ceil(a100 / 8) * 8 == 192
    text = p.to_text()
    assert "Each record at its own best:\n  1. H100-SXM: n_gpus = 64 GPU\n" in text
    assert "  2. A100-SXM-80GB: n_gpus = 192 GPU" in text
    assert "| 2 | A100-SXM-80GB | n_gpus = 192 GPU |" in p.to_markdown()
    assert len(pareto.optimum.pareto) == 16  # each more GPUs is a shorter run
    assert "Pareto front (none better in both):\n  n_gpus = 8 GPU (1 node): 153.5 day" in text
    assert "<h3>Pareto front (none better in both)</h3>" in p.to_html()
    assert "\\subsection*{Pareto front (none better in both)}" in p.to_latex()


def test_latex_saves_the_optimizations_plot(w12, tmp_path):
    from napkinmath.scenario.figures import Figures
    from napkinmath.scenario.report_latex import render

    figures = Figures("pdf")
    latex = render(w12, figures)
    assert "\\includegraphics[width=0.8\\linewidth]{optimization-1.pdf}" in latex
    assert figures.files["optimization-1.pdf"].startswith(b"%PDF")
