"""The plan as one self-contained HTML file: no script, no font, no URL.

Math is presentation MathML, which browsers render natively; plots are inline SVG, drawn to
read on a phone and shown at most 28rem wide on a desktop; the page reads on a phone (viewport,
the givens as cards, numeric tables that scroll in their frame with their names held) and
prints (no navigation, steps kept whole on a page).
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Set

from napkinmath.errors import InputError
from napkinmath.scenario import mathml, parts, svg
from napkinmath.scenario.answer import Plan, SectionAnswer
from napkinmath.scenario.optimizing import can_plot, draw, nothing_fits
from napkinmath.scenario.walk import PlanPrinter, by_section, walk
from napkinmath.text.markup import HOST_BAD, HOST_GOOD, HOST_INFEASIBLE, HOST_LINE, HOST_TINT
from napkinmath.text.visible import visible
from napkinmath.whatif.table import breakable, prose_list

CSS = """
:root { color-scheme: light dark; --ink: #1d2125; --paper: #fff; --muted: #5a636c;
  --line: #d5dae0; --bad: #a4161a; --good: #1e6b34; --tint: #f4f6f8; --group: #e9edf1;
  --infeasible: #fde2e2; --link: #1a5fb4; }
@media (prefers-color-scheme: dark) {
  :root { --ink: #e6e8eb; --paper: #15181c; --muted: #a3acb5; --line: #3c434b;
    --bad: #ff8a80; --good: #7fd494; --tint: #20252b; --group: #2a3038;
    --infeasible: #4a1f22; --link: #8ab4f8; }
}
a { color: var(--link); }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: var(--paper);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 62rem; margin: 0 auto; padding: 1rem; }
main p, main ul, main ol, main h1 { max-width: 52rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .25rem; }
p, li { overflow-wrap: anywhere; }
code { font: .9em ui-monospace, "DejaVu Sans Mono", monospace; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .92rem; width: 100%; }
td code { white-space: nowrap; }
td.name { white-space: nowrap; }
.scroll td.name:first-child { position: sticky; left: 0; background: var(--paper); }
ol.rows > li { margin: .4rem 0; }
th.group { background: var(--group); }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left;
  vertical-align: top; }
th { background: var(--tint); }
td.num { text-align: right; white-space: nowrap; }
.answer { font-weight: 600; }
.warning { color: var(--bad); font-weight: 600; }
.ok { color: var(--good); }
.bad { color: var(--bad); }
.muted, .src { color: var(--muted); font-size: .9rem; }
tr.infeasible td { background: var(--infeasible); }
ol.steps > li { margin: .75rem 0; break-inside: avoid; }
.eq { margin: .15rem 0 .15rem 1rem; overflow-x: auto; overflow-y: hidden; padding: .1rem 0; }
math { font-size: 1.05em; }
figure { margin: 1rem 0; }
figure svg { max-width: min(100%, 28rem); height: auto; display: block; }
figcaption { color: var(--muted); font-size: .9rem; }
@media (max-width: 40rem) {
  table.summary td.num { white-space: normal; }
  table.cards, table.cards tbody { display: block; }
  table.cards thead { display: none; }
  table.cards tr { display: grid; grid-template-columns: auto 1fr; column-gap: .75rem;
    border: 1px solid var(--line); border-top: 0; padding: .35rem .5rem; }
  table.cards tr:first-child { border-top: 1px solid var(--line); }
  table.cards td { border: 0; padding: 0; overflow-wrap: anywhere; }
  table.cards td.num { white-space: normal; }
  table.cards td:nth-child(n+3) { grid-column: 1 / -1; color: var(--muted); font-size: .9rem; }
}
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


_ID = re.compile(r'\bid="([^"]+)"')


def _own_ids(svg_text: str) -> str:
    """The SVG with its ids (glyphs, clip paths) and the references to them prefixed by a
    hash of its text: no two plots on the page share an id (matplotlib names the glyphs of
    every plot alike), so each uses only what it holds itself."""
    ids = set(_ID.findall(svg_text))
    prefix = "p" + hashlib.sha1(svg_text.encode("utf-8")).hexdigest()[:8] + "-"
    return re.sub(
        r'(\bid="|#)([^"\s)]+)',
        lambda m: m[1] + prefix + m[2] if m[2] in ids else m[0],
        svg_text,
    )


