"""An answer's derivation as notebook HTML: each step's math as presentation MathML, the
values substituted (a plain answer) or the step's spread (a range or samples), a symbol
legend under it (symbol → the variable's name), and the givens as table rows.

MathML renders natively in the browsers JupyterLab, classic Notebook, VS Code and nbconvert's
HTML run in, with no network; the frame and escaping are `napkinmath.text.markup`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from napkinmath.library.print_layout import Name
from napkinmath.rendering import mathml
from napkinmath.rendering.result import (
    explicit,
    leaf_text,
    origin_text,
    step_head,
    value_lines,
)
from napkinmath.text.markup import esc
from napkinmath.text.sources import Sources

if TYPE_CHECKING:
    from napkinmath.answer.data import StepRecord
    from napkinmath.answer.result import Result
    from napkinmath.library.declare import Variable


def _symbol(name: str) -> str:
    from napkinmath.catalog.lookup import variables

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
        line = mathml.substituted(
            step.roots[var.name].layout, leaf_text(r, step), leaf_text(r, step, plain=True)
        )
        return [line, result], ""

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
        head = step_head(number, step, sources).strip()
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


def givens_rows(
    r: Result, shown: Mapping[str, str] | None = None, sources: Sources | None = None
) -> list[tuple[str, str, str]]:
    """(name, value, where it came from) per given; `shown` replaces some values (spreads)."""
    return [
        (n, (shown or {}).get(n) or r._fmt(g.quantity, g.variable), origin_text(g, sources))
        for n, g in r.givens.items()
    ]


def derivation_html(
    r: Result, spread: Callable[[str], str], extra: Callable[[str], str], sources: Sources
) -> list[str]:
    """A what-if's derivation: each step's math, then its spread and where its ends lie."""
    return derivation(r, sources, spread_values(spread, extra), spread=True)
