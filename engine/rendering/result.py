"""The answer to a question: values, the givens with their origins, the steps, the checks.

A Result renders its derivation as Unicode text (``str``), Markdown, LaTeX, or a JSON-ready
dict; in Jupyter it shows as Markdown.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import pint
import sympy

from napkinmath.library.declare import Constraint, Formula, Variable
from napkinmath.rendering.exprprint import Printer
from napkinmath.units import Quantity, format_number, format_quantity, format_unit, humanize, ureg


@dataclass(frozen=True)
class Given:
    """A value the solve started from, and where it came from."""

    variable: Variable
    quantity: pint.Quantity
    origin: str  # "given" (the user), "record" (gpu=/model=), "assumption" (a stated default)
    note: str
    #: how a user's value was read when not as written ("989 TFLOP/s, read as per GPU")
    reading: str = ""

    @cached_property
    def base(self) -> float:
        """The value as a float in base units (computed once per Given)."""
        return float(self.quantity.m_as(self.variable.unit)) * self.variable.base_factor


@dataclass
class StepRecord:
    """One solved block: formulas, unknowns, the rearranged expressions, the numbers used."""

    formulas: tuple[Formula, ...]
    unknowns: tuple[Variable, ...]
    solved: dict[str, sympy.Expr]
    values: dict[str, float]  # base-unit values of every variable of the formulas
    rounding: bool = False
    note: str = ""  # e.g. other roots the bounds also admit


@dataclass
class CheckRecord:
    """An over-determined formula evaluated on both sides."""

    formula: Formula
    lhs: float
    rhs: float
    relative_difference: float
    lhs_variable: Variable | None
    values: dict[str, float] = field(default_factory=dict)
    #: a check of givens this answer did not need (found by planning the whole graph)
    beyond: bool = False

    @property
    def agrees(self) -> bool:
        return self.relative_difference <= self.tolerance

    tolerance: float = 0.01

    def describe(self) -> str:
        var = self.lhs_variable
        if var is None:
            return f"left side {self.lhs:.6g}, right side {self.rhs:.6g}"
        left = format_quantity(display(self.lhs, var))
        right = format_quantity(display(self.rhs, var))
        rhs_text = Printer(_name)(self.formula.equation.rhs)
        return f"{var.name} = {left}; {rhs_text} = {right}"


@dataclass
class ConstraintRecord:
    """A feasibility constraint evaluated on an answer's values (base units)."""

    constraint: Constraint
    lhs: float
    rhs: float
    holds: bool

    @property
    def share(self) -> float:
        """The left side as a fraction of the limit (0.71: 71% of it used)."""
        return self.lhs / self.rhs if self.rhs else math.inf

    def describe(self) -> str:
        """'226.9 GB ≤ 320 GB (71% of the limit)' or '1,024 sequence > 186.3 sequence (5.5×)'."""
        c = self.constraint
        unit = _base_unit(c.lhs)
        left, right = humanize(Quantity(self.lhs, unit)), humanize(Quantity(self.rhs, unit))
        sign = ("<" if c.strict else "≤") if self.holds else ("≥" if c.strict else ">")
        if self.holds:
            margin = f"{self.share:.0%} of the limit"
        else:
            margin = f"{format_number(self.share, sig=3)}× the limit"
        return f"{format_quantity(left)} {sign} {format_quantity(right)} ({margin})"

    def line(self) -> str:
        c = self.constraint
        if self.holds:
            return f"✓ {c.title}: {self.describe()}"
        return f"✗ VIOLATED: {c.title}: {self.describe()}. {_sentence(c.message)}"


