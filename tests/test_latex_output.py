"""LaTeX output: pdflatex compiles an answer of every formula in the library; the fragment
carries the headline answer and numbered sources; the math-only form is one $$ block.

The compile test needs pdflatex (Debian: texlive-latex-base texlive-latex-recommended) and
skips, saying so, where it is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from latex_answers import answers

import napkinmath as nm
from napkinmath.catalog.lookup import formulas


def _all_answers_document() -> tuple[str, list[tuple[int, str]]]:
    """One document with every answer, and the line where each answer starts."""
    from napkinmath.text.latex import PREAMBLE

    lines = PREAMBLE.split("\n")
    starts: list[tuple[int, str]] = []
    seen: set[int] = set()
    for name, r in sorted(answers().items()):
        if id(r) in seen:
            continue
        seen.add(id(r))
        starts.append((len(lines) + 1, name))
        lines.append(f"\\section*{{{name.replace('_', chr(92) + '_')}}}")
        lines += r.to_latex().split("\n")
        lines.append(r"\clearpage")
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n", starts


def test_every_formula_has_an_answer_and_its_latex_is_plain_ascii():
    """Unicode (λ, ρ, ≃, µ, ×) in notes, units or symbols is spelled as LaTeX commands."""
    found = answers()
    assert sorted(found) == sorted(formulas())
    for name, r in found.items():
        text = r.to_latex()
        odd = sorted({c for c in text if not c.isascii()})
        assert not odd, f"{name}: characters pdflatex cannot typeset: {odd}"
        # 10⁻⁵ as ^{-5}: TeX refuses ^{-}^{5} or $^{-} ^{5}$ as a double superscript
        assert not re.search(r"\^\{[^{}]*\}\s*\^", text), name
        assert "\\noindent\\textbf{Answer:}" in text.split("\n")[0]


def test_pdflatex_compiles_an_answer_of_every_formula(tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip(
            "pdflatex not installed: apt-get install -y --no-install-recommends "
            "texlive-latex-base texlive-latex-recommended"
        )
    source, starts = _all_answers_document()
    (tmp_path / "answers.tex").write_text(source, encoding="ascii")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "answers.tex"],
        cwd=tmp_path,
        capture_output=True,
        encoding="latin-1",
        timeout=600,
        check=False,
    )
    if run.returncode != 0:
        at = re.search(r"^l\.(\d+)", run.stdout, re.MULTILINE)
        line = int(at.group(1)) if at else 0
        culprit = max((s for s in starts if s[0] <= line), default=(0, "?"))[1]
        errors = [x for x in run.stdout.splitlines() if x.startswith("!")]
        pytest.fail(f"pdflatex failed in the answer for {culprit} (line {line}): {errors}")
    assert (tmp_path / "answers.pdf").stat().st_size > 10_000
    log = (tmp_path / "answers.log").read_text(encoding="latin-1")
    assert "Missing character" not in log  # a glyph the fonts lack would vanish silently


def test_standalone_latex_compiles_with_greek_notes_and_micro(tmp_path):
    """The M/M/c queue answer cites ρ and λ; a µs result and a round-off zero render."""
    r = nm.solve(
        "time_in_queue", prefill_time="0.7 s", generation_time="0.1 s", time_in_system="0.8 s"
    )
    text = r.to_latex(standalone=True)
    assert text.startswith("\\documentclass{article}") and text.endswith("\\end{document}\n")
    assert "round-off: the terms cancel" in text
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed: the compile half of this test needs it")
    (tmp_path / "one.tex").write_text(text, encoding="ascii")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "one.tex"],
        cwd=tmp_path,
        capture_output=True,
        encoding="latin-1",
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:]


def test_latex_has_headline_percent_and_numbered_sources():
    r = nm.solve("mfu", params="405B", tokens="15.6T", gpu_hours="30.84e6 GPU*h", gpu="H100")
    text = r.to_latex()
    # 6 × 405e9 × 15.6e12 = 3.7908e25 FLOP; / (30.84e6 h × 3600 s/h × 989.5e12) = 0.34506
    assert text.startswith("\\noindent\\textbf{Answer:} $\\mathrm{MFU} = 34.51\\%$")
    assert "\\paragraph{Sources}" in text
    assert "\\item[{[1]}] NVIDIA H100 Tensor Core GPU datasheet (2023-06)" in text
    assert "\\paragraph{1. Training compute, 6ND rule} [2]" in text


def test_math_only_form_is_one_display_block_for_ipython():
    r = nm.solve(
        "goodput", checkpoint_overhead=0.036, lost_time_per_failure="20 min", mtbf="3.09 h"
    )
    math = r.to_latex(math_only=True)
    assert math == r._repr_latex_()
    assert math.startswith("$$\\begin{aligned}") and math.endswith("\\end{aligned}$$")
    # 1 − 0.036 − (20 min / 185.4 min) = 1 − 0.036 − 0.10787 = 0.85613
    assert "f_{goodput} &= 85.61\\%" in math or "= 85.61\\%" in math
    assert "\\paragraph" not in math and "\\item" not in math
    assert all(c.isascii() for c in math)


def test_digits_changes_the_text_not_the_value():
    r = nm.solve("mfu", params="405B", tokens="15.6T", gpu_hours="30.84e6 GPU*h", gpu="H100")
    assert r.to_latex(digits=2).startswith("\\noindent\\textbf{Answer:} $\\mathrm{MFU} = 35\\%$")
    assert r.value.magnitude == pytest.approx(0.345063, rel=1e-5)


def test_latex_maps_each_symbol_it_derives_to_the_name_you_pass_to_solve():
    r = nm.solve("n_gpus", params="7B", tokens="1T", train_time="3 weeks", mfu=0.4, gpu="H100")
    text = r.to_latex()
    legend = next(line for line in text.split("\n") if "Symbols:" in line)
    # the intermediates and targets, each symbol beside its name; givens are named in their list
    assert r"$C$ \texttt{train\_compute}" in legend
    assert r"$n$ \texttt{n\_gpus}" in legend
    assert "params" not in legend and r"\texttt{params}" in text
    assert text.index("Symbols:") > text.index(r"\paragraph{1.")
