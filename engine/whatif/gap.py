"""The gap budget: a measured training step against the step from its parts, itemised.

    gap      = measured step − ideal step          (ideal: the model FLOPs at the datasheet peak)
             = matmuls below peak + recomputation + TP all-reduces + bubble + stage sends
               + exposed DP reduction + CP exchange + EP all-to-alls + optimizer
               + data-loader wait + stragglers + residual

Each line comes from the answer's own steps (`napkinmath.formulas.step_parts`) or from what
the user measured, and says which: measured (a profiler's figure, a record's measurement),
modelled (a formula of the layout), given (a value the user stated), assumed (a stated
default) or unexplained (the residual). The lines sum to the gap exactly; the residual is what
nothing explains, negative where the model over-explains (its communication terms assume no
overlap: upper bounds).

    measured step: step_time, or from an MFU (step_compute / (mfu · n_gpus · peak_flops), the
                   library's 6ND MFU), or from tokens_per_second (global_batch_tokens / it)
    stragglers:    straggler_time as measured, or from the per-rank spread σ of step times:
                   σ · e_N with e_N ≈ Φ⁻¹((N − 0.375)/(N + 0.25)) (Blom 1958), N = n_gpus

Measured parts replace the modelled ones (the model's figure stays in the line's note):
any part by its name, or ``collective_time`` for all exposed communication together (TP,
stage sends, DP, CP, EP), as a profiler's "time in NCCL kernels not overlapped" reports it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, overload

from napkinmath import arguments, deadline
from napkinmath.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from napkinmath.answer.data import Given
    from napkinmath.answer.result import Result

#: the step's parts beside its matmuls, modelled from its operators: name, what it is
OPERATORS = (
    ("memory_bound_time", "memory-bound operators and matmul epilogues"),
    ("last_stage_extra_time", "output layer on the last stage"),
)
#: the parts of the step, in the order a timeline is read: name, what it is
COMMUNICATION = (
    ("tp_comm_time", "tensor-parallel all-reduces"),
    ("pipeline_bubble_time", "pipeline bubble"),
    ("pp_send_time", "pipeline stage sends"),
    ("dp_comm_exposed_time", "data-parallel reduction, exposed"),
    ("cp_comm_time", "context-parallel exchange"),
    ("ep_comm_time", "expert-parallel all-to-alls"),
)
#: parts that `collective_time` stands for (the bubble is idle time, not a collective)
COLLECTIVES = (
    "tp_comm_time",
    "pp_send_time",
    "dp_comm_exposed_time",
    "cp_comm_time",
    "ep_comm_time",
)
OTHER = (
    ("optimizer_time", "optimizer step"),
    ("dataloader_wait", "data-loader wait"),
)
#: what `measured=` may hold
MEASURABLE = (
    *(name for name, _ in OPERATORS),
    *(name for name, _ in COMMUNICATION),
    *(name for name, _ in OTHER),
    "collective_time",
    "straggler_time",
    "rank_step_time_std",
)
BLOM_1958 = (
    "Blom 1958, Statistical Estimates and Transformed Beta-Variables: E[max of N standard "
    "normals] ≈ Φ⁻¹((N − 0.375)/(N + 0.25))"
)
YOU = "you (measured)"
#: the style of a number cell in the HTML table
NUMBER = "text-align:right;white-space:nowrap"


@dataclass(frozen=True)
class GapLine:
    """One line of the budget: a cause, its time per step, and the evidence for it."""

    term: str
    name: str
    seconds: float
    evidence: str  # measured, modelled, given, assumed, unexplained
    source: str
    note: str = ""


class GapBudget:
    """A measured step itemised against the parts of `answer` (``nm.gap``)."""

    def __init__(
        self,
        answer: Result,
        ideal: float,
        predicted: float,
        measured: float,
        measured_from: str,
        lines: tuple[GapLine, ...],
    ) -> None:
        self.answer = answer
        #: seconds: the ideal, the predicted (the parts' sum) and the measured step
        self.ideal_seconds = ideal
        self.predicted_seconds = predicted
        self.measured_seconds = measured
        #: how the measured step was given ("step_time = 12.4 s", "mfu = 38%")
        self.measured_from = measured_from
        self.lines = lines

    # --- values ---------------------------------------------------------------------------
    @property
    def gap(self):
        """Measured minus ideal step time (a Quantity in s)."""
        return _seconds(self.measured_seconds - self.ideal_seconds)

    @property
    def residual(self):
        """What nothing explains: the gap less every other line (a Quantity in s)."""
        return _seconds(self.lines[-1].seconds)

    @property
    def table(self) -> list[dict[str, object]]:
        """One row per line: term, time (s), share of the gap, evidence, source, note."""
        gap = self.measured_seconds - self.ideal_seconds
        return [
            {
                "term": line.term,
                "name": line.name,
                "time_s": line.seconds,
                "share_of_gap": line.seconds / gap if gap else math.nan,
                "evidence": line.evidence,
                "source": line.source,
                "note": line.note,
            }
            for line in self.lines
        ]

    def to_frame(self) -> pd.DataFrame:
        """The table as a pandas DataFrame (pandas is imported on first use)."""
        import pandas as pd

        return pd.DataFrame(self.table)

    def to_dict(self) -> dict[str, object]:
        return {
            "ideal_step_time_s": self.ideal_seconds,
            "predicted_step_time_s": self.predicted_seconds,
            "measured_step_time_s": self.measured_seconds,
            "measured_from": self.measured_from,
            "gap_s": self.measured_seconds - self.ideal_seconds,
            "residual_s": self.lines[-1].seconds,
            "lines": self.table,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(
            self.to_dict(), indent=arguments.indent(indent), ensure_ascii=False, allow_nan=False
        )

    # --- printers -------------------------------------------------------------------------
    def rows(self) -> list[tuple[str, str, str, str]]:
        """Each line as printed: term, time, share of the gap, evidence."""
        gap = self.measured_seconds - self.ideal_seconds
        rows = []
        for line in self.lines:
            share = f"{100 * line.seconds / gap:.1f}%" if gap else "–"
            rows.append((line.term, _time(line.seconds), share, line.evidence))
        return rows

    def header(self) -> list[str]:
        """The two lines above the table: the measured step, the ideal, the gap."""
        gap = self.measured_seconds - self.ideal_seconds
        return [
            f"Gap budget: measured step {_time(self.measured_seconds)} ({self.measured_from}) "
            f"against the ideal {_time(self.ideal_seconds)} (model FLOPs at the datasheet peak)",
            f"gap = {_time(gap)}; the parts predict {_time(self.predicted_seconds)} "
            f"(MFU {self._mfu(self.predicted_seconds)}); measured MFU with attention "
            f"{self._mfu(self.measured_seconds)}; residual {_time(self.lines[-1].seconds)}",
        ]

    def _mfu(self, seconds: float) -> str:
        return f"{100 * self.ideal_seconds / seconds:.1f}%" if seconds > 0 else "–"

    def to_text(self) -> str:
        rows = [("term", "time", "share of gap", "evidence"), *self.rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        out = [*self.header(), ""]
        for i, row in enumerate(rows):
            out.append(
                "  "
                + "  ".join(
                    cell.ljust(w) if j in (0, 3) else cell.rjust(w)
                    for j, (cell, w) in enumerate(zip(row, widths, strict=True))
                ).rstrip()
            )
            if i == 0:
                out.append("  " + "  ".join("-" * w for w in widths))
        out += ["", "Sources and notes:"]
        for line in self.lines:
            said = f"; {line.note}" if line.note else ""
            out.append(f"  {line.term}: {line.source}{said}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return (
            f"<GapBudget measured {_time(self.measured_seconds)}, ideal "
            f"{_time(self.ideal_seconds)}, residual {_time(self.lines[-1].seconds)}>"
        )

    def to_markdown(self) -> str:
        from napkinmath.text.escape import md_inline

        header = self.header()
        out = [f"**{md_inline(header[0])}**", "", md_inline(header[1]), ""]
        out += ["| term | time | share of gap | evidence | source |", "|---|--:|--:|---|---|"]
        for line, row in zip(self.lines, self.rows(), strict=True):
            source = line.source + (f"; {line.note}" if line.note else "")
            cells = [*row, source]
            out.append("| " + " | ".join(md_inline(c).replace("|", "\\|") for c in cells) + " |")
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_html(self, plot: bool = True) -> str:
        """A table and, with matplotlib installed, the waterfall as inline SVG."""
        from napkinmath.text.markup import esc as escape

        header = self.header()
        out = [
            '<div class="napkin-gap">',
            f"<p><strong>{escape(header[0])}</strong><br>{escape(header[1])}</p>",
            "<table><thead><tr><th>term</th><th>time</th><th>share of gap</th>"
            "<th>evidence</th><th>source</th></tr></thead><tbody>",
        ]
        for line, row in zip(self.lines, self.rows(), strict=True):
            source = line.source + (f"; {line.note}" if line.note else "")
            out.append(
                f"<tr><td>{escape(row[0])}</td><td style='{NUMBER}'>{escape(row[1])}"
                f"</td><td style='{NUMBER}'>{escape(row[2])}</td>"
                f"<td>{escape(row[3])}</td><td>{escape(source)}</td></tr>"
            )
        out.append("</tbody></table>")
        if plot:
            svg = self._svg()
            if svg:
                out.append(svg)
        out.append("</div>")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        from napkinmath.text.markup import frame

        return frame("gap-budget", [self.to_html()])

    def _svg(self) -> str:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return ""
        import io

        from napkinmath.whatif.table import pyplot

        plt = pyplot()
        fig, ax = plt.subplots(figsize=(8, 5))
        try:
            self.draw(ax)
            image = io.StringIO()
            fig.savefig(image, format="svg", bbox_inches="tight")
        finally:
            plt.close(fig)
        text = image.getvalue()
        return text[text.index("<svg") :]

    @overload
    def plot(self, path: str | Path, *, ax: Axes | None = None) -> Path: ...

    @overload
    def plot(self, path: None = None, *, ax: Axes | None = None) -> Axes: ...

    def plot(self, path: str | Path | None = None, *, ax: Axes | None = None) -> Path | Axes:
        """A waterfall from the ideal step to the measured one: each line a bar on top of
        the last. Saves to `path` (.png or .svg) and returns it, or returns the Axes."""
        from napkinmath.whatif.table import axes_of, finish_plot, plot_target, pyplot

        target = plot_target(path)
        plt = pyplot()
        fig, ax, owned = axes_of(plt, ax)
        self.draw(ax)
        return finish_plot(plt, fig, ax, target, owned)

    def draw(self, ax) -> None:
        """The waterfall on the matplotlib Axes `ax`."""
        labels = ["ideal step"]
        bottoms, heights, colours = [0.0], [self.ideal_seconds], ["#4c72b0"]
        level = self.ideal_seconds
        palette = {
            "measured": "#55a868",
            "modelled": "#dd8452",
            "given": "#8172b3",
            "assumed": "#937860",
            "unexplained": "#c44e52",
        }
        for line in self.lines:
            if line.seconds == 0:
                continue
            labels.append(line.term)
            bottoms.append(min(level, level + line.seconds))
            heights.append(abs(line.seconds))
            colours.append(palette.get(line.evidence, "#999999"))
            level += line.seconds
        labels.append("measured step")
        bottoms.append(0.0)
        heights.append(self.measured_seconds)
        colours.append("#4c72b0")
        positions = list(range(len(labels)))
        ax.barh(positions, heights, left=bottoms, color=colours)
        ax.set_yticks(positions)
        ax.set_yticklabels(labels, fontsize="small")
        ax.invert_yaxis()  # read top to bottom, as a timeline is read
        ax.set_xlabel("seconds per step")
        ax.set_title("Where the step goes: ideal to measured")
        handles = [
            _patch(colour, evidence)
            for evidence, colour in palette.items()
            if any(line.evidence == evidence and line.seconds for line in self.lines)
        ]
        if handles:
            ax.legend(handles=handles, fontsize="small", loc="center left")


@deadline.per_question
def gap(
    answer: Result,
    *,
    step_time: object = None,
    mfu: object = None,
    tokens_per_second: object = None,
    measured: Mapping[str, object] | None = None,
) -> GapBudget:
    """Itemise the gap between the ideal step and a measured one, against `answer`'s parts.

    `answer` is a solve of ``step_time_predicted`` from a layout (its steps hold the parts).
    Give the measured step as one of `step_time` ("12.4 s"), `mfu` (the library's 6ND MFU)
    or `tokens_per_second`; `measured` holds what a profiler measured: any part by name
    (``dataloader_wait``, ``optimizer_time``, ...), ``collective_time`` (all exposed
    communication), ``straggler_time``, or ``rank_step_time_std`` (the spread of per-rank
    step times, from which the stragglers' cost follows).
    """
    from napkinmath.answer.result import Result

    if not isinstance(answer, Result):
        raise InputError(
            f"gap: expected the answer of nm.solve('step_time_predicted', ...), got "
            f"{arguments.shown(answer)}",
            "answer",
        )
    values = _values(answer)
    if "compute_time" not in values or "step_time_from_parts" not in _formulas(answer):
        raise InputError(
            "gap: this answer has no step parts; solve step_time_predicted from a layout "
            "(a model, a gpu, n_gpus, tp, pp, dp, seq_len, global_batch_tokens, batch_size)",
            "answer",
        )
    if measured is not None and not isinstance(measured, Mapping):
        raise InputError(
            f"gap: measured={arguments.shown(measured)}: expected the parts a profiler measured "
            "by name, such as {'dataloader_wait': '0.3 s'} (the step itself goes in step_time=)",
            "measured",
        )
    measured = dict(measured or {})
    unknown = sorted(k for k in measured if k not in MEASURABLE)
    if unknown:
        raise InputError(
            f"gap: measured={{{', '.join(map(repr, unknown))}: ...}} is not a part of the "
            f"step; measure one of {', '.join(MEASURABLE)}",
            unknown[0],
        )
    seconds = {k: _time_given(k, v) for k, v in measured.items()}
    step, measured_from = _measured_step(values, step_time, mfu, tokens_per_second)
    lines = _lines(answer, values, seconds)
    ideal = values["step_model_flops"] / (values["n_gpus"] * values["peak_flops"])
    explained = sum(line.seconds for line in lines)
    residual = step - ideal - explained
    note = (
        "negative: the model over-explains the step (its TP, stage-send, CP and EP terms "
        "assume no overlap with compute: upper bounds)"
        if residual < 0
        else ""
    )
    lines.append(
        GapLine("residual (unexplained)", "residual", residual, "unexplained", "the rest", note)
    )
    return GapBudget(
        answer, ideal, values["step_time_predicted"], step, measured_from, tuple(lines)
    )


def _lines(answer: Result, values: dict[str, float], seconds: dict[str, float]) -> list[GapLine]:
    sources = _sources(answer)
    model, recompute = values["step_model_flops"], values.get("step_recompute_flops", 0.0)
    compute = values["compute_time"]
    ideal = model / (values["n_gpus"] * values["peak_flops"])
    efficiency = answer.givens.get("compute_efficiency")
    lines = [
        GapLine(
            "matmuls below the datasheet peak",
            "compute_efficiency",
            compute * model / (model + recompute) - ideal,
            _evidence(efficiency),
            _given_source(efficiency),
            f"compute_efficiency = {values.get('compute_efficiency', 1.0):.4g}",
        ),
        GapLine(
            "activation recomputation",
            "step_recompute_flops",
            compute * recompute / (model + recompute),
            "modelled",
            sources.get("step_recompute_flops", ("", ""))[0],
        ),
    ]
    lines += [
        _part(name, term, values.get(name, 0.0), seconds, sources) for name, term in OPERATORS
    ]
    collective = seconds.get("collective_time")
    for name, term in COMMUNICATION:
        if collective is None or name not in COLLECTIVES:
            lines.append(_part(name, term, values.get(name, 0.0), seconds, sources))
        elif name == COLLECTIVES[0]:  # all the exposed communication, measured as one
            model_sum = sum(values.get(n, 0.0) for n in COLLECTIVES)
            lines.append(
                GapLine(
                    "exposed communication (TP, stage sends, DP, CP, EP)",
                    "collective_time",
                    collective,
                    "measured",
                    YOU,
                    f"the model: {_time(model_sum)}",
                )
            )
    for name, term in OTHER:
        given = answer.givens.get(name)
        lines.append(_part(name, term, values.get(name, 0.0), seconds, sources, given))
    lines.append(_stragglers(values, seconds))
    return lines


def _part(
    name: str,
    term: str,
    modelled: float,
    seconds: dict[str, float],
    sources: dict[str, tuple[str, str]],
    given: Given | None = None,
) -> GapLine:
    if name in seconds:
        return GapLine(term, name, seconds[name], "measured", YOU, f"the model: {_time(modelled)}")
    if given is not None:
        return GapLine(term, name, modelled, _evidence(given), _given_source(given))
    source, assumed = sources.get(name, ("", ""))
    if assumed:
        return GapLine(term, name, modelled, "assumed", source, assumed)
    return GapLine(term, name, modelled, "modelled", source)


def _stragglers(values: dict[str, float], seconds: dict[str, float]) -> GapLine:
    term = "stragglers (the slowest rank)"
    if "straggler_time" in seconds:
        return GapLine(term, "straggler_time", seconds["straggler_time"], "measured", YOU)
    if "rank_step_time_std" in seconds:
        n = values["n_gpus"]
        sigma = seconds["rank_step_time_std"]
        expected = NormalDist().inv_cdf((n - 0.375) / (n + 0.25)) if n > 1 else 0.0
        return GapLine(
            term,
            "straggler_time",
            sigma * expected,
            "modelled",
            BLOM_1958,
            f"σ = {_time(sigma)} measured per rank; e_N = {expected:.4g} for N = {n:,.0f}",
        )
    return GapLine(
        term,
        "straggler_time",
        0.0,
        "assumed",
        "not measured: give measured={'rank_step_time_std': ...} or {'straggler_time': ...}",
    )


def _measured_step(
    values: dict[str, float], step_time: object, mfu: object, tokens_per_second: object
) -> tuple[float, str]:
    given = [
        (k, v)
        for k, v in (
            ("step_time", step_time),
            ("mfu", mfu),
            ("tokens_per_second", tokens_per_second),
        )
        if v is not None
    ]
    if len(given) != 1:
        raise InputError(
            "gap: give the measured step as exactly one of step_time ('12.4 s'), mfu (0.38) "
            "or tokens_per_second",
            "step_time",
        )
    name, value = given[0]
    if name == "step_time":
        seconds = _time_given("step_time", value)
        return seconds, f"step_time = {_time(seconds)}"
    if name == "mfu":
        share = (
            _quantity(value, "mfu", "dimensionless")
            if isinstance(value, str)
            else arguments.real(value, "mfu", what="a measured MFU", example="0.38", positive=True)
        )
        if not 0 < share <= 1:
            raise InputError(
                f"gap: mfu={arguments.shown(value)}: an MFU is above 0 and at most 1", "mfu"
            )
        compute = values["flop_per_param_token"] * values["params"] * values["global_batch_tokens"]
        seconds = compute / (share * values["n_gpus"] * values["peak_flops"])
        return seconds, f"MFU {100 * share:.3g}% (6ND), step {_time(seconds)}"
    rate = _quantity(value, "tokens_per_second", "token/s")
    seconds = values["global_batch_tokens"] / rate
    return seconds, f"{rate:,.4g} tokens/s, step {_time(seconds)}"


# --- helpers ----------------------------------------------------------------------------------
def _values(answer: Result) -> dict[str, float]:
    """Every base-unit value the answer computed or was given."""
    values: dict[str, float] = {name: g.base for name, g in answer.givens.items()}
    for step in answer.steps:
        values.update(step.values)
    return values


def _formulas(answer: Result) -> set[str]:
    return {f.name for step in answer.steps for f in step.formulas}


def _sources(answer: Result) -> dict[str, tuple[str, str]]:
    """Each computed name: the sources of the formulas of its step, and the notes of those
    that are assumptions ("" where none is)."""
    found: dict[str, tuple[str, str]] = {}
    for step in answer.steps:
        source = "; ".join(dict.fromkeys(f.source for f in step.formulas))
        assumed = "; ".join(f.note for f in step.formulas if f.assumption)
        for unknown in step.unknowns:
            found[unknown.name] = (source, assumed)
    return found


def _evidence(given: Given | None) -> str:
    if given is None:
        return "assumed"
    if given.origin == "assumption":
        return "assumed"
    if given.origin == "record":
        from napkinmath.solving.achievable import TAG

        return "measured" if TAG in given.note else "given"
    return "given"


def _given_source(given: Given | None) -> str:
    if given is None:
        return "default"
    if given.origin == "given":
        return "you"
    return given.note


def _time_given(name: str, value: object) -> float:
    return _quantity(value, name, "s")


def _quantity(value: object, name: str, unit: str) -> float:
    """`value` (text such as '12.4 s' read by the safe grammar, or a pint Quantity) in
    `unit`, as a finite, non-negative float; an InputError naming `name` otherwise."""
    from napkinmath.errors import NapkinError
    from napkinmath.text.values import parse_quantity

    example = f"'1.2 {unit}'"
    quantity: Any
    if isinstance(value, str):
        try:
            quantity = parse_quantity(value)
        except NapkinError as exc:
            raise InputError(f"gap: {name}: {exc}", name) from None
    elif hasattr(value, "units") and hasattr(value, "magnitude"):
        quantity = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        raise InputError(
            f"gap: {name}={arguments.shown(value)} has no unit: write it as '{value} {unit}'",
            name,
        )
    else:
        raise InputError(
            f"gap: {name}={arguments.shown(value)}: expected a quantity such as {example}", name
        )
    try:
        magnitude = float(quantity.to(unit).magnitude)
    except Exception:
        raise InputError(
            f"gap: {name}={arguments.shown(value)}: expected a quantity in {unit}, such as "
            f"{example}",
            name,
        ) from None
    if not math.isfinite(magnitude) or magnitude < 0:
        raise InputError(f"gap: {name} must be a finite, non-negative quantity in {unit}", name)
    return magnitude


def _seconds(value: float):
    from napkinmath.units import Quantity

    return Quantity(value, "s")


def _time(seconds: float) -> str:
    """'12.4 s', '310 ms', '-0.2 s'."""
    size = abs(seconds)
    if size >= 1 or size == 0:
        return f"{seconds:.3g} s"
    if size >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def _patch(colour: str, label: str):
    from matplotlib.patches import Patch

    return Patch(color=colour, label=label)
