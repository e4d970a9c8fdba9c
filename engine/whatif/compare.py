"""Comparisons: one question across records, ranked, with each record's values and sources.

    compare("cost_per_million_tokens", gpu=["H100-SXM", "MI300X", "Trainium2"],
            model="llama-3-70b", n_gpus=4, batch_size=32, seq_len=8192)

Each record (or pair of gpu and model records) is an ordinary solve with its own derivation
(`comparison.results[label]`); the ranking follows the target's better direction (costs and
times lower, throughputs higher), rows that fit first: a row that violates a constraint (its
weights and KV cache over the replica's HBM) is ranked after every row that fits, with why.
Each row's ratio is to the best row (the best that fits, when one does).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING, overload

from napkinmath import arguments, deadline
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variables
from napkinmath.errors import InputError, NapkinError
from napkinmath.solving.solver import CONSISTENCY_TOLERANCE, check_tolerance, solve, target_names
from napkinmath.units import format_number, format_quantity, format_unit, humanize
from napkinmath.whatif import budget
from napkinmath.whatif.preference import better
from napkinmath.whatif.spread import is_spread
from napkinmath.whatif.sweep import record_list

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd
    from matplotlib.axes import Axes

#: where each row's derivation is, said to a Python user and on the command line
DERIVATION_IN_PYTHON = (
    "Each row's derivation: comparison.results[label] (napkin solve with that record)."
)
DERIVATION_ON_CLI = "Each row's derivation: add --derivations (or napkin solve with that record)."
DERIVATIONS_BELOW = "Each row's derivation follows."


class Comparison:
    """A ranked comparison; `results[label]` is each row's full `Result` (its derivation)."""

    def __init__(
        self,
        targets: tuple[str, ...],
        results: dict[str, Result],
        failures: dict[str, str],
        direction: str,
        options: dict[str, list],
    ) -> None:
        self.targets = targets
        self.results = results
        self.failures = failures
        self.direction = direction
        self.options = options
        target = targets[0]
        sign = -1.0 if direction == "higher" else 1.0
        self.ranking = sorted(
            results, key=lambda k: (not results[k].fits, sign * self._base(k, target))
        )

    def _base(self, label: str, name: str) -> float:
        q = self.results[label]._raw[name]
        return float(q.to_base_units().magnitude)

    @property
    def best(self) -> str:
        return self.ranking[0]

    def _row(self, label: object) -> Result:
        """The answer of row `label`, or an UnknownKeyError listing the rows."""
        return self.results[arguments.key(label, "label", self.results, kind="row")]

    def fits(self, label: str) -> bool:
        """True when every constraint this row's answer touches holds."""
        return self._row(label).fits

    @property
    def warnings(self) -> list[str]:
        """Each row's violated constraints (and disagreeing checks), naming the row."""
        return [f"{label}: {w}" for label in self.ranking for w in self.results[label].warnings]

    def _why(self, label: str) -> list[str]:
        """'does not fit: Weights and KV cache fit in the replica's HBM: 828.4 GB > ...'."""
        return [
            f"does not fit: {c.constraint.title}: {c.describe()}"
            for c in self.results[label].constraints
            if not c.holds
        ]

    def ratio(self, label: str) -> float:
        """This row's answer over the best row's (1 for the best)."""
        label = arguments.key(label, "label", self.results, kind="row")
        best = self._base(self.best, self.targets[0])
        return self._base(label, self.targets[0]) / best if best else math.nan

    def used(self, label: str, differing: bool = False) -> list[str]:
        """The record values and assumptions this row's answer read (only those that differ
        between rows, with `differing`)."""
        shown = self._used(arguments.key(label, "label", self.results, kind="row"))
        common = set(self.common) if arguments.flag(differing, "differing") else set()
        return [s for s in shown if s not in common]

    def _used(self, label: str) -> list[str]:
        return self._used_by_label[label]

    @cached_property
    def _used_by_label(self) -> dict[str, list[str]]:
        """Each row's record values and assumptions, formatted once (a table and its text
        read them for every row)."""
        return {
            label: [
                f"{n} = {format_quantity(g.quantity)}"
                + (" (assumption)" if g.origin == "assumption" else "")
                for n, g in result.givens.items()
                if g.origin != "given"
            ]
            for label, result in self.results.items()
        }

    @cached_property
    def common(self) -> list[str]:
        """Values every row read alike (shown once)."""
        rows = [set(self._used(label)) for label in self.ranking[1:]]
        return [s for s in self._used(self.ranking[0]) if all(s in r for r in rows)]

    @property
    def readings(self) -> list[str]:
        """Your givens that were not read as written ('peak_flops: 989 TFLOP/s, read as per
        GPU'); the same in every row."""
        first = self.results[self.ranking[0]].givens if self.ranking else {}
        return [f"{name}: {g.reading}" for name, g in first.items() if g.reading]

    def sources(self, label: str) -> list[str]:
        """'H100-SXM: NVIDIA H100 Tensor Core GPU datasheet (2023-06)' and the like."""
        found: dict[str, None] = {}
        label = arguments.key(label, "label", self.results, kind="row")
        for g in self.results[label].givens.values():
            if g.origin == "record" or (
                g.origin == "assumption" and g.record is not None and g.record in label.split(" + ")
            ):
                source = g.note.partition(": ")[2].split("; ")[-1]
                found[f"{g.record}: {source}"] = None
        return list(found)

    def to_table(self):
        import numpy as np

        from napkinmath.text.numbers import is_fraction
        from napkinmath.whatif.table import Column, Table

        known = variables()
        columns = [
            Column(
                "rank",
                "",
                np.arange(1, len(self.ranking) + 1, dtype=float),
                role="info",
                count=True,
            )
        ]
        for option, names in self.options.items():
            if len(names) > 1 or names[0] is not None:
                columns.append(
                    Column(
                        option,
                        "",
                        [self._part(label, option) for label in self.ranking],
                        role="input",
                    )
                )
        for name in self.targets:
            var = known[name]
            values = [self.results[label]._raw[name] for label in self.ranking]
            median = sorted(values, key=lambda q: abs(q.to_base_units().magnitude))[
                len(values) // 2
            ]
            unit = humanize(median, var.display_unit).units
            shown = np.array([float(q.to(unit).magnitude) for q in values])
            percent = is_fraction(var) and not format_unit(unit)
            columns.append(Column(name, format_unit(unit), shown, percent=percent))
        columns.append(
            Column(
                f"× best {self.targets[0]}",
                "",
                np.array([self.ratio(label) for label in self.ranking]),
            )
        )
        if any(self.results[label].constraints for label in self.ranking):
            from napkinmath.whatif import feasible

            found = [feasible.result_row(self.results[label]) for label in self.ranking]
            columns += feasible.columns(*(list(part) for part in zip(*found, strict=True)))
        columns.append(
            Column(
                "values used",
                "",
                ["; ".join(self.used(label, True)) for label in self.ranking],
                role="info",
                prose=True,
            )
        )
        columns.append(
            Column(
                "sources",
                "",
                ["; ".join(self.sources(label)) for label in self.ranking],
                role="info",
                prose=True,
            )
        )
        notes = [
            f"ranked by {self.targets[0]}, {self.direction} is better"
            + (", rows that fit first" if self._mixed else "")
        ]
        notes += [f"{label}: {why}" for label in self.ranking for why in self._why(label)]
        if self.common:
            notes.append(f"every row: {'; '.join(self.common)}")
        notes += [f"{label}: cannot answer: {why}" for label, why in self.failures.items()]
        notes += self.readings
        return Table(
            columns,
            title=f"{', '.join(self.targets)} compared",
            notes=notes,
            warnings=self.warnings,
        )

    @property
    def _mixed(self) -> bool:
        """True when some rows fit and others do not (the ranking puts those that fit first)."""
        return len({self.fits(label) for label in self.ranking}) > 1

    def _part(self, label: str, option: str) -> str:
        parts = (
            dict(zip(self.options, label.split(" + "), strict=False))
            if len(label.split(" + ")) == len(self.options)
            else {}
        )
        return parts.get(option, label)

    def to_pandas(self, pint: bool = False) -> pd.DataFrame:
        return self.to_table().to_pandas(pint=pint)

    def to_csv(self, path=None) -> str:
        return self.to_table().to_csv(path)

    def to_markdown(self) -> str:
        return self.to_table().to_markdown()

    def _repr_html_(self) -> str:
        return self.to_table()._repr_html_()

    def to_json(self, indent: int | None = 2) -> str:
        return self.to_table().to_json(indent)

    @overload
    def plot(self, path: str | Path, ax: Axes | None = None) -> Path: ...

    @overload
    def plot(self, path: None = None, ax: Axes | None = None) -> Axes: ...

    def plot(self, path: str | Path | None = None, ax: Axes | None = None) -> Path | Axes:
        return self.to_table().plot(path, x=next(iter(self.options)), y=self.targets[0], ax=ax)

    def __str__(self) -> str:
        return self.text()

    def text(self, footer: str = DERIVATION_IN_PYTHON) -> str:
        """The ranking as text, ending with `footer`: where each row's derivation is (the
        command line names its option, `DERIVATION_ON_CLI`)."""
        target = self.targets[0]
        first = ", rows that fit first" if self._mixed else ""
        lines = [f"{target} compared ({self.direction} is better{first}):", ""]
        width = max(len(label) for label in self.ranking)
        for rank, label in enumerate(self.ranking, 1):
            value = self.results[label].values[target]
            ratio = self.ratio(label)
            lines.append(
                f"{rank}. {label.ljust(width)}  {format_quantity(value)}"
                f"   ({'best' if rank == 1 else format_number(ratio) + '× the best'})"
                + ("   ✗ DOES NOT FIT" if not self.fits(label) else "")
            )
            lines += [f"   ✗ {why}" for why in self._why(label)]
            lines.append(f"   {'; '.join(self.used(label, True))}")
            lines += [f"   source: {s}" for s in self.sources(label)]
        for label, why in self.failures.items():
            lines.append(f"–  {label}: cannot answer: {why}")
        if self.common:
            lines += ["", f"Every row: {'; '.join(self.common)}"]
        lines += [f"Read: {reading}" for reading in self.readings]
        lines += ["", footer]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Comparison {self.targets[0]}: {', '.join(self.ranking)}>"


