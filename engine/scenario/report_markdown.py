"""The plan as GitHub-flavoured Markdown (renders on common forges and wikis).

Plots are not embedded (a Markdown file cannot carry them portably): written as a file with
`figures` (`napkinmath.scenario.figures`), the report links SVG files in a folder beside it.
Every piece of text goes through `napkinmath.text.escape`: a title, a note, a name or a
value cannot add HTML, a link, an image, a comment or a code fence to the page, nor a control
character to the file.
"""

from __future__ import annotations

from urllib.parse import quote

from napkinmath.errors import InputError
from napkinmath.scenario import parts
from napkinmath.scenario.answer import Plan, SectionAnswer
from napkinmath.scenario.figures import Figures
from napkinmath.scenario.optimizing import can_plot as can_plot_optimization
from napkinmath.scenario.optimizing import draw, nothing_fits
from napkinmath.scenario.svg import LEFT_OUT, can_plot, wants_plots
from napkinmath.scenario.walk import PlanPrinter, walk
from napkinmath.text.escape import md_block, md_code, md_inline
from napkinmath.text.visible import visible

_cell = md_inline


def _code(text: str, in_table: bool = False) -> str:
    return md_code(text, in_table)


def render(plan: Plan, figures: Figures | None = None) -> str:
    """The report as Markdown; with `figures` (SVG), its plots drawn into it and linked."""
    return walk(plan, MarkdownPrinter(plan, figures))


