"""The parts of every answer's notebook HTML (`_repr_html_`): one frame and style, escaped
text, a givens table, the derivation with its math as presentation MathML, a symbol legend
and the sources list.

MathML renders natively in the browsers JupyterLab, classic Notebook, VS Code and nbconvert's
HTML run in, with no network. The frame carries `tex2jax_ignore` and `mathjax_ignore` (the
classes MathJax 2 and 3 skip) and no '$' is left in the markup (`esc` writes it `&#36;`),
so a MathJax pass over the page, where there is one, leaves it alone.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from napkinmath.rendering import mathml
from napkinmath.rendering.exprprint import Name
from napkinmath.rendering.result import (
    _step_head,
    explicit,
    leaf_text,
    value_lines,
)
from napkinmath.text.sources import Sources
from napkinmath.text.visible import visible

if TYPE_CHECKING:
    from napkinmath.answer.data import StepRecord
    from napkinmath.answer.result import Result
    from napkinmath.library.declare import Variable

#: the frame's style, scoped to it; tables read left to right (JupyterLab right-aligns them)
CSS = (
    ".napkin{line-height:1.45;max-width:60rem}"
    ".napkin table{border-collapse:collapse;margin:.4rem 0}"
    ".napkin th,.napkin td{border:1px solid #d5dae0;padding:.2rem .5rem;text-align:left;"
    "vertical-align:top}"
    ".napkin th{background:#f4f6f8}"
    ".napkin td.num,.napkin th.num{text-align:right;white-space:nowrap}"
    ".napkin .eq{margin:.1rem 0 .1rem 1rem;overflow-x:auto;overflow-y:hidden}"
    ".napkin .muted,.napkin .legend{color:#5a636c;font-size:.9em}"
    ".napkin .warning{color:#a4161a;font-weight:600}"
    ".napkin .ok{color:#1e6b34}"
    ".napkin ol.steps>li{margin:.5rem 0}"
    ".napkin code{white-space:nowrap}"
)


def esc(text: object) -> str:
    """User or record text for the page: markup characters as entities, invisible and
    control characters shown as escapes, '$' as `&#36;` (never TeX to MathJax)."""
    return html.escape(visible(str(text), keep="\n"), quote=True).replace("$", "&#36;")


def frame(kind: str, parts: Iterable[str]) -> str:
    """The answer's HTML in its frame: `<div class="napkin napkin-KIND ...">` with the style."""
    return (
        f'<div class="napkin napkin-{kind} tex2jax_ignore mathjax_ignore">'
        f"<style>{CSS}</style>\n" + "\n".join(parts) + "\n</div>"
    )


def headline(lines: Iterable[str]) -> list[str]:
    return [f'<p class="answer"><strong>{esc(line)}</strong></p>' for line in lines]


def warnings(found: Iterable[str]) -> list[str]:
    return [f'<p class="warning">Warning: {esc(w)}</p>' for w in found]


