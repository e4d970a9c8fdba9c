"""A small table of numbers with units: the output of sweeps and comparisons.

A column holds numbers, text labels, or flags (True, False, None for unknown: whether a row
fits); a table whose `feasible` flags say a row does not fit marks it in every format (NO in
text, a tinted row in HTML, a hatched band or bar in plots). numpy is imported lazily; pandas
(`to_pandas`) and matplotlib (`plot`, `tornado`) are optional.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from napkinmath import arguments
from napkinmath.errors import InputError
from napkinmath.text import dimensions
from napkinmath.units import format_number

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.axes import Axes

ROLES = ("input", "output", "info")
SCALES = ("linear", "log")
PLOT_EXTENSIONS = (".png", ".svg")
#: the feasibility columns of a sweep or a comparison (see `napkinmath.whatif.feasible`)
FEASIBLE = "feasible"
BINDING = "binding constraint"
SHARE = "share of limit"
#: how a flag shows in text, Markdown, HTML and LaTeX cells; CSV writes true/false
FLAG_TEXT = {True: "yes", False: "NO", None: ""}
#: the tint of a row that does not fit (HTML) and of its band or bar (plots); the hatching
INFEASIBLE_TINT = "#fde2e2"
#: inputs a tornado chart draws at most (the widest swings): more overlap their labels in a
#: report's figure; the sensitivity table lists every one
TORNADO_ROWS = 10
INFEASIBLE_EDGE = "#b2182b"
INFEASIBLE_HATCH = (0.70, 0.09, 0.17, 0.45)
#: what a column holds: a list (labels, flags, numbers) or a numpy array
Values: TypeAlias = "Sequence[Any] | np.ndarray"


@dataclass(frozen=True)
class Column:
    """One named column: numbers already in `unit`, or text labels (record names, sources)."""

    name: str
    unit: str
    values: Values
    role: str = "output"
    scale: str = "linear"
    #: plain fractions shown as percents in text, Markdown and HTML (76.76%, as `solve` shows
    #: them); CSV, JSON and frames keep the fraction (0.7676)
    percent: bool = False
    #: sentences per row (the values a comparison's row used, its sources): HTML shows them
    #: under the grid, one item per row, rather than as a column that scrolls sideways
    prose: bool = False
    #: a count that is no library variable (a comparison's rank): whole in a DataFrame
    count: bool = False

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise InputError(
                f"column {self.name!r} has role {self.role!r}; use one of {', '.join(ROLES)}",
                self.name,
            )
        if self.scale not in SCALES:
            raise InputError(
                f"column {self.name!r} has scale {self.scale!r}; use one of {', '.join(SCALES)}",
                self.name,
            )

    @property
    def header(self) -> str:
        """The display header, "train_time [day]"; just the name when there is no unit."""
        return f"{self.name} [{self.unit}]" if self.unit else self.name

    @property
    def is_labels(self) -> bool:
        """True when the values are text labels (or flags) rather than numbers."""
        return _is_labels(self.values) or self.is_flags

    @property
    def is_flags(self) -> bool:
        """True when the values are flags: True, False or None (unknown)."""
        return _is_flags(self.values)


#: the dimensions whose quantities are counts of things (units.txt), FLOPs and money left out
COUNT_DIMENSIONS = dimensions.COUNT_DIMENSIONS - {"[compute]", "[currency]"}


def _is_count(name: str) -> bool:
    """Whether variable `name` counts things: declared a count of whole things (tp, n_layers),
    or its unit is made of count dimensions only (GPU, token/sequence, GPU/node)."""
    from napkinmath.catalog.lookup import variables

    var = variables().get(name)
    if var is None:
        return False
    dims = var.unit.dimensionality
    return var.whole or (bool(dims) and all(d in COUNT_DIMENSIONS for d in dims))


def _whole_counts(column: Column) -> bool:
    """A count column whose finite values are all whole numbers that a float holds exactly
    (below 2**53), with no infinity: shown as integers in a DataFrame."""
    import numpy as np

    values = np.asarray(column.values, dtype=float)
    finite = values[~np.isnan(values)]
    return bool(
        finite.size
        and np.isfinite(finite).all()
        and (np.abs(finite) <= 2.0**53).all()
        and (finite == np.round(finite)).all()
        and (column.count or _is_count(column.name))
    )


def _is_labels(values: Values) -> bool:
    dtype = getattr(values, "dtype", None)
    if dtype is not None:
        return dtype.kind in "USO"
    return any(isinstance(v, str) for v in values)


def _is_flags(values: Values) -> bool:
    dtype = getattr(values, "dtype", None)
    if dtype is not None:
        return dtype.kind == "b"
    items = list(values)
    return any(_is_flag(v) for v in items) and all(v is None or _is_flag(v) for v in items)


def _is_flag(value: object) -> bool:
    """A bool, or numpy's bool scalar."""
    return isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b"


