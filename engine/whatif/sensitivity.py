"""Which assumption an answer hangs on: elasticities and swings.

The elasticity of a target y with respect to an input x is d ln y / d ln x at the point: 1 for
a proportional input (+1% in, +1% out), -1 for an inverse one, 0.5 under a square root. It is
differentiated exactly through the whole chain where the chain composes in closed form
(forward-mode over the roots' trees, `napkinmath.whatif.derivative`: no sympy), otherwise by
a central difference in log space. The swing of an input is the target at the input's low
and high with every other input at its centre: for a ranged given its range, otherwise
±`relative` (10%). Rows sorted by swing width make a tornado chart (`plot()`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

import numpy as np

from napkinmath import arguments
from napkinmath.answer.data import from_base
from napkinmath.answer.result import Result
from napkinmath.catalog.lookup import variables
from napkinmath.errors import InputError
from napkinmath.text.numbers import format_value
from napkinmath.units import format_number, format_unit, humanize
from napkinmath.whatif.spread import Bound, format_interval
from napkinmath.whatif.vectorize import VectorChain

if TYPE_CHECKING:
    from pathlib import Path

    import pandas as pd
    from matplotlib.axes import Axes

STEP = 1e-4


@dataclass(frozen=True)
class Row:
    """One input: where it came from, its value, its elasticity and its swing."""

    name: str
    origin: str  # "you", "record H100-SXM", "assumption"
    value: str
    elasticity: float
    low: float  # target at the input's low end (base units)
    high: float  # target at the input's high end
    swing: str  # "range 0.3 … 0.5" or "±10%"
    #: the value as a number in `unit`, and the input's low and high ends in that unit
    amount: float = math.nan
    unit: str = ""
    input_low: float = math.nan
    input_high: float = math.nan


class Sensitivity:
    """Elasticities and swings of one target; `str()`, `to_markdown()`, `to_table()`, `plot()`."""

    def __init__(self, target: str, base: float, rows: list[Row], method: str) -> None:
        self.target = target
        self.base = base
        self.method = method
        #: sorted by swing width, widest first
        self.rows = sorted(rows, key=lambda r: (-float(f"{abs(r.high - r.low):.9g}"), r.name))

    @property
    def elasticities(self) -> dict[str, float]:
        return {r.name: r.elasticity for r in self.rows}

    def _unit(self):
        var = variables()[self.target]
        return humanize(from_base(self.base, var), var.display_unit).units

    def _show(self, base: float) -> float:
        return float(from_base(base, variables()[self.target]).to(self._unit()).magnitude)

    def to_table(self):
        from napkinmath.whatif.table import Column, Table

        unit = format_unit(self._unit())
        return Table(
            [
                Column("input", "", [r.name for r in self.rows], role="info"),
                Column("origin", "", [r.origin for r in self.rows], role="info"),
                Column("value", "", [r.value for r in self.rows], role="info"),
                Column("elasticity", "", np.array([r.elasticity for r in self.rows])),
                Column("swing", "", [r.swing for r in self.rows], role="info"),
                Column(
                    f"{self.target} at low", unit, np.array([self._show(r.low) for r in self.rows])
                ),
                Column(
                    f"{self.target} at high",
                    unit,
                    np.array([self._show(r.high) for r in self.rows]),
                ),
            ],
            title=f"Sensitivity of {self.target} = "
            f"{format_number(self._show(self.base))} {format_unit(self._unit())}",
            notes=[self.method],
        )

    def to_numbers(self):
        """The table with numbers where `to_table` shows text: each input's value and the
        ends of its swing as numbers in its `unit` (a fraction as 0.4, not 40%)."""
        from napkinmath.whatif.table import Column, Table

        table = self.to_table()
        by_name = {c.name: c for c in table.columns}
        shown = [
            by_name["input"],
            by_name["origin"],
            Column("value", "", np.array([r.amount for r in self.rows]), role="info"),
            Column("unit", "", [r.unit for r in self.rows], role="info"),
            Column("input at low", "", np.array([r.input_low for r in self.rows]), role="info"),
            Column("input at high", "", np.array([r.input_high for r in self.rows]), role="info"),
            by_name["elasticity"],
            by_name["swing"],
            *table.columns[-2:],
        ]
        return Table(shown, title=table.title, notes=list(table.notes))

    def to_pandas(self) -> pd.DataFrame:
        """A DataFrame of `to_numbers()`: every value a number (float64), units beside."""
        return self.to_numbers().to_pandas()

    def __str__(self) -> str:
        return str(self.to_table())

    def to_markdown(self) -> str:
        return self.to_table().to_markdown()

    def _repr_html_(self) -> str:
        return self.to_table()._repr_html_()

    def to_latex(self) -> str:
        """The table as a LaTeX tabular under a paragraph heading, with the method below."""
        from napkinmath.text.latex import text

        table = self.to_table()
        align = "".join("l" if c.is_labels else "r" for c in table.columns)
        lines = [
            f"\\paragraph{{{text(table.title)}}}",
            f"\\begin{{tabular}}{{{align}}}",
            " & ".join(text(h) for h in table.headers) + r" \\ \hline",
        ]
        lines += [" & ".join(text(cell) for cell in row) + r" \\" for row in table._cells()]
        lines += [r"\end{tabular}", f"\\par{{\\small {text(' '.join(table.notes))}}}"]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the target's value, the method, and each input's origin, value,
        elasticity, swing and the target at the input's low and high end (widest first);
        the values are in the unit the table shows."""
        unit = self._unit()

        def qty(base: float) -> dict:
            shown = self._show(base)
            return {
                "value": shown,
                "unit": format_unit(unit, style="ascii"),
                "text": f"{format_number(shown)} {format_unit(unit)}".strip(),
            }

        return {
            "value": qty(self.base),
            "method": self.method,
            "inputs": [
                {
                    "name": r.name,
                    "origin": r.origin,
                    "value": r.value,
                    "elasticity": r.elasticity,
                    "swing": r.swing,
                    "low": qty(r.low),
                    "high": qty(r.high),
                }
                for r in self.rows
            ],
        }

    @overload
    def plot(self, path: str | Path, ax: Axes | None = None) -> Path: ...

    @overload
    def plot(self, path: None = None, ax: Axes | None = None) -> Axes: ...

    def plot(self, path: str | Path | None = None, ax: Axes | None = None) -> Path | Axes:
        """A tornado chart of the swings (matplotlib), saved to `path` if given."""
        from napkinmath.whatif.table import tornado

        rows = [(r.name, self._show(r.low), self._show(r.high), r.swing) for r in self.rows]
        header = f"{self.target} [{format_unit(self._unit())}]"
        return tornado(rows, header, self._show(self.base), path=path, ax=ax)