def _table(
    headers: list[str],
    rows: list[list[str]],
    numeric: Set[int] = frozenset(),
    infeasible: list[bool] | None = None,
    cards: bool = False,
    names: Set[int] = frozenset(),
) -> str:
    """A table of already-escaped cells; the rows marked `infeasible` tinted. With `cards`
    a phone shows each row as a card (its first two cells on a line, the rest below) rather
    than a grid that scrolls; the columns in `names` (a row's name, a record) never wrap,
    and the first of them stays in view while the rest scrolls."""

    def cell(i: int, c: str) -> str:
        if i in numeric:
            return f'<td class="num">{c}</td>'
        return f'<td class="name">{c}</td>' if i in names else f"<td>{c}</td>"

    head = "".join(f"<th>{h}</th>" for h in headers)
    marks = infeasible or [False] * len(rows)
    body = "".join(
        ('<tr class="infeasible">' if bad else "<tr>")
        + "".join(cell(i, c) for i, c in enumerate(row))
        + "</tr>"
        for row, bad in zip(rows, marks, strict=True)
    )
    kind = ' class="cards"' if cards else ""
    return (
        f'<div class="scroll"><table{kind}><thead><tr>{head}</tr></thead><tbody>{body}'
        f"</tbody></table></div>"
    )


def _whatif_table(table) -> str:
    """A what-if Table (sweep, sensitivity, comparison) from its own cells: its prose
    columns (a comparison's values used and sources) as a list under the grid."""
    cells = table._cells()
    grid, labels, items = table.html_parts(cells)
    columns = [table.columns[i] for i in grid]
    numeric = {n for n, c in enumerate(columns) if not c.is_labels}
    names = {
        n
        for n, c in enumerate(columns)
        if c.is_labels and not c.is_flags and (n == 0 or c.role == "input")
    }
    out = _table(
        [breakable(_e(table.headers[i])) for i in grid],
        [[_e(row[i]) for i in grid] for row in cells],
        numeric,
        table._infeasible(),
        names=names,
    )
    return out + (prose_list(labels, items, _e) if labels else "")


def render(plan: Plan) -> str:
    return walk(plan, HtmlPrinter(plan))


