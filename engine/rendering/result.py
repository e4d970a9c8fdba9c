"""The answer to a question: values, the givens with their origins, the steps, the checks.

A Result renders its derivation as Unicode text (``str``), Markdown, LaTeX, or a JSON-ready
dict; in Jupyter it shows as HTML with typeset math (`typeset`). Numbers are shown as people
write them (`numbers`: percent, 11.05M USD, `digits`), round-off of zero as 0 (`roundoff`),
long citations as numbers into a sources list (`sources`); the values themselves stay exact.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from napkinmath import arguments
from napkinmath.errors import InputError
from napkinmath.library.declare import Constraint, Formula, Variable
from napkinmath.rendering.exprprint import Name, Printer
from napkinmath.rendering.latex import document as latex_document
from napkinmath.rendering.numbers import DEFAULT_DIGITS, format_value, is_fraction
from napkinmath.rendering.roundoff import ROUNDOFF_NOTE, cancels
from napkinmath.rendering.sources import Sources, record_source
from napkinmath.text.visible import json_visible, visible
from napkinmath.units import Quantity, format_number, format_unit, humanize, ureg

if TYPE_CHECKING:
    import pint
    import sympy

    from napkinmath.library.tree import Tree
    from napkinmath.solving.cancel import Cancel
    from napkinmath.solving.invert import Compiled

#: the styles of `Result.headline` (Markdown and HTML take the text)
HEADLINE_STYLES = ("text", "markdown", "html", "latex", "ascii")


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
        quantity, unit = self.quantity, self.variable.unit
        # already in the variable's unit: pint's conversion would return the magnitude as is
        same = quantity._units == unit._units
        magnitude = quantity.magnitude if same else quantity.m_as(unit)
        return float(magnitude) * self.variable.base_factor


@dataclass
class StepRecord:
    """One solved block: formulas, unknowns, the rearranged expressions, the numbers used."""

    formulas: tuple[Formula, ...]
    unknowns: tuple[Variable, ...]
    #: each unknown's rearranged expression, compiled (`.tree`, `.layout`, `.expr` in sympy)
    roots: dict[str, Compiled]
    values: dict[str, float]  # base-unit values of every variable of the formulas
    rounding: bool = False
    note: str = ""  # e.g. other roots the bounds also admit, or what cancels
    #: for formulas combined, variables of theirs cancelling (`napkinmath.solving.cancel`)
    cancel: Cancel | None = None

    @property
    def solved(self) -> dict[str, sympy.Expr]:
        """Each unknown's rearranged expression in sympy (imports sympy)."""
        return {name: root.expr for name, root in self.roots.items()}


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
        left = format_value(display(self.lhs, var), var)
        right = format_value(display(self.rhs, var), var)
        rhs_text = Printer(_name)(self.formula.layouts[1])
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
        unit = _base_unit(c.trees[0])
        left, right = humanize(Quantity(self.lhs, unit)), humanize(Quantity(self.rhs, unit))
        var = _fraction_symbol(c.trees[0])  # utilization < 1: 62.5% < 100%
        sign = ("<" if c.strict else "≤") if self.holds else ("≥" if c.strict else ">")
        if self.holds:
            margin = f"{self.share:.0%} of the limit"
        else:
            margin = f"{format_number(self.share, sig=3)}× the limit"
        return f"{format_value(left, var)} {sign} {format_value(right, var)} ({margin})"

    def line(self) -> str:
        c = self.constraint
        if self.holds:
            return f"✓ {c.title}: {self.describe()}"
        return f"✗ VIOLATED: {c.title}: {self.describe()}. {_sentence(c.message)}"


def _base_unit(expr: Tree) -> pint.Unit:
    """The base unit of an expression tree over library variables (for showing its value)."""
    from napkinmath.library import tree
    from napkinmath.library.lookup import variables

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
    from napkinmath.library.lookup import variables

    var = variables().get(expr[1]) if expr[0] == "s" else None
    return var if var is not None and is_fraction(var) else None


def from_base(base_value: float, var: Variable) -> pint.Quantity:
    """A base-unit float of `var` as a Quantity in the variable's own unit."""
    return Quantity(base_value / var.base_factor, var.unit)


def display(base_value: float, var: Variable) -> pint.Quantity:
    """A base-unit float of `var` as a Quantity in the unit a person would choose."""
    return humanize(from_base(base_value, var), var.display_unit)


