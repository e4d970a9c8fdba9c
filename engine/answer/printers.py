"""What an answer asks of the layers above it: its printers (`napkinmath.rendering`) and its
what-ifs (`napkinmath.whatif`), as one typed interface.

An answer is data below its printers, so it cannot import them: it asks `printers()` for an
object with these methods, which the package (`napkinmath/__init__.py`) passes in once with
`use` (`napkinmath.printing`, whose methods import each printer on first use, so that an
answer imports no printer and no numpy until it is printed or asked a what-if).

    printers().text(result)       # napkinmath.rendering.result.text, imported then
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from napkinmath.answer.data import CheckRecord, ConstraintRecord, StepRecord
    from napkinmath.answer.result import Result
    from napkinmath.library.declare import Formula, Variable
    from napkinmath.library.print_layout import Name
    from napkinmath.text.sources import Sources


class Printers(Protocol):
    """The printers and what-ifs of an answer (each documented where it is defined)."""

    def text(self, r: Result) -> str: ...
    def headline(self, r: Result, style: str = "text") -> list[str]: ...
    def warnings(self, r: Result) -> list[str]: ...
    def brief(self, r: Result) -> str: ...
    def markdown(self, r: Result) -> str: ...
    def latex(self, r: Result, standalone: bool = False) -> str: ...
    def latex_math(self, r: Result) -> str: ...
    def html(self, r: Result) -> str: ...
    def to_dict(self, r: Result) -> dict: ...
    def to_json(self, r: Result, indent: int | None = 2) -> str: ...
    def givens_text(
        self, r: Result, shown: Mapping[str, str] | None = None, sources: Sources | None = None
    ) -> list[str]: ...
    def givens_rows(
        self, r: Result, shown: Mapping[str, str] | None = None, sources: Sources | None = None
    ) -> list[tuple[str, str, str]]: ...
    def derivation_html(
        self,
        r: Result,
        spread: Callable[[str], str],
        extra: Callable[[str], str],
        sources: Sources,
    ) -> list[str]: ...
    def steps_text(
        self,
        r: Result,
        spread: Callable[[str], str] | None = None,
        sources: Sources | None = None,
    ) -> list[str]: ...
    def checks_text(self, r: Result) -> list[str]: ...
    def value_lines(
        self, r: Result, step: StepRecord, var: Variable, style: str = "text"
    ) -> list[str]: ...
    def leaf_text(
        self, r: Result, step: StepRecord, style: str = "text", plain: bool = False
    ) -> Callable[[Name], str]: ...
    def describe_check(self, c: CheckRecord) -> str: ...
    def describe_constraint(self, c: ConstraintRecord) -> str: ...
    def constraint_line(self, c: ConstraintRecord) -> str: ...
    def equation_text(self, f: Formula) -> str: ...
    def to_frame(self, obj: object, pint: bool = False) -> Any: ...
    def sensitivity(
        self,
        result: Result,
        bounds: tuple[()] = (),
        target: str | None = None,
        relative: float = 0.1,
    ) -> Any: ...


_find: Callable[[], Printers] | None = None


def use(find: Callable[[], Printers]) -> None:
    """Find the printers with `find` (set once by the package as it is imported)."""
    global _find
    _find = find


def printers() -> Printers:
    """The printers and what-ifs of an answer."""
    if _find is None:  # only if the answer model were used without the package's __init__
        raise RuntimeError("napkinmath's printers are not set up: import napkinmath")
    return _find()
