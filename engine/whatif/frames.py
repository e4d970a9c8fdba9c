"""Tables of answers and of the library, as pandas DataFrames (columns named 'name [unit]').

    nm.to_frame(r)                    # one answer: a row with its targets and givens
    nm.to_frame([r1, r2, r3])         # several: one row each, one unit per column
    nm.to_frame(ranged)               # a range or samples: per target, low and high, or
                                      # the 5th, 50th, 95th percentiles and the mean
    nm.to_frame(nm.variables())       # the vocabulary: name, unit, bounds, default, meaning
    nm.to_frame(nm.formulas)          # the formulas: name, title, equation, subject, source
    nm.to_frame(nm.hardware)          # every record value with its source and date
    nm.to_frame(nm.formula("fleet_equation")), nm.to_frame(nm.hardware.get("H100-SXM"))
                                      # one formula, variable or record (or a list of them)
    nm.to_frame(r, pint=True)         # number columns as pint-pandas `pint[unit]` dtypes

Each goes through `napkinmath.whatif.table.Table`, whose `to_pandas()` needs pandas
(``pip install 'napkinmath[frames]'``); `to_table(...)` gives the Table itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from napkinmath import arguments
from napkinmath.errors import InputError
from napkinmath.units import format_quantity, format_unit, humanize

if TYPE_CHECKING:
    import pandas as pd


def to_table(obj: object):
    """The Table behind `to_frame` (no pandas needed)."""
    from napkinmath.answer.result import Result
    from napkinmath.library.declare import Formula, Variable
    from napkinmath.whatif.answers import RangeResult, SampleResult
    from napkinmath.whatif.compare import Comparison
    from napkinmath.whatif.optimum import Optimum
    from napkinmath.whatif.sensitivity import Sensitivity
    from napkinmath.whatif.table import Table

    if isinstance(obj, Table):
        return obj
    if isinstance(obj, Result):
        return _results([obj])
    # a range's ends or percentiles, every candidate, every row, every input's swing
    if isinstance(obj, (RangeResult, SampleResult, Optimum, Comparison, Sensitivity)):
        return obj.to_table()
    if isinstance(obj, Variable):
        return _variables([obj])
    if isinstance(obj, Formula):
        return _formulas([obj])
    if type(obj).__name__ == "Record":
        return _records([obj])
    if isinstance(obj, (list, tuple)) and obj:
        for kind, build in ((Variable, _variables), (Formula, _formulas)):
            if all(isinstance(x, kind) for x in obj):
                return build(obj)
        if all(type(x).__name__ == "Record" for x in obj):
            return _records(obj)
    name = getattr(obj, "__name__", obj) if not isinstance(obj, Mapping) else None
    if isinstance(name, str) and name in (
        "variables",
        "napkinmath.formulas",
        "formulas",
        "napkinmath.hardware",
        "records",
        "hardware",
    ):
        from napkinmath.catalog.lookup import formulas, variables

        if name == "variables":
            return _variables(variables().values())
        if name in ("formulas", "napkinmath.formulas"):
            return _formulas(formulas().values())
        from napkinmath.hardware import records

        return _records(records().values())
    if isinstance(obj, Mapping) and obj:
        first = next(iter(obj.values()))
        if isinstance(first, Variable):
            return _variables(obj.values())
        if isinstance(first, Formula):
            return _formulas(obj.values())
        if type(first).__name__ == "Record":
            return _records(obj.values())
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(r, Result) for r in obj):
        return _results(list(obj))
    raise InputError(
        f"obj={arguments.shown(obj)}: to_frame takes a Result, a list of "
        "Results, a Table, an Optimum, a Comparison, a Sensitivity, nm.variables(), "
        "nm.formulas or nm.hardware (or 'variables', "
        "'formulas', 'records'), or one variable, formula or record (or a list "
        f"of them), not {type(obj).__name__}",
        "obj",
    )


def to_frame(obj: object, pint: bool = False) -> pd.DataFrame:
    """A pandas DataFrame of `obj` (see the module docstring); needs pandas. `pint=True`:
    number columns of pint-pandas dtypes (`napkinmath.whatif.pint_frame`)."""
    if not isinstance(pint, bool):
        raise InputError(f"pint={arguments.shown(pint)}: expected True or False", "pint")
    return to_table(obj).to_pandas(pint=pint)


def _results(results: list):
    """One row per answer; each variable's column in the unit of its first appearance."""
    import numpy as np

    from napkinmath.whatif.table import Column, Table

    names: dict[str, str] = {}  # name -> role
    for r in results:
        names.update({n: "output" for n in r.targets})
        names.update({n: "input" for n in r.givens if n not in names})
    columns = []
    for name, role in names.items():
        unit = None
        values = []
        for r in results:
            q = (
                r.values[name]
                if name in r.targets
                else (humanize(r.givens[name].quantity) if name in r.givens else None)
            )
            if q is None:
                values.append(np.nan)
                continue
            if unit is None:
                unit = q.units  # as the first answer shows it (the unit chosen, if any)
            values.append(float(q.to(unit).magnitude))
        columns.append(
            Column(
                name,
                format_unit(unit) if unit is not None else "",
                np.array(values, dtype=float),
                role=role,
            )
        )
    return Table(columns, title="answers")


