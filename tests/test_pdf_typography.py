"""The PDF plan report's typography, checked with poppler's tools on the example plans: only
scalable fonts (no Type 3 bitmaps), the plan's title as the PDF's Title, narrow columns set
ragged-right, and no heading left alone at the foot of a page."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import napkinmath as nm

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["startup-7b", "llama-70b-serving", "llama-70b-step", "optimize-fleet", "shared-pool"]
#: the headings the LaTeX printer writes, as pdftotext reads them back
FIXED = {"Summary", "Given", "Derivation", "Constraints", "Sources", "Assumptions"}
FIXED |= {"Consistency of the givens", "Runners-up", "The best candidate's derivation"}
STARTS = ("What ", "Sweep: ", "Comparison: ", "Optimization: ", "Gap budget", "Neighbours (")
STARTS += ("Pareto front (", "Each record at its own best")


def _tools() -> None:
    missing = [t for t in ("pdflatex", "pdffonts", "pdfinfo", "pdftotext") if not shutil.which(t)]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed here (Debian: apt-get install "
            "texlive-latex-recommended poppler-utils)"
        )


def _run(*argv: str) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60).stdout


@pytest.fixture(scope="module", params=EXAMPLES)
def report(request, tmp_path_factory):
    """(plan, its PDF) for each example plan."""
    _tools()
    plan = nm.plan(ROOT / "examples" / f"{request.param}.toml")
    return plan, plan.to_pdf(tmp_path_factory.mktemp("pdf") / f"{request.param}.pdf")


def test_fonts_are_scalable(report):
    _, pdf = report
    fonts = _run("pdffonts", str(pdf)).splitlines()[2:]
    assert fonts, "the PDF names no font"
    assert not [f for f in fonts if "Type 3" in f], "\n".join(fonts)


def test_title_is_the_plans(report):
    plan, pdf = report
    info = dict(
        line.split(":", 1) for line in _run("pdfinfo", str(pdf)).splitlines() if ":" in line
    )
    assert info["Title"].strip() == plan.title
    assert info["Subject"].strip() == "napkinmath plan report"


def _heading(line: str, plan) -> bool:
    """Whether a line of pdftotext's output is one of the report's headings."""
    titles = {s.title for s in plan.sections}
    numbered = re.fullmatch(r"(\d+) (.+)", line)  # "1 Compute"
    step = re.fullmatch(r"\d+\. .+\[(\d+|definition|[a-z ]+)\]", line)  # "3. Decode step [10]"
    return (
        line in FIXED
        or line.startswith(STARTS)
        or bool(numbered and numbered.group(2) in titles)
        or bool(step)
    )


def test_no_page_ends_with_a_heading(report):
    plan, pdf = report
    pages = int(re.search(r"Pages:\s+(\d+)", _run("pdfinfo", str(pdf))).group(1))
    assert pages > 1
    for page in range(1, pages):  # the last page ends with the sources
        text = _run("pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        body = lines[:-1] if lines and lines[-1].isdigit() else lines  # less the page number
        assert body and not _heading(body[-1], plan), f"page {page} ends with {body[-1]!r}"


def test_the_heading_check_sees_headings():
    plan = nm.plan(ROOT / "examples" / "startup-7b.toml")
    assert _heading("1 Compute", plan) and _heading("Given", plan)
    assert _heading("2. Training run compute [1]", plan)
    assert not _heading("= 73,690 USD", plan) and not _heading("n_nodes = 8 node", plan)


def test_columns_are_ragged_right():
    latex = nm.plan(ROOT / "examples" / "llama-70b-serving.toml").to_latex()
    assert r"\newcolumntype{L}[1]{>{\raggedright\arraybackslash}p{#1}}" in latex
    specs = re.findall(r"\\begin\{longtable\}\{(.*)\}$", latex, flags=re.M)
    assert len(specs) > 3
    for spec in specs:  # every p-column is ragged: L{..} or raggedleft numbers
        bare = re.sub(r">\{\\raggedleft\\arraybackslash\}p", "", spec)
        assert "p{" not in bare.replace("L{", ""), spec


def test_a_hostile_title_is_the_pdfs_title_spelled_plainly(tmp_path):
    _tools()
    title = "Cost & <speed>: 100% of $x_1 {now}"
    plan = nm.plan(
        {
            "title": title,
            "givens": {"params": "7B"},
            "sections": [{"title": "s", "ask": "weight_memory"}],
        }
    )
    pdf = plan.to_pdf(tmp_path / "t.pdf")
    info = _run("pdfinfo", str(pdf))
    assert re.search(r"^Title:\s+(.*)$", info, flags=re.M).group(1) == title


def test_without_latin_modern_the_fonts_are_still_scalable(tmp_path):
    """Where the lmodern package is missing (the .tex asks for it by name), Computer Modern
    in OT1 is used: no T1 bitmap, no TS1 bullet or section sign."""
    _tools()
    from napkinmath.scenario import report_latex

    latex = nm.plan(ROOT / "examples" / "llama-70b-serving.toml").to_latex()
    assert r"\IfFileExists{lmodern.sty}" in latex and r"\ensuremath{\S}" in latex
    (tmp_path / "plan.tex").write_text(
        latex.replace("{lmodern.sty}", "{no-such-package.sty}"), encoding="utf-8"
    )
    for _ in range(2):
        subprocess.run(
            ["pdflatex", *report_latex.PDFLATEX_OPTIONS, "plan.tex"],
            cwd=tmp_path,
            env=report_latex.pdflatex_env(),
            capture_output=True,
            timeout=120,
            check=True,
        )
    fonts = _run("pdffonts", str(tmp_path / "plan.pdf"))
    assert "CMR10" in fonts and "LMRoman" not in fonts
    assert "Type 3" not in fonts, fonts
