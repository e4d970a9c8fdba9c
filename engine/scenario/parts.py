"""What every report format shows, as data: the summary lines, each given's origin, sources.

The formats (text, Markdown, HTML, LaTeX) differ only in markup; they take their content from
here and from each Result's own data and renderers (numbers as `Result` shows them: percent
for fractions, 11.05M USD; a user's value with how it was read), so they say the same thing.
Long citations are numbered into the report's one sources list, as `text.sources`
numbers them for a single answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from napkinmath.answer.data import Given, Root, StepRecord
from napkinmath.answer.result import Result
from napkinmath.rendering.result import explicit as _explicit
from napkinmath.scenario.answer import Plan, SectionAnswer
from napkinmath.text.sources import Sources, record_source

if TYPE_CHECKING:
    import sympy

    from napkinmath.library.declare import Variable
    from napkinmath.library.print_layout import Layout


@dataclass(frozen=True)
class Line:
    """One answer of the executive summary."""

    section: str
    name: str
    value: str  # "64 GPU", "34.5%", or a range "0.3 … 0.5"
    meaning: str  # the variable's description
    fed: str = ""  # "used as n_gpus from here on"


def summary(plan: Plan, style: str = "text") -> list[Line]:
    """Each question's answer with its unit and one line of meaning, section by section."""
    from napkinmath.catalog.lookup import variables

    known = variables()
    lines = []
    for s in plan.sections:
        values = s.answer.values
        renamed = {mine: later for later, mine in s.section.feeds.items() if later != mine}
        for name in s.section.ask:
            value = values[name]
            if hasattr(value, "units"):  # a point answer, shown as its Result shows it
                text = s.result._fmt(s.result._shown(name), known[name], style)
            else:  # an interval or a spread: its own text
                text = str(value)
            fed = f"used as {renamed[name]} from here on" if name in renamed else ""
            lines.append(Line(s.title, name, text, known[name].description, fed))
    return lines


def status(plan: Plan) -> str:
    """'Constraints: 2 of 2 hold. Over-determined givens: 3 of 3 checks agree.'"""
    held = sum(f.ok for f in plan.constraints)
    agreed = sum(f.ok for f in plan.checks)
    parts = [
        f"Constraints: {held} of {len(plan.constraints)} hold."
        if plan.constraints
        else "No constraint applies.",
        f"Over-determined givens: {agreed} of {len(plan.checks)} checks agree."
        if plan.checks
        else "No given is over-determined.",
    ]
    return " ".join(parts)


def origin(s: SectionAnswer, name: str, given: Given) -> tuple[str, str]:
    """Where a section's given came from, and the citation it carries ('' when none): the
    plan file's line (with how a value was read), an earlier answer, a record value (the
    user's own records labelled so) or a stated assumption."""
    what, cited = record_source(given.record, given.note)
    if given.origin == "given":
        where = s.origins.get(name, "you")
        said = [t for t in (what if given.note != "given" else "", given.reading) if t]
        return (f"{where}: {'; '.join(said)}" if said else where), cited
    if given.origin == "assumption":
        return f"ASSUMPTION: {what}", cited
    return f"record {what}", cited


@dataclass(frozen=True)
class Row:
    """One given of a section: its value as shown, where it came from, its citation."""

    name: str
    value: str
    origin: str
    source: str  # a citation for the sources list, or ''


def givens(s: SectionAnswer) -> list[Row]:
    """Every given of the section's answer, in the answer's order."""
    spreads = {b.name: b.describe() for b in getattr(s.answer, "bounds", [])}
    rows = []
    for name, given in s.result.givens.items():
        value = spreads.get(name) or s.result._fmt(given.quantity, given.variable)
        rows.append(Row(name, value, *origin(s, name, given)))
    return rows


def centre_note(s: SectionAnswer) -> str:
    """For an answer over ranges: the derivation shown is the one at their centres."""
    if isinstance(s.answer, Result) or not s.answer.bounds:
        return ""
    names = ", ".join(b.name for b in s.answer.bounds)
    return (
        f"The derivation below is the one at the centre of {names}; the answers above "
        "span the whole range."
    )


def section_constraints(s: SectionAnswer) -> tuple[str, list[tuple[bool, str]]]:
    """The section's constraints as (holds, line), under their heading: over the whole
    range or the samples for a ranged or distributed given, else at the answer's point."""
    answer = s.answer
    if not isinstance(answer, Result):  # a range: the constraints over the spread
        return (
            answer.constraints_heading.rstrip(":"),
            [(not c.warning(), c.line()) for c in answer.constraints],
        )
    return "Constraints", [(c.holds, c.line()) for c in s.result.constraints]