def _variables(variables: Iterable):
    from napkinmath.whatif.table import Column, Table

    rows = list(variables)
    return Table(
        [
            Column("name", "", [v.name for v in rows], role="info"),
            Column("unit", "", [format_unit(v.unit) for v in rows], role="info"),
            Column("bounds", "", [str(v.bounds) for v in rows], role="info"),
            Column(
                "default",
                "",
                [format_quantity(v.default.value) if v.default else "" for v in rows],
                role="info",
            ),
            Column(
                "default_note", "", [v.default.note if v.default else "" for v in rows], role="info"
            ),
            Column("description", "", [v.description for v in rows], role="info"),
        ],
        title="variables",
    )


def _formulas(formulas: Iterable):
    from napkinmath.rendering.result import equation_text
    from napkinmath.whatif.table import Column, Table

    rows = list(formulas)
    return Table(
        [
            Column("name", "", [f.name for f in rows], role="info"),
            Column("title", "", [f.title for f in rows], role="info"),
            Column("equation", "", [equation_text(f) for f in rows], role="info"),
            Column("subject", "", [f.subject for f in rows], role="info"),
            Column(
                "kind",
                "",
                [
                    "forward only"
                    if f.forward_only
                    else "assumption"
                    if f.assumption
                    else "derived"
                    if f.derived
                    else "relation"
                    for f in rows
                ],
                role="info",
            ),
            Column("source", "", [f.source for f in rows], role="info"),
        ],
        title="formulas",
    )


def _records(records: Iterable):
    """One row per record value: its text, its number and unit (one unit per row), source."""
    import numpy as np

    from napkinmath.whatif.table import Column, Table

    rows = [(r, v) for r in records for v in r.values.values()]
    return Table(
        [
            Column("record", "", [r.id for r, _ in rows], role="info"),
            Column("kind", "", [r.kind for r, _ in rows], role="info"),
            Column("key", "", [v.key for _, v in rows], role="info"),
            Column("value", "", [format_quantity(v.quantity) for _, v in rows], role="info"),
            Column(
                "magnitude",
                "",
                np.array([float(v.quantity.magnitude) for _, v in rows], dtype=float),
                role="info",
            ),
            Column("unit", "", [format_unit(v.quantity.units) for _, v in rows], role="info"),
            Column("qualifier", "", [v.qualifier for _, v in rows], role="info"),
            Column("source", "", [v.source for _, v in rows], role="info"),
            Column("date", "", [v.date for _, v in rows], role="info"),
            Column("assumption", "", ["yes" if v.assumption else "" for _, v in rows], role="info"),
        ],
        title="records",
    )
