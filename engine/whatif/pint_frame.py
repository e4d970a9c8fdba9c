"""A Table as a pint-pandas DataFrame: each number column a `pint[unit]` column.

    nm.to_frame(r, pint=True)          # one answer; columns named by variable, units in dtypes
    nm.sweep(...).to_pandas(pint=True) # a sweep or a comparison likewise
    nm.to_frame(ranged, pint=True)     # a range or samples: a column per target, a row per
                                       # end (low, high) or percentile (p5, p50, p95, mean)

Units are napkinmath's (GPU, token, FLOP live in `napkinmath.units.ureg`), so pint-pandas is
pointed at that registry (`pint_pandas.PintType.ureg = napkinmath.units.ureg`) before a
column is made: arithmetic between these columns and napkinmath's Quantities then works, and
`df["train_time"].pint.to("h")` converts. Needs ``pip install 'napkinmath[pint]'``.

A column without a unit that is a library variable (mfu, tp) is `pint[dimensionless]`; other
numbers (a rank, a ratio to the best) stay floats; labels and flags are as in `to_pandas()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from napkinmath.errors import InputError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

#: a column's values: numbers, labels or flags (as `napkinmath.whatif.table.Values`)
Values: TypeAlias = "Sequence[Any] | np.ndarray"


class Column(Protocol):
    """What a frame reads of a table's column (`napkinmath.whatif.table.Column`)."""

    @property
    def name(self) -> str: ...

    @property
    def unit(self) -> str: ...

    @property
    def values(self) -> Values: ...

    @property
    def is_flags(self) -> bool: ...

    @property
    def is_labels(self) -> bool: ...


class Table(Protocol):
    """What a frame reads of a table (`napkinmath.whatif.table.Table`, which calls it)."""

    title: str
    notes: list[str]
    warnings: list[str]

    @property
    def columns(self) -> Sequence[Column]: ...

    def __getitem__(self, name: str) -> Values: ...


def pint_frame(table: Table) -> pd.DataFrame:
    """`table` as a DataFrame of pint-pandas columns (see the module docstring)."""
    try:
        import pandas as pd
        import pint_pandas
    except ImportError as exc:
        raise InputError(
            "to_pandas(pint=True) needs pandas and pint-pandas: pip install 'napkinmath[pint]'"
        ) from exc
    from napkinmath.units import ureg

    pint_pandas.PintType.ureg = ureg  # napkinmath's units (GPU, token, FLOP) live there
    names = [c.name for c in table.columns]
    if "target" in names and "unit" in names:
        df = _per_target(table, pd, pint_pandas)
    else:
        df = pd.DataFrame(
            {c.name: _column(c, pd, pint_pandas) for c in table.columns}, columns=names
        )
    df.attrs["title"] = table.title
    df.attrs["notes"] = list(table.notes)
    df.attrs["warnings"] = list(table.warnings)
    return df


def _unit(text: str, name: str):
    from napkinmath.text.values import parse_unit

    return parse_unit(text, f"the unit of column {name!r}")


def _is_variable(name: str) -> bool:
    from napkinmath.catalog.lookup import variables

    return name in variables()


def _column(column: Column, pd, pint_pandas):
    """One column: labels and flags as `to_pandas()` has them, numbers with a unit (or of a
    dimensionless variable) as a PintArray, other numbers as floats."""
    if column.is_flags:
        return pd.Series(column.values, dtype="boolean")
    if column.is_labels:
        return list(column.values)
    values = [float(v) for v in column.values]
    if column.unit:
        unit = _unit(column.unit, column.name)
    elif _is_variable(column.name):
        from napkinmath.units import ureg

        unit = ureg.dimensionless
    else:
        return pd.Series(values, dtype="float64")
    return pd.Series(pint_pandas.PintArray(values, dtype=pint_pandas.PintType(unit)))


def _per_target(table: Table, pd, pint_pandas):
    """A range's or samples' table (a row per target, its unit in a column) turned so that
    each target is a column of one unit and each statistic (low, high; p5 ... mean) a row."""
    targets = list(table["target"])
    units = list(table["unit"])
    statistics = [c for c in table.columns if c.name not in ("target", "unit")]
    data = {}
    for i, (target, unit_text) in enumerate(zip(targets, units, strict=True)):
        from napkinmath.units import ureg

        unit = _unit(unit_text, target) if unit_text else ureg.dimensionless
        values = [float(c.values[i]) for c in statistics]
        data[target] = pint_pandas.PintArray(values, dtype=pint_pandas.PintType(unit))
    return pd.DataFrame(data, index=[c.name for c in statistics], columns=targets)
