"""A small table of numbers with units: the output of sweeps and comparisons.

numpy is imported lazily; pandas (`to_pandas`) and matplotlib (`plot`, `tornado`) are optional.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from napkinmath.errors import InputError
from napkinmath.units import format_number

ROLES = ("input", "output", "info")
SCALES = ("linear", "log")
PLOT_EXTENSIONS = (".png", ".svg")


@dataclass(frozen=True)
class Column:
    """One named column: numbers already in `unit`, or text labels (record names, sources)."""

    name: str
    unit: str
    values: Sequence
    role: str = "output"
    scale: str = "linear"

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
        """True when the values are text labels rather than numbers."""
        return _is_labels(self.values)


def _is_labels(values: Sequence) -> bool:
    dtype = getattr(values, "dtype", None)
    if dtype is not None:
        return dtype.kind in "USO"
    return any(isinstance(v, str) for v in values)


def _normalised(column: Column) -> Column:
    """The column with numbers as a float64 numpy array and labels as a list of str."""
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


def _cell(x: Any) -> float | str:
    return x if isinstance(x, str) else float(x)


def _fmt(x: float | str) -> str:
    """A cell as a person reads it: labels as they are, numbers to 4 significant digits."""
    if isinstance(x, str):
        return x
    return "0" if x == 0 else format_number(float(x), sig=4)


def _json_number(x: float | str) -> float | str | None:
    if isinstance(x, str):
        return x
    return x if math.isfinite(x) else None


class Table:
    """Columns of numbers with units and of labels, with text, CSV, JSON, HTML and plot output."""

    def __init__(self, columns: list[Column], title: str = "", notes: list[str] | None = None):
        self.columns: list[Column] = [_normalised(c) for c in columns]
        self.title: str = title
        self.notes: list[str] = list(notes or [])
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
        for c in self.columns:
            if c.name == name:
                return c
        names = ", ".join(c.name for c in self.columns) or "(none)"
        raise KeyError(f"no column {name!r} in this table; its columns are: {names}")

    def __getitem__(self, name: str) -> Sequence:
        return self.column(name).values

    @property
    def headers(self) -> list[str]:
        """The column headers, "name [unit]"."""
        return [c.header for c in self.columns]

    def rows(self) -> list[list]:
        """The rows as lists of python floats and str."""
        return [[_cell(c.values[i]) for c in self.columns] for i in range(len(self))]

    # ---- conversions -------------------------------------------------------------------------

    def to_pandas(self):
        """A pandas DataFrame with the headers as column names; units and title in `df.attrs`."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise InputError("to_pandas() needs pandas: pip install 'napkinmath[frames]'") from exc
        data = {
            c.header: (list(c.values) if c.is_labels else pd.Series(c.values, dtype="float64"))
            for c in self.columns
        }
        df = pd.DataFrame(data, columns=self.headers)
        df.attrs["units"] = {c.name: c.unit for c in self.columns}
        df.attrs["title"] = self.title
        df.attrs["notes"] = list(self.notes)
        return df

    def to_csv(self, path: str | Path | None = None) -> str:
        """CSV text (headers, then numbers to 10 significant digits); also written to `path`."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.headers)
        for row in self.rows():
            writer.writerow([v if isinstance(v, str) else f"{v:.10g}" for v in row])
        text = buffer.getvalue()
        if path is not None:
            with open(path, "w", newline="", encoding="utf-8") as f:
                f.write(text)
        return text

    def to_dict(self) -> dict:
        """Title, columns (name, unit, role, scale, values) and notes; non-finite numbers None."""
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
        }

    def to_json(self, indent: int | None = 2) -> str:
        """`to_dict()` as JSON text; NaN and infinities become null."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False, allow_nan=False)

    def _cells(self) -> list[list[str]]:
        return [[_fmt(v) for v in row] for row in self.rows()]

    def to_markdown(self) -> str:
        """A GitHub table; the title as a bold line above, the notes as lines below."""

        def esc(text: str) -> str:
            return text.replace("|", "\\|")

        lines = []
        if self.title:
            lines += [f"**{esc(self.title)}**", ""]
        lines.append("| " + " | ".join(esc(h) for h in self.headers) + " |")
        lines.append("|" + "|".join("---" if c.is_labels else "---:" for c in self.columns) + "|")
        lines += ["| " + " | ".join(esc(v) for v in row) + " |" for row in self._cells()]
        if self.notes:
            lines += ["", "\n\n".join(self.notes)]
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

    def _repr_html_(self) -> str:
        e = html.escape
        right = ' style="text-align: right"'
        aligns = ["" if c.is_labels else right for c in self.columns]
        parts = ["<table>"]
        if self.title:
            parts.append(f"<caption>{e(self.title)}</caption>")
        head = "".join(f"<th{a}>{e(h)}</th>" for a, h in zip(aligns, self.headers, strict=True))
        parts.append(f"<thead><tr>{head}</tr></thead>")
        parts.append("<tbody>")
        for row in self._cells():
            body = "".join(f"<td{a}>{e(v)}</td>" for a, v in zip(aligns, row, strict=True))
            parts.append(f"<tr>{body}</tr>")
        parts.append("</tbody>")
        if self.notes:
            span = max(len(self.columns), 1)
            foot = "".join(f'<tr><td colspan="{span}">{e(n)}</td></tr>' for n in self.notes)
            parts.append(f"<tfoot>{foot}</tfoot>")
        parts.append("</table>")
        return "\n".join(parts)

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

    def plot(
        self,
        path: str | Path | None = None,
        *,
        x: str | None = None,
        y: str | list[str] | None = None,
        ax=None,
    ):
        """Plot y against x (one line per value of a second input); bars when x is labels.

        Saves to `path` (.png or .svg) and returns it, or returns the matplotlib Axes.
        """
        target = _plot_target(path)
        plt = _pyplot()
        xcol = self.column(x) if x is not None else self._default_x()
        if y is None:
            ycols = self._default_y(xcol)
        else:
            ycols = [self.column(n) for n in ([y] if isinstance(y, str) else y)]
        for c in ycols:
            if c.is_labels:
                raise InputError(f"column {c.name!r} holds labels, not numbers to plot", c.name)
        groups = [c for c in self.columns if c.role == "input" and c.name != xcol.name]
        keys = [tuple(_cell(g.values[i]) for g in groups) for i in range(len(self))]
        distinct = list(dict.fromkeys(keys))

        series = []  # (label or None, row indices, y column)
        for ycol in ycols:
            for key in distinct:
                parts = [ycol.header] if len(ycols) > 1 else []
                parts += [
                    f"{g.name} = {_fmt(v)} {g.unit}".rstrip()
                    for g, v in zip(groups, key, strict=True)
                ]
                rows = [i for i, k in enumerate(keys) if k == key]
                series.append((", ".join(parts) or None, rows, ycol))

        fig, ax, owned = _axes(plt, ax)
        if xcol.is_labels:
            _bars(ax, xcol, series)
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
            if xcol.scale == "log":
                ax.set_xscale("log")
                _plain_log_ticks(ax.xaxis, [float(v) for v in xcol.values])
        y_all = [float(yc.values[i]) for _, rows, yc in series for i in rows]
        x_log = not xcol.is_labels and xcol.scale == "log"
        if _wants_log(y_all, 100.0 if x_log else 1000.0):
            ax.set_yscale("log")
        ax.set_xlabel(xcol.header)
        ax.set_ylabel(", ".join(c.header for c in ycols))
        if self.title:
            ax.set_title(self.title)
        if any(label for label, _, _ in series):
            ax.legend(fontsize="small")
        ax.grid(True, which="major", alpha=0.3)
        return _finish(plt, fig, ax, target, owned)


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
    target = _plot_target(path)
    if not rows:
        raise InputError("a tornado chart needs at least one row")
    plt = _pyplot()
    ordered = sorted(rows, key=lambda r: abs(float(r[2]) - float(r[1])), reverse=True)
    fig, ax, owned = _axes(plt, ax)
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
    if _wants_log(values, 1000.0):
        ax.set_xscale("log")
    ax.set_xlabel(target_header)
    ax.legend(fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)
    return _finish(plt, fig, ax, target, owned)


