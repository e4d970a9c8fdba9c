"""The answer to a question: values, the givens with their origins, the steps, the checks.

A Result holds the answer as data and reads its values (`values`, `value`, `r[name]`, in the
unit you chose or the one a person would choose); it prints as Unicode text (``str``),
Markdown, LaTeX, HTML or JSON through the printers of `napkinmath.rendering.result` and
`napkinmath.rendering.typeset`, and answers `sensitivity` through
`napkinmath.whatif.sensitivity`, both asked of `printers()` (the typed interface
`napkinmath.answer.printers.Printers`), so that this module imports neither.
"""

from __future__ import annotations

import copy
from functools import cached_property
from typing import TYPE_CHECKING

from napkinmath import arguments
from napkinmath.answer.data import (
    CheckRecord,
    ConstraintRecord,
    Given,
    LayerTable,
    StepRecord,
    display,
)
from napkinmath.answer.printers import printers
from napkinmath.answer.roundoff import cancels
from napkinmath.errors import InputError, UnknownKeyError
from napkinmath.library.declare import Constraint, Variable
from napkinmath.text.numbers import DEFAULT_DIGITS, format_value
from napkinmath.units import Quantity, humanize

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import pandas as pd
    import pint

    from napkinmath.text.sources import Sources

#: the styles of `Result.headline` (Markdown and HTML take the text)
HEADLINE_STYLES = ("text", "markdown", "html", "latex", "ascii")