class HtmlPrinter(PlanPrinter):
    """A <section> per part, tables that scroll, equations as MathML, plots as inline SVG."""

    def __init__(self, plan: Plan) -> None:
        super().__init__(plan)
        #: whether the plots are drawn (matplotlib is there, or the report has none)
        self.plots = not svg.wants_plots(plan) or svg.can_plot()

    def link(self, source: str) -> str:
        """A citation: a link to its number in the sources list, a short one inline."""
        number = self.numbered.number(source)
        if number is None:  # a short citation stays inline, as in Result
            return f"[{_e(source.strip())}]"
        return f'<a href="#source-{number}">[{number}]</a>'

    def cited(self, text: str, source: str) -> str:
        return f"{_e(text)} {self.link(source)}" if source else _e(text)

    def figure(self, draw, caption: str) -> str:
        """A plot drawn by `draw(ax)` with its (escaped) caption, or why it is left out."""
        if not self.plots:
            return f'<p class="muted">{_e(svg.PLOT_LEFT_OUT)}</p>'
        try:
            plot = _own_ids(_uncommented(svg.render(draw)))
        except InputError as exc:  # a plot that cannot be drawn (too many lines): said so
            return f'<p class="muted">Plot left out: {_e(str(exc))}</p>'
        return f"<figure>{plot}<figcaption>{caption}</figcaption></figure>"

    def finish(self, lines: list[str]) -> str:
        return "\n".join([*lines, "</main>", "</body>", "</html>"])

    def title(self, plan: Plan) -> list[str]:
        out = [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="napkinmath plan">',
            f"<title>{_e(plan.title)}</title>",
            f"<style>{CSS}</style>",
            "</head>",
            "<body>",
            "<main>",
            f"<h1>{_e(plan.title)}</h1>",
        ]
        if plan.scenario.notes.strip():
            out.append(f"<p>{_e(plan.scenario.notes.strip())}</p>")
        if not self.plots:
            out.append(f'<p class="warning">Note: {_e(svg.LEFT_OUT)}</p>')
        return out

    def summary(self, lines: list[parts.Line]) -> list[str]:
        rows = []
        for section, run in by_section(lines):
            rows.append(f'<tr><th colspan="2" class="group">{_e(section)}</th></tr>')
            rows += [
                f'<tr><td><code>{_e(line.name)}</code><br><span class="muted">'
                f"{_e(line.meaning)}{f' ({_e(line.fed)})' if line.fed else ''}</span></td>"
                f'<td class="num answer">{_e(line.value)}</td></tr>'
                for line in run
            ]
        return [
            '<section id="summary">',
            "<h2>Summary</h2>",
            '<div class="scroll"><table class="summary"><thead><tr><th>answer</th>'
            f"<th>value</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>",
        ]

    def status(self, text: str) -> list[str]:
        return [f"<p>{_e(text)}</p>"]

    def warnings(self, warnings: list[str]) -> list[str]:
        if not warnings:
            return ['<p class="ok">No warnings.</p>']
        return [
            "<ul>"
            + "".join(f'<li class="warning">Warning: {_e(w)}</li>' for w in warnings)
            + "</ul>"
        ]

    def summary_end(self) -> list[str]:
        return ["</section>"]

    def section(self, number: int, s: SectionAnswer) -> list[str]:
        out = [f'<section id="section-{number}">', f"<h2>{number}. {_e(s.title)}</h2>"]
        if s.section.notes.strip():
            out.append(f"<p>{_e(s.section.notes.strip())}</p>")
        return out + [f'<p class="answer">{_e(line)}</p>' for line in s.answer.headline()]

    def givens(self, rows: list[parts.Row]) -> list[str]:
        return [
            "<h3>Given</h3>",
            _table(
                ["given", "value", "from"],
                [
                    [f"<code>{_e(r.name)}</code>", _e(r.value), self.cited(r.origin, r.source)]
                    for r in rows
                ],
                {1},
                cards=True,
            ),
        ]

    def derivation(self, s: SectionAnswer) -> list[str]:
        out = ["<h3>Derivation</h3>"]
        if parts.centre_note(s):
            out.append(f'<p class="muted">{_e(parts.centre_note(s))}</p>')
        if not s.result.steps:
            out.append("<p>None needed: every question is a given or a record value.</p>")
        return [*out, '<ol class="steps">']

    def step(self, s: SectionAnswer, step: parts.Step) -> list[str]:
        refs = " ".join(self.link(src) for src in step.sources if src.strip())
        out = [f'<li><strong>{_e(step.head)}</strong> <span class="src">{refs}</span>']
        out += [
            mathml.block(mathml.names(f.layouts[0]), mathml.names(f.layouts[1]))
            for f in step.formulas
        ]
        for solved in step.solved:
            if not solved.explicit:
                arrow = "<mo>⇒</mo>" + mathml.name(solved.name)
                out.append(mathml.block(arrow, mathml.names(solved.layout)))
            if len(solved.lines) > 1:  # the substituted line differs from the result
                shown = mathml.values(solved.layout, *parts.leaves(s, step))
                out.append(mathml.block("", shown))
            out.append(mathml.block("", mathml.text(solved.lines[-1])))
        return [*out, *[f'<p class="muted">{_e(note)}</p>' for note in step.notes], "</li>"]

    def derivation_end(self) -> list[str]:
        return ["</ol>"]

    def notes(self, notes: list[str]) -> list[str]:
        return [f'<p class="muted">Note: {_e(n)}</p>' for n in notes]

    def section_constraints(self, heading: str, limits: list[tuple[bool, str]]) -> list[str]:
        return [
            f"<h3>{_e(heading)}</h3><ul>"
            + "".join(
                f'<li class="{"ok" if holds else "bad"}">{_e(line)}</li>' for holds, line in limits
            )
            + "</ul>"
        ]

    def sensitivity(self, sens) -> list[str]:
        table = sens.to_table()
        return [
            f"<h3>What <code>{_e(sens.target)}</code> hangs on</h3>",
            _whatif_table(table),
            f'<p class="muted">{_e(" ".join(table.notes))}</p>',
            self.figure(
                lambda ax: sens.plot(ax=ax),
                f"Tornado: {_e(sens.target)} at each input's low and high",
            ),
        ]

    def gap(self, budget) -> list[str]:
        return [
            "<h3>Gap budget: the measured step against its parts</h3>",
            f'<div class="scroll">{budget.to_html(plot=False)}</div>',
            self.figure(budget.draw, "Waterfall: from the ideal step to the measured one"),
        ]

    def section_end(self) -> list[str]:
        return ["</section>"]

    def checks(self, checks: list) -> list[str]:
        return [
            '<section id="consistency">',
            "<h2>Consistency of the givens</h2>",
            "<p>Over-determined givens, checked once for the whole file:</p><ul>",
            *[
                f'<li class="{"ok" if f.ok else "bad"}">{_e(f.line())} '
                f'<span class="muted">({_e(", ".join(f.sections))})</span></li>'
                for f in checks
            ],
            "</ul>",
            "</section>",
        ]

    def constraints(self, constraints: list) -> list[str]:
        return [
            '<section id="constraints">',
            "<h2>Constraints</h2><ul>",
            *[
                f'<li class="{"ok" if f.ok else "bad"}">'
                f"{self.cited(f.line(), parts.constraint_source(f))} "
                f'<span class="muted">({_e(", ".join(f.sections))})</span></li>'
                for f in constraints
            ],
            "</ul>",
            "</section>",
        ]

    def sweep(self, number: int, spec, table) -> list[str]:
        return [
            f'<section id="sweep-{number}">',
            f"<h2>Sweep: {_e(spec.title)}</h2>",
            self.figure(lambda ax: table.plot(ax=ax), _e(table.title)),
            _whatif_table(table),
            *[f'<p class="muted">{_e(n)}</p>' for n in table.notes],
            "</section>",
        ]

    def comparison(self, number: int, spec, comparison) -> list[str]:
        table = comparison.to_table()
        return [
            f'<section id="comparison-{number}">',
            f"<h2>Comparison: {_e(spec.title)}</h2>",
            _whatif_table(table),
            *[f'<p class="muted">{_e(n)}</p>' for n in table.notes],
            "</section>",
        ]

    def optimization(self, number: int, done, v) -> list[str]:
        out = [
            f'<section id="optimization-{number}">',
            f"<h2>Optimization: {_e(done.title)}</h2>",
            f"<p><strong>Goal:</strong> {_e(v.goal)}. {_e(v.searched)}</p>",
            _table(
                ["decision", "domain"],
                [[f"<code>{_e(n)}</code>", _e(t)] for n, t in v.domains],
                cards=True,
            ),
        ]
        if v.limits:
            out.append("<h3>Constraints</h3><ul>" + "".join(f"<li>{_e(x)}</li>" for x in v.limits))
            out.append("</ul>")
        if not v.best:
            out.append(f'<p class="warning">{_e(nothing_fits(done))}</p>')
            if v.ruled_out:
                out.append(
                    _table(
                        ["ruled out by", "candidates"],
                        [[_e(name), _e(n)] for name, n in v.ruled_out],
                        {1},
                    )
                )
            if v.closest:
                out.append(f"<p>Closest: {_e(v.closest)}</p><ul>")
                out += [f'<li class="bad">✗ {_e(w)}</li>' for w in v.closest_violations]
                out.append("</ul>")
        else:
            got = ", ".join(f"{o} = {value}" for o, value in v.objectives)
            out.append(
                f'<p class="answer">Best: {_e(v.best)}' + (f": {_e(got)}" if got else "") + "</p>"
            )
            items = [f"<li>binding: {_e(', '.join(v.binding))}</li>"] if v.binding else []
            items += [f"<li>exact boundary: {_e(b)}</li>" for b in v.boundaries]
            items += [f'<li class="ok">✓ {_e(line)}</li>' for line in v.at_best]
            if items:
                out.append("<ul>" + "".join(items) + "</ul>")
        if can_plot(done):
            out.append(
                self.figure(
                    lambda ax: draw(done, ax),
                    f"{_e(v.goal)}: the best that fits at each value; the winner starred",
                )
            )
        if v.neighbours:
            out += [
                "<h3>Neighbours (one step in one decision)</h3>",
                _table(
                    ["neighbour", "verdict"],
                    [[_e(p), _e(verdict)] for p, verdict, _ in v.neighbours],
                    infeasible=[not fits for _, _, fits in v.neighbours],
                ),
            ]
        if v.pareto:
            out += [
                "<h3>Pareto front (none better in both)</h3>",
                _table([_e(h) for h in v.headers], [[_e(c) for c in r] for r in v.pareto]),
            ]
        if v.per_record:
            out += [
                "<h3>Each record at its own best</h3>",
                _table(
                    ["#", "record", "candidate", "objectives"],
                    [[_e(c) for c in r] for r in v.per_record],
                    {0},
                ),
            ]
        if v.runners_up:
            out += [
                "<h3>Runners-up</h3>",
                _table(
                    ["#", *[_e(h) for h in v.headers]],
                    [[_e(c) for c in r] for r in v.runners_up],
                    {0},
                ),
            ]
        return out + [f'<p class="muted">Note: {_e(n)}</p>' for n in v.notes]

    def optimization_best(self, done) -> list[str]:
        return ["<h3>The best candidate's derivation</h3>"]

    def optimization_end(self) -> list[str]:
        return ["</section>"]

    def assumptions(self, assumed: list[tuple[str, str]]) -> list[str]:
        return [
            '<section id="assumptions">',
            "<h2>Assumptions</h2><ul>",
            *[f"<li><code>{_e(n)}</code>: {_e(a)}</li>" for n, a in assumed],
            "</ul>",
            "</section>",
        ]

    def sources(self, entries: list[tuple[int, str]]) -> list[str]:
        return [
            '<section id="sources">',
            "<h2>Sources</h2><ol>",
            *[f'<li id="source-{n}" value="{n}">{_e(source)}</li>' for n, source in entries],
            "</ol>",
            "</section>",
        ]


