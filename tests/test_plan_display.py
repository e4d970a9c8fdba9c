"""Plan reports show numbers as a single answer shows them (percent for fractions, 7B param,
thousands separators, a user's value with how it was read) and cite long sources as numbers
into the report's one sources list, in every format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import napkinmath as nm

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
READ = """\
title = "Read generously"
[givens]
params = "7B"
tokens = "1T"
n_gpus = 64
mfu = 0.4
peak_flops = "989 TFLOP/s"

[[sections]]
title = "Time"
ask = ["train_time"]
"""


@pytest.fixture(scope="module")
def startup():
    return nm.plan(EXAMPLES / "startup-7b.toml")


@pytest.fixture(scope="module")
def pretraining():
    return nm.plan(EXAMPLES / "llama-405b-pretraining.toml")


def reports(p) -> dict[str, str]:
    return {
        "text": p.to_text(),
        "markdown": p.to_markdown(),
        "html": p.to_html(),
        "latex": p.to_latex(),
    }


def test_numbers_as_result_shows_them(startup, pretraining):
    for style, report in reports(startup).items():
        percent = "40\\%" if style == "latex" else "40%"
        assert percent in report, style  # mfu = 0.4 is a fraction
        assert "7B param" in report and "1T token" in report, style
        assert "73,690 USD" in report, style  # 64 · 460.6 h · 2.5 USD
        assert "0.4 " not in report.split("What")[0], style  # not before the sensitivity
    # 405B: MFU from published GPU-hours, 6 · 405e9 · 15.6e12 / (30.84e6 h · 3600 · 989.5e12)
    mfu = 6 * 405e9 * 15.6e12 / (30.84e6 * 3600 * 989.5e12)
    assert pretraining.answers["mfu"].magnitude == pytest.approx(mfu, rel=1e-3)
    shown = f"{100 * mfu:.2f}%"  # 34.51%
    for style, report in reports(pretraining).items():
        assert shown.replace("%", "\\%" if style == "latex" else "%") in report, style
        assert "405B param" in report, style


def test_a_value_read_generously_says_how(tmp_path):
    from napkinmath.scenario.report_latex import tex

    (tmp_path / "plan.toml").write_text(READ, encoding="utf-8")
    p = nm.plan(tmp_path / "plan.toml")
    given = p.sections[0].result.givens["peak_flops"]
    assert given.quantity.to("TFLOP/(s*GPU)").magnitude == 989
    assert given.reading == "989 TFLOP/s, read as per GPU"
    said = "plan file, line 7: 989 TFLOP/s, read as per GPU"
    for style, report in reports(p).items():
        assert (tex(said) if style == "latex" else said) in report, style
    # 6 · 7e9 · 1e12 / (64 · 989e12 · 0.4) s = 19.2 days
    assert p.answers["train_time"].to("day").magnitude == pytest.approx(
        4.2e22 / (64 * 989e12 * 0.4) / 86400
    )


def test_one_numbered_sources_list(startup):
    kaplan = "Kaplan et al. 2020, Scaling Laws for Neural Language Models, arXiv:2001.08361"
    datasheet = "NVIDIA H100 Tensor Core GPU datasheet (2023-06)"
    for style, report in reports(startup).items():
        if style == "latex":
            continue  # escaped: checked below
        # each long citation is written once, in the list; the lines cite its number
        assert report.count(kaplan) == 1 and report.count(datasheet) == 1, style
    text = startup.to_text()
    listed = dict(re.findall(r"^  \[(\d+)\] (.*)$", text, re.M))
    assert listed["1"] == datasheet and listed["2"].startswith(kaplan)
    assert "2. Fleet equation  [3]" in text and "sparsity [1])" in text
    assert "3. GPUs in whole nodes  [definition]" in text  # a short citation stays inline
    md = startup.to_markdown()
    assert f"\n1. {datasheet}\n2. {kaplan}" in md and "**Fleet equation** [3]" in md
    html = startup.to_html()
    cited = set(re.findall(r'href="#source-(\d+)"', html))
    listed_html = set(re.findall(r'<li id="source-(\d+)" value="\1">', html))
    assert cited and cited <= listed_html
    assert listed_html == {str(n) for n in range(1, len(listed_html) + 1)}
    latex = startup.to_latex()
    assert "\\item[{[1]}] NVIDIA H100 Tensor Core GPU datasheet (2023-06)" in latex
    assert "Fleet equation [3]" in latex


def test_the_sources_list_matches_a_single_answer(startup):
    """The plan numbers as a single answer's own sources list does (same rules)."""
    compute = startup.sections[0].result
    single = str(compute)
    for number, source in re.findall(r"^  \[(\d+)\] (.*)$", single, re.M):
        assert f"  [{number}] {source}" in startup.to_text()


def test_a_section_answer_is_the_answer_from_the_givens_it_reads(startup):
    """The Memory section reads none of the file's givens but `params`: its answer is the one
    `solve` gives from `params` alone (not the file's other givens, listed as unused)."""
    memory = startup.sections[2].result
    alone = nm.solve(
        ["training_state_memory", "n_gpus_for_state"],
        params="7B",
        gpu="H100-SXM",
        tolerance=0.01,
        on_inconsistent="warn",
    )
    assert str(memory) == str(alone)
    assert memory.to_json() == alone.to_json()
    assert not memory.unused and "given but not needed" not in startup.to_text()
    assert memory["training_state_memory"].to("GB").magnitude == pytest.approx(16 * 7)
