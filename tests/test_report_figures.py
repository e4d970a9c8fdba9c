"""Markdown and LaTeX plan reports written as files carry the HTML report's plots: SVG (for
Markdown) or PDF (for LaTeX) files in a folder beside the report, linked by relative paths,
the same bytes on every run; the .tex compiles with them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

import napkinmath as nm
from napkinmath.scenario import report_latex

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "startup-7b.toml"
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]+)\)")
GRAPHIC = re.compile(r"\\includegraphics\[[^\]]*\]\{([^}]+)\}")


@pytest.fixture(scope="module")
def startup():
    return nm.plan(EXAMPLE)


def test_markdown_links_the_html_reports_plots(napkin, tmp_path, startup):
    out = tmp_path / "report.md"
    status, _, err = napkin("plan", str(EXAMPLE), "-o", str(out))
    assert status == 0, err
    links = IMAGE.findall(out.read_text(encoding="utf-8"))
    # the HTML report's figures, in its order: two tornado charts, then the sweep
    assert len(links) == startup.to_html().count("<figure>") == 3
    assert [path for _, path in links] == [
        "report-figures/tornado-1.svg",
        "report-figures/tornado-2.svg",
        "report-figures/sweep-1.svg",
    ]
    assert links[0][0] == "Tornado: n_gpus at each input's low and high"
    for _, path in links:
        svg = (out.parent / unquote(path)).read_bytes()
        assert svg.startswith(b"<?xml") and b'xmlns="http://www.w3.org/2000/svg"' in svg
        assert b"<dc:date>" not in svg  # no date: the same bytes on every run
    first = {p.name: p.read_bytes() for p in (tmp_path / "report-figures").iterdir()}
    again = tmp_path / "again" / "report.md"
    again.parent.mkdir()
    startup.write(again)
    assert {p.name: p.read_bytes() for p in (again.parent / "report-figures").iterdir()} == first
    assert again.read_bytes() == out.read_bytes()


def test_tex_includes_its_plots_and_compiles_with_them(tmp_path, startup):
    out = startup.write(tmp_path / "plan.tex")
    paths = GRAPHIC.findall(out.read_text(encoding="utf-8"))
    assert paths == [
        "plan-figures/tornado-1.pdf",
        "plan-figures/tornado-2.pdf",
        "plan-figures/sweep-1.pdf",
    ]
    for path in paths:
        assert (tmp_path / path).read_bytes().startswith(b"%PDF")
    program = report_latex.pdflatex()
    if program is None:
        pytest.skip("pdflatex not installed: apt-get install texlive-latex-recommended")
    done = subprocess.run(
        [program, *report_latex.PDFLATEX_OPTIONS, "plan.tex"],
        cwd=tmp_path,
        env=report_latex.pdflatex_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "plan.log").read_text(errors="replace")
    assert log.count("plan-figures/") >= 3  # pdflatex read each figure
    if shutil.which("pdffonts"):
        fonts = subprocess.run(
            ["pdffonts", str(tmp_path / "plan.pdf")], capture_output=True, text=True, check=True
        ).stdout
        assert "Type 3" not in fonts, fonts


def test_other_examples_link_their_plots(tmp_path):
    for name, count in (("llama-70b-step", 1), ("optimize-fleet", 2)):
        answered = nm.plan(ROOT / "examples" / f"{name}.toml")
        md = answered.write(tmp_path / f"{name}.md").read_text(encoding="utf-8")
        links = [path for _, path in IMAGE.findall(md)]
        assert len(links) == answered.to_html().count("<figure>") == count
        assert all((tmp_path / unquote(p)).is_file() for p in links)


def test_a_report_name_that_is_not_plain_gets_a_plain_folder(tmp_path, startup):
    out = startup.write(tmp_path / "my report (v2).md")
    links = [path for _, path in IMAGE.findall(out.read_text(encoding="utf-8"))]
    assert links and all(p.startswith("report-figures/") for p in links)
    assert all((tmp_path / unquote(p)).is_file() for p in links)


def test_the_figures_folder_must_be_a_folder(tmp_path, startup):
    (tmp_path / "plan-figures").write_text("not a folder")
    with pytest.raises(nm.InputError, match="plan-figures: it is a link or a file"):
        startup.write(tmp_path / "plan.md")
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "x-figures").symlink_to(target)
    with pytest.raises(nm.InputError, match="it is a link or a file"):
        startup.write(tmp_path / "x.tex")
    assert not list(target.iterdir())


def test_a_plan_without_plots_writes_no_folder(tmp_path):
    answered = nm.plan(
        {
            "title": "t",
            "givens": {"params": "7B"},
            "sections": [{"title": "s", "ask": "weight_memory"}],
        }
    )
    answered.write(tmp_path / "p.md")
    answered.write(tmp_path / "p.tex")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.md", "p.tex"]


def test_without_matplotlib_markdown_says_its_plots_are_left_out(napkin, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    out = tmp_path / "p.md"
    status, _, err = napkin("plan", str(EXAMPLE), "-o", str(out))
    assert status == 0, err
    assert "without its plots: matplotlib is not installed" in err
    text = out.read_text(encoding="utf-8")
    assert "Plots are left out of this report" in text and not IMAGE.search(text)
    assert not (tmp_path / "p-figures").exists()


def test_standard_output_carries_no_figures(napkin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, stdout, _ = napkin("plan", str(EXAMPLE), "--format", "markdown")
    assert status == 0 and "## Summary" in stdout and not IMAGE.search(stdout)
    assert not list(tmp_path.iterdir())