# --- the plan in a notebook -------------------------------------------------------------------
SCOPE = ".napkin-plan"
#: in a notebook the colours are the host's (JupyterLab or VS Code, light or dark; the page's
#: own light and dark palettes follow the reader's system instead): text in the host's
#: colour, tints and borders grey at partial opacity over its background, the sticky name
#: column on the host's own background, red and green mixed into its text colour. The rules
#: carry the scope twice, to outrank JupyterLab's `.jp-RenderedHTMLCommon td` alignment.
HOST_COLOURS = f"""
.napkin-plan {{ color: inherit; background: transparent;
  --ink: currentColor; --line: {HOST_LINE}; --tint: {HOST_TINT};
  --group: rgba(128,128,128,.26); --infeasible: {HOST_INFEASIBLE}; --link: currentColor;
  --muted: color-mix(in srgb, currentColor 72%, transparent);
  --bad: {HOST_BAD}; --good: {HOST_GOOD};
  --paper: var(--jp-layout-color0, var(--vscode-editor-background, Canvas)); }}
.napkin-plan.napkin-plan table {{ color: inherit; margin-left: 0; margin-right: 0;
  table-layout: auto; }}
.napkin-plan.napkin-plan th, .napkin-plan.napkin-plan td {{ text-align: left;
  vertical-align: top; border: 1px solid var(--line); max-width: none; }}
.napkin-plan.napkin-plan td.num {{ text-align: right; }}
"""


