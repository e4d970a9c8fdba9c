"""A Result as Markdown, LaTeX (pdflatex-safe) and HTML with MathML math for notebooks.

Each renderer numbers long citations in a sources list at its end (`Sources`), shows values
as `Result._fmt` does (percent, 11.06M USD, `digits`) and prints a substituted line only when
it differs from the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from napkinmath import arguments
from napkinmath.library.print_layout import Name, Printer
from napkinmath.rendering.mathml import names_in
from napkinmath.rendering.result import (
    checks_text,
    equation_text,
    explicit,
    extra_text,
    layer_table_rows,
    layer_table_total,
    origin_text,
    set_aside_text,
    unused_text,
    value_lines,
)
from napkinmath.text import latex as tex
from napkinmath.text.latex import document as latex_document
from napkinmath.text.sources import Sources

if TYPE_CHECKING:
    from napkinmath.answer.result import Result


def _latex_symbol(symbol: Name) -> str:
    from napkinmath.catalog.lookup import variables

    return variables()[symbol.name].latex


def _head(step) -> str:
    return " + ".join(f.title for f in step.formulas)


# --- Markdown -------------------------------------------------------------------------------
def markdown(r: Result) -> str:
    """Every piece of text escaped for Markdown (`napkinmath.text.escape`): a record's
    source or note cannot add HTML, a link, an image or a control character."""
    from napkinmath.text.escape import md_code as code
    from napkinmath.text.escape import md_inline as md

    sources = Sources()
    out = [f"**{md(line)}**  " for line in r.headline()]
    out += [f"> **Warning:** {md(w)}  " for w in r.warnings]
    out += ["", "| given | value | from |", "|---|---|---|"]
    for name, given in r.givens.items():
        origin = origin_text(given, sources)
        out.append(
            f"| {code(name, True)} | {md(r._fmt(given.quantity, given.variable))} | {md(origin)} |"
        )
    if r.unused:
        out += ["", f"*{md(unused_text(r))}*"]
    out.append("")
    for number, step in enumerate(r.steps, 1):
        cited = sources.cite(*(f.source for f in step.formulas))
        out.append(f"{number}. **{md(_head(step))}** {md(cited)}")
        for f in step.formulas:
            out.append(f"   - {code(equation_text(f))}")
        for var in step.unknowns:
            expr = step.roots[var.name].layout
            if not all(explicit(f, var) for f in step.formulas):
                out.append(
                    f"   - solved for {code(var.name)}: "
                    f"{code(var.name + ' = ' + Printer(lambda s: s.name)(expr))}"
                )
            out += [f"   - {code('= ' + line)}" for line in value_lines(r, step, var)]
        notes = [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
        notes += [step.note] if step.cancel is not None else []
        out += [f"   - *{md(note)}*" for note in notes]
    if r.layer_table is not None:
        out += ["", "Per layer and micro-batch on one GPU (forward, backward and recompute):", ""]
        out += ["| operator | roof | FLOPs | HBM bytes | time |", "|---|---|--:|--:|--:|"]
        out += [f"| {' | '.join(md(cell) for cell in row)} |" for row in layer_table_rows(r)]
        out += ["", md(layer_table_total(r))]
    if r.set_aside:
        out += ["", "Set aside (your values replace them):", ""]
        out += [
            f"- {md(line.strip())}" if not line.startswith("    ") else f"  - {md(line.strip())}"
            for line in set_aside_text(r)
        ]
    if r.checks:
        out += ["", "Checks:", ""] + [f"- {md(line.strip())}" for line in checks_text(r)]
    if r.constraints:
        out += ["", "Constraints:", ""] + [f"- {md(c.line())}" for c in r.constraints]
    out += [f"\n*Note:* {md(n)}" for n in r.notes]
    if sources:
        out += ["", "Sources:", ""] + [f"- [{n}] {md(s)}" for n, s in sources.entries()]
    return "\n".join(out)


# --- LaTeX ----------------------------------------------------------------------------------
def _headline_math(r: Result) -> list[str]:
    lines = []
    for name in r.targets:
        var = r._var(name)
        lines.append(f"{tex.math(var.latex)} = {tex.math(r._fmt(r._shown(name), var, 'latex'))}")
    return lines


def latex(r: Result, standalone: bool = False) -> str:
    """The LaTeX fragment (`latex_fragment`), or a document pdflatex compiles as is."""
    body = latex_fragment(r)
    return latex_document(body) if arguments.flag(standalone, "standalone") else body


def latex_fragment(r: Result) -> str:
    """A fragment for pdflatex with amsmath: every Unicode character spelled in LaTeX."""
    sources = Sources()
    symbol = Printer(_latex_symbol, style="latex")
    used: list[str] = []
    out = [f"\\noindent\\textbf{{Answer:}} ${line}$\\\\" for line in _headline_math(r)]
    out += [f"\\textbf{{Warning:}} {tex.text(w)}\\\\" for w in r.warnings]
    if r.givens:
        out.append(r"\begin{itemize}")
        for name, given in r.givens.items():
            origin = tex.text(origin_text(given, sources))
            value = tex.math(r._fmt(given.quantity, given.variable, "latex"))
            out.append(
                f"  \\item ${tex.math(given.variable.latex)}$ "
                f"(\\texttt{{{tex.text(name)}}}) $= {value}$ --- {origin}"
            )
        out.append(r"\end{itemize}")
    for number, step in enumerate(r.steps, 1):
        cited = sources.cite(*(f.source for f in step.formulas))
        out.append(f"\\paragraph{{{number}. {tex.text(_head(step))}}} {tex.text(cited)}")
        out.append(r"\begin{align*}")
        rows = [
            f"  {tex.math(symbol(f.layouts[0]))} &= {tex.math(symbol(f.layouts[1]))}"
            for f in step.formulas
        ]
        for var in step.unknowns:
            if not all(explicit(f, var) for f in step.formulas):
                rows.append(
                    f"  \\Rightarrow {tex.math(var.latex)} &= "
                    f"{tex.math(symbol(step.roots[var.name].layout))}"
                )
            rows += [f"  &= {tex.math(line)}" for line in value_lines(r, step, var, "latex")]
        out.append(" \\\\\n".join(rows))
        out.append(r"\end{align*}")
        if step.cancel is not None:
            out.append(f"\\noindent({tex.text(step.note)})")
        used += [n for f in step.formulas for n in names_in(f.layouts)]
    out += latex_legend(used, shown=r.givens)
    extra = [line for line in extra_text(r) if line]
    if extra:
        out.append(r"\begin{itemize}")
        out += [f"  \\item {tex.text(line.strip())}" for line in extra]
        out.append(r"\end{itemize}")
    if sources:
        out.append(r"\paragraph{Sources}")
        out.append(r"\begin{description}")
        out += [f"  \\item[{{[{n}]}}] {tex.text(s)}" for n, s in sources.entries()]
        out.append(r"\end{description}")
    return "\n".join(out)


def latex_legend(names: Iterable[str], shown: Iterable[str] = ()) -> list[str]:
    """Each symbol of a derivation beside the variable's name (what you pass to solve), for
    the symbols whose name is not already printed beside them (`shown`: the givens)."""
    from napkinmath.catalog.lookup import variables

    skip = set(shown)
    seen = [n for n in dict.fromkeys(names) if n not in skip and n in variables()]
    if not seen:
        return []
    items = "; ".join(f"${tex.math(variables()[n].latex)}$ \\texttt{{{tex.text(n)}}}" for n in seen)
    return [f"\\noindent{{\\small Symbols: {items}}}"]


def latex_math(r: Result) -> str:
    """The headline and each step's equations and values as one $$\\begin{aligned}$$ block
    (what IPython.display.Latex and MathJax render)."""
    symbol = Printer(_latex_symbol, style="latex")
    rows = [line.replace("=", "&=", 1) for line in _headline_math(r)]
    for step in r.steps:
        rows += [
            f"{tex.math(symbol(f.layouts[0]))} &= {tex.math(symbol(f.layouts[1]))}"
            for f in step.formulas
        ]
        for var in step.unknowns:
            if not all(explicit(f, var) for f in step.formulas):
                rows.append(
                    f"\\Rightarrow {tex.math(var.latex)} &= "
                    f"{tex.math(symbol(step.roots[var.name].layout))}"
                )
            rows += [f"&= {tex.math(line)}" for line in value_lines(r, step, var, "latex")]
    return "$$\\begin{aligned}" + " \\\\ ".join(rows) + "\\end{aligned}$$"


# --- HTML -----------------------------------------------------------------------------------
def html(r: Result) -> str:
    """HTML for notebooks: the headline, the givens, each step's math as MathML (typeset
    offline, `napkinmath.rendering.notebook`), a symbol legend and the sources."""
    from napkinmath.rendering import notebook as nb
    from napkinmath.text import markup

    sources = Sources()
    out = markup.headline(r.headline()) + markup.warnings(r.warnings)
    out.append(markup.givens(nb.givens_rows(r, None, sources)))
    if r.unused:
        out.append(f'<p class="muted">{markup.esc(unused_text(r))}</p>')
    out += nb.derivation(r, sources, nb.point_values(r))
    if r.layer_table is not None:
        out.append(
            markup.table(
                ["operator", "roof", "FLOPs", "HBM bytes", "time"],
                [list(row) for row in layer_table_rows(r)],
                numeric=(2, 3, 4),
            )
        )
        out.append(f'<p class="muted">{markup.esc(layer_table_total(r))}</p>')
    out += extra_html(r)
    out += markup.sources_list(sources)
    return markup.frame("answer", out)


def extra_html(r: Result) -> list[str]:
    """Set-aside values, checks, constraints and notes, as lists under the derivation."""
    from napkinmath.text import markup as nb

    out: list[str] = []
    if r.set_aside:
        out += nb.lines_block("Set aside (your values replace them):", set_aside_text(r))
    if r.checks:
        out += nb.lines_block("Checks (over-determined givens):", checks_text(r))
    if r.constraints:
        out += nb.lines_block(
            "Constraints (does the plan fit?):", [c.line() for c in r.constraints]
        )
    out += [f'<p class="muted">Note: {nb.esc(n)}</p>' for n in r.notes]
    return out
