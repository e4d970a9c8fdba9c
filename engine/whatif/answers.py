"""Answers over ranges and samples, with derivations that show each step's spread.

A `RangeResult` holds, for every step of the plan, the exact low … high over the box of
ranged givens and the corner that produced each end; a `SampleResult` holds the median and
the 5th/95th percentiles of a Monte Carlo run. Both keep the point answer at the centre (a
plain `Result`) for its givens, sources and checks, and render as text, Markdown and JSON.
Both evaluate the constraints the answer touches over the whole spread: a range says whether
the whole box fits and where along a ranged input a constraint's boundary lies; samples say
the share that fit (`constraints`, `fits`, `warnings`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import pint

from napkinmath import arguments
from napkinmath.answer.data import Given, from_base
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variables
from napkinmath.errors import InputError
from napkinmath.library.declare import Variable
from napkinmath.text.numbers import format_value
from napkinmath.text.sources import Sources
from napkinmath.units import format_unit, humanize
from napkinmath.whatif.box import Extreme
from napkinmath.whatif.spread import Bound, Interval, format_interval

if TYPE_CHECKING:
    import pandas as pd

    from napkinmath.whatif.sensitivity import Sensitivity
    from napkinmath.whatif.table import Table

quantity = from_base  # a base-unit float as a Quantity in the variable's unit


def interval(low: float, high: float, var: Variable) -> Interval:
    """Both ends in the unit a person would choose for the larger one."""
    unit = humanize(quantity(max(abs(low), abs(high)), var), var.display_unit).units
    return Interval(quantity(low, var).to(unit), quantity(high, var).to(unit))


def point_text(at: dict[str, float]) -> str:
    """'mfu = 0.5, n_gpus = 1,024 GPU'."""
    known = variables()
    shown = (humanize(quantity(x, known[n]), known[n].display_unit) for n, x in at.items())
    return ", ".join(f"{n} = {format_value(q, known[n])}" for n, q in zip(at, shown, strict=True))


class _SpreadAnswer:
    """Shared rendering: headline, givens with their spreads, steps with their spreads."""

    kind = ""

    def __init__(
        self,
        targets: tuple[str, ...],
        center: Result,
        bounds: list[Bound],
        notes: list[str],
        constraints: list | None = None,
    ) -> None:
        self.targets = targets
        #: the plain answer with every spread at its centre (givens, sources, checks)
        self.center = center
        self.bounds = bounds
        self.notes = notes
        #: the constraints the answer touches, over the whole spread
        #: (`whatif.feasible.RangeConstraint` or `SampleConstraint`)
        self.constraints: list = list(constraints or [])

    constraints_heading = "Constraints (over the whole spread):"

    @property
    def fits(self) -> bool:
        """True when every constraint holds over the whole spread."""
        return not any(c.warning() for c in self.constraints)

    @property
    def warnings(self) -> list[str]:
        """Constraints violated somewhere in the spread, and disagreeing checks at the
        centre, one sentence each (`napkin solve --strict` fails on them)."""
        found = [w for c in self.constraints if (w := c.warning())]
        found += [
            f"{c.formula.title} disagrees: {c.describe()} ({c.relative_difference:.1%} apart)"
            for c in self.center.checks
            if not c.agrees
        ]
        return found

    def _constraint_lines(self) -> list[str]:
        return [f"  {c.line()}" for c in self.constraints]

    def _spread(self, name: str) -> str:
        raise NotImplementedError

    def _headline_extra(self, name: str) -> str:
        return ""

    @property
    def givens(self) -> dict[str, Given]:
        return self.center.givens

    def headline(self) -> list[str]:
        return [f"{n} = {self._spread(n)}{self._headline_extra(n)}" for n in self.targets]

    def _givens_lines(self, sources: Sources | None = None) -> list[str]:
        return self.center._givens_text({b.name: b.describe() for b in self.bounds}, sources)

    def _step_lines(self, sources: Sources | None = None) -> list[str]:
        return self.center._steps_text(
            lambda name: self._spread(name) + self._step_extra(name), sources
        )

    def _step_extra(self, name: str) -> str:
        return ""

    def __str__(self) -> str:
        sources = Sources()
        lines = self.headline()
        lines += [f"WARNING: {w}" for w in self.warnings]
        lines += ["", "Given:", *self._givens_lines(sources)]
        if self.center.unused:
            lines.append(
                f"  (given but not needed for this answer: {', '.join(self.center.unused)})"
            )
        lines += ["", f"Derivation ({self.kind}):", *self._step_lines(sources)]
        if self.center.checks:
            lines += [
                "",
                "Checks (over-determined givens, at the centre; every point of the "
                "ranges is checked too):",
                *self.center._checks_text(),
            ]
        if self.constraints:
            lines += ["", self.constraints_heading, *self._constraint_lines()]
        if self.notes:
            lines += ["", *[f"Note: {n}" for n in self.notes]]
        if sources:
            lines += ["", "Sources:", *[f"  [{n}] {s}" for n, s in sources.entries()]]
        return "\n".join(lines)

    def to_text(self) -> str:
        return str(self)

    def to_markdown(self) -> str:
        text = str(self).split("\n")
        return "\n".join(
            [f"**{line}**  " for line in self.headline()]
            + ["", "```"]
            + text[len(self.targets) + 1 :]
            + ["```"]
        )

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """The answer as a notebook shows it: the spread of each target, the givens with
        their spreads, each step's math as MathML and its spread, a symbol legend."""
        from napkinmath.text import markup

        center, sources = self.center, Sources()
        out: list[str] = []
        for name in self.targets:
            out += markup.headline([f"{name} = {self._spread(name)}"])
            extra = [line.strip() for line in self._headline_extra(name).split("\n")]
            out += [f'<p class="muted">{markup.esc(line)}</p>' for line in extra if line]
        out += markup.warnings(self.warnings)
        shown = {b.name: b.describe() for b in self.bounds}
        out.append(markup.givens(center._givens_rows(shown, sources)))
        out.append(f'<p class="muted">Derivation: {markup.esc(self.kind)}</p>')
        out += center._derivation_html(self._spread, self._step_extra, sources)
        out += markup.lines_block(
            "Checks (over-determined givens, at the centre; every point of the ranges is "
            "checked too):",
            center._checks_text(),
        )
        if self.constraints:
            lines = [c.line() for c in self.constraints]
            out += markup.lines_block(self.constraints_heading, lines)
        out += [f'<p class="muted">Note: {markup.esc(n)}</p>' for n in self.notes]
        out += markup.sources_list(sources)
        return markup.frame("range" if isinstance(self, RangeResult) else "samples", out)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=arguments.indent(indent), ensure_ascii=False)

    def to_dict(self) -> dict[str, object]:
        raise NotImplementedError

    def to_table(self) -> Table:
        raise NotImplementedError

    def to_frame(self, pint: bool = False) -> pd.DataFrame:
        """One row per target, its unit and the numbers of its spread (`to_table()`), as a
        pandas DataFrame; needs pandas."""
        return self.to_table().to_pandas(pint=pint)

    def _rows(self, columns: dict[str, list[float]], units: list[str]) -> Table:
        """The table of `columns` (numbers, one row per target, in `units`)."""
        import numpy as np

        from napkinmath.whatif.table import Column, Table

        return Table(
            [
                Column("target", "", list(self.targets), role="info"),
                Column("unit", "", units, role="info"),
                *(Column(n, "", np.array(v, dtype=float)) for n, v in columns.items()),
            ],
            title=self.kind,
            notes=list(self.notes),
        )

    def sensitivity(self, target: str | None = None) -> Sensitivity:
        """Elasticities of `target` (the first target) at the centre and the swing of each
        ranged input (see `Sensitivity`)."""
        from napkinmath.whatif.sensitivity import sensitivity

        return sensitivity(self.center, self.bounds, target)


