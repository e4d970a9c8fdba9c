"""A plan's [[optimizations]]: checked as they are read, answered by `nm.optimize`, and laid
out as data every report format prints (`napkinmath.whatif.optimize`, `.optimum`).

    [[optimizations]]
    title = "Smallest fleet"
    minimize = "n_gpus"                      # or maximize = ...; a list of two: Pareto
    over = { n_gpus = "whole nodes" }        # or ["n_gpus"]: the default domains
    require = ["train_time <= 3 weeks"]      # or { train_time = "<= 3 weeks" }
    givens = { mfu = 0.4 }                   # a value "<= 3 weeks" is a requirement too
    gpu = "H100-SXM"                         # a name, or a list to choose among
    top = 5                                  # runners-up listed

The plan's [givens], its [records] and the answers its sections feed on apply as they do to
sweeps, except for the names the optimization decides, optimises or requires.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from napkinmath.errors import InputError, NapkinError
from napkinmath.scenario.load import OptimizationSpec, Scenario, Section, Where

if TYPE_CHECKING:
    from napkinmath.scenario.answer import SectionAnswer
    from napkinmath.scenario.load import _Checker
    from napkinmath.whatif.optimum import Candidate, Optimum

#: objectives one optimization may have (two: a Pareto front)
MAX_OBJECTIVES = 2
MAX_TOP = 1000


# --- reading ---------------------------------------------------------------------------------
def check_optimization(checker: _Checker, o: dict, path: Where) -> OptimizationSpec:
    """One [[optimizations]] table (its keys already checked), each failure located."""
    from napkinmath.library.settings import SETTINGS

    objectives, maximize = _objectives(checker, o, path)
    over = _over(checker, o.get("over"), (*path, "over"), objectives)
    require = _require(checker, o.get("require"), (*path, "require"))
    raw = o.get("givens")
    plain: dict[str, object] = {}
    if raw is not None:
        if not isinstance(raw, dict):
            raise checker.fail((*path, "givens"), "expected a table of name = value")
        from napkinmath.whatif import requirements as req

        for name, value in raw.items():
            parsed = req.comparison(value)
            if parsed is None or name in SETTINGS:
                plain[name] = value
                continue
            checker.variable(name, (*path, "givens", name))
            try:
                req.requirement(name, *parsed)
            except NapkinError as exc:
                raise checker.fail((*path, "givens", name), str(exc)) from None
            require.append(f"{name} {str(value).strip()}")
    givens = checker.given_values(plain, (*path, "givens"))
    for name in givens:
        if over is not None and name in over:
            raise checker.fail(
                (*path, "givens", name),
                f"{name} is both a decision variable (over) and a given: drop one",
            )
        if name in objectives:
            raise checker.fail((*path, "givens", name), f"{name} is optimised: it cannot be given")
    top = o.get("top", 5)
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise checker.fail((*path, "top"), f"expected a whole number 1..{MAX_TOP}, got {top!r}")
    default = goal(objectives, maximize) + (f" over {', '.join(over)}" if over else "")
    return OptimizationSpec(
        title=checker.text(o.get("title"), (*path, "title")) or default,
        objectives=objectives,
        maximize=maximize,
        over=over,
        require=tuple(require),
        givens=givens,
        records=checker.record_lists(o, path),
        top=top,
        where=path,
    )


def _objectives(checker: _Checker, o: dict, path: Where) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the objectives in the table's order, those maximised)."""
    keys = [k for k in o if k in ("minimize", "maximize")]
    if not keys:
        raise checker.fail(
            path, 'an optimization needs minimize = "n_gpus" or maximize = "mfu_predicted"'
        )
    found: dict[str, tuple[str, ...]] = {k: checker.names(o[k], (*path, k)) for k in keys}
    if len(keys) == 2 and any(len(v) != 1 for v in found.values()):
        raise checker.fail(
            (*path, keys[1]),
            "with both minimize and maximize, give one name each (the two objectives of a "
            "Pareto front); or a list of two under one of them",
        )
    for key, names in found.items():
        if len(names) > MAX_OBJECTIVES:
            raise checker.fail(
                (*path, key),
                f"{len(names)} objectives: optimise one, or two for a Pareto front",
            )
        if len(set(names)) != len(names):
            raise checker.fail((*path, key), f"{names[0]!r} is named twice")
    objectives = tuple(n for k in keys for n in found[k])
    if len(set(objectives)) != len(objectives):
        raise checker.fail(
            (*path, keys[1]), f"{objectives[0]!r} is both minimised and maximised: drop one"
        )
    return objectives, found.get("maximize", ())


