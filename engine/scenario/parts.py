"""What every report format shows, as data: the summary lines, each given's origin, sources.

The formats (text, Markdown, HTML, LaTeX) differ only in markup; they take their content from
here and from each Result's own data and renderers, so they say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

from napkinmath.rendering.result import Given
from napkinmath.scenario.answer import Plan, SectionAnswer
from napkinmath.units import format_quantity


@dataclass(frozen=True)
class Line:
    """One answer of the executive summary."""

    section: str
    name: str
    value: str  # "64 GPU", or a range "0.3 … 0.5"
    meaning: str  # the variable's description
    fed: str = ""  # "used as n_gpus from here on"


def summary(plan: Plan, style: str = "text") -> list[Line]:
    """Each question's answer with its unit and one line of meaning, section by section."""
    from napkinmath.library.lookup import variables

    known = variables()
    lines = []
    for s in plan.sections:
        values = s.answer.values
        renamed = {mine: later for later, mine in s.section.feeds.items() if later != mine}
        for name in s.section.ask:
            value = values[name]
            text = format_quantity(value, style=style) if hasattr(value, "units") else str(value)
            fed = f"used as {renamed[name]} from here on" if name in renamed else ""
            lines.append(Line(s.title, name, text, known[name].description, fed))
    return lines


def status(plan: Plan) -> str:
    """'Constraints: 2 of 2 hold. Over-determined givens: 3 of 3 checks agree.'"""
    held = sum(f.ok for f in plan.constraints)
    agreed = sum(f.ok for f in plan.checks)
    parts = [f"Constraints: {held} of {len(plan.constraints)} hold." if plan.constraints
             else "No constraint applies.",
             f"Over-determined givens: {agreed} of {len(plan.checks)} checks agree."
             if plan.checks else "No given is over-determined."]
    return " ".join(parts)


def origin(s: SectionAnswer, name: str, given: Given) -> str:
    """Where a section's given came from: the plan file's line, an earlier answer, a record's
    source, or a stated assumption."""
    if given.origin == "given":
        where = s.origins.get(name, "you")
        return where if given.note == "given" else f"{where}: {given.note}"
    if given.origin == "assumption":
        return f"ASSUMPTION: {given.note}"
    return f"record {given.note}"


def givens(s: SectionAnswer, style: str = "text") -> list[tuple[str, str, str]]:
    """(name, value, origin) for every given of the section's answer, in the answer's order."""
    spreads = {b.name: b.describe() for b in getattr(s.answer, "bounds", [])}
    shown = []
    for name, given in s.result.givens.items():
        value = spreads.get(name) or format_quantity(given.quantity, style=style)
        shown.append((name, value, origin(s, name, given)))
    return shown


def centre_note(s: SectionAnswer) -> str:
    """For an answer over ranges: the derivation shown is the one at their centres."""
    if not getattr(s.answer, "bounds", None):
        return ""
    names = ", ".join(b.name for b in s.answer.bounds)
    return f"The derivation below is the one at the centre of {names}; the answers above " \
           "span the whole range."


def sources(plan: Plan) -> list[str]:
    """Every formula's source, record value's provenance and constraint's source, numbered in
    the order they first appear (formulas, then records, then constraints)."""
    found: dict[str, None] = {}
    for s in plan.sections:
        for step in s.result.steps:
            for f in step.formulas:
                if not f.source.startswith("definition"):  # a definition cites nothing
                    found.setdefault(f.source)
    for s in plan.sections:
        for given in s.result.givens.values():
            if given.origin == "record":
                found.setdefault(given.note)
    for f in plan.constraints:
        source = getattr(f.record.constraint, "source", "")
        if source:
            found.setdefault(source)
    return list(found)


def assumptions(plan: Plan) -> list[tuple[str, str]]:
    """(name, the assumption) for every stated default any section used, once each."""
    found: dict[str, str] = {}
    for s in plan.sections:
        for name, given in s.result.givens.items():
            if given.origin == "assumption":
                found.setdefault(name, given.note)
    return list(found.items())


def sweep_note(table) -> str:
    """A sweep table's notes as one line ('' when none)."""
    return " ".join(getattr(table, "notes", []) or [])


@dataclass(frozen=True)
class Solved:
    """One unknown of a step: its rearranged expression, the numbers put in, the result."""

    name: str
    expr: object  # sympy expression of the other variables
    explicit: bool  # the formula already reads `name = ...` (no rearranging shown)
    substituted: str  # the expression with every variable replaced by its value (text)
    value: object  # pint Quantity, in the unit a person would choose


@dataclass(frozen=True)
class Step:
    number: int
    head: str
    sources: tuple[str, ...]
    formulas: tuple  # Formula objects (equation, title, source)
    solved: tuple[Solved, ...]
    notes: tuple[str, ...]
    values: dict  # base-unit values of the step's variables


def steps(s: SectionAnswer) -> list[Step]:
    """The derivation of a section's point answer, step by step, from the Result's data."""
    from napkinmath.rendering.exprprint import Printer

    result = s.result
    out = []
    for number, step in enumerate(result.steps, 1):
        solved = []
        for var in step.unknowns:
            expr = step.solved[var.name]
            explicit = all(f.equation.lhs == var.symbol for f in step.formulas)
            text = Printer(result._leaf_text(step), substituted=True)(expr)
            solved.append(Solved(var.name, expr, explicit, text, result._display(var.name)))
        notes = [f.note for f in step.formulas if f.note and step.rounding]
        notes += [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
        notes += [step.note] if step.note else []
        out.append(Step(number, " + ".join(f.title for f in step.formulas),
                        tuple(dict.fromkeys(f.source for f in step.formulas)),
                        tuple(step.formulas), tuple(solved), tuple(notes), dict(step.values)))
    return out


def equation_text(formula) -> str:
    """'train_time = train_compute / (mfu · n_gpus · peak_flops)'."""
    from napkinmath.rendering.result import _equation_text

    return _equation_text(formula)


def expression_text(expr) -> str:
    from napkinmath.rendering.exprprint import Printer

    return Printer(lambda symbol: symbol.name)(expr)


def leaf(s: SectionAnswer, step: Step):
    """name -> the value a step used for it, as text with its unit."""

    def shown(name: str) -> str:
        return format_quantity(s.result._display(name, step.values.get(name)))

    return shown