@deadline.per_question
def compare(
    targets: str | Iterable[str],
    /,
    *,
    gpu: object = None,
    model: object = None,
    tolerance: float = CONSISTENCY_TOLERANCE,
    best: str | None = None,
    achievable: bool = False,
    records: object = None,
    precision: str | None = None,
    **givens: object,
) -> Comparison:
    """Solve `targets` for each record in `gpu` (and/or `model`) lists and rank the answers.

    `best` is 'lower' or 'higher' (default: the target's natural direction: costs and times
    lower, throughputs higher). A record that cannot answer is listed with the reason.
    `achievable`, `records` and `precision` are solve's (measured figures; the user's
    records files; each record's peak and bytes per value at that precision).
    """
    if records is not None:
        from napkinmath.solving.records import user_records

        with user_records(records):
            return compare(
                targets,
                gpu=gpu,
                model=model,
                tolerance=tolerance,
                best=best,
                achievable=achievable,
                precision=precision,
                **givens,
            )
    names = target_names(targets)
    check_tolerance(tolerance)
    gpus, models = record_list(gpu, "gpu"), record_list(model, "model")
    budget.check_records(len(gpus) * len(models), "comparison")
    if len(gpus) * len(models) < 2:
        raise InputError(
            "compare needs at least two records: gpu=['H100-SXM', 'MI300X'] "
            "(in the shell --gpu H100-SXM,MI300X)",
            "gpu",
        )
    if best is not None:
        best = arguments.choice(best, "best", ("lower", "higher"))
    direction = best or better(variables()[names[0]]) or "lower"
    if any(is_spread(v) for v in givens.values()) or {"samples", "seed"} & givens.keys():
        raise InputError("compare takes plain values; ranges go to solve or sweep")
    options = {"gpu": gpus, "model": models}
    results: dict[str, Result] = {}
    failures: dict[str, str] = {}
    for g, m in itertools.product(gpus, models):
        label = " + ".join(x for x in (g, m) if x)
        try:
            # a given named like one of solve's own options (units=, digits=...) reaches
            # that option as before; mypy cannot match the open **givens (object) to those
            # options' narrower annotations
            result = solve(
                names,
                gpu=g,
                model=m,
                tolerance=tolerance,
                achievable=achievable,
                precision=precision,
                **givens,  # type: ignore[arg-type]
            )
        except NapkinError as exc:
            failures[label] = str(exc)
            continue
        results[label] = result
    if not results:
        raise InputError(
            "no record could answer: " + " | ".join(f"{k}: {v}" for k, v in failures.items())
        )
    shown = {k: v for k, v in options.items() if len(v) > 1 or v[0] is not None}
    return Comparison(names, results, failures, direction, shown)