def table(headers: list[str], rows: Iterable[list[str]], numeric: Iterable[int] = ()) -> str:
    """A table of escaped cells; the columns in `numeric` align right."""
    right = set(numeric)

    def cell(tag: str, i: int, text: str) -> str:
        return (
            f'<{tag} class="num">{esc(text)}</{tag}>'
            if i in right
            else f"<{tag}>{esc(text)}</{tag}>"
        )

    head = "".join(cell("th", i, h) for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(cell("td", i, c) for i, c in enumerate(r)) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def givens(rows: Iterable[tuple[str, str, str]]) -> str:
    """The givens as a table: the name (code), its value, where it came from."""
    body = "".join(
        f"<tr><td><code>{esc(n)}</code></td><td>{esc(v)}</td><td>{esc(o)}</td></tr>"
        for n, v, o in rows
    )
    return (
        "<table><thead><tr><th>given</th><th>value</th><th>from</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def lines_block(heading: str, lines: Iterable[str]) -> list[str]:
    """A heading and its lines as a list (checks, constraints, set-aside values)."""
    items = [line.strip() for line in lines if line.strip()]
    if not items:
        return []
    return [f"<p>{esc(heading)}</p><ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>"]


def sources_list(sources: Sources) -> list[str]:
    if not sources:
        return []
    return [
        "<p>Sources:</p><ol>"
        + "".join(f'<li value="{n}">{esc(s)}</li>' for n, s in sources.entries())
        + "</ol>"
    ]


def _symbol(name: str) -> str:
    from napkinmath.library.lookup import variables

    var = variables().get(name)
    return mathml.symbol(var.latex, name) if var is not None else mathml.mtext(name)


def _symbol_leaf(node: Name) -> str:
    return _symbol(node.name)


#: a step's value lines as MathML fragments, and a note under them (text, may be "")
Values = Callable[["StepRecord", "Variable"], tuple[list[str], str]]


def point_values(r: Result) -> Values:
    """A plain answer's value lines: the substituted expression (values as text) and the
    result, once when they read the same."""

    def values(step: StepRecord, var: Variable) -> tuple[list[str], str]:
        shown = value_lines(r, step, var)
        result = mathml.mtext(shown[-1])
        if len(shown) == 1:
            return [result], ""

        def leaf(plain: bool) -> Callable[[Name], str]:
            text = leaf_text(r, step, plain=plain)
            return lambda node: mathml.mtext(text(node))

        printer = mathml.MathMLPrinter(leaf(False), substituted=True, plain_leaf=leaf(True))
        return [printer(step.roots[var.name].layout), result], ""

    return values


def spread_values(spread: Callable[[str], str], extra: Callable[[str], str]) -> Values:
    """A what-if's value line: the step's range or percentiles, and where its ends lie."""

    def values(step: StepRecord, var: Variable) -> tuple[list[str], str]:
        return [mathml.mtext(spread(var.name))], extra(var.name).strip()

    return values


def derivation(r: Result, sources: Sources, values: Values, spread: bool = False) -> list[str]:
    """The numbered steps (each formula, a rearranged form, the values) and the symbol
    legend under them."""
    symbols = mathml.MathMLPrinter(_symbol_leaf)
    out = ['<ol class="steps">']
    used: list[str] = []
    for number, step in enumerate(r.steps, 1):
        head = _step_head(number, step, sources).strip()
        head = head.split(". ", 1)[1] if head.startswith(f"{number}. ") else head
        math: list[str] = []
        for f in step.formulas:
            math.append(mathml.block(symbols(f.layouts[0]), symbols(f.layouts[1])))
            used += mathml.names_in(f.layouts)
        below: list[str] = []
        for var in step.unknowns:
            layout = step.roots[var.name].layout
            if not all(explicit(f, var) for f in step.formulas):
                arrow = "<mo>⇒</mo>" + _symbol(var.name)
                math.append(mathml.block(arrow, symbols(layout)))
                used += [var.name, *mathml.names_in(layout)]
            shown, note = values(step, var)
            math += [mathml.block("", m) for m in shown]
            if note:
                below.append(note)
        notes = [f.note for f in step.formulas if f.note and step.rounding]
        notes += [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
        notes += [step.note] if step.note and (not spread or step.cancel) else []
        below += [f"({n})" for n in notes]
        out.append(
            f"<li><strong>{esc(head)}</strong>"
            + "".join(math)
            + "".join(f'<div class="muted">{esc(b)}</div>' for b in below)
            + "</li>"
        )
    out.append("</ol>")
    return [*out, *legend(used)]


def legend(names: Iterable[str]) -> list[str]:
    """Each symbol of the derivation beside its variable's name (what you pass to solve)."""
    seen = list(dict.fromkeys(names))
    if not seen:
        return []
    items = "; ".join(f"<math>{_symbol(n)}</math> <code>{esc(n)}</code>" for n in seen)
    return [f'<p class="legend">Symbols: {items}</p>']
