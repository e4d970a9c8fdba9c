"""The answer of an optimisation: the winner, why the others lose, and where the limits are.

Built from a completed search (`napkinmath.whatif.optimize`): every candidate's objectives,
requirement values and constraint sides are arrays; this module ranks them, solves the
winner as a full `Result`, names each neighbour's verdict, finds each binding constraint's
exact boundary by bisection along its decision variable, the Pareto front of two
objectives, and, when nothing fits, what rules out the most candidates and the closest one.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from napkinmath import arguments
from napkinmath.answer.data import ConstraintRecord, display, from_base
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import constraints as library_constraints
from napkinmath.catalog.lookup import variables
from napkinmath.errors import NapkinError
from napkinmath.solving.solver import bind, solve_bound
from napkinmath.text.numbers import format_value, is_fraction
from napkinmath.units import format_number, format_unit
from napkinmath.whatif.candidates import RULES, Arrays, Group, Search

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd
    from matplotlib.axes import Axes

    from napkinmath.whatif.domains import Domain

BISECTIONS = 60
#: library constraints that flag a layout without ruling it out: the search keeps the
#: candidates that break them, and the note on the best's uneven stages says so (uneven
#: pipeline stages: Megatron-LM runs them with --decoder-first/last-pipeline-num-layers, and
#: Llama 3 405B trained its 126 layers over 16 stages)
ADVISORY = frozenset({"pipeline_chunks_whole"})
#: decisions whose values are steps of a layout, not amounts: no boundary between them
STEPS = frozenset(
    {
        "tp",
        "pp",
        "cp",
        "ep",
        "dp",
        "sp",
        "zero_stage",
        "virtual_pipeline_stages",
        "pp_fills_node_first",
    }
)
#: rows of the Pareto front listed (all are in to_dict() and the frame)
PARETO_SHOWN = 12
#: the most candidates a table (CSV, JSON, DataFrame) lists: 2,000,000 took 26 s and 1.4 GB
#: to write as 88 MB of CSV; 100,000 take about a second and 4.5 MB
MAX_TABLE_ROWS = 100_000


@dataclass
class Candidate:
    """One point of the search: the decision variables' values and what they give."""

    index: int
    point: dict[str, object]  # base-unit floats for numbers; names for settings and records
    objectives: dict[str, float]  # base units
    feasible: bool
    violations: list[str] = field(default_factory=list)


@dataclass
class Neighbour:
    """The winner with one decision one step away, and what that step does."""

    variable: str
    point: dict[str, object]
    feasible: bool
    verdict: str
    better: bool = False  # its objective beats the winner's, so what it violates binds
    violated: tuple[str, ...] = ()


@dataclass
class Boundary:
    """Where a binding constraint holds with equality along one decision variable."""

    variable: str
    constraint: str
    value: float  # base units, exact before rounding to the domain
    text: str
    refined: bool = False  # a continuous domain: the optimum is this boundary itself


def shown(name: str, value: object, digits: int = 4) -> str:
    """A decision value as a person writes it: '64 GPU', '8', 'selective'."""
    if isinstance(value, str) or name not in variables():
        return str(value)
    var = variables()[name]
    return format_value(display(float(value), var), var, digits)  # type: ignore[arg-type]


def _value(name: str, base: float, digits: int = 4) -> str:
    if not math.isfinite(base):
        return "—"
    return shown(name, base, digits)


