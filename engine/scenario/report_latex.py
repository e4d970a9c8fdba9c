"""The plan as a LaTeX document, and as PDF through pdflatex where it is installed.

Text is escaped and every non-ASCII character translated to a LaTeX command (× \\times,
10⁹ ^{9}, ✓ \\checkmark, ...), so the file compiles with a plain pdflatex; equations are
printed from each step's expressions with the variables' own symbols.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import unicodedata
from pathlib import Path

from napkinmath.errors import InputError
from napkinmath.scenario import parts
from napkinmath.scenario.answer import Plan
from napkinmath.scenario.svg import LEFT_OUT, can_plot, wants_plots
from napkinmath.text.visible import visible

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_\allowbreak{}", "/": r"/\allowbreak{}", "{": r"\{", "}": r"\}",
            "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}
#: characters napkinmath writes, as commands valid in text and in math mode
_UNICODE = {
    "×": r"\ensuremath{\times}", "·": r"\ensuremath{\cdot}", "÷": r"\ensuremath{\div}",
    "−": "-", "–": "--", "—": "---", "…": r"\ldots{}", "±": r"\ensuremath{\pm}",
    "≤": r"\ensuremath{\le}", "≥": r"\ensuremath{\ge}", "≈": r"\ensuremath{\approx}",
    "≠": r"\ensuremath{\neq}", "→": r"\ensuremath{\to}", "⇒": r"\ensuremath{\Rightarrow}",
    "←": r"\ensuremath{\leftarrow}", "✓": r"\ensuremath{\checkmark}", "✗": "X",
    "µ": r"\ensuremath{\mu}", "μ": r"\ensuremath{\mu}", "°": r"\ensuremath{^\circ}",
    "√": r"\ensuremath{\surd}", "∞": r"\ensuremath{\infty}", "⌈": r"\ensuremath{\lceil}",
    "⌉": r"\ensuremath{\rceil}", "⌊": r"\ensuremath{\lfloor}", "⌋": r"\ensuremath{\rfloor}",
    "‘": "`", "’": "'", "“": "``", "”": "''", "€": "EUR", "£": "GBP", "§": r"\S{}",
    "Ψ": r"\ensuremath{\Psi}", "λ": r"\ensuremath{\lambda}", "ρ": r"\ensuremath{\rho}",
    "σ": r"\ensuremath{\sigma}", "α": r"\ensuremath{\alpha}", "β": r"\ensuremath{\beta}",
    "\u2009": r"\,", "\u00a0": "~", "\u202f": r"\,",
}
_SUPER = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+", strict=True))
#: one piece of text at a time: a run of superscripts (10⁻³), a blank line, one character
_PIECES = re.compile(f"[{''.join(_SUPER)}]+|\n[ \t]*\n\\s*|.", re.S)


def tex(text: str, paragraphs: bool = False) -> str:
    """Text as LaTeX: specials escaped, Unicode translated, anything else spelled out, so
    that no user text becomes a TeX command. Control characters and bidi overrides are
    shown as escapes first (\\x1b, <U+202E>), as the text report shows them; a blank line
    is a paragraph break with `paragraphs` (notes), a space elsewhere (an argument)."""
    out = []
    for piece in _PIECES.findall(visible(str(text), keep="\n\t")):
        if piece[0] in _SUPER:
            out.append(r"\ensuremath{^{" + "".join(_SUPER[c] for c in piece) + "}}")
        elif len(piece) > 1:  # a blank line
            out.append("\n\n" if paragraphs else " ")
        elif piece in _SPECIAL:
            out.append(_SPECIAL[piece])
        elif ord(piece) < 128:
            out.append(piece)
        elif piece in _UNICODE:
            out.append(_UNICODE[piece])
        else:
            plain = unicodedata.normalize("NFKD", piece).encode("ascii", "ignore").decode()
            out.append(plain or f"[U+{ord(piece):04X}]")
    return "".join(out)


def _unbracketed(latex: str) -> str:
    """A row's first cell that cannot start with `[`: after the row before's \\\\ that would
    open its optional argument (a user's record called "[-1cm]"); an empty group stops it."""
    return "{}" + latex if latex.lstrip().startswith("[") else latex


def _math(text: str) -> str:
    """A LaTeX math string from napkinmath's printers, with stray Unicode translated (as a
    single answer's LaTeX does it)."""
    from napkinmath.text.latex import math

    return math(text)


def render(plan: Plan, figures: Path | None = None) -> str:
    """The report as a LaTeX document; with `figures` (a folder), the sweep plots and the
    sensitivities' tornado charts are saved there as PDF and included."""
    from napkinmath.rendering.exprprint import Printer

    symbol = Printer(parts.latex_symbol, style="latex")
    sources = parts.sources(plan)

    def cited(text: str, source: str) -> str:
        return f"{tex(text)} {tex(sources.cite(source))}" if source else tex(text)

    out = [r"\documentclass[11pt]{article}", r"\usepackage[T1]{fontenc}",
           r"\usepackage[margin=2cm]{geometry}", r"\usepackage{amsmath,amssymb}",
           r"\usepackage{graphicx}", r"\usepackage{array,longtable}",
           r"\usepackage[hidelinks]{hyperref}", r"\pdftrailerid{}",
           r"\setlength{\parindent}{0pt}", r"\setlength{\parskip}{4pt}",
           r"\allowdisplaybreaks", f"\\title{{{tex(plan.title)}}}", r"\date{}",
           r"\begin{document}", r"\maketitle"]
    if plan.scenario.notes.strip():
        out.append(tex(plan.scenario.notes.strip(), paragraphs=True))
    if figures is not None and wants_plots(plan) and not can_plot():
        figures = None  # the report is written without its plots, and says so
        out.append(f"\\par\\textbf{{Note:}} {tex(LEFT_OUT)}")
    out += [r"\section*{Summary}", r"\begin{longtable}{p{0.62\linewidth}r}",
            r"\textbf{answer} & \textbf{value} \\ \hline"]
    current = None
    for line in parts.summary(plan):
        if line.section != current:
            current = line.section
            out.append(f"\\multicolumn{{2}}{{l}}{{\\textit{{{tex(current)}}}}} \\\\")
        fed = f" ({tex(line.fed)})" if line.fed else ""
        out.append(f"\\texttt{{{tex(line.name)}}}: {tex(line.meaning)}{fed} & "
                   f"\\textbf{{{tex(line.value)}}} \\\\")
    out.append(r"\end{longtable}")
    out.append(tex(parts.status(plan)))
    warnings = plan.warnings
    if warnings:
        out += [r"\begin{itemize}"] + [f"  \\item \\textbf{{Warning:}} {tex(w)}"
                                       for w in warnings] + [r"\end{itemize}"]
    else:
        out.append(r"\par No warnings.")
    for s in plan.sections:
        out.append(f"\\section{{{tex(s.title)}}}")
        if s.section.notes.strip():
            out.append(tex(s.section.notes.strip(), paragraphs=True))
        out += [f"\\par\\textbf{{{tex(line)}}}" for line in s.answer.headline()]
        out += [r"\subsection*{Given}", r"\begin{longtable}{p{0.27\linewidth}p{0.2\linewidth}"
                r"p{0.45\linewidth}}", r"\textbf{given} & \textbf{value} & \textbf{from} \\"
                r" \hline"]
        out += [f"\\texttt{{{tex(r.name)}}} & {tex(r.value)} & {cited(r.origin, r.source)} \\\\"
                for r in parts.givens(s)]
        out += [r"\end{longtable}", r"\subsection*{Derivation}"]
        if parts.centre_note(s):
            out.append(tex(parts.centre_note(s)))
        if not s.result.steps:
            out.append("None needed: every question is a given or a record value.")
        for step in parts.steps(s):
            cite = sources.cite(*step.sources)
            out.append(f"\\paragraph{{{step.number}. {tex(step.head)} {tex(cite)}}}")
            out.append(r"\begin{align*}")
            rows = [f"  {_math(symbol(f.equation.lhs))} &= {_math(symbol(f.equation.rhs))}"
                    for f in step.formulas]
            for solved in step.solved:
                if not solved.explicit:
                    rows.append(f"  \\Rightarrow {_math(solved.var.latex)} &= "
                                f"{_math(symbol(solved.expr))}")
                rows += [f"  &= {_math(line)}"
                         for line in s.result._value_lines(step.record, solved.var, "latex")]
            out.append(" \\\\\n".join(rows))
            out.append(r"\end{align*}")
            out += [f"\\par{{\\small {tex(note)}}}" for note in step.notes]
        out += [f"\\par{{\\small Note: {tex(n)}}}" for n in s.result.notes]
        heading, limits = parts.section_constraints(s)
        if limits:
            out += [f"\\subsection*{{{tex(heading)}}}", r"\begin{itemize}"]
            out += [f"  \\item {tex(line)}" for _, line in limits]
            out.append(r"\end{itemize}")
        for sens in s.sensitivities:
            out.append(f"\\subsection*{{What \\texttt{{{tex(sens.target)}}} hangs on}}")
            out.append(_table(sens.to_table()))
            if figures is not None:
                name = f"tornado-{len(list(figures.glob('tornado-*.pdf'))) + 1}.pdf"
                _save_pdf(lambda ax, sens=sens: sens.plot(ax=ax), figures / name)
                out.append(f"\\begin{{center}}\\includegraphics[width=0.8\\linewidth]{{{name}}}"
                           r"\end{center}")
    if plan.checks:
        out += [r"\section*{Consistency of the givens}",
                "Over-determined givens, checked once for the whole file:", r"\begin{itemize}"]
        out += [f"  \\item {tex(f.line())} ({tex(', '.join(f.sections))})" for f in plan.checks]
        out.append(r"\end{itemize}")
    if plan.constraints:
        out += [r"\section*{Constraints}", r"\begin{itemize}"]
        out += [f"  \\item {cited(f.line(), parts.constraint_source(f))} "
                f"({tex(', '.join(f.sections))})" for f in plan.constraints]
        out.append(r"\end{itemize}")
    for i, (spec, table) in enumerate(plan.sweeps, 1):
        out.append(f"\\section*{{Sweep: {tex(spec.title)}}}")
        if figures is not None:
            name = f"sweep-{i}.pdf"
            try:
                _save_pdf(lambda ax, table=table: table.plot(ax=ax), figures / name)
                out.append(f"\\begin{{center}}\\includegraphics[width=0.8\\linewidth]"
                           f"{{{name}}}\\end{{center}}")
            except InputError as exc:  # a plot that cannot be drawn (too many lines)
                out.append(f"Plot left out: {tex(str(exc))}")
        out.append(_table(table))
    for spec, comparison in plan.comparisons:
        out.append(f"\\section*{{Comparison: {tex(spec.title)}}}")
        out.append(_table(comparison.to_table()))
    assumed = parts.assumptions(plan)
    if assumed:
        out += [r"\section*{Assumptions}", r"\begin{itemize}"]
        out += [f"  \\item \\texttt{{{tex(n)}}}: {tex(a)}" for n, a in assumed]
        out.append(r"\end{itemize}")
    out += [r"\section*{Sources}", r"\begin{description}"]
    out += [f"  \\item[{{[{n}]}}] {tex(source)}" for n, source in sources.entries()]
    out += [r"\end{description}", r"\end{document}"]
    return "\n".join(out)


def _table(table) -> str:
    """A what-if Table as a longtable, from its own cells; a row that does not fit in bold."""
    # every column wraps in its share of the line, less its padding
    width = f"\\dimexpr {0.98 / len(table.columns):.3f}\\linewidth-2\\tabcolsep\\relax"
    columns = "".join(f"p{{{width}}}" if c.is_labels else
                      f">{{\\raggedleft\\arraybackslash}}p{{{width}}}" for c in table.columns)
    lines = [f"{{\\footnotesize\\begin{{longtable}}{{{columns}}}",
             " & ".join(f"\\textbf{{{tex(h)}}}" for h in table.headers) + r" \\ \hline"]
    for row, bad in zip(table._cells(), table._infeasible(), strict=True):
        cells = [f"\\textbf{{{tex(c)}}}" if bad and c else tex(c) for c in row]
        lines.append(_unbracketed(" & ".join(cells)) + r" \\")
    lines.append(r"\end{longtable}}")
    if table.notes:
        lines.append(f"{{\\small {tex(' '.join(table.notes))}}}")
    return "\n".join(lines)


def _save_pdf(draw, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    try:
        draw(ax)
        fig.savefig(path, format="pdf", bbox_inches="tight",
                    metadata={"CreationDate": None, "ModDate": None, "Producer": None,
                              "Creator": None})
    finally:
        plt.close(fig)


#: pdflatex runs no shell command (\\write18) and stops at the first error, whatever the
#: local TeX configuration says
PDFLATEX_OPTIONS = ("-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error")


def pdflatex_env() -> dict[str, str]:
    """The environment pdflatex runs in: the report's fixed dates, and kpathsea's settings
    (which the environment overrides texmf.cnf with) that allow no shell escape and reading
    and writing only inside the working folder: no absolute path, no parent folder, no dot
    file, not /etc/passwd through \\input."""
    return {**os.environ, "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1",
            "shell_escape": "f", "openin_any": "p", "openout_any": "p"}


def pdflatex() -> str | None:
    """The pdflatex on PATH, or None."""
    return shutil.which("pdflatex")


def write_pdf(plan: Plan, path: Path) -> Path:
    """Compile the report with pdflatex (twice, for long tables) into `path`."""
    program = pdflatex()
    if program is None:
        raise InputError(f"cannot write {path.name}: pdflatex is not installed (Debian: "
                         "apt-get install texlive-latex-recommended); write .tex, .html or "
                         ".md instead")
    with tempfile.TemporaryDirectory(prefix="napkin-plan-") as folder:
        work = Path(folder)
        (work / "plan.tex").write_text(render(plan, figures=work) + "\n", encoding="utf-8")
        for _ in range(2):
            done = subprocess.run([program, *PDFLATEX_OPTIONS, "plan.tex"], cwd=work,
                                  env=pdflatex_env(), capture_output=True, text=True,
                                  errors="replace", timeout=120, check=False)
            if done.returncode != 0:
                log = (work / "plan.log").read_text(errors="replace") \
                    if (work / "plan.log").exists() else done.stdout
                errors = [line for line in log.splitlines() if line.startswith("!")]
                raise InputError(f"pdflatex could not compile the report: "
                                 f"{'; '.join(errors[:3]) or 'see its log'}")
        shutil.copyfile(work / "plan.pdf", path)
    return path