def sensitivity(
    result: Result, bounds: Sequence[Bound] = (), target: str | None = None, relative: float = 0.1
) -> Sensitivity:
    """Elasticities of `target` (the first target) to every input of `result`, with swings."""
    if target is None:
        target = result.targets[0]
    elif not isinstance(target, str) or target not in result.targets:
        raise InputError(
            f"target={arguments.shown(target)}: not a target of this answer; "
            f"choose one of {', '.join(result.targets)}",
            "target",
        )
    relative = arguments.real(
        relative, "relative", what="a fraction between 0 and 1", example="0.1"
    )
    if not 0 < relative < 1:
        raise InputError(
            f"relative={relative!r}: expected a fraction between 0 and 1 such as 0.1", "relative"
        )
    chain = VectorChain.from_result(result)
    point = {n: g.base for n, g in result.givens.items()}
    ranged = {b.name: b for b in bounds}  # the centre answer already holds their centres
    names = [n for n in result.givens if n in point]
    exact = _exact_elasticities(chain, target, point, names)
    missing = [n for n in names if n not in exact]  # differenced only where not exact
    numeric = _numeric_elasticities(chain, target, point, missing) if missing else {}
    elasticity = {n: exact[n] if n in exact else numeric[n] for n in names}
    method = (
        "elasticities d ln y / d ln x differentiated exactly through the chain"
        if len(exact) == len(names)
        else "elasticities d ln y / d ln x by central differences (the chain has roundings "
        "or several roots)"
    )
    lows, highs, swings = _swings(chain, target, point, names, ranged, relative)
    base = _answered(result, target)
    if base is None:
        base = float(chain.evaluate(point, (1,))[0][target][0])
    method += f"; swings: ranged inputs over their range, others ±{relative:.0%}"
    rows = []
    for n in names:
        given = result.givens[n]
        origin = {"given": "you", "assumption": "assumption"}.get(
            given.origin, f"record {given.record}"
        )
        value = (
            _range_text(ranged[n]) if n in ranged else format_value(given.quantity, given.variable)
        )
        unit = given.quantity.units
        shown = float(from_base(1.0, given.variable).m_as(unit))  # base units to `unit`
        low, high = (
            (ranged[n].low_base, ranged[n].high_base)
            if n in ranged
            else (point[n] * (1 - relative), point[n] * (1 + relative))
        )
        rows.append(
            Row(
                n,
                origin,
                value,
                elasticity[n],
                lows[n],
                highs[n],
                swings[n],
                amount=float(given.quantity.magnitude),
                unit=format_unit(unit),
                input_low=low * shown,
                input_high=high * shown,
            )
        )
    return Sensitivity(target, base, rows, method)


