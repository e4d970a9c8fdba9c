"""The plan as one self-contained HTML file: no script, no font, no URL.

Math is presentation MathML, which browsers render natively; plots are inline SVG; the page
reads on a phone (viewport, a max width, tables that scroll) and prints (no navigation, steps
kept whole on a page).
"""

from __future__ import annotations

import html
import re

from napkinmath.errors import InputError
from napkinmath.scenario import mathml, parts
from napkinmath.scenario.answer import Plan
from napkinmath.text.visible import visible

CSS = """
:root { color-scheme: light; --ink: #1d2125; --muted: #5a636c; --line: #d5dae0;
  --bad: #a4161a; --good: #1e6b34; --tint: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .25rem; }
p, li { overflow-wrap: anywhere; }
code { font: .9em ui-monospace, "DejaVu Sans Mono", monospace; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .92rem; width: 100%; }
td code { overflow-wrap: anywhere; }
@media (min-width: 40rem) { td code { white-space: nowrap; } }
th.group { background: #e9edf1; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left;
  vertical-align: top; }
th { background: var(--tint); }
td.num { text-align: right; white-space: nowrap; }
.answer { font-weight: 600; }
.warning { color: var(--bad); font-weight: 600; }
.ok { color: var(--good); }
.bad { color: var(--bad); }
.muted, .src { color: var(--muted); font-size: .9rem; }
tr.infeasible td { background: #fde2e2; }
ol.steps > li { margin: .75rem 0; break-inside: avoid; }
.eq { margin: .15rem 0 .15rem 1rem; overflow-x: auto; overflow-y: hidden; padding: .1rem 0; }
math { font-size: 1.05em; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: .9rem; }
@media print {
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  figure, table { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"""


def _e(text: object) -> str:
    """Text for the page: HTML characters as entities, controls and bidi overrides shown
    as escapes (\\x1b, <U+202E>), as the text report shows them."""
    return html.escape(visible(str(text), keep="\n"), quote=True)


_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)


def _uncommented(svg_text: str) -> str:
    """An SVG without the comments matplotlib writes (its labels, escaped): the page has no
    comment at all."""
    return _COMMENT.sub("", svg_text)


