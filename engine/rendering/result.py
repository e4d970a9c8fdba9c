"""An answer (`napkinmath.answer.result.Result`) printed: its derivation as Unicode text, its
headline, warnings and the one-line texts of its checks and constraints, its JSON-ready dict
and JSON text; Markdown, LaTeX and HTML are in `typeset`, on the parts made here.

A Result reaches these functions through its printers (`napkinmath.answer.printers`,
`napkinmath.printing`). Numbers are shown as people write them (`napkinmath.text.numbers`:
percent, 11.05M USD, `digits`), round-off of zero as 0 (`napkinmath.answer.roundoff`), long
citations as numbers into a sources list (`napkinmath.text.sources`); the values themselves
stay exact.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from napkinmath import arguments
from napkinmath.answer.data import (
    CheckRecord,
    ConstraintRecord,
    Given,
    StepRecord,
    display,
    sentence,
)
from napkinmath.answer.roundoff import ROUNDOFF_NOTE
from napkinmath.library.declare import Formula, Variable
from napkinmath.library.print_layout import Name, Printer
from napkinmath.text.numbers import format_value, is_fraction
from napkinmath.text.sources import Sources, record_source
from napkinmath.text.visible import finite_json, json_visible, visible
from napkinmath.units import (
    Quantity,
    format_number,
    format_quantity,
    format_unit,
    humanize,
    ureg,
)

if TYPE_CHECKING:
    import pint

    from napkinmath.answer.result import Result
    from napkinmath.library.tree import Tree


# --- the records' one-line texts ------------------------------------------------------------
def describe_check(c: CheckRecord) -> str:
    """'n_gpus = 58.48 GPU; total_flops / (...) = 58.5 GPU' (the two sides)."""
    var = c.lhs_variable
    if var is None:
        return f"left side {c.lhs:.6g}, right side {c.rhs:.6g}"
    left = format_value(display(c.lhs, var), var)
    right = format_value(display(c.rhs, var), var)
    rhs_text = Printer(_name)(c.formula.layouts[1])
    return f"{var.name} = {left}; {rhs_text} = {right}"


def describe_constraint(c: ConstraintRecord) -> str:
    """'226.9 GB ≤ 320 GB (71% of the limit)' or '1,024 sequence > 186.3 sequence (5.5×)'."""
    constraint = c.constraint
    unit = _base_unit(constraint.trees[0])
    left, right = humanize(Quantity(c.lhs, unit)), humanize(Quantity(c.rhs, unit))
    var = _fraction_symbol(constraint.trees[0])  # utilization < 1: 62.5% < 100%
    strict = constraint.strict
    sign = ("<" if strict else "≤") if c.holds else ("≥" if strict else ">")
    if not math.isfinite(c.share):  # a zero limit (0 ≤ 0): no share of it to show
        return f"{format_value(left, var)} {sign} {format_value(right, var)}"
    if c.holds:
        margin = f"{c.share:.0%} of the limit"
    else:
        margin = f"{format_number(c.share, sig=3)}× the limit"
    return f"{format_value(left, var)} {sign} {format_value(right, var)} ({margin})"


def constraint_line(c: ConstraintRecord) -> str:
    """'✓ title: ...' or '✗ VIOLATED: title: .... Message.'"""
    constraint = c.constraint
    if c.holds:
        return f"✓ {constraint.title}: {c.describe()}"
    return f"✗ VIOLATED: {constraint.title}: {c.describe()}. {sentence(constraint.message)}"


def _base_unit(expr: Tree) -> pint.Unit:
    """The base unit of an expression tree over library variables (for showing its value)."""
    from napkinmath.catalog.lookup import variables
    from napkinmath.library import tree

    def walk(e: Tree):
        if e[0] == "s":
            return Quantity(1.0, variables()[e[1]].unit)
        if tree.is_number(e):
            return tree.number(e)
        if e[0] == "^":
            return walk(e[1]) ** tree.evaluate(e[2], {})
        parts = [walk(a) for a in e[-1]]
        if e[0] == "*":
            return math.prod(parts)
        return parts[0]

    value = walk(expr)
    return value.to_base_units().units if hasattr(value, "units") else ureg.dimensionless


def _fraction_symbol(expr: Tree) -> Variable | None:
    """The variable when `expr` is a lone fraction variable (shown as a percent)."""
    from napkinmath.catalog.lookup import variables

    var = variables().get(expr[1]) if expr[0] == "s" else None
    return var if var is not None and is_fraction(var) else None


def _name(symbol: Name) -> str:
    return symbol.name


# --- the answer's parts -----------------------------------------------------------------------
def warnings(r: Result) -> list[str]:
    """Violated constraints and disagreeing checks, one sentence each."""
    found = [
        f"{c.constraint.title} is violated: {c.describe()}. {sentence(c.constraint.message)}"
        for c in r.constraints
        if not c.holds
    ]
    found += [
        f"{c.formula.title} disagrees: {c.describe()} ({c.relative_difference:.1%} apart)"
        for c in r.checks
        if not c.agrees
    ]
    return found


def headline(r: Result, style: str = "text") -> list[str]:
    """One line per target, 'n_gpus = 58.48 GPU', in `style` 'text', 'latex' or 'ascii'."""
    lines = []
    rounded = {v.name: v for s in r.steps if s.rounding for v in s.unknowns}
    for name in r.targets:
        var = r._var(name)
        line = f"{name} = {r._fmt(r._shown(name), var, style)}"
        extra = [
            f"{n} = {r._fmt(r._display(n), r._var(n), style)}" for n in var.rounding if n in rounded
        ]
        if extra:
            line += f"   (rounded: {', '.join(extra)})"
        if name in r._roundoff:
            line += f"   ({ROUNDOFF_NOTE})"
        lines.append(line)
    return lines


def step_head(number: int, step: StepRecord, sources: Sources | None) -> str:
    names = ", ".join(v.name for v in step.unknowns)
    head = " + ".join(f.title for f in step.formulas)
    if any(not explicit(f, v) for f in step.formulas for v in step.unknowns):
        head += f", solved for {names}"
    cited = [f.source for f in step.formulas]
    where = sources.cite(*cited) if sources is not None else f"[{'; '.join(dict.fromkeys(cited))}]"
    return f"{number}. {head}  {where}"


def steps_text(
    r: Result, spread: Callable[[str], str] | None = None, sources: Sources | None = None
) -> list[str]:
    """The derivation's steps; `spread(name)` replaces each result's numbers (what-ifs);
    with `sources`, citations are numbers into it."""
    lines: list[str] = []
    for number, step in enumerate(r.steps, 1):
        lines.append(step_head(number, step, sources))
        for f in step.formulas:
            lines.append("   " + equation_text(f))
        for var in step.unknowns:
            expr = step.roots[var.name].layout
            pad = " " * (len(var.name) + 1)
            if not step.roots[var.name].args and spread is None:  # solved numerically
                lines.append(f"   ⇒ {var.name} = {value_lines(r, step, var)[-1]}")
                continue
            if not all(explicit(f, var) for f in step.formulas):
                lines.append(f"   ⇒ {var.name} = {Printer(_name)(expr)}")
                pad = " " * (len(var.name) + 3)
            if spread is not None:  # a what-if answer: the step's range or percentiles
                lines.append(f"   {pad}= {spread(var.name)}")
                continue
            for shown in value_lines(r, step, var):
                lines.append(f"   {pad}= {shown}")
        notes = [f.note for f in step.formulas if f.note and step.rounding]
        notes += [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
        notes += [step.note] if step.note and (spread is None or step.cancel) else []
        lines.extend(f"   ({note})" for note in notes)
    return lines


def value_lines(r: Result, step: StepRecord, var: Variable, style: str = "text") -> list[str]:
    """The substituted line and the result, once when they read the same (or when the step
    was solved numerically: its root is a number, with nothing to substitute)."""
    root = step.roots[var.name]
    expr = root.layout
    values = Printer(
        leaf_text(r, step, style),
        style=style,
        substituted=True,
        plain_leaf=leaf_text(r, step, style, plain=True),
    )(expr)
    result = r._fmt(r._display(var.name), var, style)
    if var.name in r._roundoff:
        result += (
            f"\\quad\\text{{({ROUNDOFF_NOTE})}}" if style == "latex" else f"   ({ROUNDOFF_NOTE})"
        )
    return [result] if values == result or not root.args else [values, result]


def leaf_text(
    r: Result, step: StepRecord, style: str = "text", plain: bool = False
) -> Callable[[Name], str]:
    """Prints a symbol of `step` as its value; `plain`: a fraction as a number, not %."""

    def leaf(symbol: Name) -> str:
        q = r._display(symbol.name, step.values.get(symbol.name))
        return r._fmt(q, None if plain else r._var(symbol.name), style)

    return leaf


def origin_text(given: Given, sources: Sources | None) -> str:
    """Where a given came from; with `sources`, a record's citation becomes [n]."""
    if sources is None:
        return origin(given)
    what, cited = record_source(given.record, given.note)
    if not cited:
        return origin(given)
    marker = sources.cite(cited)
    return origin(dataclasses.replace(given, note=f"{what} {marker}"))


