"""The plan as GitHub-flavoured Markdown (renders on common forges and wikis).

Sweep plots are not embedded (a Markdown file cannot carry them portably); their tables are.
Every piece of text goes through `napkinmath.checking.escape`: a title, a note, a name or a
value cannot add HTML, a link, an image, a comment or a code fence to the page, nor a control
character to the file.
"""

from __future__ import annotations

from napkinmath.checking.escape import md_block, md_code, md_inline
from napkinmath.scenario import parts
from napkinmath.scenario.answer import Plan
from napkinmath.text.visible import visible

_cell = md_inline


def _code(text: str, in_table: bool = False) -> str:
    return md_code(text, in_table)


def render(plan: Plan) -> str:
    sources = parts.sources(plan)
    out = [f"# {_cell(plan.title)}", ""]
    if plan.scenario.notes.strip():
        out += [md_block(plan.scenario.notes.strip()), ""]
    out += ["## Summary", "", "| section | answer | value | meaning |", "|---|---|---|---|"]
    for line in parts.summary(plan):
        fed = f" (used as {_code(line.fed.split()[2], True)} from here on)" if line.fed else ""
        out.append(f"| {_cell(line.section)} | {_code(line.name, True)} | "
                   f"**{_cell(line.value)}** | {_cell(line.meaning)}{fed} |")
    out += [""]
    out.append(_cell(parts.status(plan)))
    out.append("")
    out += [f"> **Warning:** {_cell(w)}  " for w in plan.warnings] or ["No warnings."]
    for number, s in enumerate(plan.sections, 1):
        out += ["", f"## {number}. {_cell(s.title)}", ""]
        if s.section.notes.strip():
            out += [md_block(s.section.notes.strip()), ""]
        out += [f"**{_cell(line)}**  " for line in s.answer.headline()]
        out += ["", "| given | value | from |", "|---|---|---|"]
        out += [f"| {_code(r.name, True)} | {_cell(r.value)} | "
                f"{_cell(_cited(r.origin, r.source, sources))} |" for r in parts.givens(s)]
        out.append("")
        if parts.centre_note(s):
            out += [f"*{_cell(parts.centre_note(s))}*", ""]
        for step in parts.steps(s):
            cited = _cell(sources.cite(*step.sources))
            out.append(f"{step.number}. **{_cell(step.head)}** {cited}")
            out += [f"   - {_code(parts.equation_text(f))}" for f in step.formulas]
            for solved in step.solved:
                if not solved.explicit:
                    out.append(f"   - solved for {_code(solved.name)}: "
                               f"{_code(solved.name + ' = ' + parts.expression_text(solved.expr))}")
                out += [f"   - {_code('= ' + line)}" for line in solved.lines]
            out += [f"   - *{_cell(note)}*" for note in step.notes]
        if not s.result.steps:
            out.append("None needed: every question is a given or a record value.")
        out += [f"\n*Note:* {_cell(n)}" for n in s.result.notes]
        heading, limits = parts.section_constraints(s)
        if limits:
            out += ["", f"{_cell(heading)}:", ""] + [f"- {_cell(line)}" for _, line in limits]
        for sens in s.sensitivities:
            out += ["", f"**What {_code(sens.target)} hangs on**", "", sens.to_markdown()]
    if plan.checks:
        out += ["", "## Consistency of the givens", "",
                "Over-determined givens, checked once for the whole file:", ""]
        out += [f"- {_cell(f.line())} *({_cell(', '.join(f.sections))})*" for f in plan.checks]
    if plan.constraints:
        out += ["", "## Constraints", ""]
        out += [f"- {_cell(_cited(f.line(), parts.constraint_source(f), sources))} "
                f"*({_cell(', '.join(f.sections))})*" for f in plan.constraints]
    for spec, table in plan.sweeps:
        out += ["", f"## Sweep: {_cell(spec.title)}", "", table.to_markdown()]
    for spec, comparison in plan.comparisons:
        out += ["", f"## Comparison: {_cell(spec.title)}", "", comparison.to_markdown()]
    assumed = parts.assumptions(plan)
    if assumed:
        out += ["", "## Assumptions", ""]
        out += [f"- {_code(n)}: {_cell(a)}" for n, a in assumed]
    out += ["", "## Sources", ""]
    out += [f"{n}. {_cell(source)}" for n, source in sources.entries()]
    return visible("\n".join(out), keep="\n")  # nothing of the user's is left raw


def _cited(text: str, source: str, sources) -> str:
    return f"{text} {sources.cite(source)}" if source else text
