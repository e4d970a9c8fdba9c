"""One walk over a plan's parts, in report order, for every report format.

`walk` decides what a report shows and in what order: the title, the summary (its answers,
status and warnings), each section (heading, givens, derivation step by step, notes,
constraints, sensitivities), the consistency checks and constraints of the whole file, the
sweeps, comparisons and optimizations (each optimization's best derived as a section is), the
assumptions and the numbered sources. A `PlanPrinter` per format
(text, Markdown, HTML, LaTeX) says only how each part looks; each method returns the part's
lines, and `finish` joins them into the document.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING

from napkinmath.scenario import parts
from napkinmath.scenario.answer import Plan, SectionAnswer

if TYPE_CHECKING:  # imported where a plan has an optimization (`_optimization`)
    from napkinmath.scenario import optimizing
    from napkinmath.scenario.optimizing import OptimizationAnswer


class PlanPrinter:
    """How one format prints each part of a plan's report (after sympy's Printer: one method
    per part). The hooks named `..._end` close a part of several; by default they print
    nothing."""

    def __init__(self, plan: Plan) -> None:
        #: the report's citations, numbered in the order a reader meets them
        self.numbered = parts.sources(plan)

    def finish(self, lines: list[str]) -> str:
        """The document of all the parts' lines."""
        return "\n".join(lines)

    def cited(self, text: str, source: str) -> str:
        """`text` with the number of its citation, as plain text (which the text and
        Markdown printers escape whole; HTML and LaTeX print it their own way)."""
        return f"{text} {self.numbered.cite(source)}" if source else text

    # --- the summary ---------------------------------------------------------------------
    def title(self, plan: Plan) -> list[str]:
        """The document's head: the plan's title and notes."""
        raise NotImplementedError

    def summary(self, lines: list[parts.Line]) -> list[str]:
        """The answers of every section, with their meanings."""
        raise NotImplementedError

    def status(self, text: str) -> list[str]:
        """'Constraints: 2 of 2 hold. ...'"""
        raise NotImplementedError

    def warnings(self, warnings: list[str]) -> list[str]:
        """The plan's warnings, or that there are none."""
        raise NotImplementedError

    def summary_end(self) -> list[str]:
        return []

    # --- a section -----------------------------------------------------------------------
    def section(self, number: int, s: SectionAnswer) -> list[str]:
        """The section's heading, notes and headline answers."""
        raise NotImplementedError

    def givens(self, rows: list[parts.Row]) -> list[str]:
        """The section's givens, with where each came from."""
        raise NotImplementedError

    def derivation(self, s: SectionAnswer) -> list[str]:
        """The derivation's heading (and why there is none, where no step was needed)."""
        raise NotImplementedError

    def step(self, s: SectionAnswer, step: parts.Step) -> list[str]:
        """One step of the derivation: its formulas, each unknown solved, its notes."""
        raise NotImplementedError

    def derivation_end(self) -> list[str]:
        return []

    def notes(self, notes: list[str]) -> list[str]:
        """The notes of the section's answer."""
        raise NotImplementedError

    def section_constraints(self, heading: str, limits: list[tuple[bool, str]]) -> list[str]:
        """The constraints of the section's answer, as (holds, line)."""
        raise NotImplementedError

    def sensitivity(self, sens) -> list[str]:
        """What one answer of the section hangs on."""
        raise NotImplementedError

    def gap(self, budget) -> list[str]:
        """A measured step itemised against the section's parts (`napkinmath.whatif.gap`)."""
        raise NotImplementedError

    def section_end(self) -> list[str]:
        return []

    # --- the whole file ------------------------------------------------------------------
    def checks(self, checks: list) -> list[str]:
        """The over-determined givens, checked once for the file."""
        raise NotImplementedError

    def constraints(self, constraints: list) -> list[str]:
        """The constraints over every section."""
        raise NotImplementedError

    def sweep(self, number: int, spec, table) -> list[str]:
        raise NotImplementedError

    def comparison(self, number: int, spec, comparison) -> list[str]:
        raise NotImplementedError

    def optimization(self, number: int, done: OptimizationAnswer, v: optimizing.View) -> list[str]:
        """An optimization: its goal, what was searched, the best (or why nothing fits), its
        binding constraints and boundaries, neighbours, runners-up, per-record, notes."""
        raise NotImplementedError

    def optimization_best(self, done: OptimizationAnswer) -> list[str]:
        """The heading of the best candidate's givens and derivation."""
        raise NotImplementedError

    def optimization_end(self) -> list[str]:
        return []

    def assumptions(self, assumed: list[tuple[str, str]]) -> list[str]:
        """(name, the assumption) of every stated default used."""
        raise NotImplementedError

    def sources(self, entries: list[tuple[int, str]]) -> list[str]:
        """The numbered sources list."""
        raise NotImplementedError


def by_section(lines: list[parts.Line]) -> list[tuple[str, list[parts.Line]]]:
    """The summary's lines in runs of one section each."""
    return [(section, list(run)) for section, run in groupby(lines, lambda line: line.section)]


def walk(plan: Plan, printer: PlanPrinter) -> str:
    """The report of `plan`: every part in report order, as `printer` prints it."""
    out = [
        *printer.title(plan),
        *printer.summary(parts.summary(plan)),
        *printer.status(parts.status(plan)),
        *printer.warnings(plan.warnings),
        *printer.summary_end(),
    ]
    for number, s in enumerate(plan.sections, 1):
        out += _section(printer, number, s)
    if plan.checks:
        out += printer.checks(plan.checks)
    if plan.constraints:
        out += printer.constraints(plan.constraints)
    for number, (spec, table) in enumerate(plan.sweeps, 1):
        out += printer.sweep(number, spec, table)
    for number, (spec, comparison) in enumerate(plan.comparisons, 1):
        out += printer.comparison(number, spec, comparison)
    for number, done in enumerate(plan.optimizations, 1):
        out += _optimization(printer, number, done)
    assumed = parts.assumptions(plan)
    if assumed:
        out += printer.assumptions(assumed)
    out += printer.sources(printer.numbered.entries())
    return printer.finish(out)


def _optimization(printer: PlanPrinter, number: int, done: OptimizationAnswer) -> list[str]:
    from napkinmath.scenario import optimizing

    out = printer.optimization(number, done, optimizing.view(done))
    s = done.derivation
    if s is not None:
        out += [*printer.optimization_best(done), *printer.givens(parts.givens(s))]
        out += printer.derivation(s)
        for step in parts.steps(s):
            out += printer.step(s, step)
        out += [*printer.derivation_end(), *printer.notes(s.result.notes)]
        heading, limits = parts.section_constraints(s)
        if limits:
            out += printer.section_constraints(heading, limits)
    return out + printer.optimization_end()


def _section(printer: PlanPrinter, number: int, s: SectionAnswer) -> list[str]:
    out = [*printer.section(number, s), *printer.givens(parts.givens(s)), *printer.derivation(s)]
    for step in parts.steps(s):
        out += printer.step(s, step)
    out += [*printer.derivation_end(), *printer.notes(s.result.notes)]
    heading, limits = parts.section_constraints(s)
    if limits:
        out += printer.section_constraints(heading, limits)
    for sens in s.sensitivities:
        out += printer.sensitivity(sens)
    if s.gap is not None:
        out += printer.gap(s.gap)
    return out + printer.section_end()
