"""The plan's reports: HTML valid and self-contained (MathML, inline SVG, no URL), opened in
headless Chromium where installed; Markdown and LaTeX escaping; PDF through pdflatex."""

from __future__ import annotations

import html.parser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import helpers
import pytest

import napkinmath as nm

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "startup-7b.toml"
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Checker(html.parser.HTMLParser):
    """Balanced tags, and every attribute and style free of external references."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: dict[str, int] = {}
        self.problems: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if (
                name in ("src", "href", "xlink:href", "action", "data")
                and value
                and not value.startswith("#")
            ):
                self.problems.append(f"<{tag} {name}={value!r}>: not a link inside the page")
        if tag not in VOID:
            self.stack.append(tag)
        self.in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href", "xlink:href") and value and not value.startswith("#"):
                self.problems.append(f"<{tag} {name}={value!r}>")

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        self.in_style = False

    def handle_data(self, data):
        if self.in_style and ("url(" in data or "@import" in data):
            self.problems.append("the stylesheet loads a URL")


@pytest.fixture(scope="module")
def startup():
    return nm.plan(EXAMPLE)


@pytest.fixture(scope="module")
def page(startup) -> str:
    return startup.to_html()


def test_html_is_valid_and_self_contained(page):
    checker = Checker()
    checker.feed(page)
    checker.close()
    assert checker.problems == []
    assert checker.stack == []  # every element closed
    assert page.startswith("<!DOCTYPE html>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "max-width" in page and "@media print" in page
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", page, re.I)  # no URL at all
    assert "<script" not in page
    assert checker.tags["math"] >= 10 and checker.tags["mfrac"] >= 1  # MathML derivations
    assert checker.tags["svg"] == 3  # two tornados and the sweep


def test_no_two_plots_share_an_id_and_each_uses_only_its_own(page):
    """matplotlib names glyphs and clip paths alike in every SVG (DejaVuSans-30); the page
    prefixes each plot's ids, so that each uses only what it holds itself."""
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), [i for i in set(ids) if ids.count(i) > 1][:5]
    for plot in re.findall(r"<svg.*?</svg>", page, re.S):
        own = set(re.findall(r'\bid="([^"]+)"', plot))
        used = set(re.findall(r'(?:href="|url\()#([^")]+)', plot))
        assert used and used <= own, sorted(used - own)[:5]


def test_html_carries_every_answer_and_source(startup, page):
    for name in startup.answers:
        assert f"<code>{name}</code>" in page
    assert "64 GPU" in page and "73,690 USD" in page
    assert 'id="source-1"' in page and 'href="#source-1"' in page
    assert "plan file, line 14" in page  # params: the given's origin


def test_svg_is_deterministic_and_free_of_dates(startup):
    from napkinmath.scenario import svg

    table = startup.sweeps[0][1]
    one = svg.render(lambda ax: table.plot(ax=ax))
    two = svg.render(lambda ax: table.plot(ax=ax))
    assert one == two
    assert "<dc:date>" not in one and "<metadata>" not in one
    assert one.startswith("<svg") and 'width="100%"' in one and "viewBox" in one


def test_markdown_report_structure(startup):
    md = startup.to_markdown()
    assert md.startswith("# Startup: a 7B model")
    assert "## Summary" in md and "## Sources" in md and "## 2. Schedule and cost" in md
    assert "| Compute | `n_gpus_whole_nodes` | **64 GPU** |" in md
    assert "(used as `n_gpus` from here on)" in md
    assert "| `n_gpus` | 64 GPU | answer of Compute (n_gpus_whole_nodes) |" in md


def test_latex_report_maps_each_derivations_symbols_to_names(startup):
    """The LaTeX and PDF reports print symbols (C = k·N·D) where the givens table and the
    summary print names: each derivation ends with a legend of the two."""
    tex = startup.to_latex()
    legends = re.findall(r"Symbols: (.*)", tex)
    assert len(legends) == len(startup.sections) == 3
    first = legends[0]
    for symbol, name in (
        ("C", "train\\_compute"),
        ("k", "flop\\_per\\_param\\_token"),
        ("N", "params"),
        ("D", "tokens"),
        ("P_{\\mathrm{peak}}", "peak\\_flops"),
    ):
        assert f"${symbol}$ \\texttt{{{name}}}" in first
    # the legend sits after the derivation, before what the result hangs on
    assert tex.index("Symbols:") < tex.index("hangs on}")