class Optimum:
    """The best candidate and the evidence around it (see the module docstring)."""

    def __init__(
        self,
        search: Search,
        groups: list[Group],
        per_pair: dict[tuple, list[Domain]],
        arrays: Arrays,
        names: tuple[str, ...],
    ) -> None:
        self._search = search
        self._groups = groups
        self._arrays = arrays
        self.objectives = search.objectives
        self.senses = search.senses
        self.requirements = search.requirements
        self.constraints = tuple(library_constraints()[n] for n in names)
        self.domains = next(iter(per_pair.values()))
        self.record_lists = {
            k: v for k, v in (("gpu", search.gpus), ("model", search.models)) if len(v) > 1
        }
        self.notes = list(dict.fromkeys(search.notes))
        for g in groups:
            if g.error:
                self.notes.append(f"{_label(g.label())}: not planned: {g.error}")
        self.count = search.total
        self.feasible_mask = self._feasible()
        self.feasible_count = int(self.feasible_mask.sum())
        order = self._ranking()
        self._order = order
        self.best: Result | None = None
        self.best_candidate: Candidate | None = None
        self.runners_up: list[Candidate] = []
        self.neighbours: list[Neighbour] = []
        self.boundaries: list[Boundary] = []
        self.binding: list[str] = []
        self.pareto: list[Candidate] = []
        self.closest: Candidate | None = None
        self.per_record: list[tuple[str, Candidate | None]] = []
        self.ruled_out = self._ruled_out()
        if order.size:
            self.best_candidate = self.candidate(int(order[0]))
            self.runners_up = [self.candidate(int(i)) for i in order[1 : 1 + search.top]]
            self.neighbours = self._neighbours(int(order[0]))
            self.binding = list(
                dict.fromkeys(name for n in self.neighbours if n.better for name in n.violated)
            )
            self.boundaries = self._boundaries(int(order[0]))
            self.best = self._solve(int(order[0]))
            if len(self.objectives) == 2:
                self.pareto = [self.candidate(int(i)) for i in self._pareto()]
        if self.record_lists:
            self.per_record = self._per_record()
        else:
            self.closest = self._closest()

    # --- ranking -------------------------------------------------------------------------
    def _feasible(self) -> np.ndarray:
        a = self._arrays
        fits = a.valid.copy()
        for name in a.known:
            fits &= ~(a.known[name] & ~a.holds[name])
        for r, values in zip(self.requirements, a.requirement, strict=True):
            with np.errstate(invalid="ignore"):
                fits &= np.isfinite(values) & r.holds(values)
        for o in self.objectives:
            fits &= np.isfinite(a.objective[o]) | self._is_decision(o)
        return fits

    def _is_decision(self, name: str) -> bool:
        return any(d.name == name for d in self.domains)

    def objective_values(self, name: str) -> np.ndarray:
        """The objective at every candidate (a decision variable's own values included)."""
        values = self._arrays.objective.get(name)
        if self._is_decision(name) or values is None:
            out = np.full(self.count, np.nan)
            for g in self._groups:
                for start in range(0, g.count, 1 << 16):
                    stop = min(g.count, start + (1 << 16))
                    grid = g.grid(start, stop)
                    if name in grid:
                        out[g.offset + start : g.offset + stop] = grid[name]
                    elif name == "dp" and g.follows:
                        out[g.offset + start : g.offset + stop] = self._search.dp(grid, g)
            return out
        return values

    def decision_values(self, name: str) -> np.ndarray:
        """A decision variable's value at every candidate (base units)."""
        return self.objective_values(name)

    def _keys(self) -> list[np.ndarray]:
        return [self.senses[o] * self.objective_values(o) for o in self.objectives]

    def _ranking(self) -> np.ndarray:
        """Feasible candidates, best first (ties in domain order: objectives equal to 12
        significant figures tie, so that round-off in equal costs does not pick among them)."""
        index = np.flatnonzero(self.feasible_mask)
        if not index.size:
            return index
        keys = [_tie_key(k[index]) for k in self._keys()]
        order = np.lexsort((index, *reversed(keys)))
        return index[order]

    def _pareto(self) -> list[int]:
        k0, k1 = (_tie_key(k) for k in self._keys())
        index = self._order  # sorted by k0, then k1
        front: list[int] = []
        best = math.inf
        for i in index.tolist():
            if k1[i] < best:
                if front and k0[front[-1]] == k0[i]:
                    continue
                front.append(i)
                best = float(k1[i])
        return front

    # --- one candidate ---------------------------------------------------------------------
    def group_of(self, index: int) -> Group:
        for g in reversed(self._groups):
            if index >= g.offset:
                return g
        raise IndexError(index)

    def point(self, index: int) -> dict[str, object]:
        g = self.group_of(index)
        local = index - g.offset
        grid = g.grid(local, local + 1)
        out: dict[str, object] = {}
        for name, value in g.label().items():
            if name in self.record_lists or name not in ("gpu", "model"):
                out[name] = value
        for name, values in grid.items():
            out[name] = float(values[0])
        if g.follows:
            out["dp"] = float(self._search.dp(grid, g)[0])
        return out

    def candidate(self, index: int) -> Candidate:
        return Candidate(
            index,
            self.point(index),
            {o: float(self.objective_values(o)[index]) for o in self.objectives},
            bool(self.feasible_mask[index]),
            self.violations(index),
        )

    def violations(self, index: int) -> list[str]:
        """What candidate `index` breaks, each with its margin."""
        a, out = self._arrays, []
        for name, (var, text) in RULES.items():
            if a.rules[name][index]:
                value = float(a.rule_values[name][index])
                out.append(f"{var} = {format_number(value, sig=4)}: {text}")
        if out:
            return out
        if not a.valid[index]:
            out.append("no admissible answer (a step leaves its variable's bounds)")
            return out
        for c in self.constraints:
            if a.known[c.name][index] and not a.holds[c.name][index]:
                record = ConstraintRecord(
                    c, float(a.lhs[c.name][index]), float(a.rhs[c.name][index]), False
                )
                out.append(f"{c.title}: {record.describe()}")
        for r, values in zip(self.requirements, a.requirement, strict=True):
            v = float(values[index])
            if not math.isfinite(v):
                out.append(f"{r.text}: could not be evaluated")
            elif not bool(r.holds(v)):
                out.append(self.requirement_text(r, v))
        return out

    def requirement_text(self, r, v: float) -> str:
        """'train_time ≤ 3 weeks: 21.93 days, 22.36 h over (104% of the limit)'."""
        share = float(r.share(np.asarray(v)))
        over = abs(v - r.limit)
        side = "over" if r.upper else "under"
        holds = bool(r.holds(v))
        margin = (
            f"{share:.0%} of the limit" if holds else f"{format_number(share, sig=3)}× the limit"
        )
        left = "left" if holds else side
        return f"{r.text}: {_value(r.name, v)}, {_value(r.name, over)} {left} ({margin})"

    def point_text(self, point: dict[str, object]) -> str:
        return ", ".join(f"{k} = {self._shown(k, v)}" for k, v in point.items())

    def _shown(self, name: str, value: object) -> str:
        """A decision's value; n_gpus with its whole nodes where the record says its node."""
        text = shown(name, value)
        if name == "n_gpus" and isinstance(value, float):
            per = self._search.context_gpus_per_node
            if per and value >= per and value % per == 0:
                nodes = int(value // per)
                text += f" ({nodes:,} node{'s' if nodes != 1 else ''})"
        return text

    # --- the winner --------------------------------------------------------------------------
    def _solve(self, index: int) -> Result | None:
        g = self.group_of(index)
        point = self.point(index)
        for b in self.boundaries:
            if b.refined:
                point[b.variable] = b.value
        numbers = {k: v for k, v in point.items() if isinstance(v, float)}
        givens = self._search.point_givens(g, numbers)
        assert g.center is not None
        targets = g.center.targets
        try:
            result = solve_bound(
                targets,
                bind(
                    targets,
                    givens,
                    gpu=g.gpu,
                    model=g.model,
                    precision=self._search.precision_of(g),
                    achievable=self._search.achievable,
                ),
                self._search.tolerance,
            )
        except NapkinError as exc:  # pragma: no cover - the vectorised chain said it solves
            self.notes.append(f"the winner's derivation could not be solved: {exc}")
            return None
        kept = {c.name for c in self.constraints}
        aside = [
            c.constraint.name
            for c in result.constraints
            if c.constraint.name not in kept and c.constraint.name not in ADVISORY
        ]  # an advisory one (uneven stages) is said in the note on them (`_uneven_stages`)
        result.constraints = [c for c in result.constraints if c.constraint.name in kept]
        if aside:  # parts of a total the search holds to (training memory per GPU)
            self.notes.append(
                f"the best candidate's answer shows the constraints of the search; set aside "
                f"as parts of the per-GPU total: {', '.join(aside)}"
            )
        self._uneven_stages(result)
        domains = {d.name: d for d in g.numeric}
        for name, given in result.givens.items():
            if name in domains:
                result.givens[name] = replace(
                    given, reading=f"chosen by the optimiser from {domains[name].description}"
                )
            elif name == "dp" and g.follows:
                result.givens[name] = replace(
                    given, reading="chosen: n_gpus / (tp · pp · cp · gpus_per_rank)"
                )
        return result

    def _uneven_stages(self, result: Result) -> None:
        """Say so when the best's pipeline chunks do not split the layers evenly (the model
        takes equal stages, as Megatron-LM's even split; uneven ones run at the largest)."""
        g = result.givens
        if "n_layers" not in g or "pp" not in g:
            return
        layers = float(g["n_layers"].quantity.m_as(""))
        pp = float(g["pp"].quantity.m_as(""))
        v = (
            float(g["virtual_pipeline_stages"].quantity.m_as(""))
            if "virtual_pipeline_stages" in g
            else 1.0
        )
        chunks = pp * v
        if chunks > 1 and layers % chunks:
            self.notes.append(
                f"the best's {layers:g} layers over pp · virtual_pipeline_stages = {chunks:g} "
                f"chunks is uneven ({layers / chunks:.3g} layers each): the model takes equal "
                "stages; in practice the chunk with the most layers sets the pace"
            )

    # --- neighbours -------------------------------------------------------------------------
    def _neighbours(self, index: int) -> list[Neighbour]:
        g = self.group_of(index)
        local = index - g.offset
        coords = list(np.unravel_index(local, g.sizes)) if g.numeric else []
        out: list[Neighbour] = []
        for axis, d in enumerate(g.numeric):
            for step in (-1, 1):
                j = int(coords[axis]) + step
                if not 0 <= j < g.sizes[axis]:
                    continue
                moved = [int(c) for c in coords]
                moved[axis] = j
                other = g.offset + int(np.ravel_multi_index(tuple(moved), g.sizes))
                out.append(self._neighbour(d.name, index, other))
        for name in [*g.settings, *self.record_lists]:
            label = g.label()
            for h in self._groups:
                hl = h.label()
                if h is g or any(hl.get(k) != v for k, v in label.items() if k != name):
                    continue
                if h.chain is None:
                    out.append(Neighbour(name, {name: hl[name]}, False, f"not planned: {h.error}"))
                    continue
                same = h.offset + local
                stepped = h.sizes == g.sizes and self._numbers(same) == self._numbers(index)
                if stepped:
                    out.append(self._neighbour(name, index, same))
                if name in self.record_lists:
                    best = self._best_in(h)
                    if stepped and (best == same or (best is None and not g.numeric)):
                        continue  # its own best is the step just shown
                    if best is None:
                        out.append(
                            Neighbour(
                                name, {name: hl[name]}, False, "at its own best: no candidate fits"
                            )
                        )
                    else:
                        point = {k: v for k, v in self.point(best).items()}
                        verdict = "at its own best: " + self._verdict(index, best)
                        out.append(Neighbour(name, point, True, verdict))
        return out

    def _numbers(self, index: int) -> dict[str, object]:
        return {k: v for k, v in self.point(index).items() if isinstance(v, float)}

    def _per_record(self) -> list[tuple[str, Candidate | None]]:
        """Each record (gpu × model) at its own best candidate, best first; those where
        nothing fits last."""
        keys = [k for k in ("gpu", "model") if k in self.record_lists]
        seen: dict[str, int | None] = {}
        for g in self._groups:
            label = " / ".join(str(g.label()[k]) for k in keys)
            best = self._best_in(g)
            known = seen.get(label)
            if label not in seen or (
                best is not None and (known is None or self._better(best, known))
            ):
                seen[label] = best if label not in seen or best is not None else known
        rank = {int(i): r for r, i in enumerate(self._order.tolist())}
        ordered = sorted(
            seen.items(),
            key=lambda kv: rank.get(kv[1], len(rank)) if kv[1] is not None else math.inf,
        )
        return [(label, None if i is None else self.candidate(i)) for label, i in ordered]

    def _best_in(self, group: Group) -> int | None:
        inside = self._order[
            (self._order >= group.offset) & (self._order < group.offset + group.count)
        ]
        return int(inside[0]) if inside.size else None

    def _neighbour(self, name: str, winner: int, other: int) -> Neighbour:
        point = self.point(other)
        changed = {k: v for k, v in point.items() if self.point(winner).get(k) != v}
        better = self._better(other, winner)
        if self.feasible_mask[other]:
            return Neighbour(name, changed, True, self._verdict(winner, other), better)
        broken = self.violations(other)
        names = self._violated_names(other)
        return Neighbour(name, changed, False, "✗ " + "; ".join(broken), better, names)

    def _violated_names(self, index: int) -> tuple[str, ...]:
        a, out = self._arrays, []
        for c in self.constraints:
            if a.known[c.name][index] and not a.holds[c.name][index]:
                out.append(c.name)
        for r, values in zip(self.requirements, a.requirement, strict=True):
            if not bool(r.holds(float(values[index]))):
                out.append(r.text)
        return tuple(out)

    def _better(self, other: int, winner: int) -> bool:
        for o in self.objectives:
            values = self.objective_values(o)
            a, b = self.senses[o] * values[other], self.senses[o] * values[winner]
            if a != b:
                return bool(a < b)
        return False

    def _verdict(self, winner: int, other: int) -> str:
        parts = []
        for o in self.objectives:
            values = self.objective_values(o)
            w, n = float(values[winner]), float(values[other])
            worse = self.senses[o] * (n - w)
            if worse == 0 or not math.isfinite(worse):
                parts.append(f"{o} the same ({_value(o, n)})")
                continue
            word = "worse" if worse > 0 else "better"
            share = f"{abs(n - w) / abs(w):.1%} " if w else ""  # no share of a zero
            parts.append(f"{o} {share}{word} ({_value(o, n)} against {_value(o, w)})")
        return "fits; " + "; ".join(parts)

    # --- exact boundaries ----------------------------------------------------------------
    def _boundaries(self, index: int) -> list[Boundary]:
        g = self.group_of(index)
        kinds = {d.name: d.kind for d in g.numeric}
        out: list[Boundary] = []
        seen: set[tuple[str, str]] = set()
        winner = self.point(index)
        for n in self.neighbours:
            if not n.better or n.variable not in kinds or not n.violated or n.variable in STEPS:
                continue
            key = (n.variable, n.violated[0])
            if key in seen:
                continue
            seen.add(key)
            b = self._bisect(g, winner, n.variable, float(n.point[n.variable]), n.violated[0])  # type: ignore[arg-type]
            if b is not None:
                b.refined = kinds[n.variable] == "continuous"
                out.append(b)
        return out

    def _margin(self, g: Group, winner: dict[str, object], name: str, x: float, what: str) -> float:
        """How far past its limit `what` is with `name` at x (≤ 0: it holds), the others at
        the winner's values."""
        grid = {
            k: np.array([v])
            for k, v in winner.items()
            if isinstance(v, float) and not (k == "dp" and g.follows)
        }
        grid[name] = np.array([x])
        values = self._search.evaluate_at(g, grid)
        for r in self.requirements:
            if r.text == what:
                v = (
                    float(np.asarray(values.get(r.name, [math.nan])).ravel()[0])
                    if r.name in values
                    else x
                )
                return float(r.share(np.asarray(v))) - 1.0
        lhs = float(np.asarray(values.get(f"__lhs__{what}", [math.nan])).ravel()[0])
        rhs = float(np.asarray(values.get(f"__rhs__{what}", [math.nan])).ravel()[0])
        return lhs / rhs - 1.0 if rhs else math.inf

    def _bisect(
        self, g: Group, winner: dict[str, object], name: str, toward: float, what: str
    ) -> Boundary | None:
        start = float(winner[name])  # type: ignore[arg-type]
        a, b = start, toward
        fa, fb = self._margin(g, winner, name, a, what), self._margin(g, winner, name, b, what)
        if not (math.isfinite(fa) and math.isfinite(fb)) or fa > 0 or fb <= 0:
            return None
        for _ in range(BISECTIONS):
            mid = 0.5 * (a + b)
            fm = self._margin(g, winner, name, mid, what)
            if not math.isfinite(fm):
                return None
            a, b = (mid, b) if fm <= 0 else (a, mid)
            if abs(b - a) <= 1e-12 * max(abs(a), abs(b), 1e-300):
                break
        title = self._title(what)
        text = (
            f"{title} holds with equality at {name} = {shown(name, a, 6)}; the winner's "
            f"{shown(name, start)} is the nearest value of the domain that meets it"
        )
        return Boundary(name, what, a, text)

    # --- nothing feasible ------------------------------------------------------------------
    def _ruled_out(self) -> dict[str, int]:
        """Candidates each constraint, requirement or rule rules out (one may be ruled out by
        several), largest first."""
        a = self._arrays
        counts: dict[str, int] = {}
        any_rule = np.zeros(self.count, dtype=bool)
        for name, (_, text) in RULES.items():
            rule = int(a.rules[name].sum())
            any_rule |= a.rules[name]
            if rule:
                counts[text] = rule
        invalid = int((~a.valid & ~any_rule).sum())
        if invalid:
            counts["no admissible answer"] = invalid
        for c in self.constraints:
            n = int((a.valid & a.known[c.name] & ~a.holds[c.name]).sum())
            if n:
                counts[c.title] = n
        for r, values in zip(self.requirements, a.requirement, strict=True):
            with np.errstate(invalid="ignore"):
                n = int((a.valid & ~(np.isfinite(values) & r.holds(values))).sum())
            if n:
                counts[r.text] = n
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], list(counts).index(kv[0]))))

    def _closest(self) -> Candidate | None:
        """The valid candidate whose worst constraint or requirement is least past its limit."""
        a = self._arrays
        if not a.valid.any():
            return None
        worst = np.zeros(self.count)
        for c in self.constraints:
            with np.errstate(all="ignore"):
                share = np.where(a.known[c.name], a.lhs[c.name] / a.rhs[c.name], 0.0)
            # a constraint that holds is within its limit, whatever its ratio (0 ≤ 0 is 0/0);
            # one broken with no ratio to tell how far (a zero limit) is as far as can be
            share = np.where(a.known[c.name] & a.holds[c.name], 0.0, share)
            worst = np.maximum(worst, np.nan_to_num(share, nan=np.inf))
        for r, values in zip(self.requirements, a.requirement, strict=True):
            share = np.asarray(r.share(values), dtype=float)
            worst = np.maximum(worst, np.nan_to_num(share, nan=np.inf))
        worst = np.where(a.valid, worst, np.inf)
        if not np.isfinite(worst).any():
            return None  # no valid candidate has a distance to its limits to compare
        return self.candidate(int(np.argmin(worst)))

    # --- printing ----------------------------------------------------------------------------
    @property
    def fits(self) -> bool:
        return self.best is not None

    @property
    def warnings(self) -> list[str]:
        if self.fits:
            return []
        return [f"no candidate of {self.count:,} meets every constraint"]

    def _over(self) -> str:
        """What was searched: the decision variables, then the record kinds chosen from."""
        decisions = ", ".join(d.name for d in self.domains)
        records = ", ".join(self.record_lists)
        return " and ".join(part for part in (decisions, records) if part)

    def _goal(self) -> str:
        words = [("maximise " if self.senses[o] < 0 else "minimise ") + o for o in self.objectives]
        return " and ".join(words)

    def _domain_lines(self) -> list[str]:
        lines = [f"  {d.name}: {d.description}" for d in self.domains if d.kind != "record"]
        lines += [f"  {k}: {', '.join(map(str, v))}" for k, v in self.record_lists.items()]
        return lines

    def __str__(self) -> str:
        return self.text()

    def text(self, derivation: bool = True) -> str:
        lines = [
            f"Optimum: {self._goal()} over {self._over()}",
            f"  {self.count:,} candidates searched completely, "
            f"{self.feasible_count:,} meet every constraint",
            "",
            "Domains:",
            *self._domain_lines(),
        ]
        if self.requirements or self.constraints:
            lines += ["", "Constraints:"]
            lines += [f"  {r.text} (you)" for r in self.requirements]
            lines += [f"  {c.title} ({c.name})" for c in self.constraints]
        best = self.best_candidate
        if best is None:
            lines += ["", f"Nothing fits: no candidate of {self.count:,} meets every constraint."]
            if self.ruled_out:
                lines += ["Ruled out (a candidate may fail several):"]
                lines += [f"  {n:>12,}  {name}" for name, n in self.ruled_out.items()]
            if self.closest is not None:
                lines += ["", f"Closest: {self.point_text(self.closest.point)}"]
                lines += [f"  ✗ {v}" for v in self.closest.violations]
            lines += self._notes_lines()
            return "\n".join(lines)
        lines += ["", f"Best: {self.point_text(best.point)}"]
        lines += [f"  {o} = {_value(o, v)}" for o, v in self._computed(best).items()]
        for b in self.boundaries:
            if b.refined:
                lines.append(
                    f"  refined: {b.variable} = {shown(b.variable, b.value, 6)} "
                    "(continuous domain, the boundary)"
                )
        if self.binding:
            lines.append(f"  binding: {', '.join(self._title(n) for n in self.binding)}")
        for b in self.boundaries:
            lines.append(f"  exact boundary: {b.text}")
        if self.requirements:
            lines += ["", "Requirements at the best:"]
            a = self._arrays
            for r, values in zip(self.requirements, a.requirement, strict=True):
                at = best.point.get(r.name)
                v = float(at) if isinstance(at, float) else float(values[best.index])
                lines.append(f"  ✓ {self.requirement_text(r, v)}")
        if self.neighbours:
            lines += ["", "Neighbours (one step in one decision):"]
            for n in self.neighbours:
                lines.append(f"  {self.point_text(n.point)}: {n.verdict}")
        if self.pareto:
            lines += ["", f"Pareto front ({len(self.pareto)} candidates, none better in both):"]
            for c in self.pareto[:PARETO_SHOWN]:
                both = ", ".join(f"{o} = {_value(o, v)}" for o, v in c.objectives.items())
                lines.append(f"  {self.point_text(c.point)}: {both}")
            if len(self.pareto) > PARETO_SHOWN:
                lines.append(f"  ... {len(self.pareto) - PARETO_SHOWN} more (to_dict()['pareto'])")
        if self.per_record:
            lines += ["", "Each record at its own best:"]
            for place, (label, own) in enumerate(self.per_record, start=1):
                if own is None:
                    lines.append(f"  {place}. {label}: nothing fits")
                    continue
                got = ", ".join(f"{o} = {_value(o, v)}" for o, v in self._computed(own).items())
                point = {k: v for k, v in own.point.items() if k not in self.record_lists}
                shown_point = self.point_text(point)
                lines.append(
                    f"  {place}. {label}: " + ": ".join(p for p in (shown_point, got) if p)
                )
        if self.runners_up:
            lines += ["", "Runners-up:"]
            for i, c in enumerate(self.runners_up, start=2):
                got = ", ".join(f"{o} = {_value(o, v)}" for o, v in self._computed(c).items())
                lines.append(f"  {i}. {self.point_text(c.point)}" + (f": {got}" if got else ""))
        lines += self._notes_lines()
        if derivation and self.best is not None:
            lines += ["", "The best candidate's derivation:", "", str(self.best)]
        return "\n".join(lines)

    def _computed(self, c: Candidate) -> dict[str, float]:
        """The candidate's objectives that are not decisions (those its point shows)."""
        return {o: v for o, v in c.objectives.items() if o not in c.point}

    def _title(self, name: str) -> str:
        for c in self.constraints:
            if c.name == name:
                return c.title
        return name

    def _notes_lines(self) -> list[str]:
        return ["", "Notes:", *(f"  {n}" for n in self.notes)] if self.notes else []

    def to_markdown(self) -> str:
        """The answer as Markdown: headings, the best, tables of neighbours and runners-up."""
        out = [f"### Optimum: {self._goal()}", ""]
        out.append(
            f"{self.count:,} candidates searched completely; "
            f"{self.feasible_count:,} meet every constraint."
        )
        out += ["", "| decision | domain |", "|---|---|"]
        out += [f"| `{d.name}` | {_cell(d.description)} |" for d in self.domains]
        out += [f"| `{k}` | {', '.join(map(str, v))} |" for k, v in self.record_lists.items()]
        best = self.best_candidate
        if best is None:
            out += ["", "**Nothing fits.**", "", "| ruled out by | candidates |", "|---|---:|"]
            out += [f"| {_cell(k)} | {v:,} |" for k, v in self.ruled_out.items()]
            if self.closest is not None:
                out += ["", f"Closest: {_cell(self.point_text(self.closest.point))}", ""]
                out += [f"- ✗ {_cell(v)}" for v in self.closest.violations]
            return "\n".join(out) + "\n"
        computed = ", ".join(f"{o} = {_value(o, v)}" for o, v in self._computed(best).items())
        out += [
            "",
            f"**Best:** {_cell(self.point_text(best.point))}"
            + (f": {computed}" if computed else ""),
        ]
        if self.binding:
            out += ["", "Binding: " + ", ".join(_cell(self._title(n)) for n in self.binding)]
        out += [f"- exact boundary: {_cell(b.text)}" for b in self.boundaries]
        if self.neighbours:
            out += ["", "| neighbour | verdict |", "|---|---|"]
            out += [
                f"| {_cell(self.point_text(n.point))} | {_cell(n.verdict)} |"
                for n in self.neighbours
            ]
        if self.runners_up:
            heads = " | ".join(self.objectives)
            out += [
                "",
                f"| # | candidate | {heads} |",
                "|---:|---|" + "---:|" * len(self.objectives),
            ]
            for i, c in enumerate(self.runners_up, start=2):
                cells = " | ".join(_value(o, v) for o, v in c.objectives.items())
                out.append(f"| {i} | {_cell(self.point_text(c.point))} | {cells} |")
        if self.best is not None:
            out += ["", "#### The best candidate's derivation", "", self.best.to_markdown()]
        return "\n".join(out) + "\n"

    def _repr_html_(self) -> str:
        """The answer as HTML tables (a notebook's display): the best, why its neighbours
        lose, the runners-up, then the best candidate's own answer."""
        from napkinmath.text.markup import CSS
        from napkinmath.text.markup import esc as e

        parts = [
            "<div class='napkin napkin-optimum tex2jax_ignore mathjax_ignore'>",
            f"<style>{CSS}</style>",
            f"<h4>Optimum: {e(self._goal())}</h4>",
            f"<p>{self.count:,} candidates searched completely; "
            f"{self.feasible_count:,} meet every constraint.</p>",
            "<table><tr><th>decision</th><th>domain</th></tr>",
            *(f"<tr><td><code>{e(d.name)}</code></td><td>{e(d.description)}</td></tr>"
              for d in self.domains),
            "</table>",
        ]  # fmt: skip
        best = self.best_candidate
        if best is None:
            parts.append("<p><b>Nothing fits.</b></p><table><tr><th>ruled out by</th>"
                         "<th>candidates</th></tr>")  # fmt: skip
            parts += [f"<tr><td>{e(k)}</td><td>{v:,}</td></tr>" for k, v in self.ruled_out.items()]
            parts.append("</table>")
            if self.closest is not None:
                parts.append(f"<p>Closest: {e(self.point_text(self.closest.point))}</p><ul>")
                parts += [f"<li>✗ {e(v)}</li>" for v in self.closest.violations]
                parts.append("</ul>")
        else:
            computed = ", ".join(f"{o} = {_value(o, v)}" for o, v in self._computed(best).items())
            parts.append(
                f"<p><b>Best:</b> {e(self.point_text(best.point))}"
                + (f": {e(computed)}" if computed else "")
                + "</p>"
            )
            parts += [f"<p>exact boundary: {e(b.text)}</p>" for b in self.boundaries]
            if self.neighbours:
                parts.append("<table><tr><th>neighbour</th><th>verdict</th></tr>")
                parts += [
                    f"<tr><td>{e(self.point_text(n.point))}</td><td>{e(n.verdict)}</td></tr>"
                    for n in self.neighbours
                ]
                parts.append("</table>")
            if self.runners_up:
                heads = "".join(f"<th>{e(o)}</th>" for o in self.objectives)
                parts.append(f"<table><tr><th>#</th><th>candidate</th>{heads}</tr>")
                for i, c in enumerate(self.runners_up, start=2):
                    cells = "".join(f"<td>{e(_value(o, v))}</td>" for o, v in c.objectives.items())
                    parts.append(
                        f"<tr><td>{i}</td><td>{e(self.point_text(c.point))}</td>{cells}</tr>"
                    )
                parts.append("</table>")
        parts += [f"<p><i>{e(n)}</i></p>" for n in self.notes]
        if self.best is not None:
            parts.append(self.best._repr_html_())
        parts.append("</div>")
        return "\n".join(parts)

    def _point_dict(self, point: dict[str, object]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in point.items():
            if isinstance(v, str) or k not in variables():
                out[k] = v
            else:
                q = display(float(v), variables()[k])  # type: ignore[arg-type]
                out[k] = {
                    "value": float(q.magnitude),
                    "unit": format_unit(q.units),
                    "text": shown(k, v),
                }
        return out

    def _candidate_dict(self, c: Candidate) -> dict[str, Any]:
        return {
            "point": self._point_dict(c.point),
            "objectives": {o: self._quantity_dict(o, v) for o, v in c.objectives.items()},
            "feasible": c.feasible,
            "violations": c.violations,
        }

    def _quantity_dict(self, name: str, base: float) -> dict[str, Any]:
        if not math.isfinite(base):
            return {"value": None, "unit": "", "text": "—"}
        q = display(base, variables()[name])
        return {
            "value": float(q.magnitude),
            "unit": format_unit(q.units),
            "text": _value(name, base),
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (napkinmath/schema/optimum.schema.json)."""
        best = self.best_candidate
        return {
            "objectives": [
                {"name": o, "sense": "max" if self.senses[o] < 0 else "min"}
                for o in self.objectives
            ],
            "domains": [
                {
                    "name": d.name,
                    "kind": d.kind,
                    "values": len(d.values),
                    "description": d.description,
                }
                for d in self.domains
            ],
            "records": {k: list(v) for k, v in self.record_lists.items()},
            "requirements": [
                {"name": r.name, "op": r.op, "text": r.text} for r in self.requirements
            ],
            "constraints": [{"name": c.name, "title": c.title} for c in self.constraints],
            "candidates": self.count,
            "feasible": self.feasible_count,
            "best": None
            if best is None
            else {
                **self._candidate_dict(best),
                "result": self.best.to_dict() if self.best else None,
            },
            "binding": self.binding,
            "boundaries": [
                {
                    "variable": b.variable,
                    "constraint": b.constraint,
                    **self._quantity_dict(b.variable, b.value),
                }
                for b in self.boundaries
            ],
            "neighbours": [
                {
                    "variable": n.variable,
                    "point": self._point_dict(n.point),
                    "feasible": n.feasible,
                    "better": n.better,
                    "violated": list(n.violated),
                    "verdict": n.verdict,
                }
                for n in self.neighbours
            ],
            "runners_up": [self._candidate_dict(c) for c in self.runners_up],
            "pareto": [self._candidate_dict(c) for c in self.pareto],
            "per_record": [
                {"record": label, "best": None if c is None else self._candidate_dict(c)}
                for label, c in self.per_record
            ],
            "ruled_out": self.ruled_out,
            "closest": None if self.closest is None else self._candidate_dict(self.closest),
            "notes": self.notes,
        }

    def to_json(self, indent: int | None = 2) -> str:
        from napkinmath.text.visible import finite_json

        return json.dumps(
            finite_json(self.to_dict()),
            indent=arguments.indent(indent),
            ensure_ascii=False,
            allow_nan=False,
        )

    # --- tables and plots -----------------------------------------------------------------
    def to_table(self):
        """Every candidate as a `Table`: decisions, objectives, requirement values, whether it
        fits and what it breaks first."""
        from napkinmath.whatif.table import Column, Table

        columns = []
        index, warnings = self._table_rows(), list(self.warnings)
        if index.size < self.count:
            warnings.append(
                f"the table holds {index.size:,} of the {self.count:,} candidates (at most "
                f"{MAX_TABLE_ROWS:,}): every one that fits, best first, then ones that do not, "
                "in the search's order; narrow the domains to list them all"
            )
        for name in self.record_lists:
            labels = [str(self.group_of(int(i)).label().get(name)) for i in index]
            columns.append(Column(name, "", labels, role="input"))
        settings = [d.name for d in self.domains if d.kind == "setting"]
        for name in settings:
            labels = [str(self.group_of(int(i)).label().get(name)) for i in index]
            columns.append(Column(name, "", labels, role="input"))
        numeric = [d.name for d in self.domains if d.numeric] + (
            ["dp"] if any(d.kind == "follows" for d in self.domains) else []
        )
        for name in numeric:
            columns.append(self._column(name, self.objective_values(name)[index], "input"))
        for o in self.objectives:
            if o not in numeric:
                columns.append(self._column(o, self.objective_values(o)[index], "output"))
        for r, values in zip(self.requirements, self._arrays.requirement, strict=True):
            if r.name not in numeric and r.name not in self.objectives:
                columns.append(self._column(r.name, values[index], "output"))
        columns.append(Column("feasible", "", self.feasible_mask[index].tolist(), role="info"))
        title = f"{self._goal()} over {self._over()}"
        return Table(columns, title=title, notes=[], warnings=warnings)

    def _table_rows(self) -> np.ndarray:
        """The candidates a table lists, in the search's order: all of them, or past
        `MAX_TABLE_ROWS` the feasible ones best first and then the others, up to that many."""
        if self.count <= MAX_TABLE_ROWS:
            return np.arange(self.count)
        chosen = self._ranking()[:MAX_TABLE_ROWS]
        if chosen.size < MAX_TABLE_ROWS:
            rest = np.flatnonzero(~self.feasible_mask)[: MAX_TABLE_ROWS - chosen.size]
            chosen = np.concatenate([chosen, rest])
        return np.sort(chosen)

    def _column(self, name: str, base: np.ndarray, role: str):
        from napkinmath.whatif.sweep import _column

        return _column(name, np.asarray(base, dtype=float), role)

    def to_frame(self, pint: bool = False) -> pd.DataFrame:
        """Every candidate as a pandas DataFrame (columns 'name [unit]')."""
        return self.to_table().to_pandas(pint=pint)

    def to_csv(self) -> str:
        return self.to_table().to_csv()

    def _requirement_values(self, name: str) -> np.ndarray:
        for r, values in zip(self.requirements, self._arrays.requirement, strict=True):
            if r.name == name:
                return values
        return np.full(self.count, np.nan)

    def _plot_series(self, main: str) -> tuple[np.ndarray, PlotAxis, float | None, int, bool]:
        """What the plot shows against `main`: the first objective; when that is `main`
        itself, the first requirement on something else, or else the share of the limit of
        the binding (or first) constraint. Returns the base values, their axis, the limit line
        (base), the better direction, and whether values where nothing fits are drawn too."""
        o = self.objectives[0]
        limit: float | None = None
        if o == main:
            r = next((r for r in self.requirements if r.name != main), None)
            if r is not None:
                o, limit = r.name, r.limit
            elif self.constraints:
                name = self.binding[0] if self.binding else self.constraints[0].name
                a = self._arrays
                with np.errstate(all="ignore"):
                    share = np.where(a.known[name], a.lhs[name] / a.rhs[name], np.nan)
                return share, PlotAxis(f"{name} [% of the limit]", 100.0), 1.0, 1, True
        ys = self.objective_values(o) if o in self.objectives else self._requirement_values(o)
        return ys, self._axis(o, ys, limit), limit, self.senses.get(o, 1), False

    def _axis(self, name: str, values: np.ndarray, limit: float | None = None) -> PlotAxis:
        """The axis of variable `name` (base `values`) in the unit the answer prints the best
        candidate's value in (19.19 day, not 27,630 min), else the limit's, else the typical
        value's; a fraction as it is, its ticks in percent."""
        var = variables()[name]
        if is_fraction(var):
            return PlotAxis(name, float(from_base(1.0, var).to("").magnitude), percent=True)
        finite = values[np.isfinite(values) & (values != 0)]
        picks = [float(values[self.best_candidate.index])] if self.best_candidate else []
        picks += [limit] if limit is not None else []
        picks += [float(np.median(finite))] if finite.size else []
        typical = next((v for v in picks if math.isfinite(v) and v != 0), 1.0)
        unit = display(typical, var).units
        factor = float(from_base(1.0, var).to(unit).magnitude)
        shown = format_unit(unit)
        return PlotAxis(f"{name} [{shown}]" if shown else name, factor)

    def check_plot(self) -> None:
        """Refuse, before anything prints, a plot that cannot be drawn: one objective needs a
        numeric decision to plot against; two are plotted against each other (their front)."""
        if not self.pareto and not any(d.numeric for d in self.domains):
            raise NapkinError("plot: the search has no numeric decision variable to plot against")

    @overload
    def plot(self, path: str | Path, ax: Axes | None = None) -> Path: ...

    @overload
    def plot(self, path: None = None, ax: Axes | None = None) -> Axes: ...

    def plot(self, path: str | Path | None = None, ax: Axes | None = None) -> Path | Axes:
        """Two objectives: their Pareto front, the first against the second. One: the
        objective against the first numeric decision, the best that fits at each of its
        values, with the values where nothing fits shaded. The winner is marked."""
        from napkinmath.whatif.table import axes_of, finish_plot, plot_target, pyplot

        self.check_plot()
        target = plot_target(path)
        plt = pyplot(ax)
        fig, ax, owned = axes_of(plt, ax)
        if self.pareto:
            self._plot_front(ax)
        else:
            self._plot_objective(ax)
        ax.legend(loc="best", fontsize="small")
        return finish_plot(plt, fig, ax, target, owned)

    def _plot_front(self, ax: Axes) -> None:
        """The first objective against the second: the candidates that fit (at most
        MAX_PLOT_POINTS of them, evenly picked) and the front (none better in both) joined."""
        o1, o2 = self.objectives
        xs, ys = self.objective_values(o1), self.objective_values(o2)
        x_axis, y_axis = self._axis(o1, xs), self._axis(o2, ys)
        fits = np.flatnonzero(self.feasible_mask)
        fits = fits[:: max(1, math.ceil(fits.size / MAX_PLOT_POINTS))]
        x, y = xs * x_axis.factor, ys * y_axis.factor
        ax.scatter(x[fits], y[fits], s=6, color="#9e9e9e", label="candidates that fit")
        front = [c.index for c in self.pareto]
        ax.plot(x[front], y[front], marker="o", ms=4, label="Pareto front (none better in both)")
        if self.best_candidate is not None:
            at = self.best_candidate.index
            ax.plot([x[at]], [y[at]], "*", ms=14, color="#2ca02c", label="best")
        _set_axis(ax, "x", x_axis, x[fits])
        _set_axis(ax, "y", y_axis, y[fits])
        ax.set_title(f"Pareto front: {self._goal()}")

    def _plot_objective(self, ax: Axes) -> None:
        """The first objective (or the limit that decides it) against the first numeric
        decision: the best that fits at each of its values, the values where nothing fits
        shaded, the limit dashed, the winner starred."""
        main = next(d for d in self.domains if d.numeric)
        ys, y_axis, limit, sense, every = self._plot_series(main.name)
        xs = self.objective_values(main.name)
        x_axis = self._axis(main.name, xs)
        fx, fy = x_axis.factor, y_axis.factor
        values = np.unique(xs[np.isfinite(xs)])
        good, bad = [], []
        for x in values:
            at = (xs == x) & np.isfinite(ys)
            fits = at & self.feasible_mask
            if fits.any() or (every and at.any()):
                pick = fits if fits.any() else at
                k = sense * ys[pick]
                good.append((x * fx, float(ys[pick][np.argmin(k)]) * fy))
            if not fits.any():
                bad.append(x * fx)
        if good:
            label = "best at each value" if every else "best that fits"
            ax.plot(*zip(*good, strict=True), marker="o", ms=3, label=label)
        for x in bad:
            ax.axvline(x, color="#d62728", alpha=0.15, lw=3)
        if bad:
            ax.plot([], [], color="#d62728", alpha=0.4, lw=3, label="nothing fits")
        if limit is not None:
            ax.axhline(limit * fy, color="#7f7f7f", ls="--", lw=1, label="the limit")
        if self.best_candidate is not None:
            c = self.best_candidate
            at = c.point.get(main.name)
            bx = float(at) if isinstance(at, float) else float(xs[c.index])
            ax.plot([bx * fx], [float(ys[c.index]) * fy], "*", ms=14, color="#2ca02c", label="best")
        _set_axis(ax, "x", x_axis, values * fx, swept=True)
        _set_axis(ax, "y", y_axis, ys * fy)
        title = self._goal()
        if len(self.objectives) == 2:  # nothing fits, so no front: the first objective alone
            first, second = self.objectives
            aim = "maximise" if self.senses[first] < 0 else "minimise"
            title = f"{aim} {first} (nothing fits: no front with {second})"
        ax.set_title(title)


@dataclass(frozen=True)
class PlotAxis:
    """How a plot's axis shows a variable: its label, the factor from base units to the
    unit shown, and whether its ticks read as percents (a fraction, as the tables print it)."""

    label: str
    factor: float
    percent: bool = False


#: the most candidates a Pareto plot draws behind its front (each costs a draw)
MAX_PLOT_POINTS = 5000


def _set_axis(
    ax: Axes, which: str, shown: PlotAxis, values: np.ndarray, swept: bool = False
) -> None:
    """Label the `which` ('x' or 'y') axis of `ax`, which shows `values`: on a log scale where
    they are positive and span more than 50x or, decisions `swept` (1, 2, 4, 8), are a
    geometric series; with percent ticks for a fraction."""
    from napkinmath.whatif.table import geometric, percent_axis, plain_log_ticks, wants_log

    axis, set_scale = (ax.xaxis, ax.set_xscale) if which == "x" else (ax.yaxis, ax.set_yscale)
    finite = values[np.isfinite(values)]
    if finite.size > 2 and wants_log(finite.tolist(), 50.0):
        set_scale("log")
    elif swept and geometric(finite):
        set_scale("log")
        plain_log_ticks(axis, finite.tolist())
    if shown.percent:
        percent_axis(axis)
    axis.set_label_text(shown.label)


def _label(label: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in label.items()) or "the question"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _tie_key(values: np.ndarray) -> np.ndarray:
    """`values` rounded to about 12 significant figures (a mantissa of 40 bits), infinities
    and NaN kept: two candidates whose objectives differ only by round-off rank as a tie."""
    mantissa, exponent = np.frexp(values)
    return np.ldexp(np.round(mantissa * 2.0**40) / 2.0**40, exponent)