def _over(
    checker: _Checker, value: object, path: Where, objectives: tuple[str, ...]
) -> dict[str, object] | None:
    """{decision: its domain (text, a list, or None for the default)}; None: the objective's
    own default domain (a count such as n_gpus)."""
    from napkinmath.library.settings import SETTINGS
    from napkinmath.whatif.domains import COUNTS

    if value is None:
        if objectives[0] in COUNTS:
            return None
        raise checker.fail(
            path[:-1],
            f'what may change? give over = {{ batch_size = "powers of two:1..256" }} or a '
            f"list of names; {objectives[0]} is computed, not chosen",
        )
    if isinstance(value, list):
        if not value or not all(isinstance(n, str) for n in value):
            raise checker.fail(path, f"expected decision variable names, got {value!r}")
        table: dict[str, object] = dict.fromkeys(value)
    elif isinstance(value, dict) and value:
        table = dict(value)
    else:
        raise checker.fail(
            path,
            'expected a table such as { n_gpus = "whole nodes" } or a list of names, '
            f"got {value!r}",
        )
    for i, (name, domain) in enumerate(table.items()):
        where = (*path, i) if isinstance(value, list) else (*path, name)
        if name not in SETTINGS:
            checker.variable(name, where)
        if domain is None:
            continue
        if isinstance(domain, str) and domain.strip():
            continue
        if (
            isinstance(domain, list)
            and domain
            and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in domain)
        ):
            continue
        raise checker.fail(
            where, f'expected a domain such as "whole nodes", "1..8" or a list, got {domain!r}'
        )
    return table


def _require(checker: _Checker, value: object, path: Where) -> list[str]:
    """The requirements as 'name op value' texts, each read as nm.optimize reads it."""
    from napkinmath.whatif import requirements as req

    if value is None:
        return []
    items: list[tuple[Where, str]] = []
    if isinstance(value, str):
        items = [(path, value)]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [((*path, i), v) for i, v in enumerate(value)]
    elif isinstance(value, dict):
        for name, limit in value.items():
            parsed = req.comparison(limit)
            if parsed is None:
                raise checker.fail(
                    (*path, name),
                    f'expected a limit that starts with <=, <, >= or >, such as "<= 3 weeks", '
                    f"got {limit!r}",
                )
            checker.variable(name, (*path, name))
            items.append(((*path, name), f"{name} {str(limit).strip()}"))
    else:
        raise checker.fail(
            path, f'expected ["train_time <= 3 weeks", ...] or a table, got {value!r}'
        )
    for where, text in items:
        try:
            req.parse(text)
        except NapkinError as exc:
            raise checker.fail(where, str(exc)) from None
    return [text for _, text in items]


def goal(objectives: tuple[str, ...], maximize: tuple[str, ...]) -> str:
    """'minimise n_gpus', 'minimise n_gpus and maximise mfu_predicted'."""
    return " and ".join(("maximise " if o in maximize else "minimise ") + o for o in objectives)