def _rows(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table of plain-text cells."""
    return [
        "| " + " | ".join(_cell(h) for h in headers) + " |",
        "|" + "---|" * len(headers),
        *["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows],
    ]


class MarkdownPrinter(PlanPrinter):
    """Headings, tables and lists; names and equations as code spans; plots as links."""

    def __init__(self, plan: Plan, figures: Figures | None = None) -> None:
        super().__init__(plan)
        #: the report is written without its plots where matplotlib is missing, and says so
        self.plots_left_out = figures is not None and wants_plots(plan) and not can_plot()
        #: the plots drawn, or None for none
        self.figures = None if self.plots_left_out else figures

    def figure(self, draw, stem: str, caption: str) -> list[str]:
        """A plot drawn by `draw(ax)` as the figures' next `stem-N.svg`, as an image link
        (its caption inert: no bracket, no backslash), or why it is left out."""
        if self.figures is None:
            return []
        try:
            path = self.figures.add(stem, draw)
        except InputError as exc:  # a plot that cannot be drawn (too many lines): said so
            return ["", f"*Plot left out: {_cell(str(exc))}*"]
        alt = _cell(caption.translate({ord(c): " " for c in "[]\\"}))
        return ["", f"![{alt}]({quote(path)})"]

    def finish(self, lines: list[str]) -> str:
        return visible("\n".join(lines), keep="\n")  # nothing of the user's is left raw

    def title(self, plan: Plan) -> list[str]:
        out = [f"# {_cell(plan.title)}", ""]
        if plan.scenario.notes.strip():
            out += [md_block(plan.scenario.notes.strip()), ""]
        if self.plots_left_out:
            out += [f"*Note:* {_cell(LEFT_OUT)}", ""]
        return out

    def summary(self, lines: list[parts.Line]) -> list[str]:
        out = ["## Summary", "", "| section | answer | value | meaning |", "|---|---|---|---|"]
        for line in lines:
            fed = f" (used as {_code(line.fed.split()[2], True)} from here on)" if line.fed else ""
            out.append(
                f"| {_cell(line.section)} | {_code(line.name, True)} | "
                f"**{_cell(line.value)}** | {_cell(line.meaning)}{fed} |"
            )
        return [*out, ""]

    def status(self, text: str) -> list[str]:
        return [_cell(text), ""]

    def warnings(self, warnings: list[str]) -> list[str]:
        return [f"> **Warning:** {_cell(w)}  " for w in warnings] or ["No warnings."]

    def section(self, number: int, s: SectionAnswer) -> list[str]:
        out = ["", f"## {number}. {_cell(s.title)}", ""]
        if s.section.notes.strip():
            out += [md_block(s.section.notes.strip()), ""]
        return out + [f"**{_cell(line)}**  " for line in s.answer.headline()]

    def givens(self, rows: list[parts.Row]) -> list[str]:
        return [
            "",
            "| given | value | from |",
            "|---|---|---|",
            *[
                f"| {_code(r.name, True)} | {_cell(r.value)} | "
                f"{_cell(self.cited(r.origin, r.source))} |"
                for r in rows
            ],
            "",
        ]

    def derivation(self, s: SectionAnswer) -> list[str]:
        out = [f"*{_cell(parts.centre_note(s))}*", ""] if parts.centre_note(s) else []
        if not s.result.steps:
            out.append("None needed: every question is a given or a record value.")
        return out

    def step(self, s: SectionAnswer, step: parts.Step) -> list[str]:
        cited = _cell(self.numbered.cite(*step.sources))
        out = [f"{step.number}. **{_cell(step.head)}** {cited}"]
        out += [f"   - {_code(parts.equation_text(f))}" for f in step.formulas]
        for solved in step.solved:
            if not solved.explicit:
                out.append(
                    f"   - solved for {_code(solved.name)}: "
                    f"{_code(solved.name + ' = ' + parts.expression_text(solved.layout))}"
                )
            out += [f"   - {_code('= ' + line)}" for line in solved.lines]
        return out + [f"   - *{_cell(note)}*" for note in step.notes]

    def notes(self, notes: list[str]) -> list[str]:
        return [f"\n*Note:* {_cell(n)}" for n in notes]

    def section_constraints(self, heading: str, limits: list[tuple[bool, str]]) -> list[str]:
        return ["", f"{_cell(heading)}:", "", *[f"- {_cell(line)}" for _, line in limits]]

    def sensitivity(self, sens) -> list[str]:
        out = ["", f"**What {_code(sens.target)} hangs on**", "", sens.to_markdown()]
        caption = f"Tornado: {sens.target} at each input's low and high"
        return out + self.figure(lambda ax: sens.plot(ax=ax), "tornado", caption)

    def gap(self, budget) -> list[str]:
        caption = "Waterfall: from the ideal step to the measured one"
        return ["", budget.to_markdown(), *self.figure(budget.draw, "gap", caption)]

    def checks(self, checks: list) -> list[str]:
        return [
            "",
            "## Consistency of the givens",
            "",
            "Over-determined givens, checked once for the whole file:",
            "",
            *[f"- {_cell(f.line())} *({_cell(', '.join(f.sections))})*" for f in checks],
        ]

    def constraints(self, constraints: list) -> list[str]:
        return [
            "",
            "## Constraints",
            "",
            *[
                f"- {_cell(self.cited(f.line(), parts.constraint_source(f)))} "
                f"*({_cell(', '.join(f.sections))})*"
                for f in constraints
            ],
        ]

    def sweep(self, number: int, spec, table) -> list[str]:
        out = ["", f"## Sweep: {_cell(spec.title)}"]
        out += self.figure(lambda ax: table.plot(ax=ax), "sweep", table.title)
        return [*out, "", table.to_markdown()]

    def comparison(self, number: int, spec, comparison) -> list[str]:
        return ["", f"## Comparison: {_cell(spec.title)}", "", comparison.to_markdown()]

    def optimization(self, number: int, done, v) -> list[str]:
        out = ["", f"## Optimization: {_cell(done.title)}", "", f"**Goal:** {_cell(v.goal)}. "]
        out[-1] += _cell(v.searched)
        out += ["", "| decision | domain |", "|---|---|"]
        out += [f"| {_code(name, True)} | {_cell(text)} |" for name, text in v.domains]
        if v.limits:
            out += ["", "Constraints:", "", *[f"- {_cell(line)}" for line in v.limits]]
        if not v.best:
            out += ["", f"**{_cell(nothing_fits(done))}**"]
            if v.ruled_out:
                out += ["", "| ruled out by | candidates |", "|---|---:|"]
                out += [f"| {_cell(name)} | {n} |" for name, n in v.ruled_out]
            if v.closest:
                out += ["", f"Closest: {_cell(v.closest)}", ""]
                out += [f"- ✗ {_cell(w)}" for w in v.closest_violations]
        else:
            got = ", ".join(f"{o} = {value}" for o, value in v.objectives)
            out += ["", f"**Best:** {_cell(v.best)}" + (f": {_cell(got)}" if got else "")]
            if v.binding:
                out += ["", f"Binding: {_cell(', '.join(v.binding))}", ""]
            out += [f"- exact boundary: {_cell(b)}" for b in v.boundaries]
            out += [f"- ✓ {_cell(line)}" for line in v.at_best]
        if can_plot_optimization(done):
            caption = f"{v.goal}: the best that fits at each value; the winner starred"
            out += self.figure(lambda ax: draw(done, ax), "optimization", caption)
        if v.neighbours:
            out += ["", "| neighbour | verdict |", "|---|---|"]
            out += [f"| {_cell(point)} | {_cell(verdict)} |" for point, verdict, _ in v.neighbours]
        if v.pareto:
            out += ["", "Pareto front (none better in both):", ""]
            out += _rows(v.headers, v.pareto)
        if v.per_record:
            out += ["", "Each record at its own best:", ""]
            out += _rows(["#", "record", "candidate", "objectives"], v.per_record)
        if v.runners_up:
            out += ["", "Runners-up:", ""]
            out += _rows(["#", *v.headers], v.runners_up)
        return out + [f"\n*Note:* {_cell(n)}" for n in v.notes]

    def optimization_best(self, done) -> list[str]:
        return ["", "### The best candidate's derivation"]

    def assumptions(self, assumed: list[tuple[str, str]]) -> list[str]:
        return ["", "## Assumptions", "", *[f"- {_code(n)}: {_cell(a)}" for n, a in assumed]]

    def sources(self, entries: list[tuple[int, str]]) -> list[str]:
        return ["", "## Sources", "", *[f"{n}. {_cell(source)}" for n, source in entries]]
