"""The work of a whole plan, counted before any of it is done.

A plan's time grows with its sections, the ranges they are answered over, their sensitivity
tables, its sweeps (a solve, a plot and a row per point each) and its comparisons (a solve per
record); its report grows with the rows of its tables. Work is counted, not timed, so that the
same file is always refused or always answered. One **work unit** is about a millisecond of
the worst such item on a loaded 2-core machine, its report included:

- a section counts `SECTION_COST` (its derivation of up to some twenty steps, each shown in
  the report, costs about the same for one name asked as for several) and `ASK_COST` per name
  it asks; `RANGED_COST` more when a given it sees is a range or a distribution (the search
  over the box of ranges), and `SENSITIVITY_COST` per sensitivity target (elasticities,
  swings, a tornado chart);
- a sweep counts `SWEEP_COST` per record it runs with (a solve and a plot), and a unit per
  `CELLS_PER_UNIT` cells of its table; a comparison counts `COMPARISON_COST` per record;
- an optimization counts `OPTIMIZATION_COST` per record it chooses among (its plan, the
  best candidate's solve, its neighbours, boundaries and plot) and a unit per
  `CELLS_PER_UNIT` cells of the rows its report lists; the candidates themselves, known only
  once each record's domains are read, are capped as they are searched: a plan's
  optimizations evaluate at most `MAX_CANDIDATES` candidates together (about 20 s);
- a plan may count at most `MAX_WORK` units, and its sweeps' and comparisons' tables may hold
  at most `MAX_REPORT_CELLS` cells together (the report shows every row of every table).

A refusal gives the count, the budget, the largest parts and the fix (split the plan, sweep
fewer points). The sections, sweeps and comparisons of a file are first counted as they are
read, before each is checked, so that a file of 100,000 sections is refused at once.
"""

from __future__ import annotations

from collections.abc import Mapping

from napkinmath.errors import InputError
from napkinmath.whatif.budget import FEASIBILITY_COLUMNS, check_records, sweep_columns
from napkinmath.whatif.spread import axis_length, is_spread

MAX_WORK = 60_000
MAX_REPORT_CELLS = 500_000
SECTION_COST = 70
ASK_COST = 2
RANGED_COST = 1_000
SENSITIVITY_COST = 400
SWEEP_COST = 400
CELLS_PER_UNIT = 20
COMPARISON_COST = 50
OPTIMIZATION_COST = 1_500
MAX_CANDIDATES = 4_000_000
#: the rows an optimization's report lists besides its runners-up: neighbours, the Pareto
#: front shown, notes (an allowance)
OPTIMIZATION_ROWS = 24
#: a comparison's columns besides its targets: rank, gpu, model, ratio to the best, the
#: feasibility columns, values used, sources
COMPARISON_COLUMNS = 6 + FEASIBILITY_COLUMNS
FIX = "split the plan into smaller files"
FEWER_POINTS = ", or sweep fewer points (low..high:log:N, points = N)"


class Count:
    """Work units and report cells, by the part of the plan they come from."""

    def __init__(self) -> None:
        self.parts: dict[str, list[int]] = {}  # kind -> [items, units, cells]

    def add(self, kind: str, units: int, cells: int = 0) -> None:
        part = self.parts.setdefault(kind, [0, 0, 0])
        part[0] += 1
        part[1] += units
        part[2] += cells

    @property
    def units(self) -> int:
        return sum(p[1] for p in self.parts.values())

    @property
    def cells(self) -> int:
        return sum(p[2] for p in self.parts.values())

    def describe(self) -> str:
        """'100,000 sections: 1,200,000 units; 1 sweep: 420 units, 66 cells', largest first."""
        shown = sorted(self.parts.items(), key=lambda kv: -kv[1][1])
        return "; ".join(
            f"{n:,} {kind if n == 1 else kind + 's'}: {units:,} units"
            + (f", {cells:,} table cells" if cells else "")
            for kind, (n, units, cells) in shown
        )

    def check(self, source: str, least: bool = False) -> None:
        """Refuse the plan past MAX_WORK units or MAX_REPORT_CELLS cells."""
        fix = FIX + (FEWER_POINTS if "sweep" in self.parts else "")
        if self.cells > MAX_REPORT_CELLS:
            raise InputError(
                f"{source}: this plan's sweeps and comparisons hold "
                f"{self.cells:,} table cells ({self.describe()}); a plan's "
                f"report may hold at most {MAX_REPORT_CELLS:,}: {fix}"
            )
        if self.units > MAX_WORK:
            raise InputError(
                f"{source}: this plan counts {'at least ' * least}"
                f"{self.units:,} work units "
                f"({self.describe()}); a plan may count at most {MAX_WORK:,} "
                f"(about a minute): {fix}"
            )


def check_raw(data: Mapping, source: str) -> None:
    """Refuse a file whose sections, sweeps, comparisons and optimizations alone are over the
    budget, before any of them is checked."""
    count = Count()
    for key, kind, units in (
        ("sections", "section", SECTION_COST + ASK_COST),
        ("sweeps", "sweep", SWEEP_COST),
        ("comparisons", "comparison", 2 * COMPARISON_COST),
        ("optimizations", "optimization", OPTIMIZATION_COST),
    ):
        items = data.get(key)
        if isinstance(items, list):
            part = count.parts.setdefault(kind, [0, 0, 0])
            part[0], part[1] = len(items), len(items) * units
    count.check(source, least=True)


def check_plan(scenario) -> None:
    """Refuse a checked scenario whose work or report is over the budget."""
    count = Count()
    for section in scenario.sections:
        seen = {n: v for n, v in scenario.givens.items() if n not in section.ask}
        seen.update(section.givens)
        units = SECTION_COST + ASK_COST * len(section.ask)
        if any(is_spread(v) for v in seen.values()):
            units += RANGED_COST
        count.add("section", units + SENSITIVITY_COST * len(section.sensitivity))
    for spec in scenario.sweeps:
        records = _records(scenario, spec)
        check_records(records, f"sweep {spec.title!r}")
        points, axes = records, 0
        for value in spec.over.values():
            n = axis_length(value, spec.points)
            points *= n if n is not None else 1
            axes += 1
        record_axes = sum(1 for v in _record_lists(scenario, spec).values() if len(v) > 1)
        cells = points * sweep_columns(axes, record_axes, len(spec.target))
        count.add("sweep", SWEEP_COST * records + cells // CELLS_PER_UNIT, cells)
    for spec in scenario.comparisons:
        records = _records(scenario, spec)
        check_records(records, f"comparison {spec.title!r}")
        cells = records * (len(spec.target) + COMPARISON_COLUMNS)
        count.add("comparison", COMPARISON_COST * records + cells // CELLS_PER_UNIT, cells)
    for spec in getattr(scenario, "optimizations", []):
        records = _records(scenario, spec)
        check_records(records, f"optimization {spec.title!r}")
        rows = spec.top + OPTIMIZATION_ROWS + (records if records > 1 else 0)
        cells = rows * (2 + len(spec.objectives))
        count.add("optimization", OPTIMIZATION_COST * records + cells // CELLS_PER_UNIT, cells)
    count.check(scenario.source)


def _record_lists(scenario, spec) -> dict[str, list]:
    chosen = {**{k: v for k, v in scenario.records.items() if k != "precision"}, **spec.records}
    return {
        k: v if isinstance(v, list) else [v] for k, v in chosen.items() if k in ("gpu", "model")
    }


def _records(scenario, spec) -> int:
    """The records (gpu × model) a sweep or comparison runs with."""
    n = 1
    for names in _record_lists(scenario, spec).values():
        n *= max(1, len(names))
    return n
