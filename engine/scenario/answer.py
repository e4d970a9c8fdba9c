"""Answering a scenario: each section solved in order, answers fed forward by name.

A section sees the file's givens, the earlier answers it names in `uses` (by name: a
section's `feeds` hands an answer on under another name, so that a GPU count rounded to whole
nodes in "Compute" is the `n_gpus` that "Schedule and cost" uses), then its own givens; its
questions are never given. A section's own givens are a what-if for that section: they are
not checked against the rest of the file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

import pint

from napkinmath import arguments, deadline
from napkinmath.answer.data import CheckRecord, ConstraintRecord
from napkinmath.answer.result import Result
from napkinmath.errors import InputError, NapkinError
from napkinmath.scenario.budget import check_plan
from napkinmath.scenario.load import (
    WHAT_IF_RECORD_KEYS,
    ComparisonSpec,
    OptimizationSpec,
    RecordLists,
    RecordNames,
    Scenario,
    Section,
    Sweep,
    load,
)

if TYPE_CHECKING:
    from napkinmath.scenario.optimizing import OptimizationAnswer
    from napkinmath.whatif.answers import RangeResult
    from napkinmath.whatif.compare import Comparison
    from napkinmath.whatif.gap import GapBudget
    from napkinmath.whatif.spread import Interval
    from napkinmath.whatif.sweep import Table


class _Options(TypedDict, total=False):
    """The options a section passes to solve: the records, and what the file sets."""

    gpu: str
    model: str
    precision: str
    tolerance: float
    on_inconsistent: str
    units: dict[str, str]
    achievable: bool
    ranges: bool


def _point(answer: Result | RangeResult) -> Result:
    """The point answer (for a range, the one at the centre of every range)."""
    return answer if isinstance(answer, Result) else answer.center


@dataclass
class SectionAnswer:
    """One section's answer and where each of its givens came from."""

    section: Section
    #: a Result, or a RangeResult when a given is a spread (a plan asks for no samples, so
    #: never a SampleResult)
    answer: Result | RangeResult
    #: given name -> where the plan took it from ("plan file, line 9", "answer of Compute")
    origins: dict[str, str]
    #: names this section hands to later ones, with the value
    fed: dict[str, pint.Quantity]
    sensitivities: list = field(default_factory=list)
    #: the answer from every value known (its checks and constraints are the file's)
    checked: Result | None = None
    #: the gap budget of a measured step against this section's parts (`gap =`)
    gap: GapBudget | None = None

    @property
    def result(self) -> Result:
        """The point answer (for a spread, the one at the centre of every range)."""
        return _point(self.answer)

    @property
    def title(self) -> str:
        return self.section.title


@dataclass
class Finding:
    """A check or constraint, with the sections it came up in (listed once for the file)."""

    record: CheckRecord | ConstraintRecord
    sections: list[str]

    @property
    def ok(self) -> bool:
        r = self.record
        return r.holds if isinstance(r, ConstraintRecord) else r.agrees

    def line(self) -> str:
        r = self.record
        if isinstance(r, ConstraintRecord):
            return r.line()
        if r.agrees:
            return f"✓ {r.formula.title}: {r.describe()} (agree within {r.relative_difference:.2%})"
        return f"✗ DISAGREE: {r.formula.title}: {r.describe()} ({r.relative_difference:.1%} apart)"


