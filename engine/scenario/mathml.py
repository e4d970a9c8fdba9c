"""Equations as presentation MathML, which browsers render natively, printed from the
layouts the library stores (`napkinmath.rendering.exprprint`), so a report never imports
sympy for its math.

Variables print as their names (the names of the givens table); in the substituted line each
variable prints as its value with its unit, as the text derivation shows it (a fraction
inside a power as a plain number).
"""

from __future__ import annotations

from collections.abc import Callable

from napkinmath.rendering.exprprint import Layout, Name
from napkinmath.rendering.mathml import MathMLPrinter, block, mtext, tag

__all__ = ["block", "name", "names", "text", "values"]


def name(text: str) -> str:
    """A variable's name as a MathML identifier."""
    return tag("mi", text)


def _name(node: Name) -> str:
    return name(node.name)


def names(layout: Layout) -> str:
    """The expression over variable names, as a MathML fragment."""
    return MathMLPrinter(_name)(layout)


def values(layout: Layout, leaf: Callable[[Name], str], plain_leaf: Callable[[Name], str]) -> str:
    """The expression with each variable replaced by `leaf(node)` (its value, as text), and
    by `plain_leaf(node)` inside a power, multiplied with ×."""
    return MathMLPrinter(
        lambda node: mtext(leaf(node)),
        substituted=True,
        plain_leaf=lambda node: mtext(plain_leaf(node)),
    )(layout)


def text(value: str) -> str:
    """Plain text (a value with its unit) inside math."""
    return mtext(value)