def _base_unit(expr: sympy.Expr) -> pint.Unit:
    """The base unit of an expression over library variables (for showing its value)."""
    from napkinmath.library.lookup import variables

    def walk(e: sympy.Expr):
        if isinstance(e, sympy.Symbol):
            return Quantity(1.0, variables()[e.name].unit)
        if e.is_Number:
            return float(e)
        parts = [walk(a) for a in e.args]
        if isinstance(e, sympy.Add):
            return parts[0]
        if isinstance(e, sympy.Mul):
            return math.prod(parts)
        if isinstance(e, sympy.Pow):
            return parts[0] ** float(e.args[1])
        return parts[0]

    value = walk(expr)
    return value.to_base_units().units if hasattr(value, "units") else ureg.dimensionless


def from_base(base_value: float, var: Variable) -> pint.Quantity:
    """A base-unit float of `var` as a Quantity in the variable's own unit."""
    return Quantity(base_value / var.base_factor, var.unit)


def display(base_value: float, var: Variable) -> pint.Quantity:
    """A base-unit float of `var` as a Quantity in the unit a person would choose."""
    return humanize(from_base(base_value, var), var.display_unit)


def _name(symbol: sympy.Symbol) -> str:
    return symbol.name


class Result:
    """The solved targets and how they were derived."""

    def __init__(self, targets: tuple[str, ...], values: dict[str, pint.Quantity],
                 givens: dict[str, Given], steps: list[StepRecord], checks: list[CheckRecord],
                 tolerance: float) -> None:
        self.targets = targets
        self._raw = values
        self.givens = givens
        self.steps = steps
        self.checks = checks
        self.tolerance = tolerance
        #: user givens that this answer did not need (another route was shorter)
        self.unused: dict[str, Given] = {}
        #: record and default values set aside because a user's value contradicts them:
        #: name -> (the Given, why)
        self.set_aside: dict[str, tuple[Given, str]] = {}
        #: feasibility constraints the answer touches, evaluated
        self.constraints: list[ConstraintRecord] = []
        #: things a reader must know: violated constraints, disagreeing checks (when asked to
        #: warn rather than fail), checks that could not be evaluated
        self.notes: list[str] = []
        #: units the user chose for some variables (solve(..., units={...}))
        self.units: dict[str, pint.Unit] = {}

    @property
    def warnings(self) -> list[str]:
        """Violated constraints and disagreeing checks, one sentence each."""
        found = [f"{c.constraint.title} is violated: {c.describe()}. "
                 f"{_sentence(c.constraint.message)}" for c in self.constraints if not c.holds]
        found += [f"{c.formula.title} disagrees: {c.describe()} "
                  f"({c.relative_difference:.1%} apart)" for c in self.checks if not c.agrees]
        return found

    @property
    def fits(self) -> bool:
        """True when every constraint the answer touches holds."""
        return all(c.holds for c in self.constraints)

    # --- values ---------------------------------------------------------------------------
    @property
    def values(self) -> dict[str, pint.Quantity]:
        """Every target, in the unit you chose (`units=`) or the one a person would choose."""
        return {name: q.to(self.units[name]) if name in self.units
                else humanize(q, self._var(name).display_unit) for name, q in self._raw.items()}

    @property
    def value(self) -> pint.Quantity:
        """The first target, in the unit a person would choose (58.5 GPU, 19.2 day)."""
        return self.values[self.targets[0]]

    def __getitem__(self, name: str) -> pint.Quantity:
        return self.values[name]

    @property
    def assumptions(self) -> dict[str, Given]:
        """The givens that are stated assumptions rather than user input or hardware specs."""
        return {n: g for n, g in self.givens.items() if g.origin == "assumption"}

    def _var(self, name: str) -> Variable:
        from napkinmath.library.lookup import variables

        return variables()[name]

    def _display(self, name: str, base: float | None = None) -> pint.Quantity:
        if name in self.givens:
            return self.givens[name].quantity
        shown = display(base if base is not None else self._base(name), self._var(name))
        return shown.to(self.units[name]) if name in self.units else shown

    def _base(self, name: str) -> float:
        for step in self.steps:
            if name in step.values:
                return step.values[name]
        q = self._raw[name]
        return float(q.to_base_units().magnitude)

    # --- renderers ------------------------------------------------------------------------
    def headline(self, style: str = "text") -> list[str]:
        lines = []
        rounded = {v.name: v for s in self.steps if s.rounding for v in s.unknowns}
        for name in self.targets:
            text = f"{name} = {format_quantity(self.values[name], style=style)}"
            extra = [f"{r} = {format_quantity(self._display(r), style=style)}"
                     for r in self._var(name).rounding if r in rounded]
            if extra:
                text += f"   (rounded: {', '.join(extra)})"
            lines.append(text)
        return lines

    def _steps_text(self, spread: Callable[[str], str] | None = None) -> list[str]:
        """The derivation's steps; `spread(name)` replaces each result's numbers (what-ifs)."""
        lines: list[str] = []
        for number, step in enumerate(self.steps, 1):
            names = ", ".join(v.name for v in step.unknowns)
            head = " + ".join(f.title for f in step.formulas)
            solved_for = ""
            if any(not _explicit(f, v) for f in step.formulas for v in step.unknowns):
                solved_for = f", solved for {names}"
            sources = "; ".join(dict.fromkeys(f.source for f in step.formulas))
            lines.append(f"{number}. {head}{solved_for}  [{sources}]")
            for f in step.formulas:
                lines.append("   " + _equation_text(f))
            for var in step.unknowns:
                expr = step.solved[var.name]
                pad = " " * (len(var.name) + 1)
                if not all(_explicit(f, var) for f in step.formulas):
                    lines.append(f"   ⇒ {var.name} = {Printer(_name)(expr)}")
                    pad = " " * (len(var.name) + 3)
                if spread is not None:  # a what-if answer: the step's range or percentiles
                    lines.append(f"   {pad}= {spread(var.name)}")
                    continue
                values = Printer(self._leaf_text(step), substituted=True)(expr)
                result = format_quantity(self._display(var.name))
                if values != result:
                    lines.append(f"   {pad}= {values}")
                lines.append(f"   {pad}= {result}")
            notes = [f.note for f in step.formulas if f.note and step.rounding]
            notes += [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
            notes += [step.note] if step.note and spread is None else []
            lines.extend(f"   ({note})" for note in notes)
        return lines

    def _leaf_text(self, step: StepRecord):
        def leaf(symbol: sympy.Symbol) -> str:
            return format_quantity(self._display(symbol.name, step.values.get(symbol.name)))

        return leaf

    def _givens_text(self, shown: Mapping[str, str] | None = None) -> list[str]:
        """One line per given; `shown` replaces the value text of some (ranges, spreads)."""
        lines = []
        width = max((len(n) for n in self.givens), default=0)
        for name, given in self.givens.items():
            value = (shown or {}).get(name) or format_quantity(given.quantity)
            lines.append(f"  {name.ljust(width)} = {value}   ({_origin(given)})")
        return lines

    def _checks_text(self) -> list[str]:
        lines = []
        for c in self.checks:
            beyond = " [not needed for the answer]" if c.beyond else ""
            if c.agrees:
                lines.append(f"  ✓ {c.formula.title}{beyond}: {c.describe()} (agree within "
                             f"{c.relative_difference:.2%})")
            else:
                lines.append(f"  ✗ DISAGREE: {c.formula.title}{beyond}: {c.describe()} "
                             f"({c.relative_difference:.1%} apart)")
        return lines

    def _set_aside_text(self) -> list[str]:
        """One line per reason, then the values it set aside."""
        by_reason: dict[str, list[str]] = {}
        for n, (g, why) in self.set_aside.items():
            by_reason.setdefault(why, []).append(
                f"{n} = {format_quantity(g.quantity)} ({_origin(g)})")
        lines = []
        for why, shown in by_reason.items():
            lines.append(f"  {why}:")
            lines += [f"    {line}" for line in shown]
        return lines

    def _extra_text(self) -> list[str]:
        """Set-aside values, checks, constraints and notes, after the derivation."""
        lines: list[str] = []
        if self.set_aside:
            lines += ["", "Set aside (your values replace them):", *self._set_aside_text()]
        if self.checks:
            lines += ["", "Checks (over-determined givens):", *self._checks_text()]
        if self.constraints:
            lines += ["", "Constraints (does the plan fit?):",
                      *[f"  {c.line()}" for c in self.constraints]]
        lines += [f"Note: {n}" for n in self.notes]
        return lines

    def __str__(self) -> str:
        lines = self.headline()
        lines += [f"WARNING: {w}" for w in self.warnings]
        lines += ["", "Given:", *self._givens_text()]
        if self.unused:
            shown = ", ".join(f"{n} = {format_quantity(g.quantity)}"
                              for n, g in self.unused.items())
            lines.append(f"  (given but not needed for this answer: {shown})")
        lines += ["", "Derivation:", *(self._steps_text() or [
            "  none needed: every target is a given or a record value"])]
        lines += self._extra_text()
        return "\n".join(lines)

    def __repr__(self) -> str:
        inner = ", ".join(self.headline())
        return f"<Result {inner}>"

    def to_text(self) -> str:
        return str(self)

    def to_markdown(self) -> str:
        out = [f"**{line}**  " for line in self.headline()]
        out += [f"> **Warning:** {w}  " for w in self.warnings]
        out += ["", "| given | value | from |", "|---|---|---|"]
        for name, given in self.givens.items():
            origin = "you" if given.origin == "given" else given.note
            if given.reading:
                origin += f" ({given.reading})"
            if given.origin == "assumption":
                origin = "**assumption**: " + given.note
            out.append(f"| `{name}` | {format_quantity(given.quantity)} | {origin} |")
        out.append("")
        for number, step in enumerate(self.steps, 1):
            head = " + ".join(f.title for f in step.formulas)
            sources = "; ".join(dict.fromkeys(f.source for f in step.formulas))
            out.append(f"{number}. **{head}** — *{sources}*")
            for f in step.formulas:
                out.append(f"   - `{_equation_text(f)}`")
            for var in step.unknowns:
                expr = step.solved[var.name]
                if not all(_explicit(f, var) for f in step.formulas):
                    out.append(f"   - solved for `{var.name}`: `{var.name} = "
                               f"{Printer(_name)(expr)}`")
                values = Printer(self._leaf_text(step), substituted=True)(expr)
                out.append(f"   - `= {values}`")
                out.append(f"   - `= {format_quantity(self._display(var.name))}`")
        if self.set_aside:
            out += ["", "Set aside (your values replace them):", ""]
            out += [f"- {line.strip()}" if not line.startswith("    ") else f"  - {line.strip()}"
                    for line in self._set_aside_text()]
        if self.checks:
            out += ["", "Checks:", ""] + [f"- {line.strip()}" for line in self._checks_text()]
        if self.constraints:
            out += ["", "Constraints:", ""] + [f"- {c.line()}" for c in self.constraints]
        out += [f"\n*Note:* {n}" for n in self.notes]
        return "\n".join(out)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_latex(self) -> str:
        """A LaTeX fragment (needs amsmath): the result, the givens and one align* per step."""
        out = [f"\\textbf{{Warning:}} {_latex_escape(w)}\\\\" for w in self.warnings]
        out.append(r"\begin{itemize}")
        for name, given in self.givens.items():
            origin = "given" if given.origin == "given" else _latex_escape(given.note)
            out.append(f"  \\item ${given.variable.latex}$ (\\texttt{{{_latex_escape(name)}}}) "
                       f"$= {format_quantity(given.quantity, style='latex')}$ --- {origin}")
        out.append(r"\end{itemize}")
        for number, step in enumerate(self.steps, 1):
            head = " + ".join(f.title for f in step.formulas)
            sources = "; ".join(dict.fromkeys(f.source for f in step.formulas))
            out.append(f"\\paragraph{{{number}. {_latex_escape(head)}}} "
                       f"{{\\small {_latex_escape(sources)}}}")
            out.append(r"\begin{align*}")
            symbol = Printer(_latex_symbol, style="latex")
            for f in step.formulas:
                out.append(f"  {symbol(f.equation.lhs)} &= {symbol(f.equation.rhs)} \\\\")
            for var in step.unknowns:
                expr = step.solved[var.name]

                def leaf(s: sympy.Symbol, step: StepRecord = step) -> str:
                    q = self._display(s.name, step.values.get(s.name))
                    return format_quantity(q, style="latex")

                values = Printer(leaf, style="latex", substituted=True)(expr)
                result = format_quantity(self._display(var.name), style="latex")
                if not all(_explicit(f, var) for f in step.formulas):
                    out.append(f"  \\Rightarrow {var.latex} &= {symbol(expr)} \\\\")
                out.append(f"  &= {values} \\\\")
                out.append(f"  &= {result}")
            out.append(r"\end{align*}")
        extra = [line for line in self._extra_text() if line]
        if extra:
            out.append(r"\begin{itemize}")
            out += [f"  \\item {_latex_escape(line.strip())}" for line in extra]
            out.append(r"\end{itemize}")
        return "\n".join(out)

    def to_dict(self) -> dict:
        """A JSON-ready form of the whole answer."""

        def qty(q: pint.Quantity) -> dict:
            return {"value": float(q.magnitude), "unit": format_unit(q.units, style="ascii"),
                    "text": format_quantity(q)}

        return {
            "targets": {name: qty(q) for name, q in self.values.items()},
            "givens": [{"name": n, **qty(g.quantity), "origin": g.origin, "source": g.note,
                        "reading": g.reading or None} for n, g in self.givens.items()],
            "steps": [{
                "formulas": [f.name for f in s.formulas],
                "titles": [f.title for f in s.formulas],
                "sources": [f.source for f in s.formulas],
                "equations": [_equation_text(f) for f in s.formulas],
                "solved_for": [v.name for v in s.unknowns],
                "rearranged": {v.name: f"{v.name} = {Printer(_name)(s.solved[v.name])}"
                               for v in s.unknowns},
                "substituted": {v.name: Printer(self._leaf_text(s), substituted=True)(
                    s.solved[v.name]) for v in s.unknowns},
                "results": {v.name: qty(self._display(v.name)) for v in s.unknowns},
                "rounding": s.rounding,
            } for s in self.steps],
            "checks": [{"formula": c.formula.name, "relative_difference": c.relative_difference,
                        "agrees": c.agrees, "needed_for_answer": not c.beyond,
                        "text": c.describe()} for c in self.checks],
            "constraints": [{"name": c.constraint.name, "title": c.constraint.title,
                             "holds": c.holds, "share_of_limit": c.share,
                             "text": c.describe(), "source": c.constraint.source,
                             "message": "" if c.holds else c.constraint.message}
                            for c in self.constraints],
            "set_aside": [{"name": n, **qty(g.quantity), "origin": g.origin, "source": g.note,
                           "reason": why} for n, (g, why) in self.set_aside.items()],
            "warnings": self.warnings,
            "notes": self.notes,
            "assumptions": [{"name": n, "text": g.note} for n, g in self.assumptions.items()],
            "unused_givens": sorted(self.unused),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; never NaN or Infinity (non-finite numbers become null)."""
        return json.dumps(finite_json(self.to_dict()), indent=indent, ensure_ascii=False,
                          allow_nan=False)

    def to_frame(self):
        """A one-row pandas DataFrame: targets and givens, columns 'name [unit]'."""
        from napkinmath.rendering.frames import to_frame

        return to_frame(self)

    def _repr_html_(self) -> str:
        """The headline, givens and steps in HTML, the formulas as $...$ for MathJax/KaTeX."""
        import html

        out = [f"<p><strong>{html.escape(line)}</strong></p>" for line in self.headline()]
        out += [f"<p><strong>Warning:</strong> {html.escape(w)}</p>" for w in self.warnings]
        out.append("<table><thead><tr><th>given</th><th>value</th><th>from</th></tr></thead>"
                   "<tbody>")
        for name, given in self.givens.items():
            out.append(f"<tr><td><code>{html.escape(name)}</code></td>"
                       f"<td>{html.escape(format_quantity(given.quantity))}</td>"
                       f"<td>{html.escape(_origin(given))}</td></tr>")
        out.append("</tbody></table><ol>")
        symbol = Printer(_latex_symbol, style="latex")
        for step in self.steps:
            head = " + ".join(f.title for f in step.formulas)
            sources = "; ".join(dict.fromkeys(f.source for f in step.formulas))
            math_lines = [f"{symbol(f.equation.lhs)} = {symbol(f.equation.rhs)}"
                          for f in step.formulas]
            results = [f"{v.latex} = {format_quantity(self._display(v.name), style='latex')}"
                       for v in step.unknowns]
            out.append(f"<li><strong>{html.escape(head)}</strong> <em>{html.escape(sources)}"
                       "</em><br>" + "<br>".join(f"${html.escape(m)}$"
                                                 for m in math_lines + results) + "</li>")
        out.append("</ol>")
        extra = [line for line in self._extra_text() if line]
        if extra:
            out.append("<pre>" + html.escape("\n".join(extra)) + "</pre>")
        return "\n".join(out)

    def _repr_latex_(self) -> str:
        """Math only, for IPython.display.Latex: the headline and each step's equations."""
        symbol = Printer(_latex_symbol, style="latex")
        lines = []
        for name in self.targets:
            var = self._var(name)
            lines.append(f"{var.latex} = {format_quantity(self.values[name], style='latex')}")
        for step in self.steps:
            lines += [f"{symbol(f.equation.lhs)} = {symbol(f.equation.rhs)}"
                      for f in step.formulas]
        return "$$\\begin{aligned}" + " \\\\ ".join(
            line.replace("=", "&=", 1) for line in lines) + "\\end{aligned}$$"

    def sensitivity(self, target: str | None = None, relative: float = 0.1):
        """Which input this answer hangs on: the elasticity d ln y / d ln x of `target` (the
        first target) to every given, record value and default, and its swing for ±`relative`
        of each (a tornado with `.plot()`). Needs numpy."""
        from napkinmath.whatif.sensitivity import sensitivity

        return sensitivity(self, (), target, relative)


def finite_json(data: object) -> object:
    """`data` with every non-finite float replaced by None (JSON has no NaN or Infinity)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite_json(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite_json(v) for v in data]
    return data


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _origin(g: Given) -> str:
    """'you', 'you: 1,024 node × ...' (a converted given), the record's note, or
    'ASSUMPTION: ...'."""
    if g.origin == "given":
        said = [text for text in (g.note if g.note != "given" else "", g.reading) if text]
        return "you: " + "; ".join(said) if said else "you"
    return ("ASSUMPTION: " if g.origin == "assumption" else "") + g.note


def _explicit(f: Formula, var: Variable) -> bool:
    return f.equation.lhs == var.symbol


def _equation_text(f: Formula) -> str:
    printer = Printer(_name)
    return f"{printer(f.equation.lhs)} = {printer(f.equation.rhs)}"


def _latex_symbol(symbol: sympy.Symbol) -> str:
    from napkinmath.library.lookup import variables

    return variables()[symbol.name].latex


def _latex_escape(text: str) -> str:
    for char, repl in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"),
                       ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\~{}"),
                       ("^", r"\^{}")):
        text = text.replace(char, repl)
    return text