def givens_text(
    r: Result, shown: Mapping[str, str] | None = None, sources: Sources | None = None
) -> list[str]:
    """One line per given; `shown` replaces the value text of some (ranges, spreads)."""
    lines = []
    width = max((len(n) for n in r.givens), default=0)
    for name, given in r.givens.items():
        value = (shown or {}).get(name) or r._fmt(given.quantity, given.variable)
        lines.append(f"  {name.ljust(width)} = {value}   ({origin_text(given, sources)})")
    return lines


def checks_text(r: Result) -> list[str]:
    lines = []
    for c in r.checks:
        beyond = " [not needed for the answer]" if c.beyond else ""
        if c.agrees:
            lines.append(
                f"  ✓ {c.formula.title}{beyond}: {c.describe()} (agree within "
                f"{c.relative_difference:.2%})"
            )
        else:
            lines.append(
                f"  ✗ DISAGREE: {c.formula.title}{beyond}: {c.describe()} "
                f"({c.relative_difference:.1%} apart)"
            )
    return lines


def set_aside_text(r: Result) -> list[str]:
    """One line per reason, then the values it set aside."""
    by_reason: dict[str, list[str]] = {}
    for n, (g, why) in r.set_aside.items():
        by_reason.setdefault(why, []).append(
            f"{n} = {r._fmt(g.quantity, g.variable)} ({origin(g)})"
        )
    lines = []
    for why, shown in by_reason.items():
        lines.append(f"  {why}:")
        lines += [f"    {line}" for line in shown]
    return lines