def _name(symbol: Name) -> str:
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
        #: the constraints the answer touches and the blocks beyond its plan that compute
        #: what they read: a what-if evaluates them at every point (`whatif.vectorize`)
        self.feasibility: tuple[tuple[Constraint, ...], tuple] = ((), ())
        #: things a reader must know: violated constraints, disagreeing checks (when asked to
        #: warn rather than fail), checks that could not be evaluated
        self.notes: list[str] = []
        #: units the user chose for some variables (solve(..., units={...}))
        self.units: dict[str, pint.Unit] = {}
        #: significant figures of the numbers shown (the values themselves stay exact)
        self.digits: int = DEFAULT_DIGITS

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
        if name in self._roundoff:
            return self._zero(name)
        shown = display(base if base is not None else self._base(name), self._var(name))
        return shown.to(self.units[name]) if name in self.units else shown

    def _base(self, name: str) -> float:
        for step in self.steps:
            if name in step.values:
                return step.values[name]
        q = self._raw[name]
        return float(q.to_base_units().magnitude)

    # --- display --------------------------------------------------------------------------
    def _fmt(self, q: pint.Quantity, var: Variable | None = None, style: str = "text") -> str:
        """A value as a person reads it: percent for fractions, 11.06M USD, `digits` figures."""
        return format_value(q, var, self.digits, style)

    @cached_property
    def _roundoff(self) -> frozenset[str]:
        """Results that are round-off of zero: the terms they come from cancel (5.5×10⁻¹⁷ s
        left of 0.8 s − 800 ms)."""
        return frozenset(v.name for s in self.steps for v in s.unknowns
                         if s.values.get(v.name) and cancels(s.roots[v.name], s.values))

    def _shown(self, name: str) -> pint.Quantity:
        """A target as displayed: in its chosen or human unit, 0 when it is round-off."""
        if name in self._roundoff:
            return self._zero(name)
        return self.values[name]

    def _zero(self, name: str) -> pint.Quantity:
        var = self._var(name)
        return Quantity(0, self.units.get(name) or var.display_unit or var.unit)

    def _with_digits(self, digits: int | None) -> Result:
        if digits is None:
            return self
        if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 15:
            raise InputError(f"digits={arguments.shown(digits)}: give the significant figures "
                             "as a whole number from 1 to 15, like digits=3", "digits")
        if digits == self.digits:
            return self
        shown = copy.copy(self)
        shown.digits = digits
        return shown

    def format(self, digits: int | None = None, style: str = "text") -> str:
        """The answer as 'text', 'markdown', 'latex', 'html' or 'json', numbers shown to
        `digits` significant figures (the values themselves stay exact)."""
        renderers = {"text": Result.to_text, "markdown": Result.to_markdown,
                     "latex": Result.to_latex, "html": Result._repr_html_,
                     "json": Result.to_json}
        style = arguments.choice(style, "style", renderers)
        return renderers[style](self._with_digits(digits))

    # --- renderers ------------------------------------------------------------------------
    def headline(self, style: str = "text") -> list[str]:
        """One line per target, 'n_gpus = 58.48 GPU', in `style` 'text', 'latex' or 'ascii'."""
        style = arguments.choice(style, "style", HEADLINE_STYLES)
        lines = []
        rounded = {v.name: v for s in self.steps if s.rounding for v in s.unknowns}
        for name in self.targets:
            var = self._var(name)
            text = f"{name} = {self._fmt(self._shown(name), var, style)}"
            extra = [f"{r} = {self._fmt(self._display(r), self._var(r), style)}"
                     for r in var.rounding if r in rounded]
            if extra:
                text += f"   (rounded: {', '.join(extra)})"
            if name in self._roundoff:
                text += f"   ({ROUNDOFF_NOTE})"
            lines.append(text)
        return lines

    def _step_head(self, number: int, step: StepRecord, sources: Sources | None) -> str:
        names = ", ".join(v.name for v in step.unknowns)
        head = " + ".join(f.title for f in step.formulas)
        if any(not _explicit(f, v) for f in step.formulas for v in step.unknowns):
            head += f", solved for {names}"
        cited = [f.source for f in step.formulas]
        where = (sources.cite(*cited) if sources is not None
                 else f"[{'; '.join(dict.fromkeys(cited))}]")
        return f"{number}. {head}  {where}"

    def _steps_text(self, spread: Callable[[str], str] | None = None,
                    sources: Sources | None = None) -> list[str]:
        """The derivation's steps; `spread(name)` replaces each result's numbers (what-ifs);
        with `sources`, citations are numbers into it."""
        lines: list[str] = []
        for number, step in enumerate(self.steps, 1):
            lines.append(self._step_head(number, step, sources))
            for f in step.formulas:
                lines.append("   " + _equation_text(f))
            for var in step.unknowns:
                expr = step.roots[var.name].layout
                pad = " " * (len(var.name) + 1)
                if not all(_explicit(f, var) for f in step.formulas):
                    lines.append(f"   ⇒ {var.name} = {Printer(_name)(expr)}")
                    pad = " " * (len(var.name) + 3)
                if spread is not None:  # a what-if answer: the step's range or percentiles
                    lines.append(f"   {pad}= {spread(var.name)}")
                    continue
                for shown in self._value_lines(step, var):
                    lines.append(f"   {pad}= {shown}")
            notes = [f.note for f in step.formulas if f.note and step.rounding]
            notes += [f"ASSUMPTION: {f.note}" for f in step.formulas if f.assumption]
            notes += [step.note] if step.note and (spread is None or step.cancel) else []
            lines.extend(f"   ({note})" for note in notes)
        return lines

    def _value_lines(self, step: StepRecord, var: Variable, style: str = "text") -> list[str]:
        """The substituted line and the result, once when they read the same."""
        expr = step.roots[var.name].layout
        values = Printer(self._leaf_text(step, style), style=style, substituted=True,
                         plain_leaf=self._leaf_text(step, style, plain=True))(expr)
        result = self._fmt(self._display(var.name), var, style)
        if var.name in self._roundoff:
            result += (f"\\quad\\text{{({ROUNDOFF_NOTE})}}" if style == "latex"
                       else f"   ({ROUNDOFF_NOTE})")
        return [result] if values == result else [values, result]

    def _leaf_text(self, step: StepRecord, style: str = "text", plain: bool = False):
        """Prints a symbol of `step` as its value; `plain`: a fraction as a number, not %."""

        def leaf(symbol: Name) -> str:
            q = self._display(symbol.name, step.values.get(symbol.name))
            return self._fmt(q, None if plain else self._var(symbol.name), style)

        return leaf

    def _origin_text(self, given: Given, sources: Sources | None) -> str:
        """Where a given came from; with `sources`, a record's citation becomes [n]."""
        if sources is None:
            return _origin(given)
        what, cited = record_source(given.origin, given.note)
        if not cited:
            return _origin(given)
        marker = sources.cite(cited)
        trimmed = Given(given.variable, given.quantity, given.origin, f"{what} {marker}",
                        given.reading)
        return _origin(trimmed)

    def _givens_text(self, shown: Mapping[str, str] | None = None,
                     sources: Sources | None = None) -> list[str]:
        """One line per given; `shown` replaces the value text of some (ranges, spreads)."""
        lines = []
        width = max((len(n) for n in self.givens), default=0)
        for name, given in self.givens.items():
            value = (shown or {}).get(name) or self._fmt(given.quantity, given.variable)
            lines.append(f"  {name.ljust(width)} = {value}   "
                         f"({self._origin_text(given, sources)})")
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
                f"{n} = {self._fmt(g.quantity, g.variable)} ({_origin(g)})")
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

    def _unused_text(self) -> str:
        shown = ", ".join(f"{n} = {self._fmt(g.quantity, g.variable)}"
                          for n, g in self.unused.items())
        return f"(given but not needed for this answer: {shown})"

    def __str__(self) -> str:
        sources = Sources()
        lines = self.headline()
        lines += [f"WARNING: {w}" for w in self.warnings]
        lines += ["", "Given:", *self._givens_text(sources=sources)]
        if self.unused:
            lines.append(f"  {self._unused_text()}")
        lines += ["", "Derivation:", *(self._steps_text(sources=sources) or [
            "  none needed: every target is a given or a record value"])]
        lines += self._extra_text()
        if sources:
            lines += ["", "Sources:", *[f"  [{n}] {s}" for n, s in sources.entries()]]
        return visible("\n".join(lines), keep="\n")  # a record's ESC shown, not obeyed

    def __repr__(self) -> str:
        inner = ", ".join(self.headline())
        return f"<Result {inner}>"

    def to_text(self, digits: int | None = None) -> str:
        """The derivation as Unicode text (what `print(r)` shows), to `digits` figures."""
        return str(self._with_digits(digits))

    def to_markdown(self, digits: int | None = None) -> str:
        """The answer as Markdown: headline, a table of givens, numbered steps, sources."""
        from napkinmath.rendering.typeset import markdown

        return markdown(self._with_digits(digits))

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_latex(self, digits: int | None = None, math_only: bool = False,
                 standalone: bool = False) -> str:
        """LaTeX for pdflatex (needs amsmath): the headline, the givens, one align* per step
        and the numbered sources. `math_only=True` gives the headline and the equations as
        one $$...$$ block that `IPython.display.Latex` and MathJax render; `standalone=True`
        wraps the fragment in a document that pdflatex compiles as is."""
        from napkinmath.rendering.typeset import latex, latex_math

        shown = self._with_digits(digits)
        if arguments.flag(math_only, "math_only"):
            return latex_math(shown)
        body = latex(shown)
        return latex_document(body) if arguments.flag(standalone, "standalone") else body

    def to_dict(self) -> dict:
        """A JSON-ready form of the whole answer: exact values, display text beside them."""

        def qty(q: pint.Quantity, var: Variable | None = None,
                shown: pint.Quantity | None = None) -> dict:
            return {"value": float(q.magnitude), "unit": format_unit(q.units, style="ascii"),
                    "text": self._fmt(q if shown is None else shown, var)}

        return {
            "targets": {name: qty(q, self._var(name), self._shown(name))
                        for name, q in self.values.items()},
            "givens": [{"name": n, **qty(g.quantity, g.variable), "origin": g.origin,
                        "source": g.note, "reading": g.reading or None}
                       for n, g in self.givens.items()],
            "steps": [{
                "formulas": [f.name for f in s.formulas],
                "titles": [f.title for f in s.formulas],
                "sources": [f.source for f in s.formulas],
                "equations": [_equation_text(f) for f in s.formulas],
                "solved_for": [v.name for v in s.unknowns],
                "rearranged": {v.name: f"{v.name} = {Printer(_name)(s.roots[v.name].layout)}"
                               for v in s.unknowns},
                "substituted": {v.name: Printer(self._leaf_text(s), substituted=True)(
                    s.roots[v.name].layout) for v in s.unknowns},
                "results": {v.name: qty(self._exact(v.name), v, self._display(v.name))
                            for v in s.unknowns},
                "rounding": s.rounding,
                **({"cancelled": list(s.cancel.names), "note": s.note} if s.cancel else {}),
            } for s in self.steps],
            "checks": [{"formula": c.formula.name, "relative_difference": c.relative_difference,
                        "agrees": c.agrees, "needed_for_answer": not c.beyond,
                        "text": c.describe()} for c in self.checks],
            "constraints": [{"name": c.constraint.name, "title": c.constraint.title,
                             "holds": c.holds, "share_of_limit": c.share,
                             "text": c.describe(), "source": c.constraint.source,
                             "message": "" if c.holds else c.constraint.message}
                            for c in self.constraints],
            "set_aside": [{"name": n, **qty(g.quantity, g.variable), "origin": g.origin,
                           "source": g.note, "reason": why}
                          for n, (g, why) in self.set_aside.items()],
            "warnings": self.warnings,
            "notes": self.notes,
            "assumptions": [{"name": n, "text": g.note} for n, g in self.assumptions.items()],
            "unused_givens": sorted(self.unused),
        }

    def _exact(self, name: str) -> pint.Quantity:
        """A step's result, exact, in the unit it is displayed in (round-off kept)."""
        if name in self.givens:
            return self.givens[name].quantity
        shown = display(self._base(name), self._var(name))
        return shown.to(self.units[name]) if name in self.units else shown

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; never NaN or Infinity (non-finite numbers become null)."""
        return json_visible(json.dumps(finite_json(self.to_dict()),
                                       indent=arguments.indent(indent), ensure_ascii=False,
                                       allow_nan=False))

    def to_frame(self):
        """A one-row pandas DataFrame: targets and givens, columns 'name [unit]'."""
        from napkinmath.rendering.frames import to_frame

        return to_frame(self)

    def _repr_html_(self) -> str:
        """The headline, givens and steps in HTML, the math as $...$ for MathJax/KaTeX."""
        from napkinmath.rendering.typeset import html

        return html(self)

    def _repr_latex_(self) -> str:
        """Math only, for IPython.display.Latex: the headline and each step's equations."""
        return self.to_latex(math_only=True)

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
    """Whether `f` reads `var` = ... as declared (no rearranging to show)."""
    return f.trees[0] == ("s", var.name)


def _equation_text(f: Formula) -> str:
    printer = Printer(_name)
    return f"{printer(f.layouts[0])} = {printer(f.layouts[1])}"
