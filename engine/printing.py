"""The printers and what-ifs an answer asks for (`napkinmath.answer.printers.Printers`), each
imported on first use: the text printer with the first answer printed, numpy only with the
first what-if. The package passes `PRINTERS` to the answer model as it is imported."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from napkinmath.answer.data import CheckRecord, ConstraintRecord, StepRecord
    from napkinmath.answer.result import Result
    from napkinmath.library.declare import Formula, Variable
    from napkinmath.library.print_layout import Name
    from napkinmath.text.sources import Sources


class Printers:
    """`napkinmath.answer.printers.Printers`, delegating to napkinmath.rendering (result,
    typeset, notebook, brief) and napkinmath.whatif (frames, sensitivity)."""

    def text(self, r: Result) -> str:
        from napkinmath.rendering.result import text

        return text(r)

    def headline(self, r: Result, style: str = "text") -> list[str]:
        from napkinmath.rendering.result import headline

        return headline(r, style)

    def warnings(self, r: Result) -> list[str]:
        from napkinmath.rendering.result import warnings

        return warnings(r)

    def brief(self, r: Result) -> str:
        from napkinmath.rendering.brief import brief

        return brief(r)

    def markdown(self, r: Result) -> str:
        from napkinmath.rendering.typeset import markdown

        return markdown(r)

    def latex(self, r: Result, standalone: bool = False) -> str:
        from napkinmath.rendering.typeset import latex

        return latex(r, standalone)

    def latex_math(self, r: Result) -> str:
        from napkinmath.rendering.typeset import latex_math

        return latex_math(r)

    def html(self, r: Result) -> str:
        from napkinmath.rendering.typeset import html

        return html(r)

    def to_dict(self, r: Result) -> dict:
        from napkinmath.rendering.result import to_dict

        return to_dict(r)

    def to_json(self, r: Result, indent: int | None = 2) -> str:
        from napkinmath.rendering.result import to_json

        return to_json(r, indent)

    def givens_text(
        self, r: Result, shown: Mapping[str, str] | None = None, sources: Sources | None = None
    ) -> list[str]:
        from napkinmath.rendering.result import givens_text

        return givens_text(r, shown, sources)

    def givens_rows(
        self, r: Result, shown: Mapping[str, str] | None = None, sources: Sources | None = None
    ) -> list[tuple[str, str, str]]:
        from napkinmath.rendering.notebook import givens_rows

        return givens_rows(r, shown, sources)

    def derivation_html(
        self,
        r: Result,
        spread: Callable[[str], str],
        extra: Callable[[str], str],
        sources: Sources,
    ) -> list[str]:
        from napkinmath.rendering.notebook import derivation_html

        return derivation_html(r, spread, extra, sources)

    def steps_text(
        self,
        r: Result,
        spread: Callable[[str], str] | None = None,
        sources: Sources | None = None,
    ) -> list[str]:
        from napkinmath.rendering.result import steps_text

        return steps_text(r, spread, sources)

    def checks_text(self, r: Result) -> list[str]:
        from napkinmath.rendering.result import checks_text

        return checks_text(r)

    def value_lines(
        self, r: Result, step: StepRecord, var: Variable, style: str = "text"
    ) -> list[str]:
        from napkinmath.rendering.result import value_lines

        return value_lines(r, step, var, style)

    def leaf_text(
        self, r: Result, step: StepRecord, style: str = "text", plain: bool = False
    ) -> Callable[[Name], str]:
        from napkinmath.rendering.result import leaf_text

        return leaf_text(r, step, style, plain)

    def describe_check(self, c: CheckRecord) -> str:
        from napkinmath.rendering.result import describe_check

        return describe_check(c)

    def describe_constraint(self, c: ConstraintRecord) -> str:
        from napkinmath.rendering.result import describe_constraint

        return describe_constraint(c)

    def constraint_line(self, c: ConstraintRecord) -> str:
        from napkinmath.rendering.result import constraint_line

        return constraint_line(c)

    def equation_text(self, f: Formula) -> str:
        from napkinmath.rendering.result import equation_text

        return equation_text(f)

    def to_frame(self, obj: object, pint: bool = False) -> Any:
        from napkinmath.whatif.frames import to_frame

        return to_frame(obj, pint)

    def sensitivity(
        self,
        result: Result,
        bounds: tuple[()] = (),
        target: str | None = None,
        relative: float = 0.1,
    ) -> Any:
        from napkinmath.whatif.sensitivity import sensitivity

        return sensitivity(result, bounds, target, relative)


PRINTERS = Printers()