class RangeResult(_SpreadAnswer):
    """The exact range of each target over the box of ranged givens.

    `value` is an `Interval` (``.low``, ``.high`` are Quantities); `extremes` has every
    step's range with the inputs at each end; `center` is the plain answer at the middle.
    """

    kind = "each step over the whole box of ranges"
    constraints_heading = "Constraints (does the plan fit over the whole range?):"

    def __init__(
        self,
        targets: tuple[str, ...],
        center: Result,
        bounds: list[Bound],
        extremes: dict[str, Extreme],
        guarantees: dict[str, str] | Callable[[], dict[str, str]],
        notes: list[str],
        constraints: list | None = None,
    ) -> None:
        super().__init__(targets, center, bounds, notes, constraints)
        self.extremes = extremes
        self._guarantees = guarantees
        monotone = all(e.monotone for e in extremes.values())
        ranged = ", ".join(b.name for b in bounds)
        self.kind = (
            "ends at the corners of the box, exact: every step is monotone in "
            f"{ranged} (proved symbolically)"
            if monotone
            else "ends at the corners where each step is proved monotone, elsewhere found "
            "numerically on refined grids"
        )
        self.method = "corners" if monotone else "numeric"

    @property
    def guarantees(self) -> dict[str, str]:
        """Per target, a sentence on which end meets the user's requirement (worked out when
        first read: only a printer or `to_dict` needs it)."""
        if callable(self._guarantees):
            self._guarantees = self._guarantees()
        return self._guarantees

    @property
    def values(self) -> dict[str, Interval]:
        known = variables()
        return {
            n: interval(self.extremes[n].low, self.extremes[n].high, known[n]) for n in self.targets
        }

    @property
    def value(self) -> Interval:
        return self.values[self.targets[0]]

    def __getitem__(self, name: str) -> Interval:
        e = self.extremes[name]
        return interval(e.low, e.high, variables()[name])

    def _spread(self, name: str) -> str:
        if self._constant(name):
            return format_value(self[name].high, variables()[name])
        i = self[name]
        return format_interval(i.low, i.high, variable=variables()[name])

    def _constant(self, name: str) -> bool:
        e = self.extremes[name]
        return abs(e.high - e.low) <= 1e-12 * max(abs(e.high), abs(e.low))

    def _ends(self, name: str) -> str:
        if self._constant(name):
            return "the same at every point of the ranges"
        e = self.extremes[name]
        how = "" if e.monotone else ", found numerically"
        return f"low at {point_text(e.low_at)}; high at {point_text(e.high_at)}{how}"

    def _headline_extra(self, name: str) -> str:
        extra = f"   ({self._ends(name)})"
        if name in self.guarantees:
            extra += f"\n   ({self.guarantees[name]})"
        return extra

    def _step_extra(self, name: str) -> str:
        return f"   ({self._ends(name)})"

    def to_table(self) -> Table:
        """One row per target: `low` and `high`, the exact ends of its range, in `unit`."""
        ends = [self[n] for n in self.targets]
        return self._rows(
            {
                "low": [float(i.low.magnitude) for i in ends],
                "high": [float(i.high.m_as(i.low.units)) for i in ends],
            },
            [format_unit(i.low.units) for i in ends],
        )

    def __repr__(self) -> str:
        return f"<RangeResult {', '.join(f'{n} = {self[n]}' for n in self.targets)}>"

    def to_dict(self) -> dict[str, object]:
        known = variables()

        def end(base: float, var: Variable) -> dict:
            q = quantity(base, var)
            return {"value": float(q.magnitude), "unit": format_unit(q.units, style="ascii")}

        return {
            "targets": {
                n: {
                    "low": end(self.extremes[n].low, known[n]),
                    "high": end(self.extremes[n].high, known[n]),
                    "text": str(self[n]),
                    "low_at": self.extremes[n].low_at,
                    "high_at": self.extremes[n].high_at,
                    "guarantee": self.guarantees.get(n, ""),
                }
                for n in self.targets
            },
            "ranges": {
                b.name: {"low": str(b.low), "high": str(b.high), "kind": b.kind}
                for b in self.bounds
            },
            "steps": {
                n: {"text": str(self[n]), "monotone": e.monotone} for n, e in self.extremes.items()
            },
            "method": self.method,
            "center": self.center.to_dict(),
            "constraints": [c.to_dict() for c in self.constraints],
            "fits": self.fits,
            "warnings": self.warnings,
            "notes": self.notes,
        }