class Result:
    """The solved targets and how they were derived."""

    def __init__(
        self,
        targets: tuple[str, ...],
        values: dict[str, pint.Quantity],
        givens: dict[str, Given],
        steps: list[StepRecord],
        checks: list[CheckRecord],
        tolerance: float,
    ) -> None:
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
        #: for an answer that reads the step from its parts: one layer's operators
        #: (`napkinmath.solving.layer_table`), or None
        self.layer_table: LayerTable | None = None

    @property
    def warnings(self) -> list[str]:
        """Violated constraints and disagreeing checks, one sentence each."""
        return printers().warnings(self)

    @property
    def fits(self) -> bool:
        """True when every constraint the answer touches holds."""
        return all(c.holds for c in self.constraints)

    # --- values ---------------------------------------------------------------------------
    @property
    def values(self) -> dict[str, pint.Quantity[float]]:
        """Every target, in the unit you chose (`units=`) or the one a person would choose."""
        return {
            name: q.to(self.units[name])
            if name in self.units
            else humanize(q, self._var(name).display_unit)
            for name, q in self._raw.items()
        }

    @property
    def value(self) -> pint.Quantity[float]:
        """The first target, in the unit a person would choose (58.5 GPU, 19.2 day)."""
        return self.values[self.targets[0]]

    def __getitem__(self, name: str) -> pint.Quantity[float]:
        """A target's value (`values[name]`); UnknownKeyError (a KeyError) naming the
        targets for anything else."""
        found = self.values
        if isinstance(name, str) and name in found:
            return found[name]
        raise UnknownKeyError(
            f"name={arguments.shown(name)}: not a target of this answer; the targets here "
            f"are: {', '.join(self.targets)} (the givens are in .givens)",
            name if isinstance(name, str) else None,
        )

    @property
    def assumptions(self) -> dict[str, Given]:
        """The givens that are stated assumptions rather than user input or hardware specs."""
        return {n: g for n, g in self.givens.items() if g.origin == "assumption"}

    def _var(self, name: str) -> Variable:
        from napkinmath.catalog.lookup import variables

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

    def _exact(self, name: str) -> pint.Quantity:
        """A step's result, exact, in the unit it is displayed in (round-off kept)."""
        if name in self.givens:
            return self.givens[name].quantity
        shown = display(self._base(name), self._var(name))
        return shown.to(self.units[name]) if name in self.units else shown

    def _fmt(self, q: pint.Quantity, var: Variable | None = None, style: str = "text") -> str:
        """A value as a person reads it: percent for fractions, 11.06M USD, `digits` figures."""
        return format_value(q, var, self.digits, style)

    @cached_property
    def _roundoff(self) -> frozenset[str]:
        """Results that are round-off of zero: the terms they come from cancel (5.5×10⁻¹⁷ s
        left of 0.8 s − 800 ms)."""
        return frozenset(
            v.name
            for s in self.steps
            for v in s.unknowns
            if s.values.get(v.name) and cancels(s.roots[v.name], s.values)
        )

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
            raise InputError(
                f"digits={arguments.shown(digits)}: give the significant figures "
                "as a whole number from 1 to 15, like digits=3",
                "digits",
            )
        if digits == self.digits:
            return self
        shown = copy.copy(self)
        shown.digits = digits
        return shown

    # --- printed (napkinmath.rendering) ---------------------------------------------------
    def format(self, digits: int | None = None, style: str = "text") -> str:
        """The answer as 'text', 'markdown', 'latex', 'html' or 'json', numbers shown to
        `digits` significant figures (the values themselves stay exact)."""
        renderers = {
            "text": Result.to_text,
            "markdown": Result.to_markdown,
            "latex": Result.to_latex,
            "html": Result._repr_html_,
            "json": Result.to_json,
        }
        style = arguments.choice(style, "style", renderers)
        return renderers[style](self._with_digits(digits))

    def headline(self, style: str = "text") -> list[str]:
        """One line per target, 'n_gpus = 58.48 GPU', in `style` 'text', 'latex' or 'ascii'."""
        style = arguments.choice(style, "style", HEADLINE_STYLES)
        return printers().headline(self, style)

    def brief(self) -> str:
        """Three lines for a design doc: the last step with its numbers on one line, the
        answer, and a sentence naming the input it hangs on (from `sensitivity()`)."""
        return printers().brief(self)

    def __str__(self) -> str:
        return printers().text(self)

    def __repr__(self) -> str:
        inner = ", ".join(self.headline())
        return f"<Result {inner}>"

    def to_text(self, digits: int | None = None) -> str:
        """The derivation as Unicode text (what `print(r)` shows), to `digits` figures."""
        return str(self._with_digits(digits))

    def to_markdown(self, digits: int | None = None) -> str:
        """The answer as Markdown: headline, a table of givens, numbered steps, sources."""
        return printers().markdown(self._with_digits(digits))

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_latex(
        self, digits: int | None = None, math_only: bool = False, standalone: bool = False
    ) -> str:
        """LaTeX for pdflatex (needs amsmath): the headline, the givens, one align* per step
        and the numbered sources. `math_only=True` gives the headline and the equations as
        one $$...$$ block that `IPython.display.Latex` and MathJax render; `standalone=True`
        wraps the fragment in a document that pdflatex compiles as is."""
        shown = self._with_digits(digits)
        if arguments.flag(math_only, "math_only"):
            return printers().latex_math(shown)
        return printers().latex(shown, standalone)

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready form of the whole answer: exact values, display text beside them."""
        return printers().to_dict(self)

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text; never NaN or Infinity (non-finite numbers become null)."""
        return printers().to_json(self, indent)

    def to_frame(self, pint: bool = False) -> pd.DataFrame:
        """A one-row pandas DataFrame: targets and givens, columns 'name [unit]' (`pint=True`:
        columns by name, of pint-pandas `pint[unit]` dtypes)."""
        return printers().to_frame(self, pint)

    def _repr_html_(self) -> str:
        """The headline, givens and steps in HTML, the math as MathML (typeset offline)."""
        return printers().html(self)

    def _repr_latex_(self) -> str:
        """Math only, for IPython.display.Latex: the headline and each step's equations."""
        return self.to_latex(math_only=True)

    # the parts of the text, for the printers of what-ifs and plan reports
    def _givens_text(
        self, shown: Mapping[str, str] | None = None, sources: Sources | None = None
    ) -> list[str]:
        """One line per given; `shown` replaces the value text of some (ranges, spreads)."""
        return printers().givens_text(self, shown, sources)

    def _givens_rows(
        self, shown: Mapping[str, str] | None = None, sources: Sources | None = None
    ) -> list[tuple[str, str, str]]:
        """(name, value, origin) per given, for HTML tables; `shown` as in `_givens_text`."""
        return printers().givens_rows(self, shown, sources)

    def _derivation_html(
        self, spread: Callable[[str], str], extra: Callable[[str], str], sources: Sources
    ) -> list[str]:
        """The steps as notebook HTML (MathML), each result's value as `spread(name)` and
        `extra(name)` under it (what-ifs), and the symbol legend."""
        return printers().derivation_html(self, spread, extra, sources)

    def _steps_text(
        self, spread: Callable[[str], str] | None = None, sources: Sources | None = None
    ) -> list[str]:
        """The derivation's steps; `spread(name)` replaces each result's numbers (what-ifs);
        with `sources`, citations are numbers into it."""
        return printers().steps_text(self, spread, sources)

    def _checks_text(self) -> list[str]:
        return printers().checks_text(self)

    def _value_lines(self, step: StepRecord, var: Variable, style: str = "text") -> list[str]:
        """The substituted line and the result, once when they read the same."""
        return printers().value_lines(self, step, var, style)

    def _leaf_text(self, step: StepRecord, style: str = "text", plain: bool = False) -> Callable:
        """Prints a symbol of `step` as its value; `plain`: a fraction as a number, not %."""
        return printers().leaf_text(self, step, style, plain)

    # --- what-ifs (napkinmath.whatif) -----------------------------------------------------
    def sensitivity(self, target: str | None = None, relative: float = 0.1):
        """Which input this answer hangs on: the elasticity d ln y / d ln x of `target` (the
        first target) to every given, record value and default, and its swing for ±`relative`
        of each (a tornado with `.plot()`). Needs numpy."""
        return printers().sensitivity(self, (), target, relative)