def test_latex_escapes_and_translates_unicode():
    from napkinmath.scenario.report_latex import tex

    assert (
        tex("50% of $5 & #1_x {y} ~ ^")
        == r"50\% of \$5 \& \#1\_\allowbreak{}x \{y\} \textasciitilde{} \textasciicircum{}"
    )
    assert (
        tex("7×10⁹ param·token ≤ 3 ✓")
        == r"7\ensuremath{\times}10\ensuremath{^{9}} param\ensuremath{\cdot}token "
        r"\ensuremath{\le} 3 \ensuremath{\checkmark}"
    )
    assert tex("naïve 日本") == "naive [U+65E5][U+672C]"
    assert all(ord(c) < 128 for c in tex("µs — “quoted” ⌈x⌉ 10⁻³ ≈ ∞"))


HOSTILE = {
    "title": "Plan & co: 100% of $budget_#1 {ü} ~ ^ \\end{document} 日本 ✓",
    "notes": "Notes with <script>alert(1)</script> & \\input{/etc/passwd} ⌈x⌉",
    "givens": {"arrival_rate": "50 request/s", "time_in_system": "2 s"},
    "sections": [{"title": "Queue <b>& co</b> 50% $x$", "ask": "requests_in_flight"}],
}


def test_hostile_text_is_escaped_in_every_format():
    p = nm.plan(HOSTILE)
    page = p.to_html()
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>&" not in page
    latex = p.to_latex()
    assert all(ord(c) < 128 for c in latex)
    assert latex.count("\\end{document}") == 1  # the title's is escaped
    assert "\\textbackslash{}end\\{document\\}" in latex
    assert "\\input{/etc" not in latex


def test_pdf_compiles_and_is_byte_identical(tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: apt-get install texlive-latex-recommended")
    p = nm.plan(ROOT / "examples" / "llama-70b-serving.toml")
    first, second = p.to_pdf(tmp_path / "a.pdf"), p.to_pdf(tmp_path / "b.pdf")
    data = first.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 20_000
    assert data == second.read_bytes()
    hostile = nm.plan(HOSTILE).to_pdf(tmp_path / "hostile.pdf")
    assert hostile.read_bytes().startswith(b"%PDF")


def test_pdf_without_pdflatex_says_so(monkeypatch, tmp_path, startup):
    from napkinmath.scenario import report_latex

    monkeypatch.setattr(report_latex.shutil, "which", lambda name: None)
    with pytest.raises(nm.InputError, match="pdflatex is not installed"):
        startup.to_pdf(tmp_path / "x.pdf")


def test_headless_chromium_renders_math_and_plots(tmp_path):
    plan_screenshot = helpers.plan_screenshot()
    try:
        files = plan_screenshot.shoot(EXAMPLE, tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("chromium did not finish within its timeout")
    dom = files["dom"].read_text(encoding="utf-8")
    # the browser parsed MathML and SVG elements (not text): they are in its DOM
    assert dom.count("<math") >= 10 and "<mfrac>" in dom
    assert dom.count("<svg") == 3
    for shot in ("desktop", "phone"):
        png = files[shot].read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 50_000
    from PIL import Image  # matplotlib depends on Pillow

    with Image.open(files["phone"]) as image:
        assert image.size == (390, 2400)


def test_html_and_pdf_without_matplotlib_are_written_without_plots_and_say_so(
    napkin, tmp_path, monkeypatch
):
    """A wheel installed without the 'plot' extra (issue 20: exit 3, No module named
    'matplotlib'): the report is written, its tables carry the numbers, a note says why the
    plots are missing and how to have them."""
    from napkinmath.scenario import report_latex

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    out = tmp_path / "p.html"
    status, stdout, err = napkin("plan", str(EXAMPLE), "-o", str(out))
    assert status == 0, err
    assert "without its plots: matplotlib is not installed" in err and stdout == ""
    page = out.read_text(encoding="utf-8")
    assert "<svg" not in page and "Plots are left out of this report" in page
    assert page.count("Plot left out") == 3  # two tornado charts and the sweep
    assert "pip install &#x27;napkinmath[plot]&#x27;" in page
    checker = Checker()
    checker.feed(page)
    assert not checker.problems and not checker.stack
    # a PDF: pdflatex (here a stand-in that keeps the LaTeX it is given) is run on a
    # document that includes no figure and says why
    fake = tmp_path / "pdflatex"
    fake.write_text("#!/bin/sh\ncp plan.tex plan.pdf\n")
    fake.chmod(0o755)
    monkeypatch.setattr(report_latex, "pdflatex", lambda: str(fake))
    pdf = tmp_path / "p.pdf"
    status, _, err = napkin("plan", str(EXAMPLE), "-o", str(pdf))
    assert status == 0, err
    tex = pdf.read_text(encoding="utf-8")
    assert "includegraphics" not in tex and "Plots are left out of this report" in tex


def test_without_matplotlib_a_report_without_plots_has_no_note(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    answered = nm.plan(
        {
            "title": "t",
            "givens": {"params": "7B", "tokens": "1T"},
            "sections": [{"title": "s", "ask": ["train_compute"]}],
        }
    )
    assert "left out" not in answered.to_html()
