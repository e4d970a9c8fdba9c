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
from napkinmath.scenario.answer import Plan, SectionAnswer
from napkinmath.scenario.figures import Figures
from napkinmath.scenario.optimizing import can_plot as can_plot_optimization
from napkinmath.scenario.optimizing import draw, nothing_fits
from napkinmath.scenario.svg import LEFT_OUT, can_plot, wants_plots
from napkinmath.scenario.walk import PlanPrinter, by_section, walk
from napkinmath.text.visible import visible

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_\allowbreak{}",
    "/": r"/\allowbreak{}",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
#: characters napkinmath writes, as commands valid in text and in math mode
_UNICODE = {
    "×": r"\ensuremath{\times}",
    "·": r"\ensuremath{\cdot}",
    "÷": r"\ensuremath{\div}",
    "−": "-",
    "–": "--",
    "—": "---",
    "…": r"\ldots{}",
    "±": r"\ensuremath{\pm}",
    "≤": r"\ensuremath{\le}",
    "≥": r"\ensuremath{\ge}",
    "≈": r"\ensuremath{\approx}",
    "≠": r"\ensuremath{\neq}",
    "→": r"\ensuremath{\to}",
    "⇒": r"\ensuremath{\Rightarrow}",
    "←": r"\ensuremath{\leftarrow}",
    "✓": r"\ensuremath{\checkmark}",
    "✗": "X",
    "µ": r"\ensuremath{\mu}",
    "μ": r"\ensuremath{\mu}",
    "°": r"\ensuremath{^\circ}",
    "√": r"\ensuremath{\surd}",
    "∞": r"\ensuremath{\infty}",
    "⌈": r"\ensuremath{\lceil}",
    "⌉": r"\ensuremath{\rceil}",
    "⌊": r"\ensuremath{\lfloor}",
    "⌋": r"\ensuremath{\rfloor}",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "€": "EUR",
    "£": "GBP",
    "§": r"\ensuremath{\S}",  # math: the text one is a bitmap without Latin Modern
    "Ψ": r"\ensuremath{\Psi}",
    "λ": r"\ensuremath{\lambda}",
    "ρ": r"\ensuremath{\rho}",
    "σ": r"\ensuremath{\sigma}",
    "α": r"\ensuremath{\alpha}",
    "β": r"\ensuremath{\beta}",
    "\u2009": r"\,",
    "\u00a0": "~",
    "\u202f": r"\,",
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


def render(plan: Plan, figures: Figures | None = None) -> str:
    """The report as a LaTeX document; with `figures` (PDF), the sweep plots, tornado and
    waterfall charts and optimization plots are drawn into it and included by its paths."""
    return walk(plan, LatexPrinter(plan, figures))


_PREAMBLE = [
    r"\documentclass[11pt]{article}",
    # scalable fonts: Latin Modern (Debian: lmodern) where installed, else Computer Modern
    # in its own encoding (OT1, its bullet from math: the text one is a TS1 bitmap), both
    # Type 1; T1 without Latin Modern would be bitmaps (Type 3)
    r"\IfFileExists{lmodern.sty}{\usepackage[T1]{fontenc}\usepackage{lmodern}}"
    r"{\renewcommand{\labelitemi}{\ensuremath{\bullet}}}",
    r"\usepackage[margin=2cm]{geometry}",
    r"\usepackage{amsmath,amssymb}",
    r"\usepackage{graphicx}",
    r"\usepackage{array,longtable}",
    r"\usepackage[hidelinks]{hyperref}",
    r"\pdftrailerid{}",
    r"\setlength{\parindent}{0pt}",
    r"\setlength{\parskip}{4pt}",
    r"\allowdisplaybreaks",
    # a heading is kept with what follows it: a new page if less than #1 is left on this one
    r"\makeatletter",
    r"\newcommand{\keep}[1]{\par\begingroup\dimen@=#1\relax\dimen@ii=\pagegoal"
    r"\advance\dimen@ii-\pagetotal\ifdim\dimen@>\dimen@ii\ifdim\dimen@ii>\z@\vfil\fi"
    r"\break\fi\endgroup}",
    r"\makeatother",
    r"\newcolumntype{L}[1]{>{\raggedright\arraybackslash}p{#1}}",
]
#: the room a heading needs below it on its page (else it starts the next one)
_KEEP = {"\\section": r"\keep{8\baselineskip}", "\\subsection": r"\keep{6\baselineskip}"}
_KEEP["\\paragraph"] = r"\keep{4\baselineskip}"


def _kept(line: str) -> str:
    """A line that starts with a heading, after the command that keeps it off a page's foot."""
    for head, keep in _KEEP.items():
        if line.startswith(head):
            return keep + line
    return line


def _itemize(items: list[str]) -> list[str]:
    """A list of already-escaped items."""
    return [r"\begin{itemize}", *[f"  \\item {item}" for item in items], r"\end{itemize}"]


class LatexPrinter(PlanPrinter):
    """Sections and longtables; each step as an align* of the variables' own symbols."""

    def __init__(self, plan: Plan, figures: Figures | None) -> None:
        from napkinmath.library.print_layout import Printer

        super().__init__(plan)
        #: the report is written without its plots where matplotlib is missing, and says so
        self.plots_left_out = figures is not None and wants_plots(plan) and not can_plot()
        #: the plots drawn, or None for none
        self.figures = None if self.plots_left_out else figures
        self.symbol = Printer(parts.latex_symbol, style="latex")
        #: the variables printed as symbols in the derivation being written, for its legend
        self.used: list[str] = []

    def finish(self, lines: list[str]) -> str:
        return "\n".join(_kept(line) for line in lines)

    def cited(self, text: str, source: str) -> str:
        return f"{tex(text)} {tex(self.numbered.cite(source))}" if source else tex(text)

    def figure(self, draw, stem: str) -> list[str]:
        """A plot drawn by `draw(ax)` as the figures' next `stem-N.pdf`, included."""
        assert self.figures is not None
        name = self.figures.add(stem, draw)
        return [
            f"\\begin{{center}}\\includegraphics[width=0.8\\linewidth]{{{name}}}"
            r"\end{center}"
        ]

    def title(self, plan: Plan) -> list[str]:
        out = [
            *_PREAMBLE,
            # the PDF's own Title and Subject (hyperref spells the escaped text as a PDF string)
            f"\\hypersetup{{pdftitle={{{tex(plan.title)}}},"
            "pdfsubject={napkinmath plan report},pdfcreator={napkinmath}}",
            f"\\title{{{tex(plan.title)}}}",
            r"\date{}",
            r"\begin{document}",
            r"\maketitle",
        ]
        if plan.scenario.notes.strip():
            out.append(tex(plan.scenario.notes.strip(), paragraphs=True))
        if self.plots_left_out:
            out.append(f"\\par\\textbf{{Note:}} {tex(LEFT_OUT)}")
        return out

    def summary(self, lines: list[parts.Line]) -> list[str]:
        out = [
            r"\section*{Summary}",
            r"\begin{longtable}{L{0.62\linewidth}r}",
            r"\textbf{answer} & \textbf{value} \\ \hline",
        ]
        for section, run in by_section(lines):
            # \\* : no page break between a section's name and its first answer
            out.append(f"\\multicolumn{{2}}{{l}}{{\\textit{{{tex(section)}}}}} \\\\*")
            out += [
                f"\\texttt{{{tex(line.name)}}}: {tex(line.meaning)}"
                f"{f' ({tex(line.fed)})' if line.fed else ''} & "
                f"\\textbf{{{tex(line.value)}}} \\\\"
                for line in run
            ]
        return [*out, r"\end{longtable}"]

    def status(self, text: str) -> list[str]:
        return [tex(text)]

    def warnings(self, warnings: list[str]) -> list[str]:
        if not warnings:
            return [r"\par No warnings."]
        return _itemize([f"\\textbf{{Warning:}} {tex(w)}" for w in warnings])

    def section(self, number: int, s: SectionAnswer) -> list[str]:
        out = [f"\\section{{{tex(s.title)}}}"]
        if s.section.notes.strip():
            out.append(tex(s.section.notes.strip(), paragraphs=True))
        return out + [f"\\par\\textbf{{{tex(line)}}}" for line in s.answer.headline()]

    def givens(self, rows: list[parts.Row]) -> list[str]:
        return [
            r"\subsection*{Given}",
            r"\begin{longtable}{L{0.27\linewidth}L{0.2\linewidth}L{0.45\linewidth}}",
            r"\textbf{given} & \textbf{value} & \textbf{from} \\ \hline",
            *[
                f"\\texttt{{{tex(r.name)}}} & {tex(r.value)} & "
                f"{self.cited(r.origin, r.source)} \\\\"
                for r in rows
            ],
            r"\end{longtable}",
        ]

    def derivation(self, s: SectionAnswer) -> list[str]:
        out = [r"\subsection*{Derivation}"]
        if parts.centre_note(s):
            out.append(tex(parts.centre_note(s)))
        if not s.result.steps:
            out.append("None needed: every question is a given or a record value.")
        return out

    def step(self, s: SectionAnswer, step: parts.Step) -> list[str]:
        from napkinmath.rendering.mathml import names_in

        symbol = self.symbol
        self.used += [n for f in step.formulas for n in names_in(f.layouts)]
        rows = [
            f"  {_math(symbol(f.layouts[0]))} &= {_math(symbol(f.layouts[1]))}"
            for f in step.formulas
        ]
        for solved in step.solved:
            if not solved.explicit:
                rows.append(
                    f"  \\Rightarrow {_math(solved.var.latex)} &= {_math(symbol(solved.layout))}"
                )
            rows += [
                f"  &= {_math(line)}"
                for line in s.result._value_lines(step.record, solved.var, "latex")
            ]
        cite = self.numbered.cite(*step.sources)
        return [
            f"\\paragraph{{{step.number}. {tex(step.head)} {tex(cite)}}}",
            r"\begin{align*}",
            " \\\\\n".join(rows),
            r"\end{align*}",
            *[f"\\par{{\\small {tex(note)}}}" for note in step.notes],
        ]

    def derivation_end(self) -> list[str]:
        """The symbols of the derivation beside the names the givens table and the summary
        print (`C` train_compute), one legend per derivation."""
        from napkinmath.rendering.typeset import latex_legend

        used, self.used = self.used, []
        return [f"\\par{line}" for line in latex_legend(used)]

    def notes(self, notes: list[str]) -> list[str]:
        return [f"\\par{{\\small Note: {tex(n)}}}" for n in notes]

    def section_constraints(self, heading: str, limits: list[tuple[bool, str]]) -> list[str]:
        return [f"\\subsection*{{{tex(heading)}}}", *_itemize([tex(line) for _, line in limits])]

    def sensitivity(self, sens) -> list[str]:
        out = [
            f"\\subsection*{{What \\texttt{{{tex(sens.target)}}} hangs on}}",
            _table(sens.to_table()),
        ]
        if self.figures is not None:
            out += self.figure(lambda ax: sens.plot(ax=ax), "tornado")
        return out

    def gap(self, budget) -> list[str]:
        header = budget.header()
        rows = [
            f"{tex(term)} & {tex(time)} & {tex(share)} & {tex(evidence)} \\\\"
            for term, time, share, evidence in budget.rows()
        ]
        out = [
            r"\subsection*{Gap budget: the measured step against its parts}",
            f"{tex(header[0])}. {tex(header[1])}.",
            "",
            r"\begin{tabular}{lrrl}",
            r"term & time & share of gap & evidence \\ \hline",
            *rows,
            r"\end{tabular}",
            "",
            *_itemize([f"{tex(line.term)}: {tex(line.source)}" for line in budget.lines]),
        ]
        if self.figures is not None:
            out += self.figure(budget.draw, "gap")
        return out

    def checks(self, checks: list) -> list[str]:
        return [
            r"\section*{Consistency of the givens}",
            "Over-determined givens, checked once for the whole file:",
            *_itemize([f"{tex(f.line())} ({tex(', '.join(f.sections))})" for f in checks]),
        ]

    def constraints(self, constraints: list) -> list[str]:
        return [
            r"\section*{Constraints}",
            *_itemize(
                [
                    f"{self.cited(f.line(), parts.constraint_source(f))} "
                    f"({tex(', '.join(f.sections))})"
                    for f in constraints
                ]
            ),
        ]

    def sweep(self, number: int, spec, table) -> list[str]:
        out = [f"\\section*{{Sweep: {tex(spec.title)}}}"]
        if self.figures is not None:
            try:
                out += self.figure(lambda ax: table.plot(ax=ax), "sweep")
            except InputError as exc:  # a plot that cannot be drawn (too many lines)
                out.append(f"Plot left out: {tex(str(exc))}")
        return [*out, _table(table)]

    def comparison(self, number: int, spec, comparison) -> list[str]:
        return [f"\\section*{{Comparison: {tex(spec.title)}}}", _table(comparison.to_table())]

    def optimization(self, number: int, done, v) -> list[str]:
        out = [
            f"\\section*{{Optimization: {tex(done.title)}}}",
            f"\\textbf{{Goal:}} {tex(v.goal)}. {tex(v.searched)}",
            _rows(["decision", "domain"], [[n, t] for n, t in v.domains], code=True),
        ]
        if v.limits:
            out += [r"\par Constraints:", *_itemize([tex(x) for x in v.limits])]
        if not v.best:
            out.append(f"\\par\\textbf{{{tex(nothing_fits(done))}}}")
            if v.ruled_out:
                out.append(_rows(["ruled out by", "candidates"], [list(r) for r in v.ruled_out]))
            if v.closest:
                out.append(f"\\par Closest: {tex(v.closest)}")
                if v.closest_violations:
                    out += _itemize([tex(w) for w in v.closest_violations])
        else:
            got = ", ".join(f"{o} = {value}" for o, value in v.objectives)
            out.append(f"\\par\\textbf{{Best: {tex(v.best + (': ' + got if got else ''))}}}")
            items = [f"binding: {tex(', '.join(v.binding))}"] if v.binding else []
            items += [f"exact boundary: {tex(b)}" for b in v.boundaries]
            items += [tex(f"✓ {line}") for line in v.at_best]
            if items:
                out += _itemize(items)
        if self.figures is not None and can_plot_optimization(done):
            out += self.figure(lambda ax: draw(done, ax), "optimization")
        if v.neighbours:
            out += [
                r"\subsection*{Neighbours (one step in one decision)}",
                _rows(["neighbour", "verdict"], [[p, verdict] for p, verdict, _ in v.neighbours]),
            ]
        if v.pareto:
            out += [r"\subsection*{Pareto front (none better in both)}", _rows(v.headers, v.pareto)]
        if v.per_record:
            out += [
                r"\subsection*{Each record at its own best}",
                _rows(["#", "record", "candidate", "objectives"], v.per_record),
            ]
        if v.runners_up:
            out += [r"\subsection*{Runners-up}", _rows(["#", *v.headers], v.runners_up)]
        return out + [f"\\par{{\\small Note: {tex(n)}}}" for n in v.notes]

    def optimization_best(self, done) -> list[str]:
        return [r"\subsection*{The best candidate's derivation}"]

    def assumptions(self, assumed: list[tuple[str, str]]) -> list[str]:
        return [
            r"\section*{Assumptions}",
            *_itemize([f"\\texttt{{{tex(n)}}}: {tex(a)}" for n, a in assumed]),
        ]

    def sources(self, entries: list[tuple[int, str]]) -> list[str]:
        if not entries:  # an empty description list does not compile
            return [r"\end{document}"]
        return [
            r"\section*{Sources}",
            r"\begin{description}",
            *[f"  \\item[{{[{n}]}}] {tex(source)}" for n, source in entries],
            r"\end{description}",
            r"\end{document}",
        ]


def _table(table) -> str:
    """A what-if Table as a longtable, from its own cells; a row that does not fit in bold.
    Its prose columns (a comparison's values used and sources) are a list under the grid, as
    the HTML report shows them: as columns, ten to a line, each would be a sliver and each
    row a page tall."""
    cells = table._cells()
    grid, labels, items = table.html_parts(cells)
    # every column wraps in its share of the line, less its padding
    width = f"\\dimexpr {0.98 / len(grid):.3f}\\linewidth-2\\tabcolsep\\relax"
    columns = "".join(
        f"L{{{width}}}"
        if table.columns[i].is_labels
        else f">{{\\raggedleft\\arraybackslash}}p{{{width}}}"
        for i in grid
    )
    lines = [
        f"{{\\footnotesize\\begin{{longtable}}{{{columns}}}",
        " & ".join(f"\\textbf{{{tex(table.headers[i])}}}" for i in grid) + r" \\ \hline",
    ]
    for row, bad in zip(cells, table._infeasible(), strict=True):
        shown = [f"\\textbf{{{tex(row[i])}}}" if bad and row[i] else tex(row[i]) for i in grid]
        lines.append(_unbracketed(" & ".join(shown)) + r" \\")
    lines.append(r"\end{longtable}}")
    if labels:
        lines += _prose_list(labels, items)
    if table.notes:
        lines.append(f"{{\\small {tex(' '.join(table.notes))}}}")
    return "\n".join(lines)


def _prose_list(labels: list[str], items: list[list[tuple[str, str]]]) -> list[str]:
    """The prose cells of a table's rows as a numbered list, one item per row in the grid's
    order: the row's label in bold, then each cell on a line of its own after its header."""
    out = [r"{\small\raggedright\begin{enumerate}"]
    for label, row in zip(labels, items, strict=True):
        said = [f"\\textit{{{tex(header)}:}} {tex(text)}" for header, text in row]
        out.append("  \\item " + r"\newline ".join([f"\\textbf{{{tex(label)}}}", *said]))
    return [*out, r"\end{enumerate}\par}"]


def _rows(headers: list[str], rows: list[list[str]], code: bool = False) -> str:
    """A longtable of plain-text headers and cells, each column wrapping in its
    share of the line; with `code`, the first column in typewriter."""
    width = f"\\dimexpr {0.98 / len(headers):.3f}\\linewidth-2\\tabcolsep\\relax"
    lines = [
        f"{{\\footnotesize\\begin{{longtable}}{{{f'L{{{width}}}' * len(headers)}}}",
        " & ".join(f"\\textbf{{{tex(h)}}}" for h in headers) + r" \\ \hline",
    ]
    for row in rows:
        cells = [f"\\texttt{{{tex(c)}}}" if code and i == 0 else tex(c) for i, c in enumerate(row)]
        lines.append(_unbracketed(" & ".join(cells)) + r" \\")
    lines.append(r"\end{longtable}}")
    return "\n".join(lines)


#: pdflatex runs no shell command (\\write18) and stops at the first error, whatever the
#: local TeX configuration says
PDFLATEX_OPTIONS = ("-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error")


def pdflatex_env() -> dict[str, str]:
    """The environment pdflatex runs in: the report's fixed dates, and kpathsea's settings
    (which the environment overrides texmf.cnf with) that allow no shell escape and reading
    and writing only inside the working folder: no absolute path, no parent folder, no dot
    file, not /etc/passwd through \\input."""
    return {
        **os.environ,
        "SOURCE_DATE_EPOCH": "0",
        "FORCE_SOURCE_DATE": "1",
        "shell_escape": "f",
        "openin_any": "p",
        "openout_any": "p",
    }


def pdflatex() -> str | None:
    """The pdflatex on PATH, or None."""
    return shutil.which("pdflatex")


def write_pdf(plan: Plan, path: Path) -> Path:
    """Compile the report with pdflatex (twice, for long tables) into `path`."""
    program = pdflatex()
    if program is None:
        raise InputError(
            f"cannot write {path.name}: pdflatex is not installed (Debian: "
            "apt-get install texlive-latex-recommended); write .tex, .html or "
            ".md instead"
        )
    with tempfile.TemporaryDirectory(prefix="napkin-plan-") as folder:
        work = Path(folder)
        figures = Figures("pdf")
        (work / "plan.tex").write_text(render(plan, figures) + "\n", encoding="utf-8")
        for name, data in figures.files.items():
            (work / name).write_bytes(data)
        for _ in range(2):
            done = subprocess.run(
                [program, *PDFLATEX_OPTIONS, "plan.tex"],
                cwd=work,
                env=pdflatex_env(),
                capture_output=True,
                text=True,
                errors="replace",
                timeout=120,
                check=False,
            )
            if done.returncode != 0:
                log = (
                    (work / "plan.log").read_text(errors="replace")
                    if (work / "plan.log").exists()
                    else done.stdout
                )
                errors = [line for line in log.splitlines() if line.startswith("!")]
                raise InputError(
                    f"pdflatex could not compile the report: "
                    f"{'; '.join(errors[:3]) or 'see its log'}"
                )
        shutil.copyfile(work / "plan.pdf", path)
    return path