def extra_text(r: Result) -> list[str]:
    """Set-aside values, checks, constraints and notes, after the derivation."""
    lines: list[str] = []
    if r.set_aside:
        lines += ["", "Set aside (your values replace them):", *set_aside_text(r)]
    if r.checks:
        lines += ["", "Checks (over-determined givens):", *checks_text(r)]
    if r.constraints:
        lines += [
            "",
            "Constraints (does the plan fit?):",
            *[f"  {c.line()}" for c in r.constraints],
        ]
    lines += [f"Note: {n}" for n in r.notes]
    return lines


def layer_table_rows(r: Result, style: str = "text") -> list[tuple[str, str, str, str, str]]:
    """The per-layer table's cells: operator, roof, FLOPs, HBM bytes, time; then its sum."""
    table = r.layer_table
    assert table is not None

    def amount(value: float, unit: str) -> str:
        if not value:
            return "–"
        q = Quantity(value, unit)
        return format_quantity(humanize(q) if unit != "FLOP" else q.to_compact(), style=style)

    rows = [
        (
            row.name,
            row.roof,
            amount(row.flops, "FLOP"),
            amount(row.bytes, "B"),
            amount(row.seconds, "s"),
        )
        for row in table.rows
    ]
    return [*rows, ("one layer", "", "", "", amount(table.seconds, "s"))]


def layer_table_total(r: Result, style: str = "text") -> str:
    """The line under the table: one layer × layers × micro-batches, and what the step adds."""
    table = r.layer_table
    assert table is not None
    total = format_quantity(
        humanize(Quantity(table.seconds * table.layers * table.microbatches, "s")), style=style
    )
    return (
        f"× {format_number(table.layers, style=style)} layers × "
        f"{format_number(table.microbatches, style=style)} micro-batches = {total} on each GPU; "
        "the step adds the output layer, the pipeline bubble and sends, the exposed "
        "data-parallel reduction and the optimizer"
    )


def layer_table_text(r: Result) -> list[str]:
    """The per-layer table as aligned text, or nothing when the answer has none."""
    if r.layer_table is None:
        return []
    head = ("operator", "roof", "FLOPs", "HBM bytes", "time")
    cells = [head, *layer_table_rows(r)]
    widths = [max(len(row[i]) for row in cells) for i in range(5)]

    def line(row: tuple[str, ...]) -> str:
        left = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        right = [row[i].rjust(widths[i]) for i in (2, 3, 4)]
        return "  " + "  ".join(left + right).rstrip()

    return [
        "",
        "Per layer and micro-batch on one GPU (forward, backward and recompute):",
        *(line(row) for row in cells),
        f"  {layer_table_total(r)}",
    ]


def unused_text(r: Result) -> str:
    shown = ", ".join(f"{n} = {r._fmt(g.quantity, g.variable)}" for n, g in r.unused.items())
    return f"(given but not needed for this answer: {shown})"


# --- the whole answer -----------------------------------------------------------------------
def text(r: Result) -> str:
    """The derivation as Unicode text (what `print(r)` shows)."""
    sources = Sources()
    lines = r.headline()
    lines += [f"WARNING: {w}" for w in r.warnings]
    lines += ["", "Given:", *givens_text(r, sources=sources)]
    if r.unused:
        lines.append(f"  {unused_text(r)}")
    lines += [
        "",
        "Derivation:",
        *(
            steps_text(r, sources=sources)
            or ["  none needed: every target is a given or a record value"]
        ),
    ]
    lines += layer_table_text(r)
    lines += extra_text(r)
    if sources:
        lines += ["", "Sources:", *[f"  [{n}] {s}" for n, s in sources.entries()]]
    return visible("\n".join(lines), keep="\n")  # a record's ESC shown, not obeyed