# --- answering -------------------------------------------------------------------------------
@dataclass
class OptimizationAnswer:
    """One optimization answered: its spec, the Optimum, and the best candidate's Result as a
    section answer (so that every report prints its givens and derivation as a section's)."""

    spec: OptimizationSpec
    optimum: Optimum
    derivation: SectionAnswer | None = None
    origins: dict[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.spec.title

    @property
    def warnings(self) -> list[str]:
        return list(self.optimum.warnings)

    def to_dict(self) -> dict[str, Any]:
        from napkinmath.schemas import tagged

        return {"title": self.spec.title, "optimum": tagged("optimum", self.optimum.to_dict())}


def answer(
    scenario: Scenario,
    spec: OptimizationSpec,
    known: Mapping[str, tuple[object, str]],
    cap: int,
) -> OptimizationAnswer:
    """`nm.optimize` with the plan's givens and records and the spec's own, evaluating at most
    `cap` candidates (what is left of the plan's budget)."""
    from napkinmath.scenario import budget
    from napkinmath.scenario.answer import SectionAnswer, _line, _what_if_records
    from napkinmath.whatif import requirements as req
    from napkinmath.whatif.optimize import MAX_CANDIDATES, optimize

    required = {req.parse(text).name for text in spec.require}
    decided = set(spec.over or ()) | set(spec.objectives)
    skip = decided | required
    givens: dict[str, Any] = {n: v for n, (v, _) in known.items() if n not in skip}
    origins = {n: o for n, (_, o) in known.items() if n not in skip}
    for name, value in spec.givens.items():
        givens[name] = value
        origins[name] = f"optimization {spec.title}{_line(scenario, (*spec.where, 'givens', name))}"
    records = _what_if_records(scenario, spec)
    objective: str | list[str] = (
        spec.objectives[0] if len(spec.objectives) == 1 else list(spec.objectives)
    )
    try:
        found = optimize(
            objective,
            maximize=list(spec.maximize) or False,
            over=spec.over,
            require=list(spec.require) or None,
            precision=scenario.records.get("precision"),
            achievable=scenario.achievable,
            tolerance=scenario.tolerance,
            top=spec.top,
            max_candidates=min(cap, MAX_CANDIDATES),
            **records,
            **givens,
        )
    except NapkinError as exc:
        culprit = getattr(exc, "variable", None)
        if spec.over is not None and culprit in spec.over:
            path: Where = (*spec.where, "over", culprit)
        elif culprit in spec.givens:
            path = (*spec.where, "givens", str(culprit))
        elif culprit == "over" and spec.over is not None:
            path = (*spec.where, "over")
        else:
            path = spec.where
        shared = (
            f" (a plan's optimizations evaluate at most {budget.MAX_CANDIDATES:,} candidates "
            f"together; {cap:,} were left for this one: {budget.FIX})"
            if cap < MAX_CANDIDATES and "evaluates at most" in str(exc)
            else ""
        )
        raise InputError(
            f"{scenario.where(path)}: optimization {spec.title!r}: {exc}{shared}", culprit
        ) from None
    done = OptimizationAnswer(spec, found, origins=origins)
    if found.best is not None:
        decisions = {k for k in found.best_candidate.point} if found.best_candidate else set()
        shown = dict(origins)
        for name in decisions:
            shown[name] = "the best candidate"
        ask = (
            tuple(o for o in spec.objectives if o in found.best.values)
            or tuple(found.best.values)[:1]
        )
        section = Section(title=spec.title, ask=ask, where=spec.where)
        done.derivation = SectionAnswer(section, found.best, shown, {}, [], found.best)
    return done


# --- what every report shows -----------------------------------------------------------------
@dataclass(frozen=True)
class View:
    """An optimization's answer as text pieces: each format only marks them up."""

    goal: str
    searched: str
    domains: list[tuple[str, str]]
    limits: list[str]  # the user's requirements and the library constraints applied
    best: str  # '' when nothing fits
    objectives: list[tuple[str, str]]  # (name, value) at the best, of those not decided
    binding: list[str]
    boundaries: list[str]
    at_best: list[str]  # each requirement at the best, with its margin
    neighbours: list[tuple[str, str, bool]]  # (point, verdict, fits)
    headers: list[str]  # the Pareto front's columns: candidate, then the computed objectives
    runners_up: list[list[str]]  # [rank, point, *objectives]
    per_record: list[list[str]]  # [place, record, point, objectives]
    pareto: list[list[str]]  # [point, *objectives]
    ruled_out: list[tuple[str, str]]  # (constraint, candidates)
    closest: str
    closest_violations: list[str]
    notes: list[str]


def value_text(name: str, base: float) -> str:
    from napkinmath.whatif.optimum import shown

    return shown(name, base) if math.isfinite(base) else "—"


def computed(optimum: Optimum) -> list[str]:
    """The objectives that are not decisions (a decision's value is in the point already)."""
    decided = {d.name for d in optimum.domains}
    return [o for o in optimum.objectives if o not in decided]


def _objective_cells(optimum: Optimum, c: Candidate) -> list[str]:
    return [value_text(o, c.objectives[o]) for o in computed(optimum)]


def view(done: OptimizationAnswer) -> View:
    """The pieces of one optimization's report, from the Optimum's public data."""
    from napkinmath.whatif.optimum import PARETO_SHOWN

    opt = done.optimum
    best = opt.best_candidate
    titles = {c.name: c.title for c in opt.constraints}
    limits = [f"{r.text} (you)" for r in opt.requirements]
    limits += [f"{c.title} ({c.name})" for c in opt.constraints]
    domains = [(d.name, d.description) for d in opt.domains if d.kind != "record"]
    domains += [(k, ", ".join(map(str, v))) for k, v in opt.record_lists.items()]
    at_best: list[str] = []
    if best is not None and opt.best is not None:
        for r in opt.requirements:
            q = opt.best.values.get(r.name)
            if q is not None and hasattr(q, "m_as"):
                base = float(q.m_as(r.variable.unit)) * r.variable.base_factor
                at_best.append(opt.requirement_text(r, base))
    per_record = []
    for place, (label, own) in enumerate(opt.per_record, start=1):
        if own is None:
            per_record.append([str(place), label, "nothing fits", ""])
            continue
        point = {k: v for k, v in own.point.items() if k not in opt.record_lists}
        cells = _objective_cells(opt, own)
        got = ", ".join(f"{o} = {v}" for o, v in zip(computed(opt), cells, strict=True))
        per_record.append([str(place), label, opt.point_text(point), got])
    closest = opt.closest if best is None else None
    return View(
        goal=goal(opt.objectives, tuple(o for o in opt.objectives if opt.senses[o] < 0)),
        searched=f"{opt.count:,} candidates searched completely; "
        f"{opt.feasible_count:,} meet every constraint.",
        domains=domains,
        limits=limits,
        best="" if best is None else opt.point_text(best.point),
        objectives=[]
        if best is None
        else list(zip(computed(opt), _objective_cells(opt, best), strict=True)),
        binding=[titles.get(n, n) for n in opt.binding],
        boundaries=[b.text for b in opt.boundaries],
        at_best=at_best,
        neighbours=[(opt.point_text(n.point), n.verdict, n.feasible) for n in opt.neighbours],
        headers=["candidate", *computed(opt)],
        runners_up=[
            [str(i), opt.point_text(c.point), *_objective_cells(opt, c)]
            for i, c in enumerate(opt.runners_up, start=2)
        ],
        per_record=per_record,
        pareto=[[opt.point_text(c.point), *_objective_cells(opt, c)] for c in opt.pareto][
            :PARETO_SHOWN
        ],
        ruled_out=[(k, f"{v:,}") for k, v in opt.ruled_out.items()] if best is None else [],
        closest="" if closest is None else opt.point_text(closest.point),
        closest_violations=[] if closest is None else list(closest.violations),
        notes=list(opt.notes),
    )


def nothing_fits(done: OptimizationAnswer) -> str:
    return f"Nothing fits: no candidate of {done.optimum.count:,} meets every constraint."


#: markers drawn on a plotted line at most (a line of 16,384 candidates is drawn whole, its
#: markers spaced along it: the page stays small)
MAX_MARKERS = 120


def draw(done: OptimizationAnswer, ax) -> None:
    """`Optimum.plot` on `ax`, with the markers of a long line spaced along it."""
    done.optimum.plot(ax=ax)
    for line in ax.get_lines():
        if len(line.get_xdata()) > MAX_MARKERS:
            line.set_markevery(1 / MAX_MARKERS)


def can_plot(done: OptimizationAnswer) -> bool:
    """Whether the optimization has a numeric decision to plot its objective against."""
    try:
        done.optimum.check_plot()
    except NapkinError:
        return False
    return True