def _table(headers: list[str], rows: list[list[str]], numeric: set[int] = frozenset(),
           infeasible: list[bool] | None = None) -> str:
    """A table of already-escaped cells; the rows marked `infeasible` tinted."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    marks = infeasible or [False] * len(rows)
    body = "".join(("<tr class=\"infeasible\">" if bad else "<tr>") + "".join(
        f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
        for i, c in enumerate(row)) + "</tr>" for row, bad in zip(rows, marks, strict=True))
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>' \
           f"</table></div>"


def _whatif_table(table) -> str:
    """A what-if Table (sweep, sensitivity, comparison) from its own cells."""
    numeric = {i for i, c in enumerate(table.columns) if not c.is_labels}
    cells = table._cells()
    return _table([_e(h) for h in table.headers], [[_e(c) for c in row] for row in cells],
                  numeric, table._infeasible())


def render(plan: Plan) -> str:
    from napkinmath.scenario import svg

    sources = parts.sources(plan)

    def cite(source: str) -> str:
        number = sources.number(source)
        if number is None:  # a short citation stays inline, as in Result
            return f"[{_e(source.strip())}]"
        return f'<a href="#source-{number}">[{number}]</a>'

    def cited(text: str, source: str) -> str:
        return f"{_e(text)} {cite(source)}" if source else _e(text)

    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           '<meta name="generator" content="napkinmath plan">',
           f"<title>{_e(plan.title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
           "<main>", f"<h1>{_e(plan.title)}</h1>"]
    if plan.scenario.notes.strip():
        out.append(f"<p>{_e(plan.scenario.notes.strip())}</p>")
    plots = not svg.wants_plots(plan) or svg.can_plot()
    if not plots:
        out.append(f'<p class="warning">Note: {_e(svg.LEFT_OUT)}</p>')

    def figure(draw, caption: str) -> str:
        if not plots:
            return f'<p class="muted">{_e(svg.PLOT_LEFT_OUT)}</p>'
        try:
            plot = _uncommented(svg.render(draw))
        except InputError as exc:  # a plot that cannot be drawn (too many lines): said so
            return f'<p class="muted">Plot left out: {_e(str(exc))}</p>'
        return f"<figure>{plot}<figcaption>{caption}</figcaption></figure>"

    out += ['<section id="summary">', "<h2>Summary</h2>"]
    rows, current = [], None
    for line in parts.summary(plan):
        if line.section != current:
            current = line.section
            rows.append(f'<tr><th colspan="2" class="group">{_e(current)}</th></tr>')
        fed = f" ({_e(line.fed)})" if line.fed else ""
        rows.append(f"<tr><td><code>{_e(line.name)}</code><br><span class=\"muted\">"
                    f"{_e(line.meaning)}{fed}</span></td>"
                    f'<td class="num answer">{_e(line.value)}</td></tr>')
    out.append('<div class="scroll"><table class="summary"><thead><tr><th>answer</th>'
               f"<th>value</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    out.append(f"<p>{_e(parts.status(plan))}</p>")
    warnings = plan.warnings
    if warnings:
        out.append("<ul>" + "".join(f'<li class="warning">Warning: {_e(w)}</li>'
                                    for w in warnings) + "</ul>")
    else:
        out.append('<p class="ok">No warnings.</p>')
    out.append("</section>")

    for index, s in enumerate(plan.sections, 1):
        out += [f'<section id="section-{index}">', f"<h2>{index}. {_e(s.title)}</h2>"]
        if s.section.notes.strip():
            out.append(f"<p>{_e(s.section.notes.strip())}</p>")
        out += [f'<p class="answer">{_e(line)}</p>' for line in s.answer.headline()]
        out.append("<h3>Given</h3>")
        out.append(_table(["given", "value", "from"], [
            [f"<code>{_e(r.name)}</code>", _e(r.value), cited(r.origin, r.source)]
            for r in parts.givens(s)], {1}))
        out.append("<h3>Derivation</h3>")
        if parts.centre_note(s):
            out.append(f'<p class="muted">{_e(parts.centre_note(s))}</p>')
        if not s.result.steps:
            out.append("<p>None needed: every question is a given or a record value.</p>")
        out.append('<ol class="steps">')
        for step in parts.steps(s):
            refs = " ".join(cite(src) for src in step.sources if src.strip())
            out.append(f"<li><strong>{_e(step.head)}</strong> <span class=\"src\">{refs}</span>")
            for f in step.formulas:
                out.append(mathml.block(mathml.names(f.equation.lhs),
                                        mathml.names(f.equation.rhs)))
            for solved in step.solved:
                if not solved.explicit:
                    out.append(mathml.block("<mo>⇒</mo>" + mathml.name(solved.name),
                                            mathml.names(solved.expr)))
                if len(solved.lines) > 1:  # the substituted line differs from the result
                    out.append(mathml.block("", mathml.values(solved.expr,
                                                              parts.leaf(s, step))))
                out.append(mathml.block("", mathml.text(solved.lines[-1])))
            out += [f'<p class="muted">{_e(note)}</p>' for note in step.notes]
            out.append("</li>")
        out.append("</ol>")
        out += [f'<p class="muted">Note: {_e(n)}</p>' for n in s.result.notes]
        heading, limits = parts.section_constraints(s)
        if limits:
            out.append(f"<h3>{_e(heading)}</h3><ul>" + "".join(
                f'<li class="{"ok" if holds else "bad"}">{_e(line)}</li>'
                for holds, line in limits) + "</ul>")
        for sens in s.sensitivities:
            out.append(f"<h3>What <code>{_e(sens.target)}</code> hangs on</h3>")
            table = sens.to_table()
            out.append(_whatif_table(table))
            out.append(f'<p class="muted">{_e(" ".join(table.notes))}</p>')
            out.append(figure(lambda ax, sens=sens: sens.plot(ax=ax),
                              f"Tornado: {_e(sens.target)} at each input's low and high"))
        out.append("</section>")

    if plan.checks:
        out += ['<section id="consistency">', "<h2>Consistency of the givens</h2>",
                "<p>Over-determined givens, checked once for the whole file:</p><ul>"]
        out += [f'<li class="{"ok" if f.ok else "bad"}">{_e(f.line())} '
                f'<span class="muted">({_e(", ".join(f.sections))})</span></li>'
                for f in plan.checks]
        out += ["</ul>", "</section>"]
    if plan.constraints:
        out += ['<section id="constraints">', "<h2>Constraints</h2><ul>"]
        out += [f'<li class="{"ok" if f.ok else "bad"}">'
                f"{cited(f.line(), parts.constraint_source(f))} "
                f'<span class="muted">({_e(", ".join(f.sections))})</span></li>'
                for f in plan.constraints]
        out += ["</ul>", "</section>"]
    for i, (spec, table) in enumerate(plan.sweeps, 1):
        out += [f'<section id="sweep-{i}">', f"<h2>Sweep: {_e(spec.title)}</h2>",
                figure(lambda ax, table=table: table.plot(ax=ax), _e(table.title)),
                _whatif_table(table)]
        out += [f'<p class="muted">{_e(n)}</p>' for n in table.notes]
        out.append("</section>")
    for i, (spec, comparison) in enumerate(plan.comparisons, 1):
        table = comparison.to_table()
        out += [f'<section id="comparison-{i}">', f"<h2>Comparison: {_e(spec.title)}</h2>",
                _whatif_table(table)]
        out += [f'<p class="muted">{_e(n)}</p>' for n in table.notes]
        out.append("</section>")
    assumed = parts.assumptions(plan)
    if assumed:
        out += ['<section id="assumptions">', "<h2>Assumptions</h2><ul>"]
        out += [f"<li><code>{_e(n)}</code>: {_e(a)}</li>" for n, a in assumed]
        out += ["</ul>", "</section>"]
    out += ['<section id="sources">', "<h2>Sources</h2><ol>"]
    out += [f'<li id="source-{n}" value="{n}">{_e(source)}</li>'
            for n, source in sources.entries()]
    out += ["</ol>", "</section>", "</main>", "</body>", "</html>"]
    return "\n".join(out)