@dataclass
class Plan:
    """A scenario answered: `answers`, `warnings`, and the report in every format."""

    scenario: Scenario
    sections: list[SectionAnswer]
    checks: list[Finding]
    constraints: list[Finding]
    sweeps: list = field(default_factory=list)  # (Sweep, Table)
    comparisons: list = field(default_factory=list)  # (ComparisonSpec, whatif Comparison)
    optimizations: list[OptimizationAnswer] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.scenario.title

    @property
    def answers(self) -> dict[str, pint.Quantity | Interval]:
        """Every question's answer by name (a name asked twice: the later section's); an
        Interval where a section's given is a range."""
        out: dict[str, pint.Quantity | Interval] = {}
        for s in self.sections:
            out.update(s.answer.values)
        return out

    @property
    def warnings(self) -> list[str]:
        """Violated constraints and disagreeing givens, once each, naming their sections;
        then the what-ifs' violations: a section's range or samples, a sweep's rows, a
        comparison's rows, an optimization that nothing fits."""
        found = []
        for f in self.constraints + self.checks:
            if not f.ok:
                r = f.record
                what = (
                    f"{r.constraint.title} is violated: {r.describe()}"
                    if isinstance(r, ConstraintRecord)
                    else f"{r.formula.title} disagrees: {r.describe()} "
                    f"({r.relative_difference:.1%} apart)"
                )
                found.append(f"{what} (in {', '.join(f.sections)})")
        return found + self.what_if_warnings

    @property
    def what_if_warnings(self) -> list[str]:
        """Constraints violated over a section's range or samples, in a sweep's rows or in
        a comparison's rows, and optimizations where no candidate fits, each naming where."""
        found = [
            f"{c.warning()} (in {s.title}, over its {_spread_kind(s.answer)})"
            for s in self.sections
            for c in getattr(s.answer, "constraints", [])
            if not isinstance(s.answer, Result) and c.warning()
        ]
        found += [
            f"{w} (in sweep {spec.title})" for spec, table in self.sweeps for w in table.warnings
        ]
        found += [
            f"{w} (in comparison {spec.title})"
            for spec, comparison in self.comparisons
            for w in comparison.warnings
        ]
        found += [
            f"{w} (in optimization {o.title})" for o in self.optimizations for w in o.warnings
        ]
        return found

    @property
    def ok(self) -> bool:
        """True when every constraint holds (in every what-if too), every over-determined
        given agrees and every optimization finds a candidate that fits."""
        return all(f.ok for f in self.constraints + self.checks) and not self.what_if_warnings

    # --- renderers (each in its own module) ---------------------------------------------------
    def to_text(self) -> str:
        from napkinmath.scenario.report_text import render

        return render(self)

    def __str__(self) -> str:
        return self.to_text()

    def to_markdown(self) -> str:
        from napkinmath.scenario.report_markdown import render

        return render(self)

    def to_html(self) -> str:
        from napkinmath.scenario.report_html import render

        return render(self)

    def to_latex(self) -> str:
        from napkinmath.scenario.report_latex import render

        return render(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: each section's answer, sweep, comparison and optimization
        (`Optimum.to_dict`), the warnings and whether the plan holds."""
        import json

        from napkinmath.schemas import answer_kind, tagged

        return tagged(
            "plan",
            {
                "title": self.title,
                "ok": self.ok,
                "warnings": self.warnings,
                "sections": [
                    {"title": s.title, "answer": tagged(answer_kind(s.answer), s.answer.to_dict())}
                    for s in self.sections
                ],
                "sweeps": [
                    {"title": spec.title, "table": tagged("table", t.to_dict())}
                    for spec, t in self.sweeps
                ],
                "comparisons": [
                    {"title": spec.title, "comparison": tagged("table", json.loads(c.to_json()))}
                    for spec, c in self.comparisons
                ],
                "optimizations": [o.to_dict() for o in self.optimizations],
            },
        )

    def to_json(self, indent: int | None = 2) -> str:
        import json

        from napkinmath import arguments
        from napkinmath.text.visible import finite_json

        return json.dumps(
            finite_json(self.to_dict()),
            indent=arguments.indent(indent),
            ensure_ascii=False,
            allow_nan=False,
        )

    def to_pdf(self, path: str | Path) -> Path:
        import tempfile

        from napkinmath.scenario.report_latex import write_pdf
        from napkinmath.writing import write_output

        target = arguments.path(path, "path", what="a file name such as 'plan.pdf'")
        with tempfile.TemporaryDirectory(prefix="napkin-pdf-") as folder:
            pdf = write_pdf(self, Path(folder) / (target.name or "plan.pdf")).read_bytes()
        write_output(target, pdf, inputs=self._inputs())
        return target

    def _inputs(self) -> list[tuple[str, str]]:
        """The files this plan was read from, which no report may overwrite."""
        scenario = self.scenario
        plan_file = [] if scenario.source == "<dict>" else [("plan file", scenario.source)]
        return [*plan_file, *(("records file", path) for path in scenario.record_files)]

    def write(self, path: str | Path) -> Path:
        """Write the report; the format follows the suffix (.md, .html, .tex, .pdf, .txt,
        .json).
        Never over the plan's own files nor through a link, and atomically
        (`napkinmath.writing`)."""
        from napkinmath.writing import write_output

        target = arguments.path(path, "path", what="a file name such as 'plan.md'")
        suffix = target.suffix.lower()
        if suffix == ".pdf":
            return self.to_pdf(target)
        render = {
            ".md": self.to_markdown,
            ".markdown": self.to_markdown,
            ".html": self.to_html,
            ".htm": self.to_html,
            ".tex": self.to_latex,
            ".txt": self.to_text,
            ".json": self.to_json,
        }.get(suffix)
        if render is None:
            raise InputError(
                f"cannot write a report as {arguments.shown(target.name)}: use .md, "
                ".html, .pdf, .tex, .txt or .json",
                "path",
            )
        if suffix in (".md", ".markdown", ".tex"):
            return self._write_with_figures(target, suffix)
        write_output(target, render() + "\n", inputs=self._inputs())
        return target

    def _write_with_figures(self, target: Path, suffix: str) -> Path:
        """Markdown or LaTeX, its plots (SVG or PDF) in a folder beside it that the report
        links (`napkinmath.scenario.figures`); none to a stream such as /dev/stdout."""
        from napkinmath.scenario import report_latex, report_markdown
        from napkinmath.scenario.figures import Figures, folder_for
        from napkinmath.writing import check_output, write_output

        inputs = self._inputs()
        figures = None
        if check_output(target, inputs) == "file":
            figures = Figures("pdf" if suffix == ".tex" else "svg", folder_for(target))
        module = report_latex if suffix == ".tex" else report_markdown
        text = module.render(self, figures)
        if figures is not None:
            figures.write(target, inputs)
        write_output(target, text + "\n", inputs=inputs)
        return target

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """The HTML report as one <div> for a notebook: math as MathML, plots inline."""
        from napkinmath.scenario.report_html import fragment

        return fragment(self)


@deadline.per_question
def plan(
    source: str | Path | Mapping | Scenario,
    records: object = None,
    achievable: bool | None = None,
) -> Plan:
    """Answer a scenario file (.toml or .json) or dict as one plan; see napkinmath.scenario.

    Sweeps, comparisons and optimizations see the file's givens, the answers a section
    `feeds` on under a new name, and their own givens (an optimization not the names it
    decides, optimises or requires). `records` (a path or list of paths) lays the user's
    records files over the shipped ones, after those the file names ([records] files);
    `achievable=True` uses measured peaks as the file's `achievable = true` does."""
    from napkinmath.solving.records import user_records

    if achievable is not None:
        achievable = arguments.flag(achievable, "achievable")
    if not isinstance(source, (Scenario, Mapping)):
        source = arguments.path(source, "source", what="a plan file (.toml or .json) or a dict")
    scenario = source if isinstance(source, Scenario) else load(source, records)
    if achievable:
        scenario.achievable = True
    check_plan(scenario)  # the whole plan's work, counted before any of it is done
    from napkinmath.catalog.user import user_formulas

    with (
        user_records(scenario.record_files or None),
        user_formulas(scenario.formula_sources or None),
    ):
        return _plan(scenario)


def _plan(scenario: Scenario) -> Plan:
    files = {
        name: (value, f"plan file{_line(scenario, ('givens', name))}")
        for name, value in scenario.givens.items()
    }
    handed: dict[str, tuple[object, str]] = {}  # answers so far, by the name they feed
    answered: list[SectionAnswer] = []
    for section in scenario.sections:
        known = dict(files)
        for i, name in enumerate(section.uses):
            if name not in handed:
                raise _located(
                    scenario,
                    (*section.where, "uses", i),
                    f"no earlier section answers {name!r} (answers so far: "
                    f"{', '.join(handed) or 'none'})",
                )
            known[name] = handed[name]
        done = _answer(scenario, section, known)
        answered.append(done)
        centre = " at the centre of its range" if getattr(done.answer, "bounds", None) else ""
        for name, q in done.fed.items():
            handed[name] = (
                q,
                f"answer of {section.title}"
                + (f" ({section.feeds[name]})" if section.feeds.get(name, name) != name else "")
                + centre,
            )
    results = [(s.title, s.checked or s.result) for s in answered]
    # a section's own givens are a what-if for that section, not checked against the file
    own = {s.title: set(s.section.givens) for s in answered}
    checks = _findings(
        [
            (t, c)
            for t, r in results
            for c in r.checks
            if not own[t] & {v.name for v in c.formula.variables}
        ],
        lambda c: (c.formula.name, c.describe()),
    )
    constraints = _findings(
        [(t, c) for t, r in results for c in r.constraints],
        lambda c: (c.constraint.name, c.describe()),
    )
    found = Plan(scenario, answered, checks, constraints)
    # sweeps and comparisons: the file's givens and the renamed answers (feeds), not every
    # answer (a swept input would contradict answers derived at its planned value)
    later = dict(scenario.givens)
    for s in answered:
        later.update({name: s.fed[name] for name in s.section.feeds})
    found.sweeps = [(s, _sweep(scenario, s, later)) for s in scenario.sweeps]
    found.comparisons = [(c, _compare(scenario, c, later)) for c in scenario.comparisons]
    found.optimizations = _optimizations(scenario, answered)
    return found


def _optimizations(scenario: Scenario, answered: list[SectionAnswer]) -> list[OptimizationAnswer]:
    """Each [[optimizations]] table answered with the file's givens and the renamed answers
    (as sweeps see them), within what is left of the plan's candidate budget."""
    if not scenario.optimizations:
        return []
    from napkinmath.scenario import optimizing
    from napkinmath.scenario.budget import MAX_CANDIDATES

    known: dict[str, tuple[object, str]] = {
        name: (value, f"plan file{_line(scenario, ('givens', name))}")
        for name, value in scenario.givens.items()
    }
    for s in answered:
        for name, mine in s.section.feeds.items():
            known[name] = (s.fed[name], f"answer of {s.title}" + (f" ({mine})" * (mine != name)))
    left = MAX_CANDIDATES
    out = []
    for spec in scenario.optimizations:
        done = optimizing.answer(scenario, spec, known, left)
        left -= done.optimum.count
        out.append(done)
    return out


def _spread_kind(answer: object) -> str:
    return "samples" if hasattr(answer, "fit_share") else "range"


def _line(scenario: Scenario, path: tuple) -> str:
    from napkinmath.text.locate import line_of

    line = line_of(scenario.lines, path) if scenario.lines else None
    return f", line {line}" if line else ""


def _answer(
    scenario: Scenario, section: Section, known: Mapping[str, tuple[object, str]]
) -> SectionAnswer:
    from napkinmath.questions import solve

    # library variables, never one of solve's options (mypy checks a ** mapping's values
    # against each typed option)
    givens: dict[str, Any] = {n: v for n, (v, _) in known.items() if n not in section.ask}
    origins = {n: o for n, (_, o) in known.items() if n not in section.ask}
    for name, value in section.givens.items():
        if name in section.ask:
            raise _located(
                scenario,
                (*section.where, "givens", name),
                f"{name} is both asked and given in this section: drop one",
            )
        givens[name] = value
        where = _line(scenario, (*section.where, "givens", name))
        origins[name] = f"section {section.title}{where}"
    options = _options(scenario, section, givens)
    try:
        whole = solve(list(section.ask), **options, **givens)
    except NapkinError as exc:
        culprit = getattr(exc, "variable", None)
        path = _given_path(scenario, section, culprit) if culprit else section.where
        raise type(exc)(
            f"{scenario.where(path)}: in section {section.title!r}: {exc}", *_extra(exc)
        ) from None
    answer = _needed_only(section, whole, options, givens)
    point = _point(answer)
    fed = {n: point.values[n] for n in section.ask}
    for later, mine in section.feeds.items():
        fed[later] = point.values[mine]
    sensitivities = []
    for target in section.sensitivity:
        try:
            sensitivities.append(answer.sensitivity(target))
        except NapkinError as exc:
            raise _located(scenario, (*section.where, "sensitivity"), str(exc)) from None
    checked = _point(whole)
    budget = None
    if section.gap:
        from napkinmath.whatif.gap import gap

        spec = dict(section.gap)
        measured = spec.pop("measured", {})
        try:
            budget = gap(_point(answer), measured=measured, **spec)  # type: ignore[arg-type]
        except NapkinError as exc:
            raise _located(scenario, (*section.where, "gap"), str(exc)) from None
    return SectionAnswer(
        section,
        answer,
        {n: o for n, o in origins.items() if n in givens},
        fed,
        sensitivities,
        checked,
        budget,
    )


def _options(scenario: Scenario, section: Section, givens: Mapping[str, object]) -> _Options:
    """The solve options of a section: the plan's tolerance, records and units, achievable
    rates and precision for single answers only (refused where a given is a range)."""
    from napkinmath.whatif.spread import is_spread

    records: RecordNames = {**scenario.records, **section.records}
    options: _Options = {
        "tolerance": scenario.tolerance,
        "on_inconsistent": "warn",
        **records,
    }
    spread = any(is_spread(v) for v in givens.values())
    if section.units and not spread:
        options["units"] = section.units
    if scenario.achievable:
        if spread:
            raise _located(
                scenario,
                ("records", "achievable"),
                "achievable applies to "
                f"single answers; section {section.title!r} has a ranged given",
            )
        options["achievable"] = True
    if spread:
        options["ranges"] = True
        options.pop("on_inconsistent")
        if options.pop("precision", None):
            raise _located(
                scenario,
                (*section.where, "precision"),
                "precision applies to single answers; a given of this section is a range",
            )
    return options


def _needed_only(
    section: Section,
    whole: Result | RangeResult,
    options: _Options,
    givens: Mapping[str, Any],
) -> Result | RangeResult:
    """The answer again from only the givens its steps read, so that its givens, derivation
    and sensitivity show what the answer hangs on; the first answer, from every value known,
    keeps the checks and constraints for the file (the same route, so the same numbers)."""
    from napkinmath.questions import solve

    point = _point(whole)
    from napkinmath.library.settings import SETTINGS

    read = {v.name for step in point.steps for f in step.formulas for v in f.variables}
    needed = {
        n: v
        for n, v in givens.items()
        if n in read or (n in SETTINGS and read.intersection(*SETTINGS[n].choices.values()))
    }
    if len(needed) == len(givens):
        return whole
    if whole is point and not (point.checks or point.constraints or point.set_aside or point.notes):
        # nothing but the unread givens sets the first answer apart: the same answer,
        # without solving it again
        answer = copy.copy(point)
        answer.unused = {}
        return answer
    try:
        answer = solve(list(section.ask), **options, **needed)
    except NapkinError:
        return whole
    same = _point(answer)
    if [s.formulas for s in same.steps] != [s.formulas for s in point.steps]:
        return whole
    return answer


def _extra(exc: NapkinError) -> tuple:
    """The further constructor arguments of an error type, to re-raise it with a location."""
    for attrs in (("targets", "suggestions"), ("checks",)):
        if all(hasattr(exc, a) for a in attrs):
            return tuple(getattr(exc, a) for a in attrs)
    return (getattr(exc, "variable", None),) if hasattr(exc, "variable") else ()


def _given_path(scenario: Scenario, section: Section, name: str) -> tuple:
    if name in section.givens:
        return (*section.where, "givens", name)
    if name in scenario.givens:
        return ("givens", name)
    return section.where


def _located(scenario: Scenario, path: tuple, message: str) -> InputError:
    return InputError(f"{scenario.where(path)}: {message}", str(path[-1]))


_Record = TypeVar("_Record", CheckRecord, ConstraintRecord)


def _findings(items: list[tuple[str, _Record]], key: Callable[[_Record], tuple]) -> list[Finding]:
    """Each distinct check or constraint once, with every section it came up in."""
    found: dict[tuple, Finding] = {}
    for title, record in items:
        k = key(record)
        if k in found:
            if title not in found[k].sections:
                found[k].sections.append(title)
        else:
            found[k] = Finding(record, [title])
    return list(found.values())


def _context(
    scenario: Scenario, spec: Sweep | ComparisonSpec, known: Mapping[str, object], skip: Set[str]
) -> dict[str, Any]:
    """The givens of a sweep or a comparison: library variables, never one of its options
    (typed Any: mypy checks a ** mapping's values against each typed option)."""
    givens = {n: v for n, v in known.items() if n not in skip}
    givens.update(spec.givens)
    return givens


def _what_if_records(
    scenario: Scenario, spec: Sweep | ComparisonSpec | OptimizationSpec
) -> RecordLists:
    """The file's gpu and model (its precision is for single answers), then the spec's own."""
    records = RecordLists()
    for key in WHAT_IF_RECORD_KEYS:
        if key in scenario.records:
            records[key] = scenario.records[key]
    return {**records, **spec.records}


def _sweep(scenario: Scenario, spec: Sweep, known: Mapping[str, object]) -> Table:
    from napkinmath.whatif.sweep import sweep

    records = _what_if_records(scenario, spec)
    givens = _context(scenario, spec, known, {*spec.target, *spec.over})
    try:
        return sweep(
            list(spec.target),
            over=spec.over,
            tolerance=scenario.tolerance,
            points=spec.points,
            achievable=scenario.achievable,
            **records,
            **givens,
        )
    except NapkinError as exc:
        name = getattr(exc, "variable", None)
        path = (
            (*spec.where, "over" if name in spec.over else "givens", name)
            if name in spec.over or name in spec.givens
            else spec.where
        )
        raise InputError(f"{scenario.where(path)}: sweep {spec.title!r}: {exc}", name) from None


def _compare(scenario: Scenario, spec: ComparisonSpec, known: Mapping[str, object]) -> Comparison:
    from napkinmath.whatif.compare import compare

    records = _what_if_records(scenario, spec)
    givens = _context(scenario, spec, known, set(spec.target))
    try:
        return compare(
            list(spec.target),
            tolerance=scenario.tolerance,
            best=spec.best,
            achievable=scenario.achievable,
            **records,
            **givens,
        )
    except NapkinError as exc:
        raise InputError(
            f"{scenario.where(spec.where)}: comparison {spec.title!r}: {exc}"
        ) from None