def to_dict(r: Result) -> dict:
    """A JSON-ready form of the whole answer: exact values, display text beside them."""
    return {
        "targets": {
            name: _quantity(r, q, r._var(name), r._shown(name)) for name, q in r.values.items()
        },
        "givens": [
            {
                "name": n,
                **_quantity(r, g.quantity, g.variable),
                "origin": g.origin,
                "source": g.note,
                "reading": g.reading or None,
            }
            for n, g in r.givens.items()
        ],
        "steps": [_step_dict(r, s) for s in r.steps],
        "checks": [
            {
                "formula": c.formula.name,
                "relative_difference": c.relative_difference,
                "agrees": c.agrees,
                "needed_for_answer": not c.beyond,
                "text": c.describe(),
            }
            for c in r.checks
        ],
        "constraints": [
            {
                "name": c.constraint.name,
                "title": c.constraint.title,
                "holds": c.holds,
                "share_of_limit": c.share,
                "text": c.describe(),
                "source": c.constraint.source,
                "message": "" if c.holds else c.constraint.message,
            }
            for c in r.constraints
        ],
        "set_aside": [
            {
                "name": n,
                **_quantity(r, g.quantity, g.variable),
                "origin": g.origin,
                "source": g.note,
                "reason": why,
            }
            for n, (g, why) in r.set_aside.items()
        ],
        "warnings": r.warnings,
        "notes": r.notes,
        "assumptions": [{"name": n, "text": g.note} for n, g in r.assumptions.items()],
        "unused_givens": sorted(r.unused),
        "layer_table": None
        if r.layer_table is None
        else {
            "layers": r.layer_table.layers,
            "microbatches": r.layer_table.microbatches,
            "seconds_per_layer": r.layer_table.seconds,
            "operators": [dataclasses.asdict(row) for row in r.layer_table.rows],
        },
    }


def _quantity(
    r: Result, q: pint.Quantity, var: Variable | None = None, shown: pint.Quantity | None = None
) -> dict:
    """A value in `to_dict`: its magnitude and unit as computed, and the text shown."""
    return {
        "value": float(q.magnitude),
        "unit": format_unit(q.units, style="ascii"),
        "text": r._fmt(q if shown is None else shown, var),
    }


def _step_dict(r: Result, s: StepRecord) -> dict:
    """A step in `to_dict`: its formulas, rearranged and substituted, and what it gave."""
    return {
        "formulas": [f.name for f in s.formulas],
        "titles": [f.title for f in s.formulas],
        "sources": [f.source for f in s.formulas],
        "equations": [equation_text(f) for f in s.formulas],
        "solved_for": [v.name for v in s.unknowns],
        "rearranged": {
            v.name: f"{v.name} = {Printer(_name)(s.roots[v.name].layout)}" for v in s.unknowns
        },
        "substituted": {
            v.name: Printer(leaf_text(r, s), substituted=True)(s.roots[v.name].layout)
            for v in s.unknowns
        },
        "results": {
            v.name: _quantity(r, r._exact(v.name), v, r._display(v.name)) for v in s.unknowns
        },
        "rounding": s.rounding,
        **({"cancelled": list(s.cancel.names), "note": s.note} if s.cancel else {}),
    }


def to_json(r: Result, indent: int | None = 2) -> str:
    """JSON text; never NaN or Infinity (non-finite numbers become null)."""
    return json_visible(
        json.dumps(
            finite_json(r.to_dict()),
            indent=arguments.indent(indent),
            ensure_ascii=False,
            allow_nan=False,
        )
    )


# --- formulas -------------------------------------------------------------------------------
def origin(g: Given) -> str:
    """'you', 'you: 1,024 node × ...' (a converted given), the record's note, or
    'ASSUMPTION: ...'."""
    if g.origin == "given":
        said = [part for part in (g.note if g.note != "given" else "", g.reading) if part]
        return "you: " + "; ".join(said) if said else "you"
    return ("ASSUMPTION: " if g.origin == "assumption" else "") + g.note


def explicit(f: Formula, var: Variable) -> bool:
    """Whether `f` reads `var` = ... as declared (no rearranging to show)."""
    return f.trees[0] == ("s", var.name)


def equation_text(f: Formula) -> str:
    """'total_flops = 6 · params · tokens' (the formula as declared)."""
    printer = Printer(_name)
    return f"{printer(f.layouts[0])} = {printer(f.layouts[1])}"