def constraint_source(finding) -> str:
    return getattr(getattr(finding.record, "constraint", None), "source", "") or ""


def sources(plan: Plan) -> Sources:
    """The report's citations, numbered in the order a reader meets them (each section's
    givens, then its steps; each optimization's best the same way; then the constraints);
    short ones ('definition') stay inline."""
    found = Sources()
    for s in derivations(plan):
        for row in givens(s):
            if row.source:
                found.number(row.source)
        for step in s.result.steps:
            for f in step.formulas:
                found.number(f.source)
    for finding in plan.constraints:
        if constraint_source(finding):
            found.number(constraint_source(finding))
    return found


def derivations(plan: Plan) -> list[SectionAnswer]:
    """Every derivation the report shows: each section's, then each optimization's best."""
    best = [o.derivation for o in plan.optimizations if o.derivation is not None]
    return [*plan.sections, *best]


def assumptions(plan: Plan) -> list[tuple[str, str]]:
    """(name, the assumption) for every stated default any section (or an optimization's best
    candidate) used, once each."""
    found: dict[str, str] = {}
    for s in derivations(plan):
        for name, given in s.result.givens.items():
            if given.origin == "assumption":
                found.setdefault(name, given.note)
    return list(found.items())


def sweep_note(table) -> str:
    """A sweep table's notes as one line ('' when none)."""
    return " ".join(getattr(table, "notes", []) or [])


@dataclass(frozen=True)
class Solved:
    """One unknown of a step: its rearranged expression and its value lines."""

    name: str
    var: Variable
    root: Root  # the rearranged expression of the other variables (its tree, its layout)
    explicit: bool  # the formula already reads `name = ...` (no rearranging shown)
    #: the substituted line (when it differs from the result) and the result, as Result
    #: prints them
    lines: tuple[str, ...]

    @property
    def layout(self) -> Layout:
        """The rearranged expression laid out for printing (no sympy where it is stored)."""
        return cast("Layout", self.root.layout)  # a Root's layout is a print_layout.Layout

    @property
    def expr(self) -> sympy.Expr:
        """The rearranged expression in sympy (imports sympy)."""
        return self.root.expr


@dataclass(frozen=True)
class Step:
    number: int
    head: str
    sources: tuple[str, ...]
    formulas: tuple  # Formula objects (equation, title, source)
    solved: tuple[Solved, ...]
    notes: tuple[str, ...]
    record: StepRecord


def steps(s: SectionAnswer) -> list[Step]:
    """The derivation of a section's point answer, step by step, from the Result's data."""
    result = s.result
    out = []
    for number, step in enumerate(result.steps, 1):
        solved = []
        for var in step.unknowns:
            explicit = all(_explicit(f, var) for f in step.formulas)
            solved.append(
                Solved(
                    var.name,
                    var,
                    step.roots[var.name],
                    explicit,
                    tuple(result._value_lines(step, var)),
                )
            )
        notes = [f.note for f in step.formulas if f.note and step.rounding]
        notes += [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
        notes += [step.note] if step.note else []
        out.append(
            Step(
                number,
                " + ".join(f.title for f in step.formulas),
                tuple(dict.fromkeys(f.source for f in step.formulas)),
                tuple(step.formulas),
                tuple(solved),
                tuple(notes),
                step,
            )
        )
    return out


def equation_text(formula) -> str:
    """'train_time = train_compute / (mfu · n_gpus · peak_flops)'."""
    lhs, rhs = formula.layouts
    return f"{expression_text(lhs)} = {expression_text(rhs)}"


def expression_text(expr) -> str:
    """A layout (or a sympy expression) over variable names, as text."""
    from napkinmath.library.print_layout import Printer

    return Printer(lambda symbol: symbol.name)(expr)


def latex_symbol(symbol) -> str:
    """A variable's own LaTeX symbol (n_{\\mathrm{GPU}} for n_gpus)."""
    from napkinmath.catalog.lookup import variables

    return variables()[symbol.name].latex


def leaves(s: SectionAnswer, step: Step, style: str = "text"):
    """(a name's value as the step used it, the same inside a power): the Result's leaves
    of the substituted line (7B param, 40%; a fraction in a power as a plain number)."""
    return (
        s.result._leaf_text(step.record, style),
        s.result._leaf_text(step.record, style, plain=True),
    )
