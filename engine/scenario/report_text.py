"""The plan as plain Unicode text (the terminal's `napkin plan FILE`).

No character of the user's reaches the terminal raw: ESC, BEL, a carriage return or a
right-to-left override in a title, a note or a source is shown as an escape (\\x1b,
<U+202E>), as everywhere napkinmath echoes user text.
"""

from __future__ import annotations

from napkinmath.scenario import parts
from napkinmath.scenario.answer import Plan
from napkinmath.text.visible import visible


def _rule(text: str, char: str) -> list[str]:
    shown = visible(text)  # the rule as long as the title is shown
    return [shown, char * len(shown)]


def render(plan: Plan) -> str:
    sources = parts.sources(plan)
    out = _rule(plan.title, "=")
    if plan.scenario.notes.strip():
        out += ["", plan.scenario.notes.strip()]
    out += ["", *_rule("Summary", "-")]
    current = None
    for line in parts.summary(plan):
        if line.section != current:
            current = line.section
            out.append(f"{current}:")
        fed = f"  [{line.fed}]" if line.fed else ""
        out.append(f"  {line.name} = {line.value}  ({line.meaning}){fed}")
    out += ["", *_status(plan)]
    for number, s in enumerate(plan.sections, 1):
        out += ["", *_rule(f"{number}. {s.title}", "-")]
        if s.section.notes.strip():
            out.append(s.section.notes.strip())
        out += ["", *s.answer.headline()]
        out += ["", "Given:"]
        rows = parts.givens(s)
        width = max((len(r.name) for r in rows), default=0)
        out += [f"  {r.name.ljust(width)} = {r.value}   ({_cited(r.origin, r.source, sources)})"
                for r in rows]
        out += ["", "Derivation:"]
        if parts.centre_note(s):
            out.append(f"({parts.centre_note(s)})")
        for step in parts.steps(s):
            out.append(f"{step.number}. {step.head}  {sources.cite(*step.sources)}")
            out += [f"   {parts.equation_text(f)}" for f in step.formulas]
            for solved in step.solved:
                if not solved.explicit:
                    out.append(f"   ⇒ {solved.name} = {parts.expression_text(solved.expr)}")
                out += [f"     = {line}" for line in solved.lines]
            out += [f"   ({note})" for note in step.notes]
        if not s.result.steps:
            out.append("  none needed: every question is a given or a record value")
        out += [f"Note: {n}" for n in s.result.notes]
        heading, limits = parts.section_constraints(s)
        if limits:
            out += ["", f"{heading}:", *[f"  {line}" for _, line in limits]]
        for sens in s.sensitivities:
            out += ["", f"What {sens.target} hangs on:", str(sens)]
    out += _findings(plan, sources)
    for spec, table in plan.sweeps:
        out += ["", *_rule(f"Sweep: {spec.title}", "-"), str(table)]
    for spec, comparison in plan.comparisons:
        out += ["", *_rule(f"Comparison: {spec.title}", "-"), str(comparison)]
    assumed = parts.assumptions(plan)
    if assumed:
        out += ["", *_rule("Assumptions", "-"), *[f"  {n}: {a}" for n, a in assumed]]
    out += ["", *_rule("Sources", "-")]
    out += [f"  [{n}] {source}" for n, source in sources.entries()]
    return visible("\n".join(out), keep="\n")


def _cited(text: str, source: str, sources) -> str:
    return f"{text} {sources.cite(source)}" if source else text


def _status(plan: Plan) -> list[str]:
    warnings = plan.warnings
    lines = [parts.status(plan)]
    lines += [f"WARNING: {w}" for w in warnings] or ["No warnings."]
    return lines


def _findings(plan: Plan, sources) -> list[str]:
    out = []
    if plan.checks:
        out += ["", *_rule("Consistency of the givens (checked once for the file)", "-")]
        out += [f"  {f.line()}  [{', '.join(f.sections)}]" for f in plan.checks]
    if plan.constraints:
        out += ["", *_rule("Constraints", "-")]
        out += [f"  {_cited(f.line(), parts.constraint_source(f), sources)}  "
                f"[{', '.join(f.sections)}]" for f in plan.constraints]
    return out