class SampleResult(_SpreadAnswer):
    """Percentiles of each target from a seeded Monte Carlo run over the spreads given.

    `value` is the first target's median; `percentiles[name]` maps 5, 50 and 95 to
    Quantities; `samples[name]` holds the draws of every computed variable (base units).
    """

    def __init__(
        self,
        targets: tuple[str, ...],
        center: Result,
        bounds: list[Bound],
        samples: dict,
        n: int,
        kept: int,
        seed: int,
        notes: list[str],
        constraints: list | None = None,
        fit_share: float | None = None,
    ) -> None:
        super().__init__(targets, center, bounds, notes, constraints)
        #: the share of the samples at which every constraint holds (None: none evaluated)
        self.fit_share = fit_share
        self.samples = samples
        self.n = n
        self.kept = kept
        self.seed = seed
        self.kind = (
            f"median [5th, 95th percentile] of {kept:,} samples, seed {seed}; one "
            "draw per input, shared by every step that reads it"
        )

    def percentile(self, name: str, q: float) -> pint.Quantity[float]:
        import numpy as np

        name = arguments.key(name, "name", self.samples, kind="sampled variable")
        q = arguments.real(q, "q", what="a percentile from 0 to 100", example="95")
        if not 0 <= q <= 100:
            raise InputError(
                f"q={arguments.shown(q)}: expected a percentile from 0 to 100 such as 95", "q"
            )
        var = variables()[name]
        base = float(np.percentile(self.samples[name], q))
        return humanize(quantity(base, var), var.display_unit)

    @property
    def percentiles(self) -> dict[str, dict[int, pint.Quantity[float]]]:
        return {n: {q: self.percentile(n, q) for q in (5, 50, 95)} for n in self.targets}

    @property
    def value(self) -> pint.Quantity[float]:
        return self.percentile(self.targets[0], 50)

    @property
    def interval(self) -> Interval:
        """The first target's 5th … 95th percentile."""
        return self._interval(self.targets[0])

    def _interval(self, name: str) -> Interval:
        import numpy as np

        low, high = (float(np.percentile(self.samples[name], q)) for q in (5, 95))
        return interval(low, high, variables()[name])

    def _spread(self, name: str) -> str:
        i = self._interval(name)
        median = self.percentile(name, 50).to(i.high.units)
        var = variables()[name]
        return f"{format_value(median, var)} [{format_interval(i.low, i.high, variable=var)}]"

    def _headline_extra(self, name: str) -> str:
        return f"   (median [5th, 95th percentile], {self.kept:,} samples, seed {self.seed})"

    @property
    def constraints_heading(self) -> str:  # type: ignore[override]
        if self.fit_share is None:
            return "Constraints (over the samples):"
        return (
            f"Constraints (over the samples): the plan fits in {self.fit_share:.1%} of the "
            f"{self.kept:,} samples"
        )

    def to_table(self) -> Table:
        """One row per target: the 5th, 50th and 95th percentiles and the mean of its
        samples, in `unit` (that of its 95th percentile, as the answer shows it)."""
        import numpy as np

        columns: dict[str, list[float]] = {"p5": [], "p50": [], "p95": [], "mean": []}
        units = []
        for name in self.targets:
            var = variables()[name]
            unit = self.percentile(name, 95).units
            for q in (5, 50, 95):
                columns[f"p{q}"].append(float(self.percentile(name, q).m_as(unit)))
            mean = float(np.mean(self.samples[name]))
            columns["mean"].append(float(quantity(mean, var).m_as(unit)))
            units.append(format_unit(unit))
        return self._rows(columns, units)

    def __repr__(self) -> str:
        return f"<SampleResult {', '.join(f'{n} = {self._spread(n)}' for n in self.targets)}>"

    def to_dict(self) -> dict[str, object]:
        out: dict[str, dict[str, object]] = {}
        for name in self.targets:
            out[name] = {
                f"p{q}": {"value": float(v.magnitude), "unit": format_unit(v.units, style="ascii")}
                for q, v in self.percentiles[name].items()
            }
            out[name]["text"] = self._spread(name)
        return {
            "targets": out,
            "samples": self.kept,
            "drawn": self.n,
            "seed": self.seed,
            "spreads": {
                b.name: {"low": str(b.low), "high": str(b.high), "kind": b.kind}
                for b in self.bounds
            },
            "center": self.center.to_dict(),
            "constraints": [c.to_dict() for c in self.constraints],
            "fit_share": self.fit_share,
            "fits": self.fits,
            "warnings": self.warnings,
            "notes": self.notes,
        }
