"""The plan as plain Unicode text (the terminal's `napkin plan FILE`).

No character of the user's reaches the terminal raw: ESC, BEL, a carriage return or a
right-to-left override in a title, a note or a source is shown as an escape (\\x1b,
<U+202E>), as everywhere napkinmath echoes user text.
"""

from __future__ import annotations

from napkinmath.scenario import parts
from napkinmath.scenario.answer import Plan, SectionAnswer
from napkinmath.scenario.walk import PlanPrinter, by_section, walk
from napkinmath.text.visible import visible


def render(plan: Plan) -> str:
    return walk(plan, TextPrinter(plan))


def _rule(text: str, char: str) -> list[str]:
    shown = visible(text)  # the rule as long as the title is shown
    return [shown, char * len(shown)]


class TextPrinter(PlanPrinter):
    """Headings underlined, givens aligned, each step's lines indented under it."""

    def finish(self, lines: list[str]) -> str:
        return visible("\n".join(lines), keep="\n")

    def title(self, plan: Plan) -> list[str]:
        out = _rule(plan.title, "=")
        if plan.scenario.notes.strip():
            out += ["", plan.scenario.notes.strip()]
        return out

    def summary(self, lines: list[parts.Line]) -> list[str]:
        out = ["", *_rule("Summary", "-")]
        for section, run in by_section(lines):
            out.append(f"{section}:")
            out += [
                f"  {line.name} = {line.value}  ({line.meaning})"
                + (f"  [{line.fed}]" if line.fed else "")
                for line in run
            ]
        return out

    def status(self, text: str) -> list[str]:
        return ["", text]

    def warnings(self, warnings: list[str]) -> list[str]:
        return [f"WARNING: {w}" for w in warnings] or ["No warnings."]

    def section(self, number: int, s: SectionAnswer) -> list[str]:
        out = ["", *_rule(f"{number}. {s.title}", "-")]
        if s.section.notes.strip():
            out.append(s.section.notes.strip())
        return [*out, "", *s.answer.headline()]

    def givens(self, rows: list[parts.Row]) -> list[str]:
        width = max((len(r.name) for r in rows), default=0)
        return [
            "",
            "Given:",
            *[
                f"  {r.name.ljust(width)} = {r.value}   ({self.cited(r.origin, r.source)})"
                for r in rows
            ],
        ]

    def derivation(self, s: SectionAnswer) -> list[str]:
        out = ["", "Derivation:"]
        if parts.centre_note(s):
            out.append(f"({parts.centre_note(s)})")
        if not s.result.steps:
            out.append("  none needed: every question is a given or a record value")
        return out

    def step(self, s: SectionAnswer, step: parts.Step) -> list[str]:
        out = [f"{step.number}. {step.head}  {self.numbered.cite(*step.sources)}"]
        out += [f"   {parts.equation_text(f)}" for f in step.formulas]
        for solved in step.solved:
            if not solved.explicit:
                out.append(f"   ⇒ {solved.name} = {parts.expression_text(solved.layout)}")
            out += [f"     = {line}" for line in solved.lines]
        return out + [f"   ({note})" for note in step.notes]

    def notes(self, notes: list[str]) -> list[str]:
        return [f"Note: {n}" for n in notes]

    def section_constraints(self, heading: str, limits: list[tuple[bool, str]]) -> list[str]:
        return ["", f"{heading}:", *[f"  {line}" for _, line in limits]]

    def sensitivity(self, sens) -> list[str]:
        return ["", f"What {sens.target} hangs on:", str(sens)]

    def gap(self, budget) -> list[str]:
        return ["", budget.to_text()]

    def checks(self, checks: list) -> list[str]:
        return [
            "",
            *_rule("Consistency of the givens (checked once for the file)", "-"),
            *[f"  {f.line()}  [{', '.join(f.sections)}]" for f in checks],
        ]

    def constraints(self, constraints: list) -> list[str]:
        return [
            "",
            *_rule("Constraints", "-"),
            *[
                f"  {self.cited(f.line(), parts.constraint_source(f))}  [{', '.join(f.sections)}]"
                for f in constraints
            ],
        ]

    def sweep(self, number: int, spec, table) -> list[str]:
        return ["", *_rule(f"Sweep: {spec.title}", "-"), str(table)]

    def comparison(self, number: int, spec, comparison) -> list[str]:
        return ["", *_rule(f"Comparison: {spec.title}", "-"), str(comparison)]

    def optimization(self, number: int, done, v) -> list[str]:
        out = ["", *_rule(f"Optimization: {done.title}", "-"), f"Goal: {v.goal}", v.searched]
        out += ["", "Domains:", *[f"  {name}: {text}" for name, text in v.domains]]
        if v.limits:
            out += ["", "Constraints:", *[f"  {line}" for line in v.limits]]
        if not v.best:
            from napkinmath.scenario.optimizing import nothing_fits

            out += ["", nothing_fits(done)]
            if v.ruled_out:
                out += ["Ruled out (a candidate may fail several):"]
                out += [f"  {n:>12}  {name}" for name, n in v.ruled_out]
            if v.closest:
                out += ["", f"Closest: {v.closest}", *[f"  ✗ {w}" for w in v.closest_violations]]
        else:
            out += ["", f"Best: {v.best}", *[f"  {o} = {value}" for o, value in v.objectives]]
            if v.binding:
                out.append(f"  binding: {', '.join(v.binding)}")
            out += [f"  exact boundary: {b}" for b in v.boundaries]
            if v.at_best:
                out += ["", "Requirements at the best:", *[f"  ✓ {line}" for line in v.at_best]]
        if v.neighbours:
            out += ["", "Neighbours (one step in one decision):"]
            out += [f"  {point}: {verdict}" for point, verdict, _ in v.neighbours]
        if v.pareto:
            out += ["", "Pareto front (none better in both):"]
            out += [
                f"  {row[0]}" + (f": {', '.join(row[1:])}" if row[1:] else "") for row in v.pareto
            ]
        if v.per_record:
            out += ["", "Each record at its own best:"]
            out += [
                f"  {place}. {label}: " + ": ".join(part for part in (point, got) if part)
                for place, label, point, got in v.per_record
            ]
        if v.runners_up:
            out += ["", "Runners-up:"]
            out += [
                f"  {row[0]}. {row[1]}" + (f": {', '.join(row[2:])}" if row[2:] else "")
                for row in v.runners_up
            ]
        if v.notes:
            out += ["", "Notes:", *[f"  {n}" for n in v.notes]]
        return out

    def optimization_best(self, done) -> list[str]:
        return ["", "The best candidate's derivation:"]

    def assumptions(self, assumed: list[tuple[str, str]]) -> list[str]:
        return ["", *_rule("Assumptions", "-"), *[f"  {n}: {a}" for n, a in assumed]]

    def sources(self, entries: list[tuple[int, str]]) -> list[str]:
        return ["", *_rule("Sources", "-"), *[f"  [{n}] {source}" for n, source in entries]]