# ---- plotting helpers ------------------------------------------------------------------------


def _pyplot():
    try:
        import matplotlib  # noqa: F401
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise InputError("plot() needs matplotlib: pip install 'napkinmath[plot]'") from exc
    return plt


def _plot_target(path: str | Path | None) -> Path | None:
    if path is None:
        return None
    target = Path(path)
    if target.suffix.lower() not in PLOT_EXTENSIONS:
        raise InputError(
            f"cannot save a plot as {target.name!r}: use a file name ending in "
            + " or ".join(PLOT_EXTENSIONS)
        )
    return target


def _axes(plt, ax):
    if ax is not None:
        return ax.figure, ax, False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    return fig, ax, True


def _finish(plt, fig, ax, target: Path | None, owned: bool):
    if target is None:
        return ax
    fig.savefig(target, dpi=120, bbox_inches="tight", format=target.suffix.lower()[1:])
    if owned:
        plt.close(fig)
    return target


def _plain_log_ticks(axis, values: list[float]) -> None:
    """Label a log axis that spans under 20x with plain numbers (2,048) at the swept values
    (at most 8 of them, evenly picked), and no crowded minor labels."""
    finite = sorted({v for v in values if math.isfinite(v) and v > 0})
    if not finite or finite[-1] / finite[0] > 20:
        return
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    step = max(1, math.ceil(len(finite) / 8))
    ticks = finite[::step] if finite[::step][-1] == finite[-1] else [*finite[::step], finite[-1]]
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: _fmt(float(v))))
    axis.set_minor_formatter(NullFormatter())


def _wants_log(values: list[float], span: float) -> bool:
    finite = [v for v in values if math.isfinite(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) > span


def _bars(ax, xcol: Column, series: list) -> None:
    categories = list(dict.fromkeys(xcol.values))
    width = 0.8 / max(len(series), 1)
    for k, (label, rows, ycol) in enumerate(series):
        heights = {xcol.values[i]: float(ycol.values[i]) for i in rows}
        offset = (k - (len(series) - 1) / 2) * width
        positions = [j + offset for j, cat in enumerate(categories) if cat in heights]
        ax.bar(positions, [heights[c] for c in categories if c in heights], width, label=label)
    ax.set_xticks(range(len(categories)), categories)
    if len(categories) > 6 or max((len(c) for c in categories), default=0) > 12:
        ax.tick_params(axis="x", labelrotation=30)