def _answered(result: Result, target: str) -> float | None:
    """The target's value in base units as the answer's own steps computed it (None when
    no step did: a given asked back)."""
    found = None
    for step in result.steps:
        if target in step.values:
            found = step.values[target]
    return found


def _range_text(bound: Bound) -> str:
    """'30% … 50%' for a fraction, '9.07 … 15.1 day' otherwise."""
    interval = bound.interval
    return format_interval(interval.low, interval.high, variable=bound.variable)


def _exact_elasticities(
    chain: VectorChain, target: str, point: dict[str, float], names: list[str]
) -> dict[str, float]:
    """Exact elasticities at the point (forward-mode over the chain's trees); {} where the
    chain rounds or has several roots on the target's path."""
    from napkinmath.library.tree import NoTreeError
    from napkinmath.whatif.derivative import gradient

    try:
        found = gradient(chain, target, point, names)
    except NoTreeError:  # a root only sympy holds: differentiate the composed expression
        return _sympy_elasticities(chain, target, point, names)
    if found is None:
        return {}
    value, grad = found
    return {
        n: float(grad[i]) * point[n] / value if value else math.nan for i, n in enumerate(names)
    }


def _sympy_elasticities(
    chain: VectorChain, target: str, point: dict[str, float], names: list[str]
) -> dict[str, float]:
    import sympy  # lazy: only a root with no tree form differentiates with sympy

    from napkinmath.library.declare import ROUNDING_FUNCTIONS
    from napkinmath.whatif.box import composed
    from napkinmath.whatif.vectorize import vector_closure

    exprs = composed(chain)
    if exprs is None or target not in exprs:
        return {}
    y = exprs[target]
    if y.has(*ROUNDING_FUNCTIONS):
        return {}
    symbols = {s.name: s for s in y.free_symbols}
    found = {}
    value = float(np.asarray(vector_closure(y)(point)))
    for n in names:
        if n not in symbols:
            found[n] = 0.0
            continue
        derivative = float(np.asarray(vector_closure(sympy.diff(y, symbols[n]))(point)))
        found[n] = derivative * point[n] / value if value else math.nan
    return found


def _numeric_elasticities(
    chain: VectorChain, target: str, point: dict[str, float], names: list[str]
) -> dict[str, float]:
    inputs = {n: np.full(2 * len(names) + 1, x) for n, x in point.items()}
    for i, n in enumerate(names):
        inputs[n][2 * i + 1] = point[n] * math.exp(STEP)
        inputs[n][2 * i + 2] = point[n] * math.exp(-STEP)
    values, ok = chain.evaluate(inputs, (2 * len(names) + 1,))
    y = values[target]
    found = {}
    for i, n in enumerate(names):
        up, down = y[2 * i + 1], y[2 * i + 2]
        if point[n] == 0 or not (ok[2 * i + 1] and ok[2 * i + 2]) or up <= 0 or down <= 0:
            found[n] = math.nan
        else:
            found[n] = float((math.log(up) - math.log(down)) / (2 * STEP))
    return found


def _swings(
    chain: VectorChain,
    target: str,
    point: dict[str, float],
    names: list[str],
    ranged: dict[str, Bound],
    relative: float,
):
    inputs = {n: np.full(2 * len(names), x) for n, x in point.items()}
    swings = {}
    for i, n in enumerate(names):
        if n in ranged:
            lo, hi = ranged[n].low_base, ranged[n].high_base
            swings[n] = f"range {_range_text(ranged[n])}"
        else:
            lo, hi = point[n] * (1 - relative), point[n] * (1 + relative)
            swings[n] = f"±{relative:.0%}"
        inputs[n][2 * i], inputs[n][2 * i + 1] = lo, hi
    values, ok = chain.evaluate(inputs, (2 * len(names),))
    y = np.where(ok, values[target], np.nan)
    lows = {n: float(y[2 * i]) for i, n in enumerate(names)}
    highs = {n: float(y[2 * i + 1]) for i, n in enumerate(names)}
    return lows, highs, swings