def _normalised(column: Column) -> Column:
    """The column with numbers as a float64 numpy array, labels as a list of str and flags
    as a list of bool or None."""
    if _is_flags(column.values):
        return replace(column, values=[None if v is None else bool(v) for v in column.values])
    if _is_labels(column.values):
        return replace(column, values=[str(v) for v in column.values])
    import numpy as np

    try:
        values = np.asarray(column.values, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"column {column.name!r} holds values that are neither numbers nor labels",
            column.name,
        ) from exc
    return replace(column, values=values)


def _cell(x: Any) -> float | str | bool | None:
    return x if isinstance(x, (str, bool)) or x is None else float(x)


def format_cell(x: float | str | bool | None) -> str:
    """A cell as a person reads it: labels as they are, flags as yes/NO, numbers to 4
    significant digits."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool) or x is None:
        return FLAG_TEXT[x]
    return "0" if x == 0 else format_number(float(x), sig=4)


def percent_text(x: float | str | bool | None) -> str:
    """A fraction cell as a percent, 0.7676 -> 76.76% (other cells as `format_cell`)."""
    if isinstance(x, (str, bool)) or x is None or not math.isfinite(x):
        return format_cell(x)
    from napkinmath.text.numbers import format_percent

    return format_percent(float(x))


#: what a spreadsheet reads as a formula at the start of a cell (OWASP's CSV injection rule)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _text_cell(text: str) -> str:
    """Text for a CSV cell: one that a spreadsheet would run as a formula (a record or
    section named "=IMPORTXML(...)") gets a leading apostrophe, shown as text; a carriage
    return becomes a newline (which the writer quotes: a bare one would end the row)."""
    if text.startswith(_FORMULA_START):
        text = "'" + text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _csv(x: float | str | bool | None) -> str:
    if isinstance(x, str):
        return _text_cell(x)
    if isinstance(x, bool) or x is None:
        return "" if x is None else str(x).lower()
    return f"{x:.10g}"


def _json_number(x: float | str | bool | None) -> float | str | bool | None:
    if isinstance(x, (str, bool)) or x is None:
        return x
    return x if math.isfinite(x) else None


#: the most lines one plot draws (a legend of more is unreadable, and each costs a draw)
MAX_PLOT_LINES = 100


class Table:
    """Columns of numbers with units and of labels, with text, CSV, JSON, HTML and plot output."""

    def __init__(
        self,
        columns: list[Column],
        title: str = "",
        notes: list[str] | None = None,
        warnings: list[str] | None = None,
    ):
        self.columns: list[Column] = [_normalised(c) for c in columns]
        self.title: str = title
        self.notes: list[str] = list(notes or [])
        #: violated constraints, one sentence each (`napkin sweep --strict` fails on them)
        self.warnings: list[str] = list(warnings or [])
        names = [c.name for c in self.columns]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise InputError(
                f"a table cannot have two columns named {duplicates[0]!r}", duplicates[0]
            )
        lengths = {len(c.values) for c in self.columns}
        if len(lengths) > 1:
            sizes = ", ".join(f"{c.name}: {len(c.values)}" for c in self.columns)
            raise InputError(f"every column of a table needs the same number of rows ({sizes})")

    def __len__(self) -> int:
        return len(self.columns[0].values) if self.columns else 0

    def __repr__(self) -> str:
        return f"Table({self.title!r}, {len(self)} rows, columns {self.headers})"

    def column(self, name: str) -> Column:
        """The column of variable `name`."""
        names = [c.name for c in self.columns]
        return self.columns[names.index(arguments.key(name, "name", names, kind="column"))]

    def __getitem__(self, name: str) -> Values:
        return self.column(name).values

    @property
    def headers(self) -> list[str]:
        """The column headers, "name [unit]"."""
        return [c.header for c in self.columns]

    def rows(self) -> list[list]:
        """The rows as lists of python floats, str and flags (bool or None)."""
        return [[_cell(c.values[i]) for c in self.columns] for i in range(len(self))]

    @property
    def fits(self) -> list[bool | None] | None:
        """Per row, whether it fits (None where no constraint was evaluated); None when the
        table has no feasibility column."""
        for c in self.columns:
            if c.name == FEASIBLE and c.is_flags:
                return list(c.values)
        return None

    def _infeasible(self) -> list[bool]:
        fits = self.fits
        return [f is False for f in fits] if fits is not None else [False] * len(self)

    def _infeasible_label(self) -> str:
        """'does not fit: replica_fits_hbm' (the binding constraints of the rows that fail)."""
        names: dict[str, None] = {}
        binding = next((c for c in self.columns if c.name == BINDING), None)
        for i, bad in enumerate(self._infeasible()):
            if bad and binding is not None and binding.values[i]:
                names[str(binding.values[i])] = None
        return "does not fit" + (f" (binding: {', '.join(names)})" if names else "")

    # ---- conversions -------------------------------------------------------------------------

    def to_pandas(self, pint: bool = False) -> pd.DataFrame:
        """A pandas DataFrame with the headers as column names; units and title in `df.attrs`.
        A column of a variable that counts things (GPUs, nodes, tokens, sequences, a
        parallelism degree) whose every value is whole is of integers ("Int64", NaN as <NA>);
        every other number is a float. `pint=True`: columns named by variable, each number
        column of dtype `pint[unit]` (`napkinmath.whatif.pint_frame`; needs pint-pandas)."""
        if pint:
            from napkinmath.whatif.pint_frame import pint_frame

            return pint_frame(self)
        try:
            import pandas as pd
        except ImportError as exc:
            raise InputError("to_pandas() needs pandas: pip install 'napkinmath[frames]'") from exc
        data = {
            c.header: (
                pd.Series(c.values, dtype="boolean")
                if c.is_flags
                else list(c.values)
                if c.is_labels
                else pd.Series(c.values, dtype="Int64" if _whole_counts(c) else "float64")
            )
            for c in self.columns
        }
        df = pd.DataFrame(data, columns=self.headers)
        df.attrs["units"] = {c.name: c.unit for c in self.columns}
        df.attrs["title"] = self.title
        df.attrs["notes"] = list(self.notes)
        df.attrs["warnings"] = list(self.warnings)
        return df

    def to_csv(self, path: str | Path | None = None) -> str:
        """CSV text (headers, then numbers to 10 significant digits; a text cell that starts
        like a spreadsheet formula, = + - @, begins with an apostrophe); also written to
        `path`."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([_text_cell(h) for h in self.headers])
        for row in self.rows():
            writer.writerow([_csv(v) for v in row])
        text = buffer.getvalue()
        if path is not None:
            from napkinmath.writing import write_output

            # atomically; never through a link (napkinmath.writing)
            write_output(arguments.path(path, "path"), text)
        return text

    def to_dict(self) -> dict[str, object]:
        """Title, columns (name, unit, role, scale, values), notes and warnings; non-finite
        numbers None, flags true/false (None: unknown)."""
        return {
            "title": self.title,
            "columns": [
                {
                    "name": c.name,
                    "unit": c.unit,
                    "role": c.role,
                    "scale": c.scale,
                    "values": [_json_number(_cell(v)) for v in c.values],
                }
                for c in self.columns
            ],
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict()` as JSON text; NaN and infinities become null."""
        return json.dumps(
            self.to_dict(), indent=arguments.indent(indent), ensure_ascii=False, allow_nan=False
        )

    def _cells(self) -> list[list[str]]:
        percent = [c.percent for c in self.columns]
        return [
            [percent_text(v) if p else format_cell(v) for v, p in zip(row, percent, strict=True)]
            for row in self.rows()
        ]

    def to_markdown(self) -> str:
        """A GitHub table; the title as a bold line above, the notes as lines below."""

        from napkinmath.text.escape import md_inline as esc  # no HTML, link, control

        lines = []
        if self.title:
            lines += [f"**{esc(self.title)}**", ""]
        lines.append("| " + " | ".join(esc(h) for h in self.headers) + " |")
        lines.append("|" + "|".join("---" if c.is_labels else "---:" for c in self.columns) + "|")
        lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in self._cells()]
        if self.notes:
            lines += ["", "\n\n".join(esc(n) for n in self.notes)]
        return "\n".join(lines)

    def __str__(self) -> str:
        cells = self._cells()
        widths = [
            max([len(h)] + [len(row[j]) for row in cells]) for j, h in enumerate(self.headers)
        ]
        numeric = [not c.is_labels for c in self.columns]

        def line(values: list[str]) -> str:
            parts = [
                v.rjust(w) if right else v.ljust(w)
                for v, w, right in zip(values, widths, numeric, strict=True)
            ]
            return "  ".join(parts).rstrip()

        lines = [self.title] if self.title else []
        lines.append(line(self.headers))
        lines.append("  ".join("-" * w for w in widths))
        lines += [line(row) for row in cells]
        if self.notes:
            lines += ["", *self.notes]
        return "\n".join(lines)

    def html_parts(
        self, cells: list[list[str]]
    ) -> tuple[list[int], list[str], list[list[tuple[str, str]]]]:
        """How HTML lays the table out, from its formatted `cells` (`_cells()`): the indices
        of the grid's columns, and under the grid one item per row, its label (the grid's
        text cells, "MI300X, llama-3-70b") and its prose cells as (header, text); no item
        when no column is prose."""
        grid = [i for i, c in enumerate(self.columns) if not c.prose]
        prose = [i for i, c in enumerate(self.columns) if c.prose]
        if not prose:
            return grid, [], []
        text = [i for i in grid if self.columns[i].is_labels and not self.columns[i].is_flags]
        named = [i for i in text if self.columns[i].role == "input"] or text
        labels = [", ".join(row[i] for i in named if row[i]) for row in cells]
        items = [[(self.headers[i], row[i]) for i in prose if row[i]] for row in cells]
        return grid, labels, items

    def _repr_html_(self) -> str:
        from napkinmath.text.markup import HOST_INFEASIBLE, frame
        from napkinmath.text.markup import esc as e

        right = ' style="text-align: right"'
        cells = self._cells()
        grid, labels, items = self.html_parts(cells)
        aligns = ["" if self.columns[i].is_labels else right for i in grid]
        parts = ["<table>"]
        if self.title:
            parts.append(f"<caption>{e(self.title)}</caption>")
        head = "".join(
            f"<th{a}>{breakable(e(self.headers[i]))}</th>"
            for a, i in zip(aligns, grid, strict=True)
        )
        parts.append(f"<thead><tr>{head}</tr></thead>")
        parts.append("<tbody>")
        for row, bad in zip(cells, self._infeasible(), strict=True):
            body = "".join(f"<td{a}>{e(row[i])}</td>" for a, i in zip(aligns, grid, strict=True))
            mark = f' class="infeasible" style="background: {HOST_INFEASIBLE}"' if bad else ""
            parts.append(f"<tr{mark}>{body}</tr>")
        parts.append("</tbody>")
        if self.notes:
            span = max(len(grid), 1)
            foot = "".join(f'<tr><td colspan="{span}">{e(n)}</td></tr>' for n in self.notes)
            parts.append(f"<tfoot>{foot}</tfoot>")
        parts.append("</table>")
        if labels:
            parts.append(prose_list(labels, items, e))
        return frame("table", parts)

    # ---- plotting ----------------------------------------------------------------------------

    def _default_x(self) -> Column:
        for c in self.columns:
            if c.role == "input":
                return c
        for c in self.columns:
            if c.is_labels:
                return c
        if self.columns:
            return self.columns[0]
        raise InputError("an empty table has nothing to plot")

    def _default_y(self, x: Column) -> list[Column]:
        for c in self.columns:
            if c.role == "output" and not c.is_labels and c.name != x.name:
                return [c]
        for c in self.columns:
            if not c.is_labels and c.name != x.name:
                return [c]
        raise InputError("this table has no numeric column to plot against " + x.name)

    def check_plot(self, x: str | None = None, y: str | list[str] | None = None) -> None:
        """Raise the InputError `plot` would (a label column as y, more than MAX_PLOT_LINES
        lines) without drawing: a command checks its plot before it prints the table."""
        self._lines(x, y)

    def _lines(self, x, y) -> tuple:
        """The x column, the y columns, the other inputs and the rows of each line."""
        if y is not None and not isinstance(y, (str, list, tuple)):
            raise InputError(
                f"y={arguments.shown(y)}: expected a column name or a list of them", "y"
            )
        xcol = self.column(x) if x is not None else self._default_x()
        if y is None:
            ycols = self._default_y(xcol)
        else:
            ycols = [self.column(n) for n in ([y] if isinstance(y, str) else y)]
        for c in ycols:
            if c.is_labels:
                raise InputError(f"column {c.name!r} holds labels, not numbers to plot", c.name)
        groups = [c for c in self.columns if c.role == "input" and c.name != xcol.name]
        by_key: dict[tuple, list[int]] = {}  # the rows of each line, in one pass
        for i in range(len(self)):
            by_key.setdefault(tuple(_cell(g.values[i]) for g in groups), []).append(i)
        if len(by_key) * len(ycols) > MAX_PLOT_LINES:
            raise InputError(
                f"a plot of {len(by_key) * len(ycols):,} lines (one per value of "
                f"{', '.join(g.name for g in groups)}"
                + (f", for {len(ycols)} targets" if len(ycols) > 1 else "")
                + f") cannot be read; a plot draws at most {MAX_PLOT_LINES}: "
                "sweep the other inputs over fewer values, or plot one target",
                "y",
            )
        return xcol, ycols, groups, by_key

    @overload
    def plot(
        self,
        path: str | Path,
        *,
        x: str | None = None,
        y: str | list[str] | None = None,
        ax: Axes | None = None,
    ) -> Path: ...

    @overload
    def plot(
        self,
        path: None = None,
        *,
        x: str | None = None,
        y: str | list[str] | None = None,
        ax: Axes | None = None,
    ) -> Axes: ...

    def plot(
        self,
        path: str | Path | None = None,
        *,
        x: str | None = None,
        y: str | list[str] | None = None,
        ax: Axes | None = None,
    ) -> Path | Axes:
        """Plot y against x (one line per value of a second input); bars when x is labels.

        Saves to `path` (.png or .svg) and returns it, or returns the matplotlib Axes.
        """
        target = plot_target(path)
        xcol, ycols, groups, by_key = self._lines(x, y)
        plt = pyplot(ax)

        series = []  # (label or None, row indices, y column)
        for ycol in ycols:
            for key, rows in by_key.items():
                parts = [ycol.header] if len(ycols) > 1 else []
                parts += [
                    f"{g.name} = {format_cell(v)} {g.unit}".rstrip()
                    for g, v in zip(groups, key, strict=True)
                ]
                series.append((", ".join(parts) or None, rows, ycol))

        fig, ax, owned = axes_of(plt, ax)
        bad = self._infeasible()
        extra: list = []
        x_log = not xcol.is_labels and (xcol.scale == "log" or geometric(xcol.values))
        if xcol.is_labels:
            extra = _bars(ax, xcol, series, bad, self._infeasible_label())
        else:
            for label, rows, ycol in series:
                rows = sorted(rows, key=lambda i: xcol.values[i])
                ax.plot(
                    [xcol.values[i] for i in rows],
                    [ycol.values[i] for i in rows],
                    marker="o",
                    markersize=3,
                    label=label,
                )
            if any(bad):
                _mark_infeasible(ax, xcol, series, bad, self._infeasible_label(), x_log)
            if x_log:
                ax.set_xscale("log")
                plain_log_ticks(ax.xaxis, [float(v) for v in xcol.values])
        y_all = [float(yc.values[i]) for _, rows, yc in series for i in rows]
        if wants_log(y_all, 100.0 if x_log else 1000.0):
            ax.set_yscale("log")
        if xcol.percent and not xcol.is_labels:
            percent_axis(ax.xaxis)
        if all(c.percent for c in ycols):
            percent_axis(ax.yaxis)
        ax.set_xlabel(xcol.header)
        ax.set_ylabel(", ".join(c.header for c in ycols))
        if self.title:
            ax.set_title(self.title)
        handles, labels = ax.get_legend_handles_labels()
        if handles or extra:
            handles, labels = [*handles, *(h for h, _ in extra)], [*labels, *(t for _, t in extra)]
            if xcol.is_labels:
                legend_above(ax, handles, labels)
            else:
                ax.legend(handles, labels, fontsize="small")
        ax.grid(True, which="major", alpha=0.3)
        return finish_plot(plt, fig, ax, target, owned)


def tornado(
    rows: list[tuple[str, float, float, str]],
    target_header: str,
    base: float,
    path: str | Path | None = None,
    ax=None,
):
    """A tornado chart of swings around `base`, widest at the top.

    Each row is (label, value at the low input, value at the high input, note). Saves to `path`
    (.png or .svg) and returns it, or returns the matplotlib Axes.
    """
    target = plot_target(path)
    if not rows:
        raise InputError("a tornado chart needs at least one row")
    plt = pyplot(ax)
    ordered = sorted(rows, key=lambda r: abs(float(r[2]) - float(r[1])), reverse=True)
    # the widest swings, as many as read one to a line; the rest (the table lists them) said
    left_out = len(ordered) - TORNADO_ROWS
    ordered = ordered[:TORNADO_ROWS]
    fig, ax, owned = axes_of(plt, ax)
    for pos, (_label, low, high, _note) in enumerate(ordered):
        low, high = float(low), float(high)
        pivot = min(max(float(base), min(low, high)), max(low, high))
        for end, color, name in (
            (low, "tab:blue", "low input"),
            (high, "tab:orange", "high input"),
        ):
            ax.barh(
                pos,
                end - pivot,
                left=pivot,
                height=0.6,
                color=color,
                label=name if pos == 0 else None,
            )
    ax.set_yticks(
        range(len(ordered)),
        [f"{label}\n{note}" if note else label for label, _, _, note in ordered],
    )
    ax.invert_yaxis()
    ax.axvline(float(base), color="black", linewidth=1)
    values = [float(v) for r in ordered for v in (r[1], r[2])] + [float(base)]
    if wants_log(values, 1000.0):
        ax.set_xscale("log")
    more = f"; {left_out} inputs with smaller swings in the table" if left_out > 0 else ""
    ax.set_xlabel(f"{target_header}{more}")
    ax.legend(fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)
    return finish_plot(plt, fig, ax, target, owned)


def breakable(escaped: str) -> str:
    """Escaped header text that may wrap after an underscore (`<wbr>`): a long name such as
    cost_per_million_tokens narrows its column rather than widening the table."""
    return escaped.replace("_", "_<wbr>")


def prose_list(labels: list[str], items: list[list[tuple[str, str]]], e) -> str:
    """The prose columns of a table's rows as an ordered list under its grid: each row's
    label in bold, then each of its prose cells on a line of its own; `e` escapes text."""
    rows = []
    for label, cells in zip(labels, items, strict=True):
        lines = [f"<strong>{e(label)}</strong>"] + [
            f'<span class="muted">{e(header)}:</span> {e(text)}' for header, text in cells
        ]
        rows.append(f"<li>{'<br>'.join(lines)}</li>")
    return f'<ol class="rows">{"".join(rows)}</ol>'


# ---- plotting helpers ------------------------------------------------------------------------


def pyplot(ax=None):
    """matplotlib.pyplot, or None when drawing on a given `ax` (pyplot is then not needed,
    and not importing it keeps an HTML report's plots cheap)."""
    try:
        import matplotlib  # noqa: F401

        if ax is not None:
            return None
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise InputError("plot() needs matplotlib: pip install 'napkinmath[plot]'") from exc
    return plt


def plot_target(path: str | Path | None) -> Path | None:
    if path is None:
        return None
    target = arguments.path(path, "path", what="a file name such as 'plot.png'")
    if target.suffix.lower() not in PLOT_EXTENSIONS:
        raise InputError(
            f"cannot save a plot as {target.name!r}: use a file name ending in "
            + " or ".join(PLOT_EXTENSIONS)
        )
    return target


def axes_of(plt, ax):
    if ax is not None:
        from matplotlib.axes import Axes

        if not isinstance(ax, Axes):
            raise InputError(
                f"ax={arguments.shown(ax)}: expected None or a matplotlib Axes "
                "to draw on, such as the ax of `fig, ax = plt.subplots()`",
                "ax",
            )
        return ax.figure, ax, False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    return fig, ax, True


def finish_plot(plt, fig, ax, target: Path | None, owned: bool):
    if target is None:
        return ax
    from napkinmath.writing import write_output

    image = io.BytesIO()
    try:
        fig.savefig(image, dpi=120, bbox_inches="tight", format=target.suffix.lower()[1:])
    finally:
        if owned:
            plt.close(fig)
    write_output(target, image.getvalue())  # atomically; never through a link
    return target


def plain_log_ticks(axis, values: list[float]) -> None:
    """Label a log axis that spans under 20x with plain numbers (2,048) at the swept values
    (at most 8 of them, evenly picked), and no crowded minor labels."""
    finite = sorted({v for v in values if math.isfinite(v) and v > 0})
    if not finite or finite[-1] / finite[0] > 20:
        return
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    step = max(1, math.ceil(len(finite) / 8))
    ticks = finite[::step] if finite[::step][-1] == finite[-1] else [*finite[::step], finite[-1]]
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: format_cell(float(v))))
    axis.set_minor_formatter(NullFormatter())


def geometric(values: Values) -> bool:
    """Whether swept values read best on a log axis: three or more, all positive, each a
    constant ratio of at least 2 of the one before (1024, 2048, 4096) or, not evenly spaced,
    spanning more than 20x (1, 8, 100, 1000); a linear range's even steps stay linear."""
    finite = sorted({float(v) for v in values if math.isfinite(float(v))})
    if len(finite) < 3 or finite[0] <= 0:
        return False
    ratios = [b / a for a, b in itertools.pairwise(finite)]
    if min(ratios) >= 2 and max(ratios) <= min(ratios) * 1.01:
        return True
    steps = [b - a for a, b in itertools.pairwise(finite)]
    return max(steps) > min(steps) * 1.01 and finite[-1] / finite[0] > 20


def percent_axis(axis) -> None:
    """Ticks of a fraction axis as percents (0.3 -> 30%), as the tables print fractions."""
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(xmax=1.0))


def legend_above(ax, handles: list, labels: list[str]) -> None:
    """The legend between the title and the axes, where no bar can be: the title raised
    over it, by how far the legend's top is above the axes (in points, which hold however
    the figure is laid out after) and half a line for the title's descenders."""
    legend = ax.legend(
        handles,
        labels,
        fontsize="small",
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        borderaxespad=0.4,
    )
    top = (legend.get_window_extent().y1 - ax.bbox.y1) * 72 / ax.figure.dpi
    ax.set_title(ax.get_title(), pad=top + ax.title.get_fontsize() / 2)


def wants_log(values: list[float], span: float) -> bool:
    """Whether `values` are all positive and span more than `span` times: a log axis."""
    finite = [v for v in values if math.isfinite(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) > span


def _mark_infeasible(
    ax, xcol: Column, series: list, bad: list[bool], label: str, x_log: bool
) -> None:
    """A cross on each point that does not fit, and a hatched band over each x where no row
    fits (reaching halfway to the neighbouring x, geometrically on a log axis)."""
    xs = sorted({float(v) for v in xcol.values if math.isfinite(float(v))})
    rows_at: dict[float, list[bool]] = {}
    for i, b in enumerate(bad):
        rows_at.setdefault(float(xcol.values[i]), []).append(b)
    log = x_log and bool(xs) and xs[0] > 0
    if len(xs) > 1:
        inner = [math.sqrt(a * b) if log else (a + b) / 2 for a, b in itertools.pairwise(xs)]
        first = xs[0] ** 2 / inner[0] if log else 2 * xs[0] - inner[0]
        last = xs[-1] ** 2 / inner[-1] if log else 2 * xs[-1] - inner[-1]
        edges = [first, *inner, last]
    else:
        edges = [xs[0] / 1.2, xs[0] * 1.2] if log else [xs[0] - 0.5, xs[0] + 0.5]
    banded = False
    for j, x in enumerate(xs):
        if all(rows_at.get(x, [False])):
            ax.axvspan(
                edges[j],
                edges[j + 1],
                facecolor=INFEASIBLE_TINT,
                edgecolor=INFEASIBLE_HATCH,
                hatch="//",
                linewidth=0,
                zorder=0,
                label=None if banded else label,
            )
            banded = True
    marked = False
    for _, rows, ycol in series:
        points = [(float(xcol.values[i]), float(ycol.values[i])) for i in rows if bad[i]]
        if points:
            ax.scatter(
                [p[0] for p in points],
                [p[1] for p in points],
                marker="x",
                s=36,
                color=INFEASIBLE_EDGE,
                zorder=3,
                label=None if marked else "point that does not fit" if banded else label,
            )
            marked = True


def _bars(
    ax, xcol: Column, series: list, bad: list[bool] | None = None, label_bad: str = "does not fit"
) -> list:
    """Bars per category and series; the rows that do not fit hatched. Returns the extra
    legend entries (handle, label)."""
    categories = list(dict.fromkeys(xcol.values))
    width = 0.8 / max(len(series), 1)
    shown_bad = False
    for k, (label, rows, ycol) in enumerate(series):
        heights = {xcol.values[i]: float(ycol.values[i]) for i in rows}
        failing = {xcol.values[i] for i in rows if bad and bad[i]}
        offset = (k - (len(series) - 1) / 2) * width
        positions = [j + offset for j, cat in enumerate(categories) if cat in heights]
        bars = ax.bar(
            positions, [heights[c] for c in categories if c in heights], width, label=label
        )
        for bar, cat in zip(bars, [c for c in categories if c in heights], strict=True):
            if cat in failing:
                bar.set_hatch("//")
                bar.set_edgecolor(INFEASIBLE_EDGE)
                bar.set_alpha(0.55)
                shown_bad = True
    ax.set_xticks(range(len(categories)), categories)
    if len(categories) > 6 or max((len(c) for c in categories), default=0) > 12:
        ax.tick_params(axis="x", labelrotation=30)
    if not shown_bad:
        return []
    from matplotlib.patches import Patch  # a legend entry for the hatching

    return [(Patch(facecolor="white", edgecolor=INFEASIBLE_EDGE, hatch="//"), label_bad)]