def scoped(css: str, scope: str = SCOPE) -> str:
    """The report's style with every rule limited to `scope` (the page's root, body and
    main become the frame itself), so that a notebook's own style is left alone."""

    def rule(match: re.Match[str]) -> str:
        selectors = match.group(1)
        if selectors.strip().startswith("@"):
            return match.group(0)
        out = []
        for selector in (s.strip() for s in selectors.split(",")):
            if selector in (":root", "body", "main"):
                out.append(scope)
            elif selector == "*":
                out += [scope, f"{scope} *"]
            else:
                out.append(f"{scope} {selector}")
        return "\n" + ", ".join(out) + " {"

    return re.sub(r"([^{}]+)\{", rule, css)


class FragmentPrinter(HtmlPrinter):
    """The report as one <div> for a notebook (`Plan._repr_html_`): its style scoped to the
    div, the classes MathJax skips, and no '$' left in the markup (the math is MathML)."""

    def title(self, plan: Plan) -> list[str]:
        page = super().title(plan)
        body = page[page.index("<main>") + 1 :]
        return [
            '<div class="napkin-plan tex2jax_ignore mathjax_ignore">',
            f"<style>{scoped(CSS)}{HOST_COLOURS}</style>",
            *body,
        ]

    def finish(self, lines: list[str]) -> str:
        # the style has no '$'; anywhere else a '$' is text or an attribute's value
        return "\n".join([*lines, "</div>"]).replace("$", "&#36;")


def fragment(plan: Plan) -> str:
    return walk(plan, FragmentPrinter(plan))
